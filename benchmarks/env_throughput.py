"""Env throughput: random legal play, decisions per second, nashzoo vs its peers in one run.

Every contender runs the loop a user writes (``agent_iter`` / ``last`` / ``step`` for the
PettingZoo envs) with the same action choice (uniform over the mask's legal actions from
one ``np.random.Generator``). Contenders:

* ``nashzoo/leduc_holdem-v0`` through the full wrapped AEC API;
* PettingZoo's ``leduc_holdem_v4`` (RLCard underneath), same loop (needs ``pettingzoo[classic]``);
* nashzoo's raw rules API (``apply_action`` with chance sampling, no env);
* OpenSpiel's ``rl_environment`` over its C++ Leduc (needs ``open_spiel``), for reference.

Usage: ``python benchmarks/env_throughput.py [--decisions 100000] [--repeats 3]``.
The goal (issue 2): nashzoo's wrapped AEC env at least 5x PettingZoo's wrapped Leduc.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from datetime import date

import numpy as np

import nashzoo
from nashzoo.games import LeducHoldemGame


def random_play(
    env, *, decisions: int | None = None, games: int | None = None, seed: int = 0
) -> tuple[int, int, float]:
    """Random legal play through ``agent_iter``/``last``/``step`` until ``decisions``
    decisions or ``games`` games; returns (decisions, games, seconds)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = played = 0
    start = time.perf_counter()
    while (decisions is None or done < decisions) and (games is None or played < games):
        env.reset()
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * legal.size)]))
            done += 1
        played += 1
    return done, played, time.perf_counter() - start


def aec_loop(env, decisions: int, seed: int = 0) -> float:
    done, _, seconds = random_play(env, decisions=decisions, seed=seed)
    return done / seconds


def rules_loop(game, decisions: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    while done < decisions:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                done += 1
    return done / (time.perf_counter() - start)


def openspiel_loop(decisions: int, seed: int = 0) -> float:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(
        "leduc_poker", chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed)
    )
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    while done < decisions:
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            legal = step.observations["legal_actions"][player]
            step = env.step([legal[int(rng.random() * len(legal))]])
            done += 1
    return done / (time.perf_counter() - start)


def contenders(decisions: int) -> dict:
    runs = {
        "nashzoo leduc_holdem-v0 (wrapped AEC)": lambda: aec_loop(
            nashzoo.make("nashzoo/leduc_holdem-v0"), decisions
        ),
        "nashzoo rules API (no env)": lambda: rules_loop(LeducHoldemGame(), decisions),
    }
    try:
        from pettingzoo.classic import leduc_holdem_v4

        runs["PettingZoo leduc_holdem_v4 (wrapped AEC)"] = lambda: aec_loop(
            leduc_holdem_v4.env(), decisions // 4
        )
    except ImportError as exc:
        print(f"PettingZoo classic not available ({exc}); pip install 'pettingzoo[classic]'")
    try:
        import pyspiel  # noqa: F401  (only checks that open_spiel is installed)

        runs["OpenSpiel rl_environment leduc_poker"] = lambda: openspiel_loop(decisions // 2)
    except ImportError:
        print("open_spiel not installed; skipping its reference run")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    results = {}
    for name, run in contenders(args.decisions).items():
        rates = [run() for _ in range(args.repeats)]
        results[name] = statistics.median(rates)
        print(
            f"{name:45s} {results[name]:>12,.0f} decisions/s  (runs: "
            + ", ".join(f"{r:,.0f}" for r in rates)
            + ")"
        )
    ours = results["nashzoo leduc_holdem-v0 (wrapped AEC)"]
    peer = results.get("PettingZoo leduc_holdem_v4 (wrapped AEC)")
    print()
    print(
        f"date {date.today()}  machine {platform.machine()} {platform.processor() or ''} "
        f"python {platform.python_version()}"
    )
    print("| contender | decisions/s | ratio vs PettingZoo |")
    print("|---|---:|---:|")
    for name, rate in results.items():
        ratio = f"{rate / peer:.1f}x" if peer else "n/a"
        print(f"| {name} | {rate:,.0f} | {ratio} |")
    if peer:
        verdict = "met" if ours >= 5 * peer else "NOT met"
        print(f"\nnashzoo / PettingZoo = {ours / peer:.2f}x (goal >= 5x: {verdict})")


if __name__ == "__main__":
    main()
