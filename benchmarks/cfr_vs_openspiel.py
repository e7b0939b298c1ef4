"""CFR family and exact exploitability: nashzoo vs OpenSpiel's C++ solvers and LiteEFG, in
one run (interleaved, median of ``--repeats``).

1. Throughput, iterations per second of one uninterrupted batch: CFR+, CFR, external- and
   outcome-sampling MCCFR (ours vs ``pyspiel``'s C++ solvers) and CFR+ of LiteEFG (a C++
   computation-graph library of tabular solvers, the fastest library peer we know).
2. CFR+ on Leduc (and Kuhn): solver time to exploitability 1e-3 and 1e-4, all three with
   an evaluation every ``--step`` iterations, evaluation time excluded.
3. One exact exploitability of a Leduc policy: ours (full result with best-response
   policies, and the value alone) vs ``pyspiel.nash_conv`` and OpenSpiel's
   ``TabularBestResponse`` built once and reused (``set_policy`` + ``value_from_state``
   for both players: the fastest way to evaluate many policies with OpenSpiel).
4. MCCFR: exploitability after the same number of iterations (one seeded run each).

Needs ``open_spiel`` (and ``liteefg`` for its rows). Goals (issue 3): 30x OpenSpiel's C++
CFR+ in iterations/s and in time to 1e-4 on Leduc; one exact exploitability under 5 ms.
Usage: ``python benchmarks/cfr_vs_openspiel.py [--repeats 3] [--plot PNG]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, runs_text

from nashzoo.agents.cfr import make_solver
from nashzoo.eval import exploitability
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import compile_game, nash_conv_array

GAMES = {"kuhn": (KuhnPokerGame(), "kuhn_poker"), "leduc": (LeducHoldemGame(), "leduc_poker")}


def have_liteefg() -> bool:
    try:
        import LiteEFG  # noqa: F401
    except ImportError:
        return False
    return True


class LiteCFRPlus:
    """LiteEFG's CFR+ baseline graph on an OpenSpiel game (its own training loop)."""

    def __init__(self, os_game) -> None:
        import LiteEFG as leg
        from LiteEFG.baselines.CFRplus import graph

        with contextlib.redirect_stdout(io.StringIO()):
            self.graph = graph()
            self.env = leg.OpenSpielEnv(os_game, traverse_type="Enumerate", regenerate=False)
        self.env.set_graph(self.graph)

    def iterate(self, n: int) -> None:
        graph, env = self.graph, self.env
        for _ in range(n):
            graph.update_graph(env)
            env.update_strategy(graph.current_strategy(), update_best=False)

    def exploitability(self) -> float:
        nash_conv = sum(
            self.env.exploitability(self.graph.current_strategy(), "linear-avg-iterate")
        )
        return nash_conv / 2


# -- 1. throughput --------------------------------------------------------------------------
def ours_rate(tree, algo: str, n: int) -> float:
    solver = make_solver(algo, tree, seed=1) if "mccfr" in algo else make_solver(algo, tree)
    solver.iterate(0)  # compile outside the clock
    start = time.perf_counter()
    solver.iterate(n)
    return n / (time.perf_counter() - start)


def openspiel_rate(os_game, algo: str, n: int) -> float:
    import pyspiel

    solver = {
        "cfr+": lambda: pyspiel.CFRPlusSolver(os_game),
        "cfr": lambda: pyspiel.CFRSolver(os_game),
        "es-mccfr": lambda: pyspiel.ExternalSamplingMCCFRSolver(os_game, seed=1),
        "os-mccfr": lambda: pyspiel.OutcomeSamplingMCCFRSolver(os_game, seed=1),
    }[algo]()
    step = getattr(solver, "evaluate_and_update_policy", None) or solver.run_iteration
    start = time.perf_counter()
    for _ in range(n):
        step()
    return n / (time.perf_counter() - start)


def lite_rate(os_game, n: int) -> float:
    solver = LiteCFRPlus(os_game)
    start = time.perf_counter()
    solver.iterate(n)
    return n / (time.perf_counter() - start)


# -- 2. time to a threshold -----------------------------------------------------------------
def time_to(
    solver_iterate, evaluate, step: int, targets=(1e-3, 1e-4), max_seconds: float = 120.0
) -> tuple[dict[float, tuple[int, float]], list]:
    """Iterate in steps, evaluating after each (not timed); returns, per target, the
    (iterations, solver seconds) of the first checkpoint at or below it, and the curve."""
    seconds, iterations, curve, hit = 0.0, 0, [], {}
    while len(hit) < len(targets) and seconds < max_seconds:
        start = time.perf_counter()
        solver_iterate(step)
        seconds += time.perf_counter() - start
        iterations += step
        value = evaluate()
        curve.append((iterations, seconds, value))
        for t in targets:
            if t not in hit and value <= t:
                hit[t] = (iterations, seconds)
    return hit, curve


def cfr_plus_runs(game, os_game, step: int):
    import pyspiel

    tree = compile_game(game)

    def ours():
        solver = make_solver("cfr+", tree)
        solver.iterate(0)
        return time_to(solver.iterate, solver.exploitability, step)

    def openspiel():
        solver = pyspiel.CFRPlusSolver(os_game)

        def iterate(n):
            for _ in range(n):
                solver.evaluate_and_update_policy()

        return time_to(
            iterate, lambda: pyspiel.exploitability(os_game, solver.average_policy()), step
        )

    runs = {"nashzoo cfr+": ours, "OpenSpiel C++ cfr+": openspiel}
    if have_liteefg():

        def lite():
            solver = LiteCFRPlus(os_game)
            return time_to(solver.iterate, solver.exploitability, step)

        runs["LiteEFG cfr+"] = lite
    return runs


# -- 3. exact exploitability ----------------------------------------------------------------
def policy_table(os_game, os_policy) -> dict:
    """``{information state: [(action, probability)]}`` of an OpenSpiel policy, the form
    ``TabularBestResponse`` takes (built once, outside the clock)."""
    table: dict = {}
    stack = [os_game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            key = state.information_state_string()
            if key not in table:
                table[key] = list(os_policy.action_probabilities(state).items())
        stack.extend(state.child(a) for a in state.legal_actions())
    return table


def exploitability_contenders(calls: int) -> dict:
    import pyspiel

    tree = compile_game(LeducHoldemGame())
    policy = make_solver("cfr+", tree).iterate(50).average_policy()
    os_game = pyspiel.load_game("leduc_poker")
    cpp = pyspiel.CFRPlusSolver(os_game)
    for _ in range(50):
        cpp.evaluate_and_update_policy()
    cpp_policy = cpp.average_policy()
    table = policy_table(os_game, cpp_policy)
    root = os_game.new_initial_state()
    responders = [pyspiel.TabularBestResponse(os_game, p, table) for p in (0, 1)]

    def reuse():
        total = 0.0
        for br in responders:
            br.set_policy(table)
            total += br.value_from_state(root)
        return total  # NashConv of a two-player zero-sum game: the BR values' sum

    assert abs(reuse() - pyspiel.nash_conv(os_game, cpp_policy)) < 1e-9

    def timed(fn, n):
        def go():
            fn()
            start = time.perf_counter()
            for _ in range(n):
                fn()
            return 1000 * (time.perf_counter() - start) / n

        return go

    return {
        "nashzoo exploitability() (full result, BR policies)": timed(
            lambda: exploitability(policy), calls
        ),
        "nashzoo nash_conv_array() (value only)": timed(
            lambda: nash_conv_array(tree, policy.probs), calls
        ),
        "OpenSpiel TabularBestResponse, built once, reused (C++)": timed(reuse, 20),
        # the default argument keeps the C++ solver alive: its average policy points into it
        "OpenSpiel pyspiel.nash_conv (C++)": timed(
            lambda _solver=cpp: pyspiel.nash_conv(os_game, cpp_policy), 5
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", nargs="+", default=["kuhn", "leduc"], choices=list(GAMES))
    parser.add_argument("--mccfr-iterations", type=int, default=100_000)
    parser.add_argument("--plot", default="benchmarks/cfr_vs_openspiel.png")
    args = parser.parse_args()
    import pyspiel

    print(machine_line())
    print(
        f"pyspiel {getattr(pyspiel, '__version__', '?')}, LiteEFG "
        f"{'installed' if have_liteefg() else 'not installed'}"
    )
    panels = {}
    for key in args.games:
        game, os_name = GAMES[key]
        tree = compile_game(game)
        os_game = pyspiel.load_game(os_name)
        leduc = key == "leduc"
        print(f"\n## {key}: {tree.num_nodes:,} histories\n")
        print("### Throughput (iterations/s, one uninterrupted batch)\n")
        sizes = {
            "cfr+": (2000, 100) if leduc else (50_000, 5000),
            "cfr": (2000, 100) if leduc else (50_000, 5000),
            "es-mccfr": (200_000, 50_000),
            "os-mccfr": (200_000, 50_000),
        }
        rows = []
        for algo, (ours_n, theirs_n) in sizes.items():
            contenders = {
                f"nashzoo {algo}": lambda t=tree, a=algo, n=ours_n: ours_rate(t, a, n),
                f"OpenSpiel C++ {algo}": lambda g=os_game, a=algo, n=theirs_n: openspiel_rate(
                    g, a, n
                ),
            }
            if algo == "cfr+" and have_liteefg():
                lite_n = 500 if leduc else 5000
                contenders["LiteEFG cfr+"] = lambda g=os_game, n=lite_n: lite_rate(g, n)
            rates = interleaved(contenders, args.repeats)
            rows.append((algo, rates))
        print("\n| algorithm | nashzoo it/s | OpenSpiel C++ it/s | ratio | LiteEFG it/s | ratio |")
        print("|---|---:|---:|---:|---:|---:|")
        for algo, rates in rows:
            ours, theirs = median(rates[f"nashzoo {algo}"]), median(rates[f"OpenSpiel C++ {algo}"])
            lite = rates.get("LiteEFG cfr+") if algo == "cfr+" else None
            lite_cells = f"{median(lite):,.0f} | {ours / median(lite):,.1f}x" if lite else "- | -"
            print(
                f"| {algo} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:,.1f}x | {lite_cells} |"
            )
        for _, rates in rows:
            for name, values in rates.items():
                print(f"  runs {name}: {runs_text(values)}")

        step = 10 if leduc else 2
        print(
            f"\n### CFR+: solver seconds to exploitability 1e-3 and 1e-4 (evaluated every "
            f"{step} iterations, not timed)\n"
        )
        runs = cfr_plus_runs(game, os_game, step)
        results: dict[str, list] = {name: [] for name in runs}
        for r in range(args.repeats):
            for name, run in runs.items():
                hit, curve = run()
                results[name].append((hit, curve))
                print(
                    f"  repeat {r + 1} {name}: "
                    + ", ".join(
                        f"{t:g} in {s:.3f} s ({i:,} it)" for t, (i, s) in sorted(hit.items())
                    ),
                    flush=True,
                )
        print("\n| solver | to 1e-3 | to 1e-4 | runs to 1e-4 (s) |")
        print("|---|---:|---:|---|")
        best = {}
        for name, rs in results.items():
            cells = []
            for t in (1e-3, 1e-4):
                times = [h[t][1] for h, _ in rs if t in h]
                iters = [h[t][0] for h, _ in rs if t in h]
                best[name, t] = median(times) if len(times) == len(rs) else None
                cells.append(
                    f"{median(times):.3f} s ({int(median(iters)):,} it)"
                    if best[name, t] is not None
                    else "not reached"
                )
            runs_1e4 = ", ".join(f"{h[1e-4][1]:.3f}" for h, _ in rs if 1e-4 in h)
            print(f"| {name} | {cells[0]} | {cells[1]} | {runs_1e4} |")
        for peer in ("OpenSpiel C++ cfr+", "LiteEFG cfr+"):
            for t in (1e-3, 1e-4):
                a, b = best.get(("nashzoo cfr+", t)), best.get((peer, t))
                if a and b:
                    print(
                        f"time to {t:g}: {peer} / nashzoo = {b / a:,.1f}x ({b:.3f} s vs {a:.4f} s)"
                    )
        panels[key] = {name: rs[0][1] for name, rs in results.items()}

        m = args.mccfr_iterations
        print(f"\n### MCCFR: exploitability after {m:,} iterations (seed 1)\n")
        print("| algorithm | nashzoo | OpenSpiel C++ |")
        print("|---|---:|---:|")
        for algo in ("es-mccfr", "os-mccfr"):
            ours = make_solver(algo, tree, seed=1).iterate(m).exploitability()
            cls = (
                pyspiel.ExternalSamplingMCCFRSolver
                if algo == "es-mccfr"
                else pyspiel.OutcomeSamplingMCCFRSolver
            )
            theirs_solver = cls(os_game, seed=1)
            for _ in range(m):
                theirs_solver.run_iteration()
            theirs = pyspiel.exploitability(os_game, theirs_solver.average_policy())
            print(f"| {algo} | {ours:.4g} | {theirs:.4g} |")

    if "leduc" in args.games:
        print("\n## One exact exploitability of a Leduc policy (ms, mean of many calls)\n")
        times = interleaved(exploitability_contenders(500), args.repeats)
        print("\n| implementation | ms | runs |")
        print("|---|---:|---|")
        for name, values in times.items():
            print(f"| {name} | {median(values):.3f} | {runs_text(values, '.3f')} |")
        ours = median(times["nashzoo exploitability() (full result, BR policies)"])
        reuse = median(times["OpenSpiel TabularBestResponse, built once, reused (C++)"])
        full = median(times["OpenSpiel pyspiel.nash_conv (C++)"])
        print(
            f"\nreused TabularBestResponse / nashzoo exploitability(): {reuse / ours:,.1f}x "
            f"({reuse:.2f} ms vs {ours:.3f} ms); pyspiel.nash_conv / nashzoo: "
            f"{full / ours:,.0f}x ({full:.1f} ms)"
        )
    if args.plot:
        from nashzoo.eval.plots import plot_panels

        print(f"\nplot: {plot_panels(panels, args.plot)}")


if __name__ == "__main__":
    main()
