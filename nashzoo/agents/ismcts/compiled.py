"""The compiled fast path of the search: its driver over :mod:`nashzoo.agents.ismcts.kernel`.

On a game small enough to compile (Kuhn, Leduc), :class:`CompiledSearch` turns the tree
and the :class:`~nashzoo.agents.ismcts.tables.SearchTables` (P, V, V_c, H, V_w over every
view) into the kernel's arrays, runs the simulations (growing the statistics table when
it fills, stopping at the simulation count or the time budget) and reads the root
(:class:`~nashzoo.agents.ismcts.config.SearchResult`). It is the same algorithm as the
search over the rules (:class:`~nashzoo.agents.ismcts.search.ISMCTSSearch`), which takes
this path wherever its knowledge is tables (the test that both paths agree on Leduc
runs them side by side); :func:`compiles_for_search` says whether a game gets it.
"""

from __future__ import annotations

import math
import time

import numpy as np

from nashzoo.agents.ismcts import kernel as K
from nashzoo.agents.ismcts.config import SearchConfig, SearchResult, move_weights
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import TERMINAL, Game
from nashzoo.tree.compile import GameTree
from nashzoo.validation import check_int

__all__ = ["CompiledSearch", "compiles_for_search", "SEARCH_COMPILE_PROBE"]


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
        rlo=np.full(cap, np.inf),
        rhi=np.full(cap, -np.inf),
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


class CompiledSearch:
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
                f"CompiledSearch needs SearchTables, received {type(tables).__name__}."
            )
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"CompiledSearch needs a SearchConfig, received {type(config).__name__}."
            )
        if config.split_actions:
            raise InvalidParameterError(
                "split_actions=True runs over the rules only (ISMCTSSearch); the compiled "
                "search keeps one ACT node per view."
            )
        if config.split_hidden or config.draw_pieces:
            name = "split_hidden" if config.split_hidden else "draw_pieces"
            raise InvalidParameterError(
                f"{name}=True runs over the rules only (ISMCTSSearch); the compiled "
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
        prm[K.P_SCALE] = 1.0 if c.value_scale == "tree" else 0.0
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
        root = np.empty((4, self._branch))
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
        visits, q_low, q_high = (row[:n_legal].copy() for row in root[:3])
        z = c.lcb_width(float(root[3, 0]))
        weights = move_weights(c.move_selection, visits, q_low, q_high, z)
        policy = np.zeros(self.tree.num_actions)
        policy[actions] = weights / weights.sum()
        return SearchResult(
            actions=actions,
            visits=visits,
            q_low=q_low,
            q_high=q_high,
            policy=policy,
            simulations=done,
            seconds=seconds,
            nodes=slots,
            infoset=infoset,
        )


SEARCH_COMPILE_PROBE = 200_000
"""Histories up to which a search compiles a game whose size is unknown (beyond it, the
search walks the rules; the probe costs about 3 s on the fighting game's default
preset)."""


def compiles_for_search(game: Game) -> bool:
    """Whether a search takes the compiled path for ``game``: its size is known and within
    :data:`~nashzoo.tree.compile.DEFAULT_MAX_NODES`, or, unknown, it compiles within
    :data:`SEARCH_COMPILE_PROBE` histories."""
    from nashzoo.tree.compile import DEFAULT_MAX_NODES, compiled_or_none

    size = game.count_histories()
    if size is not None:
        return size <= DEFAULT_MAX_NODES
    bound = game.histories_lower_bound()
    if bound is not None and bound > DEFAULT_MAX_NODES:
        return False
    return compiled_or_none(game, max_nodes=SEARCH_COMPILE_PROBE) is not None
