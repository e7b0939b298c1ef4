"""A board of a game without blinds speaks that game's unit: the fighting game pays a
point a win (``Game.payoff_unit``), so its board, submission and replay pages say
points where a poker board says chips and mbb."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.models import Hand

from .conftest import make_board

GAME = "fighting_cards_tiny"


def _visible(page: str) -> str:
    """The page's text as shown: without tags, scripts and styles."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def test_a_fighting_board_scores_in_points_not_chips(tmp_path):
    from nashzoo.agents.cfr import make_solver
    from nashzoo.envs.registration import make_game

    solver = make_solver("cfr+", make_game(GAME))
    solver.iterate(50)
    policy = tmp_path / "tiny.npz"
    solver.average_policy().save(policy)
    board = make_board(
        tmp_path,
        games=(GAME,),
        gauntlet={"random": "random", "heuristic": "heuristic"},
        deals_per_block=20,
        blocks_per_pairing=1,
    )
    with board.session() as session:
        _, token = add_user(session, "alice")
    client = TestClient(create_app(board))
    r = client.post(
        "/api/submissions",
        data={"game": GAME, "name": "cfr-tiny"},
        files={"file": ("p.npz", policy.read_bytes())},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201, r.text
    sub = r.json()["id"]
    board.work("w")
    with board.session() as session:
        hand_id = session.query(Hand).filter(Hand.a == f"sub:{sub}").first().id
    pages = {
        "board": client.get(f"/games/{GAME}").text,
        "submission": client.get(f"/submissions/{sub}").text,
        "replay": client.get(f"/hands/{hand_id}").text,
    }
    for name, page in pages.items():
        text = _visible(page)
        assert "chip" not in text, (name, text)
        assert "mbb" not in text, name
    assert "exploitability (points/game)" in _visible(pages["board"])
    assert "points/game (exact)" in _visible(pages["submission"])
    assert "result (points)" in _visible(pages["replay"])
