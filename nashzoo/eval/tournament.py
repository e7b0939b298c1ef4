"""Round-robin tournaments of duplicate matches: durable, resumable, parallel.

Every pairing is split into blocks of deals. A block's chance draws and agent seeds
derive from ``(seed, pairing, block)`` only, so a block gives the same result wherever and
whenever it runs: serially, in a process pool, or on a Ray cluster. Each finished block is
committed to the :class:`~nashzoo.eval.store.ResultStore` in a transaction; running the
same tournament again (same configuration) runs only the missing blocks. An agent that
raises, plays an illegal action or exceeds the per-move time limit forfeits the block;
the forfeit is stored with its reason and the tournament goes on.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from nashzoo.errors import GameTooLargeError, InvalidParameterError, MissingDependencyError
from nashzoo.eval.engine import Forfeit, deal_uniforms, play_duplicate_deals
from nashzoo.eval.matches import deal_seed
from nashzoo.eval.ratings import Crosstable, Ratings, crosstable, rate
from nashzoo.eval.store import BlockResult, ResultStore
from nashzoo.games.base import check_int

__all__ = ["TournamentConfig", "TournamentResult", "run_tournament", "summarize", "run_block"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TournamentConfig:
    """What defines a tournament (and its id: same configuration, same tournament).

    Attributes:
        game: env id, e.g. ``"nashzoo/leduc_holdem-v0"``.
        agents: ``(name, spec)`` pairs; specs as in :mod:`nashzoo.agents.specs`.
        deals: duplicate deals per pairing.
        params: game parameters.
        block_size: deals per stored block.
        seed: root seed.
        move_time_limit: seconds per move before an agent forfeits (``None``: no limit).
        fingerprints: ``(name, sha256 prefix)`` of every policy-file agent, filled in
            automatically, so that a changed file makes a new tournament instead of
            mixing results of two different policies.
    """

    game: str
    agents: tuple[tuple[str, str], ...]
    deals: int
    params: dict[str, Any] = field(default_factory=dict)
    block_size: int = 100
    seed: int = 0
    move_time_limit: float | None = None
    fingerprints: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.fingerprints:
            prints = tuple((name, _file_hash(spec)) for name, spec in self.agents
                           if spec.endswith((".npz", ".json")) and Path(spec).is_file())
            object.__setattr__(self, "fingerprints", prints)
        check_int("deals", self.deals, 1)
        check_int("block_size", self.block_size, 1)
        names = [n for n, _ in self.agents]
        if len(names) < 2:
            raise InvalidParameterError(f"A tournament needs at least 2 agents, received {names}.")
        if len(set(names)) != len(names):
            raise InvalidParameterError(f"Agent names must be unique, received {names}.")
        if self.move_time_limit is not None and not self.move_time_limit > 0:
            raise InvalidParameterError(
                f"`move_time_limit` must be positive seconds or None, received {self.move_time_limit!r}.")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["agents"] = [list(a) for a in self.agents]
        d["fingerprints"] = [list(f) for f in self.fingerprints]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TournamentConfig":
        return cls(**{**d, "agents": tuple(tuple(a) for a in d["agents"]),
                      "fingerprints": tuple(tuple(f) for f in d.get("fingerprints", ()))})

    @property
    def id(self) -> str:
        """Hash of the configuration."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def make_game(self):
        """The game (cached per process)."""
        return _game(self.game, json.dumps(self.params, sort_keys=True))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.agents)

    def blocks(self) -> list[tuple[int, int, int, int]]:
        """``(i, j, block, deals)`` of every block of every pairing ``i < j``."""
        out = []
        n_blocks = -(-self.deals // self.block_size)
        for i, j in itertools.combinations(range(len(self.agents)), 2):
            for k in range(n_blocks):
                out.append((i, j, k, min(self.block_size, self.deals - k * self.block_size)))
        return out


def _file_hash(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def _game(game_id: str, params_json: str):
    from nashzoo.envs.registration import make_game

    return make_game(game_id, **json.loads(params_json))


def _agents(config: TournamentConfig, i: int, j: int) -> tuple[Any, Any]:
    from nashzoo.agents.specs import build_agent

    game = config.make_game()
    (na, sa), (nb, sb) = config.agents[i], config.agents[j]
    return build_agent(sa, game, name=na), build_agent(sb, game, name=nb)


def run_block(config: TournamentConfig, i: int, j: int, block: int, deals: int) -> BlockResult:
    """Play one block (a pure function of its arguments; runs in any process)."""
    import time

    game = config.make_game()
    name_a, name_b = config.agents[i][0], config.agents[j][0]
    start = time.perf_counter()
    try:
        agent_a, agent_b = _agents(config, i, j)
        for k, agent in enumerate((agent_a, agent_b)):
            agent.reset(seed=deal_seed(config.seed, i, j, block, k))
        rng = np.random.default_rng([config.seed, i, j, block])
        scores = play_duplicate_deals(game, agent_a, agent_b, deal_uniforms(game, deals, rng),
                                      move_time_limit=config.move_time_limit)
    except Forfeit as exc:
        who = name_a if exc.seat_agent is agent_a else name_b
        return BlockResult(name_a, name_b, block, 0, 0.0, 0.0, 0, 0, 0,
                           time.perf_counter() - start, who, exc.reason)
    s = scores.scores
    return BlockResult(name_a, name_b, block, int(s.size), float(s.sum()), float((s * s).sum()),
                       scores.wins, scores.losses, scores.ties, time.perf_counter() - start)


@dataclass(frozen=True)
class TournamentResult:
    """Everything a tournament measured.

    Attributes:
        tournament_id: the configuration's hash.
        config: the configuration.
        crosstable: pairwise results.
        ratings: Bradley-Terry and Nash-averaging ratings.
        exploitability: per agent, chips (``None`` where not computable, e.g. no
            ``action_probabilities`` or a game too large to compile).
        blocks_done, blocks_total: progress.
    """

    tournament_id: str
    config: TournamentConfig
    crosstable: Crosstable
    ratings: Ratings
    exploitability: dict[str, float | None]
    blocks_done: int
    blocks_total: int

    @property
    def complete(self) -> bool:
        return self.blocks_done == self.blocks_total

    def format(self) -> str:
        """The crosstable and ratings as text tables (mbb/game for poker)."""
        names = self.crosstable.names
        big_blind = self.config.make_game().big_blind
        scale, unit = ((1000.0 / big_blind, "mbb/game") if big_blind else (1.0, "chips/game"))
        width = max(10, max(len(n) for n in names) + 1)
        lines = [f"Crosstable: row agent's duplicate score vs column agent, {unit} "
                 f"(mean ± 95% CI half-width)", " " * width + "".join(f"{n:>{width + 8}}" for n in names)]
        ct = self.crosstable
        for i, a in enumerate(names):
            cells = []
            for j in range(len(names)):
                if i == j or not np.isfinite(ct.mean[i, j]):
                    cells.append(f"{'-':>{width + 8}}")
                else:
                    half = (ct.ci_high[i, j] - ct.mean[i, j]) * scale
                    cells.append(f"{ct.mean[i, j] * scale:>+{width}.1f} ±{half:<6.1f}")
            lines.append(f"{a:<{width}}" + "".join(cells))
        r = self.ratings
        lines += ["", f"{'agent':<{width}} {'Elo (BT)':>9} {'95% CI':>17} {'Nash mix':>9} "
                      f"{'Nash score':>11} {'exploitability':>15}"]
        for k in np.argsort(-r.elo):
            e = self.exploitability.get(names[k])
            e_txt = "-" if e is None else f"{e:.4g}"
            lines.append(f"{names[k]:<{width}} {r.elo[k]:>+9.1f} [{r.elo_low[k]:>+7.1f},{r.elo_high[k]:>+7.1f}]"
                         f" {r.nash_mixture[k]:>9.3f} {r.nash_score[k] * scale:>+11.1f} {e_txt:>15}")
        if ct.forfeits:
            lines += ["", "Forfeits:"] + [f"  {a} vs {b} block {k}: {who} — {why}"
                                          for a, b, k, who, why in ct.forfeits]
        return "\n".join(lines)


def _exploitabilities(config: TournamentConfig, store: ResultStore, tid: str) -> None:
    from nashzoo.agents.specs import build_agent
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.tree import compile_game

    done = store.exploitabilities(tid)
    todo = [(n, s) for n, s in config.agents if n not in done]
    if not todo:
        return
    game = config.make_game()
    try:
        tree = compile_game(game, max_nodes=2_000_000)
    except GameTooLargeError as exc:
        for name, _ in todo:
            store.set_exploitability(tid, name, None, f"game too large to compile: {exc}")
        return
    for name, spec in todo:
        agent = build_agent(spec, game, name=name)
        if not callable(getattr(agent, "action_probabilities", None)):
            store.set_exploitability(tid, name, None, "not a PolicyAgent")
            continue
        try:
            store.set_exploitability(tid, name, exploitability(agent, tree).exploitability)
        except Exception as exc:  # an agent's own failure is recorded, not fatal
            store.set_exploitability(tid, name, None, f"{type(exc).__name__}: {exc}")


def _local_backend(config, pending, workers):
    if workers <= 1:
        for item in pending:
            yield run_block(config, *item)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(run_block, config, *item) for item in pending]
        for fut in as_completed(futures):
            yield fut.result()


def _ray_backend(config, pending, address):
    try:
        import ray
    except ImportError as exc:
        raise MissingDependencyError("--backend ray needs Ray: pip install 'nashzoo[ray]'.") from exc
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(run_block)
    refs = [remote.remote(config, *item) for item in pending]
    while refs:
        ready, refs = ray.wait(refs, num_returns=1)
        yield ray.get(ready[0])


def run_tournament(config: TournamentConfig, store: ResultStore | str, *, workers: int = 1,
                   backend: str = "local", ray_address: str | None = None,
                   progress: bool = False, bootstrap: int = 200) -> TournamentResult:
    """Run (or resume) a tournament and return its summary.

    Args:
        config: the tournament.
        store: a :class:`ResultStore` or a SQLite path / database URL.
        workers: processes for the local back end (1 = in this process).
        backend: ``"local"`` or ``"ray"`` (``ray.init(address=ray_address)``; ``None``
            starts a local Ray).
        progress: show a progress bar.
        bootstrap: bootstrap samples for the rating intervals.
    """
    workers = check_int("workers", workers, 1)
    if backend not in ("local", "ray"):
        raise InvalidParameterError(f"`backend` must be 'local' or 'ray', received {backend!r}.")
    if not isinstance(store, ResultStore):
        store = ResultStore(store)
    tid = config.id
    if not store.register(tid, config.to_dict()):
        logger.info("resuming tournament %s", tid)
    config.make_game()  # fail early on bad games
    _exploitabilities(config, store, tid)
    blocks = config.blocks()
    names = config.names
    done = store.done(tid)
    pending = [(i, j, k, n) for i, j, k, n in blocks if (names[i], names[j], k) not in done]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(blocks), initial=len(blocks) - len(pending), unit="block",
                   desc=f"tournament {tid[:8]}")
    results: Iterable[BlockResult] = (
        _ray_backend(config, pending, ray_address) if backend == "ray"
        else _local_backend(config, pending, workers))
    for result in results:
        store.add_block(tid, result)
        if result.forfeit:
            logger.warning("%s forfeited %s vs %s block %d: %s", result.forfeit, result.a,
                           result.b, result.block, result.reason)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return summarize(store, tid, bootstrap=bootstrap)


def summarize(store: ResultStore | str, tournament_id: str, *, bootstrap: int = 200,
              seed: int = 0) -> TournamentResult:
    """Crosstable, ratings and exploitability of a stored tournament (finished or not)."""
    if not isinstance(store, ResultStore):
        store = ResultStore(store)
    config = TournamentConfig.from_dict(store.config(tournament_id))
    results = store.results(tournament_id)
    names = config.names
    expl = {n: v for n, (v, _) in store.exploitabilities(tournament_id).items()}
    table = crosstable(results, names)
    return TournamentResult(
        tournament_id, config, table,
        rate(results, names, bootstrap=bootstrap, seed=seed, table=table),
        {n: expl.get(n) for n in names}, len(results), len(config.blocks()))
