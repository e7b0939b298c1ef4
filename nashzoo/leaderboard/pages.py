"""The leaderboard's pages: the boards, rules, submissions with their crosstable, stored
hands step by step, signing in and uploading (server-rendered, no script)."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from nashzoo.errors import (
    AuthError,
    LeaderboardError,
)
from nashzoo.leaderboard import queries
from nashzoo.leaderboard.charts import rating_history_svg
from nashzoo.leaderboard.models import Hand, RatingPoint, Submission, User
from nashzoo.leaderboard.service import entrant_of
from nashzoo.leaderboard.site import COOKIE, RowId, Site, hand_summary

__all__ = ["pages_router"]


def local_path(text: str) -> str:
    """``text`` when it is a path on this site (``/play/3``), else ``""``: a sign-in
    returns only to the site's own pages, never to another host (``//evil``,
    ``https://...``)."""
    ok = (
        isinstance(text, str)
        and text.startswith("/")
        and not text.startswith("//")
        and "\\" not in text
        and all(c.isprintable() and not c.isspace() for c in text)
        and len(text) <= 200
    )
    return text if ok else ""


def pages_router(site: Site) -> APIRouter:
    """The HTML pages' routes."""
    app = APIRouter()

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        summary = [
            {
                "id": g,
                "entrants": len(queries.board_rows(site.board, g)),
                "queued": queries.queued(site.board, g),
            }
            for g in site.games
        ]
        return site.page(request, "index.html", summary=summary)

    @app.get("/games/{game}", response_class=HTMLResponse, include_in_schema=False)
    def board_page(request: Request, game: str, sort: str = "rating") -> HTMLResponse:
        from sqlalchemy import select

        if game not in site.games:
            return site.missing(request, f"There is no board for the game {game!r}.")
        if sort not in queries.SORTS:
            return site.missing(
                request,
                f"A board is sorted by one of {', '.join(queries.SORTS)}, not {sort!r}.",
                400,
            )
        with site.board.session() as session:
            pending = session.scalars(
                select(Submission).where(
                    Submission.game == game, Submission.status.not_in(("ranked", "withdrawn"))
                )
            ).all()
        rows = queries.board_rows(site.board, game, sort)
        unit = rows[0]["unit"] if rows else ""
        return site.page(
            request, "board.html", game=game, rows=rows, unit=unit, pending=pending,
            sort=sort, sorts=queries.SORTS,
            jobs=queries.queue_state(site.board, game), seats=site.board.seats(game),
            payoff=site.board.game(game).payoff_unit,
        )  # fmt: skip

    @app.get("/games/{game}/rules", response_class=HTMLResponse, include_in_schema=False)
    def rules_page(request: Request, game: str) -> HTMLResponse:
        if game not in site.games:
            return site.missing(request, f"There is no board for the game {game!r}.")
        return site.page(request, "rules.html", game=game, rules=site.rules_of(game))

    @app.get("/submissions/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
    def submission_page(request: Request, submission_id: RowId) -> HTMLResponse:
        from sqlalchemy import or_, select

        from nashzoo.eval.ratings import crosstable
        from nashzoo.eval.stats import score_unit

        sub = site.submission_of(submission_id)
        if sub is None:
            return site.missing(request, f"There is no submission {submission_id}.")
        me = entrant_of(sub.id)
        rules = site.board.game(sub.game)
        scale, unit = score_unit(rules)
        with site.board.session() as session:
            owner_row = session.get(User, sub.user_id)
            owner = owner_row.name if owner_row is not None else "?"
            stored = session.scalars(
                select(Hand).where(or_(Hand.a == me, Hand.b == me)).order_by(Hand.id).limit(2000)
            ).all()
            groups: dict[str, list[Hand]] = {}
            for h in stored:  # a few hands of each pairing (people included)
                group = groups.setdefault(h.b if h.a == me else h.a, [])
                if len(group) < 3:
                    group.append(h)
            names = queries.display_names(site.board, session, sub.game, list(groups))
            points = session.execute(
                select(RatingPoint.blocks, RatingPoint.rating, RatingPoint.low, RatingPoint.high)
                .where(RatingPoint.game == sub.game, RatingPoint.entrant == me)
                .order_by(RatingPoint.id.desc())
                .limit(300)
            ).all()
        history = rating_history_svg([tuple(p) for p in reversed(points)])
        hands = sorted(groups.items())
        names.setdefault(me, sub.name)
        results = [
            r for r in site.board.store.results(site.board.tournament(sub.game))
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
        return site.page(
            request, "submission.html", sub=sub, cells=cells, unit=unit, hands=hands,
            owner=owner, identical=details.get("identical_to"), history=history,
            names=names, exact=details.get("exact_scores"),
            note=details.get("exploitability_note"),
            bound=details.get("exploitability_bound"), seats=site.board.seats(sub.game),
            payoff=rules.payoff_unit,
        )  # fmt: skip

    @app.get("/hands/{hand_id}", response_class=HTMLResponse, include_in_schema=False)
    def hand_page(
        request: Request, hand_id: RowId, step: Annotated[int | None, Query(ge=0)] = None
    ) -> HTMLResponse:
        from nashzoo.eval.referee import request_for
        from nashzoo.games.base import CHANCE
        from nashzoo.games.observation import ObservationCache

        with site.board.session() as session:
            hand = session.get(Hand, hand_id)
            names = (
                queries.display_names(site.board, session, hand.game, [hand.a, hand.b])
                if hand
                else {}
            )
        if hand is None or hand.game not in site.games:
            return site.missing(request, f"There is no stored hand {hand_id}.")
        seat0 = hand.seat0
        seat1 = hand.b if seat0 == hand.a else hand.a
        who = {0: names.get(seat0, seat0), 1: names.get(seat1, seat1)}
        record = json.loads(hand.record)
        history = record["history"]
        stated = record.get("probabilities")
        # Agents that run in process state their probabilities; ask them again (they are
        # fixed policies). Stored hands of people carry the agent's as it played.
        policies = {} if stated else {
            p: site.board.stated_policy(hand.game, e) for p, e in ((0, seat0), (1, seat1))
        }  # fmt: skip
        rules = site.board.game(hand.game)
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
        returns = state.returns()
        summary = hand_summary(state, who)
        links = [
            {"name": names.get(e, e), "id": int(e[4:])}
            for e in (hand.a, hand.b)
            if e.startswith("sub:") and e[4:].isdigit()
        ]
        return site.page(
            request, "hand.html", hand=hand, steps=steps, seat0=who[0], seat1=who[1],
            returns=returns, current=current, summary=summary, links=links,
            before=str(rules.new_initial_state()) if current == 0 else None,
            payoff=rules.payoff_unit,
        )  # fmt: skip

    @app.get("/signin", response_class=HTMLResponse, include_in_schema=False)
    def signin_page(request: Request, next: str = "") -> HTMLResponse:
        return site.page(request, "signin.html", next=local_path(next))

    @app.post("/signin", include_in_schema=False)
    def signin_form(
        request: Request, token: Annotated[str, Form()], next: Annotated[str, Form()] = ""
    ) -> Response:
        back = local_path(next)
        try:
            site.user_from(token)
        except AuthError as exc:
            return site.page(request, "signin.html", 401, error=str(exc), next=back)
        # back to the page that asked for a sign-in (a table to play), else the upload page
        target = back or str(request.url_for("upload_page"))
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    @app.post("/signout", include_in_schema=False)
    def signout_form(request: Request) -> Response:
        response = RedirectResponse(request.url_for("index"), status_code=303)
        response.delete_cookie(COOKIE)
        return response

    @app.post("/submissions/{submission_id}/withdraw", include_in_schema=False)
    def withdraw_form(request: Request, submission_id: RowId) -> Response:
        user = site.cookie_user(request)
        if user is None:
            return site.page(request, "signin.html", 401, error="Sign in to withdraw.")
        try:
            site.board.withdraw(user, submission_id)
        except AuthError as exc:
            return site.missing(request, str(exc), 403)
        except LeaderboardError as exc:
            return site.missing(request, str(exc))
        return RedirectResponse(
            request.url_for("submission_page", submission_id=submission_id), status_code=303
        )

    @app.get("/upload", response_class=HTMLResponse, include_in_schema=False)
    def upload_page(request: Request) -> HTMLResponse:
        return site.page(request, "upload.html", sandbox_warning=site.board.sandbox_warning())

    @app.post("/upload", include_in_schema=False)
    def upload_form(
        request: Request,
        game: Annotated[str, Form()],
        name: Annotated[str, Form()],
        file: Annotated[UploadFile, File()],
        description: Annotated[str, Form()] = "",
    ) -> Response:
        status, result = site.do_submit(request.cookies.get(COOKIE), game, name, description, file)
        if status != 201:
            return site.page(
                request, "upload.html", status, error=f"{result['code']}: {result['message']}",
                sandbox_warning=site.board.sandbox_warning(),
            )  # fmt: skip
        return RedirectResponse(
            request.url_for("submission_page", submission_id=result.id), status_code=303
        )

    return app
