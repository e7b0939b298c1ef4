"""The tabular solvers as one :class:`~nashzoo.agents.learner.Learner`.

``TabularLearner(game, TabularConfig(algorithm="dcfr"))`` wraps the solver
:func:`~nashzoo.agents.cfr.make_solver` builds, so ``nashzoo train cfr GAME --algorithm
dcfr`` and the other learners share one shape. One step is one solver iteration; steps
run in compiled batches that grow until a batch takes about a tenth of a second, so the
time budget and the callbacks stay responsive without a Python call per iteration.

A saved file is an ordinary policy ``.npz`` (the average policy; every tool that reads
policy files reads it) that also holds the solver's arrays and counters, so
:meth:`TabularLearner.load` resumes the run where it stopped.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.cfr.agent import TabularPolicyAgent
from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.agents.training import SteppedLearner
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.games.base import Game
from nashzoo.tree.compile import compile_game
from nashzoo.tree.policy import TabularPolicy
from nashzoo.validation import Config, choice, seed_field

__all__ = ["TabularConfig", "TabularLearner"]

# nash-memory keeps lists of policies rather than arrays; it runs through `nashzoo solve`
_ALGORITHMS = (
    "rm", "cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "mmd", "es-mccfr", "os-mccfr", "xfp", "fsp",
)  # fmt: skip
_SAMPLING = ("es-mccfr", "os-mccfr", "fsp")
_STATE_PREFIX = "solver."


@dataclass(frozen=True)
class TabularConfig(Config):
    """Settings of a tabular solver run as a learner.

    Attributes:
        algorithm: which solver (see :mod:`nashzoo.agents.cfr`).
        seed: seed of the sampling solvers (es-mccfr, os-mccfr, fsp); the others are
            deterministic and ignore it.
    """

    algorithm: str = choice("cfr+", _ALGORITHMS, help="which tabular solver")
    seed: int | None = seed_field(0, help="seed of the sampling solvers")


def _flatten(name: str, value: Any) -> dict[str, np.ndarray]:
    """The arrays of a solver attribute: an array, or lists/tuples of them (buffers)."""
    if isinstance(value, np.ndarray):
        return {name: value}
    if isinstance(value, (list, tuple)):
        out: dict[str, np.ndarray] = {}
        for i, item in enumerate(value):
            out.update(_flatten(f"{name}.{i}", item))
        return out
    return {}


def _restore(name: str, current: Any, stored: dict[str, np.ndarray], path: str) -> Any:
    """``current`` with its arrays replaced by the stored ones (same structure; an array
    keeps its shape, one inside a list, a buffer, may have grown)."""
    if isinstance(current, np.ndarray):
        value = stored.get(name)
        fits = value is not None and (
            value.shape == current.shape
            or ("." in name[len(_STATE_PREFIX) :] and value.ndim == current.ndim)
        )
        if not fits:
            raise PolicyFileError(
                f"{path}: solver array {name[len(_STATE_PREFIX) :]!r} does not fit."
            )
        return value.astype(current.dtype)  # type: ignore[union-attr]
    if isinstance(current, (list, tuple)):
        items = [_restore(f"{name}.{i}", item, stored, path) for i, item in enumerate(current)]
        return type(current)(items)
    return current


class TabularLearner(SteppedLearner):
    """A tabular solver behind the :class:`~nashzoo.agents.learner.Learner` protocol.

    Args:
        game: the game (it must compile).
        config: which solver and its seed (default ``TabularConfig()``: CFR+).

    Raises:
        InvalidParameterError: ``config`` is not a :class:`TabularConfig`.
        GameTooLargeError: the game does not compile.
    """

    name: ClassVar[str] = "cfr"
    config_type: ClassVar[type] = TabularConfig
    step_unit: ClassVar[str] = "iterations"

    def __init__(self, game: Game, config: TabularConfig | None = None) -> None:
        from nashzoo.agents.cfr import make_solver

        config = TabularConfig() if config is None else config
        if not isinstance(config, TabularConfig):
            raise InvalidParameterError(
                f"config must be a TabularConfig, received {type(config).__name__}."
            )
        if not isinstance(game, Game):
            raise InvalidParameterError(
                f"TabularLearner needs a nashzoo Game, received {type(game).__name__}."
            )
        self.game = game
        self.config = config
        seed = config.seed if config.algorithm in _SAMPLING else None
        self.solver: TabularSolver = make_solver(config.algorithm, compile_game(game), seed=seed)
        self.seconds = 0.0
        self._batch = 1

    @property
    def steps(self) -> int:
        """Solver iterations so far."""
        return self.solver.iteration

    def _train_step(self, left: int | None) -> int:
        n = self._batch if left is None else min(self._batch, left)
        start = time.perf_counter()
        before = self.solver.iteration
        self.solver.iterate(n)
        if time.perf_counter() - start < 0.1:
            self._batch = min(2 * self._batch, 1 << 20)
        ran = self.solver.iteration - before
        return ran if ran else n  # a solver that has finished counts its budget as done

    def _train_postfix(self) -> dict[str, Any]:
        return {"iterations": self.steps}

    @property
    def train_desc(self) -> str:  # type: ignore[override]
        return self.config.algorithm

    def average_policy(self) -> TabularPolicy:
        """The average policy (the one that converges to an equilibrium)."""
        return self.solver.average_policy()

    def exploitability(self) -> float:
        """Exact exploitability (chips) of the average policy."""
        return self.solver.exploitability()

    def agent(self, *, name: str | None = None, seed: int | None = None) -> TabularPolicyAgent:
        """The average policy as an agent."""
        return TabularPolicyAgent(
            self.average_policy(), name=name or self.config.algorithm, seed=seed
        )

    def save(self, path: str | Path) -> Path:
        """Write the average policy as a policy ``.npz`` holding the solver's state too."""
        path = Path(path)
        if path.suffix != ".npz":
            raise InvalidParameterError(
                f"A tabular learner saves to an .npz file, received {path.name!r}."
            )
        arrays: dict[str, np.ndarray] = {}
        generators: dict[str, Any] = {}
        for key, value in vars(self.solver).items():
            if isinstance(value, np.random.Generator):
                generators[key] = value.bit_generator.state
            else:
                arrays.update(_flatten(_STATE_PREFIX + key, value))
        policy = self.average_policy()
        policy.metadata["learner"] = {
            "name": self.name,
            "config": self.config.to_dict(),
            "iteration": self.solver.iteration,
            "solver_seconds": self.solver.seconds,
            "seconds": self.seconds,
            "generators": json.loads(json.dumps(generators, default=int)),
        }
        return policy.save(path, arrays=arrays)

    @classmethod
    def load(cls, path: str | Path) -> TabularLearner:
        """The learner a file written by :meth:`save` holds, ready to train on.

        Raises:
            PolicyFileError: not a policy file, or a policy file without a learner's state
                (e.g. one written by ``TabularPolicy.save``).
            FileNotFoundError: no such file.
        """
        policy = TabularPolicy.load(path)
        saved = policy.metadata.get("learner")
        if not isinstance(saved, dict) or saved.get("name") != cls.name:
            raise PolicyFileError(
                f"{path} holds a policy but no tabular learner's state; a learner resumes "
                "only from a file that TabularLearner.save wrote."
            )
        with PolicyFileError.reading(path, "tabular learner"):
            learner = cls(policy.game, TabularConfig.from_dict(saved["config"]))
            solver = learner.solver
            with np.load(path, allow_pickle=False) as data:
                stored = {k: data[k] for k in data.files if k.startswith(_STATE_PREFIX)}
            for key, value in vars(solver).items():
                if not isinstance(value, np.random.Generator):
                    restored = _restore(_STATE_PREFIX + key, value, stored, str(path))
                    setattr(solver, key, restored)
            for key, state in saved["generators"].items():
                getattr(solver, key).bit_generator.state = state
            solver.iteration = int(saved["iteration"])
            solver.seconds = float(saved["solver_seconds"])
            learner.seconds = float(saved["seconds"])
        return learner

    def __repr__(self) -> str:
        return f"TabularLearner({self.game}, {self.config.algorithm}, steps={self.steps})"
