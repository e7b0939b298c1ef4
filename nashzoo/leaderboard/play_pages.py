"""Playing against a ranked agent in the browser: one live duplicate table per person and
agent (:class:`~nashzoo.leaderboard.play.PlayRoom`), moves posted as forms."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from nashzoo.errors import (
    IllegalActionError,
    NashzooError,
)
from nashzoo.leaderboard.play import Table
from nashzoo.leaderboard.site import RowId, Site, hand_summary

__all__ = ["play_router"]


def play_router(site: Site) -> APIRouter:
    """The ``/play`` routes."""
    app = APIRouter()

    # -- playing against a ranked agent -------------------------------------------------
    def play_view(
        request: Request, table: Table | None, submission_id: int, **extra: Any
    ) -> HTMLResponse:
        if table is None:
            sub = site.submission_of(submission_id)
            return site.page(
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
        summary = hand_summary(session.state, labels) if over else None
        return site.page(
            request, "play.html", extra.pop("status", 200), table=table, sub=None,
            seat=seat, over=over, moves=moves,
            view=None if over else session.view()[1]["info_state"],
            legal=session.legal_actions(), pot=None if over else session.pot(),
            showdown=str(session.state) if over else None,
            last=last, last_id=table.hand_ids.get(last.hand) if last else None, summary=summary,
            score=session.score(), payoff=session.game.payoff_unit, finished=[
                {"hand": r.hand, "id": table.hand_ids.get(r.hand), "won": r.person_return,
                 "seat": r.seat, "forfeit": r.forfeit}
                for r in reversed(session.finished[-20:])
            ], **extra,
        )  # fmt: skip

    @app.get("/play/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
    def play_page(request: Request, submission_id: RowId) -> Response:
        user = site.cookie_user(request)
        if user is None:
            return site.page(
                request, "signin.html", 401, error="Sign in to play against an agent.",
                next=f"/play/{submission_id}",
            )  # fmt: skip
        table = site.room.table(user, submission_id)
        closed = site.room.closed_reason(user, submission_id) if table is None else None
        return play_view(request, table, submission_id, closed=closed)

    def play_action(request: Request, submission_id: int, do: Any) -> Response:
        user = site.cookie_user(request)
        if user is None:
            return site.page(
                request, "signin.html", 401, error="Sign in to play against an agent.",
                next=f"/play/{submission_id}",
            )  # fmt: skip
        table = site.room.table(user, submission_id)
        if table is None and do is not None:  # a move or "next hand" for a closed table
            reason = site.room.closed_reason(user, submission_id)
            return play_view(
                request, None, submission_id, status=409,
                error="Your table was closed"
                + (f" because {reason}" if reason else " (the server restarted, or you stopped it)")
                + "; that move was not played. Start again: your finished hands are stored and "
                "the game resumes at its next hand.",
            )  # fmt: skip
        try:
            if table is None or do is None:
                site.room.open(user, submission_id)
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
        return play_action(request, submission_id, lambda u, t: site.room.act(u, t, action))

    @app.post("/play/{submission_id}/next", include_in_schema=False)
    def play_next(request: Request, submission_id: RowId) -> Response:
        return play_action(request, submission_id, site.room.next_hand)

    @app.post("/play/{submission_id}/stop", include_in_schema=False)
    def play_stop(request: Request, submission_id: RowId) -> Response:
        user = site.cookie_user(request)
        if user is not None:
            site.room.close(user.id, submission_id)
        return RedirectResponse(
            request.url_for("submission_page", submission_id=submission_id), status_code=303
        )

    return app
