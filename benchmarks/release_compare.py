"""Speed of this checkout against an earlier release: env stepping, tournament blocks,
exact exploitability and NFSP self-play, alternating the two in separate processes,
median of ``--repeats``.

Usage::

    git archive b2a0784 | tar -x -C /tmp/before      # the release to compare with
    python benchmarks/release_compare.py /tmp/before [env tournament exploitability nfsp]

Each measurement runs in a fresh interpreter whose ``PYTHONPATH`` selects the code (the
same venv serves both). Goal (issues 10 and 11): env stepping and tournaments within 10%
of the previous release, the others unchanged. ``simplex-gradient`` (issue 34): exchanges
learned from per second on the fighting game's default preset, each version with its own
default settings (an exchange is two decisions whose successors are scored by f and
enter g's update). ``holdem-*`` (issue 88, one poker engine): Limit Hold'em's AEC env,
batched env, rules in Python and simplex-gradient's bulk decisions; goal within 3% of
before, or better.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

MEASURES = (
    "env",
    "tournament",
    "exploitability",
    "nfsp",
    "simplex-gradient",
    "holdem-env",
    "holdem-vector",
    "holdem-rules",
    "holdem-decisions",
)


def measure(what: str) -> dict[str, float]:
    """One measurement of whichever nashzoo is importable."""
    import nashzoo

    out: dict[str, float] = {}
    if what == "env":
        env = nashzoo.make("nashzoo/leduc_holdem-v0")
        from env_throughput import random_play  # the user loop of the env benchmark

        random_play(env, games=2000, seed=1)
        decisions, _, seconds = random_play(env, games=30000)
        out = {"decisions_per_s": decisions / seconds, "episodes_per_s": 30000 / seconds}
    elif what == "tournament":
        from nashzoo.eval.tournament import TournamentConfig, run_block

        try:  # 0.2 takes agent factories, 0.1 took spec strings
            from nashzoo.agents import AgentSpec

            agents: tuple = (("a", AgentSpec("random")), ("b", AgentSpec("random")))
        except ImportError:
            agents = (("a", "random"), ("b", "random"))
        cfg = TournamentConfig(
            game="nashzoo/leduc_holdem-v0", agents=agents, deals=50000, block_size=50000
        )
        run_block(cfg, 0, 1, 0, 200)
        start = time.perf_counter()
        run_block(cfg, 0, 1, 0, 50000)
        out = {"games_per_s": 100000 / (time.perf_counter() - start)}
    elif what == "exploitability":
        from nashzoo.agents.cfr import make_solver
        from nashzoo.eval import exploitability
        from nashzoo.eval.exploitability import nash_conv_array
        from nashzoo.tree import compile_game

        tree = compile_game(nashzoo.make_game("leduc_holdem"))
        policy = make_solver("cfr+", tree).iterate(50).average_policy()
        exploitability(policy)
        nash_conv_array(tree, policy.probs)
        for key, fn in (
            ("full_ms", lambda: exploitability(policy)),
            ("value_ms", lambda: nash_conv_array(tree, policy.probs)),
        ):
            start = time.perf_counter()
            for _ in range(2000):
                fn()
            out[key] = 1000 * (time.perf_counter() - start) / 2000
    elif what == "nfsp":
        import torch

        torch.set_num_threads(1)
        from nashzoo.agents.nfsp import NFSP

        nfsp = NFSP(nashzoo.make_game("leduc_holdem")).train(seconds=2)
        episodes, seconds = nfsp.episodes, nfsp.seconds
        nfsp.train(seconds=20)
        out = {"episodes_per_s": (nfsp.episodes - episodes) / (nfsp.seconds - seconds)}
    elif what == "simplex-gradient":
        # self-play on the fighting game's default preset with each version's defaults:
        # the decisions (two per exchange) whose successors were scored and entered g's
        # update, per second of training
        import torch

        torch.set_num_threads(1)
        from nashzoo.agents.simplex_gradient import SimplexGradient

        sg = SimplexGradient(nashzoo.make_game("fighting_cards"))
        count = [0]
        learn = sg._learn_policy

        def counting(batch):  # type: ignore[no-untyped-def]
            count[0] += len(batch.player)
            return learn(batch)

        sg._learn_policy = counting  # type: ignore[method-assign]
        sg.train(seconds=5)
        games, seconds, decisions = sg.episodes, sg.seconds, count[0]
        sg.train(seconds=30)
        spent = sg.seconds - seconds
        out = {
            "exchanges_per_s": (count[0] - decisions) / 2 / spent,
            "games_per_s": (sg.episodes - games) / spent,
        }
    elif what == "holdem-env":  # the AEC env nashzoo.make gives (compiled rules)
        from env_throughput import random_play

        env = nashzoo.make("nashzoo/limit_holdem-v0")
        random_play(env, games=2000, seed=1)
        decisions, _, seconds = random_play(env, games=30000)
        out = {"decisions_per_s": decisions / seconds, "episodes_per_s": 30000 / seconds}
    elif what == "holdem-vector":  # the batched env, 4,096 games
        from env_throughput import vector_play

        decisions, games, seconds = vector_play("nashzoo/limit_holdem-v0", 4096, 200)
        out = {"decisions_per_s": decisions / seconds, "episodes_per_s": games / seconds}
    elif what == "holdem-rules":  # the rules in Python (search, LBR, GameEnv use them)
        import numpy as np

        from nashzoo.games.poker import limit_holdem

        game = limit_holdem()
        rng = np.random.default_rng(0)
        start, decisions, hands = time.perf_counter(), 0, 0
        while time.perf_counter() - start < 10:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.advance_chance(rng.random)
                    continue
                state.information_state_string(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                decisions += 1
            state.returns()
            hands += 1
        seconds = time.perf_counter() - start
        out = {"decisions_per_s": decisions / seconds, "hands_per_s": hands / seconds}
    elif what == "holdem-decisions":  # simplex-gradient's bulk play with every child
        import numpy as np

        from nashzoo.agents.simplex_gradient import experience
        from nashzoo.games.poker import limit_holdem

        game = limit_holdem()

        def uniform(obs, mask, players):  # type: ignore[no-untyped-def]
            return mask / mask.sum(axis=1, keepdims=True)

        rng = np.random.default_rng(0)
        experience.play(game, 256, uniform, rng)
        start, rows = time.perf_counter(), 0
        for _ in range(20):
            rows += len(experience.play(game, 1024, uniform, rng).player)
        out = {"decisions_per_s": rows / (time.perf_counter() - start)}
    return out


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":  # worker mode (see below)
        print(json.dumps(measure(sys.argv[2])))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="folder holding the earlier release's nashzoo/")
    parser.add_argument("measures", nargs="*", help=f"any of {', '.join(MEASURES)} (default: all)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    unknown = sorted(set(args.measures) - set(MEASURES))
    if unknown:
        parser.error(f"unknown measures {unknown}; choose from {list(MEASURES)}")
    args.measures = args.measures or list(MEASURES)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import machine_line

    trees = {
        "before": str(Path(args.before).resolve()),
        "after": str(Path(__file__).resolve().parents[1]),
    }
    print(machine_line())
    results: dict[tuple[str, str, str], list[float]] = {}
    for what in args.measures:
        for r in range(args.repeats):
            for label, root in trees.items():
                env = {**os.environ, "PYTHONPATH": root, "OMP_NUM_THREADS": "1"}
                text = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--measure", what],
                    env=env,
                    cwd="/",
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
                data = json.loads(text.strip().splitlines()[-1])
                for key, value in data.items():
                    results.setdefault((what, key, label), []).append(value)
                print(f"  {what} repeat {r + 1} {label}: {data}", flush=True)
    print(
        "\n| measure | before (median) | after (median) | after / before | runs before |"
        " runs after |"
    )
    print("|---|---:|---:|---:|---|---|")
    for what, key in sorted({(w, k) for w, k, _ in results}):
        before, after = results[what, key, "before"], results[what, key, "after"]
        b, a = statistics.median(before), statistics.median(after)
        print(
            f"| {what} {key} | {b:,.3f} | {a:,.3f} | {a / b:.3f} | "
            f"{', '.join(f'{x:,.3f}' for x in before)} | "
            f"{', '.join(f'{x:,.3f}' for x in after)} |"
        )


if __name__ == "__main__":
    main()
