"""Running untrusted agents: one process per agent, shut in, on a clock, killed whole.

Each code agent (a bundle, or a stable-baselines3 model, which unpickles) runs
:mod:`nashzoo.leaderboard.runner` in a process started as::

    prlimit --as --cpu --nproc --nofile --fsize -- \\
      bwrap --unshare-net --unshare-pid --unshare-ipc --unshare-uts --new-session \\
            --die-with-parent --clearenv --ro-bind /usr ... --bind SCRATCH /tmp \\
            ... (only what Python needs) --ro-bind BUNDLE /agent -- \\
      setpriv --reuid U --regid U --clear-groups --no-new-privs \\
            --inh-caps -all --bounding-set -all  python -I -m nashzoo.leaderboard.runner

* **no network** (a network namespace with nothing in it);
* **the server's files are not there**: the mount namespace holds /usr, the Python
  installation, the virtual environment, the nashzoo package, the bundle (read-only) and
  a private scratch folder; not /etc, not the database, not the server's working folder.
  And it runs as an unprivileged user ``U`` of its own (one per sandbox, no capabilities),
  so files that are there keep their permissions against it;
* **limits** (util-linux ``prlimit``): address space, CPU seconds, processes (per ``U``,
  so a fork bomb stops at the cap), open files, file size;
* **a /tmp in memory**: a tmpfs of ``tmp_bytes`` (64 MiB) with at most ``tmp_files``
  (4,096) files, mounted by the server on the scratch folder, so nothing an agent writes
  reaches the host's disk and it cannot fill the disk that holds the database. Where the
  host lets no process mount, bubblewrap's own tmpfs (``--size``) caps the size alone;
* **a new session**: the whole process group is killed with the sandbox, and every
  process left of ``U`` after it (none can be: the PID namespace dies with its init);
* **a clock**: a limit per decision plus a time bank per match.

Faults are forfeits with the arenas' outcome codes: ``TIMEOUT``, ``MEMORY``, ``CRASH``,
``BAD_OUTPUT``, ``ILLEGAL`` (:data:`OUTCOMES`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nashzoo.envs.protocol import Request
from nashzoo.errors import SandboxError
from nashzoo.eval.guard import Forfeit
from nashzoo.leaderboard.sandbox_host import (  # the host's side: users, folders, mounts
    _FOLDER_PREFIX,
    BUNDLE_PREFIX,
    UIDS,
    _kill_uid,
    _mount_tmpfs,
    _python_paths,
    _reserve_uid,
    _uid_locks,
    _unmount,
    process_uids,
    sweep_stale_bundles,
    sweep_stale_sandboxes,
)

__all__ = [
    "SandboxLimits",
    "SandboxedAgent",
    "sandbox_problem",
    "OUTCOMES",
    "outcome_code",
    "UIDS",
    "process_uids",
    "sweep_stale_sandboxes",
    "sweep_stale_bundles",
    "BUNDLE_PREFIX",
]

OUTCOMES = ("TIMEOUT", "MEMORY", "CRASH", "BAD_OUTPUT", "ILLEGAL")
"""How a sandboxed agent can lose a block (each a forfeit recorded with its reason)."""

_KIND_TO_CODE = {
    "timeout": "TIMEOUT",
    "memory": "MEMORY",
    "crash": "CRASH",
    "error": "CRASH",
    "bad_output": "BAD_OUTPUT",
    "illegal": "ILLEGAL",
}

_MAX_LINE = 8 << 20

logger = logging.getLogger(__name__)


def outcome_code(kind: str) -> str:
    """The outcome code of a :class:`~nashzoo.eval.guard.Forfeit` kind."""
    return _KIND_TO_CODE.get(kind, "CRASH")


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed agent.

    Attributes:
        move_seconds: per decision (a message of ``n`` decisions gets ``n`` times this).
        time_bank: extra seconds per match, spent when decisions run over.
        startup_seconds: to import and build the agent.
        memory_bytes: address space (``RLIMIT_AS``).
        cpu_seconds: CPU time of the whole process (``RLIMIT_CPU``).
        processes: processes and threads of its user (``RLIMIT_NPROC``).
        open_files: ``RLIMIT_NOFILE``.
        file_bytes: largest file it may write (``RLIMIT_FSIZE``).
        tmp_bytes: the whole of its ``/tmp``, a tmpfs of this size (nothing it writes
            reaches the host's disk).
        tmp_files: the most files and folders in its ``/tmp`` (the tmpfs's inodes),
            where the host lets the server mount one; else bubblewrap's own tmpfs of
            ``tmp_bytes`` is used, without a file-count cap (logged at start).
    """

    move_seconds: float = 1.0
    time_bank: float = 10.0
    startup_seconds: float = 60.0
    memory_bytes: int = 4 << 30
    cpu_seconds: int = 600
    processes: int = 64
    open_files: int = 256
    file_bytes: int = 16 << 20
    tmp_bytes: int = 64 << 20
    tmp_files: int = 4096


def sandbox_problem() -> str | None:
    """Why code agents cannot run here (``None`` when they can)."""
    if sys.platform != "linux":
        return "the sandbox needs Linux namespaces"
    if os.geteuid() != 0:
        return "the sandbox needs to start as root (to switch each agent to its own user)"
    for tool in ("bwrap", "prlimit", "setpriv"):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == "bwrap" else "util-linux"
            return f"the sandbox needs {tool} (apt-get install {package})"
    return None


class SandboxedAgent:
    """A submitted agent in its sandbox; an Agent for the lockstep engine (``act_many``).

    Args:
        source: the extracted bundle folder (``kind="code"``) or the model file
            (``kind="sb3"``).
        kind: ``"code"`` or ``"sb3"``.
        game_id: the game it plays.
        limits: resource limits.
        name: its display name.

    Raises:
        SandboxError: this machine cannot run sandboxes (:func:`sandbox_problem`).
        Forfeit: the agent failed to start (crash, timeout, memory, bad output).
    """

    def __init__(
        self,
        source: Path,
        kind: str,
        game_id: str,
        limits: SandboxLimits | None = None,
        name: str = "sandboxed",
    ) -> None:
        problem = sandbox_problem()
        if problem is not None:
            raise SandboxError(f"Cannot run code agents: {problem}.")
        self.limits = limits or SandboxLimits()
        self.name = name
        self.kind = kind
        self.bank = self.limits.time_bank
        self.sent: set[str] = set()
        sweep_stale_sandboxes()
        self.uid, self._uid_lock = _reserve_uid()
        self.folder = Path(tempfile.mkdtemp(prefix=f"{_FOLDER_PREFIX}{self.uid}-"))
        self.scratch = self.folder / "tmp"
        self.scratch.mkdir()
        self._mounted = _mount_tmpfs(self.scratch, self.uid, self.limits)
        os.chown(self.scratch, self.uid, self.uid)
        self.log_path = self.folder / "log"
        self._buffer = b""
        self.proc: subprocess.Popen[bytes] | None = None
        self.states_probabilities = False
        source = Path(source).resolve()
        inside = "/agent" if kind == "code" else f"/agent/{source.name}"
        bind_source = source if kind == "code" else source.parent
        lim = self.limits
        command = [
            "prlimit",
            f"--as={lim.memory_bytes}",
            f"--cpu={lim.cpu_seconds}",
            f"--nproc={lim.processes}",
            f"--nofile={lim.open_files}",
            f"--fsize={lim.file_bytes}",
            "--",
            "bwrap",
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--new-session",
            "--die-with-parent",
            "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin",
            "--setenv", "HOME", "/tmp",
            "--setenv", "TMPDIR", "/tmp",
            "--setenv", "OMP_NUM_THREADS", "1",
            "--setenv", "NUMBA_CACHE_DIR", "/tmp",
            "--setenv", "MPLCONFIGDIR", "/tmp",
            "--ro-bind", "/usr", "/usr",
        ]  # fmt: skip
        for link in ("bin", "lib", "lib64", "sbin"):
            target = Path("/") / link
            if target.is_symlink():
                command += ["--symlink", os.readlink(target), f"/{link}"]
            elif target.is_dir():
                command += ["--ro-bind", str(target), f"/{link}"]
        # The private /tmp first: the Python installation may live under /tmp (a CI
        # checkout's venv), and a later mount would hide it. A tmpfs of tmp_bytes: the
        # host's (with its file cap) where it could be mounted, else bubblewrap's own.
        if self._mounted:
            command += ["--bind", str(self.scratch), "/tmp"]
        else:
            command += ["--size", str(lim.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
        made: set[Path] = {Path("/"), Path("/tmp")}
        for path in _python_paths():
            for parent in reversed(path.parents):
                if parent not in made:
                    command += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
            command += ["--ro-bind", str(path), str(path)]
        command += [
            "--proc", "/proc",
            "--dev", "/dev",
            "--ro-bind", str(bind_source), "/agent",
            "--chdir", "/tmp",
            "--cap-add", "CAP_SETUID",
            "--cap-add", "CAP_SETGID",
            "--",
            "setpriv",
            f"--reuid={self.uid}",
            f"--regid={self.uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            sys.executable, "-I", "-m", "nashzoo.leaderboard.runner", kind, inside, game_id,
        ]  # fmt: skip
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            start_new_session=True,
            close_fds=True,
        )
        try:
            hello = self._receive(time.monotonic() + lim.startup_seconds, "starting")
            if not hello.get("ready"):
                raise Forfeit(-1, "the agent did not say ready", "bad_output")
            self.states_probabilities = bool(hello.get("probabilities"))
        except BaseException:
            self.close()  # the Forfeit carries the log's tail: nothing is left behind
            self.remove_log()
            raise

    # -- the protocol -----------------------------------------------------------------
    def log_tail(self, limit: int = 2000) -> str:
        """The end of the agent's stderr."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - limit))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _died(self, doing: str) -> Forfeit:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        tail = self.log_tail()
        if "MemoryError" in tail or "Cannot allocate memory" in tail:
            kind = "memory"
        elif code is not None and code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            kind = "timeout"
        else:
            kind = "crash"
        last = tail.strip().splitlines()[-1:] or ["(no output)"]
        return Forfeit(
            -1, f"the agent's process ended while {doing} (exit {code}): {last[0]}", kind
        )

    def _receive(self, deadline: float, doing: str) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Forfeit(-1, f"no answer in time while {doing}", "timeout")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died(doing)
            self._buffer += chunk
            if len(self._buffer) > _MAX_LINE:
                raise Forfeit(-1, f"answered more than {_MAX_LINE} bytes in one line", "bad_output")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Forfeit(
                -1,
                f"answered something that is not JSON while {doing}: {line[:80]!r}",
                "bad_output",
            ) from None
        if not isinstance(message, dict):
            raise Forfeit(-1, f"answered {line[:80]!r}, not a JSON object", "bad_output")
        if "error" in message:
            code = str(message.get("code", "CRASH"))
            kind = "memory" if code == "MEMORY" else "crash"
            raise Forfeit(-1, f"{str(message['error'])[:500]}", kind)
        return message

    def _send(self, message: dict[str, Any], doing: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died(doing) from None

    def new_match(self) -> None:
        """Refill the time bank (call before each block)."""
        self.bank = self.limits.time_bank

    def reset(self, *, seed: int | None = None) -> None:
        """Seed the agent (``reset(seed=...)`` inside the sandbox)."""
        if seed is None:
            return
        start = time.monotonic()
        self._send({"seed": int(seed)}, "seeding")
        self._receive(start + self.limits.move_seconds + self.bank, "seeding")

    def act(self, observation: Any, info: Any) -> int:
        """One decision (the lockstep engine calls :meth:`act_many`)."""
        return int(self.act_many([(observation, info)])[0])

    def act_many(self, requests: Sequence[Request]) -> list[Any]:
        """Actions for several decisions, in one round trip."""
        return self._ask("act", requests, "deciding", "actions", "decisions")

    def probabilities_many(self, requests: Sequence[Request]) -> list[Any]:
        """The agent's stated action probabilities at several decisions, in one round trip
        (only for an agent whose runner said it states them: :attr:`states_probabilities`).

        Raises:
            SandboxError: the agent does not state probabilities.
            Forfeit: it failed, ran out of time, or answered the wrong number of rows.
        """
        if not self.states_probabilities:
            raise SandboxError(f"{self.name} has no action_probabilities.")
        rows = self._ask(
            "probs", requests, "stating probabilities", "probabilities", "information states"
        )
        for row in rows:
            # JSON numbers only: strings, booleans, nulls and nested lists are not
            # probabilities, and nothing here turns them into ones
            if not isinstance(row, list) or not all(
                type(p) in (int, float) and math.isfinite(p) for p in row
            ):
                raise Forfeit(
                    -1,
                    f"stated probabilities that are not a list of finite numbers: {str(row)[:120]}",
                    "bad_output",
                )
        return rows

    def _ask(
        self, verb: str, requests: Sequence[Request], doing: str, answer: str, what: str
    ) -> list[Any]:
        """Send ``requests`` as one ``verb`` message on the clock; the reply's ``answer``
        list, one entry per request.

        Raises:
            Forfeit: no list of ``len(requests)`` entries came back in time.
        """
        rows = []
        for observation, info in requests:
            key = info["info_state"]
            if key in self.sent:
                rows.append([key, info["player"], info["history_length"], None, None, None])
            else:
                self.sent.add(key)
                rows.append([
                    key,
                    info["player"],
                    info["history_length"],
                    observation["observation"].tolist(),
                    observation["action_mask"].tolist(),
                    info["public_history"].tolist(),
                ])  # fmt: skip
        start = time.monotonic()
        allowance = self.limits.move_seconds * len(rows)
        self._send({verb: rows}, doing)
        reply = self._receive(start + allowance + self.bank, doing)
        elapsed = time.monotonic() - start
        self.bank -= max(0.0, elapsed - allowance)
        answers = reply.get(answer)
        if not isinstance(answers, list) or len(answers) != len(requests):
            raise Forfeit(
                -1,
                f"answered {str(answers)[:80]} for {len(requests)} {what} (expected a list of "
                f"{len(requests)} {answer})",
                "bad_output",
            )
        return answers

    def close(self) -> None:
        """Kill the agent's whole process group and every process of its user; remove its
        scratch folder."""
        proc, self.proc = self.proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        _kill_uid(self.uid)
        if not self._uid_lock.closed:  # the user id is free once nothing of it is left
            with contextlib.suppress(OSError):
                (_uid_locks() / str(self.uid)).unlink()
            self._uid_lock.close()
        with contextlib.suppress(OSError):
            self._log.close()
        _unmount(self.scratch)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def remove_log(self) -> None:
        """Delete the stderr log (after :meth:`log_tail` was read) and the sandbox's host
        folder with it."""
        with contextlib.suppress(OSError):
            self.log_path.unlink()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> SandboxedAgent:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
        self.remove_log()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()
