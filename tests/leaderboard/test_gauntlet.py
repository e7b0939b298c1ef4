"""The best NFSP checkpoint in a game's gauntlet: `train nfsp --keep-best` keeps the
checkpoint of lowest exact exploitability, and the board ranks it with that figure."""

from __future__ import annotations

import re

import pytest

from nashzoo.cli import main

from .conftest import make_board

torch = pytest.importorskip("torch")


def test_keep_best_checkpoint_in_a_game_gauntlet(tmp_path, capsys):
    from fastapi.testclient import TestClient

    from nashzoo.agents.specs import build_agent
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.leaderboard.app import create_app
    from nashzoo.tree.policy import TabularPolicy

    torch.set_num_threads(1)
    best = tmp_path / "kuhn-nfsp.pt"
    args = ["train", "nfsp", "kuhn_poker", "--minutes", "0.1", "--eval-every", "1"]
    assert main([*args, "--keep-best", "--out", str(best), "--quiet", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    seen = [float(x) for x in re.findall(r"episodes  exploitability (\d+\.\d+)", out)]
    assert len(seen) >= 3, out
    board = make_board(
        tmp_path,
        games=("kuhn_poker",),
        game_gauntlet={"kuhn_poker": {"nfsp": str(best)}},
        deals_per_block=50,
    )
    game = board.game("kuhn_poker")
    saved = exploitability(build_agent(str(best), game), game).exploitability
    # The file is the best checkpoint seen, not the last (printed to 4 decimals).
    assert saved == pytest.approx(min(seen), abs=6e-5)
    # And it learned: at least 0.1 chips below the uniform policy (0.4583 in Kuhn).
    uniform = exploitability(TabularPolicy.uniform(game)).exploitability
    assert saved < uniform - 0.1, (saved, uniform)
    board.work("w")
    rows = {r["entrant"]: r for r in TestClient(create_app(board)).get(
        "/api/games/kuhn_poker/board").json()}  # fmt: skip
    assert set(rows) == {"gauntlet:random", "gauntlet:cfr+", "gauntlet:nfsp"}
    # the same computation on the same saved file, in this process: equal to rounding
    assert rows["gauntlet:nfsp"]["exploitability"] == pytest.approx(saved, abs=1e-12)
    assert rows["gauntlet:nfsp"]["games"] > 0


def test_a_nash_memory_file_in_a_gauntlet_is_ranked_with_its_mixtures_exploitability(tmp_path):
    """A Nash memory file plays a mixture (one member drawn per game) and states no
    probabilities of its own; the board ranks it with the exact exploitability of the
    mixture, the figure the learner computes from its members, not with "states no
    action probabilities"."""
    from fastapi.testclient import TestClient

    from nashzoo.agents.nash_memory.learner import NashMemoryConfig, NashMemoryLearner
    from nashzoo.games import KuhnPokerGame
    from nashzoo.leaderboard.app import create_app

    learner = NashMemoryLearner(KuhnPokerGame(), NashMemoryConfig(seed=3)).train(steps=3)
    expected = learner.exploitability()
    assert expected > 0.01  # three iterations: not yet an equilibrium
    path = learner.save(tmp_path / "nm.pt")
    board = make_board(
        tmp_path,
        games=("kuhn_poker",),
        game_gauntlet={"kuhn_poker": {"nm": str(path)}},
        deals_per_block=50,
    )
    board.work("w")
    rows = {r["entrant"]: r for r in TestClient(create_app(board)).get(
        "/api/games/kuhn_poker/board").json()}  # fmt: skip
    assert rows["gauntlet:nm"]["exploitability"] == pytest.approx(expected, abs=1e-12)
    assert rows["gauntlet:nm"]["games"] > 0


def test_a_gauntlet_for_a_game_without_a_board_is_refused(tmp_path):
    from nashzoo.errors import LeaderboardError

    with pytest.raises(LeaderboardError, match="no board here"):
        make_board(tmp_path, game_gauntlet={"kuhn_poker": {"nfsp": "x.pt"}})


def test_a_registered_game_of_three_players_gets_a_board_of_tables(tmp_path):
    """A registered id whose game has three seats is hosted as a board of tables (the
    test of those boards is tests/leaderboard/test_tables.py); its gauntlet must fill
    a table's other seats, or the service refuses to start and says why."""
    from nashzoo.envs.registration import EnvSpec, register, registry
    from nashzoo.errors import LeaderboardError
    from nashzoo.games import KuhnPokerGame

    register(EnvSpec("test/kuhn3-v0", KuhnPokerGame, "nashzoo.envs.kuhn_poker", False,
                     {"players": 3}))  # fmt: skip
    try:
        board = make_board(tmp_path, games=("test/kuhn3-v0",))
        assert board.seats("test/kuhn3-v0") == 3
        with pytest.raises(LeaderboardError, match="the gauntlet has 1"):
            make_board(tmp_path, games=("test/kuhn3-v0",), gauntlet={"random": "random"})
    finally:
        registry.pop("test/kuhn3-v0")
