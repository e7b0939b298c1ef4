"""The one referee (issue 30, item 2): every match path asks agents with the same request,
deals chance from the same uniforms and judges answers with the same checks."""

import numpy as np
import pytest

from nashzoo.eval.guard import Forfeit
from nashzoo.eval.referee import Deal, checked_action, drawn_action, request_for, stated_row
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.games.base import TERMINAL
from nashzoo.games.observation import ObservationCache, agent_info

LEDUC = LeducHoldemGame()


def test_the_request_is_the_views_agent_info_on_locked_arrays():
    deal = Deal(LEDUC, np.array([0.1, 0.7, 0.3]))
    p = deal.to_move()
    cache = ObservationCache(LEDUC)
    observation, info = request_for(cache, deal.state, p)
    key = deal.state.information_state_string(p)
    view = cache.get(deal.state, p, key)
    assert info == agent_info(p, view.public_history, view.history_length, key)
    assert set(info) == {
        "player",
        "public_history",
        "history_length",
        "illegal_action",
        "info_state",
    }
    assert observation["observation"] is view.tensor and observation["action_mask"] is view.mask
    with pytest.raises(ValueError):
        observation["action_mask"].setflags(write=True)  # locked: agents cannot write back


def test_the_chance_hook_sees_each_distribution_and_deals_the_same_cards():
    uniforms = np.array([0.05, 0.55, 0.95])
    plain, hooked = Deal(LEDUC, uniforms), Deal(LEDUC, uniforms)
    seen = []
    plain.to_move()
    hooked.to_move(on_chance=lambda state, dist, pick: seen.append((dist, pick)))
    assert plain.state.history() == hooked.state.history()
    assert len(seen) == 2  # both private cards, before the first bet
    for dist, pick in seen:
        assert sum(q for _, q in dist) == pytest.approx(1.0) and pick in [x for x, _ in dist]
    # six cards: u = 0.05 picks the first, and the second card comes from the five left
    assert seen[0][1] == 0 and len(seen[1][0]) == 5


def test_the_checks_accept_legal_numbers_and_forfeit_the_rest():
    deal = Deal(KuhnPokerGame(), np.array([0.0, 0.5]))
    p = deal.to_move()
    key = deal.state.information_state_string(p)
    assert checked_action(deal.state, np.int64(1), 0, key, 2) == 1  # NumPy ints are numbers
    for bad, kind in ((True, "illegal"), (2, "illegal"), (-1, "illegal"), ("1", "illegal")):
        with pytest.raises(Forfeit) as caught:
            checked_action(deal.state, bad, 1, key, 2)
        assert caught.value.who == 1 and caught.value.kind == kind
    deal.apply(0, 1, key, 2)
    deal.apply(1, 1, deal.state.information_state_string(1 - p), 2)
    assert deal.to_move() == TERMINAL and deal.over


def test_stated_probabilities_are_checked_and_drawn_from():
    mask = np.array([1, 0, 1], dtype=np.int8)
    row = stated_row(0, [0.25, 0.0, 0.75], mask, "k")
    assert row.tolist() == [0.25, 0.0, 0.75]
    assert drawn_action(row, 0.2) == 0 and drawn_action(row, 0.3) == 2
    for bad in ([0.5, 0.5, 0.0], [0.5, 0.0, 0.6], [np.nan, 0, 1], [1.0, 0.0]):
        with pytest.raises(Forfeit):
            stated_row(0, bad, mask, "k")
