"""The lockstep engine (all games of a block advance together; ``act_many`` batches)."""

import numpy as np
import pytest

from nashzoo.eval.engine import deal_uniforms, play_duplicate_deals
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.lockstep import play_duplicate_lockstep
from nashzoo.games import LeducHoldemGame

LEDUC = LeducHoldemGame()


class FirstLegal:
    """Plays the first legal action; ``act_many`` answers with what ``shape`` makes of
    the actions (a NumPy array by default, as a vectorised agent would)."""

    def __init__(self, name, shape=np.asarray):
        self.name, self.shape = name, shape

    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[0])

    def act_many(self, requests):
        return self.shape([self.act(obs, info) for obs, info in requests])

    def reset(self, *, seed=None):
        pass


class LastLegal(FirstLegal):
    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[-1])


def test_an_array_of_actions_is_an_answer():
    # issue 30: an in-process act_many returning a NumPy array was forfeited
    uniforms = deal_uniforms(LEDUC, 20, np.random.default_rng(0))
    a, b = FirstLegal("first"), LastLegal("last")
    batched = play_duplicate_lockstep(LEDUC, a, b, uniforms)
    one_by_one = play_duplicate_deals(LEDUC, a, b, uniforms)
    np.testing.assert_array_equal(batched.scores, one_by_one.scores)
    assert np.any(batched.scores != 0)


@pytest.mark.parametrize(
    "shape, reason",
    [
        (lambda xs: np.asarray(xs)[:-1], "actions for"),  # one short
        (lambda xs: np.asarray(xs)[:, None], "actions for"),  # not one action per request
        (lambda xs: 3, "actions for"),
    ],
    ids=["short", "2-d", "not-a-sequence"],
)
def test_a_malformed_answer_is_a_forfeit(shape, reason):
    uniforms = deal_uniforms(LEDUC, 4, np.random.default_rng(1))
    with pytest.raises(Forfeit, match=reason) as caught:
        play_duplicate_lockstep(LEDUC, FirstLegal("bad", shape), LastLegal("last"), uniforms)
    assert caught.value.who == 0


class StatesUniform(FirstLegal):
    """Honest: states uniform play and plays it."""

    def action_probabilities(self, observation, info):
        mask = observation["action_mask"].astype(float)
        return mask / mask.sum()

    def act(self, observation, info):  # never asked when the referee draws
        raise AssertionError("act was called")


def test_the_referee_plays_a_liar_by_what_it_states():
    """Issue 31, D9: an agent stating one policy and playing another was measured on its
    statements. Drawn from what it states, the liar plays exactly as the honest agent
    stating the same policy (same draws); asked to act, it does not."""
    from nashzoo.testing.hostile import Liar

    uniforms = deal_uniforms(LEDUC, 200, np.random.default_rng(2))
    opponent = LastLegal("last")
    liar = play_duplicate_lockstep(
        LEDUC, Liar(), opponent, uniforms, draw_from=(True, False), draw_seed=5
    )
    honest = play_duplicate_lockstep(
        LEDUC, StatesUniform("honest"), opponent, uniforms, draw_from=(True, False), draw_seed=5
    )
    np.testing.assert_array_equal(liar.scores, honest.scores)
    acted = play_duplicate_lockstep(LEDUC, Liar(), opponent, uniforms)
    assert not np.array_equal(acted.scores, honest.scores)
    # the same seed, the same draws; another seed, other draws
    again = play_duplicate_lockstep(
        LEDUC, Liar(), opponent, uniforms, draw_from=(True, False), draw_seed=5
    )
    np.testing.assert_array_equal(again.scores, liar.scores)
    other = play_duplicate_lockstep(
        LEDUC, Liar(), opponent, uniforms, draw_from=(True, False), draw_seed=6
    )
    assert not np.array_equal(other.scores, liar.scores)


def test_stated_probabilities_that_are_not_a_distribution_are_a_forfeit():
    class Bad(StatesUniform):
        def action_probabilities(self, observation, info):
            return observation["action_mask"] * 2.0

    uniforms = deal_uniforms(LEDUC, 3, np.random.default_rng(3))
    with pytest.raises(Forfeit, match="not a distribution over the legal actions"):
        play_duplicate_lockstep(
            LEDUC, Bad("bad"), LastLegal("last"), uniforms, draw_from=(True, False)
        )


def test_lockstep_blocks_are_scored_with_aivat():
    # Two CFR+ policies (at 20 and 200 iterations) stated to the referee. With the values
    # of the two seatings' own profiles every corrected deal scores exactly the exact
    # expected score (AIVAT's limit, Burch et al. 2018); with uniform-play values the
    # corrected mean stays within 4 standard errors of it and its variance falls below
    # the plain scores'. Without values the scores are the plain ones only.
    from nashzoo.agents.cfr import TabularPolicyAgent, make_solver
    from nashzoo.eval.aivat import TreeValues
    from nashzoo.eval.matches import exact_duplicate_value

    policies = [make_solver("cfr+", LEDUC).iterate(n).average_policy() for n in (20, 200)]
    a, b = (TabularPolicyAgent(p, seed=k) for k, p in enumerate(policies))
    exact = exact_duplicate_value(*policies)
    uniforms = deal_uniforms(LEDUC, 400, np.random.default_rng(5))
    both = (True, True)
    perfect = play_duplicate_lockstep(
        LEDUC, a, b, uniforms, draw_from=both, values=TreeValues.of_match(LEDUC, a, b)
    )
    np.testing.assert_allclose(perfect.corrected, exact, atol=1e-9)
    uniform = play_duplicate_lockstep(
        LEDUC, a, b, uniforms, draw_from=both, values=TreeValues(LEDUC)
    )
    stderr = uniform.corrected.std(ddof=1) / np.sqrt(len(uniforms))
    assert abs(uniform.corrected.mean() - exact) <= 4 * stderr
    assert uniform.corrected.var() < uniform.scores.var()
    plain = play_duplicate_lockstep(LEDUC, a, b, uniforms, draw_from=both)
    assert plain.corrected is None
    np.testing.assert_array_equal(plain.scores, perfect.scores)  # same draws, same games
