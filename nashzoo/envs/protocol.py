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

from typing import Any, Protocol, TypedDict, runtime_checkable

import numpy as np

from nashzoo.errors import ActionTypeError, InvalidParameterError
from nashzoo.games.observation import agent_info

__all__ = [
    "Agent",
    "PolicyAgent",
    "AgentInfo",
    "Observation",
    "action_mask_of",
    "sample_index",
    "sample_rows",
    "batch_probabilities",
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
class PolicyAgent(Agent, Protocol):
    """An agent that can also state its full action distribution.

    Exploitability of a PolicyAgent is computed exactly by querying it at every
    information set of a compiled game.
    """

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """Probabilities over all ``num_distinct_actions``, zero on illegal actions."""
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


def sample_index(cumulative: np.ndarray, u: float) -> int:
    """The index a uniform ``u`` in [0, 1) picks from cumulative probabilities (their
    total need not be exactly 1; the last index absorbs rounding)."""
    index = int(np.searchsorted(cumulative, u * cumulative[-1], side="right"))
    return min(index, cumulative.size - 1)


def sample_rows(cumulative: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`sample_index` for every row of ``(n, k)`` cumulative weights at once, with
    one uniform ``u[i]`` in [0, 1) per row (rows need not sum to 1)."""
    return (u[:, None] * cumulative[:, -1:] < cumulative).argmax(axis=1)


def batch_probabilities(
    agent: Any,
    observation: np.ndarray,
    action_mask: np.ndarray,
    player: np.ndarray,
    infos: list[dict[str, Any]] | None = None,
) -> np.ndarray:
    """``(n, actions)`` action probabilities of ``agent`` at ``n`` decisions at once,
    zero off the legal actions and each row summing to 1.

    Uses the agent's ``batch_probabilities(observation, action_mask, player)`` where it
    has one; else, given ``infos``, its ``probabilities_many(requests)`` where it has one
    (one ``(observation, info)`` request per row: an agent in another process answers
    them in one round trip); else its ``action_probabilities`` on each row, with
    ``infos[k]`` as the info (``{"player": player[k]}`` when ``infos`` is ``None``).

    Raises:
        InvalidParameterError: the agent states no probabilities, its answer has the
            wrong shape, or a row gives no probability to any legal action.
    """
    name = type(agent).__name__
    batched = getattr(agent, "batch_probabilities", None)
    many = getattr(agent, "probabilities_many", None)
    n = len(observation)
    answer: Any
    if callable(batched):
        answer = batched(observation, action_mask, player)
    elif infos is not None and callable(many):
        answer = many(
            [
                ({"observation": observation[k], "action_mask": action_mask[k]}, infos[k])
                for k in range(n)
            ]
        )
    elif callable(getattr(agent, "action_probabilities", None)):
        answer = [
            agent.action_probabilities(
                {"observation": observation[k], "action_mask": action_mask[k]},
                {"player": int(player[k])} if infos is None else infos[k],
            )
            for k in range(n)
        ]
    else:
        raise InvalidParameterError(
            "Expected an agent that states its action probabilities (a PolicyAgent, or an "
            f"object with batch_probabilities); received {name}."
        )
    try:
        probs = np.asarray(answer, dtype=np.float64)
        if not callable(batched):  # a list of rows
            probs = probs.reshape(n, -1)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"Expected {n} rows of action probabilities from {name}: {exc}"
        ) from None
    if probs.shape != action_mask.shape:
        raise InvalidParameterError(
            f"Expected probabilities of shape {action_mask.shape} from {name}, received "
            f"shape {probs.shape}."
        )
    probs = np.where(action_mask > 0, np.clip(probs, 0.0, None), 0.0)
    total = probs.sum(axis=1, keepdims=True)
    empty = np.flatnonzero(~(total[:, 0] > 0))
    if empty.size:
        k = int(empty[0])
        where = "" if infos is None else f" at {infos[k].get('info_state')!r}"
        raise InvalidParameterError(f"{name} gave no probability to any legal action{where}.")
    return probs / total
