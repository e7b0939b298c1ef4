"""GPU smoke check of the learners' ``device`` setting (issue 91): NFSP's learner steps
per second on the CPU and on CUDA, from the same networks, buffers and random draws, and
how far apart the networks are after the same steps (floating-point tolerance); then
Deep CFR's network fits (a player's regret network and the policy network, from the same
memories and draws) on both, and how far apart the two policies' probabilities are;
then Nash-ISMCTS's generations on Leduc's tables (self-play on the CPU, the network's
gradient steps and tables on the device), from the same seed on both, and how far apart
the two networks are after them.

On a machine without CUDA it measures the CPU alone and says so.

Usage: ``python benchmarks/gpu_smoke.py [--game limit_holdem] [--steps 300]
[--hidden 256,256] [--learners nfsp,deep-cfr,nash-ismcts]``
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line

import nashzoo


def learner_on(device: str, source, torch):
    """A copy of ``source`` (an NFSP) whose networks and optimisers live on ``device``,
    sharing its buffers and its random state."""
    from nashzoo.agents.nfsp import NFSP, NFSPConfig

    config = NFSPConfig.from_dict({**source.config.to_dict(), "device": device})
    learner = NFSP(source.game, config)
    for mine, theirs in zip(learner.players, source.players):
        for name in ("q", "q_target", "avg", "q_opt", "avg_opt"):
            getattr(mine, name).load_state_dict(getattr(theirs, name).state_dict())
        mine.replay, mine.reservoir = theirs.replay, theirs.reservoir
        mine.transitions, mine.learn_steps = theirs.transitions, theirs.learn_steps
    learner.rng = copy.deepcopy(source.rng)
    return learner


def timed_steps(learner, steps: int, torch) -> float:
    """Learner steps per second (both players, one step each per round)."""
    start = time.perf_counter()
    for _ in range(steps):
        learner._learn(0)
        learner._learn(1)
    if learner.device.type == "cuda":
        torch.cuda.synchronize()
    return 2 * steps / (time.perf_counter() - start)


def on_both(run, unit: str, torch) -> tuple[float, Any, float, Any] | None:
    """``run(device) -> (rate, result)`` on the CPU, then on CUDA (after a warm-up run,
    off the clock) where torch sees a GPU; prints both rates. Returns ``(cpu rate, cpu
    result, gpu rate, gpu result)``, or ``None`` without CUDA."""
    rate_cpu, cpu = run("cpu")
    print(f"  cpu (1 thread): {rate_cpu:,.2f} {unit}")
    if not torch.cuda.is_available():
        print("  cuda: torch sees no GPU on this machine; no GPU figure")
        return None
    run("cuda")  # CUDA's start-up, off the clock
    rate_gpu, gpu = run("cuda")
    print(f"  cuda ({torch.cuda.get_device_name()}): {rate_gpu:,.2f} {unit}")
    return rate_cpu, cpu, rate_gpu, gpu


def deep_cfr_fits(args: argparse.Namespace, hidden: tuple[int, ...], torch) -> None:
    """Deep CFR's fits on the CPU and on CUDA from the same memories and draws."""
    import numpy as np

    from nashzoo.agents.neural_cfr import DeepCFR, DeepCFRConfig

    game = nashzoo.make_game(args.game)
    settings = {
        "regret_sizes": hidden, "policy_sizes": hidden, "batch_size": args.batch_size,
        "traversals": 50, "regret_steps": 20, "policy_steps": args.steps, "device": "cpu",
    }  # fmt: skip
    source = DeepCFR(game, DeepCFRConfig(**settings)).train(steps=2)
    print(
        f"\nDeep CFR on {args.game}, hidden {hidden}, batch {args.batch_size}, memories from "
        f"2 iterations ({source.strategy_memory.size:,} strategy rows); one regret fit and "
        f"one policy fit of {args.steps} steps each"
    )
    obs, cols = source.strategy_memory.sample_rows(np.random.default_rng(9), 512)

    def fitted(device: str) -> tuple[float, np.ndarray]:
        learner = DeepCFR(game, DeepCFRConfig(**{**settings, "device": device}))
        learner.regret_memory, learner.strategy_memory = (
            source.regret_memory,
            source.strategy_memory,
        )
        learner.rng, learner.iterations = copy.deepcopy(source.rng), source.iterations
        start = time.perf_counter()
        learner._fit_regrets(0, learner.iterations, args.steps, reinitialize=True)
        learner._policy_iterations = -1
        learner.fit_policy()
        if learner.device.type == "cuda":
            torch.cuda.synchronize()
        rate = 2 * args.steps / (time.perf_counter() - start)
        return rate, learner.average_probs(0, obs, cols["mask"])

    both = on_both(fitted, "minibatch steps/s", torch)
    if both is None:
        return
    rate_cpu, probs_cpu, rate_gpu, probs_gpu = both
    worst = float(np.abs(probs_gpu - probs_cpu).max())
    print(
        f"  speed-up {rate_gpu / rate_cpu:.2f}x; largest policy probability difference "
        f"over 512 memory rows {worst:.2e}"
    )


def nash_ismcts_generations(args: argparse.Namespace, hidden: tuple[int, ...], torch) -> None:
    """Nash-ISMCTS on Leduc's tables, the same seed on the CPU and on CUDA."""
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig

    game = nashzoo.make_game("leduc_holdem")
    settings = {
        "hidden_sizes": hidden, "batch_size": args.batch_size, "games_per_generation": 32,
        "simulations": 50, "steps_per_generation": args.steps // 3, "search_every": 10**6,
    }  # fmt: skip
    generations = 3
    print(
        f"\nNash-ISMCTS on leduc_holdem's tables, hidden {hidden}, batch {args.batch_size}; "
        f"{generations} generations of 32 self-play games and {args.steps // 3} gradient steps"
    )

    def trained(device: str) -> tuple[float, Any]:
        learner = NashISMCTS(game, TrainConfig(**settings, device=device))
        start = time.perf_counter()
        learner.train(steps=generations, progress=False)
        if learner.device.type == "cuda":
            torch.cuda.synchronize()
        return generations / (time.perf_counter() - start), learner

    both = on_both(trained, "generations/s", torch)
    if both is None:
        return
    rate_cpu, cpu, rate_gpu, gpu = both
    theirs = cpu.network.state_dict()
    worst = max(
        float((value.cpu() - theirs[key]).abs().max())
        for key, value in gpu.network.state_dict().items()
    )
    print(
        f"  speed-up {rate_gpu / rate_cpu:.2f}x; largest weight difference {worst:.2e} "
        "(self-play draws its moves from the tables, so a rounding difference can change "
        "a game and grow)"
    )


def main(argv: list[str] | None = None) -> None:
    import torch

    from nashzoo.agents.nfsp import NFSP, NFSPConfig

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="limit_holdem")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--hidden", default="256,256")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--learners", default="nfsp,deep-cfr,nash-ismcts")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(machine_line())
    hidden = tuple(int(h) for h in args.hidden.split(","))
    learners = args.learners.split(",")
    if "deep-cfr" in learners:
        deep_cfr_fits(args, hidden, torch)
    if "nash-ismcts" in learners:
        nash_ismcts_generations(args, hidden, torch)
    if "nfsp" not in learners:
        return
    config = NFSPConfig(
        hidden_sizes=hidden, batch_size=args.batch_size, min_buffer_to_learn=0, device="cpu"
    )
    source = NFSP(nashzoo.make_game(args.game), config).train(steps=3_000)
    print(
        f"NFSP on {args.game}, hidden {hidden}, batch {args.batch_size}, buffers from 3,000 "
        f"episodes; {args.steps} learner rounds (one DQN and one supervised step a player)"
    )
    cpu = learner_on("cpu", source, torch)
    rate_cpu = timed_steps(cpu, args.steps, torch)
    print(f"  cpu (1 thread): {rate_cpu:,.1f} learner steps/s")
    if not torch.cuda.is_available():
        print("  cuda: torch sees no GPU on this machine; no GPU figure")
        return
    gpu = learner_on("cuda", source, torch)
    timed_steps(learner_on("cuda", source, torch), 20, torch)  # CUDA's start-up, off the clock
    rate_gpu = timed_steps(gpu, args.steps, torch)
    worst = 0.0
    for mine, theirs in zip(gpu.players, cpu.players):
        for name in ("q", "avg"):
            for key, value in getattr(mine, name).state_dict().items():
                other = getattr(theirs, name).state_dict()[key]
                worst = max(worst, float((value.cpu() - other).abs().max()))
    print(f"  cuda ({torch.cuda.get_device_name()}): {rate_gpu:,.1f} learner steps/s")
    print(f"  speed-up {rate_gpu / rate_cpu:.2f}x; largest weight difference {worst:.2e}")


if __name__ == "__main__":
    main()
