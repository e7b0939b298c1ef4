"""Play a tabular policy (solved or loaded) through the env, like any other agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.envs.protocol import Observation, action_mask_of
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.tree.policy import TabularPolicy
from nashzoo.validation import check_seed

__all__ = ["TabularPolicyAgent"]


class TabularPolicyAgent:
    """A PolicyAgent that plays a :class:`TabularPolicy`.

    It finds its row by ``info["info_state"]`` when the info has it (nashzoo's harness
    always sends it), else by the observation tensor (which determines the information
    state), so it also plays in plain env loops whose infos hold numbers only.

    Args:
        policy: the policy, or a path to a ``.npz``/``.json`` policy file.
        seed: seed of the agent's generator (used to sample actions).
        name: display name in tournaments.

    Raises:
        InvalidParameterError: ``policy`` is neither a TabularPolicy nor a path.
    """

    def __init__(
        self,
        policy: TabularPolicy | str | Path,
        *,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        if isinstance(policy, (str, Path)):
            policy = TabularPolicy.load(policy)
        if not isinstance(policy, TabularPolicy):
            raise InvalidParameterError(
                f"TabularPolicyAgent expects a TabularPolicy or a policy file path, received "
                f"{type(policy).__name__}."
            )
        self.policy = policy
        self.name = name or str(policy.metadata.get("algorithm", "tabular"))
        self._rng = np.random.default_rng(check_seed(seed))
        self._cum = np.cumsum(policy.probs, axis=1)

    def reset(self, *, seed: int | None = None) -> None:
        """Re-seed when ``seed`` is given."""
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))

    def _row(self, observation: Observation, info: Any) -> int:
        return self.policy.tree.infoset_of_inputs(observation, info)

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """The policy's distribution at ``info["info_state"]``."""
        return self.policy.probs[self._row(observation, info)].copy()

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """Sample an action from the policy."""
        row = self._row(observation, info)
        action = sample_index(self._cum[row], self._rng.random())
        mask = action_mask_of(observation)
        if not mask[action]:
            raise IllegalActionError(
                f"The policy's action {action} is masked out at {self.policy.keys[row]!r}: "
                "the observation does not belong to the policy's game."
            )
        return action

    def __repr__(self) -> str:
        return f"TabularPolicyAgent({self.name})"
