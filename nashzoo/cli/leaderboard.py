"""``nashzoo serve``, ``nashzoo submit`` and ``nashzoo leaderboard ...``: the leaderboard
service and its operator's commands (add-user, users, rotate-token, revoke, set-limits,
remove, queue)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from nashzoo.cli.common import int_arg, lbr_hands_arg, seed_arg, usage_error


def _settings(args: argparse.Namespace) -> Any:
    from pathlib import Path

    from nashzoo.leaderboard.service import Settings

    settings = Settings(database=args.db, data_dir=Path(args.data))
    if getattr(args, "games", None):
        from nashzoo.envs.registration import split_game_strings

        settings.games = tuple(split_game_strings(args.games))
    common: dict[str, str] = {}
    for item in getattr(args, "gauntlet", None) or []:
        game, name, spec = _gauntlet_item(item, settings.games)
        if game is None:
            common[name] = spec
        else:
            settings.game_gauntlet.setdefault(game, {})[name] = spec
    if common:
        settings.gauntlet = common
    if getattr(args, "seed", None) is not None:
        settings.seed = args.seed
    for option in ("deals_per_block", "blocks_per_pairing", "validation_deals", "lbr_hands"):
        value = getattr(args, option, None)
        if value is not None:
            setattr(settings, option, value)
    return settings


_GAUNTLET_FORM = (
    "--gauntlet expects NAME=SPEC or GAME:NAME=SPEC, GAME one of this server's --games "
    "(e.g. cfr+=cfr+:500, leduc_holdem:nfsp=best.pt or 'kuhn_poker(players=3):r2=random')"
)


def _gauntlet_item(item: str, games: tuple[str, ...]) -> tuple[str | None, str, str]:
    """``(game or None, name, spec)`` of one ``--gauntlet`` item. A game prefix is one of
    the board's games written as ``--games`` has it, parameters included (their ``=``
    are not the item's); the spec is checked (:func:`~nashzoo.agents.specs.check_spec`).

    Raises:
        SystemExit: the item's form, its game or its spec is wrong (one line, status 2).
    """
    from nashzoo.agents.specs import check_spec
    from nashzoo.errors import NashzooError

    game = next((g for g in games if item.startswith(f"{g}:")), None)
    rest = item[len(game) + 1 :] if game is not None else item
    name, sep, spec = rest.partition("=")
    if game is None and (":" in name or ")" in item.partition(":")[0]):
        named = item.partition(")")[0] + ")" if "(" in name else name.rsplit(":", 1)[0]
        raise usage_error(
            f"--gauntlet {item!r} names the game {named!r}, which has no board here "
            f"(--games: {', '.join(games)})"
        )
    if not sep or not name or not spec or any(c in name for c in "():= "):
        raise usage_error(f"{_GAUNTLET_FORM}; received {item!r}")
    try:
        check_spec(spec)
    except (NashzooError, FileNotFoundError) as exc:
        raise usage_error(f"--gauntlet {item!r}: {exc}") from None
    return game, name, spec


def run_serve(args: argparse.Namespace) -> int:
    from nashzoo.extras import require

    uvicorn = require("uvicorn", "server", "nashzoo serve")
    require("fastapi", "server", "nashzoo serve")
    import logging

    from nashzoo.leaderboard.app import create_app
    from nashzoo.leaderboard.service import Leaderboard
    from nashzoo.leaderboard.worker import WorkerPool, ray_workers

    # the access log (uvicorn) and the job log (uploads, verdicts, jobs started and
    # finished, with ids) on the server's output
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    settings = _settings(args)
    board = Leaderboard(settings)
    # a server stopped mid-job: its jobs queued again at once, its leftovers removed
    recovered = board.recover()
    if any(recovered.values()):
        print(
            f"nashzoo serve: {recovered['jobs']} interrupted jobs queued again; "
            f"{recovered['sandboxes']} sandbox and {recovered['bundles']} bundle folders "
            "of stopped workers removed",
            file=sys.stderr,
        )
    problem = board.sandbox_warning()  # checked again at each validation and upload page
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
        uvicorn.run(create_app(board), host=args.host, port=args.port, log_level="info")
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

    board = Leaderboard(_settings(args), schedule=False)
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


def run_users(args: argparse.Namespace) -> int:
    from sqlalchemy import func, select

    from nashzoo.leaderboard.accounts import REVOKED
    from nashzoo.leaderboard.models import Submission, User
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args), schedule=False)
    with board.session() as session:
        counts = dict(
            session.execute(
                select(Submission.user_id, func.count()).group_by(Submission.user_id)
            ).all()
        )
        users = session.scalars(select(User).order_by(User.id)).all()
        print(f"{'id':>4}  {'name':20s} {'submissions':>11} {'max':>5} {'max bytes':>11}  token")
        for u in users:
            state = "revoked" if u.token_hash == REVOKED else "active"
            print(
                f"{u.id:>4}  {u.name:20s} {counts.get(u.id, 0):>11} {u.max_submissions:>5} "
                f"{u.max_upload_bytes:>11,}  {state}"
            )
    return 0


def run_rotate_token(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.accounts import rotate_token
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args), schedule=False)
    with board.session() as session:
        token = rotate_token(session, args.name)
    print(f"user {args.name}: new API token (the old one no longer works; shown once):")
    print(token)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.accounts import revoke_token
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args), schedule=False)
    with board.session() as session:
        revoke_token(session, args.name)
    print(f"user {args.name}: token revoked (rotate-token issues a new one)")
    return 0


def run_set_limits(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.accounts import set_limits
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args), schedule=False)
    with board.session() as session:
        user = set_limits(
            session,
            args.name,
            max_submissions=args.max_submissions,
            max_upload_bytes=args.max_upload_bytes,
        )
        print(
            f"user {user.name}: at most {user.max_submissions} submissions of "
            f"{user.max_upload_bytes:,} bytes"
        )
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args), schedule=False)
    sub = board.withdraw(None, args.submission)
    print(f"submission {sub.id} ({sub.name}, {sub.game}): {sub.status}; its matches stay stored")
    return 0


def run_queue(args: argparse.Namespace) -> int:
    from sqlalchemy import func, select

    from nashzoo.leaderboard.models import Job
    from nashzoo.leaderboard.service import Leaderboard

    board = Leaderboard(_settings(args), schedule=False)
    with board.session() as session:
        summary = session.execute(
            select(Job.game, Job.kind, Job.status, func.count()).group_by(
                Job.game, Job.kind, Job.status
            )
        ).all()
        for game, kind, status, count in sorted(summary):
            print(f"{game:16s} {kind:9s} {status:9s} {count:>6}")
        waiting = session.scalars(
            select(Job).where(Job.status.in_(("queued", "running"))).order_by(Job.id).limit(20)
        ).all()
        for job in waiting:
            lease = f" lease until {job.lease_until:%H:%M:%S}" if job.lease_until else ""
            print(
                f"  job {job.id}: {job.kind} {job.game} {job.entrant} vs {job.opponent or '-'} "
                f"block {job.block} [{job.status}{lease}]"
            )
        if not summary:
            print("no jobs")
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
    p.add_argument(
        "--games",
        help="comma-separated game ids, with parameters where they have them, e.g. "
        "'leduc_holdem,kuhn_poker(players=3)' (default: kuhn_poker,leduc_holdem)",
    )
    p.add_argument(
        "--gauntlet",
        action="append",
        metavar="[GAME:]NAME=SPEC",
        help="a fixed opponent (repeat; default: random=random, cfr+=cfr+:500); "
        "GAME:NAME=SPEC adds one to that game's board only (e.g. "
        "leduc_holdem:nfsp=best.pt)",
    )


BOARD_DEFAULTS = {
    "deals_per_block": 500,
    "blocks_per_pairing": 2,
    "validation_deals": 50,
    "lbr_hands": 200,
}
""":class:`~nashzoo.leaderboard.board.Settings`' defaults of the options ``serve`` sets,
for its help (the parser is built without importing the server's libraries; a test keeps
the two equal)."""


def add_parser(sub: Any) -> None:
    """``nashzoo serve``, ``nashzoo submit`` and ``nashzoo leaderboard``."""
    p = sub.add_parser("serve", help="run a leaderboard: web server and match workers")
    _board_options(p)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s, this machine only)",
    )
    p.add_argument(
        "--port",
        type=int_arg(1, 65535),
        default=8000,
        help="TCP port to listen on (default: %(default)s)",
    )
    p.add_argument("--workers", type=int_arg(0, 1024), default=1, help="match workers (default: 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    defaults = argparse.Namespace(**BOARD_DEFAULTS)
    p.add_argument(
        "--deals-per-block",
        type=int_arg(),
        default=None,
        help=f"duplicate deals in one match job (default: {defaults.deals_per_block})",
    )
    p.add_argument(
        "--blocks-per-pairing",
        type=int_arg(),
        default=None,
        help=f"match jobs per pairing (default: {defaults.blocks_per_pairing})",
    )
    p.add_argument(
        "--validation-deals",
        type=int_arg(),
        default=None,
        help=f"deals of each upload's validation match against random (default: "
        f"{defaults.validation_deals})",
    )
    p.add_argument(
        "--lbr-hands", type=lbr_hands_arg, default=None,
        help=f"where a game is too large for exact exploitability, hands of local best "
        f"response per agent, 0: none (default: {defaults.lbr_hands})",
    )  # fmt: skip
    p.add_argument("--seed", type=seed_arg, default=None)
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
    q.add_argument("--max-submissions", type=int_arg(0, 10**6), default=20)
    q.add_argument("--max-upload-bytes", type=int_arg(1, 2**40), default=20_000_000)
    q.set_defaults(func=run_add_user)
    q = lsub.add_parser("users", help="list users, their submissions and limits")
    _board_options(q)
    q.set_defaults(func=run_users)
    q = lsub.add_parser("rotate-token", help="issue a user a new token (the old one stops)")
    _board_options(q)
    q.add_argument("name")
    q.set_defaults(func=run_rotate_token)
    q = lsub.add_parser("revoke", help="revoke a user's token")
    _board_options(q)
    q.add_argument("name")
    q.set_defaults(func=run_revoke)
    q = lsub.add_parser("set-limits", help="change a user's limits")
    _board_options(q)
    q.add_argument("name")
    q.add_argument("--max-submissions", type=int_arg(0, 10**6))
    q.add_argument("--max-upload-bytes", type=int_arg(1, 2**40))
    q.set_defaults(func=run_set_limits)
    q = lsub.add_parser("remove", help="take a submission off its board (matches stay)")
    _board_options(q)
    q.add_argument("submission", type=int_arg())
    q.set_defaults(func=run_remove)
    q = lsub.add_parser("queue", help="the job queue: counts, and the jobs waiting or running")
    _board_options(q)
    q.set_defaults(func=run_queue)
