"""Issue 88, item 2: a game declares its fast paths (``Game.fast_paths``), and the code
that picks an implementation reads the declaration, never the game's class."""

import ast
from pathlib import Path

import pytest

from nashzoo.errors import InvalidParameterError
from nashzoo.games import FastPaths, KuhnPokerGame
from nashzoo.games.fighting import FightingCardGame, fighting_cards_small
from nashzoo.games.poker import limit_holdem, no_limit_holdem
from nashzoo.vector import vector_env

ROOT = Path(__file__).resolve().parents[2]

CHOOSERS = (
    "nashzoo/envs/compiled.py",
    "nashzoo/envs/registration.py",
    "nashzoo/vector/__init__.py",
    "nashzoo/agents/builtins.py",
    "nashzoo/agents/simplex_gradient/experience.py",
    "nashzoo/eval/aivat.py",
    "nashzoo/training.py",
)
"""The modules that choose an implementation for a game."""


class RecordingEnv:
    """A batched env that records how it was built (a game's declared vector_env)."""

    def __init__(self, game, num_envs, *, seed=None):
        self.game, self.num_envs, self.seed = game, num_envs, seed


class DeclaringKuhn(KuhnPokerGame):
    """Kuhn, declaring a batched env and a rule-based agent of its own: the one module a
    fast game touches."""

    fast_paths = FastPaths(vector_env="tests.games.test_fast_paths:RecordingEnv")
    rule_agents = (("always-check", "tests.games.test_fast_paths:AlwaysCheck"),)


class AlwaysCheck:
    """A rule-based agent of Kuhn: always the first legal action (check, or fold)."""

    name = "always-check"

    def __init__(self, game):
        self.game = game

    def reset(self, *, seed=None):
        pass

    def act(self, observation, info):
        return int(observation["action_mask"].argmax())


def test_a_declared_vector_env_is_used_without_any_change_elsewhere():
    env = vector_env(DeclaringKuhn(), 3, seed=5)
    assert isinstance(env, RecordingEnv) and (env.num_envs, env.seed) == (3, 5)
    assert type(vector_env(KuhnPokerGame(), 3)).__name__ == "TreeVectorEnv"


def test_a_declared_rule_agent_is_a_baseline_and_nothing_else_changes():
    from nashzoo.agents.scripted import baselines
    from nashzoo.agents.simplex_gradient.experience import has_bulk_play

    chosen = baselines(DeclaringKuhn())
    assert sorted(chosen) == ["always-check", "random"]
    assert isinstance(chosen["always-check"], AlwaysCheck)
    assert sorted(baselines(KuhnPokerGame())) == ["random"]
    assert sorted(baselines(limit_holdem())) == ["poker-rules", "random"]
    assert sorted(baselines(FightingCardGame())) == ["heuristic", "random"]
    assert has_bulk_play(limit_holdem()) and has_bulk_play(FightingCardGame())
    assert not has_bulk_play(DeclaringKuhn())


def test_the_shipped_games_declare_their_fast_paths():
    assert limit_holdem().fast_paths.lane.endswith(":PokerLane")
    assert no_limit_holdem().fast_paths.vector_env.endswith(":PokerVectorEnv")
    assert KuhnPokerGame().fast_paths == FastPaths()  # the tree serves small games
    default = FightingCardGame()
    assert default.fast_paths.large_vector_env.endswith(":FightingVectorEnv")
    assert type(vector_env(default, 2)).__name__ == "FightingVectorEnv"  # too large
    assert type(vector_env(fighting_cards_small(), 2)).__name__ == "TreeVectorEnv"
    with pytest.raises(InvalidParameterError, match="'package.module:Name'"):
        FastPaths(lane="nashzoo.games.poker.kernel.PokerLane")
    with pytest.raises(InvalidParameterError, match="declares no lane"):
        KuhnPokerGame().fast_paths.load("lane")


def test_the_choosers_never_look_at_a_game_class():
    """The modules that pick an implementation import no game class of the engines."""
    for name in CHOOSERS:
        tree = ast.parse((ROOT / name).read_text())
        imported = [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nashzoo.games.")
            for alias in node.names
        ]
        classes = [n for n in imported if n.endswith("Game") and n != "Game"]
        assert classes == [], (name, classes)


PROBERS = (
    *(name for name in CHOOSERS if name != "nashzoo/training.py"),
    "nashzoo/agents/ismcts/compiled.py",
    "nashzoo/agents/nash_memory/population.py",
    "nashzoo/agents/neural_cfr/base.py",
    "nashzoo/agents/nash_memory/learner.py",
    "nashzoo/cli/exploitability.py",
    "nashzoo/cli/solve.py",
    "nashzoo/eval/blocks.py",
    "nashzoo/leaderboard/scoring.py",
)
"""The modules that choose between a game's tree and its rules."""


def test_whether_a_game_compiles_is_asked_in_one_place():
    """``compiled_or_none`` answers for every chooser (the game's stated size at once,
    else one compile, cached or its refusal remembered); no chooser catches the error."""
    from nashzoo.tree import compile_game, compiled_or_none

    for name in PROBERS:
        assert "except GameTooLargeError" not in (ROOT / name).read_text(), name
    assert compiled_or_none(KuhnPokerGame()) is compile_game(KuhnPokerGame())  # cached
    assert compiled_or_none(FightingCardGame()) is None  # 39,833,421 histories or more
    assert compiled_or_none(KuhnPokerGame(), max_nodes=57) is None  # Kuhn has 58
