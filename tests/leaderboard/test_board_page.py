"""The board page as a new user reads it (issue 86, item 10): identical uploads flagged as
copies, a board sortable by Nash averaging, mean or exploitability besides the rating,
and no ``-0.0``."""

from __future__ import annotations

import re

import pytest

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.site import fixed

from .conftest import make_board


def test_fixed_never_prints_a_signed_zero():
    assert fixed(-0.0) == "0.0"
    assert fixed(-0.04) == "0.0"
    assert fixed(-0.05, 2) == "-0.05"
    assert fixed(-12.34) == "-12.3"
    assert fixed(3.0, 0) == "3"


def test_the_board_flags_copies_and_sorts_by_every_column(tmp_path, cfr_policy_file):
    from fastapi.testclient import TestClient

    from nashzoo.leaderboard.app import create_app
    from nashzoo.leaderboard.queries import board_rows

    board = make_board(tmp_path, deals_per_block=40, blocks_per_pairing=1)
    with board.session() as session:
        users = [add_user(session, name)[0] for name in ("ann", "bob", "cy")]
    data = cfr_policy_file.read_bytes()
    board.submit(users[0], "leduc_holdem", "cfr-a", "p.npz", data)
    board.submit(users[1], "leduc_holdem", "cfr-b", "p.npz", data)  # the same file
    board.work("w0")
    rows = {r["name"]: r for r in board_rows(board, "leduc_holdem")}
    assert rows["cfr-a"]["copies"] == ["cfr-b"] and rows["cfr-b"]["copies"] == ["cfr-a"]
    assert rows["random (gauntlet)"]["copies"] == []
    by_exploitability = board_rows(board, "leduc_holdem", "exploitability")
    values = [r["exploitability"] for r in by_exploitability]
    assert values == sorted(values)  # every entrant of Leduc has an exact figure
    assert by_exploitability[-1]["name"] == "random (gauntlet)"
    by_nash = [r["nash"] for r in board_rows(board, "leduc_holdem", "nash")]
    assert by_nash == sorted(by_nash, reverse=True)
    with TestClient(create_app(board)) as client:
        page = client.get("/games/leduc_holdem?sort=exploitability").text
        assert "Sorted by exploitability" in page
        assert re.search(r"cfr-a</a> <span class=\"identical\"[^>]*>= cfr-b", page)
        assert "-0.0<" not in page and "(-0.0" not in page
        assert client.get("/games/leduc_holdem?sort=nosuch").status_code == 400
    with pytest.raises(Exception, match="sort is one of"):
        board_rows(board, "leduc_holdem", "nosuch")


def test_signing_in_from_a_table_returns_to_it(tmp_path, cfr_policy_file):
    """Issue 86, item 10: signing in from /play/ID landed on /upload."""
    from fastapi.testclient import TestClient

    from nashzoo.leaderboard.app import create_app

    board = make_board(tmp_path)
    with board.session() as session:
        _, token = add_user(session, "ann")
    with TestClient(create_app(board)) as client:
        page = client.get("/play/1")
        assert page.status_code == 401
        assert '<input type="hidden" name="next" value="/play/1">' in page.text
        # every page's "sign in" link comes back to it
        assert '/signin?next=/games/leduc_holdem"' in client.get("/games/leduc_holdem").text
        back = client.post("/signin", data={"token": token, "next": "/play/1"},
                           follow_redirects=False)  # fmt: skip
        assert back.status_code == 303 and back.headers["location"] == "/play/1"
        for hostile in ("//evil.example/x", "https://evil.example/", "/\\evil", "play/1"):
            away = client.post("/signin", data={"token": token, "next": hostile},
                               follow_redirects=False)  # fmt: skip
            assert away.headers["location"].endswith("/upload")
        plain = client.post("/signin", data={"token": token}, follow_redirects=False)
        assert plain.headers["location"].endswith("/upload")
