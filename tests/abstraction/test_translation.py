"""Off-tree bet translation (issue 90): the pseudo-harmonic mapping as Ganzfried &
Sandholm (IJCAI 2013) define it, and a no-limit blueprint playing a no-limit game with
other raise sizes through it."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.abstraction.translation import pot_fraction, pseudo_harmonic, translate_size
from nashzoo.errors import InvalidParameterError

from .playing import check_plays
from .stand_in import use_stand_in_buckets


def test_the_pseudo_harmonic_formula():
    # f_A(x) = (B - x)(1 + A) / ((B - A)(1 + x)): exact at the two sizes, and between
    # them below the linear interpolation's (B - x) / (B - A) (it leans to the larger
    # size, which the paper shows makes it harder to exploit)
    assert pseudo_harmonic(0.5, 0.5, 1.0) == 1.0
    assert pseudo_harmonic(1.0, 0.5, 1.0) == 0.0
    assert pseudo_harmonic(0.75, 0.5, 1.0) == pytest.approx(0.25 * 1.5 / (0.5 * 1.75))  # 3/7
    assert pseudo_harmonic(0.5, 0.0, 1.0) == pytest.approx(1 / 3)
    xs = np.linspace(0.5, 1.0, 11)
    values = [pseudo_harmonic(x, 0.5, 1.0) for x in xs]
    assert np.all(np.diff(values) < 0)
    assert all(v <= (1.0 - x) / 0.5 + 1e-12 for v, x in zip(values, xs))
    for bad in ((0.2, 0.5, 1.0), (0.7, 1.0, 0.5), (0.5, -0.1, 1.0), (float("nan"), 0.5, 1.0)):
        with pytest.raises(InvalidParameterError, match="0 <= a <= x <= b"):
            pseudo_harmonic(*bad)


def test_a_size_between_two_reads_as_each_as_often_as_the_formula_says():
    sizes = [1.0, 0.5, 99.5]  # pot, half pot, all-in: any order
    grid = (np.arange(10_000) + 0.5) / 10_000
    picks = np.array([translate_size(0.75, sizes, u) for u in grid])
    assert set(picks.tolist()) == {0, 1}
    assert np.mean(picks == 1) == pytest.approx(3 / 7, abs=1e-4)
    assert translate_size(0.2, sizes, 0.99) == 1  # below the smallest: the smallest
    assert translate_size(150.0, sizes, 0.0) == 2  # above the largest: the largest
    assert translate_size(1.0, sizes, 0.999) == 0  # a size it has: that size
    with pytest.raises(InvalidParameterError, match="at least one size"):
        translate_size(0.5, [], 0.5)
    with pytest.raises(InvalidParameterError, match=r"u in \[0, 1\)"):
        translate_size(0.5, sizes, 1.0)
    # a raise to 400 over blinds of 100 and 50 (the small blind to act): 1.5 pots
    assert pot_fraction(400, [100, 50], 1) == 1.5


def test_a_no_limit_blueprint_plays_other_raise_sizes(monkeypatch):
    """A policy solved with half-pot and pot raises plays the game with raises of 0.5,
    0.75 and 1.5 pots: legal distributions at every decision, a real half-pot raise
    read as the abstraction's own, and a game with other cards or limit betting refused."""
    use_stand_in_buckets(monkeypatch)
    from nashzoo.agents.cfr.abstract import AbstractionSolver
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.games.poker import limit_holdem, no_limit_holdem

    blueprint = no_limit_holdem()
    policy = AbstractionSolver(blueprint, "ehs2:169,4,3,3", seed=0, progress=False)
    policy = policy.iterate(3000).average_policy()
    real = no_limit_holdem(raises=(0.5, 0.75, 1.5))
    agent = AbstractionAgent(policy, real, seed=0)
    assert agent.translating
    assert check_plays(agent, real, hands=120, seed=0, tensors=True) > 300
    # the small blind raises half the pot (to 200) in both games: read as the same node
    state = real.new_initial_state()
    for card in range(4):
        state.apply_action(card)
    state.apply_action(2)
    twin = blueprint.new_initial_state()
    for action in (0, 1, 2, 3, 2):
        twin.apply_action(action)
    mine = state.information_state_string(0)
    assert mine == twin.information_state_string(0)  # "... bets=r200"
    mask = state.legal_actions_mask()
    probs = agent.action_probabilities(
        {"observation": None, "action_mask": mask}, {"info_state": mine}
    )
    plain = policy.probabilities(mine)
    assert probs[0] == pytest.approx(plain[0]) and probs[1] == pytest.approx(plain[1])
    assert probs[real.all_in] == pytest.approx(plain[blueprint.all_in])
    with pytest.raises(InvalidParameterError, match="other raise sizes, nothing else"):
        AbstractionAgent(policy, limit_holdem(), seed=0)
    with pytest.raises(
        InvalidParameterError, match=r"stacks \(20000, 20000\) against \(5000, 5000\)"
    ):
        AbstractionAgent(policy, no_limit_holdem(stack=5000), seed=0)
