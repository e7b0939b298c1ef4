"""Issue 88, item 3: N-player tables resume from Python (``nashzoo.eval.tables``), the
runner ``nashzoo table`` calls: a journal cut after a kill resumes to the same deals."""

import json

import numpy as np
import pytest

from nashzoo.agents import AgentSpec
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.tables import run_tables

AGENTS = [
    (n, AgentSpec(s, name=n)) for n, s in [("cfr", "cfr+:50"), ("r1", "random"), ("r2", "random")]
]
THREE = {"players": 3}


def test_a_python_table_run_resumes_its_journal_to_the_same_deals(tmp_path):
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    first = run_tables("kuhn_poker", AGENTS, params=THREE, deals=30, out=whole, progress=False,
                       echo=None)  # fmt: skip
    lines = whole.read_text().splitlines()
    assert json.loads(lines[0])["agents"] == ["cfr=cfr+:50", "r1=random", "r2=random"]
    assert len(lines) == 31  # the header and a line per deal
    cut.write_text("\n".join(lines[:11]) + "\n")  # the header and 10 deals survived a kill
    said = []
    again = run_tables("kuhn_poker", AGENTS, params=THREE, deals=30, out=cut, progress=False,
                       echo=said.append)  # fmt: skip
    assert said == [f"resuming: 10 deals already in {cut}"]
    assert cut.read_text() == whole.read_text()
    np.testing.assert_array_equal(again.mean, first.mean)
    # three-player Kuhn is zero-sum deal by deal
    scores = np.array([json.loads(line)["scores"] for line in lines[1:]])
    np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-12)


def test_bad_table_runs_are_refused(tmp_path):
    out = tmp_path / "t.jsonl"
    run_tables("kuhn_poker", AGENTS, params=THREE, deals=3, out=out, progress=False, echo=None)
    with pytest.raises(InvalidParameterError, match="records another table"):
        run_tables("kuhn_poker", AGENTS, params=THREE, deals=4, out=out, echo=None)
    with pytest.raises(InvalidParameterError, match=r"\(name, factory\) pairs"):
        run_tables("kuhn_poker", ["random", "random", "random"], params=THREE)
    with pytest.raises(InvalidParameterError, match="names must be unique"):
        run_tables("kuhn_poker", [AGENTS[1]] * 3, params=THREE)
    with pytest.raises(InvalidParameterError, match="received the spec string 'random'"):
        run_tables("kuhn_poker", [(n, "random") for n in "abc"], params=THREE)
    with pytest.raises(InvalidParameterError, match="deals"):
        run_tables("kuhn_poker", AGENTS, params=THREE, deals=0)
