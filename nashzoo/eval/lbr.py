"""Local best response (LBR): a lower bound on the exploitability of a policy agent in
games too big for an exact best response.

Lisý & Bowling, "Equilibrium Approximation Quality of Current No-Limit Poker Bots"
(AAAI workshops, 2017). LBR plays hands against the agent. At each of its own decisions
it knows its cards and the public actions and cards, and keeps the *range* of the agent:
every private deal the agent may hold, weighted by its chance probability times the
agent's probability of every action it took (Bayes' rule, with the agent's
``action_probabilities``). Each action of LBR's action set is scored against that range
as the paper scores it (``valuation="paper"``, the default): a fold is worth what it
forfeits; a check or call is worth the check-down against the range (both players only
check or call to the end: the win probability, in chips); a bet or raise is worth the
chips the agent's folds to it win (its fold probability at every hand of the range,
exact from its policy) plus the check-down against the part of the range that calls.
LBR plays the best one. LBR is a legal strategy, so its mean winnings estimate a value
no greater than the best response's: a lower bound on the agent's exploitability,
reported with a 95% confidence interval. On Leduc, 2,000 paired deals, against exact
best responses (2026-12-05): uniform play 2.2505 of 2.3736, CFR+ after 10 iterations
0.4775 of 0.6104, after 30 +0.054 [-0.029, +0.137] of 0.0818.

``valuation="continuation"`` is nashzoo's earlier valuation: LBR calls down while the
agent plays on with its policy. It ran low, below zero against CFR+ after 30 iterations
on Leduc (-0.031 [-0.141, +0.079] with exact values, -0.115 [-0.226, -0.003] with 20
rollouts), but it models an agent that keeps betting: against always-raise on Limit
Hold'em it found 3,092 mbb/hand to the paper's 2,092 (the exact value is 3,697; 200
hands, 20 rollouts), and 795 to the paper's 1,048 against always-call (exact 1,163).

The values are computed exactly (``rollouts=None``: every hand of the range and every
later card; fine for Leduc) or by Monte Carlo rollouts (``rollouts=k``, the paper's 20
on hold'em), shared by every action of a decision (common random numbers).

On heads-up poker (the poker engine) the range is an array over the agent's hole cards
(:mod:`nashzoo.eval.lbr_range`): the agent is asked about every holding in one batch,
and the check-down's win probability is exact over every holding and every remaining
board where that is affordable (the river, the turn, small games), else over every
holding and ``k`` boards. Limit Hold'em, 400 hands, 20 boards, agents that answer in
batches (2026-12-05, Intel Xeon, one core): always-call 1,026 [853, 1,200] mbb/hand of its
exact 1,163, always-raise 3,542 [2,904, 4,181] of 3,697, at 1,800-2,600 hands a minute.
Elsewhere (Leduc, Kuhn, mixtures, ``valuation="continuation"``) the range is the list of
private deals replayed from the root, and ``k`` rollouts draw ``k`` hands from the range
with ``k`` draws of the later cards.

In no-limit LBR bets as the paper does: fold, call, a pot-sized bet and all-in
(``bet_fractions`` adds others the game offers). The paper's valuation is weak there
against agents that raise often: on a small no-limit game (3 ranks, 2 rounds, stacks of
20, raises of a pot) it found 1.84 of uniform play's exact 3.66 and -0.05 [-0.26, +0.17]
of CFR+ 10's 0.73, where the continuation found 2.24 and 0.33 [0.14, 0.52].

Hands are played in duplicate pairs by default: the second hand of a pair deals the same
cards as the first (the same uniforms drive every chance event) with the seats swapped,
so LBR holds in one hand the cards the agent held in the other, and most of the luck of
the cards cancels within the pair. Each hand is still dealt from the game's own chance
distribution, so the mean is the same unbiased estimate of LBR's winnings; its standard
error comes from the pairs' means, which are independent of one another.

Against a mixed strategy (one member drawn per hand) the range holds (member, deal)
pairs, so what LBR has seen also updates which member it believes it faces.

The code works on any two-player game of :mod:`nashzoo.games`: a chance event is private
to the agent when changing it leaves LBR's information-state string unchanged (tested at
the event), so the range is found by replay, with no knowledge of the game's cards.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nashzoo.envs.protocol import MixedStrategy, StatesBatch, StatesProbabilities
from nashzoo.envs.sampling import batch_probabilities
from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.eval.referee import request_for
from nashzoo.eval.stats import ci95, sample_mean_and_stderr
from nashzoo.games import Game
from nashzoo.games.base import CHANCE, State, sample_chance_outcome
from nashzoo.games.observation import ObservationCache
from nashzoo.validation import check_int, check_seed

if TYPE_CHECKING:
    from nashzoo.eval.lbr_range import HoldingsLBR

__all__ = [
    "DEFAULT_ROLLOUTS",
    "LBRResult",
    "check_lbr_hands",
    "exact_values_affordable",
    "local_best_response",
]

DEFAULT_ROLLOUTS = 20
"""Rollouts per action where a game is too large for exact action values: the number
Lisý & Bowling use on hold'em (the command line, tournaments and the leaderboard)."""


def check_lbr_hands(name: str, value: Any, minimum: int = 0) -> int:
    """``value`` checked as a number of LBR hands: an int at least ``minimum`` and even,
    since LBR plays its hands in duplicate pairs (0 means none where ``minimum`` is 0).

    Raises:
        InvalidParameterError: not an int, below ``minimum``, or odd.
    """
    count = check_int(name, value, minimum)
    if count % 2:
        raise InvalidParameterError(
            f"`{name}` must be even: LBR plays hands in duplicate pairs (the same cards, "
            f"seats swapped); received {count}."
        )
    return count


@dataclass(frozen=True)
class LBRResult:
    """What :func:`local_best_response` measured.

    Attributes:
        value: LBR's mean winnings per hand (chips), both seats equally: a lower bound on
            the agent's exploitability (up to sampling error).
        stderr: its standard error.
        ci95: the 95% interval of ``value``.
        hands: hands played.
        seconds: wall time.
        per_seat: LBR's mean winnings in seat 0 and in seat 1.
        big_blind: the game's big blind (``None`` outside poker).
        method: ``"lbr"`` with the value estimate, e.g. ``"lbr (exact values)"``.
        winnings: LBR's winnings in each hand, in play order (seats alternate, seat 0
            first): :meth:`running` and the plot read them.
        duplicate: whether hands were played in duplicate pairs (the same cards, seats
            swapped), the standard error then taken over the pairs' means.
    """

    value: float
    stderr: float
    ci95: tuple[float, float]
    hands: int
    seconds: float
    per_seat: tuple[float, float]
    big_blind: float | None
    method: str
    winnings: tuple[float, ...] = ()
    duplicate: bool = False

    def running(self, points: int = 30) -> list[tuple[int, float, float, float]]:
        """``(hands, value, ci_low, ci_high)`` after growing numbers of hands (even
        counts, both seats equally): how the bound tightens with the budget."""
        values = np.asarray(self.winnings)
        sizes = np.unique(np.geomspace(2, len(values), num=points).astype(int) // 2 * 2)
        out = []
        for n in sizes.tolist():
            if n < 4:
                continue
            value, stderr = _estimate(values[:n], self.duplicate)
            lo, hi = ci95(value, stderr)
            out.append((n, value, lo, hi))
        return out

    @property
    def value_mbb(self) -> float | None:
        """``value`` in milli-big-blinds per hand (``None`` without a big blind)."""
        return None if not self.big_blind else 1000.0 * self.value / self.big_blind

    def __str__(self) -> str:
        lo, hi = self.ci95
        text = f"{self.method}: {self.value:.4g} chips/hand [{lo:.4g}, {hi:.4g}]"
        if self.big_blind:
            scale = 1000.0 / self.big_blind
            text += f" ({self.value * scale:.0f} mbb/hand [{lo * scale:.0f}, {hi * scale:.0f}])"
        return text + f", {self.hands} hands"


def _estimate(values: np.ndarray, duplicate: bool) -> tuple[float, float]:
    """LBR's value and its standard error from its winnings in play order (seats
    alternate, seat 0 first): the mean of the pairs' means when the two hands of a pair
    share their cards (they are correlated), else :func:`_seat_mean`."""
    if not duplicate:
        return _seat_mean(values)
    return sample_mean_and_stderr((values[0::2] + values[1::2]) / 2)


def _seat_mean(values: np.ndarray) -> tuple[float, float]:
    """The mean of the two seats' means (hands alternate seats, seat 0 first) and its
    standard error: the seats weigh equally, as in exploitability."""
    means, errors = [], []
    for seat in (0, 1):
        m, e = sample_mean_and_stderr(values[seat::2])
        means.append(m)
        errors.append(e)
    return (means[0] + means[1]) / 2, math.sqrt(errors[0] ** 2 + errors[1] ** 2) / 2


class _Policy:
    """The agent's action probabilities at any state, asked once per information state."""

    max_memo = 200_000
    """Entries kept before the memo is cleared (Hold'em's states rarely repeat)."""

    def __init__(self, game: Game, agent: Any) -> None:
        self.game = game
        self.agent = agent
        self.views = ObservationCache(game, 0)
        self.memo: dict[str, np.ndarray] = {}

    def probs(self, states: Sequence[State], player: int) -> list[np.ndarray]:
        """The agent's distribution at each state (``player`` to act in all of them)."""
        keys = [s.information_state_string(player) for s in states]
        todo = {k: s for k, s in zip(keys, states) if k not in self.memo}
        if todo and len(self.memo) > self.max_memo:  # huge games: keep the memory bounded
            self.memo.clear()
            todo = dict(zip(keys, states))
        if todo:
            views = [self.views.build(s, player) for s in todo.values()]
            rows = batch_probabilities(
                self.agent,
                np.stack([v.tensor for v in views]),
                np.stack([v.mask for v in views]),
                np.full(len(views), player),
                [v.info(player, k) for k, v in zip(todo, views)],
            )
            self.memo.update(zip(todo, rows))
        return [self.memo[k] for k in keys]


def exact_values_affordable(game: Game) -> bool:
    """Whether LBR may value actions exactly (``rollouts=None``) on ``game``: its number
    of histories, known or bounded from below, is within
    :data:`~nashzoo.tree.compile.DEFAULT_MAX_NODES`. Exact values enumerate every deal of
    the range and the rest of the hand at each of LBR's decisions, which on Limit Hold'em
    would not end."""
    from nashzoo.tree.compile import DEFAULT_MAX_NODES

    bound = game.histories_lower_bound()
    return bound is None or bound <= DEFAULT_MAX_NODES


def _check_exact_values_affordable(game: Game) -> None:
    if not exact_values_affordable(game):
        from nashzoo.tree.compile import DEFAULT_MAX_NODES

        raise GameTooLargeError(
            f"Exact LBR action values enumerate the rest of the game at every decision; "
            f"{game} has at least {game.histories_lower_bound():,} histories (more than "
            f"{DEFAULT_MAX_NODES:,}). Pass rollouts=k for Monte Carlo action values "
            f"(`--rollouts k` on the command line; {DEFAULT_ROLLOUTS} as on Hold'em in the "
            "LBR paper)."
        )


def _lbr_actions(
    game: Game, actions: tuple[int, ...] | None, fractions: Sequence[float] | None
) -> tuple[int, ...] | None:
    """LBR's action set: ``actions`` as given; on a no-limit game (pot-fraction raises)
    fold, call, the raises of ``fractions`` (``None``: the pot, where offered) and
    all-in, as Lisý & Bowling play it; else ``None`` (every legal action)."""
    raises = getattr(game, "raises", None)
    no_limit = raises is not None and not getattr(game, "limit", True)
    offered: tuple[float, ...] = tuple(raises or ()) if no_limit else ()
    if fractions is None:
        if actions is not None or not no_limit:
            return actions
        fractions, named = (1.0,) if 1.0 in offered else (), False
    else:
        named = True
        if isinstance(fractions, (str, bytes)) or not isinstance(fractions, Sequence):
            raise InvalidParameterError(
                f"`bet_fractions` must be a sequence of pot fractions, received {fractions!r}."
            )
        if actions is not None:
            raise InvalidParameterError("Pass LBR's `actions` or its `bet_fractions`, not both.")
        if not no_limit:
            raise InvalidParameterError(
                f"`bet_fractions` choose LBR's raises in no-limit games; {game} has no "
                "pot-fraction raises."
            )
    chosen = []
    for f in fractions:
        if isinstance(f, bool) or not isinstance(f, (int, float)) or float(f) not in offered:
            raise InvalidParameterError(
                f"`bet_fractions` must be pot fractions {game} offers ({list(offered)}), "
                f"received {f!r}."
            )
        chosen.append(2 + offered.index(float(f)))
    if named and not chosen:
        raise InvalidParameterError("`bet_fractions` needs at least one fraction, received none.")
    return (0, 1, *chosen, int(game.all_in))  # type: ignore[attr-defined]


ROUND_LETTERS = {"f": "fold", "c": "check or call", "p": "a pot-sized bet", "a": "all-in"}
"""The letters of :func:`local_best_response`'s ``round_actions``, as Lisý & Bowling name
LBR's bets (``"c/c/fcpa/fcpa"``: check or call on the first two rounds, then fold, call,
pot and all-in)."""


def _round_actions(game: Game, text: str) -> tuple[tuple[int, ...], ...]:
    """LBR's action set on each betting round from ``text`` (see
    :data:`ROUND_LETTERS`): one group of letters a round, separated by ``/``."""
    definition = getattr(game, "definition", None)
    rounds = getattr(definition, "num_rounds", None)
    if rounds is None or not hasattr(game.new_initial_state(), "round"):
        raise InvalidParameterError(
            f"`round_actions` needs a poker game whose states tell their betting round "
            f"(the poker engine's), received {game}."
        )
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"`round_actions` must be text such as 'c/c/fcpa/fcpa', received {text!r}."
        )
    groups = text.lower().split("/")
    if len(groups) != rounds:
        raise InvalidParameterError(
            f"`round_actions` needs one group of letters for each of {game}'s {rounds} "
            f"betting rounds, received {len(groups)} in {text!r}."
        )
    raises = tuple(getattr(game, "raises", ()) or ())
    if getattr(game, "limit", True) or 1.0 not in raises:
        raise InvalidParameterError(
            f"`round_actions` names no-limit bets (p: the pot, a: all-in); {game} has no "
            "pot-sized raise."
        )
    fold, call, pot, all_in = _lbr_actions(game, None, (1.0,))  # type: ignore[misc]
    ids = {"f": fold, "c": call, "p": pot, "a": all_in}
    out = []
    for group in groups:
        bad = sorted(set(group) - set(ids))
        if not group or bad:
            raise InvalidParameterError(
                f"`round_actions` groups are letters of {sorted(ids)} ({ROUND_LETTERS}), "
                f"received {group!r} in {text!r}."
            )
        out.append(tuple(sorted({ids[c] for c in group})))
    return tuple(out)


def _holdings_game(game: Game) -> bool:
    """Whether LBR keeps its range over the agent's holdings on ``game``
    (:mod:`nashzoo.eval.lbr_range`): a heads-up poker game whose states list them, seen
    at the first decision of one hand (dealt with a fixed seed)."""
    from nashzoo.eval.lbr_range import holdings_path  # numba: imported on first use

    draw = np.random.default_rng(0)
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance_outcome(state.chance_outcomes(), draw.random()))
    return not state.is_terminal() and holdings_path(game, state, 0)


def _visible(state: State, outcome: int, seat: int) -> bool:
    """Whether LBR (in ``seat``) sees which outcome the chance node at ``state`` deals."""
    others = [o for o, _ in state.chance_outcomes() if o != outcome]
    if not others:
        return True
    a, b = state.clone(), state.clone()
    a.apply_action(outcome)
    b.apply_action(others[0])
    return a.information_state_string(seat) != b.information_state_string(seat)


def _mixture(agent: Any) -> tuple[list[Any], np.ndarray] | None:
    """The members and weights of a mixed strategy
    (:class:`~nashzoo.envs.protocol.MixedStrategy`: one member drawn per game) whose
    members state their probabilities, else ``None``."""
    if not isinstance(agent, MixedStrategy):
        return None
    members = list(agent.members)
    for member in members:
        if not isinstance(member, (StatesProbabilities, StatesBatch)):
            raise InvalidParameterError(
                "LBR against a mixture needs every member to be a PolicyAgent (with "
                f"action_probabilities), received a {type(member).__name__} member."
            )
    return members, np.asarray(agent.weights, dtype=np.float64)


# One entry of LBR's range: a state consistent with what LBR saw, its weight (chance
# times the agent's probabilities of its actions, times the member's prior), and the
# member of a mixed strategy that plays in it (0 for a single policy).
_Entry = tuple[State, float, int]


class _LBR:
    def __init__(
        self,
        game: Game,
        agent: Any,
        rollouts: int | None,
        actions: Sequence[int] | None,
        call: int,
        rng: np.random.Generator,
        player: Any = None,
        mixture: tuple[list[Any], np.ndarray] | None = None,
        valuation: str = "paper",
        by_round: tuple[tuple[int, ...], ...] | None = None,
    ) -> None:
        self.game = game
        members, priors = mixture if mixture is not None else ([agent], np.ones(1))
        self.policies = [_Policy(game, member) for member in members]
        self.priors = priors
        self.mixed = mixture is not None
        self.player = player  # plays the agent's moves where its model keeps the range
        self.requests = ObservationCache(game)
        self.rollouts = rollouts
        self.values: dict[tuple[tuple[int, ...], int, int], float] = {}
        self.actions = actions
        self.by_round = by_round  # LBR's action set on each betting round, or None
        self.call = call
        self.rng = rng
        self.valuation = valuation
        self.fast: HoldingsLBR | None = None
        if valuation == "paper" and _holdings_game(game):
            from nashzoo.eval.lbr_range import HoldingsLBR  # numba: imported on first use

            self.fast = HoldingsLBR(
                game,
                [policy.agent for policy in self.policies],
                self.priors,
                rollouts,
                self._options,
                self._calling,
                self._ends_hand,
                rng,
            )

    # -- values of LBR's actions --------------------------------------------------------
    def _calling(self, state: State) -> int:
        legal = state.legal_actions()
        return self.call if self.call in legal else legal[0]

    def _exact(self, state: State, seat: int, member: int) -> float:
        """Expected return of ``seat`` when it only calls from here and the agent plays
        its policy (``member``'s, in a mixture; every card and action enumerated), or,
        with ``member`` -1, calls too (the paper's check-down).

        The value is a function of the history (the agent's policy is stationary, as
        LBR's range already assumes), so it is remembered: the hands of one run walk the
        same subtrees again and again (on Leduc, 3,000 hands against a random agent took
        13 s without the memo)."""
        key = (tuple(state.history()), seat, member)
        value = self.values.get(key)
        if value is None:
            if len(self.values) > _Policy.max_memo:  # bounded, like the policy's memo
                self.values.clear()
            value = self.values[key] = self._exact_walk(state, seat, member)
        return value

    def _exact_walk(self, state: State, seat: int, member: int) -> float:
        if state.is_terminal():
            return state.returns()[seat]
        p = state.current_player()
        if p == CHANCE:
            total = 0.0
            for outcome, prob in state.chance_outcomes():
                child = state.clone()
                child.apply_action(outcome)
                total += prob * self._exact(child, seat, member)
            return total
        if p == seat or member < 0:  # LBR calls; member -1: the agent calls too
            child = state.clone()
            child.apply_action(self._calling(state))
            return self._exact(child, seat, member)
        probs = self.policies[member].probs([state], p)[0]
        total = 0.0
        for a in np.flatnonzero(probs).tolist():
            child = state.clone()
            child.apply_action(a)
            total += probs[a] * self._exact(child, seat, member)
        return total

    def _rollout(self, state: State, seat: int, member: int) -> float:
        state = state.clone()
        while not state.is_terminal():
            p = state.current_player()
            if p == CHANCE:
                outcome = sample_chance_outcome(state.chance_outcomes(), self.rng.random())
                state.apply_action(outcome)
            elif p == seat:
                state.apply_action(self._calling(state))
            else:
                probs = self.policies[member].probs([state], p)[0]
                state.apply_action(int(self.rng.choice(len(probs), p=probs)))
        return state.returns()[seat]

    def _options(self, state: State) -> list[int]:
        """LBR's actions at ``state``: the legal ones of its action set, else a call."""
        legal = list(state.legal_actions())
        allowed = self.actions
        if self.by_round is not None:
            allowed = self.by_round[state.round]  # type: ignore[attr-defined]
        options = [a for a in legal if allowed is None or a in allowed]
        return options or [self._calling(state)]

    def choose(self, range_: list[_Entry], seat: int) -> int:
        """LBR's action: the best expected value against the range."""
        options = self._options(range_[0][0])
        states = [s for s, _, _ in range_]
        weights = np.array([w for _, w, _ in range_])
        weights = weights / weights.sum()
        members = [m for _, _, m in range_]
        if self.valuation == "paper":
            paper = self._paper_values(options, states, weights, members, seat)
            return options[int(np.argmax(paper))]
        values = []
        for a in options:
            if self.rollouts is None:
                value = 0.0
                for s, w, m in zip(states, weights, members):
                    child = s.clone()
                    child.apply_action(a)
                    value += w * self._exact(child, seat, m)
            else:
                picks = self.rng.choice(len(states), size=self.rollouts, p=weights)
                total = 0.0
                for i in picks.tolist():
                    child = states[i].clone()
                    child.apply_action(a)
                    total += self._rollout(child, seat, members[i])
                value = total / self.rollouts
            values.append(value)
        return options[int(np.argmax(values))]

    # -- the paper's valuation -------------------------------------------------------------
    def _ends_hand(self, state: State, action: int) -> bool:
        """Whether ``action`` at ``state`` is a fold: legal, and the hand ends with it
        (while the other player is still in: a fold, not the last call of a showdown)."""
        if action not in state.legal_actions():
            return False
        child = state.clone()
        child.apply_action(action)
        return child.is_terminal() and action != self._calling(state)

    def _checkdown(self, state: State, seat: int, draws: np.ndarray | None) -> float:
        """``seat``'s return when both players only check or call from ``state`` to the
        end (the paper's win probability, in chips): every later card enumerated
        (``draws`` None; remembered by history) or drawn from ``draws``, uniforms shared
        by every action and every hand of the range (common random numbers)."""
        if draws is None:  # the exact walk with both players calling (member -1)
            return self._exact(state, seat, -1)
        state = state.clone()
        k = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                u = draws[k] if k < len(draws) else self.rng.random()
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), u))
                k += 1
            else:
                state.apply_action(self._calling(state))
        return state.returns()[seat]

    def _paper_values(
        self,
        options: Sequence[int],
        states: Sequence[State],
        weights: np.ndarray,
        members: Sequence[int],
        seat: int,
    ) -> list[float]:
        """Lisý & Bowling's action values against the range (weights summing to 1):

        * a fold is worth what it forfeits (the hand ends);
        * a check or call is worth the check-down against the range: both players only
          check or call to the end;
        * a bet or raise is worth the range-weighted chips the agent's folds to it win
          (its fold probability, exact from its policy at every hand of the range), plus
          the check-down against the part of the range that calls it.

        Exactly (every hand of the range, every later card) where ``rollouts`` is None;
        else each check-down term from ``rollouts`` hands drawn from the (calling) range,
        the same uniforms for every action (common random numbers)."""
        k = self.rollouts
        picks = None if k is None else self.rng.random(k)
        draws = None if k is None else self.rng.random((k, self.game.max_chance_nodes + 1))
        agent_seat = 1 - seat
        values = []
        for a in options:
            children = []
            for s in states:
                child = s.clone()
                child.apply_action(a)
                children.append(child)
            first = children[0]
            if first.is_terminal():  # a fold (or a last call): the hand's end is its value
                values.append(float(sum(w * c.returns()[seat] for w, c in zip(weights, children))))
                continue
            if first.current_player() != agent_seat:  # LBR acts again, or a card comes
                values.append(self._checked_down(children, weights, seat, picks, draws))
                continue
            fold = next((b for b in first.legal_actions() if self._ends_hand(first, b)), None)
            if fold is None:  # the agent cannot fold: a check or call, checked down
                values.append(self._checked_down(children, weights, seat, picks, draws))
                continue
            folds = np.zeros(len(children))
            for m in set(members):
                index = [i for i, mm in enumerate(members) if mm == m]
                rows = self.policies[m].probs([children[i] for i in index], agent_seat)
                folds[index] = [row[fold] for row in rows]
            won = 0.0
            for w, f, c in zip(weights, folds, children):
                if f > 0:
                    ended = c.clone()
                    ended.apply_action(fold)
                    won += w * f * ended.returns()[seat]
            calling = weights * (1.0 - folds)
            mass = float(calling.sum())
            if mass > 1e-12:
                called = []
                for c in children:
                    nxt = c.clone()
                    nxt.apply_action(self._calling(c))
                    called.append(nxt)
                won += mass * self._checked_down(called, calling / mass, seat, picks, draws)
            values.append(won)
        return values

    def _checked_down(
        self,
        states: Sequence[State],
        weights: np.ndarray,
        seat: int,
        picks: np.ndarray | None,
        draws: np.ndarray | None,
    ) -> float:
        """The check-down value against the range ``states`` (``weights`` summing to 1):
        exact, or from the hands the uniforms ``picks`` select (inverse CDF)."""
        if picks is None or draws is None:
            return float(
                sum(w * self._checkdown(s, seat, None) for w, s in zip(weights, states) if w)
            )
        cumulative = np.cumsum(weights)
        index = np.minimum(np.searchsorted(cumulative, picks * cumulative[-1]), len(states) - 1)
        return float(
            np.mean([self._checkdown(states[i], seat, draws[j]) for j, i in enumerate(index)])
        )

    # -- one hand -------------------------------------------------------------------------
    def play(self, seat: int, agent_rng: np.random.Generator, chance: np.random.Generator) -> float:
        """One hand with LBR in ``seat``: its winnings. ``chance`` draws the cards."""
        state = self.game.new_initial_state()
        playing = 0  # the member of a mixture that plays this hand, drawn as the agent does
        if self.mixed:
            playing = int(agent_rng.choice(len(self.priors), p=self.priors / self.priors.sum()))
        if self.fast is not None:  # the range as arrays over the agent's holdings
            while state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state.chance_outcomes(), chance.random()))

            def move(s: State, p: int) -> int:
                return self._agent_move(s, p, agent_rng, playing)

            return self.fast.play(state, seat, chance, move)
        range_: list[_Entry] = [
            (state.clone(), float(w), m) for m, w in enumerate(self.priors) if w > 0
        ]
        agent_seat = 1 - seat
        while not state.is_terminal():
            p = state.current_player()
            if p == CHANCE:
                outcome = sample_chance_outcome(state.chance_outcomes(), chance.random())
                if _visible(state, outcome, seat):
                    kept = []
                    for s, w, m in range_:
                        prob = dict(s.chance_outcomes()).get(outcome, 0.0)
                        if prob > 0:
                            s.apply_action(outcome)
                            kept.append((s, w * prob, m))
                    range_ = kept
                else:  # dealt to the agent in secret: every outcome stays possible
                    branched = []
                    for s, w, m in range_:
                        for o, prob in s.chance_outcomes():
                            child = s.clone()
                            child.apply_action(o)
                            branched.append((child, w * prob, m))
                    range_ = branched
                state.apply_action(outcome)
            elif p == agent_seat:
                action = self._agent_move(state, p, agent_rng, playing)
                kept = []
                for m, policy in enumerate(self.policies):  # each member's states at once
                    entries = [e for e in range_ if e[2] == m]
                    if not entries:
                        continue
                    likelihood = policy.probs([s for s, _, _ in entries], p)
                    for (s, w, _), row in zip(entries, likelihood):
                        if row[action] > 0:
                            s.apply_action(action)
                            kept.append((s, w * row[action], m))
                range_ = kept
                state.apply_action(action)
            else:
                action = self.choose(range_, seat)
                for s, _, _ in range_:
                    s.apply_action(action)
                state.apply_action(action)
            if not range_:
                raise InvalidParameterError(
                    "The agent's range became empty: its action_probabilities gave zero to "
                    "an action it played (is it a stationary policy?)."
                    if self.player is None
                    else "The agent's range became empty: the model gave zero probability "
                    "to an action the agent played (the model must give every legal action "
                    "some probability)."
                )
        return state.returns()[seat]

    def _agent_move(self, state: State, p: int, agent_rng: np.random.Generator, member: int) -> int:
        """The agent's move: drawn from its stated distribution (``member``'s, in a
        mixture), or (with a model) what the agent itself plays."""
        if self.player is None:
            probs = self.policies[member].probs([state], p)[0]
            return int(agent_rng.choice(len(probs), p=probs))
        observation, info = request_for(self.requests, state, p)
        action = self.player.act(observation, info)
        legal = state.legal_actions()
        if not isinstance(action, (int, np.integer)) or int(action) not in legal:
            raise InvalidParameterError(
                f"The agent played {action!r} where the legal actions are {list(legal)}."
            )
        return int(action)


def local_best_response(
    game: Game,
    agent: Any,
    *,
    hands: int = 1000,
    rollouts: int | None = None,
    actions: Sequence[int] | None = None,
    call_action: int = 1,
    seed: int | None = 0,
    progress: bool = False,
    model: Any = None,
    duplicate: bool = True,
    valuation: str = "paper",
    bet_fractions: Sequence[float] | None = None,
    round_actions: str | None = None,
) -> LBRResult:
    """Play LBR against ``agent`` for ``hands`` hands (seats alternating).

    Args:
        game: a two-player :class:`~nashzoo.games.Game`.
        agent: a PolicyAgent (``action_probabilities``; ``batch_probabilities`` is used
            when present). Its policy must be stationary: LBR asks it about hands it does
            not hold. Or a mixed strategy of PolicyAgents
            (:class:`~nashzoo.agents.nash_memory.population.MixtureAgent`, one member
            drawn per hand, as Nash memory plays): the range is then kept over (member,
            private deal) pairs, each member weighted by its prior times its
            probabilities of the agent's actions. With ``model``, any Agent (``act``).
        hands: hands to play (half in each seat; even with ``duplicate``).
        rollouts: ``None`` values each action exactly (games that compile; refused on
            larger ones); ``k`` uses ``k`` Monte Carlo rollouts per action.
        actions: LBR's action set (ids); ``None``: every legal action. When none of the
            set is legal, LBR calls.
        call_action: the action LBR assumes it plays after the current one (check/call,
            ``1`` in the poker games).
        seed: seeds the cards, LBR's rollouts and the agent's sampling.
        progress: show a progress bar.
        model: a PolicyAgent standing in for ``agent`` wherever LBR asks for a
            distribution (the agent's range over its hands after each of its actions,
            and the agent's play in LBR's value rollouts), while ``agent`` plays its own
            moves (a search agent, whose every stated distribution costs a search, with
            its prior network as the model: :class:`~nashzoo.envs.protocol.HasPolicyModel`).
            The result is still a lower bound on ``agent``'s exploitability: it is what
            one fixed strategy wins against ``agent``; the closer the model, the tighter.
        duplicate: play hands in pairs with the same cards and the seats swapped (the
            same estimate, a smaller standard error); ``False`` deals every hand afresh.
        valuation: ``"paper"`` (Lisý & Bowling's action values: a call checked down
            against the range, a bet worth the agent's exact folds plus the check-down
            against its calls) or ``"continuation"`` (nashzoo's earlier values: LBR calls
            down while the agent plays on with its policy; measured weaker on Leduc: below
            zero against CFR+ after 30 iterations).
        bet_fractions: no-limit games only: the pot fractions LBR bets or raises, besides
            fold, call and all-in (each among the game's ``raises``). ``None``: the
            paper's set, a pot-sized bet where the game offers one, and all-in.
        round_actions: no-limit poker only: LBR's action set on each betting round, as
            the LBR paper and DeepStack's supplement vary it: a group of letters a round,
            separated by ``/`` (f fold, c check or call, p a pot-sized bet, a all-in;
            :data:`ROUND_LETTERS`). ``"c/c/fcpa/fcpa"`` checks or calls before the turn,
            then bets; ``"fc/fc/fc/fc"`` never bets. ``None``: one set on every round.

    Raises:
        InvalidParameterError: not a two-player game, not a poker game (no big blind:
            the message names the learned best response), an agent without
            ``action_probabilities``, or bad ``hands``/``rollouts``/``actions``/
            ``valuation``.
        GameTooLargeError: ``rollouts=None`` on a game with more histories than
            :data:`~nashzoo.tree.compile.DEFAULT_MAX_NODES` (exact values would not end).
    """
    if not isinstance(game, Game) or game.num_players != 2:
        raise InvalidParameterError(f"LBR needs a two-player Game, received {game}.")
    player = None
    if model is not None:
        if not callable(getattr(agent, "act", None)):
            raise InvalidParameterError(
                f"With a model, LBR plays against the agent's act(); {type(agent).__name__} "
                "has none."
            )
        if not isinstance(model, (StatesProbabilities, StatesBatch)):
            raise InvalidParameterError(
                "LBR's model must be a PolicyAgent (with action_probabilities), received "
                f"{type(model).__name__}."
            )
        player, agent = agent, model
    mixture = _mixture(agent) if player is None else None
    if not isinstance(agent, (StatesProbabilities, StatesBatch)) and mixture is None:
        raise InvalidParameterError(
            "LBR needs a PolicyAgent (with action_probabilities), received "
            f"{type(agent).__name__}; for other agents use the learned best response."
        )
    if not isinstance(duplicate, (bool, np.bool_)):
        raise InvalidParameterError(f"`duplicate` must be a bool, received {duplicate!r}.")
    if valuation not in ("paper", "continuation"):
        raise InvalidParameterError(
            f"`valuation` is 'paper' or 'continuation', received {valuation!r}."
        )
    if not getattr(game, "big_blind", None):
        raise InvalidParameterError(
            f"LBR values its actions as poker bets (fold, check or call, bet); {game} is "
            "not a poker game (it declares no big blind). Measure it with the learned "
            "best response instead: nashzoo.bounds.learned_best_response, or `nashzoo "
            "exploitability AGENT --game GAME --method learned-br`."
        )
    hands = check_lbr_hands("hands", hands, 2) if duplicate else check_int("hands", hands, 2)
    if rollouts is not None:
        rollouts = check_int("rollouts", rollouts, 1)
    else:
        _check_exact_values_affordable(game)
    if round_actions is not None and (actions is not None or bet_fractions is not None):
        raise InvalidParameterError(
            "Pass LBR's `round_actions` or its `actions`/`bet_fractions`, not both."
        )
    if actions is not None:
        actions = tuple(int(a) for a in actions)
        if not actions or min(actions) < 0 or max(actions) >= game.num_distinct_actions:
            raise InvalidParameterError(
                f"`actions` must be action ids in [0, {game.num_distinct_actions}), "
                f"received {actions!r}."
            )
    actions = _lbr_actions(game, actions, bet_fractions)
    by_round = None if round_actions is None else _round_actions(game, round_actions)
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    winnings: list[float] = []
    agent_rng = np.random.default_rng(None if seed is None else seed + 1)
    lbr = _LBR(
        game, agent, rollouts, actions, int(call_action), rng, player, mixture, valuation,
        by_round,
    )  # fmt: skip
    start = time.perf_counter()
    bar = None
    if progress:
        from nashzoo.extras import progress_bar

        bar = progress_bar(total=hands, desc="LBR", unit="hand")
    try:
        pair_seed = 0
        for h in range(hands):
            seat = h % 2
            if player is not None and callable(getattr(player, "reset", None)):
                player.reset(seed=int(agent_rng.integers(2**31)))
            if duplicate and seat == 0:
                pair_seed = int(rng.integers(2**63))
            # a pair's two hands replay the same uniforms at their chance events
            chance = np.random.default_rng(pair_seed) if duplicate else rng
            winnings.append(lbr.play(seat, agent_rng, chance))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    values = np.asarray(winnings)
    value, stderr = _estimate(values, bool(duplicate))
    method = "lbr (exact values)" if rollouts is None else f"lbr ({rollouts} rollouts)"
    if player is not None:
        method = method[:-1] + ", range from a model)"
    if round_actions is not None:
        method = method[:-1] + f", {round_actions.lower()})"
    return LBRResult(
        value=value,
        stderr=stderr,
        ci95=ci95(value, stderr),
        hands=hands,
        seconds=time.perf_counter() - start,
        per_seat=(float(values[0::2].mean()), float(values[1::2].mean())),
        big_blind=getattr(game, "big_blind", None),
        method=method,
        winnings=tuple(values.tolist()),
        duplicate=bool(duplicate),
    )
