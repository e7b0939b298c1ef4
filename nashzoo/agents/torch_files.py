"""Reading nashzoo's ``.pt`` agent files safely (``torch.load(weights_only=True)``)."""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

__all__ = [
    "read_torch_file",
    "torch_file_format",
    "write_torch_file",
    "check_checkpoint",
    "saved_learner",
    "load_modules",
    "KINDS_BY_FORMAT",
    "KEYS_BY_FORMAT",
]

KINDS_BY_FORMAT = {
    "nashzoo.nfsp": "nfsp",
    "nashzoo.deep_cfr": "deep-cfr",
    "nashzoo.escher": "escher",
    "nashzoo.nash_memory": "nash-memory",
    "nashzoo.simplex_gradient": "simplex-gradient",
    "nashzoo.ismcts": "ismcts",
    "nashzoo.ismcts_rules": "ismcts",
}
"""The kind of agent each ``.pt`` format holds, as the leaderboard and ``nashzoo agents``
name it."""

_COMMON_KEYS = frozenset({"format", "version", "game", "config"})
KEYS_BY_FORMAT: dict[str, frozenset[str]] = {
    "nashzoo.nfsp": _COMMON_KEYS | {"episodes", "seconds", "weights_version", "players"},
    "nashzoo.deep_cfr": _COMMON_KEYS
    | {"iterations", "traversals", "seconds", "rng", "networks", "memories"},
    "nashzoo.escher": _COMMON_KEYS
    | {"iterations", "traversals", "seconds", "rng", "networks", "memories"},
    "nashzoo.nash_memory": _COMMON_KEYS
    | {"members", "scores", "stderrs", "weights", "left", "history", "seconds"},
    "nashzoo.simplex_gradient": _COMMON_KEYS | {"iterations", "episodes", "seconds", "nets"},
    "nashzoo.ismcts": _COMMON_KEYS | {"tables", "source", "metadata", "name", "network"},
    "nashzoo.ismcts_rules": _COMMON_KEYS | {"network", "metadata", "name", "trainer"},
    "nashzoo.blueprint_values": _COMMON_KEYS | {"network", "metrics"},
}
"""The top-level entries each ``.pt`` format defines: a file holding any other is refused
(:func:`check_checkpoint`), so an upload cannot carry data no loader reads (a large
tensor under an unknown key that ``torch.load`` would still inflate)."""


# Files read in this process, by (resolved path, modification time, size, inode): a
# tournament builds both agents afresh for every block, and torch's weights-only unpickler
# took 20-50 ms a read (a demo round robin of 18 agents in blocks of 2 deals: 24 of its 61
# s). Writing a file (write_torch_file renames a new one over it) changes its key.
_CACHE: OrderedDict[tuple[str, int, int, int], dict[str, Any]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHE_FILES = 16
"""At most this many files' contents are kept per process."""
CACHE_BYTES = 256 * 2**20
"""At most this many bytes of files are kept per process (the least recently read go)."""
CACHE_FILE_BYTES = 64 * 2**20
"""Files larger than this (a learner with its buffers) are read each time."""


def read_torch_file(path: str | Path) -> dict[str, Any]:
    """A nashzoo ``.pt`` file's contents, read with ``weights_only=True``.

    A file read before in this process, unchanged since (same modification time, size
    and inode) and at most :data:`CACHE_FILE_BYTES`, is not read again while it is among
    the :data:`CACHE_FILES` most recently read (:data:`CACHE_BYTES` in all): the caller
    gets a deep copy of what was read, its own to change.

    Raises:
        FileNotFoundError: no such file.
        PolicyFileError: not a readable torch file holding a dict, or one holding a
            floating-point tensor with a NaN or an infinity.
    """
    state, kept = _read(path)
    return _copied(state) if kept else state


def torch_file_format(path: str | Path) -> object:
    """The ``"format"`` entry of a nashzoo ``.pt`` file (``None`` if it has none), read
    as :func:`read_torch_file` reads (and keeps) the file, without copying its contents.

    Raises:
        FileNotFoundError: no such file.
        PolicyFileError: not a readable torch file holding a dict.
    """
    return _read(path)[0].get("format")


def _read(path: str | Path) -> tuple[dict[str, Any], bool]:
    """A file's contents and whether they are the kept ones (not to be changed)."""
    import stat as stat_module

    from nashzoo.errors import PolicyFileError
    from nashzoo.extras import require

    torch = require("torch", "torch", "Reading a .pt agent file")
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        stat = None
    if stat is None or not stat_module.S_ISREG(stat.st_mode):
        raise FileNotFoundError(f"No agent file at {path}")
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, stat.st_ino)
    with _CACHE_LOCK:
        state = _CACHE.get(key)
        if state is not None:
            _CACHE.move_to_end(key)
            return state, True
    with PolicyFileError.reading(path, "nashzoo agent"):
        state = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise PolicyFileError(f"{path} holds a {type(state).__name__}, not a nashzoo agent.")
    # checked once per read, not at every build from the kept contents (a tournament
    # builds its agents afresh for every block)
    bad = _non_finite(state, "")
    if bad is not None:
        raise PolicyFileError(
            f"{path}: {bad} holds NaN or infinite values; a nashzoo agent file's numbers "
            "are finite (a diverged or damaged run)."
        )
    if stat.st_size > CACHE_FILE_BYTES:
        return state, False
    with _CACHE_LOCK:
        _CACHE[key] = state
        while len(_CACHE) > CACHE_FILES or sum(k[2] for k in _CACHE) > CACHE_BYTES:
            _CACHE.popitem(last=False)
    return state, True


def _copied(value: Any) -> Any:
    """A deep copy of a file's contents (what a weights-only file holds: dicts, ordered
    dicts such as a module's ``state_dict`` with its ``_metadata``, lists, tuples,
    tensors, numbers and strings), ten times faster than ``copy.deepcopy`` on a
    learner's checkpoint."""
    import torch

    kind = type(value)
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is OrderedDict:
        ordered = OrderedDict((k, _copied(v)) for k, v in value.items())
        ordered.__dict__.update(copy.deepcopy(vars(value)))
        return ordered
    if kind is list:
        return [_copied(v) for v in value]
    if kind is tuple:
        return tuple(_copied(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.clone()
    if value is None or kind in (bool, int, float, complex, str, bytes):
        return value
    return copy.deepcopy(value)


def write_torch_file(state: dict[str, Any], path: str | Path) -> Path:
    """Write ``state`` to ``path`` atomically (a temporary file beside it, renamed over
    it), so a process killed while saving leaves the previous file whole."""
    from nashzoo.extras import require, temporary_sibling

    torch = require("torch", "torch", "Saving a .pt agent file")
    path = Path(path)
    tmp = temporary_sibling(path)
    torch.save(state, tmp)
    tmp.replace(path)
    return path


def check_checkpoint(state: dict[str, Any], path: str | Path, fmt: str, version: int) -> None:
    """Raise unless ``state`` is a ``fmt`` file of ``version`` holding only the entries
    that format defines (:data:`KEYS_BY_FORMAT`); its numbers were found finite when it
    was read (:func:`read_torch_file`).

    Raises:
        PolicyFileError: naming the format, version or entries found and the ones
            expected.
    """
    from nashzoo.errors import PolicyFileError

    if state.get("format") != fmt:
        raise PolicyFileError(f"{path} is a {state.get('format')!r} file, not a {fmt!r} file.")
    if state.get("version") != version:
        raise PolicyFileError(
            f"{path} is a {fmt!r} file of version {state.get('version')!r}; this nashzoo "
            f"reads version {version}."
        )
    unknown = sorted(map(str, set(state) - KEYS_BY_FORMAT.get(fmt, set(state))))
    if unknown:
        raise PolicyFileError(
            f"{path}: a {fmt!r} file holds the entries {sorted(KEYS_BY_FORMAT[fmt])}; "
            f"received unknown entries {unknown[:10]}."
        )


def saved_learner(
    cls: Any, path: str | Path, fmt: str, what: str, *, device: str | None = None, **kwargs: Any
) -> tuple[dict[str, Any], Any]:
    """A learner's file and a fresh learner of its game and config: the file read
    (:func:`read_torch_file`) and checked as a ``fmt`` file of version 1, its game and
    ``cls.config_type`` config rebuilt (the config's ``device`` set to ``device`` where
    given), and the learner built as ``cls(game, config, **kwargs)``. The caller restores
    the rest of the state (in :meth:`~nashzoo.errors.PolicyFileError.reading`).

    Raises:
        PolicyFileError: not a readable ``fmt`` file (``what`` names its kind).
        InvalidParameterError: ``device`` names a GPU torch does not see.
    """
    import dataclasses

    from nashzoo.errors import PolicyFileError
    from nashzoo.games import load_game

    state = read_torch_file(path)
    check_checkpoint(state, path, fmt, 1)
    with PolicyFileError.reading(path, f"nashzoo {what}"):
        game, config = load_game(state["game"]), cls.config_type.from_dict(state["config"])
    if device is not None:
        config = dataclasses.replace(config, device=device)
    return state, cls(game, config, **kwargs)


def _non_finite(value: Any, where: str) -> str | None:
    """The first entry (``networks['q']['0.weight']``) of a file's contents holding a
    floating-point tensor with a NaN or an infinity, or ``None``."""
    import torch

    if isinstance(value, torch.Tensor):
        if value.is_floating_point() and not bool(torch.isfinite(value).all()):
            return where or "the file"
        return None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{where}[{key!r}]" if where else repr(key))
        if found is not None:
            return found
    return None


def load_modules(path: str | Path, saved: Any, modules: dict[str, Any], what: str) -> None:
    """Load every module (network or optimiser) of ``modules`` from ``saved``, which must
    hold a state for each of those names: a file without its networks must never load
    as a randomly initialised agent.

    Raises:
        PolicyFileError: ``saved`` is not a dict holding every one of those names, or a
            state does not fit its module (another network shape).
    """
    from nashzoo.errors import PolicyFileError

    if not isinstance(saved, dict) or not set(modules) <= set(saved):
        found = sorted(map(str, saved)) if isinstance(saved, dict) else type(saved).__name__
        raise PolicyFileError(
            f"{path}: {what} must hold the states {sorted(modules)}, received {found}."
        )
    for name, module in modules.items():
        try:
            module.load_state_dict(saved[name])
        except Exception as exc:
            raise PolicyFileError(
                f"{path}: {what}[{name!r}] does not fit this network or optimiser: {exc}"
            ) from None
