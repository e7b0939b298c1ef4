"""Information-set search as an agent: MT-ISMCTS, A-ISMCTS and Nash-ISMCTS on any game.

An :class:`ISMCTSAgent` is built from the game and what it knows besides the rules (a
:class:`~nashzoo.agents.ismcts.knowledge.Knowledge` such as a network evaluated at search
time, :class:`~nashzoo.agents.ismcts.tables.SearchTables` of a compiled game, or nothing
for MT-ISMCTS), and plays through the ordinary Agent protocol: from the observation and
info it finds its own view and searches the worlds consistent with it
(:class:`~nashzoo.agents.ismcts.search.ISMCTSSearch`, on its compiled fast path where the
knowledge is tables). It never receives a state, so it cannot see hidden cards.

It is a PolicyAgent: :meth:`ISMCTSAgent.action_probabilities` runs one search at the
view and returns the search's move distribution, so :func:`nashzoo.eval.exploitability`
measures the search operator itself exactly on a game that compiles (one search per
information set, as OpenSpiel's ``is_mcts_exploitability``). Those searches are seeded
per view from ``config.seed``; the searches of ``act`` draw from the agent's generator
(``reset(seed=...)`` re-seeds it).

Files: an agent on tables saves them (format ``nashzoo.ismcts``); an agent on a network
searched over the rules saves the network (format ``nashzoo.ismcts_rules``).
:meth:`ISMCTSAgent.load` reads both.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.config import SearchConfig, SearchResult
from nashzoo.agents.ismcts.knowledge import Knowledge, NetworkKnowledge
from nashzoo.agents.ismcts.prior import KnowledgePolicy, PriorAgent
from nashzoo.agents.ismcts.search import DEFAULT_NODE_CAP, ISMCTSSearch, view_of_info
from nashzoo.agents.ismcts.tables import SearchTables
from nashzoo.agents.torch_files import check_checkpoint, read_torch_file, write_torch_file
from nashzoo.envs.protocol import Observation, action_mask_of
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import IllegalActionError, InvalidParameterError, PolicyFileError
from nashzoo.games.base import Game
from nashzoo.tree.compile import GameTree, compile_game
from nashzoo.tree.views import views_of
from nashzoo.validation import check_seed

__all__ = ["ISMCTSAgent", "TABLES_FORMAT", "NETWORK_FORMAT", "FORMAT_VERSION"]

TABLES_FORMAT = "nashzoo.ismcts"
"""The ``format`` of a saved agent on tables (a compiled game)."""
NETWORK_FORMAT = "nashzoo.ismcts_rules"
"""The ``format`` of a saved agent on a network searched over the rules."""
FORMAT_VERSION = 1
_TABLE_FIELDS = ("prior", "child_value", "view_value", "belief", "world_value")


class ISMCTSAgent:
    """A search agent that plays and states its policy by information-set MCTS.

    Args:
        game: the game, or its compiled tree.
        knowledge: what the search knows besides the rules: a
            :class:`~nashzoo.agents.ismcts.knowledge.Knowledge` (e.g. a
            :class:`~nashzoo.agents.ismcts.knowledge.NetworkKnowledge`), tables of the
            compiled game, or ``None`` (nothing: uniform P, chance-weighted H, zero values,
            which only MT-ISMCTS uses well; tabulated where the game compiles).
        config: the search settings (default ``SearchConfig()``: Nash-ISMCTS, 1,000
            simulations per move).
        name: display name (default: the variant and budget, e.g. ``nash-ismcts:1000``
            or ``mt-ismcts:0.2s``).
        node_cap: the most nodes one decision's search may hold over the rules.
        metadata: saved with the agent.
        fast_path: take the compiled search where the knowledge is tables.

    Raises:
        InvalidParameterError: the knowledge belongs to another game, or an argument has
            the wrong type (as :class:`~nashzoo.agents.ismcts.search.ISMCTSSearch`).
    """

    def __init__(
        self,
        game: Game | GameTree,
        knowledge: Knowledge | SearchTables | None = None,
        config: SearchConfig | None = None,
        *,
        name: str | None = None,
        node_cap: int = DEFAULT_NODE_CAP,
        metadata: dict[str, Any] | None = None,
        fast_path: bool = True,
    ) -> None:
        if isinstance(game, GameTree):
            knowledge = SearchTables.uninformed(game) if knowledge is None else knowledge
            game = game.game
        if not isinstance(game, Game):
            raise InvalidParameterError(
                f"ISMCTSAgent needs a nashzoo Game, received {type(game).__name__}."
            )
        self.search = ISMCTSSearch(game, knowledge, config, node_cap=node_cap, fast_path=fast_path)
        self.metadata = dict(metadata or {})
        self._name = name
        self._rng = np.random.default_rng(self.config.seed)
        self.last_result: SearchResult | None = None

    # -- settings -----------------------------------------------------------------------
    @property
    def config(self) -> SearchConfig:
        """The search settings (frozen; to change one, assign a new config, e.g.
        ``agent.config = dataclasses.replace(agent.config, eps=0.1)``)."""
        return self.search.config

    @config.setter
    def config(self, config: SearchConfig) -> None:
        self.search.config = config  # checked there

    @property
    def simulations(self) -> int:
        """Simulations per move."""
        return self.config.simulations

    @simulations.setter
    def simulations(self, value: int) -> None:
        self.config = dataclasses.replace(self.config, simulations=value)  # checked there

    @property
    def game(self) -> Game:
        return self.search.game

    @property
    def tables(self) -> SearchTables | None:
        """The tables the search reads (``None``: its knowledge is not tabulated)."""
        return self.search.tables

    @property
    def tree(self) -> GameTree | None:
        """The compiled game of the fast path (``None``: the search walks the rules)."""
        return None if self.search.compiled is None else self.search.compiled.tree

    @property
    def name(self) -> str:
        if self._name:
            return self._name
        c = self.config
        budget = f"{c.time_budget:g}s" if c.time_budget is not None else str(c.simulations)
        return f"{c.variant}-ismcts:{budget}"

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    def reset(self, *, seed: int | None = None) -> None:
        """Re-seed the generator of :meth:`act` when ``seed`` is given."""
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))

    # -- searching ------------------------------------------------------------------------
    def search_at(self, infoset: int, rng: Any, *, self_play: bool = False) -> SearchResult:
        """Run one search at ``infoset`` (a row of :attr:`tree`; the fast path only)."""
        if self.search.compiled is None:
            raise InvalidParameterError(
                "search_at takes a row of the compiled game; this agent walks the rules "
                "(search a view with agent.search.run_view or a state with run_state)."
            )
        result = self.search.compiled.run(infoset, rng, self_play=self_play)
        self.last_result = result
        return result

    def _search(self, observation: Observation, info: dict[str, Any], rng: Any) -> SearchResult:
        tree = self.tree
        if tree is not None:
            infoset = tree.infoset_of_inputs(observation, info)
            if rng is None:
                rng = np.random.SeedSequence([self.config.seed or 0, infoset])
            return self.search_at(infoset, rng)
        if rng is None:
            digest = hashlib.blake2b(str(info.get("info_state", "")).encode(), digest_size=8)
            key = int.from_bytes(digest.digest(), "little")
            rng = np.random.default_rng(np.random.SeedSequence([self.config.seed or 0, key]))
        result = self.search.run_view(*view_of_info(info), rng)
        self.last_result = result
        return result

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """The move distribution of one search at this view (seeded from ``config.seed``
        and the view: the same answer whatever the order of queries)."""
        return self._search(observation, info, None).policy.copy()

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """Search, then sample a move from the search's distribution."""
        policy = self._search(observation, info, self._rng).policy
        action = sample_index(np.cumsum(policy), self._rng.random())
        if not action_mask_of(observation)[action]:
            raise IllegalActionError(
                f"The search chose action {action}, which the observation's mask forbids "
                f"at {info.get('info_state')!r}: the observation does not belong to "
                f"{self.game}."
            )
        return action

    def policy_model(self) -> Any:
        """The search's prior P as a PolicyAgent (no search): the cheap stand-in LBR
        keeps this agent's range with (:class:`~nashzoo.envs.protocol.HasPolicyModel`).
        A network's P answers many views in one forward pass (:class:`PriorAgent`);
        other knowledge view by view (:class:`KnowledgePolicy`)."""
        knowledge = self.search.knowledge
        if isinstance(knowledge, NetworkKnowledge):
            return PriorAgent(self.game, knowledge.network, name=f"{self.name}-P")
        return KnowledgePolicy(self.game, knowledge, name=f"{self.name}-P")

    # -- files ----------------------------------------------------------------------------
    def save(
        self,
        path: str | Path,
        *,
        network: dict[str, Any] | None = None,
        trainer: dict[str, Any] | None = None,
    ) -> Path:
        """Write the agent to a ``.pt`` file that :meth:`load` reads with
        ``weights_only=True``: the settings and the tables (``network``: the tabulated
        network's weights and shape beside them), or, searching a network over the
        rules, the network's shape and weights (``trainer``: the trainer's state beside
        them). The write is atomic. Needs the torch extra.

        Raises:
            InvalidParameterError: not a ``.pt`` path, or knowledge that is neither tables
                nor a network.
        """
        path = Path(path)
        if path.suffix != ".pt":
            raise InvalidParameterError(f"Search agent files end in .pt, received {path.name!r}.")
        state: dict[str, Any] = {
            "version": FORMAT_VERSION,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "metadata": self.metadata,
            "name": self._name,
        }
        knowledge = self.search.knowledge
        if self.tables is not None:
            from nashzoo.extras import require

            torch = require("torch", "torch", "Saving a search agent")
            state["format"] = TABLES_FORMAT
            state["tables"] = {
                k: torch.from_numpy(np.array(getattr(self.tables, k))) for k in _TABLE_FIELDS
            }
            state["source"] = self.tables.source
            if network is not None:
                state["network"] = network
        elif isinstance(knowledge, NetworkKnowledge):
            state["format"] = NETWORK_FORMAT
            state["network"] = {
                "shape": knowledge.network.shape.to_dict(),
                "state": knowledge.network.state_dict(),
                "belief": knowledge.belief_source,
            }
        else:
            raise InvalidParameterError(
                f"Only a search on tables or a network saves to a file; this one's "
                f"knowledge is {type(knowledge).__name__}."
            )
        if trainer is not None:
            state["trainer"] = trainer
        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path, game: Game | None = None) -> ISMCTSAgent:
        """Read a file written by :meth:`save`, either format
        (``torch.load(weights_only=True)``: loading never runs code from the file).

        Raises:
            PolicyFileError: not a search agent file, another version, a network whose
                shape does not fit the file's game, or a file for another game than
                ``game`` (naming both).
            FileNotFoundError: no such file.
        """
        from nashzoo.games import load_game

        state = read_torch_file(path)
        kind = state.get("format") if isinstance(state, dict) else None
        check_checkpoint(
            state, path, NETWORK_FORMAT if kind == NETWORK_FORMAT else TABLES_FORMAT, FORMAT_VERSION
        )
        try:
            file_game = load_game(state["game"])
            config = SearchConfig.from_dict(state["config"])
        except (KeyError, TypeError, AttributeError, InvalidParameterError) as exc:
            raise PolicyFileError(f"{path} is not a valid search agent file: {exc}") from exc
        if game is not None and file_game != game:
            raise PolicyFileError(f"{path} holds an agent for {file_game}, not for {game}.")
        knowledge: Knowledge | SearchTables
        if kind == NETWORK_FORMAT:
            knowledge = _network_knowledge(path, state, file_game)
        else:
            try:
                knowledge = SearchTables(
                    views=views_of(compile_game(file_game)),
                    source=str(state.get("source", "network")),
                    **{k: state["tables"][k].numpy().astype(np.float64) for k in _TABLE_FIELDS},
                )
            except (KeyError, TypeError, AttributeError, InvalidParameterError) as exc:
                raise PolicyFileError(f"{path} is not a valid search agent file: {exc}") from exc
        metadata = dict(state.get("metadata") or {})
        return cls(file_game, knowledge, config, name=state.get("name"), metadata=metadata)

    def __repr__(self) -> str:
        source = self.tables.source if self.tables is not None else type(self.search.knowledge)
        source = getattr(source, "__name__", source)
        return f"ISMCTSAgent({self.name}, {self.game}, knowledge={source})"


def _network_knowledge(path: str | Path, state: dict[str, Any], game: Game) -> NetworkKnowledge:
    """The network a file of format ``nashzoo.ismcts_rules`` holds, as knowledge."""
    from nashzoo.agents.ismcts.nets import EmbeddingNetwork, EmbeddingNetworkShape
    from nashzoo.agents.torch_files import load_modules

    try:
        shape = EmbeddingNetworkShape.from_dict(state["network"]["shape"])
        network = EmbeddingNetwork(shape, game)
    except (KeyError, TypeError, AttributeError, InvalidParameterError) as exc:
        raise PolicyFileError(f"{path} is not a valid search agent file: {exc}") from exc
    try:
        network.check_game(game)
    except InvalidParameterError as exc:
        raise PolicyFileError(
            f"{path}: {exc} A network cannot be converted to another shape (poker networks "
            "saved before the world features read the board are "
            f"narrower): retrain it, e.g. `nashzoo train nash-ismcts {game.short_name}`."
        ) from exc
    load_modules(path, state["network"], {"state": network}, "network")
    network.eval()
    try:
        return NetworkKnowledge(
            game, network, belief=str(state["network"].get("belief", "network"))
        )
    except InvalidParameterError as exc:
        raise PolicyFileError(f"{path}: {exc}") from exc
