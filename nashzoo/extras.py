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


def progress_bar(**kwargs: Any) -> Any:
    """A tqdm progress bar that draws only on a terminal.

    ``disable=None`` is tqdm's "off when the output is not a TTY": a run whose output
    goes to a log file writes no carriage-return updates there (the caller logs one line
    per evaluation instead). Keyword arguments go to ``tqdm``.
    """
    from tqdm.auto import tqdm

    kwargs.setdefault("disable", None)
    return tqdm(**kwargs)
