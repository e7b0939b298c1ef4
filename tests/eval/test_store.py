"""The result store: concurrent starts, and a clear StoreError for every database problem
(issue 11). The same registration race runs on PostgreSQL in test_store_postgres.py."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from nashzoo.errors import StoreError
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
