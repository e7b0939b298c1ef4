"""One seat of a nashzoo game as a single-agent Gymnasium env, the other seat played by
any :class:`~nashzoo.agents.Agent` (for stable-baselines3, sb3-contrib's MaskablePPO,
CleanRL-style scripts).

Observations are the seat's information-state tensor (a ``Box``); ``action_masks()``
returns the legal actions (sb3-contrib's convention) and ``info["action_mask"]`` carries
them too. The reward is the seat's return in chips, at the end of the game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from nashzoo.envs.observation import ObservationCache
from nashzoo.errors import AgentForfeitError, IllegalActionError, InvalidParameterError
from nashzoo.games import Game
from nashzoo.games.base import CHANCE, TERMINAL, check_action_value, sample_chance_outcome

__all__ = ["SingleAgentEnv", "GYMNASIUM_IDS"]

GYMNASIUM_IDS = {
    "nashzoo/KuhnPoker-v0": "nashzoo/kuhn_poker-v0",
    "nashzoo/LeducHoldem-v0": "nashzoo/leduc_holdem-v0",
    "nashzoo/RockPaperScissors-v0": "nashzoo/rps-v0",
    "nashzoo/WeightedRockPaperScissors-v0": "nashzoo/weighted_rps-v0",
    "nashzoo/MatchingPennies-v0": "nashzoo/matching_pennies-v0",
}
"""Gymnasium ids (registered at import) and the nashzoo games they play."""


class SingleAgentEnv(gymnasium.Env):
    """Play one seat against a fixed opponent.

    Args:
        game: a :class:`~nashzoo.games.Game` or a nashzoo env id.
        opponent: an Agent, an agent spec string (``"random"``, ``"cfr+:1000"``, a policy
            file...; see :mod:`nashzoo.agents.specs`), or ``None`` for a random agent.
        seat: ``0`` or ``1`` for a fixed seat, ``"alternate"`` to switch every episode.
        strict: raise :class:`~nashzoo.errors.IllegalActionError` on a masked-out action;
            by default the episode ends with ``illegal_reward`` (and
            ``info["illegal_action"] = True``), so that unmasked algorithms and
            ``check_env`` can run.
        illegal_reward: reward for an illegal action when not ``strict``.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        **game_params: parameters of the game when ``game`` is an id.

    Raises:
        InvalidParameterError: bad ``seat``, ``render_mode`` or game parameters.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, game: Game | str = "nashzoo/leduc_holdem-v0", opponent: Any = None, *,
                 seat: int | str = "alternate", strict: bool = False,
                 illegal_reward: float = -1.0, render_mode: str | None = None,
                 **game_params: Any) -> None:
        from nashzoo.agents.random_agent import RandomAgent
        from nashzoo.agents.specs import build_agent
        from nashzoo.envs.registration import make_game

        if isinstance(game, str):
            game = make_game(game, **game_params)
        elif game_params:
            raise InvalidParameterError(
                f"Game parameters {sorted(game_params)} only apply when `game` is an env id.")
        if not isinstance(game, Game):
            raise InvalidParameterError(f"`game` must be a Game or an env id, received {game!r}.")
        if game.num_players != 2:
            raise InvalidParameterError("SingleAgentEnv plays two-player games.")
        if seat not in (0, 1, "alternate"):
            raise InvalidParameterError(f"`seat` must be 0, 1 or 'alternate', received {seat!r}.")
        if render_mode not in (None, "ansi", "human"):
            raise InvalidParameterError(
                f"`render_mode` must be None, 'ansi' or 'human', received {render_mode!r}.")
        if opponent is None:
            opponent = RandomAgent()
        elif isinstance(opponent, str):
            opponent = build_agent(opponent, game)
        if not callable(getattr(opponent, "act", None)):
            raise InvalidParameterError(
                f"`opponent` must be an Agent (with act), received {type(opponent).__name__}.")
        self.game = game
        self.opponent = opponent
        self.seat_mode = seat
        self.strict = strict
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (game.information_state_tensor_size,),
                                            np.float32)
        self.action_space = spaces.Discrete(game.num_distinct_actions)
        self._observations = ObservationCache(game)
        self._episodes = 0
        self.seat = 0 if seat == "alternate" else int(seat)
        self._state = None
        self._done = False

    # -- helpers -------------------------------------------------------------------------
    def _advance(self) -> None:
        """Resolve chance and the opponent's moves until our turn or the end."""
        state = self._state
        while True:
            p = state.current_player()
            if p == TERMINAL or p == self.seat:
                return
            if p == CHANCE:
                state._apply(sample_chance_outcome(state.chance_outcomes(),
                                                   self.np_random.random()))
                continue
            key = state._information_state_string(p)
            tensor, mask = self._observations.get(state, p, key)
            action = self.opponent.act({"observation": tensor, "action_mask": mask},
                                       {"info_state": key})
            try:
                action = check_action_value(action, self.game.num_distinct_actions)
            except (TypeError, ValueError) as exc:
                raise AgentForfeitError(f"The opponent answered an invalid action: {exc}") from exc
            if not mask[action]:
                raise AgentForfeitError(
                    f"The opponent played illegal action {action} at {key!r}.")
            state._apply(action)

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        key = self._state._information_state_string(self.seat)
        tensor, mask = self._observations.get(self._state, self.seat, key)
        return tensor.copy(), {"info_state": key, "action_mask": mask.astype(bool),
                               "seat": self.seat}

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """New game; ``seed`` seeds chance and the opponent. Returns ``(obs, info)``."""
        super().reset(seed=seed)
        if seed is not None:
            self.opponent.reset(seed=int(self.np_random.integers(2**63 - 1)))
            self._episodes = 0
        else:
            self.opponent.reset()
        if self.seat_mode == "alternate":
            self.seat = self._episodes % 2
        self._episodes += 1
        self._state = self.game.new_initial_state()
        self._done = False
        self._advance()
        return self._observe()

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action mask for sb3-contrib's MaskablePPO."""
        if self._state is None:
            raise IllegalActionError("Call reset() before action_masks().")
        key = self._state._information_state_string(self.seat)
        return self._observations.get(self._state, self.seat, key)[1].astype(bool)

    def step(self, action: Any):
        """Play ``action``; the opponent answers. Returns Gymnasium's 5-tuple.

        Raises:
            ActionTypeError, InvalidActionError: wrong type or out of range.
            IllegalActionError: masked-out action with ``strict=True``.
            GameOverError: the episode is over (call reset).
        """
        from nashzoo.errors import GameOverError

        if self._state is None or self._done or self._state.is_terminal():
            raise GameOverError("The episode is over; call reset().")
        a = check_action_value(action, self.game.num_distinct_actions)
        if a not in self._state.legal_actions():
            if self.strict:
                raise IllegalActionError(
                    f"Action {a} is not legal here; legal actions are "
                    f"{list(self._state.legal_actions())}.")
            obs, info = self._observe()
            info["illegal_action"] = True
            self._done = True
            return obs, self.illegal_reward, True, False, info
        self._state._apply(a)
        self._advance()
        obs, info = self._observe()
        if self._state.is_terminal():
            return obs, float(self._state.returns()[self.seat]), True, False, info
        if self.render_mode == "human":
            print(self.render())
        return obs, 0.0, False, False, info

    def render(self) -> str | None:
        if self.render_mode is None or self._state is None:
            return None
        text = f"seat {self.seat} | {self._state}"
        if self.render_mode == "human":
            print(text)
            return None
        return text
