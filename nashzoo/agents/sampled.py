"""The base of agents that play by drawing from the distribution they state.

Most learned policies (NFSP's average network, simplex-gradient's policy, an SB3 model, a
search network's prior P) are a :class:`~nashzoo.agents.PolicyAgent` whose ``act`` draws
one action from its own ``action_probabilities``. :class:`SampledPolicyAgent` holds what
they share: a local generator seeded by ``seed=``, ``reset(seed=None)`` keeping the stream
going (Gymnasium's convention: only a given seed reseeds, so a match seeded once is the
same match every time), and the draw itself (one uniform per decision, inverted on the
cumulative distribution).
"""

from __future__ import annotations

import numpy as np

from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.envs.sampling import sample_index
from nashzoo.validation import check_seed

__all__ = ["SampledPolicyAgent"]


class SampledPolicyAgent:
    """An agent that plays by drawing from its own :meth:`action_probabilities`.

    A subclass sets ``name`` and implements :meth:`action_probabilities`; it may override
    :meth:`act` (e.g. to play the most likely action).

    Args:
        seed: seed of the agent's own ``np.random.Generator``.
    """

    name: str

    def __init__(self, *, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(check_seed(seed))

    def reset(self, *, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given; otherwise keep the stream going.

        Raises:
            InvalidParameterError: ``seed`` is not a non-negative integer.
        """
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """The distribution over all actions, zero on illegal ones."""
        raise NotImplementedError

    def act(self, observation: Observation, info: AgentInfo) -> int:
        """An action drawn from :meth:`action_probabilities` with the agent's generator."""
        probs = self.action_probabilities(observation, info)
        return sample_index(np.cumsum(probs), self._rng.random())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({getattr(self, 'name', '?')!r})"
