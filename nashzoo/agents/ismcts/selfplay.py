"""Nash-ISMCTS's self-play games: each decision a seeded search from the mover's own
information set on the current network's tables, recorded as training targets; played in
this process, in worker processes or on Ray actors, in an order that does not depend on
how many (so the same seed gives the same data), and the belief head's games sampled
from P alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.compiled import CompiledSearch
from nashzoo.agents.ismcts.config import SearchConfig, policy_target
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.errors import WorkerError
from nashzoo.extras import require
from nashzoo.games import load_game
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.processes import spawn_context, start_ray
from nashzoo.tree.compile import compile_game
from nashzoo.tree.reach import edge_probabilities
from nashzoo.tree.views import ViewTable, views_of

__all__ = ["play_self_play_games", "SelfPlayWorker"]

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
class SelfPlayWorker:
    """A Ray actor's body: runs the self-play job it is given (one game per seed)."""

    def play(
        self, payload: dict[str, Any], config: dict[str, Any], seeds: Sequence[Sequence[int]]
    ) -> list[dict[str, Any]]:
        return play_self_play_games(payload, config, seeds)

    def run(
        self,
        job: Callable[..., list[dict[str, Any]]],
        payload: dict[str, Any],
        config: dict[str, Any],
        seeds: Sequence[Sequence[int]],
    ) -> list[dict[str, Any]]:
        return job(payload, config, seeds)


class _Players:
    """Runs self-play game batches in this process, worker processes or Ray actors."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.pool: ProcessPoolExecutor | None = None
        self.ray: Any = None
        self.actors: list[Any] = []
        if config.backend == "ray":
            # RAY_ADDRESS in the environment joins an existing cluster
            self.ray = start_ray(None, feature="Training with --backend ray")
            actor = self.ray.remote(num_cpus=1)(SelfPlayWorker)
            self.actors = [actor.remote() for _ in range(max(1, config.workers))]
        elif config.workers > 0:
            self.pool = ProcessPoolExecutor(config.workers, mp_context=spawn_context(1))

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
        job: Callable[..., list[dict[str, Any]]],
        payload: dict[str, Any],
        search: dict[str, Any],
        generation: int,
    ) -> list[dict[str, Any]]:
        """``job(payload, search, seeds)`` over the generation's game seeds, split among
        the workers; the games come back in seed order, so the data does not depend on
        the number of workers."""
        c = self.config
        seeds = [(c.seed, generation, g) for g in range(c.games_per_generation)]
        parts = max(1, c.workers) * 4 if (self.pool or self.ray) else 1
        chunks = [seeds[k::parts] for k in range(parts) if seeds[k::parts]]
        if self.ray is not None:
            ref = self.ray.put(payload)
            actors = self.actors
            results = self.ray.get(
                [
                    actors[k % len(actors)].run.remote(job, ref, search, ch)
                    for k, ch in enumerate(chunks)
                ]
            )
        elif self.pool is not None:
            n = len(chunks)
            try:
                results = list(self.pool.map(job, [payload] * n, [search] * n, chunks))
            except BrokenProcessPool as exc:
                raise WorkerError(
                    "A self-play worker process died. With worker processes (the 'spawn' "
                    "start method) the main script must guard its work with "
                    "`if __name__ == '__main__':`; or pass workers=0 to play in this process."
                ) from exc
        else:
            results = [job(payload, search, ch) for ch in chunks]
        games: list[dict[str, Any]] = [{}] * len(seeds)
        for k, chunk_games in enumerate(results):
            for j, game in enumerate(chunk_games):
                games[k + j * len(chunks)] = game
        return games

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []


def _concat(games: list[dict[str, np.ndarray]], key: str) -> np.ndarray:
    return np.concatenate([g[key] for g in games])
