"""Parallel Nash Memory: time to exploitability 1e-3 against our CFR+ and OpenSpiel's
PSRO with an exact meta-game (exact best-response oracle, Nash meta-solver, every
meta-game entry the exact expected payoff instead of a sampled estimate), interleaved,
median of ``--repeats``.

Games: 8-card poker (OpenSpiel has no 8-card Kuhn), Kuhn and Leduc poker; then PNM on
Oliehoek's larger thesis games (2-round 6-card poker and the closest 4-bet 8-card
parameterisation) with the end points of their worst-case payoff curves.
Times are solver time; exploitability checks are excluded.

Usage: ``python benchmarks/nash_memory_vs_cfr.py [--cap 60] [--repeats 3] [--plot ...]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, median

from nashzoo.agents.cfr import CFRPlusSolver
from nashzoo.agents.nash_memory import ParallelNashMemory
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.games.leduc import four_bet_eight_card_poker, two_round_six_card_poker
from nashzoo.tree import compile_game

TARGET = 1e-3


def run_pnm(tree, cap: float):
    pnm = ParallelNashMemory(tree)
    curve = []
    while pnm.seconds < cap and not pnm.converged:
        pnm.iterate(1)
        expl = pnm.exploitability()
        curve.append((pnm.iteration, pnm.seconds, expl))
        if expl <= TARGET:
            break
    return pnm, curve


def run_cfr_plus(tree, cap: float):
    solver = CFRPlusSolver(tree)
    solver.iterate(0)
    curve = []
    while solver.seconds < cap:
        solver.iterate(1 if solver.iteration < 100 else 10)
        expl = solver.exploitability()
        curve.append((solver.iteration, solver.seconds, expl))
        if expl <= TARGET:
            break
    return curve


def run_psro(name: str, cap: float):
    import pyspiel
    from open_spiel.python import policy
    from open_spiel.python.algorithms import expected_game_score
    from open_spiel.python.algorithms.psro_v2 import best_response_oracle, psro_v2

    class ExactPSRO(psro_v2.PSROSolver):
        """PSRO whose meta-game entries are exact expected payoffs, not samples."""

        def sample_episodes(self, policies, num_episodes):
            return expected_game_score.policy_value(self._game.new_initial_state(), policies)

    game = pyspiel.load_game(name)
    random_policy = policy.TabularPolicy(game)
    oracle = best_response_oracle.BestResponseOracle(game=game, policy=random_policy)
    with contextlib.redirect_stdout(io.StringIO()):  # PSRO prints its settings
        solver = _make_exact_psro(ExactPSRO, game, oracle, random_policy)
    return _run_psro(solver, game, cap)


def _make_exact_psro(cls, game, oracle, random_policy):
    return cls(
        game,
        oracle,
        initial_policies=[random_policy.__copy__() for _ in range(2)],
        meta_strategy_method="nash",
        sims_per_entry=1,
        training_strategy_selector="probabilistic",
        sample_from_marginals=True,
    )


def _run_psro(solver, game, cap):
    from open_spiel.python.algorithms import exploitability, policy_aggregator

    curve = []
    spent = 0.0
    while spent < cap:
        start = time.perf_counter()
        solver.iteration()
        spent += time.perf_counter() - start
        aggregated = policy_aggregator.PolicyAggregator(game).aggregate(
            range(2), solver.get_policies(), solver.get_meta_strategies()
        )
        expl = exploitability.exploitability(game, aggregated)
        curve.append((len(curve) + 1, spent, expl))
        if expl <= TARGET:
            break
    return curve


def reach(curves):
    """Median time (and iterations) to the target over repeats, if every repeat got there."""
    hits = [next(((i, s) for i, s, e in c if e <= TARGET), None) for c in curves]
    if any(h is None for h in hits):
        return "not reached"
    return (
        f"{median([h[1] for h in hits]):.3f} s ({int(median([h[0] for h in hits])):,} it; "
        f"runs {', '.join(f'{h[1]:.3f}' for h in hits)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=60.0, help="solver seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--plot", default="benchmarks/nash_memory_vs_cfr.png")
    args = parser.parse_args()
    print(machine_line())
    print(f"\n| game | solver | time to {TARGET:g} (median) | final exploitability (repeat 1) |")
    print("|---|---|---:|---:|")
    curves = {}
    for label, game, os_name in [
        ("8-card poker", KuhnPokerGame(8), None),
        ("Kuhn poker", KuhnPokerGame(), "kuhn_poker"),
        ("Leduc Hold'em", LeducHoldemGame(), "leduc_poker"),
    ]:
        tree = compile_game(game)
        runs: dict[str, list] = {"nashzoo PNM": [], "nashzoo CFR+": []}
        if os_name:
            runs["OpenSpiel PSRO (exact BR, exact meta-game, Nash)"] = []
        pnm = None
        for r in range(args.repeats):  # interleaved repeats
            pnm, pnm_curve = run_pnm(tree, args.cap)
            runs["nashzoo PNM"].append(pnm_curve)
            runs["nashzoo CFR+"].append(run_cfr_plus(tree, args.cap))
            if os_name:
                runs["OpenSpiel PSRO (exact BR, exact meta-game, Nash)"].append(
                    run_psro(os_name, args.cap)
                )
            print(f"  {label}: repeat {r + 1} done", flush=True)
        for name, rs in runs.items():
            i, sec, e = rs[0][-1]
            print(f"| {label} | {name} | {reach(rs)} | {e:.3g} after {i:,} it, {sec:.2f} s |")
        last = pnm.history[-1]
        print(
            f"| {label} | PNM support / policies at the end | | "
            f"{last.support_sizes} / {last.policies} |"
        )
        curves[label] = {name: rs[0] for name, rs in runs.items()}
    print("\nPNM on the thesis' larger games (worst-case payoff of player 0 = security level):\n")
    print(
        "| game | histories | iterations | seconds | worst case first -> last | value "
        "of restricted game | exploitability |"
    )
    print("|---|---:|---:|---:|---|---:|---:|")
    for label, game in [
        ("2-round 6-card poker", two_round_six_card_poker()),
        ("4-bet 8-card (closest parameterisation)", four_bet_eight_card_poker()),
    ]:
        tree = compile_game(game)
        pnm, curve = run_pnm(tree, args.cap)
        h = pnm.history
        print(
            f"| {label} | {tree.num_nodes:,} | {len(h)} | {pnm.seconds:.1f} | "
            f"{h[0].worst_case[0]:+.4f} -> {h[-1].worst_case[0]:+.4f} | {pnm.value:+.4f} | "
            f"{curve[-1][2]:.2g} |"
        )
    if args.plot:
        from nashzoo.eval.plots import plot_panels

        print(f"\nplot: {plot_panels(curves, args.plot, threshold=TARGET)}")


if __name__ == "__main__":
    main()
