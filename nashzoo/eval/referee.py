"""The referee: the one place where the rules of a match meet its agents.

Every way nashzoo plays agents against each other drives these pieces: the plain and
common-random-numbers matches (:mod:`nashzoo.eval.engine`), AIVAT
(:mod:`nashzoo.eval.aivat`, whose corrections are hooks on chance events and on stated
probabilities), the lockstep blocks of the leaderboard (:mod:`nashzoo.eval.lockstep`) and
a person at the keyboard (:mod:`nashzoo.eval.session`):

* :class:`Deal`: one game in progress, the rules state with chance driven by pre-drawn
  uniforms (both seatings of a duplicate deal see the same cards);
* :func:`request_for`: the observation and info an agent is asked with, from the shared
  :class:`~nashzoo.games.observation.ObservationCache` (locked arrays: nothing an agent
  does reaches the referee or the other agent);
* :func:`ask_agent` / :func:`ask_probabilities`: one agent's answers to many requests, a
  fault becoming that agent's :class:`~nashzoo.eval.guard.Forfeit`;
* :func:`checked_action` and :func:`stated_row`: the legality checks of an action and of
  stated probabilities; :func:`drawn_action`: a move drawn from stated probabilities.

The tournament engine's inner loop inlines the common case (a valid legal ``int``) for
speed and calls :func:`checked_action` for everything else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nashzoo.envs.protocol import ActsMany, Request, StatesMany
from nashzoo.envs.sampling import sample_index
from nashzoo.eval import guard
from nashzoo.eval.guard import Forfeit
from nashzoo.games.base import (
    CHANCE,
    TERMINAL,
    Game,
    State,
    check_action_value,
    sample_chance_outcome,
)
from nashzoo.games.observation import ObservationCache

__all__ = [
    "Deal",
    "ChanceHook",
    "request_for",
    "ask_agent",
    "ask_probabilities",
    "checked_action",
    "stated_row",
    "drawn_action",
    "on_behalf_of",
]

ChanceHook = Callable[[State, list[tuple[int, float]], int], None]
"""Called as ``hook(state, outcomes, outcome)`` before a chance event is applied:
the distribution ``outcomes`` (``(outcome, probability)`` pairs) and the one drawn."""


class Deal:
    """One game of a match in progress: the rules state, with chance driven by the
    uniforms of ``draws`` (one per chance event; a duplicate deal's two games share
    them).

    Args:
        game: the rules.
        draws: the deal's row of :func:`~nashzoo.eval.engine.deal_uniforms`.
    """

    __slots__ = ("state", "draw")

    def __init__(self, game: Game, draws: np.ndarray) -> None:
        self.state = game.new_initial_state()
        self.draw: Callable[[], float] = iter(draws.tolist()).__next__

    def to_move(self, on_chance: ChanceHook | None = None) -> int:
        """Play chance until a player is to move; that player, or ``TERMINAL``.

        Without a hook the rules deal in their own fast way
        (:meth:`~nashzoo.games.base.State.advance_chance`); with one, each chance event
        is drawn from its listed distribution and shown to ``on_chance`` first.
        """
        state = self.state
        p = state.current_player()
        while p == CHANCE:
            if on_chance is None:
                state.advance_chance(self.draw)
            else:
                outcomes = state.chance_outcomes()
                pick = sample_chance_outcome(outcomes, self.draw())
                on_chance(state, outcomes, pick)
                state.apply_unchecked(pick)
            p = state.current_player()
        return p

    def apply(self, who: int, action: Any, key: str, num_actions: int) -> int:
        """Agent ``who``'s answer at ``key``, checked (:func:`checked_action`) and played;
        returns the action."""
        checked = checked_action(self.state, action, who, key, num_actions)
        self.state.apply_unchecked(checked)
        return checked

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.state.current_player() == TERMINAL


def request_for(cache: ObservationCache, state: State, player: int) -> Request:
    """The observation and info that ``player``, to act at ``state``, is asked with
    (the view's :meth:`~nashzoo.games.observation.PlayerView.info`)."""
    key = state.information_state_string_unchecked(player)
    view = cache.cached(key) or cache.get(state, player, key)
    return {"observation": view.tensor, "action_mask": view.mask}, view.info(player, key)


def drawn_action(row: np.ndarray, u: float) -> int:
    """The action that ``u`` in [0, 1) draws from the checked distribution ``row``."""
    return sample_index(np.cumsum(row), u)


def on_behalf_of(who: int, ask: Callable[[], Any]) -> Any:
    """``ask()``, with any fault made agent ``who``'s forfeit."""
    before = guard.interrupt_count()
    try:
        return ask()
    except Forfeit as exc:  # raised by the agent's proxy (the sandbox) with its own code
        raise Forfeit(who, exc.reason, exc.kind) from None
    except BaseException as exc:
        raise guard.forfeit_for(who, exc, before) from None


def ask_agent(agent: Any, who: int, requests: Sequence[Request]) -> Sequence[int]:
    """Ask ``agent`` for every request; any fault becomes agent ``who``'s forfeit."""
    if isinstance(agent, ActsMany):
        answers = on_behalf_of(who, lambda: agent.act_many(requests))
    else:
        answers = on_behalf_of(who, lambda: [agent.act(obs, info) for obs, info in requests])
    if isinstance(answers, np.ndarray) and answers.ndim == 1:
        answers = answers.tolist()  # one action per request, as a list would hold them
    if not isinstance(answers, Sequence) or len(answers) != len(requests):
        raise Forfeit(
            who,
            f"answered {len(answers) if isinstance(answers, Sequence) else type(answers).__name__}"
            f" actions for {len(requests)} decisions",
            "bad_output",
        )
    return answers


def stated_row(who: int, probs: Any, mask: np.ndarray, key: str) -> np.ndarray:
    """Agent ``who``'s stated probabilities at ``key``, checked: a distribution over the
    legal actions (renormalised to sum to 1 exactly).

    Raises:
        Forfeit: not numbers, the wrong shape, negative or non-finite entries, weight off
            the legal actions, or a total off 1 by more than 1e-4.
    """
    try:
        row = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise Forfeit(who, f"stated probabilities that are not numbers at {key!r}: {exc}") from None
    if row.shape != mask.shape or not np.isfinite(row).all() or (row < 0).any():
        raise Forfeit(
            who,
            f"stated invalid probabilities at {key!r}: expected {mask.size} finite non-negative "
            f"numbers, received {row!r}",
            "bad_output",
        )
    legal = mask > 0
    total = float(row[legal].sum())
    if float(row[~legal].sum()) > 1e-6 or abs(total - 1.0) > 1e-4:
        raise Forfeit(
            who,
            f"stated probabilities at {key!r} that are not a distribution over the legal "
            f"actions {np.flatnonzero(legal).tolist()}: {row.tolist()}",
            "bad_output",
        )
    return np.where(legal, row, 0.0) / total


def ask_probabilities(agent: Any, who: int, requests: Sequence[Request]) -> list[Any]:
    """Ask ``agent`` for its stated probabilities at every request (one call where it
    states many at once); any fault becomes agent ``who``'s forfeit."""
    rows: list[Any]
    if isinstance(agent, StatesMany):
        rows = on_behalf_of(who, lambda: list(agent.probabilities_many(requests)))
    else:
        rows = on_behalf_of(
            who, lambda: [agent.action_probabilities(obs, info) for obs, info in requests]
        )
    if len(rows) != len(requests):
        raise Forfeit(
            who,
            f"stated {len(rows)} rows of probabilities for {len(requests)} decisions",
            "bad_output",
        )
    return rows


def checked_action(state: State, action: Any, who: int, key: str, num_actions: int) -> int:
    """``action`` as a legal action of ``state``, or agent ``who``'s forfeit.

    Raises:
        Forfeit: ``action`` is not an action number, or not legal at ``state``.
    """
    if type(action) is not int or not 0 <= action < num_actions:
        try:
            action = check_action_value(action, num_actions)
        except (TypeError, ValueError) as exc:
            raise Forfeit(who, f"answered an invalid action at {key!r}: {exc}", "illegal") from None
    legal = state.legal_actions()
    if action not in legal:
        raise Forfeit(
            who, f"played illegal action {action} at {key!r} (legal: {list(legal)})", "illegal"
        )
    return int(action)
