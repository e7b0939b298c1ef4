"""Nash-ISMCTS on Leduc Hold'em: does searching longer help when the networks are exact?

The Kuhn example (``examples/nash_ismcts_kuhn.py``) shows the design's thesis on one
perturbed information set. This one shows it on a second game with nothing perturbed:
the searches read oracle networks computed exactly from a Leduc equilibrium (CFR+, 2,000
iterations: P that equilibrium, H Bayes' rule under it, V and V_w exact values), and the
search operator's exploitability e(n) (one search at every one of Leduc's 936 information
sets, exact best response) is measured against the simulations per move n.

A-ISMCTS gets worse as it searches longer: information sets that the equilibrium almost
never reaches are searched on their own, where tiny differences between exact values
decide, and its visit shares drift to pure play there. Nash-ISMCTS (eps 0.2) treats
values within the belief ball's interval as equal and keeps P, so it does not drift.
MT-ISMCTS (random rollouts, no networks) is the baseline without knowledge.

Measured (2026-11-25, one core, 3 seeds, chips): A-ISMCTS 0.048 at 100 simulations,
0.105 at 1,000, 0.213 at 10,000 and 0.328 at 30,000; Nash-ISMCTS 0.065, 0.039, 0.015 and
0.011; MT-ISMCTS 1.45 down to 0.61.

Usage: ``python examples/nash_ismcts_leduc.py [--out nash_ismcts_output] [--seeds 3]
[--simulations 100,300,1000,3000,10000,30000]`` (about 3 minutes on one core with the
defaults; ``--simulations 100,1000`` for a quick look). Writes ``nash_ismcts_leduc.png``
and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.agents.cfr import make_solver
from nashzoo.agents.ismcts import SearchConfig, SearchTables
from nashzoo.agents.ismcts.train import search_exploitability
from nashzoo.eval.plots import plot_search_curves
from nashzoo.games import LeducHoldemGame
from nashzoo.tree import nash_conv_array


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="nash_ismcts_output")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per point")
    parser.add_argument(
        "--simulations", default="100,300,1000,3000,10000,30000", help="comma-separated"
    )
    parser.add_argument("--eps", type=float, default=0.2, help="Nash-ISMCTS's epsilon")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.simulations.split(",")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    policy = make_solver("cfr+", LeducHoldemGame()).iterate(2000).average_policy()
    tree = policy.tree
    equilibrium = float(nash_conv_array(tree, policy.probs) / 2)
    print(f"oracle: CFR+ 2,000 iterations, exploitability {equilibrium:.5f} chips")
    oracle = SearchTables.oracle(tree, policy.probs)
    lines = {
        "MT-ISMCTS (random rollouts)": (SearchTables.uninformed(tree), "mt", 0.0),
        "A-ISMCTS, oracle": (oracle, "a", 0.0),
        f"Nash-ISMCTS eps {args.eps:g}, oracle": (oracle, "nash", args.eps),
    }
    results: dict[str, Any] = {"simulations": counts, "oracle_exploitability": equilibrium}
    results["e"] = {}
    print(f"e(n): exploitability of the search operator (chips), mean of {args.seeds} seeds")
    for label, (tables, variant, eps) in lines.items():
        row = []
        for n in counts:
            start = time.perf_counter()
            config = SearchConfig(variant=variant, simulations=n, eps=eps)
            values = [search_exploitability(tables, config, seed=s)[0] for s in range(args.seeds)]
            row.append((float(np.mean(values)), float(np.std(values) / np.sqrt(len(values)))))
            print(
                f"    {label:<32} n={n:>6,}  e {row[-1][0]:.4f} +- {row[-1][1]:.4f}  "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
        results["e"][label] = row

    plot = plot_search_curves(
        counts,
        results["e"],
        out / "nash_ismcts_leduc.png",
        title="Leduc Hold'em, exact networks: searching longer",
        reference=(equilibrium, "the oracle's own policy"),
    )
    (out / "nash_ismcts_leduc.json").write_text(json.dumps(results, indent=1))
    print(f"plot written to {plot}")
    results["plot"] = str(plot)
    return results


if __name__ == "__main__":
    main()
