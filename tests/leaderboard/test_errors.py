"""Errors as a user meets them (issue 37 section 3): every route answers a missing id, a
bad id and a bad query without a 500; the API has one error shape; pages say what is
missing; upload errors never show server paths or advise loading pickles; the schema
states the limits the service enforces."""

from __future__ import annotations

import io
import re

import numpy as np
from fastapi.testclient import TestClient

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app


def _routes(routes):
    """Every route, included routers opened (FastAPI wraps them)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def _client(board):
    return TestClient(create_app(board), raise_server_exceptions=False)


def test_every_route_answers_missing_and_bad_ids_and_queries_without_a_500(board):
    app = create_app(board)
    client = TestClient(app, raise_server_exceptions=False)
    checked = 0
    for route in _routes(app.routes):
        path = getattr(route, "path", "")
        methods = getattr(route, "methods", set()) or set()
        if "GET" not in methods or path.startswith(("/docs", "/redoc", "/openapi", "/static")):
            continue
        for fill in ("99999", "abc", "-1", "x" * 300):
            url = re.sub(r"\{[^}]+\}", fill, path)
            for query in ("", "?step=0", "?step=-3", "?step=abc", "?game=nogame&mine=maybe"):
                r = client.get(url + query)
                assert r.status_code < 500, (url + query, r.status_code, r.text[:200])
                if r.status_code >= 400 and url.startswith("/api/"):
                    body = r.json()
                    assert set(body) == {"code", "message"}, (url, body)
                    assert len(body["message"]) <= 300 + 64
                checked += 1
    assert checked > 100
    # pages: a person reads what is missing, with links back
    r = client.get("/submissions/99999")
    assert r.status_code == 404 and "There is no submission 99999." in r.text
    assert "All boards</a>" in r.text
    r = client.get("/hands/99999?step=0")
    assert r.status_code == 404 and "There is no stored hand 99999." in r.text
    r = client.get("/games/chess")
    assert r.status_code == 404 and "no board for the game &#39;chess&#39;" in r.text
    r = client.get("/nowhere")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
    r = client.get("/api/nowhere")
    assert r.status_code == 404 and r.json() == {
        "code": "NOT_FOUND",
        "message": "nothing at /api/nowhere",
    }


def test_api_validation_errors_have_the_app_shape_and_never_echo_the_input(board):
    client = _client(board)
    with board.session() as session:
        _, token = add_user(session, "alice")
    long_name = "N" * 4000
    r = client.post(
        "/api/submissions",
        data={"game": "leduc_holdem", "name": long_name},
        files={"file": ("p.npz", b"x")},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 422
    body = r.json()
    assert set(body) == {"code", "message"} and body["code"] == "BAD_REQUEST"
    assert "name" in body["message"] and long_name[:100] not in r.text


def test_upload_errors_name_the_upload_not_the_server_path(board):
    client = _client(board)
    with board.session() as session:
        _, token = add_user(session, "bob")
    buffer = io.BytesIO()
    np.savez(buffer, probs=np.array([{"a": 1}], dtype=object))  # a pickled object array
    r = client.post(
        "/api/submissions",
        data={"game": "leduc_holdem", "name": "pickled"},
        files={"file": ("mine.npz", buffer.getvalue())},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["code"] == "BAD_POLICY"
    assert "'mine.npz'" in body["message"]
    assert "/tmp" not in body["message"] and "allow_pickle" not in body["message"]
    r = client.post(
        "/api/submissions",
        data={"game": "leduc_holdem", "name": "junk"},
        files={"file": ("junk.npz", b"PK\x03\x04 not a zip at all")},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 400 and "/tmp" not in r.json()["message"], r.text


def test_the_schema_states_the_limits_the_service_enforces(board):
    schema = _client(board).get("/openapi.json").json()
    form = next(
        v
        for k, v in schema["components"]["schemas"].items()
        if "submissions" in k.lower() and "properties" in v
    )
    assert form["properties"]["name"]["maxLength"] == 64
    assert form["properties"]["description"]["maxLength"] == 2000


def test_docs_are_served_offline_with_an_authorize_button(board):
    client = _client(board)
    page = client.get("/docs")
    assert page.status_code == 200
    assert "cdn.jsdelivr.net" not in page.text and "unpkg.com" not in page.text
    for asset in re.findall(r'(?:src|href)="(/docs-assets/[^"]+)"', page.text):
        r = client.get(asset)
        assert r.status_code == 200 and len(r.content) > 500, asset
    assert "/docs-assets/swagger-ui-bundle.js" in page.text
    schema = client.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
    secured = [
        op for path in schema["paths"].values() for op in path.values() if op.get("security")
    ]
    assert len(secured) >= 3  # upload, withdraw, mine=1 listing (the token's routes)


def test_the_rules_page_explains_the_rules(board):
    page = _client(board).get("/games/leduc_holdem/rules").text
    assert "Args:" not in page and "Raises:" not in page and "``" not in page
    assert "antes" in page and "showdown" in page
    assert "This board plays LeducHoldemGame(" in page
