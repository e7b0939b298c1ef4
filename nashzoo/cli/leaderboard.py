"""``nashzoo serve``, ``nashzoo submit`` and ``nashzoo leaderboard add-user``: the leaderboard
service."""

from __future__ import annotations

import argparse
import sys
from typing import Any


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


def run_serve(args: argparse.Namespace) -> int:
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


def run_submit(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.client import submit

    answer = submit(args.server, args.token, args.game, args.name, args.path, args.description)
    print(f"submission {answer['id']} ({answer['kind']}): {answer['status']}")
    print(f"watch it at {answer['url']}")
    return 0


def run_add_user(args: argparse.Namespace) -> int:
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


def _board_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default="leaderboard.db",
        help="SQLAlchemy URL or SQLite file (default: %(default)s)",
    )
    p.add_argument(
        "--data", default="leaderboard_data", help="folder for uploads (default: %(default)s)"
    )
    p.add_argument("--games", help="comma-separated game ids (default: kuhn_poker,leduc_holdem)")
    p.add_argument(
        "--gauntlet",
        action="append",
        metavar="[GAME:]NAME=SPEC",
        help="a fixed opponent (repeat; default: random=random, cfr+=cfr+:500); "
        "GAME:NAME=SPEC adds one to that game's board only (e.g. "
        "leduc_holdem:nfsp=best.pt)",
    )


def add_parser(sub: Any) -> None:
    """``nashzoo serve``, ``nashzoo submit`` and ``nashzoo leaderboard``."""
    p = sub.add_parser("serve", help="run a leaderboard: web server and match workers")
    _board_options(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1, help="match workers (default: 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--seed", type=int, default=None)
    p.set_defaults(func=run_serve)

    p = sub.add_parser("submit", help="upload an agent to a leaderboard")
    p.add_argument("path", help="policy (.npz/.json), NFSP checkpoint (.pt) or zip")
    p.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    p.add_argument("--token", required=True)
    p.add_argument("--game", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--description", default="")
    p.set_defaults(func=run_submit)

    p = sub.add_parser("leaderboard", help="manage a leaderboard")
    lsub = p.add_subparsers(dest="action", required=True)
    q = lsub.add_parser("add-user", help="create a user and print its API token")
    _board_options(q)
    q.add_argument("name")
    q.add_argument("--max-submissions", type=int, default=20)
    q.add_argument("--max-upload-bytes", type=int, default=20_000_000)
    q.set_defaults(func=run_add_user)
