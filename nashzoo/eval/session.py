"""Duplicate hands between a person and an agent, one decision at a time.

A :class:`DuplicateSession` deals hand after hand of a two-player game between a person
(who answers through :meth:`DuplicateSession.apply`) and an agent. Deal ``d`` is played
twice, with the person in seat 0 (hand ``2d``) and then in seat 1 (hand ``2d + 1``), from
the same chance draws, as in the harness's duplicate matches: luck of the cards cancels in
the pair. The agent is asked exactly as in a match (same observation and info, same
legality checks) and is re-seeded at each hand, so a session with the same seed deals the
same cards and, for the same answers, replays the same hands.

The terminal (``nashzoo play``) and the leaderboard's browser page both drive one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nashzoo.envs.protocol import Agent, AgentInfo, Observation, StatesProbabilities
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.matches import deal_seed
from nashzoo.eval.referee import Deal, ask_agent, checked_action, on_behalf_of, request_for
from nashzoo.eval.stats import ci95, sample_mean_and_stderr, score_digits, score_unit
from nashzoo.games.base import CHANCE, HIDDEN, TERMINAL, Game, check_action_value
from nashzoo.games.observation import ObservationCache
from nashzoo.validation import check_seed

__all__ = ["DuplicateSession", "HandRecord", "Score", "Step"]


@dataclass(frozen=True)
class Step:
    """One move of a hand.

    Attributes:
        player: the seat that moved, or ``-1`` for chance.
        action: the action (or chance outcome) number.
        text: how the rules name it.
        probabilities: the agent's stated probabilities over every action at this
            decision, where it states them (a policy); ``None`` otherwise.
    """

    player: int
    action: int
    text: str
    probabilities: tuple[float, ...] | None = None


@dataclass
class HandRecord:
    """A hand played to the end.

    Attributes:
        hand: the hand's number in the session (deal ``hand // 2``).
        seat: the person's seat.
        history: chance outcomes and actions from the root.
        steps: the same, named, with the agent's probabilities where stated (empty for
            a hand read back from storage).
        returns: chips won by seat 0 and seat 1.
        forfeit: why the agent lost the hand by forfeit (``None`` for a hand played out).
    """

    hand: int
    seat: int
    history: list[int]
    steps: list[Step]
    returns: list[float]
    forfeit: str | None = None

    @property
    def person_return(self) -> float:
        """What the person won in this hand."""
        return self.returns[self.seat]

    def to_json(self) -> dict[str, Any]:
        """The hand as the JSON object stored and downloaded (documented in the rules)."""
        return {
            "hand": self.hand,
            "deal": self.hand // 2,
            "seat": self.seat,
            "history": [int(a) for a in self.history],
            "returns": [float(r) for r in self.returns],
            "probabilities": [
                None if s.probabilities is None else list(s.probabilities) for s in self.steps
            ],
            "forfeit": self.forfeit,
        }


@dataclass(frozen=True)
class Score:
    """The person's running score.

    Once a deal has been played in both seatings the score counts complete deals only
    (the duplicate rule: a hand whose twin is still to come waits for it).

    Attributes:
        hands: hands counted.
        mean: chips per hand won by the person (``nan`` before the first hand).
        low, high: its 95% interval over the complete deals' means (over single hands
            before the first deal is complete; infinite with one sample).
        scale, unit: multiply chips by ``scale`` to report in ``unit`` (mbb/game for poker).
        deals: complete duplicate deals counted.
    """

    hands: int
    mean: float
    low: float
    high: float
    scale: float
    unit: str
    deals: int = 0

    def text(self) -> str:
        """``+125 mbb/game (95% CI -300 to +550) over 4 hands``."""
        if self.hands == 0:
            return "no hand played yet"
        mean = self.mean * self.scale
        d = score_digits(self.scale, mbb=0)
        if math.isfinite(self.low):
            low, high = self.low * self.scale, self.high * self.scale
            ci = f" (95% CI {low:+.{d}f} to {high:+.{d}f})"
        else:
            ci = ""
        hands = f"{self.hands} hand{'s' * (self.hands != 1)}"
        if self.deals:
            hands += f" ({self.deals} duplicate deal{'s' * (self.deals != 1)})"
        return f"{mean:+.{d}f} {self.unit}{ci} over {hands}"


@dataclass
class _Live:
    deal: Deal  # the referee's game in progress
    steps: list[Step] = field(default_factory=list)
    over: bool = False  # played out, or ended by the agent's forfeit

    @property
    def state(self) -> Any:
        return self.deal.state


class DuplicateSession:
    """A person against ``agent`` in duplicate hands of ``game`` (two players).

    Args:
        game: the rules (two players).
        agent: the opponent; asked with :meth:`~nashzoo.envs.protocol.Agent.act` (or
            ``act_many``, for a sandboxed agent); its ``action_probabilities``, where it
            has them, are recorded with each of its decisions.
        seed: the cards of deal ``d`` come from ``np.random.default_rng([seed, d])``;
            the agent is re-seeded at every hand from ``seed``, the deal and the seat
            (``None``: a fresh seed, kept in :attr:`seed`).
        finished: hands played before (a resumed session's stored ones, with empty
            ``steps`` if need be); they count in the score and the session goes on at
            the hand after the last of them.

    Raises:
        InvalidParameterError: ``game`` is not a two-player game, or bad ``seed``.
    """

    def __init__(
        self,
        game: Game,
        agent: Agent,
        *,
        seed: int | None = 0,
        finished: Sequence[HandRecord] = (),
    ) -> None:
        if game.num_players != 2:
            raise InvalidParameterError(
                f"Duplicate play needs a two-player game, received {game} with "
                f"{game.num_players} players."
            )
        self.game = game
        self.agent = agent
        checked = check_seed(seed)
        self.seed: int = (
            int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
            if checked is None
            else checked
        )
        self.finished = sorted(finished, key=lambda r: r.hand)
        self.hand = self.finished[-1].hand + 1 if self.finished else 0
        self._cache = ObservationCache(game)
        self._live: _Live | None = None
        self.start_hand()

    # -- the hand ---------------------------------------------------------------------
    @property
    def seat(self) -> int:
        """The person's seat in the current hand (0 in even hands, 1 in odd ones)."""
        return self.hand % 2

    @property
    def state(self) -> Any:
        """The current hand's state (the whole state: show the person only their view)."""
        assert self._live is not None
        return self._live.state

    @property
    def hand_over(self) -> bool:
        """Whether the current hand has ended (call :meth:`start_hand` for the next)."""
        return self._live is None or self._live.over

    def start_hand(self) -> None:
        """Deal the next hand (or the first) and play until the person is to act."""
        if self._live is not None:
            if not self.hand_over:
                raise IllegalActionError(
                    f"Hand {self.hand} is still being played; finish it before dealing the next."
                )
            self.hand += 1
        deal = self.hand // 2
        rng = np.random.default_rng([self.seed, deal])
        uniforms = deal_uniforms(self.game, 1, rng)[0]
        self._live = _Live(Deal(self.game, uniforms))
        self.agent.reset(seed=deal_seed(self.seed, deal, self.seat))
        self._advance()

    def view(self) -> tuple[Observation, AgentInfo]:
        """The person's observation and info at their decision (as an agent would get).

        Raises:
            IllegalActionError: the hand is over.
        """
        if self.hand_over:
            raise IllegalActionError(f"Hand {self.hand} is over; deal the next one.")
        return request_for(self._cache, self.state, self.seat)

    def legal_actions(self) -> list[tuple[int, str]]:
        """The person's legal actions with their names (empty when the hand is over)."""
        if self.hand_over:
            return []
        state = self.state
        return [(int(a), state.action_to_string(a)) for a in state.legal_actions()]

    def visible_steps(self) -> list[Step]:
        """The moves of the current hand as the person may see them: private chance
        outcomes (cards dealt to one seat; the person's own are in their view) and, in
        simultaneous-move games, the other seat's moves are hidden until the hand is over
        (the person's information state says what they know of them)."""
        assert self._live is not None
        if self.hand_over:
            return list(self._live.steps)
        steps = self._live.steps
        if self.game.simultaneous:  # moves are seen only when the round resolves
            return [
                s if s.player == self.seat else Step(s.player, HIDDEN, "(hidden)") for s in steps
            ]
        public = self.state.public_history()
        return [
            Step(s.player, HIDDEN, "(private)") if s.player == CHANCE and seen == HIDDEN else s
            for s, seen in zip(steps, public)
        ]

    def pot(self) -> float | None:
        """Chips in the middle, for games that have a pot (``None`` otherwise)."""
        contributions = getattr(self.state, "pot_contributions", None)
        return float(sum(contributions())) if callable(contributions) else None

    def apply(self, action: Any) -> None:
        """The person plays ``action``; the agent and chance then move until the person is
        to act again or the hand ends.

        Raises:
            IllegalActionError: the hand is over, or ``action`` is not legal here.
            ActionTypeError: ``action`` is not an action number.
        """
        if self.hand_over:
            raise IllegalActionError(f"Hand {self.hand} is over; deal the next one.")
        state = self.state
        action = check_action_value(action, self.game.num_distinct_actions)
        legal = [int(a) for a in state.legal_actions()]
        if action not in legal:
            raise IllegalActionError(
                f"Action {action} is not legal here; legal actions: "
                + ", ".join(f"{a} ({state.action_to_string(a)})" for a in legal)
                + "."
            )
        self._move(action, None)
        self._advance()

    def _move(self, action: int, probabilities: tuple[float, ...] | None) -> None:
        live = self._live
        assert live is not None
        p = live.state.current_player()
        live.steps.append(Step(p, action, live.state.action_to_string(action), probabilities))
        live.state.apply_unchecked(action)

    def _advance(self) -> None:
        live = self._live
        assert live is not None
        state = live.state
        while True:
            p = state.current_player()
            if p == CHANCE:
                named = state.clone()  # to name each outcome where it happened
                before = len(state.history())
                p = live.deal.to_move()  # may resolve several chance nodes
                for outcome in state.history()[before:]:
                    live.steps.append(Step(CHANCE, outcome, named.action_to_string(outcome)))
                    named.apply_unchecked(outcome)
            if p == TERMINAL:
                self._finish(state.returns(), None)
                return
            if p == self.seat:
                return
            try:
                self._agent_moves(p)
            except Forfeit as exc:
                self._forfeit(exc.reason)
                return

    def _agent_moves(self, p: int) -> None:
        state = self.state
        observation, info = request_for(self._cache, state, p)
        probabilities = None
        agent = self.agent
        if isinstance(agent, StatesProbabilities):  # recorded for the replay, as stated
            row = on_behalf_of(
                1, lambda: np.asarray(agent.action_probabilities(observation, info), dtype=float)
            )
            probabilities = tuple(float(x) for x in row)
        action = ask_agent(self.agent, 1, [(observation, info)])[0]
        action = checked_action(
            state, action, 1, info["info_state"], self.game.num_distinct_actions
        )
        self._move(action, probabilities)

    def _forfeit(self, reason: str) -> None:
        """The agent lost this hand: the person wins the game's largest payoff."""
        worst = float(self.game.max_payoff_magnitude)
        returns = [0.0, 0.0]
        returns[self.seat], returns[1 - self.seat] = worst, -worst
        self._finish(returns, reason)

    def _finish(self, returns: Sequence[float], forfeit: str | None) -> None:
        live = self._live
        assert live is not None
        record = HandRecord(
            hand=self.hand,
            seat=self.seat,
            history=[int(a) for a in live.state.history()],
            steps=list(live.steps),
            returns=[float(r) for r in returns[:2]],
            forfeit=forfeit,
        )
        live.over = True  # after a forfeit the state stays where the agent failed
        self.finished.append(record)

    # -- the score --------------------------------------------------------------------
    def score(self) -> Score:
        """The person's mean per hand with its 95% interval (see :class:`Score`)."""
        scale, unit = score_unit(self.game)
        if not self.finished:
            return Score(0, math.nan, math.nan, math.nan, scale, unit, 0)
        deals: dict[int, list[float]] = {}
        for r in self.finished:
            deals.setdefault(r.hand // 2, []).append(r.person_return)
        pairs = [sum(v) / 2 for v in deals.values() if len(v) == 2]
        # Duplicate scoring: complete deals only, once there is one.
        samples = pairs or [r.person_return for r in self.finished]
        m, se = sample_mean_and_stderr(samples)
        low, high = ci95(m, se)
        hands = 2 * len(pairs) if pairs else len(samples)
        return Score(hands, m, low, high, scale, unit, len(pairs))
