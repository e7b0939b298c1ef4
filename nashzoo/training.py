"""The training run: a learner trained to a budget with what a run needs around it, the
same from Python as from ``nashzoo train``.

What a run does while it trains are callbacks in Stable-Baselines3's shape
(:class:`~nashzoo.agents.learner.Callback`: ``on_training_start``, ``on_step`` every
``callback_every`` seconds of training, ``on_training_end``), which any learner's
``train(callback=[...])`` takes:

* :class:`ExactCurve`: exact exploitability where the game compiles (the curve, a
  line per extra policy the learner measures), optionally keeping the best checkpoint;
* :class:`MeasuredPoints`: duplicate scores against the game's baselines with their
  intervals, and LBR, every ``every`` seconds and at the end (where the game does not
  compile, or always), written to a JSON file as they come;
* :class:`Checkpoint`: the learner saved every ``every`` seconds, at every measured point
  and at the end, so an interrupted run loses at most that;
* :class:`Plot`: the curve and the measured points drawn at the end;
* :class:`Report`: one printed line per callback (the figures the others took).

Each writes its figures to a :class:`~nashzoo.agents.training.ScalarLog` when given one.
:func:`run_training` builds these from keyword arguments, adds resume (the learner from
its file, its measured points from ``OUT.curve.json``, the budget counting the whole
run) and is what ``nashzoo train`` calls. Five lines train NFSP with a curve and
checkpoints::

    from nashzoo.agents.nfsp import NFSP
    from nashzoo.games import LeducHoldemGame
    from nashzoo.training import run_training

    run = run_training(NFSP(LeducHoldemGame()), steps=20_000, eval_every=2, out="nfsp.pt")
    print(run.curves["nfsp"][-1])

or, with the callbacks themselves::

    curve = ExactCurve()
    NFSP(LeducHoldemGame()).train(steps=20_000, callback=[curve, Checkpoint("nfsp.pt")])

It sits above both the learners (``agents``) and the measurements (``eval``), which do
not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nashzoo.agents.learner import (
    Callback,
    CallbackList,
    ConvergencePoint,
    HasPriorAgent,
    MeasuresMore,
    Resumable,
)
from nashzoo.errors import GameTooLargeError, InvalidParameterError

__all__ = [
    "Checkpoint",
    "ExactCurve",
    "MeasuredPoints",
    "Plot",
    "Report",
    "TrainingRun",
    "make_folder_of",
    "run_training",
]


@dataclass
class TrainingRun:
    """What :func:`run_training` did.

    Attributes:
        learner: the trained learner.
        curves: exact exploitability per policy the learner measures (its own name first),
            as ``ConvergencePoint`` lists (empty where the game does not compile).
        measured: the measured points (duplicate scores, LBR), oldest first.
        best: the best exact exploitability kept with ``keep_best`` (``None`` otherwise).
        saved: where the learner was saved at the end (``None`` without ``out``).
        plot: the plot written (``None`` without one).
    """

    learner: Any
    curves: dict[str, list[Any]] = field(default_factory=dict)
    measured: list[Any] = field(default_factory=list)
    best: float | None = None
    saved: str | None = None
    plot: str | None = None


def make_folder_of(name: str, path: str | Path | None) -> None:
    """Make the folder that ``path`` (the option or argument ``name``) writes into
    before training starts (as SB3's ``save`` does), so that a run is never lost at its
    end to a missing folder; nothing when ``path`` is empty.

    Raises:
        InvalidParameterError: the folder cannot be made (naming ``name`` and ``path``).
    """
    if not path:
        return
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameterError(
            f"{name} {path}: expected a path in a folder that exists or can be made; "
            f"making {folder} failed: {exc}"
        ) from None


def _check_seconds(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise InvalidParameterError(f"`{name}` must be >= 0 seconds, received {value!r}.")
    return float(value)


class ExactCurve(Callback):
    """Exact exploitability at every ``on_step`` where the game compiles: ``curves``
    holds the learner's own curve (under its name) and one per other policy it measures
    (:class:`~nashzoo.agents.learner.MeasuresMore`). The first measurement that finds the
    game too large sets ``exact`` to ``False`` and stops measuring.

    Args:
        keep_best: a path: the learner is saved there whenever its exploitability is the
            lowest so far (``best``).
        log: a :class:`~nashzoo.agents.training.ScalarLog` for the figures.
    """

    def __init__(self, *, keep_best: str | Path | None = None, log: Any = None) -> None:
        self.keep_best = None if keep_best is None else str(keep_best)
        self.log = log
        self.curves: dict[str, list[ConvergencePoint]] = {}
        self.exact = True
        self.best = float("inf")
        self.text = ""  # the last on_step's figures, for Report

    def on_step(self, learner: Any) -> bool | None:
        self.text = ""
        if not self.exact:
            return None
        try:
            value = float(learner.exploitability())
        except GameTooLargeError:  # the learner's own test: it cannot tabulate its policy
            self.exact = False
            return None
        name = getattr(learner, "name", type(learner).__name__)
        values = {name: value}
        if isinstance(learner, MeasuresMore):
            values.update(learner.other_exploitabilities())
        for which, v in values.items():
            point = ConvergencePoint(learner.steps, learner.seconds, float(v), learner.step_unit)
            self.curves.setdefault(which, []).append(point)
        if self.log is not None:  # the learner's own figure, then the others it measures
            names = ["exploitability"] + [
                f"exploitability_{k}".replace("-", "_").replace(" ", "_") for k in list(values)[1:]
            ]
            self.log.write(learner.steps, learner.seconds, **dict(zip(names, values.values())))
        self.text = f"  exploitability {value:.4f}"
        self.text += "".join(f"  {k} {v:.4f}" for k, v in list(values.items())[1:])
        if self.keep_best is not None and value < self.best:
            self.best = value
            learner.save(self.keep_best)
            self.text += "  (best so far, saved)"
        return None

    @property
    def keeping_best(self) -> bool:
        """Whether this curve saves the best checkpoint (a game that compiles)."""
        return self.keep_best is not None and self.exact


class MeasuredPoints(Callback):
    """Duplicate scores against the game's baselines (with their 95% intervals) and LBR,
    every ``every`` seconds of training and at the end; ``points`` oldest first, written
    to ``curve_file`` (JSON, atomically) as they come.

    Args:
        deals: duplicate deals per point (0: none).
        lbr_hands: LBR hands per point (0: none).
        every: seconds of training between points.
        curve_file: where the points are written (``None``: kept in memory only).
        points: points of an earlier run that this one continues.
        only_when_too_large: an :class:`ExactCurve`: measure only once it found the game
            too large to compile (where it compiles, the exact curve says more).
        log: a :class:`~nashzoo.agents.training.ScalarLog` for the figures.
    """

    def __init__(
        self,
        *,
        deals: int = 100,
        lbr_hands: int = 0,
        every: float = 300.0,
        curve_file: str | Path | None = None,
        points: Sequence[Any] = (),
        only_when_too_large: ExactCurve | None = None,
        log: Any = None,
    ) -> None:
        from nashzoo.validation import check_int

        self.deals = check_int("deals", deals, 0)
        self.lbr_hands = check_int("lbr_hands", lbr_hands, 0)
        self.every = _check_seconds("every", every)
        self.curve_file = None if curve_file is None else str(curve_file)
        self.points = list(points)
        self.gate = only_when_too_large
        self.log = log
        self.text = ""
        self._last = self.points[-1].seconds if self.points else -float("inf")

    @property
    def active(self) -> bool:
        """Whether points are measured (something to measure, and not waiting on a
        game that compiles)."""
        wanted = self.deals > 0 or self.lbr_hands > 0
        return wanted and (self.gate is None or not self.gate.exact)

    def on_step(self, learner: Any) -> bool | None:
        self.text = self._measure(learner, final=False)
        return None

    def on_training_end(self, learner: Any) -> None:
        self.text = self._measure(learner, final=True)

    def _measure(self, learner: Any, *, final: bool) -> str:
        if not self.active or (self.points and self.points[-1].step == learner.steps):
            return ""
        if not final and learner.seconds - self._last < self.every:
            return ""
        from nashzoo.agents.scripted import baselines
        from nashzoo.eval.curves import measure_point, write_points

        self._last = learner.seconds
        game = learner.game
        agent = learner.agent()
        point = measure_point(
            game,
            agent,
            baselines(game) if self.deals > 0 else {},
            deals=max(self.deals, 1),
            seed=len(self.points),
            lbr_policy=learner.prior_agent() if isinstance(learner, HasPriorAgent) else agent,
            lbr_hands=self.lbr_hands,
            step=learner.steps,
            seconds=learner.seconds,
            step_unit=learner.step_unit,
        )
        self.points.append(point)
        if self.curve_file is not None:
            write_points(self.points, self.curve_file)
        if self.log is not None:
            figures = {f"vs_{k}": v for k, (v, _, _) in point.duplicate.items()}
            if point.lbr is not None:
                figures["lbr"] = point.lbr[0]
            self.log.write(learner.steps, learner.seconds, **figures)
        return "  " + point.text(game.payoff_unit)


class Checkpoint(Callback):
    """The learner saved to ``path`` every ``every`` seconds of training (0: at every
    ``on_step``), whenever ``measured`` took a point, and at the end (``saved``), so an
    interrupted run keeps its work; while ``best`` keeps the best checkpoint of a game
    that compiles, that is what ``path`` holds and this saves nothing."""

    def __init__(
        self,
        path: str | Path,
        *,
        every: float = 60.0,
        measured: MeasuredPoints | None = None,
        best: ExactCurve | None = None,
    ) -> None:
        self.path = str(path)
        self.every = _check_seconds("every", every)
        self.measured = measured
        self.best = best
        self.saved: str | None = None
        self._last = 0.0

    def on_training_start(self, learner: Any) -> None:
        self._last = learner.seconds

    def _quiet(self) -> bool:
        return self.best is not None and self.best.keeping_best

    def on_step(self, learner: Any) -> bool | None:
        took = self.measured is not None and bool(self.measured.text)
        if not self._quiet() and (took or learner.seconds - self._last >= self.every):
            learner.save(self.path)
            self._last = learner.seconds
        return None

    def on_training_end(self, learner: Any) -> None:
        if not self._quiet():
            self.saved = str(learner.save(self.path))


class Report(Callback):
    """One line per ``on_step`` through ``echo``: the training seconds and steps, then the
    figures ``parts`` (:class:`ExactCurve`, :class:`MeasuredPoints`) took at that step;
    at the end, the last measured point and where the run was saved."""

    def __init__(
        self,
        echo: Callable[[str], None],
        parts: Sequence[Any] = (),
        checkpoint: Checkpoint | None = None,
    ) -> None:
        self.echo = echo
        self.parts = list(parts)
        self.checkpoint = checkpoint
        self._warned = False

    @staticmethod
    def _head(learner: Any) -> str:
        return f"{learner.seconds:8.1f} s {learner.steps:>11,} {learner.step_unit}"

    def on_step(self, learner: Any) -> bool | None:
        for part in self.parts:
            if isinstance(part, ExactCurve) and not part.exact and not self._warned:
                self._warned = True
                measured = next((p for p in self.parts if isinstance(p, MeasuredPoints)), None)
                how = (
                    "measured instead (duplicate scores against baselines, LBR) every "
                    f"{measured.every:g} s of training"
                    if measured is not None and measured.active
                    else "training only (no deals, no LBR hands)"
                )
                self.echo(f"{learner.game} does not compile: no exact exploitability; {how}.")
        self.echo(self._head(learner) + "".join(p.text for p in self.parts))
        return None

    def on_training_end(self, learner: Any) -> None:
        last = "".join(p.text for p in self.parts if isinstance(p, MeasuredPoints))
        if last:
            self.echo(self._head(learner) + last)
        best = next((p for p in self.parts if isinstance(p, ExactCurve) and p.keeping_best), None)
        if best is not None:
            self.echo(f"best checkpoint (exploitability {best.best:.4f}) in {best.keep_best}")
        elif self.checkpoint is not None and self.checkpoint.saved is not None:
            self.echo(f"saved to {self.checkpoint.saved}")


class Plot(Callback):
    """At the end, a PNG of ``curve``'s exact curves and ``measured``'s points
    (``written``: the path, or ``None`` where there was nothing to draw)."""

    def __init__(
        self,
        path: str | Path,
        curve: ExactCurve | None = None,
        measured: MeasuredPoints | None = None,
        echo: Callable[[str], None] | None = None,
    ) -> None:
        self.path = str(path)
        self.curve = curve
        self.measured = measured
        self.echo = echo or (lambda line: None)
        self.written: str | None = None

    def on_training_end(self, learner: Any) -> None:
        name = getattr(learner, "name", type(learner).__name__)
        curves = dict(self.curve.curves) if self.curve is not None else {}
        curves.setdefault(name, [])
        measured = self.measured.points if self.measured is not None else []
        self.written = _plot(curves, measured, learner.game, name, self.path, self.echo)


def run_training(
    learner: Any,
    *,
    steps: int | None = None,
    seconds: float | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    keep_best: bool = False,
    eval_every: float = 10.0,
    checkpoint_every: float = 60.0,
    measure_every: float = 300.0,
    measure_deals: int | None = None,
    lbr_hands: int = 0,
    log_dir: str | Path | None = None,
    tensorboard: bool = False,
    plot: str | Path | None = None,
    progress: bool = True,
    echo: Callable[[str], None] | None = print,
    callbacks: Sequence[Callback] = (),
) -> TrainingRun:
    """Train ``learner`` for ``steps`` and/or ``seconds`` (the budget of the whole run)
    with its curve, measured points, checkpoints and plot (the callbacks of this module,
    built from the arguments).

    Args:
        learner: a learner (``Learner`` protocol); with ``resume``, the one saved in
            ``out`` (``NFSP.load(out)``), whose run continues.
        steps, seconds: the budget (at least one); counted over the whole run on resume.
        out: where checkpoints go; ``None`` saves nothing.
        resume: ``learner`` is the run saved in ``out``: continue it (its measured points
            from ``OUT.curve.json``, the budget counting its steps and seconds so far).
        keep_best: where the game compiles, ``out`` keeps the least exploitable
            checkpoint.
        eval_every: seconds of training between exact measurements (and callbacks).
        checkpoint_every: seconds of training between checkpoints (0: at every callback).
        measure_every: seconds of training between measured points.
        measure_deals: duplicate deals per measured point (``None``: 100 where the game
            does not compile, none where it does; 0: none).
        lbr_hands: LBR hands per measured point (0: none).
        log_dir: a folder for ``scalars.csv`` (and TensorBoard with ``tensorboard``).
        plot: a PNG of the curve and the measured points.
        progress: show a progress bar.
        echo: where each line of the run goes (``None``: nowhere).
        callbacks: more callbacks, run after the run's own at every step.

    Raises:
        InvalidParameterError: no budget, a negative interval, ``keep_best`` or
            ``resume`` without ``out``, or ``tensorboard`` without ``log_dir``.
    """
    from nashzoo.eval.curves import read_points

    say = echo or (lambda line: None)
    if steps is None and seconds is None:
        raise InvalidParameterError("run_training needs a budget: steps, seconds or both.")
    if (keep_best or resume) and out is None:
        raise InvalidParameterError("keep_best and resume need `out` (where the run is saved).")
    if tensorboard and log_dir is None:
        raise InvalidParameterError("tensorboard needs log_dir (where the event files go).")
    for name, value in (
        ("eval_every", eval_every),
        ("checkpoint_every", checkpoint_every),
        ("measure_every", measure_every),
    ):
        _check_seconds(name, value)
    out = None if out is None else str(out)
    if resume and isinstance(learner, Resumable) and not learner.resumable:
        raise InvalidParameterError(
            f"resume {out}: the file is an agent file, saved without the learner's "
            "memories; expected a checkpoint (the file `out` writes during training)."
        )
    make_folder_of("out", out)
    make_folder_of("plot", plot)
    log = None
    if log_dir is not None:
        from nashzoo.agents.training import ScalarLog

        log = ScalarLog(log_dir, tensorboard=tensorboard)
        say(f"figures logged to {log.path}" + (" and TensorBoard" if tensorboard else ""))
    curve_file = None if out is None else out + ".curve.json"
    earlier = []
    if resume and curve_file is not None and Path(curve_file).exists():
        # a point written after the last save is dropped
        earlier = [p for p in read_points(curve_file) if p.step <= learner.steps]
    curve = ExactCurve(keep_best=out if keep_best else None, log=log)
    measured = MeasuredPoints(
        deals=100 if measure_deals is None else measure_deals,
        lbr_hands=lbr_hands,
        every=measure_every,
        curve_file=curve_file,
        points=earlier,
        only_when_too_large=curve if measure_deals is None else None,
        log=log,
    )
    own: list[Callback] = [curve, measured]
    checkpoint = None
    if out is not None:
        checkpoint = Checkpoint(out, every=checkpoint_every, measured=measured, best=curve)
        own.append(checkpoint)
    own.append(Report(say, [curve, measured], checkpoint))
    if plot is not None:
        own.append(Plot(plot, curve, measured, say))
    hooks = CallbackList([*own, *callbacks])
    left_steps = None if steps is None else steps - (learner.steps if resume else 0)
    left_seconds = None if seconds is None else seconds - (learner.seconds if resume else 0)
    try:
        if (left_steps is not None and left_steps <= 0) or (
            left_seconds is not None and left_seconds <= 0
        ):
            say(
                f"{out} holds {learner.steps:,} {learner.step_unit} in {learner.seconds:.1f} s "
                "of training: the budget is spent, nothing to train"
            )
            hooks.on_training_start(learner)
            hooks.on_training_end(learner)
        else:
            learner.train(
                steps=left_steps,
                seconds=left_seconds,
                callback=hooks,
                callback_every=eval_every if eval_every > 0 else 1e-9,
                progress=progress,
            )
    finally:
        if log is not None:
            log.close()
    name = getattr(learner, "name", type(learner).__name__)
    return TrainingRun(
        learner,
        curves={name: [], **curve.curves},
        measured=measured.points,
        best=curve.best if keep_best and curve.exact else None,
        saved=None if checkpoint is None else checkpoint.saved,
        plot=next((c.written for c in own if isinstance(c, Plot)), None),
    )


def _plot(
    curves: dict[str, list[Any]],
    measured: list[Any],
    game: Any,
    name: str,
    path: str,
    say: Callable[[str], None],
) -> str | None:
    """Draw the run's curves and measured points; the path written, or ``None``."""
    from nashzoo.agents.learner import ConvergenceCurve

    title = f"{name} on {game}"
    if measured and curves[name]:  # a game that compiles, measured both ways
        from nashzoo.eval.plots import plot_exact_and_measured

        lines = [ConvergenceCurve(k, repr(game), tuple(v)) for k, v in curves.items()]
        written = plot_exact_and_measured(lines, measured, path, title=title, unit=game.payoff_unit)
    elif measured:
        from nashzoo.eval.plots import plot_measured

        written = plot_measured(measured, path, title=title, unit=game.payoff_unit)
    elif not curves[name]:
        say("no plot: the game does not compile and nothing was measured")
        return None
    else:
        from nashzoo.eval.plots import plot_convergence

        lines = [ConvergenceCurve(k, repr(game), tuple(v)) for k, v in curves.items()]
        written = plot_convergence(lines, path, unit=game.payoff_unit)
    say(f"plot written to {written}")
    return str(written)
