"""``nashzoo table``: a duplicate match at a table of three or more seats (every agent in
every seat with the same cards), with scores, intervals and rank-broken ratings."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from nashzoo.cli.common import add_agent_option, add_param_option, parse_agents, parse_params


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from nashzoo.agents import AgentSpec
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.seats import play_table, seatings
    from nashzoo.eval.stats import score_unit

    game = make_game(args.game, **parse_params(args.param))
    agents = [AgentSpec(spec, name=name)(game) for name, spec in parse_agents(args.agent)]
    n = game.num_players
    print(
        f"{game!r}: {n} seats, {args.deals} duplicate deals x {len(seatings(n))} seatings "
        f"({'all permutations' if n <= 4 else 'rotations'})"
    )
    header = {
        "table": 1,
        "game": args.game,
        "params": parse_params(args.param),
        "agents": list(args.agent),
        "seed": args.seed,
        "deals": args.deals,
    }
    done, write = _journal(args.out, header)
    if len(done):
        print(f"resuming: {len(done)} of {args.deals} deals already in {args.out}")
    try:
        result = play_table(
            game, agents, deals=args.deals, seed=args.seed, progress=not args.quiet,
            done=done if len(done) else None, on_deal=write,
        )  # fmt: skip
    finally:
        write.close()
    scale, unit = score_unit(game.big_blind)
    print(f"\nScore per game ({unit}, mean [95% CI]) and Bradley-Terry Elo on each deal's ranking:")
    for k in np.argsort(-result.mean):
        lo, hi = result.ci95[k] * scale
        print(
            f"  {result.names[k]:<16} {result.mean[k] * scale:+10.2f} [{lo:+.2f}, {hi:+.2f}]   "
            f"Elo {result.elo[k]:+7.1f} [{result.elo_low[k]:+.1f}, {result.elo_high[k]:+.1f}]"
        )
    if not result.position_balanced:
        print(
            "  (rotations: each agent in each seat once per deal; who sits behind whom is "
            "not balanced)"
        )
    if args.out:
        print(f"\nper-deal scores: {args.out}")
    return 0


class _Writer:
    """Appends each deal's scores to the journal as it ends (flushed: a killed run loses
    at most the deal in progress)."""

    def __init__(self, path: Path | None) -> None:
        self._file = None if path is None else path.open("a")

    def __call__(self, deal: int, scores: Any) -> None:
        if self._file is not None:
            self._file.write(json.dumps({"deal": deal, "scores": list(map(float, scores))}) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def _journal(out: str | None, header: dict[str, Any]) -> tuple[Any, _Writer]:
    """The deals already recorded in ``out`` (a JSON-lines journal: the table's settings,
    then one line per deal) and a writer that appends the next ones. A journal of another
    table is refused; a missing one is started."""
    import numpy as np

    from nashzoo.errors import InvalidParameterError

    if out is None:
        return np.zeros((0, 0)), _Writer(None)
    path = Path(out)
    rows: list[list[float]] = []
    if path.exists() and path.stat().st_size:
        lines = path.read_text().splitlines()
        try:
            found = json.loads(lines[0])
            for k, line in enumerate(lines[1:]):
                entry = json.loads(line)
                if entry.get("deal") != k:
                    raise ValueError(f"line {k + 2} is deal {entry.get('deal')!r}, not {k}")
                rows.append([float(v) for v in entry["scores"]])
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
    return np.array(rows, dtype=np.float64), _Writer(path)


def add_parser(sub: Any) -> None:
    """``nashzoo table``."""
    p = sub.add_parser(
        "table",
        help="duplicate match at a table of 3+ seats: every agent in every seat, same cards",
    )
    p.add_argument("--game", required=True, help="env id or short name (e.g. kuhn_poker)")
    add_param_option(p)
    add_agent_option(p, "one per seat, in order; SPEC as for `nashzoo tournament`")
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--out",
        default=None,
        help="journal of the per-deal scores (JSON lines, written as each deal ends); the "
        "same command resumes from it",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
