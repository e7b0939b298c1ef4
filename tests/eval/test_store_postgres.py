"""The result store on PostgreSQL (runs when NASHZOO_TEST_POSTGRES_URL names a database,
e.g. postgresql+psycopg://user:password@127.0.0.1/dbname; skips otherwise)."""

import os

import pytest

from nashzoo.agents import AgentSpec
from nashzoo.eval.store import ResultStore
from nashzoo.eval.tournament import TournamentConfig, run_tournament

URL = os.environ.get("NASHZOO_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(not URL, reason="set NASHZOO_TEST_POSTGRES_URL to run")


def test_tournament_on_postgresql_resumes_without_duplicates():
    pytest.importorskip("psycopg")
    config = TournamentConfig(
        game="nashzoo/kuhn_poker-v0",
        agents=(("cfr", AgentSpec("cfr+:200")), ("rnd", AgentSpec("random"))),
        deals=300,
        block_size=100,
        seed=11,
    )
    first = run_tournament(config, URL, workers=0, bootstrap=0)
    again = run_tournament(config, URL, workers=2, bootstrap=0)
    assert first.blocks_done == again.blocks_done == 3
    assert len(ResultStore(URL).results(config.id)) == 3
    assert again.crosstable.mean[0, 1] == first.crosstable.mean[0, 1] > 0


def test_concurrent_starts_register_once_on_postgresql():
    pytest.importorskip("psycopg")
    import sqlalchemy as sa

    from tests.eval.test_store import register_concurrently

    store = ResultStore(URL)
    with store.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM tournaments WHERE id = 't1'"))
    assert register_concurrently(URL) == ["False"] * 5 + ["True"]
