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

__all__ = [
    "HiddenWorlds",
    "HiddenPieces",
    "Combinations",
    "checked_view",
    "view_from_history",
]

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


class HiddenPieces:
    """The opponent's private information as a series of pieces drawn one after another
    (poker: the hole cards, lowest first), so that a search can draw a world piece by
    piece and value a prefix of pieces without listing every world (H-splitting drawn
    lazily, ``SearchConfig.draw_pieces``).

    :meth:`options` names the next piece's possible values after a prefix, with their
    chance weights (the chance probability of the prefix's worlds that continue with
    each, normalized), :meth:`state` builds the world of a full series and
    :meth:`pieces_of` reads a state's series. A game whose rules know their hidden
    information answers :meth:`options` in time proportional to the number of options
    (:meth:`State.hidden_pieces <nashzoo.games.base.State.hidden_pieces>`: poker); any
    other game gets :meth:`from_worlds`, which groups the listed worlds (time proportional
    to their number). :attr:`worlds` lists them on demand for what needs every world
    (the marginals of a belief over the worlds, :meth:`marginal`).

    Args:
        player: whose view.
        levels: pieces in a series.
        options: ``options(prefix)`` returns the next piece's values (integers, ascending)
            and their chance weights (summing to 1).
        build: ``build(pieces)`` returns a fresh state in which the opponent's private
            information is the series ``pieces``.
        pieces_of: ``pieces_of(state)`` returns the series of the opponent's private
            information in ``state`` (a state of this view).
        value: ``value(pieces)`` returns the private value (as :class:`HiddenWorlds`
            names it) of a full series.
        worlds: returns the view's :class:`HiddenWorlds` (called once, when needed).
        table: ``table(worlds)`` returns the series of each world, ``(len(worlds),
            levels)``.
    """

    __slots__ = ("player", "levels", "_options", "_build", "_pieces_of", "_value", "_worlds",
                 "_make_worlds", "_table", "_make_table")  # fmt: skip

    def __init__(
        self,
        player: int,
        levels: int,
        options: Callable[[tuple[int, ...]], tuple[np.ndarray, np.ndarray]],
        build: Callable[[tuple[int, ...]], State],
        pieces_of: Callable[[State], tuple[int, ...]],
        value: Callable[[tuple[int, ...]], Hashable],
        worlds: Callable[[], HiddenWorlds],
        table: Callable[[HiddenWorlds], np.ndarray],
    ) -> None:
        self.player = int(player)
        self.levels = int(levels)
        self._options = options
        self._build = build
        self._pieces_of = pieces_of
        self._value = value
        self._make_worlds = worlds
        self._make_table = table
        self._worlds: HiddenWorlds | None = None
        self._table: np.ndarray | None = None

    @classmethod
    def from_worlds(cls, worlds: HiddenWorlds, table: np.ndarray | None) -> HiddenPieces:
        """The series of listed ``worlds`` whose pieces are the rows of ``table``
        (``Game.hidden_value_pieces``; ``None``: each world is one piece).

        Raises:
            InvalidParameterError: ``table`` has another number of rows than ``worlds``.
        """
        n = len(worlds)
        rows = np.arange(n, dtype=np.int64)[:, None] if table is None else np.asarray(table)
        if rows.ndim != 2 or rows.shape[0] != n:
            raise InvalidParameterError(
                f"a table of pieces needs one row per world ({n}), received shape {rows.shape}."
            )
        index = {tuple(row): k for k, row in enumerate(rows.tolist())}

        def options(prefix: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
            mask = np.all(rows[:, : len(prefix)] == prefix, axis=1) if prefix else None
            values, inverse = np.unique(
                rows[:, len(prefix)] if mask is None else rows[mask, len(prefix)],
                return_inverse=True,
            )
            w = worlds.weights if mask is None else worlds.weights[mask]
            mass = np.bincount(inverse.reshape(-1), weights=w, minlength=values.size)
            return values.astype(np.int64), mass / mass.sum()

        def build(pieces: tuple[int, ...]) -> State:
            return worlds.state(index[tuple(pieces)])

        def pieces_of(state: State) -> tuple[int, ...]:
            value = state.private_information(1 - worlds.player)
            k = worlds.index_of(tuple(state.history()) if value is None else value)
            return tuple(rows[k].tolist())  # (k,) where each world is one piece

        def value(pieces: tuple[int, ...]) -> Hashable:
            return worlds.values[index[tuple(pieces)]]

        found = cls(worlds.player, rows.shape[1], options, build, pieces_of, value,
                    lambda: worlds, lambda _: rows)  # fmt: skip
        found._worlds, found._table = worlds, rows
        return found

    def options(self, prefix: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The values the piece after ``prefix`` can take and their chance weights.

        Raises:
            InvalidParameterError: ``prefix`` is a full series or longer.
        """
        if len(prefix) >= self.levels:
            raise InvalidParameterError(
                f"a series has {self.levels} pieces; no piece follows a prefix of {len(prefix)}."
            )
        return self._options(tuple(prefix))

    def state(self, pieces: tuple[int, ...]) -> State:
        """A fresh state in which the opponent's private information is ``pieces``."""
        if len(pieces) != self.levels:
            raise InvalidParameterError(
                f"a world needs {self.levels} pieces, received {len(pieces)}."
            )
        return self._build(tuple(pieces))

    def value(self, pieces: tuple[int, ...]) -> Hashable:
        """The private value whose series is ``pieces``."""
        return self._value(tuple(pieces))

    def pieces_of(self, state: State) -> tuple[int, ...]:
        """The series of the opponent's private information in ``state``."""
        return self._pieces_of(state)

    @property
    def worlds(self) -> HiddenWorlds:
        """Every world of the view (listed on first use)."""
        if self._worlds is None:
            self._worlds = self._make_worlds()
        return self._worlds

    @property
    def table(self) -> np.ndarray:
        """The series of each of :attr:`worlds`, ``(len(worlds), levels)``."""
        if self._table is None:
            self._table = np.asarray(self._make_table(self.worlds), dtype=np.int64)
        return self._table

    def marginal(
        self, weights: np.ndarray, prefix: tuple[int, ...], values: np.ndarray | None = None
    ) -> np.ndarray:
        """Over the options after ``prefix`` (:meth:`options`' order): the total of
        ``weights`` (one per world) over each option's worlds, or with ``values`` (one
        per world) their ``weights``-weighted mean (0 where the weights are). Time
        proportional to the number of worlds."""
        table = self.table
        options, _ = self.options(prefix)
        mask = np.all(table[:, : len(prefix)] == prefix, axis=1)
        at = np.searchsorted(options, table[mask, len(prefix)])
        w = np.asarray(weights, dtype=np.float64)[mask]
        mass = np.bincount(at, weights=w, minlength=options.size)
        if values is None:
            return mass
        total = np.bincount(at, weights=w * np.asarray(values)[mask], minlength=options.size)
        return np.divide(total, mass, out=np.zeros(options.size), where=mass > 0)


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
