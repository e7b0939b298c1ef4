"""Typed configuration of :class:`~nashzoo.agents.neural_cfr.DeepCFR`."""

from __future__ import annotations

from dataclasses import dataclass

from nashzoo.validation import Config, flag, integer, integers, number, seed_field

__all__ = ["DeepCFRConfig"]


@dataclass(frozen=True)
class DeepCFRConfig(Config):
    """Deep CFR hyper-parameters.

    The defaults are those of OpenSpiel's PyTorch Deep CFR example
    (``open_spiel/python/examples/deep_cfr_pytorch.py``: one hidden layer of 64 units in
    both networks, 375 traversals per player and iteration, advantage networks
    re-initialised every iteration and trained 375 steps, the policy network 2,500 steps,
    minibatches of 256, Adam at 1e-3, memories of 100,000 rows), so the two are compared
    with the same settings.

    Attributes:
        advantage_sizes: hidden layer widths of each player's advantage network.
        policy_sizes: hidden layer widths of the average-policy network.
        traversals: external-sampling traversals per player and iteration.
        advantage_steps: minibatch steps of a player's advantage network per iteration.
        policy_steps: minibatch steps of the policy network each time it is fitted (when
            the average policy is asked for after more iterations).
        batch_size: minibatch size of both networks.
        memory_capacity: rows of each reservoir memory (one per player's advantages, one
            for the strategies).
        learning_rate: Adam's learning rate for both networks.
        reinitialize_advantage: fit each player's advantage network from fresh weights
            every iteration (the paper's choice) rather than from the last ones.
        seed: seed of every random choice (networks, traversals, minibatches).
    """

    advantage_sizes: tuple[int, ...] = integers((64,))
    policy_sizes: tuple[int, ...] = integers((64,))
    traversals: int = integer(375, low=1)
    advantage_steps: int = integer(375, low=1)
    policy_steps: int = integer(2500, low=1)
    batch_size: int = integer(256, low=1)
    memory_capacity: int = integer(100_000, low=1)
    learning_rate: float = number(0.001, low=0.0, low_inclusive=False)
    reinitialize_advantage: bool = flag(True)
    seed: int | None = seed_field(0)
