"""Self-play training of Nash-ISMCTS's networks, AlphaZero style (torch extra).

``docs/explanation/nash-ismcts.md`` ("A-ISMCTS") gives the targets. One generation:

1. tabulate the current network on every view (the search reads only these tables);
2. play ``games_per_generation`` self-play games: at every decision the mover runs
   Nash-ISMCTS from its own information set (Dirichlet noise at the root) and plays a
   move sampled from the root's visit counts; record the visit distribution (target of
   P), and for every view each player held along the game the final payoff (target of V)
   and of V_w at the world that was true;
3. sample ``belief_games`` games from the current P alone (not the replay buffer, which
   drifts toward Bayes of an old P): the true world at every view is H's target;
4. take ``steps_per_generation`` gradient steps on the replay buffer (the last
   ``replay_generations`` generations) with the loss P cross-entropy + V, V_w squared
   errors + H cross-entropy + V_c squared error toward the network's own V after each
   action + the Bayes-rule term (H after an opponent's action against Bayes' rule applied
   to H before it and P at the opponent's information sets, on every such transition of
   the game);
5. measure the exploitability of P exactly, and every ``eval_every`` generations that of
   the search policy (one search at every information set), and checkpoint.

Self-play games run in worker processes (``workers``) or as Ray tasks
(``backend="ray"``); each game is seeded from (seed, generation, game index), so the
same seed gives the same networks whatever the number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.agent import ISMCTSAgent
from nashzoo.agents.ismcts.nets import NetworkShape, SearchNetwork, masked_log_softmax, tabulate
from nashzoo.agents.ismcts.search import Search, SearchConfig
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.errors import InvalidParameterError, WorkerError
from nashzoo.extras import require
from nashzoo.games import Game, load_game
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.best_response import nash_conv_array
from nashzoo.tree.compile import compile_game
from nashzoo.tree.reach import edge_probabilities
from nashzoo.tree.views import ViewTable, views_of
from nashzoo.validation import Config, choice, integer, integers, number

__all__ = [
    "TrainConfig",
    "GenerationRecord",
    "TrainResult",
    "train",
    "search_exploitability",
    "belief_kl",
]

torch = require("torch", "torch", "Nash-ISMCTS training")


@dataclass(frozen=True)
class TrainConfig(Config):
    """Hyper-parameters of Nash-ISMCTS self-play training.

    Attributes:
        generations: the most generations to run (``minutes`` may stop it earlier).
        minutes: wall-clock budget (``None``: run all generations).
        games_per_generation: self-play games per generation.
        simulations: search simulations per self-play move (measured on Leduc, 10
            minutes on one core: 100 left P at 0.42 chips, 400 reached 0.34; 1,000 reached
            0.32 in fewer generations, but its search rose more with simulations).
        eval_simulations: simulations per information set when measuring the search.
        eps: the epsilon of the search in the self-play loop (small: every P inside the
            interval-overlap zone is a fixed point of the loop, so the floor of the
            loop's exploitability grows with eps).
        eps_final: when set, eps moves linearly from ``eps`` to ``eps_final`` over the
            run (over ``generations``, or over ``minutes`` when that is set).
        play_eps: the epsilon of the trained agent's search, and of the measurements (a
            separate, larger setting: it keeps the search at P where the network's values
            are off by less than the interval, so it does not collapse as it searches
            longer).
        c_puct: the PUCT constant of self-play.
        play_c_puct: the PUCT constant of the trained agent and of the measurements (a
            larger constant leans on P where the network's values disagree; measured on
            Leduc: 4 kept the search flat from 100 to 3,000 simulations where 2 let it
            rise).
        spawn_cap: nesting levels of spawned opponent trees.
        noise_alpha, noise_fraction: Dirichlet noise at the self-play root.
        hidden_sizes: widths of the network's torso.
        learning_rate: Adam's step size.
        batch_size: decisions (and twice as many view records) per gradient step.
        steps_per_generation: gradient steps per generation.
        replay_generations: generations of self-play data the buffer keeps.
        belief_games: games sampled from P per generation for H's targets (all stepped
            at once). Measured on Leduc (8 minutes, one core): 256 games left H at a mean
            KL of 0.18 from Bayes' rule under P and the search at 0.30 chips; 4,096 reached
            0.011 and 0.22-0.24; 16,384 reached 0.006 and 0.25.
        bayes_weight: weight of the Bayes-rule loss.
        eval_every: generations between measurements of the search policy.
        workers: self-play worker processes (0: play in this process).
        backend: ``"local"`` or ``"ray"``.
        seed: seed of everything (networks, games, searches).
    """

    generations: int = integer(200, low=1)
    minutes: float | None = number(None, low=0.0, low_inclusive=False, optional=True)
    games_per_generation: int = integer(128, low=1)
    simulations: int = integer(400, low=1)
    eval_simulations: int = integer(1000, low=1)
    eps: float = number(0.05, low=0.0)
    eps_final: float | None = number(None, low=0.0, optional=True)
    play_eps: float = number(0.2, low=0.0)
    play_c_puct: float = number(4.0, low=0.0)
    c_puct: float = number(2.0, low=0.0)
    spawn_cap: int = integer(3, low=0, high=8)
    noise_alpha: float = number(1.0, low=0.0, low_inclusive=False)
    noise_fraction: float = number(0.25, low=0.0, high=1.0)
    hidden_sizes: tuple[int, ...] = integers((128, 128))
    learning_rate: float = number(1e-3, low=0.0)
    batch_size: int = integer(256, low=1)
    steps_per_generation: int = integer(100, low=1)
    replay_generations: int = integer(20, low=1)
    belief_games: int = integer(16384, low=1)
    bayes_weight: float = number(1.0, low=0.0)
    eval_every: int = integer(5, low=1)
    workers: int = integer(0, low=0)
    backend: str = choice("local", ("local", "ray"))
    seed: int = integer(0, low=0)

    def search_config(self, *, play: bool = False, progress: float = 0.0) -> SearchConfig:
        """The Nash-ISMCTS settings of self-play (``progress`` in [0, 1] of the run
        anneals eps toward ``eps_final``), or (``play``) of the trained agent and the
        measurements (``eval_simulations``, ``play_eps``)."""
        eps = self.eps
        if self.eps_final is not None:
            eps = self.eps + (self.eps_final - self.eps) * min(max(progress, 0.0), 1.0)
        return SearchConfig(
            variant="nash",
            simulations=self.eval_simulations if play else self.simulations,
            c_puct=self.play_c_puct if play else self.c_puct,
            eps=self.play_eps if play else eps,
            spawn_cap=self.spawn_cap,
            noise_alpha=self.noise_alpha,
            noise_fraction=self.noise_fraction,
            seed=self.seed,
        )


@dataclass(frozen=True)
class GenerationRecord:
    """What one generation measured (exploitability in chips)."""

    generation: int
    seconds: float
    games: int
    loss: dict[str, float]
    prior_exploitability: float
    search_exploitability: float | None
    belief_kl: float


@dataclass
class TrainResult:
    """The trained network, its search agent and the curve."""

    config: TrainConfig
    network: Any
    agent: ISMCTSAgent
    history: list[GenerationRecord] = field(default_factory=list)

    def curves(self) -> list[Any]:
        """Two :class:`~nashzoo.agents.cfr.run.ConvergenceCurve` (P and the search) for
        :func:`nashzoo.eval.plots.plot_convergence` (steps are generations)."""
        from nashzoo.agents.cfr.run import ConvergenceCurve, ConvergencePoint

        game = repr(self.agent.game)
        prior = tuple(
            ConvergencePoint(r.generation, r.seconds, r.prior_exploitability) for r in self.history
        )
        searched = tuple(
            ConvergencePoint(r.generation, r.seconds, r.search_exploitability)
            for r in self.history
            if r.search_exploitability is not None
        )
        policy = self.agent.tables
        from nashzoo.tree.policy import TabularPolicy

        p = TabularPolicy(policy.tree, policy.prior)
        return [
            ConvergenceCurve("network P", game, prior, p),
            ConvergenceCurve(
                f"Nash-ISMCTS ({self.config.eval_simulations} simulations)", game, searched, p
            ),
        ]


# -- measuring ------------------------------------------------------------------------------
def search_exploitability(
    tables: SearchTables, config: SearchConfig, *, seed: int = 0
) -> tuple[float, np.ndarray]:
    """Exploitability (chips) of the search operator: one search at every information set,
    seeded per set; returns it and the assembled ``(num_infosets, num_actions)`` policy."""
    tree = tables.tree
    search = Search(tables, config)
    probs = np.zeros(tree.legal_mask.shape)
    for i in range(tree.num_infosets):
        probs[i] = search.run(i, np.random.SeedSequence([seed, i])).policy
    return nash_conv_array(tree, probs) / tree.num_players, probs


# -- self-play (runs in worker processes) ----------------------------------------------------
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
    search = Search(tables, SearchConfig(**config))
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
                target[result.actions] = result.visits / result.visits.sum()
                a = int(rng.choice(tree.num_actions, p=target / target.sum()))
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


# -- the structure of the losses -------------------------------------------------------------
@dataclass(frozen=True)
class _Structure:
    """Index arrays of the game the V_c and Bayes-rule losses need (built once)."""

    set_view: Any  # (I,) view of each information set
    legal: Any  # (I, A) bool
    child_view: Any  # (I, A) the owner's view after each action, -1 if terminal
    set_worlds: Any  # (I, K) world ids of the set's histories, -1 padded
    terminal_value: Any  # (I, A, K) scaled payoff when the action ends the game
    bayes_before: Any  # (T,) p's view before the opponent's action
    bayes_after: Any  # (T,) p's view after it
    bayes_action: Any  # (T,)
    bayes_worlds: Any  # (T, K) world ids, -1 padded
    bayes_sets: Any  # (T, K) the opponent's information set in each world


def _structure(views: ViewTable) -> _Structure:
    tree = views.tree
    n_sets, n_actions = tree.legal_mask.shape
    k_max = views.max_worlds_per_infoset
    scale = payoff_scale(tree)
    child_view = np.full((n_sets, n_actions), -1, dtype=np.int64)
    set_worlds = np.full((n_sets, k_max), -1, dtype=np.int64)
    terminal = np.zeros((n_sets, n_actions, k_max), dtype=np.float32)
    for i in range(n_sets):
        p = int(tree.infoset_player[i])
        nodes = views.worlds_of(i)
        set_worlds[i, : nodes.size] = views.node_world[p, nodes]
        for a in np.flatnonzero(tree.legal_mask[i]):
            children = tree.first_child[nodes] + views.action_slot[i, a]
            if tree.player[children[0]] == TERMINAL:
                terminal[i, a, : nodes.size] = tree.utility[children, p] / scale
            else:
                child_view[i, a] = views.node_view[p, children[0]]
    before, after, acts, worlds, sets = [], [], [], [], []
    for u in range(views.num_views):
        p = int(views.view_player[u])
        nodes = np.flatnonzero(views.node_view[p] == u)
        movers = tree.player[nodes]
        if nodes.size == 0 or movers[0] < 0 or movers[0] == p:
            continue
        for a in np.flatnonzero(tree.legal_mask[tree.infoset[nodes[0]]]):
            slot = views.action_slot[tree.infoset[nodes[0]], a]
            children = tree.first_child[nodes] + slot
            if tree.player[children[0]] == TERMINAL or views.node_view[p, children[0]] < 0:
                continue
            w = np.full(k_max, -1, dtype=np.int64)
            s = np.zeros(k_max, dtype=np.int64)
            w[: nodes.size] = views.node_world[p, nodes]
            s[: nodes.size] = tree.infoset[nodes]
            before.append(u)
            after.append(int(views.node_view[p, children[0]]))
            acts.append(int(a))
            worlds.append(w)
            sets.append(s)
    t = torch.as_tensor
    return _Structure(
        set_view=t(views.infoset_view.astype(np.int64)),
        legal=t(np.array(tree.legal_mask)),
        child_view=t(child_view),
        set_worlds=t(set_worlds),
        terminal_value=t(terminal),
        bayes_before=t(np.asarray(before, dtype=np.int64)),
        bayes_after=t(np.asarray(after, dtype=np.int64)),
        bayes_action=t(np.asarray(acts, dtype=np.int64)),
        bayes_worlds=t(np.asarray(worlds, dtype=np.int64).reshape(-1, k_max)),
        bayes_sets=t(np.asarray(sets, dtype=np.int64).reshape(-1, k_max)),
    )


def _gather_worlds(logp: Any, worlds: Any) -> Any:
    """``logp[row, worlds[row, k]]`` with -inf where ``worlds`` is -1 (padding)."""
    picked = logp.gather(1, worlds.clamp(min=0))
    return picked.masked_fill(worlds < 0, float("-inf"))


def _losses(
    net: SearchNetwork,
    inputs: Any,
    wmask: Any,
    st: _Structure,
    batch: dict[str, Any],
    bayes_weight: float,
) -> tuple[Any, dict[str, float]]:
    out = net(inputs)  # every view at once
    sets = st.set_view
    # P: cross-entropy with the visit distributions
    logp = masked_log_softmax(out["policy"][sets[batch["infosets"]]], st.legal[batch["infosets"]])
    policy = -(batch["targets"] * logp.masked_fill(~st.legal[batch["infosets"]], 0.0)).sum(1).mean()
    # V and V_w: squared error with the final payoffs
    value = ((out["value"][batch["views"]] - batch["returns"]) ** 2).mean()
    world = out["world_value"][batch["views"], batch["worlds"]]
    world_value = ((world - batch["returns"]) ** 2).mean()
    # H: cross-entropy with the true worlds of games sampled from P
    logh = masked_log_softmax(out["belief"], wmask)
    belief = -logh[batch["h_views"], batch["h_worlds"]].mean()
    # V_c: the network's own V after each action (payoff under H where the action ends it)
    with torch.no_grad():
        v_after = out["value"][st.child_view.clamp(min=0)]
        h_set = _gather_worlds(logh[sets], st.set_worlds).exp()
        ends = (st.terminal_value * h_set[:, None, :]).sum(-1)
        target_c = torch.where(st.child_view >= 0, v_after, ends)
    child = out["child_value"][sets]
    child_value = (((child - target_c) ** 2) * st.legal).sum() / st.legal.sum()
    # Bayes' rule: H after an opponent's action = H before it times P(action | its set)
    bayes = torch.zeros(())
    if st.bayes_before.numel():
        with torch.no_grad():
            prior_h = _gather_worlds(logh[st.bayes_before], st.bayes_worlds)
            opp_sets = sets[st.bayes_sets]
            opp_logp = masked_log_softmax(out["policy"][opp_sets], st.legal[st.bayes_sets])
            act = st.bayes_action[:, None, None].expand(-1, opp_logp.shape[1], 1)
            target = torch.softmax(prior_h + opp_logp.gather(2, act).squeeze(2), dim=1)
            target = torch.nan_to_num(target, nan=0.0)
        post = _gather_worlds(logh[st.bayes_after], st.bayes_worlds)
        post = torch.log_softmax(post, dim=1)
        bayes = -(target * post.masked_fill(st.bayes_worlds < 0, 0.0)).sum(1).mean()
    total = policy + value + world_value + belief + child_value + bayes_weight * bayes
    parts = {
        "policy": policy.item(),
        "value": value.item(),
        "world_value": world_value.item(),
        "belief": belief.item(),
        "child_value": child_value.item(),
        "bayes": bayes.item(),
    }
    return total, parts


def belief_kl(tables: SearchTables) -> float:
    """Mean KL(exact Bayes under P || H) over the views (the spec asks < 0.01): how far
    the belief table is from Bayes' rule applied to the tables' own policy P."""
    exact = SearchTables.oracle(tables.views, tables.prior).belief
    mask = tables.views.view_world_mask & (exact > 0)
    h = np.where(mask, tables.belief, 1.0)
    kl = np.where(
        mask, exact * (np.log(np.where(mask, exact, 1.0)) - np.log(np.maximum(h, 1e-12))), 0.0
    )
    return float(kl.sum(axis=1).mean())


# -- the loop -------------------------------------------------------------------------------------
class SelfPlayWorker:
    """A Ray actor's body: plays the self-play games it is given (one per seed)."""

    def play(
        self, payload: dict[str, Any], config: dict[str, Any], seeds: Sequence[Sequence[int]]
    ) -> list[dict[str, Any]]:
        return play_self_play_games(payload, config, seeds)


class _Players:
    """Runs self-play game batches in this process, worker processes or Ray actors."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.pool: ProcessPoolExecutor | None = None
        self.ray: Any = None
        self.actors: list[Any] = []
        if config.backend == "ray":
            self.ray = require("ray", "ray", "Training with --backend ray")
            if not self.ray.is_initialized():
                # RAY_ADDRESS in the environment joins an existing cluster
                self.ray.init(include_dashboard=False, log_to_driver=False)
            actor = self.ray.remote(num_cpus=1)(SelfPlayWorker)
            self.actors = [actor.remote() for _ in range(max(1, config.workers))]
        elif config.workers > 0:
            self.pool = ProcessPoolExecutor(config.workers, mp_context=get_context("spawn"))

    def play(
        self, tables: SearchTables, generation: int, progress: float
    ) -> list[dict[str, np.ndarray]]:
        c = self.config
        payload = _tables_payload(tables)
        search = c.search_config(progress=progress).to_dict()
        seeds = [(c.seed, generation, g) for g in range(c.games_per_generation)]
        parts = max(1, c.workers) * 4 if (self.pool or self.ray) else 1
        chunks = [seeds[k::parts] for k in range(parts) if seeds[k::parts]]
        if self.ray is not None:
            ref = self.ray.put(payload)
            actors = self.actors
            results = self.ray.get(
                [
                    actors[k % len(actors)].play.remote(ref, search, ch)
                    for k, ch in enumerate(chunks)
                ]
            )
        elif self.pool is not None:
            n = len(chunks)
            try:
                results = list(
                    self.pool.map(play_self_play_games, [payload] * n, [search] * n, chunks)
                )
            except BrokenProcessPool as exc:
                raise WorkerError(
                    "A self-play worker process died. With worker processes (the 'spawn' "
                    "start method) the main script must guard its work with "
                    "`if __name__ == '__main__':`; or pass workers=0 to play in this process."
                ) from exc
        else:
            results = [play_self_play_games(payload, search, ch) for ch in chunks]
        # back into game order, so the data does not depend on the number of workers
        games: list[dict[str, np.ndarray]] = [{}] * len(seeds)
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


def train(
    game: Game,
    config: TrainConfig | None = None,
    *,
    out: str | Path | None = None,
    progress: bool = False,
    callback: Callable[[GenerationRecord], Any] | None = None,
) -> TrainResult:
    """Train Nash-ISMCTS's networks by self-play on ``game`` (Kuhn- or Leduc-sized).

    Args:
        game: the game.
        config: hyper-parameters (default ``TrainConfig()``).
        out: checkpoint the agent here (``.pt``) after every measurement of the search.
        progress: show a progress bar (drawn only on a terminal).
        callback: called with each :class:`GenerationRecord`; return ``False`` to stop.

    Returns:
        The network, its Nash-ISMCTS agent (``eval_simulations`` per move) and the curve.
    """
    config = TrainConfig() if config is None else config
    if not isinstance(config, TrainConfig):
        raise InvalidParameterError(
            f"config must be a TrainConfig, received {type(config).__name__}."
        )
    if not isinstance(game, Game):
        raise InvalidParameterError(f"train needs a nashzoo Game, received {type(game).__name__}.")
    if out is not None and Path(out).suffix != ".pt":
        raise InvalidParameterError(f"out must end in .pt, received {out!r}.")
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, 10**6]))
    tree = compile_game(game)
    views = views_of(tree)
    shape = NetworkShape.for_views(views, config.hidden_sizes)
    net = SearchNetwork(shape)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    inputs = torch.from_numpy(np.array(views.view_tensor, dtype=np.float32))
    wmask = torch.from_numpy(views.view_world_mask.copy())
    structure = _structure(views)
    players = _Players(config)
    buffer: list[list[dict[str, np.ndarray]]] = []
    history: list[GenerationRecord] = []
    budget = None if config.minutes is None else 60.0 * config.minutes
    start = time.perf_counter()
    deadline = None if budget is None else start + budget
    bar = None
    if progress:
        from nashzoo.extras import progress_bar

        # a run with a time budget counts seconds, one without counts generations
        bar = progress_bar(
            total=config.generations if budget is None else round(budget),
            unit="gen" if budget is None else "s",
            desc="Nash-ISMCTS self-play",
        )
    tables = tabulate(net, views)
    eval_config = config.search_config(play=True)
    agent = ISMCTSAgent(tree, tables, eval_config, name="nash-ismcts")
    try:
        for generation in range(1, config.generations + 1):
            net.eval()
            tables = tabulate(net, views)
            if deadline is not None:
                fraction = (time.perf_counter() - start) / (deadline - start)
            else:
                fraction = (generation - 1) / max(config.generations - 1, 1)
            games = players.play(tables, generation, fraction)
            buffer = [*buffer, games][-config.replay_generations :]
            h_views, h_worlds = _prior_games(tables, rng, config.belief_games)
            data = [g for gen in buffer for g in gen]
            arrays = {k: _concat(data, k) for k in ("infosets", "views", "worlds", "returns")}
            arrays["targets"] = np.concatenate([g["targets"] for g in data])
            net.train()
            parts: dict[str, float] = {}
            for _ in range(config.steps_per_generation):
                d = rng.integers(0, arrays["infosets"].size, config.batch_size)
                v = rng.integers(0, arrays["views"].size, 2 * config.batch_size)
                h = rng.integers(0, h_views.size, 2 * config.batch_size)
                batch = {
                    "infosets": torch.from_numpy(arrays["infosets"][d]),
                    "targets": torch.from_numpy(arrays["targets"][d]),
                    "views": torch.from_numpy(arrays["views"][v]),
                    "worlds": torch.from_numpy(arrays["worlds"][v]),
                    "returns": torch.from_numpy(arrays["returns"][v]),
                    "h_views": torch.from_numpy(h_views[h]),
                    "h_worlds": torch.from_numpy(h_worlds[h]),
                }
                loss, parts = _losses(net, inputs, wmask, structure, batch, config.bayes_weight)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            net.eval()
            tables = tabulate(net, views)
            prior_expl = nash_conv_array(tree, tables.prior) / tree.num_players
            last = generation == config.generations or (
                deadline is not None and time.perf_counter() >= deadline
            )
            search_expl = None
            if generation % config.eval_every == 0 or last:
                search_expl, _ = search_exploitability(tables, eval_config, seed=config.seed)
            record = GenerationRecord(
                generation=generation,
                seconds=time.perf_counter() - start,
                games=generation * config.games_per_generation,
                loss=parts,
                prior_exploitability=float(prior_expl),
                search_exploitability=None if search_expl is None else float(search_expl),
                belief_kl=belief_kl(tables),
            )
            history.append(record)
            agent = ISMCTSAgent(
                tree,
                tables,
                eval_config,
                name="nash-ismcts",
                metadata={"generation": generation, "train": config.to_dict()},
            )
            if out is not None and search_expl is not None:
                _save(agent, net, out)
            if bar is not None:
                if deadline is None:
                    bar.update(1)
                else:
                    bar.update(min(round(record.seconds), bar.total) - bar.n)
                bar.set_postfix(gen=generation, P=f"{prior_expl:.3f}", search=search_expl)
            if callback is not None and callback(record) is False:
                break
            if last:
                break
    finally:
        players.close()
        if bar is not None:
            bar.close()
    if out is not None:
        _save(agent, net, out)
    return TrainResult(config=config, network=net, agent=agent, history=history)


def _save(agent: ISMCTSAgent, net: SearchNetwork, out: str | Path) -> Path:
    network = {"shape": net.shape.to_dict(), "state": net.state_dict()}
    return agent.save(out, network=network)
