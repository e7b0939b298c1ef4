"""Parallel Nash Memory: time to exploitability 1e-3 against our CFR+ and OpenSpiel's
PSRO with an exact meta-game (exact best-response oracle, Nash meta-solver, every
meta-game entry the exact expected payoff instead of a sampled estimate), interleaved,
median of ``--repeats``.

Games: 8-card poker (OpenSpiel has no 8-card Kuhn), Kuhn and Leduc poker; then PNM on
Oliehoek's larger thesis games (2-round 6-card poker and the closest 4-bet 8-card
parameterisation) with the end points of their worst-case payoff curves.
Times are solver time; exploitability checks are excluded.

``--section learned`` (issue 92): Nash memory with a *learned* oracle (MaskablePPO
against the mixture) and a meta-game measured by duplicate matches, two loops side by
side on one game, seeds interleaved (seed s: the PSRO loop, then Nash memory; with
``--jobs 2`` the two loops run at the same time, a process and a core each, each loop's
seeds in turn):

* the PSRO loop: every candidate joins, the meta-game's measured means solved as if exact
  (``admission_margin=None``, ``meta_solver="nash"``, no memory bound);
* the thesis' Nash memory: a candidate joins only if its gain against the mixture clears
  1.96 standard errors, a bounded memory of members that left the support
  (``--memory-cap``), the robust meta-solver; with ``--oracle-growth G`` its oracle
  trains G times longer after each rejected candidate (up to ``--oracle-steps-cap``),
  back to ``--oracle-steps`` after an admission.

After each generation the mixture's exact exploitability (each learned member tabulated
over the tree). A curve is *monotone within noise* when no generation's exploitability
exceeds the lowest one before it by more than 1% of the uniform policy's (the tolerance
is fixed here, before any run). Goal: Nash memory's curve monotone within noise on every
seed, and lower at the end (median over seeds) than the PSRO loop's.

Usage: ``python benchmarks/nash_memory_vs_cfr.py [--cap 60] [--repeats 3] [--plot ...]``;
``python benchmarks/nash_memory_vs_cfr.py --section learned [--game leduc_holdem]
[--minutes 30] [--seeds 0 1 2] [--oracle-steps 20000] [--meta-deals 1000] [--jobs 2]
[--oracle-growth 2 --oracle-steps-cap 160000]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, median, one_thread

from nashzoo import make_game
from nashzoo.agents.cfr import CFRPlusSolver
from nashzoo.agents.nash_memory import NashMemoryConfig, NashMemoryLearner, ParallelNashMemory
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


LOOPS = {
    "PSRO loop": {"admission_margin": None, "meta_solver": "nash"},
    "Nash memory": {"admission_margin": 0.0, "meta_solver": "robust"},
}
"""The two loops of ``--section learned`` (their other settings shared)."""


def run_learned(game, settings: dict, seconds: float) -> list[tuple[int, float, float, bool]]:
    """Generations of a learned-oracle Nash memory until ``seconds`` have passed: each
    one's (generation, seconds so far, the mixture's exact exploitability, admitted)."""
    learner = NashMemoryLearner(game, NashMemoryConfig(oracle="learned", **settings))
    curve, spent = [], 0.0
    while spent < seconds:
        learner.train(steps=1)  # the learner's step: the oracle's steps grow there
        record = learner.history[-1]
        spent += record.seconds
        curve.append((record.iteration, spent, float(record.exploitability), record.admitted))
    return curve


def largest_rise(curve: list[tuple[int, float, float, bool]]) -> float:
    """How far the exploitability ever climbs above the lowest it had been (0: never)."""
    rise, best = 0.0, float("inf")
    for _, _, e, _ in curve:
        rise, best = max(rise, e - best), min(best, e)
    return rise


def loop_run(args, name: str, seed: int) -> list[tuple[int, float, float, bool]]:
    """One run of the loop ``name`` with ``seed`` (its curve printed as it ends)."""
    settings = dict(LOOPS[name], seed=seed, oracle_steps=args.oracle_steps,
                    oracle_envs=args.oracle_envs, meta_deals=args.meta_deals)  # fmt: skip
    if name == "Nash memory":
        settings["memory_cap"] = args.memory_cap
        settings["oracle_growth"] = args.oracle_growth
        settings["oracle_steps_cap"] = args.oracle_steps_cap
    curve = run_learned(make_game(args.game), settings, 60 * args.minutes)
    points = " ".join(f"{e:.3f}{'' if a else '(r)'}" for *_, e, a in curve)
    print(f"  {name}, seed {seed}: {points}", flush=True)
    return curve


def loop_runs(args, name: str) -> dict[int, list[tuple[int, float, float, bool]]]:
    """The loop ``name``'s runs, one seed after another (``--jobs 2``: in a process of
    its own, beside the other loop's)."""
    return {seed: loop_run(args, name, seed) for seed in args.seeds}


def learned_section(args) -> None:
    from nashzoo.tree import TabularPolicy, compile_game
    from nashzoo.tree.best_response import nash_conv_array

    game = make_game(args.game)
    tree = compile_game(game)
    uniform = nash_conv_array(tree, TabularPolicy.uniform(tree).probs) / 2
    tolerance = 0.01 * uniform
    print(
        f"\n{args.game}: learned oracle (MaskablePPO, {args.oracle_steps:,} steps, "
        f"{args.oracle_envs} envs; Nash memory's grow {args.oracle_growth:g}x after each "
        f"rejection, capped at {args.oracle_steps_cap}), "
        f"{args.meta_deals:,} duplicate deals an entry, "
        f"{args.minutes:g} minutes a run (the run's own seconds), seeds {args.seeds}; "
        f"uniform's exploitability {uniform:.4f}, tolerance {tolerance:.4f}\n"
    )
    curves: dict[str, dict[int, list]] = {name: {} for name in LOOPS}
    if args.jobs == 1:
        for seed in args.seeds:  # interleaved: seed s, both loops, then seed s + 1
            for name in LOOPS:
                curves[name][seed] = loop_run(args, name, seed)
    else:  # the two loops side by side, one process (and core) each, seeds in turn
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(2, mp_context=context, initializer=one_thread) as pool:
            jobs = {name: pool.submit(loop_runs, args, name) for name in LOOPS}
            for name, job in jobs.items():
                curves[name] = job.result()
    print("\n(r): the candidate was rejected (the mixture unchanged)\n")
    print("| loop | seed | generations | admitted | exploitability first -> last | lowest "
          "| largest rise | monotone within noise |")  # fmt: skip
    print("|---|---:|---:|---:|---|---:|---:|---|")
    finals: dict[str, list[float]] = {}
    for name, by_seed in curves.items():
        for seed, curve in by_seed.items():
            rise = largest_rise(curve)
            finals.setdefault(name, []).append(curve[-1][2])
            print(
                f"| {name} | {seed} | {len(curve)} | {sum(c[3] for c in curve)} | "
                f"{curve[0][2]:.4f} -> {curve[-1][2]:.4f} | {min(c[2] for c in curve):.4f} | "
                f"{rise:.4f} | {'yes' if rise <= tolerance else 'no'} |"
            )
    for name, values in finals.items():
        print(f"\n{name}: final exploitability, median over seeds {median(values):.4f} "
              f"(runs {', '.join(f'{v:.4f}' for v in values)})", end="")  # fmt: skip
    monotone = all(largest_rise(c) <= tolerance for c in curves["Nash memory"].values())
    lower = median(finals["Nash memory"]) < median(finals["PSRO loop"])
    verdict = {True: "met", False: "missed"}
    print(f"\n\nGoal: Nash memory monotone within noise on every seed: {verdict[monotone]}; "
          f"lower at the end: {verdict[lower]}")  # fmt: skip
    if args.plot:
        from nashzoo.eval.plots import plot_panels

        panels = {
            f"{args.game}, seed {seed}": {
                f"nashzoo {name}": [(g, g, e) for g, _, e, _ in curves[name][seed]]
                for name in LOOPS
            }
            for seed in args.seeds
        }
        print(f"\nplot: {plot_panels(panels, args.plot, xlabel='generation')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=("exact", "learned"), default="exact")
    parser.add_argument("--cap", type=float, default=60.0, help="solver seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--plot", default=None, help="PNG path (default per section)")
    learned = parser.add_argument_group("--section learned")
    learned.add_argument("--game", default="leduc_holdem")
    learned.add_argument("--minutes", type=float, default=30.0, help="per run")
    learned.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    learned.add_argument("--oracle-steps", type=int, default=20_000)
    learned.add_argument("--oracle-envs", type=int, default=8)
    learned.add_argument("--meta-deals", type=int, default=1000)
    learned.add_argument("--memory-cap", type=int, default=8)
    learned.add_argument(
        "--oracle-growth", type=float, default=1.0,
        help="Nash memory's oracle steps grow this many times after each rejection",
    )  # fmt: skip
    learned.add_argument("--oracle-steps-cap", type=int, default=None)
    learned.add_argument(
        "--jobs", type=int, choices=(1, 2), default=1,
        help="2: the two loops side by side, a process (one core) each, seeds in turn",
    )  # fmt: skip
    args = parser.parse_args()
    print(machine_line())
    if args.section == "learned":
        args.plot = args.plot or "benchmarks/nash_memory_learned.png"
        one_thread()
        learned_section(args)
        return
    args.plot = args.plot or "benchmarks/nash_memory_vs_cfr.png"
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
