"""`nashzoo play` in a real terminal: tmux runs the command, a script types the answers.

The same hand is replayed through :class:`~nashzoo.eval.session.DuplicateSession` with the
same seed and answers; the chips the terminal reports must be that hand's result.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from nashzoo.agents.specs import build_agent
from nashzoo.envs.registration import make_game
from nashzoo.eval.session import DuplicateSession
from tests.conftest import ROOT

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="no tmux (apt-get install tmux)")


def _tmux(*args: str) -> str:
    return subprocess.run(
        [TMUX, *args], check=True, capture_output=True, text=True, timeout=30
    ).stdout


def _screen(name: str) -> str:
    return _tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", name)


def _wait_for(name: str, text: str, count: int, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = _screen(name)
        if screen.count(text) >= count:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} did not appear {count} times; the terminal shows:\n{screen}")


def test_a_person_plays_a_hand_in_the_terminal(tmp_path):
    name = f"nashzoo-play-{uuid.uuid4().hex[:8]}"
    env = f"PYTHONPATH={ROOT}"
    command = (
        f"env {env} {sys.executable} -m nashzoo play leduc_holdem --against cfr+:50 "
        "--hands 1 --seed 5; echo EXITED $?; sleep 30"
    )
    _tmux("new-session", "-d", "-s", name, "-x", "200", "-y", "50", command)
    try:
        answers = 0
        screen = _wait_for(name, "(or quit) >", 1)
        while "hand over" not in screen:
            # Always answer by name; "call" (check) is legal at every decision of Leduc.
            _tmux("send-keys", "-t", name, "call", "Enter")
            answers += 1
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                screen = _screen(name)
                if screen.count("(or quit) >") > answers or "hand over" in screen:
                    break
                time.sleep(0.1)
            assert answers < 10, screen
        screen = _wait_for(name, "EXITED", 1)
    finally:
        subprocess.run([TMUX, "kill-session", "-t", name], capture_output=True, timeout=30)
    assert "EXITED 0" in screen, screen
    assert "you see: player=0 card=" in screen  # the person is seat 0 in hand 1

    game = make_game("leduc_holdem")
    session = DuplicateSession(game, build_agent("cfr+:50", game), seed=5)
    calls = 0
    while not session.hand_over:
        session.apply(1)
        calls += 1
    won = session.finished[0].person_return
    assert calls == answers
    verb = "won" if won >= 0 else "lost"
    chips = f"{abs(won):g} chip{'s' * (abs(won) != 1)}"
    assert f"you {verb} {chips};" in screen, screen
    assert f"hand over: {session.state}" in screen
    assert "Final score against cfr+:50:" in screen


@pytest.mark.skipif(os.name != "posix", reason="POSIX terminal")
def test_play_refuses_bad_arguments(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "nashzoo", "play", "leduc_holdem", "--against", "nope:3"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert result.returncode == 2
    assert "nope" in result.stderr
