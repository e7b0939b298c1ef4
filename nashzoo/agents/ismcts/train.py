"""Self-play training of Nash-ISMCTS's networks, AlphaZero style (torch extra).

``docs/explanation/nash-ismcts.md`` ("A-ISMCTS") gives the targets. One generation:

1. tabulate the current network on every view (the search reads only these tables);
2. play ``games_per_generation`` self-play games: at every decision the mover runs
   Nash-ISMCTS from its own information set (Dirichlet noise at the root) and plays a
   move sampled from the root's visit counts; record the visit distribution (target of
   P), and for every view each player held along the game the final payoff (target of V)
   and of V_w at the world that was true;
3. sample ``belief_games`` games from the current P alone (not the replay buffer, which
   drifts toward Bayes of an old P): the true world at every view is H's target;
4. take ``steps_per_generation`` gradient steps on the replay buffer (the last
   ``replay_generations`` generations) with the loss P cross-entropy + V, V_w squared
   errors + H cross-entropy + V_c squared error toward the network's own V after each
   action + the Bayes-rule term (H after an opponent's action against Bayes' rule applied
   to H before it and P at the opponent's information sets, on every such transition of
   the game);
5. measure the exploitability of P exactly, and every ``search_every`` generations that of
   the search policy (one search at every information set), and checkpoint.

Self-play games run in worker processes (``workers``) or as Ray tasks
(``backend="ray"``); each game is seeded from (seed, generation, game index), so the
same seed gives the same networks whatever the number of workers.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from nashzoo.agents.ismcts.agent import ISMCTSAgent
from nashzoo.agents.ismcts.compiled import CompiledSearch
from nashzoo.agents.ismcts.config import SearchConfig
from nashzoo.agents.ismcts.losses import _losses, _structure, belief_kl
from nashzoo.agents.ismcts.nets import NetworkShape, ParameterAverage, SearchNetwork, tabulate
from nashzoo.agents.ismcts.selfplay import _concat, _Players, _prior_games, train_generations
from nashzoo.agents.ismcts.tables import SearchTables
from nashzoo.agents.learner import TrainCallback
from nashzoo.errors import InvalidParameterError
from nashzoo.extras import require
from nashzoo.games import Game
from nashzoo.tree.best_response import nash_conv_array
from nashzoo.tree.compile import compile_game
from nashzoo.tree.views import views_of
from nashzoo.validation import Config, choice, integer, integers, number

__all__ = [
    "TrainConfig",
    "GenerationRecord",
    "NashISMCTS",
    "search_exploitability",
]

torch = require("torch", "torch", "Nash-ISMCTS training")


@dataclass(frozen=True)
class TrainConfig(Config):
    """Hyper-parameters of Nash-ISMCTS self-play training.

    The budget is not here: :meth:`NashISMCTS.train` takes ``steps`` (generations) or
    ``seconds``, as every learner does.

    Attributes:
        games_per_generation: self-play games per generation.
        simulations: search simulations per self-play move (measured on Leduc, 10
            minutes on one core: 100 left P at 0.42 chips, 400 reached 0.34; 1,000 reached
            0.32 in fewer generations, but its search rose more with simulations).
        eval_simulations: simulations per information set when measuring the search.
        eps: the epsilon of the search in the self-play loop (small: every P inside the
            interval-overlap zone is a fixed point of the loop, so the floor of the
            loop's exploitability grows with eps).
        eps_final: when set, eps moves linearly from ``eps`` to ``eps_final`` over each
            :meth:`NashISMCTS.train` call (over its ``steps``, or over its ``seconds``
            when that is given).
        play_eps: the epsilon of the trained agent's search, and of the measurements (a
            separate, larger setting: it keeps the search at P where the network's values
            are off by less than the interval, so it does not collapse as it searches
            longer).
        c_puct: the PUCT constant of self-play.
        play_c_puct: the PUCT constant of the trained agent and of the measurements (a
            larger constant leans on P where the network's values disagree; measured on
            Leduc: 4 kept the search flat from 100 to 3,000 simulations where 2 let it
            rise).
        spawn_cap: nesting levels of spawned opponent trees.
        value_scale: the scale of PUCT's exploration and of the LCB in self-play and in
            the trained agent's search (``SearchConfig.value_scale``): ``"game"`` (the
            game's largest payoff) or ``"tree"`` (the search tree's value range).
            Measured on Leduc (CFR+ oracle tables, three seeds, the search operator's
            exact exploitability at 1,000 simulations): at eps 0.2 the two agree
            (0.039 and 0.043 from an equilibrium P; 0.054 and 0.052 from a P 0.048
            exploitable), at eps 0.05 "tree" moves further from a good P (0.20 against
            0.10). Trained over the rules on Leduc (8 minutes, side by side), "game"
            left P at 0.42 and the search at 1,000 simulations at 0.37 chips, "tree" at
            0.51 and 0.43; so every trainer keeps "game" (the tree's range leaves a
            prior that folds the nuts on Hold'em, where the game's scale does not: a
            setting to try there, its strength not yet measured).
        noise_alpha, noise_fraction: Dirichlet noise at the self-play root.
        self_play_moves: how a self-play move is drawn from its search: ``"lcb"`` (the
            design's move selection, the one the trained agent plays by: actions whose
            confidence interval lies below the best lower bound are dropped, the rest
            drawn in proportion to visits) or ``"visits"`` (in proportion to all visits).
            The policy target is ``policy_target`` either way.
        policy_target: what P learns from at each self-play decision: ``"visits"`` (the
            root's visit distribution, AlphaZero's) or ``"completed_q"`` (P improved by the
            root's measured values, Gumbel MuZero's completed-Q target:
            :func:`~nashzoo.agents.ismcts.config.improved_policy`), which stays
            informative at a few simulations a move where the visits are P resampled.
            Measured on Leduc (8 simulations a move, 6 minutes, two seeds): the visits
            left P at 0.52 and 0.62 chips, completed-Q at ``target_scale`` 1 at 1.15 and
            1.31 (nearly greedy targets: P oscillates between pure moves), at 0.1 at
            0.82 (visits 0.49), so the default stays ``"visits"``
            (``benchmarks/nash_ismcts_targets.py``).
        target_scale: ``c_scale`` of the completed-Q target.
        hidden_sizes: widths of the network's torso.
        learning_rate: Adam's step size.
        average_decay: when set, the trained agent (and every measurement: P's and the
            search's exploitability, LBR, the duplicate scores) plays an exponential
            moving average of the network's parameters, updated after each generation
            with this decay (:class:`~nashzoo.agents.ismcts.nets.ParameterAverage`);
            self-play keeps the current network. Measured on Leduc with the compiled
            trainer (32 games and 50 steps per generation, two seeds): 0.97 put the
            search at 1,000 simulations at 0.264 and 0.281 chips after 220 generations,
            the last network at 0.287 and 0.301, and kept it there while the last
            network moved by 0.03 from one measurement to the next. Over the rules
            (15 minutes, three seeds): 0.291, 0.297, 0.312 against the same runs' last
            networks' 0.324, 0.290, 0.327.
        batch_size: decisions (and twice as many view records) per gradient step.
        steps_per_generation: gradient steps per generation.
        replay_generations: generations of self-play data the buffer keeps.
        belief_games: games sampled from P per generation for H's targets (all stepped
            at once). Measured on Leduc (8 minutes, one core): 256 games left H at a mean
            KL of 0.18 from Bayes' rule under P and the search at 0.30 chips; 4,096 reached
            0.011 and 0.22-0.24; 16,384 reached 0.006 and 0.25.
        bayes_weight: weight of the Bayes-rule loss.
        search_every: generations between measurements of the search policy (each
            generation measures P's exploitability; the search's costs one search per
            information set).
        workers: self-play worker processes (0: play in this process).
        backend: ``"local"`` or ``"ray"``.
        seed: seed of everything (networks, games, searches).
    """

    games_per_generation: int = integer(128, low=1)
    simulations: int = integer(400, low=1)
    eval_simulations: int = integer(1000, low=1)
    eps: float = number(0.05, low=0.0)
    eps_final: float | None = number(None, low=0.0, optional=True)
    play_eps: float = number(0.2, low=0.0)
    play_c_puct: float = number(4.0, low=0.0)
    c_puct: float = number(2.0, low=0.0)
    spawn_cap: int = integer(3, low=0, high=8)
    value_scale: Literal["game", "tree"] = choice("game", ("game", "tree"))
    noise_alpha: float = number(1.0, low=0.0, low_inclusive=False)
    noise_fraction: float = number(0.25, low=0.0, high=1.0)
    self_play_moves: Literal["lcb", "visits"] = choice("lcb", ("lcb", "visits"))
    policy_target: Literal["visits", "completed_q"] = choice("visits", ("visits", "completed_q"))
    target_scale: float = number(1.0, low=0.0)
    hidden_sizes: tuple[int, ...] = integers((128, 128))
    learning_rate: float = number(1e-3, low=0.0)
    average_decay: float | None = number(
        None, low=0.0, high=1.0, high_inclusive=False, optional=True
    )
    batch_size: int = integer(256, low=1)
    steps_per_generation: int = integer(100, low=1)
    replay_generations: int = integer(20, low=1)
    belief_games: int = integer(16384, low=1)
    bayes_weight: float = number(1.0, low=0.0)
    search_every: int = integer(5, low=1)
    workers: int = integer(0, low=0)
    backend: str = choice("local", ("local", "ray"))
    seed: int = integer(0, low=0)

    def search_config(self, *, play: bool = False, progress: float = 0.0) -> SearchConfig:
        """The Nash-ISMCTS settings of self-play (``progress`` in [0, 1] of the run
        anneals eps toward ``eps_final``), or (``play``) of the trained agent and the
        measurements (``eval_simulations``, ``play_eps``)."""
        eps = self.eps
        if self.eps_final is not None:
            eps = self.eps + (self.eps_final - self.eps) * min(max(progress, 0.0), 1.0)
        return SearchConfig(
            variant="nash",
            simulations=self.eval_simulations if play else self.simulations,
            c_puct=self.play_c_puct if play else self.c_puct,
            eps=self.play_eps if play else eps,
            spawn_cap=self.spawn_cap,
            value_scale=self.value_scale,
            noise_alpha=self.noise_alpha,
            noise_fraction=self.noise_fraction,
            final_policy=None if play else self.self_play_moves,
            seed=self.seed,
        )


@dataclass(frozen=True)
class GenerationRecord:
    """What one generation measured (exploitability in chips)."""

    generation: int
    seconds: float
    games: int
    loss: dict[str, float]
    prior_exploitability: float
    search_exploitability: float | None
    belief_kl: float


# -- measuring ------------------------------------------------------------------------------
def search_exploitability(
    tables: SearchTables, config: SearchConfig, *, seed: int = 0
) -> tuple[float, np.ndarray]:
    """Exploitability (chips) of the search operator: one search at every information set,
    seeded per set; returns it and the assembled ``(num_infosets, num_actions)`` policy."""
    tree = tables.tree
    search = CompiledSearch(tables, config)
    probs = np.zeros(tree.legal_mask.shape)
    for i in range(tree.num_infosets):
        probs[i] = search.run(i, np.random.SeedSequence([seed, i])).policy
    return nash_conv_array(tree, probs) / tree.num_players, probs


# -- self-play (runs in worker processes) ----------------------------------------------------
class NashISMCTS:
    """Nash-ISMCTS's self-play trainer, a :class:`~nashzoo.agents.learner.Learner` (one
    step is one generation) for games that compile (Kuhn- or Leduc-sized).

    Args:
        game: the game.
        config: hyper-parameters (default ``TrainConfig()``).

    Attributes:
        history: one :class:`GenerationRecord` per generation.
        network: the :class:`~nashzoo.agents.ismcts.nets.SearchNetwork` being trained.

    Raises:
        InvalidParameterError: not a Game, or ``config`` not a :class:`TrainConfig`.
        (A game that does not compile gets the trainer over the rules instead.)
    """

    name: ClassVar[str] = "nash-ismcts"
    config_type: ClassVar[type] = TrainConfig
    step_unit: ClassVar[str] = "generations"

    def __new__(cls, game: Game, config: TrainConfig | None = None) -> Any:
        """A :class:`~nashzoo.agents.ismcts.train_large.NashISMCTSLarge` where ``game``
        does not compile (:func:`~nashzoo.agents.ismcts.compiled.compiles_for_search`), so
        that ``NashISMCTS(game)`` and ``nashzoo train nash-ismcts`` train on any game."""
        from nashzoo.agents.ismcts.compiled import compiles_for_search

        if cls is NashISMCTS and isinstance(game, Game) and not compiles_for_search(game):
            from nashzoo.agents.ismcts.train_large import NashISMCTSLarge

            return NashISMCTSLarge(game, config)
        return super().__new__(cls)

    @classmethod
    def config_type_for(cls, game: Game) -> type:
        """The config class for ``game``: :class:`TrainConfig`, or
        :class:`~nashzoo.agents.ismcts.train_large.LargeTrainConfig` (defaults for big
        games) where it does not compile."""
        from nashzoo.agents.ismcts.compiled import compiles_for_search

        if compiles_for_search(game):
            return TrainConfig
        from nashzoo.agents.ismcts.train_large import LargeTrainConfig

        return LargeTrainConfig

    @classmethod
    def options_config_type(cls) -> type:
        """The config whose fields ``nashzoo train nash-ismcts`` offers as options:
        :class:`~nashzoo.agents.ismcts.train_large.LargeTrainConfig`, which is
        :class:`TrainConfig` and the settings of training over the rules (a game that
        compiles refuses those, :meth:`config_type_for` says which applies)."""
        from nashzoo.agents.ismcts.train_large import LargeTrainConfig

        return LargeTrainConfig

    def __init__(self, game: Game, config: TrainConfig | None = None) -> None:
        config = TrainConfig() if config is None else config
        if not isinstance(config, TrainConfig):
            raise InvalidParameterError(
                f"config must be a TrainConfig, received {type(config).__name__}."
            )
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"NashISMCTS needs a two-player nashzoo Game, received {game}."
            )
        self.game = game
        self.config = config
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(np.random.SeedSequence([config.seed, 10**6]))
        self.tree = compile_game(game)
        self.views = views_of(self.tree)
        self.network = SearchNetwork(NetworkShape.for_views(self.views, config.hidden_sizes))
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate)
        self._inputs = torch.from_numpy(np.array(self.views.view_tensor, dtype=np.float32))
        self._world_mask = torch.from_numpy(self.views.view_world_mask.copy())
        self._structure = _structure(self.views)
        self._buffer: list[list[dict[str, np.ndarray]]] = []
        self.history: list[GenerationRecord] = []
        self.seconds = 0.0
        self.eval_config = config.search_config(play=True)
        self.network.eval()
        self.average = (
            None
            if config.average_decay is None
            else ParameterAverage(self.network, config.average_decay)
        )
        self.tables = tabulate(self.network, self.views)
        self._search: tuple[int, float] | None = None  # (generation, exploitability)

    @property
    def steps(self) -> int:
        """Generations so far."""
        return len(self.history)

    def train(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: TrainCallback | None = None,
        callback_every: float = 10.0,
        progress: bool = False,
    ) -> NashISMCTS:
        """Run ``steps`` more generations or for ``seconds`` of wall time; the search is
        measured every ``search_every`` generations and after the last. ``callback`` (a
        ``Callback``, a function or a list) runs every ``callback_every`` seconds and at
        the end; ``False`` stops.

        Raises:
            WorkerError: a self-play worker process died.
        """
        train_generations(
            self,
            self._generation,
            steps=steps,
            seconds=seconds,
            callback=callback,
            callback_every=callback_every,
            progress=progress,
            desc="Nash-ISMCTS self-play",
            postfix=lambda: {"P": f"{self.history[-1].prior_exploitability:.3f}"},
        )
        if self.history and self.history[-1].search_exploitability is None:
            last = self.history[-1]
            self.history[-1] = replace(last, search_exploitability=self.exploitability())
        return self

    def _generation(self, players: _Players, fraction: float) -> int:
        config, net = self.config, self.network
        generation = self.steps + 1
        start = time.perf_counter()
        net.eval()
        tables = tabulate(net, self.views)
        games = players.play(tables, generation, fraction)
        self._buffer = [*self._buffer, games][-config.replay_generations :]
        h_views, h_worlds = _prior_games(tables, self.rng, config.belief_games)
        data = [g for gen in self._buffer for g in gen]
        arrays = {k: _concat(data, k) for k in ("infosets", "views", "worlds", "returns")}
        arrays["targets"] = np.concatenate([g["targets"] for g in data])
        net.train()
        parts: dict[str, float] = {}
        for _ in range(config.steps_per_generation):
            d = self.rng.integers(0, arrays["infosets"].size, config.batch_size)
            v = self.rng.integers(0, arrays["views"].size, 2 * config.batch_size)
            h = self.rng.integers(0, h_views.size, 2 * config.batch_size)
            batch = {
                "infosets": torch.from_numpy(arrays["infosets"][d]),
                "targets": torch.from_numpy(arrays["targets"][d]),
                "views": torch.from_numpy(arrays["views"][v]),
                "worlds": torch.from_numpy(arrays["worlds"][v]),
                "returns": torch.from_numpy(arrays["returns"][v]),
                "h_views": torch.from_numpy(h_views[h]),
                "h_worlds": torch.from_numpy(h_worlds[h]),
            }
            loss, parts = _losses(
                net, self._inputs, self._world_mask, self._structure, batch, config.bayes_weight
            )
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        net.eval()
        if self.average is not None:
            self.average.update(net)
        self.tables = tabulate(self.playing_network, self.views)
        prior = nash_conv_array(self.tree, self.tables.prior) / self.tree.num_players
        elapsed = self.seconds + time.perf_counter() - start
        self.history.append(
            GenerationRecord(
                generation=generation,
                seconds=elapsed,
                games=generation * config.games_per_generation,
                loss=parts,
                prior_exploitability=float(prior),
                search_exploitability=None,
                belief_kl=belief_kl(self.tables),
            )
        )
        if generation % config.search_every == 0:
            self.history[-1] = replace(
                self.history[-1], search_exploitability=self.exploitability()
            )
        return 1

    @property
    def playing_network(self) -> Any:
        """The network the trained agent plays: the parameter average where
        ``average_decay`` is set, the current network otherwise."""
        return self.network if self.average is None else self.average.network

    def other_exploitabilities(self) -> dict[str, float]:
        """Exact exploitability of the network's policy P alone (without search)."""
        return {"P": float(nash_conv_array(self.tree, self.tables.prior) / self.tree.num_players)}

    def exploitability(self) -> float:
        """Exact exploitability of the search policy (what :meth:`agent` plays: one search
        at every information set, ``eval_simulations`` each); measured once per
        generation."""
        if self._search is None or self._search[0] != self.steps:
            value, _ = search_exploitability(self.tables, self.eval_config, seed=self.config.seed)
            self._search = (self.steps, float(value))
        return self._search[1]

    def agent(self, *, name: str | None = None, seed: int | None = None) -> ISMCTSAgent:
        """The search on :attr:`playing_network`'s tables (the parameter average where
        ``average_decay`` is set; ``eval_simulations`` per move, ``play_eps``,
        ``play_c_puct``) as an agent."""
        config = self.eval_config if seed is None else replace(self.eval_config, seed=seed)
        return ISMCTSAgent(
            self.tree,
            self.tables,
            config,
            name=name or "nash-ismcts",
            metadata={"generation": self.steps, "train": self.config.to_dict()},
        )

    def curves(self) -> list[Any]:
        """Two :class:`~nashzoo.agents.learner.ConvergenceCurve` (P and the search) for
        :func:`nashzoo.eval.plots.plot_convergence`."""
        from nashzoo.agents.learner import ConvergenceCurve, ConvergencePoint
        from nashzoo.tree.policy import TabularPolicy

        game, unit = repr(self.game), self.step_unit
        prior = tuple(
            ConvergencePoint(r.generation, r.seconds, r.prior_exploitability, unit)
            for r in self.history
        )
        searched = tuple(
            ConvergencePoint(r.generation, r.seconds, r.search_exploitability, unit)
            for r in self.history
            if r.search_exploitability is not None
        )
        p = TabularPolicy(self.tree, self.tables.prior)
        return [
            ConvergenceCurve("network P", game, prior, p),
            ConvergenceCurve(
                f"Nash-ISMCTS ({self.config.eval_simulations} simulations)", game, searched, p
            ),
        ]

    def save(self, path: str | Path) -> Path:
        """Write the search agent with the network, its optimiser and the counters to a
        ``.pt`` file (an agent file every tool loads; :meth:`load` resumes training;
        the replay buffer is not saved)."""
        if Path(path).suffix != ".pt":
            raise InvalidParameterError(f"A Nash-ISMCTS file ends in .pt, received {path!r}.")
        network = {
            "shape": self.network.shape.to_dict(),
            "state": self.network.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "trainer": {
                "config": self.config.to_dict(),
                "seconds": self.seconds,
                "history": [asdict(r) for r in self.history],
            },
        }
        if self.average is not None:
            network["average"] = self.average.state()
        return self.agent().save(path, network=network)

    @classmethod
    def load(cls, path: str | Path) -> Any:
        """The trainer a file written by :meth:`save` holds: a
        :class:`~nashzoo.agents.ismcts.train_large.NashISMCTSLarge` where the file is one
        (as ``NashISMCTS(game)`` builds one where the game does not compile).

        Raises:
            PolicyFileError: not a Nash-ISMCTS file, or an agent file without the
                trainer's state (e.g. one saved by ``ISMCTSAgent.save``).
            FileNotFoundError: no such file.
        """
        from nashzoo.agents.ismcts.agent import NETWORK_FORMAT
        from nashzoo.agents.torch_files import load_modules, read_torch_file
        from nashzoo.errors import PolicyFileError

        state = read_torch_file(path)
        if cls is NashISMCTS and state.get("format") == NETWORK_FORMAT:
            from nashzoo.agents.ismcts.train_large import NashISMCTSLarge

            return NashISMCTSLarge.load(path)
        agent = ISMCTSAgent.load(path)
        network = state.get("network")
        if not isinstance(network, dict) or not isinstance(network.get("trainer"), dict):
            raise PolicyFileError(
                f"{path} holds a search agent but no Nash-ISMCTS trainer's state; training "
                "resumes only from a file that NashISMCTS.save wrote."
            )
        try:
            saved = network["trainer"]
            trainer = cls(agent.game, TrainConfig.from_dict(saved["config"]))
            modules = {"state": trainer.network, "optimizer": trainer.optimizer}
            load_modules(path, network, modules, "network")
            trainer.history = [GenerationRecord(**r) for r in saved["history"]]
            trainer.seconds = float(saved["seconds"])
            trainer.network.eval()
            if trainer.average is not None:
                trainer.average.restore(network["average"])
            trainer.tables = tabulate(trainer.playing_network, trainer.views)
        except PolicyFileError:
            raise
        except Exception as exc:
            raise PolicyFileError(f"{path} is not a readable Nash-ISMCTS file: {exc}") from exc
        return trainer
