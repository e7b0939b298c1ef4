"""Poker game definitions in the ACPC format, with one extension.

The Annual Computer Poker Competition describes a game in a short text (the format
OpenSpiel's ``universal_poker`` reads)::

    GAMEDEF
    limit
    numPlayers = 2
    numRounds = 4
    blind = 10 5
    raiseSize = 10 10 20 20
    firstPlayer = 2 1 1 1
    maxRaises = 3 4 4 4
    numSuits = 4
    numRanks = 13
    numHoleCards = 2
    numBoardCards = 0 3 1 1
    END GAMEDEF

Per-round lists have one entry per round; ``firstPlayer`` counts seats from 1; ``blind``
is what each seat posts before the deal (seat 1 the big blind in heads-up Hold'em);
``stack`` is what each player can put in over the hand (required in ``nolimit``
definitions, optional in ``limit`` ones).

**Extension: a choice of raise sizes.** ``raiseSize = 1,2`` lets a raise in that round add
1 or 2 chips (one action per size); the ACPC format has a single size per round. With a
stack, a larger size that would pass it is not legal (the smallest goes all-in, as in
ACPC). Oliehoek's "4-bet 8-card poker" needs both (raises of 1 or 2 coins, up to 4).

:func:`parse_gamedef` reads any definition, limit or ``nolimit``, for 2 to 10 players,
into a :class:`PokerDefinition`; :meth:`PokerDefinition.to_gamedef` writes it back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from nashzoo.errors import InvalidParameterError

_D = TypeVar("_D")

__all__ = ["PokerDefinition", "MAX_PLAYERS", "NO_STACK", "parse_gamedef"]

MAX_POT = 2**53
"""The largest pot a definition may allow: every chip count up to it is exact in float64."""

_ROUND_KEYS = ("raiseSize", "firstPlayer", "maxRaises", "numBoardCards")
_KNOWN_KEYS = {
    "numPlayers",
    "numRounds",
    "blind",
    "stack",
    "numSuits",
    "numRanks",
    "numHoleCards",
    *_ROUND_KEYS,
}


def definition_from_dict(cls: type[_D], fields: Any, optional: set[str]) -> _D:
    """``cls(**fields)`` for a definition dataclass, refusing a non-dict and unknown or
    missing fields (those in ``optional`` may be left out) with one message naming them.

    Raises:
        InvalidParameterError: not a dict, or unknown or missing fields.
    """
    if not isinstance(fields, dict):
        raise InvalidParameterError(
            f"A poker definition is a dict of fields, received {type(fields).__name__}."
        )
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(fields) - names)
    missing = sorted(names - set(fields) - optional)
    if unknown or missing:
        raise InvalidParameterError(
            f"Poker definition fields: unknown {unknown}, missing {missing}; the fields "
            f"are {sorted(names)}."
        )
    return cls(**fields)


def check_field(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """A definition's integer field ``name`` in ``[lo, hi]``.

    Raises:
        InvalidParameterError: not an integer, or out of range (the field named).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(
            f"Poker definition field `{name}` expects an integer, received {value!r}."
        )
    if value < lo or (hi is not None and value > hi):
        span = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise InvalidParameterError(
            f"Poker definition field `{name}` must be {span}, received {value}."
        )
    return value


def _sequence(name: str, values: Any, n: int | None, what: str) -> tuple[Any, ...]:
    """A definition's list field ``name`` (``n`` values where given), as a tuple.

    Raises:
        InvalidParameterError: not a list (expected ``what``), or not ``n`` values.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise InvalidParameterError(
            f"Poker definition field `{name}` expects {what}, received {values!r}."
        )
    if n is not None and len(values) != n:
        raise InvalidParameterError(
            f"Poker definition field `{name}` needs {n} values, received "
            f"{len(values)}: {list(values)!r}."
        )
    return tuple(values)


def _raise_size_options(values: Any, rounds: int) -> tuple[tuple[int, ...], ...]:
    """Per round, the limit raise sizes: an integer or a non-empty list of distinct
    integers, the same number every round."""
    sizes = []
    what = f"one entry per round ({rounds})"
    for r, entry in enumerate(_sequence("raise_sizes", values, rounds, what)):
        options = entry if isinstance(entry, Sequence) and not isinstance(entry, str) else (entry,)
        if not options or isinstance(entry, (str, bytes)):
            raise InvalidParameterError(
                f"Poker definition field `raise_sizes[{r}]` expects an integer or a non-empty "
                f"list of integers, received {entry!r}."
            )
        row = tuple(check_field(f"raise_sizes[{r}]", v, 1) for v in options)
        if max(row) > MAX_POT:
            raise InvalidParameterError(
                f"Poker definition field `raise_sizes[{r}]` = {list(row)}: a raise size must "
                "stay at or below 2**53 chips, as every pot must, so that every payoff is exact."
            )
        if len(set(row)) != len(row):
            raise InvalidParameterError(
                f"Poker definition field `raise_sizes[{r}]` lists a size twice: {list(row)}."
            )
        sizes.append(row)
    if len({len(row) for row in sizes}) != 1:
        raise InvalidParameterError(
            "Every round must offer the same number of raise sizes (the action space is "
            f"fixed), received {[list(row) for row in sizes]}."
        )
    return tuple(sizes)


NO_STACK = 2**31 - 1
"""The stack of a limit definition that names none (ACPC's INT32_MAX)."""
MAX_PLAYERS = 10
"""The most players a definition may seat."""


@dataclasses.dataclass(frozen=True)
class PokerDefinition:
    """A poker game: the fields of an ACPC game definition, for 2 to 10 players.

    Attributes:
        num_rounds: betting rounds, 1 to 6.
        blinds: chips each player posts before the deal (one per player: their number is
            the number of players).
        stacks: the most each player can put in over the hand; above its blind
            (:data:`NO_STACK` where a limit game has none).
        first_player: per round, the player who acts first (0-based).
        num_board_cards: per round, public cards dealt before that round's betting.
        num_suits, num_ranks, num_hole_cards: the deck and the private cards.
        betting: ``"nolimit"`` or ``"limit"``.
        raise_sizes: limit only: per round, the chips a raise adds over the bet: an
            integer, or several (one raise action each, the same number every round:
            an extension of the ACPC format for Oliehoek's games); read back as tuples.
            A raise past a player's stack is legal only at the round's smallest size,
            and goes all-in (the ACPC rule).
        max_raises: limit only: per round, most raises (the blinds do not count).

    Raises:
        InvalidParameterError: a field of the wrong type or out of range (named), a stack
            not above its blind, limit fields in a no-limit game or missing in a limit
            one, or a deck too small for the cards dealt.
    """

    num_rounds: int
    blinds: tuple[int, ...]
    stacks: tuple[int, ...]
    first_player: tuple[int, ...]
    num_board_cards: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    betting: str = "nolimit"
    raise_sizes: tuple[Any, ...] = ()  # per round, the tuple of sizes once checked
    max_raises: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        whole = check_field

        def listed(
            name: str, values: Any, n: int | None, lo: int, hi: int | None = None
        ) -> tuple[int, ...]:
            items = _sequence(name, values, n, "a list of integers")
            return tuple(whole(f"{name}[{i}]", v, lo, hi) for i, v in enumerate(items))

        rounds = whole("num_rounds", self.num_rounds, 1, 6)
        whole("num_suits", self.num_suits, 1, 4)
        whole("num_ranks", self.num_ranks, 1, 13)
        whole("num_hole_cards", self.num_hole_cards, 1, 3)
        blinds = listed("blinds", self.blinds, None, 0)
        n = len(blinds)
        if not 2 <= n <= MAX_PLAYERS:
            raise InvalidParameterError(
                f"Poker definition field `blinds` names the players' blinds: 2 to {MAX_PLAYERS} "
                f"players, received {n}: {list(blinds)!r}."
            )
        stacks = listed("stacks", self.stacks, n, 1)
        if max(blinds) < 1:
            raise InvalidParameterError(
                f"Poker definition field `blinds` needs a blind of at least one chip (the "
                f"minimum raise is the big blind), received {list(blinds)}."
            )
        for p in range(n):
            if stacks[p] <= blinds[p]:
                raise InvalidParameterError(
                    f"Poker definition field `stacks[{p}]` ({stacks[p]}) must exceed player "
                    f"{p}'s blind ({blinds[p]}): a player all-in from its blind never acts."
                )
        if n * max(stacks) > MAX_POT:
            raise InvalidParameterError(
                f"Poker definition field `stacks` too large: {list(stacks)}; a pot must stay "
                f"at or below 2**53 chips so that every payoff is exact."
            )
        first = listed("first_player", self.first_player, rounds, 0, n - 1)
        board = listed("num_board_cards", self.num_board_cards, rounds, 0, 5)
        if self.betting not in ("nolimit", "limit"):
            raise InvalidParameterError(
                f"Poker definition field `betting` is 'nolimit' or 'limit', received "
                f"{self.betting!r}."
            )
        sizes: tuple[tuple[int, ...], ...] = ()
        if self.betting == "limit":
            # (a player never puts in more than its stack, whose pot the check above
            # bounds; a raise size past 2**53 is refused by itself)
            sizes = _raise_size_options(self.raise_sizes, rounds)
            caps = listed("max_raises", self.max_raises, rounds, 0, 10)
        else:
            if self.raise_sizes or self.max_raises:
                raise InvalidParameterError(
                    "Poker definition fields `raise_sizes` and `max_raises` are for 'limit' "
                    "betting; a no-limit raise is any size from the minimum raise to all-in."
                )
            caps = ()
        deck = self.num_suits * self.num_ranks
        needed = n * self.num_hole_cards + sum(board)
        if needed > deck:
            raise InvalidParameterError(
                f"The deck has {deck} cards (num_ranks={self.num_ranks} x num_suits="
                f"{self.num_suits}) but the game deals {needed} ({n} players)."
            )
        if self.num_hole_cards + sum(board) > 7:
            raise InvalidParameterError(
                "A player's hand is its hole cards and the board, and hands of more than 7 "
                f"cards are not ranked; this definition gives each player "
                f"{self.num_hole_cards + sum(board)} ({self.num_hole_cards} hole + {sum(board)} "
                "board cards)."
            )
        object.__setattr__(self, "blinds", blinds)
        object.__setattr__(self, "stacks", stacks)
        object.__setattr__(self, "first_player", first)
        object.__setattr__(self, "num_board_cards", board)
        object.__setattr__(self, "raise_sizes", sizes)
        object.__setattr__(self, "max_raises", caps)

    @property
    def num_players(self) -> int:
        """Players (one blind each)."""
        return len(self.blinds)

    @property
    def num_cards(self) -> int:
        """Cards in the deck."""
        return self.num_ranks * self.num_suits

    @property
    def big_blind(self) -> int:
        """The largest blind."""
        return max(self.blinds)

    @property
    def limit_most(self) -> int:
        """A limit game's most chips a player can put in without a stack: the big blind,
        then every raise of every round at its largest size."""
        raises: int = sum(max(s) * m for s, m in zip(self.raise_sizes, self.max_raises))
        return self.big_blind + raises

    @property
    def num_raise_sizes(self) -> int:
        """Raise actions of a limit game (the same every round); 0 in no-limit."""
        return len(self.raise_sizes[0]) if self.raise_sizes else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-able fields (what :meth:`from_dict` reads back; a round's one raise size
        as an integer, as the ACPC text writes it)."""
        out = dataclasses.asdict(self)
        for key in ("blinds", "stacks", "first_player", "num_board_cards", "max_raises"):
            out[key] = list(out[key])
        out["raise_sizes"] = [s[0] if len(s) == 1 else list(s) for s in self.raise_sizes]
        return out

    def to_gamedef(self) -> str:
        """The ACPC text of this definition (what :func:`parse_gamedef` reads back;
        ``raiseSize`` entries with several sizes use the extension, ``1,2``)."""

        def join(values: Iterable[Any]) -> str:
            return " ".join(str(v) for v in values)

        lines = [
            "GAMEDEF",
            self.betting,
            f"numPlayers = {self.num_players}",
            f"numRounds = {self.num_rounds}",
        ]
        if self.betting == "nolimit" or any(s != NO_STACK for s in self.stacks):
            lines.append(f"stack = {join(self.stacks)}")
        lines.append(f"blind = {join(self.blinds)}")
        if self.betting == "limit":
            lines.append(f"raiseSize = {join(','.join(map(str, s)) for s in self.raise_sizes)}")
        lines.append(f"firstPlayer = {join(p + 1 for p in self.first_player)}")
        if self.betting == "limit":
            lines.append(f"maxRaises = {join(self.max_raises)}")
        lines += [
            f"numSuits = {self.num_suits}",
            f"numRanks = {self.num_ranks}",
            f"numHoleCards = {self.num_hole_cards}",
            f"numBoardCards = {join(self.num_board_cards)}",
            "END GAMEDEF",
        ]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> PokerDefinition:
        """Build from :meth:`to_dict` output (``betting``, ``raise_sizes`` and
        ``max_raises`` may be left out: a no-limit game). The fields of the heads-up limit
        engine that nashzoo 0.2 had beside this one (one ``stack`` for both players, or
        ``None``, and no ``stacks`` or ``betting``) are read as the same limit game, so
        files saved then still load.

        Raises:
            InvalidParameterError: unknown or missing fields, or bad values.
        """
        if isinstance(fields, dict) and "stack" in fields and "stacks" not in fields:
            old = dict(fields)
            stack = old.pop("stack")
            stack = NO_STACK if stack is None else stack
            fields = {**old, "stacks": (stack, stack), "betting": "limit"}
        return definition_from_dict(cls, fields, optional={"betting", "raise_sizes", "max_raises"})

    def universal_poker_params(self, betting_abstraction: str = "fullgame") -> dict[str, Any]:
        """OpenSpiel's ``universal_poker`` parameters for this definition (a limit game
        with :data:`NO_STACK` stacks leaves the stack out, as ACPC's limit games do; ACPC
        then reads limit games of at most four players, so ``universal_poker`` has no
        limit game of five or six).

        Raises:
            InvalidParameterError: several raise sizes a round (the extension), which
                ``universal_poker`` cannot express.
        """
        if self.num_raise_sizes > 1:
            raise InvalidParameterError(
                "universal_poker has one raise size per round; this definition has "
                f"{[list(s) for s in self.raise_sizes]}."
            )

        def join(values: Sequence[int]) -> str:
            return " ".join(str(v) for v in values)

        params: dict[str, Any] = {
            "betting": self.betting,
            "numPlayers": self.num_players,
            "numRounds": self.num_rounds,
            "blind": join(self.blinds),
            "firstPlayer": join([p + 1 for p in self.first_player]),
            "numSuits": self.num_suits,
            "numRanks": self.num_ranks,
            "numHoleCards": self.num_hole_cards,
            "numBoardCards": join(self.num_board_cards),
        }
        if self.betting == "limit":
            params["raiseSize"] = join([s[0] for s in self.raise_sizes])
            params["maxRaises"] = join(self.max_raises)
            if any(stack != NO_STACK for stack in self.stacks):
                params["stack"] = join(self.stacks)
        else:
            params["stack"] = join(self.stacks)
            params["bettingAbstraction"] = betting_abstraction
        return params


def _read_gamedef(text: str, betting: str | None, known: set[str]) -> dict[str, list[str]]:
    """The keys of an ACPC game definition of ``betting`` type (``None``: limit or
    no-limit), each a list of words; ``"_betting"`` holds the type found.

    Raises:
        InvalidParameterError: not a definition, another betting type, an unknown or
            repeated key.
    """
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"A game definition is its text, received {type(text).__name__}."
        )
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines or lines[0].upper() != "GAMEDEF" or lines[-1].upper() != "END GAMEDEF":
        raise InvalidParameterError(
            "An ACPC game definition starts with 'GAMEDEF' and ends with 'END GAMEDEF'."
        )
    body = lines[1:-1]
    found = [line.lower() for line in body if "=" not in line]
    if betting is None and found in (["limit"], ["nolimit"]):
        betting = found[0]
    if found != [betting]:
        other = found[0] if len(found) == 1 and found[0] in ("limit", "nolimit") else None
        hint = f" (read '{other}' definitions with betting={other!r})" if other else ""
        raise InvalidParameterError(
            f"Expected '{betting}' betting; the definition says {found or 'nothing'}{hint}."
        )
    values: dict[str, list[str]] = {}
    for line in body:
        if "=" not in line:
            continue
        key, _, rest = (part.strip() for part in line.partition("="))
        match = next((k for k in known if k.lower() == key.lower()), None)
        if match is None:
            raise InvalidParameterError(
                f"Unknown key {key!r} in the game definition; known keys are {sorted(known)}."
            )
        if match in values:
            raise InvalidParameterError(f"Key {match!r} appears twice in the game definition.")
        values[match] = rest.split()
    values["_betting"] = [str(betting)]
    return values


def _ints(key: str, text_value: str) -> list[int]:
    try:
        return [int(v) for v in text_value.split(",")]
    except ValueError:
        raise InvalidParameterError(
            f"Key {key!r} expects integers, received {text_value!r}."
        ) from None


def _one(values: dict[str, list[str]], key: str, default: int | None = None) -> int:
    if key not in values:
        if default is None:
            raise InvalidParameterError(f"The game definition lacks {key!r}.")
        return default
    got = values[key]
    if len(got) != 1:
        raise InvalidParameterError(f"Key {key!r} expects one integer, received {got}.")
    return _ints(key, got[0])[0]


def _listed(
    values: dict[str, list[str]], key: str, n: int, default: int | None = None
) -> list[Any]:
    if key not in values:
        if default is None:
            raise InvalidParameterError(f"The game definition lacks {key!r}.")
        return [[default] for _ in range(n)]  # ACPC's default, as if listed
    got = values[key]
    if len(got) < n:
        raise InvalidParameterError(f"Key {key!r} needs {n} values, received {got}.")
    return [_ints(key, v) for v in got[:n]]


def parse_gamedef(text: str, betting: str | None = None) -> PokerDefinition:
    """Read an ACPC game definition of any betting type and 2 to 10 players into an
    :class:`PokerDefinition` (what
    :class:`~nashzoo.games.poker.game.PokerGame` plays). A limit definition without
    ``stack`` gets :data:`NO_STACK`; a no-limit one needs it.

    Args:
        text: the definition.
        betting: ``"limit"`` or ``"nolimit"`` to require that type; ``None``: either.

    Raises:
        InvalidParameterError: not a definition (of that betting type), a missing or bad
            key, or fields the definition rejects (named).
    """
    values = _read_gamedef(text, betting, _KNOWN_KEYS)
    kind = values.pop("_betting")[0]
    players = _one(values, "numPlayers")
    rounds = _one(values, "numRounds")
    stacks = [_ints("stack", v)[0] for v in values.get("stack", [])]
    blinds = [_ints("blind", v)[0] for v in values.get("blind", [])]
    if len(blinds) < players:
        raise InvalidParameterError(
            f"Key 'blind' needs one value per player ({players}), received {blinds}."
        )
    if kind == "nolimit":
        if "raiseSize" in values:
            raise InvalidParameterError(
                "Key 'raiseSize' is for 'limit' betting; a no-limit raise is any size from the "
                "minimum raise to all-in."
            )
        if len(stacks) < players:
            raise InvalidParameterError(
                f"A no-limit definition needs 'stack' and 'blind' for every player ({players}), "
                f"received stack {stacks} and blind {blinds}."
            )
        limit_fields: dict[str, Any] = {}
    else:
        stacks = stacks or [NO_STACK] * players
        if len(stacks) < players:
            raise InvalidParameterError(
                f"Key 'stack' needs one value per player ({players}), received {stacks}."
            )
        limit_fields = {
            "betting": "limit",
            "raise_sizes": tuple(tuple(v) for v in _listed(values, "raiseSize", rounds)),
            "max_raises": tuple(v[0] for v in _listed(values, "maxRaises", rounds)),
        }
    return PokerDefinition(
        num_rounds=rounds,
        blinds=tuple(blinds[:players]),
        stacks=tuple(stacks[:players]),
        first_player=tuple(v[0] - 1 for v in _listed(values, "firstPlayer", rounds, 1)),
        num_board_cards=tuple(v[0] for v in _listed(values, "numBoardCards", rounds, 0)),
        num_suits=_one(values, "numSuits"),
        num_ranks=_one(values, "numRanks"),
        num_hole_cards=_one(values, "numHoleCards"),
        **limit_fields,
    )
