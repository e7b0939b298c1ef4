"""Nash-ISMCTS's self-play games: each decision a seeded search from the mover's own
information set on the current network's tables, recorded as training targets; played in
this process or on the runtime's actors, in an order that does not depend on how many
(so the same seed gives the same data), and the belief head's games sampled
from P alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.compiled import CompiledSearch
from nashzoo.agents.ismcts.config import SearchConfig, policy_target
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.agents.runtime import Rounds
from nashzoo.extras import require
from nashzoo.games import load_game
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.compile import compile_game
from nashzoo.tree.reach import edge_probabilities
from nashzoo.tree.views import ViewTable, views_of

__all__ = ["play_self_play_games"]

torch = require("torch", "torch", "Nash-ISMCTS training")


def _tables_payload(tables: SearchTables) -> dict[str, Any]:
    return {
        "game": tables.tree.game.to_spec(),
        "arrays": {
            k: getattr(tables, k)
            for k in ("prior", "child_value", "view_value", "belief", "world_value")
        },
    }


def _tables_from_payload(payload: dict[str, Any]) -> SearchTables:
    views = views_of(compile_game(load_game(payload["game"])))
    return SearchTables(views=views, source="network", **payload["arrays"])


def _walk_records(
    views: ViewTable, path: list[int], returns: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(view, world, payoff) for every view each player held along ``path``."""
    out_v: list[int] = []
    out_w: list[int] = []
    out_z: list[float] = []
    for p in range(views.tree.num_players):
        for n in path:
            v = views.node_view[p, n]
            if v >= 0:
                out_v.append(int(v))
                out_w.append(int(views.node_world[p, n]))
                out_z.append(float(returns[p]))
    return (
        np.asarray(out_v, dtype=np.int64),
        np.asarray(out_w, dtype=np.int64),
        np.asarray(out_z, dtype=np.float32),
    )


def play_self_play_games(
    payload: dict[str, Any], config: dict[str, Any], seeds: Sequence[Sequence[int]]
) -> list[dict[str, Any]]:
    """Self-play games with Nash-ISMCTS on the given tables, one per seed (a worker's job)."""
    tables = _tables_from_payload(payload)
    settings = dict(config)
    how = str(settings.pop("policy_target", "visits"))
    target_scale = float(settings.pop("target_scale", 1.0))
    search = CompiledSearch(tables, SearchConfig(**settings))
    views = tables.views
    tree = views.tree
    scale = payoff_scale(tree)
    games = []
    for seed in seeds:
        rng = np.random.default_rng(np.random.SeedSequence(list(seed)))
        n = 0
        path = [0]
        infosets: list[int] = []
        targets: list[np.ndarray] = []
        while tree.player[n] != TERMINAL:
            fc = int(tree.first_child[n])
            if tree.player[n] == CHANCE:
                probs = tree.chance_prob[fc : fc + tree.num_children[n]]
                n = fc + int(rng.choice(probs.size, p=probs / probs.sum()))
            else:
                i = int(tree.infoset[n])
                result = search.run(i, rng, self_play=True)
                target = np.zeros(tree.num_actions, dtype=np.float32)
                target[result.actions] = policy_target(
                    how,
                    result,
                    tables.prior[i, result.actions],
                    tables.view_value[views.infoset_view[i]],
                    target_scale,
                )
                # the move: the search's own move distribution (its final_policy)
                a = int(rng.choice(tree.num_actions, p=result.policy))
                infosets.append(i)
                targets.append(target)
                n = fc + int(views.action_slot[i, a])
            path.append(n)
        v, w, z = _walk_records(views, path[:-1], tree.utility[n] / scale)
        games.append(
            {
                "infosets": np.asarray(infosets, dtype=np.int64),
                "targets": np.asarray(targets, dtype=np.float32),
                "views": v,
                "worlds": w,
                "returns": z,
            }
        )
    return games


def _prior_games(
    tables: SearchTables, rng: np.random.Generator, count: int
) -> tuple[np.ndarray, np.ndarray]:
    """(view, true world) at every view along ``count`` games where everyone plays P,
    all games stepped at once (one array operation per depth of the tree)."""
    views = tables.views
    tree = views.tree
    edge = edge_probabilities(tree, tables.prior)
    node = np.zeros(count, dtype=np.int64)
    out_v: list[np.ndarray] = []
    out_w: list[np.ndarray] = []
    while True:
        for p in range(tree.num_players):
            seen = views.node_view[p, node] >= 0
            out_v.append(views.node_view[p, node[seen]])
            out_w.append(views.node_world[p, node[seen]])
        live = tree.player[node] != TERMINAL
        node = node[live]
        if node.size == 0:
            break
        # the first child whose cumulative edge probability passes a uniform draw
        first = tree.first_child[node].astype(np.int64)
        u = rng.random(node.size)
        choice = np.zeros(node.size, dtype=np.int64)
        cumulative = np.zeros(node.size)
        for j in range(int(tree.num_children[node].max()) - 1):
            has = j < tree.num_children[node]
            cumulative += np.where(has, edge[np.minimum(first + j, tree.num_nodes - 1)], 0.0)
            choice += (has & (u >= cumulative) & (j + 1 < tree.num_children[node])).astype(np.int64)
        node = first + choice
    return np.concatenate(out_v).astype(np.int64), np.concatenate(out_w).astype(np.int64)


# -- where the games are played -------------------------------------------------------------
class _GameActor:
    """A self-play actor (:class:`~nashzoo.agents.runtime.Actor`): a round's job is how to
    play, the network's data, the search's settings and the generation's game seeds, and
    the actor plays game ``g`` when ``g mod actors`` is its index. Its batch is those
    games; its count, how many."""

    def __init__(self, actors: int, index: int, seed: int) -> None:
        self.actors, self.index = actors, index
        self.job: dict[str, Any] = {}

    def set_weights(self, job: dict[str, Any], version: int) -> None:
        self.job = job

    def collect(self) -> tuple[int, Any]:
        job = self.job
        games = job["play"](job["payload"], job["search"], job["seeds"][self.index :: self.actors])
        return len(games), games


class _Players:
    """Plays each generation's self-play games: in this process, or shared among the
    runtime's actors (``config.actors``), the games back in seed order either way."""

    def __init__(self, config: Any) -> None:
        self.config = config
        actor = functools.partial(_GameActor, config.actors or 1)
        self.rounds = Rounds(
            config, actor, config.seed, lockstep="a generation's games all use its network"
        )

    def play(
        self, tables: SearchTables, generation: int, progress: float
    ) -> list[dict[str, np.ndarray]]:
        """The compiled path's self-play games of one generation."""
        search = {
            **self.config.search_config(progress=progress).to_dict(),
            "policy_target": self.config.policy_target,
            "target_scale": self.config.target_scale,
        }
        return self.run(play_self_play_games, _tables_payload(tables), search, generation)

    def run(
        self,
        play: Callable[..., list[dict[str, Any]]],
        payload: dict[str, Any],
        search: dict[str, Any],
        generation: int,
    ) -> list[dict[str, Any]]:
        """``play(payload, search, seeds)`` over the generation's game seeds, in this
        process or split among the actors; the games come back in seed order, so the data
        does not depend on the number of actors."""
        c = self.config
        seeds = [(c.seed, generation, g) for g in range(c.games_per_generation)]
        if c.actors is None:
            return play(payload, search, seeds)
        job = {"play": play, "payload": payload, "search": search, "seeds": seeds}
        parts = self.rounds.run(job)
        games: list[dict[str, Any]] = [{}] * len(seeds)
        for k, part in enumerate(parts):
            games[k :: len(parts)] = part
        return games

    def close(self) -> None:
        self.rounds.close()


def _concat(games: list[dict[str, np.ndarray]], key: str) -> np.ndarray:
    return np.concatenate([g[key] for g in games])
