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
