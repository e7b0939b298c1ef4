"""The ``nashzoo`` command: thin over the library.

nashzoo envs
nashzoo agents
nashzoo solve GAME --algo cfr+ [--algo dcfr ...] --iterations N [--out p.npz] [--plot c.png]
nashzoo exploitability policy.npz
nashzoo play leduc_holdem --against cfr+:1000
nashzoo tournament --game leduc_holdem --agent cfr=cfr+:1000 --agent rnd=random --deals 2000
nashzoo train nfsp leduc_holdem --minutes 10 --out nfsp.pt --plot nfsp.png
nashzoo train nash-ismcts kuhn_poker --minutes 2 --out agent.pt --plot curve.png
nashzoo train simplex-gradient fighting_cards_small --minutes 5 --out sg.pt --plot sg.png
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nashzoo.errors import InvalidParameterError, NashzooError

logger = logging.getLogger("nashzoo")


def _parse_params(items: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"--param expects KEY=VALUE (e.g. deck_size=8), received {item!r}")
        key, raw = item.split("=", 1)
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def _out_path(base: str, algo: str, several: bool) -> Path:
    path = Path(base)
    if not several:
        return path
    safe = algo.replace("+", "plus")
    return path.with_name(f"{path.stem}-{safe}{path.suffix}")


def _print_curve(curve, big_blind: float | None, rows: int = 12) -> None:
    pts = list(curve.points)
    if len(pts) > rows:
        step = (len(pts) - 1) / (rows - 1)
        pts = [pts[round(i * step)] for i in range(rows)]
    unit = "" if big_blind is None else "   mbb/game"
    print(f"\n{curve.algorithm}  ({curve.game})")
    print(f"{'iterations':>12} {'seconds':>10} {'exploitability':>16}{unit}")
    for p in pts:
        mbb = "" if big_blind is None else f" {1000 * p.exploitability / big_blind:>11.3f}"
        print(f"{p.iteration:>12,} {p.seconds:>10.3f} {p.exploitability:>16.6g}{mbb}")


def cmd_solve(args: argparse.Namespace) -> int:
    from nashzoo.agents import get_family
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.cfr.run import run_solver
    from nashzoo.envs import make_game
    from nashzoo.tree import compile_game

    game = make_game(args.game, **_parse_params(args.param))
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
        _print_curve(curve, game.big_blind)
        if args.out:
            path = curve.policy.save(_out_path(args.out, algo, len(algos) > 1))
            print(f"average policy saved to {path}")
    if args.plot:
        from nashzoo.eval.plots import plot_convergence

        print(f"plot written to {plot_convergence(curves, args.plot)}")
    return 0


def _sampled_or_exact(args: argparse.Namespace) -> int:
    """`nashzoo exploitability AGENT --game G [--method exact|lbr]`."""
    from nashzoo.agents.specs import build_agent
    from nashzoo.envs.registration import make_game
    from nashzoo.errors import GameTooLargeError
    from nashzoo.eval import exploitability
    from nashzoo.eval.lbr import local_best_response

    if args.game is None:
        raise InvalidParameterError(f"--method {args.method} needs --game (the game to play).")
    game = make_game(args.game)
    agent = build_agent(args.policy, game)
    method = args.method
    if method in (None, "exact"):
        try:
            result = exploitability(agent, game)
        except GameTooLargeError:
            if method == "exact":
                raise
            print(f"{game!r} is too large for an exact best response: local best response")
        else:
            print(f"{args.policy} in {game!r}: exact")
            print(f"exploitability  {result.exploitability:.6g} chips")
            return 0
    if method == "learned-br":
        from nashzoo.bounds import learned_best_response

        learned = learned_best_response(
            game, agent, steps=args.steps, deals=args.hands, seed=args.seed, progress=True
        )
        print(f"{args.policy} in {game!r}")
        print(f"lower bound     {learned}")
        seconds = f"{learned.train_seconds:.1f} training, {learned.eval_seconds:.1f} match"
        print(f"seconds         {seconds}")
        return 0
    lbr = local_best_response(
        game, agent, hands=args.hands, rollouts=args.rollouts, seed=args.seed, progress=True
    )
    print(f"{args.policy} in {game!r}")
    print(f"lower bound     {lbr}")
    print(f"per seat        {lbr.per_seat[0]:+.4g} / {lbr.per_seat[1]:+.4g} chips/hand")
    print(f"seconds         {lbr.seconds:.1f}")
    if args.plot:
        from nashzoo.eval.plots import plot_bound

        print(f"plot written to {plot_bound([lbr], args.plot, title=repr(game))}")
    return 0


def cmd_exploitability(args: argparse.Namespace) -> int:
    from nashzoo.eval import exploitability
    from nashzoo.tree import TabularPolicy

    if args.game is not None or args.method in ("lbr", "learned-br"):
        return _sampled_or_exact(args)
    policy = TabularPolicy.load(args.policy)
    result = exploitability(policy)
    print(f"{args.policy}: {policy.game!r}")
    if policy.metadata:
        print("metadata: " + json.dumps(policy.metadata))
    print(
        f"exploitability  {result.exploitability:.6g} chips"
        + ("" if result.big_blind is None else f"  ({result.exploitability_mbb:.3f} mbb/game)")
    )
    print(f"NashConv        {result.nash_conv:.6g}")
    for p, (v, br) in enumerate(zip(result.policy_values, result.best_response_values)):
        print(f"player {p}: value {v:+.6f}, best-response value {br:+.6f}")
    return 0


def _print_steps(steps: Sequence[Any], seat: int, opponent: str) -> None:
    for step in steps:
        who = "chance" if step.player < 0 else ("you" if step.player == seat else opponent)
        print(f"  {who}: {step.text}")


def cmd_play(args: argparse.Namespace) -> int:
    from nashzoo.agents.human import HumanAgent, HumanQuit
    from nashzoo.agents.specs import build_agent
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.session import DuplicateSession

    if args.hands is not None and args.hands < 1:
        raise SystemExit(f"--hands must be a positive number, received {args.hands}")
    game = make_game(args.game, **_parse_params(args.param or []))
    opponent = build_agent(args.against, game)
    name = str(getattr(opponent, "name", None) or args.against)
    human = HumanAgent(game)
    session = DuplicateSession(game, opponent, seed=args.seed)
    print(
        f"Duplicate {args.game} against {name}: every deal is played twice, once from "
        "each seat, and scored as the pair's mean.\nAnswer with an action's number or "
        "name; `quit` (or Ctrl-D) stops.",
        flush=True,
    )
    try:
        while args.hands is None or len(session.finished) < args.hands:
            seat = session.seat
            print(f"\n--- hand {session.hand + 1} (deal {session.hand // 2 + 1}, you are "
                  f"seat {seat}) ---")  # fmt: skip
            shown = 0
            while not session.hand_over:
                steps = session.visible_steps()
                _print_steps(steps[shown:], seat, name)
                shown = len(steps)
                session.apply(human.act(*session.view()))
            record = session.finished[-1]
            _print_steps(record.steps[shown:], seat, name)
            print(f"  hand over: {session.state}")
            if record.forfeit:
                print(f"  {name} forfeits the hand: {record.forfeit}")
            chips = abs(record.person_return)
            print(f"  you {'won' if record.person_return >= 0 else 'lost'} {chips:g} "
                  f"chip{'s' * (chips != 1)}; score {session.score().text()}",
                  flush=True)  # fmt: skip
            session.start_hand()
    except HumanQuit:
        pass
    print(f"\nFinal score against {name}: {session.score().text()}")
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    import os

    from nashzoo.agents import AgentSpec
    from nashzoo.eval.tournament import TournamentConfig, run_tournament

    # module:factory specs resolve against the current folder, as `python -m` would.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())

    agents = []
    for item in args.agent:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise SystemExit(f"--agent expects NAME=SPEC (e.g. cfr=cfr+:1000), received {item!r}")
        agents.append((name, AgentSpec(spec, name=name)))
    config = TournamentConfig(
        game=args.game,
        agents=tuple(agents),
        deals=args.deals,
        params=_parse_params(args.param),
        block_size=args.block_size,
        seed=args.seed,
        move_time_limit=args.move_time_limit,
        setup_time_limit=args.setup_time_limit,
        memory_limit_mb=args.memory_limit,
        variance_reduction=args.variance_reduction,
        lbr_hands=args.lbr_hands,
    )
    print(
        f"tournament {config.id}: {len(agents)} agents, {len(config.blocks())} blocks of up "
        f"to {config.block_size} duplicate deals, store {args.store}"
    )
    result = run_tournament(
        config,
        args.store,
        workers=args.workers,
        backend=args.backend,
        ray_address=args.ray_address,
        progress=not args.quiet,
        bootstrap=args.bootstrap,
    )
    print(result.format())
    if args.report:
        from nashzoo.eval.report import write_tournament_report

        print(f"\nreport: {write_tournament_report(result, args.report)}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    if args.algorithm == "nash-ismcts":
        return _train_nash_ismcts(args)
    if args.algorithm == "simplex-gradient":
        return _train_simplex_gradient(args)
    import torch

    from nashzoo.agents.cfr.run import ConvergenceCurve, ConvergencePoint
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.envs import make_game

    torch.set_num_threads(args.threads)
    game = make_game(args.game, **_parse_params(args.param))
    # a flag left out takes the config's default; one given (0 too) goes to the config's check
    given = {"seed": args.seed, "batch_games": args.batch_games}
    nfsp = NFSP(game, NFSPConfig(**{k: v for k, v in given.items() if v is not None}))
    points: list = []
    if args.keep_best and not args.out:
        raise SystemExit("--keep-best needs --out (where the best checkpoint goes)")
    best = [float("inf")]

    def record(m):
        points.append(ConvergencePoint(m.episodes, m.seconds, m.exploitability()))
        value = points[-1].exploitability
        kept = ""
        if args.keep_best and value < best[0]:
            best[0] = value
            m.save(args.out)  # at once: the best so far survives an interrupted run
            kept = "  (best so far, saved)"
        print(
            f"{m.seconds:8.1f} s {m.episodes:>11,} episodes  exploitability {value:.4f}{kept}",
            flush=True,
        )

    nfsp.train(
        seconds=60 * args.minutes,
        callback=record,
        callback_every=args.eval_every,
        progress=not args.quiet,
    )
    if args.keep_best:
        print(f"best checkpoint (exploitability {best[0]:.4f}) in {args.out}")
    elif args.out:
        print(f"saved to {nfsp.save(args.out)}")
    if args.plot:
        from nashzoo.eval.plots import plot_convergence

        curve = ConvergenceCurve("nfsp", repr(game), tuple(points), nfsp.average_policy())
        print(f"plot written to {plot_convergence([curve], args.plot, steps_label='episodes')}")
    return 0


def _train_simplex_gradient(args: argparse.Namespace) -> int:
    import dataclasses

    import torch

    from nashzoo.agents.cfr.run import ConvergenceCurve, ConvergencePoint
    from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig
    from nashzoo.envs import make_game
    from nashzoo.errors import GameTooLargeError
    from nashzoo.tree import compile_game

    torch.set_num_threads(args.threads)
    game = make_game(args.game, **_parse_params(args.param))
    given = {
        "seed": args.seed,
        "batch_games": args.batch_games,
        "entropy": args.entropy,
        "magnet": args.magnet,
        "magnet_strength": args.magnet_strength,
        "parametrisation": args.parametrisation,
        "reward": args.reward,
        "policy_lr": args.policy_lr,
    }
    config = dataclasses.replace(
        SimplexGradientConfig(), **{k: v for k, v in given.items() if v is not None}
    )
    learner = SimplexGradient(game, config)
    try:
        compile_game(game, max_nodes=1_000_000)  # exact measurement only where it is quick
        exact = True
    except GameTooLargeError:
        exact = False
        print(f"{game!r} does not compile: no exact exploitability, training only.")
    points: dict[str, list] = {"average": [], "last": []}

    def record(m: SimplexGradient) -> None:
        if not exact:
            print(f"{m.seconds:8.1f} s {m.iterations:>8,} iterations {m.episodes:>11,} games")
            return
        for which in points:
            value = m.exploitability(average=which == "average")
            points[which].append(ConvergencePoint(m.episodes, m.seconds, value))
        print(
            f"{m.seconds:8.1f} s {m.episodes:>11,} games  exploitability average "
            f"{points['average'][-1].exploitability:.4f}  last "
            f"{points['last'][-1].exploitability:.4f}",
            flush=True,
        )

    learner.train(
        seconds=60 * args.minutes,
        callback=record,
        callback_every=args.eval_every,
        progress=not args.quiet,
    )
    if args.out:
        print(f"saved to {learner.save(args.out)}")
    if args.plot:
        if not exact:
            print("no plot: the game does not compile, so there is no exploitability curve")
        else:
            from nashzoo.eval.plots import plot_convergence

            curves = [
                ConvergenceCurve(
                    f"simplex-gradient ({which})",
                    repr(game),
                    tuple(pts),
                    learner.tabular_policy(average=which == "average"),
                )
                for which, pts in points.items()
            ]
            path = plot_convergence(curves, args.plot, steps_label="games")
            print(f"plot written to {path}")
    return 0


def _train_nash_ismcts(args: argparse.Namespace) -> int:
    import torch

    from nashzoo.agents.ismcts.train import TrainConfig, train
    from nashzoo.envs import make_game

    torch.set_num_threads(args.threads)
    game = make_game(args.game, **_parse_params(args.param))
    given = {
        field: getattr(args, option)
        for field, option in (
            ("generations", "generations"),
            ("games_per_generation", "games_per_generation"),
            ("simulations", "simulations"),
            ("eval_simulations", "eval_simulations"),
            ("eps", "eps"),
            ("eps_final", "eps_final"),
            ("c_puct", "c_puct"),
            ("play_eps", "play_eps"),
            ("play_c_puct", "play_c_puct"),
            ("eval_every", "eval_generations"),
        )
        if getattr(args, option) is not None
    }
    given.setdefault("generations", 100_000)  # the minutes stop it
    config = TrainConfig(
        minutes=args.minutes, workers=args.workers, backend=args.backend, seed=args.seed, **given
    )

    def report(record: Any) -> None:
        if record.search_exploitability is not None:
            print(
                f"{record.seconds:8.1f} s  generation {record.generation:>4}  "
                f"{record.games:>8,} games  exploitability: P {record.prior_exploitability:.4f}"
                f"  search {record.search_exploitability:.4f}",
                flush=True,
            )

    result = train(game, config, out=args.out, progress=not args.quiet, callback=report)
    if args.out:
        print(f"saved to {args.out}")
    if args.plot:
        from nashzoo.eval.plots import plot_convergence

        path = plot_convergence(result.curves(), args.plot, steps_label="generations")
        print(f"plot written to {path}")
    return 0


def cmd_agents(args: argparse.Namespace) -> int:
    from nashzoo.agents import families

    for family in families().values():
        facts = [
            f
            for f, on in (
                ("compiles the tree", family.needs_tree),
                ("sampling", family.samples),
                ("FILES RUN CODE", family.loads_code),
            )
            if on
        ]
        defaults = ", ".join(f"{k}={v}" for k, v in family.defaults.items())
        print(
            f"{family.usage:32s} {family.description}"
            + (f" [{'; '.join(facts)}]" if facts else "")
            + (f" (defaults: {defaults})" if defaults else "")
        )
    print(f"{'package.module:factory':32s} your own code: factory() or factory(game=game)")
    return 0


def cmd_envs(args: argparse.Namespace) -> int:
    import nashzoo

    for env_id in sorted(nashzoo.registry):
        spec = nashzoo.registry[env_id]
        params = ", ".join(spec.game_parameters()) or "-"
        kind = "AEC + parallel" if spec.parallel else "AEC"
        print(f"{env_id:32s} {kind:15s} parameters: {params}")
    return 0


def _settings(args: argparse.Namespace) -> Any:
    from pathlib import Path

    from nashzoo.leaderboard.service import Settings

    settings = Settings(database=args.db, data_dir=Path(args.data))
    if getattr(args, "games", None):
        settings.games = tuple(args.games.split(","))
    common: dict[str, str] = {}
    for item in getattr(args, "gauntlet", None) or []:
        if "=" not in item:
            raise SystemExit(
                f"--gauntlet expects NAME=SPEC or GAME:NAME=SPEC (e.g. cfr+=cfr+:500 or "
                f"leduc_holdem:nfsp=best.pt), received {item!r}"
            )
        name, spec = item.split("=", 1)
        if ":" in name:
            game, name = name.split(":", 1)
            settings.game_gauntlet.setdefault(game, {})[name] = spec
        else:
            common[name] = spec
    if common:
        settings.gauntlet = common
    if getattr(args, "seed", None) is not None:
        settings.seed = args.seed
    return settings


def cmd_serve(args: argparse.Namespace) -> int:
    from nashzoo.extras import require

    uvicorn = require("uvicorn", "server", "nashzoo serve")
    require("fastapi", "server", "nashzoo serve")
    from nashzoo.leaderboard.app import create_app
    from nashzoo.leaderboard.sandbox import sandbox_problem
    from nashzoo.leaderboard.service import Leaderboard
    from nashzoo.leaderboard.worker import WorkerPool, ray_workers

    settings = _settings(args)
    board = Leaderboard(settings)
    problem = sandbox_problem()
    if problem:
        print(f"nashzoo serve: code bundles will fail validation here: {problem}", file=sys.stderr)
    pool = None
    if args.workers > 0:
        if args.backend == "ray":
            ray_workers(settings, args.workers)
        else:
            pool = WorkerPool(settings, args.workers)
    print(
        f"nashzoo leaderboard on http://{args.host}:{args.port} ({settings.database}, "
        f"{args.workers} {args.backend} workers, games {', '.join(settings.games)})"
    )
    try:
        uvicorn.run(create_app(board), host=args.host, port=args.port, log_level="warning")
    finally:
        if pool is not None:
            pool.close()
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.client import submit

    answer = submit(args.server, args.token, args.game, args.name, args.path, args.description)
    print(f"submission {answer['id']} ({answer['kind']}): {answer['status']}")
    print(f"watch it at {answer['url']}")
    return 0


def cmd_add_user(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.accounts import add_user
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args))
    with board.session() as session:
        user, token = add_user(
            session,
            args.name,
            max_submissions=args.max_submissions,
            max_upload_bytes=args.max_upload_bytes,
        )
    print(f"user {user.name} (id {user.id}); API token (shown once, stored only as a hash):")
    print(token)
    return 0


def _solver_names() -> tuple[str, ...]:
    from nashzoo.agents.cfr import SOLVER_NAMES

    return SOLVER_NAMES


def build_parser() -> argparse.ArgumentParser:
    """The ``nashzoo`` command's argument parser."""
    return _parser_and_commands()[0]


def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser by name, in the order ``nashzoo --help`` lists them (the
    documentation's command-line page prints their help)."""
    return dict(_parser_and_commands()[1].choices)


def _parser_and_commands() -> tuple[argparse.ArgumentParser, Any]:
    parser = argparse.ArgumentParser(prog="nashzoo", description="nashzoo command line")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("envs", help="list the registered environments")
    p.set_defaults(func=cmd_envs)

    p = sub.add_parser("agents", help="list the agent families (built-in and plugins)")
    p.set_defaults(func=cmd_agents)

    p = sub.add_parser("solve", help="solve a game with tabular solvers")
    p.add_argument("game", help="env id or short name, e.g. leduc_holdem or nashzoo/kuhn_poker-v0")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game parameter, e.g. --param deck_size=8 (repeatable)",
    )
    p.add_argument(
        "--algo",
        action="append",
        metavar="NAME",
        help=f"{', '.join(_solver_names())} (repeatable; default cfr+)",
    )
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--points", type=int, default=30, help="checkpoints on the curve")
    p.add_argument("--target", type=float, default=None, help="stop at this exploitability")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampling solvers")
    p.add_argument("--out", help="save the average policy (.npz or .json)")
    p.add_argument("--plot", help="write the exploitability curves (PNG)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("tournament", help="duplicate round robin with ratings, stored durably")
    p.add_argument("--game", required=True, help="env id or short name")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument(
        "--agent",
        action="append",
        required=True,
        metavar="NAME=SPEC",
        help="repeatable; SPEC is a family (random, cfr+:1000, ... see `nashzoo "
        "agents`), a policy/agent file, or package.module:factory",
    )
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals per pairing")
    p.add_argument("--block-size", type=int, default=100, help="deals per stored block")
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
        type=int,
        default=0,
        help="where exact exploitability is out of reach, report each agent's local best "
        "response lower bound from this many hands (default 0: none)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="supervised worker processes (0: play in this process)",
    )
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--ray-address", default=None, help="join this Ray cluster (default: local)")
    p.add_argument("--store", default="results.sqlite", help="SQLite file or SQLAlchemy URL")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--move-time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="per-move time limit; an agent over it forfeits the block",
    )
    p.add_argument(
        "--setup-time-limit",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="with a move time limit: the separate allowance for building each agent and "
        "its first, warming-up decision (no cold start is charged to a move clock)",
    )
    p.add_argument(
        "--memory-limit",
        type=int,
        default=None,
        metavar="MB",
        help="address-space limit of each worker process",
    )
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap samples for rating CIs")
    p.add_argument("--report", default=None, help="write an HTML report into this folder")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser(
        "train", help="train a learning agent (nfsp, nash-ismcts, simplex-gradient) by self-play"
    )
    p.add_argument("algorithm", choices=["nfsp", "nash-ismcts", "simplex-gradient"])
    p.add_argument("game", help="env id or short name")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--minutes", type=float, default=1.0, help="wall-clock training budget")
    p.add_argument(
        "--eval-every",
        type=float,
        default=10.0,
        help="seconds of training between exact exploitability checks",
    )
    p.add_argument(
        "--batch-games",
        type=int,
        default=None,
        help="nfsp, simplex-gradient: games played at once (default 128, 64)",
    )
    # simplex-gradient settings default to SimplexGradientConfig's
    p.add_argument("--entropy", type=float, default=None, help="simplex-gradient: tau")
    p.add_argument("--magnet", choices=["none", "uniform", "average"], default=None)
    p.add_argument("--magnet-strength", type=float, default=None, help="simplex-gradient: alpha")
    p.add_argument("--parametrisation", choices=["softmax", "direct"], default=None)
    p.add_argument("--reward", choices=["difference", "log_difference"], default=None)
    p.add_argument("--policy-lr", type=float, default=None, help="simplex-gradient: g's rate")
    # nash-ismcts settings default to TrainConfig's (None: not given)
    for flag, kind, text in (
        ("--generations", int, "most generations"),
        ("--games-per-generation", int, "self-play games per generation"),
        ("--simulations", int, "simulations per self-play move"),
        ("--eval-simulations", int, "simulations of the trained agent and of the measurements"),
        ("--eps", float, "epsilon in the self-play loop"),
        ("--eps-final", float, "anneal the loop's epsilon to this value over the run"),
        ("--c-puct", float, "PUCT constant of self-play"),
        ("--play-eps", float, "epsilon of the trained agent"),
        ("--play-c-puct", float, "PUCT constant of the trained agent"),
        ("--eval-generations", int, "generations between measurements of the search"),
    ):
        p.add_argument(flag, type=kind, default=None, help=f"nash-ismcts: {text}")
    p.add_argument("--workers", type=int, default=1, help="nash-ismcts: self-play processes")
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", help="save the agent (.pt)")
    p.add_argument(
        "--keep-best",
        action="store_true",
        help="nfsp: --out holds the checkpoint with the lowest exact exploitability seen "
        "(saved as training goes), not the last one",
    )
    p.add_argument("--plot", help="exploitability curve (PNG)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "exploitability",
        help="exact exploitability of a policy, or a lower bound (local best response) "
        "where the game is too large",
    )
    p.add_argument(
        "policy",
        metavar="AGENT",
        help="a .npz or .json policy file; with --game, any policy agent spec "
        "(random, cfr+:100, nfsp.pt, poker-rules, ...)",
    )
    p.add_argument("--game", help="the game (needed for agent specs), e.g. limit_holdem")
    p.add_argument(
        "--method",
        choices=["exact", "lbr", "learned-br"],
        default=None,
        help="exact best response, local best response (policy agents), or a best "
        "response learned by MaskablePPO (any agent); default: exact where the game "
        "compiles, else lbr",
    )
    p.add_argument(
        "--hands", type=int, default=2000, help="lbr: hands to play; learned-br: match deals"
    )
    p.add_argument("--steps", type=int, default=50_000, help="learned-br: training steps")
    p.add_argument(
        "--rollouts",
        type=int,
        default=None,
        help="lbr: Monte Carlo rollouts per action (default: exact action values)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", help="lbr: the bound against hands played (PNG)")
    p.set_defaults(func=cmd_exploitability)

    p = sub.add_parser("play", help="play duplicate hands against an agent from the keyboard")
    p.add_argument("game", help="a game id (see `nashzoo envs`), e.g. leduc_holdem")
    p.add_argument(
        "--against",
        required=True,
        metavar="SPEC",
        help="the opponent: an agent spec (random, cfr+:1000, policy.npz, ...)",
    )
    p.add_argument(
        "--hands", type=int, default=None, help="stop after this many hands (default: until quit)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the cards (default: 0)")
    p.add_argument(
        "--param", action="append", metavar="KEY=VALUE", help="a game parameter (repeatable)"
    )
    p.set_defaults(func=cmd_play)

    def board_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--db",
            default="leaderboard.db",
            help="SQLAlchemy URL or SQLite file (default: %(default)s)",
        )
        p.add_argument(
            "--data", default="leaderboard_data", help="folder for uploads (default: %(default)s)"
        )
        p.add_argument(
            "--games", help="comma-separated game ids (default: kuhn_poker,leduc_holdem)"
        )
        p.add_argument(
            "--gauntlet",
            action="append",
            metavar="[GAME:]NAME=SPEC",
            help="a fixed opponent (repeat; default: random=random, cfr+=cfr+:500); "
            "GAME:NAME=SPEC adds one to that game's board only (e.g. "
            "leduc_holdem:nfsp=best.pt)",
        )

    p = sub.add_parser("serve", help="run a leaderboard: web server and match workers")
    board_options(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1, help="match workers (default: 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--seed", type=int, default=None)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("submit", help="upload an agent to a leaderboard")
    p.add_argument("path", help="policy (.npz/.json), NFSP checkpoint (.pt) or zip")
    p.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    p.add_argument("--token", required=True)
    p.add_argument("--game", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--description", default="")
    p.set_defaults(func=cmd_submit)

    p = sub.add_parser("leaderboard", help="manage a leaderboard")
    lsub = p.add_subparsers(dest="action", required=True)
    q = lsub.add_parser("add-user", help="create a user and print its API token")
    board_options(q)
    q.add_argument("name")
    q.add_argument("--max-submissions", type=int, default=20)
    q.add_argument("--max-upload-bytes", type=int, default=20_000_000)
    q.set_defaults(func=cmd_add_user)
    return parser, sub


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``nashzoo`` command."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (NashzooError, FileNotFoundError, KeyError) as exc:
        print(f"nashzoo: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "nashzoo: interrupted; what finished is stored, run the same command to resume",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
