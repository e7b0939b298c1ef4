"""Identity on the board (issue 37): names unique per game board and the gauntlet's
reserved, the same file refused from the same user and marked identical from another,
failed uploads not counted toward the cap."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.models import Submission


def _two_users(board):
    """A client of ``board`` and the tokens of two users, alice and bob."""
    with board.session() as session:
        _, alice = add_user(session, "alice")
        _, bob = add_user(session, "bob")
    return TestClient(create_app(board)), alice, bob


def _post(client, token, name, data, filename="p.npz"):
    return client.post(
        "/api/submissions",
        data={"game": "leduc_holdem", "name": name},
        files={"file": (filename, data)},
        headers={"Authorization": f"Bearer {token}"},
    )


def test_names_are_unique_per_board_and_the_gauntlets_are_reserved(board, cfr_policy_file):
    client, alice, bob = _two_users(board)
    policy = cfr_policy_file.read_bytes()
    for reserved in ("cfr+", "Random", "my-cfr (gauntlet)"):
        r = _post(client, alice, reserved, policy)
        assert r.status_code == 409 and r.json()["code"] == "NAME_TAKEN", (reserved, r.text)
    first = _post(client, alice, "my-cfr", policy)
    assert first.status_code == 201, first.text
    r = _post(client, bob, "MY-CFR", policy)  # names compare without case
    assert r.status_code == 409 and r.json()["code"] == "NAME_TAKEN"
    assert f"submission {first.json()['id']}" in r.json()["message"]


def test_the_same_file_is_refused_from_its_owner_and_marked_identical_from_another(
    board, cfr_policy_file
):
    client, alice, bob = _two_users(board)
    policy = cfr_policy_file.read_bytes()
    first = _post(client, alice, "cfr-a", policy).json()["id"]
    r = _post(client, alice, "cfr-a-again", policy)
    assert r.status_code == 409 and r.json()["code"] == "DUPLICATE"
    assert f"submission {first}" in r.json()["message"]
    r = _post(client, bob, "cfr-b", policy)
    assert r.status_code == 201, r.text
    with board.session() as session:
        details = json.loads(session.get(Submission, r.json()["id"]).details)
    assert details["identical_to"] == [first]


def test_failed_uploads_do_not_count_toward_the_cap(board, cfr_policy_file):
    client = TestClient(create_app(board))
    with board.session() as session:
        _, token = add_user(session, "carol", max_submissions=1)
    policy = cfr_policy_file.read_bytes()
    first = _post(client, token, "one", policy)
    assert first.status_code == 201
    r = _post(client, token, "two", policy[:-1] + b"\0", filename="q.npz")
    assert r.status_code == 403  # the cap: one live submission
    with board.session() as session:
        session.get(Submission, first.json()["id"]).status = "failed"
        session.commit()
    r = _post(client, token, "one-again", policy)
    assert r.status_code == 201, r.text  # the failed one no longer counts (nor blocks its file)


def test_pages_show_owners_dates_and_identical_files(board, cfr_policy_file):
    client, alice, bob = _two_users(board)
    policy = cfr_policy_file.read_bytes()
    first = _post(client, alice, "cfr-a", policy).json()["id"]
    second = _post(client, bob, "cfr-b", policy).json()["id"]
    page = client.get(f"/submissions/{second}").text
    assert 'id="owner">bob, submitted 20' in page
    assert f'href="http://testserver/submissions/{first}">submission {first}</a>' in page
    board.work("w")  # validates and ranks both (policies: no sandbox needed)
    board_page = client.get("/games/leduc_holdem").text
    assert '<td class="owner">alice</td>' in board_page
    assert '<td class="owner">bob</td>' in board_page
    assert '<td class="owner">the board</td>' in board_page  # the gauntlet


def test_nash_averaging_uses_exact_scores_and_pages_draw_the_rating_history(board, cfr_policy_file):
    # Two uploads of one CFR+ file and the gauntlet (random, CFR+ 50 iterations): every
    # entrant states its policy and Leduc compiles, so each pairing's Nash-averaging
    # payoff is its exact expected score, the twins score alike, and no interval remains
    # (issue 37: sampled means put one copy 43.5 mbb/game above its twin).
    from nashzoo.eval.ratings import crosstable
    from nashzoo.leaderboard.models import Rating, RatingPoint

    client, alice, bob = _two_users(board)
    policy = cfr_policy_file.read_bytes()
    first = _post(client, alice, "cfr-a", policy).json()["id"]
    second = _post(client, bob, "cfr-b", policy).json()["id"]
    board.work("w")
    with board.session() as session:
        rows = {r.entrant: r for r in session.query(Rating).filter(Rating.game == "leduc_holdem")}
        history = session.query(RatingPoint).filter(RatingPoint.entrant == f"sub:{first}").all()
    a, b = rows[f"sub:{first}"], rows[f"sub:{second}"]
    assert a.nash == pytest.approx(b.nash, abs=1e-6)
    for row in rows.values():
        assert row.nash_low == row.nash == row.nash_high
    # the exact figures agree with play: each played pairing's mean is within 4 standard
    # errors of the exact expected score the board used (same units, chips per game)
    names = sorted(rows)
    exact = board.exact_payoffs("leduc_holdem", names)
    assert not np.isnan(exact[~np.eye(len(names), dtype=bool)]).any()
    stored = board.store.results(board.tournament("leduc_holdem"))
    assert all(r.plain_total is not None for r in stored)  # blocks scored with AIVAT
    table = crosstable(stored, names)
    played = table.deals > 0
    assert played.sum() >= 8
    assert (np.abs(table.mean - exact)[played] <= 4 * table.stderr[played] + 1e-9).all()
    # a refit after each block: the history has a point per refit, blocks increasing
    assert len(history) >= 2
    assert [p.blocks for p in history] == sorted(p.blocks for p in history)
    page = client.get(f"/submissions/{first}").text
    assert '<svg id="history"' in page and page.count("<circle") == len(history)
    api = client.get("/api/games/leduc_holdem/board").json()
    twin = [r for r in api if r["submission"] in (first, second)]
    assert twin[0]["nash_averaging"] == pytest.approx(twin[1]["nash_averaging"], abs=1e-3)
    # alpha-Rank (issue 93) from the same exact payoffs: the board's figures are
    # alpha_rank of the exact table, the twins' mass alike, no interval width
    from nashzoo.eval.ratings import alpha_rank

    payoffs = np.where(np.eye(len(names), dtype=bool), 0.0, exact)
    expected = dict(zip(names, alpha_rank(payoffs)))
    for row in api:
        assert row["alpha_rank"] == pytest.approx(expected[row["entrant"]], abs=1e-9)
        assert row["alpha_rank_low"] == row["alpha_rank"] == row["alpha_rank_high"]
    assert sum(row["alpha_rank"] for row in api) == pytest.approx(1.0)
    assert twin[0]["alpha_rank"] == pytest.approx(twin[1]["alpha_rank"], abs=1e-9)
    ranked = client.get("/games/leduc_holdem?sort=alpharank").text
    assert "Sorted by α-Rank" in ranked and ranked.count('<td class="alpharank">') == len(api)


def test_withdrawal_listing_and_sign_out(board, cfr_policy_file):
    from nashzoo.leaderboard.models import Job, Rating

    client, alice, bob = _two_users(board)
    policy = cfr_policy_file.read_bytes()
    mine = _post(client, alice, "cfr-a", policy).json()["id"]
    board.work("w")  # validated, ranked, its matches against the gauntlet played
    listed = client.get("/api/submissions?mine=1", headers={"Authorization": f"Bearer {alice}"})
    assert [s["id"] for s in listed.json()] == [mine]
    assert client.get("/api/submissions?mine=1").status_code == 401
    bob_header = {"Authorization": f"Bearer {bob}"}
    r = client.delete(f"/api/submissions/{mine}", headers=bob_header)
    assert r.status_code == 403 and r.json()["code"] == "NOT_YOURS"
    assert client.delete("/api/submissions/99999", headers=bob_header).status_code == 404
    with board.session() as session:
        stored_before = len(board.store.results(board.tournament("leduc_holdem")))
        assert session.query(Rating).filter(Rating.entrant == f"sub:{mine}").count() == 1
    r = client.delete(f"/api/submissions/{mine}", headers={"Authorization": f"Bearer {alice}"})
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"
    with board.session() as session:
        assert session.query(Job).filter(Job.status == "queued").count() == 0
    # off the board, its stored matches kept, its name and file free again
    page = client.get("/games/leduc_holdem").text
    assert "cfr-a" not in page
    assert len(board.store.results(board.tournament("leduc_holdem"))) == stored_before > 0
    assert _post(client, alice, "cfr-a", policy).status_code == 201
    # the page form: signed in as alice, the withdraw button shows on her submission
    client.post("/signin", data={"token": alice})
    assert 'id="withdraw"' in client.get(f"/submissions/{mine + 1}").text
    assert 'id="signout"' in client.get("/").text
    client.post("/signout")
    assert 'id="signout"' not in client.get("/").text


def test_a_replay_says_whose_cards_are_whose_and_who_won(board, cfr_policy_file):
    from nashzoo.leaderboard.models import Hand

    client, alice, _ = _two_users(board)
    sub = _post(client, alice, "cfr-a", cfr_policy_file.read_bytes()).json()["id"]
    board.work("w")
    with board.session() as session:
        hand = session.query(Hand).filter(Hand.a == f"sub:{sub}").first()
        hand_id = hand.id
    page = client.get(f"/hands/{hand_id}").text
    assert 'id="summary"' in page
    cards = re.findall(r'<td class="cards">([^<]+)</td>', page)
    assert len(cards) == 2 and all(c != "-" for c in cards)  # e.g. Js and Qh
    assert "(won)" in page or "(split)" in page
    assert f"/submissions/{sub}\">cfr-a's page</a>" in page  # back to the submission
    steps = client.get(f"/hands/{hand_id}").text
    assert "Call" in steps or "Check" in steps or "Fold" in steps or "Bet" in steps
