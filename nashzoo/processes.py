"""Worker processes whose numeric libraries use a set number of threads.

Where a program's parallelism is its processes (a tournament's workers, self-play
workers), each process's numeric libraries should run on one thread: torch, OpenMP and
numpy's BLAS otherwise start one thread per core in every process, and their idle
threads spin on the cores the other processes need. OpenBLAS sizes its thread pool once,
when numpy is imported, and a spawned process imports numpy while it unpickles its
target, before any of the caller's code runs there; so the thread variables must be in
the process's environment when it starts (:func:`thread_environment`,
:func:`spawn_context`), and torch, which may be loaded already, is told at run time
(:func:`limit_threads`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Iterator
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any

from nashzoo.errors import InvalidParameterError, WorkerError
from nashzoo.validation import check_int

__all__ = ["THREAD_VARIABLES", "thread_environment", "limit_threads", "spawn_context", "start_ray"]

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""The environment variables OpenMP (torch's CPU kernels), MKL and OpenBLAS (numpy's BLAS)
read when they start."""


@contextlib.contextmanager
def thread_environment(threads: int | None) -> Iterator[None]:
    """While the block runs, this process's environment holds ``threads`` in every
    :data:`THREAD_VARIABLES` (``None``: left as it is), so a process started inside it
    inherits them; the variables are restored afterwards."""
    if threads is None:
        yield
        return
    threads = check_int("threads", threads, 1)
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update({name: str(threads) for name in THREAD_VARIABLES})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def limit_threads(threads: int) -> None:
    """Hold this process's numeric libraries to ``threads`` threads from now on: the
    variables libraries read when they start, and torch's pool if torch is loaded (BLAS
    already loaded keeps its size: start the process with :func:`thread_environment`)."""
    threads = check_int("threads", threads, 1)
    os.environ.update({name: str(threads) for name in THREAD_VARIABLES})
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


class _Process(SpawnProcess):
    """A spawned process that starts inside :func:`thread_environment`."""

    threads: int | None = None

    def start(self) -> None:
        with thread_environment(self.threads):
            super().start()


class _SpawnContext(SpawnContext):
    def __init__(self, threads: int | None) -> None:
        self.threads = threads

    # the context's API: a callable named Process (a class on the standard contexts)
    def Process(self, *args: Any, **kwargs: Any) -> _Process:  # type: ignore[override]
        process = _Process(*args, **kwargs)
        process.threads = self.threads
        return process


def spawn_context(threads: int | None = 1) -> SpawnContext:
    """The ``"spawn"`` multiprocessing context, with every process it starts holding its
    numeric libraries to ``threads`` threads from its first instruction (``None``: their
    defaults); pass it as ``mp_context=`` to :class:`concurrent.futures.ProcessPoolExecutor`.

    Raises:
        InvalidParameterError: ``threads`` is not an integer >= 1 or ``None``.
    """
    if threads is not None:
        threads = check_int("threads", threads, 1)
    return _SpawnContext(threads)


def start_ray(address: str | None = None, *, feature: str = "backend='ray'", **options: Any) -> Any:
    """Ray, initialised once per process: ``address=None`` joins the cluster that
    ``RAY_ADDRESS`` names, else starts a new one on this machine; ``"host:port"`` (or
    ``"ray://host:port"``) joins that cluster, which is checked first so that an address
    nothing answers at fails at once rather than after Ray's own retries; ``options``
    go to ``ray.init`` (``num_cpus=`` for a local one). Returns the ``ray`` module.

    Raises:
        MissingDependencyError: ray is not installed (``pip install 'nashzoo[ray]'``).
        InvalidParameterError: ``address`` is not a string of the form ``host:port``.
        WorkerError: nothing answers at ``address``, naming it.
    """
    from nashzoo.extras import require

    ray = require("ray", "ray", feature)
    if ray.is_initialized():
        return ray
    # "local": a new instance, never one a dead run's files still point at
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    if address not in ("auto", "local"):
        host, port = _host_port(address)
        try:
            socket.create_connection((host, port), timeout=5.0).close()
        except OSError as exc:
            raise WorkerError(
                f"Cannot reach the Ray cluster at {address!r} ({exc}); start it with "
                f"`ray start --head --port {port}` there, or leave the address out to start "
                "Ray on this machine."
            ) from None
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **options)
    except ConnectionError as exc:
        raise WorkerError(f"Cannot join the Ray cluster at {address!r}: {exc}") from None
    return ray


def _host_port(address: str) -> tuple[str, int]:
    """``(host, port)`` of ``"host:port"`` or ``"ray://host:port"``."""
    text = (
        address[len("ray://") :]
        if isinstance(address, str) and address.startswith("ray://")
        else address
    )
    host, _, port = text.rpartition(":") if isinstance(text, str) else ("", "", "")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidParameterError(
            f"A Ray address must be 'host:port' or 'ray://host:port', received {address!r}."
        )
    return host, int(port)
