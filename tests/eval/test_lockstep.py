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
