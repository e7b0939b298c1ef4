"""The leaderboard's JSON API (OpenAPI at ``/docs``): boards, submissions, accounts."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Header, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from nashzoo.errors import (
    AuthError,
    LeaderboardError,
)
from nashzoo.leaderboard import queries
from nashzoo.leaderboard.models import Hand, Submission
from nashzoo.leaderboard.service import entrant_of
from nashzoo.leaderboard.site import RowId, Site, error_response
from nashzoo.leaderboard.submissions import DESCRIPTION_MAX, NAME_MAX

__all__ = ["api_router", "ErrorBody", "GameInfo", "BoardRow", "SubmissionInfo"]


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
    nash_averaging_low: float | None = None
    nash_averaging_high: float | None = None
    alpha_rank: float | None = None
    alpha_rank_low: float | None = None
    alpha_rank_high: float | None = None
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
        403: "A per-user limit is reached, or the submission is another user's",
        404: "No such game or submission",
        409: "The name is taken or the same user submitted the same file (NAME_TAKEN, DUPLICATE)",
        413: "The upload is too large",
        422: "A parameter or form field is invalid (BAD_REQUEST, UNKNOWN_GAME)",
    }
    return {c: {"model": ErrorBody, "description": text[c]} for c in codes}


def info_of(sub: Submission, request: Request) -> SubmissionInfo:
    """A submission as the API shows it."""
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


def api_router(site: Site) -> APIRouter:
    """The ``/api`` routes."""
    app = APIRouter()

    def token_user(authorization: str | None) -> Any:
        """The user of an ``Authorization: Bearer TOKEN`` header, or the 401 response."""
        try:
            return site.user_from(site.bearer(authorization))
        except AuthError as exc:
            return error_response(401, "UNAUTHORIZED", str(exc))

    # -- JSON API -----------------------------------------------------------------------
    @app.get("/api/games", response_model=list[GameInfo], tags=["boards"])
    def api_games() -> list[GameInfo]:
        """The hosted games."""
        return [
            GameInfo(
                id=g,
                entrants=len(queries.board_rows(site.board, g)),
                queued_jobs=queries.queued(site.board, g),
                rules=site.rules_of(g),
            )
            for g in site.games
        ]

    @app.get(
        "/api/games/{game}/board",
        response_model=list[BoardRow],
        responses=_errors(404),
        tags=["boards"],
    )
    def api_board(game: str) -> Any:
        """A game's board, best first."""
        if game not in site.games:
            return error_response(
                404, "UNKNOWN_GAME", f"no board for {game!r}; boards: {site.games}"
            )
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
                nash_averaging_low=r["nash_low"],
                nash_averaging_high=r["nash_high"],
                alpha_rank=r["alpharank"],
                alpha_rank_low=r["alpharank_low"],
                alpha_rank_high=r["alpharank_high"],
                mean=r["mean"],
                unit=r["unit"],
                exploitability=r["exploitability"],
                exploitability_bound=r["bound"],
                exploitability_method=r["method"],
                games=r["games"],
                status=r["status"],
            )
            for i, r in enumerate(queries.board_rows(site.board, game))
        ]

    # the schema names the games this server has boards for (an unknown game is a 422
    # like any other invalid field; the enum is given as a default's schema because
    # annotations are strings in this module)
    game_field = Form(min_length=1, max_length=64, json_schema_extra={"enum": list(site.games)})

    @app.post(
        "/api/submissions",
        status_code=201,
        response_model=SubmissionInfo,
        responses=_errors(400, 401, 403, 409, 413, 422),
        tags=["submissions"],
    )
    def api_submit(
        request: Request,
        name: Annotated[str, Form(min_length=1, max_length=NAME_MAX)],
        file: Annotated[UploadFile, File()],
        description: Annotated[str, Form(max_length=DESCRIPTION_MAX)] = "",
        authorization: Annotated[str | None, Header()] = None,
        game: str = game_field,
    ) -> Any:
        """Upload an agent (multipart form; header ``Authorization: Bearer TOKEN``)."""
        token = site.bearer(authorization)
        status, result = site.do_submit(token, game, name, description, file)
        if status != 201:
            return JSONResponse(result, status_code=status)
        return JSONResponse(info_of(result, request).model_dump(), status_code=201)

    @app.get(
        "/api/submissions",
        response_model=list[SubmissionInfo],
        responses=_errors(401),
        tags=["submissions"],
    )
    def api_submissions(
        request: Request,
        mine: Annotated[bool, Query()] = False,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Any:
        """Submissions, newest first (at most 500): with ``mine=1`` the token's user's
        (every status), else everyone's (what the public pages show)."""
        from sqlalchemy import select

        query = select(Submission).order_by(Submission.id.desc()).limit(500)
        if mine:
            user = token_user(authorization)
            if isinstance(user, JSONResponse):
                return user
            query = query.where(Submission.user_id == user.id)
        with site.board.session() as session:
            subs = session.scalars(query).all()
        return [info_of(sub, request).model_dump() for sub in subs]

    @app.delete(
        "/api/submissions/{submission_id}",
        response_model=SubmissionInfo,
        responses=_errors(401, 403, 404),
        tags=["submissions"],
    )
    def api_withdraw(
        request: Request,
        submission_id: RowId,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Any:
        """Withdraw one of your submissions: it leaves the board; its stored matches stay."""
        user = token_user(authorization)
        if isinstance(user, JSONResponse):
            return user
        try:
            sub = site.board.withdraw(user, submission_id)
        except AuthError as exc:
            return error_response(403, "NOT_YOURS", str(exc))
        except LeaderboardError as exc:
            return error_response(404, "NO_SUBMISSION", str(exc))
        return info_of(sub, request)

    @app.get(
        "/api/submissions/{submission_id}",
        response_model=SubmissionInfo,
        responses=_errors(404),
        tags=["submissions"],
    )
    def api_submission(request: Request, submission_id: RowId) -> Any:
        """A submission's status, validation log and figures."""
        sub = site.submission_of(submission_id)
        if sub is None:
            return error_response(404, "NO_SUBMISSION", f"no submission {submission_id}")
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

        if site.submission_of(submission_id) is None:
            return error_response(404, "NO_SUBMISSION", f"no submission {submission_id}")
        me = entrant_of(submission_id)
        with site.board.session() as session:
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
        user = token_user(authorization)
        if isinstance(user, JSONResponse):
            return user
        return {"name": user.name, "max_submissions": user.max_submissions}

    return app
