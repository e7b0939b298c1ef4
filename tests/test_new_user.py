"""What a new user trips on (issue 86): ids that resolve in a fresh interpreter, errors
that say what was expected, and the names a user looks for."""

from __future__ import annotations

import pytest

import nashzoo
from nashzoo.errors import InvalidParameterError


@pytest.mark.parametrize("players", [1, 7, 10])
def test_limit_holdem_states_the_players_it_takes(players):
    """Issue 86, item 3: players=7 said "must be 3 to 6", yet 2 is accepted."""
    with pytest.raises(InvalidParameterError, match=f"must be 2 to 6, received {players}"):
        nashzoo.make("nashzoo/limit_holdem-v0", players=players)


def test_the_local_best_response_is_exported_beside_exploitability():
    import nashzoo.eval
    from nashzoo.eval.lbr import local_best_response

    assert nashzoo.eval.local_best_response is local_best_response
    assert "local_best_response" in nashzoo.eval.__all__


def test_the_leaderboard_commands_start_quietly(tmp_path):
    """Issue 86, item 10: `serve`, `leaderboard add-user` and `queue` printed seven
    `setup plugin alembic...` lines (alembic sets up its plugins on import, before the
    logger was quietened)."""
    import subprocess
    import sys

    pytest.importorskip("alembic")
    base = ["--db", str(tmp_path / "lb.db"), "--data", str(tmp_path / "data")]
    for argv in (["leaderboard", "add-user", "ann", *base], ["leaderboard", "queue", *base]):
        done = subprocess.run(
            [sys.executable, "-m", "nashzoo", *argv], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert "alembic" not in done.stdout + done.stderr
        assert "setup plugin" not in done.stdout + done.stderr


def test_two_agents_of_one_name_print_apart():
    """Issue 86, item 7: play_table printed two agents both named `random` as two
    identical lines; `nashzoo table` took two `--agent random=...`."""
    from nashzoo.eval import play_table

    game = nashzoo.games.KuhnPokerGame(players=3)
    agents = [nashzoo.RandomAgent(seed=k) for k in range(3)]
    result = play_table(game, agents, deals=5, bootstrap=0)
    assert result.names == ("random", "random#2", "random#3")


def test_the_cli_refuses_an_agent_name_given_twice(capsys):
    from nashzoo.cli import main

    argv = ["table", "--game", "kuhn_poker", "--param", "players=3", "--agent", "r=random",
            "--agent", "r=random", "--agent", "s=random", "--deals", "2"]  # fmt: skip
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["nashzoo: error: --agent names must be unique: 'r' is given twice "
                   "(r=random, r=random, s=random)"]  # fmt: skip
