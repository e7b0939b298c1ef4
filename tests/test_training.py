"""Issue 88, item 3: the training run is in the library (``nashzoo.training``), so a
Python user gets the curve, checkpoints, resume, logs and plot that ``nashzoo train``
gives, from one function the command line also calls."""

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from nashzoo.agents.nfsp import NFSP, NFSPConfig
from nashzoo.errors import InvalidParameterError
from nashzoo.games import KuhnPokerGame
from nashzoo.training import run_training

KUHN = KuhnPokerGame()


def test_a_python_run_has_the_curve_checkpoints_log_and_resume(tmp_path):
    out = tmp_path / "runs" / "nfsp.pt"  # the folder is made first
    lines = []
    run = run_training(
        NFSP(KUHN, NFSPConfig(seed=0, batch_games=8)),
        steps=30_000,
        eval_every=0.3,
        out=out,
        log_dir=tmp_path / "log",
        progress=False,
        echo=lines.append,
    )
    curve = run.curves["nfsp"]
    assert len(curve) >= 2 and curve[-1].step <= 30_000 + 64
    # the curve is the learner's exact exploitability: below uniform play's 0.458
    # (measured 0.168 at 30,016 episodes, seed 0)
    assert curve[-1].exploitability < 0.458 - 0.1, curve[-1]
    assert run.saved == str(out) and out.exists() and lines[-1] == f"saved to {out}"
    rows = (tmp_path / "log" / "scalars.csv").read_text().splitlines()
    assert rows[0] == "step,seconds,name,value" and any(",exploitability," in r for r in rows)
    resumed = run_training(
        NFSP.load(out), steps=40_000, eval_every=0.3, out=out, resume=True, progress=False,
        echo=None,
    )  # fmt: skip
    assert 40_000 <= resumed.learner.steps < 40_000 + 64  # the budget counts the whole run
    spent = run_training(NFSP.load(out), steps=35_000, out=out, resume=True, echo=lines.append)
    assert spent.learner.steps == resumed.learner.steps and "budget is spent" in lines[-2]


def test_bad_runs_are_refused_before_training(tmp_path):
    learner = NFSP(KUHN, NFSPConfig(seed=0))
    with pytest.raises(InvalidParameterError, match="needs a budget"):
        run_training(learner)
    with pytest.raises(InvalidParameterError, match="need `out`"):
        run_training(learner, steps=10, keep_best=True)
    with pytest.raises(InvalidParameterError, match="tensorboard needs log_dir"):
        run_training(learner, steps=10, tensorboard=True)
    with pytest.raises(InvalidParameterError, match="`eval_every` must be >= 0"):
        run_training(learner, steps=10, eval_every=-1)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(InvalidParameterError, match="out .*: expected a path in a folder"):
        run_training(learner, steps=10, out=blocker / "sub" / "nfsp.pt")
    learner.resumable = False  # as Deep CFR loaded from an agent file (no memories)
    with pytest.raises(InvalidParameterError, match="saved without the learner's memories"):
        run_training(learner, steps=10, out="x.pt", resume=True)
    assert learner.steps == 0
