"""How a no-limit action abstraction is written down: ``0.5,1/1/1/1``.

A no-limit game of the poker engine offers fold, call, its ``raises`` (fractions of the
pot after a call) and all-in at every decision. An action abstraction keeps fold, call
and all-in everywhere and, per betting round, a set of pot fractions:

==========================  =====================================================
text                        raises kept
==========================  =====================================================
``0.5,1``                   half pot and pot on every round
``0.5,1/1/1/1``             half pot and pot before the flop, pot after it
``0.5,1/0.75/0.75/-``       ``-``: no raise but all-in on that round
==========================  =====================================================

The abstract game is the no-limit game whose ``raises`` are every round's fractions
together, with the betting tree pruned round by round (:mod:`nashzoo.abstraction.betting`):
a policy solved on it plays the real game by bet translation
(:mod:`nashzoo.abstraction.translation`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from nashzoo.errors import InvalidParameterError

__all__ = ["ActionAbstraction", "parse_actions"]

_MOST = 1e6  # the largest pot fraction the engine takes


@dataclass(frozen=True)
class ActionAbstraction:
    """A parsed action abstraction (see the module docstring).

    Attributes:
        rounds: per betting round, the pot fractions kept (increasing).
    """

    rounds: tuple[tuple[float, ...], ...]

    def __str__(self) -> str:
        parts = [",".join(f"{f:g}" for f in r) or "-" for r in self.rounds]
        return parts[0] if len(set(parts)) == 1 else "/".join(parts)

    @property
    def fractions(self) -> tuple[float, ...]:
        """Every round's fractions together, increasing: the abstract game's ``raises``."""
        return tuple(sorted({f for r in self.rounds for f in r}))

    def game_for(self, game: Any) -> Any:
        """The abstract game: ``game`` (heads-up no-limit) with :attr:`fractions` as its
        raises.

        Raises:
            InvalidParameterError: not a heads-up no-limit game of the poker engine, or a
                count of rounds that differs from the game's.
        """
        from nashzoo.abstraction.translation import translates
        from nashzoo.games.poker.game import PokerGame

        if not translates(game):
            raise InvalidParameterError(
                f"An action abstraction applies to heads-up no-limit games of the poker "
                f"engine, received {type(game).__name__} ({game})."
            )
        if len(self.rounds) != game.definition.num_rounds:
            raise InvalidParameterError(
                f"The action abstraction {self} has {len(self.rounds)} rounds; {game} has "
                f"{game.definition.num_rounds}."
            )
        return PokerGame(game.definition, raises=self.fractions, name=game.short_name)

    def keeps(self, fraction: float, round_: int) -> bool:
        """Whether a raise of ``fraction`` pots is kept on round ``round_``."""
        return fraction in self.rounds[round_]


def parse_actions(text: str, rounds: int) -> ActionAbstraction:
    """Read an action abstraction's text for a game of ``rounds`` betting rounds.

    Raises:
        InvalidParameterError: the text does not parse, a fraction is not above 0 (and at
            most 1e6), a round's fractions are not increasing, or the count of rounds is
            neither 1 nor ``rounds`` (each message names what was expected and what was
            received).
    """
    example = "'0.5,1' or '0.5,1/1/1/1'"
    if not isinstance(text, str) or not text.strip():
        raise InvalidParameterError(
            f"An action abstraction is text such as {example} (pot fractions per round); "
            f"received {text!r}."
        )
    parts = text.strip().split("/")
    if len(parts) not in (1, rounds):
        raise InvalidParameterError(
            f"An action abstraction names 1 or {rounds} rounds ({example}); {text!r} names "
            f"{len(parts)}."
        )
    parsed: list[tuple[float, ...]] = []
    for part in parts:
        part = part.strip()
        if part == "-":
            parsed.append(())
            continue
        try:
            values = tuple(float(x) for x in part.split(","))
        except ValueError:
            raise InvalidParameterError(
                f"An action abstraction's round is pot fractions separated by commas, or "
                f"'-' for none ({example}); received {part!r} in {text!r}."
            ) from None
        if not all(math.isfinite(v) and 0 < v <= _MOST for v in values):
            raise InvalidParameterError(
                f"An action abstraction's pot fractions are above 0 and at most {_MOST:g}; "
                f"received {part!r} in {text!r}."
            )
        if any(values[i + 1] <= values[i] for i in range(len(values) - 1)):
            raise InvalidParameterError(
                f"An action abstraction's fractions increase within a round; received "
                f"{part!r} in {text!r}."
            )
        parsed.append(values)
    if len(parsed) == 1:
        parsed = parsed * rounds
    return ActionAbstraction(tuple(parsed))
