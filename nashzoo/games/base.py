"""The rules API every nashzoo game implements (modelled on OpenSpiel's Game/State).

A :class:`Game` holds frozen parameters and builds :class:`State` objects. A state is a
node of the extensive-form game tree: a chance node, a decision node of one player, or a
terminal node. Simultaneous moves are expressed as sequential moves whose earlier actions
are hidden from the later movers, so one tree machinery serves every game.

Player ids follow OpenSpiel: ``0 .. num_players - 1`` for players, :data:`CHANCE` (-1)
for chance nodes and :data:`TERMINAL` (-4) for terminal nodes.

Two doors into the rules, both public:

* :meth:`State.apply_action` validates (type, range, legality) and is what users call;
* :meth:`State.apply_unchecked` and :meth:`State.advance_chance` are the documented fast
  path for trusted loops (the env adapter, the match engine, learners, the tree compiler)
  that have already judged the action legal from :meth:`State.legal_actions`.

A new game implements the small interface marked *abstract* below: ``current_player``,
``legal_actions``, ``chance_outcomes``, ``apply_unchecked``, ``clone``, ``returns``,
``history``, ``public_history``, ``information_state_string_unchecked`` and
``information_state_indices``; everything else (validation, tensors, masks, chance
sampling) comes from the base classes.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from nashzoo.errors import (
    ActionTypeError,
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    InvalidParameterError,
)
from nashzoo.games.info import FastPaths, GameInfo
from nashzoo.validation import check_int

if TYPE_CHECKING:
    from nashzoo.games.hidden import HiddenPieces, HiddenWorlds

__all__ = [
    "CHANCE",
    "COUNTED_DEALS",
    "TERMINAL",
    "Game",
    "FastPaths",
    "GameInfo",
    "State",
    "check_int",
    "check_action_value",
    "sample_chance_outcome",
    "card_deal_histories",
    "memoised_histories",
    "HIDDEN",
]

CHANCE: int = -1
"""Player id of chance nodes (OpenSpiel's ``kChancePlayerId``)."""
TERMINAL: int = -4
"""Player id of terminal nodes (OpenSpiel's ``kTerminalPlayerId``)."""
HIDDEN: int = -1
"""Placeholder in :meth:`State.public_history` for an event not every player observed."""


def check_action_value(action: Any, num_actions: int) -> int:
    """Convert an action to ``int``, or raise a clear error.

    Accepts Python ints, NumPy integer scalars and 0-d integer arrays. Rejects ``bool``,
    floats, ``None``, strings and arrays of any other shape; nothing is rounded or
    remapped.

    Raises:
        ActionTypeError: the action is not an integer.
        InvalidActionError: the action is outside ``[0, num_actions)``.
    """
    if type(action) is int:
        value = action
    elif (
        isinstance(action, np.integer)
        or (
            isinstance(action, np.ndarray)
            and action.shape == ()
            and np.issubdtype(action.dtype, np.integer)
        )
        or (isinstance(action, int) and not isinstance(action, bool))
    ):
        value = int(action)
    else:
        if isinstance(action, np.ndarray):
            got = f"an array of shape {action.shape} and dtype {action.dtype}"
        elif action is None:
            got = "None (None is only accepted for agents that are already done)"
        else:
            got = f"{action!r} of type {type(action).__name__}"
        raise ActionTypeError(f"Expected an integer action in [0, {num_actions}), received {got}.")
    if not 0 <= value < num_actions:
        raise InvalidActionError(
            f"Action {value} is out of range: expected an integer in [0, {num_actions})."
        )
    return value


def card_deal_histories(remaining: int, k: int, below: int) -> int:
    """Histories of a chain of ``k`` chance nodes, each dealing one of the cards left
    (``remaining`` before the first), with ``below`` histories under every full deal: how
    card games whose betting does not depend on the cards count their trees."""
    total = below
    for i in range(k):
        total = 1 + (remaining - (k - 1 - i)) * total
    return total


def memoised_histories(
    state: State, key: Hashable, cache: dict[Any, int], below: Callable[[State], int]
) -> int:
    """Histories from decision node ``state``: itself and, for each legal action,
    ``below(child)``, cached under ``key`` (what the rest of the tree depends on)."""
    if key not in cache:
        total = 1
        for action in state.legal_actions():
            child = state.clone()
            child.apply_unchecked(action)
            total += below(child)
        cache[key] = total
    return cache[key]


def sample_chance_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The outcome of ``[(outcome, probability)]`` that a uniform ``u`` in [0, 1) selects
    (inverse of the cumulative distribution; the last outcome absorbs rounding)."""
    for outcome, prob in outcomes:
        u -= prob
        if u < 0.0:
            return outcome
    return outcomes[-1][0]


COUNTED_DEALS = 50_000_000
"""Card games count their histories only up to this many ways to deal the private cards:
counting the betting of a larger table took minutes (ten-player Leduc over 8), and
nothing that large compiles; past it :meth:`Game.count_histories` is ``None`` and the
deals are the lower bound."""

_UNSET = object()


@functools.cache
def _default_params(cls: type, players: Any = None) -> dict[str, Any]:
    """The parameters of ``cls()``, or of ``cls(players=players)`` where the game takes a
    player count (its other defaults may follow it: Leduc's ranks); empty where the class
    needs arguments."""
    try:
        game = cls() if players is None else cls(players=players)
        return dict(game.params())
    except Exception:
        return {}


def _param_text(value: Any) -> str:
    """A parameter's value as a game string writes it (``3``, ``0.5``, ``[2,4]``)."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_param_text(v) for v in value) + "]"
    if isinstance(value, str):
        return value
    return repr(value)


class Game(ABC):
    """Frozen parameters of a game and a factory of initial states.

    Subclasses set the attributes below in ``__init__`` and implement
    :meth:`new_initial_state` and :meth:`params`; :meth:`count_histories` is optional
    (it lets :func:`nashzoo.tree.compile_game` refuse a huge game at once).

    Attributes:
        short_name: identifier such as ``"kuhn_poker"``.
        num_players: number of players (2 for every game shipped so far).
        num_distinct_actions: size of the action space of the players.
        max_chance_outcomes: largest number of outcomes of a chance node.
        max_chance_nodes: most chance events on one history.
        max_game_length: longest number of player actions in one history.
        min_utility: smallest payoff any player can receive.
        max_utility: largest payoff any player can receive.
        zero_sum: whether returns always sum to zero.
        simultaneous: whether moves are simultaneous (played sequentially, hidden).
        information_state_tensor_size: length of :meth:`State.information_state_tensor`.
        big_blind: chips per big blind for mbb/game reports (``None`` for non-poker games).
        game_type: stable family name used in saved files (see :func:`nashzoo.games.load_game`).
        payoff_unit: what a payoff counts, for labels and reports (``"chips"`` in poker).
    """

    short_name: str = ""
    num_players: int = 2
    num_distinct_actions: int
    max_chance_outcomes: int
    max_chance_nodes: int
    max_game_length: int
    min_utility: float
    max_utility: float
    zero_sum: bool = True
    simultaneous: bool = False
    information_state_tensor_size: int
    big_blind: float | None = None
    game_type: str = ""
    payoff_unit: str = "payoff"
    action_names: tuple[str, ...] = ()
    """Names of the player actions, when they do not depend on the state or the player."""
    fast_paths: FastPaths = FastPaths()
    """The compiled implementations the game offers (none by default): the envs and the
    batched envs read them here, never from the game's class."""
    rule_agents: tuple[tuple[str, str], ...] = ()
    """The rule-based agents that play the game without training, as ``(name,
    "package.module:Class")`` pairs (``Class(game)`` builds one): the agent specs that
    name them and the fixed baselines of measured curves read them here."""

    @property
    def info(self) -> GameInfo:
        """The game's declarations as one checked, frozen :class:`GameInfo`.

        Raises:
            InvalidParameterError: an attribute is missing or out of range (named).
        """
        values = {}
        for f in fields(GameInfo):
            if not hasattr(self, f.name):
                raise InvalidParameterError(
                    f"{type(self).__name__} does not declare `{f.name}` (see GameInfo)."
                )
            values[f.name] = getattr(self, f.name)
        return GameInfo(**values)

    @abstractmethod
    def new_initial_state(self) -> State:
        """Return the root of the game tree (often a chance node)."""

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """Return the parameters that, passed back to the constructor, rebuild this game."""

    def count_histories(self) -> int | None:
        """The exact number of histories (tree nodes), computed from the parameters
        without enumerating the tree; ``None`` when the game cannot tell."""
        return None

    def information_state_summary_columns(self) -> np.ndarray | None:
        """The columns of the information-state tensor that summarise the state as its
        player sees it now (hands, counts, scores) without the order of the events that
        led there; ``None`` when the game names none. A learner may read only these
        (a smaller input, no longer perfect recall)."""
        return None

    def histories_lower_bound(self) -> int | None:
        """A number of histories the tree certainly exceeds or reaches, computed from the
        parameters (the exact count where :meth:`count_histories` knows it, else the ways
        to deal the private cards where the game says, :meth:`_private_deals`); ``None``
        when the game cannot tell. It lets a game too large to compile be refused at
        once instead of after enumerating millions of histories."""
        exact = self.count_histories()
        return exact if exact is not None else self._private_deals()

    def _private_deals(self) -> int | None:
        """Ways to deal every player's private cards, histories the tree certainly has
        (card games say; ``None``: the game does not). A game whose private deals pass
        :data:`COUNTED_DEALS` leaves :meth:`count_histories` unknown."""
        return None

    @property
    def max_history_length(self) -> int:
        """Longest :meth:`State.history` (chance events and player actions)."""
        return self.max_chance_nodes + self.max_game_length

    @property
    def max_payoff_magnitude(self) -> float:
        """Largest absolute payoff of any player (the worst a forfeit can cost)."""
        return max(abs(self.min_utility), abs(self.max_utility))

    def view_state(
        self, player: int, info_state: str, public_history: Sequence[int]
    ) -> State | None:
        """One state in which ``player``'s information-state string is ``info_state`` and
        the public history is ``public_history`` (what an agent receives), built from the
        rules; with :meth:`State.hidden_worlds` it lists every such world without walking
        the tree (:mod:`nashzoo.games.hidden`). Where the string does not show whether
        ``player`` is to move (a simultaneous move), the state is one where it is.

        Returns:
            The state, or ``None`` where the game has no such fast path (then
            :func:`nashzoo.games.worlds.consistent_histories` walks the tree).

        Raises:
            InvalidParameterError: the string or the history is not one of this game's.
        """
        return None

    def hidden_value_features(
        self, values: Sequence[Hashable], public: Hashable = None
    ) -> np.ndarray | None:
        """A feature row for each private value :meth:`State.hidden_worlds` names, at the
        public information ``public`` (:meth:`hidden_value_public` of the view: poker's
        board), the input a search network scores a world by. Poker: the hole cards'
        one-hot card, rank and suit, summed, then how they meet the board (pairs, draws,
        overcards); fighting cards: the hand's counts and the unrevealed card.
        ``hidden_value_features([])`` has zero rows and gives the width.

        Returns:
            ``(len(values), width)`` float32, or ``None`` where the game has no fast path
            for its hidden information (the default).
        """
        return None

    def hidden_value_features_rows(
        self, rows: Sequence[tuple[Sequence[Hashable], Hashable]]
    ) -> np.ndarray | None:
        """:meth:`hidden_value_features` of many views' values, each at its own public
        information (``rows`` of ``(values, public)``: a training batch), stacked in row
        order. The default calls it once per distinct public information; a game may
        compute them in one pass.

        Returns:
            ``(total values, width)`` float32, or ``None`` as :meth:`hidden_value_features`.
        """
        starts = np.cumsum([0, *(len(values) for values, _ in rows)])
        groups: dict[Hashable, list[int]] = {}
        for r, (_, public) in enumerate(rows):
            groups.setdefault(public, []).append(r)
        out = self.hidden_value_features([])
        if out is None:
            return None
        out = np.zeros((int(starts[-1]), out.shape[1]), dtype=np.float32)
        for public, members in groups.items():
            features = self.hidden_value_features([v for r in members for v in rows[r][0]], public)
            assert features is not None
            at = np.concatenate([np.arange(starts[r], starts[r + 1]) for r in members])
            out[at] = features
        return out

    def hidden_value_public(self, state: State) -> Hashable:
        """What of ``state``'s public information :meth:`hidden_value_features` reads
        (hashable: views that share it share their worlds' features). Poker: the board's
        cards; ``None`` (the default) where the features read none."""
        return None

    def action_groups(self, actions: Sequence[int]) -> list[list[int]] | None:
        """How a decision among the legal ``actions`` decomposes into a choice of group,
        then of an action within the group (P-splitting, ``SearchConfig.split_actions``):
        lists of positions in ``actions``, every position in one group, in order. No-limit
        poker groups its raise sizes (fold, call, then which raise).

        Returns:
            The groups, or ``None`` where the decision does not decompose (the default).
        """
        return None

    def hidden_value_pieces(self, values: Sequence[Hashable]) -> np.ndarray | None:
        """The pieces each private value :meth:`State.hidden_worlds` names is drawn in,
        in order (poker: the hole cards; fighting cards: the hand's cards one by one,
        then the unrevealed card), so that a search can draw the opponent's private
        information piece by piece (H-splitting, ``SearchConfig.split_hidden``).

        Returns:
            ``(len(values), pieces)`` integers, or ``None`` where a value is one piece
            (the default).
        """
        return None

    def hidden_piece_features(
        self, prefixes: np.ndarray, public: Hashable = None
    ) -> np.ndarray | None:
        """A feature row for each prefix of pieces (``(n, length)`` integers, the first
        ``length`` pieces of :meth:`hidden_value_pieces`' series, ``length`` from 1 to
        the series' length) at the public information ``public``: the input a search
        network scores a partial world by when it draws the pieces one by one
        (``SearchConfig.draw_pieces``). A full series' row is
        :meth:`hidden_value_features`' row of its value. Poker: the features of the hole
        cards drawn so far.

        Returns:
            ``(n, width)`` float32 with :meth:`hidden_value_features`' width, or ``None``
            where the game has none (the default: a network's piece-by-piece H and V
            fall back to the marginals of its belief over every world).
        """
        return None

    def to_spec(self) -> dict[str, Any]:
        """JSON-able ``{"type": game_type, "params": params()}`` that rebuilds the game."""
        return {"type": self.game_type, "params": self.params()}

    def action_name(self, action: int, player: int | None = None) -> str:
        """Human-readable name of a player action (independent of the state).

        Args:
            action: the action id.
            player: whose action (games whose players have different action sets, such
                as non-square matrix games, name actions per player).
        """
        names = self.action_names
        return names[action] if 0 <= action < len(names) else str(action)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    def __str__(self) -> str:
        """The game as a person names it, in OpenSpiel's form: its short name and the
        parameters that differ from the defaults (``kuhn_poker``,
        ``kuhn_poker(deck_size=8)``, ``leduc_holdem(players=3)``): what headers and error
        messages print (``repr`` spells out every parameter)."""
        params = self.params()
        defaults = _default_params(type(self), params.get("players"))
        changed = {k: v for k, v in params.items() if defaults.get(k, _UNSET) != v}
        if "players" in params and _default_params(type(self)).get("players") != params["players"]:
            changed = {"players": params["players"], **changed}
        if not changed:
            return self.short_name or type(self).__name__
        args = ",".join(f"{k}={_param_text(v)}" for k, v in changed.items())
        return f"{self.short_name or type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Game)
            and type(self) is type(other)
            and self.params() == other.params()
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(sorted(self.params().items()))))


class State(ABC):
    """A node of the game tree. Mutable: applying an action changes it in place.

    Use :meth:`clone` to branch. All methods are cheap; nothing here allocates more
    than the return value.
    """

    game: Game

    # -- the interface a game implements ---------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """Player to move, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self) -> Sequence[int]:
        """Sorted legal actions of the player to move (chance outcomes at chance nodes)."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(outcome, probability)]`` at a chance node; raises elsewhere."""

    @abstractmethod
    def apply_unchecked(self, action: int) -> None:
        """Apply ``action``, which the caller has already judged legal (trusted fast path).

        Nothing is validated: an illegal action corrupts the state. Loops that take
        actions from users or agents check them against :meth:`legal_actions` first, or
        call :meth:`apply_action`, which does.
        """

    @abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Payoff of every player (zeros before the end; chips for poker)."""

    @abstractmethod
    def history(self) -> list[int]:
        """Every action applied so far, chance outcomes included (a fresh list)."""

    @abstractmethod
    def public_history(self) -> list[int]:
        """The history as every player observed it: an event that only some players saw
        (a private card) is :data:`HIDDEN`; simultaneous moves, which no player sees as
        they happen, are left out (a matrix game's public history is always empty).

        Like the tensor and the mask, it is a function of each player's
        information-state string (:func:`nashzoo.testing.check_env` verifies this)."""

    @abstractmethod
    def information_state_string_unchecked(self, player: int) -> str:
        """:meth:`information_state_string` for a player id known to be valid (fast path)."""

    @abstractmethod
    def information_state_indices(self, player: int) -> list[int]:
        """Positions of the ones in :meth:`information_state_tensor` of ``player`` (a
        valid player id; the tensor method validates)."""

    # -- derived, shared by every game ----------------------------------------------------
    def information_state_string(self, player: int) -> str:
        """Perfect-recall information-state key of ``player``, human readable.

        The string records every public action, so it also determines whether ``player``
        is to move and with which legal actions.

        Raises:
            ActionTypeError, InvalidParameterError: ``player`` is not a valid player id.
        """
        self.check_player(player)
        return self.information_state_string_unchecked(int(player))

    def information_state_tensor(self, player: int) -> np.ndarray:
        """Perfect-recall information state of ``player`` as a fresh ``float32`` vector.

        Built from the same fields as :meth:`information_state_string`, so the two
        cannot disagree; see each game's docstring for the index layout.
        """
        self.check_player(player)
        tensor = np.zeros(self.game.information_state_tensor_size, dtype=np.float32)
        tensor[self.information_state_indices(int(player))] = 1.0
        return tensor

    def legal_actions_mask(self) -> np.ndarray:
        """``int8`` mask of length ``num_distinct_actions`` (zeros at chance/terminal)."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if self.current_player() >= 0:
            mask[list(self.legal_actions())] = 1
        return mask

    def pending_legal_actions(self, player: int) -> Sequence[int]:
        """Legal actions of ``player`` in a simultaneous move it has not made yet.

        For sequential games this is :meth:`legal_actions` when ``player`` is to move and
        empty otherwise; simultaneous-move games override it so that every player who has
        still to move sees its options (the parallel API needs this).
        """
        return self.legal_actions() if self.current_player() == player else ()

    def action_to_string(self, action: int) -> str:
        """Human-readable name of ``action`` at this state (chance outcomes included).

        Card games name a chance outcome ``"Deal <card>"`` from ``game.card_names``.
        """
        player = self.current_player()
        if player == CHANCE:
            names = getattr(self.game, "card_names", None)
            if names and 0 <= action < len(names):
                return f"Deal {names[action]}"
            return f"Chance outcome {action}"
        return self.game.action_name(action, player if player >= 0 else None)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        """Whether the next action is a chance outcome."""
        return self.current_player() == CHANCE

    def apply_action(self, action: int) -> None:
        """Apply a player action or a chance outcome, validated.

        Raises:
            GameOverError: the state is terminal.
            ActionTypeError: ``action`` is not an integer.
            IllegalActionError: ``action`` is not in :meth:`legal_actions`.
        """
        if self.is_terminal():
            raise GameOverError(
                f"Cannot apply action {action!r}: the game is over (history {self.history()})."
            )
        if type(action) is not int:
            action = check_action_value(
                action, max(self.game.num_distinct_actions, self.game.max_chance_outcomes)
            )
        legal = self.legal_actions()
        if action not in legal:
            who = "chance" if self.is_chance_node() else f"player {self.current_player()}"
            raise IllegalActionError(
                f"Action {action} is not legal for {who} here; legal actions are "
                f"{list(legal)} (history {self.history()})."
            )
        self.apply_unchecked(action)

    def advance_chance(self, uniform: Callable[[], float]) -> None:
        """Sample chance events until a player is to move or the game is over.

        Each chance event draws one uniform in [0, 1) from ``uniform()`` and applies the
        outcome it selects (:func:`sample_chance_outcome`). Pass ``rng.random`` for a
        ``np.random.Generator``, or ``iter(draws).__next__`` to replay pre-drawn uniforms
        (the match engine does, so both seatings of a duplicate deal see the same cards).
        """
        while self.current_player() == CHANCE:
            self.apply_unchecked(sample_chance_outcome(self.chance_outcomes(), uniform()))

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> State:
        """A state drawn from the histories ``player`` cannot tell apart from this one,
        each with its chance probability (OpenSpiel's name; a search agent, which never
        holds the true state, calls :func:`nashzoo.games.worlds.resample` with its own
        information instead)."""
        from nashzoo.games.worlds import resample

        self.check_player(player)
        p = int(player)
        return resample(
            self.game,
            p,
            self.information_state_string_unchecked(p),
            self.public_history(),
            rng,
            player_to_move=self.current_player() == p,
        )

    def hidden_worlds(self, player: int) -> HiddenWorlds | None:
        """The opponent's private values ``player`` cannot tell apart in this state, with
        their chance weights and a builder of each world (:mod:`nashzoo.games.hidden`):
        the rules' fast path for what :func:`nashzoo.games.worlds.consistent_histories`
        finds by walking the tree. Only ``player``'s view of this state is used.

        Returns ``None`` where the game has no fast path (the default).
        """
        return None

    def hidden_pieces(self, player: int) -> HiddenPieces | None:
        """The opponent's private values ``player`` cannot tell apart in this state, as
        series of pieces drawn one after another (:class:`~nashzoo.games.hidden.HiddenPieces`:
        what a search draws piece by piece). The default groups :meth:`hidden_worlds` by
        :meth:`Game.hidden_value_pieces` (time proportional to the number of worlds); a
        game whose rules name each piece's options directly overrides it (poker: time
        proportional to the cards left). ``None`` where :meth:`hidden_worlds` is."""
        from nashzoo.games.hidden import HiddenPieces

        worlds = self.hidden_worlds(player)
        if worlds is None:
            return None
        return HiddenPieces.from_worlds(worlds, self.game.hidden_value_pieces(worlds.values))

    def information_state_indices_as(self, player: int, value: Hashable) -> list[int] | None:
        """:meth:`information_state_indices` of ``player`` at this state had its private
        information been ``value`` (a value :meth:`hidden_worlds` names), everything
        else as it is: what a search needs to ask the opponent's policy about each world
        it imagines. ``None`` where the game has no fast path (the default).
        """
        return None

    def information_state_string_as(self, player: int, value: Hashable) -> str | None:
        """:meth:`information_state_string` of ``player`` at this state had its private
        information been ``value`` (a value :meth:`hidden_worlds` names), everything
        else as it is: what an agent that reads the string is asked about each world.
        ``None`` where the game has no fast path (the default).
        """
        return None

    def returns_over(self, player: int, values: Sequence[Hashable]) -> np.ndarray | None:
        """At a terminal state: ``player``'s return had its opponent held each of
        ``values`` (private values :meth:`hidden_worlds` names), everything else as it
        is; what a search needs when an action ends the game in every world it imagines.
        ``None`` where the game has no fast path (the default)."""
        return None

    def private_information(self, player: int) -> Hashable | None:
        """``player``'s private information as :meth:`hidden_worlds` names it (poker: the
        sorted hole cards); ``None`` where the game has no fast path (the default)."""
        return None

    def joint_successor(self, actions: Sequence[int]) -> State:
        """The state after a simultaneous round that starts here, with ``actions[p]`` the
        move of player ``p`` (validated): what a learner needs to ask "what if I had
        played ``a`` against the card the opponent actually played".

        Raises:
            InvalidParameterError: the game is not simultaneous, this state is not the
                start of a round (player 0 to move), or ``actions`` has the wrong length.
            IllegalActionError: an action is not legal for its player.
        """
        if not self.game.simultaneous:
            raise InvalidParameterError(
                f"joint_successor() serves simultaneous-move games; {self.game.short_name} "
                "is sequential (use child(action))."
            )
        if self.current_player() != 0:
            raise InvalidParameterError(
                "joint_successor() starts at the beginning of a simultaneous round (player 0 "
                f"to move); here the player to move is {self.current_player()}."
            )
        if len(actions) != self.game.num_players:
            raise InvalidParameterError(
                f"joint_successor() needs one action per player ({self.game.num_players}), "
                f"received {list(actions)!r}."
            )
        new = self.clone()
        for action in actions:
            new.apply_action(action)
        return new

    def child(self, action: int) -> State:
        """A copy of this state with ``action`` applied (validated)."""
        new = self.clone()
        new.apply_action(action)
        return new

    def check_player(self, player: Any) -> None:
        """Raise unless ``player`` is a player id of this game.

        Raises:
            ActionTypeError: not an integer.
            InvalidParameterError: out of ``[0, num_players)``.
        """
        if (type(player) is not int and not isinstance(player, np.integer)) or isinstance(
            player, bool
        ):
            raise ActionTypeError(f"Expected an integer player id, received {player!r}.")
        if not 0 <= player < self.game.num_players:
            raise InvalidParameterError(
                f"Player must be in [0, {self.game.num_players}), received {player}."
            )

    def check_chance(self) -> None:
        """Raise :class:`IllegalActionError` unless this is a chance node (games call it at
        the top of :meth:`chance_outcomes`)."""
        if not self.is_chance_node():
            raise IllegalActionError(
                f"chance_outcomes() called at a non-chance node (player "
                f"{self.current_player()}, history {self.history()})."
            )

    def uniform_chance_outcomes(self) -> list[tuple[int, float]]:
        """:meth:`chance_outcomes` where every legal outcome is equally likely (a card
        dealt from the cards left): what card games return from it."""
        self.check_chance()
        outcomes = self.legal_actions()
        p = 1.0 / len(outcomes)
        return [(c, p) for c in outcomes]

    def __str__(self) -> str:
        return f"{type(self).__name__}(history={self.history()})"
