"""T5 of the Nash-ISMCTS specification: the L1-ball extremum, on the worked examples and
against a linear program over the ball (Hypothesis, derandomized in CI)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from nashzoo.agents.ismcts import ball_interval, ball_max, ball_min
from nashzoo.errors import InvalidParameterError


def test_the_specifications_worked_examples():
    assert ball_interval([0.5, 0.5], [0.0, 1.0], 0.2) == pytest.approx((0.4, 0.6))
    assert ball_max([0.95, 0.05], [1.0, 0.0], 0.2) == pytest.approx(1.0)  # capped
    assert ball_min([0.95, 0.05], [1.0, 0.0], 0.2) == pytest.approx(0.85)
    assert ball_interval([0.2, 0.3, 0.5], [1.0, -1.0, 0.5], 0.0) == pytest.approx((0.15, 0.15))


def lp_extreme(h, v, eps, sense):
    """max (sense=-1) or min (sense=1) of q.v over q >= 0, sum q = 1, |q - h|_1 <= eps,
    with q - h = u - w, u, w >= 0 and sum(u + w) <= eps."""
    k = len(h)
    c = np.r_[sense * np.asarray(v), np.zeros(2 * k)]
    a_eq = np.block([[np.eye(k), -np.eye(k), np.eye(k)], [np.ones(k), np.zeros(2 * k)]])
    b_eq = np.r_[h, 1.0]
    a_ub = np.r_[np.zeros(k), np.ones(2 * k)][None]
    res = linprog(
        c, A_ub=a_ub, b_ub=[eps], A_eq=a_eq, b_eq=b_eq, bounds=[(0, None)] * (3 * k), method="highs"
    )
    assert res.success
    return sense * res.fun


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda k: st.tuples(
            st.lists(st.floats(0.01, 1.0), min_size=k, max_size=k),
            st.lists(st.floats(-1.0, 1.0), min_size=k, max_size=k),
        )
    ),
    st.floats(0.0, 2.5),
)
def test_the_greedy_extremes_equal_a_linear_program(hv, eps):
    h, v = hv
    h = np.asarray(h) / np.sum(h)
    assert ball_max(h, v, eps) == pytest.approx(lp_extreme(h, v, eps, -1), abs=1e-7)
    assert ball_min(h, v, eps) == pytest.approx(lp_extreme(h, v, eps, 1), abs=1e-7)


def test_bad_input_is_refused():
    with pytest.raises(InvalidParameterError, match="sum to 1"):
        ball_max([0.5, 0.6], [0, 1], 0.1)
    with pytest.raises(InvalidParameterError, match="one length"):
        ball_max([1.0], [0, 1], 0.1)
    with pytest.raises(InvalidParameterError, match="eps must be"):
        ball_min([1.0], [0.0], -0.1)
