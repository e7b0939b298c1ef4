"""``nashzoo solve GAME``: tabular solvers with their exploitability curves, on the game
or on a card abstraction of it (``--abstraction``)."""

from __future__ import annotations

import argparse
from typing import Any

from nashzoo.cli.common import (
    add_param_option,
    float_arg,
    int_arg,
    lbr_hands_arg,
    out_path,
    parse_params,
    print_curve,
    seed_arg,
)
from nashzoo.errors import InvalidParameterError


def run(args: argparse.Namespace) -> int:
    from nashzoo.envs import make_game
    from nashzoo.tree import compile_game, compiled_or_none

    game = make_game(args.game, **parse_params(args.param))
    if args.actions is not None and not args.abstraction:
        raise InvalidParameterError(
            f"--actions prunes the raises of a card abstraction's betting tree: give "
            f"--abstraction too (received --actions {args.actions!r} alone)."
        )
    tree = compiled_or_none(game)
    if tree is None:
        if not args.abstraction:
            compile_game(game)  # raises, saying how large the game is
        return _sampled(game, args)
    if args.actions is not None:
        raise InvalidParameterError(
            f"--actions applies to heads-up no-limit Hold'em solved by sampled deals; {game} "
            "compiles and is solved with its own raises."
        )
    print(f"{game}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information sets")
    abstract = None
    if args.abstraction:
        from nashzoo.abstraction.small import abstract_tree

        abstract = abstract_tree(game, args.abstraction)
        print(
            f"abstraction {abstract.spec}: {abstract.num_infosets:,} abstract information sets "
            f"(of {tree.num_infosets:,}); the policy is measured in the real game"
        )
        tree = abstract.tree
    return _compiled(game, tree, abstract, args)


def _compiled(game: Any, tree: Any, abstract: Any, args: argparse.Namespace) -> int:
    from nashzoo.agents import get_family
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.cfr.run import run_solver

    curves = []
    algos = args.algo or ["cfr+"]
    for algo in algos:
        sampling = get_family(algo).samples
        if abstract is not None and not abstract.spec.perfect_recall and not sampling:
            raise InvalidParameterError(
                f"{algo} averages its policy by the reach of one history per information set, "
                f"which an imperfect-recall abstraction ({abstract.spec}) breaks; use a sampling "
                f"solver (es-mccfr, os-mccfr) or a perfect-recall abstraction ("
                f"'{abstract.spec}:perfect')."
            )
        solver = make_solver(algo, tree, seed=args.seed if sampling else None)
        measure = policy = None
        if abstract is not None:
            measure = lambda s: abstract.exploitability(s.average_policy().probs)
            policy = lambda s: abstract.real_policy(s.average_policy())
        curve = run_solver(
            solver,
            args.iterations,
            points=args.points,
            target=args.target,
            progress=not args.quiet,
            measure=measure,
            policy=policy,
        )
        curves.append(curve)
        print_curve(curve, game.big_blind)
        if args.out:
            path = curve.policy.save(out_path(args.out, algo, len(algos) > 1))
            print(f"average policy saved to {path}")
    if args.plot:
        from nashzoo.eval.plots import plot_convergence

        path = plot_convergence(curves, args.plot, unit=game.payoff_unit)
        print(f"plot written to {path}")
    return 0


def _sampled(game: Any, args: argparse.Namespace) -> int:
    """A game too big to compile, solved on its card abstraction by sampled deals; its
    curve is measured (duplicate scores against the baselines, LBR)."""
    from nashzoo.agents.cfr.abstract import AbstractionSolver
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.agents.scripted import baselines
    from nashzoo.eval.curves import measure_point, write_points

    algos = args.algo or ["es-mccfr"]
    if algos != ["es-mccfr"]:
        raise InvalidParameterError(
            f"{game.short_name} does not compile: on its card abstraction deals are sampled, "
            f"and the solver is es-mccfr; received {', '.join(algos)}."
        )
    solver = AbstractionSolver(
        game,
        args.abstraction,
        seed=args.seed,
        max_memory=int(args.max_memory * 2**30),
        progress=not args.quiet,
        threads=args.threads,
        actions=args.actions,
    )
    ab = solver.abstraction
    print(
        f"{game.short_name} does not compile; abstraction {ab.spec}"
        + (f", actions {ab.actions}" if ab.actions is not None else "")
        + f": {ab.num_infosets:,} information sets x {ab.game.num_distinct_actions} actions, "
        f"regret and average tables {ab.memory_bytes() / 2**20:,.0f} MiB"
    )
    points: list[Any] = []

    def record(s: AbstractionSolver) -> None:
        if args.measure_deals < 1 and args.lbr_hands < 1:
            return
        agent = AbstractionAgent(s.average_policy(), game, name="abstraction", seed=0)
        point = measure_point(
            game,
            agent,
            baselines(game) if args.measure_deals > 0 else {},
            deals=max(args.measure_deals, 1),
            seed=len(points),
            lbr_hands=args.lbr_hands,
            step=s.iteration,
            seconds=s.seconds,
            step_unit="iterations",
        )
        points.append(point)
        line = f"{s.seconds:8.1f} s {s.iteration:>12,} iterations  {point.text(game.payoff_unit)}"
        print(line, flush=True)
        if args.out:
            s.average_policy().save(args.out)  # an interrupted run keeps its work
            write_points(points, str(args.out) + ".curve.json")

    minutes = args.minutes if args.minutes is not None else 1.0
    solver.train(
        seconds=60 * minutes,
        callback=record,
        callback_every=args.measure_every,
        progress=not args.quiet,
    )
    if args.out:
        print(f"average policy saved to {solver.average_policy().save(args.out)}")
    if args.plot and points:
        from nashzoo.eval.plots import plot_measured

        title = f"ES-MCCFR on {ab.spec}, {game.short_name}"
        path = plot_measured(points, args.plot, title=title, unit=game.payoff_unit)
        print(f"plot written to {path}")
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
        help=f"{', '.join(SOLVER_NAMES)} (repeatable; default cfr+, or es-mccfr on an "
        "abstraction of a game that does not compile)",
    )
    p.add_argument(
        "--abstraction",
        metavar="TEXT",
        help="solve a card abstraction of a poker game: 'ehs2:169,50,50,50' (E[HS^2] "
        "buckets per round; ':perfect' for perfect recall), 'ehs:...', 'iso', 'identity'",
    )
    p.add_argument(
        "--actions",
        metavar="TEXT",
        help="with --abstraction on heads-up no-limit: the raises kept per round, as pot "
        "fractions ('0.5,1' on every round, '0.5,1/1/1/1' per round, '-' for none; fold, "
        "call and all-in are always kept); the policy plays the game by bet translation",
    )
    p.add_argument("--iterations", type=int_arg(), default=1000)
    p.add_argument(
        "--minutes",
        type=float_arg(),
        default=None,
        help="solving time on a game that does not compile (default 1)",
    )
    p.add_argument(
        "--max-memory",
        type=float_arg(),
        default=8.0,
        help="GiB the regret and average tables may take (default: %(default)s)",
    )
    p.add_argument("--points", type=int_arg(), default=30, help="checkpoints on the curve")
    p.add_argument(
        "--target", type=float_arg(above=False), default=None, help="stop at this exploitability"
    )
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the sampling solvers")
    p.add_argument("--out", help="save the average policy (.npz or .json)")
    p.add_argument("--plot", help="write the curve (PNG)")
    p.add_argument(
        "--measure-every",
        type=float_arg(),
        default=300.0,
        help="on a game that does not compile: seconds of solving between measured points",
    )
    p.add_argument(
        "--measure-deals",
        type=int_arg(0),
        default=200,
        help="duplicate deals against each baseline per measured point (default: %(default)s)",
    )
    p.add_argument(
        "--lbr-hands",
        type=lbr_hands_arg,
        default=0,
        help="LBR hands per measured point, 0: none (default: %(default)s)",
    )
    p.add_argument(
        "--threads",
        type=int_arg(1),
        default=1,
        help="on a game that does not compile: sampling threads sharing the tables, one a "
        "core (more than one: runs differ from one another; default: %(default)s)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
