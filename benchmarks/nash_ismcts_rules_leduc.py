"""Nash-ISMCTS trained over the rules, measured exactly on Leduc (issue 33).

Leduc compiles, so what the path for big games learns can be measured exactly: the
poker engine's Leduc is trained with :class:`~nashzoo.agents.ismcts.train.NashISMCTS`
over the rules (``fast_path=False``: networks evaluated at search time, worlds scored by
value embeddings, H by sampled softmax) for ``--minutes``, printing the exact
exploitability of the network's P every ``--every`` generations; then the search
operator over the rules on the trained network (one search at each of the 936
information sets, ``play_eps``) at 100, 1,000 and 3,000 simulations, with H from the
belief head and from the online Bayes refinement (Bayes' rule over the public history
under the network's P; item 5 of the issue).

Goal: the search at or below 0.3 chips at 1,000 simulations after 15 minutes (the
compiled path reaches 0.24), and not rising from 100 to 3,000 simulations.

Usage: ``python benchmarks/nash_ismcts_rules_leduc.py [--minutes 15] [--sims 100,1000,3000]
[--actors 2] [--self-play-sims 200] [--games 32] [--steps 50] [--average-decay 0.97]
[--value-scale tree|game] [--out leduc_rules.pt] [--load leduc_rules.pt]``

The trained agent, and so every measurement here, plays the moving average of the
network's parameters (``TrainConfig.average_decay``; ``--average-decay -1``: the last
network); self-play still plays the current network. Runs recorded before 2026-11-30
used 64 games and 100 steps per generation and the last network
(``--games 64 --steps 100 --average-decay -1``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, one_thread


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--sims", default="100,1000,3000")
    parser.add_argument("--bayes-sims", default="100,1000", help="the same with online Bayes H")
    parser.add_argument(
        "--every", type=int, default=10, help="generations between P's measurements"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--actors", type=int, default=0, help="self-play Ray actors (0: in this process)"
    )
    parser.add_argument(
        "--self-play-sims", type=int, default=200, help="simulations per self-play move"
    )
    parser.add_argument("--games", type=int, default=32, help="self-play games per generation")
    parser.add_argument("--steps", type=int, default=50, help="gradient steps per generation")
    parser.add_argument(
        "--average-decay",
        type=float,
        default=0.97,
        help="play a moving average of the network (a negative value: the last network)",
    )
    parser.add_argument(
        "--value-scale",
        choices=("game", "tree"),
        default="game",  # TrainConfig's own default
        help="TrainConfig.value_scale (the scale of PUCT and the LCB)",
    )
    parser.add_argument("--out", default="leduc_rules.pt")
    parser.add_argument(
        "--load",
        default=None,
        help="measure the trainer an earlier run saved (its --out) instead of training",
    )
    args = parser.parse_args(argv)
    one_thread()
    from nashzoo.agents.ismcts.knowledge import NetworkKnowledge
    from nashzoo.agents.ismcts.prior import PriorAgent
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.games.poker import presets

    print(machine_line())
    game = presets.leduc()
    if args.load:  # an earlier run's trainer, measured again (at other simulations)
        trainer = NashISMCTS.load(args.load)
        print(f"loaded {args.load}: config {trainer.config.to_dict()}")
    else:
        config = TrainConfig(
            games_per_generation=args.games,
            simulations=args.self_play_sims,
            eval_simulations=1000,
            hidden_sizes=(128, 128),
            embed_size=32,
            negatives=4,  # Leduc's views have at most 5 worlds: the softmax is exact
            belief_games=1024,
            steps_per_generation=args.steps,
            average_decay=args.average_decay if args.average_decay >= 0 else None,
            batch_size=256,
            replay_generations=20,
            actors=args.actors or None,
            backend="ray" if args.actors else "local",
            value_scale=args.value_scale,
            seed=args.seed,
            fast_path=False,
        )
        print(f"config: {config.to_dict()}")
        trainer = NashISMCTS(game, config)

    def report(t: NashISMCTS) -> None:
        if t.steps and t.steps % args.every == 0:
            r = t.history[-1]
            p = exploitability(t.prior_agent(), game).exploitability
            current = ""
            if t.average is not None:  # P of the network self-play is training, beside
                now = exploitability(PriorAgent(game, t.network), game).exploitability
                current = f" (current network {now:.4f})"
            print(
                f"  {t.seconds:7.1f} s  generation {t.steps:4d}  P exploitability {p:.4f}"
                f"{current}  "
                f"{r.simulations_per_second:,.0f} sims/s  "
                f"{r.views / max(r.forward_passes, 1):.1f} views per forward pass",
                flush=True,
            )

    if not args.load:
        trainer.train(seconds=60 * args.minutes, callback=report, callback_every=1.0)
        trainer.save(args.out)
    p = exploitability(trainer.prior_agent(), game).exploitability
    print(f"after {trainer.steps} generations ({trainer.seconds / 60:.1f} min): P {p:.4f} chips")
    for belief in ("network", "bayes"):
        print(f"H from the {'belief head' if belief == 'network' else 'online Bayes refinement'}:")
        counts = [
            int(s) for s in (args.sims if belief == "network" else args.bayes_sims).split(",") if s
        ]
        for sims in counts:
            agent = trainer.agent()
            agent.search.config = replace(agent.config, simulations=sims)
            agent.search.knowledge = NetworkKnowledge(game, trainer.playing_network, belief=belief)
            start = time.perf_counter()
            value = exploitability(agent, game).exploitability
            print(
                f"  search over the rules, {sims:>5,} simulations: {value:.4f} chips "
                f"({time.perf_counter() - start:,.0f} s)",
                flush=True,
            )
    if trainer.average is not None:  # the same run's last network, for comparison
        p = exploitability(PriorAgent(game, trainer.network), game).exploitability
        agent = trainer.agent()
        agent.search.knowledge = NetworkKnowledge(game, trainer.network)
        value = exploitability(agent, game).exploitability
        print(
            f"the last network instead of the average: P {p:.4f} chips, the search at "
            f"{agent.config.simulations:,} simulations {value:.4f} chips",
            flush=True,
        )


if __name__ == "__main__":
    main()
