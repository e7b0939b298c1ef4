"""Round-robin tournaments of duplicate matches: durable, resumable, parallel, and proof
against agents that misbehave.

Every pairing is split into blocks of deals. A block's chance draws and agent seeds
derive from ``(seed, pairing, block)`` only, so a block gives the same result wherever and
whenever it runs: in this process (``workers=0``), in supervised worker processes, or on
a Ray cluster. Each finished block is committed to the
:class:`~nashzoo.eval.store.ResultStore` in a transaction; running the same tournament
again (same configuration) runs only the missing blocks.

Agents are given as agent objects or agent factories (``factory(game) -> agent``, such
as :class:`nashzoo.agents.AgentSpec`); turning spec strings into factories is the CLI's
and :mod:`nashzoo.agents`' job. Before any block runs, every agent is built once and
checked, so an agent that cannot play this game is refused at the start.

Faults are forfeits: an agent that raises (``SystemExit`` and ``KeyboardInterrupt``
included), fails in ``reset()``, answers an invalid or illegal action, or overruns the
per-move time limit forfeits the block; with worker processes, an agent that kills its
process (``os._exit``, a crash) is detected, the block retried, and after
``max_attempts`` runs recorded as a CRASH forfeit of the agent that was moving. A
forfeited block counts all its deals as lost by the game's largest payoff (see
:mod:`nashzoo.eval.ratings`). The user's Ctrl-C stops the run; what is stored stays, and
the same command resumes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.eval.blocks import (
    AgentReport,
    agent_task,
    block_outcome,
    block_task,
    check_agent,
    ray_block,
    run_block,
)
from nashzoo.eval.guard import user_interrupts
from nashzoo.eval.pool import SupervisedPool, Task
from nashzoo.eval.ratings import Crosstable, Ratings, crosstable, rate
from nashzoo.eval.stats import score_digits, score_unit
from nashzoo.eval.store import BlockResult, ResultStore, StoredExploitability
from nashzoo.eval.tournament_config import (
    AgentFactory,
    TournamentConfig,
    TournamentInfo,
    check_picklable,
)
from nashzoo.validation import check_choice, check_int

__all__ = [
    "AgentFactory",
    "RATINGS",
    "TournamentConfig",
    "TournamentInfo",
    "TournamentResult",
    "stored_info",
    "AgentReport",
    "run_tournament",
    "summarize",
    "run_block",
]

logger = logging.getLogger(__name__)

RATINGS = ("bt", "nash", "alpharank")
"""What :meth:`TournamentResult.format` (``nashzoo tournament --ratings``) sorts the
ratings by: Bradley-Terry, the Nash-averaging score, α-Rank's stationary mass."""


# -- the tournament -----------------------------------------------------------------------
@dataclass(frozen=True)
class TournamentResult:
    """Everything a tournament measured.

    Attributes:
        tournament_id: the configuration's hash.
        config: the stored configuration.
        crosstable: pairwise results.
        ratings: Bradley-Terry and Nash-averaging ratings.
        exploitability: per agent, chips (``None`` where not computable, e.g. no
            ``action_probabilities`` or a game too large to compile).
        blocks_done, blocks_total: progress.
        exploitability_method: per agent, ``"exact"``, ``"lbr"`` (a local-best-response
            lower bound, where the game is too large; see ``lbr_hands`` of
            :class:`TournamentConfig`) or ``None`` (unknown).
        exploitability_note: per agent, why it is unknown, or the bound's hands and CI.
        exploitability_ci95: per agent, the bound's 95% CI (``None`` for exact figures).
    """

    tournament_id: str
    config: TournamentInfo
    crosstable: Crosstable
    ratings: Ratings
    exploitability: dict[str, float | None]
    blocks_done: int
    blocks_total: int
    exploitability_method: dict[str, str | None] = field(default_factory=dict)
    exploitability_note: dict[str, str | None] = field(default_factory=dict)
    exploitability_ci95: dict[str, tuple[float, float] | None] = field(default_factory=dict)

    def exploitability_text(self, name: str, scale: float = 1.0) -> str:
        """An agent's exploitability for tables, times ``scale`` (1000 / big blind for
        mbb/game): ``0.0123``, ``>=0.152 (LBR)`` for a lower bound, ``-`` when
        unknown."""
        value = self.exploitability.get(name)
        if value is None:
            return "-"
        if self.exploitability_method.get(name) == "lbr":
            return f">={value * scale:.4g} (LBR)"
        return f"{value * scale:.4g}"

    @property
    def complete(self) -> bool:
        return self.blocks_done == self.blocks_total

    def format(self, ratings: str = "bt") -> str:
        """The crosstable and ratings as text tables (mbb/game for poker), the ratings
        table sorted by ``ratings`` (one of :data:`RATINGS`: ``"bt"`` Bradley-Terry,
        ``"nash"`` the Nash score, ``"alpharank"`` α-Rank's mass, shown then with its 95%
        interval).

        Raises:
            InvalidParameterError: ``ratings`` is not one of :data:`RATINGS`.
        """
        check_choice("ratings", ratings, RATINGS)
        names = self.crosstable.names
        game = self.config.make_game()
        scale, unit = score_unit(game)
        d = score_digits(scale)
        width = max(10, max(len(n) for n in names) + 1)
        ct = self.crosstable
        reduction = self.config.variance_reduction
        how = f"; {reduction}" if reduction else ""
        lines = [
            f"Crosstable: row agent's duplicate score vs column agent, {unit} "
            f"(mean ± 95% CI half-width{how})",
            " " * width + "".join(f"{n:>{width + 8}}" for n in names),
        ]

        def rows(cell_of: Any) -> list[str]:
            out = []
            for i, a in enumerate(names):
                cells = [cell_of(i, j, scale) for j in range(len(names))]
                out.append(
                    f"{a:<{width}}"
                    + "".join(
                        f"{'-':>{width + 8}}"
                        if c is None
                        else f"{c[0]:>+{width}.{d}f} ±{c[1]:<6.{d}f}"
                        for c in cells
                    )
                )
            return out

        lines += rows(ct.cell)
        if ct.plain_mean is not None:
            lines += ["", f"The same games uncorrected (no AIVAT), {unit}:", *rows(ct.plain_cell)]
        r = self.ratings
        lines += [
            "",
            f"Elo (BT): Bradley-Terry on deals won, not on the {game.payoff_unit} won (an "
            f"agent that wins many small pots rates high); Nash score: {unit} against the "
            "maximum-entropy Nash mixture of these agents (who wins the most); α-Rank: the "
            "agent's mass in alpha-Rank's stationary distribution (where evolution settles); "
            f"exploitability: {unit} a best response wins (>= x (LBR): a lower bound)",
            f"{'agent':<{width}} {'Elo (BT)':>9} {'95% CI':>17} {'Nash mix':>9} "
            f"{'Nash score':>11} {'α-Rank':>7}"
            + (f" {'95% CI':>15}" if ratings == "alpharank" else "")
            + f" {'exploitability':>15}",
        ]
        nan = np.full(len(names), np.nan)
        mass = nan if r.alpharank is None else r.alpharank
        key = {"bt": r.elo, "nash": r.nash_score, "alpharank": mass}[ratings]
        for k in np.lexsort((-r.elo, -np.nan_to_num(key, nan=-np.inf))):  # ties by BT
            e_txt = self.exploitability_text(names[k], scale)
            interval = ""
            if ratings == "alpharank":
                low = nan if r.alpharank_low is None else r.alpharank_low
                high = nan if r.alpharank_high is None else r.alpharank_high
                interval = f" [{low[k]:>6.3f},{high[k]:>6.3f}]"
            lines.append(
                f"{names[k]:<{width}} {r.elo[k]:>+9.1f} [{r.elo_low[k]:>+7.1f},"
                f"{r.elo_high[k]:>+7.1f}] {r.nash_mixture[k]:>9.3f} "
                f"{r.nash_score[k] * scale:>+11.{d}f} {mass[k]:>7.3f}{interval} {e_txt:>15}"
            )
        if ct.forfeits:
            lines += [
                "",
                "Forfeits (every deal of a forfeited block counts as lost by the "
                "game's largest payoff):",
            ]
            lines += [f"  {a} vs {b} block {k}: {who} — {why}" for a, b, k, who, why in ct.forfeits]
        return "\n".join(lines)


def _progress(total: int, initial: int, tid: str) -> Any:
    from nashzoo.extras import progress_bar

    return progress_bar(total=total, initial=initial, unit="block", desc=f"tournament {tid[:8]}")


def stored_info(config: TournamentConfig, store: ResultStore) -> TournamentInfo:
    """The configuration ``store`` keeps ``config``'s results under (its ``id`` names
    them): ``config.info``, or the one an earlier version stored for the same tournament
    (agent files named by their paths) where the store holds only that, so that a run
    begun then resumes instead of starting over."""
    legacy = config.legacy_info
    if legacy is not None:
        ids = set(store.tournament_ids())
        if config.id not in ids and legacy.id in ids:
            return legacy
    return config.info


def run_tournament(
    config: TournamentConfig,
    store: ResultStore | str | Path,
    *,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    progress: bool = False,
    bootstrap: int = 200,
    max_attempts: int = 2,
) -> TournamentResult:
    """Run (or resume) a tournament and return its summary.

    Args:
        config: the tournament.
        store: a :class:`ResultStore` or a SQLite path / database URL.
        workers: supervised worker processes for the local back end; ``0`` plays in this
            process (fastest to start, but an agent that kills the process ends the run).
        backend: ``"local"`` or ``"ray"`` (``ray.init(address=ray_address)``; ``None``
            starts a local Ray). Under Ray a block whose worker dies is re-run under local
            supervision to name the agent at fault.
        progress: show a progress bar (drawn only on a terminal).
        bootstrap: bootstrap samples for the rating intervals.
        max_attempts: runs of a block whose worker process dies before it is recorded as
            a CRASH forfeit.

    Raises:
        InvalidParameterError: bad arguments, or an agent that cannot play the game
            (checked before any block runs).
        StoreError: the store is unusable or holds this id with another configuration.
        KeyboardInterrupt: the user's Ctrl-C (stored blocks stay; run again to resume).
    """
    workers = check_int("workers", workers, 0)
    max_attempts = check_int("max_attempts", max_attempts, 1)
    bootstrap = check_int("bootstrap", bootstrap, 0)
    if backend not in ("local", "ray"):
        raise InvalidParameterError(f"`backend` must be 'local' or 'ray', received {backend!r}.")
    if not isinstance(config, TournamentConfig):
        raise InvalidParameterError(
            f"run_tournament expects a TournamentConfig, received {type(config).__name__}."
        )
    if workers > 0 or backend == "ray":
        check_picklable(config)
    if not isinstance(store, ResultStore):
        store = ResultStore(store)
    stored = stored_info(config, store)
    tid = stored.id
    if not store.register(tid, stored.to_dict()):
        logger.info("resuming tournament %s", tid)
    info = config.info
    pool = (
        SupervisedPool(
            max(workers, 1),
            time_limit=info.move_time_limit,
            memory_limit_mb=info.memory_limit_mb,
            max_attempts=max_attempts,
        )
        if workers > 0 or backend == "ray"
        else None
    )
    try:
        with user_interrupts():
            _check_agents(config, store, tid, pool)
            blocks = config.blocks()
            done = store.done(tid)
            pending = [b for b in blocks if (info.names[b[0]], info.names[b[1]], b[2]) not in done]
            bar = _progress(len(blocks), len(blocks) - len(pending), tid) if progress else None
            if backend == "ray":
                results = _ray_backend(config, pending, ray_address, pool)
            elif pool is not None:
                results = (
                    block_outcome(config, o)
                    for o in pool.run(
                        Task(("block", *b), block_task, (config, *b)) for b in pending
                    )
                )
            else:
                results = (run_block(config, *b) for b in pending)
            for result in results:
                store.add_block(tid, result)
                if result.forfeit:
                    logger.warning(
                        "%s forfeited %s vs %s block %d: %s",
                        result.forfeit,
                        result.a,
                        result.b,
                        result.block,
                        result.reason,
                    )
                if bar is not None:
                    bar.update(1)
            if bar is not None:
                bar.close()
    finally:
        if pool is not None:
            pool.close()
    return summarize(store, tid, bootstrap=bootstrap)


def _check_agents(
    config: TournamentConfig, store: ResultStore, tid: str, pool: SupervisedPool | None
) -> None:
    """Build every agent once (refusing the tournament if one cannot play) and store the
    exploitability of those not measured yet, each as soon as it is measured: an LBR
    bound on Hold'em takes minutes, and a run stopped while the others are still being
    measured keeps the finished ones."""
    measured = store.exploitabilities(tid)
    todo = [(k, name not in measured) for k, name in enumerate(config.names)]
    errors: list[str] = []

    def record(report: AgentReport) -> None:
        if report.error:
            errors.append(f"{report.name!r} {report.error}")
        elif report.name not in measured:
            store.set_exploitability(
                tid, report.name, report.exploitability, report.note, report.method, report.ci95
            )

    if pool is None:
        for k, measure in todo:
            record(check_agent(config, k, measure))
    else:
        for outcome in pool.run(Task(("agent", k), agent_task, (config, k, m)) for k, m in todo):
            k = outcome.task.args[1]
            name = config.names[k]
            if outcome.status == "ok":
                record(outcome.value)
            elif outcome.status == "error":
                raise RuntimeError(
                    f"checking agent {name!r} failed inside nashzoo: {outcome.detail}"
                )
            else:
                detail = f"{outcome.status}: {outcome.detail} while being built or measured"
                record(AgentReport(name, error=detail))
    if errors:
        raise InvalidParameterError(
            "Agents refused at the start of the tournament: " + "; ".join(errors)
        )


def _ray_backend(
    config: TournamentConfig,
    pending: Sequence[tuple[int, int, int, int]],
    address: str | None,
    pool: SupervisedPool | None,
) -> Iterator[BlockResult]:
    from nashzoo.processes import start_ray

    ray = start_ray(address, feature="--backend ray")
    remote = ray.remote(max_retries=0)(ray_block)
    refs = {remote.remote(config, *b): b for b in pending}
    failed = []
    waiting = list(refs)
    while waiting:
        ready, waiting = ray.wait(waiting, num_returns=1)
        try:
            yield ray.get(ready[0])
        except ray.exceptions.RayError as exc:  # its worker died: find out who did it
            logger.warning(
                "Ray block %s failed (%s); re-running it under local supervision",
                refs[ready[0]],
                type(exc).__name__,
            )
            failed.append(refs[ready[0]])
    if failed:
        assert pool is not None
        for outcome in pool.run(Task(("block", *b), block_task, (config, *b)) for b in failed):
            yield block_outcome(config, outcome)


def summarize(
    store: ResultStore | str | Path, tournament_id: str, *, bootstrap: int = 200, seed: int = 0
) -> TournamentResult:
    """Crosstable, ratings and exploitability of a stored tournament (finished or not).

    Raises:
        StoreError: no such tournament, or stored results that do not match its agents.
    """
    if not isinstance(store, ResultStore):
        store = ResultStore(store)
    info = TournamentInfo.from_dict(store.config(tournament_id))
    results = store.results(tournament_id)
    names = info.names
    stored = store.exploitabilities(tournament_id)
    unknown = StoredExploitability(None, None, None, None)
    figures = {n: stored.get(n, unknown) for n in names}
    table = crosstable(results, names)
    return TournamentResult(
        tournament_id,
        info,
        table,
        rate(results, names, bootstrap=bootstrap, seed=seed, table=table),
        {n: f.value for n, f in figures.items()},
        len(results),
        len(info.blocks()),
        {n: f.method for n, f in figures.items()},
        {n: f.reason for n, f in figures.items()},
        {n: f.ci95 for n, f in figures.items()},
    )
