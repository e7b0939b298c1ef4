"""The match engine: duplicate deals played on the rules, as agents see them in the env.

Agents receive exactly the env's observation (``{"observation", "action_mask"}`` from the
shared :class:`~nashzoo.envs.observation.ObservationCache`, read-only) and info
(``{"info_state": ...}``), without PettingZoo's per-step bookkeeping. Chance is driven by
pre-drawn uniforms, one per chance event, so both seatings of a duplicate deal see the
same cards. An agent that raises, answers an illegal action or runs over the per-move
time limit forfeits (:class:`Forfeit`).
"""

from __future__ import annotations

import math
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from nashzoo.envs.observation import ObservationCache
from nashzoo.games.base import (
    CHANCE,
    TERMINAL,
    Game,
    check_action_value,
    sample_chance_outcome,
)

__all__ = ["Forfeit", "DealScores", "play_duplicate_deals", "deal_uniforms"]


class Forfeit(Exception):
    """Raised inside the engine when an agent breaks the rules of a match.

    Attributes:
        seat_agent: the offending agent object.
        reason: what happened.
    """

    def __init__(self, seat_agent: Any, reason: str) -> None:
        super().__init__(reason)
        self.seat_agent = seat_agent
        self.reason = reason


@dataclass(frozen=True)
class DealScores:
    """Per-deal scores of agent A (mean of its two seats), in chips."""

    scores: np.ndarray

    @property
    def wins(self) -> int:
        return int(np.count_nonzero(self.scores > 0))

    @property
    def losses(self) -> int:
        return int(np.count_nonzero(self.scores < 0))

    @property
    def ties(self) -> int:
        return int(np.count_nonzero(self.scores == 0))


def deal_uniforms(game: Game, deals: int, rng: np.random.Generator) -> np.ndarray:
    """``(deals, max_chance_nodes)`` uniforms: deal ``d`` uses row ``d`` in both seatings."""
    return rng.random((deals, max(game.max_chance_nodes, 1)))


class _Alarm:
    """Per-move hard deadline through SIGALRM (main thread on POSIX only)."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.enabled = (limit is not None and hasattr(signal, "setitimer")
                        and threading.current_thread() is threading.main_thread())
        self._agent = None
        if self.enabled:
            self._old = signal.signal(signal.SIGALRM, self._fire)

    def _fire(self, signum, frame):  # pragma: no cover - exercised by a hang test
        raise Forfeit(self._agent, f"exceeded the per-move time limit of {self.limit} s "
                                   "(interrupted)")

    def arm(self, agent: Any) -> None:
        if self.enabled:
            self._agent = agent
            signal.setitimer(signal.ITIMER_REAL, self.limit * 1.5 + 0.05)

    def disarm(self) -> None:
        if self.enabled:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def close(self) -> None:
        if self.enabled:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)


def _play(game: Game, seats: Sequence[Any], uniforms: np.ndarray, cache: ObservationCache,
          limit: float | None, alarm: _Alarm) -> list[float]:
    state = game.new_initial_state()
    k = 0
    num_actions = game.num_distinct_actions
    while True:
        p = state.current_player()
        if p == TERMINAL:
            return state.returns()
        if p == CHANCE:
            state._apply(sample_chance_outcome(state.chance_outcomes(), uniforms[k]))
            k += 1
            continue
        key = state._information_state_string(p)
        tensor, mask = cache.get(state, p, key)
        agent = seats[p]
        if limit is not None:
            start = time.perf_counter()
            alarm.arm(agent)
        try:
            action = agent.act({"observation": tensor, "action_mask": mask}, {"info_state": key})
        except Forfeit:
            raise
        except Exception as exc:
            raise Forfeit(agent, f"raised {type(exc).__name__}: {exc}") from exc
        finally:
            if limit is not None:
                alarm.disarm()
        if limit is not None and time.perf_counter() - start > limit:
            raise Forfeit(agent, f"exceeded the per-move time limit of {limit} s "
                                 f"({time.perf_counter() - start:.3f} s at {key!r})")
        if type(action) is not int or not 0 <= action < num_actions:
            try:
                action = check_action_value(action, num_actions)
            except (TypeError, ValueError) as exc:
                raise Forfeit(agent, f"answered an invalid action at {key!r}: {exc}") from None
        if not mask[action]:
            raise Forfeit(agent, f"played illegal action {action} at {key!r} (legal: "
                                 f"{np.flatnonzero(mask).tolist()})")
        state._apply(action)


def play_duplicate_deals(game: Game, agent_a: Any, agent_b: Any, uniforms: np.ndarray, *,
                         cache: ObservationCache | None = None,
                         move_time_limit: float | None = None) -> DealScores:
    """Play every row of ``uniforms`` as a duplicate deal (A first, then B first).

    Agents are ``reset()`` before every game (no seed: their streams continue; seed them
    before calling).

    Raises:
        Forfeit: an agent raised, played an illegal action, or ran over the time limit.
    """
    cache = cache or ObservationCache(game)
    alarm = _Alarm(move_time_limit)
    scores = np.empty(len(uniforms))
    first, second = (agent_a, agent_b), (agent_b, agent_a)
    try:
        for d, us in enumerate(uniforms):
            agent_a.reset()
            agent_b.reset()
            r1 = _play(game, first, us, cache, move_time_limit, alarm)[0]
            agent_a.reset()
            agent_b.reset()
            r2 = _play(game, second, us, cache, move_time_limit, alarm)[1]
            scores[d] = 0.5 * (r1 + r2)
    finally:
        alarm.close()
    return DealScores(scores)


def mean_and_stderr(n: int, total: float, total_sq: float) -> tuple[float, float]:
    """Mean and its standard error from a count, a sum and a sum of squares."""
    if n == 0:
        return math.nan, math.nan
    mean = total / n
    if n < 2:
        return mean, math.inf
    var = max(total_sq - total * total / n, 0.0) / (n - 1)
    return mean, math.sqrt(var / n)
