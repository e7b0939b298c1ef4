"""nashzoo's main job, end to end (``make demo``).

1. Solves Leduc Hold'em with every tabular solver (CFR, CFR+, DCFR, external- and
   outcome-sampling MCCFR, XFP) and plots their exploitability curves.
2. Measures the exact exploitability of every agent that exists so far (the solvers'
   average policies played through the env, and the random agent).
3. Runs a short duplicate round robin between them: sampled duplicate matches with 95%
   confidence intervals, next to the exact expected scores.
4. Writes ``report.md``, ``convergence.png``, ``crosstable.png`` and the policies to
   ``--out``.

Usage: ``python examples/demo.py [--out demo_output] [--game leduc_holdem] [--deals 300]``
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

import nashzoo
from nashzoo.agents.cfr import TabularPolicyAgent, make_solver
from nashzoo.agents.cfr.run import run_solver
from nashzoo.eval import exploitability, head_to_head
from nashzoo.eval.plots import plot_convergence, plot_crosstable
from nashzoo.tree import TabularPolicy, compile_game

# (algorithm, iterations) budgets that take a few seconds in all on a laptop.
BUDGETS = [("cfr+", 2000), ("dcfr", 2000), ("cfr", 2000), ("xfp", 300),
           ("es-mccfr", 200_000), ("os-mccfr", 200_000)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="demo_output")
    parser.add_argument("--game", default="nashzoo/leduc_holdem-v0")
    parser.add_argument("--deals", type=int, default=300, help="duplicate deals per pairing")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply solver budgets")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    game = nashzoo.make_game(args.game)
    tree = compile_game(game)
    summary = tree.summary()
    print(f"{args.game}: {summary['nodes']:,} histories, {summary['terminals']:,} terminal, "
          f"{summary['infosets_per_player']} information sets per player")

    # 1. solve
    curves = []
    for algo, iterations in BUDGETS:
        solver = make_solver(algo, tree, seed=0 if algo.endswith("mccfr") else None)
        curves.append(run_solver(solver, max(1, int(iterations * args.scale)), points=25,
                                 progress=True))
        curves[-1].policy.save(out / f"policy-{algo.replace('+', 'plus')}.npz")
    plot_convergence(curves, out / "convergence.png", title=f"{args.game}: exploitability")

    # 2. exploitability of every agent
    agents = {"random": nashzoo.RandomAgent(seed=0)}
    for curve in curves:
        agents[curve.algorithm] = TabularPolicyAgent(curve.policy, seed=1, name=curve.algorithm)
    expl = {name: exploitability(agent, tree) for name, agent in agents.items()}

    # 3. duplicate round robin
    names = list(agents)
    unit = "mbb/game" if game.big_blind else "milli-units/game"
    scale = 1000.0 / (game.big_blind or 1.0)
    sampled = np.full((len(names), len(names)), np.nan)
    exact = np.full((len(names), len(names)), np.nan)
    rows = []
    pairs = list(itertools.combinations(range(len(names)), 2))
    from tqdm.auto import tqdm

    for k, (i, j) in enumerate(tqdm(pairs, desc="duplicate round robin", unit="pairing")):
        a, b = agents[names[i]], agents[names[j]]
        res = head_to_head(game, a, b, deals=args.deals, seed=k)
        ex = head_to_head(tree, a, b, exact=True)
        sampled[i, j], sampled[j, i] = res.mean * scale, -res.mean * scale
        exact[i, j], exact[j, i] = ex.mean * scale, -ex.mean * scale
        rows.append((names[i], names[j], res, ex))
    plot_crosstable(names, exact, out / "crosstable.png", unit=unit,
                    title=f"row agent's exact duplicate score vs column agent ({unit})")

    # 4. report
    lines = [f"# nashzoo demo report — {args.game}", "",
             f"Tree: {summary['nodes']:,} histories, {summary['terminals']:,} terminal, "
             f"{summary['infosets_per_player']} information sets per player.", "",
             "## Solvers", "",
             "| algorithm | iterations | solver seconds | exploitability (chips) | mbb/game |",
             "|---|---:|---:|---:|---:|"]
    for c in curves:
        p = c.final
        lines.append(f"| {c.algorithm} | {p.iteration:,} | {p.seconds:.3f} | "
                     f"{p.exploitability:.3g} | {p.exploitability * scale:.2f} |")
    lines += ["", "![convergence](convergence.png)", "", "## Agents: exact exploitability", "",
              f"| agent | exploitability (chips) | {unit} | value as player 0 |",
              "|---|---:|---:|---:|"]
    for name, r in sorted(expl.items(), key=lambda kv: kv[1].exploitability):
        lines.append(f"| {name} | {r.exploitability:.4g} | {r.exploitability * scale:.1f} | "
                     f"{r.policy_values[0]:+.4f} |")
    lines += ["", f"## Duplicate round robin ({args.deals} deals x 2 seats per pairing)", "",
              f"| A | B | sampled A score ({unit}) | 95% CI | exact ({unit}) |",
              "|---|---|---:|---|---:|"]
    for a, b, res, ex in rows:
        lo, hi = (x * scale for x in res.ci95)
        lines.append(f"| {a} | {b} | {res.mean * scale:+.1f} | [{lo:+.1f}, {hi:+.1f}] | "
                     f"{ex.mean * scale:+.1f} |")
    totals = np.nanmean(exact, axis=1)
    lines += ["", "Mean exact score against the field: " + ", ".join(
        f"{n} {t:+.1f}" for n, t in sorted(zip(names, totals), key=lambda x: -x[1])),
        "", "![crosstable](crosstable.png)", "",
        f"Generated in {time.perf_counter() - started:.1f} s by examples/demo.py."]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:]))
    print(f"\nreport: {out / 'report.md'}")


if __name__ == "__main__":
    main()
