"""Match workers: processes (or Ray tasks) that claim jobs from the database and run them.

Jobs are claimed transactionally (:meth:`Leaderboard.claim`), so any number of workers
on any number of machines may share one database. A worker killed mid-job leaves its
job ``running`` until its lease runs out; another worker then plays the same block again
(deterministic in its seed) and the result store keeps one copy.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from typing import Any

from nashzoo.eval.guard import stop_handler
from nashzoo.leaderboard.service import Leaderboard, Settings

__all__ = ["worker_main", "WorkerPool", "ray_workers"]

logger = logging.getLogger(__name__)


def _exit_with(parent: int) -> None:
    """End this process soon after ``parent`` is gone (reparented: ``getppid`` changes).

    ``nashzoo serve`` may die without running its clean-up: killed, or by SIGTERM, which
    uvicorn re-raises after its graceful shutdown. Its workers must not live on, claiming
    jobs for a board nobody serves. A job cut short is queued again when a server
    starts on this host (:meth:`Leaderboard.recover`), else after its lease."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)  # unwinds the job in hand (_stop_on_term)
        time.sleep(30.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="nashzoo-parent-watch").start()


def worker_main(
    settings: Settings, name: str, stop_when_idle: bool = False, parent: int | None = None
) -> int:
    """Run jobs (the body of one worker process or Ray task): forever, or until none is
    left when ``stop_when_idle``, or until process ``parent`` (when given) is gone.
    Returns the number of jobs run."""
    if parent is not None:
        _exit_with(parent)
        # A stop (WorkerPool.close terminates its workers) unwinds the job in hand, so
        # its sandbox is closed and its extracted bundle removed; the job stays claimed
        # and the next server start queues it again (Leaderboard.recover).
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, stop_handler)
    board = Leaderboard(settings)
    try:
        return board.work(name, stop_when_idle=stop_when_idle)
    except KeyboardInterrupt:  # stopped (SIGTERM, or Ctrl-C): the job in hand unwound
        logger.info("worker %s stopped", name)
        return 0


class WorkerPool:
    """``n`` local worker processes, restarted when one dies."""

    def __init__(self, settings: Settings, n: int) -> None:
        self.settings = settings
        self.ctx = multiprocessing.get_context("spawn")
        self.procs: list[Any] = [None] * n
        self._stop = threading.Event()
        for k in range(n):
            self._start(k)
        self._watch = threading.Thread(target=self._supervise, daemon=True)
        self._watch.start()

    def _start(self, k: int) -> None:
        proc = self.ctx.Process(
            target=worker_main,
            args=(self.settings, f"{os.uname().nodename}-{os.getpid()}-{k}", False, os.getpid()),
        )
        proc.daemon = True
        proc.start()
        self.procs[k] = proc

    def _supervise(self) -> None:
        while not self._stop.wait(1.0):
            for k, proc in enumerate(self.procs):
                if proc is not None and not proc.is_alive():
                    logger.warning("worker %d exited (%s); restarting it", k, proc.exitcode)
                    self._start(k)

    def close(self) -> None:
        """Stop every worker."""
        self._stop.set()
        for proc in self.procs:
            if proc is not None and proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            if proc is not None:
                proc.join(timeout=10)


def ray_workers(settings: Settings, n: int, *, stop_when_idle: bool = False) -> list[Any]:
    """Start ``n`` workers as Ray tasks (the ``ray`` extra); returns their object refs
    (each resolves to its number of jobs run, once ``stop_when_idle`` workers find none
    left). A task whose process dies is retried by Ray; its claimed job is played again
    after its lease, and the result store keeps each block once."""
    from nashzoo.processes import start_ray

    ray = start_ray(None, feature="Ray leaderboard workers", num_cpus=max(n, 1))
    remote = ray.remote(max_retries=-1)(worker_main)
    return [remote.remote(settings, f"ray-{k}-{time.time_ns()}", stop_when_idle) for k in range(n)]
