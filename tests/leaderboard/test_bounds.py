"""Where a board's game is too large for exact exploitability (Limit Hold'em), the board
shows each agent's local-best-response lower bound, marked as a bound, for gauntlet
agents and sandboxed submissions that state their probabilities."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.models import Submission

from .conftest import LAST_LEGAL, bundle, make_board, needs_sandbox


def holdem_board(tmp_path):
    return make_board(
        tmp_path,
        games=("limit_holdem",),
        gauntlet={"random": "random", "rules": "poker-rules"},
        deals_per_block=10,
        blocks_per_pairing=1,
        validation_deals=6,
        lbr_hands=6,
    )


def test_gauntlet_agents_get_an_lbr_bound(tmp_path):
    board = holdem_board(tmp_path)
    board.work("w")
    client = TestClient(create_app(board))
    rows = {r["entrant"]: r for r in client.get("/api/games/limit_holdem/board").json()}
    assert set(rows) == {"gauntlet:random", "gauntlet:rules"}
    for row in rows.values():
        assert row["exploitability"] is None  # no exact figure: the game does not compile
        assert row["exploitability_method"] == "lbr"
        assert isinstance(row["exploitability_bound"], float)
    figures = board.figures_of("limit_holdem", "gauntlet:random")
    lo, hi = figures["exploitability_ci95"]
    assert lo <= figures["exploitability_bound"] <= hi
    assert "6 hands" in figures["exploitability_note"]
    page = client.get("/games/limit_holdem").text
    assert "(LBR)" in page
    # with lbr_hands=0 the figure stays unknown, with the reason
    board.settings.lbr_hands = 0
    board._exploitability.clear()
    assert board.figures_of("limit_holdem", "gauntlet:random") == {
        "exploitability_note": "limit_holdem is too large to compute exactly"
    }


@needs_sandbox
def test_a_sandboxed_submission_gets_an_lbr_bound(tmp_path):
    board = holdem_board(tmp_path)
    with board.session() as session:
        user, _ = add_user(session, "alice")
    sub = board.submit(user, "limit_holdem", "last", "a.zip", bundle(LAST_LEGAL, ("limit_holdem",)))
    board.work("w")
    client = TestClient(create_app(board))
    info = client.get(f"/api/submissions/{sub.id}").json()
    assert info["status"] == "ranked", info
    rows = {r["submission"]: r for r in client.get("/api/games/limit_holdem/board").json()}
    row = rows[sub.id]
    assert row["exploitability"] is None and row["exploitability_method"] == "lbr"
    with board.session() as session:
        figures = json.loads(session.get(Submission, sub.id).details)
    lo, hi = figures["exploitability_ci95"]
    assert lo <= row["exploitability_bound"] <= hi and "6 hands" in figures["exploitability_note"]
    # always raising (the last legal action) has a published exact best-response value,
    # 3,697 mbb/hand (Johanson et al., IJCAI 2011): 36.97 chips at big blind 10. A lower
    # bound stays under it within its interval (6 hands cannot show it positive: LBR's
    # standard deviation against always-raise is about 135 chips a hand)
    assert lo <= 36.97, (lo, hi)
    page = client.get(f"/submissions/{sub.id}").text
    assert "local best response lower bound" in page
