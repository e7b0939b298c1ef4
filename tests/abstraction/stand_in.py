"""Hold'em bucket tables of the right shape without the strength sweep, for tests of
the plumbing (files, agents, uploads), never of strength."""

from __future__ import annotations

from typing import Any

import numpy as np

from nashzoo.abstraction import holdem
from nashzoo.abstraction.holdem import HALF_UNITS, HoldemBuckets


def stand_in_buckets(kind: str, counts: tuple[int, int, int, int]) -> HoldemBuckets:
    """Tables of the right shape without the sweep (preflop by class number, flop by
    class number modulo the count, the turn all in one bucket): for the file and agent
    plumbing, not for strength."""
    pre = np.arange(169) % counts[0]
    flop = np.arange(holdem._FLOP.size(1)) % counts[1]
    turn = np.zeros(holdem._TURN.size(1), np.int32)
    edges = np.linspace(0, HALF_UNITS, counts[3] + 1)[1:-1].astype(np.int64)
    return holdem._finish(kind, counts, pre, flop, turn, edges)


def use_stand_in_buckets(monkeypatch: Any) -> None:
    """Make every Hold'em abstraction built in this test use :func:`stand_in_buckets`."""
    from nashzoo.abstraction import layout

    def fake(kind: str, counts: Any, *, progress: bool = True, cache: bool = True) -> Any:
        return stand_in_buckets(kind, tuple(counts))

    monkeypatch.setattr(layout, "holdem_buckets", fake)
