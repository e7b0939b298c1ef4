"""What a sandbox leaves on the host (issue 31, D8): nothing once it ends, whether the
agent failed to start or the server died mid-match; no lock file per user id ever used."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from nashzoo.errors import SandboxError
from nashzoo.eval.guard import Forfeit
from nashzoo.leaderboard import sandbox
from nashzoo.leaderboard.sandbox import SandboxedAgent, process_uids, sweep_stale_sandboxes

from .conftest import EXAMPLE, needs_sandbox

pytestmark = needs_sandbox


def _left_behind(uid: int) -> list[str]:
    tmp = Path(tempfile.gettempdir())
    found = [p.name for p in tmp.glob(f"nashzoo-sandbox-{uid}-*")]
    found += [p.name for p in (tmp / "nashzoo-sandbox-uids").glob(str(uid))]
    return found + [f"process {pid}" for pid, u in process_uids().items() if u == uid]


def test_an_agent_that_fails_to_start_leaves_nothing(tmp_path, reserved_uids):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "agent.toml").write_text('entry = "agent:make"\ngames = ["leduc_holdem"]\n')
    (bundle / "agent.py").write_text("import sys\nsys.stderr.write('x' * 100000)\n1 / 0\n")
    with pytest.raises((Forfeit, SandboxError)) as info:
        SandboxedAgent(bundle, "code", "leduc_holdem", name="broken")
    assert "ZeroDivisionError" in str(info.value)  # the log's tail is in the error
    (uid,) = reserved_uids
    assert _left_behind(uid) == []


def test_an_agent_that_ends_leaves_nothing(reserved_uids):
    with SandboxedAgent(EXAMPLE, "code", "leduc_holdem", name="ok") as agent:
        assert agent.scratch.is_dir() and agent.uid in process_uids().values()
    (uid,) = reserved_uids
    assert _left_behind(uid) == []


def test_a_server_killed_mid_match_leaves_folders_that_the_next_sweep_removes():
    script = (
        "import sys, time\n"
        "from nashzoo.leaderboard.sandbox import SandboxedAgent\n"
        f"agent = SandboxedAgent({str(EXAMPLE)!r}, 'code', 'leduc_holdem', name='ok')\n"
        "print(agent.uid, flush=True)\n"
        "time.sleep(60)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        uid = int(server.stdout.readline())
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
    deadline = time.monotonic() + 10
    while any(u == uid for u in process_uids().values()) and time.monotonic() < deadline:
        time.sleep(0.1)  # bubblewrap's --die-with-parent takes the agent along
    assert [n for n in _left_behind(uid) if n.startswith("nashzoo-sandbox-")], "as before"
    assert sweep_stale_sandboxes(min_age=0) >= 1
    assert _left_behind(uid) == []


@pytest.mark.parametrize("host_mount", [True, False], ids=["host-tmpfs", "bubblewrap-tmpfs"])
def test_the_agents_tmp_is_a_capped_tmpfs(tmp_path, monkeypatch, host_mount, reserved_uids):
    # issue 31, D11: 1 GB reached the host's disk in a second; now /tmp is a tmpfs of
    # tmp_bytes (the host's, with its file cap; else bubblewrap's, size only)
    if not host_mount:
        monkeypatch.setattr(sandbox, "_mount_tmpfs", lambda *args: False)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "agent.toml").write_text('entry = "agent:make"\ngames = ["leduc_holdem"]\n')
    (bundle / "agent.py").write_text(
        "def make(game):\n"
        "    for i in range(64):\n"
        "        open(f'/tmp/f{i}', 'wb').write(bytes(4 << 20))\n"
    )
    limits = sandbox.SandboxLimits(tmp_bytes=32 << 20)
    with pytest.raises(Forfeit, match="No space left on device"):
        SandboxedAgent(bundle, "code", "leduc_holdem", limits, name="filler")
    assert _left_behind(reserved_uids[0]) == []


_SLOW = (
    "import time\n"
    "class Slow:\n"
    "    def act(self, observation, info):\n"
    "        time.sleep(0.05)\n"
    "        return int(observation['action_mask'].nonzero()[0][-1])\n"
    "    def reset(self, *, seed=None):\n"
    "        pass\n"
    "def make(game):\n"
    "    return Slow()\n"
)

_WORKER = """
import os, sys
from pathlib import Path
from nashzoo.leaderboard.sandbox import SandboxLimits
from nashzoo.leaderboard.service import Leaderboard, Settings
from nashzoo.leaderboard.worker import worker_main
settings = Settings(
    database=sys.argv[1], data_dir=Path(sys.argv[2]), games=("leduc_holdem",),
    gauntlet={"random": "random"}, validation_deals=400, lease_seconds=3600.0,
    sandbox=SandboxLimits(move_seconds=2.0, time_bank=600.0, startup_seconds=60.0,
                          memory_bytes=2 << 30),
)
worker_main(settings, f"{os.uname().nodename}-{os.getpid()}-0", parent=os.getppid())
"""


def _descendant_uids(pid: int) -> set[int]:
    """Sandbox user ids of the processes below ``pid`` (each sandbox runs as its own)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    below, grew = {pid}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in below} - below
        below |= more
        grew = bool(more)
    return {u for p, u in process_uids().items() if p in below and u in sandbox.UIDS}


@pytest.mark.parametrize("stop", ["sigterm", "sigkill"])
def test_a_restart_leaves_no_files_and_takes_up_the_interrupted_job_at_once(tmp_path, stop):
    # A worker validating a code bundle (its sandbox up, its bundle extracted) is stopped:
    # by SIGTERM, as `nashzoo serve` stops its workers, it cleans up on the way out; by
    # SIGKILL it cannot, and the next server start (Leaderboard.recover) removes what it
    # left. Either way no sandbox folder, lock file or bundle is left, and the job is
    # queued again at once although its lease had an hour to run (issue 37).
    from nashzoo.leaderboard.accounts import add_user
    from nashzoo.leaderboard.models import Job, Submission

    from .conftest import bundle, make_board

    board = make_board(tmp_path, gauntlet={"random": "random"}, lease_seconds=3600.0)
    with board.session() as session:
        user, _ = add_user(session, "dana")
    sub = board.submit(user, "leduc_holdem", "slow", "slow.zip", bundle(_SLOW))
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER, board.settings.database, str(board.settings.data_dir)]
    )
    uids: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:  # until its sandbox is playing
            with board.session() as session:
                log = session.get(Submission, sub.id).validation_log or ""
            uids = _descendant_uids(worker.pid)
            if "agent built" in log and uids:
                break
            time.sleep(0.2)
        assert "agent built" in log and uids, log
        bundles = list(Path(tempfile.gettempdir()).glob(f"nashzoo-bundle-{worker.pid}-*"))
        assert len(bundles) == 1
    finally:
        worker.send_signal(signal.SIGTERM if stop == "sigterm" else signal.SIGKILL)
        worker.wait(timeout=60)
    deadline = time.monotonic() + 10
    while any(_descendant_uids(worker.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [n for uid in uids for n in _left_behind(uid)]
    left += [p.name for p in bundles if p.exists()]
    if stop == "sigterm":
        assert left == []  # the worker cleaned up as it stopped
    else:
        assert left  # killed: its sandbox folder and bundle are still there
    start = time.perf_counter()
    recovered = make_board(tmp_path, gauntlet={"random": "random"}, lease_seconds=3600.0).recover()
    assert recovered["jobs"] == 1
    assert [n for uid in uids for n in _left_behind(uid)] == []
    assert not any(p.exists() for p in bundles)
    job = board.claim("w2")
    assert job is not None and job.submission_id == sub.id and job.kind == "validate"
    assert time.perf_counter() - start < 10
    with board.session() as session:
        assert session.get(Job, job.id).status == "running"
