"""Training past one core (issue 91), six sections.

``solver``: the card-abstraction ES-MCCFR solver's iterations per second on 1 and on 2
sampling threads (the threads share the regret and average tables, lock-free). Goal: at
least 1.8x at 2 threads.

``actors``: NFSP's self-play episodes per second on the actor/learner runtime
(:mod:`nashzoo.agents.runtime`): in this process as before (no actors), one local actor,
one and two Ray actors, and two Ray actors on a two-node cluster simulated on this host
(``ray.cluster_utils.Cluster``, one CPU a node). Goals: at least 1.8x at 2 actors
against 1, and at most 10% overhead at 1 actor against the in-process path. The rate is
taken inside one training run, after ``--warmup-seconds`` (actor start-up and numba's
first compile outside the clock).

``traversals``: Deep CFR's compiled-tree traversals (and ESCHER's regret episodes) per
second in this process and on one and two Ray actors, with many traversals an iteration
and one fitting step, so that the traversals are the work. Goal: at least 1.8x at 2
actors against 1.

``games``: simplex-gradient's and Nash-ISMCTS's self-play games per second in this
process and on one and two Ray actors (each iteration's or generation's games split among
them); Nash-ISMCTS on ``--game`` (its compiled fast path) and over the rules of Limit
Hold'em. Same goals.

``oracles``: Nash memory's learned best responses (MaskablePPO) per second with two
candidates an iteration, in this process and on one and two Ray actors (candidate j on
actor j mod N, the meta-game's entries split the same way). Same goals.

``curves``: NFSP and Deep CFR (``--curve-learners``) on Leduc with 1 and with 2
lockstep actors, exact exploitability at equal experience (NFSP's episodes, Deep CFR's
iterations of 375 traversals a player), over ``--seeds`` seeds: the two curves should
agree within the spread of the seeds.

Every measurement runs in a fresh interpreter; the contenders are interleaved and each
figure is the median of ``--repeats``.

Usage: ``python benchmarks/training_scale.py
[--sections solver,actors,traversals,games,oracles,curves] [--abstraction ehs2:169,50,50,50]
[--iterations 100000] [--game leduc_holdem]
[--seconds 20] [--repeats 3] [--games-learners simplex-gradient,nash-ismcts,nash-ismcts-holdem]
[--oracle-steps 4096]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, median, runs_text

ONE_RUN = """
import json, sys, time
import nashzoo
from nashzoo.agents.cfr.abstract import AbstractionSolver
abstraction = sys.argv[1]
threads, warmup, iterations = (int(x) for x in sys.argv[2:5])
game = nashzoo.make_game("limit_holdem")
solver = AbstractionSolver(game, abstraction, seed=0, progress=False, threads=threads)
solver.iterate(warmup)
start = time.perf_counter()
solver.iterate(iterations)
print(json.dumps({"per_second": iterations / (time.perf_counter() - start)}))
"""


def one(abstraction: str, threads: int, warmup: int, iterations: int) -> float:
    """Iterations per second of one solver run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", ONE_RUN, abstraction, str(threads), str(warmup), str(iterations)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["per_second"])


RATE = """
marks = []
def mark(learner):
    marks.append((learner.seconds, count(learner)))
learner.train(seconds=warmup + seconds, callback=mark, callback_every=0.25)
start = next((m for m in marks if m[0] >= warmup), marks[-1])
end = marks[-1]
if end[0] <= start[0]:
    raise SystemExit("no training time measured after the warm-up: raise --seconds")
print(json.dumps({"per_second": (end[1] - start[1]) / (end[0] - start[0])}))
"""
"""The tail of a rate measurement: ``count(learner)`` after ``warmup`` seconds of training
and at the end, per second of training between them."""

ONE_LEARNER = (
    """
import json, sys, time
import torch
torch.set_num_threads(1)
import nashzoo
kind, mode, game_name = sys.argv[1:4]
warmup, seconds = float(sys.argv[4]), float(sys.argv[5])
extra = json.loads(sys.argv[6])
settings = {
    "in-process": {},
    "local, 1 actor": {"actors": 1},
    "ray, 1 actor": {"actors": 1, "backend": "ray"},
    "ray, 2 actors": {"actors": 2, "backend": "ray"},
    "ray cluster of 2 nodes, 2 actors": {"actors": 2, "backend": "ray"},
}[mode]
if mode.startswith("ray cluster"):
    import ray
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
game = nashzoo.make_game(game_name)
if kind == "nfsp":
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    learner = NFSP(game, NFSPConfig(**settings, **extra))
elif kind == "deep-cfr":
    from nashzoo.agents.neural_cfr import DeepCFR, DeepCFRConfig
    learner = DeepCFR(game, DeepCFRConfig(**settings, **extra))
elif kind == "escher":
    from nashzoo.agents.neural_cfr import ESCHER, ESCHERConfig
    learner = ESCHER(game, ESCHERConfig(**settings, **extra))
elif kind == "nash-memory":
    from nashzoo.agents.nash_memory import NashMemoryConfig, NashMemoryLearner
    learner = NashMemoryLearner(game, NashMemoryConfig(**settings, **extra))
elif kind == "nash-ismcts":
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
    learner = NashISMCTS(game, TrainConfig(**settings, **extra))
else:
    from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig
    learner = SimplexGradient(game, SimplexGradientConfig(**settings, **extra))
unit = "traversals" if kind in ("deep-cfr", "escher") else "episodes"
count = lambda learner: getattr(learner, unit)
if kind == "nash-ismcts":
    count = lambda learner: learner.history[-1].games if learner.history else 0
if kind == "nash-memory":  # best responses trained
    count = lambda learner: learner.steps * learner.config.candidates
"""
    + RATE
    + """
if mode.startswith("ray cluster"):
    ray.shutdown()
    cluster.shutdown()
"""
)
"""One learner's experience per second in one mode: episodes (NFSP, simplex-gradient's
games) or tree episodes (Deep CFR's traversals, ESCHER's regret episodes)."""

ONE_CURVE = """
import json, sys
import torch
torch.set_num_threads(1)
import nashzoo
kind = sys.argv[1]
actors, seed, step, points = (int(x) for x in sys.argv[2:6])
game = nashzoo.make_game("leduc_holdem")
if kind == "nfsp":
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    config = NFSPConfig(actors=actors, deterministic=True, seed=seed, min_buffer_to_learn=256)
    learner, count = NFSP(game, config), lambda learner: learner.episodes
else:
    from nashzoo.agents.neural_cfr import DeepCFR, DeepCFRConfig
    learner = DeepCFR(game, DeepCFRConfig(actors=actors, seed=seed))
    count = lambda learner: learner.iterations
curve = []
for k in range(1, points + 1):
    learner.train(steps=k * step - count(learner))
    curve.append((count(learner), learner.exploitability()))
print(json.dumps(curve))
"""
"""One learning curve: exact exploitability every ``step`` episodes (NFSP) or
iterations (Deep CFR: the same traversals an iteration with 1 or 2 actors)."""


def fresh(script: str, *args: object) -> str:
    """The last line a script prints, run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return out.stdout.strip().splitlines()[-1]


def solver_section(args: argparse.Namespace) -> None:
    print(f"solver: ES-MCCFR on Limit Hold'em, {args.abstraction}, {args.iterations:,} iterations")
    runs: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(args.repeats):  # interleaved
        for threads in runs:
            runs[threads].append(one(args.abstraction, threads, args.warmup, args.iterations))
    for threads, values in runs.items():
        print(
            f"  {threads} thread(s): {median(values):,.0f} iterations/s  (runs {runs_text(values)})"
        )
    print(f"  speed-up at 2 threads: {median(runs[2]) / median(runs[1]):.2f}x (goal 1.8x)")


def rates(args: argparse.Namespace, kind: str, modes: list[str], unit: str, extra: dict) -> dict:
    """``kind``'s rate in each mode, interleaved, ``--repeats`` each; prints the table and
    returns the medians."""
    runs: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(args.repeats):  # interleaved
        for mode in modes:
            line = fresh(
                ONE_LEARNER,
                kind,
                mode,
                args.game,
                args.warmup_seconds,
                args.seconds,
                json.dumps(extra),
            )
            runs[mode].append(float(json.loads(line)["per_second"]))
    fmt = ",.0f" if min(min(v) for v in runs.values()) >= 100 else ",.3f"  # slow ones too
    for mode, values in runs.items():
        print(
            f"  {mode:34s} {format(median(values), fmt):>10s} {unit}/s  "
            f"(runs {runs_text(values, fmt)})"
        )
    rate = {mode: median(values) for mode, values in runs.items()}
    one_actor = rate["ray, 1 actor"]
    print(
        f"  1 Ray actor against in-process: {one_actor / rate['in-process']:.2f}x "
        "(goal: at least 0.90x)"
    )
    print(f"  2 Ray actors against 1: {rate['ray, 2 actors'] / one_actor:.2f}x (goal 1.8x)")
    return rate


def actors_section(args: argparse.Namespace) -> None:
    modes = [
        "in-process",
        "local, 1 actor",
        "ray, 1 actor",
        "ray, 2 actors",
        "ray cluster of 2 nodes, 2 actors",
    ]
    print(
        f"actors: NFSP self-play on {args.game}, default config, episodes/s over "
        f"{args.seconds:g} s after {args.warmup_seconds:g} s of warm-up"
    )
    rate = rates(args, "nfsp", modes, "episodes", {})
    two_nodes = rate["ray cluster of 2 nodes, 2 actors"]
    print(
        "  2 actors on a simulated 2-node cluster against 1 actor: "
        f"{two_nodes / rate['ray, 1 actor']:.2f}x"
    )


def traversals_section(args: argparse.Namespace) -> None:
    modes = ["in-process", "ray, 1 actor", "ray, 2 actors"]
    n = args.traversals
    for kind, extra, unit in (
        ("deep-cfr", {"traversals": n, "regret_steps": 1, "policy_steps": 1}, "traversals"),
        (
            "escher",
            {"regret_traversals": n, "value_traversals": n, "regret_steps": 1, "value_steps": 1}
            | {"policy_steps": 1},
            "regret episodes",
        ),
    ):
        print(
            f"traversals: {kind}'s tree episodes on {args.game}, {n:,} a player an iteration "
            f"(one fitting step each), {unit}/s over {args.seconds:g} s after "
            f"{args.warmup_seconds:g} s of warm-up"
        )
        rates(args, kind, modes, unit, extra)


GAMES = {
    "simplex-gradient": ("simplex-gradient", None, "default config (64 games an iteration)", {}),
    "nash-ismcts": (
        "nash-ismcts",
        None,
        "default config (128 games a generation), the search measured only at the end "
        "(each generation still measures P exactly)",
        {"search_every": 1_000_000},
    ),
    "nash-ismcts-holdem": (
        "nash-ismcts",
        "limit_holdem",
        "over the rules, default config (32 games a generation, 100 simulations a move)",
        {},
    ),
}
"""The ``games`` section's runs: the learner, the game (``None``: ``--game``), what the
run is, and the settings that say it."""


def games_section(args: argparse.Namespace) -> None:
    modes = ["in-process", "ray, 1 actor", "ray, 2 actors"]
    for label in args.games_learners.split(","):
        kind, game, what, extra = GAMES[label]
        run = argparse.Namespace(**{**vars(args), "game": game or args.game})
        print(
            f"games: {kind} self-play on {run.game}, {what}, games/s over {args.seconds:g} s "
            f"after {args.warmup_seconds:g} s of warm-up"
        )
        rates(run, kind, modes, "games", extra)


def oracles_section(args: argparse.Namespace) -> None:
    modes = ["in-process", "ray, 1 actor", "ray, 2 actors"]
    extra = {
        "oracle": "learned",
        "candidates": 2,
        "oracle_steps": args.oracle_steps,
        "oracle_envs": 8,
        "meta_deals": 200,
    }
    print(
        f"oracles: Nash memory's learned best responses on {args.game}, two candidates an "
        f"iteration, MaskablePPO for {args.oracle_steps:,} steps each, 200 duplicate deals "
        f"an entry; best responses/s over {args.seconds:g} s after {args.warmup_seconds:g} "
        "s of warm-up (matches, the meta-game and the exact exploitability included)"
    )
    rates(args, "nash-memory", modes, "best responses", extra)


CURVE_STEPS = {"nfsp": (20_000, "episodes"), "deep-cfr": (40, "iterations")}
"""Each learner's curve: a point every so many units, five points."""


def curves_section(args: argparse.Namespace) -> None:
    points = 5
    for kind in args.curve_learners.split(","):
        step, unit = CURVE_STEPS[kind]
        print(
            f"curves: {kind} on Leduc, lockstep actors, exact exploitability every {step:,} "
            f"{unit}, seeds {list(range(args.seeds))}"
        )
        table: dict[int, list[list[float]]] = {1: [], 2: []}
        for seed in range(args.seeds):
            for actors in table:
                curve = json.loads(fresh(ONE_CURVE, kind, actors, seed, step, points))
                table[actors].append([e for _, e in curve])
        for actors, curves in table.items():
            values = np.array(curves)
            cells = ", ".join(
                f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
                for m, lo, hi in zip(values.mean(0), values.min(0), values.max(0))
            )
            print(f"  {actors} actor(s): mean [min, max] over seeds: {cells}")
        gap = np.abs(np.mean(table[1], 0) - np.mean(table[2], 0))
        spread = np.maximum(np.ptp(table[1], 0), np.ptp(table[2], 0))
        print(
            "  |mean(1) - mean(2)| at each point: "
            + ", ".join(f"{g:.3f}" for g in gap)
            + "; the seeds' largest spread: "
            + ", ".join(f"{s:.3f}" for s in spread)
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", default="solver,actors,traversals,games,oracles,curves")
    parser.add_argument("--abstraction", default="ehs2:169,50,50,50")
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--game", default="leduc_holdem")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup-seconds", type=float, default=15.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--curve-learners", default="nfsp,deep-cfr")
    parser.add_argument(
        "--games-learners", default="simplex-gradient,nash-ismcts,nash-ismcts-holdem"
    )
    parser.add_argument("--traversals", type=int, default=20_000)
    parser.add_argument("--oracle-steps", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_line())
    sections = {
        "solver": solver_section,
        "actors": actors_section,
        "traversals": traversals_section,
        "games": games_section,
        "oracles": oracles_section,
        "curves": curves_section,
    }
    for name in args.sections.split(","):
        sections[name](args)


if __name__ == "__main__":
    main()
