"""The supervised worker pool holds each worker's numeric libraries to its thread count."""

from __future__ import annotations

import os
from typing import Any

import pytest

from nashzoo.errors import InvalidParameterError
from nashzoo.eval.pool import SupervisedPool, Task


def _threads_seen(*, slot: Any) -> tuple[str | None, int]:
    """What a worker sees: its OpenMP variable, and torch's pool when torch loads there."""
    import torch

    return os.environ.get("OMP_NUM_THREADS"), torch.get_num_threads()


@pytest.mark.parametrize("threads", [1, 2])
def test_each_worker_runs_torch_on_the_pools_thread_count(threads):
    pytest.importorskip("torch")
    with SupervisedPool(2, threads=threads) as pool:
        outcomes = list(pool.run(Task(i, _threads_seen, ()) for i in range(2)))
    assert [o.status for o in outcomes] == ["ok", "ok"]
    # torch's own default is one thread per core, so on two or more cores the
    # default-threads workers of the tournament saw 2+ here before the pool set it
    assert [o.value for o in outcomes] == [(str(threads), threads)] * 2


def _os_threads_after_blas(*, slot: Any) -> int:
    """The worker's OS threads after a numpy matrix product (OpenBLAS's pool included)."""
    import numpy as np

    a = np.ones((300, 300))
    float((a @ a).sum())
    return len(os.listdir("/proc/self/task"))


counts_blas_threads = pytest.mark.skipif(
    not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
    reason="counts OS threads in /proc; BLAS starts one thread on one core anyway",
)


@counts_blas_threads
def test_each_worker_runs_numpys_blas_on_one_thread():
    # numpy's OpenBLAS sizes its pool when numpy loads, which a spawned worker does
    # before it runs any code of the pool's; with one OS thread per core it then kept
    # a second thread per worker spinning (2 threads here before the fix)
    with SupervisedPool(1, threads=1) as pool:
        outcomes = list(pool.run([Task(0, _os_threads_after_blas, ())]))
    assert [o.status for o in outcomes] == ["ok"]
    assert outcomes[0].value == 1


def test_the_pool_leaves_the_parents_environment_as_it_was(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with SupervisedPool(1, threads=1) as pool:
        outcomes = list(pool.run([Task(0, _threads_seen_env, ())]))
    assert outcomes[0].value == ("1", "1")
    assert os.environ["OMP_NUM_THREADS"] == "7"
    assert "OPENBLAS_NUM_THREADS" not in os.environ


def _threads_seen_env(*, slot: Any) -> tuple[str | None, str | None]:
    return os.environ.get("OMP_NUM_THREADS"), os.environ.get("OPENBLAS_NUM_THREADS")


def test_the_thread_count_is_checked():
    with pytest.raises(InvalidParameterError, match="threads"):
        SupervisedPool(1, threads=0)
    with pytest.raises(InvalidParameterError, match="threads"):
        SupervisedPool(1, threads=1.5)  # type: ignore[arg-type]


@counts_blas_threads
def test_a_spawn_context_starts_processes_with_one_blas_thread():
    # the self-play workers of Nash-ISMCTS start through this context
    from concurrent.futures import ProcessPoolExecutor

    from nashzoo.processes import spawn_context

    with ProcessPoolExecutor(1, mp_context=spawn_context(1)) as pool:
        # 2 with multiprocessing's own "spawn" context: numpy's BLAS thread beside it
        assert pool.submit(_os_threads_after_blas, slot=None).result() == 1
        assert pool.submit(_threads_seen_env, slot=None).result() == ("1", "1")


def test_spawn_context_checks_its_thread_count():
    from nashzoo.processes import spawn_context

    with pytest.raises(InvalidParameterError, match="threads"):
        spawn_context(0)
