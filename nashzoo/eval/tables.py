"""Duplicate tables of three or more seats, resumable: every agent in every seat with the
same cards, with more agents than seats a table for every combination of them, pooled;
each deal's scores appended to a journal as it ends, so a stopped run resumes where it
stopped (what ``nashzoo table`` runs, the same from Python)::

    from nashzoo.eval.tables import run_tables

    from nashzoo.agents import AgentSpec

    agents = [(name, AgentSpec(spec)) for name, spec in [("cfr", "cfr+:50"), ("r", "random")]]
    result = run_tables("kuhn_poker", agents, params={"players": 3}, deals=200,
                        out="table.jsonl")   # the same call again resumes the journal

With ``workers`` the tables run in supervised processes, as tournaments do: an agent that
kills its process or overruns its move's hard deadline forfeits its table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.eval.seats import (
    RosterResult,
    forfeit_scores,
    play_table,
    play_tables,
    pool_tables,
    roster_tables,
    table_seed,
)
from nashzoo.eval.tournament_config import as_factory, spec_text

__all__ = ["run_tables", "JOURNAL_FORMAT"]

JOURNAL_FORMAT = 2
"""The ``"table"`` field of a journal's header line."""


@dataclass(frozen=True)
class _Settings:
    deals: int
    seed: int
    out: str | None
    workers: int
    move_time_limit: float | None
    setup_time_limit: float
    progress: bool
    echo: Callable[[str], None] = field(default=print)


def run_tables(
    game: str,
    agents: Sequence[tuple[str, Any]],
    *,
    params: dict[str, Any] | None = None,
    deals: int = 1000,
    seed: int = 0,
    out: str | Path | None = None,
    workers: int = 0,
    move_time_limit: float | None = None,
    setup_time_limit: float = 300.0,
    progress: bool = True,
    echo: Callable[[str], None] | None = print,
) -> RosterResult:
    """Play the duplicate tables of ``agents`` (``(name, factory)`` pairs, at least one
    per seat) at ``game`` (an env id or short name with ``params``). A factory is
    ``factory(game) -> Agent``, as tournaments take (:class:`nashzoo.agents.AgentSpec`;
    picklable for ``workers``); an agent object is copied for each table. The journal
    names each by its ``spec``.

    Args:
        deals: duplicate deals per table.
        seed: the deals' seed.
        out: a JSON-lines journal (the settings, then one line per deal as it ends); a
            journal of the same settings is resumed from its first missing deal.
        workers: supervised worker processes (0: in this process, where faults are
            forfeits but a killed process ends the run).
        move_time_limit, setup_time_limit: an agent over them forfeits its table.
        progress: a progress bar (or a line per table with workers).
        echo: where the run's lines go (``None``: nowhere).

    Raises:
        InvalidParameterError: an agent that cannot be built, too few agents, or a journal
            of other settings or not written by nashzoo.
    """
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.guard import Forfeit, make_calls
    from nashzoo.validation import check_int

    params = dict(params or {})
    table_game = make_game(game, **params)
    if isinstance(agents, (str, bytes)) or not all(
        isinstance(a, (tuple, list)) and len(a) == 2 and isinstance(a[0], str) for a in agents
    ):
        raise InvalidParameterError(
            f"run_tables expects agents as (name, factory) pairs, received {agents!r}."
        )
    names = [name for name, _ in agents]
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"Agent names must be unique, received {names!r}.")
    pairs = [(name, as_factory(name, source)) for name, source in agents]
    run = _Settings(
        deals=check_int("deals", deals, 1),
        seed=check_int("seed", seed, 0),
        out=None if out is None else str(out),
        workers=check_int("workers", workers, 0, 1024),
        move_time_limit=move_time_limit,
        setup_time_limit=setup_time_limit,
        progress=progress,
        echo=echo or (lambda line: None),
    )
    tables = roster_tables(len(pairs), table_game.num_players)
    header = {
        "table": JOURNAL_FORMAT,
        "game": game,
        "params": params,
        "agents": [f"{name}={spec_text(factory)}" for name, factory in pairs],
        "seed": run.seed,
        "deals": run.deals,
    }
    if run.workers > 0:
        pooled: RosterResult = _supervised(table_game, game, params, pairs, tables, header, run)
        return pooled
    calls = make_calls(move_time_limit, setup_time_limit)
    built: list[Any] = []
    for name, factory in pairs:
        try:
            built.append(calls.setup(len(built), factory, table_game))
        except Forfeit as exc:
            calls.close()
            raise InvalidParameterError(
                f"agent {name}={spec_text(factory)} could not be built for {table_game}: "
                f"{exc.reason}"
            ) from None
    done, write = _journal(run.out, header, len(tables))
    if any(len(rows) for rows in done):
        run.echo(f"resuming: {sum(len(rows) for rows in done)} deals already in {run.out}")
    try:
        result: RosterResult = play_tables(
            table_game, built, deals=run.deals, seed=run.seed, progress=progress,
            done=[np.array(rows, dtype=np.float64) for rows in done], on_deal=write,
            calls=calls, forfeit=True,
        )  # fmt: skip
    finally:
        write.close()
        calls.close()
    return result


def _supervised(
    game: Any, game_id: str, params: dict[str, Any], pairs: list[tuple[str, Any]],
    tables: list[Any], header: dict[str, Any], run: _Settings,
) -> Any:  # fmt: skip
    """The tables in ``run.workers`` supervised processes (the tournament's
    :class:`~nashzoo.eval.pool.SupervisedPool`): each builds its agents and appends its
    deals to the journal (a temporary one without ``out``); an agent that kills its
    process or overruns its move's hard deadline forfeits its table from the first deal
    the journal lacks, and the other tables are played."""
    import dataclasses
    import tempfile

    from nashzoo.errors import NashzooError
    from nashzoo.eval.pool import SupervisedPool, Task

    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(run.out) if run.out else Path(tmp) / "table.jsonl"
        done, write = _journal(str(journal), header, len(tables))
        write.close()
        if run.out and any(len(rows) for rows in done):
            run.echo(f"resuming: {sum(len(rows) for rows in done)} deals already in {run.out}")
        setup = (game_id, params, run.deals, run.seed)
        limits = (run.move_time_limit, run.setup_time_limit)
        tasks = [
            Task(k, _table_task, (setup, [pairs[i] for i in seated], seated, k, journal, limits))
            for k, seated in enumerate(tables)
        ]
        played: list[Any] = [None] * len(tables)
        pool = SupervisedPool(run.workers, time_limit=run.move_time_limit)
        with pool:
            for outcome in pool.run(tasks):
                k = int(outcome.task.key)  # type: ignore[call-overload]
                seated = tables[k]
                if outcome.status == "ok":
                    played[k] = (seated, outcome.value)
                elif outcome.status in ("crash", "timeout"):
                    who = seated.index(outcome.agent) if outcome.agent in seated else 0
                    names = [pairs[i][0] for i in seated]
                    fault = (who, len(_journal_rows(journal, k, run.deals)), outcome.detail)
                    table = _forfeited_table(game, names, journal, k, who, run.deals, run.seed)
                    played[k] = (seated, dataclasses.replace(table, forfeit=fault))
                else:
                    raise NashzooError(f"table {k} failed: {outcome.detail}")
                if run.progress:
                    run.echo(f"table {k + 1}/{len(tables)} done ({outcome.status})")
    return pool_tables(game, [name for name, _ in pairs], played, seed=run.seed)


def _journal_rows(journal: Path, k: int, deals: int) -> list[list[float]]:
    """Table ``k``'s deal scores recorded in ``journal``, in order (at most ``deals``)."""
    return _recorded(journal)[1].get(k, [])[:deals]


class _Named:
    """A stand-in that carries an agent's name (for a table's result built from its
    journal)."""

    def __init__(self, name: str) -> None:
        self.name = name


def _forfeited_table(
    game: Any, names: list[str], journal: Path, k: int, who: int, deals: int, seed: int
) -> Any:
    """Table ``k`` whose agent ``who`` killed its worker or ran out of time: the deals the
    journal holds, then every later one lost by ``who`` (appended to the journal)."""
    rows = _journal_rows(journal, k, deals)
    write = _Writer(journal)
    for deal in range(len(rows), deals):
        row = forfeit_scores(game, len(names), who)
        write(k, deal, row)
        rows.append(list(row))
    write.close()
    stand_ins = [_Named(name) for name in names]
    return play_table(
        game, stand_ins, deals=deals, seed=table_seed(seed, k), bootstrap=0,
        done=np.array(rows, dtype=np.float64),
    )  # fmt: skip


def _table_task(
    setup: tuple[Any, ...],
    pairs: list[tuple[str, Any]],
    seated: tuple[int, ...],
    k: int,
    journal: Path,
    limits: tuple[float | None, float],
    *,
    slot: Any,
) -> Any:
    """One table in a supervised worker: its agents built under the setup allowance,
    its deals from the first one the journal lacks (a retried task continues), each
    appended to the journal as it ends; a fault is a forfeit of the table."""
    import dataclasses
    import functools

    from nashzoo.envs.registration import make_game
    from nashzoo.eval.guard import Forfeit, SupervisedCalls

    game_id, params, deals, seed = setup
    game = make_game(game_id, **params)
    calls = SupervisedCalls(slot, seated, limits[0], limits[1])
    rows = _journal_rows(journal, k, deals)
    agents = []
    for j, (_, factory) in enumerate(pairs):
        try:
            agents.append(calls.setup(j, factory, game))
        except Forfeit as exc:
            table = _forfeited_table(game, [n for n, _ in pairs], journal, k, j, deals, seed)
            return dataclasses.replace(table, forfeit=(j, len(rows), exc.reason))
    write = _Writer(journal)
    try:
        return play_table(
            game, agents, deals=deals, seed=table_seed(seed, k), bootstrap=0, calls=calls,
            done=np.array(rows, dtype=np.float64) if rows else None,
            on_deal=functools.partial(write, k), forfeit=True,
        )  # fmt: skip
    finally:
        write.close()


class _Writer:
    """Appends each deal's scores to the journal as it ends (flushed: a killed run loses
    at most the deal in progress)."""

    def __init__(self, path: Path | None) -> None:
        self._file = None if path is None else path.open("a")

    def __call__(self, table: int, deal: int, scores: Any) -> None:
        if self._file is not None:
            row = {"table": table, "deal": deal, "scores": [float(v) for v in scores]}
            self._file.write(json.dumps(row) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def _recorded(path: Path) -> tuple[Any, dict[int, list[list[float]]]]:
    """A journal's header and each table's deal scores, in order.

    Raises:
        ValueError, KeyError, TypeError, IndexError: not a journal nashzoo wrote (a
            line out of order says which).
    """
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    rows: dict[int, list[list[float]]] = {}
    for number, line in enumerate(lines[1:], start=2):
        entry = json.loads(line)
        k, deal = entry["table"], entry["deal"]
        if not isinstance(k, int) or deal != len(rows.setdefault(k, [])):
            raise ValueError(f"line {number} is table {k!r} deal {deal!r}, out of order")
        rows[k].append([float(v) for v in entry["scores"]])
    return header, rows


def _journal(out: str | None, header: dict[str, Any], tables: int) -> tuple[list[Any], _Writer]:
    """Per table, the deals already recorded in ``out`` (a JSON-lines journal: the
    settings, then one line per deal as it ended) and a writer that appends the next
    ones. A journal of another table is refused; a missing one is started."""
    rows: list[list[list[float]]] = [[] for _ in range(tables)]
    if out is None:
        return rows, _Writer(None)
    path = Path(out)
    if path.exists() and path.stat().st_size:
        try:
            found, recorded = _recorded(path)
            if not set(recorded) <= set(range(tables)):
                raise ValueError(f"tables {sorted(set(recorded) - set(range(tables)))}")
            for k, deals in recorded.items():
                rows[k] = deals
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise InvalidParameterError(
                f"{out} is not a table journal that nashzoo wrote ({exc}); give another out."
            ) from None
        if found != header:
            raise InvalidParameterError(
                f"{out} records another table: {found}; this one is {header}. Give another "
                "out, or the same settings to resume it."
            )
    else:
        path.write_text(json.dumps(header) + "\n")
    return rows, _Writer(path)
