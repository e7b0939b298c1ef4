"""Tournament throughput: random vs random on Leduc, games per second, in one run.

Contenders (interleaved, median of ``--repeats``):

* nashzoo's harness (``run_block`` in this process): duplicate seating, per-deal scores
  for confidence intervals, forfeit checks, agents called through the fault guard;
* ``run_tournament`` with 1 and 2 supervised worker processes, store included (the
  speed-up from workers; worker start-up included);
* RLCard's ``rlcard.utils.tournament`` on ``leduc-holdem`` (needs ``rlcard``);
* a PettingZoo ``agent_iter`` loop over ``leduc_holdem_v4`` (needs ``pettingzoo[classic]``).

Goal (issue 4): at least RLCard's rate on one core, near-linear speed-up with workers.
Usage: ``python benchmarks/tournament_throughput.py [--games 200000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, runs_text
from env_throughput import random_play  # the same user loop as the env benchmark

from nashzoo.agents import AgentSpec
from nashzoo.eval.tournament import TournamentConfig, run_block, run_tournament


def ours_one_block(games: int) -> float:
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        agents=(("a", AgentSpec("random")), ("b", AgentSpec("random"))),
        deals=games // 2,
        block_size=games // 2,
    )
    run_block(cfg, 0, 1, 0, 100)  # warm caches
    start = time.perf_counter()
    run_block(cfg, 0, 1, 0, games // 2)
    return games / (time.perf_counter() - start)


def ours_tournament(games: int, workers: int, seed: int) -> float:
    # 4 agents -> 6 pairings; deals per pairing so that the total is `games` games.
    agents = tuple((f"r{k}", AgentSpec("random")) for k in range(4))
    deals = games // (6 * 2)
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        agents=agents,
        deals=deals,
        block_size=max(deals // 8, 1),
        seed=seed,
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
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    g = args.games
    print(machine_line())
    seeds = iter(range(1000))
    contenders = {
        "nashzoo harness, duplicate + CIs, 1 process": lambda: ours_one_block(g // 2),
        "nashzoo run_tournament, 1 worker (store included)": lambda: ours_tournament(
            g, 1, next(seeds)
        ),
        "nashzoo run_tournament, 2 workers (store included)": lambda: ours_tournament(
            g, 2, next(seeds)
        ),
    }
    try:
        import rlcard  # noqa: F401

        contenders["RLCard utils.tournament"] = lambda: rlcard_tournament(g // 4)
    except ImportError as exc:
        print(f"RLCard not available ({exc})")
    try:
        import pettingzoo.classic  # noqa: F401

        contenders["PettingZoo leduc_holdem_v4 agent_iter loop"] = lambda: pettingzoo_loop(g // 40)
    except ImportError as exc:
        print(f"PettingZoo classic not available ({exc})")
    rates = interleaved(contenders, args.repeats)
    peer = median(rates["RLCard utils.tournament"]) if "RLCard utils.tournament" in rates else None
    print("\n| contender | games/s | ratio vs RLCard | runs |")
    print("|---|---:|---:|---|")
    for name, values in rates.items():
        ratio = f"{median(values) / peer:.2f}x" if peer else "n/a"
        print(f"| {name} | {median(values):,.0f} | {ratio} | {runs_text(values)} |")
    one = median(rates["nashzoo run_tournament, 1 worker (store included)"])
    two = median(rates["nashzoo run_tournament, 2 workers (store included)"])
    print(f"\nspeed-up from 1 to 2 workers: {two / one:.2f}x")
    if peer:
        ours = median(rates["nashzoo harness, duplicate + CIs, 1 process"])
        print(
            f"nashzoo (1 core) / RLCard = {ours / peer:.2f}x (RLCard alone: {peer:,.0f} games/s;"
            f" goal >= 1x: {'met' if ours >= peer else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
