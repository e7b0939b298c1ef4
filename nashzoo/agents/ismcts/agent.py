"""Information-set search as an agent: MT-ISMCTS, A-ISMCTS and Nash-ISMCTS.

An :class:`ISMCTSAgent` is built from the game and what it knows besides the rules
(:class:`~nashzoo.agents.ismcts.tables.SearchTables`: tabulated networks, an oracle, or
nothing for MT-ISMCTS), and plays through the ordinary Agent protocol: from the
observation and info it finds its own information set, and searches the worlds
consistent with it. It never receives a state, so it cannot see hidden cards.

It is a PolicyAgent: :meth:`ISMCTSAgent.action_probabilities` runs one search at the
information set and returns the search's move distribution, so
:func:`nashzoo.eval.exploitability` measures the search operator itself exactly (one
search per information set, as OpenSpiel's ``is_mcts_exploitability``). Those searches
are seeded per information set from ``config.seed``; the searches of ``act`` draw from
the agent's generator (``reset(seed=...)`` re-seeds it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.search import Search, SearchConfig, SearchResult
from nashzoo.agents.ismcts.tables import SearchTables
from nashzoo.agents.torch_files import check_checkpoint, read_torch_file
from nashzoo.envs.protocol import Observation, action_mask_of
from nashzoo.envs.sampling import sample_index
from nashzoo.errors import IllegalActionError, InvalidParameterError
from nashzoo.games.base import Game
from nashzoo.tree.compile import GameTree, compile_game
from nashzoo.tree.views import views_of
from nashzoo.validation import check_seed

__all__ = ["ISMCTSAgent", "SearchAgentBase"]

FORMAT_NAME = "nashzoo.ismcts"
FORMAT_VERSION = 1
_TABLE_FIELDS = ("prior", "child_value", "view_value", "belief", "world_value")


class SearchAgentBase:
    """What the search agents share (:class:`ISMCTSAgent` on compiled games,
    :class:`~nashzoo.agents.ismcts.rules.RulesISMCTSAgent` over the rules): the display
    name from the variant and budget, the generator of :meth:`act`, and drawing a move
    from the search's distribution."""

    _name: str | None
    _rng: np.random.Generator

    @property
    def config(self) -> SearchConfig:
        raise NotImplementedError

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

    def _draw(self, policy: np.ndarray, observation: Observation, where: str) -> int:
        """A move drawn from ``policy``, refused if the observation's mask forbids it."""
        action = sample_index(np.cumsum(policy), self._rng.random())
        if not action_mask_of(observation)[action]:
            raise IllegalActionError(
                f"The search chose action {action}, which the observation's mask forbids "
                f"at {where!r}: the observation does not belong to {self.game}."
            )
        return action

    @property
    def game(self) -> Game:
        raise NotImplementedError


class ISMCTSAgent(SearchAgentBase):
    """A search agent that plays and states its policy by information-set MCTS.

    Args:
        game: the game (compiled once; Kuhn- and Leduc-sized games) or its tree.
        tables: what the search knows besides the rules. Default: nothing
            (:meth:`SearchTables.uninformed`), which only MT-ISMCTS can use well.
        config: the search settings (default ``SearchConfig()``: Nash-ISMCTS, 1,000
            simulations per move).
        name: display name (default: the variant and simulations, e.g. ``nash-ismcts:1000``).

    Raises:
        InvalidParameterError: the tables belong to another game, or an argument has the
            wrong type.
        GameTooLargeError: the game is too big to compile.
    """

    def __init__(
        self,
        game: Game | GameTree,
        tables: SearchTables | None = None,
        config: SearchConfig | None = None,
        *,
        name: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        tree = game if isinstance(game, GameTree) else None
        if tree is None:
            if not isinstance(game, Game):
                raise InvalidParameterError(
                    f"ISMCTSAgent needs a nashzoo Game, received {type(game).__name__}."
                )
            tree = compile_game(game)
        config = SearchConfig() if config is None else config
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"config must be a SearchConfig, received {type(config).__name__}."
            )
        if tables is None:
            tables = SearchTables.uninformed(tree)
        if not isinstance(tables, SearchTables):
            raise InvalidParameterError(
                f"tables must be SearchTables, received {type(tables).__name__}."
            )
        if tables.tree.game != tree.game:
            raise InvalidParameterError(
                f"The tables are for {tables.tree.game}, not for {tree.game}."
            )
        self.tree = tables.tree
        self.tables = tables
        self.search = Search(tables, config)
        self.metadata = dict(metadata or {})
        self._name = name
        self._rng = np.random.default_rng(config.seed)
        self.last_result: SearchResult | None = None

    # -- settings -----------------------------------------------------------------------
    @property
    def config(self) -> SearchConfig:
        """The search settings (frozen; to change one, assign a new config, e.g.
        ``agent.config = dataclasses.replace(agent.config, eps=0.1)``)."""
        return self.search.config

    @config.setter
    def config(self, config: SearchConfig) -> None:
        if not isinstance(config, SearchConfig):
            raise InvalidParameterError(
                f"An agent's config is a SearchConfig, received {type(config).__name__}."
            )
        self.search.config = config

    @property
    def simulations(self) -> int:
        """Simulations per move."""
        return self.config.simulations

    @simulations.setter
    def simulations(self, value: int) -> None:
        self.config = dataclasses.replace(self.config, simulations=value)  # checked there

    @property
    def game(self) -> Game:
        return self.tree.game

    def search_at(self, infoset: int, rng: Any, *, self_play: bool = False) -> SearchResult:
        """Run one search at ``infoset`` (a row of :attr:`tree`)."""
        result = self.search.run(infoset, rng, self_play=self_play)
        self.last_result = result
        return result

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """The move distribution of one search at this information set (seeded from
        ``config.seed`` and the information set: the same answer whatever the order of
        queries)."""
        infoset = self.tree.infoset_of_inputs(observation, info)
        seed = np.random.SeedSequence([self.config.seed or 0, infoset])
        return self.search_at(infoset, seed).policy.copy()

    def act(self, observation: Observation, info: dict[str, Any]) -> int:
        """Search, then sample a move from the search's distribution."""
        infoset = self.tree.infoset_of_inputs(observation, info)
        policy = self.search_at(infoset, self._rng).policy
        return self._draw(policy, observation, self.tree.infoset_keys[infoset])

    # -- files ----------------------------------------------------------------------------
    def save(self, path: str | Path, *, network: dict[str, Any] | None = None) -> Path:
        """Write the agent (settings, tables, and optionally the network's weights and
        shape) to a ``.pt`` file that :meth:`load` reads with ``weights_only=True``.

        Needs the torch extra.
        """
        from nashzoo.extras import require

        torch = require("torch", "torch", "Saving a search agent")
        path = Path(path)
        if path.suffix != ".pt":
            raise InvalidParameterError(f"Search agent files end in .pt, received {path.name!r}.")
        state = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game": self.game.to_spec(),
            "config": self.config.to_dict(),
            "tables": {
                k: torch.from_numpy(np.array(getattr(self.tables, k))) for k in _TABLE_FIELDS
            },
            "source": self.tables.source,
            "metadata": self.metadata,
            "name": self._name,
        }
        if network is not None:
            state["network"] = network
        from nashzoo.agents.torch_files import write_torch_file

        return write_torch_file(state, path)

    @classmethod
    def load(cls, path: str | Path, game: Game | None = None) -> ISMCTSAgent:
        """Read a file written by :meth:`save` (``torch.load(weights_only=True)``: loading
        never runs code from the file).

        Raises:
            PolicyFileError: not a search agent file, another version, or a file for
                another game than ``game``.
            FileNotFoundError: no such file.
        """
        from nashzoo.errors import PolicyFileError
        from nashzoo.games import load_game

        state = read_torch_file(path)
        check_checkpoint(state, path, FORMAT_NAME, FORMAT_VERSION)
        try:
            file_game = load_game(state["game"])
            config = SearchConfig.from_dict(state["config"])
            tree = compile_game(file_game)
            tables = SearchTables(
                views=views_of(tree),
                source=str(state.get("source", "network")),
                **{k: state["tables"][k].numpy().astype(np.float64) for k in _TABLE_FIELDS},
            )
        except (KeyError, TypeError, AttributeError, InvalidParameterError) as exc:
            raise PolicyFileError(f"{path} is not a valid search agent file: {exc}") from exc
        if game is not None and file_game != game:
            raise PolicyFileError(f"{path} holds an agent for {file_game}, not for {game}.")
        metadata = state.get("metadata") or {}
        return cls(tree, tables, config, name=state.get("name"), metadata=dict(metadata))

    def __repr__(self) -> str:
        return f"ISMCTSAgent({self.name}, {self.game}, tables={self.tables.source})"
