"""Training past one core (issue 91). Section ``solver``: the card-abstraction ES-MCCFR
solver's iterations per second on 1 and on 2 sampling threads (the threads share the
regret and average tables, lock-free), interleaved, each figure the median of
``--repeats``; the ratio is the speed-up. Goal: at least 1.8x at 2 threads.

Each measurement runs in a fresh interpreter (no thread or cache state carried over),
after ``--warmup`` iterations outside the clock. The other sections of the issue (actors
and a learner on Ray, the GPU) are not built yet.

Usage: ``python benchmarks/training_scale.py [--abstraction ehs2:169,50,50,50]
[--iterations 100000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, median, runs_text

ONE_RUN = """
import json, sys, time
import nashzoo
from nashzoo.agents.cfr.abstract import AbstractionSolver
abstraction = sys.argv[1]
threads, warmup, iterations = (int(x) for x in sys.argv[2:5])
game = nashzoo.make_game("limit_holdem")
solver = AbstractionSolver(game, abstraction, seed=0, progress=False, threads=threads)
solver.iterate(warmup)
start = time.perf_counter()
solver.iterate(iterations)
print(json.dumps({"per_second": iterations / (time.perf_counter() - start)}))
"""


def one(abstraction: str, threads: int, warmup: int, iterations: int) -> float:
    """Iterations per second of one solver run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", ONE_RUN, abstraction, str(threads), str(warmup), str(iterations)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["per_second"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--abstraction", default="ehs2:169,50,50,50")
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_line())
    print(f"solver: ES-MCCFR on Limit Hold'em, {args.abstraction}, {args.iterations:,} iterations")
    runs: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(args.repeats):  # interleaved
        for threads in runs:
            runs[threads].append(one(args.abstraction, threads, args.warmup, args.iterations))
    for threads, values in runs.items():
        print(
            f"  {threads} thread(s): {median(values):,.0f} iterations/s  (runs {runs_text(values)})"
        )
    print(f"  speed-up at 2 threads: {median(runs[2]) / median(runs[1]):.2f}x (goal 1.8x)")


if __name__ == "__main__":
    main()
