"""A zoo of misbehaving agents, for testing harnesses (nashzoo's own tests use it; a
leaderboard or a home-made tournament can use it too).

Each member breaks one rule in its own way. What nashzoo's harness does with each:

=====================  ====================================  =================================
member                 misbehaviour                          outcome in a nashzoo match
=====================  ====================================  =================================
:class:`Raises`        ``act`` raises ``RuntimeError``       forfeit ("raised RuntimeError")
:class:`Garbage`       ``act`` returns ``"fold"``, ``1.5``   forfeit ("invalid action")
:class:`Sleeper`       ``act`` sleeps past the time limit    forfeit on time, also in threads
:class:`SysExit`       ``act`` calls ``sys.exit(3)``         forfeit ("called sys.exit(3)")
:class:`Interrupter`   ``act`` raises ``KeyboardInterrupt``  forfeit (the user's Ctrl-C still
                                                             stops the run)
:class:`HardExit`      ``act`` calls ``os._exit(3)``         tournaments with workers: CRASH
                                                             forfeit after the retries
:class:`ResetRaiser`   ``reset`` raises                      forfeit
:class:`MaskUnlocker`  unlocks its mask, raises past the     the arrays cannot be unlocked;
                       raise cap                             the raise is illegal: forfeit
:class:`MaskPoisoner`  calls, and rewrites every mask it     no effect: the masks cannot be
                       has seen to fold-only                 written (it swallows the error)
:class:`MemoryHog`     allocates ``gigabytes`` at once       forfeit ("raised MemoryError")
:class:`Liar`          states uniform play, plays the last   a referee that draws from what
                       legal action                          agents state (the leaderboard)
                                                             plays it uniformly: its stated
                                                             exploitability is its play's
:class:`DiskFiller`    writes ``megabytes`` of files into    in the leaderboard's sandbox:
                       its temporary folder in ``act``       "No space left on device" past
                                                             the /tmp cap, a CRASH forfeit
=====================  ====================================  =================================

Every member is picklable (tournaments send agents to worker processes) and built by
:func:`make` from its name: ``make("sleeper", seconds=2.0)``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import numpy as np

__all__ = [
    "ZOO",
    "make",
    "Raises",
    "Garbage",
    "Sleeper",
    "SysExit",
    "Interrupter",
    "HardExit",
    "ResetRaiser",
    "MaskUnlocker",
    "MaskPoisoner",
    "MemoryHog",
    "Liar",
    "DiskFiller",
    "AlwaysCall",
    "MALFORMED_DEFINITIONS",
    "SHORT_STACK_LIMIT",
    "torch_bomb",
]


class _Member:
    """Common parts: a name and a no-op reset."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or type(self).__name__.lower()

    def reset(self, *, seed: int | None = None) -> None:
        pass

    def _first_legal(self, observation: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


class AlwaysCall(_Member):
    """An honest baseline: the legal action with the highest id up to ``cap`` (1 = call or
    check in poker)."""

    def __init__(self, cap: int = 1, name: str | None = None) -> None:
        super().__init__(name)
        self.cap = cap

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[legal <= self.cap][-1])


class Raises(_Member):
    """Raises ``RuntimeError`` in ``act``."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        raise RuntimeError("hostile agent: raising on purpose")


class Garbage(_Member):
    """Answers something that is not an action id (a string, a float, ``None``, an array),
    in turn."""

    answers: tuple[Any, ...] = ("fold", 1.5, None, np.array([0, 1]))

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name)
        self.count = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> Any:
        self.count += 1
        return self.answers[self.count % len(self.answers)]


class Sleeper(_Member):
    """Sleeps ``seconds`` in ``act`` (set it past the time limit), then plays legally."""

    def __init__(self, seconds: float = 60.0, name: str | None = None) -> None:
        super().__init__(name)
        self.seconds = seconds

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        time.sleep(self.seconds)
        return self._first_legal(observation)


class SysExit(_Member):
    """Calls ``sys.exit(3)`` in ``act``."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        sys.exit(3)


class Interrupter(_Member):
    """Raises ``KeyboardInterrupt`` in ``act`` (as if it were the user's Ctrl-C)."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        raise KeyboardInterrupt


class HardExit(_Member):
    """Ends its process with ``os._exit(3)`` in ``act``: only a separate process survives it."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        os._exit(3)


class ResetRaiser(_Member):
    """Raises in ``reset``."""

    def reset(self, *, seed: int | None = None) -> None:
        raise ValueError("hostile agent: cannot reset")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        return self._first_legal(observation)


class MaskUnlocker(_Member):
    """Tries to unlock its action mask and mark the highest action legal, then always
    plays it (in Leduc: a raise past the raise cap, when it is illegal)."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name)
        self.unlocked = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        mask = observation["action_mask"]
        try:
            mask.setflags(write=True)
            mask[-1] = 1
            self.unlocked += 1
        except ValueError:
            pass  # read-only and cannot be unlocked: it plays its raise anyway
        return int(mask.size - 1)


class MaskPoisoner(AlwaysCall):
    """Plays like :class:`AlwaysCall`, and rewrites every mask it has seen to fold-only,
    hoping the referee or its opponent reads them later."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(1, name)
        self.seen: list[np.ndarray] = []
        self.poisoned = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        action = super().act(observation, info)
        self.seen.append(observation["action_mask"])
        self.seen = self.seen[-50:]
        for mask in self.seen:
            try:
                mask.setflags(write=True)
                mask[:] = 0
                mask[0] = 1
                self.poisoned += 1
            except ValueError:
                pass
        return action


class MemoryHog(_Member):
    """Allocates ``gigabytes`` in one piece in ``act`` (more than the machine has, by
    default), then plays legally if it got the memory."""

    def __init__(self, gigabytes: float = 4096.0, name: str | None = None) -> None:
        super().__init__(name)
        self.gigabytes = gigabytes

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        hog = bytearray(int(self.gigabytes * 2**30))
        del hog
        return self._first_legal(observation)


class Liar(_Member):
    """States uniform play over the legal actions and plays the last legal one: what it
    says and what it does disagree (a bundle stating an equilibrium while always
    raising was shown at the equilibrium's exploitability)."""

    def action_probabilities(
        self, observation: dict[str, np.ndarray], info: dict[str, Any]
    ) -> np.ndarray:
        mask = np.asarray(observation["action_mask"], dtype=np.float64)
        return mask / mask.sum()

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[-1])


class DiskFiller(_Member):
    """Writes ``megabytes`` in 8 MiB files into ``folder`` (default: the system's
    temporary folder, which is the sandbox's capped ``/tmp`` there) in its first ``act``,
    then plays legally. Outside a sandbox it fills the caller's disk: keep it small."""

    def __init__(
        self, megabytes: int = 64, folder: str | None = None, name: str | None = None
    ) -> None:
        super().__init__(name)
        self.megabytes, self.folder = megabytes, folder

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        import tempfile

        folder = self.folder or tempfile.gettempdir()
        chunk = bytes(8 << 20)
        for i in range(-(-self.megabytes // 8)):
            with open(os.path.join(folder, f"nashzoo-disk-filler-{os.getpid()}-{i}"), "wb") as f:
                f.write(chunk)
        return self._first_legal(observation)


MALFORMED_DEFINITIONS: dict[str, tuple[str, str]] = {
    "no-rounds": ("GAMEDEF\nlimit\nnumPlayers = 2\nEND GAMEDEF\n", "lacks 'numRounds'"),
    "eleven-players": (
        "GAMEDEF\nlimit\nnumPlayers = 11\nnumRounds = 1\nblind = " + "2 " * 11 + "\n"
        "raiseSize = 2\nmaxRaises = 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 1\n"
        "END GAMEDEF\n",
        "2 to 10 players",
    ),
    "short-raise-list": (
        "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 2\nblind = 2 1\nraiseSize = 2\n"
        "maxRaises = 1 1\nnumSuits = 2\nnumRanks = 3\nnumHoleCards = 1\n"
        "numBoardCards = 0 1\nEND GAMEDEF\n",
        "needs 2 values",
    ),
    "eight-cards-a-player": (
        "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 4\nblind = 10 5\n"
        "raiseSize = 10 10 20 20\nmaxRaises = 3 4 4 4\nnumSuits = 4\nnumRanks = 13\n"
        "numHoleCards = 3\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n",
        "more than 7",
    ),
    "overflowing-pot": (
        "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 1\nblind = 2 1\n"
        f"raiseSize = {2**62}\nmaxRaises = 2\nnumSuits = 2\nnumRanks = 3\n"
        "numHoleCards = 1\nEND GAMEDEF\n",
        "2\\*\\*53",
    ),
    "deck-too-small": (
        "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 1\nblind = 2 1\nraiseSize = 2\n"
        "maxRaises = 1\nnumSuits = 1\nnumRanks = 2\nnumHoleCards = 2\nEND GAMEDEF\n",
        "deck has 2 cards",
    ),
    "not-a-number": (
        "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 1\nblind = 2 1\nraiseSize = x\n"
        "maxRaises = 1\nnumSuits = 2\nnumRanks = 3\nnumHoleCards = 1\nEND GAMEDEF\n",
        "expects integers",
    ),
}
"""Broken ACPC game definitions, each with a regular expression its error message must
match (``InvalidParameterError`` from :func:`nashzoo.games.poker.parse_gamedef`): a
family for testing that a loader of definitions refuses them clearly."""


SHORT_STACK_LIMIT = (
    "GAMEDEF\nlimit\nnumPlayers = 3\nstack = 5 100 100\nblind = 1 2 0\nnumRounds = 2\n"
    "raiseSize = 10 10\nfirstPlayer = 3 1\nmaxRaises = 3 3\nnumSuits = 4\nnumRanks = 13\n"
    "numHoleCards = 2\nnumBoardCards = 0 5\nEND GAMEDEF\n"
)
"""A valid ACPC limit definition with a short stack: player 0 (5 chips) faces a raise to
12 when player 2 opens. It may fold or call all in, never raise: a "raise" capped at its
stack would lower the bet to 5 and hand the caller 7 chips back (issue 85, item 3)."""


def torch_bomb(checkpoint: bytes, megabytes: float = 200, key: str = "padding") -> bytes:
    """A real ``.pt`` agent file (``checkpoint``, its bytes) with one more top-level entry
    its format does not define, ``key``: a tensor of ``megabytes`` MB of zeros, the whole
    archive rewritten with DEFLATE so that it stays small (200 MB of zeros add about
    0.2 MB). ``torch.load(weights_only=True)`` accepts it and inflates the tensor: a
    decompression bomb for a service that loads uploaded checkpoints (the leaderboard
    refuses it before loading, :func:`nashzoo.leaderboard.bundles.classify`)."""
    import io
    import tempfile
    import zipfile
    from pathlib import Path

    import torch

    state = torch.load(io.BytesIO(checkpoint), map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise TypeError(f"checkpoint holds a {type(state).__name__}, expected a dict")
    # never written to in this process: the pages stay unallocated until torch.save
    # reads them (and reads of untouched pages are of the shared zero page)
    state[key] = torch.empty(int(megabytes * 2**18), dtype=torch.float32).zero_()
    out = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.pt"
        torch.save(state, plain)
        del state
        with zipfile.ZipFile(plain) as src, zipfile.ZipFile(out, "w") as dst:
            for info in src.infolist():
                entry = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                entry.compress_type = zipfile.ZIP_DEFLATED
                with src.open(info) as reader, dst.open(entry, "w", force_zip64=True) as w:
                    while chunk := reader.read(1 << 22):
                        w.write(chunk)
    return out.getvalue()


ZOO: dict[str, type[_Member]] = {
    "raises": Raises,
    "garbage": Garbage,
    "sleeper": Sleeper,
    "sys_exit": SysExit,
    "interrupter": Interrupter,
    "hard_exit": HardExit,
    "reset_raiser": ResetRaiser,
    "mask_unlocker": MaskUnlocker,
    "mask_poisoner": MaskPoisoner,
    "memory_hog": MemoryHog,
    "liar": Liar,
    "disk_filler": DiskFiller,
}
"""The members by name."""


def make(name: str, **kwargs: Any) -> Any:
    """The zoo member called ``name`` (see :data:`ZOO`), e.g. ``make("sleeper", seconds=2)``.

    Raises:
        KeyError: no such member (the message lists them).
    """
    try:
        cls = ZOO[name]
    except KeyError:
        raise KeyError(f"No hostile agent {name!r}; the zoo has {sorted(ZOO)}.") from None
    return cls(name=name, **kwargs)
