"""Self-play targets that carry the search's improvement (issue 89, item 6).

At a few simulations a move the root's visit distribution is P resampled: the policy
target AlphaZero's loop learns from carries P's own noise, not what the search measured.
Gumbel MuZero's completed-Q target (``TrainConfig.policy_target="completed_q"``) improves
P by the root's values instead. Measured here on Leduc with the trainer of games that
compile (its networks tabulated over every view, so P's and the search's exploitability
are exact): the same settings, seed and wall time for each target, the two runs of a
seed side by side in two processes (one core each).

Usage: ``python benchmarks/nash_ismcts_targets.py [--minutes 6] [--seeds 0 1]
[--simulations 8]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, one_thread

TARGETS = ("visits", "completed_q")


def one_run(target: str, seed: int, minutes: float, simulations: int, scale: float) -> dict:
    """Train on Leduc for ``minutes`` with the ``target``; P's and the search's exact
    exploitability at the end and P's along the way."""
    one_thread()
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
    from nashzoo.games.poker import presets

    config = TrainConfig(
        games_per_generation=64,
        simulations=simulations,
        eval_simulations=1000,
        steps_per_generation=50,
        belief_games=4096,
        search_every=10**6,
        policy_target=target,
        target_scale=scale,
        seed=seed,
    )
    trainer = NashISMCTS(presets.leduc(), config).train(seconds=60 * minutes)
    history = trainer.history
    return {
        "target": target,
        "seed": seed,
        "generations": len(history),
        "prior": [round(h.prior_exploitability, 4) for h in history],
        "final_prior": history[-1].prior_exploitability,
        "final_search": history[-1].search_exploitability,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--simulations", type=int, default=8)
    parser.add_argument("--target-scale", type=float, default=1.0, help="completed-Q's c_scale")
    parser.add_argument("--run", nargs=2, metavar=("TARGET", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        result = one_run(
            args.run[0], int(args.run[1]), args.minutes, args.simulations, args.target_scale
        )
        print(json.dumps(result))
        return
    print(machine_line())
    print(
        f"Leduc, {args.minutes:g} minutes a run, {args.simulations} simulations a self-play "
        f"move, 64 games and 50 steps a generation, completed-Q's c_scale {args.target_scale:g}"
    )
    rows = []
    for seed in args.seeds:
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--run",
                    target,
                    str(seed),
                    "--minutes",
                    str(args.minutes),
                    "--simulations",
                    str(args.simulations),
                    "--target-scale",
                    str(args.target_scale),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for target in TARGETS
        ]
        for proc in procs:
            out, _ = proc.communicate()
            rows.append(json.loads(out.strip().splitlines()[-1]))
    print("| target | seed | generations | P's exploitability at the end | search's (1,000 sims) |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['target']} | {r['seed']} | {r['generations']} | {r['final_prior']:.4f} | "
            f"{r['final_search']:.4f} |"
        )
    for r in rows:
        every = max(1, len(r["prior"]) // 8)
        print(f"  {r['target']:12s} seed {r['seed']}: P by generation {r['prior'][::every]}")


if __name__ == "__main__":
    main()
