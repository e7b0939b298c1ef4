"""Fighting cards: the opponent's hidden hand, from the rules (see :mod:`nashzoo.games.hidden`).

A player knows its own deal and draws, both players' played cards and hit points, and how
many cards the opponent drew; the opponent's hand (and, for player 1, the card player 0
has just chosen) is hidden. The chance weight of each hand the opponent may hold follows
its deal and draws exactly: a dynamic programme over the opponent's hand, exchange by
exchange (the dealt hand by its multivariate hypergeometric probability, each played card
taken out of the hand, each draw by the copies left in the deck), so its cost grows with
the number of hands and exchanges, not with the game tree. The world for one hand is
built by replaying the public history with the opponent dealt the cards it played, in
the order it played them, then the cards it holds: an order that makes every play legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import HIDDEN
from nashzoo.games.hidden import HiddenWorlds, checked_view

if TYPE_CHECKING:
    from nashzoo.games.fighting import FightingCardGame, FightingCardState

__all__ = ["hidden_worlds", "view_state"]

Hand = tuple[int, ...]
"""Count per card kind."""
Value = tuple[Hand, int]
"""The opponent's private information: its hand and its chosen, unrevealed card (-1)."""


def hidden_worlds(state: FightingCardState, player: int) -> HiddenWorlds:
    """The opponent's possible hands in ``player``'s view of ``state``."""
    from nashzoo.games.fighting import _ACT1, _DEAL0, _DEAL1

    game = state.game
    if state._phase in (_DEAL0, _DEAL1):
        raise InvalidParameterError("hidden_worlds needs both hands dealt; they are not yet.")
    opp = 1 - player
    plays = [cards[opp] for cards in state._cards]
    pending_hidden = opp == 0 and state._phase == _ACT1
    draws = len(state._draws[opp])
    hands = _hand_distribution(game, plays, draws)
    weights: dict[Value, float] = {}
    for hand, p in hands.items():
        if not pending_hidden:
            weights[(hand, -1)] = p
            continue
        for kind, n in enumerate(hand):  # every card player 0 may have chosen
            if n:
                after = _add(hand, kind, -1)
                weights[(after, kind)] = weights.get((after, kind), 0.0) + p
    values = sorted(weights)
    template = list(state._history)  # the state may move on; the worlds stay
    return HiddenWorlds(
        player,
        values,
        [weights[v] for v in values],
        lambda v: _replay(game, template, opp, plays, draws, v),  # type: ignore[arg-type]
    )


def _add(hand: Hand, kind: int, n: int) -> Hand:
    """``hand`` with ``n`` more cards of ``kind``."""
    return (*hand[:kind], hand[kind] + n, *hand[kind + 1 :])


def _hand_distribution(
    game: FightingCardGame, plays: Sequence[int], draws: int
) -> dict[Hand, float]:
    """The chance probability of every hand a player may hold after playing ``plays`` and
    drawing ``draws`` cards (its whole private history summed out)."""
    full = game.copies
    dist: dict[Hand, float] = dict(zip(game.hands, game.hand_probs.tolist()))
    played = [0] * game.num_kinds
    for j, card in enumerate(plays):
        played[card] += 1
        after: dict[Hand, float] = {}
        for hand, p in dist.items():
            if hand[card]:
                h = _add(hand, card, -1)
                after[h] = after.get(h, 0.0) + p
        dist = after
        if j < draws:
            drawn: dict[Hand, float] = {}
            for hand, p in dist.items():
                left = [full - played[k] - hand[k] for k in range(game.num_kinds)]
                total = sum(left)
                for k, n in enumerate(left):
                    if n > 0:
                        h = _add(hand, k, 1)
                        drawn[h] = drawn.get(h, 0.0) + p * n / total
            dist = drawn
    return {hand: p for hand, p in dist.items() if p > 0}


def _private_sequence(
    game: FightingCardGame, plays: Sequence[int], value: Value, draws: int
) -> tuple[int, list[int]]:
    """A deal (hand index) and draws of the opponent that end in ``value``: the played
    cards first, in order, then the pending card, then the hand."""
    hand, pending = value
    cards = list(plays) + ([pending] if pending >= 0 else [])
    cards += [k for k, n in enumerate(hand) for _ in range(n)]
    h = game.hand_size
    if len(cards) != h + draws:
        raise InvalidParameterError(
            f"hand {hand} with {len(plays)} played card(s) and {draws} draw(s) is not a "
            f"position of {game.short_name}."
        )
    dealt = [0] * game.num_kinds
    for k in cards[:h]:
        dealt[k] += 1
    return game.hands.index(tuple(dealt)), cards[h:]


def _replay(
    game: FightingCardGame,
    history: Sequence[int],
    opp: int,
    plays: Sequence[int],
    draws: int,
    value: Value,
) -> FightingCardState:
    """``history`` replayed with ``opp``'s deal, draws and pending card made to match
    ``value`` (everything else as it was)."""
    from nashzoo.games.fighting import _ACT0, _ACT1, _DEAL0, _DRAW0

    deal, drawn = _private_sequence(game, plays, value, draws)
    new_draws = iter(drawn)
    state = game.new_initial_state()
    last = len(history) - 1
    for i, action in enumerate(history):
        phase = state._phase
        if phase == _DEAL0 + opp:
            action = deal
        elif phase == _DRAW0 + opp:
            action = next(new_draws)
        elif phase == _ACT0 and opp == 0 and i == last:
            action = value[1]  # player 0's unrevealed card
        state.apply_unchecked(action)
    if value[1] >= 0 and state._phase != _ACT1:  # the pending card was not in the history
        raise InvalidParameterError(f"no card of player 0 is pending; received {value}.")
    return state


def view_state(
    game: FightingCardGame, player: int, info_state: str, public_history: Sequence[int]
) -> FightingCardState:
    """A state with ``player``'s deal, draws and unrevealed card read from ``info_state``,
    the played cards from ``public_history``, and an opponent hand that makes every play
    legal (the lowest card kinds left). Player 1's string does not show whether player 0
    has chosen its card; the state is one where it has (player 1 is to move)."""
    from nashzoo.games.fighting import _ACT0, _DEAL0, _DRAW0

    names = {name: kind for kind, name in enumerate(game.kind_names)}
    parts = str(info_state).split(" | ")
    head = parts[0].split(" ")
    if not head or head[0] != f"player={player}":
        raise InvalidParameterError(
            f"info_state must be player {player}'s information-state string of "
            f"{game.short_name} ('player={player} hp=...'), received {info_state!r}."
        )
    try:
        deal_names = next(f[5:] for f in head if f.startswith("deal="))
        dealt = [0] * game.num_kinds
        for name in deal_names.split(","):
            dealt[names[name]] += 1
        deal = game.hands.index(tuple(dealt))
        own_draws = [names[r.split("+")[1]] for r in parts[1:] if "+" in r]
        own_pending = next((names[r.split("v")[0]] for r in parts[1:] if r.endswith("v?")), -1)
    except (StopIteration, KeyError, ValueError, IndexError) as error:
        raise InvalidParameterError(
            f"info_state {info_state!r} is not a dealt information-state string of "
            f"{game.short_name}."
        ) from error
    public = [int(a) for a in public_history]
    opp = 1 - player
    cards = [a for a in public if a != HIDDEN]
    plays = cards[opp::2]  # each exchange is public as (player 0's card, player 1's)
    drawn_after_deals = sum(1 for a in public[2:] if a == HIDDEN)  # player 0 draws first
    opp_draws = (drawn_after_deals + 1) // 2 if opp == 0 else drawn_after_deals // 2
    hands = _hand_distribution(game, plays, opp_draws)
    if not hands:
        raise InvalidParameterError(
            f"public_history {public} is not a history of {game.short_name}."
        )
    value: Value = (min(hands), -1)
    opp_deal, opp_drawn = _private_sequence(game, plays, value, opp_draws)
    opp_draw = iter(opp_drawn)
    state = game.new_initial_state()
    own_draw = iter(own_draws)
    try:
        for action in public:
            phase = state._phase
            if phase == _DEAL0 + player:
                action = deal
            elif phase == _DEAL0 + opp:
                action = opp_deal
            elif phase == _DRAW0 + player:
                action = next(own_draw)
            elif phase == _DRAW0 + opp:
                action = next(opp_draw)
            elif action == HIDDEN:
                raise InvalidParameterError("a hidden event where a card was played")
            state.apply_action(action)
        if own_pending >= 0 and state._phase == _ACT0:
            state.apply_action(own_pending)
        elif player == 1 and state._phase == _ACT0:  # player 1 acts once player 0 has chosen
            state.apply_action(state.legal_actions()[0])
    except (StopIteration, InvalidParameterError, ValueError) as error:
        raise InvalidParameterError(
            f"info_state {info_state!r} disagrees with public_history {public}: {error}"
        ) from error
    return checked_view(state, player, info_state, public)
