"""The worlds consistent with a player's knowledge (issue 12, item 1): exactly the
histories of its information set, with their chance probabilities, computed from the
player's own information only."""

import numpy as np
import pytest

from nashzoo.envs.aec import GameEnv
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, rock_paper_scissors
from nashzoo.games.observation import ObservationCache
from nashzoo.games.worlds import consistent_histories, resample, state_from_history
from nashzoo.tree import compile_game
from tests.conftest import traced_sample


def node_histories(tree):
    """Each node's full history and chance probability, from the tree arrays."""
    histories, probs = [()], [1.0]
    for n in range(1, tree.num_nodes):
        parent = tree.parent[n]
        histories.append(histories[parent] + (int(tree.action[n]),))
        probs.append(probs[parent] * float(tree.chance_prob[n]))
    return histories, probs


@pytest.mark.parametrize(
    "game", [KuhnPokerGame(), KuhnPokerGame(5), LeducHoldemGame(), rock_paper_scissors()], ids=repr
)
def test_consistent_histories_are_the_information_set(game):
    tree = compile_game(game)
    histories, probs = node_histories(tree)
    members: dict[int, list[int]] = {}
    for n in np.flatnonzero(tree.infoset >= 0):
        members.setdefault(int(tree.infoset[n]), []).append(int(n))
    # the information sets run the same lines: one in 20 traced (Leduc: 11 s traced, 2 plain)
    for i, nodes in traced_sample(members.items(), every=20):
        player = int(tree.infoset_player[i])
        length = int(tree.infoset_history_length[i])
        public = tree.infoset_public_history[i][:length]
        worlds = consistent_histories(
            game, player, tree.infoset_keys[i], public, player_to_move=True
        )
        assert sorted(w.history for w in worlds) == sorted(histories[n] for n in nodes)
        by_history = {w.history: w.chance_probability for w in worlds}
        for n in nodes:
            assert by_history[histories[n]] == pytest.approx(probs[n])


def test_kuhn_worlds_by_hand():
    # Player 2 holds the Q after a bet: player 1 holds J or K, 1/6 each a priori.
    game = KuhnPokerGame()
    worlds = consistent_histories(
        game, 1, "player=1 card=Q history=b", [-1, -1, 1], player_to_move=True
    )
    assert [w.history for w in worlds] == [(0, 1, 1), (2, 1, 1)]
    assert [w.chance_probability for w in worlds] == pytest.approx([1 / 6, 1 / 6])
    # After his own check, player 1 (holding K) does not know player 2's card.
    worlds = consistent_histories(game, 0, "player=0 card=K history=p", [-1, -1, 0])
    assert [w.history for w in worlds] == [(2, 0, 0), (2, 1, 0)]


def test_resample_draws_in_proportion_and_follows_a_belief():
    game = LeducHoldemGame()
    state = state_from_history(game, [0, 3, 1, 2])  # Js vs Qh, check, raise
    key, public = state.information_state_string(0), state.public_history()
    rng = np.random.default_rng(0)
    draws = [
        tuple(resample(game, 0, key, public, rng, player_to_move=True).history())
        for _ in range(5000)
    ]
    counts = {h: draws.count(h) for h in set(draws)}
    assert len(counts) == 5 and all(800 < c < 1200 for c in counts.values())  # uniform
    weights = [1.0, 0, 0, 0, 0]
    only = {
        tuple(resample(game, 0, key, public, rng, weights, player_to_move=True).history())
        for _ in range(50)
    }
    assert len(only) == 1
    assert state.resample_from_infostate(0, rng).information_state_string(0) == key


def test_what_an_agent_receives_is_a_function_of_its_information_set():
    # No agent can read hidden information through its observation or info: every history
    # of an information set gives it identical arrays, strings and numbers.
    game = LeducHoldemGame()
    tree = compile_game(game)
    histories, _ = node_histories(tree)
    cache = ObservationCache(game)
    seen: dict[str, tuple] = {}
    for n in np.flatnonzero(tree.infoset >= 0):
        state = state_from_history(game, histories[n])
        p = state.current_player()
        key = state.information_state_string(p)
        view = cache.build(state, p)
        info = view.info(p, key)
        given = (
            view.tensor.tobytes(),
            view.mask.tobytes(),
            key,
            info["public_history"].tobytes(),
            info["history_length"],
            info["player"],
        )
        assert seen.setdefault(key, given) == given
    env = GameEnv(game)
    env.reset(seed=0)
    assert sorted(env.infos["player_0"]) == [
        "history_length",
        "illegal_action",
        "player",
        "public_history",
    ]
