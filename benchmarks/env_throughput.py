"""Env throughput: random legal play on Leduc, nashzoo vs its peers, in one run.

Every contender runs the loop a user writes (``agent_iter`` / ``last`` / ``step`` for the
PettingZoo envs) with the same action choice (uniform over the mask's legal actions from
one ``np.random.Generator``), for the same number of *episodes*. Random Leduc episodes
differ in length between implementations (PettingZoo's leduc_holdem_v4 is RLCard's
Leduc, with different raise rules and no chance node for the first deal in the loop), so
both decisions per second and episodes per second are reported. Contenders:

* ``nashzoo/leduc_holdem-v0`` through the full wrapped AEC API;
* PettingZoo's ``leduc_holdem_v4`` (RLCard underneath), same loop (``pettingzoo[classic]``);
* nashzoo's rules API (``apply_action`` with chance sampling, no env);
* OpenSpiel's ``rl_environment`` over its C++ Leduc (``open_spiel``), for reference.

Interleaved, median of ``--repeats``. Goal (issue 2): the wrapped AEC env at least 5x
PettingZoo's wrapped Leduc in decisions per second.
Usage: ``python benchmarks/env_throughput.py [--episodes 20000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, random_legal, runs_text

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
            env.step(random_legal(rng, obs["action_mask"]))
            done += 1
        played += 1
    return done, played, time.perf_counter() - start


def rules_play(game, games: int, seed: int = 0) -> tuple[int, int, float]:
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                done += 1
    return done, games, time.perf_counter() - start


def openspiel_play(games: int, seed: int = 0) -> tuple[int, int, float]:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(
        "leduc_poker", chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed)
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
    return done, games, time.perf_counter() - start


def contenders(episodes: int) -> dict:
    runs = {
        "nashzoo leduc_holdem-v0 (wrapped AEC)": lambda: random_play(
            nashzoo.make("nashzoo/leduc_holdem-v0"), games=episodes
        ),
        "nashzoo rules API (no env)": lambda: rules_play(LeducHoldemGame(), episodes),
    }
    try:
        from pettingzoo.classic import leduc_holdem_v4

        runs["PettingZoo leduc_holdem_v4 (wrapped AEC)"] = lambda: random_play(
            leduc_holdem_v4.env(), games=episodes // 4
        )
    except ImportError as exc:
        print(f"PettingZoo classic not available ({exc}); pip install 'pettingzoo[classic]'")
    try:
        import pyspiel  # noqa: F401  (only checks that open_spiel is installed)

        runs["OpenSpiel rl_environment leduc_poker"] = lambda: openspiel_play(episodes // 2)
    except ImportError:
        print("open_spiel not installed; skipping its reference run")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine_line())
    raw: dict[str, list[tuple[int, int, float]]] = {}

    def measured(name, run):
        def go():
            result = run()
            raw.setdefault(name, []).append(result)
            return result[0] / result[2]

        return go

    decisions = interleaved(
        {n: measured(n, r) for n, r in contenders(args.episodes).items()}, args.repeats
    )
    episodes = {n: [g / s for _, g, s in raw[n]] for n in raw}
    length = {n: sum(d for d, _, _ in raw[n]) / sum(g for _, g, _ in raw[n]) for n in raw}
    ours = "nashzoo leduc_holdem-v0 (wrapped AEC)"
    peer = "PettingZoo leduc_holdem_v4 (wrapped AEC)"
    print("\n| contender | decisions/s | episodes/s | decisions/episode | runs (decisions/s) |")
    print("|---|---:|---:|---:|---|")
    for name in decisions:
        print(
            f"| {name} | {median(decisions[name]):,.0f} | {median(episodes[name]):,.0f} | "
            f"{length[name]:.2f} | {runs_text(decisions[name])} |"
        )
    if peer in decisions:
        d = median(decisions[ours]) / median(decisions[peer])
        e = median(episodes[ours]) / median(episodes[peer])
        print(
            f"\nnashzoo / PettingZoo: {d:.2f}x decisions/s, {e:.2f}x episodes/s "
            f"(PettingZoo alone: {median(decisions[peer]):,.0f} decisions/s, "
            f"{median(episodes[peer]):,.0f} episodes/s); goal >= 5x decisions/s: "
            f"{'met' if d >= 5 else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
