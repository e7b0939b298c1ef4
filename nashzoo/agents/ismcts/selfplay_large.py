"""The games of Nash-ISMCTS's self-play over the rules (torch extra): what one
generation of :class:`~nashzoo.agents.ismcts.train.NashISMCTS` over the rules plays
and records, in this process, worker processes or Ray actors.

* :func:`play_large_games`: self-play games side by side, every mover searching from its
  own view; all games' searches advance together and their view requests are evaluated
  in one forward pass (:func:`~nashzoo.agents.ismcts.search.run_searches`). Each
  game records the targets of P, V_c, V and V_w, and the Bayes-rule term's transitions.
* :func:`belief_games`: games in which everyone plays P, recording H's targets (each
  view, its worlds and the true one).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.config import SearchConfig, policy_target
from nashzoo.agents.ismcts.knowledge import NetworkKnowledge, check_world_count
from nashzoo.agents.ismcts.nets import EmbeddingNetwork, EmbeddingNetworkShape
from nashzoo.agents.ismcts.search import ISMCTSSearch, run_searches
from nashzoo.errors import InvalidParameterError
from nashzoo.extras import require
from nashzoo.games import Game, load_game
from nashzoo.games.base import CHANCE, State

__all__ = ["play_large_games", "belief_games", "SHARED_VALUES"]

torch = require("torch", "torch", "Nash-ISMCTS training")


def _indices(state: State, player: int) -> np.ndarray:
    return np.asarray(state.information_state_indices(player), dtype=np.int32)


def _network_from(payload: dict[str, Any]) -> tuple[Game, EmbeddingNetwork]:
    game = load_game(payload["game"])
    net = EmbeddingNetwork(EmbeddingNetworkShape.from_dict(payload["shape"]), game)
    net.load_state_dict(payload["state"])
    net.eval()
    return game, net


def _advance(state: State, rng: np.random.Generator) -> None:
    if state.current_player() == CHANCE:
        state.advance_chance(rng.random)


def play_large_games(
    payload: dict[str, Any], config: dict[str, Any], seeds: Sequence[Sequence[int]]
) -> list[dict[str, Any]]:
    """Self-play games with Nash-ISMCTS over the rules on the payload's network, one per
    seed, side by side (a worker's job). ``config`` holds the search settings and
    ``node_cap``, ``belief_source`` and ``bayes_worlds`` (worlds sampled per opponent
    action for the Bayes-rule term; 0: none)."""
    torch.set_num_threads(1)
    game, net = _network_from(payload)
    settings = dict(config)
    node_cap = int(settings.pop("node_cap"))
    how = str(settings.pop("policy_target", "visits"))
    target_scale = float(settings.pop("target_scale", 1.0))
    bayes_worlds = int(settings.pop("bayes_worlds", 0))
    knowledge = NetworkKnowledge(game, net, belief=str(settings.pop("belief_source")))
    search = ISMCTSSearch(game, knowledge, SearchConfig(**settings), node_cap=node_cap)
    scale = float(game.max_payoff_magnitude) or 1.0
    rngs = [np.random.default_rng(np.random.SeedSequence(list(seed))) for seed in seeds]
    states = [game.new_initial_state() for _ in seeds]
    records: list[dict[str, list[Any]]] = [
        {k: [] for k in ("x", "legal", "target", "after", "after_value", "views", "bayes")}
        for _ in seeds
    ]
    # the Bayes-rule term's worlds are drawn from a stream of their own, so that the
    # games are the same with the term on or off
    bayes_rngs = [np.random.default_rng(np.random.SeedSequence([*seed, 1])) for seed in seeds]
    for state, rng in zip(states, rngs):
        _advance(state, rng)
    sims = 0
    capped = 0
    seconds = 0.0
    while True:
        live = [g for g, s in enumerate(states) if not s.is_terminal()]
        if not live:
            break
        start = time.perf_counter()
        results = run_searches(
            knowledge, [search.search_state(states[g], rngs[g], self_play=True) for g in live]
        )
        seconds += time.perf_counter() - start
        for g, result in zip(live, results):
            state, rec, rng = states[g], records[g], rngs[g]
            p = state.current_player()
            sims += result.simulations
            capped += result.capped
            target = np.zeros(game.num_distinct_actions, dtype=np.float32)
            prior, _, root_value = knowledge.act(state, p)
            target[result.actions] = policy_target(how, result, prior, root_value, target_scale)
            legal = np.zeros(game.num_distinct_actions, dtype=bool)
            legal[result.actions] = True
            after: list[np.ndarray | None] = []
            after_value = np.full(game.num_distinct_actions, np.nan, dtype=np.float32)
            for a in result.actions.tolist():
                s = state.clone()
                s.apply_unchecked(a)
                if s.is_terminal():  # the payoff in the true world
                    after.append(None)
                    after_value[a] = s.returns()[p] / scale
                else:
                    after.append(_indices(s, p))
            rec["x"].append(_indices(state, p))
            rec["legal"].append(legal)
            rec["target"].append(target)
            rec["after"].append(after)
            rec["after_value"].append(after_value)
            public = game.hidden_value_public(state)
            for q in range(game.num_players):
                value = state.private_information(1 - q)
                rec["views"].append((q, _indices(state, q), value, public))
            a = int(rng.choice(game.num_distinct_actions, p=result.policy))
            before = state.clone() if bayes_worlds else None
            state.apply_unchecked(a)
            if before is not None and not state.is_terminal():
                record = _bayes_record(before, state, a, bayes_worlds, bayes_rngs[g])
                if record is None:  # the game cannot rebuild the opponent's views
                    bayes_worlds = 0
                else:
                    rec["bayes"].append(record)
            _advance(state, rng)
    out = []
    for state, rec in zip(states, records):
        returns = np.asarray(state.returns(), dtype=np.float32) / scale
        views = rec.pop("views")
        out.append(
            {
                **rec,
                "view_x": [x for _, x, _, _ in views],
                "view_value": [v for _, _, v, _ in views],
                "view_public": [b for _, _, _, b in views],
                "view_return": np.array([returns[q] for q, _, _, _ in views], dtype=np.float32),
                "simulations": sims / len(seeds),
                "seconds": seconds / len(seeds),
                "forward_passes": knowledge.forward_passes / len(seeds),
                "capped": capped / len(seeds),
                "views": knowledge.evaluated / len(seeds),
            }
        )
    return out


def _bayes_record(
    before: State, after: State, action: int, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int, list[Any], np.ndarray, np.ndarray, Any, Any] | None:
    """What the Bayes-rule term needs of one opponent action: the viewer's view before
    and after it, the action, ``count`` of the viewer's worlds drawn uniformly without
    replacement, and the acting player's view in each (its tensor indices, padded with
    -1). ``None`` where the game cannot rebuild the acting player's view in another
    world (``State.information_state_indices_as``). Then the acting player's legal
    actions (a betting round's do not depend on the cards), the public information the
    worlds' features read after the action (``Game.hidden_value_public``), and ``None``.
    Where the viewer does not see the action (it changes the acting player's private
    information), the legal actions are one row per world and the last item is each
    world's value after the action."""
    mover = before.current_player()
    viewer = 1 - mover
    worlds = before.hidden_worlds(viewer)
    if worlds is None:
        return None
    take = min(count, len(worlds))
    picked = rng.choice(len(worlds), size=take, replace=False)
    values = [worlds.values[int(k)] for k in picked]
    views = [before.information_state_indices_as(mover, v) for v in values]
    if any(v is None for v in views):
        return None
    width = max(len(v) for v in views if v is not None)
    opponent = np.full((take, width), -1, dtype=np.int64)
    for r, v in enumerate(views):
        assert v is not None
        opponent[r, : len(v)] = v
    legal = np.zeros(before.game.num_distinct_actions, dtype=bool)
    legal[list(before.legal_actions())] = True
    moved: list[Any] | None = None
    if after.private_information(mover) != before.private_information(mover):
        # the viewer does not see the action (Goofspiel's bid, the fighting game's card
        # chosen first): it joins each world's value, and each world has its own options
        legal = np.zeros((take, legal.size), dtype=bool)
        moved = []
        for r, k in enumerate(picked):
            world = worlds.state(int(k))
            legal[r, list(world.legal_actions())] = True
            if legal[r, action]:  # else the world is ruled out (its likelihood is 0)
                world.apply_action(int(action))
            moved.append(world.private_information(mover))
    viewer_before, viewer_after = _indices(before, viewer), _indices(after, viewer)
    public = after.game.hidden_value_public(after)
    return viewer_before, viewer_after, int(action), values, opponent, legal, public, moved


SHARED_VALUES = 200_000
"""Distinct hidden values and value lists the belief records share before the table of
them is emptied (it only saves memory: a record keeps its own references)."""


def _shared(values: Any, table: dict[Any, Any]) -> Any:
    """``values`` as one object per distinct list, each value one object per distinct
    value: the fighting game's views list up to a few hundred hands, and a generation's
    belief games meet the same hands and lists again and again (a list of value tuples
    per record took ~200 MB per generation; shared, a few MB)."""
    if not isinstance(values, list):  # Combinations and other light sequences: as they are
        return values
    if len(table) > SHARED_VALUES:
        table.clear()
    key = tuple(table.setdefault(v, v) for v in values)
    return table.setdefault(("list", key), key)


def belief_games(
    game: Game,
    knowledge: NetworkKnowledge,
    rng: np.random.Generator,
    count: int,
    table: dict[Any, Any] | None = None,
) -> list[tuple[np.ndarray, Any, int, Any]]:
    """(viewer's tensor indices, the view's hidden values, the true one's index, the
    public information their features read) at every decision of ``count`` games in
    which everyone plays P; value lists are shared through ``table``
    (:func:`_shared`)."""
    table = {} if table is None else table
    states = [game.new_initial_state() for _ in range(count)]
    for s in states:
        _advance(s, rng)
    out: list[tuple[np.ndarray, Any, int, Any]] = []
    while True:
        live = [s for s in states if not s.is_terminal()]
        if not live:
            return out
        knowledge.evaluate(knowledge.missing([(s, s.current_player()) for s in live]))
        for s in live:
            public = game.hidden_value_public(s)
            for q in range(game.num_players):
                worlds = s.hidden_worlds(q)
                if worlds is None:
                    raise InvalidParameterError(
                        f"{game} does not list its hidden worlds (State.hidden_worlds); "
                        "Nash-ISMCTS over the rules needs them."
                    )
                check_world_count(game, q, len(worlds))
                true = worlds.index_of(s.private_information(1 - q))
                out.append((_indices(s, q), _shared(worlds.values, table), true, public))
            prior, _, _ = knowledge.act(s, s.current_player())
            legal = list(s.legal_actions())
            s.apply_unchecked(legal[int(rng.choice(len(legal), p=prior / prior.sum()))])
            _advance(s, rng)
