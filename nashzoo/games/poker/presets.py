"""Game definitions of the poker family, each a :class:`~nashzoo.games.poker.PokerGame`.

=============================  ==========================================================
preset                         game
=============================  ==========================================================
:func:`kuhn`                   Kuhn poker and its N-card variants (one suit, N ranks)
:func:`leduc`                  Leduc Hold'em and its family (ranks, suits, raises)
:func:`four_bet_eight_card`    Oliehoek's 4-bet 8-card poker: raises of 1 or 2 coins
:func:`two_round_six_card`     Oliehoek's 2-round 6-card poker
:func:`limit_holdem`           heads-up Limit Texas Hold'em (the ACPC definition)
=============================  ==========================================================

Kuhn and Leduc also have specialised rule sets (:mod:`nashzoo.games.kuhn`,
:mod:`nashzoo.games.leduc`), which the registered envs keep using: their observations are
OpenSpiel's and they step faster. The presets here play the same games (the tests compile
both and compare tree sizes and game values); their card names follow the ACPC deck
(ranks from the deuce up) and their actions are the engine's (fold, call, raise).
"""

from __future__ import annotations

from nashzoo.games.poker.definition import PokerDefinition, parse_gamedef
from nashzoo.games.poker.engine import PokerGame
from nashzoo.validation import check_int

__all__ = [
    "LIMIT_HOLDEM_GAMEDEF",
    "kuhn",
    "leduc",
    "four_bet_eight_card",
    "two_round_six_card",
    "limit_holdem",
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


def kuhn(num_cards: int = 3) -> PokerGame:
    """Kuhn poker with ``num_cards`` ranks of one suit (3: Kuhn 1950; 8: Oliehoek's 8-card
    poker): ante 1 (blinds of 1 and 1), one card each, one round, one bet of 1 chip."""
    n = check_int("num_cards", num_cards, 3, 13)
    definition = PokerDefinition(
        num_rounds=1,
        blinds=(1, 1),
        raise_sizes=((1,),),
        max_raises=(1,),
        first_player=(0,),
        num_board_cards=(0,),
        num_suits=1,
        num_ranks=n,
        num_hole_cards=1,
    )
    return PokerGame(definition, name="kuhn_poker" if n == 3 else f"kuhn_poker_{n}")


def leduc(
    num_ranks: int = 3,
    num_suits: int = 2,
    max_raises: int = 2,
    raise_sizes: tuple[int, int] = (2, 4),
) -> PokerGame:
    """Leduc Hold'em (Southey et al. 2005): ante 1, one private card, a betting round, one
    board card, a second round; raises of 2 then 4 chips, at most 2 per round."""
    definition = PokerDefinition(
        num_rounds=2,
        blinds=(1, 1),
        raise_sizes=((raise_sizes[0],), (raise_sizes[1],)),
        max_raises=(max_raises, max_raises),
        first_player=(0, 0),
        num_board_cards=(0, 1),
        num_suits=num_suits,
        num_ranks=num_ranks,
        num_hole_cards=1,
    )
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
    definition = PokerDefinition(
        num_rounds=1,
        blinds=(1, 1),
        raise_sizes=((1, 2),),
        max_raises=(4,),
        first_player=(0,),
        num_board_cards=(0,),
        num_suits=1,
        num_ranks=8,
        num_hole_cards=1,
        stack=5,
    )
    return PokerGame(definition, name="four_bet_eight_card_poker")


def two_round_six_card() -> PokerGame:
    """Oliehoek's "2-round 6-card poker": six cards (three ranks, two suits), ante 1, a
    private card each, a round, a board card, a round; bets of 1 coin, 3 per round."""
    definition = PokerDefinition(
        num_rounds=2,
        blinds=(1, 1),
        raise_sizes=((1,), (1,)),
        max_raises=(3, 3),
        first_player=(0, 0),
        num_board_cards=(0, 1),
        num_suits=2,
        num_ranks=3,
        num_hole_cards=1,
    )
    return PokerGame(definition, name="two_round_six_card_poker")


def limit_holdem() -> PokerGame:
    """Heads-up Limit Texas Hold'em, read from :data:`LIMIT_HOLDEM_GAMEDEF`."""
    return PokerGame(parse_gamedef(LIMIT_HOLDEM_GAMEDEF), name="limit_holdem")


PRESETS = {
    "kuhn": kuhn,
    "leduc": leduc,
    "four_bet_eight_card": four_bet_eight_card,
    "two_round_six_card": two_round_six_card,
    "limit_holdem": limit_holdem,
}
"""Preset factories by name."""
