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


def test_the_thread_count_is_checked():
    with pytest.raises(InvalidParameterError, match="threads"):
        SupervisedPool(1, threads=0)
    with pytest.raises(InvalidParameterError, match="threads"):
        SupervisedPool(1, threads=1.5)  # type: ignore[arg-type]
