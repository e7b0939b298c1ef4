"""Self-play training of Nash-ISMCTS's networks, AlphaZero style (torch extra), on any
two-player game.

``docs/explanation/nash-ismcts.md`` ("A-ISMCTS") gives the targets. One generation:

1. play ``games_per_generation`` self-play games: at every decision the mover runs
   Nash-ISMCTS from its own information set (Dirichlet noise at the root) and plays a
   move drawn from the search; record P's target (``policy_target``), and for every view
   each player held along the game the final payoff (V's target) and the true world
   (V_w's);
2. play ``belief_games`` games from the current P alone (not the replay buffer, which
   drifts toward Bayes of an old P): the true world at every view is H's target;
3. take ``steps_per_generation`` gradient steps on the replay buffer (the last
   ``replay_generations`` generations) with the loss of
   :mod:`~nashzoo.agents.ismcts.losses`: P cross-entropy + V, V_w squared errors + H
   cross-entropy + V_c squared error toward the network's own V after each action +
   ``bayes_weight`` times the Bayes-rule term (H after an opponent's action against
   Bayes' rule applied to H before it and P at the opponent's information sets);
4. measure, and checkpoint.

Where the game compiles, training takes its fast path: the network
(:class:`~nashzoo.agents.ismcts.nets.SearchNetwork`) is tabulated on every view before the
generation, the searches are the compiled kernel's
(:mod:`~nashzoo.agents.ismcts.selfplay`), the Bayes-rule term covers every transition of
the game, and each generation measures the exact exploitability of P, and every
``search_every`` generations that of the search policy (one search at every information
set). Elsewhere (or with ``fast_path=False``) the network is an
:class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork` evaluated at search time, all games'
searches advancing together with one forward pass for their view requests
(:mod:`~nashzoo.agents.ismcts.selfplay_large`); H is a softmax over the view's worlds
trained against ``negatives`` sampled ones, and the Bayes-rule term is computed on
``bayes_worlds`` worlds drawn at each of self-play's opponent actions. There is no exact
exploitability to measure there: the training run measures from outside
(:func:`nashzoo.eval.curves.measure_point`: duplicate scores against fixed baselines with
AIVAT intervals, and LBR against P, :meth:`NashISMCTS.prior_agent`).

Self-play games run in this process, or on the actors of the learners' runtime
(``actors``, :mod:`nashzoo.agents.runtime`; Ray processes with ``backend="ray"``); each
game is seeded from (seed, generation, game index), so the same seed gives the same
networks whatever the number of actors.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from nashzoo.abstraction.spec import DEFAULT_STRENGTH_ABSTRACTION
from nashzoo.agents.ismcts.agent import NETWORK_FORMAT, ISMCTSAgent
from nashzoo.agents.ismcts.compiled import CompiledSearch, compiles_for_search
from nashzoo.agents.ismcts.config import SearchConfig
from nashzoo.agents.ismcts.knowledge import NetworkKnowledge
from nashzoo.agents.ismcts.losses import RulesRecords, _losses, _structure, belief_kl, rules_loss
from nashzoo.agents.ismcts.nets import (
    EmbeddingNetwork,
    EmbeddingNetworkShape,
    NetworkShape,
    ParameterAverage,
    SearchNetwork,
    tabulate,
)
from nashzoo.agents.ismcts.prior import PriorAgent
from nashzoo.agents.ismcts.selfplay import _concat, _Players, _prior_games
from nashzoo.agents.ismcts.selfplay_large import belief_games, play_large_games
from nashzoo.agents.ismcts.tables import SearchTables
from nashzoo.agents.runtime import ActorConfig
from nashzoo.agents.training import SteppedLearner, cpu_weights, device_field, torch_device
from nashzoo.errors import GameTooLargeError, InvalidParameterError, PolicyFileError
from nashzoo.extras import require
from nashzoo.games import Game
from nashzoo.tree.best_response import nash_conv_array
from nashzoo.tree.compile import compile_game
from nashzoo.tree.views import views_of
from nashzoo.validation import choice, flag, integer, integers, number, text

__all__ = [
    "TrainConfig",
    "GenerationRecord",
    "NashISMCTS",
    "search_exploitability",
]

torch = require("torch", "torch", "Nash-ISMCTS training")


@dataclass(frozen=True)
class TrainConfig(ActorConfig):
    """Hyper-parameters of Nash-ISMCTS self-play training.

    The budget is not here: :meth:`NashISMCTS.train` takes ``steps`` (generations) or
    ``seconds``, as every learner does. A field whose default is ``None`` takes the
    default of the path the game trains on (:meth:`for_path`): the first figure where the
    game compiles, the second over the rules.

    Attributes:
        games_per_generation: self-play games per generation (128; 32).
        simulations: search simulations per self-play move (400; 100. Measured on Leduc,
            10 minutes on one core: 100 left P at 0.42 chips, 400 reached 0.34; 1,000
            reached 0.32 in fewer generations, but its search rose more with simulations).
        eval_simulations: simulations of the trained agent's search per move, and per
            information set when measuring it (1,000; 200).
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
        hidden_sizes: widths of the network's torso ((128, 128); (256, 256)).
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
        steps_per_generation: gradient steps per generation (100; 50).
        replay_generations: generations of self-play data the buffer keeps (20; 10).
        belief_games: games sampled from P per generation for H's targets, all stepped
            at once (16,384; 256). Measured on Leduc (8 minutes, one core): 256 games left
            H at a mean KL of 0.18 from Bayes' rule under P and the search at 0.30 chips;
            4,096 reached 0.011 and 0.22-0.24; 16,384 reached 0.006 and 0.25.
        bayes_weight: weight of the Bayes-rule loss.
        search_every: generations between measurements of the search policy (each
            generation measures P's exploitability; the search's costs one search per
            information set).
        seed: seed of everything (networks, games, searches).
        device: where the network lives and learns: ``"auto"`` (CUDA when torch sees a
            GPU, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. The learner's own
            forward passes (the tables on the fast path, the belief games and the
            trained agent over the rules) run there too; self-play actors search on the
            CPU with copies of the weights. Files load on any device.
        fast_path: train on the compiled tables where the game compiles (``False``:
            over the rules on every game, e.g. to measure that path exactly on Leduc).
            The fields below are settings of training over the rules only; on the fast
            path a value other than their default is refused.
        embed_size: width of a world's embedding (H's and V_w's dot products).
        negatives: worlds drawn beside the true one for H's sampled softmax.
        node_cap: nodes one search may hold.
        belief_source: where the search's H comes from: ``"network"`` (the belief head)
            or ``"bayes"`` (online refinement: Bayes' rule over the public history under
            the network's P; poker engine games).
        bayes_worlds: worlds drawn per opponent action of self-play for the Bayes-rule
            term (H after the action against H before it times P of the action at the
            opponent's view in each drawn world, on those worlds: Bayes' rule holds on
            any subset of the worlds, so no correction is needed); games whose states
            rebuild the opponent's view in another world (the poker engine). 0: no term.
        split_hidden: H-splitting in self-play and in the trained agent's search (a
            SAMPLE node drawn piece by piece: Hold'em's two hole cards, the fighting
            game's hand card by card; ``SearchConfig.split_hidden``).
        draw_pieces: H-splitting built lazily, piece by piece, in self-play and in the
            trained agent's search (``SearchConfig.draw_pieces``: a SAMPLE node's cost
            does not grow with the number of worlds; the network learns H over each
            piece and V of each partial world on games with piece features).
        split_actions: P-splitting in self-play and in the trained agent's search (no-limit
            poker decides whether to raise, then by how much;
            ``SearchConfig.split_actions``).
        piece_weight: with ``draw_pieces``, the weight of the terms that teach the
            piece-by-piece draw on games whose private values come in pieces with
            features (Hold'em's hole cards): H over each piece but the last given the
            true pieces before it, and V of each partial world (without
            ``draw_pieces`` they are left out, and training is what it was). They share the belief
            and value queries with the flat heads; on the board-belief test's 18-card
            game, 0.25 left the flat H at a KL of 0.155 from the exact posterior
            (0.132 without the terms) where 1.0 raised it to 0.297.
        inputs: what the network reads of a view: ``"tensor"`` (the information-state
            tensor) or ``"strength"`` (heads-up Limit Hold'em only: the tensor and 14
            hand-strength columns read from card buckets,
            :class:`~nashzoo.abstraction.features.HoldemStrengthColumns`; the world
            encoder is unchanged) or ``"strength_only"`` (the same without the tensor's
            card one-hots: the seat, the betting and the columns. Measured on Limit
            Hold'em, a network of the default shape fitted to the outcomes of 10,000
            games memorizes the deals through the one-hots and predicts held-out
            outcomes worse than a constant; without them it does not; see
            ``benchmarks/RESULTS.md``).
        strength_abstraction: the ``ehs``/``ehs2`` buckets ``inputs="strength"`` and
            ``"strength_only"`` read the strengths from (built once per machine and
            cached).

    With ``actors`` (:class:`~nashzoo.agents.runtime.ActorConfig`), each generation's
    games are split among the actors, always in lockstep: game ``g`` is actor
    ``g mod actors``'s, each played from its own seed with this generation's network,
    and the learner takes them back in game order (so the data is the same whatever the
    number of actors, or the backend).
    """

    games_per_generation: int | None = integer(None, low=1, optional=True)
    simulations: int | None = integer(None, low=1, optional=True)
    eval_simulations: int | None = integer(None, low=1, optional=True)
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
    hidden_sizes: tuple[int, ...] | None = integers(None, optional=True)
    learning_rate: float = number(1e-3, low=0.0)
    average_decay: float | None = number(
        None, low=0.0, high=1.0, high_inclusive=False, optional=True
    )
    batch_size: int = integer(256, low=1)
    steps_per_generation: int | None = integer(None, low=1, optional=True)
    replay_generations: int | None = integer(None, low=1, optional=True)
    belief_games: int | None = integer(None, low=1, optional=True)
    bayes_weight: float = number(1.0, low=0.0)
    search_every: int = integer(5, low=1)
    seed: int = integer(0, low=0)
    device: str = device_field()
    fast_path: bool = flag(True)
    embed_size: int = integer(64, low=1)
    negatives: int = integer(127, low=1)
    node_cap: int = integer(200_000, low=1)
    belief_source: str = choice("network", ("network", "bayes"))
    bayes_worlds: int = integer(32, low=0)
    split_hidden: bool = flag(False)
    draw_pieces: bool = flag(False)
    split_actions: bool = flag(False)
    piece_weight: float = number(0.25, low=0.0)
    inputs: str = choice("tensor", ("tensor", "strength", "strength_only"))
    strength_abstraction: str = text(DEFAULT_STRENGTH_ABSTRACTION)

    def for_path(self, compiled: bool) -> TrainConfig:
        """This config with each ``None`` default of the path set (``compiled``: the
        fast path's, else over the rules').

        Raises:
            InvalidParameterError: ``compiled`` with a setting of the rules path off its
                default (it would be ignored).
        """
        if compiled:
            off = [name for name in _RULES_ONLY if getattr(self, name) != _FIELDS[name].default]
            if off:
                raise InvalidParameterError(
                    f"{', '.join(off)}: settings of training over the rules; this game "
                    "takes the compiled fast path, which has no such settings. Leave them "
                    "out, or set fast_path=False to train over the rules."
                )
        size = {k: v[0] if compiled else v[1] for k, v in _SIZE_DEFAULTS.items()}
        return replace(self, **{k: v for k, v in size.items() if getattr(self, k) is None})

    def search_config(self, *, play: bool = False, progress: float = 0.0) -> SearchConfig:
        """The Nash-ISMCTS settings of self-play (``progress`` in [0, 1] of the run
        anneals eps toward ``eps_final``), or (``play``) of the trained agent and the
        measurements (``eval_simulations``, ``play_eps``)."""
        eps = self.eps
        if self.eps_final is not None:
            eps = self.eps + (self.eps_final - self.eps) * min(max(progress, 0.0), 1.0)
        if self.simulations is None or self.eval_simulations is None:
            raise InvalidParameterError(
                "TrainConfig.search_config needs the path's defaults: call for_path first."
            )
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
            split_hidden=self.split_hidden,
            draw_pieces=self.draw_pieces,
            split_actions=self.split_actions,
            seed=self.seed,
        )


_SIZE_DEFAULTS: dict[str, tuple[Any, Any]] = {
    "games_per_generation": (128, 32),
    "simulations": (400, 100),
    "eval_simulations": (1000, 200),
    "hidden_sizes": ((128, 128), (256, 256)),
    "steps_per_generation": (100, 50),
    "replay_generations": (20, 10),
    "belief_games": (16384, 256),
}
"""Each ``None`` default of :class:`TrainConfig`: (where the game compiles, over the
rules)."""

_FIELDS = {f.name: f for f in fields(TrainConfig)}
_RULES_ONLY = list(_FIELDS)[list(_FIELDS).index("fast_path") + 1 :]
"""The settings of training over the rules (the fields after ``fast_path``)."""


@dataclass(frozen=True)
class GenerationRecord:
    """What one generation measured.

    Attributes:
        generation: its number (from 1).
        seconds: training time so far.
        games: self-play games so far.
        loss: the last gradient step's loss terms.
        prior_exploitability: exact exploitability of P in chips (fast path only).
        search_exploitability: that of the search policy, every ``search_every``
            generations and after the last (fast path only).
        belief_kl: mean KL of H from Bayes' rule under P (fast path only).
        simulations_per_second: root simulations per second of its self-play searches
            (over the rules).
        forward_passes: forward passes of its self-play (each evaluates many views).
        views: views evaluated in them.
        forward_passes_per_second: forward passes per second of self-play search.
        capped: searches that reached the node cap (and reused their nodes).
    """

    generation: int
    seconds: float
    games: int
    loss: dict[str, float]
    prior_exploitability: float | None = None
    search_exploitability: float | None = None
    belief_kl: float | None = None
    simulations_per_second: float = 0.0
    forward_passes: int = 0
    views: int = 0
    forward_passes_per_second: float = 0.0
    capped: int = 0


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


# -- the learner ------------------------------------------------------------------------------
class NashISMCTS(SteppedLearner):
    """Nash-ISMCTS's self-play trainer, a :class:`~nashzoo.agents.learner.Learner` (one
    step is one generation) for every two-player game: on the compiled fast path where
    the game compiles, over the rules elsewhere (see the module docstring).

    Args:
        game: the game (over the rules: one whose states list their hidden worlds and
            which has ``Game.hidden_value_features``: the poker engine's games, the
            fighting game).
        config: hyper-parameters (default ``TrainConfig()``); its ``None`` defaults are
            those of the path taken (:meth:`TrainConfig.for_path`).

    Attributes:
        compiled: whether training takes the compiled fast path.
        history: one :class:`GenerationRecord` per generation.
        network: the network being trained (a
            :class:`~nashzoo.agents.ismcts.nets.SearchNetwork` on the fast path, an
            :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork` over the rules).

    Raises:
        InvalidParameterError: not a two-player Game, ``config`` not a
            :class:`TrainConfig`, a setting of the rules path on the fast path, or a
            ``max_staleness`` (a generation's games all use its network).
    """

    name: ClassVar[str] = "nash-ismcts"
    config_type: ClassVar[type] = TrainConfig
    step_unit: ClassVar[str] = "generations"

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
        self.compiled = config.fast_path and compiles_for_search(game)
        # every None default set to the path's (typed loosely: for_path leaves none None)
        self.config: Any = config.for_path(self.compiled)
        self._players = _Players(self.config)  # where games are played; refuses max_staleness
        c: Any = self.config
        self.device = torch_device(torch, c.device)
        torch.manual_seed(c.seed)
        self.rng = np.random.default_rng(np.random.SeedSequence([c.seed, 10**6]))
        if self.compiled:
            self.tree = compile_game(game)
            self.views = views_of(self.tree)
            self.network: Any = SearchNetwork(NetworkShape.for_views(self.views, c.hidden_sizes))
            self._inputs = self._on(np.array(self.views.view_tensor, dtype=np.float32))
            self._world_mask = self._on(self.views.view_world_mask.copy())
            self._structure = _structure(self.views, self.device)
        else:
            shape = EmbeddingNetworkShape.for_game(
                game,
                embed_size=c.embed_size,
                hidden_sizes=c.hidden_sizes,
                strength=c.strength_abstraction if c.inputs != "tensor" else "",
                cards=c.inputs != "strength_only",
            )
            self.network = EmbeddingNetwork(shape, game)
            self._beliefs: list[list[tuple[np.ndarray, Any, int, Any]]] = []
            self._values: dict[Any, Any] = {}  # hidden values shared by the belief records
        self.network.to(self.device).eval()  # same weights on every device
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=c.learning_rate)
        self.average = (
            None if c.average_decay is None else ParameterAverage(self.network, c.average_decay)
        )
        self._buffer: list[list[dict[str, Any]]] = []
        self.history: list[GenerationRecord] = []
        self.seconds = 0.0
        self.eval_config = c.search_config(play=True)
        if self.compiled:
            self.tables = tabulate(self.network, self.views)
            self._search: tuple[int, float] | None = None  # (generation, exploitability)

    @property
    def steps(self) -> int:
        """Generations so far."""
        return len(self.history)

    @property
    def train_desc(self) -> str:  # type: ignore[override]
        return "Nash-ISMCTS self-play" + ("" if self.compiled else " over the rules")

    def _train_start(self, steps: int | None, seconds: float | None) -> None:
        self._budget = (self.steps, self.seconds, steps, seconds)  # eps anneals over it

    def _train_step(self, left: int | None) -> int:
        first, start, steps, seconds = self._budget
        fraction = 0.0  # of the call's budget: eps anneals toward eps_final over it
        if steps is None and seconds:
            fraction = float((self.seconds - start) / seconds)
        elif steps:
            fraction = (self.steps - first) / max(steps - 1, 1)
        if self.compiled:
            return self._generation(self._players, fraction)
        return self._generation_over_rules(self._players, fraction)

    def _train_end(self) -> None:
        """The search is measured after the last generation too (fast path)."""
        if self.compiled and self.history and self.history[-1].search_exploitability is None:
            last = self.history[-1]
            self.history[-1] = replace(last, search_exploitability=self.exploitability())

    def close(self) -> None:
        """Stop the self-play actors, if any (a later :meth:`train` starts new ones)."""
        self._players.close()

    def _train_postfix(self) -> dict[str, Any]:
        r = self.history[-1]
        if self.compiled:
            return {"P": f"{r.prior_exploitability:.3f}"}
        out = {
            "sims/s": f"{r.simulations_per_second:,.0f}",
            "passes/s": f"{r.forward_passes_per_second:,.0f}",
            "views/pass": f"{r.views / max(r.forward_passes, 1):.1f}",
        }
        if r.capped:  # the node cap was reached: those searches reused their nodes
            out["capped searches"] = str(r.capped)
        return out

    def _on(self, array: np.ndarray) -> Any:
        """``array`` as a tensor on the learner's device."""
        return torch.from_numpy(array).to(self.device)

    # -- the fast path: tables of a compiled game -------------------------------------------------
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
                "infosets": self._on(arrays["infosets"][d]),
                "targets": self._on(arrays["targets"][d]),
                "views": self._on(arrays["views"][v]),
                "worlds": self._on(arrays["worlds"][v]),
                "returns": self._on(arrays["returns"][v]),
                "h_views": self._on(h_views[h]),
                "h_worlds": self._on(h_worlds[h]),
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
        self.history.append(
            GenerationRecord(
                generation=generation,
                seconds=self.seconds + time.perf_counter() - start,
                games=generation * config.games_per_generation,
                loss=parts,
                prior_exploitability=float(prior),
                belief_kl=belief_kl(self.tables),
            )
        )
        if generation % config.search_every == 0:
            self.history[-1] = replace(
                self.history[-1], search_exploitability=self.exploitability()
            )
        return 1

    # -- over the rules: a network evaluated at search time ---------------------------------------
    def _generation_over_rules(self, players: _Players, fraction: float) -> int:
        c, net = self.config, self.network
        generation = self.steps + 1
        start = time.perf_counter()
        net.eval()
        search = {
            **c.search_config(progress=fraction).to_dict(),
            "node_cap": c.node_cap,
            "policy_target": c.policy_target,
            "target_scale": c.target_scale,
            "belief_source": c.belief_source,
            "bayes_worlds": c.bayes_worlds if c.bayes_weight > 0 else 0,
        }
        payload = {
            "game": self.game.to_spec(),
            "shape": net.shape.to_dict(),
            "state": cpu_weights(net),  # the actors search on the CPU
        }
        games = players.run(play_large_games, payload, search, generation)
        self._buffer = [*self._buffer, games][-c.replay_generations :]
        knowledge = NetworkKnowledge(self.game, net)
        self._beliefs = [
            *self._beliefs,
            belief_games(self.game, knowledge, self.rng, c.belief_games, self._values),
        ][-c.replay_generations :]
        data = [g for gen in self._buffer for g in gen]
        records = RulesRecords(
            decisions=[(g, k) for g in data for k in range(len(g["x"]))],
            views=[(g, k) for g in data for k in range(len(g["view_x"]))],
            beliefs=[b for gen in self._beliefs for b in gen],
            transitions=[t for g in data for t in g.get("bayes", ())],
        )
        parts: dict[str, float] = {}
        if records.decisions:
            net.train()
            for _ in range(c.steps_per_generation):
                loss, parts = rules_loss(
                    net,
                    self.game,
                    self.rng,
                    records,
                    batch_size=c.batch_size,
                    negatives=c.negatives,
                    bayes_weight=c.bayes_weight,
                    piece_weight=c.piece_weight if c.draw_pieces else 0.0,
                )
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            net.eval()
        if self.average is not None:
            self.average.update(net)
        sims, secs = sum(g["simulations"] for g in games), sum(g["seconds"] for g in games)
        passes = sum(g["forward_passes"] for g in games)
        self.history.append(
            GenerationRecord(
                generation=generation,
                seconds=self.seconds + time.perf_counter() - start,
                games=generation * c.games_per_generation,
                loss=parts,
                simulations_per_second=sims / secs if secs > 0 else 0.0,
                forward_passes=round(passes),
                views=round(sum(g["views"] for g in games)),
                forward_passes_per_second=passes / secs if secs > 0 else 0.0,
                capped=round(sum(g["capped"] for g in games)),
            )
        )
        return 1

    # -- what training makes -----------------------------------------------------------------
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
        generation.

        Raises:
            GameTooLargeError: training over the rules (the curve there is the duplicate
                scores and LBR the training run measures).
        """
        if not self.compiled:
            raise GameTooLargeError(
                f"{self.game} is trained over the rules; exact exploitability needs the "
                "compiled fast path. The measurements are the duplicate scores and LBR."
            )
        if self._search is None or self._search[0] != self.steps:
            value, _ = search_exploitability(self.tables, self.eval_config, seed=self.config.seed)
            self._search = (self.steps, float(value))
        return self._search[1]

    def agent(self, *, name: str | None = None, seed: int | None = None) -> ISMCTSAgent:
        """The search on :attr:`playing_network` (its tables on the fast path;
        ``eval_simulations`` per move, ``play_eps``, ``play_c_puct``) as an agent."""
        config = self.eval_config if seed is None else replace(self.eval_config, seed=seed)
        metadata = {"generation": self.steps, "train": self.config.to_dict()}
        if self.compiled:
            return ISMCTSAgent(
                self.tree, self.tables, config, name=name or "nash-ismcts", metadata=metadata
            )
        knowledge = NetworkKnowledge(
            self.game, self.playing_network, belief=self.config.belief_source
        )
        return ISMCTSAgent(
            self.game,
            knowledge,
            config,
            name=name or "nash-ismcts",
            node_cap=self.config.node_cap,
            metadata=metadata,
        )

    def prior_agent(self) -> Any:
        """The network's P alone as a PolicyAgent (what LBR measures)."""
        if self.compiled:
            return self.agent().policy_model()
        return PriorAgent(self.game, self.playing_network)

    def curves(self) -> list[Any]:
        """On the fast path, two :class:`~nashzoo.agents.learner.ConvergenceCurve` (P and
        the search) for :func:`nashzoo.eval.plots.plot_convergence`; none over the rules."""
        from nashzoo.agents.learner import ConvergenceCurve, ConvergencePoint
        from nashzoo.tree.policy import TabularPolicy

        if not self.compiled:
            return []
        game, unit = repr(self.game), self.step_unit
        points = {
            "prior": tuple(
                ConvergencePoint(r.generation, r.seconds, r.prior_exploitability, unit)
                for r in self.history
                if r.prior_exploitability is not None
            ),
            "search": tuple(
                ConvergencePoint(r.generation, r.seconds, r.search_exploitability, unit)
                for r in self.history
                if r.search_exploitability is not None
            ),
        }
        p = TabularPolicy(self.tree, self.tables.prior)
        label = f"Nash-ISMCTS ({self.config.eval_simulations} simulations)"
        return [
            ConvergenceCurve("network P", game, points["prior"], p),
            ConvergenceCurve(label, game, points["search"], p),
        ]

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the search agent with the trainer's state (network, optimiser, counters)
        to a ``.pt`` file every tool loads as an agent; :meth:`load` resumes training
        (the replay buffer is not saved)."""
        if Path(path).suffix != ".pt":
            raise InvalidParameterError(f"A Nash-ISMCTS file ends in .pt, received {path!r}.")
        trainer = {
            "config": self.config.to_dict(),
            "seconds": self.seconds,
            "history": [asdict(r) for r in self.history],
        }
        if self.compiled:  # beside the tables: the network, its optimiser, the trainer
            network = {
                "shape": self.network.shape.to_dict(),
                "state": self.network.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "trainer": trainer,
            }
            if self.average is not None:
                network["average"] = self.average.state()
            return self.agent().save(path, network=network)
        trainer["optimizer"] = self.optimizer.state_dict()
        if self.average is not None:  # the agent's network is the average: keep the current one
            trainer["current"] = self.network.state_dict()
            trainer["average_updates"] = self.average.updates
        return self.agent().save(path, trainer=trainer)

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None) -> NashISMCTS:
        """The trainer a file written by :meth:`save` holds, on the path it was trained
        on, its network on ``device`` (``None``: the saved config's; a file saved on a
        GPU loads on a CPU with ``device="cpu"``).

        Raises:
            PolicyFileError: not a Nash-ISMCTS file, or an agent file without the
                trainer's state (e.g. one saved by ``ISMCTSAgent.save``).
            InvalidParameterError: ``device`` names a GPU torch does not see.
            FileNotFoundError: no such file.
        """
        from nashzoo.agents.torch_files import load_modules, read_torch_file

        agent = ISMCTSAgent.load(path)
        state = read_torch_file(path)
        over_rules = state.get("format") == NETWORK_FORMAT
        network = state.get("network") or {}
        saved = state.get("trainer") if over_rules else network.get("trainer")
        if not isinstance(saved, dict):
            raise PolicyFileError(
                f"{path} holds a search agent but no Nash-ISMCTS trainer's state; training "
                "resumes only from a file that NashISMCTS.save wrote."
            )
        if device is not None:  # the caller's setting: its errors are not the file's
            torch_device(torch, TrainConfig(device=device).device)
        with PolicyFileError.reading(path, "Nash-ISMCTS"):
            settings = dict(saved["config"])
            if settings.pop("workers", 0):  # a file from before the runtime: its processes
                settings["actors"] = saved["config"]["workers"]  # are actors now
            if device is not None:
                settings["device"] = device
            config = TrainConfig.from_dict(settings)
            if over_rules and config.fast_path and compiles_for_search(agent.game):
                config = replace(config, fast_path=False)  # trained over the rules before
            trainer = cls(agent.game, config)
            if not over_rules:
                modules = {"state": trainer.network, "optimizer": trainer.optimizer}
                load_modules(path, network, modules, "network")
                if trainer.average is not None:
                    trainer.average.restore(network["average"])
            elif trainer.average is None:
                load_modules(path, network, {"state": trainer.network}, "network")
            else:
                load_modules(path, network, {"state": trainer.average.network}, "network")
                load_modules(path, saved, {"current": trainer.network}, "trainer")
                trainer.average.updates = int(saved["average_updates"])
            if over_rules:
                load_modules(path, saved, {"optimizer": trainer.optimizer}, "trainer")
            trainer.history = [GenerationRecord(**r) for r in saved["history"]]
            trainer.seconds = float(saved["seconds"])
            trainer.network.eval()
            if trainer.compiled:
                trainer.tables = tabulate(trainer.playing_network, trainer.views)
        return trainer
