"""The AEC env of games whose rules have a numba kernel (heads-up Limit Hold'em, no-limit
Hold'em, poker tables of 3 to 10 players), stepped by the compiled rules.

:class:`CompiledEnv` is a :class:`~nashzoo.envs.aec.GameEnv` whose hand lives in a
:class:`~nashzoo.games.lane.Lane` (the rules in numba, one call per decision:
:class:`~nashzoo.games.poker.kernel.PokerLane` for the poker engine's games) instead of a
:class:`~nashzoo.games.base.State` stepped in Python. Everything a user sees is the same
(agents, spaces, observations, masks, infos, rewards, the dead-agent convention,
illegal-action handling, seeding: ``reset(seed=s)`` deals the same cards): a test plays
the two envs in lockstep. What reads the rules' state (``state_of_game()``, ``render()``,
``information_state_string()``, the message of an illegal action, ``info_strings=True``)
gets it replayed from the lane's history, each event applied once.

:func:`nashzoo.make` builds this env wherever it serves the game
(:func:`~nashzoo.envs.registration.env_class`); ``GameEnv(game)`` stays the generic path
for any game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nashzoo.envs.aec import GameEnv, ObsDict
from nashzoo.errors import InvalidParameterError, ResetNeededError
from nashzoo.games.base import Game, State
from nashzoo.games.lane import Lane
from nashzoo.validation import check_seed

__all__ = ["CompiledEnv", "lane_for", "serves"]


def lane_for(game: Game) -> Lane | None:
    """The compiled lane that plays ``game`` (what it declares,
    :attr:`~nashzoo.games.base.Game.fast_paths`), or ``None``: today poker games of
    either engine whose hands are 5 to 7 cards of the 52-card deck (what the compiled
    hand ranking covers)."""
    if game.fast_paths.lane is None:
        return None
    lane: Lane = game.fast_paths.load("lane")(game)
    return lane


def serves(game: Game) -> bool:
    """Whether :class:`CompiledEnv` plays ``game`` (it declares a lane)."""
    return game.fast_paths.lane is not None


class CompiledEnv(GameEnv):
    """:class:`~nashzoo.envs.aec.GameEnv` stepped by compiled rules (see the module's
    docstring); arguments as ``GameEnv``.

    Raises:
        InvalidParameterError: a game without compiled rules (:func:`lane_for`; use
            ``GameEnv``), or a parameter ``GameEnv`` refuses.
    """

    def __init__(self, game: Game, **kwargs: Any) -> None:
        lane = lane_for(game)
        if lane is None:
            raise InvalidParameterError(
                "CompiledEnv plays poker games on the 52-card deck with hands of 5 to 7 "
                f"cards; received {game} (GameEnv plays every game)."
            )
        super().__init__(game, **kwargs)
        self._lane = lane
        self._seeded = False
        self._replayed: State | None = None
        self._replayed_events = 0

    # -- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode; ``seed`` re-seeds the dealing (as ``GameEnv.reset``: the
        same seed deals the same cards in both envs).

        Raises:
            InvalidParameterError: ``seed`` is not ``None`` or a non-negative integer.
        """
        seed = check_seed(seed)
        if seed is not None or not self._seeded:
            self._lane.seed(seed)
            self._seeded = True
        self._begin_episode()
        self._replayed = None
        self._after(self._lane.reset())

    def _play_action(self, action: int) -> bool:
        lane = self._lane
        if not lane.mask[action]:
            return False
        self._decisions += 1
        self._after(lane.step(action))
        return True

    def _after(self, player: int) -> None:
        """Infos, then the next agent or the end (the lane has moved to ``player``)."""
        lane = self._lane
        keys = None
        if self.info_strings:
            state = self._require_state()
            keys = [state.information_state_string_unchecked(i) for i in range(self._num_players)]
        self._publish(lane.history.copy(), lane.history_length, keys, self._mask_of)
        self._move_on(player, self._returns)

    def _returns(self) -> list[float]:
        return self._lane.returns.tolist()

    def _mask_of(self, player: int) -> np.ndarray:
        if player == self._lane.player:
            return self._lane.mask
        return np.zeros(self._num_actions, np.int8)

    # -- what reads the engine's state ----------------------------------------------------
    def _require_state(self) -> State:
        """The engine's state of the hand, replayed from the lane's history (kept while
        the hand does not move)."""
        if not self._started:
            raise ResetNeededError("Call reset() before using the environment.")
        history = self._lane.full_history()
        state = self._replayed
        if state is None or self._replayed_events > len(history):
            state, self._replayed_events = self.game.new_initial_state(), 0
        for event in history[self._replayed_events :]:
            state.apply_unchecked(event)
        self._replayed, self._replayed_events = state, len(history)
        return state

    def information_state_string(self, agent: str) -> str:
        """The perfect-recall information-state string of ``agent`` now."""
        i = self.agent_name_mapping[agent]
        return self._require_state().information_state_string_unchecked(i)

    def observe(self, agent: str) -> ObsDict:
        """Observation dict of ``agent`` (fresh arrays, safe to keep and to change)."""
        if not self._started:
            raise ResetNeededError("Call reset() before using the environment.")
        lane = self._lane
        i = self.agent_name_mapping[agent]
        if i == lane.player:
            return {"observation": lane.tensor.copy(), "action_mask": lane.mask.copy()}
        return {
            "observation": lane.tensor_of(i),
            "action_mask": np.zeros(self._num_actions, np.int8),
        }
