"""The scripted agents (the fighting-card heuristic, the poker rules): baselines that must
beat random and obey masks."""

from __future__ import annotations

import numpy as np
import pytest

import nashzoo
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.scripted import FightingHeuristicAgent
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.eval import exploitability
from nashzoo.eval.matches import head_to_head
from nashzoo.games.fighting import card_damage
from nashzoo.tree import TabularPolicy, compile_game


def test_heuristic_beats_random_on_the_default_preset():
    game = nashzoo.make_game("nashzoo/fighting_cards-v0")
    result = head_to_head(game, FightingHeuristicAgent(game), RandomAgent(seed=1), deals=300)
    assert result.ci95[0] > 0  # measured +0.25 chips per game over 500 deals


def test_heuristic_is_a_legal_deterministic_policy():
    game = nashzoo.make_game("nashzoo/fighting_cards_small-v0")
    tree = compile_game(game)
    agent = FightingHeuristicAgent(game)
    result = exploitability(agent, tree)
    # deterministic and greedy: far from equilibrium (CFR+ reaches 0), yet on this preset a
    # little less exploitable than random (measured 0.4028 against 0.4063)
    uniform = exploitability(TabularPolicy.uniform(tree)).exploitability
    assert 0.3 < result.exploitability < uniform
    for i in range(0, tree.num_infosets, 97):
        obs, info = tree.agent_inputs(i)
        probs = agent.action_probabilities(obs, info)
        assert probs.sum() == 1.0 and tree.legal_mask[i][int(np.argmax(probs))]


def test_heuristic_scores_are_the_damage_table_against_unseen_cards():
    game = nashzoo.make_game("nashzoo/fighting_cards-v0")
    agent = FightingHeuristicAgent(game)
    k = game.num_kinds
    a, b = game.kind(0), game.kind(k - 1)
    assert agent._net[0, k - 1] == card_damage(*a, *b) - card_damage(*b, *a)
    np.testing.assert_allclose(agent._net, -agent._net.T)  # zero-sum per exchange
    obs = {"observation": np.zeros(game.information_state_tensor_size), "action_mask": np.zeros(k)}
    with pytest.raises(IllegalActionError):
        agent.act(obs, {})
    with pytest.raises(InvalidParameterError, match="FightingCardGame"):
        FightingHeuristicAgent(nashzoo.make_game("nashzoo/kuhn_poker-v0"))


def test_poker_rules_beat_random_at_limit_holdem():
    from nashzoo.agents.scripted import PokerRulesAgent
    from nashzoo.games.poker import limit_holdem

    game = limit_holdem()
    result = head_to_head(game, PokerRulesAgent(game), RandomAgent(seed=1), deals=1500)
    # measured +3.2 chips/game (95% CI +2.3 .. +4.0 over 2,000 deals); a uniform policy
    # scores 0 against random by symmetry: the bound asks for a clear 1 chip (100 mbb)
    assert result.ci95[0] > 1.0


def test_poker_rules_decisions():
    from nashzoo.agents.scripted import PokerRulesAgent
    from nashzoo.games.poker import CALL, FOLD, RAISE, limit_holdem
    from nashzoo.games.poker.hands import parse_cards

    game = limit_holdem()
    agent = PokerRulesAgent(game)

    def decision(cards, betting=()):
        state = game.new_initial_state()
        for card in parse_cards(cards):
            state.apply_action(card)
        for action in betting:
            state.apply_action(action)
        player = state.current_player()
        obs = {
            "observation": state.information_state_tensor(player),
            "action_mask": state.legal_actions_mask(),
        }
        probs = agent.action_probabilities(obs, {})
        assert probs.sum() == 1.0 and probs[agent.act(obs, {})] == 1.0
        return agent.act(obs, {})

    # player 1 (the small blind) acts first: 7d 2c folds to the blind, a pair raises
    assert decision("AsAh7d2c") == FOLD
    assert decision("7d2cAsAh") == RAISE
    assert decision("7d2cAs7h") == CALL  # one card of the top five: call
    assert decision("Js9dAs7h", (RAISE,)) == CALL  # the big blind, raised, calls a jack
    with pytest.raises(InvalidParameterError, match="poker engine"):
        PokerRulesAgent(nashzoo.make_game("nashzoo/leduc_holdem-v0"))
