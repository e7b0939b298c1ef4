"""What an upload is, and the checks every upload passes before it is stored.

* ``.npz`` / ``.json``: a tabular policy (data). Loaded and validated with
  :meth:`nashzoo.tree.policy.TabularPolicy.load` against the game; a policy solved on a
  card abstraction (``nashzoo solve limit_holdem --abstraction ...``) with
  :meth:`nashzoo.agents.cfr.abstract_policy.AbstractPolicy.load`.
* ``.pt``: an NFSP checkpoint (data when it loads with ``torch.load(weights_only=True)``).
* ``.zip`` with ``agent.toml`` at its root: a code bundle. ``agent.toml`` holds
  ``entry = "module:factory"`` (``factory(game)`` returns an Agent) and
  ``games = ["leduc_holdem", ...]``; the bundle's Python files may import only what the
  server has installed. Runs only in the sandbox.
* any other ``.zip``: a stable-baselines3 model (it holds pickles, so it is code and
  loads only in the sandbox).

Archive checks (:func:`check_archive`): size and file-count caps, no absolute paths, no
``..``, no links, a cap on the bytes it expands to (decompression bombs) measured while
reading, not taken from the headers.
"""

from __future__ import annotations

import io
import re
import stat
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from nashzoo.errors import NashzooError, SubmissionError

__all__ = [
    "Limits",
    "BundleSpec",
    "classify",
    "check_archive",
    "extract_archive",
    "read_spec",
    "toml_module",
]

_ENTRY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Limits:
    """Caps on one upload.

    Attributes:
        max_bytes: the uploaded file's size.
        max_files: entries in a zip.
        max_expanded_bytes: the total a zip expands to.
        max_ratio: expanded / compressed size of any one entry over 1 MB.
        check_memory_bytes: address space (``RLIMIT_AS``) of the process that loads a
            ``.pt`` upload to check it (torch alone maps about 650 MB).
        check_seconds: wall-clock limit of that process.
    """

    max_bytes: int = 20_000_000
    max_files: int = 200
    max_expanded_bytes: int = 100_000_000
    max_ratio: float = 200.0
    check_memory_bytes: int = 3 << 30
    check_seconds: float = 120.0


@dataclass(frozen=True)
class BundleSpec:
    """A code bundle's ``agent.toml``."""

    entry: str
    games: tuple[str, ...]


def _names(archive: zipfile.ZipFile, limits: Limits) -> list[zipfile.ZipInfo]:
    infos = archive.infolist()
    if len(infos) > limits.max_files:
        raise SubmissionError(
            "TOO_MANY_FILES", f"the archive has {len(infos)} entries; at most {limits.max_files}"
        )
    for info in infos:
        name = info.filename
        path = PurePosixPath(name)
        if (
            name.startswith(("/", "\\"))
            or re.match(r"^[A-Za-z]:", name)
            or ".." in path.parts
            or "\\" in name
            or "\x00" in name
        ):
            raise SubmissionError(
                "ZIP_SLIP", f"the archive entry {name!r} points outside the archive's folder"
            )
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise SubmissionError("ZIP_LINK", f"the archive entry {name!r} is a symbolic link")
    return infos


def check_archive(data: bytes, limits: Limits) -> list[str]:
    """Check a zip upload; returns the names of its files.

    Raises:
        SubmissionError: ``TOO_LARGE``, ``BAD_ARCHIVE``, ``TOO_MANY_FILES``,
            ``ZIP_SLIP``, ``ZIP_LINK`` or ``ZIP_BOMB``.
    """
    if len(data) > limits.max_bytes:
        raise SubmissionError(
            "TOO_LARGE", f"the upload is {len(data)} bytes; at most {limits.max_bytes}"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = _names(archive, limits)
            total = 0
            for info in infos:
                if info.is_dir():
                    continue
                read = 0
                with archive.open(info) as member:
                    while chunk := member.read(1 << 16):
                        read += len(chunk)
                        total += len(chunk)
                        if total > limits.max_expanded_bytes:
                            raise SubmissionError(
                                "ZIP_BOMB",
                                f"the archive expands to more than {limits.max_expanded_bytes}"
                                " bytes",
                            )
                        if read > 1_000_000 and read > limits.max_ratio * max(
                            info.compress_size, 1
                        ):
                            raise SubmissionError(
                                "ZIP_BOMB",
                                f"{info.filename!r} expands more than {limits.max_ratio:g} times",
                            )
            return [i.filename for i in infos if not i.is_dir()]
    except SubmissionError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise SubmissionError("BAD_ARCHIVE", f"not a readable zip file: {exc}") from None
    except NotImplementedError as exc:  # compression methods zipfile cannot read
        raise SubmissionError("BAD_ARCHIVE", f"unsupported zip entry: {exc}") from None


def extract_archive(data: bytes, dest: Path, limits: Limits) -> None:
    """Extract a zip that passed :func:`check_archive` into ``dest`` (checked again)."""
    check_archive(data, limits)
    root = dest.resolve()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            target = (root / info.filename).resolve()
            if root not in target.parents and target != root:
                raise SubmissionError("ZIP_SLIP", f"{info.filename!r} escapes the archive")
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as member, open(target, "wb") as out:
                while chunk := member.read(1 << 16):
                    out.write(chunk)


def toml_module() -> Any:
    """``tomllib`` (``tomli`` on Python 3.10)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def read_spec(text: bytes, game: str, files: list[str]) -> BundleSpec:
    """Parse and check a bundle's ``agent.toml`` for ``game``.

    Raises:
        SubmissionError: ``BAD_MANIFEST`` naming what is wrong.
    """
    tomllib = toml_module()
    try:
        spec = tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SubmissionError("BAD_MANIFEST", f"agent.toml is not valid TOML: {exc}") from None
    entry = spec.get("entry")
    if not isinstance(entry, str) or not _ENTRY.match(entry):
        raise SubmissionError(
            "BAD_MANIFEST",
            f'agent.toml needs entry = "module:factory" (a dotted module and a name); got '
            f"{entry!r}",
        )
    module = entry.split(":")[0].replace(".", "/")
    if f"{module}.py" not in files and f"{module}/__init__.py" not in files:
        raise SubmissionError(
            "BAD_MANIFEST",
            f"the entry module {module}.py is not in the bundle (files: {sorted(files)[:10]})",
        )
    games = spec.get("games")
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games) or not games:
        raise SubmissionError(
            "BAD_MANIFEST", f'agent.toml needs games = ["{game}", ...]; got {games!r}'
        )
    if game not in games:
        raise SubmissionError("WRONG_GAME", f"the bundle is for games {games}, not for {game!r}")
    return BundleSpec(entry, tuple(games))


def public_message(text: str, path: Path, filename: str) -> str:
    """An error about an upload as its uploader may read it: the server's temporary path
    replaced by the upload's name, no advice to load pickles (they are never loaded), at
    most 500 characters."""
    if "pickle" in text.lower():
        return (
            f"{filename!r} holds Python objects (pickled data); policy files hold arrays "
            "only, and pickles are never loaded"
        )
    text = text.replace(str(path), repr(filename)).replace(str(path.parent), "<upload>")
    return text[:500]


def classify(filename: str, data: bytes, game: Any, game_id: str, limits: Limits) -> str:
    """The kind of an upload (``policy``; a checkpoint: ``nfsp``, ``simplex-gradient`` or
    ``ismcts``; ``code`` or ``sb3``), after its checks.

    Policy files are validated against ``game`` here (data only: nothing runs).

    Raises:
        SubmissionError: the upload is refused; ``code`` says why.
    """
    if len(data) > limits.max_bytes:
        raise SubmissionError(
            "TOO_LARGE", f"the upload is {len(data)} bytes; at most {limits.max_bytes}"
        )
    if not data:
        raise SubmissionError("EMPTY", "the upload is empty")
    lower = filename.lower()
    if lower.endswith((".npz", ".pt")):
        # an .npz, like a .pt, is a zip: its expanded size and ratio are capped before
        # NumPy or torch decompresses anything (a 0.24 MB .pt held a 200 MB tensor)
        check_archive(data, limits)
    if lower.endswith((".npz", ".json", ".pt")):
        suffix = Path(lower).suffix
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"upload{suffix}"
            path.write_bytes(data)
            if suffix == ".pt":
                try:
                    return _check_torch_in_child(path, game, limits)
                except SubmissionError as exc:
                    message = public_message(exc.message, path, filename)
                    raise SubmissionError(exc.code, message) from None
            from nashzoo.agents.cfr.abstract_policy import AbstractPolicy, is_abstract_policy_file
            from nashzoo.tree.policy import TabularPolicy

            try:
                if suffix == ".npz" and is_abstract_policy_file(path):
                    # solved on a card abstraction: its game, abstraction and bucket
                    # tables' fingerprint must match this server's
                    AbstractPolicy.load(path, game)
                else:
                    TabularPolicy.load(path, game).validate()
            except (NashzooError, ValueError, OSError, KeyError) as exc:
                message = public_message(str(exc), path, filename)
                raise SubmissionError("BAD_POLICY", message) from None
        return "policy"
    if lower.endswith(".zip"):
        files = check_archive(data, limits)
        if "agent.toml" in files:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                read_spec(archive.read("agent.toml"), game_id, files)
            return "code"
        if "data" in files and "policy.pth" in files:
            return "sb3"
        raise SubmissionError(
            "BAD_BUNDLE",
            "a .zip is either a code bundle with agent.toml at its root or a saved "
            "stable-baselines3 model (with 'data' and 'policy.pth')",
        )
    raise SubmissionError(
        "BAD_FILE_TYPE",
        f"{filename!r}: expected a policy (.npz or .json), an NFSP checkpoint (.pt) or a zip "
        "(code bundle or stable-baselines3 model)",
    )


def _check_torch(path: Path, game: Any) -> str:
    """The kind of agent a ``.pt`` upload holds (``nfsp``, ``simplex-gradient`` or
    ``ismcts``), once it loads for ``game``."""
    from nashzoo.agents.registry import family_for_file
    from nashzoo.agents.torch_files import KINDS_BY_FORMAT, read_torch_file

    family = family_for_file(str(path))
    try:
        if family is None:
            raise SubmissionError("BAD_FILE_TYPE", "no agent family reads .pt files")
        family.factory(game, str(path))
    except SubmissionError:
        raise
    except (NashzooError, ValueError, OSError, KeyError, RuntimeError) as exc:
        raise SubmissionError(
            "BAD_CHECKPOINT",
            f"not a checkpoint for this game that loads with weights_only=True: {exc}",
        ) from None
    return KINDS_BY_FORMAT[read_torch_file(path)["format"]]


def _check_torch_in_child(path: Path, game: Any, limits: Limits) -> str:
    """:func:`_check_torch` in a child process held to ``limits.check_memory_bytes`` of
    address space and ``limits.check_seconds``: whatever an upload makes ``torch.load``
    allocate, the server's own process never holds it."""
    import json
    import os
    import subprocess

    # the child sets its own address-space limit first thing (no preexec_fn: the server
    # runs threads, and a function run between fork and exec may deadlock there)
    request = json.dumps(
        {"path": str(path), "game": game.to_spec(), "memory": limits.check_memory_bytes}
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "nashzoo.leaderboard.bundles"],
            input=request,
            capture_output=True,
            text=True,
            timeout=limits.check_seconds,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    except subprocess.TimeoutExpired:
        raise SubmissionError(
            "BAD_CHECKPOINT", f"loading the file took over {limits.check_seconds:g} s"
        ) from None
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        memory = "MemoryError" in done.stderr or "bad_alloc" in done.stderr
        raise SubmissionError(
            "TOO_LARGE" if memory else "BAD_CHECKPOINT",
            f"loading the file needs more than {limits.check_memory_bytes} bytes of memory"
            if memory
            else f"the file could not be checked: {tail[0][:300]}",
        ) from None
    if "kind" in answer:
        return str(answer["kind"])
    raise SubmissionError(str(answer["code"]), str(answer["message"]))


def _main() -> None:  # pragma: no cover - the child of _check_torch_in_child
    """Read ``{"path", "game", "memory"}`` on stdin; print ``{"kind"}`` or ``{"code",
    "message"}``, having held this process to ``memory`` bytes of address space."""
    import json
    import resource

    request = json.loads(sys.stdin.read())
    memory = int(request["memory"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))  # before torch is imported
    from nashzoo.games import load_game

    try:
        kind = _check_torch(Path(request["path"]), load_game(request["game"]))
    except SubmissionError as exc:
        if "allocate memory" not in exc.message:
            print(json.dumps({"code": exc.code, "message": exc.message}))
            return
    except MemoryError:
        pass
    else:
        print(json.dumps({"kind": kind}))
        return
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    message = f"loading the file needs more than the {limit} bytes of memory allowed"
    print(json.dumps({"code": "TOO_LARGE", "message": message}))


if __name__ == "__main__":  # pragma: no cover
    _main()
