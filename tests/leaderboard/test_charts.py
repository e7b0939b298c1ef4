"""The rating-history chart drawn on the server (inline SVG)."""

from __future__ import annotations

import re

import pytest

from nashzoo.leaderboard.charts import rating_history_svg


def test_the_history_chart_draws_every_point_inside_its_band():
    points = [(2, 10.0, -5.0, 25.0), (4, 30.0, 20.0, 40.0), (8, -12.5, -20.0, -5.0)]
    svg = rating_history_svg(points, width=400, height=200)
    assert svg.startswith('<svg id="history"') and svg.endswith("</svg>")
    circles = [
        (float(x), float(y)) for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg)
    ]
    assert len(circles) == 3
    assert [x for x, _ in circles] == sorted(x for x, _ in circles)  # blocks increase
    # higher ratings are drawn higher (smaller y)
    ys = [y for _, y in circles]
    assert ys[1] < ys[0] < ys[2]
    assert "2 blocks" in svg and "8 blocks stored" in svg


def test_the_history_chart_refuses_what_is_not_a_point():
    assert rating_history_svg([]) == ""
    with pytest.raises(ValueError, match=r"\(blocks, rating, low, high\) numbers; got \(1, 2\.0\)"):
        rating_history_svg([(1, 2.0)])
    with pytest.raises(ValueError, match="got"):
        rating_history_svg([(1, float("nan"), 0.0, 1.0)])
