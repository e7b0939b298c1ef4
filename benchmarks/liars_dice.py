"""Liar's Dice against OpenSpiel's (issue 93), in one run, interleaved, median of
``--repeats``:

* ``env``: random legal play, decisions per second: ``nashzoo/liars_dice-v0`` through the
  full wrapped AEC loop (``agent_iter`` / ``last`` / ``step``) against OpenSpiel's C++
  ``liars_dice`` in the same loop through Shimmy's PettingZoo wrapper (the goal's peer:
  at least 5x), and, for reference, its ``rl_environment`` and its raw ``pyspiel``
  states (no env API: the fastest way to step it from Python).
* ``cfr``: CFR+ iterations per second on one die of six faces against OpenSpiel's C++
  ``CFRPlusSolver``, and both exact exploitabilities after the same iterations (they
  must agree). Goal: at least 30x.

Usage: ``python benchmarks/liars_dice.py [--sections env,cfr] [--episodes 20000]
[--iterations 30] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, runs_text
from env_throughput import random_play

import nashzoo


def openspiel_env_play(games: int, seed: int = 0) -> tuple[int, float]:
    """OpenSpiel's ``rl_environment`` on ``liars_dice``: (decisions, seconds)."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(
        "liars_dice", chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed)
    )
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for _ in range(games):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            legal = step.observations["legal_actions"][player]
            step = env.step([legal[int(rng.random() * len(legal))]])
            done += 1
    return done, time.perf_counter() - start


def shimmy_play(games: int, seed: int = 0) -> tuple[int, float]:
    """OpenSpiel's ``liars_dice`` as a PettingZoo AEC env through Shimmy's
    ``OpenSpielCompatibilityV0``, the same user loop: (decisions, seconds)."""
    import pyspiel
    from shimmy import OpenSpielCompatibilityV0

    env = OpenSpielCompatibilityV0(pyspiel.load_game("liars_dice"))
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(info["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            done += 1
    return done, time.perf_counter() - start


def openspiel_states_play(games: int, seed: int = 0) -> tuple[int, float]:
    """Raw ``pyspiel`` states, chance sampled by hand: (decisions, seconds)."""
    import pyspiel

    game = pyspiel.load_game("liars_dice")
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.random() * 6))
                continue
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            done += 1
    return done, time.perf_counter() - start


def env_section(episodes: int, repeats: int) -> None:
    env = nashzoo.make("nashzoo/liars_dice-v0")
    random_play(env, games=500, seed=1)  # warm-up

    def ours() -> float:
        decisions, _, seconds = random_play(env, games=episodes)
        return decisions / seconds

    def rl_env() -> float:
        decisions, seconds = openspiel_env_play(episodes)
        return decisions / seconds

    def states() -> float:
        decisions, seconds = openspiel_states_play(episodes)
        return decisions / seconds

    def shimmy() -> float:
        decisions, seconds = shimmy_play(episodes // 4)
        return decisions / seconds

    runs = interleaved(
        {
            "nashzoo/liars_dice-v0 (AEC)": ours,
            "OpenSpiel through Shimmy (PettingZoo AEC)": shimmy,
            "OpenSpiel rl_environment liars_dice": rl_env,
            "OpenSpiel pyspiel states": states,
        },
        repeats,
    )
    base = median(runs["nashzoo/liars_dice-v0 (AEC)"])
    print(f"\nenv: random play, {episodes:,} episodes, decisions/s (median of {repeats})")
    for name, values in runs.items():
        ratio = (
            ""
            if values is runs["nashzoo/liars_dice-v0 (AEC)"]
            else f"  ours {base / median(values):.2f}x"
        )
        print(f"  {name:40s} {median(values):>12,.0f}  (runs {runs_text(values)}){ratio}")


def cfr_section(iterations: int, repeats: int) -> None:
    import pyspiel

    from nashzoo.agents.cfr import make_solver
    from nashzoo.games import LiarsDiceGame
    from nashzoo.tree import compile_game, nash_conv_array

    tree = compile_game(LiarsDiceGame())
    game = pyspiel.load_game("liars_dice")
    make_solver("cfr+", tree).iterate(2)  # compile the kernels outside the clock
    values: dict[str, float] = {}

    def ours() -> float:
        solver = make_solver("cfr+", tree)
        start = time.perf_counter()
        solver.iterate(iterations)
        seconds = time.perf_counter() - start
        values["ours"] = nash_conv_array(tree, solver.average_policy().probs) / 2
        return iterations / seconds

    def theirs() -> float:
        solver = pyspiel.CFRPlusSolver(game)
        start = time.perf_counter()
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        seconds = time.perf_counter() - start
        values["theirs"] = pyspiel.exploitability(game, solver.average_policy())
        return iterations / seconds

    runs = interleaved({"nashzoo CFR+": ours, "OpenSpiel C++ CFR+": theirs}, repeats)
    a, b = median(runs["nashzoo CFR+"]), median(runs["OpenSpiel C++ CFR+"])
    print(f"\ncfr: CFR+ on liars_dice 1x6 ({tree.num_nodes:,} histories), {iterations} iterations")
    print(f"  nashzoo   {a:10.2f} iterations/s  (runs {runs_text(runs['nashzoo CFR+'], '.2f')})")
    print(
        f"  OpenSpiel {b:10.2f} iterations/s  (runs {runs_text(runs['OpenSpiel C++ CFR+'], '.2f')})"
    )
    print(f"  ratio {a / b:.1f}x (goal 30x); exploitability after {iterations}: ours "
          f"{values['ours']:.8f}, OpenSpiel's {values['theirs']:.8f}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", default="env,cfr")
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_line())
    sections = args.sections.split(",")
    if "env" in sections:
        env_section(args.episodes, args.repeats)
    if "cfr" in sections:
        cfr_section(args.iterations, args.repeats)


if __name__ == "__main__":
    main()
