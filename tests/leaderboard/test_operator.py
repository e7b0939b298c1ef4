"""The operator's commands (issue 37 section 2): list users, rotate and revoke tokens,
change limits, remove a submission, show the job queue; each through ``nashzoo
leaderboard ...`` on a board's database."""

from __future__ import annotations

import pytest

from nashzoo.cli import main
from nashzoo.errors import AuthError
from nashzoo.leaderboard.accounts import authenticate

from .conftest import make_board


def _cli(tmp_path, *args):
    where = ["--db", str(tmp_path / "lb.db"), "--data", str(tmp_path / "data")]
    return main(["leaderboard", *args, *where, "--games", "leduc_holdem"])


def test_operator_commands(tmp_path, capsys, cfr_policy_file):
    board = make_board(tmp_path)
    assert _cli(tmp_path, "add-user", "alice") == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    with board.session() as session:
        user = authenticate(session, token)
    sub = board.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())

    assert _cli(tmp_path, "users") == 0
    out = capsys.readouterr().out
    assert "alice" in out and "active" in out and " 1 " in out  # one submission

    assert _cli(tmp_path, "queue") == 0
    out = capsys.readouterr().out
    assert "validate  queued" in out and "validate leduc_holdem sub:1" in out

    assert _cli(tmp_path, "set-limits", "alice", "--max-submissions", "3") == 0
    assert "at most 3 submissions" in capsys.readouterr().out

    assert _cli(tmp_path, "rotate-token", "alice") == 0
    new = capsys.readouterr().out.strip().splitlines()[-1]
    with board.session() as session:
        with pytest.raises(AuthError):
            authenticate(session, token)  # the old token stops at once
        assert authenticate(session, new).name == "alice"

    assert _cli(tmp_path, "revoke", "alice") == 0
    capsys.readouterr()
    with board.session() as session, pytest.raises(AuthError):
        authenticate(session, new)
    assert _cli(tmp_path, "users") == 0
    assert "revoked" in capsys.readouterr().out

    assert _cli(tmp_path, "remove", str(sub.id)) == 0
    assert "withdrawn" in capsys.readouterr().out
    assert _cli(tmp_path, "queue") == 0
    assert "sub:1" not in capsys.readouterr().out  # its validation job was dropped


def test_operator_commands_refuse_unknown_users(tmp_path, capsys):
    make_board(tmp_path)
    assert _cli(tmp_path, "rotate-token", "bob") == 2
    assert "There is no user 'bob'." in capsys.readouterr().err


def test_the_server_log_names_uploads_verdicts_and_jobs_and_not_alembic(
    tmp_path, caplog, cfr_policy_file
):
    import logging

    caplog.set_level(logging.INFO)
    board = make_board(tmp_path)  # migrations run here: nothing from Alembic at INFO
    assert not [r for r in caplog.records if r.name.startswith("alembic")]
    from nashzoo.leaderboard.accounts import add_user

    with board.session() as session:
        user, _ = add_user(session, "dora")
    sub = board.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
    board.work("w")
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert f"upload: submission {sub.id} by dora to leduc_holdem (policy" in text
    assert f"submission {sub.id}: validated; ranked" in text
    assert "started: validate sub:1" in text and "finished in" in text
    assert "started: match " in text


def test_jobs_of_a_stopped_server_are_taken_up_again_at_once(tmp_path, cfr_policy_file):
    import os
    import time

    from nashzoo.leaderboard.accounts import add_user
    from nashzoo.leaderboard.models import Job

    board = make_board(tmp_path, lease_seconds=3600.0)  # a lease that would wait an hour
    with board.session() as session:
        user, _ = add_user(session, "erin")
    board.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
    node = os.uname().nodename
    dead = 2**22 + 12345  # above any pid this machine hands out (pid_max is 4,194,304)
    job = board.claim(f"{node}-{dead}-0")
    alive = board.claim(f"{node}-{os.getpid()}-1")  # a live server's job stays its own
    assert job is not None and alive is not None
    start = time.perf_counter()
    assert board.release_orphans() == 1
    again = board.claim("w2")
    assert again is not None and again.id == job.id and time.perf_counter() - start < 5
    with board.session() as session:
        assert session.get(Job, alive.id).status == "running"
    # The board says what the running jobs wait on: their lease, and when it ran out.
    from datetime import timedelta

    from fastapi.testclient import TestClient

    from nashzoo.leaderboard.app import create_app
    from nashzoo.leaderboard.models import utcnow

    client = TestClient(create_app(board))
    jobs = client.get("/games/leduc_holdem").text
    assert "2 running (each under a 3600 s lease, the latest until" in jobs
    assert "past their lease" not in jobs
    with board.session() as session:
        session.get(Job, alive.id).lease_until = utcnow() - timedelta(seconds=1)
        session.commit()
    jobs = client.get("/games/leduc_holdem").text
    assert "1 of them past their lease, waiting for a free worker" in jobs


def test_the_sandbox_warning_is_checked_again_when_it_matters(tmp_path, monkeypatch, caplog):
    # A server started without bubblewrap warns; once the sandbox is there, the upload
    # page stops warning and the log says so (the check runs again on every upload page;
    # a code bundle's validation runs it too, and the sandbox checks for itself).
    import logging

    from fastapi.testclient import TestClient

    import nashzoo.leaderboard.board as board_module
    from nashzoo.leaderboard.app import create_app

    missing = "the sandbox needs bwrap (apt-get install bubblewrap)"
    monkeypatch.setattr(board_module, "sandbox_problem", lambda: missing)
    board = make_board(tmp_path)
    assert board.sandbox_warning() == missing
    client = TestClient(create_app(board))
    assert 'id="sandbox-warning"' in client.get("/upload").text
    monkeypatch.setattr(board_module, "sandbox_problem", lambda: None)
    with caplog.at_level(logging.INFO, logger="nashzoo.leaderboard"):
        page = client.get("/upload").text
    assert 'id="sandbox-warning"' not in page
    assert "the sandbox is available now" in caplog.text
    monkeypatch.setattr(board_module, "sandbox_problem", lambda: missing)
    with caplog.at_level(logging.INFO, logger="nashzoo.leaderboard"):
        assert board.sandbox_warning() == missing
    assert "code bundles will fail validation here: the sandbox needs bwrap" in caplog.text
