"""Agents on heads-up no-limit Hold'em (issue 38 item 4): the rule-based poker agent,
NFSP and MaskablePPO train and play it through the same paths as limit Hold'em."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.scripted import PokerRulesAgent, baselines
from nashzoo.eval.matches import head_to_head
from nashzoo.games.poker import no_limit_holdem

HUNL = no_limit_holdem()


def test_the_rule_based_agent_beats_random_at_no_limit():
    # measured: +1,486 chips per game [+1,109, +1,863] over 1,000 duplicate deals; the bet
    # it makes with strong hands is the smallest raise on offer, never a fold when free
    rules = PokerRulesAgent(HUNL)
    assert set(baselines(HUNL)) == {"random", "poker-rules"}
    result = head_to_head(HUNL, rules, RandomAgent(seed=1), deals=1000, seed=4)
    assert result.ci95[0] > 0
    state = HUNL.new_initial_state()
    for card in (51, 50, 0, 5):  # player 0 holds a pair of aces; player 1 acts first
        state.apply_action(card)
    state.apply_action(1)  # the small blind calls
    from nashzoo.eval.referee import request_for
    from nashzoo.games.observation import ObservationCache

    obs, info = request_for(ObservationCache(HUNL), state, 0)
    assert rules.act(obs, info) == 2  # raise half pot: the smallest raise


def test_nfsp_and_maskable_ppo_train_and_play_no_limit():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from nashzoo.agents.nfsp import NFSP, NFSPConfig

    learner = NFSP(HUNL, NFSPConfig(seed=0, batch_games=16)).train(steps=400)
    assert learner.steps >= 400
    played = head_to_head(HUNL, learner.agent(seed=0), RandomAgent(seed=2), deals=50, seed=0)
    assert np.isfinite(played.mean)
    pytest.importorskip("sb3_contrib")
    from nashzoo.bounds import learned_best_response

    found = learned_best_response(HUNL, RandomAgent(seed=0), steps=1024, deals=50, num_envs=4)
    assert found.steps == 1024 and np.isfinite(found.value)


def test_the_rule_based_agent_reads_its_cards_at_any_table_and_beats_random_there():
    # at N seats the tensor starts with an N-wide seat one-hot: the agent must read its
    # hole cards after it (reading them after a 2-wide one-hot, seat 2's aces become a
    # deuce and an ace, and it calls instead of raising)
    from nashzoo.eval import play_table
    from nashzoo.eval.referee import request_for
    from nashzoo.games.observation import ObservationCache
    from nashzoo.games.poker import ring_limit_holdem

    game = ring_limit_holdem(3)
    rules = PokerRulesAgent(game)
    state = game.new_initial_state()
    for card in (0, 1, 4, 5, 51, 50):  # seats 0 and 1: low cards; seat 2: two aces
        state.apply_action(card)
    assert state.current_player() == 2
    obs, info = request_for(ObservationCache(game), state, 2)
    assert rules.act(obs, info) == 2  # raise
    # measured: +8.16 chips per game [+5.40, +10.91] over 300 deals x 6 seatings
    table = play_table(game, [rules, RandomAgent(seed=1), RandomAgent(seed=2)], deals=300, seed=5)
    assert table.ci95[0, 0] > 0
