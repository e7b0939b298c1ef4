"""CFR family: nashzoo vs OpenSpiel's C++ solvers, side by side in one run.

For Kuhn and Leduc poker, measures

* iterations per second of CFR+, CFR, DCFR (ours) and ``pyspiel.CFRPlusSolver`` /
  ``pyspiel.CFRSolver`` (OpenSpiel C++);
* wall time (solver time only; evaluation excluded) and iterations to exploitability
  1e-3 and 1e-4;
* external- and outcome-sampling MCCFR: iterations per second and exploitability after
  the same number of iterations;
* the time of one exact exploitability computation on Leduc: ours vs ``pyspiel.nash_conv``
  (C++) and ``open_spiel.python.algorithms.exploitability`` (Python).

Writes a plot of exploitability against seconds (``--plot``). Needs ``open_spiel``.
Goal (issue 3): 30x OpenSpiel's C++ CFR+ in iterations/s and in time to 1e-4 on Leduc,
and exact exploitability of a Leduc policy in under 5 ms.
"""

from __future__ import annotations

import argparse
import platform
import time
from dataclasses import dataclass, field
from datetime import date

from nashzoo.agents.cfr import make_solver
from nashzoo.eval import exploitability
from nashzoo.eval.exploitability import nash_conv_array
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import compile_game

GAMES = {"kuhn": (KuhnPokerGame(), "kuhn_poker"), "leduc": (LeducHoldemGame(), "leduc_poker")}


@dataclass
class Run:
    name: str
    iterations: int = 0
    seconds: float = 0.0
    curve: list = field(default_factory=list)  # (iterations, seconds, exploitability)

    def reach(self, threshold: float):
        return next(((i, s) for i, s, e in self.curve if e <= threshold), None)


def run_ours(tree, algo, max_iters, step, max_seconds, seed=None) -> Run:
    solver = make_solver(algo, tree, seed=seed) if seed is not None else make_solver(algo, tree)
    solver.iterate(0)  # compile outside the clock
    run = Run(f"nashzoo {algo}")
    while solver.iteration < max_iters and solver.seconds < max_seconds:
        solver.iterate(step)
        expl = solver.exploitability()
        run.curve.append((solver.iteration, solver.seconds, expl))
        if expl <= 1e-4 and not algo.endswith("mccfr"):
            break
    run.iterations, run.seconds = solver.iteration, solver.seconds
    return run


def run_openspiel(os_game, kind, max_iters, step, max_seconds, seed=0) -> Run:
    import pyspiel

    if kind == "cfr+":
        solver = pyspiel.CFRPlusSolver(os_game)
        one = solver.evaluate_and_update_policy
    elif kind == "cfr":
        solver = pyspiel.CFRSolver(os_game)
        one = solver.evaluate_and_update_policy
    elif kind == "es-mccfr":
        solver = pyspiel.ExternalSamplingMCCFRSolver(os_game, seed=seed)
        one = solver.run_iteration
    else:
        solver = pyspiel.OutcomeSamplingMCCFRSolver(os_game, seed=seed)
        one = solver.run_iteration
    run = Run(f"OpenSpiel C++ {kind}")
    while run.iterations < max_iters and run.seconds < max_seconds:
        start = time.perf_counter()
        for _ in range(step):
            one()
        run.seconds += time.perf_counter() - start
        run.iterations += step
        expl = pyspiel.exploitability(os_game, solver.average_policy())
        run.curve.append((run.iterations, run.seconds, expl))
        if expl <= 1e-4 and not kind.endswith("mccfr"):
            break
    return run


def throughput(tree, os_game, algo: str, ours_n: int, theirs_n: int) -> tuple[float, float]:
    """Iterations per second of one uninterrupted batch (no evaluation), ours and theirs."""
    import pyspiel

    solver = make_solver(algo, tree, seed=1) if algo.endswith("mccfr") else make_solver(algo, tree)
    solver.iterate(0)
    start = time.perf_counter()
    solver.iterate(ours_n)
    ours = ours_n / (time.perf_counter() - start)
    theirs_solver = {
        "cfr+": lambda: pyspiel.CFRPlusSolver(os_game),
        "cfr": lambda: pyspiel.CFRSolver(os_game),
        "es-mccfr": lambda: pyspiel.ExternalSamplingMCCFRSolver(os_game, seed=1),
        "os-mccfr": lambda: pyspiel.OutcomeSamplingMCCFRSolver(os_game, seed=1),
    }[algo]()
    step = getattr(theirs_solver, "evaluate_and_update_policy", None) or theirs_solver.run_iteration
    start = time.perf_counter()
    for _ in range(theirs_n):
        step()
    return ours, theirs_n / (time.perf_counter() - start)


def fmt_reach(run: Run, threshold: float) -> str:
    hit = run.reach(threshold)
    return "not reached" if hit is None else f"{hit[1]:.3f} s ({hit[0]:,} it)"


def exploitability_timing(repeats: int) -> list[tuple[str, float]]:
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability as os_expl

    tree = compile_game(LeducHoldemGame())
    policy = make_solver("cfr+", tree).iterate(50).average_policy()
    os_game = pyspiel.load_game("leduc_poker")
    os_pol = os_policy.TabularPolicy(os_game)
    cpp_solver = pyspiel.CFRPlusSolver(os_game)
    for _ in range(5):
        cpp_solver.evaluate_and_update_policy()
    cpp_pol = cpp_solver.average_policy()

    def best_of(fn, n):
        fn()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    return [
        (
            "nashzoo exploitability() (full result, BR policies)",
            best_of(lambda: exploitability(policy), repeats),
        ),
        (
            "nashzoo nash_conv_array() (value only)",
            best_of(lambda: nash_conv_array(tree, policy.probs), repeats),
        ),
        (
            "OpenSpiel pyspiel.nash_conv (C++)",
            best_of(lambda: pyspiel.nash_conv(os_game, cpp_pol), max(3, repeats // 20)),
        ),
        (
            "OpenSpiel python exploitability.nash_conv",
            best_of(lambda: os_expl.nash_conv(os_game, os_pol), 2),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kuhn", "leduc"], choices=list(GAMES))
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=90.0,
        help="solver-time budget of each OpenSpiel full-width run",
    )
    parser.add_argument("--mccfr-iterations", type=int, default=100_000)
    parser.add_argument("--plot", default="benchmarks/cfr_vs_openspiel.png")
    args = parser.parse_args()
    import pyspiel

    print(
        f"date {date.today()}  machine {platform.machine()}  python "
        f"{platform.python_version()}  pyspiel {getattr(pyspiel, '__version__', '?')}"
    )
    all_runs = {}
    for key in args.games:
        game, os_name = GAMES[key]
        tree = compile_game(game)
        os_game = pyspiel.load_game(os_name)
        leduc = key == "leduc"
        runs = [
            run_ours(tree, "cfr+", 100_000, 10 if leduc else 2, 30),
            run_ours(tree, "dcfr", 100_000, 10 if leduc else 2, 30),
            run_ours(tree, "cfr", 5_000 if leduc else 20_000, 50 if leduc else 20, 30),
            run_openspiel(os_game, "cfr+", 100_000, 20 if leduc else 2, args.max_seconds),
            run_openspiel(
                os_game,
                "cfr",
                2_000 if leduc else 20_000,
                100 if leduc else 20,
                args.max_seconds / 3,
            ),
        ]
        m = args.mccfr_iterations
        runs += [
            run_ours(tree, "es-mccfr", m, m // 10, 1e9, seed=1),
            run_ours(tree, "os-mccfr", m, m // 10, 1e9, seed=1),
            run_openspiel(os_game, "es-mccfr", m, m // 10, 1e9),
            run_openspiel(os_game, "os-mccfr", m, m // 10, 1e9),
        ]
        all_runs[key] = runs
        print(f"\n## {key}: {tree.num_nodes:,} histories\n")
        print("Runs with exploitability checkpoints (solver time only):\n")
        print("| solver | iterations/s | to 1e-3 | to 1e-4 | final exploitability |")
        print("|---|---:|---:|---:|---:|")
        for r in runs:
            print(
                f"| {r.name} | {r.iterations / r.seconds:,.0f} | {fmt_reach(r, 1e-3)} | "
                f"{fmt_reach(r, 1e-4)} | {r.curve[-1][2]:.3g} after {r.iterations:,} it |"
            )
        by = {r.name: r for r in runs}
        print("\nThroughput, one uninterrupted batch each (no evaluation):\n")
        print("| algorithm | nashzoo it/s | OpenSpiel C++ it/s | ratio |")
        print("|---|---:|---:|---:|")
        sizes = (
            {"cfr+": (2000, 100), "cfr": (2000, 100)}
            if leduc
            else {"cfr+": (50_000, 5000), "cfr": (50_000, 5000)}
        )
        for algo in ("cfr+", "cfr", "es-mccfr", "os-mccfr"):
            ours_n, theirs_n = sizes.get(algo, (200_000, 50_000))
            ours, theirs = throughput(tree, os_game, algo, ours_n, theirs_n)
            print(f"| {algo} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:,.1f}x |")
        print()
        for threshold in (1e-3, 1e-4):
            a, b = by["nashzoo cfr+"].reach(threshold), by["OpenSpiel C++ cfr+"].reach(threshold)
            if a and b:
                print(
                    f"time to {threshold:g} ratio OpenSpiel CFR+ / nashzoo CFR+: "
                    f"{b[1] / a[1]:,.1f}x  ({b[1]:.2f} s vs {a[1]:.4f} s)"
                )
    if "leduc" in args.games:
        print("\n## exact exploitability of one Leduc policy\n")
        print("| implementation | ms |")
        print("|---|---:|")
        timings = exploitability_timing(200)
        for name, seconds in timings:
            print(f"| {name} | {1000 * seconds:.3f} |")
        print(
            f"\npyspiel.nash_conv / nashzoo exploitability(): {timings[2][1] / timings[0][1]:,.0f}x"
        )
    if args.plot:
        from nashzoo.eval.plots import plot_panels

        panels = {
            key: {r.name: r.curve for r in runs if not r.name.endswith("mccfr")}
            for key, runs in all_runs.items()
        }
        print(f"\nplot: {plot_panels(panels, args.plot)}")


if __name__ == "__main__":
    main()
