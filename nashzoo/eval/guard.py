"""Calling agents without letting them hurt the referee: faults become forfeits.

Every call into an agent (``act``, ``reset``) goes through a :class:`Calls` object:

* :class:`DirectCalls` calls the agent in the caller's thread. Any exception, including
  ``SystemExit`` and an agent's own ``KeyboardInterrupt``, becomes a :class:`Forfeit`; a
  user's Ctrl-C still stops the run (:func:`user_interrupts` tells the two apart). A move
  over the time limit is a forfeit once it returns.
* :class:`ThreadedCalls` runs each call in a helper thread and stops waiting at the
  deadline: a hung agent forfeits on time wherever the match runs (any thread, worker
  processes, Ray, platforms without ``SIGALRM``). No signal or interval timer is touched.
  The hung call is abandoned in its daemon thread.
* :class:`SupervisedCalls` (worker processes of :mod:`nashzoo.eval.pool`) calls directly
  and publishes who is moving and since when in shared memory, so the supervising
  process can kill a hung worker on time and name the agent that was moving when a
  worker died.
"""

from __future__ import annotations

import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = [
    "Forfeit",
    "Calls",
    "DirectCalls",
    "ThreadedCalls",
    "SupervisedCalls",
    "user_interrupts",
    "stop_handler",
    "make_calls",
    "hard_deadline",
    "forfeit_for",
    "interrupt_count",
    "interrupts_held",
]


class Forfeit(Exception):
    """Raised inside the engine when an agent breaks the rules of a match.

    Attributes:
        who: index of the offending agent in the match (0 = A, 1 = B).
        reason: what happened.
        kind: ``"error"`` (raised or exited), ``"illegal"`` (invalid or illegal action),
            ``"timeout"`` or ``"crash"`` (its worker process died).
    """

    def __init__(self, who: int, reason: str, kind: str = "error") -> None:
        super().__init__(reason)
        self.who = who
        self.reason = reason
        self.kind = kind


def hard_deadline(limit: float) -> float:
    """Seconds after which a call still running is abandoned (the limit plus slack for
    scheduling noise); the limit itself is enforced when the call returns."""
    return limit * 1.5 + 0.05


# -- telling a user's Ctrl-C from an agent's KeyboardInterrupt ---------------------------
_interrupts = 0


def _on_sigint(signum: int, frame: Any) -> None:
    global _interrupts
    _interrupts += 1
    raise KeyboardInterrupt


def stop_handler(signum: int, frame: Any) -> None:
    """A handler for another stop signal (a worker's SIGTERM) that stops the run as the
    user's Ctrl-C does: counted as a real interrupt, so the agent being called when it
    arrives is not blamed for the ``KeyboardInterrupt``, which unwinds to the caller."""
    _on_sigint(signum, frame)


def interrupt_count() -> int:
    """SIGINTs counted so far by :func:`user_interrupts` (compare before and after a call)."""
    return _interrupts


@contextmanager
def user_interrupts() -> Iterator[None]:
    """Count real SIGINTs while the block runs (main thread only; a no-op elsewhere), so
    that a ``KeyboardInterrupt`` an agent raises itself is a forfeit while the user's
    Ctrl-C still stops the run. The previous handler is restored afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        yield  # someone else handles SIGINT (e.g. a test runner's own handler): leave it
        return
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold the user's Ctrl-C (and a SIGTERM that has a Python handler, such as
    :func:`stop_handler`) until the block ends, then deliver it to the handler that was in
    place, so the ``KeyboardInterrupt`` arrives just after the block.

    For calls into libraries whose locks a ``KeyboardInterrupt`` can break: one raised
    inside SQLAlchemy's connection pool (between taking a lock and entering the ``try``
    that releases it) left the pool's lock unreleased and came out as ``RuntimeError:
    cannot release un-acquired lock``, so a tournament stopped with Ctrl-C exited as if it
    had crashed. A signal whose handler is the default or ``SIG_IGN`` is left alone, and
    so is every signal outside the main thread (Python runs handlers only there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        arrived.append(signum)

    previous: dict[int, Any] = {}
    for held in _HELD_SIGNALS:
        handler = signal.getsignal(held)
        if callable(handler):
            previous[held] = handler
            signal.signal(held, hold)
    try:
        yield
    finally:
        for restored, handler in previous.items():
            signal.signal(restored, handler)
        for delivered in dict.fromkeys(arrived):
            signal.raise_signal(delivered)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    if isinstance(exc, KeyboardInterrupt):
        return "raised KeyboardInterrupt"
    return f"raised {type(exc).__name__}: {exc}"


def forfeit_for(who: int, exc: BaseException, interrupts_before: int) -> BaseException:
    """What to raise for ``exc`` escaping a call into agent ``who``: the exception itself
    for a forfeit already made and for the user's Ctrl-C (a SIGINT arrived during the
    call), a :class:`Forfeit` for everything else (``SystemExit`` and an agent's own
    ``KeyboardInterrupt`` included)."""
    if isinstance(exc, Forfeit):
        # a proxy (the sandbox) raises its forfeit as seat -1: it is the called agent's
        return exc if exc.who >= 0 else Forfeit(who, exc.reason, exc.kind)
    if isinstance(exc, KeyboardInterrupt) and _interrupts != interrupts_before:
        return exc
    return Forfeit(who, _describe(exc))


SETUP_TIME_LIMIT = 300.0
"""Seconds an agent may take to be built and to make its first, warming-up decision
(loading files, solving a game, numba's compilation) where moves have a time limit: a
cold start is never charged to a move clock."""


class Calls:
    """How the engine calls agents. Subclasses implement :meth:`call`.

    Args:
        time_limit: seconds per call (``None``: no limit).
        setup_limit: seconds for a :meth:`setup` call, where ``time_limit`` is set.
    """

    def __init__(
        self, time_limit: float | None = None, setup_limit: float = SETUP_TIME_LIMIT
    ) -> None:
        self.time_limit = time_limit
        self.setup_limit = setup_limit
        self.limit_name = "per-move"

    def call(self, who: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` on behalf of agent ``who``; raises :class:`Forfeit`."""
        raise NotImplementedError

    def setup(self, who: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """:meth:`call` with the setup allowance instead of the move limit: for building
        an agent and its warm-up decision."""
        move_limit = self.time_limit
        if move_limit is not None:
            self.time_limit = max(move_limit, self.setup_limit)
            self.limit_name = "setup"
        try:
            return self.call(who, fn, *args, **kwargs)
        finally:
            self.time_limit = move_limit
            self.limit_name = "per-move"

    def close(self) -> None:
        """Release helper threads."""

    def _checked(
        self, who: int, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Direct call with every fault turned into a :class:`Forfeit`, and the clock."""
        before = _interrupts
        start = time.perf_counter()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            raise forfeit_for(who, exc, before) from None
        self._check_time(who, time.perf_counter() - start)
        return result

    def _check_time(self, who: int, elapsed: float) -> None:
        if self.time_limit is not None and elapsed > self.time_limit:
            raise Forfeit(
                who,
                f"exceeded the {self.limit_name} time limit of {self.time_limit} s "
                f"({elapsed:.3f} s)",
                "timeout",
            )


class DirectCalls(Calls):
    """Call agents in the caller's thread (no hard deadline: a hung agent hangs)."""

    def call(self, who: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.time_limit is not None:
            return self._checked(who, fn, args, kwargs)
        before = _interrupts  # the hot path of every match: one frame, no clock
        try:
            return fn(*args, **kwargs)
        except BaseException as exc:
            raise forfeit_for(who, exc, before) from None


class _Helper(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True, name="nashzoo-agent-call")
        self.tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.results: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    def run(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:
                return
            fn, args, kwargs = task
            try:
                self.results.put((True, fn(*args, **kwargs)))
            except BaseException as exc:  # everything goes back to the caller
                self.results.put((False, exc))


class ThreadedCalls(Calls):
    """Run each call in a helper thread and stop waiting at the hard deadline."""

    def __init__(
        self, time_limit: float | None = None, setup_limit: float = SETUP_TIME_LIMIT
    ) -> None:
        super().__init__(time_limit, setup_limit)
        self._helper: _Helper | None = None

    def call(self, who: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.time_limit is None:
            return self._checked(who, fn, args, kwargs)
        helper = self._helper
        if helper is None:
            helper = self._helper = _Helper()
            helper.start()
        start = time.perf_counter()
        helper.tasks.put((fn, args, kwargs))
        try:
            ok, value = helper.results.get(timeout=hard_deadline(self.time_limit))
        except queue.Empty:
            # The agent is still running: abandon its thread, answer with a forfeit.
            self._helper = None
            helper.tasks.put(None)
            raise Forfeit(
                who,
                f"exceeded the {self.limit_name} time limit of {self.time_limit} s "
                "(still running; abandoned)",
                "timeout",
            ) from None
        if not ok:  # raised in the helper thread: never the user's Ctrl-C (main thread only)
            raise forfeit_for(who, value, _interrupts) from None
        self._check_time(who, time.perf_counter() - start)
        return value

    def close(self) -> None:
        if self._helper is not None:
            self._helper.tasks.put(None)
            self._helper = None


class SupervisedCalls(DirectCalls):
    """Direct calls that publish ``(agent id, start time, limit)`` in a shared slot.

    Args:
        slot: a shared ``multiprocessing`` double array of length 3 (agent id or -1,
            ``time.monotonic()`` at the start of the call, and the call's time limit or
            -1: a setup call publishes its allowance, so the supervisor lets it run).
        agent_ids: the tournament's index of the match's agents A and B.
        time_limit: seconds per call.
        setup_limit: seconds for building an agent and its warm-up decision.
    """

    def __init__(
        self,
        slot: Any,
        agent_ids: Sequence[int],
        time_limit: float | None,
        setup_limit: float = SETUP_TIME_LIMIT,
    ) -> None:
        super().__init__(time_limit, setup_limit)
        self.slot = slot
        self.agent_ids = tuple(agent_ids)

    def call(self, who: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        slot = self.slot
        slot[1] = time.monotonic()
        slot[2] = -1.0 if self.time_limit is None else self.time_limit  # this call's limit
        slot[0] = self.agent_ids[who]
        try:
            return super().call(who, fn, *args, **kwargs)
        finally:
            slot[0] = -1.0


def make_calls(time_limit: float | None, setup_limit: float = SETUP_TIME_LIMIT) -> Calls:
    """:class:`ThreadedCalls` when there is a time limit, else :class:`DirectCalls`."""
    if time_limit is None:
        return DirectCalls()
    return ThreadedCalls(time_limit, setup_limit)
