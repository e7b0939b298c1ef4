"""The API end to end (TestClient), the board's figures, and a worker killed mid-match."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time

import pytest
from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.models import Job, Rating
from tests.conftest import coverage_paused, untraced_children

from .conftest import LAST_LEGAL, bundle, make_board, needs_sandbox


def _example_agent():
    import importlib.util

    from .conftest import EXAMPLE

    spec = importlib.util.spec_from_file_location("example_agent", EXAMPLE / "agent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make(None)


def _post(client, token, name, filename, data, game="leduc_holdem"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(
        "/api/submissions",
        data={"game": game, "name": name, "description": f"<i>{name}</i>"},
        files={"file": (filename, data)},
        headers=headers,
    )


@needs_sandbox
def test_upload_validate_rank_and_show(board, cfr_policy_file):
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.tree.policy import TabularPolicy

    client = TestClient(create_app(board))
    with board.session() as session:
        _, token = add_user(session, "alice")
    policy = cfr_policy_file.read_bytes()
    assert _post(client, None, "x", "p.npz", policy).status_code == 401
    assert _post(client, "nz_1_" + "A" * 43, "x", "p.npz", policy).status_code == 401
    r = _post(client, token, "x", "p.npz", policy, game="chess")
    # an unknown game is an invalid form field (the schema lists the served games)
    assert r.status_code == 422 and r.json()["code"] == "UNKNOWN_GAME"
    r = _post(client, token, "x", "evil.zip", bundle(LAST_LEGAL, extra={"../x": b"1"}))
    assert r.status_code == 400 and r.json()["code"] == "ZIP_SLIP"
    r = _post(client, token, "cfr200", "p.npz", policy)
    assert r.status_code == 201, r.text
    policy_id = r.json()["id"]
    xss = "<script>document.title='pwned'</script>"
    r = _post(client, token, xss, "b.zip", bundle(LAST_LEGAL))
    assert r.status_code == 201 and r.json()["status"] == "queued"
    code_id = r.json()["id"]
    board.work("w1")
    sub = client.get(f"/api/submissions/{policy_id}").json()
    assert sub["status"] == "ranked", sub
    # the service runs the same computation on the same file in this process, and JSON
    # carries a float exactly (repr round-trips): equal but for nothing; 1e-12 is slack
    expected = exploitability(TabularPolicy.load(cfr_policy_file)).exploitability
    assert sub["exploitability"] == pytest.approx(expected, abs=1e-12)
    code = client.get(f"/api/submissions/{code_id}").json()
    assert code["status"] == "ranked"
    # The sandboxed code agent states its probabilities: its exact exploitability is the
    # in-process agent's (the example bundle's module, imported here).
    example = _example_agent()
    # (the sandbox sends the same probabilities as JSON, exactly; the same computation)
    expected_code = exploitability(example, board.game("leduc_holdem")).exploitability
    assert code["exploitability"] == pytest.approx(expected_code, abs=1e-12)
    # ... and its exact expected scores against the gauntlet's policies, as for data.
    code_page = client.get(f"/submissions/{code_id}").text
    assert (
        "Exact expected scores" in code_page
        and "Exact expected scores" in client.get(f"/submissions/{policy_id}").text
    )
    rows = client.get("/api/games/leduc_holdem/board").json()
    assert {r["entrant"] for r in rows} == {
        "gauntlet:random", "gauntlet:cfr+", f"sub:{policy_id}", f"sub:{code_id}"
    }  # fmt: skip
    for row in rows:
        assert row["rating_low"] <= row["rating"] <= row["rating_high"]
        assert row["games"] > 0 and row["nash_averaging"] is not None
    by = {r["entrant"]: r for r in rows}
    # A 200-iteration CFR+ policy beats random by far over 400 duplicate deals.
    assert by[f"sub:{policy_id}"]["rating"] > by["gauntlet:random"]["rating"] + 100
    assert by["gauntlet:random"]["exploitability"] == pytest.approx(2.3735, abs=1e-3)
    # Every name is escaped on every page.
    for url in ("/games/leduc_holdem", f"/submissions/{code_id}", "/"):
        html = client.get(url).text
        assert "<script>document" not in html
    assert "&lt;script&gt;document.title" in client.get("/games/leduc_holdem").text
    page = client.get(f"/submissions/{policy_id}")
    assert (
        "&lt;i&gt;cfr200&lt;/i&gt;" in page.text
        and "script-src 'none'" in page.headers["content-security-policy"]
    )
    hands = client.get(f"/api/submissions/{policy_id}/hands").text.splitlines()
    assert hands and all("history" in line for line in hands)


DEALS = 4_000
"""Deals per block in the kill test: about 1.2 s per block here (12,000 took 3.5 s), so
that a kill aimed at a block already running for 0.1 s lands inside it."""


def _worker(database: str, data_dir: str) -> None:
    board = make_board_from(database, data_dir)
    board.work("victim", stop_when_idle=False)


def make_board_from(database: str, data_dir: str):
    from pathlib import Path

    return make_board(Path(database).parent, data_dir=Path(data_dir), deals_per_block=DEALS)


def _board_rows(board) -> list[tuple]:
    from sqlalchemy import select

    with board.session() as session:
        return sorted(
            (r.entrant, round(r.rating, 9), round(r.low, 9), round(r.high, 9), r.games)
            for r in session.scalars(select(Rating))
        )


def test_a_worker_killed_mid_match_changes_nothing(tmp_path, cfr_policy_file):
    """kill -9 a worker during a match, restart: the board equals an uninterrupted run."""
    boards = []
    for run in ("clean", "killed"):
        folder = tmp_path / run
        folder.mkdir()
        board = make_board(folder, deals_per_block=DEALS)
        with board.session() as session:
            user, _ = add_user(session, "alice")
        board.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
        if run == "killed":
            ctx = multiprocessing.get_context("spawn")
            proc = ctx.Process(target=_worker, args=(str(folder / "lb.db"), str(folder / "data")))
            proc.start()
            deadline = time.monotonic() + 120
            seen: tuple[int, float] | None = None  # (running match job, first seen)
            while True:  # wait until a match block has been running for a moment
                assert time.monotonic() < deadline, "the worker never got into a match"
                with board.session() as session:
                    job = (
                        session.query(Job)
                        .filter(Job.kind == "match", Job.status == "running")
                        .first()
                    )
                    done = session.query(Job).filter(Job.status == "done").count()
                if job is None or done < 2:
                    seen = None
                elif seen is None or seen[0] != job.id:
                    seen = (job.id, time.monotonic())
                elif time.monotonic() - seen[1] > 0.1:
                    break
                time.sleep(0.02)
            os.kill(proc.pid, signal.SIGKILL)
            proc.join()
            with board.session() as session:
                assert session.query(Job).filter(Job.status == "running").count() == 1
            time.sleep(board.settings.lease_seconds + 0.5)  # its lease runs out
            board.work("survivor")
        else:  # the reference runs the killed run's lines: untraced (80 s traced, 46 plain)
            with coverage_paused(), untraced_children():
                board.work("survivor")
        with board.session() as session:
            assert session.query(Job).filter(Job.status != "done").count() == 0
        boards.append(_board_rows(board))
    assert boards[0] == boards[1]
    assert len(boards[0]) == 3


@pytest.mark.slow  # starts a local Ray; `nashzoo serve --backend ray` uses the same path
def test_ray_workers_fill_the_same_board(tmp_path, cfr_policy_file):
    """Two Ray task workers share the jobs of a board; it ends equal to one local worker's."""
    ray = pytest.importorskip("ray")
    from nashzoo.leaderboard.worker import ray_workers

    boards = []
    for run in ("local", "ray"):
        folder = tmp_path / run
        folder.mkdir()
        # a lease far longer than any job: a slow machine must not make a live worker's
        # job look abandoned (test_a_worker_killed_mid_match_changes_nothing tests leases)
        board = make_board(folder, lease_seconds=600.0)
        with board.session() as session:
            user, _ = add_user(session, "alice")
        board.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
        if run == "local":
            board.work("local")
        else:
            try:
                with untraced_children():  # Ray's processes run untraced (tests/conftest.py)
                    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
                done = ray.get(ray_workers(board.settings, 2, stop_when_idle=True), timeout=300)
            finally:
                ray.shutdown()
            with board.session() as session:
                jobs = session.query(Job).count()
                assert session.query(Job).filter(Job.status != "done").count() == 0
            assert sum(done) == jobs  # every job run once, by one of the two tasks
        boards.append(_board_rows(board))
    assert boards[0] == boards[1] and len(boards[0]) == 3


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_serve_takes_its_workers_along(tmp_path, how):
    """However `nashzoo serve` ends (SIGTERM, which uvicorn re-raises after its shutdown,
    or SIGKILL), its match workers end too instead of claiming jobs for nobody."""
    import socket
    import subprocess
    import sys
    import urllib.request

    from tests.conftest import ROOT

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "nashzoo", "serve", "--workers", "2", "--port", str(port)],
        cwd=tmp_path, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=5)
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.3)
        workers = []
        while len(workers) < 2:  # the pool's two spawned processes (and the tracker)
            workers = _children(server.pid)
            assert time.monotonic() < deadline
            time.sleep(0.1)
        server.send_signal(how)
        server.wait(timeout=60)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers):
            assert time.monotonic() < deadline, "workers outlived nashzoo serve"
            time.sleep(0.2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)


def test_forms_posted_from_another_site_are_refused(board):
    # issue 31: /signin had no CSRF protection (a forged sign-in logs the victim in as
    # the attacker); every page form is checked by its Origin or Referer
    client = TestClient(create_app(board))
    with board.session() as session:
        _, token = add_user(session, "alice")
    for headers in (
        {"Origin": "https://evil.example"},
        {"Referer": "https://evil.example/page"},
        {"Origin": "null"},
    ):
        r = client.post("/signin", data={"token": token}, headers=headers, follow_redirects=False)
        assert r.status_code == 403 and r.json()["code"] == "CROSS_SITE", headers
        assert "set-cookie" not in r.headers
    same = {"Origin": "http://testserver"}
    r = client.post("/signin", data={"token": token}, headers=same, follow_redirects=False)
    assert r.status_code == 303 and "set-cookie" in r.headers
    # the token-authenticated API is not a browser's form: it stays open to scripts
    r = client.get("/api/whoami", headers={"Authorization": f"Bearer {token}", **same})
    assert r.status_code == 200
