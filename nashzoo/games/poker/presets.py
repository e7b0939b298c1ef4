"""The poker family's games by name: each a definition and the engine that plays it.

=============================  ==========================================================
preset                         game
=============================  ==========================================================
:func:`kuhn`                   Kuhn poker and its N-card variants (one suit, N ranks)
:func:`leduc`                  Leduc Hold'em and its family (ranks, suits, raises)
:func:`four_bet_eight_card`    Oliehoek's 4-bet 8-card poker: raises of 1 or 2 coins
:func:`two_round_six_card`     Oliehoek's 2-round 6-card poker
:func:`limit_holdem`           heads-up Limit Texas Hold'em (the ACPC definition)
:func:`ring_limit_holdem`      Limit Hold'em for 3 to 6 players (ACPC ring rules)
:func:`limit_holdem_table`     Limit Hold'em for 2 to 6 players (``limit_holdem-v0``)
:func:`no_limit_holdem`        no-limit Hold'em, heads-up (ACPC) or 3 to 6 players
:func:`two_board_round_limit`  a small limit game with two board rounds (it compiles)
=============================  ==========================================================

Every one is a :class:`~nashzoo.games.poker.PokerGame` (the one poker engine) of an
:class:`~nashzoo.games.poker.PokerDefinition`. Kuhn and Leduc also have specialised
rule sets (:mod:`nashzoo.games.kuhn`, :mod:`nashzoo.games.leduc`), which the registered
envs keep using: their observations are OpenSpiel's and they step faster. The presets
here play the same games (the tests compile both and compare tree sizes and game
values); their card names follow the ACPC deck (ranks from the deuce up) and their
actions are the engine's (fold, call, raise).

This module is the top of ``games/poker``: it imports the engine and the definitions, and
nothing in the folder imports it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker.definition import NO_STACK, PokerDefinition, parse_gamedef
from nashzoo.games.poker.game import PETTINGZOO_RAISES, PokerGame
from nashzoo.validation import check_int

__all__ = [
    "LIMIT_HOLDEM_GAMEDEF",
    "NO_LIMIT_HOLDEM_GAMEDEF",
    "kuhn",
    "leduc",
    "four_bet_eight_card",
    "two_round_six_card",
    "limit_holdem",
    "no_limit_holdem",
    "two_board_round_limit",
    "ring_limit_holdem",
    "limit_holdem_table",
    "PRESETS",
]

LIMIT_HOLDEM_GAMEDEF = """\
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
"""
"""The ACPC's heads-up Limit Texas Hold'em (``holdem.limit.2p.reverse_blinds.game``):
player 0 posts the big blind (10) and acts first after the flop, player 1 the small
blind (5) and acts first before it; four bets a round counting the big blind."""


def _limit(
    rounds: int, sizes: Sequence[Any], caps: Sequence[int], board: Sequence[int], suits: int,
    ranks: int, stack: int = NO_STACK,
) -> PokerDefinition:  # fmt: skip
    """A heads-up limit definition with blinds of 1 and 1 (an ante), one hole card each
    and player 0 first in every round."""
    return PokerDefinition(
        num_rounds=rounds, blinds=(1, 1), stacks=(stack, stack), first_player=(0,) * rounds,
        num_board_cards=tuple(board), num_suits=suits, num_ranks=ranks, num_hole_cards=1,
        betting="limit", raise_sizes=tuple(sizes), max_raises=tuple(caps),
    )  # fmt: skip


def kuhn(num_cards: int = 3) -> PokerGame:
    """Kuhn poker with ``num_cards`` ranks of one suit (3: Kuhn 1950; 8: Oliehoek's 8-card
    poker): ante 1 (blinds of 1 and 1), one card each, one round, one bet of 1 chip."""
    n = check_int("num_cards", num_cards, 3, 13)
    definition = _limit(1, (1,), (1,), (0,), 1, n)
    return PokerGame(definition, name="kuhn_poker" if n == 3 else f"kuhn_poker_{n}")


def leduc(
    num_ranks: int = 3,
    num_suits: int = 2,
    max_raises: int = 2,
    raise_sizes: tuple[int, int] = (2, 4),
) -> PokerGame:
    """Leduc Hold'em (Southey et al. 2005): ante 1, one private card, a betting round, one
    board card, a second round; raises of 2 then 4 chips, at most 2 per round."""
    definition = _limit(2, raise_sizes, (max_raises, max_raises), (0, 1), num_suits, num_ranks)
    return PokerGame(definition, name="leduc_holdem")


def four_bet_eight_card() -> PokerGame:
    """Oliehoek's "4-bet 8-card poker" (thesis 2005; the Nash-memory experiments).

    Eight cards, ante 1, one private card each, one betting round in which a raise adds 1
    or 2 coins and a player bets at most 4 coins (a stack of 5 with the ante). The thesis
    reports "nearly 4,000 nodes and 274 sequences per player"; this tree has 3,873
    histories and 273 sequences per player. The thesis counts one sequence more per
    player in its 2-round 6-card poker too (2,162 against 2,161 here), whose node count
    agrees, so the difference is one of counting, not of rules.
    """
    definition = _limit(1, ((1, 2),), (4,), (0,), 1, 8, stack=5)
    return PokerGame(definition, name="four_bet_eight_card_poker")


def two_round_six_card() -> PokerGame:
    """Oliehoek's "2-round 6-card poker": six cards (three ranks, two suits), ante 1, a
    private card each, a round, a board card, a round; bets of 1 coin, 3 per round."""
    definition = _limit(2, (1, 1), (3, 3), (0, 1), 2, 3)
    return PokerGame(definition, name="two_round_six_card_poker")


def limit_holdem() -> PokerGame:
    """Heads-up Limit Texas Hold'em, read from :data:`LIMIT_HOLDEM_GAMEDEF`."""
    return PokerGame(parse_gamedef(LIMIT_HOLDEM_GAMEDEF), name="limit_holdem")


NO_LIMIT_HOLDEM_GAMEDEF = """\
GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""
"""The ACPC's heads-up no-limit Texas Hold'em (``holdem.nolimit.2p.reverse_blinds.game``):
stacks of 20,000 chips (200 big blinds), player 0 the big blind (100), player 1 the small
blind (50) and first to act before the flop."""


def no_limit_holdem(
    raises: Sequence[float] = PETTINGZOO_RAISES, stack: int | None = None, players: int = 2
) -> PokerGame:
    """No-limit Texas Hold'em. Heads-up (the default): the ACPC definition
    (:data:`NO_LIMIT_HOLDEM_GAMEDEF`: blinds 100/50, stacks of 20,000, player 1 first
    before the flop). With ``players`` = 3 to 6: blinds of 50 (player 0) and 100 (player
    1), player 2 first before the flop and player 0 after it, stacks of 20,000. The
    raise actions are the pot fractions ``raises`` (default PettingZoo's half pot and
    pot); ``stack`` sets every player's stack."""
    n = players
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 6:
        raise InvalidParameterError(f"Parameter `players` must be 2 to 6, received {players!r}.")
    d = parse_gamedef(NO_LIMIT_HOLDEM_GAMEDEF, "nolimit")
    if n > 2:
        d = dataclasses.replace(
            d, blinds=(50, 100, *([0] * (n - 2))), stacks=(20000,) * n,
            first_player=(2, 0, 0, 0),
        )  # fmt: skip
    if stack is not None:
        d = dataclasses.replace(d, stacks=(stack,) * n)
    name = "no_limit_holdem" if n == 2 else f"no_limit_holdem_{n}p"
    return PokerGame(d, raises=raises, name=name)


def two_board_round_limit() -> PokerGame:
    """A small heads-up limit game with two board rounds: six cards (three ranks, two
    suits), blinds of 2 and 1, one hole card each, a board card before rounds 2 and 3,
    raises of 2, 4 and 4, at most two a round; 144,487 histories. It compiles, so exact
    best responses check the yardsticks meant for Hold'em on it (LBR's tests and
    ``benchmarks/large_game_evaluation.py``)."""
    definition = PokerDefinition(
        num_rounds=3,
        blinds=(2, 1),
        stacks=(NO_STACK, NO_STACK),
        first_player=(1, 0, 0),
        num_board_cards=(0, 1, 1),
        num_suits=2,
        num_ranks=3,
        num_hole_cards=1,
        betting="limit",
        raise_sizes=(2, 4, 4),
        max_raises=(2, 2, 2),
    )
    return PokerGame(definition, name="limit_3_rounds")


def ring_limit_holdem(players: int = 3) -> PokerGame:
    """Limit Texas Hold'em for 3 to 6 players, the ACPC's ring-game rules
    (``holdem.limit.3p.game``): blinds of 5 (player 0) and 10 (player 1), bets of 10 before
    and on the flop and 20 after, at most 3 raises before the flop and 4 after, player 2
    first before the flop and player 0 after it, no stacks. Heads-up limit Hold'em is
    :func:`limit_holdem`.

    Raises:
        InvalidParameterError: ``players`` not 3 to 6.
    """
    n = players
    if isinstance(n, bool) or not isinstance(n, int) or not 3 <= n <= 6:
        raise InvalidParameterError(f"Parameter `players` must be 3 to 6, received {players!r}.")
    d = PokerDefinition(
        num_rounds=4, blinds=(5, 10, *([0] * (n - 2))), stacks=(NO_STACK,) * n,
        first_player=(2, 0, 0, 0), num_board_cards=(0, 3, 1, 1), num_suits=4, num_ranks=13,
        num_hole_cards=2, betting="limit", raise_sizes=(10, 10, 20, 20), max_raises=(3, 4, 4, 4),
    )  # fmt: skip
    return PokerGame(d, name=f"limit_holdem_{n}p")


def limit_holdem_table(players: int = 2) -> PokerGame:
    """Limit Texas Hold'em for 2 to 6 players: heads-up, the ACPC definition
    (:func:`limit_holdem`); from three players,
    :func:`ring_limit_holdem`. What ``nashzoo/limit_holdem-v0`` builds.

    Raises:
        InvalidParameterError: ``players`` not 2 to 6.
    """
    n = players
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 6:
        raise InvalidParameterError(f"Parameter `players` must be 2 to 6, received {players!r}.")
    if players == 2:
        return limit_holdem()
    return ring_limit_holdem(players)


PRESETS = {
    "kuhn": kuhn,
    "leduc": leduc,
    "four_bet_eight_card": four_bet_eight_card,
    "two_round_six_card": two_round_six_card,
    "limit_holdem": limit_holdem,
}
"""Preset factories by name."""
