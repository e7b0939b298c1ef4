"""Simplex-gradient self-play: a value model scores what every card would have done, a
policy model moves along the projected gradient of that score.

Two networks on the player's information-state tensor, shared by both seats (the tensor
says which seat observes):

* the value model ``f(s)``, a sigmoid output trained by regression on the outcome: the
  player's final return rescaled to [0, 1] (for +-1/0 games, P(win) + P(draw)/2);
* the policy model ``g(s)``, a distribution over the legal actions.

Self-play plays ``batch_games`` games at once with ``g``. After each decision the rules
say what every legal own action ``a_i`` would have produced, with everything else as it
really happened: in a simultaneous game the round's successor against the opponent's
actual card (``s + z + a_i -> s_i``, :meth:`~nashzoo.games.base.State.joint_successor`),
in a turn-based game the child ``s + a_i``. Each is scored, ``f_i = f(s_i) - f(s)`` (or
``log f(s_i) - log f(s)``), using the real return where ``s_i`` ends the game, and ``g``
takes a gradient step on ``-(Pi f)^T g`` with ``f`` held fixed, ``Pi = I - 11^T/m``
(:mod:`nashzoo.agents.simplex_gradient.losses`). ``g`` is either a masked softmax of the
network's logits or the Euclidean projection of its output onto the simplex.

The last iterate of such dynamics cycles in zero-sum games. Two stabilisers: entropy
regularisation (``entropy``, tau) and a magnet (Sokota et al., "A Unified Approach to
Reinforcement Learning, Quantal Response Equilibria, and Two-Player Zero-Sum Games",
ICLR 2023: ``+ alpha KL(g || rho)``, rho uniform, the average policy, or a frozen copy
of g refreshed every ``magnet_every`` iterations, whose fixed point moves towards a Nash
equilibrium where a fixed magnet's stays at a regularised one). And one output
that converges where the last iterate does not: the *average policy*, a third network
trained by supervised learning on a reservoir of ``(s, a ~ g(s))`` pairs from all of
training (NFSP's average network and buffer). Both policies are PolicyAgents;
:meth:`SimplexGradient.exploitability` measures either exactly on games that compile.

The agent comes from a design note for a Yomi-like fighting card game ("Approximating
Nash equilibria through play": pairs of models learning by play where equilibrium solvers
do not reach; ``docs/explanation/agents.md`` summarises it); the projected loss follows
Gemp, Marris & Piliouras, "Approximating Nash Equilibria in Normal-Form Games via
Stochastic Optimization", ICLR 2024.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nashzoo.agents.nfsp.buffers import Reservoir
from nashzoo.agents.runtime import Rounds
from nashzoo.agents.simplex_gradient import experience, losses
from nashzoo.agents.simplex_gradient.agent import SimplexGradientAgent
from nashzoo.agents.simplex_gradient.config import SimplexGradientConfig
from nashzoo.agents.simplex_gradient.experience import Decisions
from nashzoo.agents.simplex_gradient.values import SimplexGradientValues
from nashzoo.agents.sparse_input import forward_sparse, rows_csr
from nashzoo.agents.training import SteppedLearner, cpu_weights, mlp, torch_device
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.extras import require
from nashzoo.games import Game, load_game
from nashzoo.games.observation import ObservationCache

__all__ = ["SimplexGradientConfig", "SimplexGradient"]

# -- 1. configuration: SimplexGradientConfig (config.py) ----------------------------------


_SAVED_MODULES = (
    "value_net",
    "policy_net",
    "average_net",
    "value_opt",
    "policy_opt",
    "average_opt",
)
"""The networks and optimisers a saved file holds, every one of them (and, with
``seat_models``, :data:`_SEAT_MODULES`)."""

_SEAT_MODULES = ("value_net_1", "policy_net_1")
"""Seat 1's own f and g under ``seat_models`` (seat 0's are ``value_net`` and
``policy_net``)."""

_MAGNET_MODULES = ("magnet_net", "magnet_net_1")
"""The ``"lagged"`` magnet's frozen copies of g (the second only under ``seat_models``)."""


# -- 2. networks -----------------------------------------------------------------------------


def _torch() -> Any:
    return require("torch", "torch", "The simplex-gradient agent")


# -- 3. one iteration's experience: experience.py (play, Decisions, value_targets) --------


class _Actor:
    """An actor of simplex-gradient self-play (:class:`~nashzoo.agents.runtime.Actor`):
    the learner's class with one-row buffers (it never learns), playing its share of
    each iteration's games with the broadcast g (and f, where ``td_lambda`` < 1 scores
    the decisions) from its own stream. Its batch is the decisions and f's targets."""

    def __init__(self, game_spec: dict, config: dict, index: int, seed: int) -> None:
        torch = _torch()
        cfg = SimplexGradientConfig.from_dict(config)
        cfg = dataclasses.replace(cfg, actors=None, backend="local", ray_address=None,
                                  seed=seed, value_capacity=1, reservoir_capacity=1,
                                  device="cpu")  # fmt: skip
        with torch.random.fork_rng(devices=[]):  # the learner's torch stream stays its own
            self.player = SimplexGradient(load_game(game_spec), cfg)
        self.index = index
        self.shares: list[int] = []

    def set_weights(self, weights: dict[str, Any], version: int) -> None:
        for name, state in weights["nets"].items():
            getattr(self.player, name).load_state_dict(state)
        self.shares = weights["shares"]

    def collect(self) -> tuple[int, Any]:
        games = int(self.shares[self.index])
        return games, self.player._play_iteration(games=games)


class SimplexGradient(SteppedLearner):
    """The learner: networks, optimisers, buffers and the self-play loop.

    Args:
        game: any two-player zero-sum nashzoo game (simultaneous or turn-based).
        config: hyper-parameters.

    Raises:
        InvalidParameterError: the game is not two-player zero-sum, or ``config`` is not a
            :class:`SimplexGradientConfig`.

    A :class:`~nashzoo.agents.learner.Learner`: one step is one iteration
    (``batch_games`` games, then the updates of f, g and the average).
    """

    name: ClassVar[str] = "simplex-gradient"
    config_type: ClassVar[type] = SimplexGradientConfig
    step_unit: ClassVar[str] = "iterations"

    def __init__(self, game: Game, config: SimplexGradientConfig | None = None) -> None:
        if config is not None and not isinstance(config, SimplexGradientConfig):
            raise InvalidParameterError(
                f"config must be a SimplexGradientConfig, received {type(config).__name__}."
            )
        if not isinstance(game, Game) or game.num_players != 2 or not game.zero_sum:
            raise InvalidParameterError(
                f"Simplex-gradient self-play needs a two-player zero-sum game; {game} is not."
            )
        torch = _torch()
        self.game = game
        self.config = config or SimplexGradientConfig()
        cfg = self.config
        self.device = device = torch_device(torch, cfg.device)
        seed = cfg.seed
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0] % 2**31)
        torch.manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self._columns = None
        self._strength: Any = None
        if cfg.inputs == "strength":
            from nashzoo.abstraction.features import HoldemStrengthColumns

            try:
                self._strength = HoldemStrengthColumns(game, cfg.strength_abstraction)
            except InvalidParameterError as exc:
                raise InvalidParameterError(
                    f"SimplexGradientConfig.inputs='strength' needs heads-up Limit Hold'em "
                    f"and Hold'em buckets: {exc}"
                ) from None
        if cfg.inputs == "summary":
            self._columns = game.information_state_summary_columns()
            if self._columns is None:
                raise InvalidParameterError(
                    f"SimplexGradientConfig.inputs='summary' needs a game that names its "
                    f"summary columns; {game} does not (use inputs='tensor')."
                )
        a = game.num_distinct_actions
        n = game.information_state_tensor_size if self._columns is None else self._columns.size
        if self._strength is not None:
            n += self._strength.width
        self.value_net = mlp(torch, [n, *cfg.hidden_sizes, 1]).to(device)
        self.policy_net = mlp(torch, [n, *cfg.hidden_sizes, a]).to(device)
        self.value_nets = [self.value_net]  # per seat under seat_models, else one shared
        self.policy_nets = [self.policy_net]
        if cfg.seat_models:
            self.value_net_1 = mlp(torch, [n, *cfg.hidden_sizes, 1]).to(device)
            self.policy_net_1 = mlp(torch, [n, *cfg.hidden_sizes, a]).to(device)
            self.value_nets.append(self.value_net_1)
            self.policy_nets.append(self.policy_net_1)
        self.average_net = mlp(torch, [n, *cfg.hidden_sizes, a]).to(device)
        self.magnet_nets: list[Any] = []
        if cfg.magnet == "lagged":  # frozen copies of g, refreshed every magnet_every
            for name, net in zip(_MAGNET_MODULES, self.policy_nets, strict=False):
                setattr(self, name, copy.deepcopy(net).requires_grad_(False))
                self.magnet_nets.append(getattr(self, name))
        # one optimiser per role over every seat's network (Adam and SGD act parameter
        # by parameter, so this is the same as one optimiser per network)
        value_params = [q for net in self.value_nets for q in net.parameters()]
        policy_params = [q for net in self.policy_nets for q in net.parameters()]
        self.value_opt = torch.optim.Adam(value_params, lr=cfg.value_lr)
        opt = torch.optim.SGD if cfg.policy_optimizer == "sgd" else torch.optim.Adam
        self.policy_opt = opt(policy_params, lr=cfg.policy_lr)
        self.average_opt = torch.optim.Adam(self.average_net.parameters(), lr=cfg.average_lr)
        self.cache = ObservationCache(game)
        self._value_obs = np.zeros((cfg.value_capacity, n), np.float32)
        self._value_target = np.zeros(cfg.value_capacity, np.float32)
        self._value_player = np.zeros(cfg.value_capacity, np.int64)
        self._value_size = 0
        self._value_next = 0
        self.reservoir = Reservoir(
            cfg.reservoir_capacity,
            n,
            mask=((a,), bool),
            actions=((), np.int64),
            t=((), np.float32),
        )
        self._low, self._span = game.min_utility, game.max_utility - game.min_utility
        actor = functools.partial(_Actor, game.to_spec(), cfg.to_dict())
        # the actors, where the config has them
        self._rounds = Rounds(cfg, actor, cfg.seed, lockstep="an iteration's games all use its g")
        self.iterations = 0
        self.episodes = 0
        self.seconds = 0.0

    def _features(self, rows: np.ndarray) -> np.ndarray:
        """What the networks read of information-state tensors (``config.inputs``)."""
        rows = np.asarray(rows, np.float32)
        if self._strength is not None:
            return np.concatenate([rows, self._strength(rows)], axis=1)
        return rows if self._columns is None else rows[:, self._columns]

    # -- policies ----------------------------------------------------------------------------
    def probabilities(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        *,
        average: bool = False,
        players: np.ndarray | None = None,
    ) -> np.ndarray:
        """``(N, A)`` action probabilities of the policy (``average=True``: the average
        policy) at ``N`` information-state tensors with their legal masks; ``players``
        (whose view each row is) picks each seat's g under ``seat_models``.

        Raises:
            InvalidParameterError: ``seat_models`` and the last policy without ``players``.
        """
        torch = _torch()
        rows = self._features(obs)
        with torch.no_grad():
            m = torch.from_numpy(np.asarray(mask).astype(bool)).to(self.device)
            if average:
                probs = losses.masked_softmax(self._outputs([self.average_net], rows, None), m)
            else:
                probs = self._distribution(self._outputs(self.policy_nets, rows, players), m)
            return probs.double().cpu().numpy()

    def _distribution(self, out: Any, mask: Any) -> Any:
        """g's probabilities from its network's outputs: the masked softmax, or the
        Euclidean projection onto the simplex (``config.parametrisation``)."""
        if self.config.parametrisation == "softmax":
            return losses.masked_softmax(out, mask)
        return losses.simplex_projection(out, mask)

    def _outputs(self, nets: list[Any], rows: np.ndarray, players: Any) -> Any:
        """Each row through its seat's network without gradients, at the cost of its
        non-zero entries (:mod:`nashzoo.agents.sparse_input`; every output the learner
        acts on or scores with comes this way, during training and in play)."""
        torch = _torch()
        if len(nets) == 1:
            return forward_sparse(torch, nets[0], rows_csr(rows))
        if players is None:
            raise InvalidParameterError(
                "With seat_models each seat has its own networks: pass the players."
            )
        seats = np.asarray(players)
        out = None
        for seat, net in enumerate(nets):
            picked = np.flatnonzero(seats == seat)
            if picked.size == 0:
                continue
            y = forward_sparse(torch, net, rows_csr(rows[picked]))
            if out is None:
                out = y.new_zeros((rows.shape[0], y.shape[1]))
            out[torch.from_numpy(picked).to(y.device)] = y
        assert out is not None
        return out

    def _seats(self, nets: list[Any], x: Any, players: Any) -> Any:
        """Each row through its seat's network (one shared network: all rows)."""
        if len(nets) == 1:
            return nets[0](x)
        if players is None:
            raise InvalidParameterError(
                "With seat_models each seat has its own networks: pass the players."
            )
        torch = _torch()
        seats = np.asarray(players)
        out = None
        for seat, net in enumerate(nets):
            rows = torch.from_numpy(np.flatnonzero(seats == seat)).to(x.device)
            if rows.numel() == 0:
                continue
            y = net(x[rows])
            if out is None:
                out = y.new_zeros((x.shape[0], y.shape[1]))
            out = out.index_copy(0, rows, y)
        return out

    def _value(self, x: Any, players: Any) -> Any:
        """f at rows of tensors (a probability: the sigmoid of the output)."""
        return _torch().sigmoid(self._seats(self.value_nets, x, players)[:, 0])

    def value_of(self, rows: np.ndarray, players: np.ndarray) -> np.ndarray:
        """f at rows of tensors without gradients (how successors are scored)."""
        if rows.shape[0] == 0:
            return np.zeros(0)
        torch = _torch()
        with torch.no_grad():
            logits = self._outputs(self.value_nets, self._features(rows), players)[:, 0]
            return torch.sigmoid(logits).double().cpu().numpy()

    # -- self-play ---------------------------------------------------------------------------
    def _policy_numpy(self, obs: np.ndarray, mask: np.ndarray, players: np.ndarray) -> np.ndarray:
        return self.probabilities(obs, mask, players=players)

    def _play_iteration(
        self, *, bulk: bool = True, games: int | None = None
    ) -> tuple[Decisions, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Play ``games`` (``batch_games``) games to their end with ``g``; return the
        decisions and f's targets
        (:func:`~nashzoo.agents.simplex_gradient.experience.value_targets`)."""
        if games is None and self.config.actors is not None:
            return self._play_on_actors()
        games = self.config.batch_games if games is None else games
        decisions = experience.play(
            self.game,
            games,
            self._policy_numpy,
            self.rng,
            bulk=bulk,
            cache=self.cache,
        )
        # f learns each decision's lambda-return (the outcome when td_lambda is 1) at
        # the decision and at the successor actually reached (where f is evaluated for
        # the action taken and, by generalisation, the others); the successor reached
        # is the player's next decision, whose own lambda-return it takes
        lam = float(self.config.td_lambda)
        value = None
        if lam < 1.0:
            value = self.value_of(decisions.obs, decisions.player)
        own, after = experience.lambda_returns(decisions, lam, value)
        self.episodes += games
        return decisions, experience.value_targets(decisions, own, after)

    def _play_on_actors(self) -> tuple[Decisions, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """This iteration's games split among the actors (lockstep), joined in actor
        order."""
        cfg = self.config
        total = cfg.batch_games
        shares = cfg.shares(total)
        nets = ["policy_net", "policy_net_1"][: len(self.policy_nets)]
        if cfg.td_lambda < 1.0:  # the actors score their decisions with f
            nets += ["value_net", "value_net_1"][: len(self.value_nets)]
        weights = {name: cpu_weights(getattr(self, name)) for name in nets}
        parts = self._rounds.run({"nets": weights, "shares": shares})
        self.episodes += total
        targets = tuple(np.concatenate([t[k] for _, t in parts]) for k in range(3))
        return experience.join([d for d, _ in parts]), targets  # type: ignore[return-value]

    def close(self) -> None:
        """Stop the actors, if any (training does this when it ends)."""
        self._rounds.close()

    @property
    def version(self) -> int:
        """Rounds of games sent to the actors so far."""
        return self._rounds.version

    # -- learning ----------------------------------------------------------------------------
    def _store_values(self, targets: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Append f's targets to the ring buffer, in order (the oldest overwritten)."""
        obs, value, player = targets
        obs = self._features(obs)
        cap = self.config.value_capacity
        m = value.size
        if m > cap:  # only the last ``cap`` would survive
            obs, value, player = obs[m - cap :], value[m - cap :], player[m - cap :]
            start = (self._value_next + m - cap) % cap
        else:
            start = self._value_next
        idx = (start + np.arange(value.size)) % cap
        self._value_obs[idx] = obs
        self._value_target[idx] = value
        self._value_player[idx] = player
        self._value_next = (self._value_next + m) % cap
        self._value_size = min(self._value_size + m, cap)

    def _learn_value(self) -> None:
        torch = _torch()
        cfg = self.config
        for _ in range(cfg.value_steps):
            idx = self.rng.integers(0, self._value_size, size=min(cfg.batch_size, self._value_size))
            x = torch.from_numpy(self._value_obs[idx]).to(self.device)
            y = torch.from_numpy(self._value_target[idx]).to(self.device)
            loss = torch.nn.functional.mse_loss(self._value(x, self._value_player[idx]), y)
            self.value_opt.zero_grad()
            loss.backward()
            self.value_opt.step()

    def action_scores(self, batch: Decisions) -> np.ndarray:
        """``(decisions, A)`` rewards ``f_i`` of every legal action (0 elsewhere)."""
        base_np = self.value_of(batch.obs, batch.player)
        succ_np = self.value_of(batch.succ, batch.succ_player)
        index = batch.succ_index
        values = np.where(
            index >= 0,
            succ_np[np.maximum(index, 0)] if succ_np.size else 0.0,
            batch.known,
        )
        mask = batch.mask.astype(bool)
        if self.config.reward == "difference":
            scores = values - base_np[:, None]
        else:
            floor = 1e-3
            scores = np.log(np.maximum(values, floor)) - np.log(np.maximum(base_np, floor))[:, None]
        return np.where(mask, scores, 0.0)

    def _magnet(self, x: Any, mask: Any, players: np.ndarray) -> Any:
        """The magnet rho at a batch of decisions, or ``None`` where the magnet term does
        not count (no magnet, or ``magnet_strength`` 0)."""
        torch = _torch()
        cfg = self.config
        if cfg.magnet == "none" or not cfg.magnet_strength:
            return None
        if cfg.magnet == "uniform":
            return mask.double() / mask.sum(-1, keepdim=True)
        with torch.no_grad():
            if cfg.magnet == "average":
                return losses.masked_softmax(self.average_net(x), mask).double()
            rho = self._distribution(self._seats(self.magnet_nets, x, players), mask).double()
        # a vertex of the simplex has no KL: keep every legal action alive
        return rho.clamp(min=1e-6) if cfg.parametrisation == "direct" else rho

    def _learn_policy(self, batch: Decisions) -> float:
        torch = _torch()
        cfg = self.config
        f = torch.from_numpy(self.action_scores(batch)).to(self.device)
        x = torch.from_numpy(self._features(batch.obs)).to(self.device)
        m = torch.from_numpy(batch.mask.astype(bool)).to(self.device)
        magnet = self._magnet(x, m, batch.player)
        total = 0.0
        for _ in range(cfg.policy_steps):
            out = self._seats(self.policy_nets, x, batch.player)
            g = self._distribution(out, m).double()
            loss = losses.policy_loss(f, g, m, projected=cfg.projected)
            if cfg.parametrisation == "direct":
                # keep the raw output on the simplex, where the projection passes
                # gradients to every legal action (a vertex would freeze the policy)
                gap = torch.where(m, out.double() - g.detach(), torch.zeros_like(g))
                loss = loss + 0.5 * (gap**2).sum(-1).mean()
            if cfg.entropy:
                loss = loss - cfg.entropy * losses.entropy(g, m).mean()
            if magnet is not None:
                loss = loss + cfg.magnet_strength * losses.kl_divergence(g, magnet, m).mean()
            self.policy_opt.zero_grad()
            loss.backward()
            self.policy_opt.step()
            total = float(loss.detach())
        return total

    def _learn_average(self, batch: Decisions) -> None:
        """Cross-entropy of the average network on a reservoir of the policy's own
        sampled actions: every decision of training is kept with equal probability, so
        the network fits the time-average of g (as NFSP's average network does), or with
        ``average_weighting="linear"`` the average weighted by iteration."""
        torch = _torch()
        cfg = self.config
        self.reservoir.add_rows(
            self.rng,
            self._features(batch.obs),
            mask=batch.mask,
            actions=batch.action,
            t=np.full(len(batch.action), self.iterations + 1, np.float32),
        )
        for _ in range(cfg.average_steps):
            o, cols = self.reservoir.sample_rows(self.rng, cfg.batch_size)
            mk = torch.from_numpy(cols["mask"]).to(self.device)
            logits = self.average_net(torch.from_numpy(o).to(self.device)).masked_fill(~mk, -1e9)
            actions = torch.from_numpy(cols["actions"]).to(self.device)
            if cfg.average_weighting == "linear":
                t = torch.from_numpy(cols["t"]).double().to(self.device)
                per_row = torch.nn.functional.cross_entropy(logits, actions, reduction="none")
                loss = (t / t.mean() * per_row).mean()
            else:
                loss = torch.nn.functional.cross_entropy(logits, actions)
            self.average_opt.zero_grad()
            loss.backward()
            self.average_opt.step()

    def iterate(self) -> None:
        """One iteration: play ``batch_games`` games, then update f, g and the average."""
        batch, targets = self._play_iteration()
        self._store_values(targets)
        self._learn_value()
        self._learn_policy(batch)
        self._learn_average(batch)
        self.iterations += 1
        if self.magnet_nets and self.iterations % self.config.magnet_every == 0:
            for magnet, net in zip(self.magnet_nets, self.policy_nets, strict=True):
                magnet.load_state_dict(net.state_dict())

    @property
    def steps(self) -> int:
        """Iterations so far (the learner's steps)."""
        return self.iterations

    train_desc = "simplex-gradient self-play"

    def _train_step(self, left: int | None) -> int:
        self.iterate()
        return 1

    # -- outputs -----------------------------------------------------------------------------
    def tabular_policy(self, *, average: bool = True) -> Any:
        """The average (or last) policy as a :class:`~nashzoo.tree.TabularPolicy`
        (compiles the game; one forward pass)."""
        from nashzoo.tree import TabularPolicy, compile_game

        tree = compile_game(self.game)
        probs = self.probabilities(
            tree.infoset_tensor.astype(np.float32),
            tree.legal_mask,
            average=average,
            players=tree.infoset_player,
        )
        return TabularPolicy(
            tree,
            probs,
            metadata={
                "algorithm": "simplex-gradient",
                "policy": "average" if average else "last",
                "iterations": self.iterations,
            },
        )

    def exploitability(self, *, average: bool = True) -> float:
        """Exact exploitability of the average (or last) policy."""
        from nashzoo.tree.best_response import nash_conv_array

        policy = self.tabular_policy(average=average)
        return nash_conv_array(policy.tree, policy.probs) / 2

    def other_exploitabilities(self) -> dict[str, float]:
        """The last iterate's exact exploitability (the average's is
        :meth:`exploitability`): the last iterate may cycle where the average converges."""
        return {"last": self.exploitability(average=False)}

    def value_function(self) -> SimplexGradientValues:
        """f as player 0's value of histories: an AIVAT value function for matches on
        games that do not compile (:mod:`nashzoo.agents.simplex_gradient.values`; it
        reads the networks at each call, so train no further during such a match)."""
        return SimplexGradientValues(self)

    def agent(
        self, *, name: str | None = None, seed: int | None = None, average: bool | None = None
    ) -> SimplexGradientAgent:
        """The average (``average=True``) or last (``False``) policy as a PolicyAgent
        (shares the networks); ``None`` plays the one ``config.play`` names."""
        if average is None:
            average = self.config.play == "average"
        return SimplexGradientAgent(
            self, average=average, seed=seed, name=name or "simplex-gradient"
        )

    # -- files -------------------------------------------------------------------------------
    def _saved_modules(self) -> tuple[str, ...]:
        seats = _SEAT_MODULES if self.config.seat_models else ()
        return _SAVED_MODULES + seats + _MAGNET_MODULES[: len(self.magnet_nets)]

    def save(self, path: str | Path) -> Path:
        """Save the networks, optimisers, counters and config (not the buffers)."""
        path = Path(path)
        state = {
            "format": "nashzoo.simplex_gradient",
            "version": 1,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "iterations": self.iterations,
            "episodes": self.episodes,
            "seconds": self.seconds,
            "nets": {name: getattr(self, name).state_dict() for name in self._saved_modules()},
        }
        from nashzoo.agents.torch_files import write_torch_file

        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None) -> SimplexGradient:
        """Load a file written by :meth:`save` (read with ``weights_only=True``: data
        only), its networks on ``device`` (``None``: the saved config's; a file saved on
        a GPU loads on a CPU with ``device="cpu"``).

        Raises:
            FileNotFoundError: no such file.
            PolicyFileError: not a readable simplex-gradient file.
            InvalidParameterError: ``device`` names a GPU torch does not see.
        """
        from nashzoo.agents.torch_files import load_modules, saved_learner

        what = "simplex-gradient"
        state, learner = saved_learner(cls, path, "nashzoo.simplex_gradient", what, device=device)
        with PolicyFileError.reading(path, f"nashzoo {what}"):
            modules = {name: getattr(learner, name) for name in learner._saved_modules()}
            load_modules(path, state["nets"], modules, "nets")
            learner.iterations = int(state["iterations"])
            learner.episodes = int(state["episodes"])
            learner.seconds = float(state["seconds"])
        return learner
