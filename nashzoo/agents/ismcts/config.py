"""The settings of an information-set search and what it returns, shared by every path.

:class:`SearchConfig` (a documented dataclass) picks the variant and its constants;
:class:`SearchResult` is what a search read at its root, whether it ran the compiled
kernel (:mod:`~nashzoo.agents.ismcts.compiled`) or walked the rules
(:mod:`~nashzoo.agents.ismcts.search`).

Variants (``docs/explanation/nash-ismcts.md``):

* ``"mt"``: MT-ISMCTS, UCB1 and random rollouts, no networks (its belief is chance
  alone, or on the compiled path Bayes with the spawned trees as the opponent model).
* ``"a"``: A-ISMCTS, PUCT with the knowledge's P, V, V_c, H, V_w (``eps`` is 0).
* ``"nash"``: Nash-ISMCTS, A-ISMCTS with the epsilon-mechanism (``eps`` > 0 widens every
  SAMPLE node's value into the interval over beliefs within L1 distance ``eps``).

Payoffs inside the search are scaled to [-1, 1] by the game's largest payoff (Kuhn:
chips / 2, Leduc: chips / 13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.validation import Config, choice, flag, integer, number, seed_field

__all__ = [
    "SearchConfig",
    "SearchResult",
    "VARIANTS",
    "move_weights",
    "improved_policy",
    "policy_target",
]

VARIANTS = ("mt", "a", "nash")


@dataclass(frozen=True)
class SearchConfig(Config):
    """Settings of an information-set search.

    Attributes:
        variant: ``"mt"`` (MT-ISMCTS), ``"a"`` (A-ISMCTS) or ``"nash"`` (Nash-ISMCTS).
        simulations: simulations of the root tree per move (spawned trees' simulations
            do not count).
        time_budget: seconds per move; when set, the search runs until it is spent (at
            least one simulation) and ``simulations`` is ignored. Timed searches are not
            reproducible; counted ones are.
        c_uct: UCB1 exploration constant (MT), on payoffs scaled to [-1, 1].
        c_puct: PUCT constant (A and Nash).
        eps: L1 radius of the belief ball at SAMPLE nodes (Nash; A uses 0).
        spawn_cap: nesting levels of spawned opponent trees (Kuhn needs 3); below the
            cap the opponent plays the rollout policy (uniform in MT, P otherwise).
        belief: ``"table"`` (the tables' H; in MT, chance alone: uniform over the
            opponent's cards) or ``"model"`` (Bayes with an opponent model: the visit
            counts of the opponent's spawned trees).
        estimator: ``"exact"`` (base + residual, the spec's estimator) or ``"polled"``
            (the ball over each world's own value).
        final_policy: how the move distribution is read from the root: ``"lcb"``
            (drop actions whose confidence interval lies below the best lower bound,
            then proportional to visits), ``"visits"`` (proportional to visits,
            OpenSpiel's NORMALIZED_VISIT_COUNT) or ``"max_visits"``. Default: ``"lcb"``
            for A and Nash, ``"visits"`` for MT.
        lcb_z: the confidence multiplier of ``"lcb"`` (``z / sqrt(N)`` on the value scale).
        value_scale: the scale PUCT's exploration term and the LCB width are measured on
            (A and Nash). ``"game"``: payoffs divided by the game's largest (one unit is
            240 chips in Limit Hold'em, so a decision worth a 40-chip pot moves values
            by 0.17 and ``c_puct`` 2 or a ``1.96 / sqrt(N)`` width swamp it);
            ``"tree"``: the range of the values the search tree has compared so far
            (MuZero's min-max normalisation, per tree: the same constants bite on
            every game and at every pot size).
        noise_alpha, noise_fraction: Dirichlet noise at the root of self-play searches
            only (never when playing or measuring).
        split_hidden: H-splitting (the search over the rules; Nash- and A-ISMCTS): a SAMPLE
            node becomes a series of SAMPLE nodes, one per piece of the opponent's
            private information (:meth:`Game.hidden_value_pieces
            <nashzoo.games.base.Game.hidden_value_pieces>`: Hold'em's two hole cards, the
            fighting game's hand card by card), each with the ball estimator over its
            own pieces. With ``eps`` 0 it is the flat node's value exactly; with
            ``eps`` > 0 the ball is applied per piece.
        draw_pieces: H-splitting built lazily (the search over the rules; Nash- and
            A-ISMCTS; implies ``split_hidden``): each SAMPLE node of the series holds
            only its own piece's options (:class:`~nashzoo.games.hidden.HiddenPieces`:
            at most 52 cards on poker), with H conditioned on the pieces drawn before it
            and the prior value of each partial world from the knowledge
            (:meth:`Knowledge.piece_belief
            <nashzoo.agents.ismcts.knowledge.Knowledge.piece_belief>`); a series' next
            node is made when a simulation first draws its prefix, so a SAMPLE node's
            time and memory do not grow with the number of worlds. Its estimator is
            ``"exact"``.
        split_actions: P-splitting (the search over the rules; Nash- and A-ISMCTS): where the
            game decomposes a decision (:meth:`Game.action_groups
            <nashzoo.games.base.Game.action_groups>`: no-limit poker's raise sizes), an
            ACT node becomes two: one picks the group (fold, call, raise) with P summed
            over the group, the next picks the action within it with P conditioned on
            the group, each with interval PUCT and its own statistics.
        seed: seed of the agent's generator (searches for exploitability are seeded per
            information set from it, so the order of queries does not matter).
    """

    variant: Literal["mt", "a", "nash"] = choice("nash", VARIANTS)
    simulations: int = integer(1000, low=1)
    time_budget: float | None = number(None, low=0.0, low_inclusive=False, optional=True)
    c_uct: float = number(2.0, low=0.0)
    c_puct: float = number(2.0, low=0.0)
    eps: float = number(0.05, low=0.0)
    spawn_cap: int = integer(3, low=0, high=8)
    belief: Literal["table", "model"] = choice("table", ("table", "model"))
    estimator: Literal["exact", "polled"] = choice("exact", ("exact", "polled"))
    final_policy: Literal["lcb", "visits", "max_visits"] | None = choice(
        None, (None, "lcb", "visits", "max_visits")
    )
    lcb_z: float = number(1.96, low=0.0)
    value_scale: Literal["game", "tree"] = choice("game", ("game", "tree"))
    noise_alpha: float = number(1.0, low=0.0, low_inclusive=False)
    noise_fraction: float = number(0.25, low=0.0, high=1.0)
    split_hidden: bool = flag(False)
    draw_pieces: bool = flag(False)
    split_actions: bool = flag(False)
    seed: int | None = seed_field(0)

    def check(self) -> None:
        if self.draw_pieces and self.estimator != "exact":
            raise InvalidParameterError(
                f"draw_pieces builds a SAMPLE node's series lazily and values it with the "
                f"'exact' estimator; estimator={self.estimator!r} needs every world's "
                "interval (set draw_pieces=False)."
            )
        if self.variant == "mt" and self.value_scale != "game":
            raise InvalidParameterError(
                f"value_scale={self.value_scale!r} scales the PUCT and LCB of A- and "
                "Nash-ISMCTS; MT-ISMCTS's UCB1 works on the game's scale "
                "(value_scale='game')."
            )

    @property
    def move_selection(self) -> str:
        """The final policy in force (the variant's default when unset)."""
        if self.final_policy is not None:
            return self.final_policy
        return "visits" if self.variant == "mt" else "lcb"

    @property
    def effective_eps(self) -> float:
        """``eps`` for Nash-ISMCTS, 0 for the other variants."""
        return float(self.eps) if self.variant == "nash" else 0.0

    def lcb_width(self, span: float) -> float:
        """The LCB's ``z`` on the value scale in force: ``lcb_z``, times the range
        ``span`` of the values the root's tree compared under ``value_scale="tree"``
        (where there is one)."""
        if self.value_scale == "tree" and span > 0:
            return self.lcb_z * span
        return self.lcb_z


@dataclass
class SearchResult:
    """What one search found at its root.

    Attributes:
        actions: the legal actions at the root.
        visits: visits of each.
        q_low, q_high: each action's value interval to the mover (scaled payoff; MT:
            the mean return, both ends equal; NaN for unvisited actions).
        policy: the move distribution over all ``num_distinct_actions``.
        simulations: root simulations run (the spawned trees' do not count).
        seconds: wall time of the search.
        nodes: statistics entries the search used (all of its trees' nodes).
        capped: the node cap was reached (the search over the rules then reuses its
            nodes and adds none; the compiled search grows its table instead).
        infoset: the information set searched, a row of the compiled game (-1 where the
            search walked the rules).
    """

    actions: np.ndarray
    visits: np.ndarray
    q_low: np.ndarray
    q_high: np.ndarray
    policy: np.ndarray
    simulations: int
    seconds: float
    nodes: int = 0
    capped: bool = False
    infoset: int = -1

    @property
    def visit_shares(self) -> np.ndarray:
        """Visits over all actions, normalised."""
        out = np.zeros_like(self.policy)
        out[self.actions] = self.visits / max(self.visits.sum(), 1.0)
        return out

    @property
    def simulations_per_second(self) -> float:
        """Root simulations per second of wall time."""
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")


def move_weights(
    how: str, visits: np.ndarray, q_low: np.ndarray, q_high: np.ndarray, z: float
) -> np.ndarray:
    """Unnormalised move weights over the legal actions (visits > 0 somewhere)."""
    if how == "visits":
        return visits.copy()
    if how == "max_visits":
        return (visits == visits.max()).astype(np.float64)
    visited = visits > 0
    spread = np.where(visited, z / np.sqrt(np.where(visited, visits, 1.0)), np.inf)
    low = np.where(visited, q_low - spread, -np.inf)
    high = np.where(visited, q_high + spread, np.inf)
    best = int(np.argmax(low))
    keep = visited & (high >= low[best])
    return np.where(keep, visits, 0.0)


def improved_policy(
    prior: np.ndarray,
    visits: np.ndarray,
    q_low: np.ndarray,
    q_high: np.ndarray,
    value: float,
    *,
    c_visit: float = 50.0,
    c_scale: float = 1.0,
) -> np.ndarray:
    """The completed-Q improvement of the prior at a search's root (Gumbel MuZero:
    Danihelka, Guez, Schrittwieser & Silver, ICLR 2022), over the root's legal actions:
    ``softmax(log P + (c_visit + max N) * c_scale * Q)``, where ``Q`` is each visited
    action's value (the middle of its interval) and, for an unvisited one, the mixed value
    ``(V + N * E_{P | visited}[Q]) / (1 + N)``. Unlike the visit shares it does not
    carry the noise of a few draws from P: with 8 simulations at four actions the visits
    are mostly P resampled, while this target moves P by what the search measured.

    Args:
        prior: P over the legal actions.
        visits, q_low, q_high: the root's visits and value intervals (NaN unvisited).
        value: V at the root (the mixed value's prior term).
        c_visit, c_scale: the paper's constants (its 50 and 1, on values in [-1, 1]).
    """
    q = (np.nan_to_num(q_low) + np.nan_to_num(q_high)) / 2.0
    visited = visits > 0
    n = float(visits.sum())
    mixed = float(value)
    if visited.any():
        mass = float(prior[visited].sum())
        seen = float(prior[visited] @ q[visited]) / mass if mass > 0 else float(q[visited].mean())
        mixed = (float(value) + n * seen) / (1.0 + n)
    completed = np.where(visited, q, mixed)
    logits = (
        np.log(np.maximum(prior, 1e-12)) + (c_visit + float(visits.max())) * c_scale * completed
    )
    out = np.exp(logits - logits.max())
    return out / out.sum()


def policy_target(
    how: str, result: SearchResult, prior: np.ndarray, value: float, c_scale: float
) -> np.ndarray:
    """What P learns from at a self-play decision, over the root's legal actions:
    ``how="visits"`` the visit shares, ``"completed_q"`` :func:`improved_policy` of
    ``prior`` (P there) and ``value`` (V there)."""
    if how == "completed_q":
        return improved_policy(
            prior, result.visits, result.q_low, result.q_high, value, c_scale=c_scale
        )
    return result.visits / result.visits.sum()
