"""What the self-play learners share: their MLPs, their budgeted training loop and the
tabulation of a network policy on a game that compiles."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.validation import check_int, check_number, text

if TYPE_CHECKING:
    from nashzoo.agents.learner import TrainCallback

__all__ = [
    "mlp",
    "train_loop",
    "SteppedLearner",
    "tabular_policy",
    "ScalarLog",
    "torch_device",
    "device_field",
    "cpu_weights",
    "DEVICE_PATTERN",
]

DEVICE_PATTERN = r"auto|cpu|cuda(:\d+)?"
"""What a learner's ``device`` setting may say."""


def device_field() -> Any:
    """A learner config's ``device`` field: ``"auto"`` (the default), ``"cpu"``,
    ``"cuda"`` or ``"cuda:N"`` (:func:`torch_device` resolves it); anything else is
    refused when the config is made."""
    return text("auto", pattern=DEVICE_PATTERN, says="'auto', 'cpu', 'cuda' or 'cuda:N'")


def cpu_weights(net: Any) -> dict[str, Any]:
    """A snapshot of ``net``'s weights as CPU tensors (copies, whatever device the
    network is on): what a learner sends its actors, which act on the CPU."""
    return {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}


class ScalarLog:
    """A training run's figures as they are measured, for plotting tools: every
    :meth:`write` appends ``step,seconds,name,value`` rows to ``<folder>/scalars.csv``
    (a long table: new figures need no new columns; ``pandas.read_csv`` then ``pivot``
    gives SB3's wide layout), flushed at once so that a killed run keeps every row; with
    ``tensorboard=True`` the same scalars also go to TensorBoard event files in
    ``folder`` (``tensorboard --logdir FOLDER``; needs the ``tensorboard`` package).
    A callback of :meth:`~nashzoo.agents.learner.Learner.train` writes it (``nashzoo
    train ... --log-dir DIR``).

    Raises:
        MissingDependencyError: ``tensorboard=True`` without the tensorboard package.
    """

    def __init__(self, folder: str | Path, *, tensorboard: bool = False) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "scalars.csv"
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        self._file = self.path.open("a", encoding="utf-8")
        if fresh:
            self._file.write("step,seconds,name,value\n")
            self._file.flush()
        self._board = None
        if tensorboard:
            from nashzoo.extras import require

            require("tensorboard", "tensorboard", "TensorBoard logging")
            from torch.utils.tensorboard import SummaryWriter

            self._board = SummaryWriter(log_dir=str(self.folder))

    def write(self, step: int, seconds: float, **values: float) -> None:
        """One row per named figure at ``step`` (``seconds`` of training)."""
        for name, value in values.items():
            self._file.write(f"{int(step)},{float(seconds):.3f},{name},{float(value)!r}\n")
            if self._board is not None:
                self._board.add_scalar(name, float(value), int(step), walltime=None)
        self._file.flush()
        if self._board is not None:
            self._board.flush()

    def close(self) -> None:
        self._file.close()
        if self._board is not None:
            self._board.close()


def mlp(torch: Any, sizes: list[int]) -> Any:
    """``Linear`` layers of ``sizes`` with ReLUs between them (none after the last)."""
    layers: list[Any] = []
    for k in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def train_loop(
    learner: Any,
    step: Callable[[int | None], int],
    *,
    steps: int | None,
    seconds: float | None,
    callback: Any,
    callback_every: float,
    progress: bool,
    desc: str,
    postfix: Callable[[], dict[str, Any]] | None = None,
    cleanup: Callable[[], None] | None = None,
) -> None:
    """The training loop of every :class:`~nashzoo.agents.learner.Learner`: call
    ``step(left)`` (``left``: steps still allowed, ``None`` without a step budget; it
    returns how many steps it did) until ``steps`` steps or ``seconds`` of training,
    adding its time to ``learner.seconds``; the progress bar counts
    ``learner.step_unit``.

    ``callback`` (a :class:`~nashzoo.agents.learner.Callback`, a function of the learner
    or a list of them) hears ``on_training_start``, then ``on_step`` every
    ``callback_every`` seconds of training and after the last step (its time is not
    counted; ``False`` stops), then ``on_training_end``. ``cleanup()`` runs when the loop
    ends, however it ends (a learner's actors are stopped there).

    Raises:
        InvalidParameterError: neither ``steps`` nor ``seconds`` is given, or either is
            negative, or ``callback_every`` is not positive.
    """
    if steps is None and seconds is None:
        raise InvalidParameterError(
            f"{type(learner).__name__}.train() needs `steps` or `seconds`, received neither."
        )
    steps = None if steps is None else check_int("steps", steps, 0)
    seconds = None if seconds is None else check_number("seconds", seconds, low=0.0)
    callback_every = check_number("callback_every", callback_every, low=0.0, low_inclusive=False)
    from nashzoo.agents.learner import as_callback

    try:
        hooks = as_callback(callback)
        done = 0
        start = learner.seconds
        next_callback = learner.seconds + callback_every
        bar = None
        if progress:
            from nashzoo.extras import progress_bar

            unit = {"episodes": "ep", "iterations": "it", "generations": "gen"}
            bar = progress_bar(total=steps, unit=unit.get(learner.step_unit, "step"), desc=desc)
        if hooks is not None:
            hooks.on_training_start(learner)
        while steps is None or done < steps:
            t0 = time.perf_counter()
            n = step(None if steps is None else steps - done)
            learner.seconds += time.perf_counter() - t0
            done += n
            if bar is not None:
                bar.update(n)
            stop = (steps is not None and done >= steps) or (
                seconds is not None and learner.seconds - start >= seconds
            )
            if hooks is not None and (learner.seconds >= next_callback or stop):
                next_callback = learner.seconds + callback_every
                if hooks.on_step(learner) is False:
                    stop = True
                if bar is not None and postfix is not None:
                    bar.set_postfix(**postfix())
            if stop:
                break
        if bar is not None:
            bar.close()
        if hooks is not None:
            hooks.on_training_end(learner)

    finally:
        if cleanup is not None:
            cleanup()


_L = TypeVar("_L", bound="SteppedLearner")


class SteppedLearner:
    """The ``train`` of the self-play learners (a base class): :func:`train_loop` over the
    learner's :meth:`_train_step`. A learner defines :meth:`_train_step`, and where it
    needs them :meth:`_train_start`, :meth:`_train_end`, :meth:`_train_postfix` and
    :meth:`close`; ``train_desc`` labels the progress bar (the class's name if empty)."""

    train_desc = ""

    def _train_step(self, left: int | None) -> int:
        """One step of training, at most ``left`` units where the budget counts steps;
        returns how many units it did."""
        raise NotImplementedError

    def _train_start(self, steps: int | None, seconds: float | None) -> None:
        """Before a :meth:`train` call's loop (its budget): refuse, or get ready."""

    def _train_end(self) -> None:
        """After a :meth:`train` call's loop ended with its budget or a callback."""

    def _train_postfix(self) -> dict[str, Any]:
        """The progress bar's figures."""
        return {}

    def close(self) -> None:
        """Stop what training started (actors); runs however the loop ends, and a later
        :meth:`train` starts anew."""

    def train(
        self: _L,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: TrainCallback | None = None,
        callback_every: float = 10.0,
        progress: bool = False,
    ) -> _L:
        """Train ``steps`` more steps (of the learner's ``step_unit``) or for ``seconds``
        of training, whichever ends first (at least one is needed; a step in progress
        finishes, so a few more units than ``steps`` may be done where a step does
        several). ``callback`` (a :class:`~nashzoo.agents.learner.Callback`, a function
        of the learner or a list of them) runs every ``callback_every`` seconds of
        training and at the end, its time not counted; ``False`` stops. ``progress``
        shows a progress bar. Returns the learner.

        Raises:
            InvalidParameterError: neither budget, a negative one, or a
                ``callback_every`` that is not positive.
        """
        self._train_start(steps, seconds)
        train_loop(
            self,
            self._train_step,
            steps=steps,
            seconds=seconds,
            callback=callback,
            callback_every=callback_every,
            progress=progress,
            desc=self.train_desc or type(self).__name__,
            postfix=self._train_postfix,
            cleanup=self.close,
        )
        self._train_end()
        return self


def tabular_policy(
    game: Any,
    probs_of: Callable[[int, np.ndarray, np.ndarray], np.ndarray],
    metadata: dict[str, Any],
) -> Any:
    """A network policy as a :class:`~nashzoo.tree.TabularPolicy` of ``game`` (compiled):
    ``probs_of(player, tensors, masks)`` answers all of a player's information sets in one
    batch (float32 tensors, bool masks)."""
    from nashzoo.tree import TabularPolicy, compile_game

    tree = compile_game(game)
    probs = np.zeros(tree.legal_mask.shape)
    for p in range(tree.num_players):
        rows = tree.infosets_of(p)
        probs[rows] = probs_of(
            p, tree.infoset_tensor[rows].astype(np.float32), tree.legal_mask[rows].astype(bool)
        )
    return TabularPolicy(tree, probs, metadata=metadata)


def torch_device(torch: Any, setting: str) -> Any:
    """The ``torch.device`` of a config's ``device`` setting (``"auto"``: CUDA when torch
    sees a GPU, else the CPU).

    Raises:
        InvalidParameterError: CUDA asked for where torch sees none, or a GPU index it
            does not have.
    """
    if setting == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if setting.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(setting.partition(":")[2] or 0)
        if index >= count:
            raise InvalidParameterError(
                f"device={setting!r} needs a CUDA GPU {index}; torch {torch.__version__} sees "
                f"{count} here. Use device='cpu' or 'auto'."
            )
    return torch.device(setting)
