"""Duplicate play between a person and an agent (nashzoo.eval.session) and the keyboard
agent (nashzoo.agents.human)."""

from __future__ import annotations

import io
import math
from types import SimpleNamespace

import numpy as np
import pytest

from nashzoo.agents.human import HumanAgent, HumanQuit, parse_answer
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.specs import build_agent
from nashzoo.envs.registration import make_game
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.session import DuplicateSession
from nashzoo.games.base import CHANCE, HIDDEN


def _play_out(session: DuplicateSession, pick) -> None:
    while not session.hand_over:
        session.apply(pick(session))


def test_deal_is_replayed_from_the_other_seat_with_the_same_cards():
    game = make_game("leduc_holdem")
    session = DuplicateSession(game, RandomAgent(), seed=7)
    _play_out(session, lambda s: s.legal_actions()[0][0])
    session.start_hand()
    _play_out(session, lambda s: s.legal_actions()[-1][0])
    first, second = session.finished
    assert (first.seat, second.seat) == (0, 1)
    # The two private cards and (when reached) the board card come from one row of draws.
    expected = deal_uniforms(game, 1, np.random.default_rng([7, 0]))[0]
    state = game.new_initial_state()
    state.advance_chance(iter(expected.tolist()).__next__)
    assert first.history[:2] == second.history[:2] == state.history()[:2]


def test_agent_decisions_are_checked_and_probabilities_recorded():
    game = make_game("leduc_holdem")
    agent = build_agent("cfr+:30", game)
    session = DuplicateSession(game, agent, seed=1)
    _play_out(session, lambda s: s.legal_actions()[0][0])
    record = session.finished[0]
    agent_steps = [s for s in record.steps if s.player == 1]
    assert agent_steps, "the agent (seat 1) must have moved in hand 0"
    for step in agent_steps:
        assert step.probabilities is not None
        # a rounded distribution over at most 3 actions: within a few u of 1
        assert math.isclose(sum(step.probabilities), 1.0, rel_tol=0, abs_tol=8 * 2.0**-53)
        assert step.probabilities[step.action] > 0  # it played an action it gives weight to
    assert all(s.probabilities is None for s in record.steps if s.player != 1)
    assert record.to_json()["probabilities"][0] is None  # chance


def test_private_cards_hidden_until_the_hand_ends():
    game = make_game("leduc_holdem")
    session = DuplicateSession(game, RandomAgent(), seed=3)
    visible = session.visible_steps()
    assert [s.player for s in visible[:2]] == [CHANCE, CHANCE]
    assert all(s.action == HIDDEN for s in visible[:2])
    assert session.view()[1]["info_state"].startswith("player=0 card=")
    _play_out(session, lambda s: s.legal_actions()[0][0])
    assert all(s.action != HIDDEN for s in session.visible_steps())


def test_illegal_and_late_actions_are_refused():
    game = make_game("leduc_holdem")
    session = DuplicateSession(game, RandomAgent(), seed=0)
    legal = [a for a, _ in session.legal_actions()]
    illegal = next(a for a in range(game.num_distinct_actions) if a not in legal)
    with pytest.raises(IllegalActionError, match="not legal here"):
        session.apply(illegal)
    with pytest.raises(IllegalActionError, match="still being played"):
        session.start_hand()
    _play_out(session, lambda s: s.legal_actions()[0][0])
    with pytest.raises(IllegalActionError, match="is over"):
        session.apply(legal[0])
    three = SimpleNamespace(num_players=3)  # no three-player game ships yet
    with pytest.raises(InvalidParameterError, match="two-player game, received .* 3 players"):
        DuplicateSession(three, RandomAgent())


def test_score_counts_complete_deals_and_matches_the_hands():
    game = make_game("kuhn_poker")
    session = DuplicateSession(game, RandomAgent(), seed=11)
    for _ in range(8):
        _play_out(session, lambda s: s.legal_actions()[-1][0])
        session.start_hand()
    won = [r.person_return for r in session.finished]
    pairs = [(won[2 * d] + won[2 * d + 1]) / 2 for d in range(4)]
    score = session.score()
    assert score.deals == 4 and score.hands == 8
    assert score.mean == pytest.approx(np.mean(pairs))
    half = 1.959963984540054 * np.std(pairs, ddof=1) / 2
    assert (score.low, score.high) == pytest.approx((np.mean(pairs) - half, np.mean(pairs) + half))


def test_a_failing_agent_forfeits_the_hand_and_the_session_goes_on():
    class Broken:
        name = "broken"

        def reset(self, *, seed=None):
            pass

        def act(self, observation, info):
            return 99

    game = make_game("kuhn_poker")
    session = DuplicateSession(game, Broken(), seed=0)  # seat 0: the person moves first
    session.apply(0)
    assert session.hand_over
    record = session.finished[0]
    assert "illegal action" in record.forfeit or "invalid action" in record.forfeit
    assert record.person_return == game.max_payoff_magnitude
    session.start_hand()
    assert session.hand_over and session.finished[1].forfeit  # seat 1: the agent opens


def test_parse_answer_numbers_names_and_prefixes():
    legal = {0: "Fold", 1: "Call", 2: "Raise"}
    assert parse_answer("2", legal) == 2
    assert parse_answer(" call ", legal) == 1
    assert parse_answer("R", legal) == 2
    with pytest.raises(IllegalActionError, match="not a legal action"):
        parse_answer("5", {1: "Call", 2: "Raise"})
    with pytest.raises(IllegalActionError, match="names no legal action"):
        parse_answer("bet", legal)
    with pytest.raises(IllegalActionError, match="could be Pass, Pause"):
        parse_answer("pa", {0: "Pass", 1: "Pause"})


def test_human_agent_reprompts_and_quits():
    game = make_game("kuhn_poker")
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.legal_actions()[0])
    observation = {"observation": None, "action_mask": state.legal_actions_mask()}
    info = {"player": 0, "info_state": state.information_state_string(0)}
    answers = iter(["fold", "b"])  # (raise would be taken for Bet)
    out = io.StringIO()
    agent = HumanAgent(game, read=lambda prompt: next(answers), out=out)
    assert agent.act(observation, info) == 1
    assert "names no legal action" in out.getvalue() and "card=" in out.getvalue()
    quitting = HumanAgent(game, read=lambda prompt: "quit", out=out)
    with pytest.raises(HumanQuit):
        quitting.act(observation, info)

    def closed(prompt):
        raise EOFError

    with pytest.raises(HumanQuit):
        HumanAgent(game, read=closed, out=out).act(observation, info)
