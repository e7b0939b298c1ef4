"""Forward passes on mostly-zero inputs at the cost of their non-zero entries.

The games' information-state tensors are one-hots and thermometers: the fighting game's
434 entries hold about 35 ones. An MLP's first ``Linear`` on such a row is the sum of the
weight columns at its non-zero entries (times their values) plus the bias, which
``embedding_bag`` computes in time proportional to the non-zeros rather than to the
width. :func:`rows_csr` lists each row's non-zero entries (numba, in increasing column
order) and :func:`forward_sparse` runs an :func:`~nashzoo.agents.training.mlp` that way,
without gradients: what scoring many successors with a value network needs. The sums run
in another order than a dense matrix product, so the outputs equal the dense ones up to
float32 rounding, and are the same for the same rows whichever code built them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

__all__ = ["CSRRows", "rows_csr", "forward_sparse"]


class CSRRows(NamedTuple):
    """Rows as their non-zero entries: row ``r``'s columns are
    ``columns[offsets[r]:offsets[r + 1]]`` with ``values`` at the same places
    (``values`` is ``None`` when every non-zero entry is 1)."""

    columns: np.ndarray
    offsets: np.ndarray
    values: np.ndarray | None
    width: int

    @property
    def rows(self) -> int:
        """How many rows."""
        return int(self.offsets.size - 1)


@njit(cache=True)
def _csr(rows):
    n, d = rows.shape
    offsets = np.zeros(n + 1, np.int64)
    for r in range(n):
        count = 0
        for c in range(d):
            if rows[r, c] != 0.0:
                count += 1
        offsets[r + 1] = offsets[r] + count
    columns = np.empty(offsets[n], np.int64)
    values = np.empty(offsets[n], np.float32)
    ones = True
    for r in range(n):
        k = offsets[r]
        for c in range(d):
            v = rows[r, c]
            if v != 0.0:
                columns[k] = c
                values[k] = v
                if v != 1.0:
                    ones = False
                k += 1
    return columns, offsets, values, ones


def rows_csr(rows: np.ndarray) -> CSRRows:
    """The non-zero entries of each row of a 2-D array (as float32)."""
    dense = np.ascontiguousarray(rows, dtype=np.float32)
    if dense.ndim != 2:
        raise ValueError(f"rows_csr expects a 2-D array, received shape {dense.shape}.")
    columns, offsets, values, ones = _csr(dense)
    return CSRRows(columns, offsets, None if ones else values, dense.shape[1])


def forward_sparse(torch: Any, net: Any, rows: CSRRows) -> Any:
    """``net``'s output on ``rows`` (an :func:`~nashzoo.agents.training.mlp`: its first
    layer a ``Linear``), without gradients.

    Raises:
        ValueError: the rows' width is not the first layer's input width.
    """
    first = net[0]
    if first.in_features != rows.width:
        raise ValueError(
            f"The network takes rows of {first.in_features} entries, received {rows.width}."
        )
    with torch.no_grad():
        # the bag's start offsets; embedding_bag takes the last one to end the input
        device = first.weight.device
        columns = torch.from_numpy(rows.columns).to(device)
        offsets = torch.from_numpy(rows.offsets[:-1]).to(device)
        weights = None if rows.values is None else torch.from_numpy(rows.values).to(device)
        table = first.weight.t().contiguous()
        h = torch.nn.functional.embedding_bag(
            columns, table, offsets, mode="sum", per_sample_weights=weights
        )
        h = h + first.bias
        for layer in list(net)[1:]:
            h = layer(h)
        return h
