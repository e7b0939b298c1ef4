"""Optional dependencies and per-user directories.

Heavy parts of nashzoo sit behind extras (``pip install 'nashzoo[torch]'``) and are
imported only when used; :func:`require` imports one or says which extra to install.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from nashzoo.errors import MissingDependencyError

__all__ = [
    "require",
    "user_cache_dir",
    "cache_lock",
    "temporary_sibling",
    "use_numba_user_cache",
    "progress_bar",
    "LineProgress",
    "cache_root",
    "cache_entries",
    "clear_cache",
    "cache_written",
    "PROGRESS_SECONDS",
]

log = logging.getLogger(__name__)


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`~nashzoo.errors.MissingDependencyError`.

    Args:
        module: the module to import, e.g. ``"torch"``.
        extra: the nashzoo extra that installs it, e.g. ``"torch"``.
        feature: what needs it, for the message, e.g. ``"NFSP"``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{feature} needs {module.split('.')[0]}: pip install 'nashzoo[{extra}]'."
        ) from exc


def user_cache_dir(*parts: str) -> Path:
    """``<user cache>/nashzoo/<parts>`` (XDG_CACHE_HOME or ~/.cache; LOCALAPPDATA on
    Windows), created if missing. Nothing is ever written inside the installed package."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = base.joinpath("nashzoo", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_root() -> Path:
    """``<user cache>/nashzoo``: the folder every cache of nashzoo is under
    (:func:`user_cache_dir`)."""
    return user_cache_dir()


def cache_entries(part: str | None = None) -> list[tuple[Path, int]]:
    """Every file of nashzoo's cache (or of its ``part``: ``"abstraction"``, ``"numba"``)
    with its size in bytes, largest first; lock files left out."""
    root = cache_root() if part is None else cache_root() / part
    if not root.is_dir():
        return []
    files = [f for f in root.rglob("*") if f.is_file() and not f.name.endswith(".lock")]
    return sorted(((f, f.stat().st_size) for f in files), key=lambda e: -e[1])


def clear_cache(part: str | None = None) -> tuple[int, int]:
    """Delete nashzoo's cache files (or those of ``part``); returns ``(files, bytes)``
    removed. Every entry is made again when next needed (the Hold'em sweep takes minutes,
    numba's compiled functions seconds each)."""
    removed = freed = 0
    for path, size in cache_entries(part):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
            freed += size
    return removed, freed


def cache_written(path: Path, what: str) -> None:
    """Log that ``what`` was written to the cache at ``path``, its size and the cache's,
    and how to list or clear it."""
    size = path.stat().st_size
    total = sum(s for _, s in cache_entries())
    log.info(
        "%s cached: %s (%.1f MB; the cache %.1f MB: `nashzoo cache` lists it, "
        "`nashzoo cache clear` empties it)", what, path, size / 1e6, total / 1e6,
    )  # fmt: skip


@contextlib.contextmanager
def cache_lock(path: Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` while the block runs, so that processes
    (or threads) about to compute the same cache entry take turns: the ones that waited
    find the file written and read it instead of computing it again. POSIX ``flock``;
    where there is none (Windows) the block runs unlocked, as before. ``what`` names the
    entry in the message logged while waiting."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("waiting for another process computing %s (%s)", what, path)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def temporary_sibling(path: Path) -> Path:
    """A name beside ``path``, unique to this process and thread, to write a file under
    before renaming it onto ``path`` (``Path.replace`` is atomic): two writers of the
    same file never write into, or rename, each other's temporary file. Keeps the
    suffix (``np.savez`` adds ``.npz`` to a name without it)."""
    import threading

    return path.with_name(f"{path.stem}.{os.getpid()}-{threading.get_ident()}.tmp{path.suffix}")


def use_numba_user_cache() -> None:
    """Cache numba's compiled functions in the user's cache directory (every process, Ray
    workers included, calls this before compiling), never next to the installed package,
    which may be read-only or shared. ``NUMBA_CACHE_DIR``, when set, wins."""
    import numba

    if not numba.config.CACHE_DIR:  # type: ignore[attr-defined]
        numba.config.CACHE_DIR = str(user_cache_dir("numba"))  # type: ignore[attr-defined]


PROGRESS_SECONDS = 30.0
"""Where the output is not a terminal (a log file, nohup, SLURM, CI), seconds between
progress lines (the ``NASHZOO_PROGRESS_SECONDS`` environment variable sets them)."""


def progress_bar(**kwargs: Any) -> Any:
    """A tqdm progress bar on a terminal; elsewhere a :class:`LineProgress` that writes
    one plain line every :data:`PROGRESS_SECONDS` (and one at the end), so a run whose
    output goes to a file still says how far it is. Keyword arguments go to ``tqdm``
    (``disable=True``: nothing at all)."""
    if kwargs.get("disable") is True:
        from tqdm.auto import tqdm

        return tqdm(**kwargs)
    if not sys.stderr.isatty():
        return LineProgress(**kwargs)
    from tqdm.auto import tqdm

    kwargs.setdefault("disable", None)
    return tqdm(**kwargs)


class LineProgress:
    """Progress as plain lines on stderr, for output that is not a terminal:
    ``[tournament 1a2b] 120/1,000 blocks (12%), 1m05s elapsed, about 7m55s left``, at
    most one every ``interval`` seconds (default :data:`PROGRESS_SECONDS`, or the
    ``NASHZOO_PROGRESS_SECONDS`` environment variable) and one when it closes. The part
    of tqdm's interface nashzoo uses: ``update``, ``set_postfix``, ``set_description``,
    ``close``, ``n`` and ``total``."""

    def __init__(
        self,
        total: float | None = None,
        initial: float = 0,
        desc: str | None = None,
        unit: str = "it",
        interval: float | None = None,
        file: Any = None,
        **_: Any,
    ) -> None:
        import threading
        import time

        self.total, self.n, self.desc, self.unit = total, initial, desc or "progress", unit
        if interval is None:
            try:
                interval = float(os.environ.get("NASHZOO_PROGRESS_SECONDS", PROGRESS_SECONDS))
            except ValueError:
                interval = PROGRESS_SECONDS
        self.interval = interval
        self._file = file
        self._start = time.monotonic()
        self._last = self._start
        self._initial = initial
        self._postfix = ""
        self._lock = threading.Lock()
        self._closed = False

    def update(self, n: float = 1) -> None:
        import time

        with self._lock:
            self.n += n
            now = time.monotonic()
            if now - self._last >= self.interval:
                self._last = now
                self._write(now)

    def set_postfix(self, **values: Any) -> None:
        self._postfix = ", ".join(f"{k} {v}" for k, v in values.items())

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or self.desc

    def close(self) -> None:
        import time

        with self._lock:
            if not self._closed:
                self._closed = True
                self._write(time.monotonic(), final=True)

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _write(self, now: float, final: bool = False) -> None:
        elapsed = now - self._start
        count = f"{self.n:,.0f}" + (f"/{self.total:,.0f}" if self.total else "")
        one = self.n == 1 and not self.total
        unit = self.unit if one or self.unit.endswith("s") else f"{self.unit}s"
        parts = [f"[{self.desc}] {count} {unit}"]
        if self.total:
            parts[0] += f" ({100 * self.n / self.total:.0f}%)"
        parts.append(f"{_duration(elapsed)} elapsed")
        done = self.n - self._initial
        if self.total and done > 0 and not final and self.n < self.total:
            left = elapsed * (self.total - self.n) / done
            parts.append(f"about {_duration(left)} left")
        if self._postfix:
            parts.append(self._postfix)
        if final:
            parts.append("done" if not self.total or self.n >= self.total else "stopped")
        print(", ".join(parts), file=self._file or sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    """``75.4`` → ``1m15s``; ``3700`` → ``1h01m40s``."""
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h}h{m:02d}m{s:02d}s"
    return f"{m}m{s:02d}s" if m else f"{s}s"
