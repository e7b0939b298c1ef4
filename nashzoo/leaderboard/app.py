"""The leaderboard's web app: a JSON API (OpenAPI at ``/docs``) and server-rendered pages.

``create_app(leaderboard)`` returns the FastAPI app; ``nashzoo serve`` runs it with
uvicorn beside its match workers. Its routes are three routers:
:mod:`~nashzoo.leaderboard.api`, :mod:`~nashzoo.leaderboard.pages` and
:mod:`~nashzoo.leaderboard.play_pages`, sharing a :class:`~nashzoo.leaderboard.site.Site`;
the read queries are in :mod:`~nashzoo.leaderboard.queries`. Pages are Jinja2 templates
with autoescaping (every name and description is escaped) under a
Content-Security-Policy that allows no script at all: the pages need none.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from nashzoo.leaderboard.api import api_router
from nashzoo.leaderboard.pages import pages_router
from nashzoo.leaderboard.play import PlayRoom
from nashzoo.leaderboard.play_pages import play_router
from nashzoo.leaderboard.service import Leaderboard
from nashzoo.leaderboard.site import HERE, Site, error_response

__all__ = ["create_app", "cross_site_form_post"]


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
        docs_url=None,  # served below from the package's own Swagger UI files
        redoc_url=None,
        title="nashzoo leaderboard",
        version="1",
        description="Submit agents for imperfect-information games; the server validates "
        "them, plays duplicate matches in a sandbox and ranks them.",
    )
    app.state.play_room = room
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    _offline_docs(app)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        if cross_site_form_post(request):
            return error_response(
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

    site = Site(board, room)
    for router in (api_router(site), pages_router(site), play_router(site)):
        app.include_router(router)

    # one error shape: {"code", "message"} for the API, a page for the pages; FastAPI's
    # own bodies (and their echo of the input) never reach a client
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
        message = {
            404: f"nothing at {request.url.path}",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(exc.status_code, str(exc.detail))
        if request.url.path.startswith("/api/"):
            return error_response(exc.status_code, code, message)
        return site.missing(request, message[:300], exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        message = validation_message(exc)
        if request.url.path.startswith("/api/"):
            return error_response(422, "BAD_REQUEST", message)
        return site.missing(request, message, 422)

    return app


def _offline_docs(app: FastAPI) -> None:
    """``/docs`` from Swagger UI's files shipped with the ``swagger-ui-bundle-v2`` package
    (FastAPI's default loads them from a CDN: a blank page without internet), and the API
    token declared as a bearer security scheme, so the page has an Authorize button."""
    from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
    from fastapi.openapi.utils import get_openapi
    from swagger_ui_bundle import swagger_ui_path

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title}: API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon-32x32.png",
            oauth2_redirect_url="/docs/oauth2-redirect",
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def oauth2_redirect() -> Response:
        return get_swagger_ui_oauth2_redirect_html()

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description,
                routes=app.routes,
            )  # fmt: skip
            schema.setdefault("components", {})["securitySchemes"] = {
                "token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "your API token, nz_<id>_<43 characters> "
                    "(nashzoo leaderboard add-user prints it)",
                }
            }
            for path in schema.get("paths", {}).values():
                for method, operation in path.items():
                    names = {p.get("name", "").lower() for p in operation.get("parameters", [])}
                    if "authorization" in names:
                        # reads take a token only for mine=1: optional ({} = none)
                        optional: list[dict[str, list[str]]] = [{}] if method == "get" else []
                        operation["security"] = [{"token": []}, *optional]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def validation_message(exc: RequestValidationError) -> str:
    """What was wrong with a request, by field and reason, without the input itself
    (at most 300 characters)."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(x) for x in error.get("loc", ()) if x != "body")
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)[:300] or "the request is not valid"
