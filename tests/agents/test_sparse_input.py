"""Forward passes at the cost of the inputs' non-zero entries."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nashzoo.agents.sparse_input import forward_sparse, rows_csr
from nashzoo.agents.training import mlp


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def test_rows_csr_lists_each_rows_non_zero_entries_in_order():
    rng = np.random.default_rng(0)
    rows = (rng.random((50, 30)) < 0.2).astype(np.float32)
    rows[7] = 0.0  # an empty row
    csr = rows_csr(rows)
    assert csr.values is None and csr.rows == 50 and csr.width == 30
    for r in range(50):
        cols = csr.columns[csr.offsets[r] : csr.offsets[r + 1]]
        assert np.array_equal(cols, np.flatnonzero(rows[r]))
    rows[3, 4] = 2.5
    weighted = rows_csr(rows)
    assert weighted.values is not None
    k = int(np.searchsorted(weighted.columns[weighted.offsets[3] : weighted.offsets[4]], 4))
    assert weighted.values[weighted.offsets[3] + k] == 2.5


@pytest.mark.parametrize("binary", [True, False])
def test_the_sparse_forward_is_the_dense_forward(binary):
    torch.manual_seed(0)
    net = mlp(torch, [40, 16, 16, 3])
    rng = np.random.default_rng(1)
    rows = (rng.random((200, 40)) < 0.1).astype(np.float32)
    if not binary:
        rows *= rng.random((200, 40)).astype(np.float32) * 3
    rows[0] = 0.0
    with torch.no_grad():
        dense = net(torch.from_numpy(rows)).numpy()
    sparse = forward_sparse(torch, net, rows_csr(rows)).numpy()
    np.testing.assert_allclose(sparse, dense, rtol=0, atol=1e-5)
    assert not np.array_equal(sparse, np.zeros_like(sparse))


def test_a_row_of_another_width_is_refused():
    net = mlp(torch, [40, 8, 1])
    with pytest.raises(ValueError, match="takes rows of 40 entries, received 39"):
        forward_sparse(torch, net, rows_csr(np.ones((2, 39), np.float32)))
    with pytest.raises(ValueError, match="2-D"):
        rows_csr(np.ones(5, np.float32))
