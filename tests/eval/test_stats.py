"""Means and standard errors of match scores (``nashzoo.eval.stats``).

The reference is Python's ``statistics`` module, which sums exactly (in fractions) before
it rounds once: an independent computation, so the comparisons can be tight.
"""

import math
import statistics

import numpy as np
import pytest

from nashzoo.eval.stats import mean_and_stderr, sample_mean_and_stderr


def reference(x: np.ndarray) -> tuple[float, float]:
    return statistics.fmean(x), statistics.stdev(x) / math.sqrt(len(x))


def test_sample_stderr_matches_the_exact_reference_on_ordinary_scores():
    x = np.random.default_rng(0).normal(0.3, 2.0, size=1000)
    mean, stderr = sample_mean_and_stderr(x)
    ref_mean, ref_stderr = reference(x)
    # two passes in float64 over 1,000 values: a few hundred ulps at most
    assert mean == pytest.approx(ref_mean, rel=1e-12)
    assert stderr == pytest.approx(ref_stderr, rel=1e-12)
    # the running-totals form agrees here, where the spread is of the mean's size
    assert mean_and_stderr(x.size, float(x.sum()), float((x * x).sum()))[1] == pytest.approx(
        ref_stderr, rel=1e-9
    )


def test_sample_stderr_keeps_a_spread_far_below_the_mean():
    """Scores of about 1 chip that differ by about 1e-15 (AIVAT with exact values): the
    two-pass form finds that spread; the running totals cannot, and report their
    cancellation instead (0 after the clamp at 0 here, or a floor of about
    1.5e-8 / sqrt(n) where the rounding falls the other way)."""
    x = 1.0 + np.random.default_rng(1).integers(-4, 5, size=200) * 2.0**-50
    _, stderr = sample_mean_and_stderr(x)
    _, ref_stderr = reference(x)
    assert stderr == pytest.approx(ref_stderr, rel=1e-6)
    assert stderr < 1e-15
    _, floored = mean_and_stderr(x.size, float(x.sum()), float((x * x).sum()))
    assert abs(floored - ref_stderr) > 0.5 * ref_stderr


def test_no_data_and_one_sample():
    assert all(math.isnan(v) for v in sample_mean_and_stderr([]))
    assert sample_mean_and_stderr([2.5]) == (2.5, math.inf)
