"""A search's prior P played without search: :class:`PriorAgent` for a network (many
views in one forward pass), :class:`KnowledgePolicy` for any knowledge. This is the cheap
stand-in that LBR keeps a search agent's range with
(:meth:`~nashzoo.agents.ismcts.agent.ISMCTSAgent.policy_model`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nashzoo.agents.ismcts.knowledge import Knowledge
from nashzoo.agents.ismcts.search import view_from, view_of_info
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game

__all__ = ["PriorAgent", "KnowledgePolicy"]


class KnowledgePolicy(SampledPolicyAgent):
    """A knowledge's P as a PolicyAgent: the distribution the search starts from at each
    view, with no search (what LBR keeps a search agent's range with).

    Args:
        game: the game.
        knowledge: where P comes from.
        name: display name.
        seed: seed of the agent's generator (its draws from P).
    """

    def __init__(
        self, game: Game, knowledge: Knowledge, *, name: str = "prior", seed: int | None = None
    ) -> None:
        if not isinstance(knowledge, Knowledge) or knowledge.game != game:
            raise InvalidParameterError(
                f"KnowledgePolicy needs a Knowledge of {game}, received {knowledge!r}."
            )
        super().__init__(seed=seed)
        self.game = game
        self.knowledge = knowledge
        self.name = name

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """P over all actions at the view of ``info``, zero on illegal ones."""
        player, info_state, public = view_of_info(info)
        view = view_from(self.game, player, info_state, public)
        self.knowledge.evaluate(self.knowledge.missing([(view, player)]))
        prior, _, _ = self.knowledge.act(view, player)
        out = np.zeros(self.game.num_distinct_actions)
        out[list(view.legal_actions())] = prior / prior.sum()
        return out


class PriorAgent(SampledPolicyAgent):
    """An :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork`'s P as a PolicyAgent (no
    search); many views are answered in one forward pass (``batch_probabilities``).

    Args:
        game: the game.
        network: the network.
        name: display name.
        seed: seed of the agent's generator (its draws from P).
    """

    def __init__(
        self, game: Game, network: Any, *, name: str = "nash-ismcts-P", seed: int | None = None
    ) -> None:
        network.check_game(game)
        super().__init__(seed=seed)
        self.game = game
        self.network = network
        self.name = name

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """P over all actions, zero on illegal ones."""
        return self.batch_probabilities(
            np.asarray(observation["observation"])[None],
            np.asarray(observation["action_mask"])[None],
            np.zeros(1, dtype=np.int64),
        )[0]

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """P at many views in one forward pass (rows of observation tensors and masks)."""
        from nashzoo.agents.ismcts.nets import masked_log_softmax, torch

        x = self.network.features(np.array(observation, dtype=np.float32))
        mask = torch.as_tensor(np.asarray(action_mask) > 0, device=x.device)
        with torch.no_grad():
            probs = masked_log_softmax(self.network(x)["policy"], mask).exp()
        return probs.double().cpu().numpy()
