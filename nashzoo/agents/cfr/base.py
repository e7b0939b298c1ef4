"""Common machinery of the tabular solvers: arrays on a compiled tree, iterate/callback,
policy snapshots and exploitability."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.best_response import nash_conv_array
from nashzoo.tree.compile import GameTree, compile_game
from nashzoo.tree.policy import TabularPolicy
from nashzoo.validation import check_int

__all__ = ["TabularSolver", "Callback"]

Callback = Callable[["TabularSolver"], Any]
"""Called as ``callback(solver)``; returning ``False`` stops :meth:`TabularSolver.iterate`."""


class TabularSolver:
    """Base of every solver over a :class:`~nashzoo.tree.GameTree`.

    Subclasses implement :meth:`_run` (``n`` iterations) and :meth:`_average_sums` /
    :meth:`_current_probs`.

    Args:
        game: a :class:`~nashzoo.games.Game` (compiled here) or a compiled tree.
    """

    name = "solver"

    def __init__(self, game: Game | GameTree) -> None:
        if isinstance(game, GameTree):
            self.tree = game
        elif isinstance(game, Game):
            self.tree = compile_game(game)
        else:
            raise InvalidParameterError(
                f"{type(self).__name__} expects a nashzoo Game or GameTree, received "
                f"{type(game).__name__}."
            )
        self.iteration = 0
        self.seconds = 0.0
        tree = self.tree
        counts = np.bincount(tree.infoset_player, minlength=tree.num_players)
        self._player_hi = np.cumsum(counts).astype(np.int64)
        self._player_lo = (self._player_hi - counts).astype(np.int64)

    # -- to implement ------------------------------------------------------------------------
    def _run(self, n: int) -> int | None:
        """Run up to ``n`` iterations; return how many ran if fewer (None means ``n``)."""
        raise NotImplementedError

    def _average_sums(self) -> np.ndarray:
        raise NotImplementedError

    def _current_probs(self) -> np.ndarray:
        raise NotImplementedError

    # -- public ------------------------------------------------------------------------------
    def iterate(
        self, n: int = 1, *, callback: Callback | None = None, callback_every: int = 1
    ) -> TabularSolver:
        """Run ``n`` iterations.

        Args:
            n: iterations to run.
            callback: called as ``callback(self)`` every ``callback_every`` iterations and
                after the last; return ``False`` to stop early (progress bars, checkpoints,
                exploitability curves).
            callback_every: iterations between callbacks (batches run compiled in between).

        Returns:
            ``self``, for chaining.
        """
        n = check_int("n", n, 0)
        callback_every = check_int("callback_every", callback_every, 1)
        if not getattr(self, "_compiled", False):
            self._run(0)  # compile the kernels outside the timed region
            self._compiled = True
        done = 0
        while done < n:
            step = n - done if callback is None else min(callback_every, n - done)
            start = time.perf_counter()
            ran = self._run(step)
            ran = step if ran is None else ran
            self.seconds += time.perf_counter() - start
            self.iteration += ran
            done += ran
            if callback is not None and callback(self) is False:
                break
            if ran < step:  # the solver has finished (e.g. a certified equilibrium)
                break
        return self

    def average_policy(self) -> TabularPolicy:
        """A snapshot of the average policy (the one that converges to equilibrium)."""
        probs = self.tree.normalize_rows(self._average_sums())
        return TabularPolicy(self.tree, probs, metadata=self._metadata("average"))

    def current_policy(self) -> TabularPolicy:
        """A snapshot of the policy of the last iteration."""
        return TabularPolicy(self.tree, self._current_probs(), metadata=self._metadata("current"))

    def exploitability(self) -> float:
        """Exploitability (chips) of the average policy, computed exactly."""
        probs = self.tree.normalize_rows(self._average_sums())
        return nash_conv_array(self.tree, probs) / self.tree.num_players

    def _metadata(self, which: str) -> dict[str, Any]:
        return {
            "algorithm": self.name,
            "iterations": self.iteration,
            "policy": which,
            "seconds": round(self.seconds, 6),
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tree.game}, iteration={self.iteration})"
