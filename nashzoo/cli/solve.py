"""``nashzoo solve GAME``: tabular solvers with their exploitability curves."""

from __future__ import annotations

import argparse
from typing import Any

from nashzoo.cli.common import add_param_option, out_path, parse_params, print_curve


def run(args: argparse.Namespace) -> int:
    from nashzoo.agents import get_family
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.cfr.run import run_solver
    from nashzoo.envs import make_game
    from nashzoo.tree import compile_game

    game = make_game(args.game, **parse_params(args.param))
    tree = compile_game(game)
    print(f"{game!r}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information sets")
    curves = []
    algos = args.algo or ["cfr+"]
    for algo in algos:
        solver = make_solver(algo, tree, seed=args.seed if get_family(algo).samples else None)
        curve = run_solver(
            solver, args.iterations, points=args.points, target=args.target, progress=not args.quiet
        )
        curves.append(curve)
        print_curve(curve, game.big_blind)
        if args.out:
            path = curve.policy.save(out_path(args.out, algo, len(algos) > 1))
            print(f"average policy saved to {path}")
    if args.plot:
        from nashzoo.eval.plots import plot_convergence

        print(f"plot written to {plot_convergence(curves, args.plot)}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo solve``."""
    from nashzoo.agents.cfr import SOLVER_NAMES

    p = sub.add_parser("solve", help="solve a game with tabular solvers")
    p.add_argument("game", help="env id or short name, e.g. leduc_holdem or nashzoo/kuhn_poker-v0")
    add_param_option(p)
    p.add_argument(
        "--algo",
        action="append",
        metavar="NAME",
        help=f"{', '.join(SOLVER_NAMES)} (repeatable; default cfr+)",
    )
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--points", type=int, default=30, help="checkpoints on the curve")
    p.add_argument("--target", type=float, default=None, help="stop at this exploitability")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampling solvers")
    p.add_argument("--out", help="save the average policy (.npz or .json)")
    p.add_argument("--plot", help="write the exploitability curves (PNG)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
