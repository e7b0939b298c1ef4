"""Two-player normal-form (matrix) games, played as sequential moves with hidden actions.

Player 0 (the row player) picks a row; player 1 (the column player) then picks a column
without seeing it; the payoffs are ``row_payoffs[row, col]`` and ``col_payoffs[row, col]``.
Expressing the simultaneous move this way gives an ordinary extensive-form tree (one
information set per player), so the tree compiler, the solvers and the AEC adapter serve
matrix games unchanged; the env also offers PettingZoo's parallel API.

Presets: :func:`rock_paper_scissors`, :func:`weighted_rock_paper_scissors` (scissors wins
and loses 2, rock and paper 1; equilibrium (2/5, 2/5, 1/5)) and :func:`matching_pennies`.

Information-state tensor (``2 + A`` floats, ``A = max(rows, cols)``): one-hot of the
observing player, then one-hot of the player's own action once it has been played.
Information-state string: ``"player=1"`` before moving, ``"player=1 played=Paper"`` after.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import TERMINAL, Game, State

__all__ = [
    "MatrixGame",
    "MatrixGameState",
    "rock_paper_scissors",
    "weighted_rock_paper_scissors",
    "matching_pennies",
    "PRESETS",
]


def _as_matrix(name: str, value: Any) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"Parameter `{name}` expects a 2-D array of numbers, received {value!r}."
        ) from exc
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise InvalidParameterError(
            f"Parameter `{name}` expects a non-empty 2-D array, received shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"Parameter `{name}` contains NaN or infinite payoffs.")
    return arr


class MatrixGame(Game):
    """A two-player matrix game.

    Args:
        row_payoffs: ``(rows, cols)`` payoffs of player 0.
        col_payoffs: ``(rows, cols)`` payoffs of player 1; ``None`` means ``-row_payoffs``
            (zero-sum).
        row_action_names: names of the rows (default ``"a0", "a1", ...``).
        col_action_names: names of the columns (default: the row names when the game is
            square, else ``"b0", ...``).
        name: short name used in ids and repr.

    Raises:
        InvalidParameterError: shapes disagree, payoffs are not finite, or the number of
            names does not match.
    """

    simultaneous = True
    game_type = "matrix_game"

    def __init__(
        self,
        row_payoffs: Any,
        col_payoffs: Any = None,
        *,
        row_action_names: Sequence[str] | None = None,
        col_action_names: Sequence[str] | None = None,
        name: str = "matrix_game",
    ) -> None:
        self.row_payoffs = _as_matrix("row_payoffs", row_payoffs)
        if col_payoffs is None:
            self.col_payoffs = 0.0 - self.row_payoffs
        else:
            self.col_payoffs = _as_matrix("col_payoffs", col_payoffs)
            if self.col_payoffs.shape != self.row_payoffs.shape:
                raise InvalidParameterError(
                    f"`col_payoffs` has shape {self.col_payoffs.shape} but `row_payoffs` "
                    f"has shape {self.row_payoffs.shape}; they must match."
                )
        self.row_payoffs.setflags(write=False)
        self.col_payoffs.setflags(write=False)
        rows, cols = self.row_payoffs.shape
        self.num_rows, self.num_cols = rows, cols
        self.row_action_names = self._names("row_action_names", row_action_names, rows, "a")
        if col_action_names is None and rows == cols:
            col_action_names = self.row_action_names
        self.col_action_names = self._names("col_action_names", col_action_names, cols, "b")
        self.short_name = name
        self.num_players = 2
        self.num_distinct_actions = max(rows, cols)
        self.max_chance_outcomes = 0
        self.max_chance_nodes = 0
        self.max_game_length = 2
        self.information_state_tensor_size = 2 + self.num_distinct_actions
        self.zero_sum = bool(np.allclose(self.row_payoffs + self.col_payoffs, 0.0))
        both = np.concatenate([self.row_payoffs.ravel(), self.col_payoffs.ravel()])
        self.min_utility = float(both.min())
        self.max_utility = float(both.max())
        self.legal_by_player: tuple[tuple[int, ...], tuple[int, ...]] = (
            tuple(range(rows)),
            tuple(range(cols)),
        )
        """Legal actions of the row player and of the column player."""

    @staticmethod
    def _names(param: str, names: Sequence[str] | None, n: int, prefix: str) -> tuple[str, ...]:
        if names is None:
            return tuple(f"{prefix}{i}" for i in range(n))
        names = tuple(str(x) for x in names)
        if len(names) != n:
            raise InvalidParameterError(
                f"Parameter `{param}` needs {n} names, received {len(names)}: {names!r}."
            )
        return names

    def params(self) -> dict[str, Any]:
        return {
            "row_payoffs": self.row_payoffs.tolist(),
            "col_payoffs": self.col_payoffs.tolist(),
            "row_action_names": list(self.row_action_names),
            "col_action_names": list(self.col_action_names),
            "name": self.short_name,
        }

    def __str__(self) -> str:
        """Its name (``rps``, ``matching_pennies``, or the one given)."""
        return self.short_name

    def action_name(self, action: int, player: int | None = None) -> str:
        """Name of ``action`` for ``player`` (0 = row, 1 = column).

        Without ``player`` the name is unambiguous only when both players share their
        action names; otherwise both readings are given, e.g. ``"Rock (row) / Heads
        (column)"``.
        """
        rows, cols = self.row_action_names, self.col_action_names
        if player == 0 or player == 1:
            names = rows if player == 0 else cols
            return names[action] if 0 <= action < len(names) else str(action)
        row = rows[action] if 0 <= action < len(rows) else None
        col = cols[action] if 0 <= action < len(cols) else None
        if row == col and row is not None:
            return row
        return " / ".join(
            f"{n} ({who})" for n, who in ((row, "row"), (col, "column")) if n is not None
        ) or str(action)

    def count_histories(self) -> int:
        """``1 + rows + rows * cols``."""
        return int(1 + self.num_rows + self.num_rows * self.num_cols)

    def new_initial_state(self) -> MatrixGameState:
        return MatrixGameState(self)


class MatrixGameState(State):
    """A history of a :class:`MatrixGame`: ``[]``, ``[row]`` or ``[row, col]``."""

    game: MatrixGame

    __slots__ = ("game", "_actions")

    def __init__(self, game: MatrixGame) -> None:
        self.game = game
        self._actions: list[int] = []

    def current_player(self) -> int:
        n = len(self._actions)
        return n if n < 2 else TERMINAL

    def legal_actions(self) -> Sequence[int]:
        n = len(self._actions)
        return self.game.legal_by_player[n] if n < 2 else ()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        self.check_chance()
        return []

    def pending_legal_actions(self, player: int) -> Sequence[int]:
        return self.game.legal_by_player[player] if len(self._actions) <= player else ()

    def apply_unchecked(self, action: int) -> None:
        self._actions.append(action)

    def clone(self) -> MatrixGameState:
        new = MatrixGameState.__new__(MatrixGameState)
        new.game = self.game
        new._actions = self._actions.copy()
        return new

    def returns(self) -> list[float]:
        if len(self._actions) < 2:
            return [0.0, 0.0]
        r, c = self._actions
        return [float(self.game.row_payoffs[r, c]), float(self.game.col_payoffs[r, c])]

    def history(self) -> list[int]:
        return self._actions.copy()

    def information_state_string_unchecked(self, player: int) -> str:
        if len(self._actions) > player:
            names = self.game.row_action_names if player == 0 else self.game.col_action_names
            return f"player={player} played={names[self._actions[player]]}"
        return f"player={player}"

    def information_state_indices(self, player: int) -> list[int]:
        idx = [player]
        if len(self._actions) > player:
            idx.append(2 + self._actions[player])
        return idx

    def public_history(self) -> list[int]:
        # The moves are simultaneous: neither is ever public (only the payoffs are).
        return []

    def __str__(self) -> str:
        g = self.game
        parts = []
        if self._actions:
            parts.append(f"row: {g.row_action_names[self._actions[0]]}")
        if len(self._actions) > 1:
            parts.append(f"col: {g.col_action_names[self._actions[1]]}")
        return " | ".join(parts) or "<no moves yet>"


_RPS = ("Rock", "Paper", "Scissors")


def rock_paper_scissors() -> MatrixGame:
    """Rock-paper-scissors: win 1, lose 1; unique equilibrium uniform (1/3 each)."""
    return MatrixGame([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], row_action_names=_RPS, name="rps")


def weighted_rock_paper_scissors() -> MatrixGame:
    """RPS where any result involving scissors is worth 2 (rock vs paper stays 1).

    Unique equilibrium (rock, paper, scissors) = (2/5, 2/5, 1/5), value 0.
    """
    return MatrixGame(
        [[0, -1, 2], [1, 0, -2], [-2, 2, 0]], row_action_names=_RPS, name="weighted_rps"
    )


def matching_pennies() -> MatrixGame:
    """Matching pennies: the row player wins 1 on a match; equilibrium (1/2, 1/2)."""
    return MatrixGame(
        [[1, -1], [-1, 1]], row_action_names=("Heads", "Tails"), name="matching_pennies"
    )


PRESETS = {
    "rps": rock_paper_scissors,
    "weighted_rps": weighted_rock_paper_scissors,
    "matching_pennies": matching_pennies,
}
