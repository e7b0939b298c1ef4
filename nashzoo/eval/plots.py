"""Plots (matplotlib, from the ``plot`` extra; imported only when a plot is drawn)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.extras import require

__all__ = [
    "plot_bound",
    "plot_convergence",
    "plot_exact_and_measured",
    "plot_crosstable",
    "plot_learner_curves",
    "plot_measured",
    "plot_panels",
    "plot_ratings",
    "plot_search_curves",
    "require_matplotlib",
]


def require_matplotlib() -> Any:
    """Import matplotlib with the Agg backend, or say which extra to install."""
    matplotlib = require("matplotlib", "plot", "Plots")
    matplotlib.use("Agg")
    return require("matplotlib.pyplot", "plot", "Plots")


def _save(plt: Any, fig: Any, path: str | Path, *, suptitle: str | None = None) -> Path:
    """Lay out, title (when given), write the PNG and close the figure."""
    if suptitle is not None:
        fig.suptitle(suptitle, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_convergence(
    curves: Sequence[Any],
    path: str | Path,
    *,
    title: str | None = None,
    steps_label: str | None = None,
    unit: str = "chips",
) -> Path:
    """Exploitability against training steps and against seconds, log-log, one line per
    curve.

    Args:
        curves: :class:`~nashzoo.agents.learner.ConvergenceCurve` objects (or anything
            with ``algorithm`` and ``points`` of ``step``/``seconds``/``exploitability``).
        path: PNG file to write.
        title: figure title (default: the first curve's game).
        steps_label: the x label of the left panel (default: the first point's
            ``step_unit``, e.g. ``"iterations"``, ``"episodes"``).
        unit: what a payoff counts (:attr:`Game.payoff_unit
            <nashzoo.games.base.Game.payoff_unit>`).

    Returns:
        ``path``.
    """
    plt = require_matplotlib()
    fig, (ax_it, ax_s) = plt.subplots(1, 2, figsize=(11, 4.2))
    for curve in curves:
        pts = [p for p in curve.points if p.exploitability > 0]
        its = [p.step for p in pts]
        secs = [max(p.seconds, 1e-6) for p in pts]
        expl = [p.exploitability for p in pts]
        ax_it.plot(its, expl, marker=".", label=curve.algorithm)
        ax_s.plot(secs, expl, marker=".", label=curve.algorithm)
    if steps_label is None:
        first = next((c.points[0] for c in curves if c.points), None)
        steps_label = getattr(first, "step_unit", "iterations")
    for ax, xlabel in ((ax_it, steps_label), (ax_s, "seconds")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"exploitability ({unit})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    return _save(plt, fig, path, suptitle=title or (curves[0].game if curves else ""))


def plot_bound(
    results: Sequence[Any],
    path: str | Path,
    *,
    exact: float | None = None,
    title: str | None = None,
) -> Path:
    """A sampled exploitability bound (e.g. :class:`~nashzoo.eval.lbr.LBRResult`) against
    the evaluation budget, with its 95% band, one line per result.

    Args:
        results: objects with ``method`` and ``running()`` (``(hands, value, low, high)``).
        path: PNG file to write.
        exact: the exact exploitability, drawn as a line when known.
        title: figure title.

    Returns:
        ``path``.
    """
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for result in results:
        rows = result.running()
        hands = [r[0] for r in rows]
        line = ax.plot(hands, [r[1] for r in rows], marker=".", label=result.method)[0]
        ax.fill_between(
            hands, [r[2] for r in rows], [r[3] for r in rows], color=line.get_color(), alpha=0.2
        )
    if exact is not None:
        ax.axhline(exact, color="black", linestyle="--", label="exact exploitability")
    ax.set_xscale("log")
    ax.set_xlabel("hands played")
    ax.set_ylabel("exploitability bound (chips/hand)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title, fontsize=10)
    return _save(plt, fig, path)


def plot_crosstable(
    names: Sequence[str],
    table: Any,
    path: str | Path,
    *,
    unit: str = "chips/game",
    title: str | None = None,
) -> Path:
    """Heatmap of the row agent's score against the column agent (diagonal blank), every
    cell written in one fixed-point format (no ``+1.23e+03`` beside ``-707``), the
    colorbar labelled with ``unit``."""
    import itertools

    import numpy as np

    plt = require_matplotlib()
    table = np.asarray(table, dtype=float)
    digits = _cell_digits(table)
    n = len(names)
    fig, ax = plt.subplots(figsize=(1.1 * n + 2.5, 0.9 * n + 1.8))
    finite = np.abs(table[np.isfinite(table)])
    lim = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    im = ax.imshow(table, cmap="RdBu", vmin=-lim, vmax=lim)
    ax.set_xticks(range(n), names, rotation=40, ha="right")
    ax.set_yticks(range(n), names)
    for i, j in itertools.product(range(n), repeat=2):
        if i != j and np.isfinite(table[i, j]):
            color = "white" if abs(table[i, j]) > 0.6 * lim else "black"
            text = f"{table[i, j]:+.{digits}f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
    ax.set_title(title or f"row agent's score vs column agent ({unit})", fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8, label=f"row agent's score ({unit})")
    return _save(plt, fig, path)


def _cell_digits(table: Any) -> int:
    """Decimals that show a table's cells in one format: none for scores in the
    hundreds (mbb/game), up to three for scores below one (points, chips)."""
    import numpy as np

    finite = np.abs(table[np.isfinite(table)])
    top = float(finite.max()) if finite.size else 0.0
    return 0 if top >= 100 else 1 if top >= 10 else 2 if top >= 1 else 3


def plot_ratings(
    names: Sequence[str],
    elo: Any,
    low: Any,
    high: Any,
    path: str | Path,
    *,
    title: str | None = None,
) -> Path:
    """Bradley-Terry ratings (Elo scale) with their 95% intervals, best first; ``title``
    names the game."""
    import numpy as np

    plt = require_matplotlib()
    elo, low, high = (np.asarray(x, dtype=float) for x in (elo, low, high))
    order = np.argsort(-elo)
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(names) + 1.5))
    ys = np.arange(len(names))[::-1]
    ax.errorbar(
        elo[order], ys, xerr=[elo[order] - low[order], high[order] - elo[order]], fmt="o", capsize=4
    )
    ax.set_yticks(ys, [names[k] for k in order])
    ax.set_xlabel("Bradley-Terry rating on deals won (Elo scale, mean 0), 95% bootstrap interval")
    ax.grid(True, axis="x", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    return _save(plt, fig, path)


def plot_panels(
    panels: dict[str, Any],
    path: str | Path,
    *,
    threshold: float | None = None,
    xlabel: str = "solver seconds",
) -> Path:
    """One log-log panel per game: exploitability against seconds, one line per run.

    Args:
        panels: ``{panel title: {run name: [(iteration, seconds, exploitability), ...]}}``;
            runs named ``"nashzoo ..."`` are solid, the peers' dashed.
        path: PNG file to write.
        threshold: draw a dotted horizontal line there (e.g. a target exploitability).
        xlabel: label of the x axis.
    """
    plt = require_matplotlib()
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, (title, runs) in zip(axes[0], panels.items()):
        for name, curve in runs.items():
            ax.plot(
                [max(s, 1e-6) for _, s, _ in curve],
                [max(e, 1e-9) for *_, e in curve],
                marker=".",
                label=name,
                linestyle="-" if name.startswith("nashzoo") else "--",
            )
        if threshold is not None:
            ax.axhline(threshold, color="k", linestyle=":", linewidth=1)
        ax.set(
            xscale="log", yscale="log", xlabel=xlabel, ylabel="exploitability (chips)", title=title
        )
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return _save(plt, fig, path)


def plot_search_curves(
    simulations: Sequence[int],
    curves: dict[str, Sequence[tuple[float, float]]],
    path: str | Path,
    *,
    title: str,
    reference: tuple[float, str] | None = None,
) -> Path:
    """A search's exploitability against its simulations per move, both axes logarithmic:
    one line per ``curves`` entry of ``(mean, standard error)`` points, and an optional
    horizontal ``(value, label)`` reference line."""
    plt = require_matplotlib()
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for label, row in curves.items():
        means, errors = [m for m, _ in row], [e for _, e in row]
        ax.errorbar(simulations, means, yerr=errors, marker="o", capsize=3, label=label)
    if reference is not None:
        ax.axhline(reference[0], color="grey", ls=":", lw=1, label=reference[1])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("simulations per move")
    ax.set_ylabel("exploitability of the search (chips)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def plot_exact_and_measured(
    curves: Sequence[Any],
    points: Sequence[Any],
    path: str | Path,
    *,
    title: str | None = None,
    unit: str = "chips",
) -> Path:
    """On a game that compiles, both measures of one run side by side against training
    steps: exact exploitability (left, log scale) and the duplicate scores against the
    baselines with their 95% intervals (right), so that the measured curve a big game
    gets can be read against the exact one.

    Returns:
        ``path``.
    """
    plt = require_matplotlib()
    fig, (ax_e, ax_d) = plt.subplots(1, 2, figsize=(11, 4.2))
    for curve in curves:
        pts = [p for p in curve.points if p.exploitability > 0]
        ax_e.plot([p.step for p in pts], [p.exploitability for p in pts], marker=".")
        ax_e.lines[-1].set_label(curve.algorithm)
    ax_e.set_yscale("log")
    ax_e.set_xlabel(points[0].step_unit if points else "steps")
    ax_e.set_ylabel(f"exact exploitability ({unit})")
    ax_e.grid(True, which="both", alpha=0.3)
    ax_e.legend()
    _duplicate_panel(ax_d, points, unit)
    return _save(plt, fig, path, suptitle=title or "")


def _interval_bars(ax: Any, x: Sequence[float], triples: Sequence[Any], **style: Any) -> None:
    """Means with their 95% intervals as error bars; ``triples`` holds
    ``(mean, ci_low, ci_high)``."""
    ax.errorbar(
        list(x),
        [t[0] for t in triples],
        yerr=[[t[0] - t[1] for t in triples], [t[2] - t[0] for t in triples]],
        marker=".",
        **style,
    )


def _duplicate_axes(ax: Any, xlabel: str, method: str, unit: str) -> None:
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"duplicate score, {unit} per game ({method}, 95%)")
    ax.grid(True, alpha=0.3)


def _duplicate_panel(ax: Any, points: Sequence[Any], unit: str) -> None:
    """Each baseline's duplicate score with its 95% interval against training steps."""
    names = list(dict.fromkeys(n for p in points for n in p.duplicate))
    for name in names:
        pts = [p for p in points if name in p.duplicate]
        scores = [p.duplicate[name] for p in pts]
        _interval_bars(ax, [p.step for p in pts], scores, capsize=3, label=f"vs {name}")
    step_unit = points[0].step_unit if points else "steps"
    _duplicate_axes(ax, step_unit, points[0].method if points else "", unit)
    if names:
        ax.legend()


def plot_learner_curves(
    curves: Mapping[str, Sequence[Any]],
    path: str | Path,
    *,
    title: str | None = None,
    unit: str = "chips",
) -> Path:
    """Several learners' measured curves on one figure: one panel per baseline, each
    learner's duplicate score against it (mean and 95% interval) against minutes of
    training. Minutes rather than steps, because learners count different steps
    (iterations, episodes, generations) and are compared at equal time; the points of
    different learners are spread a little sideways so that their bars do not hide each
    other.

    Args:
        curves: learner name to its :class:`~nashzoo.eval.curves.MeasuredPoint` list (an
            empty list draws nothing for that learner).
        path: where the PNG goes.
        title: the figure's title.
        unit: what a payoff counts (:attr:`Game.payoff_unit
            <nashzoo.games.base.Game.payoff_unit>`).

    Returns:
        ``path``.

    Raises:
        InvalidParameterError: no point of any curve has a duplicate score.
    """
    points = [p for pts in curves.values() for p in pts]
    baselines = list(dict.fromkeys(n for p in points for n in p.duplicate))
    if not baselines:
        raise InvalidParameterError(
            f"expected measured curves with duplicate scores, received {len(curves)} curves "
            f"with {len(points)} points and no duplicate score"
        )
    plt = require_matplotlib()
    fig, axes = plt.subplots(1, len(baselines), figsize=(5.5 * len(baselines), 4.2), squeeze=False)
    for ax, baseline in zip(axes[0], baselines, strict=True):
        for k, (name, own) in enumerate(curves.items()):
            pts = [p for p in own if baseline in p.duplicate]
            shift = 0.15 * (k - len(curves) / 2)
            x = [p.seconds / 60 + shift for p in pts]
            _interval_bars(ax, x, [p.duplicate[baseline] for p in pts], capsize=2, label=name)
        _duplicate_axes(ax, "minutes of training", points[0].method, unit)
        ax.set_title(f"against {baseline}", fontsize=10)
    axes[0][0].legend(fontsize=8)
    return _save(plt, fig, path, suptitle=title or "")


def plot_measured(
    points: Sequence[Any], path: str | Path, *, title: str | None = None, unit: str = "chips"
) -> Path:
    """A learner's measured curve (:class:`~nashzoo.eval.curves.MeasuredPoint`): the
    duplicate score against each baseline with its 95% interval (left) and LBR's bound
    with its interval (right), against training steps. ``unit`` names what a payoff
    counts (:attr:`Game.payoff_unit <nashzoo.games.base.Game.payoff_unit>`).

    Returns:
        ``path``.
    """
    plt = require_matplotlib()
    fig, (ax_d, ax_l) = plt.subplots(1, 2, figsize=(11, 4.2))
    _duplicate_panel(ax_d, points, unit)
    lbr = [p for p in points if p.lbr is not None]
    if lbr:
        _interval_bars(ax_l, [p.step for p in lbr], [p.lbr for p in lbr], capsize=3, color="C3")
        ax_l.set_ylabel(f"LBR winnings, {unit} per hand (lower bound)")
    else:
        ax_l.text(0.5, 0.5, "no LBR measured", ha="center", va="center", transform=ax_l.transAxes)
    ax_l.set_xlabel(points[0].step_unit if points else "steps")
    ax_l.grid(True, alpha=0.3)
    return _save(plt, fig, path, suptitle=title or "")
