"""Plots (matplotlib, from the ``plot`` extra; imported only when a plot is drawn)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from nashzoo.errors import MissingDependencyError

__all__ = ["plot_convergence", "require_matplotlib"]


def require_matplotlib():
    """Import matplotlib with the Agg backend, or say which extra to install."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingDependencyError(
            "Plots need matplotlib: pip install 'nashzoo[plot]'."
        ) from exc
    return plt


def plot_convergence(curves: Sequence, path: str | Path, *, title: str | None = None) -> Path:
    """Exploitability against iterations and against seconds, log-log, one line per curve.

    Args:
        curves: :class:`~nashzoo.agents.cfr.run.ConvergenceCurve` objects (or anything
            with ``algorithm`` and ``points`` of ``iteration``/``seconds``/``exploitability``).
        path: PNG file to write.
        title: figure title (default: the first curve's game).

    Returns:
        ``path``.
    """
    plt = require_matplotlib()
    fig, (ax_it, ax_s) = plt.subplots(1, 2, figsize=(11, 4.2))
    for curve in curves:
        pts = [p for p in curve.points if p.exploitability > 0]
        its = [p.iteration for p in pts]
        secs = [max(p.seconds, 1e-6) for p in pts]
        expl = [p.exploitability for p in pts]
        ax_it.plot(its, expl, marker=".", label=curve.algorithm)
        ax_s.plot(secs, expl, marker=".", label=curve.algorithm)
    for ax, xlabel in ((ax_it, "iterations"), (ax_s, "seconds")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("exploitability (chips)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(title or (curves[0].game if curves else ""), fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
