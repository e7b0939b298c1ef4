"""The training run: a learner trained to a budget with what a run needs around it, the
same from Python as from ``nashzoo train``.

:func:`run_training` trains any learner of :mod:`nashzoo.agents` (the ``Learner``
protocol) and, while it trains:

* measures exact exploitability every ``eval_every`` seconds where the game compiles
  (the curve; with ``keep_best`` the best checkpoint is what ``out`` holds);
* where the game does not compile (or when ``measure_deals`` is given), measures
  duplicate scores against the game's baselines with their intervals, and LBR where
  ``lbr_hands`` asks for it, every ``measure_every`` seconds and at the end, written to
  ``OUT.curve.json`` as they come;
* saves a checkpoint to ``out`` every ``checkpoint_every`` seconds and at every measured
  point, so an interrupted run loses at most that (``resume=True`` continues it: the
  learner from the file, its measured points from ``OUT.curve.json``, the budget counting
  the whole run);
* logs every figure to ``log_dir/scalars.csv`` (and TensorBoard) and draws ``plot``.

Five lines train NFSP with a curve and checkpoints::

    from nashzoo.agents.nfsp import NFSP
    from nashzoo.games import LeducHoldemGame
    from nashzoo.training import run_training

    run = run_training(NFSP(LeducHoldemGame()), steps=20_000, eval_every=2, out="nfsp.pt")
    print(run.curves["nfsp"][-1])

It sits above both the learners (``agents``) and the measurements (``eval``), which do
not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nashzoo.errors import GameTooLargeError, InvalidParameterError

__all__ = ["TrainingRun", "make_folder_of", "run_training"]


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
) -> TrainingRun:
    """Train ``learner`` for ``steps`` and/or ``seconds`` (the budget of the whole run)
    with its curve, measured points, checkpoints and plot (see the module docstring).

    Args:
        learner: a learner (``Learner`` protocol); with ``resume``, the one saved in
            ``out`` (``NFSP.load(out)``), whose run continues.
        steps, seconds: the budget (at least one); counted over the whole run on resume.
        out: where checkpoints go; ``None`` saves nothing.
        resume: ``learner`` is the run saved in ``out``: continue it (its measured points
            from ``OUT.curve.json``, the budget counting its steps and seconds so far).
        keep_best: where the game compiles, ``out`` keeps the least exploitable
            checkpoint.
        eval_every: seconds of training between exact measurements.
        checkpoint_every: seconds of training between checkpoints (0: at every callback).
        measure_every: seconds of training between measured points.
        measure_deals: duplicate deals per measured point (``None``: 100 where the game
            does not compile, none where it does; 0: none).
        lbr_hands: LBR hands per measured point (0: none).
        log_dir: a folder for ``scalars.csv`` (and TensorBoard with ``tensorboard``).
        plot: a PNG of the curve and the measured points.
        progress: show a progress bar.
        echo: where each line of the run goes (``None``: nowhere).

    Raises:
        InvalidParameterError: no budget, a negative interval, ``keep_best`` or
            ``resume`` without ``out``, or ``tensorboard`` without ``log_dir``.
    """
    from nashzoo.agents.learner import ConvergencePoint, HasPriorAgent, MeasuresMore, Resumable
    from nashzoo.agents.scripted import baselines
    from nashzoo.eval.curves import measure_point, read_points, write_points

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
        if not value >= 0:
            raise InvalidParameterError(f"`{name}` must be >= 0 seconds, received {value}.")
    out = None if out is None else str(out)
    game = learner.game
    if resume and isinstance(learner, Resumable) and not learner.resumable:
        raise InvalidParameterError(
            f"resume {out}: the file is an agent file, saved without the learner's "
            "memories; expected a checkpoint (the file `out` writes during training)."
        )
    make_folder_of("out", out)
    make_folder_of("plot", plot)
    given_deals = measure_deals is not None
    deals = 100 if measure_deals is None else int(measure_deals)
    name = getattr(learner, "name", type(learner).__name__)
    run = TrainingRun(learner, curves={name: []})
    state = {"exact": True, "best": float("inf"), "measured": -float("inf")}
    state["saved"] = learner.seconds  # training seconds at the last checkpoint
    log = None
    if log_dir is not None:
        from nashzoo.agents.training import ScalarLog

        log = ScalarLog(log_dir, tensorboard=tensorboard)
        say(f"figures logged to {log.path}" + (" and TensorBoard" if tensorboard else ""))
    curve_file = None if out is None else out + ".curve.json"
    if resume and curve_file is not None and Path(curve_file).exists():
        # a point written after the last save is dropped
        run.measured = [p for p in read_points(curve_file) if p.step <= learner.steps]
    measured = run.measured
    if measured:
        state["measured"] = measured[-1].seconds

    def measure(m: Any, *, final: bool = False) -> str:
        """A measured point (duplicate scores, LBR): every ``measure_every`` seconds of
        training, and at the end."""
        if deals < 1 and lbr_hands < 1:
            return ""
        if measured and measured[-1].step == m.steps:
            return ""
        if not final and m.seconds - state["measured"] < measure_every:
            return ""
        state["measured"] = m.seconds
        agent = m.agent()
        point = measure_point(
            game,
            agent,
            baselines(game) if deals > 0 else {},
            deals=max(deals, 1),
            seed=len(measured),
            lbr_policy=m.prior_agent() if isinstance(m, HasPriorAgent) else agent,
            lbr_hands=lbr_hands,
            step=m.steps,
            seconds=m.seconds,
            step_unit=m.step_unit,
        )
        measured.append(point)
        if curve_file is not None:
            write_points(measured, curve_file)
        if log is not None:
            figures = {f"vs_{k}": v for k, (v, _, _) in point.duplicate.items()}
            if point.lbr is not None:
                figures["lbr"] = point.lbr[0]
            log.write(m.steps, m.seconds, **figures)
        return "  " + point.text(game.payoff_unit)

    def record(m: Any) -> None:
        line = f"{m.seconds:8.1f} s {m.steps:>11,} {m.step_unit}"
        kept = ""
        if state["exact"]:
            try:
                value = float(m.exploitability())
            except GameTooLargeError:  # the learner's own test: it cannot tabulate
                state["exact"] = False
                how = (
                    "measured instead (duplicate scores against baselines, LBR) every "
                    f"{measure_every:g} s of training"
                    if deals > 0 or lbr_hands > 0
                    else "training only (no deals, no LBR hands)"
                )
                say(f"{game} does not compile: no exact exploitability; {how}.")
            else:
                values = {name: value}
                if isinstance(m, MeasuresMore):
                    values.update(m.other_exploitabilities())
                for which, v in values.items():
                    point = ConvergencePoint(m.steps, m.seconds, float(v), m.step_unit)
                    run.curves.setdefault(which, []).append(point)
                line += f"  exploitability {value:.4f}"
                if log is not None:  # the learner's own figure, then the others it measures
                    names = ["exploitability"] + [
                        f"exploitability_{k}".replace("-", "_").replace(" ", "_")
                        for k in list(values)[1:]
                    ]
                    log.write(m.steps, m.seconds, **dict(zip(names, values.values())))
                line += "".join(f"  {k} {v:.4f}" for k, v in list(values.items())[1:])
                if keep_best and value < state["best"]:
                    state["best"] = value
                    m.save(out)
                    kept = "  (best so far, saved)"
        # measured where the game does not compile, and where it does only when asked for
        took = measure(m) if not state["exact"] or given_deals else ""
        line += took
        due = m.seconds - state["saved"] >= checkpoint_every
        if out is not None and not (keep_best and state["exact"]) and (took or due):
            # at every measured point and every checkpoint_every seconds: an interrupted
            # run keeps its work (with keep_best on a game that does not compile there is
            # no best to keep: the last is saved)
            m.save(out)
            state["saved"] = m.seconds
        say(line + kept)

    left_steps = None if steps is None else steps - (learner.steps if resume else 0)
    left_seconds = None if seconds is None else seconds - (learner.seconds if resume else 0)
    if (left_steps is not None and left_steps <= 0) or (
        left_seconds is not None and left_seconds <= 0
    ):
        say(
            f"{out} holds {learner.steps:,} {learner.step_unit} in {learner.seconds:.1f} s "
            "of training: the budget is spent, nothing to train"
        )
    else:
        learner.train(
            steps=left_steps,
            seconds=left_seconds,
            callback=record,
            callback_every=eval_every,
            progress=progress,
        )
    if not state["exact"] or given_deals:
        line = measure(learner, final=True)
        if line:
            say(f"{learner.seconds:8.1f} s {learner.steps:>11,} {learner.step_unit}{line}")
    if log is not None:
        log.close()
    if keep_best and state["exact"]:
        run.best = state["best"]
        say(f"best checkpoint (exploitability {state['best']:.4f}) in {out}")
    elif out is not None:
        run.saved = str(learner.save(out))
        say(f"saved to {run.saved}")
    if plot is not None:
        run.plot = _plot(run, game, name, str(plot), say)
    return run


def _plot(
    run: TrainingRun, game: Any, name: str, path: str, say: Callable[[str], None]
) -> str | None:
    """Draw the run's curves and measured points; the path written, or ``None``."""
    from nashzoo.agents.learner import ConvergenceCurve

    title = f"{name} on {game}"
    curves, measured = run.curves, run.measured
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
