"""The settings of simplex-gradient self-play (:mod:`nashzoo.agents.simplex_gradient.selfplay`)."""

from __future__ import annotations

from dataclasses import dataclass

from nashzoo.abstraction.spec import DEFAULT_STRENGTH_ABSTRACTION
from nashzoo.agents.runtime import ActorConfig
from nashzoo.agents.training import device_field
from nashzoo.validation import (
    choice,
    flag,
    integer,
    integers,
    number,
    seed_field,
    text,
)

__all__ = ["SimplexGradientConfig"]


@dataclass(frozen=True)
class SimplexGradientConfig(ActorConfig):
    """Hyper-parameters of simplex-gradient self-play.

    The defaults are the variant that learned best across the games measured here (plain
    SGD on g at 4.0, entropy 0.02; 2-minute runs, seed 0, average policy: exploitability
    0.016 on the small fighting preset and 0.37 on Leduc, +0.04 against the scripted
    heuristic on the default preset, where the earlier 1.0 / 0.05 gave 0.042, 1.00 and
    -0.11; entropy 0.01 or less at 4.0 stalled on Leduc at 1.6-2.1). ``entropy=0`` is the
    design note's unregularised dynamics, whose last iterate cycles.

    Attributes:
        hidden_sizes: hidden layer widths of the three networks (ReLU MLPs).
        batch_games: self-play games played at once (one iteration plays each to its end).
        reward: ``"difference"`` (``f(s_i) - f(s)``) or ``"log_difference"``
            (``log f(s_i) - log f(s)``).
        parametrisation: ``"softmax"`` (g = masked softmax of logits) or ``"direct"``
            (g = Euclidean projection of the output onto the simplex).
        projected: use ``-(Pi f)^T g``; ``False`` uses the unprojected ``-f^T g``.
        entropy: tau, weight of the entropy bonus ``-tau H(g)`` in the policy loss. f
            reads outcomes rescaled to [0, 1] over the game's utility range, so tau acts
            as a softmax temperature of tau times that range in the game's units: 0.02
            is 0.52 chips on Leduc (range 26) but 9.6 chips on Limit Hold'em (range 480),
            about a big blind at every decision.
        magnet: ``"none"``, ``"uniform"``, ``"average"`` (the average policy) or
            ``"lagged"`` (a frozen copy of g, refreshed every ``magnet_every``
            iterations): the MMD magnet rho of the term ``magnet_strength * KL(g || rho)``.
            With a fixed magnet the dynamics settle at a regularised equilibrium, whose
            exploitability does not go to 0 (on Leduc the entropy default's, about 0.23
            chips); a lagged magnet moves that fixed point towards a Nash equilibrium
            phase by phase (the regularisation policy of Perolat et al., "Mastering the
            game of Stratego with model-free multiagent reinforcement learning",
            Science 2022, and MMD's moving magnet).
        magnet_strength: alpha, weight of the magnet term.
        magnet_every: iterations between refreshes of the ``"lagged"`` magnet.
        policy_optimizer: ``"sgd"`` (plain gradient steps, the dynamics the design note
            describes) or ``"adam"`` for g.
        policy_lr: learning rate of g.
        value_lr: Adam learning rate of f.
        average_lr: Adam learning rate of the average-policy network.
        policy_steps: gradient steps of g on each iteration's decisions (full batch).
        value_steps: minibatch steps of f per iteration.
        average_steps: minibatch steps of the average network per iteration.
        batch_size: minibatch size of f and of the average network.
        value_capacity: most recent value targets kept for f (a ring buffer).
        td_lambda: lambda of f's targets: each decision's target is its player's
            lambda-return, ``(1 - lambda) f(s') + lambda * target(s')`` with ``s'`` the
            player's next decision in the same game and the final outcome after the
            last (TD(lambda) with no intermediate rewards, bootstrapped from ``f`` as it
            was when the iteration was played); 1 is the Monte Carlo outcome alone.
        reservoir_capacity: ``(s, a)`` pairs (a sampled from g) kept for the average
            network.
        average_weighting: ``"uniform"`` (the average network fits the plain time-average
            of g, as NFSP's does) or ``"linear"`` (each pair weighted by its iteration,
            as Linear CFR and Deep CFR weight their averages: the early, poor policies
            count less).
        seat_models: one value model f and one policy model g per seat (the design's
            pairs of models playing each other, each seat's f trained on that seat's
            outcomes and scoring that seat's successors), instead of one f and one g
            shared by both seats (the tensor says which seat observes). f and g never
            share a layer either way; the average policy stays one network.
        inputs: what the networks read: ``"tensor"`` (the whole information-state
            tensor, perfect recall) or ``"summary"`` (the columns the game names as a
            summary of the present, ``Game.information_state_summary_columns``: the
            fighting game's 74 of 434, without the order of the exchanges) or
            ``"strength"`` (heads-up Limit Hold'em only: the whole tensor and 14
            hand-strength columns read from card buckets,
            :class:`~nashzoo.abstraction.features.HoldemStrengthColumns`).
        strength_abstraction: the ``ehs``/``ehs2`` buckets ``inputs="strength"`` reads
            the strengths from (built once per machine and cached).
        play: the policy the learner's agent plays unless told otherwise
            (:meth:`~nashzoo.agents.simplex_gradient.SimplexGradient.agent`, the curve of
            ``nashzoo train``, a saved file played as an agent):
            ``"average"``, the average network, or ``"last"``, the last iterate g (the
            policy the design note plays). It changes nothing in training. Where the
            average converges and the last iterate cycles (games that compile), play
            the average; on Limit Hold'em the last iterate of the same networks has
            scored higher against the rule-based agent (``benchmarks/RESULTS.md``).
        seed: seed of every random choice (networks, self-play, buffers).
        device: where the networks live and learn: ``"auto"`` (CUDA when torch sees a
            GPU, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. Self-play in this
            process reads them there, batch by batch; actors play with CPU copies.

    With ``actors`` (:class:`~nashzoo.agents.runtime.ActorConfig`), each iteration's
    ``batch_games`` are split among the actors, always in lockstep: each plays its share
    with a copy of this iteration's networks, from its own stream, and the learner
    learns from their decisions in actor order.
    """

    hidden_sizes: tuple[int, ...] = integers((128, 128))
    batch_games: int = integer(64, low=1)
    reward: str = choice("difference", ("difference", "log_difference"))
    parametrisation: str = choice("softmax", ("softmax", "direct"))
    projected: bool = flag(True)
    entropy: float = number(0.02, low=0.0)
    magnet: str = choice("none", ("none", "uniform", "average", "lagged"))
    magnet_strength: float = number(0.0, low=0.0)
    magnet_every: int = integer(1000, low=1)
    policy_optimizer: str = choice("sgd", ("sgd", "adam"))
    policy_lr: float = number(4.0, low=0.0, low_inclusive=False)
    value_lr: float = number(1e-3, low=0.0, low_inclusive=False)
    average_lr: float = number(1e-3, low=0.0, low_inclusive=False)
    policy_steps: int = integer(1, low=1)
    value_steps: int = integer(4, low=1)
    average_steps: int = integer(2, low=1)
    batch_size: int = integer(256, low=1)
    value_capacity: int = integer(50_000, low=1)
    td_lambda: float = number(1.0, low=0.0, high=1.0)
    reservoir_capacity: int = integer(200_000, low=1)
    average_weighting: str = choice("uniform", ("uniform", "linear"))
    seat_models: bool = flag(False)
    inputs: str = choice("tensor", ("tensor", "summary", "strength"))
    strength_abstraction: str = text(DEFAULT_STRENGTH_ABSTRACTION)
    play: str = choice("average", ("average", "last"))
    seed: int | None = seed_field(0)
    device: str = device_field()
