"""Shared test helpers."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import settings

from nashzoo.games.base import Game, State
from tests.startup.numba_compile import install_on_import as install_numba_compile
from tests.startup.numba_compile import pause_coverage, resume_coverage

T = TypeVar("T")


@contextlib.contextmanager
def coverage_paused() -> Iterator[None]:
    """Pause coverage measurement in this process inside the block.

    For statistical validations whose learning and rollout loops run 3-5x slower when
    traced (tests/eval/test_lbr.py's ranking test: 55 s plain, 230-310 s traced), whose
    lines a short traced call beside them, or the unit tests, cover. Outside `coverage
    run` it does nothing."""
    paused = pause_coverage()
    try:
        yield
    finally:
        resume_coverage(paused)


# What `coverage run` (patch = ["subprocess"] in pyproject.toml) puts in the environment so
# that the Python processes started from this one are measured too.
_COVERAGE_ENV = ("COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG")


def untraced_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """A copy of ``env`` (default ``os.environ``) whose Python processes coverage does not
    measure.

    For the end-to-end runs, the demo and the README's commands, which exercise as a user
    would what the unit tests cover line by line; traced they took twice as long (on
    2026-11-30, 2 cores: the demo 244 s traced, 125 s plain, the README 182 s and 116 s).
    Outside `coverage run` it is a plain copy."""
    env = dict(os.environ if env is None else env)
    for name in _COVERAGE_ENV:
        env.pop(name, None)
    return env


@contextlib.contextmanager
def untraced_children() -> Iterator[None]:
    """The processes started inside the block (a Ray cluster's raylet, workers and
    helpers, which inherit this environment) run untraced; this process is still
    measured. Ray's own Python processes dominated the Ray tests' time under the tracer
    (the Ray tournament test: 143 s traced, 33 s plain)."""
    saved = {name: os.environ.pop(name) for name in _COVERAGE_ENV if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


def traced_sample(items: Iterable[T], every: int) -> Iterator[T]:
    """Yield ``items``, coverage measuring the loop body for the first and every
    ``every``-th after it, paused for the others: for an exhaustive check whose items all
    run the same lines (the hidden worlds of every information set of a game: 59 s
    traced, 10 s plain)."""
    for k, item in enumerate(items):
        if k % every == 0:
            yield item
        else:
            with coverage_paused():
                yield item


@pytest.fixture
def untraced():
    """:func:`coverage_paused` for the test's whole body."""
    with coverage_paused():
        yield


@dataclass
class TreeCounts:
    histories: int = 0
    terminals: int = 0
    infosets: tuple[set, ...] = ()


def count_tree(game: Game) -> TreeCounts:
    """Count histories, terminal histories and information sets by full enumeration,
    walking the rules API directly (independent of nashzoo.tree)."""
    counts = TreeCounts(infosets=tuple(set() for _ in range(game.num_players)))
    stack: list[State] = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        counts.histories += 1
        if state.is_terminal():
            counts.terminals += 1
            continue
        player = state.current_player()
        if player >= 0:
            counts.infosets[player].add(state.information_state_string(player))
        for action in state.legal_actions():
            stack.append(state.child(action))
    return counts


ROOT = Path(__file__).resolve().parents[1]


def run_cli(
    args: list[str],
    cwd: Path,
    *,
    log: Path | None = None,
    pythonpath: list[str] | tuple[str, ...] = (),
) -> str:
    """Run ``python -m nashzoo ARGS`` in a fresh process (stdout and stderr to ``log`` when
    given, as a nohup or CI run writes them) and return what it printed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*pythonpath, str(ROOT)])}
    command = [sys.executable, "-m", "nashzoo", *args]
    if log is None:
        return subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, check=True
        ).stdout
    with log.open("w") as handle:
        subprocess.run(command, cwd=cwd, env=env, stdout=handle, stderr=handle, check=True)
    return log.read_text()


def walk_to_decision(game: Game, rng: Any, most_actions: int) -> State | None:
    """A random poker decision: the deal, then up to ``most_actions - 1`` random actions
    other than a fold (0), each followed by the cards it waits for; ``None`` where the
    hand ended on the way."""
    state = game.new_initial_state()
    state.advance_chance(rng.random)
    for _ in range(int(rng.integers(0, most_actions))):
        state.apply_action(int(rng.choice([a for a in state.legal_actions() if a != 0])))
        state.advance_chance(rng.random)
        if state.is_terminal():
            return None
    return state


def play(game: Game, actions: list[int]) -> State:
    """Apply ``actions`` (chance outcomes included) from the root."""
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    return state


class TickingClock:
    """A stand-in for the ``time`` module whose ``perf_counter`` moves 10 ms per reading,
    so where a time budget stops is exact on any machine, however busy."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.01
        return self.now


@pytest.fixture
def ticking_clock(monkeypatch: pytest.MonkeyPatch):
    """``install(module)`` gives ``module`` a :class:`TickingClock` as its ``time``."""

    def install(module: object) -> TickingClock:
        clock = TickingClock()
        monkeypatch.setattr(module, "time", clock)
        return clock

    return install


# Property tests are derandomized by default, so a failure in CI reproduces exactly with
# the same command; HYPOTHESIS_PROFILE=explore draws fresh examples on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    # One torch thread on the 2-core CI machine (two threads made SB3 25x slower there).
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)
    # numba compiles untraced and in a roomy frame (tests/startup/numba_compile.py)
    install_numba_compile()
    # SB3's learn() makes an empty tempdir/SB3-<date> folder per call unless told where
    # to log: the tests' SB3 models all log (nothing) into one folder, removed at the end
    if "SB3_LOGDIR" not in os.environ:
        os.environ["SB3_LOGDIR"] = config._nashzoo_sb3_logdir = tempfile.mkdtemp(
            prefix="nashzoo-tests-sb3-"
        )


def pytest_unconfigure(config):
    folder = getattr(config, "_nashzoo_sb3_logdir", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop("SB3_LOGDIR", None)
