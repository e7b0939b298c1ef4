"""Nash memory as a learner: ``nashzoo train nash-memory GAME``.

:class:`~nashzoo.agents.nash_memory.PopulationNashMemory` grows a population of agents by
best-responding to the population's Nash mixture. This module gives it the learner
interface (train, measure, save, load, agent) and picks its oracle and measure from the
game, so one command trains it on any two-player zero-sum game:

* where the game compiles (Kuhn, Leduc, the small fighting presets), the exact best
  response is the oracle and exact expected scores fill the meta-game, and the curve is
  the mixture's exact exploitability;
* where it does not (Limit Hold'em, the fighting game's default preset), a learned best
  response is the oracle and duplicate matches with their standard errors fill the
  meta-game: by default MaskablePPO trained against the mixture
  (:func:`nashzoo.bounds.learned_oracle`) and matches with AIVAT where the game has a
  value function (:func:`nashzoo.bounds.duplicate_measure`), or any ``oracle`` and
  ``measure`` the caller passes;
* ``oracle="learned"`` forces the second on a game that compiles, so the two are
  compared where exploitability is exact (``benchmarks/neural_learners.py``).

The default learned oracle and measure train in Gymnasium wrappers and play matches, a
layer above the agents; the learner names them by import path
(:data:`LEARNED_ORACLE`, :data:`DUPLICATE_MEASURE`) and imports them only when it needs
them, as the learner registry imports its learners.

Saved files hold data only (read with ``weights_only=True``): tabular members as their
probability arrays over the compiled tree, learned members as their MaskablePPO policy
weights, which are loaded into a fresh policy of the same shape (nothing is unpickled).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.cfr.agent import TabularPolicyAgent
from nashzoo.agents.nash_memory.population import (
    MixtureAgent,
    PopulationNashMemory,
    PopulationRecord,
    exact_measure,
    exact_oracle,
)
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.runtime import ActorConfig, Rounds
from nashzoo.agents.training import SteppedLearner
from nashzoo.errors import GameTooLargeError, InvalidParameterError, PolicyFileError
from nashzoo.games import Game
from nashzoo.games.info import load_declared
from nashzoo.validation import choice, integer, number, seed_field

__all__ = ["NashMemoryConfig", "NashMemoryLearner", "LEARNED_ORACLE", "DUPLICATE_MEASURE"]

LEARNED_ORACLE = "nashzoo.bounds.oracles:learned_oracle"
"""The default learned oracle's factory (``steps=``, ``num_envs=``): MaskablePPO trained
against the mixture."""
DUPLICATE_MEASURE = "nashzoo.bounds.oracles:duplicate_measure"
"""The default measure's factory (``deals``) where members are learned: duplicate
matches."""


@dataclass(frozen=True)
class NashMemoryConfig(ActorConfig):
    """Nash memory's settings.

    Attributes:
        oracle: ``"auto"`` (the exact best response where the game compiles, a learned
            one elsewhere), ``"exact"`` or ``"learned"``.
        oracle_steps: MaskablePPO training steps per learned best response.
        oracle_growth: after each rejected candidate, the next learned best response
            trains this many times the steps of the last one (up to
            ``oracle_steps_cap``); an admitted candidate sets them back to
            ``oracle_steps``. A stronger oracle is what a stalled memory needs: a
            candidate that cannot beat the mixture at one budget may at twice it. 1.0:
            every candidate trains ``oracle_steps``. Only the default learned oracle
            grows (the constructor refuses ``oracle=`` with a growth).
        oracle_steps_cap: the most steps a grown oracle trains (``None``: no cap).
        oracle_envs: games the learned best response plays at once.
        meta_deals: duplicate deals per meta-game entry where entries are measured by
            play (learned members); exact entries need none.
        seed: seeds the oracles, the mixture's draws and the matches.
        admission_z: standard errors a candidate's gain against the mixture must clear
            to join (and the robust meta-solver's interval width).
        admission_margin: the gain it must beat; ``None``: every candidate joins (the
            PSRO loop).
        memory_cap: the most members kept beside the support once they leave it
            (``None``: all).
        meta_solver: ``"nash"`` (the measured means) or ``"robust"`` (the maximin over
            the entries' intervals).
        candidates: best responses trained an iteration, each from its own seed; the
            one whose gain against the mixture has the highest lower bound is measured
            afresh for admission (:class:`~nashzoo.agents.nash_memory.PopulationNashMemory`).
            With actors, they train side by side.

    With ``actors`` (:class:`~nashzoo.agents.runtime.ActorConfig`), an iteration's
    candidates are trained on the actors (candidate j on actor j mod N, the mixture sent
    as the data its files hold, each candidate sent back the same way), and each round
    of meta-game entries (the candidates against the support, then the chosen one
    against the support and the memory) is split among them; all in lockstep. Each
    candidate and entry has its own seed, so the meta-game is the one this process
    would measure from the same members.
    """

    oracle: str = choice("auto", ("auto", "exact", "learned"))
    oracle_steps: int = integer(50_000, low=1)
    oracle_growth: float = number(1.0, low=1.0)
    oracle_steps_cap: int | None = integer(None, low=1, optional=True)
    oracle_envs: int = integer(16, low=1)
    meta_deals: int = integer(2000, low=1)
    seed: int | None = seed_field(0)
    admission_z: float = number(1.96, low=0.0)
    admission_margin: float | None = number(0.0, optional=True)
    memory_cap: int | None = integer(None, low=0, optional=True)
    meta_solver: str = choice("nash", ("nash", "robust"))
    candidates: int = integer(1, low=1)


def _compiles(game: Game) -> bool:
    from nashzoo.tree import compiled_or_none

    return compiled_or_none(game) is not None


class NashMemoryLearner(SteppedLearner):
    """Nash memory over agents with the learner interface (see the module).

    Args:
        game: a two-player zero-sum game.
        config: :class:`NashMemoryConfig`.
        oracle: where the learner uses a learned oracle (``config.oracle`` ``"learned"``,
            or ``"auto"`` on a game that does not compile), this one instead of
            MaskablePPO: ``oracle(game, mixture, seed) -> agent``
            (:data:`~nashzoo.agents.nash_memory.Oracle`).
        measure: likewise, the meta-game's measure instead of duplicate matches:
            ``measure(game, a, b, seed) -> (mean, stderr)``
            (:data:`~nashzoo.agents.nash_memory.Measure`).

    Raises:
        InvalidParameterError: not a two-player zero-sum game, ``oracle="exact"`` on a
            game that does not compile, or ``oracle``/``measure`` given where the learner
            uses the exact ones.
    """

    name: ClassVar[str] = "nash-memory"
    config_type: ClassVar[type] = NashMemoryConfig
    step_unit: ClassVar[str] = "iterations"
    file_format: ClassVar[str] = "nashzoo.nash_memory"

    def __init__(
        self,
        game: Game,
        config: NashMemoryConfig | None = None,
        *,
        oracle: Any = None,
        measure: Any = None,
    ) -> None:
        self.game = game
        self.config = config or NashMemoryConfig()
        compiles = _compiles(game)
        if self.config.oracle == "exact" and not compiles:
            raise InvalidParameterError(
                f"oracle='exact' needs a game that compiles; {game} does not (use 'auto' "
                "or 'learned')."
            )
        self.exact = self.config.oracle == "exact" or (self.config.oracle == "auto" and compiles)
        actor = functools.partial(_MatchActor, game.to_spec(), self.config.actors or 1)
        self._rounds = Rounds(  # where it has actors
            self.config, actor, self.config.seed, lockstep="a round answers its members together"
        )
        seed = 0 if self.config.seed is None else self.config.seed
        c = self.config
        if self.exact and (oracle is not None or measure is not None):
            raise InvalidParameterError(
                "oracle= and measure= replace the learned oracle and measure, but this "
                f"learner uses the exact ones (oracle={c.oracle!r} on {game}, which "
                "compiles): set NashMemoryConfig(oracle='learned')."
            )
        grows = c.oracle_growth != 1.0
        if grows and (self.exact or oracle is not None):
            raise InvalidParameterError(
                f"NashMemoryConfig.oracle_growth grows the default learned oracle's steps, "
                f"received oracle_growth={c.oracle_growth} with "
                + ("the exact oracle" if self.exact else "an oracle of your own")
                + " (set oracle_growth=1.0)."
            )
        if self.exact:
            oracle, measure, initial = exact_oracle, exact_measure, None
        else:
            if oracle is None:
                oracle = self._learned_oracle(c.oracle_steps)
            if measure is None:
                measure = load_declared(DUPLICATE_MEASURE)(c.meta_deals)
            for name, value in (("oracle", oracle), ("measure", measure)):
                if not callable(value):
                    raise InvalidParameterError(
                        f"NashMemoryLearner's {name} must be callable, received "
                        f"{type(value).__name__}."
                    )
            initial = None if compiles else [RandomAgent(seed=seed, name="random")]
        self.memory = PopulationNashMemory(
            game,
            oracle=oracle,
            measure=measure,
            initial=initial,
            seed=seed,
            admission_z=c.admission_z,
            admission_margin=c.admission_margin,
            memory_cap=c.memory_cap,
            meta_solver=c.meta_solver,
            measure_many=None if c.actors is None else self._measure_on_actors,
            candidates=c.candidates,
            oracle_many=None if c.actors is None else self._oracle_on_actors,
        )
        self.seconds = 0.0

    # -- the oracle and the meta-game's matches on actors ---------------------------------
    def _on_actors(self, job: dict[str, Any], n: int) -> list[Any]:
        """One lockstep round of ``job``'s ``n`` items (item k on actor k mod N), their
        results back in item order."""
        found: dict[int, Any] = {}
        for part in self._rounds.run(job):
            found.update(part)
        return [found[k] for k in range(n)]

    def _measure_on_actors(
        self, game: Game, work: list[tuple[Any, Any, int]]
    ) -> list[tuple[float, float]]:
        """A round's entries, dealt to the actors in turn (entry k to actor k mod N)."""
        members: dict[int, Any] = {}  # each member once, as data
        for a, b, _ in work:
            for member in (a, b):
                members.setdefault(id(member), _member_state(member))
        entries = [(id(a), id(b), seed) for a, b, seed in work]
        job = {"measure": self.memory.measure, "members": members, "entries": entries}
        return self._on_actors(job, len(work))

    def _oracle_on_actors(self, game: Game, mixture: MixtureAgent, seeds: list[int]) -> list[Any]:
        """An iteration's candidates, trained on the actors (candidate j on actor j mod N)
        against the mixture sent as data; back as data, rebuilt here."""
        job = {
            "oracle": self.memory.oracle,
            "mixture": [_member_state(m) for m in mixture.members],
            "weights": mixture.weights,
            "draws": mixture.seed,
            "seeds": seeds,
        }
        return [_member_from(state, game) for state in self._on_actors(job, len(seeds))]

    def close(self) -> None:
        """Stop the actors, if any (training does this when it ends)."""
        self._rounds.close()

    @property
    def version(self) -> int:
        """Rounds of entries sent to the actors so far."""
        return self._rounds.version

    @property
    def steps(self) -> int:
        """Iterations so far (each adds one best response)."""
        return len(self.memory.history)

    # -- training ------------------------------------------------------------------------------
    train_desc = "NashMemory"

    def _learned_oracle(self, steps: int) -> Any:
        return load_declared(LEARNED_ORACLE)(steps=steps, num_envs=self.config.oracle_envs)

    def oracle_steps(self) -> int:
        """The steps the next learned best response trains: ``oracle_steps`` times
        ``oracle_growth`` to the power of the candidates rejected since the last
        admission (or since the start), capped at ``oracle_steps_cap``."""
        c = self.config
        rejected = 0
        for record in reversed(self.memory.history):
            if record.admitted:
                break
            rejected += 1
        steps = round(c.oracle_steps * c.oracle_growth**rejected)
        return steps if c.oracle_steps_cap is None else min(steps, c.oracle_steps_cap)

    def _train_step(self, left: int | None) -> int:
        if self.config.oracle_growth != 1.0:  # the oracle of this step's budget
            self.memory.oracle = self._learned_oracle(self.oracle_steps())
        self.memory.iterate(1)
        return 1

    def _train_postfix(self) -> dict[str, Any]:
        postfix: dict[str, Any] = {"members": len(self.memory.members)}
        if self.config.oracle_growth != 1.0:
            postfix["oracle_steps"] = self.oracle_steps()
        return postfix

    # -- measuring and playing -----------------------------------------------------------------
    def exploitability(self) -> float:
        """The mixture's exact exploitability (chips).

        Raises:
            GameTooLargeError: the game does not compile.
        """
        value = self.memory.exploitability()
        if value is None:
            raise GameTooLargeError(
                f"{self.game} does not compile: Nash memory's mixture has no exact "
                "exploitability here (use duplicate matches or the LBR bound)."
            )
        return float(value)

    def agent(self, *, name: str | None = None, seed: int | None = None) -> MixtureAgent:
        """The memory's Nash mixture: one member drawn per game."""
        mixture = self.memory.mixture(seed=seed)
        mixture.name = name or self.name
        return mixture

    @property
    def history(self) -> list[PopulationRecord]:
        """One record per iteration (gain, weights, exploitability, seconds)."""
        return self.memory.history

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Save the members, the meta-game, the history and the config (data only)."""
        from nashzoo.agents.torch_files import write_torch_file

        members = [_member_state(m) for m in self.memory.members]
        state = {
            "format": self.file_format,
            "version": 1,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "members": members,
            "scores": self.memory.scores.tolist(),
            "stderrs": self.memory.stderrs.tolist(),
            "weights": self.memory.weights.tolist(),
            "left": list(self.memory._left_at),
            "history": [
                [
                    r.iteration,
                    list(r.gain),
                    list(r.weights),
                    r.exploitability,
                    r.seconds,
                    r.admitted,
                    r.evicted,
                ]
                for r in self.memory.history
            ],
            "seconds": self.seconds,
        }
        return write_torch_file(state, path)

    @classmethod
    def load(
        cls, path: str | Path, *, oracle: Any = None, measure: Any = None
    ) -> NashMemoryLearner:
        """Load a file written by :meth:`save` (``weights_only=True``: data only);
        ``oracle`` and ``measure`` as in the constructor, for training on.

        Raises:
            PolicyFileError: not a readable Nash memory file.
        """
        from nashzoo.agents.torch_files import saved_learner

        # the caller's oracle and measure are checked as the constructor checks them
        state, learner = saved_learner(
            cls, path, cls.file_format, "Nash memory", oracle=oracle, measure=measure
        )
        with PolicyFileError.reading(path, "nashzoo Nash memory"):
            memory = learner.memory
            memory.members = [_member_from(m, learner.game) for m in state["members"]]
            memory.scores = np.asarray(state["scores"], dtype=np.float64)
            memory.stderrs = np.asarray(state["stderrs"], dtype=np.float64)
            memory.weights = np.asarray(state["weights"], dtype=np.float64)
            n = len(memory.members)
            if memory.scores.shape != (n, n) or memory.weights.shape != (n,):
                raise ValueError(
                    f"{n} members but a meta-game of shape {memory.scores.shape} and "
                    f"{memory.weights.shape[0]} weights"
                )
            memory.history = [
                PopulationRecord(
                    int(i),
                    (float(g[0]), float(g[1])),
                    tuple(w),
                    e,
                    float(s),
                    bool(more[0]) if more else True,
                    int(more[1]) if more else 0,
                )
                for i, g, w, e, s, *more in state["history"]
            ]
            memory._tabulated = [None] * n
            # when each member left the support (files before the memory M: at 0)
            memory._left_at = state.get("left") or [None if w > 0 else 0 for w in memory.weights]
            learner.seconds = float(state["seconds"])
        return learner


class _MatchActor:
    """An actor of Nash memory (:class:`~nashzoo.agents.runtime.Actor`). A round of
    matches: it rebuilds the members from their data and measures its share of the
    entries (entry k when k mod N is its index); its batch maps entry index to (mean,
    stderr). A round of candidates (a job with an ``oracle``): it rebuilds the mixture
    and trains its share (candidate j when j mod N is its index); its batch maps j to
    the candidate as data. Its count is the entries or candidates it made."""

    def __init__(self, game_spec: dict[str, Any], actors: int, index: int, seed: int) -> None:
        from nashzoo.games import load_game

        self.game = load_game(game_spec)
        self.actors, self.index = actors, index
        self.job: dict[str, Any] = {}

    def set_weights(self, job: dict[str, Any], version: int) -> None:
        self.job = job

    def collect(self) -> tuple[int, Any]:
        job, out = self.job, dict[int, Any]()
        if "oracle" in job:
            members = [_member_from(m, self.game) for m in job["mixture"]]
            for j, seed in enumerate(job["seeds"]):
                if j % self.actors == self.index:
                    mixture = MixtureAgent(members, job["weights"], seed=job["draws"])
                    out[j] = _member_state(job["oracle"](self.game, mixture, seed))
            return len(out), out
        built: dict[int, Any] = {}
        for k, (a, b, seed) in enumerate(job["entries"]):
            if k % self.actors != self.index:
                continue
            for key in (a, b):
                if key not in built:
                    built[key] = _member_from(job["members"][key], self.game)
            out[k] = tuple(map(float, job["measure"](self.game, built[a], built[b], seed)))
        return len(out), out


# -- members as data ----------------------------------------------------------------------------
def _member_state(member: Any) -> dict[str, Any]:
    """A member as plain data: a tabular policy's probabilities, or a learned member's
    MaskablePPO policy weights with the network's spaces."""
    import torch

    from nashzoo.agents.sb3 import SB3Agent

    if isinstance(member, TabularPolicyAgent):
        return {
            "kind": "tabular",
            "name": member.name,
            "probs": torch.from_numpy(member.policy.probs),
        }
    if isinstance(member, SB3Agent) and hasattr(member.model.policy, "mlp_extractor"):
        policy = member.model.policy
        return {
            "kind": "maskable-ppo",
            "name": member.name,
            "observations": int(member.model.observation_space.shape[0]),
            "actions": int(member.model.action_space.n),
            "pi": _widths(policy.mlp_extractor.policy_net),
            "vf": _widths(policy.mlp_extractor.value_net),
            "weights": policy.state_dict(),
        }
    if isinstance(member, RandomAgent):
        return {"kind": "random", "name": member.name}
    raise InvalidParameterError(
        f"Nash memory can save tabular, MaskablePPO and random members; received "
        f"{type(member).__name__}."
    )


def _widths(net: Any) -> list[int]:
    """The hidden layer widths of one of a MaskablePPO policy's MLPs."""
    return [int(m.out_features) for m in net if hasattr(m, "out_features")]


def _member_from(state: dict[str, Any], game: Game) -> Any:
    """A member back from :func:`_member_state`'s data."""
    kind = state.get("kind")
    if kind == "tabular":
        from nashzoo.tree import TabularPolicy, compile_game

        policy = TabularPolicy(compile_game(game), state["probs"].numpy())
        return TabularPolicyAgent(policy, name=state["name"])
    if kind == "maskable-ppo":
        return _maskable_member(state)
    if kind == "random":
        return RandomAgent(name=str(state["name"]))
    raise ValueError(f"unknown member kind {kind!r}")


def _maskable_member(state: dict[str, Any]) -> Any:
    """A learned member: a fresh MaskablePPO policy of the saved shape, its weights
    loaded, inside the attributes :class:`~nashzoo.agents.sb3.SB3Agent` reads."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from nashzoo.agents.sb3 import SB3Agent

    observation_space = spaces.Box(-np.inf, np.inf, (int(state["observations"]),), np.float32)
    action_space = spaces.Discrete(int(state["actions"]))
    arch = {key: [int(w) for w in state[key]] for key in ("pi", "vf")}
    policy = MaskableActorCriticPolicy(
        observation_space, action_space, lambda _: 0.0, net_arch=arch
    )
    policy.load_state_dict(state["weights"])
    policy.set_training_mode(False)
    model = SimpleNamespace(
        policy=policy, observation_space=observation_space, action_space=action_space
    )
    return SB3Agent(model, name=str(state["name"]))
