"""One seat of a nashzoo game as a single-agent Gymnasium env, the other seat played by
any :class:`~nashzoo.agents.Agent` (for stable-baselines3, sb3-contrib's MaskablePPO,
CleanRL-style scripts).

Observations are the seat's information-state tensor (a ``Box``); ``action_masks()``
returns the legal actions (sb3-contrib's convention). Infos hold numbers and arrays only,
with the same keys on every step: ``action_mask`` (``int8``, as every mask nashzoo hands out:
what Gymnasium's ``action_space.sample(mask=...)`` takes), ``seat``, ``illegal_action``,
``public_history`` and ``history_length`` (as in the AEC env); the information-state
string is :meth:`SingleAgentEnv.information_state_string`. The reward is the seat's
return in chips, at the end of the game.

Seats rotate by default (``seat="alternate"``): the learner plays seat 0 in the first
episode after a reset, seat 1 in the next, and so on, so it learns both roles of an
asymmetric game; ``info["seat"]`` says which seat it holds in the current episode (read
it: the observation tensor encodes the seat too, but a script that logs per-seat returns
needs the number). ``seat=0`` or ``1`` fixes it; ``"random"`` draws it per episode from
the env's seeded generator. Gymnasium ids: ``nashzoo/KuhnPoker-v0``,
``nashzoo/LeducHoldem-v0``, ``nashzoo/LimitHoldem-v0``, ``nashzoo/NoLimitHoldem-v0``, the
matrix games and the fighting card presets (``nashzoo/FightingCards-v0``, ``...Small-v0``,
``...Tiny-v0``), registered when nashzoo is imported: ``gymnasium.make(
"nashzoo:nashzoo/LeducHoldem-v0", opponent="random")`` imports it (the module prefix), or
``import nashzoo`` then ``gymnasium.register_envs(nashzoo)``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from nashzoo.envs.aec import state_text
from nashzoo.envs.protocol import Agent
from nashzoo.errors import (
    AgentForfeitError,
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    ResetNeededError,
)
from nashzoo.eval.guard import DirectCalls, Forfeit
from nashzoo.games import Game
from nashzoo.games.base import TERMINAL, State, check_action_value
from nashzoo.games.observation import ObservationCache, PlayerView
from nashzoo.validation import check_bool, check_number, check_seed

__all__ = ["SingleAgentEnv", "GYMNASIUM_IDS"]

GYMNASIUM_IDS = {
    "nashzoo/KuhnPoker-v0": "nashzoo/kuhn_poker-v0",
    "nashzoo/LeducHoldem-v0": "nashzoo/leduc_holdem-v0",
    "nashzoo/LimitHoldem-v0": "nashzoo/limit_holdem-v0",
    "nashzoo/NoLimitHoldem-v0": "nashzoo/no_limit_holdem-v0",
    "nashzoo/LiarsDice-v0": "nashzoo/liars_dice-v0",
    "nashzoo/Goofspiel-v0": "nashzoo/goofspiel-v0",
    "nashzoo/RockPaperScissors-v0": "nashzoo/rps-v0",
    "nashzoo/WeightedRockPaperScissors-v0": "nashzoo/weighted_rps-v0",
    "nashzoo/MatchingPennies-v0": "nashzoo/matching_pennies-v0",
    "nashzoo/FightingCards-v0": "nashzoo/fighting_cards-v0",
    "nashzoo/FightingCardsSmall-v0": "nashzoo/fighting_cards_small-v0",
    "nashzoo/FightingCardsTiny-v0": "nashzoo/fighting_cards_tiny-v0",
}
"""Gymnasium ids (registered at import) and the nashzoo games they play."""

_SEATS = (0, 1, "alternate", "random")


class SingleAgentEnv(gymnasium.Env):
    """Play one seat against a fixed opponent.

    Args:
        game: a :class:`~nashzoo.games.Game` or a nashzoo env id.
        opponent: an Agent, an agent spec string (``"random"``, ``"cfr+:1000"``, a policy
            file...; see :mod:`nashzoo.agents.specs`), or ``None`` for a random agent.
        seat: ``0`` or ``1`` for a fixed seat; ``"alternate"`` switches seat at every
            ``reset()``, and ``reset(seed=s)`` puts the alternation at seat ``s % 2`` (so
            seeds 0, 1, 2, ... alternate and the same seed replays the same episode);
            ``"random"`` draws the seat from the env's seeded generator. The seat is in
            ``info["seat"]``.
        strict: raise :class:`~nashzoo.errors.IllegalActionError` on a masked-out action;
            by default the episode ends with ``illegal_reward`` (and
            ``info["illegal_action"] = True``), so that unmasked algorithms and
            ``check_env`` can run.
        illegal_reward: reward for an illegal action when not ``strict``.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        **game_params: parameters of the game when ``game`` is an id.

    Raises:
        InvalidParameterError: bad ``seat``, ``strict``, ``illegal_reward``,
            ``render_mode``, opponent or game parameters.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    max_redeals: int = 1000
    """reset() gives up after this many deals in a row that end before the learner acts."""

    def __init__(
        self,
        game: Game | str = "nashzoo/leduc_holdem-v0",
        opponent: Any = None,
        *,
        seat: int | str = "alternate",
        strict: bool = False,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **game_params: Any,
    ) -> None:
        from nashzoo.agents.random_agent import RandomAgent
        from nashzoo.agents.specs import build_agent
        from nashzoo.envs.registration import make_game

        if isinstance(game, str):
            game = make_game(game, **game_params)
        elif game_params:
            raise InvalidParameterError(
                f"Game parameters {sorted(game_params)} only apply when `game` is an env id."
            )
        if not isinstance(game, Game):
            raise InvalidParameterError(f"`game` must be a Game or an env id, received {game}.")
        if game.num_players != 2:
            raise InvalidParameterError("SingleAgentEnv plays two-player games.")
        fixed = isinstance(seat, (int, np.integer)) and not isinstance(seat, bool)
        if not ((fixed and seat in (0, 1)) or (isinstance(seat, str) and seat in _SEATS)):
            raise InvalidParameterError(
                f"`seat` must be 0, 1, 'alternate' or 'random', received {seat!r}."
            )
        if render_mode not in (None, "ansi", "human"):
            raise InvalidParameterError(
                f"`render_mode` must be None, 'ansi' or 'human', received {render_mode!r}."
            )
        if opponent is None:
            opponent = RandomAgent()
        elif isinstance(opponent, str):
            opponent = build_agent(opponent, game)
        if not callable(getattr(opponent, "act", None)) or not callable(
            getattr(opponent, "reset", None)
        ):
            raise InvalidParameterError(
                f"`opponent` must be an Agent (with act and reset), received "
                f"{type(opponent).__name__}."
            )
        self.game = game
        self.opponent: Agent = opponent
        self.seat_mode = seat
        self.strict = check_bool("strict", strict)
        self.illegal_reward = check_number("illegal_reward", illegal_reward)
        self.render_mode = render_mode
        self.observation_space = spaces.Box(
            0.0, 1.0, (game.information_state_tensor_size,), np.float32
        )
        self.action_space = spaces.Discrete(game.num_distinct_actions)
        self._observations = ObservationCache(game)
        self._episodes = 0
        self.skipped_deals = 0
        """Deals the opponent ended before the learner's first decision (re-dealt)."""
        self.seat = 0 if seat in ("alternate", "random") else int(seat)
        self._state: State | None = None
        self._done = True
        self._calls = DirectCalls()

    # -- helpers -------------------------------------------------------------------------
    def _require_state(self) -> State:
        if self._state is None:
            raise ResetNeededError("Call reset() before using the environment.")
        return self._state

    def _advance(self) -> None:
        """Resolve chance and the opponent's moves until our turn or the end.

        Raises:
            AgentForfeitError: the opponent raised, or answered an invalid or illegal
                action (the episode is over).
        """
        state = self._require_state()
        uniform = self.np_random.random
        other = 1 - self.seat
        while True:
            state.advance_chance(uniform)
            p = state.current_player()
            if p == TERMINAL or p == self.seat:
                return
            key = state.information_state_string_unchecked(p)
            view = self._observations.get(state, p, key)
            try:
                action = self._calls.call(
                    0,
                    self.opponent.act,
                    {"observation": view.tensor, "action_mask": view.mask},
                    view.info(p, key),
                )
            except Forfeit as exc:
                self._done = True
                raise AgentForfeitError(
                    f"The opponent (seat {other}) forfeited at {key!r}: {exc}"
                ) from None
            try:
                action = check_action_value(action, self.game.num_distinct_actions)
            except (TypeError, ValueError) as exc:
                self._done = True
                raise AgentForfeitError(
                    f"The opponent (seat {other}) answered an invalid action at {key!r}: {exc}"
                ) from None
            if action not in state.legal_actions():
                self._done = True
                raise AgentForfeitError(
                    f"The opponent (seat {other}) played illegal action {action} at {key!r} "
                    f"(legal: {list(state.legal_actions())})."
                )
            state.apply_unchecked(action)

    def _view(self) -> PlayerView:
        state = self._require_state()
        key = state.information_state_string_unchecked(self.seat)
        return self._observations.get(state, self.seat, key)

    def _observe(self, illegal: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
        view = self._view()
        return view.tensor.copy(), {
            "action_mask": view.mask.copy(),
            "seat": self.seat,
            "illegal_action": illegal,
            "public_history": view.public_history.copy(),
            "history_length": view.history_length,
        }

    def information_state_string(self) -> str:
        """The learner's perfect-recall information-state string now."""
        return self._require_state().information_state_string_unchecked(self.seat)

    # -- gymnasium API -------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New game; ``seed`` seeds chance and the opponent. Returns ``(obs, info)``.

        Raises:
            InvalidParameterError: ``seed`` is not ``None`` or a non-negative integer.
            AgentForfeitError: the opponent failed in ``reset()`` or on its first move.
        """
        super().reset(seed=check_seed(seed))
        opponent_seed = int(self.np_random.integers(2**63 - 1)) if seed is not None else None
        if seed is not None:
            self._episodes = seed
        if self.seat_mode == "alternate":
            self.seat = self._episodes % 2
        elif self.seat_mode == "random":
            self.seat = int(self.np_random.integers(2))
        self._episodes += 1
        self._state = self.game.new_initial_state()
        self._done = True
        try:
            self._calls.call(0, self.opponent.reset, seed=opponent_seed)
        except Forfeit as exc:
            raise AgentForfeitError(f"The opponent forfeited in reset(): {exc}") from None
        self._advance()
        redeals = 0
        while self._state.is_terminal():
            # the opponent ended the deal before the learner's first decision (in Limit
            # Hold'em the small blind may fold at once): a deal without a decision is no
            # episode, so deal again (counted in skipped_deals)
            self.skipped_deals += 1
            redeals += 1
            if redeals >= self.max_redeals:
                raise GameOverError(
                    f"The opponent ended {redeals} deals in a row before the learner's first "
                    "decision (it folds at once?); the learner never gets to act."
                )
            self._state = self.game.new_initial_state()
            self._advance()
        self._done = False
        return self._observe()

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action mask for sb3-contrib's MaskablePPO."""
        return self._view().mask.copy()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play ``action``; the opponent answers. Returns Gymnasium's 5-tuple.

        Raises:
            ActionTypeError, InvalidActionError: wrong type or out of range.
            IllegalActionError: masked-out action with ``strict=True``.
            GameOverError: the episode is over (call reset).
            AgentForfeitError: the opponent forfeited (the episode is over).
        """
        state = self._require_state()
        if self._done or state.is_terminal() or state.current_player() != self.seat:
            raise GameOverError("The episode is over; call reset().")
        a = check_action_value(action, self.game.num_distinct_actions)
        if a not in state.legal_actions():
            if self.strict:
                raise IllegalActionError(
                    f"Action {a} is not legal here; legal actions are "
                    f"{list(state.legal_actions())}."
                )
            self._done = True
            obs, info = self._observe(illegal=True)
            return obs, self.illegal_reward, True, False, info
        state.apply_unchecked(a)
        self._advance()
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        if state.is_terminal():
            self._done = True
            return obs, float(state.returns()[self.seat]), True, False, info
        return obs, 0.0, False, False, info

    def render(self) -> str | None:
        """Text of the current state: printed in ``"human"`` mode (returns ``None``),
        returned in ``"ansi"`` mode."""
        if self.render_mode is None or self._state is None:
            return None
        text = f"seat {self.seat} | " + state_text(self._state)
        if self.render_mode == "human":
            print(text)
            return None
        return text
