"""Shared test helpers."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from nashzoo.games.base import Game, State
from tests.startup.numba_compile import install_on_import as install_numba_compile
from tests.startup.numba_compile import pause_coverage, resume_coverage


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


def play(game: Game, actions: list[int]) -> State:
    """Apply ``actions`` (chance outcomes included) from the root."""
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    return state


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
