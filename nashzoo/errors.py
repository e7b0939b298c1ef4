"""The one exception hierarchy of nashzoo.

Every error raised on bad input derives from :class:`NashzooError` *and* from the
built-in exception a Python user would expect (``ValueError``, ``TypeError``,
``LookupError``, ...), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "NashzooError",
    "InvalidParameterError",
    "InvalidActionError",
    "ActionTypeError",
    "IllegalActionError",
    "GameOverError",
    "UnknownEnvError",
    "MissingDependencyError",
    "EnvCheckError",
    "GameTooLargeError",
    "PolicyFileError",
    "AgentForfeitError",
    "StoreError",
    "ResetNeededError",
    "WorkerError",
    "LeaderboardError",
    "SubmissionError",
    "AuthError",
    "SandboxError",
]


class NashzooError(Exception):
    """Base class of every error nashzoo raises on purpose."""


class InvalidParameterError(NashzooError, ValueError):
    """A game, env, agent or solver parameter is out of its allowed range."""


class InvalidActionError(NashzooError, ValueError):
    """An action is outside ``[0, num_distinct_actions)``."""


class ActionTypeError(NashzooError, TypeError):
    """An action has the wrong type (a float, ``None`` for a live agent, an array ...)."""


class IllegalActionError(NashzooError, ValueError):
    """An action is in range but not legal in the current state (masked out)."""


class GameOverError(NashzooError, RuntimeError, ValueError):
    """An action was applied after the game or episode had ended.

    Also a ``ValueError``, as PettingZoo raises for a non-``None`` action of a done agent.
    """


class UnknownEnvError(NashzooError, LookupError):
    """No environment is registered under the requested id."""


class MissingDependencyError(NashzooError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class EnvCheckError(NashzooError, AssertionError):
    """An environment failed one of :func:`nashzoo.testing.check_env`'s checks."""


class GameTooLargeError(NashzooError, ValueError):
    """A game's tree exceeds the node limit given to :func:`nashzoo.tree.compile_game`."""


class PolicyFileError(NashzooError, ValueError):
    """A saved policy is corrupt, malformed or belongs to another game."""

    @staticmethod
    @contextlib.contextmanager
    def reading(path: str | Path, what: str) -> Iterator[None]:
        """Reading a ``what`` file's contents (``"nashzoo NFSP"``): any error but a
        PolicyFileError becomes one that names the file and what it is not."""
        try:
            yield
        except PolicyFileError:
            raise
        except Exception as exc:
            raise PolicyFileError(f"{path} is not a readable {what} file: {exc}") from exc


class AgentForfeitError(NashzooError, RuntimeError):
    """An agent raised, played an illegal action or ran out of time in a match."""


class StoreError(NashzooError, RuntimeError):
    """The result store is unreadable or belongs to another tournament."""


class ResetNeededError(NashzooError, RuntimeError, AssertionError):
    """An env was used before ``reset()``.

    Also an ``AssertionError``, which is what PettingZoo's own order enforcement raises.
    """


class WorkerError(NashzooError, RuntimeError):
    """A worker process of a training or self-play run died."""


class LeaderboardError(NashzooError, RuntimeError):
    """The leaderboard service cannot do what was asked (bad settings, missing user...)."""


class SubmissionError(LeaderboardError, ValueError):
    """An upload was refused. ``code`` is the stable reason (``ZIP_SLIP``, ``TOO_LARGE``,
    ``BAD_POLICY``, ...) that the API and the submission page show."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class AuthError(LeaderboardError, PermissionError):
    """A missing, malformed or unknown API token, or a per-user limit reached."""


class SandboxError(LeaderboardError):
    """The sandbox for code agents cannot start on this machine (no bubblewrap, not
    root, ...). Policy-file submissions do not need it."""
