"""The helpers of tests/conftest.py that leave parts of the suite untraced under `make
coverage`: they must run every item and process they are given, pause measurement only
where they say, and put the environment back."""

from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import traced_sample, untraced_children, untraced_env

COVERAGE_VARIABLES = ("COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG")


def _measuring() -> bool:
    coverage = sys.modules.get("coverage")
    return coverage is not None and coverage.Coverage.current() is not None


def test_traced_sample_yields_everything_and_traces_every_nth():
    under_coverage = _measuring()
    seen, traced = [], []
    for item in traced_sample(range(23), every=5):
        seen.append(item)
        traced.append(_measuring())
    assert seen == list(range(23))
    if under_coverage:  # `make coverage`: measured for items 0, 5, 10, 15, 20 only
        assert [k for k, t in enumerate(traced) if t] == [0, 5, 10, 15, 20]
    else:
        assert not any(traced)
    assert _measuring() == under_coverage  # and measuring again after the loop


def test_untraced_env_drops_only_coverage_variables(monkeypatch):
    monkeypatch.setenv("COVERAGE_PROCESS_START", "/somewhere/pyproject.toml")
    monkeypatch.setenv("COVERAGE_PROCESS_CONFIG", "{}")
    monkeypatch.setenv("NASHZOO_SOMETHING", "kept")
    env = untraced_env()
    assert not any(name in env for name in COVERAGE_VARIABLES)
    assert env["NASHZOO_SOMETHING"] == "kept" and env["PATH"] == os.environ["PATH"]
    assert os.environ["COVERAGE_PROCESS_START"] == "/somewhere/pyproject.toml"  # a copy
    given = {"COVERAGE_PROCESS_CONFIG": "{}", "PYTHONPATH": "/x"}
    assert untraced_env(given) == {"PYTHONPATH": "/x"} and "COVERAGE_PROCESS_CONFIG" in given


def test_untraced_children_restores_the_environment_even_after_an_error(monkeypatch):
    monkeypatch.setenv("COVERAGE_PROCESS_START", "/somewhere/pyproject.toml")
    monkeypatch.delenv("COVERAGE_PROCESS_CONFIG", raising=False)
    with pytest.raises(RuntimeError), untraced_children():
        assert not any(name in os.environ for name in COVERAGE_VARIABLES)
        raise RuntimeError("a child failed")
    assert os.environ["COVERAGE_PROCESS_START"] == "/somewhere/pyproject.toml"
    assert "COVERAGE_PROCESS_CONFIG" not in os.environ
