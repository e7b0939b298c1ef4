"""Drawing actions from probabilities, and asking agents for probabilities in batches.

Kept apart from :mod:`nashzoo.envs.protocol`, which states only what an agent is.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from nashzoo.envs.protocol import (
    AgentInfo,
    Request,
    StatesBatch,
    StatesMany,
    StatesProbabilities,
)
from nashzoo.errors import InvalidParameterError

__all__ = ["sample_index", "sample_rows", "batch_probabilities"]


def sample_index(cumulative: np.ndarray, u: float) -> int:
    """The index a uniform ``u`` in [0, 1) picks from cumulative probabilities (their
    total need not be exactly 1). Never an index of zero weight: where rounding carries
    ``u`` past the total, the last index of positive weight.

    Raises:
        InvalidParameterError: the weights' total is not positive (all zero, or NaN).
    """
    # In float64: u times a float32 total in float32 rounds up to the total when u is
    # within 2**-25 of 1, which picked the last index even where its weight was zero.
    total = float(cumulative[-1])
    if not total > 0.0:
        raise InvalidParameterError(
            f"Cannot sample from weights whose total is {total} (expected a positive total)."
        )
    index = int(np.searchsorted(cumulative, u * total, side="right"))
    if index < cumulative.size:
        return index
    return int(np.searchsorted(cumulative, total, side="left"))


def sample_rows(cumulative: np.ndarray, u: np.ndarray) -> np.ndarray:
    """:func:`sample_index` for every row of ``(n, k)`` cumulative weights at once, with
    one uniform ``u[i]`` in [0, 1) per row (rows need not sum to 1); never an index of
    zero weight."""
    totals = np.asarray(cumulative[:, -1:], dtype=np.float64)
    hits = np.asarray(u, dtype=np.float64)[:, None] * totals < cumulative
    index = hits.argmax(axis=1)
    past = ~hits[np.arange(hits.shape[0]), index]  # rounding carried u past the total
    if past.any():
        index[past] = (cumulative[past] >= cumulative[past, -1:]).argmax(axis=1)
    return index


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
    batched = isinstance(agent, StatesBatch)
    n = len(observation)
    answer: Any
    if batched:
        answer = agent.batch_probabilities(observation, action_mask, player)
    elif infos is not None and isinstance(agent, StatesMany):
        answer = agent.probabilities_many(_requests(observation, action_mask, player, infos))
    elif isinstance(agent, StatesProbabilities):
        answer = [
            agent.action_probabilities(obs, info)
            for obs, info in _requests(observation, action_mask, player, infos)
        ]
    else:
        raise InvalidParameterError(
            "Expected an agent that states its action probabilities (a PolicyAgent, or an "
            f"object with batch_probabilities); received {name}."
        )
    try:
        probs = np.asarray(answer, dtype=np.float64)
        if not batched:  # a list of rows
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


def _requests(
    observation: np.ndarray,
    action_mask: np.ndarray,
    player: np.ndarray,
    infos: list[dict[str, Any]] | None,
) -> list[Request]:
    """One ``(observation, info)`` request per row (``{"player": ...}`` without infos)."""
    return [
        (
            {"observation": observation[k], "action_mask": action_mask[k]},
            cast(AgentInfo, {"player": int(player[k])} if infos is None else infos[k]),
        )
        for k in range(len(observation))
    ]
