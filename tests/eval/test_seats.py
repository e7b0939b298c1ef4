"""Duplicate matches at tables of three or more seats (issue 38): every agent in every
seat with the same cards, scores per agent with intervals, ratings for N-seat tables."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from nashzoo.agents.cfr import TabularPolicyAgent, make_solver
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.seats import play_table, seatings
from nashzoo.games import KuhnPokerGame, LeducHoldemGame


def test_seatings_put_every_agent_in_every_seat_and_behind_every_other():
    three = seatings(3)
    assert len(three) == 6 and len(set(three)) == 6
    for seat in range(3):
        assert collections.Counter(t[seat] for t in three) == {0: 2, 1: 2, 2: 2}
    # who acts right after whom (cyclically) is balanced too: 6 seatings x 3 neighbours
    after = collections.Counter((t[s], t[(s + 1) % 3]) for t in three for s in range(3))
    assert set(after.values()) == {3} and len(after) == 6
    five = seatings(5)  # 120 permutations would be too many games: the 5 rotations
    assert len(five) == 5
    for seat in range(5):
        assert sorted(t[seat] for t in five) == [0, 1, 2, 3, 4]
    with pytest.raises(InvalidParameterError, match="n"):
        seatings(1)


class SeatSpy:
    """Random legal play that counts the seats it is asked to act from (every seat acts
    once in a Kuhn game's first betting round)."""

    def __init__(self, name):
        self.name, self.seats = name, collections.Counter()
        self.rng = np.random.default_rng(0)

    def reset(self, *, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, info):
        self.seats[int(info["player"])] += 1
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


def test_every_agent_sits_in_every_seat_with_the_same_cards():
    game = KuhnPokerGame(players=3)
    spies = [SeatSpy(f"spy{k}") for k in range(3)]
    histories = []
    result = play_table(game, spies, deals=40, seed=2, record=histories, bootstrap=0)
    assert len(histories) == 40 * 6
    for d in range(40):
        games = histories[6 * d : 6 * d + 6]
        assert len({tuple(h[:3]) for h in games}) == 1  # the same three cards dealt
    # every seat acts in a Kuhn game's first round: each agent acted from each seat in
    # 2 of the 6 seatings of each of the 40 deals
    assert all(spy.seats[seat] >= 80 for spy in spies for seat in range(3))
    assert np.allclose(result.scores.sum(axis=1), 0.0)  # zero-sum, deal by deal
    assert result.position_balanced and result.seatings == tuple(seatings(3))


def test_a_three_player_equilibrium_beats_two_random_agents():
    # CFR+ (500 iterations) against two uniform random agents, 2,000 deals x 6 seatings:
    # measured +0.176 [+0.151, +0.202] chips/game, the randoms -0.082 and -0.094
    game = KuhnPokerGame(players=3)
    policy = make_solver("cfr+", game).iterate(500).average_policy()
    agents = [
        TabularPolicyAgent(policy, seed=0, name="cfr+"),
        build_agent("random", game),
        build_agent("random", game, name="random-2"),
    ]
    result = play_table(game, agents, deals=2000, seed=1)
    assert result.ci95[0, 0] > 0 and result.ci95[1, 1] < 0 and result.ci95[2, 1] < 0
    assert result.mean.sum() == pytest.approx(0.0, abs=1e-12)
    assert np.argmax(result.elo) == 0 and result.elo_low[0] > max(result.elo_high[1:])
    assert "cfr+" in str(result).splitlines()[1]


def test_two_seats_are_ordinary_duplicate_play():
    # at two seats the table is a duplicate match: its mean agrees with the exact
    # expected score (within 4 standard errors) of CFR+ against uniform on Leduc
    from nashzoo.eval.matches import exact_duplicate_value
    from nashzoo.tree import TabularPolicy

    game = LeducHoldemGame()
    policy = make_solver("cfr+", game).iterate(100).average_policy()
    uniform = TabularPolicy.uniform(policy.tree)
    a, b = TabularPolicyAgent(policy, seed=0), TabularPolicyAgent(uniform, seed=1)
    result = play_table(game, [a, b], deals=1500, seed=3, bootstrap=0)
    assert seatings(2) == [(0, 1), (1, 0)]
    exact = exact_duplicate_value(policy, uniform)
    assert abs(result.mean[0] - exact) <= 4 * result.stderr[0]


def test_a_table_needs_one_agent_per_seat():
    game = KuhnPokerGame(players=3)
    with pytest.raises(InvalidParameterError, match="3 seats, received 2 agents"):
        play_table(game, [build_agent("random", game)] * 2, deals=2)


def test_a_roster_plays_every_combination_and_pools_the_outcomes():
    # four agents at three seats: C(4, 3) = 4 tables; each pair of agents sits together
    # at two of them, so their pooled outcomes count 2 x deals (ties split)
    from nashzoo.eval.seats import play_tables

    game = KuhnPokerGame(players=3)
    cfr = TabularPolicyAgent(make_solver("cfr+", game).iterate(200).average_policy(), seed=0)
    roster = [cfr, *(RandomAgent(seed=k, name=f"random{k}") for k in range(3))]
    result = play_tables(game, roster, deals=60, seed=1, bootstrap=50)
    assert [seated for seated, _ in result.tables] == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    meetings = result.wins + result.wins.T
    off = ~np.eye(4, dtype=bool)
    assert np.allclose(meetings[off], 2 * 60)
    # an agent's score is the mean of its deals at every table it sat at (3 of the 4)
    cfr_deals = np.concatenate([t.scores[:, 0] for seated, t in result.tables if 0 in seated])
    assert cfr_deals.size == 180 and result.mean[0] == pytest.approx(cfr_deals.mean())
    assert result.ci95[0, 0] > 0  # CFR+ wins against the random agents
    assert result.elo[0] == result.elo.max() and result.elo_low[0] <= result.elo[0]
    with pytest.raises(InvalidParameterError, match="at least 3 agents"):
        play_tables(game, roster[:2], deals=2)


def test_drawn_seats_play_their_stated_probabilities_and_a_proxys_forfeit_is_its_seat():
    """``draw_from``: the referee draws a stating agent's moves from its probabilities
    (the leaderboard's tables), so a stated policy whose ``act`` always passes plays as
    stated; a forfeit a proxy raises as seat -1 (the sandbox) names the seat called."""
    from nashzoo.eval.guard import Forfeit

    game = KuhnPokerGame(players=3)
    policy = make_solver("cfr+", game).iterate(200).average_policy()

    class SaysOneDoesAnother(TabularPolicyAgent):
        def act(self, observation, info):
            return 0  # always check/fold, whatever it states

    liar = SaysOneDoesAnother(policy, seed=0)
    honest = TabularPolicyAgent(policy, seed=0)
    others = [RandomAgent(seed=s) for s in (1, 2)]
    as_stated = play_table(game, [honest, *others], deals=300, seed=5, bootstrap=0,
                           draw_from=[True, False, False])  # fmt: skip
    drawn = play_table(game, [liar, *others], deals=300, seed=5, bootstrap=0,
                       draw_from=[True, False, False])  # fmt: skip
    acted = play_table(game, [liar, *others], deals=300, seed=5, bootstrap=0)
    np.testing.assert_array_equal(drawn.scores, as_stated.scores)  # drawn: as stated
    assert not np.array_equal(acted.scores, as_stated.scores)  # asked: as it acts
    with pytest.raises(InvalidParameterError, match="one flag per agent"):
        play_table(game, [honest, *others], deals=1, draw_from=[True])

    class Proxy(RandomAgent):
        def act(self, observation, info):
            raise Forfeit(-1, "no answer in time", "timeout")

    with pytest.raises(Forfeit) as caught:
        play_table(game, [others[0], Proxy(), others[1]], deals=1, seed=0, bootstrap=0)
    assert caught.value.who == 1 and caught.value.kind == "timeout"
