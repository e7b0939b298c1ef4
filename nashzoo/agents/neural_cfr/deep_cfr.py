"""Deep Counterfactual Regret Minimization (Deep CFR).

Paper: Brown, Lerer, Gross & Sandholm, "Deep Counterfactual Regret Minimization", ICML
2019.

CFR without tables. Each iteration ``t`` and each player ``p``:

1. **Traverse.** ``traversals`` external-sampling traversals from the root for ``p``:
   at ``p``'s decisions every legal action is explored; at the opponent's one action is
   drawn from the opponent's current strategy; chance is drawn. A player's current
   strategy at an information set is regret matching on what its *advantage network*
   predicts there (the action of highest predicted advantage when none is positive).
   Each of ``p``'s decisions stores ``(information state, t, sampled regrets)`` in ``p``'s
   advantage memory; each opponent decision stores ``(information state, t, strategy)`` in
   the strategy memory. Both memories are reservoir samples, so every iteration keeps
   its share.
2. **Fit the advantage network** of ``p`` (from fresh weights by default) to its memory,
   each row's squared error weighted by its iteration ``t``: Linear CFR's weighting,
   which makes the network predict the cumulative regrets up to a scale.

The average strategy is a *policy network* fitted to the strategy memory with the same
``t`` weighting; it is the output, and it approaches a Nash equilibrium in two-player
zero-sum games as the networks' errors shrink. It is fitted lazily (when the policy is
asked for after more iterations), from fresh weights seeded by the iteration count, so the
same seed and the same iterations give the same policy however often it was asked for.

Within one iteration a player's network does not change, so its strategy at an
information set is computed once and cached until the network is next fitted. The
traversals walk the rules (:class:`~nashzoo.games.base.State`), so any two-player game
trains, whether or not it compiles; exact exploitability is measured where it compiles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.neural_cfr.config import DeepCFRConfig
from nashzoo.agents.nfsp.buffers import Reservoir
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.agents.training import mlp, tabular_policy, train_loop
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.extras import require
from nashzoo.games import Game, load_game
from nashzoo.games.observation import ObservationCache

__all__ = ["DeepCFR", "DeepCFRAgent"]

FORMAT = "nashzoo.deep_cfr"


def _torch() -> Any:
    return require("torch", "torch", "Deep CFR")


def _seed_of(*parts: int) -> int:
    """A torch seed derived from ``parts`` (independent of the training stream)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


class DeepCFR:
    """Deep CFR for two-player games of :mod:`nashzoo.games`.

    Args:
        game: the rules.
        config: hyper-parameters (:class:`DeepCFRConfig`).

    Raises:
        InvalidParameterError: not a two-player game, or a config of another type.
        MissingDependencyError: torch is not installed.

    A :class:`~nashzoo.agents.learner.Learner`: one step is one iteration (``traversals``
    traversals for each player, each followed by that player's advantage fit).
    """

    name: ClassVar[str] = "deep-cfr"
    config_type: ClassVar[type] = DeepCFRConfig
    step_unit: ClassVar[str] = "iterations"

    def __init__(self, game: Game, config: DeepCFRConfig | None = None) -> None:
        torch = _torch()
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"Deep CFR needs a two-player nashzoo Game, received {game!r}."
            )
        if config is not None and not isinstance(config, DeepCFRConfig):
            raise InvalidParameterError(
                f"config must be a DeepCFRConfig, received {type(config).__name__}."
            )
        self.game = game
        self.config = cfg = config or DeepCFRConfig()
        self._torch = torch
        self.seed = 0 if cfg.seed is None else cfg.seed
        self.rng = np.random.default_rng(cfg.seed)
        self.obs_size = game.information_state_tensor_size
        self.num_actions = a = game.num_distinct_actions
        self.advantage = [
            self._network(cfg.advantage_sizes, _seed_of(self.seed, p)) for p in (0, 1)
        ]
        self.advantage_opt = [self._optimizer(net) for net in self.advantage]
        self.policy = self._network(cfg.policy_sizes, _seed_of(self.seed, 2))
        self.advantage_memory = [
            Reservoir(
                cfg.memory_capacity, self.obs_size, target=((a,), np.float32), t=((), np.float32)
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
        self.losses: list[tuple[float, float]] = []  # per iteration, each player's last loss
        self._strategies: list[dict[str, np.ndarray]] = [{}, {}]
        self._policy_iterations = -1  # iterations the policy network was fitted after
        self._rows: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]] = []

    # -- networks -----------------------------------------------------------------------------
    def _network(self, hidden: tuple[int, ...], seed: int) -> Any:
        torch = self._torch
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            return mlp(torch, [self.obs_size, *hidden, self.num_actions])

    def _optimizer(self, net: Any) -> Any:
        return self._torch.optim.Adam(net.parameters(), lr=self.config.learning_rate)

    @property
    def steps(self) -> int:
        """Iterations trained so far."""
        return self.iterations

    # -- one player's current strategy ---------------------------------------------------------
    def _strategy(self, player: int, key: str, tensor: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Regret matching on ``player``'s predicted advantages (cached per network fit)."""
        hit = self._strategies[player].get(key)
        if hit is not None:
            return hit
        torch = self._torch
        with torch.inference_mode():
            raw = self.advantage[player](torch.tensor(tensor[None])).numpy()[0]
        legal = mask.astype(bool)
        positive = np.where(legal, np.maximum(raw, 0.0), 0.0)
        total = positive.sum()
        if total > 0:
            sigma = positive / total
        else:
            sigma = np.zeros(self.num_actions)
            sigma[np.flatnonzero(legal)[np.argmax(raw[legal])]] = 1.0
        self._strategies[player][key] = sigma
        return sigma

    # -- traversal -----------------------------------------------------------------------------
    def _traverse(self, state: Any, traverser: int) -> float:
        """External-sampling traversal: ``traverser``'s expected value at ``state`` under
        the current strategies, recording the memories' rows."""
        if state.is_terminal():
            return float(state.returns()[traverser])
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            pick = sample_index(np.cumsum([p for _, p in outcomes]), self.rng.random())
            return self._traverse(state.child(outcomes[pick][0]), traverser)
        player = state.current_player()
        key = state.information_state_string(player)
        view = self.observations.get(state, player, key)
        sigma = self._strategy(player, key, view.tensor, view.mask)
        if player == traverser:
            values = np.zeros(self.num_actions)
            for legal in np.flatnonzero(view.mask):
                values[legal] = self._traverse(state.child(int(legal)), traverser)
            value = float(sigma @ values)
            regrets = np.where(view.mask.astype(bool), values - value, 0.0)
            self._rows.append(("advantage", view.tensor, regrets, view.mask))
            return value
        self._rows.append(("strategy", view.tensor, sigma, view.mask))
        action = sample_index(np.cumsum(sigma), self.rng.random())
        return self._traverse(state.child(action), traverser)

    def _store(self, traverser: int, t: int) -> None:
        """Offer the traversals' rows to the memories, in the order they were made."""
        advantage = [r for r in self._rows if r[0] == "advantage"]
        strategy = [r for r in self._rows if r[0] == "strategy"]
        self._rows = []
        if advantage:
            self.advantage_memory[traverser].add_rows(
                self.rng,
                np.stack([r[1] for r in advantage]),
                target=np.stack([r[2] for r in advantage]),
                t=np.full(len(advantage), t, np.float32),
            )
        if strategy:
            self.strategy_memory.add_rows(
                self.rng,
                np.stack([r[1] for r in strategy]),
                target=np.stack([r[2] for r in strategy]),
                mask=np.stack([r[3] for r in strategy]).astype(bool),
                t=np.full(len(strategy), t, np.float32),
            )

    # -- fitting -------------------------------------------------------------------------------
    def _fit_advantage(self, player: int, t: int) -> float:
        """Fit ``player``'s advantage network to its memory (t-weighted squared error)."""
        torch = self._torch
        cfg = self.config
        if cfg.reinitialize_advantage:
            self.advantage[player] = self._network(
                cfg.advantage_sizes, _seed_of(self.seed, player, t)
            )
            self.advantage_opt[player] = self._optimizer(self.advantage[player])
        net, opt, memory = (
            self.advantage[player],
            self.advantage_opt[player],
            self.advantage_memory[player],
        )
        loss_value = float("nan")
        for _ in range(cfg.advantage_steps if memory.size else 0):
            obs, cols = memory.sample_rows(self.rng, cfg.batch_size)
            weight = torch.from_numpy(cols["t"])[:, None]
            error = net(torch.from_numpy(obs)) - torch.from_numpy(cols["target"])
            loss = (weight * error**2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_value = loss.item()
        self._strategies[player] = {}
        return loss_value

    def _policy_logits_to_probs(self, logits: Any, mask: Any) -> Any:
        torch = self._torch
        return torch.softmax(logits.masked_fill(~mask, -torch.inf), dim=1)

    def fit_policy(self) -> DeepCFR:
        """Fit the policy network to the strategy memory (t-weighted squared error of the
        probabilities, as OpenSpiel's Deep CFR), from fresh weights; done at most once per
        number of iterations."""
        if self._policy_iterations == self.iterations:
            return self
        torch = self._torch
        cfg = self.config
        self.policy = self._network(cfg.policy_sizes, _seed_of(self.seed, 2, self.iterations))
        opt = self._optimizer(self.policy)
        rng = np.random.default_rng(_seed_of(self.seed, 3, self.iterations))
        memory = self.strategy_memory
        for _ in range(cfg.policy_steps if memory.size else 0):
            obs, cols = memory.sample_rows(rng, cfg.batch_size)
            probs = self._policy_logits_to_probs(
                self.policy(torch.from_numpy(obs)), torch.from_numpy(cols["mask"])
            )
            weight = torch.from_numpy(cols["t"])[:, None]
            loss = (weight * (probs - torch.from_numpy(cols["target"])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        self._policy_iterations = self.iterations
        return self

    # -- training ------------------------------------------------------------------------------
    def _iteration(self) -> None:
        t = self.iterations + 1
        losses = []
        for traverser in (0, 1):
            root = self.game.new_initial_state()
            for _ in range(self.config.traversals):
                self._traverse(root.clone(), traverser)
            self.traversals += self.config.traversals
            self._store(traverser, t)
            losses.append(self._fit_advantage(traverser, t))
        self.losses.append((losses[0], losses[1]))
        self.iterations = t

    def train(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: Any = None,
        callback_every: float = 10.0,
        progress: bool = False,
    ) -> DeepCFR:
        """Run ``steps`` iterations or ``seconds`` of training (see
        :func:`~nashzoo.agents.training.train_loop`)."""

        def step(left: int | None) -> int:
            self._iteration()
            return 1

        train_loop(
            self,
            step,
            steps=steps,
            seconds=seconds,
            callback=callback,
            callback_every=callback_every,
            progress=progress,
            desc="Deep CFR",
            postfix=lambda: {"traversals": self.traversals},
        )
        return self

    # -- outputs -------------------------------------------------------------------------------
    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average policy for a batch of observations (``(n, obs_size)`` float32) and
        legal masks (``(n, num_actions)``); one network serves both seats (the
        information-state tensors name the player)."""
        self.fit_policy()
        torch = self._torch
        with torch.inference_mode():
            probs = self._policy_logits_to_probs(
                self.policy(torch.from_numpy(np.array(obs, np.float32))),
                torch.from_numpy(np.asarray(mask).astype(bool)),
            )
        return probs.numpy().astype(np.float64)

    def average_policy(self) -> Any:
        """The average policy as a :class:`~nashzoo.tree.TabularPolicy` (compiles the game)."""
        meta = {"algorithm": "deep-cfr", "iterations": self.iterations}
        return tabular_policy(self.game, self.average_probs, meta)

    def exploitability(self) -> float:
        """Exact exploitability (chips) of the average policy."""
        from nashzoo.tree.best_response import nash_conv_array

        policy = self.average_policy()
        return nash_conv_array(policy.tree, policy.probs) / policy.tree.num_players

    def agent(self, *, name: str | None = None, seed: int | None = None) -> DeepCFRAgent:
        """The average policy as a PolicyAgent."""
        return DeepCFRAgent(self, seed=seed, name=name or "deep-cfr")

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Save networks, optimisers, memories, counters and config: :meth:`load` resumes
        the same run."""
        from nashzoo.agents.torch_files import write_torch_file

        torch = self._torch

        def memory(m: Reservoir) -> dict[str, Any]:
            return {
                "obs": torch.from_numpy(np.ascontiguousarray(m.obs.rows[: m.size])),
                **{
                    k: torch.from_numpy(np.ascontiguousarray(c[: m.size]))
                    for k, c in m.columns.items()
                },
                "seen": m.seen,
            }

        self.fit_policy()
        state = {
            "format": FORMAT,
            "version": 1,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "iterations": self.iterations,
            "traversals": self.traversals,
            "seconds": self.seconds,
            "rng": self.rng.bit_generator.state,
            "networks": {
                "advantage0": self.advantage[0].state_dict(),
                "advantage1": self.advantage[1].state_dict(),
                "advantage_opt0": self.advantage_opt[0].state_dict(),
                "advantage_opt1": self.advantage_opt[1].state_dict(),
                "policy": self.policy.state_dict(),
            },
            "memories": [memory(m) for m in (*self.advantage_memory, self.strategy_memory)],
        }
        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path) -> DeepCFR:
        """Load a file written by :meth:`save` (read with ``weights_only=True``: data only).

        Raises:
            PolicyFileError: not a readable Deep CFR file, or one whose networks do not fit
                its config.
        """
        from nashzoo.agents.torch_files import check_checkpoint, load_modules, read_torch_file

        state = read_torch_file(path)
        check_checkpoint(state, path, FORMAT, 1)
        try:
            learner = cls(load_game(state["game"]), DeepCFRConfig.from_dict(state["config"]))
            modules = {
                "advantage0": learner.advantage[0],
                "advantage1": learner.advantage[1],
                "advantage_opt0": learner.advantage_opt[0],
                "advantage_opt1": learner.advantage_opt[1],
                "policy": learner.policy,
            }
            load_modules(path, state["networks"], modules, "networks")
            memories = (*learner.advantage_memory, learner.strategy_memory)
            for m, saved in zip(memories, state["memories"], strict=True):
                n = int(saved["obs"].shape[0])
                m.obs.accept(saved["obs"].numpy())
                m.obs.rows[:n] = saved["obs"].numpy()
                for k, column in m.columns.items():
                    column[:n] = saved[k].numpy()
                m.size, m.seen = n, int(saved["seen"])
            learner.rng.bit_generator.state = state["rng"]
            learner.iterations = int(state["iterations"])
            learner.traversals = int(state["traversals"])
            learner.seconds = float(state["seconds"])
        except PolicyFileError:
            raise
        except Exception as exc:
            raise PolicyFileError(f"{path} is not a readable nashzoo Deep CFR file: {exc}") from exc
        learner._policy_iterations = learner.iterations  # the saved policy network is fitted
        return learner


class DeepCFRAgent(SampledPolicyAgent):
    """A Deep CFR average policy as a PolicyAgent."""

    def __init__(
        self, learner: DeepCFR, *, seed: int | None = None, name: str = "deep-cfr"
    ) -> None:
        super().__init__(seed=seed)
        self.learner = learner
        self.name = name

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        obs = np.asarray(observation["observation"], np.float32)[None]
        mask = np.asarray(observation["action_mask"])[None]
        return self.learner.average_probs(0, obs, mask)[0]

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """The average policy in ``n`` games at once (one forward pass)."""
        return self.learner.average_probs(0, observation, action_mask)
