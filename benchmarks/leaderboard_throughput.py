"""Leaderboard throughput: sandboxed games per second, and upload-to-rating times.

One run, on a quiet machine:

1. Leduc games per second of two code-bundle agents (a last-legal-action bot) through
   the full sandbox (bubblewrap, prlimit, setpriv, JSON lines; blocks of 2,000 duplicate
   deals in lockstep) against the same agents in process through the tournament engine
   (``play_duplicate_deals``, the harness's own path: the peer figure). Interleaved,
   median of 3; both absolute figures printed.
2. Seconds from upload to the first rating on the board for a Leduc policy file and for
   a code bundle, with one worker in this process.

Goals (issue 14): >= 5,000 sandboxed Leduc games/s per worker; a policy file ranked
within 15 s of upload, a code bundle within 60 s.

    python -m benchmarks.leaderboard_throughput
"""

from __future__ import annotations

import io
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

SOURCE = (
    Path(__file__).resolve().parents[1] / "examples" / "leaderboard_agent" / "agent.py"
).read_text()


def _bundle() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("agent.toml", 'entry = "agent:make"\ngames = ["leduc_holdem"]\n')
        z.writestr("agent.py", SOURCE)
    return buffer.getvalue()


def games_per_second(deals: int = 2000) -> tuple[float, float]:
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.engine import deal_uniforms, play_duplicate_deals
    from nashzoo.eval.lockstep import play_duplicate_lockstep
    from nashzoo.leaderboard.sandbox import SandboxedAgent

    game = make_game("leduc_holdem")
    namespace: dict = {}
    exec(SOURCE, namespace)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)
        zipfile.ZipFile(io.BytesIO(_bundle())).extractall(folder)
        for f in folder.iterdir():
            f.chmod(0o644)
        sandboxed, in_process = [], []
        with (
            SandboxedAgent(folder, "code", "leduc_holdem") as a,
            SandboxedAgent(folder, "code", "leduc_holdem") as b,
        ):
            for rep in range(3):
                uniforms = deal_uniforms(game, deals, np.random.default_rng(rep))
                start = time.perf_counter()
                play_duplicate_lockstep(game, a, b, uniforms)
                sandboxed.append(2 * deals / (time.perf_counter() - start))
                x, y = namespace["make"](game), namespace["make"](game)
                start = time.perf_counter()
                play_duplicate_deals(game, x, y, uniforms)
                in_process.append(2 * deals / (time.perf_counter() - start))
    return statistics.median(sandboxed), statistics.median(in_process)


def upload_to_rating(policy: bytes, kind: str) -> float:
    from sqlalchemy import select

    from nashzoo.leaderboard.accounts import add_user
    from nashzoo.leaderboard.models import Rating
    from nashzoo.leaderboard.service import Leaderboard, Settings, entrant_of

    with tempfile.TemporaryDirectory() as tmp:
        board = Leaderboard(
            Settings(database=f"{tmp}/lb.db", data_dir=Path(tmp) / "data",
                     games=("leduc_holdem",))
        )  # fmt: skip
        with board.session() as session:
            user, _ = add_user(session, "bench")
        board.work("warm-up")  # the gauntlet's own pairings, before the clock starts
        name, data = ("p.npz", policy) if kind == "policy" else ("b.zip", _bundle())
        start = time.perf_counter()
        sub = board.submit(user, "leduc_holdem", kind, name, data)
        while True:
            job = board.claim("bench")
            assert job is not None, "no job left before the submission was rated"
            board.run_job(job)
            with board.session() as session:
                rated = session.scalar(select(Rating).where(Rating.entrant == entrant_of(sub.id)))
            if rated is not None:
                return time.perf_counter() - start


def main() -> int:
    import os
    import platform

    from nashzoo.agents.cfr import make_solver
    from nashzoo.envs.registration import make_game

    solver = make_solver("cfr+", make_game("leduc_holdem"))
    solver.iterate(500)
    with tempfile.TemporaryDirectory() as tmp:
        solver.average_policy().save(f"{tmp}/p.npz")
        policy = Path(f"{tmp}/p.npz").read_bytes()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")  # fmt: skip
    sandboxed, in_process = games_per_second()
    print(f"Leduc games/s, two code-bundle agents: sandboxed {sandboxed:,.0f}, in process "
          f"(tournament engine) {in_process:,.0f}, ratio {sandboxed / in_process:.2f} "
          f"(goal: sandboxed >= 5,000)")  # fmt: skip
    for kind in ("policy", "code"):
        seconds = upload_to_rating(policy, kind)
        goal = 15 if kind == "policy" else 60
        print(f"upload to first rating, {kind}: {seconds:.1f} s (goal <= {goal} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
