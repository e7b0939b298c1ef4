"""What the leaderboard's routers share: the board, the live play tables, the token
cache and the templates, and the helpers every route uses (who the caller is, a page, an
upload)."""

from __future__ import annotations

import inspect
import pathlib
import re
from typing import Annotated, Any

from fastapi import Path, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.templating import Jinja2Templates

from nashzoo.errors import AuthError, InvalidParameterError, SubmissionError
from nashzoo.leaderboard.accounts import VerifiedTokens
from nashzoo.leaderboard.models import Submission, User
from nashzoo.leaderboard.play import PlayRoom
from nashzoo.leaderboard.service import Leaderboard

__all__ = ["Site", "RowId", "COOKIE", "HERE", "error_response", "hand_summary"]

HERE = pathlib.Path(__file__).parent
RowId = Annotated[int, Path(ge=1, le=2**31 - 1)]
"""A database row id (32-bit: every database takes it)."""
COOKIE = "nashzoo_token"


def error_response(status: int, code: str, message: str) -> JSONResponse:
    """The API's error body ``{"code", "message"}`` with ``status``."""
    return JSONResponse({"code": code, "message": message}, status_code=status)


_STOP = re.compile(r"(Information-state|Information state|Actions|Observation|Chance outcomes"
                   r"|Presets|Usage|=====|\.\. list-table|Encodings)")  # fmt: skip


def rules_text(game: Any) -> str:
    """The rules paragraphs of ``game``'s module documentation, markup removed."""
    import sys

    doc = inspect.getdoc(sys.modules.get(type(game).__module__)) or ""
    kept: list[str] = []
    for paragraph in doc.split("\n\n"):
        if kept and _STOP.match(paragraph.strip()):
            break
        kept.append(paragraph)
    text = "\n\n".join(kept) or "No rules text."
    text = re.sub(r"\.\. rubric:: *", "", text)
    text = re.sub(r":\w+:`~?(?:[\w.]*\.)?([^`]+)`", r"\1", text)  # :class:`~a.b.C` -> C
    text = text.replace("``", "")
    return re.sub(r"(?<![\w*])\*(\S|\S[^*\n]*\S)\*(?!\w)", r"\1", text)  # *emphasis*


def fixed(value: float, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals, never ``-0.0`` (a value that rounds to zero is
    printed without a sign)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


class Site:
    """The web app's state: ``board``, the play ``room``, verified tokens, templates."""

    def __init__(self, board: Leaderboard, room: PlayRoom) -> None:
        self.board = board
        self.room = room
        self.verified = VerifiedTokens()
        self.templates = Jinja2Templates(directory=HERE / "templates")
        self.templates.env.filters["fixed"] = fixed
        self.games = list(board.settings.games)

    def user_from(self, token: str | None) -> User:
        """The user of an API token.

        Raises:
            AuthError: no such token.
        """
        with self.board.session() as session:
            return self.verified.authenticate(session, token)

    @staticmethod
    def bearer(authorization: str | None) -> str | None:
        """The token of an ``Authorization: Bearer TOKEN`` header."""
        if authorization and authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return authorization

    def cookie_user(self, request: Request) -> User | None:
        """The signed-in user of a page request, or ``None``."""
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        try:
            return self.user_from(token)
        except AuthError:
            return None

    def rules_of(self, game: str) -> str:
        """A game's rules as a person reads them: the rules paragraphs of its module's
        documentation (up to the encodings for programs), without markup, then this
        board's parameters."""
        rules = self.board.game(game)
        return f"{rules_text(rules)}\n\nThis board plays {rules!r}."

    def submission_of(self, submission_id: int) -> Submission | None:
        """A submission by id, or ``None``."""
        with self.board.session() as session:
            return session.get(Submission, submission_id)

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """Template ``name`` rendered for ``request`` (with the games and the user)."""
        return self.templates.TemplateResponse(
            request,
            name,
            {"games": self.games, "user": self.cookie_user(request), **context},
            status_code=status,
        )

    def missing(self, request: Request, message: str, status: int = 404) -> HTMLResponse:
        """The page that says what was not found (or not understood), with ``status``."""
        title = {403: "Not yours", 404: "Not found", 405: "Not allowed"}.get(status, "Bad request")
        return self.page(request, "missing.html", status, title=title, message=message)

    def do_submit(
        self, token: str | None, game: str, name: str, description: str, upload: UploadFile
    ) -> tuple[int, Any]:
        """An upload through the API or the page: (status, Submission or error dict)."""
        board, games = self.board, self.games
        try:
            user = self.user_from(token)
        except AuthError as exc:
            return 401, {"code": "UNAUTHORIZED", "message": str(exc)}
        if game not in games:
            return 422, {"code": "UNKNOWN_GAME", "message": f"no board for {game!r}; {games}"}
        limit = min(user.max_upload_bytes, board.settings.limits.max_bytes)
        data = upload.file.read(limit + 1)
        if len(data) > limit:
            return 413, {"code": "TOO_LARGE", "message": f"uploads are at most {limit} bytes"}
        try:
            sub = board.submit(user, game, name, upload.filename or "upload", data, description)
        except AuthError as exc:
            return 403, {"code": "LIMIT", "message": str(exc)}
        except SubmissionError as exc:
            status = {"TOO_LARGE": 413, "NAME_TAKEN": 409, "DUPLICATE": 409}.get(exc.code, 400)
            return status, {"code": exc.code, "message": exc.message}
        except InvalidParameterError as exc:
            return 400, {"code": "BAD_PARAMETER", "message": str(exc)}
        return 201, sub


def hand_summary(state: Any, who: dict[int, str]) -> list[dict[str, Any]]:
    """The end of a hand as the replay and play pages show it: per seat, who sat there,
    their own cards (as their information state names them: ``card=Js`` or
    ``hole=Kd6c``) and the chips they won or lost."""
    import re

    returns = state.returns()
    rows = []
    for p in sorted(who):
        found = re.search(r"\b(?:card|hole)=(\S+)", state.information_state_string(p))
        rows.append(
            {"seat": p, "who": who[p], "cards": found.group(1) if found else "-", "won": returns[p]}
        )
    return rows
