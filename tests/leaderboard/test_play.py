"""Playing duplicate hands against ranked agents in the browser's pages (TestClient; the
real browser does the same in test_browser.py), replays with probabilities, resuming."""

from __future__ import annotations

import json
import re

import numpy as np
from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app
from nashzoo.leaderboard.models import Hand
from nashzoo.leaderboard.sandbox import UIDS, process_uids

from .conftest import LAST_LEGAL, bundle, make_board, needs_sandbox

BUTTON = re.compile(r'<button type="submit" name="action" value="(\d+)">([^<]+)</button>')


def _upload(client, token, name, filename, data):
    r = client.post(
        "/api/submissions",
        data={"game": "leduc_holdem", "name": name},
        files={"file": (filename, data)},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _signed_in(board, name="alice"):
    client = TestClient(create_app(board))
    with board.session() as session:
        _, token = add_user(session, name)
    r = client.post("/signin", data={"token": token}, follow_redirects=False)
    assert r.status_code == 303
    return client, token


def _play_hand(client, sub_id, pick=0):
    """Answer with the ``pick``-th legal button until the hand is over; the answers."""
    answers = []
    page = client.get(f"/play/{sub_id}").text
    while "Hand over:" not in page:
        buttons = BUTTON.findall(page)
        assert buttons, page
        action = int(buttons[min(pick, len(buttons) - 1)][0])
        answers.append(action)
        r = client.post(f"/play/{sub_id}/act", data={"action": action}, follow_redirects=True)
        assert r.status_code == 200, r.text
        page = r.text
        assert len(answers) < 12
    return answers, page


def test_play_a_policy_agent_store_replay_and_resume(board, cfr_policy_file):
    from nashzoo.tree.policy import TabularPolicy

    client, token = _signed_in(board)
    sub_id = _upload(client, token, "cfr200", "p.npz", cfr_policy_file.read_bytes())
    board.work("w1")
    anonymous = TestClient(create_app(board))
    assert anonymous.get(f"/play/{sub_id}").status_code == 401
    assert "play it" in client.get("/games/leduc_holdem").text

    start = client.get(f"/play/{sub_id}")
    assert start.status_code == 200 and 'id="start"' in start.text
    r = client.post(f"/play/{sub_id}/start", follow_redirects=True)
    assert r.status_code == 200 and "you are seat 0" in r.text and "Your view" in r.text
    legal = {int(a) for a, _ in BUTTON.findall(r.text)}
    illegal = next(a for a in range(3) if a not in legal)
    bad = client.post(f"/play/{sub_id}/act", data={"action": illegal})
    assert bad.status_code == 409 and "not legal here" in bad.text

    _play_hand(client, sub_id, pick=0)
    client.post(f"/play/{sub_id}/next")
    page = client.get(f"/play/{sub_id}").text
    assert "you are seat 1" in page
    _, page = _play_hand(client, sub_id, pick=1)
    assert "(1 duplicate deal)" in page

    with board.session() as session:
        hands = session.query(Hand).filter(Hand.a == "user:1").order_by(Hand.id).all()
    assert [(h.deal, h.seat0) for h in hands] == [(0, "user:1"), (0, f"sub:{sub_id}")]
    records = [json.loads(h.record) for h in hands]
    # Both seatings of the deal start from the same private cards.
    assert records[0]["history"][:2] == records[1]["history"][:2]
    won = [rec["returns"][rec["seat"]] for rec in records]
    assert f"{np.mean(won) * 1000:+.0f} mbb/game" in page  # big blind 1 chip in Leduc

    # The agent's recorded probabilities are its policy's at those information sets.
    policy = TabularPolicy.load(cfr_policy_file)
    game = board.game("leduc_holdem")
    checked = []
    for rec in records:
        checked.append(0)
        state = game.new_initial_state()
        for action, probs in zip(rec["history"], rec["probabilities"]):
            p = state.current_player()
            if p >= 0 and p != rec["seat"]:
                expected = policy.action_probabilities(state.information_state_string(p))
                # the policy's own numbers, stored and read back as JSON (exact)
                np.testing.assert_allclose(probs, expected, atol=1e-12)
                checked[-1] += 1
            else:
                assert probs is None
            state.apply_action(action)
    assert all(checked)  # the agent moved in both hands

    # Replays step by step, with the probabilities.
    replay = client.get(f"/hands/{hands[0].id}?step=0")
    assert replay.status_code == 200 and 'id="step-next"' in replay.text
    last = len(records[0]["history"])
    end = client.get(f"/hands/{hands[0].id}?step={last}").text
    assert 'id="prev"' in end and 'id="step-next"' not in end
    assert "alice (person)" in end
    full = client.get(f"/hands/{hands[0].id}").text
    assert full.count('<span class="probs">') == checked[0]  # the person states none

    # A new server process (a fresh app) resumes the stored session at its next hand.
    again = TestClient(create_app(board))
    again.cookies.update(client.cookies)
    r = again.post(f"/play/{sub_id}/start", follow_redirects=True)
    assert "Hand 3 (deal 2)" in r.text and "(1 duplicate deal)" in r.text


def test_match_hands_show_policy_probabilities_and_pairings(board, cfr_policy_file):
    client, token = _signed_in(board)
    sub_id = _upload(client, token, "cfr200", "p.npz", cfr_policy_file.read_bytes())
    board.work("w1")
    page = client.get(f"/submissions/{sub_id}").text
    links = re.findall(r'/hands/(\d+)\?step=0"', page)
    assert "against random" in page and "against cfr+" in page
    assert len(links) <= 3 * 2 and links
    hand = client.get(f"/hands/{links[0]}").text
    assert 'class="probs"' in hand  # both seats are policies that state probabilities


def test_play_refuses_unranked_and_unknown(board):
    client, token = _signed_in(board)
    r = client.post("/play/999/start")
    assert r.status_code == 409 and "not a ranked agent" in r.text
    queued = _upload(client, token, "waiting", "b.zip", bundle(LAST_LEGAL))
    r = client.post(f"/play/{queued}/start")
    assert r.status_code == 409 and "it is queued" in r.text


@needs_sandbox
def test_play_a_code_agent_in_its_sandbox(board):
    client, token = _signed_in(board)
    sub_id = _upload(client, token, "last-legal", "b.zip", bundle(LAST_LEGAL))
    board.work("w1")
    assert client.post(f"/play/{sub_id}/start", follow_redirects=True).status_code == 200
    (table,) = client.app.state.play_room._tables.values()
    uid = table.session.agent.uid  # this table's sandbox (other tests' may run beside it)
    assert uid in UIDS and uid in process_uids().values()  # it is up between moves
    answers, page = _play_hand(client, sub_id, pick=0)
    assert answers and "forfeit" not in page
    client.post(f"/play/{sub_id}/stop")
    assert uid not in process_uids().values()


def test_a_table_closed_for_capacity_says_so_and_plays_no_move(tmp_path, cfr_policy_file):
    # One live table at most: bob opening his closes alice's (the idlest). Her next move
    # is refused with the reason (409), nothing is played or stored for it, and her page
    # says why; starting again resumes her game.
    board = make_board(tmp_path, play_tables=1)
    app = create_app(board)
    clients = {}
    with board.session() as session:
        tokens = {name: add_user(session, name)[1] for name in ("alice", "bob")}
    for name, token in tokens.items():
        clients[name] = TestClient(app)
        assert clients[name].post("/signin", data={"token": token}).status_code == 200
    sub_id = _upload(
        clients["alice"], tokens["alice"], "cfr200", "p.npz", cfr_policy_file.read_bytes()
    )
    board.work("w1")
    page = clients["alice"].post(f"/play/{sub_id}/start", follow_redirects=True).text
    action = int(BUTTON.findall(page)[0][0])
    clients["bob"].post(f"/play/{sub_id}/start", follow_redirects=True)
    with board.session() as session:
        stored = session.query(Hand).count()
    r = clients["alice"].post(f"/play/{sub_id}/act", data={"action": action})
    assert r.status_code == 409
    assert "at most 1 live tables" in r.text and "that move was not played" in r.text
    with board.session() as session:
        assert session.query(Hand).count() == stored
    page = clients["alice"].get(f"/play/{sub_id}").text
    assert 'id="closed"' in page and 'id="start"' in page
    page = clients["alice"].post(f"/play/{sub_id}/start", follow_redirects=True).text
    assert "you are seat 0" in page and 'id="closed"' not in page
    # the end of a hand: both seats' cards and chips, summing to zero
    _, page = _play_hand(clients["alice"], sub_id)
    rows = re.findall(
        r'<tr><td>(\d)</td><td>([^<]+)</td><td class="cards">(\w+)</td><td>([+-][\d.]+)', page
    )
    assert [(seat, who) for seat, who, _, _ in rows] == [("0", "you"), ("1", "cfr200")]
    assert sum(float(won) for *_, won in rows) == 0
