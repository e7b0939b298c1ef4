"""Duplicate matches at tables of three or more seats.

Two-player duplicate play seats each deal twice, swapping the agents. At an ``n``-seat
table the same idea needs every agent in every seat with the same cards: each deal is
played once per *seating* (an assignment of agents to seats), every seating with the
same chance draws, and an agent's score for the deal is its mean return over the
seatings. Which seatings:

* ``n <= 4``: all ``n!`` permutations (6 at three seats, 24 at four). Each agent then
  sits in every seat equally often *and* behind every other agent equally often, so
  neither the cards of a seat nor the position relative to another agent (who acts
  before whom) favours anyone.
* ``n >= 5``: the ``n`` cyclic rotations (each agent in each seat once, neighbours kept
  in the same cyclic order), because ``n!`` (120 at five seats) is too many games per
  deal; position relative to the others is then not balanced, which the result says.

Agents are reseeded per deal with the same seed in every seating (common random
numbers), so a deal's seatings differ only by where each agent sits.

**More agents than seats** (:func:`play_tables`): every combination of ``n`` agents of
the roster plays its own table of ``deals`` deals (``C(m, n)`` tables: 10 for five
agents at three seats), each with cards of its own; an agent's score is its mean over
all the deals it played, and the rating is Bradley-Terry on the pairwise outcomes of all
tables pooled (an agent meets each other agent at every table both sit at).

**Ratings.** Each deal ranks the agents by their deal scores. Scores per agent (chips
per game, mean over deals, with a 95% interval) are the primary figure; for a rating,
each deal's ranking is broken into its pairwise outcomes (agent ``i`` beats ``j`` when
its deal score is higher, a tie counts half) and Bradley-Terry is fitted to them: the
rank-breaking estimator of a Plackett-Luce model, which stays defined for any table size
and reduces to the two-player board's ratings at ``n = 2``. Its interval is a bootstrap
over deals (a deal's outcomes are correlated, so deals, not pairs, are resampled).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.guard import Calls, DirectCalls, Forfeit
from nashzoo.eval.matches import deal_seed, unique_names
from nashzoo.eval.ratings import bradley_terry
from nashzoo.eval.referee import (
    Deal,
    ask_probabilities,
    drawn_action,
    request_for,
    stated_row,
)
from nashzoo.eval.stats import Z95, scale_and_unit
from nashzoo.games.base import TERMINAL, Game
from nashzoo.games.observation import ObservationCache
from nashzoo.validation import check_int

__all__ = [
    "seatings",
    "TableResult",
    "play_table",
    "RosterResult",
    "play_tables",
    "pool_tables",
    "table_seed",
    "forfeit_scores",
]


def seatings(n: int) -> list[tuple[int, ...]]:
    """The seatings of an ``n``-seat duplicate deal: ``seating[s]`` is the agent in seat
    ``s``; all permutations for ``n <= 4``, the cyclic rotations above (see the module).

    Raises:
        InvalidParameterError: ``n`` below 2.
    """
    n = check_int("n", n, 2)
    if n <= 4:
        return list(itertools.permutations(range(n)))
    return [tuple((s + k) % n for s in range(n)) for k in range(n)]


@dataclass(frozen=True)
class TableResult:
    """A duplicate match at an ``n``-seat table.

    Attributes:
        names: the agents, in the order given.
        seatings: the seatings each deal was played in (``seating[s]`` = agent in seat s).
        scores: ``(deals, n)`` each agent's mean return over the deal's seatings (chips).
        mean, stderr: per agent, chips per game and its standard error over deals.
        ci95: per agent, the 95% interval of ``mean``.
        wins: ``(n, n)`` deals in which the row agent's deal score beat the column's
            (ties count half).
        elo, elo_low, elo_high: Bradley-Terry on those pairwise outcomes (Elo scale, mean
            0) and its 95% bootstrap interval over deals.
        position_balanced: whether the seatings balance who sits behind whom (all
            permutations) or only the seats (rotations).
        forfeit: ``(agent index, deal, reason)`` of the fault that ended the table when
            it was played with ``forfeit=True`` (every deal from ``deal`` on counts as
            lost by that agent), else ``None``.
        unit: what the scores count (the game's payoff unit: chips in poker).
        big_blind: chips per big blind where the game has one (the text shows mbb/game).
    """

    names: tuple[str, ...]
    seatings: tuple[tuple[int, ...], ...]
    scores: np.ndarray
    mean: np.ndarray
    stderr: np.ndarray
    ci95: np.ndarray
    wins: np.ndarray
    elo: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray
    position_balanced: bool
    forfeit: tuple[int, int, str] | None = None
    unit: str = "chips"
    big_blind: float | None = None

    def __str__(self) -> str:
        return _ranked_lines(f"{len(self.scores)} deals x {len(self.seatings)} seatings", self)


def _ranked_lines(head: str, result: Any) -> str:
    """A table or roster result as text: a heading, then each agent, best first, in
    mbb/game where the game has a big blind (as ``nashzoo table`` prints), else in the
    game's unit per game."""
    scale, unit = scale_and_unit(result.big_blind, result.unit)
    digits = 1 if result.big_blind else 4
    lines = [head]
    for k in np.argsort(-result.mean):
        lo, hi = result.ci95[k] * scale
        lines.append(
            f"  {result.names[k]:<16} {result.mean[k] * scale:+.{digits}f} "
            f"[{lo:+.{digits}f}, {hi:+.{digits}f}] {unit}, "
            f"Elo {result.elo[k]:+.1f} [{result.elo_low[k]:+.1f}, {result.elo_high[k]:+.1f}]"
        )
    return "\n".join(lines)


def _rated(
    wins_of: Callable[[Callable[[np.ndarray], np.ndarray]], np.ndarray],
    bootstrap: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(wins, elo, low, high)``: Bradley-Terry on ``wins_of(pick)`` with every table's
    deals as they are, and its 95% interval over ``bootstrap`` draws that resample each
    table's deals (``pick`` maps a ``(deals, n)`` score array to the deals used)."""
    wins = wins_of(lambda table: table)
    elo = bradley_terry(wins)
    if not bootstrap:
        return wins, elo, elo.copy(), elo.copy()
    resampled = [wins_of(lambda t: t[rng.integers(0, len(t), len(t))]) for _ in range(bootstrap)]
    draws = bradley_terry(np.array(resampled))  # fitted in one batch
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return wins, elo, low, high


def _pairwise_wins(scores: np.ndarray) -> np.ndarray:
    """``(n, n)`` wins from each deal's ranking (ties half)."""
    diff = scores[:, :, None] - scores[:, None, :]
    off_diagonal = 1.0 - np.eye(scores.shape[1])
    wins: np.ndarray = (diff > 0).sum(axis=0) + 0.5 * (diff == 0).sum(axis=0) * off_diagonal
    return wins


def play_table(
    game: Game,
    agents: Sequence[Any],
    *,
    deals: int = 1000,
    seed: int = 0,
    bootstrap: int = 200,
    calls: Calls | None = None,
    record: list[list[int]] | None = None,
    progress: bool = False,
    done: np.ndarray | None = None,
    on_deal: Callable[[int, np.ndarray], None] | None = None,
    draw_from: Sequence[bool] | None = None,
    forfeit: bool = False,
) -> TableResult:
    """Play ``deals`` duplicate deals of ``game`` with one agent per seat (see the module).

    Args:
        game: a game of ``n >= 2`` players.
        agents: ``n`` agents (``act``, optionally ``reset``).
        deals: deals; each is played once per seating with the same chance draws.
        seed: seeds the cards and the agents (per deal, the same in every seating).
        bootstrap: Bradley-Terry bootstrap draws over deals (0: no interval).
        calls: how agents are called (default :class:`~nashzoo.eval.guard.DirectCalls`).
        record: a list that receives every game's history (deal-major, then seating).
        progress: show a progress bar over deals (drawn only on a terminal).
        done: ``(k, n)`` scores of the first ``k`` deals, already played (a resumed run:
            every deal's cards and agent seeds depend on ``seed`` and its index only, so
            the rest are the deals an uninterrupted run plays).
        on_deal: called with each newly played deal's index and its ``(n,)`` scores (to
            record them as they come).
        draw_from: per agent, whether the referee plays it by drawing its move from the
            probabilities it states (``action_probabilities``, or ``probabilities_many``)
            instead of asking ``act``, as the leaderboard does for every agent that
            states them; the draws of a deal are the same in every seating.
        forfeit: a fault (an agent raised, moved illegally or ran out of time) ends the
            table instead of raising: the deal in progress and every one after it count
            as lost by the offender by the game's largest payoff (the others share its
            loss), reported to ``on_deal`` like played deals and in
            :attr:`TableResult.forfeit`, as a tournament forfeits a block.

    Raises:
        InvalidParameterError: not one agent per seat, or bad numbers.
        Forfeit: an agent raised or played an illegal action (unless ``forfeit``).
    """
    n = game.num_players
    if len(agents) != n:
        raise InvalidParameterError(
            f"play_table needs one agent per seat: {game} has {n} seats, received "
            f"{len(agents)} agents."
        )
    drawn = [False] * n if draw_from is None else [bool(x) for x in draw_from]
    if len(drawn) != n:
        raise InvalidParameterError(
            f"draw_from needs one flag per agent ({n}), received {len(drawn)}."
        )
    deals = check_int("deals", deals, 1)
    bootstrap = check_int("bootstrap", bootstrap, 0)
    calls = calls or DirectCalls()
    cache = ObservationCache(game)
    tables = seatings(n)
    uniforms = deal_uniforms(game, deals, np.random.default_rng([seed, 38]))
    scores = np.zeros((deals, n))
    first = 0
    if done is not None:
        done = np.asarray(done, dtype=np.float64).reshape(-1, n)
        if len(done) > deals:
            raise InvalidParameterError(
                f"play_table was given {len(done)} played deals, more than deals={deals}."
            )
        first = len(done)
        scores[:first] = done
    bar = None
    if progress:
        from nashzoo.extras import progress_bar

        bar = progress_bar(total=deals, initial=first, unit="deal", desc=f"{n}-seat table")
    fault: tuple[int, int, str] | None = None
    for d in range(first, deals):
        if fault is not None:  # the rest of a forfeited table
            scores[d] = forfeit_scores(game, n, fault[0])
            if on_deal is not None:
                on_deal(d, scores[d].copy())
            continue
        try:
            scores[d] = _played_deal(
                game, agents, d, seed, tables, uniforms, calls, cache, drawn, record
            )
        except Forfeit as exc:
            if not forfeit:
                raise
            fault = (exc.who, d, exc.reason)
            scores[d] = forfeit_scores(game, n, exc.who)
        if on_deal is not None:
            on_deal(d, scores[d].copy())
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    mean = scores.mean(axis=0)
    stderr = scores.std(axis=0, ddof=1) / math.sqrt(deals) if deals > 1 else np.zeros(n)
    wins, elo, low, high = _rated(
        lambda pick: _pairwise_wins(pick(scores)), bootstrap, np.random.default_rng([seed, 39])
    )
    return TableResult(
        names=unique_names(agents),
        seatings=tuple(tables),
        scores=scores,
        mean=mean,
        stderr=stderr,
        ci95=np.stack([mean - Z95 * stderr, mean + Z95 * stderr], axis=1),
        wins=wins,
        elo=elo,
        elo_low=low,
        elo_high=high,
        position_balanced=n <= 4,
        forfeit=fault,
        unit=game.payoff_unit,
        big_blind=game.big_blind or None,
    )


def forfeit_scores(game: Game, n: int, loser: int) -> np.ndarray:
    """A forfeited deal's scores: ``loser`` loses the game's largest payoff, the others
    share it."""
    penalty = game.max_payoff_magnitude
    row = np.full(n, penalty / (n - 1))
    row[loser] = -penalty
    return row


def _played_deal(
    game: Game,
    agents: Sequence[Any],
    d: int,
    seed: int,
    tables: Sequence[tuple[int, ...]],
    uniforms: Any,
    calls: Calls,
    cache: ObservationCache,
    drawn: Sequence[bool],
    record: list[list[int]] | None,
) -> np.ndarray:
    """One duplicate deal of :func:`play_table` in every seating: each agent's mean
    return."""
    n = game.num_players
    num_actions = game.num_distinct_actions
    total = np.zeros(n)
    for seating in tables:
        for i, agent in enumerate(agents):
            reset = getattr(agent, "reset", None)
            if reset is not None:
                calls.call(i, reset, seed=deal_seed(seed, d, i))
        deal = Deal(game, uniforms[d])
        referee = np.random.default_rng([seed, 41, d])  # the same draws per seating
        while (p := deal.to_move()) != TERMINAL:
            observation, info = request_for(cache, deal.state, p)
            who = seating[p]
            if drawn[who]:
                stated = ask_probabilities(agents[who], who, [(observation, info)])[0]
                row = stated_row(who, stated, observation["action_mask"], info["info_state"])
                action = drawn_action(row, referee.random())
            else:
                action = calls.call(who, agents[who].act, observation, info)
            deal.apply(who, action, info["info_state"], num_actions)
        returns = deal.state.returns()
        for s, who in enumerate(seating):
            total[who] += returns[s]
        if record is not None:
            record.append(deal.state.history())
    return total / len(tables)


@dataclass(frozen=True)
class RosterResult:
    """Duplicate tables of every ``n`` agents of a larger roster (:func:`play_tables`).

    Attributes:
        names: the roster, in the order given.
        tables: ``(agents, result)`` per table: the roster indices seated (in seat order
            of the table's first seating) and its :class:`TableResult`.
        mean, stderr, ci95: per agent, chips per game over every deal it played, its
            standard error and 95% interval.
        wins: ``(m, m)`` pairwise outcomes pooled over the tables (ties half).
        elo, elo_low, elo_high: Bradley-Terry on ``wins`` and its 95% bootstrap interval
            (deals resampled within each table).
    """

    names: tuple[str, ...]
    tables: tuple[tuple[tuple[int, ...], TableResult], ...]
    mean: np.ndarray
    stderr: np.ndarray
    ci95: np.ndarray
    wins: np.ndarray
    elo: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray
    unit: str = "chips"
    big_blind: float | None = None

    def __str__(self) -> str:
        return _ranked_lines(f"{len(self.tables)} tables of {len(self.tables[0][0])} seats", self)


def roster_tables(num_agents: int, seats: int) -> list[tuple[int, ...]]:
    """The tables of a roster: every combination of ``seats`` of ``num_agents`` agents,
    in lexicographic order.

    Raises:
        InvalidParameterError: fewer agents than seats.
    """
    if num_agents < seats:
        raise InvalidParameterError(
            f"A table of {seats} seats needs at least {seats} agents, received {num_agents}."
        )
    return list(itertools.combinations(range(num_agents), seats))


def play_tables(
    game: Game,
    agents: Sequence[Any],
    *,
    deals: int = 1000,
    seed: int = 0,
    bootstrap: int = 200,
    calls: Calls | None = None,
    progress: bool = False,
    done: Sequence[np.ndarray] | None = None,
    on_deal: Callable[[int, int, np.ndarray], None] | None = None,
    forfeit: bool = False,
) -> RosterResult:
    """Every combination of ``game.num_players`` agents of ``agents`` at its own
    duplicate table (:func:`play_table`, ``deals`` deals each; table ``k`` seeded
    ``[seed, k]``), pooled into one score and rating per agent (see the module).

    Args:
        game: a game of ``n >= 2`` players.
        agents: ``m >= n`` agents, distinct objects.
        deals, seed, bootstrap, calls, progress, forfeit: as :func:`play_table` (a
            fault ends the offender's table, the other tables are played).
        done: per table, the scores of the deals already played (a resumed run).
        on_deal: called with the table's index, the deal's index and its scores.

    Raises:
        InvalidParameterError: fewer agents than seats, or bad numbers.
        Forfeit: an agent raised or played an illegal action.
    """
    n = game.num_players
    bootstrap = check_int("bootstrap", bootstrap, 0)
    combos = roster_tables(len(agents), n)
    played: list[tuple[tuple[int, ...], TableResult]] = []
    for k, seated in enumerate(combos):
        before = None if done is None or k >= len(done) or not len(done[k]) else done[k]
        result = play_table(
            game, [agents[i] for i in seated], deals=deals, seed=table_seed(seed, k), bootstrap=0,
            calls=calls, progress=progress, done=before, forfeit=forfeit,
            on_deal=None if on_deal is None else functools.partial(on_deal, k),
        )  # fmt: skip
        played.append((seated, result))
    return pool_tables(game, unique_names(agents), played, bootstrap=bootstrap, seed=seed)


def table_seed(seed: int, k: int) -> int:
    """The seed of table ``k`` of a roster seeded ``seed`` (:func:`play_tables`)."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0])


def pool_tables(
    game: Game,
    names: Sequence[str],
    played: Sequence[tuple[tuple[int, ...], TableResult]],
    *,
    bootstrap: int = 200,
    seed: int = 0,
) -> RosterResult:
    """The roster's pooled score and rating from its tables' results (each with the
    roster indices seated), however they were played (here, or in supervised worker
    processes)."""
    bootstrap = check_int("bootstrap", bootstrap, 0)
    m = len(names)
    per_agent: list[list[np.ndarray]] = [[] for _ in range(m)]
    for seated, result in played:
        for j, i in enumerate(seated):
            per_agent[i].append(result.scores[:, j])
    scores = [np.concatenate(rows) for rows in per_agent]
    mean = np.array([v.mean() for v in scores])
    stderr = np.array([v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else 0.0 for v in scores])

    def pooled(pick: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        wins = np.zeros((m, m))
        for seated, result in played:
            index = np.array(seated)
            wins[np.ix_(index, index)] += _pairwise_wins(pick(result.scores))
        return wins

    wins, elo, low, high = _rated(pooled, bootstrap, np.random.default_rng([seed, 40]))
    return RosterResult(
        names=tuple(names),
        tables=tuple(played),
        mean=mean,
        stderr=stderr,
        ci95=np.stack([mean - Z95 * stderr, mean + Z95 * stderr], axis=1),
        wins=wins,
        elo=elo,
        elo_low=low,
        elo_high=high,
        unit=game.payoff_unit,
        big_blind=game.big_blind or None,
    )
