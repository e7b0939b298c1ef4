"""The Agent protocol: what every nashzoo agent receives and must answer.

It lives beside the env adapter because it *is* the env's contract with a player: an
agent sees exactly what a PettingZoo player of a nashzoo env sees. Import it as
``nashzoo.Agent`` or from :mod:`nashzoo.agents`.

An agent is any object with ``name``, ``act(observation, info)`` and
``reset(*, seed=None)`` (structural typing: no subclassing needed).

``observation`` is the PettingZoo observation dict:

* ``"observation"``: ``float32`` perfect-recall information-state tensor (the index
  layout is on each env's reference page);
* ``"action_mask"``: ``int8``, 1 for the legal actions.

``info`` (an :class:`AgentInfo`) holds everything the agent may know and nothing more:

* ``"player"``: the seat the agent is playing (0 or 1);
* ``"public_history"``: ``int64`` array of length ``game.max_history_length``, the
  history as every player saw it (-1 for private cards and hidden simultaneous moves),
  padded with -1 after ``"history_length"`` entries;
* ``"history_length"``: events (chance included) in the history so far;
* ``"illegal_action"``: whether the episode ended because of an illegal action;
* ``"info_state"``: the perfect-recall information-state string, e.g.
  ``"player=0 card=Js public=Qh bets=rc/r"``. nashzoo's harness (matches, tournaments,
  :func:`nashzoo.play_episode`, the single-agent wrapper's opponent) always sends it.
  Env infos leave it out by default, because libraries such as TorchRL turn every info
  value into a tensor; ``nashzoo.make(..., info_strings=True)`` puts it back, and
  ``env.unwrapped.information_state_string(agent)`` returns it at any time.

The arrays an agent receives in a match are read-only and cannot be unlocked; legality
is judged from the rules, never from the agent's copy. ``act`` must return a legal action
id (``observation["action_mask"][a] == 1``); anything else, an exception, or running out
of time forfeits the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypedDict, runtime_checkable

import numpy as np

from nashzoo.errors import ActionTypeError
from nashzoo.games.observation import agent_info

__all__ = [
    "Agent",
    "PolicyAgent",
    "StatesProbabilities",
    "ActsMany",
    "StatesMany",
    "StatesBatch",
    "ChecksGame",
    "HasPolicyModel",
    "MixedStrategy",
    "AgentInfo",
    "Observation",
    "Request",
    "action_mask_of",
    "agent_info",
    "INFO_KEYS",
]

Observation = dict[str, np.ndarray]
"""``{"observation": float32 tensor, "action_mask": int8 mask}``."""

INFO_KEYS: tuple[str, ...] = ("player", "public_history", "history_length", "illegal_action")
"""The keys of every env info (numbers and arrays only), the same on every step."""


class AgentInfo(TypedDict, total=False):
    """The ``info`` argument of :meth:`Agent.act` (see the module docstring)."""

    player: int
    public_history: np.ndarray
    history_length: int
    illegal_action: bool
    info_state: str


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action from an observation.

    Attributes:
        name: display name in matches, tournaments and reports.
    """

    name: str

    def act(self, observation: Observation, info: AgentInfo) -> int:
        """Return a legal action (``observation["action_mask"][a] == 1``)."""
        ...

    def reset(self, *, seed: int | None = None) -> None:
        """Called before every game; ``seed``, when given, re-seeds the agent's generator."""
        ...


@runtime_checkable
class StatesProbabilities(Protocol):
    """Anything that states its action distribution at a decision (the part of
    :class:`PolicyAgent` that exact exploitability, LBR and AIVAT ask for)."""

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """Probabilities over all ``num_distinct_actions``, zero on illegal actions."""
        ...


@runtime_checkable
class PolicyAgent(Agent, StatesProbabilities, Protocol):
    """An agent that can also state its full action distribution.

    Exploitability of a PolicyAgent is computed exactly by querying it at every
    information set of a compiled game.
    """


@runtime_checkable
class HasPolicyModel(Protocol):
    """An agent whose stated distribution is costly (a search per question) and that
    offers a cheaper stationary model of its own play: LBR keeps the agent's range with
    the model and plays against the agent itself
    (:func:`nashzoo.eval.lbr.local_best_response`'s ``model``)."""

    def policy_model(self) -> StatesProbabilities:
        """A PolicyAgent close to this agent's play (e.g. a search's prior network)."""
        ...


@runtime_checkable
class MixedStrategy(Protocol):
    """An agent that draws one of its ``members`` by ``weights`` at every ``reset`` and
    lets it play the whole game (a mixed strategy, as Nash memory plays;
    :class:`~nashzoo.agents.nash_memory.population.MixtureAgent`). LBR keeps its range
    over (member, private deal) pairs when every member states its probabilities."""

    members: Sequence[Any]
    weights: np.ndarray


Request = tuple[Observation, AgentInfo]
"""One decision: the observation and info :meth:`Agent.act` would receive."""


# -- what an agent may add (each found with isinstance, never by a bare getattr) ---------
@runtime_checkable
class ActsMany(Protocol):
    """An agent that answers several decisions (of different games) in one call: the
    lockstep engine (a block's games advancing together) and a sandboxed agent, which
    pays a round trip per call, use it."""

    def act_many(self, requests: Sequence[Request]) -> Sequence[int] | np.ndarray:
        """One legal action per request, in order (a sequence, or a 1-D integer array)."""
        ...


@runtime_checkable
class StatesMany(Protocol):
    """An agent that states its probabilities at several decisions in one call (what
    :func:`~nashzoo.envs.sampling.batch_probabilities` asks when it has the infos)."""

    def probabilities_many(self, requests: Sequence[Request]) -> Sequence[np.ndarray]:
        """One row of probabilities over all actions per request, in order."""
        ...


@runtime_checkable
class StatesBatch(Protocol):
    """An agent that states its probabilities for a batch given as arrays (the batched
    envs' rows): the fastest path of
    :func:`~nashzoo.envs.sampling.batch_probabilities`."""

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """``(n, num_actions)`` probabilities for ``n`` rows of observations, masks and
        acting players."""
        ...


@runtime_checkable
class ChecksGame(Protocol):
    """An agent that can tell, before a tournament starts, whether it plays a game (a
    saved policy for another game refuses it there rather than in the first block)."""

    def check_game(self, game: Any) -> None:
        """Raise :class:`~nashzoo.errors.InvalidParameterError` unless it plays ``game``."""
        ...


def action_mask_of(observation: Any) -> np.ndarray:
    """The ``action_mask`` of a PettingZoo observation dict, validated.

    Raises:
        ActionTypeError: ``observation`` is not a dict with an ``"action_mask"`` array.
    """
    if not isinstance(observation, dict) or "action_mask" not in observation:
        raise ActionTypeError(
            "Expected a PettingZoo observation dict with an 'action_mask' entry, received "
            f"{type(observation).__name__}"
            + (f" with keys {sorted(observation)}" if isinstance(observation, dict) else "")
            + "."
        )
    return np.asarray(observation["action_mask"])
