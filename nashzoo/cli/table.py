"""``nashzoo table``: duplicate matches at tables of three or more seats (every agent in
every seat with the same cards), with scores, intervals and rank-broken ratings; with
more agents than seats, a table for every combination of them, pooled."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from nashzoo.cli.common import (
    add_agent_option,
    add_param_option,
    check_agents,
    float_arg,
    int_arg,
    parse_agents,
    parse_params,
    seed_arg,
)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from nashzoo.agents import AgentSpec
    from nashzoo.envs.registration import make_game
    from nashzoo.errors import InvalidParameterError
    from nashzoo.eval.guard import Forfeit, make_calls
    from nashzoo.eval.seats import play_tables, roster_tables, seatings
    from nashzoo.eval.stats import score_unit

    game = make_game(args.game, **parse_params(args.param))
    pairs = parse_agents(args.agent)
    check_agents(pairs, game)
    n = game.num_players
    tables = roster_tables(len(pairs), n)
    print(
        f"{game}: {n} seats, {len(pairs)} agents, {len(tables)} table(s) of {args.deals} "
        f"duplicate deals x {len(seatings(n))} seatings "
        f"({'all permutations' if n <= 4 else 'rotations'})"
    )
    header = {
        "table": 2,
        "game": args.game,
        "params": parse_params(args.param),
        "agents": list(args.agent),
        "seed": args.seed,
        "deals": args.deals,
    }
    if args.workers > 0:
        result = _supervised(game, pairs, tables, header, args)
    else:
        calls = make_calls(args.move_time_limit, args.setup_time_limit)
        agents: list[Any] = []
        for name, spec in pairs:
            try:
                agents.append(calls.setup(len(agents), AgentSpec(spec, name=name), game))
            except Forfeit as exc:
                calls.close()
                raise InvalidParameterError(
                    f"agent {name}={spec} could not be built for {game}: {exc.reason}"
                ) from None
        done, write = _journal(args.out, header, len(tables))
        if any(len(rows) for rows in done):
            print(f"resuming: {sum(len(rows) for rows in done)} deals already in {args.out}")
        try:
            result = play_tables(
                game, agents, deals=args.deals, seed=args.seed, progress=not args.quiet,
                done=[np.array(rows, dtype=np.float64) for rows in done], on_deal=write,
                calls=calls, forfeit=True,
            )  # fmt: skip
        finally:
            write.close()
            calls.close()
    forfeits = [
        (result.names[seated[who]], deal, reason)
        for seated, table in result.tables
        if table.forfeit is not None
        for who, deal, reason in [table.forfeit]
    ]
    if forfeits:
        print(
            f"\nForfeits (the deal in progress and every later deal of that table count as "
            f"lost by {game.max_payoff_magnitude:g} {game.payoff_unit}):"
        )
        for name, deal, reason in forfeits:
            print(f"  {name} at deal {deal}: {reason}")
    scale, unit = score_unit(game)
    print(f"\nScore per game ({unit}, mean [95% CI]) and Bradley-Terry Elo on each deal's ranking:")
    for k in np.argsort(-result.mean):
        lo, hi = result.ci95[k] * scale
        print(
            f"  {result.names[k]:<16} {result.mean[k] * scale:+10.2f} [{lo:+.2f}, {hi:+.2f}]   "
            f"Elo {result.elo[k]:+7.1f} [{result.elo_low[k]:+.1f}, {result.elo_high[k]:+.1f}]"
        )
    if n > 4:
        print(
            "  (rotations: each agent in each seat once per deal; who sits behind whom is "
            "not balanced)"
        )
    if args.out:
        print(f"\nper-deal scores: {args.out}")
    return 0


def _supervised(
    game: Any, pairs: list[tuple[str, str]], tables: list[Any], header: dict[str, Any], args: Any
) -> Any:
    """The tables in ``args.workers`` supervised processes (the tournament's
    :class:`~nashzoo.eval.pool.SupervisedPool`): each builds its agents and appends its
    deals to the journal (a temporary one without ``--out``); an agent that kills its
    process or overruns its move's hard deadline forfeits its table from the first deal
    the journal lacks, and the other tables are played."""
    import dataclasses
    import tempfile

    from nashzoo.errors import NashzooError
    from nashzoo.eval.pool import SupervisedPool, Task
    from nashzoo.eval.seats import pool_tables

    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(args.out) if args.out else Path(tmp) / "table.jsonl"
        done, write = _journal(str(journal), header, len(tables))
        write.close()
        if args.out and any(len(rows) for rows in done):
            print(f"resuming: {sum(len(rows) for rows in done)} deals already in {args.out}")
        setup = (args.game, parse_params(args.param), args.deals, args.seed)
        limits = (args.move_time_limit, args.setup_time_limit)
        tasks = [
            Task(k, _table_task, (setup, [pairs[i] for i in seated], seated, k, journal, limits))
            for k, seated in enumerate(tables)
        ]
        played: list[Any] = [None] * len(tables)
        pool = SupervisedPool(args.workers, time_limit=args.move_time_limit)
        with pool:
            for outcome in pool.run(tasks):
                k = int(outcome.task.key)  # type: ignore[call-overload]
                seated = tables[k]
                if outcome.status == "ok":
                    played[k] = (seated, outcome.value)
                elif outcome.status in ("crash", "timeout"):
                    who = seated.index(outcome.agent) if outcome.agent in seated else 0
                    names = [pairs[i][0] for i in seated]
                    fault = (who, len(_journal_rows(journal, k, args.deals)), outcome.detail)
                    table = _forfeited_table(game, names, journal, k, who, args.deals, args.seed)
                    played[k] = (seated, dataclasses.replace(table, forfeit=fault))
                else:
                    raise NashzooError(f"table {k} failed: {outcome.detail}")
                if not args.quiet:
                    print(f"table {k + 1}/{len(tables)} done ({outcome.status})", flush=True)
    return pool_tables(game, [name for name, _ in pairs], played, seed=args.seed)


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
    import numpy as np

    from nashzoo.eval.seats import forfeit_scores, play_table, table_seed

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
    pairs: list[tuple[str, str]],
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

    import numpy as np

    from nashzoo.agents import AgentSpec
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.guard import Forfeit, SupervisedCalls
    from nashzoo.eval.seats import play_table, table_seed

    game_id, params, deals, seed = setup
    game = make_game(game_id, **params)
    calls = SupervisedCalls(slot, seated, limits[0], limits[1])
    rows = _journal_rows(journal, k, deals)
    agents = []
    for j, (name, spec) in enumerate(pairs):
        try:
            agents.append(calls.setup(j, AgentSpec(spec, name=name), game))
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
    from nashzoo.errors import InvalidParameterError

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
                f"{out} is not a table journal that nashzoo wrote ({exc}); give another --out."
            ) from None
        if found != header:
            raise InvalidParameterError(
                f"{out} records another table: {found}; this one is {header}. Give another "
                "--out, or the same settings to resume it."
            )
    else:
        path.write_text(json.dumps(header) + "\n")
    return rows, _Writer(path)


def add_parser(sub: Any) -> None:
    """``nashzoo table``."""
    p = sub.add_parser(
        "table",
        help="duplicate matches at tables of 3+ seats: every agent in every seat, same cards",
    )
    p.add_argument("--game", required=True, help="env id or short name (e.g. kuhn_poker)")
    add_param_option(p)
    add_agent_option(
        p,
        "at least one per seat; with more agents than seats, every combination of them "
        "plays a table; SPEC as for `nashzoo tournament`",
    )
    p.add_argument("--deals", type=int_arg(), default=1000, help="duplicate deals per table")
    p.add_argument(
        "--move-time-limit",
        type=float_arg(),
        default=None,
        metavar="SECONDS",
        help="per-move time limit; an agent over it forfeits its table, as a fault does "
        "(default: none)",
    )
    p.add_argument(
        "--setup-time-limit",
        type=float_arg(),
        default=300.0,
        metavar="SECONDS",
        help="with a move time limit: the allowance for building each agent (default: %(default)s)",
    )
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument(
        "--out",
        default=None,
        help="journal of the per-deal scores (JSON lines, written as each deal ends); the "
        "same command resumes from it",
    )
    p.add_argument(
        "--workers",
        type=int_arg(0, 1024),
        default=0,
        help="play the tables in this many supervised worker processes, as the tournament "
        "does: an agent that kills its process (os._exit, a segfault) or overruns its "
        "move's hard deadline forfeits its table, and the run goes on (default 0: in this "
        "process, where faults are forfeits but a killed process ends the run)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
