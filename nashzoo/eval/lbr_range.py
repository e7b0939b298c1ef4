"""LBR's range as arrays over the opponent's hole cards: the fast path of
:func:`nashzoo.eval.lbr.local_best_response` on heads-up poker.

Where a game's states list the opponent's possible private cards
(:meth:`~nashzoo.games.base.State.hidden_worlds`, with
:meth:`~nashzoo.games.base.State.information_state_indices_as` and
:meth:`~nashzoo.games.base.State.information_state_string_as`: the poker engine), LBR
needs no replay of private deals. Its range is one weight per opposing holding (Hold'em:
1,225 hole-card pairs, of which a board card removes those that hold it); the agent is
asked about every holding at once, one batch of observations built from index arrays;
and the win probability of a check-down is one vector over the holdings, computed once
per decision and shared by every action LBR weighs (common random numbers): every
remaining board where that is affordable (the river; the turn's 46 rivers; every board
of a small game), else ``rollouts`` boards drawn uniformly, ranked in numba with the
52-card tables (:mod:`nashzoo.games.poker.hand_kernel`).

The valuation is Lisý & Bowling's, as :mod:`nashzoo.eval.lbr` states it. The check-down
stake is the smaller contribution (equal after calls, except where a player is all in
for less, when the smaller is what changes hands).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from nashzoo.envs.protocol import StatesBatch
from nashzoo.envs.sampling import batch_probabilities
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.games.base import CHANCE, State, sample_chance_outcome
from nashzoo.games.observation import ObservationCache, agent_info
from nashzoo.games.poker.hand_kernel import showdown_signs, tables_arrays

__all__ = ["EXACT_SHOWDOWNS", "HoldingsLBR", "holdings_path"]

EXACT_SHOWDOWNS = 200_000
"""Showdowns (remaining boards times live holdings) up to which a decision's win
probabilities enumerate every remaining board (Hold'em's turn: 46 rivers times at most
1,081 holdings); beyond it they use the decision's ``rollouts`` boards."""


def _signs_python(
    strength: Callable[[Sequence[int]], Any],
    mine: np.ndarray,
    known: np.ndarray,
    holdings: np.ndarray,
    live: np.ndarray,
    boards: np.ndarray,
    total: np.ndarray,
    count: np.ndarray,
) -> None:
    """:func:`~nashzoo.games.poker.hand_kernel.showdown_signs` with the game's own
    strength function (decks other than the 52 cards)."""
    mine_list, known_list = mine.tolist(), known.tolist()
    rows = holdings.tolist()
    for board in boards.tolist():
        on = set(board)
        ours = strength(mine_list + known_list + board)
        for i in np.flatnonzero(live).tolist():
            if on.intersection(rows[i]):
                continue
            other = strength(rows[i] + known_list + board)
            total[i] += 1.0 if ours > other else (-1.0 if ours < other else 0.0)
            count[i] += 1


def holdings_path(game: Game, state: State, seat: int) -> bool:
    """Whether LBR in ``seat`` may keep its range over the opponent's holdings at
    ``state`` (a decision after the hole cards are dealt): the rules list the holdings
    and answer the agent's observation and string for each."""
    worlds = state.hidden_worlds(seat)
    if worlds is None or not len(worlds.values):
        return False
    value = worlds.values[0]
    return (
        state.information_state_indices_as(1 - seat, value) is not None
        and state.information_state_string_as(1 - seat, value) is not None
        and hasattr(state, "board_cards")
        and hasattr(state, "pot_contributions")
        and hasattr(game, "strength")
    )


class HoldingsLBR:
    """LBR against a policy or a mixture of policies, its range an array over (member,
    opposing holding).

    Args:
        game: a heads-up poker game whose states list the holdings (:func:`holdings_path`).
        agents: the PolicyAgents that state the agent's distributions (the agent itself,
            the model standing in for it, or the members of a mixed strategy).
        priors: each member's prior weight (one drawn per hand).
        rollouts: boards per decision where enumerating them is unaffordable; ``None``
            enumerates every board.
        options: ``options(state)``: LBR's actions at a decision of its own.
        calling: ``calling(state)``: the check or call of the player to move.
        folds: ``folds(state, action)``: whether ``action`` ends the hand without a
            showdown (the three are LBR's own, :mod:`nashzoo.eval.lbr`).
        rng: draws the rollout boards.
    """

    def __init__(
        self,
        game: Game,
        agents: Sequence[Any],
        priors: np.ndarray,
        rollouts: int | None,
        options: Callable[[State], list[int]],
        calling: Callable[[State], int],
        folds: Callable[[State, int], bool],
        rng: np.random.Generator,
    ) -> None:
        self.game = game
        self.agents = list(agents)
        self.priors = np.asarray(priors, dtype=np.float64)
        self.rollouts = rollouts
        self.options = options
        self.calling = calling
        self.folds = folds
        self.rng = rng
        self.views = ObservationCache(game, 0)
        self.standard = bool(getattr(game, "standard_hands", False))
        self.tables = tables_arrays() if self.standard else None
        d = game.definition  # type: ignore[attr-defined]
        self.board_total = int(sum(d.num_board_cards))

    # -- the agent over the range ---------------------------------------------------------
    def probs(self, state: State, player: int, holdings: np.ndarray, member: int = 0) -> np.ndarray:
        """``(n, actions)``: the agent's (``member``'s) distribution at ``state`` had it
        held each row of ``holdings`` (one batch)."""
        agent = self.agents[member]
        n = len(holdings)
        values = [tuple(v) for v in holdings.tolist()]
        index = np.array([state.information_state_indices_as(player, v) for v in values])
        tensors = np.zeros((n, self.game.information_state_tensor_size), dtype=np.float32)
        np.put_along_axis(tensors, index, 1.0, axis=1)
        masks = np.repeat(self.views.mask_of(state, player)[None, :], n, axis=0)
        infos = None
        if not isinstance(agent, StatesBatch):
            history, length = self.views.public_history(state)
            infos = [
                agent_info(player, history, length, state.information_state_string_as(player, v))  # type: ignore[arg-type]
                for v in values
            ]
        return batch_probabilities(agent, tensors, masks, np.full(n, player), infos)

    # -- win probabilities ------------------------------------------------------------------
    def signs(self, state: State, seat: int, holdings: np.ndarray, live: np.ndarray) -> np.ndarray:
        """Per holding: LBR's mean showdown sign (+1 win, -1 loss) against it over the
        rest of the board: every board where affordable (or with ``rollouts`` None), else
        the decision's ``rollouts`` boards (0 for dead rows)."""
        mine = np.array(state.hole_cards(seat), dtype=np.int64)  # type: ignore[attr-defined]
        known = np.array(state.board_cards(), dtype=np.int64)  # type: ignore[attr-defined]
        missing = self.board_total - len(known)
        seen = set(mine.tolist()) | set(known.tolist())
        deck = np.array([c for c in range(self.game.num_cards) if c not in seen])  # type: ignore[attr-defined]
        every = math.comb(len(deck), missing)
        if missing == 0:
            boards = np.zeros((1, 0), dtype=np.int64)
        elif self.rollouts is None or every * int(live.sum()) <= EXACT_SHOWDOWNS:
            boards = np.array(list(combinations(deck.tolist(), missing)), dtype=np.int64)
        else:  # uniform boards: the first cards of independent shuffles of the deck
            order = np.argsort(self.rng.random((self.rollouts, len(deck))), axis=1)
            boards = deck[order[:, :missing]].astype(np.int64)
        total = np.zeros(len(holdings))
        count = np.zeros(len(holdings), dtype=np.int64)
        if self.tables is not None:
            showdown_signs(mine, known, holdings, live, boards, *self.tables, total, count)
        else:
            strength = self.game.strength  # type: ignore[attr-defined]
            _signs_python(strength, mine, known, holdings, live, boards, total, count)
        return np.divide(total, count, out=np.zeros_like(total), where=count > 0)

    def column(
        self, state: State, player: int, holdings: np.ndarray, weights: np.ndarray, action: int
    ) -> np.ndarray:
        """``(members, holdings)``: each member's probability of ``action`` at ``state``
        had it held each holding, asked where ``weights`` is positive (0 elsewhere)."""
        out = np.zeros(weights.shape)
        for m in range(len(weights)):
            rows = np.flatnonzero(weights[m] > 0)
            if len(rows):
                out[m, rows] = self.probs(state, player, holdings[rows], m)[:, action]
        return out

    # -- LBR's decision --------------------------------------------------------------------------
    def _checked(self, state: State) -> State:
        """``state`` after both players check or call to the next card or the end."""
        state = state.clone()
        while not state.is_terminal() and state.current_player() != CHANCE:
            state.apply_action(self.calling(state))
        return state

    def _stake(self, state: State) -> float:
        contributions = state.pot_contributions()  # type: ignore[attr-defined]
        return float(min(contributions))

    def values(
        self, state: State, seat: int, holdings: np.ndarray, weights: np.ndarray
    ) -> tuple[list[int], list[float]]:
        """LBR's actions and their values against the range (Lisý & Bowling): a fold is
        worth what it forfeits; a check or call the check-down against the range; a bet
        or raise the agent's folds to it (exact, from its policy) plus the check-down
        against the part of the range that calls. ``weights``: ``(members, holdings)``."""
        options = self.options(state)
        w = weights / weights.sum()
        live: np.ndarray = np.asarray((weights > 0).any(axis=0))
        cards = w.sum(axis=0)  # each holding's weight, members together
        signs: np.ndarray | None = None
        agent_seat = 1 - seat
        values = []
        for a in options:
            child = state.clone()
            child.apply_action(a)
            if child.is_terminal() and a != self.calling(state):  # LBR folds
                values.append(float(child.returns()[seat]))
                continue
            fold = None
            if not child.is_terminal() and child.current_player() == agent_seat:
                fold = next((b for b in child.legal_actions() if self.folds(child, b)), None)
            if signs is None:  # one vector per decision: every action sees the same boards
                signs = self.signs(state, seat, holdings, live)
            if fold is None:  # a check or call (or the agent cannot fold): checked down
                values.append(self._stake(self._checked(child)) * float(cards @ signs))
                continue
            folds = self.column(child, agent_seat, holdings, weights, fold)
            ended = child.clone()
            ended.apply_action(fold)
            called = child.clone()
            called.apply_action(self.calling(child))
            stake = self._stake(self._checked(called))
            value = float(ended.returns()[seat]) * float((w * folds).sum())
            values.append(value + stake * float((w * (1.0 - folds)).sum(axis=0) @ signs))
        return options, values

    # -- one hand ----------------------------------------------------------------------------
    def play(
        self,
        state: State,
        seat: int,
        chance: np.random.Generator,
        move: Callable[[State, int], int],
    ) -> float:
        """Play the hand from ``state`` (a decision, hole cards dealt) with LBR in ``seat``:
        its winnings. ``chance`` deals the board; ``move(state, player)`` is the agent's
        action at the real state (the member of a mixture that plays this hand)."""
        worlds = state.hidden_worlds(seat)
        assert worlds is not None
        holdings = np.array([list(v) for v in worlds.values], dtype=np.int64)  # type: ignore[call-overload]
        weights = self.priors[:, None] * worlds.weights[None, :]
        agent_seat = 1 - seat
        while not state.is_terminal():
            p = state.current_player()
            if p == CHANCE:  # a board card: no holding holds it any more
                outcome = sample_chance_outcome(state.chance_outcomes(), chance.random())
                state.apply_action(outcome)
                weights[:, (holdings == outcome).any(axis=1)] = 0.0
            elif p == agent_seat:
                action = move(state, p)
                weights *= self.column(state, p, holdings, weights, action)
                if not weights.any():
                    raise InvalidParameterError(
                        "The agent's range became empty: its probabilities gave zero to an "
                        "action it played (is it a stationary policy?)."
                    )
                state.apply_action(action)
            else:
                options, values = self.values(state, seat, holdings, weights)
                state.apply_action(options[int(np.argmax(values))])
        return float(state.returns()[seat])
