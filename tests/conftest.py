"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from nashzoo.games.base import Game, State


def _pause_coverage() -> list:
    """Stop every coverage measurement running in this process; returns them for
    ``_resume_coverage``. Outside `coverage run` it does nothing."""
    try:
        import coverage
    except ImportError:
        return []
    paused = []  # `coverage run` with COVERAGE_PROCESS_START starts two in the main process
    while (current := coverage.Coverage.current()) is not None:
        current.stop()
        paused.append(current)
    return paused


def _resume_coverage(paused: list) -> None:
    for instance in reversed(paused):
        # its import check, already done at the first start, trips on torch.ops
        instance._warn_preimported_source = False
        instance.start()


@pytest.fixture
def untraced():
    """Pause coverage measurement in this process for the test's body.

    For the statistical validations whose learning and rollout loops run 4-5x slower when
    traced (tests/eval/test_lbr.py's ranking test: 55 s plain, 230-310 s traced) and whose
    lines the unit tests beside them cover. Outside `coverage run` it does nothing."""
    paused = _pause_coverage()
    try:
        yield
    finally:
        _resume_coverage(paused)


def _compile_numba_quickly() -> None:
    """Numba's compiler is Python code, and a cold cache in CI made it 3-4x slower there
    than in a script (the first MT-ISMCTS test: 125 s in the suite, 35 s alone, on
    2026-11-29). Two causes, both removed here for every compile in a test process:

    - coverage's tracer: it is paused during a compile. Nothing of nashzoo's runs as
      Python then, and a kernel's lines are never traced once compiled, so no measured
      line is lost.
    - CPython 3.11 and 3.12 free a chunk of the frame stack as soon as the frames in it
      return (python/cpython#142183; 3.13 and 3.14 got a one-chunk cache in 2026);
      deep in pytest, the compiler's calls kept crossing a chunk boundary, and strace
      counted 10 million 16 KiB mmap/munmap pairs in one compile. The compile runs
      from a frame that reserves 1 MiB, so that the frame and the compiler's calls
      beneath it share one fresh 2 MiB chunk.
    """
    import threading

    from numba.core.dispatcher import Dispatcher

    compile_ = Dispatcher.compile
    inside = threading.local()

    def roomy(f, *args):
        return f(*args)

    roomy.__code__ = roomy.__code__.replace(co_stacksize=1 << 17)

    def compile(self, sig):
        if getattr(inside, "compiling", False):
            return compile_(self, sig)
        inside.compiling = True
        paused = _pause_coverage()
        try:
            return roomy(compile_, self, sig)
        finally:
            _resume_coverage(paused)
            inside.compiling = False

    Dispatcher.compile = compile


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
    _compile_numba_quickly()
