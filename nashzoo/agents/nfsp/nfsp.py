"""Neural Fictitious Self-Play (NFSP), with batched self-play.

Paper: Heinrich & Silver, "Deep Reinforcement Learning from Self-Play in
Imperfect-Information Games", 2016.

Each player has a best-response network (DQN: circular replay buffer, target network,
epsilon-greedy exploration) and an average-policy network (supervised learning on a
reservoir buffer of the player's own best-response actions). At the start of every episode
each player picks, with probability ``anticipatory`` (eta), to act with its best response
for that episode, else with its average policy. Every transition feeds the DQN; only
best-response actions feed the reservoir. Every ``learn_every`` transitions of a player,
both of its networks take one minibatch step. The average policy is the output: it
approaches a Nash equilibrium in two-player zero-sum games.

One iteration here advances ``batch_games`` games at once in a batched env of
:mod:`nashzoo.vector` (in numba for games that compile and Limit Hold'em, the rules
stepped in Python for the others): the decisions of all games waiting on the same player
go through that player's networks in one forward pass.

With ``actors`` set (:class:`~nashzoo.agents.runtime.ActorConfig`), the games are played
by actors holding copies of both networks, in this process or on Ray
(:mod:`nashzoo.agents.runtime`): each batch of experience returns to this learner, which
stores it in its buffers, learns as above (every ``learn_every`` transitions) and
broadcasts the new weights. Exploration's epsilon travels with the weights.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.nfsp.buffers import ReplayBuffer, ReservoirBuffer
from nashzoo.agents.nfsp.config import NFSPConfig
from nashzoo.agents.runtime import Runtime
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.agents.training import (
    SteppedLearner,
    cpu_weights,
    mlp,
    tabular_policy,
    torch_device,
)
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.envs.sampling import sample_rows
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.extras import require
from nashzoo.games import Game, load_game
from nashzoo.games.observation import ObservationCache

__all__ = ["NFSP", "NFSPAgent"]


def _torch() -> Any:
    return require("torch", "torch", "NFSP")


class _Player:
    """Networks, optimisers and buffers of one player."""

    def __init__(self, torch, cfg: NFSPConfig, obs_size: int, num_actions: int, device) -> None:
        sizes = [obs_size, *cfg.hidden_sizes, num_actions]
        self.q = mlp(torch, sizes).to(device)
        self.q_target = copy.deepcopy(self.q)
        self.avg = mlp(torch, sizes).to(device)
        if cfg.optimizer == "sgd":
            opt: Any = torch.optim.SGD
        else:  # one fused kernel for all parameters: a third less time per step on CPU
            opt = functools.partial(torch.optim.Adam, fused=True)
        self.q_opt = opt(self.q.parameters(), lr=cfg.rl_learning_rate)
        self.avg_opt = opt(self.avg.parameters(), lr=cfg.sl_learning_rate)
        self.replay = ReplayBuffer(cfg.replay_capacity, obs_size, num_actions)
        self.reservoir = ReservoirBuffer(cfg.reservoir_capacity, obs_size, num_actions)
        self.transitions = 0
        self.learn_steps = 0


DECISIONS_PER_STEP = 8
"""Decisions of the batched self-play env per training step in this process."""

ACTOR_DECISIONS = 32
"""Decisions of an actor's batched env per batch of experience it sends: larger batches
spread a message's and a broadcast's cost over more episodes (measured on Leduc with one
Ray actor: 0.92x the in-process rate at 8, 1.17x at 32)."""


def _on(torch: Any, device: Any, array: np.ndarray) -> Any:
    """``array`` as a tensor on ``device`` (shared with numpy on the CPU)."""
    tensor = torch.from_numpy(array)
    return tensor if device.type == "cpu" else tensor.to(device)


def _average_probs(
    torch: Any, device: Any, net: Any, obs: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """The distribution of average-policy network ``net`` (on ``device``) over the legal
    actions."""
    with torch.inference_mode():
        logits = net(_on(torch, device, obs)).cpu().numpy()
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)


class _SelfPlay:
    """NFSP's self-play games in a batched env (:func:`nashzoo.vector.vector_env`: numba
    where the game has a numba env, else the rules stepped in Python). Each decision
    goes through the acting player's networks (``nets[p].q`` and ``nets[p].avg``); what the
    games teach goes to ``sink``: ``sink._record(p, s, a, r, s2, legal2, done)`` for each
    transition and ``sink._reserve(p, s, legal, a)`` for each best-response action. The
    sink is the learner itself in this process, an actor's outbox elsewhere."""

    def __init__(
        self, game: Game, cfg: NFSPConfig, nets: list[Any], device, rng, epsilon, sink
    ) -> None:
        self.game, self.cfg, self.nets, self.device, self.rng = game, cfg, nets, device, rng
        self.epsilon, self.sink = epsilon, sink
        self.obs_size = game.information_state_tensor_size
        self.num_actions = game.num_distinct_actions
        self._torch = _torch()
        self.venv: Any = None
        self._batch: Any = None
        self._modes = np.zeros((cfg.batch_games, 2), bool)
        # each game's last (observation, action) per player, waiting for its next state
        self._pending_obs = np.zeros((cfg.batch_games, 2, self.obs_size), np.float32)
        self._pending_action = np.zeros((cfg.batch_games, 2), np.int64)
        self._has_pending = np.zeros((cfg.batch_games, 2), bool)

    def start(self) -> None:
        """Open the batched env and deal its first games."""
        from nashzoo.vector import vector_env

        stepped = "auto" if self.cfg.vectorized else "python"
        self.venv = vector_env(self.game, self.cfg.batch_games, stepped=stepped)
        self._batch = self.venv.reset(seed=int(self.rng.integers(2**31)))
        self._modes[:] = self.rng.random(self._modes.shape) < self.cfg.anticipatory

    def choose(self, player: int, obs: np.ndarray, mask: np.ndarray, br: np.ndarray) -> np.ndarray:
        """Actions of ``player`` in a batch: epsilon-greedy on Q where ``br``, else
        sampled from the average policy."""
        n = len(obs)
        actions = np.empty(n, np.int64)
        torch = self._torch
        if br.any():
            with torch.inference_mode():
                q = self.nets[player].q(_on(torch, self.device, obs[br])).cpu().numpy()
            m = mask[br]
            greedy = np.where(m, q, -np.inf).argmax(axis=1)
            explore = self.rng.random(len(greedy)) < self.epsilon(player)
            if explore.any():
                cum = np.cumsum(m[explore], axis=1)
                greedy[explore] = sample_rows(cum, self.rng.random(int(explore.sum())))
            actions[br] = greedy
        avg = ~br
        if avg.any():
            probs = _average_probs(torch, self.device, self.nets[player].avg, obs[avg], mask[avg])
            actions[avg] = sample_rows(np.cumsum(probs, axis=1), self.rng.random(int(avg.sum())))
        return actions

    def play(self) -> int:
        """One decision in every game of the batched env; returns finished episodes."""
        batch = self._batch
        obs = batch.observation
        mask = batch.action_mask.astype(bool)
        actions = np.empty(len(obs), np.int64)
        sink = self.sink
        for p in (0, 1):
            idx = np.flatnonzero(batch.player == p)
            if not idx.size:
                continue
            o, m = obs[idx], mask[idx]
            br = self._modes[idx, p]
            chosen = self.choose(p, o, m, br)
            waiting = self._has_pending[idx, p]
            if waiting.any():  # the player's previous move in these games gets its next state
                g = idx[waiting]
                zeros = np.zeros(len(g), np.float32)
                sink._record(
                    p, self._pending_obs[g, p], self._pending_action[g, p], zeros,
                    o[waiting], m[waiting], zeros,
                )  # fmt: skip
            if br.any():
                sink._reserve(p, o[br], m[br], chosen[br])
            self._pending_obs[idx, p] = o
            self._pending_action[idx, p] = chosen
            self._has_pending[idx, p] = True
            actions[idx] = chosen
        batch = self._batch = self.venv.step(actions)
        done = np.flatnonzero(batch.terminated)
        if done.size:
            for p in (0, 1):
                g = done[self._has_pending[done, p]]
                if g.size:
                    sink._record(
                        p, self._pending_obs[g, p], self._pending_action[g, p],
                        batch.rewards[g, p].astype(np.float32),
                        np.zeros((len(g), self.obs_size), np.float32),
                        np.zeros((len(g), self.num_actions), bool), np.ones(len(g), np.float32),
                    )  # fmt: skip
            self._has_pending[done] = False
            self._modes[done] = self.rng.random((len(done), 2)) < self.cfg.anticipatory
        return len(done)


class _Outbox:
    """An actor's transitions and best-response actions since its last batch."""

    _TRANSITION = ("obs", "actions", "rewards", "next_obs", "next_mask", "done")
    _RESERVED = ("obs", "mask", "actions")

    def __init__(self) -> None:
        self.rows: list[dict[str, list[np.ndarray]]] = []
        self.drain()

    def _record(self, p: int, *arrays: np.ndarray) -> None:
        for key, a in zip(self._TRANSITION, arrays):
            self.rows[p]["t_" + key].append(np.array(a))

    def _reserve(self, p: int, *arrays: np.ndarray) -> None:
        for key, a in zip(self._RESERVED, arrays):
            self.rows[p]["r_" + key].append(np.array(a))

    def drain(self) -> list[dict[str, np.ndarray]]:
        """Each player's rows as arrays (``t_*`` transitions, ``r_*`` reservoir offers),
        and an empty outbox."""
        out = [{k: np.concatenate(v) for k, v in player.items() if v} for player in self.rows]
        keys = [f"t_{k}" for k in self._TRANSITION] + [f"r_{k}" for k in self._RESERVED]
        self.rows = [{k: [] for k in keys} for _ in range(2)]
        return out


class _Actor:
    """An NFSP actor (:class:`~nashzoo.agents.runtime.Actor`): self-play games on its
    own copy of both players' networks, which it uses for inference only."""

    def __init__(self, game_spec: dict, config: dict, index: int, seed: int) -> None:
        torch = _torch()
        game = load_game(game_spec)
        cfg = NFSPConfig.from_dict(config)
        sizes = [game.information_state_tensor_size, *cfg.hidden_sizes, game.num_distinct_actions]
        self.nets = [SimpleNamespace(q=mlp(torch, sizes), avg=mlp(torch, sizes)) for _ in (0, 1)]
        self.epsilons = [cfg.epsilon_start, cfg.epsilon_start]
        self.outbox = _Outbox()
        rng = np.random.default_rng(seed)
        cpu = torch.device("cpu")
        self.games = _SelfPlay(
            game, cfg, self.nets, cpu, rng, self.epsilons.__getitem__, self.outbox
        )

    def set_weights(self, weights: dict, version: int) -> None:
        for nets, saved in zip(self.nets, weights["players"]):
            nets.q.load_state_dict(saved["q"])
            nets.avg.load_state_dict(saved["avg"])
        self.epsilons[:] = weights["epsilon"]

    def collect(self) -> tuple[int, list[dict[str, np.ndarray]]]:
        if self.games.venv is None:
            self.games.start()
        episodes = sum(self.games.play() for _ in range(ACTOR_DECISIONS))
        return episodes, self.outbox.drain()


class NFSP(SteppedLearner):
    """NFSP for two-player games of :mod:`nashzoo.games`.

    Args:
        game: the rules.
        config: hyper-parameters (:class:`NFSPConfig`).

    Raises:
        InvalidParameterError: not a two-player game.
        MissingDependencyError: torch is not installed.

    A :class:`~nashzoo.agents.learner.Learner`: one step is one self-play episode.
    """

    name: ClassVar[str] = "nfsp"
    config_type: ClassVar[type] = NFSPConfig
    step_unit: ClassVar[str] = "episodes"

    def __init__(self, game: Game, config: NFSPConfig | None = None) -> None:
        torch = _torch()
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError("NFSP needs a two-player nashzoo Game.")
        if config is not None and not isinstance(config, NFSPConfig):
            raise InvalidParameterError(
                f"config must be an NFSPConfig, received {type(config).__name__}."
            )
        self.game = game
        self.config = config or NFSPConfig()
        cfg = self.config
        self._torch = torch
        self.rng = np.random.default_rng(cfg.seed)
        self.device = torch_device(torch, cfg.device)
        self.obs_size = game.information_state_tensor_size
        self.num_actions = game.num_distinct_actions
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(self.rng.integers(2**31)))
            self.players = [
                _Player(torch, cfg, self.obs_size, self.num_actions, self.device) for _ in range(2)
            ]
        self.observations = ObservationCache(game)
        self.episodes = 0
        self.seconds = 0.0
        self.version = 0  # of the weights, counted in batches received (actors only)
        self._games = _SelfPlay(game, cfg, self.players, self.device, self.rng, self.epsilon, self)
        self._runtime: Runtime | None = None

    # -- acting ----------------------------------------------------------------------------
    def epsilon(self, player: int) -> float:
        cfg = self.config
        frac = min(self.players[player].transitions / cfg.epsilon_decay_steps, 1.0)
        return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)

    def average_probs(self, player: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``player``'s average-policy distribution for a batch of observations
        (``(n, obs_size)`` float32) and legal masks (``(n, num_actions)`` bool)."""
        return _average_probs(self._torch, self.device, self.players[player].avg, obs, mask)

    # -- learning --------------------------------------------------------------------------
    def _learn(self, player: int) -> None:
        """One DQN step and one supervised step of ``player`` (each once its buffer holds
        enough); the two losses share one backward pass (their networks share nothing)."""
        torch = self._torch
        cfg = self.config
        pl = self.players[player]
        pl.learn_steps += 1
        losses, optimizers = [], []
        if pl.replay.size >= max(cfg.min_buffer_to_learn, cfg.batch_size):
            s, a, r, s2, m2, d = pl.replay.sample(self.rng, cfg.batch_size)
            s, s2, a, r, d, m2 = (_on(torch, self.device, x) for x in (s, s2, a, r, d, m2))
            with torch.no_grad():
                next_q = pl.q_target(s2).masked_fill(~m2, -1e9).max(dim=1).values
                next_q = torch.where(m2.any(dim=1), next_q, torch.zeros_like(next_q))
                target = r + cfg.discount * (1.0 - d) * next_q
            q = pl.q(s).gather(1, a[:, None]).squeeze(1)
            if cfg.loss == "mse":
                losses.append(torch.nn.functional.mse_loss(q, target))
            else:
                losses.append(torch.nn.functional.smooth_l1_loss(q, target))
            optimizers.append(pl.q_opt)
        if pl.reservoir.size >= max(cfg.min_buffer_to_learn, cfg.batch_size):
            sample = pl.reservoir.sample(self.rng, cfg.batch_size)
            s, m, a = (_on(torch, self.device, x) for x in sample)
            logits = pl.avg(s).masked_fill(~m, -1e9)
            losses.append(torch.nn.functional.cross_entropy(logits, a))
            optimizers.append(pl.avg_opt)
        if losses:
            for opt in optimizers:
                opt.zero_grad()
            sum(losses).backward()
            for opt in optimizers:
                opt.step()
        if pl.learn_steps % cfg.target_update_every == 0:
            pl.q_target.load_state_dict(pl.q.state_dict())

    def _record(self, player: int, obs, actions, rewards, next_obs, next_mask, done) -> None:
        pl = self.players[player]
        before = pl.transitions
        pl.replay.add(obs, actions, rewards, next_obs, next_mask, done)
        pl.transitions += len(actions)
        every = self.config.learn_every
        for _ in range(pl.transitions // every - before // every):
            self._learn(player)

    def _reserve(self, player: int, obs, mask, actions) -> None:
        self.players[player].reservoir.add(self.rng, obs, mask, actions)

    # -- actors ----------------------------------------------------------------------------
    def _weights(self) -> dict[str, Any]:
        """What actors act with: both players' networks (copies) and epsilons."""
        return {
            "players": [
                {name: cpu_weights(getattr(pl, name)) for name in ("q", "avg")}
                for pl in self.players
            ],
            "epsilon": [self.epsilon(p) for p in (0, 1)],
        }

    def _absorb(self, rows: list[dict[str, np.ndarray]]) -> None:
        """An actor's batch: its transitions into the replay buffers (learning every
        ``learn_every`` of them) and its best-response actions into the reservoirs."""
        for p, got in enumerate(rows):
            if "t_actions" in got:
                self._record(p, *(got["t_" + k] for k in _Outbox._TRANSITION))
            if "r_actions" in got:
                self._reserve(p, *(got["r_" + k] for k in _Outbox._RESERVED))

    def _collect(self) -> int:
        """Receive the actors' next batches, learn from them and broadcast the new
        weights; returns the episodes received."""
        runtime = self._runtime
        if runtime is None:
            factory = functools.partial(_Actor, self.game.to_spec(), self.config.to_dict())
            runtime = self._runtime = self.config.runtime(factory, self.config.seed)
            runtime.broadcast(self._weights(), self.version)
        episodes = 0
        for batch in runtime.collect():
            self._absorb(batch.data)
            episodes += batch.count
        self.version += 1
        runtime.broadcast(self._weights(), self.version)
        return episodes

    def close(self) -> None:
        """Stop the actors (a later :meth:`train` starts new ones)."""
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None

    @property
    def steps(self) -> int:
        """Self-play episodes so far (the learner's steps)."""
        return self.episodes

    train_desc = "NFSP self-play"

    def _train_start(self, steps: int | None, seconds: float | None) -> None:
        games = self._games
        if self.config.actors is None and games.venv is None and (steps, seconds) != (None, None):
            games.start()

    def _train_step(self, left: int | None) -> int:
        """Plays on (games finish in batches, so a few more episodes than a step budget
        may be played)."""
        if self.config.actors is None:
            done = sum(self._games.play() for _ in range(DECISIONS_PER_STEP))
        else:
            done = self._collect()
        self.episodes += done
        return done

    def _train_postfix(self) -> dict[str, Any]:
        return {"episodes": self.episodes}

    # -- outputs ---------------------------------------------------------------------------
    def average_policy(self):
        """The average policy as a :class:`~nashzoo.tree.TabularPolicy` (compiles the game;
        one batched forward pass per player)."""
        meta = {"algorithm": "nfsp", "episodes": self.episodes}
        return tabular_policy(self.game, self.average_probs, meta)

    def exploitability(self) -> float:
        """Exact exploitability (chips) of the average policy."""
        from nashzoo.tree.best_response import nash_conv_array

        policy = self.average_policy()
        return nash_conv_array(policy.tree, policy.probs) / policy.tree.num_players

    def agent(self, *, name: str | None = None, seed: int | None = None) -> NFSPAgent:
        """The average policy as a PolicyAgent (shares the networks)."""
        return NFSPAgent(self, seed=seed, name=name or "nfsp")

    # -- files -----------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Save networks, optimisers, counters and config (buffers are not saved)."""
        path = Path(path)
        state = {
            "format": "nashzoo.nfsp",
            "version": 1,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "episodes": self.episodes,
            "seconds": self.seconds,
            "weights_version": self.version,
            "players": [
                {
                    "q": pl.q.state_dict(),
                    "q_target": pl.q_target.state_dict(),
                    "avg": pl.avg.state_dict(),
                    "q_opt": pl.q_opt.state_dict(),
                    "avg_opt": pl.avg_opt.state_dict(),
                    "transitions": pl.transitions,
                    "learn_steps": pl.learn_steps,
                }
                for pl in self.players
            ],
        }
        from nashzoo.agents.torch_files import write_torch_file

        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None) -> NFSP:
        """Load a file written by :meth:`save`, its networks on ``device`` (``None``: the
        saved config's; a file saved on a GPU loads on a CPU with ``device="cpu"``).

        The file is read with ``torch.load(weights_only=True)``: tensors, numbers,
        strings and containers only, so a crafted checkpoint cannot run code.

        Raises:
            PolicyFileError: not a readable NFSP file (or one holding anything but data).
            InvalidParameterError: ``device`` names a GPU torch does not see.
        """
        from nashzoo.agents.torch_files import load_modules, saved_learner

        state, nfsp = saved_learner(cls, path, "nashzoo.nfsp", "NFSP", device=device)
        with PolicyFileError.reading(path, "nashzoo NFSP"):
            players = state["players"]
            if not isinstance(players, list) or len(players) != len(nfsp.players):
                raise PolicyFileError(
                    f"{path} must hold {len(nfsp.players)} players' networks, received "
                    f"{len(players) if isinstance(players, list) else type(players).__name__}."
                )
            for p, (pl, saved) in enumerate(zip(nfsp.players, players)):
                modules = {k: getattr(pl, k) for k in ("q", "q_target", "avg", "q_opt", "avg_opt")}
                load_modules(path, saved, modules, f"players[{p}]")
                pl.transitions = int(saved["transitions"])
                pl.learn_steps = int(saved["learn_steps"])
        nfsp.episodes, nfsp.seconds = state["episodes"], state["seconds"]
        nfsp.version = int(state.get("weights_version", 0))
        return nfsp


class NFSPAgent(SampledPolicyAgent):
    """An NFSP average policy as a PolicyAgent (the seat comes from ``info["player"]``)."""

    def __init__(self, nfsp: NFSP, *, seed: int | None = None, name: str = "nfsp") -> None:
        super().__init__(seed=seed)
        self.nfsp = nfsp
        self.name = name

    def _seat(self, info: AgentInfo) -> int:
        player = info.get("player") if isinstance(info, dict) else None
        if type(player) is not int or player not in (0, 1):
            raise InvalidParameterError(
                f"NFSPAgent needs info['player'] (0 or 1, the seat it plays), received {player!r}."
            )
        return player

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        obs = np.asarray(observation["observation"])[None]
        mask = np.asarray(observation["action_mask"])[None]
        return self.batch_probabilities(obs, mask, np.array([self._seat(info)]))[0]

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """The average policy in ``n`` games at once (``player[k]`` is row ``k``'s seat):
        one forward pass per seat."""
        obs = np.array(observation, np.float32)
        mask = np.asarray(action_mask).astype(bool)
        player = np.asarray(player)
        probs = np.zeros(mask.shape)
        for p in (0, 1):
            rows = np.flatnonzero(player == p)
            if rows.size:
                probs[rows] = self.nfsp.average_probs(p, obs[rows], mask[rows])
        return probs

    def __repr__(self) -> str:
        return f"NFSPAgent({self.name})"
