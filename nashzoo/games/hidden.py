"""The hidden information one player faces, read from the rules instead of the tree.

A search agent never holds the true state: it must imagine the opponent's private
information (poker: the hole cards; fighting cards: the hand) among the values
consistent with what it has seen. :func:`nashzoo.games.worlds.consistent_histories`
finds them by walking the game tree, which only small games allow. A game whose rules
know their own hidden information implements two methods instead:

* :meth:`State.hidden_worlds(player) <nashzoo.games.base.State.hidden_worlds>`: the
  opponent's possible private values given ``player``'s view of this state, each with
  its chance weight, and a builder of the state for each: :class:`HiddenWorlds`. Its cost
  is proportional to the number of values (poker: the hole-card sets left in the deck;
  fighting cards: a dynamic programme over the opponent's hands);
* :meth:`Game.view_state(player, info_state, public_history)
  <nashzoo.games.base.Game.view_state>`: one state consistent with a player's
  information-state string and the public history (what an agent receives), from which
  :meth:`~nashzoo.games.base.State.hidden_worlds` lists the rest.

OpenSpiel's ``resample_from_infostate`` draws from the same distribution.
``tests/games/test_hidden.py`` checks both against the tree walk on every information
set of the small games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from nashzoo.errors import InvalidParameterError, NashzooError

if TYPE_CHECKING:
    from nashzoo.games.base import State

__all__ = ["HiddenWorlds", "Combinations", "checked_view", "view_from_history"]

S = TypeVar("S", bound="State")


class HiddenWorlds:
    """The worlds a player cannot tell apart, one per value of the opponent's private
    information.

    Args:
        player: whose view.
        values: the opponent's possible private values (hashable; in the rules' order): a
            sequence, which may compute its items on demand.
        weights: the chance probability of each value given the view (normalized here;
            the opponent's own choices count 1, as in the tree walk); ``None``: all
            equally likely.
        build: ``build(value)`` returns a fresh state consistent with the view in which
            the opponent's private information is ``value``.

    Raises:
        InvalidParameterError: ``weights`` does not match ``values`` or has no positive
            entry.
    """

    __slots__ = ("player", "values", "_weights", "_build", "_cumulative", "_index")

    def __init__(
        self,
        player: int,
        values: Sequence[Hashable],
        weights: Sequence[float] | np.ndarray | None,
        build: Callable[[Hashable], State],
    ) -> None:
        self.player = int(player)
        # a Sequence is kept as it is (it may compute its items on demand)
        self.values: Sequence[Hashable] = values if isinstance(values, Sequence) else tuple(values)
        self._build = build
        self._cumulative: np.ndarray | None = None
        self._weights: np.ndarray | None = None
        self._index: dict[Hashable, int] | None = None
        if not len(self.values):
            raise InvalidParameterError("HiddenWorlds needs at least one value, received none.")
        if weights is None:  # equally likely: nothing to store
            return
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(values),) or not np.isfinite(w).all() or (w < 0).any():
            raise InvalidParameterError(
                f"HiddenWorlds needs one non-negative weight per value ({len(values)}), "
                f"received shape {w.shape}."
            )
        total = float(w.sum())
        if total <= 0:
            raise InvalidParameterError("HiddenWorlds needs a positive weight, received none.")
        self._weights = w / total

    @property
    def weights(self) -> np.ndarray:
        """The chance probability of each value (sums to 1)."""
        if self._weights is None:
            return np.full(len(self.values), 1.0 / len(self.values))
        return self._weights

    def __len__(self) -> int:
        return len(self.values)

    def state(self, k: int) -> State:
        """A fresh state of world ``k`` (the opponent holds ``values[k]``)."""
        return self._build(self.values[k])

    def sample(self, rng: np.random.Generator, weights: np.ndarray | None = None) -> State:
        """A world drawn by ``weights`` (default: the chance weights)."""
        if weights is None:
            return self.state_at(rng.random())
        cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
        k = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        return self.state(min(k, len(self.values) - 1))

    def state_at(self, u: float) -> State:
        """The world whose cumulative chance weight first exceeds ``u`` in [0, 1): one
        uniform draw picks a world by its weight."""
        n = len(self.values)
        if self._weights is None:
            return self.state(min(int(u * n), n - 1))
        if self._cumulative is None:
            self._cumulative = np.cumsum(self._weights)
        k = int(np.searchsorted(self._cumulative, u * self._cumulative[-1], side="right"))
        return self.state(min(k, n - 1))

    def index_of(self, value: Hashable) -> int:
        """The position of ``value`` among :attr:`values` (their own ``rank`` where they
        have one, else a dictionary built on first use).

        Raises:
            InvalidParameterError: ``value`` is not one of them.
        """
        rank = getattr(self.values, "rank", None)  # values that rank without a list
        k: int | None
        if rank is not None:
            k = rank(value)
        else:
            if self._index is None:
                self._index = {v: k for k, v in enumerate(self.values)}
            k = self._index.get(value)
        if k is None:
            raise InvalidParameterError(
                f"{value!r} is not one of the {len(self.values)} hidden values of player "
                f"{self.player}'s view."
            )
        return int(k)

    def as_dict(self) -> dict[Hashable, float]:
        """``{value: weight}``."""
        return dict(zip(self.values, self.weights.tolist()))


def checked_view(state: S, player: int, info_state: str, public: Sequence[int]) -> S:
    """``state``, once its information-state string for ``player`` is ``info_state``
    (what a game's ``view_state`` rebuilt from the public history must show).

    Raises:
        InvalidParameterError: the two disagree.
    """
    if state.information_state_string_unchecked(player) != info_state:
        raise InvalidParameterError(
            f"info_state {info_state!r} disagrees with public_history {list(public)}."
        )
    return state


def view_from_history(
    game: Any, actions: Sequence[int], player: int, info_state: str, public: Sequence[int]
) -> Any:
    """The state ``actions`` (a full history: the player's own private information as it
    reads it, made-up values for the others', then the public actions) reaches from
    ``game``'s root, once it shows ``player`` the view ``info_state``: what a game's
    ``view_state`` builds.

    Raises:
        InvalidParameterError: the actions are not a history of the game, or the state
            they reach shows ``player`` another string.
    """
    state = game.new_initial_state()
    try:
        for action in actions:
            state.apply_action(int(action))
    except NashzooError as error:
        raise InvalidParameterError(
            f"public_history {list(public)} is not a history of {game.short_name}: {error}"
        ) from error
    return checked_view(state, player, info_state, public)


class Combinations(Sequence[tuple[int, ...]]):
    """The ``k``-subsets of ``items`` in :func:`itertools.combinations` order, computed on
    demand (a poker hand's possible opposing hole cards, without a list of them)."""

    __slots__ = ("items", "k", "_size")

    def __init__(self, items: Sequence[int], k: int) -> None:
        self.items = tuple(items)
        self.k = int(k)
        self._size = math.comb(len(self.items), self.k)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: int) -> tuple[int, ...]:  # type: ignore[override]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(f"combination {index} of {self._size}")
        m, k = len(self.items), self.k
        if k == 2:  # hole-card pairs: the first card, then the offset of the second
            first = 0
            while index >= m - first - 1:
                index -= m - first - 1
                first += 1
            return (self.items[first], self.items[first + 1 + index])
        out: list[int] = []
        start = 0
        for i in range(k):
            for j in range(start, m):
                below = math.comb(m - j - 1, k - i - 1)
                if index < below:
                    out.append(self.items[j])
                    start = j + 1
                    break
                index -= below
        return tuple(out)

    def take(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """The combinations at ``indices`` as an ``(n, k)`` integer array (vectorized
        for single items and pairs)."""
        idx = np.asarray(indices, dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self._size):
            raise IndexError(f"combination indices must lie in [0, {self._size})")
        if self.k == 1:
            return np.asarray(self.items, dtype=np.int64)[idx].reshape(-1, 1)
        if self.k != 2:
            return np.array([self[int(i)] for i in idx], dtype=np.int64).reshape(-1, self.k)
        m = len(self.items)
        f = np.arange(m)
        before = f * m - f * (f + 1) // 2  # pairs whose first card comes before f
        first = np.searchsorted(before, idx, side="right") - 1
        second = first + 1 + (idx - before[first])
        items = np.asarray(self.items, dtype=np.int64)
        return np.stack([items[first], items[second]], axis=1)

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return itertools.combinations(self.items, self.k)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Combinations) and (self.items, self.k) == (other.items, other.k)

    def __hash__(self) -> int:
        return hash((Combinations, self.items, self.k))

    def __contains__(self, value: object) -> bool:
        return (
            isinstance(value, tuple)
            and len(value) == self.k
            and all(a < b for a, b in itertools.pairwise(value))
            and set(value) <= set(self.items)
        )
