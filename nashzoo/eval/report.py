"""HTML report of a tournament: tables, a crosstable heatmap and a ratings plot."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nashzoo.eval.plots import plot_crosstable, plot_ratings
from nashzoo.eval.stats import score_digits, score_unit

if TYPE_CHECKING:
    from nashzoo.eval.ratings import Ratings
    from nashzoo.eval.tournament import TournamentResult

__all__ = ["write_tournament_report"]


def write_tournament_report(result: TournamentResult, out_dir: str | Path) -> Path:
    """Write ``index.html``, ``crosstable.png`` and ``ratings.png`` into ``out_dir``.

    Returns:
        The path of ``index.html``.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = result.config
    game = cfg.make_game()
    scale, unit = score_unit(game)
    d = score_digits(scale)
    ct, r = result.crosstable, result.ratings
    names = list(ct.names)
    plot_crosstable(
        names, ct.mean * scale, out / "crosstable.png", unit=unit,
        title=f"{game}: row agent's duplicate score vs column agent ({unit})",
    )  # fmt: skip
    plot_ratings(names, r.elo, r.elo_low, r.elo_high, out / "ratings.png", title=str(game))
    esc = html.escape
    rows = []
    for i, a in enumerate(names):
        cells = []
        for j in range(len(names)):
            cell = ct.cell(i, j, scale)
            if cell is None:
                cells.append("<td>–</td>")
            else:
                mean, half = cell
                plain = ct.plain_cell(i, j, scale)
                beside = (
                    ""
                    if plain is None
                    else f"<br><small>uncorrected {plain[0]:+.{d}f} ±{plain[1]:.{d}f}</small>"
                )
                cells.append(
                    f"<td>{mean:+.{d}f}<br><small>[{mean - half:+.{d}f}, "
                    f"{mean + half:+.{d}f}]</small>{beside}</td>"
                )
        rows.append(f"<tr><th>{esc(a)}</th>{''.join(cells)}</tr>")
    rating_rows = []
    for k in np.argsort(-r.elo):
        rating_rows.append(
            f"<tr><td>{esc(names[k])}</td><td>{esc(dict(cfg.agents)[names[k]])}</td>"
            f"<td>{r.elo[k]:+.1f}</td><td>[{r.elo_low[k]:+.1f}, {r.elo_high[k]:+.1f}]</td>"
            f"<td>{r.nash_mixture[k]:.3f}</td><td>{r.nash_score[k] * scale:+.{d}f}</td>"
            f"<td>{_alpha_rank_text(r, k)}</td>"
            f"<td>{esc(result.exploitability_text(names[k], scale))}</td></tr>"
        )
    forfeits = (
        "".join(
            f"<li>{esc(a)} vs {esc(b)}, block {k}: <b>{esc(who)}</b> — {esc(why)}</li>"
            for a, b, k, who, why in ct.forfeits
        )
        or "<li>none</li>"
    )
    aivat = (
        "; corrected by AIVAT (unbiased), with the same games' uncorrected figures beneath"
        if ct.plain_mean is not None
        else ""
    )
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nashzoo tournament {result.tournament_id}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}
th{{background:#f4f4f4}}small{{color:#666}}</style></head><body>
<h1>Tournament {result.tournament_id}</h1>
<p>Game <code>{esc(cfg.game)}</code> {esc(json.dumps(cfg.params)) if cfg.params else ""};
{cfg.deals:,} duplicate deals per pairing in blocks of {cfg.block_size}; seed {cfg.seed};
{result.blocks_done}/{result.blocks_total} blocks stored.</p>
<h2>Ratings</h2>
<table><tr><th>agent</th><th>spec</th><th>Elo (Bradley-Terry)</th><th>95% bootstrap CI</th>
<th>Nash mixture</th><th>Nash score ({unit})</th><th>α-Rank mass [95% CI]</th>
<th>exploitability ({unit}; &ge; LBR:
a local-best-response lower bound where the game is too large)</th></tr>
{"".join(rating_rows)}</table>
<img src="ratings.png" alt="ratings with intervals">
<h2>Crosstable</h2>
<p>Row agent's mean duplicate score against the column agent, {unit}, with 95% CI{aivat}.</p>
<table><tr><th></th>{"".join(f"<th>{esc(n)}</th>" for n in names)}</tr>{"".join(rows)}</table>
<img src="crosstable.png" alt="crosstable heatmap">
<h2>Forfeits</h2><ul>{forfeits}</ul>
</body></html>
"""
    path = out / "index.html"
    path.write_text(page)
    return path


def _alpha_rank_text(ratings: Ratings, k: int) -> str:
    """Agent ``k``'s α-Rank mass with its 95% interval ("–" where undefined)."""
    mass, low, high = ratings.alpharank, ratings.alpharank_low, ratings.alpharank_high
    if mass is None or not np.isfinite(mass[k]):
        return "–"
    if low is None or high is None:
        return f"{mass[k]:.3f}"
    return f"{mass[k]:.3f}<br><small>[{low[k]:.3f}, {high[k]:.3f}]</small>"
