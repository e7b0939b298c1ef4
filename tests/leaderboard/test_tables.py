"""Boards of three or more seats: 3-player Kuhn poker (OpenSpiel's ``kuhn_poker(players=3)``)
ranked by duplicate tables, each stored as its pairwise outcomes
(:mod:`nashzoo.leaderboard.matches`)."""

from __future__ import annotations

import itertools
import json
import zlib

import numpy as np
import pytest
from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.models import Job

from .conftest import make_board

GAME = "kuhn_poker(players=3)"


def _upload(client, token, name, path):
    r = client.post(
        "/api/submissions",
        data={"game": GAME, "name": name},
        files={"file": (path.name, path.read_bytes())},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture()
def policies(tmp_path):
    """A 300-iteration CFR+ policy of 3-player Kuhn and the uniform policy, saved."""
    from nashzoo.agents.cfr import make_solver
    from nashzoo.envs.registration import load_game
    from nashzoo.tree.policy import TabularPolicy

    game = load_game(GAME)
    solver = make_solver("cfr+", game)
    solver.iterate(300)
    cfr, uniform = tmp_path / "cfr300.npz", tmp_path / "uniform.npz"
    solver.average_policy().save(cfr)
    TabularPolicy.uniform(game).save(uniform)
    return cfr, uniform


def test_a_three_seat_board_ranks_tables_through_their_pairwise_outcomes(tmp_path, policies):
    from nashzoo.agents.specs import build_agent
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.eval.matches import deal_seed
    from nashzoo.eval.seats import play_table
    from nashzoo.leaderboard.board import states_probabilities
    from nashzoo.tree.policy import TabularPolicy

    cfr_file, uniform_file = policies
    board = make_board(
        tmp_path, games=(GAME,), gauntlet={"random": "random", "cfr+": "cfr+:100"},
        deals_per_block=40, validation_deals=10,
    )  # fmt: skip
    game = board.game(GAME)
    assert board.seats(GAME) == 3
    client = TestClient(create_app(board))
    with board.session() as session:
        _, token = add_user(session, "alice")
    first = _upload(client, token, "cfr300", cfr_file)
    board.work("w")

    sub = client.get(f"/api/submissions/{first}").json()
    assert sub["status"] == "ranked", sub
    # Exact: NashConv / 3 of every seat playing the file's policy, as computed here.
    expected = exploitability(TabularPolicy.load(cfr_file)).exploitability
    assert sub["exploitability"] == pytest.approx(expected, abs=1e-12)
    log = client.get(f"/submissions/{first}").text
    assert "random agents in every seat" in log and "NashConv / 3" in log

    # One table (the submission and both gauntlet agents), blocks_per_pairing blocks.
    with board.session() as session:
        jobs = session.query(Job).filter(Job.kind == "match").all()
    assert len(jobs) == 2 and all(j.status == "done" for j in jobs)
    seated = json.loads(jobs[0].seats)
    assert seated == [f"sub:{first}", "gauntlet:cfr+", "gauntlet:random"]

    # Each block is stored as its three pairwise records; a record is the difference of
    # the two entrants' deal scores (x 2/3) from play_table with the job's own seed.
    results = board.store.results(board.tournament(GAME))
    assert len(results) == 3 * len(jobs)
    job = jobs[0]
    agents = [build_agent(s, game) for s in ("cfr+:100", "random")]
    mine = build_agent(str(tmp_path / "data" / "submissions" / str(first) / "cfr300.npz"), game)
    seed = deal_seed(0, *[zlib.crc32(x.encode()) for x in seated], job.block)
    table = play_table(game, [mine, *agents], deals=40, seed=seed, bootstrap=0,
                       draw_from=[states_probabilities(a) for a in (mine, *agents)])  # fmt: skip
    for i, j in itertools.combinations(range(3), 2):
        (record,) = [
            r for r in results if r.block == job.id and (r.a, r.b) == (seated[i], seated[j])
        ]
        pair = (table.scores[:, i] - table.scores[:, j]) * 2 / 3
        assert record.deals == 40
        assert record.total == pytest.approx(pair.sum(), abs=1e-9)
        assert record.total_sq == pytest.approx((pair * pair).sum(), abs=1e-9)
    # ... so an entrant's mean over the others at its table is its own chips per game
    # (3-player Kuhn is zero-sum: the deal scores sum to 0).
    assert np.allclose(table.scores.sum(axis=1), 0.0)
    for i in range(3):
        others = [
            r.total / r.deals if r.a == seated[i] else -r.total / r.deals
            for r in results if r.block == job.id and seated[i] in (r.a, r.b)
        ]  # fmt: skip
        assert np.mean(others) == pytest.approx(table.mean[i], abs=1e-9)

    rows = {r["entrant"]: r for r in client.get(f"/api/games/{GAME}/board").json()}
    assert set(rows) == {f"sub:{first}", "gauntlet:cfr+", "gauntlet:random"}
    for row in rows.values():
        assert row["rating_low"] <= row["rating"] <= row["rating_high"] and row["games"] > 0
    page = client.get(f"/games/{GAME}").text
    assert 'id="tables"' in page and "play it" not in page

    # Playing in the browser is heads-up only: refused with the reason, nothing played.
    assert client.post("/signin", data={"token": token}, follow_redirects=False).status_code == 303
    r = client.post(f"/play/{first}/start")
    assert r.status_code == 409 and "heads-up only" in r.text

    # A second submission meets every other entrant: its three opponents are packed two
    # to a table (2 tables), the last filled up with one it met already.
    second = _upload(client, token, "uniform", uniform_file)
    job = board.claim("w")
    assert job.kind == "validate"
    board.run_job(job)
    with board.session() as session:
        queued = [j for j in session.query(Job).filter(Job.status == "queued").all()]
    tables = {tuple(json.loads(j.seats)) for j in queued}
    assert len(tables) == 2 and len(queued) == 4
    met = {name for t in tables for name in t[1:]}
    assert all(t[0] == f"sub:{second}" for t in tables)
    assert met == {f"sub:{first}", "gauntlet:cfr+", "gauntlet:random"}
    # Withdrawing the first drops the queued tables it sits at (as a seat, not as the
    # entrant they were scheduled for).
    at = [t for t in tables if f"sub:{first}" in t]
    assert at
    board.withdraw(None, first)
    with board.session() as session:
        left = [
            tuple(json.loads(j.seats)) for j in session.query(Job).filter(Job.status == "queued")
        ]
    assert left and all(f"sub:{first}" not in t for t in left)


def test_a_table_board_needs_a_gauntlet_that_fills_a_table(tmp_path):
    from nashzoo.errors import LeaderboardError

    with pytest.raises(LeaderboardError, match="needs at least 3 gauntlet agents"):
        make_board(tmp_path, games=("kuhn_poker(players=4)",))
    with pytest.raises(LeaderboardError, match="Cannot host 'kuhn_poker\\(players=11\\)'"):
        make_board(tmp_path, games=("kuhn_poker(players=11)",))
