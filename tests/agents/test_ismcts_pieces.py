"""The piece-by-piece draw of Nash-ISMCTS's SAMPLE nodes (issue 89 item 4).

``SearchConfig.draw_pieces`` builds H-splitting's series lazily: a SAMPLE node holds only
the options of one piece of the opponent's private information (a hole card: at most 52)
with H conditioned on the pieces drawn before it, so its time and memory do not grow with
the number of worlds (1,225 pairs of hole cards on a Hold'em flop). The checks:

* where a private value is one piece (Leduc), the lazy series is the flat SAMPLE node,
  move for move;
* poker names each card's options and chance weights without listing the sets, and they
  are the marginals of the listed worlds;
* one uniform drawn piece by piece picks the world the flat draw picks with it, and the
  product of the pieces' H is the flat H, for the marginals of any belief;
* a network scores the last piece's options with the world's own embedding (so its H and
  V there are the flat heads'), and a search on Hold'em and heads-up no-limit never scores
  every world;
* trained by the trainer's loss, the first card's H learns a board-dependent posterior
  (``test_ismcts_rules_nash.py``'s board-belief test, which trains once for both heads).
"""

from __future__ import annotations

import numpy as np
import pytest

import nashzoo
from nashzoo.agents.ismcts import ISMCTSSearch, NetworkKnowledge, SearchConfig, TablesKnowledge
from nashzoo.agents.ismcts.search import _draw_cumulative, _draw_within, _Sample
from nashzoo.errors import InvalidParameterError
from nashzoo.games.hidden import HiddenPieces
from nashzoo.games.poker import presets
from tests.agents.test_ismcts_rules_nash import (
    decision_states,
    leduc_oracle_tables,
    random_network,
)

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

HOLDEM = nashzoo.make_game("limit_holdem")
HUNL = nashzoo.make_game("no_limit_holdem")


def flop_views(game, count, seed):
    """Views on the flop or later of the player to move (990 to 1,128 worlds each):
    deals drawn from ``seed``, every decision a check or a call until a random street."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        streets = int(rng.integers(1, 4))  # stop on the flop, turn or river
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(int(outcomes[rng.integers(len(outcomes))][0]))
            elif len(state.board_cards()) >= 2 + streets:
                states.append(state)
                break
            else:
                state.apply_action(1)
    return states


def test_where_a_value_is_one_piece_the_lazy_series_is_the_flat_node():
    # Leduc's private value is one card: the series has one node, the flat SAMPLE node
    # (its H and V_w, the terminal payoffs exact), drawn with the same uniform
    game = presets.leduc()
    knowledge = TablesKnowledge(leduc_oracle_tables())
    for k, state in enumerate(decision_states(game, 6, seed=3)):
        flat, lazy = (
            ISMCTSSearch(
                game, knowledge, SearchConfig(simulations=300, eps=0.2, draw_pieces=d),
                fast_path=False,
            ).run_state(state, k)
            for d in (False, True)
        )  # fmt: skip
        assert np.array_equal(flat.visits, lazy.visits)
        assert np.allclose(flat.q_low, lazy.q_low, equal_nan=True)
        assert np.allclose(flat.q_high, lazy.q_high, equal_nan=True)
        assert np.allclose(flat.policy, lazy.policy)


@pytest.mark.parametrize("game", [HOLDEM, HUNL], ids=["limit", "no-limit"])
def test_poker_names_each_cards_options_as_the_marginals_of_the_sets(game):
    for state in flop_views(game, 3, seed=1):
        p = state.current_player()
        fast = state.hidden_pieces(p)
        worlds = state.hidden_worlds(p)
        slow = HiddenPieces.from_worlds(worlds, game.hidden_value_pieces(worlds.values))
        assert fast.levels == slow.levels == 2
        first, weights = fast.options(())
        assert first.size <= 52 and np.isclose(weights.sum(), 1.0)
        for prefix in [(), (int(first[0]),), (int(first[len(first) // 2]),)]:
            a, b = fast.options(prefix), slow.options(prefix)
            assert np.array_equal(a[0], b[0])
            assert np.allclose(a[1], b[1], atol=1e-15)
        truth = state.private_information(1 - p)
        assert fast.pieces_of(state) == truth == fast.value(truth)
        world = fast.state(truth)
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.private_information(1 - p) == truth
    with pytest.raises(InvalidParameterError, match="no piece follows a prefix of 2"):
        fast.options(truth)
    with pytest.raises(InvalidParameterError, match="a world needs 2 pieces, received 1"):
        fast.state(truth[:1])


def test_one_uniform_drawn_piece_by_piece_picks_the_flat_draws_world():
    # the pieces' H from the marginals of a network's flat H (Knowledge's default): their
    # product is the flat H, and a uniform rescaled within each drawn card's share picks
    # the world the flat draw picks (Hold'em's sets are listed in the order of their cards)
    knowledge = NetworkKnowledge(HOLDEM, random_network(HOLDEM))
    rng = np.random.default_rng(0)
    for state in flop_views(HOLDEM, 2, seed=4):
        p = state.current_player()
        pieces = state.hidden_pieces(p)
        worlds = pieces.worlds
        flat = knowledge.belief(state, p, worlds)
        first, _ = pieces.options(())
        h0 = knowledge.marginal_piece_belief(state, p, pieces, ())
        chain = {}
        for c, share in zip(first.tolist(), h0):
            second, _ = pieces.options((c,))
            h1 = knowledge.marginal_piece_belief(state, p, pieces, (c,))
            chain.update({(c, d): share * q for d, q in zip(second.tolist(), h1)})
        assert np.allclose([chain[v] for v in worlds.values], flat, rtol=1e-9, atol=1e-15)
        cumulative = np.cumsum(flat)
        for u in rng.random(300):
            k, inner = _draw_within(np.cumsum(h0), u)
            c = int(first[k])
            second, _ = pieces.options((c,))
            j, _ = _draw_within(
                np.cumsum(knowledge.marginal_piece_belief(state, p, pieces, (c,))), inner
            )
            assert (c, int(second[j])) == worlds.values[_draw_cumulative(cumulative, u)]


def test_a_network_scores_the_last_piece_with_the_worlds_own_embedding():
    # the last card completes a world: its H is the flat belief conditioned on the first
    # card, and its values are V_w of those worlds
    knowledge = NetworkKnowledge(HOLDEM, random_network(HOLDEM))
    checked = 0
    for state in flop_views(HOLDEM, 4, seed=6):
        p = state.current_player()
        pieces = state.hidden_pieces(p)
        worlds = pieces.worlds
        after_view = state.clone()
        after_view.apply_action(1)  # a check or a call: p's view after its action
        if after_view.is_terminal():
            continue
        checked += 1
        flat = knowledge.belief(state, p, worlds)
        values = knowledge.world_values(after_view, p, worlds)
        c = int(pieces.options(())[0][3])
        rows = np.array([v[0] == c for v in worlds.values])
        h = knowledge.piece_belief(state, p, pieces, (c,))
        assert np.allclose(h, flat[rows] / flat[rows].sum())
        v = knowledge.piece_values(state, after_view, p, pieces, (c,))
        assert np.allclose(v, values[rows])
        first = knowledge.piece_belief(state, p, pieces, ())
        assert first.shape == pieces.options(())[0].shape and np.isclose(first.sum(), 1.0)
    assert checked >= 2


@pytest.mark.parametrize("game", [HOLDEM, HUNL], ids=["limit", "no-limit"])
def test_a_piece_by_piece_search_never_scores_every_world(game, monkeypatch):
    # every SAMPLE node holds one card's options (at most 52 entries), and nothing asks
    # for H or V_w over every world of a view (990 to 1,128 on these views)
    def refuse(*args, **kwargs):
        raise AssertionError("scored every world")

    monkeypatch.setattr(HiddenPieces, "marginal", refuse)
    monkeypatch.setattr(NetworkKnowledge, "belief", refuse)
    monkeypatch.setattr(NetworkKnowledge, "world_values", refuse)
    seen: list[int] = []
    original = _Sample.__init__

    def counted(self, belief, vstar, exact):
        seen.append(belief.size)
        original(self, belief, vstar, exact)

    monkeypatch.setattr(_Sample, "__init__", counted)
    knowledge = NetworkKnowledge(game, random_network(game))
    for k, state in enumerate(flop_views(game, 3, seed=2)):
        seen.clear()
        search = ISMCTSSearch(game, knowledge, SearchConfig(simulations=150, draw_pieces=True))
        result = search.run_state(state, k)
        assert result.simulations == 150
        assert seen and max(seen) <= 52, max(seen)
        assert len(state.hidden_worlds(state.current_player())) >= 990


def test_draw_pieces_is_refused_where_it_cannot_run():
    with pytest.raises(InvalidParameterError, match="estimator='polled' needs every world"):
        SearchConfig(draw_pieces=True, estimator="polled")
    with pytest.raises(InvalidParameterError, match="MT-ISMCTS has no SAMPLE nodes"):
        ISMCTSSearch(HOLDEM, config=SearchConfig(variant="mt", draw_pieces=True))


def test_a_game_without_a_closed_form_draws_its_listed_worlds_piece_by_piece():
    # the fighting game's hand card by card (then the unrevealed card): HiddenPieces
    # groups its listed worlds, and the chance weights of the options along each world's
    # series multiply to the world's own; the lazy search plays on them
    game = nashzoo.make_game("fighting_cards")
    knowledge = NetworkKnowledge(game, random_network(game))
    for k, state in enumerate(decision_states(game, 3, seed=5)):
        p = state.current_player()
        pieces = state.hidden_pieces(p)
        worlds = pieces.worlds
        assert pieces.levels == game.hidden_value_pieces(worlds.values).shape[1] >= 2
        for value, weight in zip(worlds.values, worlds.weights):
            series = game.hidden_value_pieces([value])[0].tolist()
            chance = 1.0
            for level in range(pieces.levels):
                options, weights = pieces.options(tuple(series[:level]))
                chance *= weights[np.searchsorted(options, series[level])]
            assert np.isclose(chance, weight, rtol=1e-9)
            assert pieces.value(tuple(series)) == value
        config = SearchConfig(simulations=60, draw_pieces=True)
        result = ISMCTSSearch(game, knowledge, config).run_state(state, k)
        assert result.simulations == 60 and np.isclose(result.policy.sum(), 1.0)
