"""Nash-ISMCTS over the rules as agents: the search with its knowledge
(:class:`RulesNashAgent`, saved and loaded as a ``.pt`` file), and the knowledge's prior P
alone, without search (:class:`PriorAgent` for a network, :class:`KnowledgePolicy` for
any knowledge): the cheap stand-in that LBR keeps a search agent's range with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.knowledge import Knowledge, NetworkKnowledge
from nashzoo.agents.ismcts.rules import (
    DEFAULT_NODE_CAP,
    RulesAgentBase,
    RulesSearchResult,
    view_from,
    view_of_info,
)
from nashzoo.agents.ismcts.rules_nash import RulesNashSearch
from nashzoo.agents.ismcts.search import SearchConfig
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game

__all__ = ["RulesNashAgent", "PriorAgent", "KnowledgePolicy", "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "nashzoo.ismcts_rules"
"""The ``format`` of a saved :class:`RulesNashAgent` (a network searched over the rules)."""
FORMAT_VERSION = 1


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


class RulesNashAgent(RulesAgentBase):
    """A-ISMCTS or Nash-ISMCTS over the rules as an agent: plays any game through the
    Agent protocol from the information-state string and public history of its ``info``.

    Args:
        game: the game.
        knowledge: P, V, V_c, H, V_w (e.g. a
            :class:`~nashzoo.agents.ismcts.knowledge.NetworkKnowledge`).
        config: the search settings (``variant`` ``"a"`` or ``"nash"``).
        name: display name.
        node_cap: the most nodes one decision's search may hold.
        metadata: saved with the agent.
    """

    def __init__(
        self,
        game: Game,
        knowledge: Knowledge | None = None,
        config: SearchConfig | None = None,
        *,
        name: str | None = None,
        node_cap: int = DEFAULT_NODE_CAP,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        config = SearchConfig(variant="nash") if config is None else config
        self.search = RulesNashSearch(game, knowledge, config, node_cap=node_cap)
        self._name = name
        self._rng = np.random.default_rng(config.seed)
        self.metadata = dict(metadata or {})
        self.last_result: RulesSearchResult | None = None

    def policy_model(self) -> Any:
        """The search's prior P as a PolicyAgent (no search): the cheap stand-in LBR
        keeps this agent's range with (:class:`~nashzoo.envs.protocol.HasPolicyModel`).
        A network's P answers many views in one forward pass
        (:class:`PriorAgent`); other knowledge view by
        view (:class:`KnowledgePolicy`)."""
        knowledge = self.search.knowledge
        if isinstance(knowledge, NetworkKnowledge):
            return PriorAgent(self.game, knowledge.network, name=f"{self.name}-P")
        return KnowledgePolicy(self.game, knowledge, name=f"{self.name}-P")

    # -- files ------------------------------------------------------------------------------
    def save(self, path: str | Path, *, trainer: dict[str, Any] | None = None) -> Path:
        """Write the agent (game, search settings, the network's shape and weights) to a
        ``.pt`` file that :meth:`load` reads with ``weights_only=True``; ``trainer``
        (the trainer's state) is stored beside it. The write is atomic.

        Raises:
            InvalidParameterError: not a ``.pt`` path, or the agent's knowledge is not a
                network.
        """
        path = Path(path)
        if path.suffix != ".pt":
            raise InvalidParameterError(f"Search agent files end in .pt, received {path.name!r}.")
        knowledge = self.search.knowledge
        if not isinstance(knowledge, NetworkKnowledge):
            raise InvalidParameterError(
                f"Only a search on a network saves to a file; this one's knowledge is "
                f"{type(knowledge).__name__}."
            )
        state = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "network": {
                "shape": knowledge.network.shape.to_dict(),
                "state": knowledge.network.state_dict(),
                "belief": knowledge.belief_source,
            },
            "metadata": self.metadata,
            "name": self._name,
        }
        if trainer is not None:
            state["trainer"] = trainer
        from nashzoo.agents.torch_files import write_torch_file

        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path, game: Game | None = None) -> RulesNashAgent:
        """Read a file written by :meth:`save` (never runs code from the file).

        Raises:
            PolicyFileError: not such a file, another version, a network whose shape
                does not fit the file's game, or a file for another game than ``game``
                (naming both).
            FileNotFoundError: no such file.
        """
        from nashzoo.agents.ismcts.nets import RulesNetwork, RulesNetworkShape
        from nashzoo.agents.torch_files import check_checkpoint, load_modules, read_torch_file
        from nashzoo.errors import PolicyFileError
        from nashzoo.games import load_game

        state = read_torch_file(path)
        check_checkpoint(state, path, FORMAT_NAME, FORMAT_VERSION)
        try:
            file_game = load_game(state["game"])
            config = SearchConfig.from_dict(state["config"])
            shape = RulesNetworkShape.from_dict(state["network"]["shape"])
        except (KeyError, TypeError, AttributeError, InvalidParameterError) as exc:
            raise PolicyFileError(f"{path} is not a valid search agent file: {exc}") from exc
        if game is not None and file_game != game:
            raise PolicyFileError(f"{path} holds an agent for {file_game}, not for {game}.")
        try:
            network = RulesNetwork(shape, file_game)
            network.check_game(file_game)
        except InvalidParameterError as exc:
            raise PolicyFileError(f"{path}: {exc}") from exc
        load_modules(path, state["network"], {"state": network}, "network")
        network.eval()
        belief = str(state["network"].get("belief", "network"))
        try:
            knowledge = NetworkKnowledge(file_game, network, belief=belief)
        except InvalidParameterError as exc:
            raise PolicyFileError(f"{path}: {exc}") from exc
        metadata = dict(state.get("metadata") or {})
        return cls(file_game, knowledge, config, name=state.get("name"), metadata=metadata)


class PriorAgent(SampledPolicyAgent):
    """A :class:`~nashzoo.agents.ismcts.nets.RulesNetwork`'s P as a PolicyAgent (no
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
        mask = torch.as_tensor(np.asarray(action_mask) > 0)
        with torch.no_grad():
            probs = masked_log_softmax(self.network(x)["policy"], mask).exp()
        return probs.double().numpy()
