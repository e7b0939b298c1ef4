"""`nashzoo submit` and :func:`nashzoo.leaderboard.client.submit` against a live server
(uvicorn on 127.0.0.1 in a thread): an upload is accepted and queued, and what can go
wrong (a bad token, no server, no file) is an error that says which."""

from __future__ import annotations

import socket
import threading
import time

import pytest

uvicorn = pytest.importorskip("uvicorn")

from nashzoo.cli import main
from nashzoo.errors import LeaderboardError
from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.client import submit
from nashzoo.leaderboard.models import Submission

from .conftest import make_board


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def live(tmp_path):
    """A board served on 127.0.0.1: ``(board, base URL, alice's token)``."""
    board = make_board(tmp_path)
    with board.session() as session:
        _, token = add_user(session, "alice")
    port = _free_port()
    config = uvicorn.Config(create_app(board), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield board, f"http://127.0.0.1:{port}", token
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_nashzoo_submit_uploads_and_says_where_to_watch(live, cfr_policy_file, capsys):
    board, base, token = live
    argv = ["submit", "--server", base + "/", "--token", token, "--game", "leduc_holdem"]
    assert main([*argv, "--name", "my-cfr", str(cfr_policy_file)]) == 0
    out = capsys.readouterr().out
    assert "(policy): queued" in out and f"watch it at {base}/submissions/" in out
    with board.session() as session:
        (row,) = session.query(Submission).all()
        assert (row.name, row.game, row.status) == ("my-cfr", "leduc_holdem", "queued")


def test_a_refused_upload_names_the_servers_code_and_message(live, cfr_policy_file):
    _, base, _ = live
    with pytest.raises(LeaderboardError, match=r"refused the upload \(401\): .*token"):
        submit(base, "nz_1_not-a-token", "leduc_holdem", "x", cfr_policy_file)


def test_no_server_and_no_file_are_clear_errors(tmp_path, cfr_policy_file):
    nowhere = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(LeaderboardError, match="Cannot reach the leaderboard at http://127"):
        submit(nowhere, "nz_1_x", "leduc_holdem", "x", cfr_policy_file)
    with pytest.raises(FileNotFoundError, match="No agent file at"):
        submit(nowhere, "nz_1_x", "leduc_holdem", "x", tmp_path / "missing.npz")
