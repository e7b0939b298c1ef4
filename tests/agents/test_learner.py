"""One learner interface (issue 30, item 1): every built-in learner implements the
Learner protocol, the registry names them (plugins too), `nashzoo train` is one function
whose options come from each learner's config, and a saved learner resumes.

Reference: the uniform policy's exploitability in Kuhn poker is 11/24 = 0.458 chips
(Kuhn 1950); CFR+ reaches below 0.01 in a few hundred iterations.
"""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nashzoo.agents import build_agent
from nashzoo.agents.cfr import make_solver
from nashzoo.agents.cfr.learner import TabularConfig, TabularLearner
from nashzoo.agents.learner import (
    Learner,
    LearnerEntry,
    get_learner,
    learner_for_format,
    learners,
    register_learner,
)
from nashzoo.agents.registry import refresh_plugins
from nashzoo.cli import main
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.games.fighting import fighting_cards_tiny
from nashzoo.tree import TabularPolicy
from nashzoo.validation import integers

KUHN = KuhnPokerGame()
UNIFORM_KUHN = 11 / 24

SMALL = {
    "nfsp": {"batch_games": 8},
    "deep-cfr": {"traversals": 20, "regret_steps": 10, "policy_steps": 20},
    "escher": {
        "regret_traversals": 20,
        "value_traversals": 20,
        "regret_steps": 10,
        "value_steps": 10,
        "policy_steps": 20,
    },
    "simplex-gradient": {"hidden_sizes": (8,), "batch_games": 8},
    "nash-ismcts": {
        "games_per_generation": 8,
        "simulations": 10,
        "eval_simulations": 20,
        "steps_per_generation": 5,
        "belief_games": 64,
    },
    "cfr": {},
    "nash-memory": {},
}


@pytest.fixture(autouse=True)
def one_thread():
    torch.set_num_threads(1)


def _game(name):
    return fighting_cards_tiny() if name == "simplex-gradient" else KUHN


@pytest.mark.parametrize(
    "name", ["cfr", "nfsp", "deep-cfr", "escher", "nash-memory", "simplex-gradient", "nash-ismcts"]
)
def test_every_builtin_learner_has_the_one_shape_and_resumes(name, tmp_path):
    entry = get_learner(name)
    cls = entry.load_class()
    config = cls.config_type(seed=3, **SMALL[name])
    learner = cls(_game(name), config)
    assert isinstance(learner, Learner)
    assert cls.name == name and cls.step_unit in ("iterations", "episodes", "generations")
    assert learner.train(steps=2) is learner
    assert learner.steps >= 2 and learner.seconds > 0
    value = learner.exploitability()
    assert 0 <= value < 10
    path = learner.save(tmp_path / f"learner{entry.suffix}")
    again = cls.load(path)
    # the learner's own config (Nash-ISMCTS's sets its None defaults for the game's path)
    assert again.steps == learner.steps and again.config == learner.config
    assert again.exploitability() == pytest.approx(value)
    again.train(steps=1)
    assert again.steps > learner.steps
    # the saved file is an agent file every tool reads
    agent = build_agent(str(path), _game(name))
    assert agent.name == "learner"
    for file_format in entry.file_formats:
        assert learner_for_format(file_format) is entry


def test_train_refuses_a_missing_or_bad_budget():
    learner = TabularLearner(KUHN)
    with pytest.raises(InvalidParameterError, match="`steps` or `seconds`"):
        learner.train()
    with pytest.raises(InvalidParameterError, match="steps"):
        learner.train(steps=-1)
    with pytest.raises(InvalidParameterError, match="callback_every"):
        learner.train(steps=1, callback_every=0)


def test_the_tabular_adapter_runs_the_solver_unchanged():
    # the same iterations give the same average policy as the solver itself
    leduc = LeducHoldemGame()
    for algo, seed in (("cfr+", None), ("es-mccfr", 7)):
        learner = TabularLearner(leduc, TabularConfig(algorithm=algo, seed=seed or 0))
        learner.train(steps=150)
        solver = make_solver(algo, leduc, seed=seed).iterate(150)
        assert learner.steps == 150
        np.testing.assert_array_equal(learner.average_policy().probs, solver.average_policy().probs)


def test_a_policy_file_without_solver_state_does_not_resume(tmp_path):
    path = TabularPolicy.uniform(TabularLearner(KUHN).solver.tree).save(tmp_path / "u.npz")
    with pytest.raises(PolicyFileError, match="no tabular learner's state"):
        TabularLearner.load(path)


def test_the_registry_names_learners_and_refuses_what_is_wrong():
    assert {
        "cfr", "nfsp", "deep-cfr", "escher", "nash-memory", "simplex-gradient", "nash-ismcts"
    } <= set(learners())  # fmt: skip
    with pytest.raises(InvalidParameterError, match="Did you mean 'nfsp'"):
        get_learner("nfps")
    with pytest.raises(InvalidParameterError, match="registered already"):
        register_learner(LearnerEntry("nfsp", TabularLearner, "another"))
    with pytest.raises(InvalidParameterError, match="learner name"):
        LearnerEntry("bad name", TabularLearner, "spaces")
    with pytest.raises(InvalidParameterError, match="cannot import"):
        LearnerEntry("ghost", "no_such_module:Ghost", "missing").load_class()
    with pytest.raises(InvalidParameterError, match="config_type"):
        LearnerEntry("plain", "collections:OrderedDict", "not a learner").load_class()


def test_cli_trains_the_tabular_learner_with_options_from_its_config(tmp_path, capsys):
    out = tmp_path / "dcfr.npz"
    argv = ["train", "cfr", "kuhn_poker", "--algorithm", "dcfr", "--steps", "300"]
    assert main([*argv, "--eval-every", "0.01", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert " iterations  exploitability " in text and f"saved to {out}" in text
    learner = TabularLearner.load(out)
    assert learner.steps == 300 and learner.config.algorithm == "dcfr"
    assert learner.exploitability() < UNIFORM_KUHN - 0.4  # measured: 0.0046
    # a value the config refuses is refused by name, before any training
    assert main(["train", "cfr", "kuhn_poker", "--steps", "1", "--seed", "-2"]) == 2
    assert "`TabularConfig.seed` must be" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "cfr", "kuhn_poker", "--algorithm", "cfr++"])  # argparse's choices


PLUGIN = """
from nashzoo.agents.cfr.learner import TabularLearner
from nashzoo.agents.learner import LearnerEntry


class Renamed(TabularLearner):
    name = "renamed-cfr"


ENTRY = LearnerEntry("renamed-cfr", Renamed, "CFR+ under another name", suffix=".npz")
"""


def test_an_installed_learner_plugin_trains_from_the_command_line(tmp_path, monkeypatch):
    (tmp_path / "nashzoo_renamed.py").write_text(PLUGIN)
    info = tmp_path / "nashzoo_renamed-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nashzoo-renamed\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[nashzoo.learners]\nrenamed-cfr = nashzoo_renamed:ENTRY\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh_plugins()
    from nashzoo.agents import learner as registry

    try:
        assert get_learner("renamed-cfr").description == "CFR+ under another name"
        out = tmp_path / "r.npz"
        assert main(["train", "renamed-cfr", "kuhn_poker", "--steps", "50", "--quiet"]) == 0
        assert main(["train", "renamed-cfr", "kuhn_poker", "--steps", "5", "--out", str(out)]) == 0
        assert TabularPolicy.load(out).metadata["learner"]["iteration"] == 5
    finally:
        registry._LEARNERS.pop("renamed-cfr", None)


def test_keep_best_on_a_game_that_does_not_compile_still_saves_the_learner(
    tmp_path, capsys, monkeypatch
):
    # no exact exploitability, so no best to keep: the last checkpoint is saved instead of
    # nothing (the end of the run used to claim a best checkpoint that was never written)
    from nashzoo.errors import GameTooLargeError

    def too_large(self):
        raise GameTooLargeError("does not compile (in this test)")

    monkeypatch.setattr(TabularLearner, "exploitability", too_large)
    out = tmp_path / "last.npz"
    argv = ["train", "cfr", "kuhn_poker", "--steps", "20", "--keep-best", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "does not compile" in text and "best checkpoint" not in text
    assert TabularLearner.load(out).steps == 20


def test_checkpoints_are_written_every_checkpoint_every_seconds(tmp_path, monkeypatch, capsys):
    # --checkpoint-every 0: a checkpoint at every record (--eval-every; 1e-9 s records after
    # every batch of iterations, which doubles from 1: 1, 3, 7, 15, 31, 60 whatever the
    # machine's speed); a long interval: only the final save (a big checkpoint, Deep CFR's
    # memories, is slow to write)
    saves: list[int] = []
    original = TabularLearner.save

    def counting(self, path, *args, **kwargs):
        saves.append(self.steps)
        return original(self, path, *args, **kwargs)

    monkeypatch.setattr(TabularLearner, "save", counting)
    out = tmp_path / "cfr.npz"
    argv = ["train", "cfr", "leduc_holdem", "--steps", "60", "--eval-every", "1e-9"]
    argv += ["--out", str(out), "--quiet"]
    assert main([*argv, "--checkpoint-every", "0"]) == 0
    every = list(saves)
    saves.clear()
    assert main([*argv, "--checkpoint-every", "1e6"]) == 0
    assert len(every) >= 4 and every == sorted(every) and every[-1] == 60, every
    assert saves == [60], (every, saves)
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        main([*argv, "--checkpoint-every", "-1"])
    assert refused.value.code == 2
    assert "--checkpoint-every: expected a finite number at least 0, received '-1'" in (
        capsys.readouterr().err
    )


def test_resume_ends_where_the_uninterrupted_run_ends(tmp_path, capsys):
    # CFR+ is deterministic: 40 iterations, then --resume to a budget of 100, is the same
    # solver state as 100 at once (the budget counts the whole run)
    full, part = tmp_path / "full.npz", tmp_path / "part.npz"
    base = ["train", "cfr", "kuhn_poker", "--quiet"]
    assert main([*base, "--steps", "100", "--out", str(full)]) == 0
    assert main([*base, "--steps", "40", "--out", str(part)]) == 0
    assert TabularLearner.load(part).steps == 40
    assert main([*base, "--steps", "100", "--resume", str(part)]) == 0  # saved back to part
    resumed, uninterrupted = TabularLearner.load(part), TabularLearner.load(full)
    assert resumed.steps == 100
    np.testing.assert_array_equal(
        resumed.average_policy().probs, uninterrupted.average_policy().probs
    )
    capsys.readouterr()
    # a budget already spent trains nothing and says so
    assert main([*base, "--steps", "60", "--resume", str(part)]) == 0
    assert "the budget is spent" in capsys.readouterr().out
    assert TabularLearner.load(part).steps == 100


def test_resume_refuses_config_options_another_game_and_a_missing_file(tmp_path, capsys):
    saved = tmp_path / "kuhn.npz"
    assert main(["train", "cfr", "kuhn_poker", "--steps", "5", "--out", str(saved)]) == 0
    capsys.readouterr()
    argv = ["train", "cfr", "kuhn_poker", "--steps", "10", "--resume", str(saved)]
    assert main([*argv, "--algorithm", "dcfr"]) == 2
    assert "received config options too (--algorithm)" in capsys.readouterr().err
    assert main(["train", "cfr", "leduc_holdem", "--steps", "10", "--resume", str(saved)]) == 2
    err = capsys.readouterr().err
    assert "holds a cfr learner for" in err and "leduc" in err.lower()
    assert main([*argv[:-1], str(tmp_path / "missing.npz")]) != 0
    assert TabularLearner.load(saved).steps == 5  # untouched


def test_resume_continues_nash_ismcts_over_the_rules_and_its_measured_curve(tmp_path):
    # Limit Hold'em does not compile: NashISMCTS trains (and loads) the rules trainer, and
    # the measured curve (duplicate scores) carries on from the file beside the checkpoint
    out = tmp_path / "hulh.pt"
    tiny = ["--games-per-generation", "2", "--simulations", "4", "--eval-simulations", "4"]
    tiny += ["--belief-games", "4", "--steps-per-generation", "2", "--batch-size", "8"]
    tiny += ["--hidden-sizes", "8"]
    base = ["train", "nash-ismcts", "limit_holdem", "--quiet", "--measure-deals", "2"]
    assert main([*base, *tiny, "--steps", "1", "--out", str(out)]) == 0
    assert [p["step"] for p in json.loads(Path(f"{out}.curve.json").read_text())] == [1]
    assert main([*base, "--steps", "2", "--resume", str(out)]) == 0
    trainer = get_learner("nash-ismcts").load_class().load(out)
    assert not trainer.compiled and trainer.steps == 2
    assert trainer.config.simulations == 4  # the file's config, not the defaults
    points = json.loads(Path(f"{out}.curve.json").read_text())
    assert [p["step"] for p in points] == [1, 2]
    assert points[1]["seconds"] > points[0]["seconds"]


def test_nash_ismcts_settings_over_the_rules_are_options_that_a_compiling_game_refuses(
    tmp_path, capsys
):
    # TrainConfig's settings of training over the rules (node_cap, split_hidden, inputs...)
    # are options of `nashzoo train nash-ismcts`; Limit Hold'em takes them, Kuhn (which
    # takes the compiled fast path) refuses them by name rather than dropping them
    out = tmp_path / "hulh.pt"
    tiny = ["--games-per-generation", "2", "--simulations", "4", "--eval-simulations", "4"]
    tiny += ["--belief-games", "4", "--steps-per-generation", "2", "--batch-size", "8"]
    tiny += ["--hidden-sizes", "8", "--quiet", "--measure-deals", "0"]
    rules = ["--node-cap", "50", "--split-hidden"]
    assert main(["train", "nash-ismcts", "limit_holdem", *tiny, *rules, "--steps", "1",
                 "--out", str(out)]) == 0  # fmt: skip
    trainer = get_learner("nash-ismcts").load_class().load(out)
    assert (trainer.config.node_cap, trainer.config.split_hidden) == (50, True)
    capsys.readouterr()
    assert main(["train", "nash-ismcts", "kuhn_poker", *tiny, *rules, "--steps", "1"]) == 2
    err = capsys.readouterr().err
    assert "node_cap, split_hidden: settings of training over the rules" in err
    assert "fast_path=False" in err
    with pytest.raises(SystemExit) as done:
        main(["train", "nash-ismcts", "--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "nodes one search may hold. (default: 200000)" in shown
    assert "(400; 100. Measured on Leduc" in shown and "--fast-path" in shown


def test_a_config_that_only_changes_defaults_keeps_its_base_class_descriptions():
    from nashzoo.agents.nfsp import NFSPConfig

    @dataclasses.dataclass(frozen=True)
    class Wider(NFSPConfig):
        """NFSP with wider layers."""

        hidden_sizes: tuple[int, ...] = integers((256, 256))

    wide, base = Wider.field_help(), NFSPConfig.field_help()
    assert base["hidden_sizes"] and wide["hidden_sizes"] == base["hidden_sizes"]
    assert Wider().hidden_sizes == (256, 256)


def test_train_makes_the_out_folder_first_and_refuses_one_it_cannot_make(tmp_path, capsys):
    # the folder is made before training, so a run is never lost at its end to it
    out = tmp_path / "new" / "deeper" / "kuhn.npz"
    assert main(["train", "cfr", "kuhn_poker", "--steps", "5", "--quiet", "--out", str(out)]) == 0
    assert TabularLearner.load(out).steps == 5
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    capsys.readouterr()
    bad = str(blocker / "sub" / "kuhn.npz")
    assert main(["train", "cfr", "kuhn_poker", "--steps", "5", "--quiet", "--out", bad]) == 2
    err = capsys.readouterr()
    assert f"--out {bad}: expected a path in a folder that exists or can be made" in err.err
    assert "iterations" not in err.out  # refused before any training
