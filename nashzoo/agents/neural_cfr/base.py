"""What Deep CFR and ESCHER share: per-player regret networks whose regret matching is the
current strategy, an average-policy network fitted to a reservoir of strategies, the
budgeted training loop, the policy's outputs and the saved files.

Each algorithm's own module holds what makes it that algorithm: its traversals, its
targets and its iteration (:mod:`~nashzoo.agents.neural_cfr.deep_cfr`,
:mod:`~nashzoo.agents.neural_cfr.escher`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.nfsp.buffers import Reservoir
from nashzoo.agents.runtime import Rounds
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.agents.training import (
    SteppedLearner,
    cpu_weights,
    mlp,
    tabular_policy,
    torch_device,
)
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.extras import require
from nashzoo.games import Game, load_game
from nashzoo.games.observation import ObservationCache

__all__ = [
    "NeuralRegretLearner",
    "NeuralPolicyAgent",
    "EpisodeActor",
    "rules_copy",
    "stacked",
    "seed_of",
    "regret_matching_rows",
]


def seed_of(*parts: int) -> int:
    """A seed derived from ``parts``, independent of any training stream."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def regret_matching(raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mixture proportional to the positive part of ``raw`` over the legal actions;
    all weight on the legal action of highest ``raw`` when none is positive."""
    legal = mask.astype(bool)
    positive = np.where(legal, np.maximum(raw, 0.0), 0.0)
    total = positive.sum()
    if total > 0:
        return positive / total
    sigma = np.zeros(raw.size)
    sigma[np.flatnonzero(legal)[np.argmax(raw[legal])]] = 1.0
    return sigma


def regret_matching_rows(raw: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """:func:`regret_matching` of every row of ``raw`` (``(n, num_actions)``) at once."""
    legal = mask.astype(bool)
    positive = np.where(legal, np.maximum(raw, 0.0), 0.0)
    total = positive.sum(axis=1, keepdims=True)
    best = np.where(legal, raw, -np.inf).argmax(axis=1)
    fallback = np.zeros(raw.shape)
    fallback[np.arange(raw.shape[0]), best] = 1.0
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), fallback)


class EpisodeActor:
    """An actor of the neural regret learners (:class:`~nashzoo.agents.runtime.Actor`):
    the learner's job names a module-level function ``work(tree, job, share, seed,
    scratch)`` that runs this actor's share of an iteration's episodes from the random
    state ``seed`` (drawn from the actor's own stream). ``tree`` is the compiled tree, or
    ``None`` on the rules path; ``scratch`` is a dict the work may keep buffers in, and
    holds the game as ``scratch["game"]``."""

    def __init__(self, game_spec: dict, index: int, seed: int) -> None:
        self.index = index
        self.tree: Any = None  # compiled at the first job on the tree (never on the rules)
        self.rng = np.random.default_rng(seed)
        self.job: dict[str, Any] = {}
        self.scratch: dict[str, Any] = {"game": load_game(game_spec)}

    def set_weights(self, weights: dict[str, Any], version: int) -> None:
        self.job = weights

    def collect(self) -> tuple[int, Any]:
        share = int(self.job["shares"][self.index])
        seed = np.array([self.rng.integers(1, 2**63 - 1)], dtype=np.uint64)
        if self.job["tree"] and self.tree is None:
            from nashzoo.tree import compile_game

            self.tree = compile_game(self.scratch["game"])
        tree = self.tree if self.job["tree"] else None
        return share, self.job["work"](tree, self.job, share, seed, self.scratch)


def rules_copy(job: dict[str, Any], seed: np.ndarray, scratch: dict[str, Any]) -> Any:
    """The learner copy an :class:`EpisodeActor` traverses the rules with: built once
    (``job["learner"]``, its ``job["config"]`` with one-row memories and no actors),
    then given the broadcast networks (``job["nets"]``: attribute name to a list of
    state dicts, one per player) and the stream ``seed``."""
    learner = scratch.get("learner")
    if learner is None:
        import dataclasses

        cls = job["learner"]
        cfg = dataclasses.replace(
            cls.config_type.from_dict(job["config"]),
            actors=None, backend="local", ray_address=None, tree=False, memory_capacity=1,
            device="cpu",
        )  # fmt: skip
        torch = require("torch", "torch", cls.__name__)
        with torch.random.fork_rng(devices=[]):  # the host's torch stream stays its own
            learner = scratch["learner"] = cls(scratch["game"], cfg)
    for name, states in job["nets"].items():
        for net, state in zip(getattr(learner, name), states, strict=True):
            net.load_state_dict(state)
    learner._strategies = [{}, {}]
    learner.rng = np.random.default_rng(int(seed[0]))
    return learner


def stacked(
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]], obs: int, actions: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Recorded ``(tensor, target, mask)`` rows as three arrays (empty ones of the right
    widths when there are none)."""
    if not rows:
        return np.zeros((0, obs), np.float32), np.zeros((0, actions)), np.zeros((0, actions), bool)
    tensors, targets, masks = (np.stack(column) for column in zip(*rows))
    return tensors, targets, masks


class NeuralRegretLearner(SteppedLearner):
    """The shared body of the neural regret learners (see the module).

    A subclass sets ``name``, ``config_type``, ``file_format``, ``policy_loss``
    (``"mse"`` on probabilities or ``"cross_entropy"``) and implements
    :meth:`_iteration`; its config has ``regret_sizes``, ``policy_sizes``,
    ``policy_steps``, ``batch_size``, ``memory_capacity``, ``learning_rate`` and
    ``seed``. Extra networks and memories it adds are saved when it lists them in
    :meth:`_extra_networks` and :meth:`_extra_memories`.
    """

    name: ClassVar[str]
    config_type: ClassVar[Any]
    file_format: ClassVar[str]
    policy_loss: ClassVar[str]
    step_unit: ClassVar[str] = "iterations"
    config: Any

    def __init__(self, game: Game, config: Any = None) -> None:
        torch = require("torch", "torch", type(self).__name__)
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"{type(self).__name__} needs a two-player nashzoo Game, received {game}."
            )
        if config is not None and not isinstance(config, self.config_type):
            raise InvalidParameterError(
                f"config must be a {self.config_type.__name__}, received {type(config).__name__}."
            )
        self.game = game
        cfg: Any = config or self.config_type()
        self.config = cfg
        self._torch = torch
        self.device = torch_device(torch, cfg.device)
        self._host_nets: list[Any] = [None, None]  # CPU copies of the regret networks
        self.seed = 0 if cfg.seed is None else cfg.seed
        self.rng = np.random.default_rng(cfg.seed)
        self.obs_size = game.information_state_tensor_size
        self.num_actions = a = game.num_distinct_actions
        self.regret_nets = [self._network(cfg.regret_sizes, seed_of(self.seed, p)) for p in (0, 1)]
        self.regret_opts = [self._optimizer(net) for net in self.regret_nets]
        self.policy = self._network(cfg.policy_sizes, seed_of(self.seed, 2))
        self.regret_memory = [
            Reservoir(
                cfg.memory_capacity,
                self.obs_size,
                target=((a,), np.float32),
                mask=((a,), bool),
                t=((), np.float32),
            )
            for _ in (0, 1)
        ]
        self.strategy_memory = Reservoir(
            cfg.memory_capacity,
            self.obs_size,
            target=((a,), np.float32),
            mask=((a,), bool),
            t=((), np.float32),
        )
        self.observations = ObservationCache(game)
        self.iterations = 0
        self.traversals = 0
        self.seconds = 0.0
        self.resumable = True  # False when loaded from a file saved without its memories
        self._strategies: list[dict[str, np.ndarray]] = [{}, {}]
        self._policy_iterations = -1  # iterations the policy network was fitted after
        actor = functools.partial(EpisodeActor, game.to_spec())
        # the actors, where the config has them
        self._rounds = Rounds(
            cfg, actor, cfg.seed, lockstep="an iteration's traversals all use its networks"
        )
        self.tree: Any = None  # the compiled tree where config.tree and the game compiles
        if getattr(cfg, "tree", False):
            from nashzoo.tree import compiled_or_none

            self.tree = compiled_or_none(game)  # None: the rules path

    # -- actors --------------------------------------------------------------------------------
    def _on_actors(self, work: Any, total: int, **job: Any) -> list[Any]:
        """``total`` episodes of ``work`` (an :class:`EpisodeActor` job function) split among
        the actors in lockstep, with ``job``'s arrays; their results in actor order."""
        shares = self.config.shares(total)
        return self._rounds.run(
            {**job, "work": work, "shares": shares, "tree": self.tree is not None}
        )

    @property
    def version(self) -> int:
        """Jobs sent to the actors so far."""
        return self._rounds.version

    def _store_actor_rows(self, player: int, parts: list[Any], t: int) -> None:
        """Offer the actors' ``(regret rows, strategy rows)`` (each ``(tensors, targets,
        masks)``) to ``player``'s regret memory and the strategy memory, in actor order:
        all regret rows, then all strategy rows, as one process offers them."""
        for (tensors, regrets, masks), _ in parts:
            self._store_arrays(self.regret_memory[player], tensors, regrets, masks, t)
        for _, (tensors, sigmas, masks) in parts:
            self._store_arrays(self.strategy_memory, tensors, sigmas, masks, t)

    def _rules_job(self, **nets: list[Any]) -> dict[str, Any]:
        """What the actors' :func:`rules_copy` needs: the class, the config and the
        networks (attribute name to the list of them), their weights on the CPU."""
        states = {name: [cpu_weights(net) for net in group] for name, group in nets.items()}
        return {"learner": type(self), "config": self.config.to_dict(), "nets": states}

    # -- networks ------------------------------------------------------------------------------
    def _network(
        self,
        hidden: tuple[int, ...],
        seed: int,
        inputs: int | None = None,
        outputs: int | None = None,
    ) -> Any:
        torch = self._torch
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            body = mlp(torch, [inputs or self.obs_size, *hidden])
            # a ReLU after the last hidden layer, then layer normalisation before the
            # output layer, as the Deep CFR paper and OpenSpiel's networks have it: the
            # regret targets' scale grows with the iterations
            return torch.nn.Sequential(
                *body,
                torch.nn.ReLU(),
                torch.nn.LayerNorm(hidden[-1]),
                torch.nn.Linear(hidden[-1], outputs or self.num_actions),
            ).to(self.device)

    def _optimizer(self, net: Any) -> Any:
        # one fused kernel for all parameters: a third less time per step on CPU (NFSP's)
        return self._torch.optim.Adam(net.parameters(), lr=self.config.learning_rate, fused=True)

    @property
    def steps(self) -> int:
        """Iterations trained so far."""
        return self.iterations

    # -- the current strategy ------------------------------------------------------------------
    def _strategy(self, player: int, key: str, tensor: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Regret matching on ``player``'s regret network at one information set (cached
        until the network is fitted again), on the CPU: one row at a time costs less
        there than a round trip to a GPU."""
        hit = self._strategies[player].get(key)
        if hit is None:
            torch = self._torch
            with torch.inference_mode():
                raw = self._host_net(player)(torch.tensor(tensor[None])).numpy()[0]
            hit = self._strategies[player][key] = regret_matching(raw, mask)
        return hit

    def _host_net(self, player: int) -> Any:
        """``player``'s regret network on the CPU: the network itself there, else a copy
        made after each fit."""
        net = self.regret_nets[player]
        if self.device.type == "cpu":
            return net
        if self._host_nets[player] is None:
            import copy

            self._host_nets[player] = copy.deepcopy(net).cpu()
        return self._host_nets[player]

    def _strategy_table(self) -> np.ndarray:
        """Every information set's current strategy on the compiled tree: one forward
        pass per player."""
        torch = self._torch
        tree = self.tree
        table = np.zeros(tree.legal_mask.shape)
        for p in (0, 1):
            rows = tree.infosets_of(p)
            with torch.inference_mode():
                inputs = torch.from_numpy(tree.infoset_tensor[rows]).to(self.device)
                raw = self.regret_nets[p](inputs).cpu().numpy()
            table[rows] = regret_matching_rows(raw, tree.legal_mask[rows])
        return table

    def _kernel_rng(self) -> np.ndarray:
        """A state for the tree kernels' generator, drawn from the training stream."""
        return np.array([self.rng.integers(1, 2**63 - 1)], dtype=np.uint64)

    def _store_tree_rows(
        self,
        player: int,
        sigma: np.ndarray,
        regret_nodes: np.ndarray,
        regrets: np.ndarray,
        strategy_nodes: np.ndarray,
        counts: np.ndarray,
        t: int,
    ) -> None:
        """Offer what a tree kernel recorded to the memories: the first ``counts[0]``
        of ``player``'s decision nodes with their regret rows, and the first
        ``counts[1]`` opponent decision nodes with their strategies under ``sigma``."""
        tree = self.tree
        for memory, nodes, targets in (
            (self.regret_memory[player], regret_nodes[: counts[0]], regrets[: counts[0]]),
            (self.strategy_memory, strategy_nodes[: counts[1]], None),
        ):
            rows = tree.infoset[nodes]
            found = sigma[rows] if targets is None else targets
            self._store_arrays(memory, tree.infoset_tensor[rows], found, tree.legal_mask[rows], t)

    def _chance(self, state: Any) -> int:
        """A chance outcome drawn with the training stream."""
        outcomes = state.chance_outcomes()
        pick = sample_index(np.cumsum([p for _, p in outcomes]), self.rng.random())
        return int(outcomes[pick][0])

    def _view(self, state: Any, player: int) -> tuple[str, Any, np.ndarray]:
        """``player``'s information-state key, view and current strategy at ``state``."""
        key = state.information_state_string(player)
        view = self.observations.get(state, player, key)
        return key, view, self._strategy(player, key, view.tensor, view.mask)

    def _fit_regrets(self, player: int, t: int, steps: int, reinitialize: bool) -> float:
        """Fit ``player``'s regret network to its memory: squared error over the legal
        actions, each row weighted by its iteration (Linear CFR)."""
        cfg = self.config
        if reinitialize:
            self.regret_nets[player] = self._network(
                cfg.regret_sizes, seed_of(self.seed, player, t)
            )
            self.regret_opts[player] = self._optimizer(self.regret_nets[player])
        net, opt, memory = (
            self.regret_nets[player],
            self.regret_opts[player],
            self.regret_memory[player],
        )
        loss = None
        for obs, cols in self._minibatches(memory, self.rng, steps):
            error = (net(obs) - cols["target"]) * cols["mask"]
            loss = (cols["t"][:, None] * error**2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        self._strategies[player] = {}
        self._host_nets[player] = None
        return float("nan") if loss is None else loss.item()

    def _minibatches(self, memory: Reservoir, rng: np.random.Generator, steps: int) -> Any:
        """``steps`` minibatches of ``batch_size`` rows drawn with replacement, as torch
        tensors: every step's rows drawn and converted in one go (a step's numpy and
        conversion overhead was a third of a fit on Leduc)."""
        if not memory.size or not steps:
            return
        torch = self._torch
        batch = self.config.batch_size
        obs, cols = memory.sample_rows(rng, steps * batch)
        device = self.device  # every step's rows moved at once
        tensors = {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in cols.items()}
        obs_t = torch.from_numpy(obs).to(device)
        for k in range(steps):
            rows = slice(k * batch, (k + 1) * batch)
            yield obs_t[rows], {name: tensor[rows] for name, tensor in tensors.items()}

    def _store(
        self, memory: Reservoir, rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]], t: int
    ) -> None:
        """Offer ``(tensor, target, mask)`` rows of iteration ``t`` to ``memory``."""
        if rows:
            self._store_arrays(memory, *stacked(rows, self.obs_size, self.num_actions), t)

    def _store_arrays(
        self, memory: Reservoir, tensors: np.ndarray, targets: np.ndarray, masks: np.ndarray, t: int
    ) -> None:
        """Offer rows of iteration ``t`` given as arrays (one row per leading index)."""
        if len(tensors):
            memory.add_rows(
                self.rng,
                tensors,
                target=targets.astype(np.float32),
                mask=masks.astype(bool),
                t=np.full(len(tensors), t, np.float32),
            )

    # -- the average policy --------------------------------------------------------------------
    def _probs(self, logits: Any, mask: Any) -> Any:
        torch = self._torch
        return torch.softmax(logits.masked_fill(~mask, -torch.inf), dim=1)

    def fit_policy(self) -> Any:
        """Fit the average-policy network to the strategy memory, each row weighted by its
        iteration, from fresh weights seeded by the iteration count (so the same run
        gives the same policy however often it was asked for); at most once per number
        of iterations."""
        if self._policy_iterations == self.iterations:
            return self
        torch = self._torch
        cfg = self.config
        self.policy = self._network(cfg.policy_sizes, seed_of(self.seed, 2, self.iterations))
        opt = self._optimizer(self.policy)
        rng = np.random.default_rng(seed_of(self.seed, 3, self.iterations))
        for obs, cols in self._minibatches(self.strategy_memory, rng, cfg.policy_steps):
            mask, target, weight = cols["mask"], cols["target"], cols["t"]
            logits = self.policy(obs)
            if self.policy_loss == "mse":
                per_row = ((self._probs(logits, mask) - target) ** 2).mean(dim=1)
            else:
                logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
                per_row = -(target * logp).sum(dim=1)
            loss = (weight * per_row).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        self._policy_iterations = self.iterations
        return self

    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average policy for a batch of observations (``(n, obs_size)``) and legal
        masks (``(n, num_actions)``); one network serves both seats (the
        information-state tensors name the player)."""
        self.fit_policy()
        torch = self._torch
        with torch.inference_mode():
            probs = self._probs(
                self.policy(torch.from_numpy(np.array(obs, np.float32)).to(self.device)),
                torch.from_numpy(np.asarray(mask).astype(bool)).to(self.device),
            )
        return probs.cpu().numpy().astype(np.float64)

    def average_policy(self) -> Any:
        """The average policy as a :class:`~nashzoo.tree.TabularPolicy` (compiles the game)."""
        meta = {"algorithm": self.name, "iterations": self.iterations}
        return tabular_policy(self.game, self.average_probs, meta)

    def exploitability(self) -> float:
        """Exact exploitability (chips) of the average policy."""
        from nashzoo.tree.best_response import nash_conv_array

        policy = self.average_policy()
        return nash_conv_array(policy.tree, policy.probs) / policy.tree.num_players

    def agent(self, *, name: str | None = None, seed: int | None = None) -> NeuralPolicyAgent:
        """The average policy as a PolicyAgent."""
        return NeuralPolicyAgent(self, seed=seed, name=name or self.name)

    # -- training ------------------------------------------------------------------------------
    def _iteration(self) -> None:
        raise NotImplementedError

    def _train_start(self, steps: int | None, seconds: float | None) -> None:
        """Refuses to train a learner loaded from an agent file (saved with
        ``memories=False``): its regrets and strategies are gone."""
        if not self.resumable:
            raise InvalidParameterError(
                f"this {self.name} learner was loaded from an agent file saved without its "
                "memories: it plays, but training cannot continue from it (expected a "
                "checkpoint saved with memories=True)"
            )

    def _train_step(self, left: int | None) -> int:
        self._iteration()
        return 1

    def _train_postfix(self) -> dict[str, Any]:
        return {"traversals": self.traversals}

    def close(self) -> None:
        """Stop the actors, if any (a later :meth:`train` starts new ones)."""
        self._rounds.close()

    # -- files ---------------------------------------------------------------------------------
    def _extra_networks(self) -> dict[str, Any]:
        return {}

    def _extra_memories(self) -> list[Reservoir]:
        return []

    def _modules(self) -> dict[str, Any]:
        return {
            "regret0": self.regret_nets[0],
            "regret1": self.regret_nets[1],
            "regret_opt0": self.regret_opts[0],
            "regret_opt1": self.regret_opts[1],
            "policy": self.policy,
            **self._extra_networks(),
        }

    def _memories(self) -> list[Reservoir]:
        return [*self.regret_memory, self.strategy_memory, *self._extra_memories()]

    def save(self, path: str | Path, *, memories: bool = True) -> Path:
        """Save networks, optimisers, memories, counters, the random stream and the
        config: :meth:`load` resumes the same run.

        Args:
            path: the file.
            memories: keep the reservoir memories. Without them the file is an agent
                file: it plays (its policy network is fitted before saving) and loads
                like any other, but training cannot resume from it. The memories are
                most of a checkpoint's size (on Limit Hold'em, hundreds of MB against
                well under 1 MB of networks).
        """
        from nashzoo.agents.torch_files import write_torch_file

        torch = self._torch

        def memory(m: Reservoir) -> dict[str, Any]:
            rows = {k: c[: m.size] for k, c in m.columns.items()}
            rows["obs"] = m.obs.rows[: m.size]
            return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in rows.items()} | {
                "seen": m.seen
            }

        self.fit_policy()
        state = {
            "format": self.file_format,
            "version": 1,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "iterations": self.iterations,
            "traversals": self.traversals,
            "seconds": self.seconds,
            "rng": self.rng.bit_generator.state,
            "networks": {k: m.state_dict() for k, m in self._modules().items()},
            "memories": [memory(m) for m in self._memories()] if memories else None,
        }
        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None) -> Any:
        """Load a file written by :meth:`save` (read with ``weights_only=True``: data
        only), its networks on ``device`` (``None``: the saved config's; a file saved on
        a GPU loads on a CPU with ``device="cpu"``).

        Raises:
            PolicyFileError: not a readable file of this learner, or one whose networks do
                not fit its config.
            InvalidParameterError: ``device`` names a GPU torch does not see.
        """
        from nashzoo.agents.torch_files import load_modules, saved_learner

        state, learner = saved_learner(cls, path, cls.file_format, cls.name, device=device)
        with PolicyFileError.reading(path, f"nashzoo {cls.name}"):
            load_modules(path, state["networks"], learner._modules(), "networks")
            learner.resumable = state["memories"] is not None  # None: an agent file
            saved_memories = state["memories"] if learner.resumable else []
            memories = learner._memories() if learner.resumable else []
            for m, saved in zip(memories, saved_memories, strict=True):
                obs = saved["obs"].numpy()
                n = obs.shape[0]
                m.obs.accept(obs)
                m.obs.rows[:n] = obs
                for k, column in m.columns.items():
                    column[:n] = saved[k].numpy()
                m.size, m.seen = n, int(saved["seen"])
            learner.rng.bit_generator.state = state["rng"]
            learner.iterations = int(state["iterations"])
            learner.traversals = int(state["traversals"])
            learner.seconds = float(state["seconds"])
        learner._policy_iterations = learner.iterations  # the saved policy is fitted
        return learner


class NeuralPolicyAgent(SampledPolicyAgent):
    """The average policy of a Deep CFR or ESCHER learner as a PolicyAgent."""

    def __init__(
        self, learner: NeuralRegretLearner, *, seed: int | None = None, name: str = ""
    ) -> None:
        super().__init__(seed=seed)
        self.learner = learner
        self.name = name or learner.name

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        obs = np.asarray(observation["observation"], np.float32)[None]
        mask = np.asarray(observation["action_mask"])[None]
        return self.learner.average_probs(0, obs, mask)[0]

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """The average policy in ``n`` games at once (one forward pass)."""
        return self.learner.average_probs(0, observation, action_mask)
