"""Actors for checking an actor/learner runtime (:mod:`nashzoo.agents.runtime`): what
they return says who made each batch, with which weights, in which order, so that a
test can see a batch counted twice, a stale one kept or a tag that lies."""

from __future__ import annotations

import time
from typing import Any

__all__ = ["NumberedActor"]


class NumberedActor:
    """Makes one unit of experience per batch, after ``delays[index]`` seconds (0 when
    ``delays`` is shorter); its data is ``(index, seed, number, version)``: the actor, its
    seed (a new one per incarnation), the batch's number in this incarnation and the
    version of the weights it held."""

    def __init__(self, index: int, seed: int, *, delays: tuple[float, ...] = ()) -> None:
        self.index, self.seed = index, seed
        self.delay = delays[index] if index < len(delays) else 0.0
        self.version = -1
        self.made = 0

    def set_weights(self, weights: Any, version: int) -> None:
        self.version = version

    def collect(self) -> tuple[int, tuple[int, int, int, int]]:
        if self.delay:
            time.sleep(self.delay)
        self.made += 1
        return 1, (self.index, self.seed, self.made, self.version)
