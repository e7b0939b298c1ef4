"""``nashzoo tournament``: a duplicate round robin with ratings, stored durably."""

from __future__ import annotations

import argparse
from typing import Any

from nashzoo.cli.common import (
    add_agent_option,
    add_param_option,
    check_agents,
    float_arg,
    int_arg,
    lbr_hands_arg,
    parse_agents,
    parse_params,
    seed_arg,
)


def run(args: argparse.Namespace) -> int:
    from nashzoo.agents import AgentSpec
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.store import ResultStore
    from nashzoo.eval.tournament import TournamentConfig, run_tournament, stored_info

    pairs = parse_agents(args.agent)
    check_agents(pairs, make_game(args.game, **parse_params(args.param)))
    agents = [(name, AgentSpec(spec, name=name)) for name, spec in pairs]
    config = TournamentConfig(
        game=args.game,
        agents=tuple(agents),
        deals=args.deals,
        params=parse_params(args.param),
        block_size=args.block_size,
        seed=args.seed,
        move_time_limit=args.move_time_limit,
        setup_time_limit=args.setup_time_limit,
        memory_limit_mb=args.memory_limit,
        variance_reduction=args.variance_reduction,
        lbr_hands=args.lbr_hands,
    )
    store = ResultStore(args.store)
    tid = stored_info(config, store).id
    print(
        f"tournament {tid}: {len(agents)} agents, {len(config.blocks())} blocks of up "
        f"to {config.block_size} duplicate deals, store {args.store}"
    )
    result = run_tournament(
        config,
        store,
        workers=args.workers,
        backend=args.backend,
        ray_address=args.ray_address,
        progress=not args.quiet,
        bootstrap=args.bootstrap,
    )
    print(result.format(ratings=args.ratings))
    if args.report:
        from nashzoo.eval.report import write_tournament_report

        print(f"\nreport: {write_tournament_report(result, args.report)}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo tournament``."""
    p = sub.add_parser("tournament", help="duplicate round robin with ratings, stored durably")
    p.add_argument("--game", required=True, help="env id or short name")
    add_param_option(p)
    add_agent_option(
        p,
        "repeatable; SPEC is a family (random, cfr+:1000, ... see `nashzoo agents`), a "
        "policy/agent file, or package.module:factory",
    )
    p.add_argument("--deals", type=int_arg(), default=1000, help="duplicate deals per pairing")
    p.add_argument("--block-size", type=int_arg(), default=100, help="deals per stored block")
    p.add_argument(
        "--variance-reduction",
        choices=["crn", "aivat"],
        default=None,
        help="crn: reseed each agent per deal alike in both seatings; aivat: and correct "
        "the scores with the AIVAT control variate (unbiased; the report shows the "
        "uncorrected CIs beside)",
    )
    p.add_argument(
        "--lbr-hands",
        type=lbr_hands_arg,
        default=0,
        help="where exact exploitability is out of reach, report each agent's local best "
        "response lower bound from this many hands (default 0: none)",
    )
    p.add_argument(
        "--workers",
        type=int_arg(0, 1024),
        default=1,
        help="supervised worker processes (0: play in this process)",
    )
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--ray-address", default=None, help="join this Ray cluster (default: local)")
    p.add_argument("--store", default="results.sqlite", help="SQLite file or SQLAlchemy URL")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument(
        "--move-time-limit",
        type=float_arg(),
        default=None,
        metavar="SECONDS",
        help="per-move time limit; an agent over it forfeits the block",
    )
    p.add_argument(
        "--setup-time-limit",
        type=float_arg(),
        default=300.0,
        metavar="SECONDS",
        help="with a move time limit: the separate allowance for building each agent and "
        "its first, warming-up decision (no cold start is charged to a move clock)",
    )
    p.add_argument(
        "--memory-limit",
        type=int_arg(1, 2**40),
        default=None,
        metavar="MB",
        help="address-space limit of each worker process",
    )
    p.add_argument(
        "--bootstrap", type=int_arg(0), default=200, help="bootstrap samples for rating CIs"
    )
    p.add_argument(
        "--ratings",
        choices=["bt", "nash", "alpharank"],  # RATINGS of nashzoo.eval.tournament
        default="bt",
        help="sort the ratings by Bradley-Terry (bt, the default), the Nash-averaging score "
        "(nash) or alpha-Rank's stationary mass (alpharank, shown with its 95%% interval); "
        "every table shows all three",
    )
    p.add_argument("--report", default=None, help="write an HTML report into this folder")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=run)
