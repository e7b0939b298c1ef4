"""``nashzoo table``: a duplicate match at a table of three or more seats (every agent in
every seat with the same cards), with scores, intervals and rank-broken ratings."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nashzoo.cli.common import add_param_option, parse_params


def run(args: argparse.Namespace) -> int:
    import os

    import numpy as np

    from nashzoo.agents import AgentSpec
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.seats import play_table, seatings
    from nashzoo.eval.stats import score_unit

    if os.getcwd() not in sys.path:  # module:factory specs resolve as `python -m` would
        sys.path.insert(0, os.getcwd())
    game = make_game(args.game, **parse_params(args.param))
    agents = []
    for item in args.agent:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise SystemExit(f"--agent expects NAME=SPEC (e.g. cfr=cfr+:1000), received {item!r}")
        agents.append(AgentSpec(spec, name=name)(game))
    n = game.num_players
    print(
        f"{game!r}: {n} seats, {args.deals} duplicate deals x {len(seatings(n))} seatings "
        f"({'all permutations' if n <= 4 else 'rotations'})"
    )
    result = play_table(game, agents, deals=args.deals, seed=args.seed, progress=not args.quiet)
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
        path = Path(args.out)
        path.write_text(
            json.dumps(
                {
                    "game": args.game,
                    "params": parse_params(args.param),
                    "agents": list(result.names),
                    "seed": args.seed,
                    "seatings": [list(s) for s in result.seatings],
                    "scores": result.scores.tolist(),
                    "mean": result.mean.tolist(),
                    "ci95": result.ci95.tolist(),
                    "elo": result.elo.tolist(),
                },
                indent=1,
            )
        )
        print(f"\nper-deal scores: {path}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo table``."""
    p = sub.add_parser(
        "table",
        help="duplicate match at a table of 3+ seats: every agent in every seat, same cards",
    )
    p.add_argument("--game", required=True, help="env id or short name (e.g. kuhn_poker)")
    add_param_option(p)
    p.add_argument(
        "--agent",
        action="append",
        required=True,
        metavar="NAME=SPEC",
        help="one per seat, in order; SPEC as for `nashzoo tournament`",
    )
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write the per-deal scores as JSON here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
