"""Deep CFR and ESCHER against OpenSpiel's PyTorch implementations on Leduc (issue 36).

Each learner trains for ``--minutes`` on one thread with the same network sizes and
hyper-parameters on both sides (our defaults are OpenSpiel's example settings for Deep
CFR and its ``escher.Config`` for ESCHER), alternating ours and theirs. At three
checkpoints (a quarter, half and all of the budget) the average policy is fitted and
its exact exploitability measured (ours by our best response, theirs by OpenSpiel's
``exploitability`` on its probabilities renormalised over the legal actions, the raw
outputs' figure printed beside it); that time is not counted as training. Printed:
traversals per second of training (one traversal: one episode from the root for one
player; Deep CFR's ``num_traversals`` per player and iteration, ESCHER's regret
traversals), each side's exploitability at each checkpoint, and the ratios.

Section ``nash-memory`` (``--section``): Nash memory over agents on Leduc with the exact
oracle and with the learned one (MaskablePPO, ``--ppo-steps`` per best response, the
meta-game by duplicate matches of ``--nm-deals`` deals), each for ``--nm-minutes``: the
mixture's exact exploitability after each iteration against seconds.

Usage::

    python benchmarks/neural_learners.py --minutes 20 --repeats 1
    python benchmarks/neural_learners.py --minutes 10 --repeats 3 --section learners \
        --algorithm deep-cfr     # three seeds a side, alternating; medians printed
    python benchmarks/neural_learners.py --minutes 5 --repeats 5 --first-seed 3 \
        --section learners --algorithm deep-cfr   # seeds 3 to 7: fresh seeds
    python benchmarks/neural_learners.py --section nash-memory --nm-minutes 10
    python benchmarks/neural_learners.py --section holdem-speed --repeats 3

Section ``holdem-speed``: Deep CFR's traversals per second on Limit Hold'em (the rules
path; no tree compiles) beside OpenSpiel's on ``universal_poker``.

Goal (issue 36): at least 5x their traversals per second, and lower exploitability at
equal time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, median, one_thread


def _ours(
    algorithm: str, seconds: float, marks: list[float], seed: int = 0
) -> tuple[float, list[float]]:
    """(traversals per second, exploitability at each mark) of our learner, seeded."""
    import nashzoo
    from nashzoo.agents.neural_cfr import ESCHER, DeepCFR, DeepCFRConfig, ESCHERConfig

    game = nashzoo.make_game("leduc_holdem")
    learner: Any = (
        DeepCFR(game, DeepCFRConfig(seed=seed))
        if algorithm == "deep-cfr"
        else ESCHER(game, ESCHERConfig(seed=seed))
    )
    found = []
    for mark in marks:
        learner.train(seconds=mark * seconds - learner.seconds)
        found.append(learner.exploitability())
        print(f"    ours {algorithm}: {learner.seconds:6.0f} s  {learner.traversals:,} "
              f"traversals  exploitability {found[-1]:.4f}", flush=True)  # fmt: skip
    return learner.traversals / learner.seconds, found


def _theirs(
    algorithm: str, seconds: float, marks: list[float], seed: int = 0
) -> tuple[float, list[float]]:
    """The same for OpenSpiel's PyTorch Deep CFR or ESCHER on leduc_poker (seeded through
    the global generators it draws from: Python's, NumPy's and torch's)."""
    import random

    import numpy as np
    import pyspiel
    import torch
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002  (OpenSpiel draws from the legacy global generator)
    torch.manual_seed(seed)

    game = pyspiel.load_game("leduc_poker")
    trained = 0.0
    traversals = 0
    found = []
    if algorithm == "deep-cfr":
        from open_spiel.python.pytorch import deep_cfr

        solver = deep_cfr.DeepCFRSolver(
            game,
            policy_network_layers=(64,),
            advantage_network_layers=(64,),
            num_iterations=1,
            num_traversals=375,
            reinitialize_advantage_networks=True,
            learning_rate=1e-3,
            batch_size_advantage=256,
            batch_size_strategy=256,
            memory_capacity=100_000,
            policy_network_train_steps=2500,
            advantage_network_train_steps=375,
        )

        def iteration() -> int:
            for p in range(2):
                for _ in range(375):
                    solver._traverse_game_tree(solver._root_node, p)
                solver._reinitialize_advantage_network(p)
                solver._learn_advantage_network(p)
            solver._iteration += 1
            return 2 * 375

        def probabilities(state: Any) -> Any:
            return solver.action_probabilities(state)

        def fit() -> None:
            solver._reinitialize_policy_network()
            solver._learn_strategy_network()

    else:
        from open_spiel.python.pytorch import escher

        cfg = escher.Config()
        train_cfg = escher.TrainConfig(game)
        agent = escher.Agent(game, cfg)

        def iteration() -> int:
            escher._train_regret(train_cfg, agent)
            agent.t += 1
            return 2 * cfg.regret_traversals

        def probabilities(state: Any) -> Any:
            probs = agent.action_probabilities(state)
            return {a: float(probs[a]) for a in state.legal_actions()}

        def fit() -> None:
            escher._train_avg_policy(agent)

    def normalised(state: Any) -> dict[int, float]:
        """The probabilities over the legal actions, summing to 1 (unchanged where they
        already do): OpenSpiel's Deep CFR policy network is a softmax over every action,
        so its legal actions' outputs sum to less than 1 (0.85 at worst, 0.993 to 0.996
        on average after 150 iterations), and ``exploitability`` reads the deficit as if
        that mass went nowhere, which lowered its figure by 0.01 to 0.025 chips in six
        refits (RESULTS.md)."""
        probs = probabilities(state)
        total = sum(probs.values())
        return {a: p / total for a, p in probs.items()}

    for mark in marks:
        while trained < mark * seconds:
            start = time.perf_counter()
            traversals += iteration()
            trained += time.perf_counter() - start
        fit()
        tabular = os_policy.tabular_policy_from_callable(game, normalised)
        found.append(float(exploitability.exploitability(game, tabular)))
        raw = os_policy.tabular_policy_from_callable(game, probabilities)
        print(f"    OpenSpiel {algorithm}: {trained:6.0f} s  {traversals:,} traversals  "
              f"exploitability {found[-1]:.4f} (the raw outputs: "
              f"{exploitability.exploitability(game, raw):.4f})", flush=True)  # fmt: skip
    return traversals / trained, found


def nash_memory(minutes: float, ppo_steps: int, deals: int) -> None:
    """Exact against learned oracle on Leduc: exploitability after each iteration."""
    import nashzoo
    from nashzoo.agents.nash_memory import PopulationNashMemory
    from nashzoo.bounds import duplicate_measure, learned_oracle

    game = nashzoo.make_game("leduc_holdem")
    runs = {
        "exact oracle, exact meta-game": PopulationNashMemory(game),
        f"learned oracle (MaskablePPO {ppo_steps:,} steps), {deals:,}-deal meta-game": (
            PopulationNashMemory(
                game, oracle=learned_oracle(steps=ppo_steps), measure=duplicate_measure(deals)
            )
        ),
    }
    for name, memory in runs.items():
        print(f"\nNash memory on Leduc, {name}, {minutes:g} min", flush=True)
        spent = 0.0
        while spent < minutes * 60:
            memory.iterate(1)
            record = memory.history[-1]
            spent += record.seconds
            print(
                f"  iteration {record.iteration:3d}  {spent:7.1f} s  exploitability "
                f"{record.exploitability:.4f}  members {len(memory.members)}",
                flush=True,
            )


def holdem_speed(seconds: float, repeats: int) -> None:
    """Deep CFR's traversals per second on Limit Hold'em, where no tree compiles and
    ours walks the rules (issue 87: the Leduc ratio comes from tabulating the networks
    over the compiled tree). Ours: ``DeepCFR(limit_holdem).train(seconds=...)``, its
    traversals over its training seconds (advantage-network fitting included). OpenSpiel:
    its PyTorch ``DeepCFRSolver`` on ``universal_poker`` with the same game definition,
    external-sampling traversals alone for the same seconds (its fitting not counted,
    which favours it). Alternating, median of ``repeats``."""
    import pyspiel
    from open_spiel.python.pytorch import deep_cfr

    import nashzoo
    from nashzoo.agents.neural_cfr import DeepCFR, DeepCFRConfig

    ours_rates, theirs_rates = [], []
    for seed in range(repeats):
        learner = DeepCFR(nashzoo.make_game("limit_holdem"), DeepCFRConfig(seed=seed))
        learner.train(seconds=seconds)
        ours_rates.append(learner.traversals / learner.seconds)
        params = nashzoo.make_game("limit_holdem").definition.universal_poker_params()
        solver = deep_cfr.DeepCFRSolver(
            pyspiel.load_game("universal_poker", params),
            policy_network_layers=(64,),
            advantage_network_layers=(64,),
            num_traversals=1,
        )
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            solver._traverse_game_tree(solver._root_node, count % 2)
            count += 1
        theirs_rates.append(count / (time.perf_counter() - start))
        print(f"  run {seed}: ours {ours_rates[-1]:,.1f}, OpenSpiel {theirs_rates[-1]:,.1f} "
              "traversals/s", flush=True)  # fmt: skip
    ours, theirs = median(ours_rates), median(theirs_rates)
    print(f"Limit Hold'em traversals/s (median of {repeats}): ours {ours:,.1f}, OpenSpiel "
          f"{theirs:,.1f} ({ours / theirs:.1f}x)")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="per learner and side")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="alternating runs per side, run r seeded first-seed + r",
    )
    parser.add_argument(
        "--first-seed", type=int, default=0, help="the first run's seed (then one more each run)"
    )
    parser.add_argument("--algorithm", action="append", choices=["deep-cfr", "escher"])
    parser.add_argument(
        "--section", action="append", choices=["learners", "nash-memory", "holdem-speed"]
    )
    parser.add_argument("--holdem-seconds", type=float, default=120.0)
    parser.add_argument("--nm-minutes", type=float, default=10.0)
    parser.add_argument("--ppo-steps", type=int, default=50_000)
    parser.add_argument("--nm-deals", type=int, default=1000)
    args = parser.parse_args(argv)
    one_thread()
    print(machine_line())
    sections = args.section or ["learners", "nash-memory"]
    if "holdem-speed" in sections:
        holdem_speed(args.holdem_seconds, args.repeats)
    if "nash-memory" in sections:
        nash_memory(args.nm_minutes, args.ppo_steps, args.nm_deals)
    if "learners" not in sections:
        return
    seconds = args.minutes * 60
    marks = [0.25, 0.5, 1.0]
    for algorithm in args.algorithm or ["deep-cfr", "escher"]:
        print(f"\n{algorithm} on Leduc, {args.minutes:g} min per run", flush=True)
        runs: dict[str, list[tuple[float, list[float]]]] = {"ours": [], "theirs": []}
        for seed in range(args.first_seed, args.first_seed + args.repeats):
            runs["ours"].append(_ours(algorithm, seconds, marks, seed))
            runs["theirs"].append(_theirs(algorithm, seconds, marks, seed))
        speed = {side: median([r[0] for r in found]) for side, found in runs.items()}
        print(f"  traversals/s: ours {speed['ours']:,.0f}, OpenSpiel {speed['theirs']:,.0f} "
              f"({speed['ours'] / speed['theirs']:.1f}x)")  # fmt: skip
        for k, mark in enumerate(marks):
            ours = median([r[1][k] for r in runs["ours"]])
            theirs = median([r[1][k] for r in runs["theirs"]])
            verdict = "lower" if ours < theirs else "NOT lower"
            print(f"  exploitability at {mark * args.minutes:g} min: ours {ours:.4f}, "
                  f"OpenSpiel {theirs:.4f} ({verdict})")  # fmt: skip


if __name__ == "__main__":
    main()
