"""Tournament throughput: random vs random on Leduc, games per second, in one run.

Contenders:

* nashzoo's harness (``nashzoo.eval.tournament.run_block``): duplicate seating, per-deal
  scores for confidence intervals, forfeit checks; one process;
* the same tournament through ``run_tournament`` with 1 and 2 worker processes, store
  included (the speed-up from workers);
* RLCard's ``rlcard.utils.tournament`` on ``leduc-holdem`` (needs ``rlcard``);
* a PettingZoo ``agent_iter`` loop over ``leduc_holdem_v4`` (needs ``pettingzoo[classic]``).

Goal (issue 4): at least RLCard's rate on one core, near-linear speed-up with workers.
Usage: ``python benchmarks/tournament_throughput.py [--games 200000]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from datetime import date

from nashzoo.eval.tournament import TournamentConfig, run_block, run_tournament

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from env_throughput import random_play


def ours_one_block(games: int) -> float:
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        agents=(("a", "random"), ("b", "random")),
        deals=games // 2,
        block_size=games // 2,
    )
    run_block(cfg, 0, 1, 0, 100)  # warm caches
    start = time.perf_counter()
    run_block(cfg, 0, 1, 0, games // 2)
    return games / (time.perf_counter() - start)


def ours_tournament(games: int, workers: int) -> float:
    # 4 agents -> 6 pairings; deals per pairing so that the total is `games` games.
    agents = tuple((f"r{k}", "random") for k in range(4))
    deals = games // (6 * 2)
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        agents=agents,
        deals=deals,
        block_size=max(deals // 8, 1),
        seed=workers,
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_tournament(cfg, os.path.join(tmp, "t.sqlite"), workers=workers, bootstrap=0)
        return 6 * deals * 2 / (time.perf_counter() - start)


def rlcard_tournament(games: int) -> float:
    import rlcard
    from rlcard.agents import RandomAgent
    from rlcard.utils import tournament

    env = rlcard.make("leduc-holdem", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    tournament(env, 100)
    start = time.perf_counter()
    tournament(env, games)
    return games / (time.perf_counter() - start)


def pettingzoo_loop(games: int) -> float:
    from pettingzoo.classic import leduc_holdem_v4

    _, played, seconds = random_play(leduc_holdem_v4.env(), games=games)
    return played / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    args = parser.parse_args()
    g = args.games
    rows = [("nashzoo harness, duplicate + CIs, 1 process", ours_one_block(g // 2))]
    one = ours_tournament(g, 1)
    two = ours_tournament(g, 2)
    rows += [
        ("nashzoo run_tournament, 1 worker (store included)", one),
        ("nashzoo run_tournament, 2 workers (store included)", two),
    ]
    try:
        rows.append(("RLCard utils.tournament", rlcard_tournament(g // 4)))
    except ImportError as exc:
        print(f"RLCard not available ({exc})")
    try:
        rows.append(("PettingZoo leduc_holdem_v4 agent_iter loop", pettingzoo_loop(g // 40)))
    except ImportError as exc:
        print(f"PettingZoo classic not available ({exc})")
    rates = dict(rows)
    peer = rates.get("RLCard utils.tournament")
    print(
        f"date {date.today()}  machine {platform.machine()}  cores {os.cpu_count()}  "
        f"python {platform.python_version()}\n"
    )
    print("| contender | games/s | ratio vs RLCard |")
    print("|---|---:|---:|")
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {f'{rate / peer:.2f}x' if peer else 'n/a'} |")
    print(f"\nspeed-up from 1 to 2 workers: {two / one:.2f}x")
    if peer:
        ours = rates["nashzoo harness, duplicate + CIs, 1 process"]
        print(
            f"nashzoo (1 core) / RLCard = {ours / peer:.2f}x (goal >= 1x: "
            f"{'met' if ours >= peer else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
