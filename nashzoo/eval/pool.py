"""A supervised pool of worker processes that no agent can crash, stall or take down.

Each worker runs tasks (module-level functions) one at a time and, while it calls into an
agent, publishes in a shared slot which agent is moving and since when
(:class:`~nashzoo.eval.guard.SupervisedCalls`). The parent process watches its workers:

* a worker that dies (``os._exit``, a segfault, the kernel's OOM killer) is replaced and
  its task retried, up to ``max_attempts`` runs; then the task is reported as a *crash* of
  the agent that was moving;
* a worker whose agent overruns its move's hard deadline is killed and the task reported
  as a *timeout* of that agent (no retry: the deadline is the rule);
* the user's Ctrl-C (``KeyboardInterrupt`` in the parent) kills every worker and
  propagates, so the caller can stop cleanly; workers ignore SIGINT themselves.

Workers start with the ``spawn`` method (safe beside threads), optionally under an address
space limit (``RLIMIT_AS``), so an agent that hogs memory gets ``MemoryError``, and with
their numeric libraries (torch, OpenMP, numpy's BLAS) held to ``threads`` threads each,
from the moment they start (one by default: the pool's processes are the parallelism;
torch's and OpenBLAS's default of one thread per core in every worker put twice as many
busy threads as cores on the machine).
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import signal
import time
import traceback
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from nashzoo.eval.guard import hard_deadline
from nashzoo.processes import limit_threads, thread_environment
from nashzoo.validation import check_int

__all__ = ["Task", "Outcome", "SupervisedPool"]


@dataclass(frozen=True)
class Task:
    """``fn(*args, slot=slot)`` to run in a worker; ``key`` identifies it in the outcome."""

    key: Hashable
    fn: Callable[..., Any]
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Outcome:
    """What became of a task.

    Attributes:
        task: the task.
        status: ``"ok"``, ``"error"`` (the function raised: a harness bug, ``detail`` has
            the traceback), ``"crash"`` (the worker died ``attempts`` times) or
            ``"timeout"`` (the worker was killed at an agent's hard deadline).
        value: the function's return value when ``"ok"``.
        agent: index of the agent that was moving at a crash or timeout (-1: none was).
        detail: what happened, for forfeit reasons and logs.
        attempts: runs of the task.
    """

    task: Task
    status: str
    value: Any = None
    agent: int = -1
    detail: str = ""
    attempts: int = 1


def _worker_main(
    conn: Connection, slot: Any, memory_limit_mb: int | None, threads: int | None
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    if threads is not None:
        limit_threads(threads)
    if memory_limit_mb is not None:
        import resource

        limit = int(memory_limit_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", None))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        fn, args = message
        slot[0] = -1.0
        try:
            result = fn(*args, slot=slot)
        except BaseException as exc:  # report, never die of it
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        else:
            conn.send(("ok", result))


class _Worker:
    def __init__(self, ctx: Any, memory_limit_mb: int | None, threads: int | None) -> None:
        self.slot = ctx.RawArray("d", 3)  # agent moving, since when, this call's limit
        self.slot[0] = -1.0
        self.slot[2] = -1.0
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main,
            args=(child, self.slot, memory_limit_mb, threads),
            daemon=True,
            name="nashzoo-worker",
        )
        with thread_environment(threads):
            self.process.start()
        child.close()
        self.task: Task | None = None
        self.ready = False

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class SupervisedPool:
    """Run tasks in ``workers`` supervised processes (see the module docstring).

    Args:
        workers: processes (at least 1).
        time_limit: an agent's per-move limit in seconds (``None``: no deadline).
        memory_limit_mb: address-space limit of each worker (``None``: none).
        max_attempts: runs of a task whose worker dies before it is reported a crash.
        start_method: ``multiprocessing`` start method (``"spawn"`` by default).
        threads: threads each worker's numeric libraries (torch, OpenMP, BLAS) may use
            (``None``: their defaults, which on most machines is one per core in every
            worker).
    """

    poll_seconds = 0.05

    def __init__(
        self,
        workers: int,
        *,
        time_limit: float | None = None,
        memory_limit_mb: int | None = None,
        max_attempts: int = 2,
        start_method: str = "spawn",
        threads: int | None = 1,
    ) -> None:
        self.workers = workers
        self.threads = None if threads is None else check_int("threads", threads, 1)
        self.time_limit = time_limit
        self.memory_limit_mb = memory_limit_mb
        self.max_attempts = max_attempts
        self._ctx = multiprocessing.get_context(start_method)
        self._pool: list[_Worker] = []

    def __enter__(self) -> SupervisedPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (they are kept between :meth:`run` calls until then)."""
        for w in self._pool:
            w.kill()
        self._pool = []

    def _new_worker(self) -> _Worker:
        return _Worker(self._ctx, self.memory_limit_mb, self.threads)

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Run every task; yield each :class:`Outcome` as it completes (any order).

        Workers are started on first use and kept for the next call. If the caller stops
        early or an exception (the user's Ctrl-C) passes through, every worker is killed.
        """
        pending = collections.deque(tasks)
        attempts: dict[Hashable, int] = collections.defaultdict(int)
        finished = False
        try:
            pool = self._pool
            while len(pool) < min(self.workers, len(pending)):
                pool.append(self._new_worker())
            while True:
                if not pool and pending:
                    pool.append(self._new_worker())
                for w in pool:
                    if w.task is None and pending:
                        w.task = pending.popleft()
                        attempts[w.task.key] += 1
                        with contextlib.suppress(OSError):  # dead: _check retries it
                            w.conn.send((w.task.fn, w.task.args))
                busy = [w for w in pool if w.task is not None]
                if not busy:
                    finished = True
                    return
                wait(
                    [w.conn for w in busy] + [w.process.sentinel for w in busy],
                    timeout=self.poll_seconds,
                )
                alive, outcomes = [], []
                for w in pool:
                    outcome = self._check(w, attempts, pending)
                    # A worker still holding its task stays (if it died just after the
                    # check, the next round sees it and retries the task).
                    if w.task is not None or w.process.is_alive():
                        alive.append(w)
                    else:
                        w.kill()
                        if pending:
                            alive.append(self._new_worker())
                    if outcome is not None and outcome.status != "retry":
                        outcomes.append(outcome)
                self._pool = pool = alive
                yield from outcomes
        finally:
            if not finished:
                self.close()

    def _check(
        self, w: _Worker, attempts: dict[Hashable, int], pending: collections.deque[Task]
    ) -> Outcome | None:
        """Collect a result, detect a death or a deadline; ``None`` if nothing happened."""
        task = w.task
        if task is None:
            return None
        while w.conn.poll():
            try:
                kind, value = w.conn.recv()
            except (EOFError, OSError):
                break  # died while sending: handled as a death below
            if kind == "ready":
                w.ready = True
                continue
            w.task = None
            if kind == "ok":
                return Outcome(task, "ok", value, attempts=attempts[task.key])
            return Outcome(task, "error", detail=str(value), attempts=attempts[task.key])
        agent = int(w.slot[0])
        if not w.process.is_alive() and not w.ready:
            raise RuntimeError(
                f"A worker process could not start (exit code {w.process.exitcode}). With the "
                "'spawn' start method the main script must guard its work with "
                "`if __name__ == '__main__':`; or pass workers=0 to play in this process."
            )
        if not w.process.is_alive():
            code = w.process.exitcode
            w.task = None
            n = attempts[task.key]
            if n < self.max_attempts:
                pending.appendleft(task)
                return Outcome(task, "retry", agent=agent, attempts=n)
            return Outcome(
                task,
                "crash",
                agent=agent,
                attempts=n,
                detail=f"its worker process died (exit code {code}) in each of {n} attempts",
            )
        # the call's own limit where it published one (a setup call's allowance), else
        # the pool's move limit
        limit = w.slot[2] if w.slot[2] >= 0 else self.time_limit
        if limit is not None and agent >= 0:
            elapsed = time.monotonic() - w.slot[1]
            if elapsed > hard_deadline(limit):
                w.task = None
                w.kill()
                return Outcome(
                    task,
                    "timeout",
                    agent=agent,
                    attempts=attempts[task.key],
                    detail=f"exceeded the {'per-move' if limit == self.time_limit else 'setup'}"
                    f" time limit of {limit} s "
                    f"(still running after {elapsed:.2f} s; worker killed)",
                )
        return None
