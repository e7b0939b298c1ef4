"""schemathesis against the API's OpenAPI schema, in process: no 500s, no undocumented
status codes or bodies. On SQLite, and on PostgreSQL where ``.ci/postgres.sh`` gave one
(``NASHZOO_TEST_POSTGRES_URL``)."""

from __future__ import annotations

import os

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from nashzoo.leaderboard.accounts import add_user
from nashzoo.leaderboard.app import create_app

from .conftest import make_board


def _database(kind: str, tmp_path) -> str:
    if kind == "sqlite":
        return str(tmp_path / "lb.db")
    url = os.environ.get("NASHZOO_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("no PostgreSQL (set NASHZOO_TEST_POSTGRES_URL; .ci/run starts one)")
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:  # a clean schema for this test
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    return url


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_api_honours_its_schema(kind, tmp_path, cfr_policy_file):
    board = make_board(tmp_path, database=_database(kind, tmp_path))
    with board.session() as session:
        user, token = add_user(session, "alice", max_submissions=1000)
    board.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
    board.work("w")
    app = create_app(board)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures = []
    count = 0
    for operation in schema.get_all_operations():
        op = operation.ok()

        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def run(case):
            nonlocal count
            count += 1
            if case.headers and "authorization" in {k.lower() for k in case.headers}:
                case.headers["Authorization"] = f"Bearer {token}"
            response = case.call()
            # an upload's contents are not in the schema: a schema-valid random file is
            # refused with 400 (EMPTY, BAD_POLICY, ...), which is not a rejected valid input
            excluded = [positive_data_acceptance] if case.operation.method.lower() == "post" else []
            try:
                case.validate_response(response, excluded_checks=excluded)
            except Exception as exc:  # collect every failure, report them together
                failures.append(f"{case.operation.label}: {response.status_code}: {exc}"[:600])

        run()
    assert count >= 50
    assert not failures, "\n".join(failures[:5])
