"""CFR+ on games of three players against OpenSpiel's (issue 38): NashConv (the sum over
players of what a best response gains; OpenSpiel's definition) after the same numbers
of iterations on 3-player Kuhn and 3-player Leduc, with each side's seconds.

Ours: ``make_solver("cfr+", game)`` on the compiled tree (numba). OpenSpiel:
``pyspiel.CFRPlusSolver`` (C++) on ``kuhn_poker(players=3)`` and
``leduc_poker(players=3)``, measured with ``pyspiel.nash_conv``. The two games are the
same trees (tests/games/test_kuhn_players.py and test_leduc_players.py compare sizes and
play them in lockstep).

Usage: ``python benchmarks/nplayer_cfr.py [--iterations 10 100 1000] [--games kuhn leduc]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line

from nashzoo.agents.cfr import make_solver
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree.best_response import nash_conv_array

GAMES = {
    "kuhn": (lambda: KuhnPokerGame(players=3), "kuhn_poker"),
    "leduc": (lambda: LeducHoldemGame(players=3), "leduc_poker"),
}


def ours(make, checkpoints: list[int]) -> list[tuple[int, float, float]]:
    start = time.perf_counter()
    solver = make_solver("cfr+", make())
    build = time.perf_counter() - start
    out = []
    for n in checkpoints:
        solver.iterate(n - solver.iteration)
        policy = solver.average_policy()
        out.append((n, float(nash_conv_array(policy.tree, policy.probs)), build + solver.seconds))
    return out


def openspiel(name: str, checkpoints: list[int]) -> list[tuple[int, float, float]]:
    import pyspiel

    game = pyspiel.load_game(name, {"players": 3})
    solver = pyspiel.CFRPlusSolver(game)
    done, seconds, out = 0, 0.0, []
    for n in checkpoints:
        start = time.perf_counter()
        for _ in range(n - done):
            solver.evaluate_and_update_policy()
        seconds += time.perf_counter() - start
        done = n
        value = pyspiel.nash_conv(game, solver.average_policy())
        out.append((n, float(value), seconds))
        print(f"  OpenSpiel {name}: {n} iterations, NashConv {value:.4e}, {seconds:.1f} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args()
    print(machine_line())
    checkpoints = sorted(args.iterations)
    for key in args.games:
        make, name = GAMES[key]
        mine = ours(make, checkpoints)
        for n, value, seconds in mine:
            print(f"  nashzoo {key}: {n} iterations, NashConv {value:.4e}, {seconds:.1f} s")
        try:
            theirs = openspiel(name, checkpoints)
        except ImportError:
            print("open_spiel not installed: nashzoo's column only")
            theirs = []
        print(f"\n### 3-player {key}: CFR+\n")
        print("| iterations | nashzoo NashConv | seconds | OpenSpiel NashConv | seconds |")
        print("|---:|---:|---:|---:|---:|")
        for k, (n, value, seconds) in enumerate(mine):
            other = f"{theirs[k][1]:.4e} | {theirs[k][2]:.1f}" if k < len(theirs) else "- | -"
            print(f"| {n:,} | {value:.4e} | {seconds:.1f} | {other} |")


if __name__ == "__main__":
    main()
