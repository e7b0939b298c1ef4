"""Issue 13's benchmark: simplex-gradient self-play, Gemp et al.'s solver, the modern tabular
first-order methods and the fictitious-play family, each against its reference or peer.

Sections (``--section``, default all, run in this order):

``tabular``   PCFR+, MMD and CFR+ against LiteEFG's PCFR, MMD and CFRplus baselines on
              Kuhn and Leduc: iterations per second (one thread, one uninterrupted batch,
              median of 3 interleaved) and exploitability at equal iterations.
``gemp``      Gemp et al.'s loss descent against OpenSpiel's ADIDAS SGD solver on the same
              matrices (RPS, weighted RPS, Kuhn's reduced normal form) with the same
              temperature, step and learning rate: iterations per second, exploitability.
``fp``        XFP against sample-based FSP on 6-card and 60-card Leduc (30 ranks x 2
              suits, 15.5 M histories), exploitability against seconds, one plot.
``learners``  simplex-gradient (average and last policy, each variant of the design:
              log-difference, unprojected, per-seat model pairs, magnet, TD targets,
              direct parametrisation, the iteration-weighted average), NFSP and CFR+
              (reference) on the small fighting preset and on Leduc, exploitability
              against seconds.
``leduc-seeds`` simplex-gradient (defaults, and ``--sg-config`` where given) and NFSP on
              Leduc for ``--leduc-minutes`` each, per seed of ``--seeds``: exact
              exploitability of the average policy, each seed and the median.
``small-seeds`` the same on the small fighting preset for ``--minutes`` each (issue 34's
              10-minute goal there, over seeds).
``profile``   where one iteration's time goes on the default fighting preset.
``edge``      what equilibria can win against the scripted heuristic where the fighting
              game compiles (the tiny and small presets): the least and the most of any
              equilibrium (sequence-form LPs), a best response's score, and the exact
              scores of simplex-gradient and NFSP against it as they train on the small
              preset (``--edge-minutes`` each), beside their exploitability; one plot.
``throughput``, ``default``, ``holdem``: issue 34's sections on games that do not compile
              (:mod:`benchmarks.simplex_gradient_large`).

Goals (issue 13): the best simplex-gradient variant's average policy at 10 minutes at most
NFSP's exploitability on the small preset, and the lower end of its 95% CI above 0 against
the heuristic and random on the default preset; Gemp >= 10x ADIDAS's iterations per second
at equal exploitability; each tabular method >= 10x LiteEFG's iterations per second with
exploitability no worse at equal iterations.

Needs ``open_spiel`` and ``liteefg`` for the peer rows (skipped when absent) and torch for
the learners. Run on a quiet machine: ``python benchmarks/simplex_gradient.py``.
"""

# The timing closures below are called within the loop iteration that defines them.
# ruff: noqa: B023

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import interleaved, machine_line, median, one_thread, runs_text
from nashzoo.agents.cfr import make_solver
from nashzoo.cli.common import lbr_hands_arg
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import compile_game

HERE = Path(__file__).resolve().parent
GAMES = {"kuhn": (KuhnPokerGame, "kuhn_poker"), "leduc": (LeducHoldemGame, "leduc_poker")}


def have(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# -- 1. tabular first-order methods vs LiteEFG ----------------------------------------------
# (ours, LiteEFG baseline module, LiteEFG graph kwargs, LiteEFG convergence type,
#  our solver kwargs). MMD runs with LiteEFG's update (simultaneous) and the same eta, tau.
TABULAR = {
    "cfr+": ("cfr+", "CFRplus", {}, "linear-avg-iterate", {}),
    "pcfr+": ("pcfr+", "PCFR", {}, "linear-avg-iterate", {}),
    "mmd": (
        "mmd",
        "MMD",
        {"eta": 0.1, "tau": 0.05},
        "last-iterate",
        {"eta": 0.1, "tau": 0.05, "alternating": False},
    ),
}


class Lite:
    """One LiteEFG baseline graph on an OpenSpiel game, in LiteEFG's own training loop."""

    def __init__(self, os_game, module: str, kwargs: dict, convergence: str) -> None:
        import importlib

        import LiteEFG as leg

        graph = importlib.import_module(f"LiteEFG.baselines.{module}").graph
        with contextlib.redirect_stdout(io.StringIO()):
            self.graph = graph(**kwargs)
            self.env = leg.OpenSpielEnv(os_game, traverse_type="Enumerate", regenerate=False)
        self.env.set_graph(self.graph)
        self.convergence = convergence

    def iterate(self, n: int) -> None:
        graph, env = self.graph, self.env
        for _ in range(n):
            graph.update_graph(env)
            env.update_strategy(graph.current_strategy(), update_best=False)

    def exploitability(self) -> float:
        return sum(self.env.exploitability(self.graph.current_strategy(), self.convergence)) / 2


def tabular(iterations: dict[str, int]) -> list[str]:
    import pyspiel

    lines = [
        "| game | method | nashzoo it/s | LiteEFG it/s | ratio | iterations | nashzoo expl. "
        "| LiteEFG expl. |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    detail = []
    for gname, (cls, os_name) in GAMES.items():
        tree = compile_game(cls())
        os_game = pyspiel.load_game(os_name)
        n = iterations[gname]
        for method, (algo, module, lite_kw, conv, ours_kw) in TABULAR.items():

            def ours() -> float:
                solver = make_solver(algo, tree, **ours_kw)
                solver.iterate(0)
                start = time.perf_counter()
                solver.iterate(n)
                return n / (time.perf_counter() - start)

            def lite() -> float:
                solver = Lite(os_game, module, lite_kw, conv)
                start = time.perf_counter()
                solver.iterate(n)
                return n / (time.perf_counter() - start)

            print(f"\n{gname} {method}: {n} iterations, interleaved x3", flush=True)
            rates = interleaved({"nashzoo": ours, "LiteEFG": lite})
            ours_solver = make_solver(algo, tree, **ours_kw).iterate(n)
            lite_solver = Lite(os_game, module, lite_kw, conv)
            lite_solver.iterate(n)
            mine, theirs = median(rates["nashzoo"]), median(rates["LiteEFG"])
            e_ours, e_lite = ours_solver.exploitability(), lite_solver.exploitability()
            lines.append(
                f"| {gname} | {method} | {mine:,.0f} | {theirs:,.0f} | {mine / theirs:.1f}x "
                f"| {n:,} | {e_ours:.3g} | {e_lite:.3g} |"
            )
            detail.append(
                f"{gname} {method}: nashzoo runs {runs_text(rates['nashzoo'])}; LiteEFG runs "
                f"{runs_text(rates['LiteEFG'])}"
            )
            if method == "mmd":
                default = make_solver("mmd", tree).iterate(n)
                detail.append(
                    f"{gname} mmd with our defaults (eta 0.3, tau 0.05, alternating): "
                    f"exploitability {default.exploitability():.3g} after {n:,} iterations"
                )
    return [*lines, "", *[f"- {d}" for d in detail]]


# -- 2. Gemp et al. vs ADIDAS SGD ------------------------------------------------------------
def gemp(iterations: int, tau: float, lr: float) -> list[str]:
    from open_spiel.python.algorithms.adidas_utils.solvers.nonsymmetric import sgd

    from nashzoo.agents.nfg import GempSolver, nash_conv_bimatrix
    from nashzoo.games.matrix import rock_paper_scissors, weighted_rock_paper_scissors
    from nashzoo.tree.normal_form import reduced_normal_form

    games = {
        "rps": rock_paper_scissors(),
        "weighted rps": weighted_rock_paper_scissors(),
        "kuhn reduced normal form (27x64)": reduced_normal_form(compile_game(KuhnPokerGame())),
    }
    lines = [
        f"Both: tau = {tau}, entropic mirror descent, learning rate {lr}, exact payoff "
        f"gradients, {iterations:,} iterations from the uniform point.",
        "",
        "| game | nashzoo it/s | ADIDAS it/s | ratio | nashzoo expl. | ADIDAS expl. "
        "| nashzoo loss | ADIDAS loss |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes: list[str] = []
    for name, game in games.items():
        solver = GempSolver(game, tau=tau, step="mirror", learning_rate=lr)
        a, b = solver.a, solver.b
        matrices = {(0, 1): np.stack([a, b])}

        def run_adidas(n: int):
            s = sgd.Solver(temperature=tau, proj_grad=True, euclidean=False, lrs=(lr,))
            params = s.init_vars(list(a.shape), 2)
            for t in range(n):
                grads, _, _ = s.compute_gradients(params, (matrices, matrices))
                params = s.update(params, grads, t)
            return params[0]

        def ours() -> float:
            s = GempSolver(game, tau=tau, step="mirror", learning_rate=lr)
            s.iterate(0)
            start = time.perf_counter()
            s.iterate(iterations)
            return iterations / (time.perf_counter() - start)

        def adidas() -> float:
            n = max(iterations // 20, 100)
            start = time.perf_counter()
            run_adidas(n)
            return n / (time.perf_counter() - start)

        print(f"\ngemp {name}", flush=True)
        rates = interleaved({"nashzoo": ours, "ADIDAS": adidas})
        mine = GempSolver(game, tau=tau, step="mirror", learning_rate=lr).iterate(iterations)
        x = run_adidas(iterations)
        theirs_expl = nash_conv_bimatrix(a, b, x[0], x[1]) / 2
        from nashzoo.agents.nfg import gemp_loss

        r_ours, r_adidas = median(rates["nashzoo"]), median(rates["ADIDAS"])
        lines.append(
            f"| {name} | {r_ours:,.0f} | {r_adidas:,.0f} | {r_ours / r_adidas:.0f}x "
            f"| {mine.exploitability():.4g} | {theirs_expl:.4g} | {mine.loss():.3g} "
            f"| {gemp_loss(a, b, x[0], x[1], tau):.3g} |"
        )
        soft = GempSolver(game, tau=tau, learning_rate=1.0).iterate(iterations)
        notes.append(
            f"{name}: our default logit steps (learning rate 1.0) reach exploitability "
            f"{soft.exploitability():.4g}, loss {soft.loss():.3g} in {iterations:,} iterations"
        )
    return [*lines, "", *[f"- {n}" for n in notes]]


# -- 3. XFP vs FSP ----------------------------------------------------------------------------
def fictitious(seconds_small: float, seconds_big: float, plot: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from nashzoo.tree.best_response import nash_conv_array

    games = {
        "6-card Leduc": (LeducHoldemGame(), seconds_small, 0),
        "60-card Leduc (30 ranks x 2 suits)": (
            LeducHoldemGame(num_ranks=30, num_suits=2),
            seconds_big,
            20_000_000,
        ),
    }
    if seconds_big <= 0:
        del games["60-card Leduc (30 ranks x 2 suits)"]
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), 4), squeeze=False)
    axes = axes[0]
    lines = [
        "| game | method | iterations | solver seconds | exploitability |",
        "|---|---|---:|---:|---:|",
    ]
    for ax, (name, (game, budget, max_nodes)) in zip(axes, games.items()):
        start = time.perf_counter()
        tree = compile_game(game, max_nodes=max_nodes) if max_nodes else compile_game(game)
        print(
            f"\n{name}: {tree.num_nodes:,} histories, compiled in "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )
        for algo, kwargs in (("xfp", {}), ("fsp", {"seed": 0})):
            solver = make_solver(algo, tree, **kwargs)
            xs, ys = [0.0], [nash_conv_array(tree, tree.uniform_probs()) / 2]
            step = 1
            while solver.seconds < budget:
                solver.iterate(step)
                value = nash_conv_array(tree, solver.average_policy().probs) / 2
                xs.append(solver.seconds)
                ys.append(value)
                print(
                    f"  {algo} {solver.iteration:>6} it {solver.seconds:8.1f} s  {value:.4f}",
                    flush=True,
                )
                step = max(1, int(solver.iteration * 0.5))
                if solver.seconds + solver.seconds / solver.iteration * step > budget * 1.5:
                    step = max(
                        1, int((budget - solver.seconds) * solver.iteration / solver.seconds)
                    )
            ax.plot(xs, ys, marker=".", label=algo.upper())
            lines.append(
                f"| {name} | {algo.upper()} | {solver.iteration:,} | {solver.seconds:.1f} "
                f"| {ys[-1]:.4f} |"
            )
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_yscale("log")
        ax.set_xlabel("solver seconds (evaluation not timed)")
        ax.set_ylabel("exploitability (chips)")
        ax.set_title(name)
        ax.legend()
        del tree
    fig.tight_layout()
    fig.savefig(plot, dpi=110)
    return lines


# -- 4. learners --------------------------------------------------------------------------
def learners(
    minutes_small: float,
    minutes_variants: float,
    minutes_leduc: float,
    plot: Path,
) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import nashzoo
    from nashzoo.agents.nfsp import NFSP
    from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig

    variants = {
        "sg defaults": SimplexGradientConfig(),
        "sg unregularised": SimplexGradientConfig(entropy=0.0),
        "sg magnet (uniform, 0.1)": SimplexGradientConfig(
            entropy=0.0, magnet="uniform", magnet_strength=0.1
        ),
        "sg log-difference": SimplexGradientConfig(reward="log_difference"),
        "sg unprojected": SimplexGradientConfig(projected=False),
        "sg per-seat model pairs": SimplexGradientConfig(seat_models=True),
        "sg TD(0.5) targets": SimplexGradientConfig(td_lambda=0.5),
        "sg linear average": SimplexGradientConfig(average_weighting="linear"),
        "sg direct probabilities": SimplexGradientConfig(parametrisation="direct", policy_lr=0.1),
    }
    lines: list[str] = []
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (env_id, long_minutes) in zip(
        axes,
        (
            ("nashzoo/fighting_cards_small-v0", minutes_small),
            ("nashzoo/leduc_holdem-v0", minutes_leduc),
        ),
    ):
        game = nashzoo.make_game(env_id)
        tree = compile_game(game)
        cfr = make_solver("cfr+", tree)
        xs, ys = [], []
        while cfr.seconds < 5 and cfr.iteration < 5000:
            cfr.iterate(max(1, cfr.iteration // 2))
            xs.append(cfr.seconds)
            ys.append(cfr.exploitability())
        ax.plot(xs, ys, label="CFR+ (reference)", color="black")
        rows = [("CFR+", cfr.iteration, cfr.seconds, ys[-1], None)]
        runs: dict[str, tuple[float, SimplexGradientConfig | None]] = {
            name: (minutes_variants, cfg) for name, cfg in variants.items()
        }
        runs["sg defaults"] = (long_minutes, variants["sg defaults"])
        runs["nfsp"] = (long_minutes, None)
        for name, (minutes, cfg) in runs.items():
            print(f"\n{env_id}: {name} for {minutes} min", flush=True)
            curve_avg: list[tuple[float, float]] = []
            curve_last: list[tuple[float, float]] = []
            every = max(5.0, minutes * 60 / 20)
            if cfg is None:
                learner = NFSP(game)

                def record(m, out=curve_avg) -> None:
                    out.append((m.seconds, m.exploitability()))

                learner.train(seconds=minutes * 60, callback=record, callback_every=every)
                rows.append((name, learner.episodes, learner.seconds, curve_avg[-1][1], None))
            else:
                learner = SimplexGradient(game, cfg)

                def record(m) -> None:
                    curve_avg.append((m.seconds, m.exploitability(average=True)))
                    curve_last.append((m.seconds, m.exploitability(average=False)))

                learner.train(seconds=minutes * 60, callback=record, callback_every=every)
                rows.append(
                    (name, learner.iterations, learner.seconds, curve_avg[-1][1], curve_last[-1][1])
                )
            line = ax.plot(*zip(*curve_avg), label=f"{name} (average)" if cfg else name)[0]
            if curve_last:
                ax.plot(*zip(*curve_last), ls=":", color=line.get_color(), label=f"{name} (last)")
        ax.set_title(f"{env_id}: {tree.num_nodes:,} histories")
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_yscale("log")
        ax.set_xlabel("training seconds (evaluation not timed)")
        ax.set_ylabel("exploitability")
        ax.legend(fontsize=7)
        lines += [
            "",
            f"### {env_id} ({tree.num_nodes:,} histories, {tree.num_infosets:,} information sets)",
            "",
            "| learner | iterations / episodes | seconds | exploitability (average) | (last) |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, its, secs, avg, last in rows:
            lines.append(
                f"| {name} | {its:,} | {secs:.0f} | {avg:.4g} | "
                f"{'-' if last is None else f'{last:.4g}'} |"
            )
    fig.tight_layout()
    fig.savefig(plot, dpi=110)

    return lines


def edge(minutes: float, plot: Path) -> list[str]:
    """How much an equilibrium can win against the scripted heuristic, exactly, on the
    fighting presets that compile, and where two learners' average policies land as they
    train (exact duplicate scores and exploitability, ``minutes`` each, seed 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from nashzoo.agents.nfsp import NFSP
    from nashzoo.agents.scripted import FightingHeuristicAgent
    from nashzoo.agents.simplex_gradient import SimplexGradient
    from nashzoo.eval.matches import head_to_head
    from nashzoo.games.fighting import fighting_cards_small, fighting_cards_tiny
    from nashzoo.tree import TabularPolicy
    from nashzoo.tree.sequence_form import equilibrium_score_range

    def signed(x: float) -> str:
        return f"{round(x, 4) + 0.0:+.4f}"  # no "-0.0000" for an LP's -1e-8

    lines = [
        "Exact duplicate scores against the scripted heuristic (payoff +1 / -1 / 0 per game, "
        "mean of the two seats):",
        "",
        "| preset | histories | every equilibrium scores | a best response | uniform play | "
        "LP seconds |",
        "|---|---:|---|---:|---:|---:|",
    ]
    small = fighting_cards_small()
    for name, game in (("tiny", fighting_cards_tiny()), ("small", small)):
        tree = compile_game(game)
        heuristic = TabularPolicy.from_agent(FightingHeuristicAgent(game), tree)
        start = time.perf_counter()
        found = equilibrium_score_range(tree, heuristic)
        seconds = time.perf_counter() - start
        uniform = head_to_head(tree, TabularPolicy.uniform(tree), heuristic, exact=True).mean
        lines.append(
            f"| {name} | {tree.num_nodes:,} | {signed(found.low)} to {signed(found.high)} | "
            f"{signed(found.best_response_score)} | {signed(uniform)} | {seconds:.1f} |"
        )
        if game is small:
            small_range, tree_small, heuristic_small = found, tree, heuristic
    curves: dict[str, list[tuple[float, float, float]]] = {}
    for name in ("simplex-gradient", "nfsp"):
        learner: Any = SimplexGradient(small) if name == "simplex-gradient" else NFSP(small)
        curve = curves[name] = []

        def record(m: Any) -> None:
            policy = m.tabular_policy() if name == "simplex-gradient" else m.average_policy()
            score = head_to_head(tree_small, policy, heuristic_small, exact=True).mean
            curve.append((m.seconds, score, m.exploitability()))

        print(f"small preset: {name} for {minutes:g} min", flush=True)
        learner.train(seconds=minutes * 60, callback=record, callback_every=minutes * 6)
    lines += [
        "",
        f"The small preset's learners, {minutes:g} minutes each (average policy, exact):",
        "",
        "| learner | seconds | score against the heuristic | exploitability |",
        "|---|---:|---:|---:|",
    ]
    for name, curve in curves.items():
        for k in sorted({len(curve) // 2 - 1, len(curve) - 1}):
            secs, score, expl = curve[k]
            lines.append(f"| {name} | {secs:.0f} | {score:+.4f} | {expl:.4f} |")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.axhspan(small_range.low, small_range.high, color="0.85", label="every equilibrium")
    ax.axhline(small_range.best_response_score, color="black", ls="--", label="a best response")
    for name, curve in curves.items():
        ax.plot([c[0] for c in curve], [c[1] for c in curve], marker=".", label=name)
    ax.set_xlabel("training seconds (evaluation not timed)")
    ax.set_ylabel("exact duplicate score against the heuristic")
    ax.set_title("fighting cards, small preset: what equilibria win against the heuristic")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(plot, dpi=110)
    return lines


PROFILE_PARTS = {
    # the part of one iteration each function's cumulative time belongs to (outermost
    # first: a part's time excludes the parts listed after it that it calls)
    "self-play: forward passes of g": ("selfplay.py", "_policy_numpy"),
    "learning f (value steps)": ("selfplay.py", "_learn_value"),
    "scoring decisions and successors with f (forward)": ("selfplay.py", "action_scores"),
    "learning g (policy steps, scoring excluded)": ("selfplay.py", "_learn_policy"),
    "learning the average network": ("selfplay.py", "_learn_average"),
    "storing f's targets": ("selfplay.py", "_store_values"),
}


def goal_seeds(game_id: str, minutes: float, seeds: list[int], sg_config: Any) -> list[str]:
    """Issue 34's goals where exploitability is exact (Leduc, the small fighting preset),
    over seeds: simplex-gradient with its defaults, with ``--sg-config`` and NFSP, each
    ``minutes`` of training per seed (alternating within each seed, each seeded by it),
    exact exploitability of the average policy at half and all of the budget; the medians
    over seeds."""
    import nashzoo
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig

    game = nashzoo.make_game(game_id)
    marks = [minutes * 30, minutes * 60]
    defaults = SimplexGradientConfig().to_dict()
    changed = {k: v for k, v in sg_config.to_dict().items() if v != defaults[k]}
    contenders = {"sg defaults": SimplexGradientConfig()}
    if changed:
        contenders[f"sg {json.dumps(changed)}"] = sg_config
    contenders["nfsp"] = None
    found: dict[str, list[list[float]]] = {name: [] for name in contenders}
    work: dict[str, list[int]] = {name: [] for name in contenders}
    for seed in seeds:
        for name, cfg in contenders.items():
            learner: Any = (
                NFSP(game, NFSPConfig(seed=seed))
                if cfg is None
                else SimplexGradient(game, dataclasses.replace(cfg, seed=seed))
            )
            row = []
            for mark in marks:
                learner.train(seconds=mark - learner.seconds)
                row.append(learner.exploitability())
            found[name].append(row)
            work[name].append(learner.steps)
            print(f"  seed {seed} {name}: {learner.steps:,} {learner.step_unit} in "
                  f"{learner.seconds:.0f} s, exploitability {runs_text(row, '.4f')}",
                  flush=True)  # fmt: skip
    half, full = (f"{m / 60:g} min" for m in marks)
    lines = [
        f"{game_id}, {minutes:g} minutes per learner and seed, seeds "
        f"{runs_text(seeds, 'd')}: exact exploitability of the average policy",
        "",
        f"| learner | {half}: each seed | median | {full}: each seed | median | steps (median) |",
        "|---|---|---:|---|---:|---:|",
    ]
    for name, rows in found.items():
        a, b = ([r[k] for r in rows] for k in range(2))
        lines.append(
            f"| {name} | {runs_text(a, '.4f')} | {median(a):.4f} | {runs_text(b, '.4f')} | "
            f"**{median(b):.4f}** | {median(work[name]):,.0f} |"
        )
    return lines


def profile(iterations: int) -> list[str]:
    """Where one simplex-gradient iteration's time goes on the default fighting preset
    (cProfile over ``iterations`` iterations after one warm-up)."""
    import cProfile
    import pstats

    import nashzoo
    from nashzoo.agents.simplex_gradient import SimplexGradient

    sg = SimplexGradient(nashzoo.make_game("fighting_cards"))
    sg.iterate()  # imports, numba and first calls off the clock
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for _ in range(iterations):
        sg.iterate()
    profiler.disable()
    wall = time.perf_counter() - start
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]

    def cumulative(file: str, name: str) -> float:
        return sum(v[3] for (f, _, n), v in stats.items() if f.endswith(file) and n == name)

    parts = {label: cumulative(*where) for label, where in PROFILE_PARTS.items()}
    play = cumulative("experience.py", "play")
    scoring = parts["scoring decisions and successors with f (forward)"]
    rows = {
        "self-play: the rules, views and successors (numba) and bookkeeping": play
        - parts["self-play: forward passes of g"],
        **parts,
        "learning g (policy steps, scoring excluded)": parts[
            "learning g (policy steps, scoring excluded)"
        ]
        - scoring,
    }
    games = sg.config.batch_games * iterations
    lines = [
        f"{iterations} iterations of {sg.config.batch_games} games on the default preset: "
        f"{wall:.1f} s under the profiler ({wall / iterations:.3f} s per iteration, "
        f"{games / wall:,.0f} games/s)",
        "",
        "| part of an iteration | seconds | share |",
        "|---|---:|---:|",
    ]
    for label, seconds in rows.items():
        lines.append(f"| {label} | {seconds:.2f} | {seconds / wall:.0%} |")
    rest = wall - sum(rows.values())
    lines.append(f"| the rest (iteration loop, numpy) | {rest:.2f} | {rest / wall:.0%} |")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--section",
        action="append",
        choices=[
            "tabular",
            "gemp",
            "fp",
            "learners",
            "leduc-seeds",
            "small-seeds",
            "profile",
            "edge",
            "throughput",
            "default",
            "holdem",
        ],
    )
    p.add_argument("--profile-iterations", type=int, default=20)
    p.add_argument("--kuhn-iterations", type=int, default=20_000)
    p.add_argument("--leduc-iterations", type=int, default=1_000)
    p.add_argument("--gemp-iterations", type=int, default=20_000)
    p.add_argument("--fp-seconds", type=float, default=60.0, help="per method, 6-card Leduc")
    p.add_argument("--fp-big-seconds", type=float, default=300.0, help="per method, 60-card")
    p.add_argument(
        "--minutes",
        type=float,
        default=10.0,
        help="learners, small-seeds: minutes per learner on the small preset",
    )
    p.add_argument("--variant-minutes", type=float, default=2.0)
    p.add_argument("--leduc-minutes", type=float, default=3.0)
    p.add_argument("--edge-minutes", type=float, default=5.0, help="edge: per learner")
    p.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        help="leduc-seeds, small-seeds: the seeds",
    )
    p.add_argument("--deals", type=int, default=2000, help="per match of default, holdem")
    p.add_argument("--before", help="throughput: a checkout of the code to compare with")
    p.add_argument("--large-minutes", type=float, default=30.0, help="default: per learner")
    p.add_argument("--holdem-minutes", type=float, default=60.0)
    p.add_argument(
        "--lbr-hands", type=lbr_hands_arg, default=200, help="holdem: LBR hands per agent"
    )
    p.add_argument("--save", type=Path, help="default, holdem: save the trained learners here")
    p.add_argument(
        "--sg-config",
        type=json.loads,
        default={},
        metavar="JSON",
        help="default, holdem, leduc-seeds, small-seeds: simplex-gradient settings other than the "
        "defaults, e.g. "
        "'{\"entropy\": 0.005}'",
    )
    args = p.parse_args()
    from nashzoo.agents.simplex_gradient import SimplexGradientConfig
    from nashzoo.errors import InvalidParameterError

    try:
        sg_config = SimplexGradientConfig.from_dict(args.sg_config)
    except InvalidParameterError as e:
        p.error(f"--sg-config: {e}")
    one_thread()
    sections = args.section or ["tabular", "gemp", "fp", "learners", "profile"]
    large = {"throughput", "default", "holdem"} & set(sections)
    if "throughput" in sections and not args.before:
        p.error("--section throughput needs --before DIR (a checkout to compare with)")
    if args.save is not None:
        # made (or refused) now, not after an hour of training: a 60-minute run once lost
        # its learner to a --save folder that did not exist
        try:
            args.save.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            p.error(f"--save {args.save}: cannot make the folder ({e})")
    print(machine_line())
    out: list[str] = []

    def report(lines: list[str]) -> None:
        """Print a finished section at once (a later section may run for an hour)."""
        print("\n".join(lines), flush=True)
        out.extend(lines)

    if "tabular" in sections:
        if have("LiteEFG") and have("pyspiel"):
            report(
                [
                    "",
                    "## Tabular first-order methods vs LiteEFG",
                    "",
                    *tabular({"kuhn": args.kuhn_iterations, "leduc": args.leduc_iterations}),
                ]
            )
        else:
            print("LiteEFG or open_spiel missing: tabular section skipped")
    if "gemp" in sections:
        if have("open_spiel"):
            report(
                [
                    "",
                    "## Gemp et al. vs OpenSpiel ADIDAS SGD",
                    "",
                    *gemp(args.gemp_iterations, tau=0.05, lr=0.1),
                ]
            )
        else:
            print("open_spiel missing: Gemp section skipped")
    if "fp" in sections:
        report(
            [
                "",
                "## XFP vs FSP",
                "",
                *fictitious(args.fp_seconds, args.fp_big_seconds, HERE / "xfp_vs_fsp.png"),
            ]
        )
    if "learners" in sections:
        report(
            [
                "",
                "## Simplex-gradient, NFSP and CFR+",
                "",
                *learners(
                    args.minutes,
                    args.variant_minutes,
                    args.leduc_minutes,
                    HERE / "simplex_gradient.png",
                ),
            ]
        )
    if "leduc-seeds" in sections:
        report(
            [
                "",
                "## Simplex-gradient and NFSP on Leduc over seeds (issue 34)",
                "",
                *goal_seeds("leduc_holdem", args.leduc_minutes, args.seeds, sg_config),
            ]
        )
    if "small-seeds" in sections:
        report(
            [
                "",
                "## Simplex-gradient and NFSP on the small fighting preset over seeds (issue 34)",
                "",
                *goal_seeds("fighting_cards_small", args.minutes, args.seeds, sg_config),
            ]
        )
    if "profile" in sections:
        report(
            [
                "",
                "## Where a simplex-gradient iteration's time goes (issue 34)",
                "",
                *profile(args.profile_iterations),
            ]
        )
    if "edge" in sections:
        report(
            [
                "",
                "## What equilibria win against the fighting game's heuristic (issues 33, 34)",
                "",
                *edge(args.edge_minutes, HERE / "fighting_equilibrium_edge.png"),
            ]
        )
    if large:
        from benchmarks import simplex_gradient_large as big

    if "throughput" in sections:
        report(
            [
                "",
                "## Simplex-gradient throughput on the default fighting preset (issue 34)",
                "",
                *big.throughput(args.before),
            ]
        )
    if "default" in sections:
        report(
            [
                "",
                f"## Simplex-gradient and NFSP on the default fighting preset, "
                f"{args.large_minutes:g} minutes each (issue 34)",
                "",
                *big.default_preset(
                    args.large_minutes,
                    args.deals,
                    HERE / "simplex_gradient_default.png",
                    args.save,
                    sg_config,
                ),
            ]
        )
    if "holdem" in sections:
        report(
            [
                "",
                f"## Simplex-gradient on Limit Hold'em, {args.holdem_minutes:g} minutes (issue 34)",
                "",
                *big.holdem(
                    args.holdem_minutes,
                    args.deals,
                    args.lbr_hands,
                    HERE / "simplex_gradient_holdem.png",
                    args.save,
                    sg_config,
                ),
            ]
        )
    print("\n" + machine_line())
    print("\n".join(out))


if __name__ == "__main__":
    main()
