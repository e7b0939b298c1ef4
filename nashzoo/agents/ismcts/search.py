"""One information-set search: its settings, its driver and what it returns.

:class:`SearchConfig` (a documented dataclass) picks the variant and its constants;
:class:`Search` turns a compiled game and its :class:`~nashzoo.agents.ismcts.tables.SearchTables`
into the arrays of :mod:`nashzoo.agents.ismcts.kernel`, runs the simulations (growing
the statistics table when it fills, stopping at the simulation count or the time budget)
and reads the root: visit counts, value intervals and the move distribution
(:class:`SearchResult`).

Variants (``docs/explanation/nash-ismcts.md``):

* ``"mt"``: MT-ISMCTS, UCB1 and random rollouts, no networks (its tables give only the
  belief: chance alone, or Bayes with the spawned trees as the opponent model).
* ``"a"``: A-ISMCTS, PUCT with the tables' P, V, V_c, H, V_w (``eps`` is 0).
* ``"nash"``: Nash-ISMCTS, A-ISMCTS with the epsilon-mechanism (``eps`` > 0 widens every
  SAMPLE node's value into the interval over beliefs within L1 distance ``eps``).

Payoffs inside the search are scaled to [-1, 1] (Kuhn: chips / 2, Leduc: chips / 13).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from nashzoo.agents.ismcts import kernel as K
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import TERMINAL
from nashzoo.tree.compile import GameTree
from nashzoo.validation import Config, check_int, choice, flag, integer, number, seed_field

__all__ = ["SearchConfig", "SearchResult", "Search", "VARIANTS"]

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
        lcb_z: the confidence multiplier of ``"lcb"`` (``z / sqrt(N)`` on scaled payoffs).
        noise_alpha, noise_fraction: Dirichlet noise at the root of self-play searches
            only (never when playing or measuring).
        split_hidden: H-splitting (over the rules only; Nash- and A-ISMCTS): a SAMPLE
            node becomes a series of SAMPLE nodes, one per piece of the opponent's
            private information (:meth:`Game.hidden_value_pieces
            <nashzoo.games.base.Game.hidden_value_pieces>`: Hold'em's two hole cards, the
            fighting game's hand card by card), each with the ball estimator over its
            own pieces. With ``eps`` 0 it is the flat node's value exactly; with
            ``eps`` > 0 the ball is applied per piece.
        split_actions: P-splitting (over the rules only; Nash- and A-ISMCTS): where the
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
    noise_alpha: float = number(1.0, low=0.0, low_inclusive=False)
    noise_fraction: float = number(0.25, low=0.0, high=1.0)
    split_hidden: bool = flag(False)
    split_actions: bool = flag(False)
    seed: int | None = seed_field(0)

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


@dataclass
class SearchResult:
    """What one search found at its root.

    Attributes:
        infoset: the information set searched (row of the compiled game).
        actions: its legal actions.
        visits: visits of each legal action.
        q_low, q_high: each action's value interval to the mover (scaled payoff; MT:
            the mean return, both equal; NaN for unvisited actions).
        policy: the move distribution over all ``num_distinct_actions``.
        simulations: simulations run.
        seconds: wall time of the search.
        slots: statistics entries the search used (all of its trees' nodes).
    """

    infoset: int
    actions: np.ndarray
    visits: np.ndarray
    q_low: np.ndarray
    q_high: np.ndarray
    policy: np.ndarray
    simulations: int
    seconds: float
    slots: int = field(default=0)

    @property
    def visit_shares(self) -> np.ndarray:
        """Visits over all actions, normalised."""
        out = np.zeros_like(self.policy)
        out[self.actions] = self.visits / max(self.visits.sum(), 1.0)
        return out


def _game_arrays(tables: SearchTables) -> K.SearchGame:
    views = tables.views
    tree = views.tree
    n_sets, n_actions = tree.legal_mask.shape
    legal = np.full((n_sets, n_actions), -1, dtype=np.int32)
    num_legal = tree.legal_mask.sum(axis=1).astype(np.int32)
    for i in range(n_sets):
        acts = np.flatnonzero(tree.legal_mask[i])
        legal[i, : acts.size] = acts
    return K.SearchGame(
        player=tree.player,
        parent=tree.parent,
        first_child=tree.first_child,
        num_children=tree.num_children,
        infoset=tree.infoset,
        action=tree.action,
        chance_prob=tree.chance_prob,
        utility=np.ascontiguousarray(tree.utility / payoff_scale(tree)),
        legal=legal,
        num_legal=num_legal,
        action_slot=views.action_slot,
        set_owner=tree.infoset_player.astype(np.int32),
        set_start=views.infoset_node_start,
        set_nodes=views.infoset_nodes,
        node_position=views.node_position,
        chance_reach=views.chance_reach,
    )


def _knowledge(tables: SearchTables) -> K.SearchKnowledge:
    views = tables.views
    tree = views.tree
    n_players = tree.num_players
    # each set's belief over its histories, from H at the set's view
    set_belief = np.zeros(views.infoset_nodes.size)
    for i in range(tree.num_infosets):
        a, b = views.infoset_node_start[i], views.infoset_node_start[i + 1]
        nodes = views.infoset_nodes[a:b]
        p = int(tree.infoset_player[i])
        row = tables.belief[views.infoset_view[i], views.node_world[p, nodes]]
        total = row.sum()
        set_belief[a:b] = row / total if total > 0 else 1.0 / (b - a)
    # V_w at every history for every viewer: exact at terminals; at a node whose event
    # the viewer does not see, the average over its children (chance probabilities,
    # uniform over hidden moves)
    scaled = tree.utility / payoff_scale(tree)
    leaf = np.zeros((n_players, tree.num_nodes))
    for p in range(n_players):
        nv, nw = views.node_view[p], views.node_world[p]
        for n in range(tree.num_nodes - 1, -1, -1):
            if tree.player[n] == TERMINAL:
                leaf[p, n] = scaled[n, p]
            elif nv[n] >= 0:
                leaf[p, n] = tables.world_value[nv[n], nw[n]]
            else:
                fc, nc = tree.first_child[n], tree.num_children[n]
                kids = np.arange(fc, fc + nc)
                weights = tree.chance_prob[kids] if tree.player[n] < 0 else np.full(nc, 1.0 / nc)
                leaf[p, n] = float(weights @ leaf[p, kids])
    # Always new, writeable arrays: tables that came through Ray's object store are
    # read-only, and a read-only array is another numba type, so passing them as they are
    # compiled (and cached) a second specialization of the whole search in every Ray
    # worker (90 s of a 2-core machine's time on a cold cache).
    return K.SearchKnowledge(
        prior=np.array(tables.prior, dtype=np.float64, order="C"),
        child_value=np.array(tables.child_value, dtype=np.float64, order="C"),
        act_value=np.ascontiguousarray(tables.view_value[views.infoset_view], dtype=np.float64),
        set_belief=set_belief,
        leaf_value=leaf,
    )


def _stats(bits: int, branch: int, levels: int, depth: int) -> K.SearchStats:
    cap = 1 << bits
    return K.SearchStats(
        meta=np.array([0, bits], dtype=np.int64),
        keys=np.full(cap, -1, dtype=np.int64),
        used=np.zeros(cap, dtype=np.int64),
        kind=np.zeros(cap, dtype=np.int8),
        owner=np.zeros(cap, dtype=np.int8),
        ref=np.zeros(cap, dtype=np.int32),
        act=np.zeros(cap, dtype=np.int32),
        visits=np.zeros((cap, branch)),
        child=np.full((cap, branch), -1, dtype=np.int32),
        total=np.zeros((cap, branch)),
        qlo=np.zeros(cap),
        qhi=np.zeros(cap),
        nmix=np.zeros(cap),
        npure=np.zeros(cap),
        mixsum=np.zeros((cap, branch)),
        purecnt=np.zeros((cap, branch)),
        level_int=np.zeros((levels, K.NUM_LEVEL_FIELDS), dtype=np.int64),
        path_slot=np.zeros((levels, depth), dtype=np.int64),
        path_index=np.zeros((levels, depth), dtype=np.int64),
        mix=np.zeros((levels, branch)),
        rootmix=np.zeros((levels, branch)),
        work=np.zeros((levels, 4, branch)),
        done=np.zeros(branch, dtype=np.bool_),
    )


def rng_state(seed: int | np.random.Generator | np.random.SeedSequence) -> np.ndarray:
    """A non-zero xorshift state for the kernel, drawn from ``seed``."""
    if isinstance(seed, np.random.Generator):
        value = int(seed.integers(1, 2**63 - 1))
    else:
        value = int(np.random.default_rng(seed).integers(1, 2**63 - 1))
    return np.array([value], dtype=np.uint64)


class Search:
    """Runs searches at the information sets of one compiled game.

    Args:
        tables: what the search knows besides the rules (for MT-ISMCTS
            :meth:`SearchTables.uninformed` unless you want its belief table).
        config: the settings (validated; read again at every search, so changing a
            field takes effect at the next one).

    The statistics table is reused from search to search (cleared in between) and
    grows as needed.
    """

    def __init__(self, tables: SearchTables, config: SearchConfig) -> None:
        if not isinstance(tables, SearchTables):
            raise InvalidParameterError(
                f"Search needs SearchTables, received {type(tables).__name__}."
            )
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"Search needs a SearchConfig, received {type(config).__name__}."
            )
        if config.split_actions:
            raise InvalidParameterError(
                "split_actions=True runs over the rules only (RulesNashSearch); the compiled "
                "search keeps one ACT node per view."
            )
        if config.split_hidden:
            raise InvalidParameterError(
                "split_hidden=True runs over the rules only (RulesNashSearch); the compiled "
                "search keeps one SAMPLE node per view."
            )
        self.tables = tables
        self.config = config
        self._game = _game_arrays(tables)
        self._knowledge = _knowledge(tables)
        tree = tables.tree
        self._branch = int(max(tree.num_children.max(), tables.views.max_worlds_per_infoset, 1))
        self._depth = 2 * tree.game.max_history_length + 4
        self._bits = 12
        self._stats: K.SearchStats | None = None

    @property
    def tree(self) -> GameTree:
        return self.tables.tree

    def _margin(self) -> int:
        # slots one top-level simulation can create: at most 2 per tree simulation, and
        # each opponent decision on a path spawns one simulation a level down
        branching = self.tree.game.max_game_length + 1
        return 2 * sum(branching**level for level in range(self.config.spawn_cap + 1))

    def _ready_stats(self, margin: int) -> K.SearchStats:
        """A statistics table large enough for ``margin`` (the kernel clears it)."""
        levels = self.config.spawn_cap + 2
        st = self._stats
        need = max(self._bits, math.ceil(math.log2(max(4 * margin, 4096))))
        if st is None or st.path_slot.shape[0] < levels or st.meta[1] < need:
            self._bits = need
            st = self._stats = _stats(need, self._branch, levels, self._depth)
        return st

    def _grow(self, st: K.SearchStats) -> K.SearchStats:
        self._bits = int(st.meta[1]) + 1
        new = _stats(self._bits, self._branch, st.path_slot.shape[0], self._depth)
        K.rehash(st, new)
        self._stats = new
        return new

    def params(self) -> np.ndarray:
        """The kernel's parameter vector for the current config."""
        c = self.config
        prm = np.zeros(K.NUM_PARAMS)
        prm[K.P_MODE] = 0.0 if c.variant == "mt" else 1.0
        prm[K.P_EXPLORE] = c.c_uct if c.variant == "mt" else c.c_puct
        prm[K.P_EPS] = c.effective_eps
        prm[K.P_SPAWN_CAP] = c.spawn_cap
        prm[K.P_BELIEF] = 1.0 if c.belief == "model" else 0.0
        prm[K.P_POLLED] = 1.0 if c.estimator == "polled" else 0.0
        return prm

    def run(
        self,
        infoset: int,
        rng: np.random.Generator | np.random.SeedSequence | int,
        *,
        self_play: bool = False,
    ) -> SearchResult:
        """Search at ``infoset`` (a row of the compiled game) and read the root.

        Args:
            infoset: where the searching player is to move.
            rng: the generator (or seed) the search's random numbers come from.
            self_play: add Dirichlet noise to the root prior (training only).
        """
        c = self.config
        tree = self.tree
        infoset = check_int("infoset", infoset, 0, tree.num_infosets - 1)
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        state = rng_state(gen)
        n_legal = int(self._game.num_legal[infoset])
        noise = np.zeros(self._branch)
        prm = self.params()
        if self_play and c.variant != "mt" and c.noise_fraction > 0:
            noise[:n_legal] = gen.dirichlet(np.full(n_legal, c.noise_alpha))
            prm[K.P_NOISE] = c.noise_fraction
        margin = self._margin()
        st = self._ready_stats(margin)
        root = np.empty((3, self._branch))
        start = time.perf_counter()
        done = 0
        deadline = None if c.time_budget is None else start + float(c.time_budget)
        target = c.simulations if deadline is None else np.iinfo(np.int64).max
        args = (self._game, self._knowledge)
        while done < target:
            chunk = target - done if deadline is None else 64
            ran = K.run(*args, st, prm, noise, state, infoset, chunk, margin, done == 0, root)
            done += ran
            if ran < chunk and (deadline is None or time.perf_counter() < deadline):
                st = self._grow(st)
            if deadline is not None and time.perf_counter() >= deadline and done > 0:
                break
        seconds = time.perf_counter() - start
        return self._read_root(root, infoset, done, seconds, int(st.meta[0]))

    def _read_root(
        self, root: np.ndarray, infoset: int, done: int, seconds: float, slots: int
    ) -> SearchResult:
        """The result from the kernel's root statistics (visits, low and high values)."""
        c = self.config
        n_legal = int(self._game.num_legal[infoset])
        actions = self._game.legal[infoset, :n_legal].astype(np.int64)
        visits, q_low, q_high = (row[:n_legal].copy() for row in root)
        weights = _move_weights(c.move_selection, visits, q_low, q_high, c.lcb_z)
        policy = np.zeros(self.tree.num_actions)
        policy[actions] = weights / weights.sum()
        return SearchResult(
            infoset=infoset,
            actions=actions,
            visits=visits,
            q_low=q_low,
            q_high=q_high,
            policy=policy,
            simulations=done,
            seconds=seconds,
            slots=slots,
        )


def _move_weights(
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
