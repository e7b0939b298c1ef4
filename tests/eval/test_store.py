"""The result store: concurrent starts, and a clear StoreError for every database problem
(issue 11). The same registration race runs on PostgreSQL in test_store_postgres.py."""

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from nashzoo.errors import StoreError
from nashzoo.eval.guard import interrupts_held
from nashzoo.eval.store import BlockResult, ResultStore

ROOT = Path(__file__).resolve().parents[2]

REGISTER = """
import sys, time
from nashzoo.eval.store import ResultStore
store = ResultStore(sys.argv[1])
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # start together
print(store.register("t1", {"game": "x", "n": 1}))
"""


def register_concurrently(url, processes=6):
    import time

    start = time.time() + 2.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", REGISTER, url, str(start)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * processes, [err for _, err in outs]
    return sorted(out.strip() for out, _ in outs)


def test_concurrent_starts_register_once(tmp_path):
    # Issue 11: 6 processes starting the same tournament gave 3 IntegrityErrors.
    url = str(tmp_path / "race.sqlite")
    ResultStore(url)  # the tables exist, as when a tournament is resumed
    assert register_concurrently(url) == ["False"] * 5 + ["True"]


def test_a_block_is_stored_once(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    store.register("t", {"a": 1})
    block = BlockResult("a", "b", 0, 10, 1.0, 2.0, 5, 5, 0, 0.1)
    assert store.add_block("t", block) is True
    assert store.add_block("t", block) is False
    assert store.results("t") == [block]


def test_a_corrupt_file_is_a_store_error(tmp_path):
    path = tmp_path / "corrupt.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    with pytest.raises(StoreError, match=f"Cannot open the result store .*{path.name}"):
        ResultStore(path)


def test_a_read_only_file_is_refused_at_open(tmp_path):
    path = tmp_path / "ro.sqlite"
    ResultStore(path).register("t", {"a": 1})
    path.chmod(0o444)
    try:
        if os.access(path, os.W_OK):
            pytest.skip("running as a user who can write read-only files (root)")
        with pytest.raises(StoreError, match="is read-only"):
            ResultStore(path)
    finally:
        path.chmod(0o644)


def test_a_read_only_file_is_refused_at_open_even_for_root(tmp_path, monkeypatch):
    path = tmp_path / "ro.sqlite"
    ResultStore(path)
    real_access = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode: False if Path(p) == path and mode == os.W_OK else real_access(p, mode),
    )
    with pytest.raises(StoreError, match="ro.sqlite is read-only; tournaments write"):
        ResultStore(path)


def test_another_applications_database_is_refused_before_any_table(tmp_path):
    path = tmp_path / "theirs.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
    with pytest.raises(StoreError, match="database of another application.*invoices"):
        ResultStore(path)
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"invoices"}  # nothing was created in it


def test_errors_after_opening_are_store_errors(tmp_path):
    path = tmp_path / "s.sqlite"
    store = ResultStore(path)
    store.register("t", {"a": 1})
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE blocks")
    with pytest.raises(StoreError, match=r"failed in results\(\).*no such table: blocks"):
        store.results("t")
    with pytest.raises(StoreError, match="No tournament nope"):
        store.config("nope")


def test_a_missing_folder_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="folder of the result store"):
        ResultStore(tmp_path / "no" / "such" / "dir" / "s.sqlite")


INTERRUPTED_WRITES = """
import signal, sys
from nashzoo.eval.store import BlockResult, ResultStore

# a shell that starts the test run in the background hands it SIGINT ignored, and Python
# then raises no KeyboardInterrupt: restore the default, as an interactive process has
signal.signal(signal.SIGINT, signal.default_int_handler)

store = ResultStore(sys.argv[1])
store.register("t", {"game": "x"})


def block(i):
    return BlockResult("a", "b", i, 10, 1.0, 1.0, 1, 0, 0, 0.1)


def interrupt_at(k, seen):
    # trace the lines run inside SQLAlchemy's connection pool; SIGINT at the k-th
    def tracer(frame, event, arg):
        name = frame.f_code.co_filename
        if event == "line" and "sqlalchemy" in name and "pool" in name:
            seen[0] += 1
            if seen[0] == k:
                signal.raise_signal(signal.SIGINT)
        return tracer

    return tracer


store.add_block("t", block(0))  # the pool holds a connection from here on
lines = [0]
sys.settrace(interrupt_at(0, lines))
store.add_block("t", block(1))
sys.settrace(None)
interrupts = 0
for k in range(1, lines[0] + 1):
    sys.settrace(interrupt_at(k, [0]))
    try:
        store.add_block("t", block(k + 1))
    except KeyboardInterrupt:
        interrupts += 1
    finally:
        sys.settrace(None)
print(lines[0], interrupts, len(store.done("t")))
"""


def test_ctrl_c_at_any_line_of_the_connection_pool_leaves_the_store_working(tmp_path):
    # A CI run's tournament, stopped with Ctrl-C, exited 1 instead of 130: the
    # KeyboardInterrupt landed inside SQLAlchemy's pool, between a lock's acquire and the
    # try that releases it. Before the store held interrupts, a SIGINT at the 62nd pool
    # line of a write left the pool's lock taken and the next write hung forever.
    # Here a SIGINT arrives at each line in turn that one write runs in the pool: every
    # one must come out as KeyboardInterrupt after its write is stored, and the store
    # keeps working.
    try:
        run = subprocess.run(
            [sys.executable, "-c", INTERRUPTED_WRITES, str(tmp_path / "s.sqlite")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the store hung on a write after an interrupted one")
    assert run.returncode == 0, run.stderr
    lines, interrupts, stored = map(int, run.stdout.split())
    assert lines > 20  # the pool's checkout and checkin were traced
    assert interrupts == lines  # each SIGINT surfaced, as KeyboardInterrupt
    assert stored == lines + 2  # ... after its write was stored whole


def test_interrupts_held_delivers_the_signal_after_the_block_to_the_handler_in_place():
    seen = []

    def handler(signum, frame):
        seen.append("handler")

    previous = signal.signal(signal.SIGINT, handler)
    try:
        with interrupts_held():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)  # a second Ctrl-C while held: one delivery
            seen.append("block ran to its end")
        assert seen == ["block ran to its end", "handler"]
        assert signal.getsignal(signal.SIGINT) is handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with interrupts_held():  # an ignored Ctrl-C stays ignored
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
        assert seen == ["block ran to its end", "handler"]
    finally:
        signal.signal(signal.SIGINT, previous)
