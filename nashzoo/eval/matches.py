"""Duplicate head-to-head matches with confidence intervals.

Every deal is played twice with the seats swapped and the same chance seed, so the luck
of the cards cancels out of each pair; the score of A is its mean payoff per game over
both seats. For two PolicyAgents on a compiled game the expected score can also be
computed exactly (``exact=True``), with zero variance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.envs.protocol import Agent, StatesProbabilities
from nashzoo.envs.registration import make_game
from nashzoo.errors import AgentForfeitError, InvalidParameterError
from nashzoo.eval.aivat import (
    ValueFunction,
    check_aivat_game,
    check_variance_reduction,
    default_value_function,
    play_aivat_deals,
)
from nashzoo.eval.engine import DealScores, deal_agent_seeds, deal_uniforms, play_duplicate_deals
from nashzoo.eval.guard import Calls, Forfeit, make_calls, user_interrupts
from nashzoo.eval.stats import ci95, sample_mean_and_stderr
from nashzoo.games import Game
from nashzoo.tree.best_response import policy_values
from nashzoo.tree.compile import GameTree, compile_game
from nashzoo.tree.policy import TabularPolicy, seat_profiles
from nashzoo.validation import check_bool, check_int, check_seed, check_time_limit

__all__ = [
    "MatchResult",
    "head_to_head",
    "exact_duplicate_value",
    "deal_seed",
    "seed_agents",
    "play_deals",
]


@dataclass(frozen=True, kw_only=True)
class MatchResult:
    """A's score against B (built by keyword: twelve fields are too many to keep in order).

    Attributes:
        agent_a, agent_b: display names.
        game: the game's repr.
        deals: deals played (each twice, seats swapped); 0 for an exact result.
        mean: A's mean payoff per game, in ``unit`` (positive: A is stronger).
        stderr: standard error of ``mean`` (0 when exact).
        ci95: 95% confidence interval of ``mean``.
        exact: whether ``mean`` is the exact expectation.
        big_blind: chips per big blind for mbb figures (``None`` for non-poker games).
        variance_reduction: ``None``, ``"crn"`` or ``"aivat"`` (see :func:`head_to_head`).
        plain_mean, plain_stderr: with ``"aivat"``, the uncorrected estimate from the
            same games (``mean`` and ``stderr`` are the corrected one); else ``None``.
        unit: what a payoff counts (the game's :attr:`~nashzoo.games.base.Game.payoff_unit`:
            chips in poker, points in the fighting game).
    """

    agent_a: str
    agent_b: str
    game: str
    deals: int
    mean: float
    stderr: float
    ci95: tuple[float, float]
    exact: bool
    big_blind: float | None
    variance_reduction: str | None = None
    plain_mean: float | None = None
    plain_stderr: float | None = None
    unit: str = "chips"

    @property
    def mean_mbb(self) -> float | None:
        """``mean`` in milli-big-blinds per game."""
        return None if self.big_blind is None else 1000.0 * self.mean / self.big_blind

    @property
    def ci95_mbb(self) -> tuple[float, float] | None:
        if self.big_blind is None:
            return None
        return (1000.0 * self.ci95[0] / self.big_blind, 1000.0 * self.ci95[1] / self.big_blind)

    @property
    def plain_ci95(self) -> tuple[float, float] | None:
        """With AIVAT, the 95% CI of the uncorrected estimate from the same games."""
        if self.plain_mean is None or self.plain_stderr is None:
            return None
        return ci95(self.plain_mean, self.plain_stderr)

    def __str__(self) -> str:
        how = "exact" if self.exact else f"{self.deals} duplicate deals"
        if self.variance_reduction:
            how += f", {self.variance_reduction}"
        text = (
            f"{self.agent_a} vs {self.agent_b}: {self.mean:+.4f} {self.unit}/game "
            f"(95% CI {self.ci95[0]:+.4f} .. {self.ci95[1]:+.4f}; {how})"
        )
        mbb, band = self.mean_mbb, self.ci95_mbb
        if mbb is not None and band is not None:
            text += f" = {mbb:+.1f} mbb/game ({band[0]:+.1f} .. {band[1]:+.1f})"
        plain = self.plain_ci95
        if plain is not None:
            text += f"; uncorrected {self.plain_mean:+.4f} ({plain[0]:+.4f} .. {plain[1]:+.4f})"
        return text


def deal_seed(root: int, *path: int) -> int:
    """A 63-bit seed derived from ``(root, *path)`` (e.g. pairing and deal index)."""
    return int(np.random.SeedSequence([root, *path]).generate_state(2, np.uint64)[0] >> 1)


def agent_name(agent: Any) -> str:
    """An agent's display name: its ``name``, else its class name."""
    return str(getattr(agent, "name", None) or type(agent).__name__)


def unique_names(agents: Sequence[Any]) -> tuple[str, ...]:
    """The agents' display names (:func:`agent_name`), made unique: a name that comes
    again gets ``#2``, ``#3`` ... (two ``random`` agents print as ``random`` and
    ``random#2``)."""
    names: list[str] = []
    for agent in agents:
        base = name = agent_name(agent)
        k = 1
        while name in names:
            k += 1
            name = f"{base}#{k}"
        names.append(name)
    return tuple(names)


def _game_of(game: Game | GameTree | str) -> Game:
    if isinstance(game, str):
        return make_game(game)
    if isinstance(game, GameTree):
        return game.game
    return game


def exact_duplicate_value(policy_a: TabularPolicy, policy_b: TabularPolicy) -> float:
    """A's exact expected payoff per game against B, averaged over both seats
    (two-player games)."""
    tree = policy_a.tree
    if policy_b.game != policy_a.game:
        raise InvalidParameterError(
            f"Policies are for different games: {policy_a.game} and {policy_b.game}."
        )
    a_first, b_first = seat_profiles(tree, policy_a.probs, policy_b.probs)
    return float(0.5 * (policy_values(tree, a_first)[0] + policy_values(tree, b_first)[1]))


def head_to_head(
    game: Game | GameTree | str,
    agent_a: Agent | TabularPolicy,
    agent_b: Agent | TabularPolicy,
    *,
    deals: int = 1000,
    seed: int = 0,
    exact: bool = False,
    move_time_limit: float | None = None,
    variance_reduction: str | None = None,
    value_function: ValueFunction | tuple[ValueFunction, ValueFunction] | None = None,
) -> MatchResult:
    """Duplicate match of ``agent_a`` against ``agent_b``.

    Args:
        game: a Game, its compiled tree, or an env id.
        agent_a, agent_b: agents (or :class:`TabularPolicy` objects when ``exact``).
        deals: deals to play; each is played twice with the seats swapped.
        seed: root seed of the chance draws and of the agents' ``reset(seed=...)``; each
            deal uses the same chance draws in both seatings.
        exact: compute the exact expectation instead (both must be PolicyAgents or
            TabularPolicies and the game small enough to compile).
        move_time_limit: seconds an agent may take per move (``None`` or ``math.inf``: no
            limit). Agents run in the caller's process: a hung agent forfeits on time (its
            call is abandoned in a helper thread), but an agent that kills the process
            (``os._exit``) takes the caller with it; tournaments isolate agents in
            supervised worker processes.
        variance_reduction: ``None``: both seatings of a deal share the cards; ``"crn"``:
            each agent is also reseeded per deal, the same in both seatings, so its
            random choices repeat (common random numbers); ``"aivat"``: and the AIVAT
            corrections (:mod:`nashzoo.eval.aivat`): unbiased, with a smaller variance
            the better ``value_function`` predicts the game. Agents with
            ``action_probabilities`` are then played by drawing from the probabilities
            they state.
        value_function: with ``"aivat"``, player 0's values of histories, fixed in
            advance (default :func:`~nashzoo.eval.aivat.default_value_function`), or a
            pair of them, one per seating (A in seat 0, then B in seat 0).

    Returns:
        A :class:`MatchResult`; with ``"aivat"`` its ``mean`` is the corrected estimate
        and ``plain_mean`` the uncorrected one of the same games.

    Raises:
        AgentForfeitError: an agent raised (``SystemExit`` included), failed in
            ``reset()``, played an invalid or illegal action or ran out of time.
        InvalidParameterError: bad ``deals``, ``seed``, ``exact``, ``move_time_limit``,
            ``variance_reduction`` or ``value_function``.
    """
    g = _game_of(game)
    if g.num_players != 2:
        raise InvalidParameterError(
            f"head_to_head plays two agents in a two-player game; {g!r} has "
            f"{g.num_players} players."
        )
    exact = check_bool("exact", exact)
    reduction = check_variance_reduction(variance_reduction)
    if value_function is not None:
        if reduction != "aivat":
            raise InvalidParameterError(
                "value_function is used only with variance_reduction='aivat', received "
                f"variance_reduction={variance_reduction!r}."
            )
        pair = value_function if isinstance(value_function, tuple) else (value_function,)
        if len(pair) not in (1, 2) or not all(
            callable(getattr(v, "child_values", None)) for v in pair
        ):
            raise InvalidParameterError(
                "value_function must have child_values(state, actions), or be a pair of "
                f"such (one per seating); received {value_function!r:.200}."
            )
    seed = check_seed(seed) or 0
    limit = check_time_limit(move_time_limit)
    if exact:
        ignored = {
            "variance_reduction": reduction,
            "value_function": value_function,
            "move_time_limit": limit,
        }
        given = [f"{k}={v!r:.80}" for k, v in ignored.items() if v is not None]
        if given:
            raise InvalidParameterError(
                "exact=True computes the expectation from the stated policies: no game is "
                f"played, so {', '.join(given)} cannot apply; drop it, or play deals with "
                "exact=False."
            )
        tree = game if isinstance(game, GameTree) else compile_game(g)
        value = float(exact_duplicate_value(_tabulated(agent_a, tree), _tabulated(agent_b, tree)))
        return MatchResult(
            agent_a=agent_name(agent_a),
            agent_b=agent_name(agent_b),
            game=repr(g),
            deals=0,
            mean=value,
            stderr=0.0,
            ci95=(value, value),
            exact=True,
            big_blind=g.big_blind,
            unit=g.payoff_unit,
        )
    deals = check_int("deals", deals, 1)
    agents = (agent_a, agent_b)
    for k, agent in enumerate(agents):
        if not callable(getattr(agent, "act", None)):
            raise InvalidParameterError(
                f"agent_{'ab'[k]} must be an Agent (with act), received {type(agent).__name__}"
                "; TabularPolicy objects play only with exact=True."
            )
    player_a: Agent = agent_a  # type: ignore[assignment]  # checked above: both have act
    player_b: Agent = agent_b  # type: ignore[assignment]
    calls = make_calls(limit)
    uniforms = deal_uniforms(g, deals, np.random.default_rng([seed, 0]))
    agent_seeds = deal_agent_seeds(deals, np.random.default_rng([seed, 1]))
    if reduction == "aivat":
        check_aivat_game(g)
    try:
        with user_interrupts():
            seed_agents(seed, agents, calls=calls)
            played = play_deals(
                g,
                player_a,
                player_b,
                uniforms,
                agent_seeds,
                reduction=reduction,
                values=value_function,
                calls=calls,
            )
    except Forfeit as exc:
        who = agent_name(agents[exc.who])
        raise AgentForfeitError(f"{who} forfeited the match: {exc.reason}") from None
    finally:
        calls.close()
    plain_mean = plain_stderr = None
    scores = played.scores
    if played.corrected is not None:
        plain_mean, plain_stderr = sample_mean_and_stderr(scores)
        scores = played.corrected
    mean, stderr = sample_mean_and_stderr(scores)
    return MatchResult(
        agent_a=agent_name(agent_a),
        agent_b=agent_name(agent_b),
        game=repr(g),
        deals=deals,
        mean=mean,
        stderr=stderr,
        ci95=ci95(mean, stderr),
        exact=False,
        big_blind=g.big_blind,
        unit=g.payoff_unit,
        variance_reduction=reduction,
        plain_mean=plain_mean,
        plain_stderr=plain_stderr,
    )


def _tabulated(agent: Agent | TabularPolicy, tree: GameTree) -> TabularPolicy:
    """The policy an agent states at every information set; a fault of the agent while
    it is asked (it raised, or answered something that is not a distribution) is its
    forfeit, as in a played match."""
    if isinstance(agent, TabularPolicy):
        return agent
    if not isinstance(agent, StatesProbabilities):
        return TabularPolicy.from_agent(agent, tree)  # its InvalidParameterError says why
    try:
        return TabularPolicy.from_agent(agent, tree)
    except (Exception, SystemExit) as exc:
        raise AgentForfeitError(
            f"{agent_name(agent)} forfeited the match: asked for its probabilities, it "
            f"failed with {type(exc).__name__}: {exc}"
        ) from None


def seed_agents(seed: int, agents: Sequence[Any], *path: int, calls: Calls | None = None) -> None:
    """``reset(seed=...)`` every agent with a seed derived from ``(seed, *path, index)``.

    With ``calls``, a failing ``reset`` is that agent's forfeit (:class:`Forfeit`).
    """
    calls = calls or make_calls(None)
    for i, agent in enumerate(agents):
        calls.call(i, agent.reset, seed=deal_seed(seed, *path, i))


def play_deals(
    game: Game,
    agent_a: Agent,
    agent_b: Agent,
    uniforms: np.ndarray,
    agent_seeds: np.ndarray,
    *,
    reduction: str | None,
    values: ValueFunction | tuple[ValueFunction, ValueFunction] | None = None,
    calls: Calls | None = None,
) -> DealScores:
    """The duplicate deals of one match under ``reduction``: ``None`` (agents keep their
    streams), ``"crn"`` (reseeded with ``agent_seeds``) or ``"aivat"`` (and corrected with
    ``values``, default :func:`default_value_function`); what matches and tournament
    blocks both play.

    Raises:
        Forfeit: as :func:`~nashzoo.eval.aivat.play_aivat_deals` and
            :func:`~nashzoo.eval.engine.play_duplicate_deals`.
    """
    if reduction == "aivat":
        vf = values if values is not None else default_value_function(game)
        return play_aivat_deals(game, agent_a, agent_b, uniforms, agent_seeds, vf, calls=calls)
    seeds = None if reduction is None else agent_seeds
    return play_duplicate_deals(game, agent_a, agent_b, uniforms, calls=calls, agent_seeds=seeds)
