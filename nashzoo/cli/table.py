"""``nashzoo table``: duplicate matches at tables of three or more seats (every agent in
every seat with the same cards), with scores, intervals and rank-broken ratings; with
more agents than seats, a table for every combination of them, pooled."""

from __future__ import annotations

import argparse
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
    from nashzoo.eval.seats import roster_tables, seatings
    from nashzoo.eval.stats import score_unit
    from nashzoo.eval.tables import run_tables

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
    factories = [(name, AgentSpec(spec, name=name)) for name, spec in pairs]
    result = run_tables(
        args.game, factories, params=parse_params(args.param), deals=args.deals, seed=args.seed,
        out=args.out, workers=args.workers, move_time_limit=args.move_time_limit,
        setup_time_limit=args.setup_time_limit, progress=not args.quiet,
        echo=lambda line: print(line, flush=True),
    )  # fmt: skip
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
