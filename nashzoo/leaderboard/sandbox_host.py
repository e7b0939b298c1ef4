"""The host's side of the sandbox: the folders the runner may see, one unprivileged user
id per sandbox (reserved with a lock file, so concurrent servers never share one), the
in-memory /tmp mounted for it, and the clean-up of what a dead server left behind. Used by
:class:`~nashzoo.leaderboard.sandbox.SandboxedAgent`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nashzoo.errors import SandboxError

if TYPE_CHECKING:
    from nashzoo.leaderboard.sandbox import SandboxLimits

__all__ = ["UIDS", "BUNDLE_PREFIX", "process_uids", "sweep_stale_sandboxes", "sweep_stale_bundles"]

logger = logging.getLogger(__name__)


def _python_paths() -> list[Path]:
    """What the runner's Python needs to see: the installation, the environment, and the
    folders of nashzoo and its imports that lie outside them (editable installs)."""
    import nashzoo

    paths = {Path(sys.base_prefix), Path(sys.prefix), Path(nashzoo.__file__).parent}
    for entry in sys.path:
        p = Path(entry) if entry else None
        if p is not None and p.is_dir() and p.name in ("site-packages", "dist-packages"):
            paths.add(p)
    resolved = sorted({p.resolve() for p in paths} | paths)
    keep: list[Path] = []
    for p in resolved:
        if p == Path("/"):
            continue
        if any(q in p.parents or q == p for q in keep) or Path("/usr") in p.parents:
            continue
        if p == Path("/usr"):
            continue
        keep.append(p)
    return keep


UIDS = range(61000, 65000)
"""The user ids sandboxes run as (one each)."""


def process_uids() -> dict[int, int]:
    """The real user id of every live process (zombies, which hold nothing but their
    process id until reaped, left out), by process id, from ``/proc``."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            if not fields["State"].strip().startswith("Z"):
                found[int(entry)] = int(fields["Uid"].split()[0])
        except (OSError, KeyError, ValueError):
            continue  # the process ended meanwhile
    return found


_FOLDER_PREFIX = "nashzoo-sandbox-"
"""A sandbox's host folder: ``nashzoo-sandbox-UID-XXXX`` in the system's temp folder,
holding ``tmp/`` (the agent's ``/tmp``) and ``log`` (its stderr, outside its reach)."""


def _uid_locks() -> Path:
    """The folder of the user-id reservations (root's, mode 0700)."""
    folder = Path(tempfile.gettempdir()) / "nashzoo-sandbox-uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _reserve_uid() -> tuple[int, Any]:
    """A user id that no process uses and no other sandbox holds, with its reservation:
    an exclusive ``flock`` on a file of that id, held until the returned file is closed
    (or its holder dies), so that sandboxes started at once by different worker
    processes never share a user."""
    folder = _uid_locks()
    used = set(process_uids().values())
    for _ in range(200):
        uid = random.choice(UIDS)
        if uid in used:
            continue
        handle = _free_lock(folder / str(uid))  # held for the sandbox's life
        if handle is None:
            continue
        if uid in set(process_uids().values()):  # a sandbox that just let go is dying
            handle.close()
            continue
        return uid, handle
    raise SandboxError(f"No free user id for a sandbox in {UIDS.start}-{UIDS.stop - 1}.")


_warned_no_mount = False


def _mount_tmpfs(where: Path, uid: int, limits: SandboxLimits) -> bool:
    """Mount a tmpfs of ``limits.tmp_bytes`` and ``limits.tmp_files`` inodes, owned by
    ``uid``, on ``where``; ``False`` where the host does not let the server mount (then
    bubblewrap's own tmpfs caps the size alone)."""
    global _warned_no_mount
    options = (
        f"size={limits.tmp_bytes},nr_inodes={limits.tmp_files},mode=0700,uid={uid},gid={uid},"
        "nosuid,nodev"
    )
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "nashzoo-sandbox", str(where)],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:  # no mount program
        done = subprocess.CompletedProcess([], 127, "", str(exc))
    if done.returncode != 0 and not _warned_no_mount:
        _warned_no_mount = True
        logger.warning(
            "cannot mount a tmpfs for the sandbox's /tmp (%s); its size is capped at %d "
            "bytes by bubblewrap's tmpfs, without a cap on its number of files",
            done.stderr.strip() or f"mount exited {done.returncode}",
            limits.tmp_bytes,
        )
    return done.returncode == 0


def _unmount(where: Path) -> None:
    """Detach a tmpfs mounted by :func:`_mount_tmpfs` (nothing if none is there)."""
    if os.path.ismount(where):
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def _free_lock(path: Path) -> Any | None:
    """An exclusive, non-blocking ``flock`` on the file at ``path`` (its handle), or
    ``None`` while another holds it. A lock file is removed while locked (when its
    sandbox ends, or by a sweep), so a lock won on a file that is no longer the one at
    ``path`` is worth nothing: it is given up, and ``None`` returned."""
    import fcntl

    try:
        handle = open(path, "a")  # noqa: SIM115 (closed by the caller)
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino != os.fstat(handle.fileno()).st_ino:
            raise OSError("the lock file was replaced")
    except OSError:
        handle.close()
        return None
    return handle


def sweep_stale_sandboxes(min_age: float = 60.0) -> int:
    """Remove what sandboxes of dead processes left behind: their host folders (the
    agent's scratch ``/tmp`` and its log; a server stopped mid-match leaves them) and
    the lock files of user ids no sandbox holds. A folder is stale when no live process
    holds its user id's lock and it is at least ``min_age`` seconds old (a sandbox that
    has just ended may still be reading its log). Returns how many folders were
    removed."""
    removed = 0
    root = Path(tempfile.gettempdir())
    locks = _uid_locks()
    for folder in root.glob(f"{_FOLDER_PREFIX}*"):
        uid = folder.name[len(_FOLDER_PREFIX) :].split("-", 1)[0]
        try:
            young = time.time() - folder.stat().st_mtime < min_age
        except OSError:
            continue
        if not uid.isdigit() or not folder.is_dir() or young:
            continue
        handle = _free_lock(locks / uid)
        if handle is None:
            continue  # a live sandbox of that user id
        try:
            _kill_uid(int(uid), wait=2.0)
            _unmount(folder / "tmp")
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
        finally:
            with contextlib.suppress(OSError):
                (locks / uid).unlink()
            handle.close()
    for lock in locks.iterdir():
        handle = _free_lock(lock)
        if handle is not None:
            with contextlib.suppress(OSError):
                lock.unlink()
            handle.close()
    return removed


BUNDLE_PREFIX = "nashzoo-bundle-"
"""Extracted code bundles live in ``{tmp}/nashzoo-bundle-{pid}-*``, ``pid`` the process
that extracted them (a worker), so that a sweep knows whose they are."""


def sweep_stale_bundles() -> int:
    """Remove the extracted bundle folders of processes that are gone (a worker killed
    mid-job leaves its bundle behind). Returns how many were removed."""
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob(f"{BUNDLE_PREFIX}*"):
        pid = folder.name[len(BUNDLE_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or not folder.is_dir():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # its process is alive
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed


def _kill_uid(uid: int, wait: float = 10.0) -> None:
    """SIGKILL every process of ``uid`` until none is left (a fork bomb may still be
    forking while the first ones die), for at most ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        left = [pid for pid, owner in process_uids().items() if owner == uid]
        if not left:
            return
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            logger.error("processes %s of sandbox user %d survived SIGKILL", left, uid)
            return
        time.sleep(0.01)
