"""MT-ISMCTS over the rules: the search for games too big to compile.

The compiled search (:mod:`nashzoo.agents.ismcts.kernel`) reads arrays tabulated over
every history of the game, which only Kuhn- and Leduc-sized games allow. This search
walks :class:`~nashzoo.games.base.State` objects instead, so it plays any game, Limit
Hold'em and the fighting game's default preset among them. It is the same algorithm as
the compiled MT-ISMCTS (``docs/explanation/nash-ismcts.md``):

* a tree is keyed by its owner and the owner's information-state string at its root;
  its ACT nodes by the owner's information-state string (the owner's private
  information and the public history), created on first visit, with visits and sums of
  returns per legal action;
* one simulation draws a world from the owner's belief (the chance weights of
  :meth:`~nashzoo.games.base.State.hidden_worlds`: the rules list the opponent's
  possible private information, or the tree walk does for games without that fast path),
  walks it with UCB1 (untried actions first; a new edge is valued by a uniformly random
  rollout), and at an opponent's decision runs ONE simulation of the opponent's own tree,
  whose world resamples the owner's private information from the opponent's belief; the
  opponent plays the action its tree chose at its root. Below ``spawn_cap`` nested trees
  the opponent plays uniformly. Returns are backed up along the owner's path only;
* the statistics live in one dictionary bounded by ``node_cap`` nodes: once it is full,
  no node is added (a simulation that reaches a new node rolls out from there), so
  memory stays bounded and the search keeps reusing the nodes it has
  (:attr:`RulesSearchResult.capped` says so).

A-ISMCTS and Nash-ISMCTS need networks evaluated at search time on these games; they
run on the compiled path only (issue 33 tracks the rest).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.agent import SearchAgentBase
from nashzoo.agents.ismcts.search import SearchConfig, _move_weights
from nashzoo.envs.protocol import Observation
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, Game, State
from nashzoo.games.hidden import HiddenWorlds
from nashzoo.games.worlds import hidden_worlds
from nashzoo.validation import check_int

__all__ = [
    "RulesSearch",
    "RulesSearchResult",
    "RulesISMCTSAgent",
    "compiles_for_search",
    "DEFAULT_NODE_CAP",
    "SEARCH_COMPILE_PROBE",
]

DEFAULT_NODE_CAP = 500_000
"""Nodes one decision's search may hold (about 1 KB each with their keys)."""
WORLDS_CACHE = 4096
"""Views whose worlds a search keeps listed (each a few KB; listed again when dropped)."""


@dataclass
class RulesSearchResult:
    """What one search over the rules found at its root.

    Attributes:
        actions: the legal actions at the root.
        visits: visits of each.
        q: each action's mean return to the searcher (scaled to [-1, 1]; NaN unvisited).
        policy: the move distribution over all ``num_distinct_actions``.
        simulations: root simulations run (the spawned trees' do not count).
        seconds: wall time.
        nodes: nodes of all the decision's trees.
        capped: the node cap was reached (nodes were reused, none added).
        q_high: each action's upper value (A- and Nash-ISMCTS, whose values are
            intervals with ``q`` the lower end; ``None`` for MT-ISMCTS, a point).
    """

    actions: np.ndarray
    visits: np.ndarray
    q: np.ndarray
    policy: np.ndarray
    simulations: int
    seconds: float
    nodes: int
    capped: bool
    q_high: np.ndarray | None = None

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")


def root_result(
    game: Game,
    config: SearchConfig,
    actions: list[int],
    visits: np.ndarray,
    q_low: np.ndarray,
    q_high: np.ndarray | None,
    simulations: int,
    seconds: float,
    nodes: int,
    capped: bool,
) -> RulesSearchResult:
    """The result of a search over the rules from its root's statistics: the move
    distribution by ``config.move_selection`` (``q_high`` ``None``: point values)."""
    high = q_low if q_high is None else q_high
    weights = _move_weights(config.move_selection, visits, q_low, high, config.lcb_z)
    policy = np.zeros(game.num_distinct_actions)
    ids = np.asarray(actions, dtype=np.int64)
    policy[ids] = weights / weights.sum()
    return RulesSearchResult(
        actions=ids,
        visits=visits,
        q=q_low,
        policy=policy,
        simulations=simulations,
        seconds=seconds,
        nodes=nodes,
        capped=capped,
        q_high=q_high,
    )


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


def cached_worlds(
    game: Game, cache: dict[tuple[int, str], HiddenWorlds], state: State, player: int
) -> HiddenWorlds:
    """The worlds of ``player``'s view of ``state`` (the rules' fast path, else the tree
    walk), kept in ``cache`` by view; the cache is emptied at :data:`WORLDS_CACHE` views
    (bounded: listing again is cheap)."""
    key = (player, state.information_state_string_unchecked(player))
    worlds = cache.get(key)
    if worlds is None:
        worlds = state.hidden_worlds(player)
        if worlds is None:
            worlds = hidden_worlds(game, player, key[1], state.public_history())
        if len(cache) >= WORLDS_CACHE:
            cache.clear()
        cache[key] = worlds
    return worlds


class _Node:
    """An ACT node: the owner's legal actions, visits and sums of returns."""

    __slots__ = ("actions", "visits", "totals", "n")

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions
        self.visits = [0] * len(actions)
        self.totals = [0.0] * len(actions)
        self.n = 0


class RulesSearch:
    """MT-ISMCTS on the game's rules (see the module docstring).

    Args:
        game: any two-player nashzoo game.
        config: the settings; only ``variant="mt"`` runs here (``simulations``,
            ``time_budget``, ``c_uct``, ``spawn_cap``, ``final_policy``, ``lcb_z``).
        node_cap: the most nodes one decision's trees may hold.

    Raises:
        InvalidParameterError: not a two-player game, a variant other than ``"mt"``, or
            a bad ``node_cap``.
    """

    def __init__(
        self, game: Game, config: SearchConfig, *, node_cap: int = DEFAULT_NODE_CAP
    ) -> None:
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"RulesSearch needs a two-player nashzoo Game, received {game}."
            )
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"RulesSearch needs a SearchConfig, received {type(config).__name__}."
            )
        if config.variant != "mt":
            raise InvalidParameterError(
                f"The search over the rules runs MT-ISMCTS only (variant='mt'); "
                f"variant={config.variant!r} needs networks at search time, which run on "
                "the compiled path (games that compile)."
            )
        if config.split_actions:
            raise InvalidParameterError(
                "split_actions=True splits the ACT nodes of A- and Nash-ISMCTS "
                "(RulesNashSearch); MT-ISMCTS over the rules keeps one node per view."
            )
        if config.split_hidden:
            raise InvalidParameterError(
                "split_hidden=True splits the SAMPLE nodes of A- and Nash-ISMCTS "
                "(RulesNashSearch); MT-ISMCTS has none."
            )
        self.game = game
        self.config = config
        self.node_cap = check_int("node_cap", node_cap, 1)
        self.scale = float(game.max_payoff_magnitude) or 1.0
        self._nodes: dict[tuple[int, str, str], _Node] = {}  # (owner, root, node) strings
        self._worlds: dict[tuple[int, str], HiddenWorlds] = {}
        self._capped = False
        self._random = np.random.default_rng(0).random

    # -- the public entry points ------------------------------------------------------------
    def run_view(
        self,
        player: int,
        info_state: str,
        public_history: Any,
        rng: np.random.Generator | int,
    ) -> RulesSearchResult:
        """Search for ``player`` to move at the view (its information-state string and
        the public history: what an agent receives)."""
        view = self.game.view_state(player, info_state, [int(a) for a in public_history])
        if view is None:
            worlds = hidden_worlds(self.game, player, info_state, public_history)
        else:
            worlds = self._worlds_at(view, player)
        return self._run(player, info_state, worlds, rng)

    def run_state(self, state: State, rng: np.random.Generator | int) -> RulesSearchResult:
        """Search for the player to move at ``state``, using only that player's view."""
        player = state.current_player()
        if player < 0:
            raise InvalidParameterError(
                f"A search runs where a player is to move; player {player} is (chance or the end)."
            )
        info = state.information_state_string(player)
        return self._run(player, info, self._worlds_at(state, player), rng)

    # -- the search -------------------------------------------------------------------------
    def _worlds_at(self, state: State, player: int) -> HiddenWorlds:
        return cached_worlds(self.game, self._worlds, state, player)

    def _run(
        self, player: int, info_state: str, worlds: HiddenWorlds, rng: np.random.Generator | int
    ) -> RulesSearchResult:
        c = self.config
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self._random = gen.random
        self._nodes.clear()
        self._worlds.clear()
        self._capped = False
        root = (player, info_state)
        start = time.perf_counter()
        deadline = None if c.time_budget is None else start + float(c.time_budget)
        done = 0
        while not done or not budget_spent(c, done, deadline):
            self._simulate(root, player, worlds.state_at(gen.random()), 0)
            done += 1
        seconds = time.perf_counter() - start
        node = self._nodes[(player, info_state, info_state)]
        visits = np.asarray(node.visits, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = np.where(visits > 0, np.asarray(node.totals) / visits, np.nan)
        return root_result(
            self.game,
            c,
            node.actions,
            visits,
            q,
            None,
            done,
            seconds,
            len(self._nodes),
            self._capped,
        )

    def _simulate(self, root: tuple[int, str], owner: int, state: State, level: int) -> int:
        """One simulation of the tree ``root`` (owner to move at ``state``, a world drawn
        from the owner's belief, changed in place); returns the action chosen at the
        tree's root (-1 when the node cap left no room for the root)."""
        random = self._random
        path: list[tuple[_Node, int]] = []
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
                if level < spawn_cap:
                    worlds = self._worlds_at(state, p)
                    spawned = (p, state.information_state_string_unchecked(p))
                    action = self._simulate(spawned, p, worlds.state_at(random()), level + 1)
                else:
                    action = -1
                if action < 0:  # below the cap, or no room for the spawned tree's root
                    legal = state.legal_actions()
                    action = legal[int(random() * len(legal))]
                state.apply_unchecked(action)
                continue
            key = (root[0], root[1], state.information_state_string_unchecked(owner))
            node = self._nodes.get(key)
            if node is None:
                if len(self._nodes) >= self.node_cap:
                    self._capped = True
                    value = self._rollout(state, owner)
                    break
                node = self._nodes[key] = _Node(list(state.legal_actions()))
            untried = [i for i, n in enumerate(node.visits) if n == 0]
            if untried:  # a new edge: valued by a random rollout
                i = untried[int(random() * len(untried))]
                path.append((node, i))
                state.apply_unchecked(node.actions[i])
                value = self._rollout(state, owner)
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

    def _rollout(self, state: State, owner: int) -> float:
        """Uniformly random play (chance by the rules) to the end; the owner's scaled
        return."""
        random = self._random
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.advance_chance(random)
            else:
                legal = state.legal_actions()
                state.apply_unchecked(legal[int(random() * len(legal))])
        return state.returns()[owner] / self.scale


SEARCH_COMPILE_PROBE = 200_000
"""Histories up to which a search agent compiles a game whose size is unknown (beyond
it, the search runs over the rules; the probe costs about 3 s on the fighting game's
default preset)."""


def compiles_for_search(game: Game) -> bool:
    """Whether a search agent takes the compiled path for ``game``: its size is known and
    within :data:`~nashzoo.tree.compile.DEFAULT_MAX_NODES`, or, unknown, it compiles
    within :data:`SEARCH_COMPILE_PROBE` histories."""
    from nashzoo.tree.compile import DEFAULT_MAX_NODES, compiled_or_none

    size = game.count_histories()
    if size is not None:
        return size <= DEFAULT_MAX_NODES
    bound = game.histories_lower_bound()
    if bound is not None and bound > DEFAULT_MAX_NODES:
        return False
    return compiled_or_none(game, max_nodes=SEARCH_COMPILE_PROBE) is not None


class RulesAgentBase(SearchAgentBase):
    """A search over the rules as an agent (MT-ISMCTS here, A- and Nash-ISMCTS in
    :mod:`~nashzoo.agents.ismcts.rules_nash`): it plays from the information-state string
    and the public history of its ``info`` (it never receives a state, so it cannot see
    hidden cards). A subclass sets ``search`` (with ``run_view``), ``_name`` and
    ``_rng``."""

    search: Any
    last_result: RulesSearchResult | None = None

    @property
    def config(self) -> SearchConfig:
        """The search settings."""
        return self.search.config

    @property
    def game(self) -> Game:
        return self.search.game

    def _search(self, info: dict[str, Any], rng: Any) -> RulesSearchResult:
        result = self.search.run_view(*view_of_info(info), rng)
        self.last_result = result
        return result

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """The move distribution of one search at this view, seeded from ``config.seed``
        and the information-state string (the same answer whatever the order of queries)."""
        digest = hashlib.blake2b(str(info.get("info_state", "")).encode(), digest_size=8)
        key = int.from_bytes(digest.digest(), "little")
        seed = np.random.SeedSequence([self.config.seed or 0, key])
        return self._search(info, np.random.default_rng(seed)).policy.copy()

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """Search, then sample a move from the search's distribution."""
        policy = self._search(info, self._rng).policy
        return self._draw(policy, observation, str(info.get("info_state")))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, {self.game})"


class RulesISMCTSAgent(RulesAgentBase):
    """MT-ISMCTS over the rules as an agent: plays any game through the Agent protocol
    from the information-state string and the public history of its ``info`` (it never
    receives a state, so it cannot see hidden cards).

    Args:
        game: the game.
        config: the search settings (``variant="mt"``; default 1,000 simulations).
        name: display name (default ``mt-ismcts:1000``, or ``mt-ismcts:0.2s`` with a time
            budget).
        node_cap: the most nodes one decision's search may hold.

    Raises:
        InvalidParameterError: as :class:`RulesSearch`.
    """

    def __init__(
        self,
        game: Game,
        config: SearchConfig | None = None,
        *,
        name: str | None = None,
        node_cap: int = DEFAULT_NODE_CAP,
    ) -> None:
        config = SearchConfig(variant="mt") if config is None else config
        self.search = RulesSearch(game, config, node_cap=node_cap)
        self._name = name
        self._rng = np.random.default_rng(config.seed)
        self.last_result: RulesSearchResult | None = None
