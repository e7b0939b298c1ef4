"""The leaderboard's web app: a JSON API (OpenAPI at ``/docs``) and server-rendered pages.

``create_app(leaderboard)`` returns the FastAPI app; ``nashzoo serve`` runs it with
uvicorn beside its match workers. Pages are Jinja2 templates with autoescaping (every
name and description is escaped) under a Content-Security-Policy that allows no script
at all: the pages need none.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import pathlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, Header, Path, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel

from nashzoo.errors import (
    AuthError,
    IllegalActionError,
    InvalidParameterError,
    NashzooError,
    SubmissionError,
)
from nashzoo.leaderboard.accounts import VerifiedTokens
from nashzoo.leaderboard.models import Hand, Job, Rating, Submission, User
from nashzoo.leaderboard.play import PlayRoom, Table
from nashzoo.leaderboard.service import Leaderboard, entrant_of

__all__ = ["create_app"]

HERE = pathlib.Path(__file__).parent
RowId = Annotated[int, Path(ge=1, le=2**31 - 1)]
"""A database row id (32-bit: every database takes it)."""
COOKIE = "nashzoo_token"


class ErrorBody(BaseModel):
    """Every error the API returns."""

    code: str
    message: str


class GameInfo(BaseModel):
    id: str
    entrants: int
    queued_jobs: int
    rules: str


class BoardRow(BaseModel):
    rank: int
    entrant: str
    name: str
    submission: int | None
    rating: float
    rating_low: float
    rating_high: float
    nash_averaging: float | None
    mean: float
    unit: str
    exploitability: float | None
    exploitability_bound: float | None = None
    exploitability_method: str | None = None
    games: int
    status: str


class SubmissionInfo(BaseModel):
    id: int
    game: str
    name: str
    description: str
    kind: str
    status: str
    error_code: str | None
    error_message: str | None
    exploitability: float | None
    validation_log: str
    url: str


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    text = {
        400: "The upload or a parameter is refused (see code)",
        401: "Missing or invalid API token",
        403: "A per-user limit is reached",
        404: "No such game or submission",
        413: "The upload is too large",
    }
    return {c: {"model": ErrorBody, "description": text[c]} for c in codes}


def cross_site_form_post(request: Request) -> bool:
    """Whether a state-changing request of the pages (not the token-authenticated API)
    comes from another site: its ``Origin`` (or, without one, its ``Referer``) names
    another scheme and host than the request's own. Browsers send ``Origin`` with every
    cross-site POST, so a forged sign-in (login CSRF) or form post is refused; clients
    that send neither header are not browsers acting for someone, and pass."""
    if request.method in ("GET", "HEAD", "OPTIONS") or request.url.path.startswith("/api/"):
        return False
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return source == "null"  # an opaque origin (a sandboxed frame, a data: page)
    from urllib.parse import urlsplit

    theirs, ours = urlsplit(source), request.url
    return (theirs.scheme, theirs.netloc) != (ours.scheme, ours.netloc)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)


def create_app(board: Leaderboard) -> FastAPI:
    """The web app of ``board``."""
    room = PlayRoom(
        board, idle_seconds=board.settings.play_idle_seconds, max_tables=board.settings.play_tables
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        room.close_all()  # stop the agents of live tables with the server

    app = FastAPI(
        lifespan=lifespan,
        title="nashzoo leaderboard",
        version="1",
        description="Submit agents for imperfect-information games; the server validates "
        "them, plays duplicate matches in a sandbox and ranks them.",
    )
    app.state.play_room = room
    verified = VerifiedTokens()
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    templates = Jinja2Templates(directory=HERE / "templates")
    games = list(board.settings.games)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        if cross_site_form_post(request):
            return _error(
                403,
                "CROSS_SITE",
                "a form posted from another site is refused (its Origin or Referer is not "
                "this server)",
            )
        response: Response = await call_next(request)
        if not request.url.path.startswith(("/docs", "/redoc")):
            response.headers["Content-Security-Policy"] = (
                "default-src 'self'; script-src 'none'; object-src 'none'; "
                "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
            )
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    # -- helpers ------------------------------------------------------------------------
    def user_from(token: str | None) -> User:
        with board.session() as session:
            return verified.authenticate(session, token)

    def bearer(authorization: str | None) -> str | None:
        if authorization and authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return authorization

    def cookie_user(request: Request) -> User | None:
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        try:
            return user_from(token)
        except AuthError:
            return None

    def board_rows(game: str) -> list[dict[str, Any]]:
        from sqlalchemy import select

        from nashzoo.eval.stats import score_unit

        _, unit = score_unit(board.game(game).big_blind)
        with board.session() as session:
            names = board.entrant_names(session, game)
            ratings = list(
                session.scalars(
                    select(Rating).where(Rating.game == game).order_by(Rating.rating.desc())
                )
            )
            subs = {
                entrant_of(s.id): s
                for s in session.scalars(select(Submission).where(Submission.game == game))
            }
        rows = []
        for k, r in enumerate(ratings):
            if r.entrant not in names:
                continue
            sub = subs.get(r.entrant)
            if sub is not None:
                expl, status = sub.exploitability, sub.status
                figures = json.loads(sub.details or "{}")
            else:
                figures = board.figures_of(game, r.entrant)
                expl, status = figures.get("exploitability"), "gauntlet"
            rows.append(
                {
                    "rank": k + 1,
                    "entrant": r.entrant,
                    "name": names[r.entrant],
                    "submission": sub.id if sub is not None else None,
                    "rating": r.rating,
                    "low": r.low,
                    "high": r.high,
                    "nash": r.nash if r.nash is not None and math.isfinite(r.nash) else None,
                    "mean": r.mean_mbb,
                    "unit": unit,
                    "exploitability": expl,
                    "bound": figures.get("exploitability_bound"),
                    "method": "exact" if expl is not None else figures.get("exploitability_method"),
                    "games": r.games,
                    "status": status,
                }
            )
        return rows

    def queued(game: str | None = None) -> int:
        from sqlalchemy import func, select

        with board.session() as session:
            q = select(func.count()).select_from(Job).where(Job.status.in_(("queued", "running")))
            if game is not None:
                q = q.where(Job.game == game)
            return int(session.scalar(q) or 0)

    def rules_of(game: str) -> str:
        return inspect.cleandoc(type(board.game(game)).__doc__ or "No rules text.")

    def submission_of(submission_id: int) -> Submission | None:
        with board.session() as session:
            return session.get(Submission, submission_id)

    def info_of(sub: Submission, request: Request) -> SubmissionInfo:
        return SubmissionInfo(
            id=sub.id,
            game=sub.game,
            name=sub.name,
            description=sub.description,
            kind=sub.kind,
            status=sub.status,
            error_code=sub.error_code,
            error_message=sub.error_message,
            exploitability=sub.exploitability,
            validation_log=sub.validation_log,
            url=str(request.url_for("submission_page", submission_id=sub.id)),
        )

    def do_submit(
        token: str | None, game: str, name: str, description: str, upload: UploadFile
    ) -> tuple[int, Any]:
        """(status, Submission or ErrorBody dict)."""
        try:
            user = user_from(token)
        except AuthError as exc:
            return 401, {"code": "UNAUTHORIZED", "message": str(exc)}
        if game not in games:
            return 404, {"code": "UNKNOWN_GAME", "message": f"no board for {game!r}; {games}"}
        limit = min(user.max_upload_bytes, board.settings.limits.max_bytes)
        data = upload.file.read(limit + 1)
        if len(data) > limit:
            return 413, {"code": "TOO_LARGE", "message": f"uploads are at most {limit} bytes"}
        try:
            sub = board.submit(user, game, name, upload.filename or "upload", data, description)
        except AuthError as exc:
            return 403, {"code": "LIMIT", "message": str(exc)}
        except SubmissionError as exc:
            status = 413 if exc.code == "TOO_LARGE" else 400
            return status, {"code": exc.code, "message": exc.message}
        except InvalidParameterError as exc:
            return 400, {"code": "BAD_PARAMETER", "message": str(exc)}
        return 201, sub

    # -- JSON API -----------------------------------------------------------------------
    @app.get("/api/games", response_model=list[GameInfo], tags=["boards"])
    def api_games() -> list[GameInfo]:
        """The hosted games."""
        return [
            GameInfo(id=g, entrants=len(board_rows(g)), queued_jobs=queued(g), rules=rules_of(g))
            for g in games
        ]

    @app.get(
        "/api/games/{game}/board",
        response_model=list[BoardRow],
        responses=_errors(404),
        tags=["boards"],
    )
    def api_board(game: str) -> Any:
        """A game's board, best first."""
        if game not in games:
            return _error(404, "UNKNOWN_GAME", f"no board for {game!r}; boards: {games}")
        return [
            BoardRow(
                rank=i + 1,
                entrant=r["entrant"],
                name=r["name"],
                submission=r["submission"],
                rating=r["rating"],
                rating_low=r["low"],
                rating_high=r["high"],
                nash_averaging=r["nash"],
                mean=r["mean"],
                unit=r["unit"],
                exploitability=r["exploitability"],
                exploitability_bound=r["bound"],
                exploitability_method=r["method"],
                games=r["games"],
                status=r["status"],
            )
            for i, r in enumerate(board_rows(game))
        ]

    @app.post(
        "/api/submissions",
        status_code=201,
        response_model=SubmissionInfo,
        responses=_errors(400, 401, 403, 404, 413),
        tags=["submissions"],
    )
    def api_submit(
        request: Request,
        game: Annotated[str, Form(min_length=1, max_length=64)],
        name: Annotated[str, Form(min_length=1, max_length=200)],
        file: Annotated[UploadFile, File()],
        description: Annotated[str, Form(max_length=4000)] = "",
        authorization: Annotated[str | None, Header()] = None,
    ) -> Any:
        """Upload an agent (multipart form; header ``Authorization: Bearer TOKEN``)."""
        status, result = do_submit(bearer(authorization), game, name, description, file)
        if status != 201:
            return JSONResponse(result, status_code=status)
        return JSONResponse(info_of(result, request).model_dump(), status_code=201)

    @app.get(
        "/api/submissions/{submission_id}",
        response_model=SubmissionInfo,
        responses=_errors(404),
        tags=["submissions"],
    )
    def api_submission(request: Request, submission_id: RowId) -> Any:
        """A submission's status, validation log and figures."""
        sub = submission_of(submission_id)
        if sub is None:
            return _error(404, "NO_SUBMISSION", f"no submission {submission_id}")
        return info_of(sub, request)

    @app.get(
        "/api/submissions/{submission_id}/hands",
        responses={**_errors(404), 200: {"content": {"application/x-ndjson": {}}}},
        response_class=Response,
        tags=["submissions"],
    )
    def submission_hands(submission_id: RowId) -> Response:
        """The stored hands of a submission as JSON lines: one object per game with
        ``game``, ``a``, ``b``, ``block``, ``deal``, ``seat0`` (the entrant in seat 0) and
        ``history`` (chance outcomes and actions from the root, as the rules number them)."""
        from sqlalchemy import or_, select

        if submission_of(submission_id) is None:
            return _error(404, "NO_SUBMISSION", f"no submission {submission_id}")
        me = entrant_of(submission_id)
        with board.session() as session:
            hands = session.scalars(
                select(Hand).where(or_(Hand.a == me, Hand.b == me)).order_by(Hand.id)
            ).all()
        lines = [
            json.dumps(
                {
                    "id": h.id,
                    "game": h.game,
                    "a": h.a,
                    "b": h.b,
                    "block": h.block,
                    "deal": h.deal,
                    "seat0": h.seat0,
                    **json.loads(h.record),
                }
            )
            for h in hands
        ]
        return Response(
            "\n".join(lines) + ("\n" if lines else ""), media_type="application/x-ndjson"
        )

    @app.get("/api/whoami", responses=_errors(401), tags=["accounts"])
    def api_whoami(authorization: Annotated[str | None, Header()] = None) -> Any:
        """The user a token belongs to."""
        try:
            user = user_from(bearer(authorization))
        except AuthError as exc:
            return _error(401, "UNAUTHORIZED", str(exc))
        return {"name": user.name, "max_submissions": user.max_submissions}

    # -- pages ------------------------------------------------------------------------
    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(
            request,
            name,
            {"games": games, "user": cookie_user(request), **context},
            status_code=status,
        )

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        summary = [{"id": g, "entrants": len(board_rows(g)), "queued": queued(g)} for g in games]
        return page(request, "index.html", summary=summary)

    @app.get("/games/{game}", response_class=HTMLResponse, include_in_schema=False)
    def board_page(request: Request, game: str) -> HTMLResponse:
        from sqlalchemy import select

        if game not in games:
            return page(request, "rules.html", 404, game=game, rules="No such board.")
        with board.session() as session:
            pending = session.scalars(
                select(Submission).where(Submission.game == game, Submission.status != "ranked")
            ).all()
        rows = board_rows(game)
        unit = rows[0]["unit"] if rows else ""
        return page(
            request, "board.html", game=game, rows=rows, unit=unit, pending=pending,
            queued=queued(game),
        )  # fmt: skip

    @app.get("/games/{game}/rules", response_class=HTMLResponse, include_in_schema=False)
    def rules_page(request: Request, game: str) -> HTMLResponse:
        if game not in games:
            return page(request, "rules.html", 404, game=game, rules="No such game.")
        return page(request, "rules.html", game=game, rules=rules_of(game))

    @app.get("/submissions/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
    def submission_page(request: Request, submission_id: RowId) -> HTMLResponse:
        from sqlalchemy import or_, select

        from nashzoo.eval.ratings import crosstable
        from nashzoo.eval.stats import score_unit

        sub = submission_of(submission_id)
        if sub is None:
            return page(request, "rules.html", 404, game="", rules="No such submission.")
        me = entrant_of(sub.id)
        scale, unit = score_unit(board.game(sub.game).big_blind)
        with board.session() as session:
            stored = session.scalars(
                select(Hand).where(or_(Hand.a == me, Hand.b == me)).order_by(Hand.id).limit(2000)
            ).all()
            groups: dict[str, list[Hand]] = {}
            for h in stored:  # a few hands of each pairing (people included)
                group = groups.setdefault(h.b if h.a == me else h.a, [])
                if len(group) < 3:
                    group.append(h)
            names = display_names(session, sub.game, list(groups))
        hands = sorted(groups.items())
        names.setdefault(me, sub.name)
        results = [
            r for r in board.store.results(board.tournament(sub.game))
            if me in (r.a, r.b) and r.a in names and r.b in names
        ]  # fmt: skip
        cells = []
        if results:
            present = sorted({n for r in results for n in (r.a, r.b)})
            table = crosstable(results, present)
            k = present.index(me)
            for j, other in enumerate(present):
                if j == k or table.deals[k, j] == 0:
                    continue
                forfeits = sum(1 for f in table.forfeits if other in f[:2] and me in f[:2])
                cells.append({
                    "name": names.get(other, other),
                    "mean": table.mean[k, j] * scale,
                    "low": table.ci_low[k, j] * scale,
                    "high": table.ci_high[k, j] * scale,
                    "deals": int(table.deals[k, j]),
                    "forfeits": forfeits,
                })  # fmt: skip
        details = json.loads(sub.details or "{}")
        return page(
            request, "submission.html", sub=sub, cells=cells, unit=unit, hands=hands,
            names=names, exact=details.get("exact_scores"),
            note=details.get("exploitability_note"),
            bound=details.get("exploitability_bound"),
        )  # fmt: skip

    def display_names(session: Any, game: str, entrants: list[str]) -> dict[str, str]:
        """Entrant → display name, people (``user:ID``) included."""
        names = board.entrant_names(session, game)
        for e in entrants:
            if e.startswith("user:") and e[5:].isdigit() and e not in names:
                user = session.get(User, int(e[5:]))
                names[e] = f"{user.name} (person)" if user else e
        return names

    @app.get("/hands/{hand_id}", response_class=HTMLResponse, include_in_schema=False)
    def hand_page(
        request: Request, hand_id: RowId, step: Annotated[int | None, Query(ge=0)] = None
    ) -> HTMLResponse:
        from nashzoo.eval.lockstep import request_for
        from nashzoo.games.base import CHANCE
        from nashzoo.games.observation import ObservationCache

        with board.session() as session:
            hand = session.get(Hand, hand_id)
            names = display_names(session, hand.game, [hand.a, hand.b]) if hand else {}
        if hand is None or hand.game not in games:
            return page(request, "rules.html", 404, game="", rules="No such hand.")
        seat0 = hand.seat0
        seat1 = hand.b if seat0 == hand.a else hand.a
        who = {0: names.get(seat0, seat0), 1: names.get(seat1, seat1)}
        record = json.loads(hand.record)
        history = record["history"]
        stated = record.get("probabilities")
        # Agents that run in process state their probabilities; ask them again (they are
        # fixed policies). Stored hands of people carry the agent's as it played.
        policies = {} if stated else {
            p: board.stated_policy(hand.game, e) for p, e in ((0, seat0), (1, seat1))
        }  # fmt: skip
        rules = board.game(hand.game)
        cache = ObservationCache(rules)
        state = rules.new_initial_state()
        steps = []
        for k, action in enumerate(history):
            p = state.current_player()
            probs = None
            if stated and stated[k] is not None:
                probs = stated[k]
            elif p != CHANCE and (policy := policies.get(p)) is not None:
                probs = list(policy.action_probabilities(*request_for(cache, state, p)))
            legal = [] if p == CHANCE else list(state.legal_actions())
            text = state.action_to_string(action)
            shown = [
                {"action": state.action_to_string(a), "p": probs[a], "played": a == action}
                for a in legal
            ] if probs is not None else []  # fmt: skip
            steps.append({"who": "chance" if p == CHANCE else who.get(p, p), "action": text,
                          "probabilities": shown})  # fmt: skip
            state.apply_action(action)
            steps[-1]["state"] = str(state)
        current = None if step is None else min(step, len(steps))
        return page(
            request, "hand.html", hand=hand, steps=steps, seat0=who[0], seat1=who[1],
            returns=state.returns(), current=current,
            before=str(rules.new_initial_state()) if current == 0 else None,
        )  # fmt: skip

    # -- playing against a ranked agent -------------------------------------------------
    def play_view(
        request: Request, table: Table | None, submission_id: int, **extra: Any
    ) -> HTMLResponse:
        if table is None:
            sub = submission_of(submission_id)
            return page(
                request, "play.html", extra.pop("status", 200), table=None, sub=sub, **extra
            )
        session = table.session
        seat = session.seat
        over = session.hand_over
        labels = {seat: "you", 1 - seat: table.name}
        moves = [
            {"who": "chance" if s.player < 0 else labels[s.player], "text": s.text}
            for s in session.visible_steps()
        ]
        last = session.finished[-1] if over and session.finished else None
        return page(
            request, "play.html", extra.pop("status", 200), table=table, sub=None,
            seat=seat, over=over, moves=moves,
            view=None if over else session.view()[1]["info_state"],
            legal=session.legal_actions(), pot=None if over else session.pot(),
            showdown=str(session.state) if over else None,
            last=last, last_id=table.hand_ids.get(last.hand) if last else None,
            score=session.score(), finished=[
                {"hand": r.hand, "id": table.hand_ids.get(r.hand), "won": r.person_return,
                 "seat": r.seat, "forfeit": r.forfeit}
                for r in reversed(session.finished[-20:])
            ], **extra,
        )  # fmt: skip

    @app.get("/play/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
    def play_page(request: Request, submission_id: RowId) -> Response:
        user = cookie_user(request)
        if user is None:
            return page(request, "signin.html", 401, error="Sign in to play against an agent.")
        return play_view(request, room.table(user, submission_id), submission_id)

    def play_action(request: Request, submission_id: int, do: Any) -> Response:
        user = cookie_user(request)
        if user is None:
            return page(request, "signin.html", 401, error="Sign in to play against an agent.")
        table = room.table(user, submission_id)
        try:
            if table is None or do is None:
                room.open(user, submission_id)
            else:
                do(user, table)
        except IllegalActionError as exc:
            return play_view(request, table, submission_id, status=409, error=str(exc))
        except NashzooError as exc:  # not ranked, sandbox failure, ...
            return play_view(request, None, submission_id, status=409, error=str(exc))
        return RedirectResponse(
            request.url_for("play_page", submission_id=submission_id), status_code=303
        )

    @app.post("/play/{submission_id}/start", include_in_schema=False)
    def play_start(request: Request, submission_id: RowId) -> Response:
        return play_action(request, submission_id, None)

    @app.post("/play/{submission_id}/act", include_in_schema=False)
    def play_act(
        request: Request, submission_id: RowId, action: Annotated[int, Form(ge=0, le=2**31)]
    ) -> Response:
        return play_action(request, submission_id, lambda u, t: room.act(u, t, action))

    @app.post("/play/{submission_id}/next", include_in_schema=False)
    def play_next(request: Request, submission_id: RowId) -> Response:
        return play_action(request, submission_id, room.next_hand)

    @app.post("/play/{submission_id}/stop", include_in_schema=False)
    def play_stop(request: Request, submission_id: RowId) -> Response:
        user = cookie_user(request)
        if user is not None:
            room.close(user.id, submission_id)
        return RedirectResponse(
            request.url_for("submission_page", submission_id=submission_id), status_code=303
        )

    @app.get("/signin", response_class=HTMLResponse, include_in_schema=False)
    def signin_page(request: Request) -> HTMLResponse:
        return page(request, "signin.html")

    @app.post("/signin", include_in_schema=False)
    def signin_form(request: Request, token: Annotated[str, Form()]) -> Response:
        try:
            user_from(token)
        except AuthError as exc:
            return page(request, "signin.html", 401, error=str(exc))
        response = RedirectResponse(request.url_for("upload_page"), status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    @app.get("/upload", response_class=HTMLResponse, include_in_schema=False)
    def upload_page(request: Request) -> HTMLResponse:
        return page(request, "upload.html")

    @app.post("/upload", include_in_schema=False)
    def upload_form(
        request: Request,
        game: Annotated[str, Form()],
        name: Annotated[str, Form()],
        file: Annotated[UploadFile, File()],
        description: Annotated[str, Form()] = "",
    ) -> Response:
        status, result = do_submit(request.cookies.get(COOKIE), game, name, description, file)
        if status != 201:
            return page(
                request, "upload.html", status, error=f"{result['code']}: {result['message']}"
            )
        return RedirectResponse(
            request.url_for("submission_page", submission_id=result.id), status_code=303
        )

    return app
