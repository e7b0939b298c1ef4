"""Typed configurations of :class:`~nashzoo.agents.neural_cfr.DeepCFR` and
:class:`~nashzoo.agents.neural_cfr.ESCHER`."""

from __future__ import annotations

from dataclasses import dataclass

from nashzoo.agents.runtime import ActorConfig
from nashzoo.agents.training import device_field
from nashzoo.validation import flag, integer, integers, number, seed_field

__all__ = ["DeepCFRConfig", "ESCHERConfig"]


@dataclass(frozen=True)
class DeepCFRConfig(ActorConfig):
    """Deep CFR hyper-parameters.

    The defaults are those of OpenSpiel's PyTorch Deep CFR example
    (``open_spiel/python/examples/deep_cfr_pytorch.py``: one hidden layer of 64 units in
    both networks, 375 traversals per player and iteration, advantage networks
    re-initialised every iteration and trained 375 steps, the policy network 2,500 steps,
    minibatches of 256, Adam at 1e-3, memories of 100,000 rows), so the two are compared
    with the same settings.

    Attributes:
        regret_sizes: hidden layer widths of each player's advantage (regret) network.
        policy_sizes: hidden layer widths of the average-policy network.
        traversals: external-sampling traversals per player and iteration.
        sampled_actions: how many of the traverser's legal actions a traversal explores
            at each of its decisions, drawn uniformly without replacement, each explored
            value weighted by (legal actions) / ``sampled_actions`` so that the regrets
            stay unbiased (the robust sampling of Li et al., "Double Neural
            Counterfactual Regret Minimization", ICLR 2020). 0 (the default) explores
            them all: the paper's external sampling, whose traversal grows as (actions)
            to the power of the traverser's decisions in a game. On long games that is
            out of reach: on the fighting game's default preset (up to ten exchanges of
            three cards) one iteration of external sampling had not finished after six
            minutes; 1 or 2 make an iteration seconds.
        regret_steps: minibatch steps of a player's advantage network per iteration.
        policy_steps: minibatch steps of the policy network each time it is fitted (when
            the average policy is asked for after more iterations).
        batch_size: minibatch size of both networks.
        memory_capacity: rows of each reservoir memory (one per player's advantages, one
            for the strategies).
        learning_rate: Adam's learning rate for both networks.
        tree: traverse the compiled tree in numba where the game compiles (Kuhn, Leduc;
            every strategy from one forward pass per player), the rules elsewhere.
        reinitialize_regrets: fit each player's advantage network from fresh weights
            every iteration (the paper's choice) rather than from the last ones.
        seed: seed of every random choice (networks, traversals, minibatches).
        device: where the networks live and learn: ``"auto"`` (CUDA when torch sees a
            GPU, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. The tree path's
            strategies come from one forward pass per player there; actors (and the
            traversals over the rules in this process, one information set at a time)
            run their copies on the CPU. Checkpoints load on any device.
    """

    regret_sizes: tuple[int, ...] = integers((64,))
    policy_sizes: tuple[int, ...] = integers((64,))
    traversals: int = integer(375, low=1)
    sampled_actions: int = integer(0, low=0)
    regret_steps: int = integer(375, low=1)
    policy_steps: int = integer(2500, low=1)
    batch_size: int = integer(256, low=1)
    memory_capacity: int = integer(100_000, low=1)
    learning_rate: float = number(0.001, low=0.0, low_inclusive=False)
    reinitialize_regrets: bool = flag(True)
    tree: bool = flag(True)
    seed: int | None = seed_field(0)
    device: str = device_field()


@dataclass(frozen=True)
class ESCHERConfig(ActorConfig):
    """ESCHER hyper-parameters.

    The defaults are those of OpenSpiel's PyTorch ESCHER (``open_spiel/python/pytorch/
    escher.py``'s ``Config``, tuned there for Kuhn poker), except the memories: 200,000
    rows instead of 1,000,000, so that a Limit Hold'em run fits in memory.

    Attributes:
        regret_sizes: hidden layer widths of each player's regret network.
        value_sizes: hidden layer widths of each player's history-value network.
        policy_sizes: hidden layer widths of the average-policy network.
        regret_traversals: episodes per player and iteration that gather regrets (the
            player acts by the fixed uniform sampling policy, the opponent by its current
            strategy).
        value_traversals: episodes per player and iteration that gather the value
            network's targets (both players act by their current strategies mixed with
            ``value_exploration`` of uniform, the returns importance-weighted back).
        value_exploration: that uniform share.
        regret_steps: minibatch steps of a player's regret network per iteration (from
            fresh weights).
        value_steps: minibatch steps of a player's value network per iteration (from
            fresh weights, on that iteration's data only).
        policy_steps: minibatch steps of the policy network each time it is fitted.
        batch_size: minibatch size of every network.
        memory_capacity: rows of each reservoir memory (regrets per player, strategies).
        learning_rate: Adam's learning rate for every network.
        tree: play the episodes over the compiled tree in numba where the game compiles
            (Kuhn, Leduc: the strategies of all information sets and the values of all
            histories from one forward pass per network), the rules elsewhere.
        seed: seed of every random choice.
        device: where the networks live and learn: ``"auto"`` (CUDA when torch sees a
            GPU, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. The tree path's
            strategies come from one forward pass per player there; actors (and the
            traversals over the rules in this process, one information set at a time)
            run their copies on the CPU. Checkpoints load on any device.
    """

    regret_sizes: tuple[int, ...] = integers((64,))
    value_sizes: tuple[int, ...] = integers((64,))
    policy_sizes: tuple[int, ...] = integers((64,))
    regret_traversals: int = integer(1024, low=1)
    value_traversals: int = integer(512, low=1)
    value_exploration: float = number(0.1, low=0.0, high=1.0)
    regret_steps: int = integer(375, low=1)
    value_steps: int = integer(512, low=1)
    policy_steps: int = integer(2500, low=1)
    batch_size: int = integer(256, low=1)
    memory_capacity: int = integer(200_000, low=1)
    learning_rate: float = number(0.001, low=0.0, low_inclusive=False)
    tree: bool = flag(True)
    seed: int | None = seed_field(0)
    device: str = device_field()
