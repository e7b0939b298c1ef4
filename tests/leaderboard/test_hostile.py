"""Hostile agents, each a real bundle run through the sandbox by the service.

Each must end with its outcome code, leave no process behind, leave the database and the
other submissions' results as they were, and not stop the server's work.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import zipfile

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.models import Submission
from nashzoo.leaderboard.sandbox import UIDS, process_uids

from .conftest import LAST_LEGAL, bundle, needs_sandbox

pytestmark = needs_sandbox

ACTOR = """
import numpy as np, os, sys, time
class Hostile:
    name = "hostile"
    moves = 0
    def act(self, observation, info):
        self.moves += 1
        if self.moves >= {after}:
            {body}
        return int(np.flatnonzero(observation["action_mask"])[0])
    def reset(self, *, seed=None):
        pass
def make(game):
    return Hostile()
"""


def _actor(body: str, after: int = 1) -> str:
    return ACTOR.replace("{after}", str(after)).replace("{body}", body)


def _sb3_pickle_bomb(marker: str) -> bytes:
    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    data = {
        "policy_class": {
            ":type:": "<class 'abc.ABCMeta'>",
            ":serialized:": base64.b64encode(pickle.dumps(Payload())).decode(),
        }
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("policy.pth", b"not a tensor")
        z.writestr("_stable_baselines3_version", "2.3.0")
    return buffer.getvalue()


def _sandbox_processes(uids=UIDS) -> list[int]:
    return [pid for pid, uid in process_uids().items() if uid in uids]


def test_hostile_agents_get_their_outcome_codes_and_hurt_nothing(
    board, tmp_path, cfr_policy_file, reserved_uids
):
    db_path = tmp_path / "lb.db"
    marker = tmp_path / "pwned"
    hostile = {
        "infinite-loop": (_actor("while True: pass"), {"TIMEOUT"}),
        "sleeper": (_actor("time.sleep(30)"), {"TIMEOUT"}),
        "10GB": (_actor("x = np.ones(10 * 2**30, dtype=np.uint8); x[::4096] = 1"), {"MEMORY"}),
        "fork-bomb": (
            _actor(
                "while True:\n                try: os.fork()\n                except OSError: pass"
            ),
            {"TIMEOUT", "CRASH"},
        ),
        "socket": (
            _actor("import socket; socket.create_connection(('1.1.1.1', 80), timeout=2)"),
            {"CRASH"},
        ),
        "reads-secrets": (
            _actor(
                f"data = open('/etc/passwd').read() + open({str(db_path)!r}, 'rb').read().hex()\n"
                "            return 99"
            ),
            {"CRASH"},
        ),
        "huge-file": (_actor("open('/tmp/big', 'wb').write(b'0' * (200 << 20))"), {"CRASH"}),
        # Issue 31, D11: 1 GB in files below the per-file cap, and 100,000 empty files;
        # the /tmp tmpfs (64 MiB, 4,096 files) stops both, and the host's disk sees none.
        "disk-filler": (
            _actor("[open(f'/tmp/f{i}', 'wb').write(bytes(8 << 20)) for i in range(128)]"),
            {"CRASH"},
        ),
        "file-flood": (
            _actor("[open(f'/tmp/e{i}', 'wb').close() for i in range(100_000)]"),
            {"CRASH"},
        ),
        "garbage": (
            _actor(
                "for fd in range(1, 12):\n"
                "                try: os.write(fd, b'garbage\\\\n')\n"
                "                except OSError: pass\n"
                "            time.sleep(0.2)"
            ),
            {"BAD_OUTPUT"},
        ),
        "silent-exit": (
            LAST_LEGAL.replace("return LastLegal()", "os._exit(0)").replace(
                "import numpy as np", "import numpy as np, os"
            ),
            {"CRASH"},
        ),
        "exits-mid-match": (_actor("os._exit(3)", after=5), {"CRASH"}),
        "illegal": (_actor("return 7"), {"ILLEGAL"}),
        # States probabilities that sum to 2: not a policy, so no exploitability to show.
        # Probabilities as strings or booleans: refused, never converted (issue 31).
        "string-probabilities": (
            LAST_LEGAL.replace("return probs", "return [str(p) for p in probs]"),
            {"CRASH", "BAD_OUTPUT"},
        ),
        "boolean-probabilities": (
            LAST_LEGAL.replace("return probs", "return probs > 0"),
            {"CRASH", "BAD_OUTPUT"},
        ),
        "false-probabilities": (
            LAST_LEGAL.replace("info)] = 1.0", "info)] = 2.0"),
            {"BAD_OUTPUT"},
        ),
    }
    assert "info)] = 1.0" in LAST_LEGAL
    with board.session() as session:
        user, _ = add_user(session, "mallory", max_submissions=50)
        good_user, _ = add_user(session, "alice")
    good = board.submit(good_user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
    board.work("w-good")
    tid = board.tournament("leduc_holdem")
    before = sorted((r.a, r.b, r.block, r.total) for r in board.store.results(tid))
    assert before, "the good submission played its blocks"
    ids = {}
    for name, (source, _) in hostile.items():
        ids[name] = board.submit(user, "leduc_holdem", name, f"{name}.zip", bundle(source)).id
    ids["sb3-pickle"] = board.submit(
        user, "leduc_holdem", "sb3-pickle", "model.zip", _sb3_pickle_bomb(str(marker))
    ).id
    hostile["sb3-pickle"] = ("", {"CRASH"})
    board.work("w-hostile")
    with board.session() as session:
        outcomes = {n: session.get(Submission, i) for n, i in ids.items()}
        assert session.get(Submission, good.id).status == "ranked"
    for name, (_, codes) in hostile.items():
        sub = outcomes[name]
        assert sub.status == "failed", (name, sub.status, sub.validation_log)
        assert sub.error_code in codes, (name, sub.error_code, sub.error_message)
    assert "Network is unreachable" in outcomes["socket"].error_message
    assert "FileNotFoundError" in outcomes["reads-secrets"].error_message  # no /etc in there
    assert not marker.exists(), "the pickle ran a command on the host"
    # played by what it states, its first decision already shows the statement is no policy
    assert "not a distribution" in outcomes["false-probabilities"].error_message
    for name in ("disk-filler", "file-flood"):
        assert "No space left on device" in outcomes[name].error_message, name
    for kind in ("string", "boolean"):
        assert "not real numbers" in outcomes[f"{kind}-probabilities"].error_message
    assert reserved_uids, "the hostile agents ran in sandboxes"
    assert _sandbox_processes(reserved_uids) == [], "a sandboxed process outlived its match"
    # The database is intact and nothing the hostile agents did touched the results.
    after = sorted((r.a, r.b, r.block, r.total) for r in board.store.results(tid))
    assert after == before
    with board.engine.connect() as conn:
        from sqlalchemy import text

        assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"


def test_the_database_file_is_unreadable_to_sandboxed_users(board, tmp_path):
    # Even if the database were inside the sandbox, its mode keeps other users out.
    mode = os.stat(tmp_path / "lb.db").st_mode & 0o777
    assert mode == 0o600
    assert os.stat(tmp_path / "data").st_mode & 0o777 == 0o700
