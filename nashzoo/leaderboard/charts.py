"""Charts the pages draw on the server, as inline SVG (no script, no image files): an
entrant's rating over the board's refits, with its 95% interval as a band."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["rating_history_svg"]


def _ticks(low: float, high: float, count: int = 4) -> list[float]:
    """About ``count`` round tick values covering ``[low, high]``."""
    import math

    span = max(high - low, 1e-9)
    step = 10 ** math.floor(math.log10(span / count))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= count:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step) + 1)]


def rating_history_svg(
    points: Sequence[tuple[int, float, float, float]], *, width: int = 560, height: int = 200
) -> str:
    """An SVG line chart of ``(blocks, rating, low, high)`` points, oldest first: the
    rating as a line, its 95% interval as a shaded band, the board's stored blocks on the
    x axis. Empty string when there are no points.

    Raises:
        ValueError: a point is not four finite numbers.
    """
    import math

    if not points:
        return ""
    for p in points:
        if len(p) != 4 or not all(isinstance(v, int | float) and math.isfinite(v) for v in p):
            raise ValueError(f"a history point is (blocks, rating, low, high) numbers; got {p!r}")
    left, right, top, bottom = 48, 12, 10, 30
    xs = [float(p[0]) for p in points]
    lows, highs = [float(p[2]) for p in points], [float(p[3]) for p in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(lows + [p[1] for p in points]), max(highs + [p[1] for p in points])
    pad = max(1.0, 0.05 * (y1 - y0))
    y0, y1 = y0 - pad, y1 + pad

    def x(v: float) -> float:
        return left + (v - x0) / (x1 - x0 or 1.0) * (width - left - right)

    def y(v: float) -> float:
        return top + (y1 - v) / (y1 - y0) * (height - top - bottom)

    band = [f"{x(a):.1f},{y(h):.1f}" for a, h in zip(xs, highs)]
    band += [f"{x(a):.1f},{y(lo):.1f}" for a, lo in reversed(list(zip(xs, lows)))]
    line = " ".join(f"{x(a):.1f},{y(float(p[1])):.1f}" for a, p in zip(xs, points))
    parts = [
        f'<svg id="history" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="rating after each refit of the board, with its 95% interval">',
        f'<rect x="{left}" y="{top}" width="{width - left - right}" '
        f'height="{height - top - bottom}" fill="none" stroke="#bbb"/>',
    ]
    for tick in _ticks(y0, y1):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="#eee"/><text x="{left - 4}" y="{y(tick) + 4:.1f}" font-size="11" '
            f'text-anchor="end">{tick:g}</text>'
        )
    parts += [
        f'<polygon points="{" ".join(band)}" fill="#4a7ab7" fill-opacity="0.2"/>',
        f'<polyline points="{line}" fill="none" stroke="#2a5a97" stroke-width="2"/>',
        *(
            f'<circle cx="{x(a):.1f}" cy="{y(float(p[1])):.1f}" r="2.5" fill="#2a5a97"/>'
            for a, p in zip(xs, points)
        ),
        f'<text x="{left}" y="{height - 8}" font-size="11">{x0:g} blocks</text>',
        f'<text x="{width - right}" y="{height - 8}" font-size="11" text-anchor="end">'
        f"{x1:g} blocks stored</text>",
        "</svg>",
    ]
    return "".join(parts)
