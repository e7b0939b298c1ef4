"""What a search over the rules knows besides the rules, asked view by view.

The compiled search reads P, V, V_c, H and V_w from tables over every view of a small
game (:mod:`nashzoo.agents.ismcts.tables`). A search over the rules
(:mod:`nashzoo.agents.ismcts.search`) meets its views one at a time, so it asks a
:class:`Knowledge` instead, always in the searcher's payoff scaled to [-1, 1]:

* :meth:`Knowledge.act`: P, V_c and V where the player is to move;
* :meth:`Knowledge.belief`: H over the worlds of the player's view
  (:class:`~nashzoo.games.hidden.HiddenWorlds`, one per opponent private value);
* :meth:`Knowledge.world_values`: V_w of every world at the player's view of a state
  (the search asks it after the player's own action, where the view is the same in
  every world);
* :meth:`Knowledge.history_value`: the value of one history (V where the player is to
  move, else V_w of that history's world);
* :meth:`Knowledge.piece_belief` and :meth:`Knowledge.piece_values`: H over the next
  piece of the opponent's private information given the pieces drawn before it, and
  the value of each partial world (:class:`~nashzoo.games.hidden.HiddenPieces`; the
  search's piece-by-piece draw). By default the marginals of H and V_w over every world;
  a network with piece features scores only the piece's options.

A knowledge that evaluates networks answers only views it has evaluated:
:meth:`Knowledge.missing` names the ones it lacks and :meth:`Knowledge.evaluate` evaluates
a list of them in one batch. The search yields those lists instead of evaluating them
itself, so that a driver can merge the requests of many searches into one forward pass
(:func:`nashzoo.agents.ismcts.search.run_searches`).

Three knowledges:

* :class:`UninformedKnowledge`: uniform P, chance-weighted H, every value 0;
* :class:`TablesKnowledge`: a compiled game's :class:`~nashzoo.agents.ismcts.tables.SearchTables`
  read through the rules (the same numbers the compiled search reads: the test that the
  two search paths agree);
* :class:`NetworkKnowledge`: an :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork`
  evaluated at search time, each view once (a cache keyed by the player and its
  information-state string, bounded).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game, State
from nashzoo.games.hidden import HiddenPieces, HiddenWorlds

if TYPE_CHECKING:
    from nashzoo.agents.ismcts.blueprint_values import BlueprintValues

__all__ = [
    "Knowledge",
    "UninformedKnowledge",
    "TablesKnowledge",
    "NetworkKnowledge",
    "PolicyKnowledge",
    "Request",
    "VIEW_CACHE",
    "ROWS_CACHE",
]

VIEW_CACHE = 100_000
"""Views a :class:`NetworkKnowledge` keeps evaluated (about 1.5 KB each with a 64-wide
embedding); the cache is emptied when full."""
ROWS_CACHE = 500_000
"""World rows a :class:`NetworkKnowledge` keeps across its embedding and Bayes caches
(an embedding row is ``8 * embed_size`` bytes: 256 MB at 64); each cache is emptied when
its share is full. Without the bound a Hold'em self-play generation kept 4,096
embeddings of 1,225 worlds (2.5 GB)."""

MAX_WORLDS = 250_000
"""Most hidden values one view may have for a search network to score them all (H and
V_w at a SAMPLE node, the belief's training rows): mid-game 13-card Goofspiel has
millions, where scoring every one would stall the search without a word."""


def check_world_count(game: Any, player: int | None, count: int) -> None:
    """Refuse a view of ``count`` hidden values above :data:`MAX_WORLDS`.

    Raises:
        InvalidParameterError: naming the count and what to do instead.
    """
    if count > MAX_WORLDS:
        who = "a" if player is None else f"player {player}'s"
        raise InvalidParameterError(
            f"{who} view of {game} has {count:,} hidden worlds; a Nash-ISMCTS network "
            f"scores every world of a view (at most {MAX_WORLDS:,}). Play a smaller size of "
            "the game, or MT-ISMCTS (mt-ismcts:SIMULATIONS), which draws its worlds without "
            "listing them."
        )


def bayes_allowed(game: Game) -> bool:
    """Whether Bayes' rule over the public history can give H on ``game``: every action
    is seen by every player (the game's moves are not simultaneous, which hides them:
    :class:`~nashzoo.games.info.GameInfo`) and its states answer
    ``information_state_indices_as`` (the opponent's view in each world)."""
    state = game.new_initial_state()
    return not game.simultaneous and (
        type(state).information_state_indices_as is not State.information_state_indices_as
    )


Request = tuple[tuple[int, str], State, int]
"""A view to evaluate: its key (player, information-state string), a state, the player."""


def view_key(state: State, player: int) -> tuple[int, str]:
    """The key of ``player``'s view of ``state``."""
    return (player, state.information_state_string_unchecked(player))


class Knowledge:
    """P, V, V_c, H and V_w at a player's view (see the module docstring). The base
    class knows nothing: uniform P, the chance weights for H, every value 0."""

    source = "uninformed"

    def __init__(self, game: Game) -> None:
        if not isinstance(game, Game):
            raise InvalidParameterError(
                f"A search knowledge needs a nashzoo Game, received {type(game).__name__}."
            )
        self.game = game
        # Bayes' rule over the public history (:meth:`bayes_belief`): H by view, and the
        # opponent's log P at one of its decisions in every world (value -> row, rows)
        self._bayes: dict[tuple[int, str], np.ndarray] = {}
        self._bayes_rows = 0
        self._bayes_steps: dict[tuple[int, str], tuple[dict[Hashable, int], np.ndarray]] = {}
        self._bayes_step_rows = 0

    # -- batching -----------------------------------------------------------------------
    def missing(self, pairs: Sequence[tuple[State, int]]) -> list[Request]:
        """The views among ``pairs`` (state, player) not yet evaluated (none here)."""
        return []

    def evaluate(self, requests: Sequence[Request]) -> None:
        """Evaluate the views of ``requests`` in one batch (nothing to do here)."""

    # -- answers ------------------------------------------------------------------------
    def act(self, state: State, player: int) -> tuple[np.ndarray, np.ndarray, float]:
        """``(P, V_c, V)`` at ``player``'s view of ``state`` (``player`` to move); P and
        V_c over ``state.legal_actions()`` in their order."""
        n = len(state.legal_actions())
        return np.full(n, 1.0 / n), np.zeros(n), 0.0

    def belief(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        """H over ``worlds`` (the worlds of ``player``'s view of ``state``); sums to 1."""
        return worlds.weights

    def world_values(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        """V_w at ``player``'s view of ``state`` for each of ``worlds`` (whose opponent
        private values the view allows; ``state`` is not terminal)."""
        return np.zeros(len(worlds))

    def piece_belief(
        self, state: State, player: int, pieces: HiddenPieces, prefix: tuple[int, ...]
    ) -> np.ndarray:
        """H over the options of the piece after ``prefix`` (:meth:`HiddenPieces.options
        <nashzoo.games.hidden.HiddenPieces.options>`' order) at ``player``'s view of
        ``state``, given the pieces ``prefix``; sums to 1. Here the options' chance
        weights (:meth:`belief` is chance's); a knowledge with its own H overrides it, or
        answers with :meth:`marginal_piece_belief`."""
        return pieces.options(prefix)[1]

    def piece_values(
        self,
        state: State,
        after: State,
        player: int,
        pieces: HiddenPieces,
        prefix: tuple[int, ...],
    ) -> np.ndarray:
        """The value at ``player``'s view of ``after`` (``state`` after the player's own
        action, not terminal) of each partial world: ``prefix`` plus one option of the
        next piece (V_w where that completes a world). Here 0 (as :meth:`world_values`);
        see :meth:`marginal_piece_values`."""
        return np.zeros(len(pieces.options(prefix)[0]))

    def marginal_piece_belief(
        self, state: State, player: int, pieces: HiddenPieces, prefix: tuple[int, ...]
    ) -> np.ndarray:
        """:meth:`piece_belief` as the marginal of :meth:`belief` over every world (time
        proportional to their number)."""
        mass = pieces.marginal(self.belief(state, player, pieces.worlds), prefix)
        total = float(mass.sum())
        return mass / total if total > 0 else pieces.options(prefix)[1]

    def marginal_piece_values(
        self,
        state: State,
        after: State,
        player: int,
        pieces: HiddenPieces,
        prefix: tuple[int, ...],
    ) -> np.ndarray:
        """:meth:`piece_values` as the mean of :meth:`world_values` under :meth:`belief`
        at ``state`` over the worlds that complete each partial world (time proportional
        to their number)."""
        worlds = pieces.worlds
        h = self.belief(state, player, worlds)
        return pieces.marginal(h, prefix, self.world_values(after, player, worlds))

    # -- Bayes' rule under an opponent policy -------------------------------------------
    def bayes_belief(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        """H by Bayes' rule over the public history under the opponent's policy (a
        network's P, a blueprint's probabilities: the subclass's
        :meth:`_opponent_rows` and :meth:`_step_log_probs`): each world's chance weight
        times the probability the policy gives, in that world, to every action the
        opponent took. Cached by view.

        The opponent's log-probabilities at each of its past decisions are cached too,
        keyed by ``player``'s view at that decision (the public history and the
        player's own private value fix the opponent's view in every world): views that
        share a history prefix, as the nodes of one search do, evaluate only the
        decisions they add, all of them in one batch.

        Raises:
            InvalidParameterError: the game's states do not answer
                ``information_state_indices_as``.
        """
        key = view_key(state, player)
        found = self._bayes.get(key)
        if found is not None:
            return found
        opp = 1 - player
        values = worlds.values
        replay = self.game.new_initial_state()
        steps: list[tuple[tuple[int, str], int]] = []  # (player's view there, action)
        # each decision's log P, and the rows of ``values`` in it
        known: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        missing: dict[tuple[int, str], tuple[Any, np.ndarray]] = {}
        wanted = set(values)
        # one entry per index map: the decisions of one forward pass share theirs
        positions: dict[int, np.ndarray | None] = {}
        for action in state.history():
            if replay.current_player() == opp:
                at = view_key(replay, player)
                steps.append((at, int(action)))
                entry = self._bayes_steps.get(at)
                if entry is not None and id(entry[0]) not in positions:
                    index = entry[0]
                    positions[id(index)] = (
                        np.fromiter((index[v] for v in values), np.int64, len(values))
                        if index.keys() >= wanted
                        else None
                    )
                rows_of = None if entry is None else positions[id(entry[0])]
                if entry is not None and rows_of is not None:
                    known[at] = (rows_of, entry[1])
                elif at not in missing:
                    rows = self._opponent_rows(replay, opp, values)
                    missing[at] = (rows, replay.legal_actions_mask())
            replay.apply_unchecked(action)
        if missing:  # evaluated over ``values`` in their order
            rows_of = np.arange(len(values))
            for at, (_, log_p) in self._evaluate_steps(missing, values).items():
                known[at] = (rows_of, log_p)
        log_h = np.log(np.maximum(worlds.weights, 1e-300))
        for at, action in steps:
            rows_of, log_p = known[at]
            log_h += log_p[rows_of, action]
        h = np.exp(log_h - log_h.max())
        h /= h.sum()
        self._bayes_rows += h.size
        if self._bayes_rows > ROWS_CACHE // 2:
            self._bayes.clear()
            self._bayes_rows = h.size
        self._bayes[key] = h
        return h

    def _opponent_rows(self, replay: State, opp: int, values: Sequence[Hashable]) -> Any:
        """What :meth:`_step_log_probs` needs of the opponent's view at ``replay`` in
        each world of ``values``: here its information-state indices in each."""
        rows = []
        for value in values:
            indices = replay.information_state_indices_as(opp, value)
            if indices is None:
                raise InvalidParameterError(
                    f"belief='bayes' needs states that answer "
                    f"information_state_indices_as; {self.game}'s do not."
                )
            rows.append(indices)
        return rows

    def _step_log_probs(self, steps: list[tuple[Any, np.ndarray]], k: int) -> np.ndarray:
        """The opponent's log-probabilities, ``(len(steps) * k, actions)``, at ``steps``
        (each :meth:`_opponent_rows`' answer and the legal mask), ``k`` worlds a step in
        the order of the values given."""
        raise NotImplementedError

    def _evaluate_steps(
        self,
        missing: dict[tuple[int, str], tuple[Any, np.ndarray]],
        values: Sequence[Hashable],
    ) -> dict[tuple[int, str], tuple[dict[Hashable, int], np.ndarray]]:
        """The opponent's log-probabilities at its decisions in ``missing``, in every
        world of ``values``: one batch; returned, and kept in the step cache (emptied
        when its share of :data:`ROWS_CACHE` is full)."""
        k = len(values)
        log_p = self._step_log_probs(list(missing.values()), k)
        count = len(missing) * k
        if self._bayes_step_rows + count > ROWS_CACHE // 2:
            self._bayes_steps.clear()
            self._bayes_step_rows = 0
        index = {v: i for i, v in enumerate(values)}
        found = {at: (index, log_p[j * k : (j + 1) * k]) for j, at in enumerate(missing)}
        self._bayes_steps.update(found)
        self._bayes_step_rows += count
        return found

    def history_value(self, state: State, player: int) -> float:
        """What the history ``state`` is worth to ``player``: exact at a terminal, V
        where ``player`` is to move, else V_w of its world."""
        if state.is_terminal():
            return float(state.returns()[player]) / _scale(self.game)
        return 0.0

    def history_values(self, states: Sequence[State], player: int) -> np.ndarray:
        """:meth:`history_value` of each of ``states`` (a chance node's children: a
        knowledge may answer them in one batch)."""
        return np.array([self.history_value(s, player) for s in states], dtype=np.float64)


class UninformedKnowledge(Knowledge):
    """No knowledge (uniform P, chance-weighted H, zero values): what MT-ISMCTS assumes,
    for A-ISMCTS without networks."""


WORLD_VALUES_CACHE = 4096
"""Views whose world values :class:`PolicyKnowledge` keeps (1,225 worlds a view on Limit
Hold'em: about 40 MB at most)."""


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def _scale(game: Game) -> float:
    return float(game.max_payoff_magnitude) or 1.0


class PolicyKnowledge(Knowledge):
    """P from any agent that states its probabilities (a blueprint: the card
    abstraction's CFR policy, NFSP's average policy, a tabular policy), asked at each view
    as the agent would be in a match; H Bayes' rule under the blueprint; the values from
    ``values`` (a :class:`~nashzoo.agents.ismcts.blueprint_values.BlueprintValues`: a
    history's value under the blueprint's play) or else 0. With zeros, a search learns
    only from the payoffs it reaches, and they are not neutral: a fold's known loss
    looks worse than any action that goes on, so on Limit Hold'em such a search almost
    never folds and loses to its blueprint (the Nash-ISMCTS explanation page has the
    measurement). Where the game compiles,
    :meth:`SearchTables.oracle <nashzoo.agents.ismcts.tables.SearchTables.oracle>` of the
    blueprint gives exact values too (the ``nash-ismcts:BUDGET+SPEC`` agent spec takes
    that path there).

    H has two sources (``belief``):

    * ``"bayes"`` (where the game allows it): each world's chance weight times the
      probability the blueprint gives, in that world, to every action the opponent took
      (:meth:`Knowledge.bayes_belief`): a raise makes the hands the blueprint raises with
      likelier. The blueprint answers every world of one opponent decision in one
      :func:`~nashzoo.envs.sampling.batch_probabilities` call (the card abstraction's
      agent buckets them together in numba). It needs a game whose actions every player
      sees (moves not simultaneous) and whose states answer
      ``information_state_indices_as`` (:func:`bayes_allowed`);
    * ``"chance"``: the worlds' chance weights alone (what the opponent did is ignored).

    Args:
        game: the game.
        agent: a PolicyAgent of ``game`` (``action_probabilities(observation, info)``).
        cache_size: views whose P is kept.
        belief: ``"bayes"``, ``"chance"``, or ``None``: ``"bayes"`` where the game allows
            it, else ``"chance"``.
        values: V, V_c, V_w and the history values (each world's value where a view
            has several, H-weighted where the player is to move; a terminal child's
            payoff is exact), or ``None``: every value 0.

    Raises:
        InvalidParameterError: the agent states no probabilities, ``belief`` is not
            one of those (or ``"bayes"`` on a game that does not allow it), or
            ``values`` are of another game.
    """

    source = "policy"

    def __init__(
        self,
        game: Game,
        agent: Any,
        *,
        cache_size: int = 200_000,
        belief: str | None = None,
        values: BlueprintValues | None = None,
    ) -> None:
        from nashzoo.games.observation import ObservationCache

        super().__init__(game)
        if not callable(getattr(agent, "action_probabilities", None)):
            raise InvalidParameterError(
                f"A blueprint for search states its probabilities (a PolicyAgent with "
                f"action_probabilities), received {type(agent).__name__}."
            )
        allowed = bayes_allowed(game)
        if belief is None:
            belief = "bayes" if allowed else "chance"
        if belief not in ("bayes", "chance"):
            raise InvalidParameterError(
                f"belief must be 'bayes', 'chance' or None, received {belief!r}."
            )
        if belief == "bayes" and not allowed:
            raise InvalidParameterError(
                f"belief='bayes' needs a game whose actions every player sees and whose "
                f"states answer information_state_indices_as; {game} is not one. Use "
                "belief='chance'."
            )
        if values is not None and values.game != game:
            raise InvalidParameterError(
                f"The values are of {values.game}, the knowledge of {game}."
            )
        self.belief_source = belief
        self.values = values
        self.agent = agent
        self.cache_size = int(cache_size)
        self._observations = ObservationCache(game, max_size=0)
        self._priors: dict[tuple[int, str], np.ndarray] = {}
        # V_w by view: the search asks for a view's world values twice (for V_c at the
        # parent's act, then at the chance node the action leads to), and a view fixes
        # its worlds, so the network's pass is made once. Read-only: nodes share them
        self._world_values: dict[tuple[int, str], np.ndarray] = {}

    def act(self, state: State, player: int) -> tuple[np.ndarray, np.ndarray, float]:
        key = view_key(state, player)
        probs = self._priors.get(key)
        if probs is None:
            view = self._observations.build(state, player)
            observation = {"observation": view.tensor, "action_mask": view.mask}
            probs = np.asarray(
                self.agent.action_probabilities(observation, view.info(player, key[1])),
                dtype=np.float64,
            )
            if len(self._priors) >= self.cache_size:
                self._priors.clear()
            self._priors[key] = probs
        legal = list(state.legal_actions())
        prior = probs[legal]
        total = prior.sum()
        prior = prior / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        if self.values is None:
            return prior, np.zeros(len(legal)), 0.0
        worlds = state.hidden_worlds(player)
        assert worlds is not None
        h = self.belief(state, player, worlds)
        child = np.empty(len(legal))
        for k, a in enumerate(legal):
            after = state.clone()
            after.apply_unchecked(a)
            if after.is_terminal():
                fast = after.returns_over(player, worlds.values)
                child[k] = float(h @ np.asarray(fast, dtype=np.float64)) / _scale(self.game)
            else:
                child[k] = float(h @ self.world_values(after, player, worlds))
        return prior, child, float(h @ self.world_values(state, player, worlds))

    def belief(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        if self.belief_source == "bayes":
            return self.bayes_belief(state, player, worlds)
        return worlds.weights

    def world_values(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        if self.values is None:
            return super().world_values(state, player, worlds)
        key = view_key(state, player)
        out = self._world_values.get(key)
        if out is None:
            out = self.values.values(state, player, worlds.values) / _scale(self.game)
            out.flags.writeable = False
            if len(self._world_values) >= WORLD_VALUES_CACHE:
                self._world_values.clear()
            self._world_values[key] = out
        return out

    def piece_values(
        self,
        state: State,
        after: State,
        player: int,
        pieces: HiddenPieces,
        prefix: tuple[int, ...],
    ) -> np.ndarray:
        if self.values is None:
            return super().piece_values(state, after, player, pieces, prefix)
        return self.marginal_piece_values(state, after, player, pieces, prefix)

    def history_value(self, state: State, player: int) -> float:
        if self.values is None or state.is_terminal():
            return super().history_value(state, player)
        return float(self.values.values(state, player)[0]) / _scale(self.game)

    def history_values(self, states: Sequence[State], player: int) -> np.ndarray:
        if self.values is None:
            return super().history_values(states, player)
        out = np.empty(len(states))
        going = [k for k, s in enumerate(states) if not s.is_terminal()]
        for k, s in enumerate(states):
            if s.is_terminal():
                out[k] = float(s.returns()[player]) / _scale(self.game)
        if going:
            found = self.values.history_values([states[k] for k in going], player)
            out[going] = found / _scale(self.game)
        return out

    def piece_belief(
        self, state: State, player: int, pieces: HiddenPieces, prefix: tuple[int, ...]
    ) -> np.ndarray:
        if self.belief_source == "bayes":
            return self.marginal_piece_belief(state, player, pieces, prefix)
        return super().piece_belief(state, player, pieces, prefix)

    def _opponent_rows(self, replay: State, opp: int, values: Sequence[Hashable]) -> Any:
        return opp, super()._opponent_rows(replay, opp, values)

    def _step_log_probs(self, steps: list[tuple[Any, np.ndarray]], k: int) -> np.ndarray:
        """The blueprint's log-probabilities at ``steps`` (each: the opponent and its
        indices in every world, and the legal mask), ``k`` worlds each: one batch."""
        from nashzoo.envs.sampling import batch_probabilities
        from nashzoo.games.observation import indices_tensors

        rows = [indices for (_, step_rows), _ in steps for indices in step_rows]
        tensors = indices_tensors(rows, self.game.information_state_tensor_size)
        players = np.repeat([opp for (opp, _), _ in steps], k)
        masks = np.repeat(np.stack([mask for _, mask in steps]).astype(np.int8), k, 0)
        probs = batch_probabilities(self.agent, tensors, masks, players)
        out: np.ndarray = np.log(np.maximum(probs, 1e-300))
        return out


class TablesKnowledge(Knowledge):
    """A compiled game's tables read through the rules: the numbers the compiled search
    reads at the same histories.

    Args:
        tables: :class:`~nashzoo.agents.ismcts.tables.SearchTables` of the game.
    """

    def __init__(self, tables: Any) -> None:
        from nashzoo.agents.ismcts.compiled import _knowledge
        from nashzoo.agents.ismcts.tables import SearchTables

        if not isinstance(tables, SearchTables):
            raise InvalidParameterError(
                f"TablesKnowledge needs SearchTables, received {type(tables).__name__}."
            )
        super().__init__(tables.tree.game)
        self.source = tables.source
        self.tables = tables
        self._kn = _knowledge(tables)
        self._nodes: dict[tuple[int, ...], int] = {(): 0}

    def node(self, history: Sequence[int]) -> int:
        """The compiled node of ``history``."""
        key = tuple(int(a) for a in history)
        found = self._nodes.get(key)
        if found is not None:
            return found
        tree = self.tables.tree
        parent = self.node(key[:-1])
        fc, nc = int(tree.first_child[parent]), int(tree.num_children[parent])
        for c in range(fc, fc + nc):
            if int(tree.action[c]) == key[-1]:
                self._nodes[key] = c
                return c
        raise InvalidParameterError(f"History {list(key)} is not one of {self.game}'s.")

    def act(self, state: State, player: int) -> tuple[np.ndarray, np.ndarray, float]:
        i = int(self.tables.tree.infoset[self.node(state.history())])
        legal = list(state.legal_actions())
        kn = self._kn
        return kn.prior[i, legal].copy(), kn.child_value[i, legal].copy(), float(kn.act_value[i])

    def belief(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        views = self.tables.views
        tree = views.tree
        nodes = [self.node(worlds.state(k).history()) for k in range(len(worlds))]
        i = int(tree.infoset[nodes[0]])
        start = int(views.infoset_node_start[i])
        h = np.array([self._kn.set_belief[start + views.node_position[n]] for n in nodes])
        total = h.sum()
        return h / total if total > 0 else np.full(len(nodes), 1.0 / len(nodes))

    def world_values(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        # the worlds are those of the view before the player's action: replay the
        # actions since then on each
        hist = state.history()
        out = np.zeros(len(worlds))
        for k in range(len(worlds)):
            base = worlds.state(k).history()
            out[k] = self._kn.leaf_value[player, self.node([*base, *hist[len(base) :]])]
        return out

    piece_belief = Knowledge.marginal_piece_belief
    piece_values = Knowledge.marginal_piece_values

    def history_value(self, state: State, player: int) -> float:
        n = self.node(state.history())
        tree = self.tables.tree
        if tree.player[n] == player:
            return float(self._kn.act_value[tree.infoset[n]])
        return float(self._kn.leaf_value[player, n])


class NetworkKnowledge(Knowledge):
    """An :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork` evaluated at search time.

    Each view is evaluated once (torso and heads on the player's information-state
    tensor) and cached by (player, information-state string); H and V_w of a view's
    worlds are then dot products of the view's two query vectors with the worlds' value
    embeddings, computed in numpy.

    H has two sources (``belief``):

    * ``"network"``: the belief head;
    * ``"bayes"``: online refinement, Bayes' rule over the public history with the
      network's own P as the opponent's policy: each world's chance weight times the
      probability P gives, in that world, to every action the opponent took. It reaches
      the start of the game, so it replaces H entirely; it needs a game whose opponent
      keeps its private value all game and whose states answer
      ``information_state_indices_as`` (the poker engine), and costs, per view, one
      forward pass over the worlds at each opponent decision that no earlier view
      shared (the decisions are cached).

    Args:
        game: the game (its ``hidden_value_features`` names the worlds' inputs).
        network: the network (evaluated in ``eval`` mode without gradients).
        cache_size: views kept evaluated.
        belief: ``"network"`` or ``"bayes"``.

    Attributes:
        forward_passes: batches evaluated so far; ``evaluated``: views evaluated.
    """

    source = "network"

    def __init__(
        self, game: Game, network: Any, *, cache_size: int = VIEW_CACHE, belief: str = "network"
    ) -> None:
        from nashzoo.agents.ismcts.nets import EmbeddingNetwork, torch

        super().__init__(game)
        if belief not in ("network", "bayes"):
            raise InvalidParameterError(
                f"belief must be 'network' or 'bayes', received {belief!r}."
            )
        self.belief_source = belief
        if not isinstance(network, EmbeddingNetwork):
            raise InvalidParameterError(
                f"NetworkKnowledge needs an EmbeddingNetwork, received {type(network).__name__}."
            )
        network.check_game(game)
        self.network = network
        self._torch = torch
        self.cache_size = int(cache_size)
        self._views: dict[tuple[int, str], tuple[np.ndarray, ...]] = {}
        self._embedded: dict[Hashable, np.ndarray] = {}
        self._embedded_rows = 0
        self._one: dict[Hashable, np.ndarray] = {}  # single values' embeddings
        self._encoder = network.encoder_arrays()
        self.forward_passes = 0
        self.evaluated = 0

    def missing(self, pairs: Sequence[tuple[State, int]]) -> list[Request]:
        out: list[Request] = []
        seen: set[tuple[int, str]] = set()
        for state, player in pairs:
            if state.is_terminal():
                continue
            key = view_key(state, player)
            if key not in self._views and key not in seen:
                seen.add(key)
                out.append((key, state, player))
        return out

    def evaluate(self, requests: Sequence[Request]) -> None:
        if not requests:
            return
        torch = self._torch
        x = self.network.dense([state.information_state_indices(p) for _, state, p in requests])
        with torch.no_grad():
            out = self.network(x)
        arrays = [
            out[k].double().cpu().numpy() for k in ("policy", "child_value", "value", "query")
        ]
        if len(self._views) + len(requests) > self.cache_size:
            self._views.clear()
        for row, (key, _, _) in enumerate(requests):
            self._views[key] = tuple(a[row] for a in arrays)
        self.forward_passes += 1
        self.evaluated += len(requests)

    def _view(self, state: State, player: int) -> tuple[np.ndarray, ...]:
        key = view_key(state, player)
        found = self._views.get(key)
        if found is None:  # a caller that did not batch: evaluate it alone
            self.evaluate([(key, state, player)])
            found = self._views[key]
        return found

    def embed(self, values: Sequence[Hashable], public: Hashable = None) -> np.ndarray:
        """The value embeddings of ``values`` at the public information ``public``
        (``Game.hidden_value_public``; ``(len(values), embed_size)``).

        Raises:
            InvalidParameterError: more than :data:`MAX_WORLDS` values.
        """
        check_world_count(self.game, None, len(values))
        return self._encode(self.game.hidden_value_features(values, public))

    def _encode(self, features: np.ndarray | None) -> np.ndarray:
        """The world encoder on feature rows (in numpy)."""
        if features is None:
            raise InvalidParameterError(
                f"{self.game} has no hidden_value_features; a search network needs them."
            )
        w1, b1, w2, b2 = self._encoder
        return np.maximum(features.astype(np.float64) @ w1 + b1, 0.0) @ w2 + b2

    def _world_value(self, embedded: np.ndarray, query: np.ndarray) -> Any:
        """V_w of embedded worlds at a view with ``query``."""
        d = self.network.shape.embed_size
        return np.tanh(embedded @ query[d : 2 * d] + query[2 * d])

    def _worlds_embedding(self, worlds: HiddenWorlds, state: State) -> np.ndarray:
        """The embeddings of ``worlds``' values at ``state``'s public information, cached
        by both (views with the same possible values and the same board share them)."""
        values = worlds.values
        public = self.game.hidden_value_public(state)
        key: Hashable = (values if isinstance(values, Hashable) else tuple(values), public)
        found = self._embedded.get(key)
        if found is None:
            found = self.embed(values, public)
            self._embedded_rows += len(found)
            if self._embedded_rows > ROWS_CACHE // 2:
                self._embedded.clear()
                self._embedded_rows = len(found)
            self._embedded[key] = found
        return found

    def act(self, state: State, player: int) -> tuple[np.ndarray, np.ndarray, float]:
        logits, child, value, _ = self._view(state, player)
        legal = list(state.legal_actions())
        z = logits[legal]
        return _softmax(z), child[legal].copy(), float(value)

    def belief(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        if self.belief_source == "bayes":
            return self.bayes_belief(state, player, worlds)
        query = self._view(state, player)[3]
        d = self.network.shape.embed_size
        z = self._worlds_embedding(worlds, state) @ query[:d]
        return _softmax(z)

    def _step_log_probs(self, steps: list[tuple[Any, np.ndarray]], k: int) -> np.ndarray:
        """P's log-probabilities at ``steps`` (each: the opponent's indices in every
        world and the legal mask), ``k`` worlds each: one forward pass."""
        from nashzoo.agents.ismcts.nets import masked_log_softmax

        torch = self._torch
        rows = [row for step_rows, _ in steps for row in step_rows]
        with torch.no_grad():
            logits = self.network.policy_logits(self.network.dense(rows)).double()
            legal = torch.from_numpy(
                np.repeat(np.stack([mask for _, mask in steps]).astype(bool), k, 0)
            ).to(logits.device)
            log_p: np.ndarray = masked_log_softmax(logits, legal).cpu().numpy()
        self.forward_passes += 1
        return log_p

    def world_values(self, state: State, player: int, worlds: HiddenWorlds) -> np.ndarray:
        return self._world_value(
            self._worlds_embedding(worlds, state), self._view(state, player)[3]
        )

    def _piece_embedding(
        self, state: State, pieces: HiddenPieces, prefix: tuple[int, ...]
    ) -> np.ndarray | None:
        """The embeddings of ``prefix`` plus each option of the next piece at ``state``'s
        public information (``None``: the game has no piece features), cached as the
        worlds' are."""
        public = self.game.hidden_value_public(state)
        options, _ = pieces.options(prefix)
        key = ("pieces", prefix, options.tobytes(), public)
        found = self._embedded.get(key)
        if found is None:
            rows = np.empty((options.size, len(prefix) + 1), dtype=np.int64)
            rows[:, : len(prefix)] = prefix
            rows[:, len(prefix)] = options
            features = self.game.hidden_piece_features(rows, public)
            if features is None:
                return None
            found = self._encode(features)
            self._embedded_rows += len(found)
            if self._embedded_rows > ROWS_CACHE // 2:
                self._embedded.clear()
                self._embedded_rows = len(found)
            self._embedded[key] = found
        return found

    def piece_belief(
        self, state: State, player: int, pieces: HiddenPieces, prefix: tuple[int, ...]
    ) -> np.ndarray:
        """The belief query against the partial worlds' embeddings, softmax over the
        options (the last piece's: H over the worlds that share ``prefix``, as the flat
        head gives them); the marginal of H over every world with ``belief="bayes"`` or
        without piece features."""
        embedded = None if self.belief_source == "bayes" else self._piece_embedding(
            state, pieces, prefix
        )  # fmt: skip
        if embedded is None:
            return self.marginal_piece_belief(state, player, pieces, prefix)
        z = embedded @ self._view(state, player)[3][: self.network.shape.embed_size]
        return _softmax(z)

    def piece_values(
        self,
        state: State,
        after: State,
        player: int,
        pieces: HiddenPieces,
        prefix: tuple[int, ...],
    ) -> np.ndarray:
        """The V_w query at ``after`` against the partial worlds' embeddings (the marginal
        of V_w without piece features)."""
        embedded = self._piece_embedding(after, pieces, prefix)
        if embedded is None:
            return self.marginal_piece_values(state, after, player, pieces, prefix)
        return np.asarray(self._world_value(embedded, self._view(after, player)[3]))

    def history_value(self, state: State, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player]) / _scale(self.game)
        if state.current_player() == player:
            return float(self._view(state, player)[2])
        value = state.private_information(1 - player)
        key = (value, self.game.hidden_value_public(state))
        e = self._one.get(key)
        if e is None:
            if len(self._one) >= self.cache_size:
                self._one.clear()
            e = self._one[key] = self.embed([value], key[1])[0]
        return float(self._world_value(e, self._view(state, player)[3]))

    def history_values(self, states: Sequence[State], player: int) -> np.ndarray:
        """:meth:`history_value` of each of ``states``, the worlds' embeddings of those
        where another player or chance moves computed in one batch (a Hold'em board
        card's 45 to 48 children: one encoder pass, not one per card)."""
        out = np.zeros(len(states))
        others: list[int] = []
        for k, state in enumerate(states):
            if state.is_terminal() or state.current_player() == player:
                out[k] = self.history_value(state, player)
            else:
                others.append(k)
        if others:
            rows = [
                (
                    [states[k].private_information(1 - player)],
                    self.game.hidden_value_public(states[k]),
                )
                for k in others
            ]
            embedded = self._encode(self.game.hidden_value_features_rows(rows))
            for row, k in enumerate(others):
                out[k] = self._world_value(embedded[row], self._view(states[k], player)[3])
        return out
