"""Drawing an index from weights: the shared samplers never pick a zero-weight entry.

Deep CFR on the fighting game's default preset stopped after 3,159 s with "Action 11 is
not legal for player 0 here; legal actions are [0, 2, 7]": its regret-matching strategy
is float32, and ``u`` times the float32 total was computed in float32, which rounds up to
the total for ``u`` within 2**-25 of 1, and the index past the total was clamped to the
last action, whose weight was 0.
"""

import numpy as np
import pytest

from nashzoo.envs.sampling import sample_index, sample_rows
from nashzoo.errors import InvalidParameterError
from nashzoo.tree.sampling import sample_child

TOP = float(np.nextafter(1.0, 0.0))  # the largest u in [0, 1), as rng.random() may give


def test_a_draw_near_one_from_float32_weights_stays_on_the_support():
    weights = np.array([0.3, 0.0, 0.7, 0.0, 0.0], dtype=np.float32)  # legal: 0 and 2
    cumulative = np.cumsum(weights)
    assert np.float32(TOP) * cumulative[-1] == cumulative[-1]  # the rounding that bit
    assert sample_index(cumulative, TOP) == 2
    rows = np.cumsum(np.vstack([weights, weights[::-1]]), axis=1)
    assert sample_rows(rows, np.array([TOP, TOP], dtype=np.float32)).tolist() == [2, 4]


def test_draws_follow_the_weights_and_never_pick_a_zero_weight():
    rng = np.random.default_rng(0)
    weights = np.array([0.0, 0.2, 0.0, 0.5, 0.3, 0.0], dtype=np.float32)
    cumulative = np.cumsum(weights)
    u = np.concatenate([rng.random(100_000), [0.0, TOP, np.nextafter(0.5, 1.0)]])
    one = np.array([sample_index(cumulative, x) for x in u])
    rows = sample_rows(np.tile(cumulative, (u.size, 1)), u)
    assert (one == rows).all()
    counts = np.bincount(one, minlength=6) / u.size
    assert counts[[0, 2, 5]].sum() == 0
    # 100,000 draws: each frequency within 4 standard errors (<= 0.0063) of its weight
    assert np.abs(counts - weights).max() < 0.0063


@pytest.mark.parametrize("weights", [[0.0, 0.0], [np.nan, 1.0]])
def test_weights_without_a_positive_total_are_refused(weights):
    with pytest.raises(InvalidParameterError, match="positive total"):
        sample_index(np.cumsum(np.array(weights)), 0.5)


def test_a_tree_child_of_probability_zero_is_never_drawn():
    # node 0 with children 1..3 for actions 0..2; action 2 has probability 0, and the
    # probabilities sum to a hair under 1 so that u near 1 runs past the others
    first_child, num_children = np.array([1]), np.array([3])
    action = np.array([-1, 0, 1, 2])
    probs = np.array([0.4, 0.6 - 1e-12, 0.0])
    assert sample_child(0, first_child, num_children, action, probs, TOP) == 2
    assert sample_child(0, first_child, num_children, action, probs, 0.3) == 1
    assert sample_child(0, first_child, num_children, action, np.zeros(3), 0.5) == 3
