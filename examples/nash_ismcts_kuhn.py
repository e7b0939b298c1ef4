"""Nash-ISMCTS on Kuhn poker: the specification's experiments T1-T3, and exploitability
against simulations for MT-ISMCTS, A-ISMCTS and Nash-ISMCTS (``docs/explanation/nash-ismcts.md``).

The searches of A-ISMCTS and Nash-ISMCTS read oracle networks computed exactly from the
Kuhn equilibrium with alpha = 1/6 (P that equilibrium, H Bayes' rule under it, V and V_w
exact values), so the search is studied apart from learning.

* T1, idempotence: given the equilibrium, does the search keep it? Measured seed by seed
  (total variation between a search's visit shares and P) where player 2 holds the J
  after a check (bets with 1/3, indifferent) and where player 1 holds the K at the root
  (bets with 1/2): both have decisions below them. Nash-ISMCTS stays within 0.02 at
  10,000 simulations; A-ISMCTS drifts away as it searches longer.
* T2, collapse: the belief of player 2 holding the J after a check is perturbed (1/15 of
  probability moved from the K to the Q: L1 size 0.133), which makes betting look 0.05
  better (scaled payoff). A-ISMCTS's share of the bet grows with simulations and so does
  e_I, the exploitability of the equilibrium with only this information set replaced by
  the search.
* T3, the fix: Nash-ISMCTS with eps = 0.2 >= 0.133 puts the true value inside the
  interval, so its shares stay at P and e_I does not grow.
* The plot: the search operator's exploitability e(n) (one search at every information
  set, mean over seeds) against simulations per move n, for MT-ISMCTS (random rollouts,
  no networks), A-ISMCTS and Nash-ISMCTS on the perturbed oracle. MT-ISMCTS drifts toward
  pure play (any pure Kuhn profile is at least 1/6 exploitable); A-ISMCTS collapses where
  the belief is wrong; Nash-ISMCTS does not.

Usage: ``python examples/nash_ismcts_kuhn.py [--out nash_ismcts_output] [--seeds 10]``
(about a minute; ``--max-simulations 10000`` for a quick look).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.agents.ismcts import CompiledSearch, SearchConfig, SearchTables
from nashzoo.eval.plots import plot_search_curves
from nashzoo.games import KuhnPokerGame
from nashzoo.games.kuhn import kuhn_equilibrium
from nashzoo.tree import TabularPolicy, compile_game, nash_conv_array

J_AFTER_CHECK = "player=1 card=J history=p"
K_AT_THE_ROOT = "player=0 card=K history="


def chips(tree: Any, probs: np.ndarray) -> float:
    """Exploitability in chips."""
    return float(nash_conv_array(tree, probs) / 2)


def perturb(oracle: SearchTables, infoset: int) -> SearchTables:
    """Move 1/15 of player 2's belief from the K to the Q (world ids: 1 J, 2 Q, 3 K)."""
    view = oracle.views.infoset_view[infoset]
    row = oracle.belief[view].copy()
    row[2] += 1 / 15
    row[3] -= 1 / 15
    return oracle.with_belief(view, row)


def at_one_set(
    tables: SearchTables, config: SearchConfig, infoset: int, eq: np.ndarray, seeds: int
) -> dict[str, float]:
    """Mean visit share of action 1 (bet/call) and e_I over ``seeds`` searches."""
    tree = tables.tree
    search = CompiledSearch(tables, config)
    shares, errors = [], []
    for seed in range(seeds):
        result = search.run(infoset, seed)
        shares.append(result.visit_shares[1])
        probs = eq.copy()
        probs[infoset] = result.policy
        errors.append(chips(tree, probs))
    return {"share": float(np.mean(shares)), "e_I": float(np.mean(errors))}


def operator_exploitability(
    tables: SearchTables, config: SearchConfig, seeds: int
) -> tuple[float, float]:
    """e(n): mean and standard error over seeds of the exploitability of the policy
    assembled from one search at every information set."""
    tree = tables.tree
    search = CompiledSearch(tables, config)
    values = []
    for seed in range(seeds):
        probs = np.zeros(tree.legal_mask.shape)
        for i in range(tree.num_infosets):
            probs[i] = search.run(i, np.random.SeedSequence([seed, i])).policy
        values.append(chips(tree, probs))
    return float(np.mean(values)), float(np.std(values) / np.sqrt(len(values)))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="nash_ismcts_output")
    parser.add_argument("--seeds", type=int, default=10, help="seeds per point (>= 10 in the spec)")
    parser.add_argument("--max-simulations", type=int, default=100_000)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    tree = compile_game(KuhnPokerGame())
    eq = TabularPolicy.from_table(tree, kuhn_equilibrium(1 / 6)).probs
    oracle = SearchTables.oracle(tree, eq)
    j_set, k_set = tree.infoset_index[J_AFTER_CHECK], tree.infoset_index[K_AT_THE_ROOT]
    perturbed = perturb(oracle, j_set)
    counts = [n for n in (100, 1000, 10_000, 100_000) if n <= args.max_simulations]
    results: dict[str, Any] = {"simulations": counts}

    print("T1  the oracle's own P: total variation of each seed's visit shares (c_puct 4)")
    results["t1"] = {}
    for key, infoset in ((J_AFTER_CHECK, j_set), (K_AT_THE_ROOT, k_set)):
        for variant, eps in (("a", 0.0), ("nash", 0.2)):
            row = []
            for n in counts:
                config = SearchConfig(variant=variant, simulations=n, c_puct=4, eps=eps)
                search = CompiledSearch(oracle, config)
                tv = [
                    0.5 * float(np.abs(search.run(infoset, seed).visit_shares - eq[infoset]).sum())
                    for seed in range(20)
                ]
                row.append({"median": float(np.median(tv)), "max": max(tv)})
                print(
                    f"    {key:<28} {variant:>4} n={n:>7,}  median {row[-1]['median']:.3f}  "
                    f"max {row[-1]['max']:.3f}"
                )
            results["t1"][f"{key} {variant}"] = row

    for label, variant, eps in (
        ("T2  A-ISMCTS", "a", 0.0),
        ("T3  Nash-ISMCTS eps 0.2", "nash", 0.2),
    ):
        print(f"{label} (c_puct 1), perturbed belief at {J_AFTER_CHECK!r}: bet share, e_I (chips)")
        row = []
        for n in counts:
            config = SearchConfig(variant=variant, simulations=n, c_puct=1, eps=eps)
            r = at_one_set(perturbed, config, j_set, eq, 20)
            row.append(r)
            print(f"    n={n:>7,}  bet share {r['share']:.3f}  e_I {r['e_I']:.4f}")
        results[label.split()[0].lower()] = row

    print(f"e(n): exploitability of the search operator (chips), mean of {args.seeds} seeds")
    lines = {
        "MT-ISMCTS (random rollouts)": (SearchTables.uninformed(tree), "mt", 0.0),
        "A-ISMCTS, perturbed oracle": (perturbed, "a", 0.0),
        "Nash-ISMCTS eps 0.2, perturbed oracle": (perturbed, "nash", 0.2),
    }
    results["e"] = {}
    for label, (tables, variant, eps) in lines.items():
        row = [
            operator_exploitability(
                tables, SearchConfig(variant=variant, simulations=n, c_puct=1, eps=eps), args.seeds
            )
            for n in counts
        ]
        results["e"][label] = row
        print(f"    {label:<40} " + "  ".join(f"{m:.4f}" for m, _ in row))

    plot = plot_search_curves(
        counts,
        results["e"],
        out / "nash_ismcts_kuhn.png",
        title="Kuhn poker: searching longer",
        reference=(1 / 6, "1/6: best pure profile"),
    )
    (out / "nash_ismcts_kuhn.json").write_text(json.dumps(results, indent=1))
    print(f"plot written to {plot}")
    results["plot"] = str(plot)
    return results


if __name__ == "__main__":
    main()
