"""Issue 88, item 3: the training run is in the library (``nashzoo.training``), so a
Python user gets the curve, checkpoints, resume, logs and plot that ``nashzoo train``
gives, from one function the command line also calls."""

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from nashzoo.agents.cfr.learner import TabularConfig, TabularLearner
from nashzoo.agents.learner import Callback
from nashzoo.agents.nfsp import NFSP, NFSPConfig
from nashzoo.errors import InvalidParameterError
from nashzoo.games import KuhnPokerGame
from nashzoo.training import Checkpoint, ExactCurve, run_training

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


class _Recorder(Callback):
    """Writes down which hook ran, with the learner's steps; stops at ``stop_at``."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.events: list[tuple[str, int]] = []
        self.stop_at = stop_at

    def on_training_start(self, learner):
        self.events.append(("start", learner.steps))

    def on_step(self, learner):
        self.events.append(("step", learner.steps))
        return False if self.stop_at is not None and learner.steps >= self.stop_at else None

    def on_training_end(self, learner):
        self.events.append(("end", learner.steps))


def test_train_takes_sb3_style_callbacks_a_function_and_a_list(tmp_path):
    # CFR+ as a learner: one iteration a step, and callback_every is tiny, so on_step
    # runs after every batch of iterations; `False` from any callback stops the run.
    learner = TabularLearner(KUHN, TabularConfig(algorithm="cfr+"))
    first, second, seen = _Recorder(stop_at=5), _Recorder(), []
    learner.train(steps=50, callback=[first, second, seen.append], callback_every=1e-9)
    assert first.events == second.events
    assert first.events[0] == ("start", 0) and first.events[-1][0] == "end"
    steps = [n for kind, n in first.events if kind == "step"]
    assert 5 <= learner.steps < 50 and steps[-1] == learner.steps and steps == sorted(steps)
    assert len(seen) == len(steps) and seen[0] is learner
    with pytest.raises(InvalidParameterError, match="expects a nashzoo.agents.learner.Callback"):
        learner.train(steps=1, callback=3)  # type: ignore[arg-type]


def test_the_runs_callbacks_work_without_run_training(tmp_path):
    # the exact curve keeps the best CFR+ checkpoint; the checkpoint callback saves at
    # the end; CFR+ on Kuhn goes below uniform's 0.458 within 100 iterations (Tammelin 2014)
    learner = TabularLearner(KUHN, TabularConfig(algorithm="cfr+"))
    curve, saved = ExactCurve(keep_best=tmp_path / "best.npz"), Checkpoint(tmp_path / "last.npz")
    learner.train(steps=100, callback=[curve, saved], callback_every=1e-9)
    points = curve.curves[learner.name]
    assert len(points) >= 2 and points[-1].step == 100
    assert curve.best == min(p.exploitability for p in points) < 0.458 - 0.4
    assert TabularLearner.load(tmp_path / "best.npz").exploitability() == pytest.approx(curve.best)
    assert saved.saved == str(tmp_path / "last.npz")
    assert TabularLearner.load(saved.saved).steps == 100
    with pytest.raises(InvalidParameterError, match="`every` must be >= 0 seconds"):
        Checkpoint(tmp_path / "x.npz", every=-1)
