"""Information-set MCTS over the rules: MT-ISMCTS, A-ISMCTS and Nash-ISMCTS, the one search.

:class:`ISMCTSSearch` walks :class:`~nashzoo.games.base.State` objects, so it plays any
two-player game (Limit Hold'em, no-limit, the fighting game's default preset), and asks a
:class:`~nashzoo.agents.ismcts.knowledge.Knowledge` for P, V, V_c, H and V_w as it meets
each view. ``docs/explanation/nash-ismcts.md`` is the specification; the kernel's
docstring (:mod:`nashzoo.agents.ismcts.kernel`) names the node kinds. Where what the
search knows is tabulated over a compiled game
(:class:`~nashzoo.agents.ismcts.tables.SearchTables`: Kuhn, Leduc), it takes its fast
path, the same algorithm compiled (:class:`~nashzoo.agents.ismcts.compiled.CompiledSearch`);
``fast_path=False`` walks the rules on the same numbers (the test that both agree).

MT-ISMCTS (``variant="mt"``) needs no knowledge:

* a tree is keyed by its owner and the owner's information-state string at its root;
  its ACT nodes by the owner's information-state string, with visits and sums of
  returns per legal action;
* one simulation draws a world from the chance weights of the owner's view
  (:meth:`~nashzoo.games.base.State.hidden_worlds`, or the tree walk for games without
  that fast path), walks it with UCB1 (untried actions first; a new edge is valued by a
  uniformly random rollout), and at an opponent's decision runs ONE simulation of the
  opponent's own tree (below ``spawn_cap`` nested trees the opponent plays uniformly).

A-ISMCTS and Nash-ISMCTS (``variant="a"`` or ``"nash"``):

* ACT nodes are keyed by (tree, owner's information-state string); SAMPLE nodes by the
  ACT node and the action, their children being the worlds of the owner's view
  (:class:`~nashzoo.games.hidden.HiddenWorlds`, one per opponent private value: Limit
  Hold'em's up to 1,225 pairs), with H over them from the knowledge; GAME nodes (chance
  or the opponent to move) by the tree and the history;
* interval PUCT at ACT nodes, the L1-ball estimator at SAMPLE nodes (``eps`` 0 is
  A-ISMCTS), mixed/pure averages at ACT and opponent nodes, ONE simulation of the
  opponent's own tree at each opponent decision (``spawn_cap`` levels deep), exactly as
  the kernel does;
* luck adjustment at chance nodes: a chance node's value is the expectation over every
  outcome, each outcome's value the visited child's or, unvisited, the knowledge's value
  of it (the specification's luck adjustment: the drawn outcome's luck is removed). The
  children's views are requested with the node, so a Hold'em board card's 45 to 48
  outcomes cost one batched evaluation, not one per outcome. ``exact_chance`` bounds it
  (chance nodes with more outcomes average the outcomes drawn so far);
* H-splitting (``SearchConfig.split_hidden``): a SAMPLE node is a series of SAMPLE
  nodes, one per piece of the opponent's private information
  (:meth:`Game.hidden_value_pieces <nashzoo.games.base.Game.hidden_value_pieces>`),
  each with the ball estimator over its own pieces (:func:`_series_interval`). The
  world is still drawn from H in one draw (the same distribution as piece by piece),
  so with ``eps`` 0 the split search is the flat one move for move; with ``eps`` > 0
  the ball is applied per piece, over at most 52 cards rather than 1,225 pairs.
* The piece-by-piece draw (``SearchConfig.draw_pieces``): the same series built lazily
  from :meth:`State.hidden_pieces <nashzoo.games.base.State.hidden_pieces>`. A node holds
  one piece's options, H over them given the pieces drawn before it
  (:meth:`Knowledge.piece_belief
  <nashzoo.agents.ismcts.knowledge.Knowledge.piece_belief>`) and each partial world's
  prior value (:meth:`~nashzoo.agents.ismcts.knowledge.Knowledge.piece_values`); the
  node for a prefix is made when a simulation first draws it, and nothing lists the
  worlds. A first simulation draws one uniform and rescales it within each drawn
  option's share, so where the pieces' H are the flat H's marginals it picks the
  flat draw's world. Where the action ends the game, the last piece's nodes hold the
  worlds' payoffs and the earlier ones the action's V_c until a child is visited.
* P-splitting (``SearchConfig.split_actions``): where the game groups a decision's
  actions (:meth:`Game.action_groups <nashzoo.games.base.Game.action_groups>`: no-limit
  poker's raise sizes), the ACT node picks a group with P summed over its actions and,
  for a group of several, a second ACT node below it picks the action with P conditioned
  on the group; each runs interval PUCT and averages its own steps. The root's result
  and the step handed to a spawned tree's parent are over the actions themselves (a
  group's share times the action's share within it).

In every variant the statistics live in one dictionary bounded by ``node_cap`` nodes:
once full, a new node is valued (a rollout in MT, the knowledge otherwise) and not stored
(:attr:`~nashzoo.agents.ismcts.config.SearchResult.capped`), so memory stays bounded.

Every knowledge call happens after the views it needs were requested: the simulation is
a generator that yields the list of views the knowledge lacks
(:meth:`Knowledge.missing <nashzoo.agents.ismcts.knowledge.Knowledge.missing>`) and
resumes once they are evaluated. :meth:`ISMCTSSearch.run_state` evaluates them at
once; :func:`run_searches` advances many searches together and evaluates the union of
their requests in one forward pass (self-play), with the same result as one at a time.
A new node requests the views its children will need with it (an ACT node: the owner's
view after each action; an opponent's node: the owner's view after each of its
actions), so even one search evaluates several views per forward pass.
"""

from __future__ import annotations

import bisect
import itertools
import math
import time
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.compiled import CompiledSearch, compiles_for_search
from nashzoo.agents.ismcts.config import SearchConfig, SearchResult, move_weights
from nashzoo.agents.ismcts.interval import ball_max_groups, ball_max_kernel
from nashzoo.agents.ismcts.knowledge import (
    Knowledge,
    Request,
    TablesKnowledge,
    UninformedKnowledge,
)
from nashzoo.agents.ismcts.tables import SearchTables
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, Game, State
from nashzoo.games.hidden import HiddenPieces, HiddenWorlds
from nashzoo.games.worlds import hidden_worlds
from nashzoo.tree.compile import compile_game
from nashzoo.validation import check_int

__all__ = [
    "ISMCTSSearch",
    "run_searches",
    "view_from",
    "view_of_info",
    "EXACT_CHANCE",
    "DEFAULT_NODE_CAP",
]

EXACT_CHANCE = 52
"""Chance nodes with at most this many outcomes take the expectation over every outcome
(the luck adjustment); the default covers every deal from a standard deck."""
DEFAULT_NODE_CAP = 500_000
"""Nodes one decision's search may hold (about 1 KB each with their keys)."""
WORLDS_CACHE = 4096
"""Views whose worlds a search keeps listed (each a few KB; listed again when dropped)."""


def budget_spent(config: SearchConfig, done: int, deadline: float | None) -> bool:
    """Whether a search with ``done`` simulations has spent its budget (the simulation
    count, or the time budget's ``deadline``)."""
    if deadline is None:
        return done >= config.simulations
    return time.perf_counter() >= deadline


def view_from(game: Game, player: int, info_state: str, public_history: Any) -> State:
    """A state consistent with ``player``'s view (its information-state string and the
    public history): the rules' ``view_state``, else the first world of the tree walk."""
    view = game.view_state(player, info_state, [int(a) for a in public_history])
    if view is None:
        view = hidden_worlds(game, player, info_state, public_history).state(0)
    return view


def view_of_info(info: Mapping[str, Any]) -> tuple[int, str, np.ndarray]:
    """The player, information-state string and public history an agent's ``info``
    carries (what a search over the rules reads).

    Raises:
        InvalidParameterError: a key is missing.
    """
    for key in ("player", "info_state", "public_history", "history_length"):
        if key not in info:
            raise InvalidParameterError(
                f"A search agent reads info[{key!r}] (the referee and the envs give it); "
                f"the info has {sorted(info)}."
            )
    public = np.asarray(info["public_history"])[: int(info["history_length"])]
    return int(info["player"]), str(info["info_state"]), public


Sim = Generator[list[Request], None, tuple[int, bool, np.ndarray | None]]


class _Stepped:
    """What ACT and GAME nodes share: per child visits, the child, the mixed and pure
    step weights, and the value interval."""

    __slots__ = ("visits", "child", "qlo", "qhi", "nmix", "npure", "mixsum", "purecnt")

    def __init__(self, n: int, v: float) -> None:
        self.visits = np.zeros(n)
        self.child: list[Any] = [None] * n
        self.qlo = self.qhi = v
        self.nmix = self.npure = 0.0
        self.mixsum = np.zeros(n)
        self.purecnt = np.zeros(n)


class _Act(_Stepped):
    """ACT: the owner to move; per legal action visits, step weights and the SAMPLE
    child; the view's worlds and H once a SAMPLE child needs them.

    Under P-splitting (:meth:`grouped`) the node's choices are the groups of the legal
    actions ``flat`` (``groups``: positions in ``flat``); a group of one action has its
    SAMPLE child here, a larger group an ACT node over its actions (``actions`` the
    actions themselves, P conditioned on the group)."""

    __slots__ = ("actions", "prior", "child_value", "worlds", "belief", "flat", "groups",
                 "flat_prior", "flat_value", "pieces", "piece_belief")  # fmt: skip

    def __init__(self, actions: list[int], prior: np.ndarray, child_value: np.ndarray, v: float):
        super().__init__(len(actions), v)
        self.actions = actions
        self.prior = prior
        self.child_value = child_value
        self.worlds: HiddenWorlds | None = None
        self.belief: np.ndarray | None = None
        self.flat: list[int] | None = None  # P-splitting: the legal actions
        self.groups: list[list[int]] | None = None
        self.flat_prior = prior
        self.flat_value = child_value
        self.pieces: HiddenPieces | None = None  # draw_pieces: the view's series
        self.piece_belief: dict[tuple[int, ...], np.ndarray] = {}  # H after each prefix

    @classmethod
    def grouped(
        cls, legal: list[int], groups: list[list[int]], prior: np.ndarray, value: np.ndarray,
        v: float,
    ) -> _Act:  # fmt: skip
        """An ACT node choosing among ``groups`` of ``legal``: each group's P is the sum of
        its actions', its prior value their P-weighted mean (the plain mean where P
        gives the group nothing)."""
        mass = np.array([prior[g].sum() for g in groups])
        mean = np.array(
            [
                float(prior[g] @ value[g]) / m if m > 0 else float(value[g].mean())
                for g, m in zip(groups, mass)
            ]
        )
        node = cls(list(range(len(groups))), mass, mean, v)
        node.flat, node.groups = legal, groups
        node.flat_prior, node.flat_value = prior, value
        return node

    def within(self, g: int) -> _Act:
        """A new ACT node over group ``g``'s actions, P conditioned on the group."""
        assert self.flat is not None and self.groups is not None
        members = self.groups[g]
        return _Act(
            [self.flat[k] for k in members], self.group_shares(g), self.flat_value[members],
            float(self.child_value[g]),
        )  # fmt: skip

    def group_shares(self, g: int) -> np.ndarray:
        """Group ``g``'s actions' P conditioned on the group (over ``groups[g]``)."""
        assert self.groups is not None
        prior = self.flat_prior[self.groups[g]]
        total = float(prior.sum())
        return prior / total if total > 0 else np.full(prior.size, 1.0 / prior.size)


class _Sample:
    """SAMPLE: after the owner's action; its children are the view's worlds. Under
    ``draw_pieces`` one node of a series: its children are the options of one piece
    (``options``, their positions by value in ``index``), each the next node of the
    series, or at the last piece the world's own child."""

    __slots__ = ("belief", "cumulative", "vstar", "visits", "child", "exact", "qlo", "qhi",
                 "split", "base", "options", "index")  # fmt: skip

    def __init__(self, belief: np.ndarray, vstar: np.ndarray, exact: bool) -> None:
        self.belief = belief
        self.cumulative = _running_total(belief)  # H's, for drawing worlds
        self.vstar = vstar  # V_w of (world, action) for every world; exact at terminals
        self.exact = exact  # the action ends the game: vstar is the payoff
        self.visits: dict[int, int] = {}
        self.child: dict[int, Any] = {}
        self.qlo = self.qhi = 0.0
        self.split: _SplitValues | None = None  # H-splitting: the series' static values
        self.base: tuple[float, float] | None = None  # the ball over vstar (static), once
        self.options: np.ndarray | None = None  # draw_pieces: the piece's values
        self.index: dict[int, int] | None = None


class _Pieces:
    """H-splitting's grouping of one view's worlds by the pieces of the opponent's private
    information (:meth:`Game.hidden_value_pieces <nashzoo.games.base.Game.hidden_value_pieces>`).

    Level 0 is the first SAMPLE node of the series (one group: every world), level ``l``
    groups the worlds by their first ``l`` pieces, the last level is the worlds
    themselves. ``parent[l][u]`` is the level ``l - 1`` group of unit ``u`` of level
    ``l``; ``order[l]`` lists level ``l + 1``'s units group by group of level ``l``,
    group ``g``'s from ``bounds[l][g]`` to ``bounds[l][g + 1]``."""

    __slots__ = ("group", "parent", "order", "bounds")

    def __init__(self, pieces: np.ndarray) -> None:
        n, depth = pieces.shape
        self.group: list[np.ndarray] = [np.zeros(n, dtype=np.int64)]
        for d in range(1, depth):
            _, inverse = np.unique(pieces[:, :d], axis=0, return_inverse=True)
            self.group.append(inverse.reshape(-1).astype(np.int64))
        self.group.append(np.arange(n, dtype=np.int64))
        self.parent: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        self.order: list[np.ndarray] = []
        self.bounds: list[np.ndarray] = []
        for level in range(1, len(self.group)):
            below, above = self.group[level], self.group[level - 1]
            parent = np.zeros(int(below.max()) + 1, dtype=np.int64)
            parent[below] = above
            order = np.argsort(parent, kind="stable")
            groups = int(above.max()) + 1
            self.parent.append(parent)
            self.order.append(order)
            self.bounds.append(np.searchsorted(parent[order], np.arange(groups + 1)))

    @property
    def levels(self) -> int:
        """SAMPLE nodes in the series."""
        return len(self.order)


class _SplitValues:
    """One SAMPLE node's series under H-splitting, all static: each level's group masses
    under H, prior values (the H-weighted mean of V_w over the group's worlds) and the
    ball estimator's interval of each group over its members' prior values."""

    __slots__ = ("pieces", "mass", "prior", "base_lo", "base_hi")

    def __init__(self, pieces: _Pieces, belief: np.ndarray, vstar: np.ndarray) -> None:
        self.pieces = pieces
        self.mass: list[np.ndarray] = []
        self.prior: list[np.ndarray] = []
        for group in pieces.group:
            size = int(group.max()) + 1
            mass = np.bincount(group, weights=belief, minlength=size)
            total = np.bincount(group, weights=belief * vstar, minlength=size)
            self.mass.append(mass)
            self.prior.append(np.divide(total, mass, out=np.zeros(size), where=mass > 0))
        self.base_lo: list[np.ndarray] = []
        self.base_hi: list[np.ndarray] = []

    def member_weights(self, level: int) -> np.ndarray:
        """H within each group of ``level``, over ``order[level]``."""
        order, bounds = self.pieces.order[level], self.pieces.bounds[level]
        mass = np.repeat(self.mass[level], np.diff(bounds))
        below = self.mass[level + 1][order]
        return np.divide(below, mass, out=np.zeros(order.size), where=mass > 0)

    def group_balls(
        self, level: int, lo: np.ndarray, hi: np.ndarray, eps: float, done: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ball estimator's interval of every group of ``level`` over its members'
        intervals ``lo``, ``hi`` (arrays over level ``level + 1``'s units)."""
        order, bounds = self.pieces.order[level], self.pieces.bounds[level]
        h = self.member_weights(level)
        if eps <= 0.0:
            sums = np.add.reduceat(h * lo[order], bounds[:-1]) if order.size else np.zeros(0)
            high = np.add.reduceat(h * hi[order], bounds[:-1]) if order.size else np.zeros(0)
            return sums, high
        upper = np.empty(bounds.size - 1)
        lower = np.empty(bounds.size - 1)
        ball_max_groups(h, hi[order], bounds, eps, done, upper)
        ball_max_groups(h, -lo[order], bounds, eps, done, lower)
        return -lower, upper

    def prepare(self, eps: float, done: np.ndarray) -> None:
        """The static balls over the prior values, every level."""
        self.base_lo = [np.zeros(0)] * self.pieces.levels
        self.base_hi = [np.zeros(0)] * self.pieces.levels
        for level in range(self.pieces.levels):
            prior = self.prior[level + 1]
            self.base_lo[level], self.base_hi[level] = self.group_balls(
                level, prior, prior, eps, done
            )


class _GameNode(_Stepped):
    """GAME: chance or the opponent to move at a history below a world."""

    __slots__ = ("chance", "actions", "weights", "values")

    def __init__(self, chance: bool, actions: list[int], weights: np.ndarray, v: float) -> None:
        super().__init__(len(actions), v)
        self.chance = chance
        self.actions = actions
        self.weights = weights  # chance probabilities (chance nodes)
        self.values: np.ndarray | None = None  # each child's prior value, once needed


def _ball(h: np.ndarray, v: np.ndarray, eps: float, done: np.ndarray) -> tuple[float, float]:
    k = h.size
    if eps <= 0.0:
        x = float(h @ v)
        return x, x
    return (
        -float(ball_max_kernel(h, -v, k, eps, done)),
        float(ball_max_kernel(h, v, k, eps, done)),
    )


class _Context:
    """One search's statistics and random numbers (many run side by side in self-play)."""

    def __init__(self, rng: np.random.Generator, noise: np.ndarray | None) -> None:
        self.rng = rng
        self.random = rng.random
        self.noise = noise
        self.nodes: dict[Any, Any] = {}
        self.capped = False
        self.ranges: dict[tuple[int, str], tuple[float, float]] = {}  # value_scale="tree"


class _MTNode:
    """An MT-ISMCTS ACT node: the owner's legal actions, visits and sums of returns."""

    __slots__ = ("actions", "visits", "totals", "n")

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions
        self.visits = [0] * len(actions)
        self.totals = [0.0] * len(actions)
        self.n = 0


class ISMCTSSearch:
    """MT-ISMCTS, A-ISMCTS or Nash-ISMCTS (``config.variant``) at any state of a
    two-player game (see the module docstring).

    Args:
        game: a two-player game whose states list their hidden worlds (or small enough
            for the tree walk).
        knowledge: P, V, V_c, H and V_w: a :class:`Knowledge`, or
            :class:`~nashzoo.agents.ismcts.tables.SearchTables` of a compiled game (the
            fast path). Default: nothing (uniform P, chance-weighted H, zero values),
            on the fast path where the game compiles
            (:func:`~nashzoo.agents.ismcts.compiled.compiles_for_search`).
        config: the settings (default ``SearchConfig()``, Nash-ISMCTS).
        node_cap: the most nodes one decision's trees may hold over the rules.
        exact_chance: chance nodes with at most this many outcomes take the expectation
            over every outcome (the luck adjustment); larger ones average the outcomes
            drawn (0: every chance node does).
        fast_path: take the compiled search where the knowledge is tables (``False``:
            walk the rules on the same numbers).

    Attributes:
        compiled: the compiled search of the fast path (``None``: the search walks the
            rules, as it does under H- or P-splitting, which only it implements).

    Raises:
        InvalidParameterError: not a two-player game, tables or a knowledge of another
            game, ``belief="model"`` over the rules (compiled path only), or a bad cap.
    """

    def __init__(
        self,
        game: Game,
        knowledge: Knowledge | SearchTables | None = None,
        config: SearchConfig | None = None,
        *,
        node_cap: int = DEFAULT_NODE_CAP,
        exact_chance: int = EXACT_CHANCE,
        fast_path: bool = True,
    ) -> None:
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"ISMCTSSearch needs a two-player nashzoo Game, received {game}."
            )
        config = SearchConfig() if config is None else config
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"ISMCTSSearch needs a SearchConfig, received {type(config).__name__}."
            )
        splits = config.split_hidden or config.split_actions or config.draw_pieces
        if config.variant == "mt" and splits:
            raise InvalidParameterError(
                "split_hidden, draw_pieces and split_actions split the SAMPLE and ACT nodes of "
                "A- and Nash-ISMCTS; MT-ISMCTS has no SAMPLE nodes and keeps one ACT node per "
                "view."
            )
        if knowledge is None and fast_path and not splits and compiles_for_search(game):
            knowledge = SearchTables.uninformed(compile_game(game))
        self.tables = knowledge if isinstance(knowledge, SearchTables) else None
        self.compiled: CompiledSearch | None = None
        if self.tables is not None:
            if self.tables.tree.game != game:
                raise InvalidParameterError(
                    f"The tables are for {self.tables.tree.game}, the search for {game}."
                )
            if fast_path and not splits:
                self.compiled = CompiledSearch(self.tables, config)
            knowledge = TablesKnowledge(self.tables)
        if self.compiled is None and config.belief != "table":
            raise InvalidParameterError(
                f"belief={config.belief!r} runs on the compiled path only; over the rules "
                "H comes from the knowledge (belief='table')."
            )
        knowledge = UninformedKnowledge(game) if knowledge is None else knowledge
        if not isinstance(knowledge, Knowledge):
            raise InvalidParameterError(
                f"knowledge must be a Knowledge or SearchTables, received "
                f"{type(knowledge).__name__}."
            )
        if knowledge.game != game:
            raise InvalidParameterError(
                f"The knowledge is for {knowledge.game}, the search for {game}."
            )
        self.game = game
        self.knowledge = knowledge
        self._config = config
        self.node_cap = check_int("node_cap", node_cap, 1)
        self.exact_chance = check_int("exact_chance", exact_chance, 0)
        self.scale = float(game.max_payoff_magnitude) or 1.0
        self._worlds: dict[tuple[int, str], HiddenWorlds] = {}
        self._pieces: dict[Any, tuple[HiddenWorlds, _Pieces | None]] = {}
        self._done = np.zeros(16, dtype=np.bool_)

    @property
    def config(self) -> SearchConfig:
        """The settings (read at every search: a new config takes effect at the next)."""
        return self._config

    @config.setter
    def config(self, config: SearchConfig) -> None:
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"A search's config is a SearchConfig, received {type(config).__name__}."
            )
        if self.compiled is not None:
            self.compiled.config = config
        self._config = config

    # -- entry points ---------------------------------------------------------------------
    def run_state(
        self, state: State, rng: np.random.Generator | int, *, self_play: bool = False
    ) -> SearchResult:
        """Search for the player to move at ``state``, using only that player's view."""
        gen = self.search_state(state, rng, self_play=self_play)
        return run_searches(self.knowledge, [gen])[0]

    def run_view(
        self,
        player: int,
        info_state: str,
        public_history: Any,
        rng: np.random.Generator | int,
    ) -> SearchResult:
        """Search for ``player`` at the view an agent receives (its information-state
        string and the public history)."""
        return self.run_state(view_from(self.game, player, info_state, public_history), rng)

    def search_state(
        self, state: State, rng: np.random.Generator | int, *, self_play: bool = False
    ) -> Generator[list[Request], None, SearchResult]:
        """The search at ``state`` as a generator that yields the views to evaluate and
        returns the result (:func:`run_searches` drives many)."""
        player = state.current_player()
        if player < 0:
            raise InvalidParameterError(
                f"A search runs where a player is to move; player {player} is (chance or the end)."
            )
        if self.compiled is not None:
            assert isinstance(self.knowledge, TablesKnowledge)
            tree = self.compiled.tree
            infoset = int(tree.infoset[self.knowledge.node(state.history())])
            return self.compiled.run(infoset, rng, self_play=self_play)
        c = self.config
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self._worlds.clear()
        self._pieces.clear()
        root = (player, state.information_state_string_unchecked(player))
        start = time.perf_counter()
        deadline = None if c.time_budget is None else start + float(c.time_budget)
        done = 0
        span = 0.0  # the root tree's value range (value_scale "tree")
        if c.variant == "mt":
            ctx = _Context(gen, None)
            worlds = self._worlds_at(state, player)
            while not done or not budget_spent(c, done, deadline):
                self._simulate_mt(ctx, root, worlds.state_at(gen.random()), 0)
                done += 1
            mt: _MTNode = ctx.nodes[(root, root[1])]
            actions, visits = mt.actions, np.asarray(mt.visits, dtype=np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                lo = np.where(visits > 0, np.asarray(mt.totals) / visits, np.nan)
            hi = lo.copy()
        else:
            noise = None
            if self_play and c.noise_fraction > 0:
                noise = gen.dirichlet(np.full(len(state.legal_actions()), c.noise_alpha))
            ctx = _Context(gen, noise)
            view = state.clone()
            while not done or not budget_spent(c, done, deadline):
                yield from self._simulate(ctx, root, view, 0)
                done += 1
            actions, visits, lo, hi = _root_statistics(ctx.nodes[(root, root[1])])
            low, high = ctx.ranges.get(root, (0.0, 0.0))
            span = max(high - low, 0.0)
        seconds = time.perf_counter() - start
        weights = move_weights(c.move_selection, visits, lo, hi, c.lcb_width(span))
        policy = np.zeros(self.game.num_distinct_actions)
        ids = np.asarray(actions, dtype=np.int64)
        policy[ids] = weights / weights.sum()
        return SearchResult(
            actions=ids,
            visits=visits,
            q_low=lo,
            q_high=hi,
            policy=policy,
            simulations=done,
            seconds=seconds,
            nodes=len(ctx.nodes),
            capped=ctx.capped,
        )

    # -- helpers ----------------------------------------------------------------------------
    def _worlds_at(self, state: State, player: int) -> HiddenWorlds:
        """The worlds of ``player``'s view of ``state`` (the rules' fast path, else the
        tree walk), kept by view; the cache is emptied at :data:`WORLDS_CACHE` views
        (bounded: listing again is cheap)."""
        key = (player, state.information_state_string_unchecked(player))
        worlds = self._worlds.get(key)
        if worlds is None:
            worlds = state.hidden_worlds(player)
            if worlds is None:
                worlds = hidden_worlds(self.game, player, key[1], state.public_history())
            if len(self._worlds) >= WORLDS_CACHE:
                self._worlds.clear()
            self._worlds[key] = worlds
        return worlds

    def _pieces_of(self, worlds: HiddenWorlds) -> _Pieces | None:
        """H-splitting's grouping of ``worlds`` (``None``: the game names no pieces, or
        one piece, where the node stays flat); kept by the worlds' values where they are
        hashable (Hold'em's views with the same cards seen share them), else while the
        worlds are."""
        values = worlds.values
        try:
            key: Any = ("values", values)
            hash(key)
        except TypeError:
            key = ("worlds", id(worlds))
        found = self._pieces.get(key)
        if found is not None and (key[0] == "values" or found[0] is worlds):
            return found[1]
        array = self.game.hidden_value_pieces(values)
        pieces = None
        if array is not None and array.ndim == 2 and array.shape[1] > 1:
            pieces = _Pieces(array)
        if len(self._pieces) >= WORLDS_CACHE:
            self._pieces.clear()
        self._pieces[key] = (worlds, pieces)
        return pieces

    def _ensure(self, pairs: list[tuple[State, int]]) -> Generator[list[Request], None, None]:
        need = self.knowledge.missing(pairs)
        if need:
            yield need

    def _store(self, ctx: _Context, key: Any, node: Any) -> bool:
        """Keep ``node`` unless the cap is reached (then it is valued and dropped)."""
        if len(ctx.nodes) < self.node_cap:
            ctx.nodes[key] = node
            return True
        ctx.capped = True
        return False

    def _new_act(self, ctx: _Context, key: Any, state: State, p: int) -> Generator[Any, None, _Act]:
        """An ACT node for ``p`` at ``state``; requests the views after each action too."""
        legal = list(state.legal_actions())
        after = []
        for a in legal:
            s = state.clone()
            s.apply_unchecked(a)
            after.append((s, p))
        yield from self._ensure([(state, p), *after])
        prior, child_value, v = self.knowledge.act(state, p)
        if self.config.split_actions:
            groups = self.game.action_groups(legal)
            if groups is not None:
                return _Act.grouped(legal, groups, prior, child_value, v)
        return _Act(legal, prior, child_value, v)

    def _new_sample(
        self, ctx: _Context, act: _Act, state: State, p: int, a: int
    ) -> Generator[Any, None, _Sample]:
        """A SAMPLE node after action ``a`` of ``act``'s view (its worlds and H kept on
        ``act``, the view's top ACT node)."""
        if act.worlds is None:
            act.worlds = self._worlds_at(state, p)
            act.belief = self.knowledge.belief(state, p, act.worlds)
        worlds = act.worlds
        after = state.clone()
        after.apply_unchecked(a)
        if after.is_terminal():  # the action ends the game: each world's payoff
            fast = after.returns_over(p, worlds.values)
            if fast is not None:
                vstar = np.asarray(fast, dtype=np.float64) / self.scale
            else:
                vstar = np.empty(len(worlds))
                for k in range(len(worlds)):
                    s = worlds.state(k)
                    s.apply_unchecked(a)
                    vstar[k] = s.returns()[p] / self.scale
            exact = True
        else:
            yield from self._ensure([(after, p)])
            vstar = np.asarray(self.knowledge.world_values(after, p, worlds), dtype=np.float64)
            exact = False
        assert act.belief is not None
        node = _Sample(act.belief, vstar, exact)
        if self._done.size < len(worlds):
            self._done = np.zeros(len(worlds), dtype=np.bool_)
        if self.config.split_hidden:
            pieces = self._pieces_of(worlds)
            if pieces is not None:
                node.split = _SplitValues(pieces, act.belief, vstar)
                if exact:  # every world's value known: the series' interval, once
                    node.qlo, node.qhi = self._split_interval(node)
        return node

    def _pieces_at(self, act: _Act, state: State, p: int) -> HiddenPieces:
        """The series of ``act``'s view (``state``; kept on the node): the rules' own
        where the game has them, else its worlds grouped by their pieces."""
        if act.pieces is None:
            found = state.hidden_pieces(p)
            if found is None:
                worlds = self._worlds_at(state, p)
                found = HiddenPieces.from_worlds(
                    worlds, self.game.hidden_value_pieces(worlds.values)
                )
            act.pieces = found
        return act.pieces

    def _new_piece(
        self,
        act: _Act,
        state: State,
        after: State,
        p: int,
        a: int,
        prefix: tuple[int, ...],
        prior: float,
    ) -> Generator[Any, None, _Sample]:
        """The SAMPLE node of ``act``'s series after action ``a`` (``after``: ``state``
        after it) that draws the piece after ``prefix`` (``draw_pieces``): H over its
        options given ``prefix`` (kept on ``act``: every action's series shares it) and
        each partial world's value after the action; where the action ends the game,
        the last piece's worlds' payoffs (exact) and, before it, ``prior`` (the action's
        V_c) until a child is visited. The first node of a series requests the view
        after the action; the later ones read it (a knowledge evaluates a view it no
        longer holds alone)."""
        pieces = self._pieces_at(act, state, p)
        options, _ = pieces.options(prefix)
        h = act.piece_belief.get(prefix)
        if h is None:
            h = act.piece_belief[prefix] = np.asarray(
                self.knowledge.piece_belief(state, p, pieces, prefix), dtype=np.float64
            )
        last = len(prefix) == pieces.levels - 1
        exact = False
        if after.is_terminal():
            if last:
                exact = True
                series = [(*prefix, int(c)) for c in options.tolist()]
                fast = after.returns_over(p, [pieces.value(x) for x in series])
                if fast is not None:
                    vstar = np.asarray(fast, dtype=np.float64) / self.scale
                else:
                    vstar = np.empty(len(series))
                    for k, x in enumerate(series):
                        world = pieces.state(x)
                        world.apply_unchecked(a)
                        vstar[k] = world.returns()[p] / self.scale
            else:
                vstar = np.full(options.size, prior)
        else:
            if not prefix:
                yield from self._ensure([(after, p)])
            vstar = np.asarray(
                self.knowledge.piece_values(state, after, p, pieces, prefix), dtype=np.float64
            )
        node = _Sample(h, vstar, exact)
        node.options = options
        node.index = {int(c): k for k, c in enumerate(options.tolist())}
        if self._done.size < options.size:
            self._done = np.zeros(options.size, dtype=np.bool_)
        return node

    def _walk_pieces(
        self,
        ctx: _Context,
        act: _Act,
        holder: _Act,
        slot: int,
        view: State,
        p: int,
        action: int,
        state: State | None,
        path: list[tuple[Any, int]],
    ) -> Generator[Any, None, tuple[_Sample, int, State]]:
        """Down ``act``'s series after ``action`` (``draw_pieces``), a node per piece,
        making the nodes it reaches first: each piece drawn from the node's H where no
        world is drawn yet (``state`` ``None``: the world is then built from the
        pieces), else read from ``state``'s world. Records each node's visit on ``path``;
        returns the last node, the world's position there, and the world."""
        pieces = self._pieces_at(act, view, p)
        target = None if state is None else pieces.pieces_of(state)
        prior = float(holder.child_value[slot])
        node = holder.child[slot]
        after: State | None = None  # the view after the action, made once if needed
        if node is None:
            after = view.clone()
            after.apply_unchecked(action)
            node = yield from self._new_piece(act, view, after, p, action, (), prior)
            holder.child[slot] = node
        prefix: tuple[int, ...] = ()
        u = ctx.random() if target is None else 0.0
        while True:
            assert node.options is not None and node.index is not None
            if target is None:
                k, u = _draw_within(node.cumulative, u)
            else:
                found = node.index.get(int(target[len(prefix)]))
                if found is None:
                    raise InvalidParameterError(
                        f"the world's piece {target[len(prefix)]} after {prefix} is not one "
                        f"of the view's options {node.options.tolist()}."
                    )
                k = found
            node.visits[k] = node.visits.get(k, 0) + 1
            path.append((node, k))
            prefix = (*prefix, int(node.options[k]))
            if len(prefix) == pieces.levels:
                break
            below = node.child.get(k)
            if below is None:
                if after is None:
                    after = view.clone()
                    after.apply_unchecked(action)
                below = yield from self._new_piece(act, view, after, p, action, prefix, prior)
                node.child[k] = below
            node = below
        return node, k, pieces.state(prefix) if state is None else state

    def _new_game(self, state: State, p: int) -> Generator[Any, None, _GameNode]:
        """A GAME node (chance or the opponent) for owner ``p``; requests the owner's
        views after each child it may need to value before visiting it."""
        chance = state.current_player() == CHANCE
        if chance:
            outcomes = state.chance_outcomes()
            actions = [int(a) for a, _ in outcomes]
            weights = np.array([pr for _, pr in outcomes], dtype=np.float64)
            expand = len(actions) <= self.exact_chance
        else:
            actions = [int(a) for a in state.legal_actions()]
            weights = np.zeros(0)
            expand = True
        children: list[State] = []
        if expand:
            for a in actions:
                s = state.clone()
                s.apply_unchecked(a)
                children.append(s)
        yield from self._ensure([(state, p), *((s, p) for s in children)])
        node = _GameNode(chance, actions, weights, self.knowledge.history_value(state, p))
        if expand:
            node.values = self.knowledge.history_values(children, p)
        return node

    def _prior_move(self, ctx: _Context, state: State, q: int) -> Generator[Any, None, int]:
        """Below the spawn cap: the opponent ``q`` plays P at its own view."""
        yield from self._ensure([(state, q)])
        prior, _, _ = self.knowledge.act(state, q)
        legal = state.legal_actions()
        return int(legal[sample_index(np.cumsum(prior), ctx.random())])

    # -- MT-ISMCTS ---------------------------------------------------------------------------
    def _simulate_mt(self, ctx: _Context, root: tuple[int, str], state: State, level: int) -> int:
        """One MT-ISMCTS simulation of the tree ``root`` (owner to move at ``state``, a
        world drawn from the owner's belief, changed in place); returns the action chosen
        at the tree's root (-1 when the node cap left no room for the root)."""
        random = ctx.random
        nodes = ctx.nodes
        owner = root[0]
        path: list[tuple[_MTNode, int]] = []
        c_uct = self.config.c_uct
        spawn_cap = self.config.spawn_cap
        while True:
            if state.is_terminal():
                value = state.returns()[owner] / self.scale
                break
            p = state.current_player()
            if p == CHANCE:
                state.advance_chance(random)
                continue
            if p != owner:
                action = -1
                if level < spawn_cap:
                    worlds = self._worlds_at(state, p)
                    spawned = (p, state.information_state_string_unchecked(p))
                    action = self._simulate_mt(ctx, spawned, worlds.state_at(random()), level + 1)
                if action < 0:  # below the cap, or no room for the spawned tree's root
                    legal = state.legal_actions()
                    action = legal[int(random() * len(legal))]
                state.apply_unchecked(action)
                continue
            key = (root, state.information_state_string_unchecked(owner))
            node = nodes.get(key)
            if node is None:
                if len(nodes) >= self.node_cap:
                    ctx.capped = True
                    value = self._rollout(ctx, state, owner)
                    break
                node = nodes[key] = _MTNode(list(state.legal_actions()))
            untried = [i for i, n in enumerate(node.visits) if n == 0]
            if untried:  # a new edge: valued by a random rollout
                i = untried[int(random() * len(untried))]
                path.append((node, i))
                state.apply_unchecked(node.actions[i])
                value = self._rollout(ctx, state, owner)
                break
            log_n = math.log(node.n)
            best, best_score = 0, -math.inf
            for i, n in enumerate(node.visits):
                score = node.totals[i] / n + c_uct * math.sqrt(log_n / n)
                if score > best_score:
                    best, best_score = i, score
            path.append((node, best))
            state.apply_unchecked(node.actions[best])
        for node, i in path:
            node.visits[i] += 1
            node.totals[i] += value
            node.n += 1
        return path[0][0].actions[path[0][1]] if path else -1

    def _rollout(self, ctx: _Context, state: State, owner: int) -> float:
        """Uniformly random play (chance by the rules) to the end; the owner's scaled
        return."""
        random = ctx.random
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.advance_chance(random)
            else:
                legal = state.legal_actions()
                state.apply_unchecked(legal[int(random() * len(legal))])
        return state.returns()[owner] / self.scale

    # -- A- and Nash-ISMCTS ------------------------------------------------------------------
    def _simulate(self, ctx: _Context, root: tuple[int, str], view: State, level: int) -> Sim:
        """One simulation of the tree ``root`` (owner to move at ``view``, any world of the
        owner's view). Returns the root action, whether its step was mixed, and the mixed
        step's distribution over the root's actions."""
        p = root[0]
        config = self.config
        nodes = ctx.nodes
        key = (root, root[1])
        found = nodes.get(key)
        if found is None:
            found = yield from self._new_act(ctx, key, view, p)
            nodes[key] = found  # the root is kept whatever the cap
        node: _Act = found
        path: list[tuple[Any, int]] = []
        state: State | None = None  # the world, drawn at the first SAMPLE node
        act_state: State = view
        root_action, root_mixed, root_mix = -1, False, None
        depth = 0
        while True:
            # ACT: interval PUCT (under P-splitting: the group, then the action in it)
            noise = ctx.noise if level == 0 and depth == 0 else None
            if noise is not None and node.groups is not None:
                noise = np.array([noise[g].sum() for g in node.groups])
            j, mix = self._select(ctx, root, node, noise)
            path.append((node, j))
            holder, slot, inner = node, j, None
            if node.groups is None:
                action = node.actions[j]
            else:
                assert node.flat is not None
                members = node.groups[j]
                if len(members) == 1:
                    action = node.flat[members[0]]
                else:
                    sub = node.child[j]
                    if sub is None:
                        sub = node.child[j] = node.within(j)
                    slot, inner = self._select(ctx, root, sub, None)
                    path.append((sub, slot))
                    holder, action = sub, sub.actions[slot]
                if depth == 0:
                    mix = _flat_step(node, j, mix, slot if holder is not node else 0, inner)
            if depth == 0:
                root_action, root_mixed, root_mix = action, mix is not None, mix
            if config.draw_pieces:
                sample, k, state = yield from self._walk_pieces(
                    ctx, node, holder, slot, act_state, p, action, state, path
                )
            else:
                sample = holder.child[slot]
                if sample is None:
                    sample = yield from self._new_sample(ctx, node, act_state, p, action)
                    holder.child[slot] = sample
                worlds = node.worlds
                assert worlds is not None
                if state is None:
                    k = _draw_cumulative(sample.cumulative, ctx.random())
                    state = worlds.state(k)
                else:
                    k = _world_index(worlds, state, p)
                sample.visits[k] = sample.visits.get(k, 0) + 1
                path.append((sample, k))
            state.apply_unchecked(action)
            prev: Any = sample
            prev_index = k
            # walk the world to the next ACT node, a terminal or a new node
            stop = False
            while True:
                if state.is_terminal():
                    if not isinstance(prev, _Sample):  # a GAME node's terminal child
                        _link(prev, prev_index, state.returns()[p] / self.scale)
                    stop = True
                    break
                pl = state.current_player()
                if pl == p:
                    info = state.information_state_string_unchecked(p)
                    akey = (root, info)
                    nxt = nodes.get(akey)
                    if nxt is None:
                        new = yield from self._new_act(ctx, akey, state, p)
                        if self._store(ctx, akey, new):
                            _link(prev, prev_index, new)
                        stop = True
                    else:
                        _link(prev, prev_index, nxt)
                        node = nxt
                        act_state = state
                        depth += 1
                    break
                gkey = (root, tuple(state.history()))
                gnode = _child(prev, prev_index)
                if gnode is None:
                    gnode = nodes.get(gkey)
                    created = gnode is None
                    if created:
                        gnode = yield from self._new_game(state, p)
                        if self._store(ctx, gkey, gnode):
                            _link(prev, prev_index, gnode)
                        stop = True
                        break
                    _link(prev, prev_index, gnode)
                if pl == CHANCE:
                    jj = _draw(gnode.weights, ctx.random())
                else:
                    if level < config.spawn_cap:
                        spawned = (pl, state.information_state_string_unchecked(pl))
                        a, mixed, mix = yield from self._simulate(
                            ctx, spawned, state.clone(), level + 1
                        )
                        jj = gnode.actions.index(a)
                        if mixed:
                            gnode.nmix += 1.0
                            gnode.mixsum += mix
                        else:
                            gnode.npure += 1.0
                            gnode.purecnt[jj] += 1.0
                    else:
                        a = yield from self._prior_move(ctx, state, pl)
                        jj = gnode.actions.index(a)
                        gnode.npure += 1.0
                        gnode.purecnt[jj] += 1.0
                gnode.visits[jj] += 1.0
                path.append((gnode, jj))
                prev, prev_index = gnode, jj
                state.apply_unchecked(gnode.actions[jj])
            if stop:
                break
        for entry, _ in reversed(path):
            self._recompute(entry)
        return root_action, root_mixed, root_mix

    def _select(
        self, ctx: _Context, root: tuple[int, str], node: _Act, noise: np.ndarray | None
    ) -> tuple[int, np.ndarray | None]:
        """Interval PUCT at ``node`` of the tree ``root`` (``noise``: the root's Dirichlet
        noise over its choices, self-play only); records the step. Returns the choice's
        index and the mixed step's distribution (``None`` for a pure step). Under
        ``value_scale="tree"`` the exploration term is scaled by the range of the values
        this tree's ACT nodes have compared so far (MuZero's min-max normalisation: the
        same choices as normalising every value to that range), then the range takes in
        the values read here."""
        config = self.config
        c_puct = config.c_puct
        scaled = config.value_scale == "tree"
        if scaled:
            low_seen, high_seen = ctx.ranges.get(root, (math.inf, -math.inf))
            if high_seen > low_seen:
                c_puct *= high_seen - low_seen
        # Python floats throughout: the nodes' arrays are a few entries long, where each
        # numpy operation costs more than the arithmetic (the same numbers either way)
        visits = node.visits.tolist()
        prior = node.prior.tolist()
        sq = math.sqrt(sum(visits))
        if noise is not None:
            frac = config.noise_fraction
            prior_u = [(1.0 - frac) * q + frac * z for q, z in zip(prior, noise.tolist())]
        else:
            prior_u = prior
        values = node.child_value.tolist()
        n = len(visits)
        high = [0.0] * n
        best, best_low = 0, 0.0
        for j in range(n):  # the first maximum of the lower ends, as the kernel
            child = node.child[j]
            if child is not None and visits[j] > 0:
                lo, hi = child.qlo, child.qhi
            else:
                lo = hi = values[j]
            if scaled:
                low_seen = min(low_seen, lo)
                high_seen = max(high_seen, hi)
            u = c_puct * prior_u[j] * sq / (1.0 + visits[j])
            high[j] = hi + u
            if j == 0 or lo + u > best_low:
                best, best_low = j, lo + u
        if scaled:
            ctx.ranges[root] = (low_seen, high_seen)
        members = [j == best or high[j] >= best_low for j in range(n)]
        mass = 0.0
        for j in range(n):
            if members[j]:
                mass += prior[j]
        mix = None
        chosen = best
        if sum(members) > 1 and mass > 0.0:
            mix = np.where(members, node.prior, 0.0) / mass
            r = ctx.random() * mass
            chosen = -1
            for j in range(n):
                if members[j] and prior[j] > 0.0:
                    r -= prior[j]
                    if r < 0.0:
                        chosen = j
                        break
            if chosen < 0:
                chosen = int(np.flatnonzero(mix > 0)[-1])
        node.visits[chosen] += 1.0
        if mix is not None:
            node.nmix += 1.0
            node.mixsum += mix
        else:
            node.npure += 1.0
            node.purecnt[chosen] += 1.0
        return chosen, mix

    def _split_interval(self, node: _Sample) -> tuple[float, float]:
        """The interval of an H-split SAMPLE node: at a terminal action every world's
        payoff is known (the nested ball over them); else the visited worlds' children
        (:func:`_series_interval`; ``"polled"``: the nested ball over each world's own
        interval)."""
        split = node.split
        assert split is not None
        eps = self.config.effective_eps
        if node.exact:
            return _nested_ball(split, node.vstar, node.vstar, eps, self._done)
        count = len(node.visits)
        worlds = np.fromiter(node.visits.keys(), dtype=np.int64, count=count)
        visits = np.fromiter(node.visits.values(), dtype=np.float64, count=count)
        lo = node.vstar[worlds].astype(np.float64)
        hi = lo.copy()
        for i, k in enumerate(node.visits):
            child = node.child.get(k)
            if child is not None:
                lo[i], hi[i] = child.qlo, child.qhi
        if self.config.estimator == "polled":
            low, high = split.prior[-1].copy(), split.prior[-1].copy()
            low[worlds], high[worlds] = lo, hi
            return _nested_ball(split, low, high, eps, self._done)
        if not split.base_lo:
            split.prepare(eps, self._done)
        return _series_interval(split, worlds, visits, lo, hi)

    def _recompute(self, node: Any) -> None:
        """Refresh ``node``'s interval from its children (the kernel's ``_recompute``)."""
        if isinstance(node, _Sample):
            if node.split is not None:
                if not node.exact:
                    node.qlo, node.qhi = self._split_interval(node)
                return
            if node.base is None:  # the ball over the prior values: the same every time
                node.base = _ball(node.belief, node.vstar, self.config.effective_eps, self._done)
            if node.exact:
                node.qlo, node.qhi = node.base
                return
            total = sum(node.visits.values())
            eps = self.config.effective_eps
            if self.config.estimator == "polled":
                low, high = node.vstar.copy(), node.vstar.copy()
                for k in node.visits:
                    child = node.child.get(k)
                    if child is not None:
                        low[k], high[k] = child.qlo, child.qhi
                node.qlo = _ball(node.belief, low, eps, self._done)[0]
                node.qhi = _ball(node.belief, high, eps, self._done)[1]
                return
            res_lo = res_hi = 0.0
            children = node.child
            vstar = node.vstar
            for k, n in node.visits.items():
                child = children.get(k)
                if child is None:
                    continue
                share = n / total
                prior_k = float(vstar[k])
                res_lo += share * (child.qlo - prior_k)
                res_hi += share * (child.qhi - prior_k)
            lo, hi = node.base
            node.qlo, node.qhi = lo + res_lo, hi + res_hi
            return
        if isinstance(node, _Act):
            steps = node.nmix + node.npure
            if steps <= 0.0:
                return
            weight = (node.mixsum + node.purecnt).tolist()
            visits = node.visits.tolist()
            values = node.child_value.tolist()
            lo = hi = 0.0
            for j, w in enumerate(weight):
                if w <= 0.0:
                    continue
                child = node.child[j]
                if child is not None and visits[j] > 0:
                    lo += w * child.qlo
                    hi += w * child.qhi
                else:
                    lo += w * values[j]
                    hi += w * values[j]
            node.qlo, node.qhi = lo / steps, hi / steps
            return
        # a GAME node
        if node.chance:
            if node.values is None:  # many outcomes: the average of those drawn
                lo = hi = count = 0.0
                for j in np.flatnonzero(node.visits).tolist():
                    child = node.child[j]
                    if child is not None:  # (None: not kept, the cap was reached)
                        count += node.visits[j]
                        lo += node.visits[j] * _low(child)
                        hi += node.visits[j] * _high(child)
                if count > 0:
                    node.qlo, node.qhi = lo / count, hi / count
                return
            weight = node.weights.tolist()
            steps = 1.0
        else:
            steps = node.nmix + node.npure
            if steps <= 0.0:
                return
            weight = (node.mixsum + node.purecnt).tolist()
        visits = node.visits.tolist()
        values = node.values.tolist() if node.values is not None else None
        lo = hi = 0.0
        for j, w in enumerate(weight):
            if w <= 0.0:
                continue
            child = node.child[j]
            if visits[j] > 0 and child is not None:
                lo += w * _low(child)
                hi += w * _high(child)
            else:
                v = values[j] if values is not None else 0.0
                lo += w * v
                hi += w * v
        node.qlo, node.qhi = lo / steps, hi / steps


def _root_statistics(node: _Act) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """The root's legal actions with their visits and value intervals (NaN where not
    visited); under P-splitting, an action of a group of several takes the visits and
    interval of its child in the group's ACT node."""
    if node.groups is None:
        actions = list(node.actions)
        places: list[tuple[_Act | None, int]] = [(node, j) for j in range(len(actions))]
    else:
        assert node.flat is not None
        actions = list(node.flat)
        places = [(None, 0)] * len(actions)
        for g, members in enumerate(node.groups):
            if len(members) == 1:
                places[members[0]] = (node, g)
            else:  # the group's own ACT node (None: never entered, no visits)
                for i, k in enumerate(members):
                    places[k] = (node.child[g], i)
    visits = np.zeros(len(actions))
    lo = np.full(len(actions), np.nan)
    hi = np.full(len(actions), np.nan)
    for k, (holder, j) in enumerate(places):
        if holder is None:
            continue
        visits[k] = holder.visits[j]
        child = holder.child[j]
        if child is not None and visits[k] > 0 and not isinstance(child, _Act):
            lo[k], hi[k] = child.qlo, child.qhi
    return actions, visits, lo, hi


def _flat_step(
    node: _Act, g: int, mix: np.ndarray | None, slot: int, inner: np.ndarray | None
) -> np.ndarray | None:
    """A P-split root step as a distribution over the legal actions (what a spawned
    tree's parent averages), or ``None`` for a pure step: the group step's distribution
    (or the chosen group ``g``) times, within each group, the inner step's distribution
    for ``g`` (or its chosen ``slot``) and P conditioned on the group elsewhere."""
    assert node.flat is not None and node.groups is not None
    if mix is None and inner is None:
        return None
    out = np.zeros(len(node.flat))
    weights = mix if mix is not None else np.eye(len(node.groups))[g]
    for h, members in enumerate(node.groups):
        if weights[h] <= 0.0:
            continue
        if h == g:
            share = inner if inner is not None else np.eye(len(members))[slot]
        else:
            share = node.group_shares(h)
        out[members] += weights[h] * share
    return out


def _series_interval(
    split: _SplitValues,
    worlds: np.ndarray,
    visits: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
) -> tuple[float, float]:
    """The interval of an H-split SAMPLE series (the spec's estimator, one node per
    piece), from the worlds up: each level's group is the ball over its members' prior
    values (static, :meth:`_SplitValues.prepare`) plus the visit-weighted residuals of
    its visited members (their interval less their prior value). ``worlds`` are the
    visited worlds with their ``visits`` and intervals ``lo``, ``hi`` (the prior value
    where a world has no child). With ``eps`` 0 this is the flat node's value exactly."""
    pieces = split.pieces
    units = worlds
    for level in range(pieces.levels - 1, -1, -1):
        prior = split.prior[level + 1][units]
        groups, inverse = np.unique(pieces.parent[level + 1][units], return_inverse=True)
        n = np.bincount(inverse, weights=visits)
        res_lo = np.bincount(inverse, weights=visits * (lo - prior)) / n
        res_hi = np.bincount(inverse, weights=visits * (hi - prior)) / n
        units, visits = groups, n
        lo = split.base_lo[level][groups] + res_lo
        hi = split.base_hi[level][groups] + res_hi
    return float(lo[0]), float(hi[0])


def _nested_ball(
    split: _SplitValues, lo: np.ndarray, hi: np.ndarray, eps: float, done: np.ndarray
) -> tuple[float, float]:
    """The interval of an H-split SAMPLE series whose every world's interval is known
    (``lo``, ``hi``: a terminal action's payoffs, or the ``"polled"`` estimator's
    intervals with the prior value where unvisited): each level's groups take the ball
    over their members' intervals, from the worlds up, all groups of a level in one
    call."""
    for level in range(split.pieces.levels - 1, -1, -1):
        lo, hi = split.group_balls(level, lo, hi, eps, done)
    return float(lo[0]), float(hi[0])


def _low(child: Any) -> float:
    return float(child) if isinstance(child, float) else child.qlo


def _high(child: Any) -> float:
    return float(child) if isinstance(child, float) else child.qhi


def _child(parent: Any, index: int) -> Any:
    child = parent.child[index] if not isinstance(parent, _Sample) else parent.child.get(index)
    return None if isinstance(child, float) else child


def _link(parent: Any, index: int, child: Any) -> None:
    parent.child[index] = child


def _world_index(worlds: HiddenWorlds, state: State, p: int) -> int:
    """The index of ``state``'s world among ``worlds`` (``p``'s view): by the opponent's
    private value, or by the history where the worlds come from the tree walk."""
    value = state.private_information(1 - p)
    return worlds.index_of(tuple(state.history()) if value is None else value)


def _draw(weights: np.ndarray, u: float) -> int:
    """The index whose cumulative weight first exceeds ``u`` times the total."""
    return _draw_cumulative(_running_total(weights), u)


def _running_total(weights: np.ndarray) -> np.ndarray | list[float]:
    """The running total of ``weights``: a list where they are few (a chance node's
    outcomes, a Leduc view's worlds: bisecting a list is quicker than a numpy call), an
    array otherwise (a Hold'em view's 1,225 worlds). The same sums either way."""
    if weights.size <= 64:
        return list(itertools.accumulate(weights.tolist()))
    return np.cumsum(weights)


def _draw_within(cumulative: np.ndarray | list[float], u: float) -> tuple[int, float]:
    """:func:`_draw_cumulative`, and where ``u`` falls within the drawn index's share,
    rescaled to [0, 1): the uniform for the next piece's draw. One uniform drawn piece by
    piece thus picks the world the flat draw picks with it, where the worlds are listed
    in the order of their pieces (poker's sets of hole cards)."""
    k = _draw_cumulative(cumulative, u)
    total = float(cumulative[-1])
    before = float(cumulative[k - 1]) if k > 0 else 0.0
    mass = float(cumulative[k]) - before
    inner = (u * total - before) / mass if mass > 0 else 0.0
    return k, min(max(inner, 0.0), math.nextafter(1.0, 0.0))


def _draw_cumulative(cumulative: np.ndarray | list[float], u: float) -> int:
    """:func:`_draw` given the weights' running total (:func:`_running_total`)."""
    if isinstance(cumulative, list):
        return min(bisect.bisect_right(cumulative, u * cumulative[-1]), len(cumulative) - 1)
    k = int(np.searchsorted(cumulative, u * cumulative[-1], side="right"))
    return min(k, cumulative.size - 1)


def run_searches(
    knowledge: Knowledge, searches: Sequence[Generator[list[Request], None, Any]]
) -> list[Any]:
    """Advance many search generators together: each round, every search runs until it
    needs views, and the union of their requests is evaluated in one batch. Returns
    their results in order (the same as running them one at a time: each search's
    random numbers are its own, and a view's answer does not depend on its batch)."""
    results: list[Any] = [None] * len(searches)
    pending: dict[int, list[Request]] = {}
    for i, gen in enumerate(searches):
        try:
            pending[i] = next(gen)
        except StopIteration as stop:
            results[i] = stop.value
    while pending:
        merged: dict[tuple[int, str], Request] = {}
        for need in pending.values():
            for request in need:
                merged.setdefault(request[0], request)
        knowledge.evaluate(list(merged.values()))
        for i in list(pending):
            try:
                pending[i] = searches[i].send(None)
            except StopIteration as stop:
                results[i] = stop.value
                del pending[i]
    return results
