"""The one generic PettingZoo AEC adapter over any :mod:`nashzoo.games` game.

Every registered env is a :class:`GameEnv` around a game's rules (for the Hold'em games its
subclass :class:`~nashzoo.envs.compiled.CompiledEnv`, stepped by the rules in numba),
wrapped by :class:`OrderEnforcingWrapper`. Per-game reference pages (spaces, observation index
tables, action tables, rewards, version history) live in the per-game env modules.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper as _PZOrderEnforcingWrapper

from nashzoo.errors import (
    GameOverError,
    IllegalActionError,
    InvalidParameterError,
    ResetNeededError,
)
from nashzoo.games.base import CHANCE, Game, State, check_action_value
from nashzoo.games.observation import ObservationCache, env_info
from nashzoo.validation import check_bool, check_int, check_number, check_seed

__all__ = ["GameEnv", "OrderEnforcingWrapper", "IllegalActionWarning", "state_text"]

logger = logging.getLogger(__name__)

ObsDict = dict[str, np.ndarray]


class IllegalActionWarning(UserWarning):
    """Warned when a masked-out action ends an episode (non-strict envs)."""


def state_text(state: State, to_act: str | None = None) -> str:
    """One line describing ``state`` for ``render()`` (the env's and the wrappers')."""
    text = str(state)
    if state.is_terminal():
        return text + f" | returns: {state.returns()}"
    if to_act is not None:
        text += f" | to act: {to_act}"
    return text


class GameEnv(AECEnv):
    """PettingZoo AEC environment over a :class:`~nashzoo.games.base.Game`.

    Agents are ``"player_0" .. "player_{n-1}"``. Chance nodes are resolved inside the env
    with a ``np.random.Generator`` seeded by ``reset(seed=...)``.

    Observations are dicts ``{"observation": float32 information-state tensor,
    "action_mask": int8 mask}`` (fresh arrays, safe to keep); the mask is all zeros for
    an agent that is not to move. Rewards are the game's returns (chips for poker),
    given once at the end.

    Infos hold numbers and arrays only, with the same keys on every step (TorchRL and
    other libraries turn them into tensors): ``"player"`` (the agent's seat),
    ``"public_history"`` (``int64`` array of length ``game.max_history_length``, -1 for
    events the agent could not see and after the end of the history),
    ``"history_length"`` and ``"illegal_action"``. The perfect-recall
    information-state string is :meth:`information_state_string`; ``info_strings=True``
    also puts it in ``infos[agent]["info_state"]``. ``info_masks=True`` also puts each
    agent's ``int8`` action mask in ``infos[agent]["action_mask"]`` (zeros when it is not
    to move), for libraries that read masks from infos (AgileRL, Shimmy's convention); it
    is off by default because TorchRL's ``PettingZooWrapper`` fails on a mask in both the
    observation and the info (torchrl 0.x ``_update_action_mask`` deletes only the first).

    The episode follows PettingZoo's dead-agent convention: when the game ends, every
    agent is terminated, ``agent_selection`` moves to the first done agent, and each done
    agent steps ``None`` to leave; stepping after every agent has left warns (as
    PettingZoo's order enforcement does) and changes nothing.

    Args:
        game: the rules.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns a string) or ``"human"``
            (``render()`` prints it).
        strict: if True an illegal (masked-out) action raises
            :class:`~nashzoo.errors.IllegalActionError`; if False (PettingZoo's convention)
            it ends the episode, the offender receives ``illegal_reward``, every other
            agent 0, and an :class:`IllegalActionWarning` is issued.
        illegal_reward: reward of an agent whose illegal action ended the episode.
        max_cycles: truncate the episode after this many cycles (a cycle is one decision
            per agent), as PettingZoo's own families do; ``None`` (default): play every
            game to its end (every nashzoo game is finite).
        info_strings: also put the information-state string in ``infos[agent]["info_state"]``.
        info_masks: also put each agent's action mask in ``infos[agent]["action_mask"]``.
        name: the env's name in ``metadata`` (e.g. ``"kuhn_poker_v0"``).

    Raises:
        InvalidParameterError: a parameter of the wrong type or out of range.
    """

    observation_cache_size: int = 200_000
    """Most observations kept, keyed by information-state string (they are copied out)."""

    uncached_above: int = 5_000_000
    """Games with more histories than this (Limit Hold'em) build every observation fresh:
    their information states rarely repeat, and a cache would only cost memory."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "nashzoo_game_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: Game,
        *,
        render_mode: str | None = None,
        strict: bool = False,
        illegal_reward: float = -1.0,
        max_cycles: int | None = None,
        info_strings: bool = False,
        info_masks: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(game, Game):
            raise InvalidParameterError(
                f"GameEnv expects a nashzoo Game, received {type(game).__name__}."
            )
        game.info  # noqa: B018  (checks the game's declarations: a clear error, not a crash)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidParameterError(
                f"Parameter `render_mode` must be one of {self.metadata['render_modes']} "
                f"or None, received {render_mode!r}."
            )
        self.game = game
        self.render_mode = render_mode
        self.strict = check_bool("strict", strict)
        self.illegal_reward = check_number("illegal_reward", illegal_reward)
        self.max_cycles = None if max_cycles is None else check_int("max_cycles", max_cycles, 1)
        self.info_strings = check_bool("info_strings", info_strings)
        self.info_masks = check_bool("info_masks", info_masks)
        self.metadata = {
            **GameEnv.metadata,
            "name": name or f"{game.short_name}_v0",
            "is_parallelizable": game.simultaneous,
        }
        n = game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        num_actions = game.num_distinct_actions
        self._num_actions = num_actions
        self._num_players = n
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, 1.0, (game.information_state_tensor_size,), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._state: State | None = None
        histories = game.histories_lower_bound()
        self._cached = histories is None or histories <= self.uncached_above
        self._observations = ObservationCache(
            game, self.observation_cache_size if self._cached else 0
        )
        self._keys: list[str] | None = []  # None: not built (huge games, see _advance)
        self._decisions = 0
        self._started = False  # reset() was called

    # -- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode; ``seed`` re-seeds the chance generator.

        Without a seed, the generator continues its stream (a fresh env starts from OS
        entropy), as in Gymnasium.

        Raises:
            InvalidParameterError: ``seed`` is not ``None`` or a non-negative integer.
        """
        seed = check_seed(seed)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self._state = self.game.new_initial_state()
        self._begin_episode()
        self._advance()

    def _begin_episode(self) -> None:
        """Every agent in, no rewards, nothing done."""
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._skip_agent_selection = None
        self._decisions = 0
        self.agent_selection = self.agents[0]

    def state_of_game(self) -> State:
        """The underlying :class:`~nashzoo.games.base.State` (a clone, safe to mutate)."""
        return self._require_state().clone()

    def information_state_string(self, agent: str) -> str:
        """The perfect-recall information-state string of ``agent`` now, e.g.
        ``"player=1 card=Kh public=Qs bets=rc/cc"``."""
        state = self._require_state()
        i = self.agent_name_mapping[agent]
        if self._keys is None:
            return state.information_state_string_unchecked(i)
        return self._keys[i]

    def _require_state(self) -> State:
        if self._state is None:
            raise ResetNeededError("Call reset() before using the environment.")
        return self._state

    def _advance(self) -> None:
        """Resolve chance nodes, then set the next agent, infos and final rewards."""
        state = self._state
        assert state is not None
        if state.current_player() == CHANCE:
            assert self._rng is not None
            state.advance_chance(self._rng.random)
        agents = self.possible_agents
        key_of = state.information_state_string_unchecked
        keys: list[str] | None = None  # huge games: the strings are built when asked for
        view = None
        if self._cached or self.info_strings:
            keys = [key_of(i) for i in range(len(agents))]
        if self._cached:
            # The public history is the same for every agent: one fresh array per step.
            assert keys is not None
            view = self._observations.cached(keys[0]) or self._observations.get(state, 0, keys[0])
        if view is not None:
            public = view.public_history.copy()
            length = view.history_length
        else:
            public, length = self._observations.public_history(state)
        self._keys = keys
        self._publish(public, length, keys, lambda i: self._observations.mask_of(state, i))
        self._move_on(state.current_player(), state.returns)

    def _publish(
        self,
        public: np.ndarray,
        length: int,
        keys: list[str] | None,
        mask_of: Callable[[int], np.ndarray],
    ) -> None:
        """Set every agent's info: the public history (one array, shared), and the
        information-state strings and masks when asked for."""
        agents = self.possible_agents
        template = env_info(0, public, length)
        infos = {}
        for i, agent in enumerate(agents):  # copying a template beats building each dict
            infos[agent] = info = template.copy()
            info["player"] = i
        if self.info_strings:
            assert keys is not None
            for agent, key in zip(agents, keys):
                infos[agent]["info_state"] = key
        if self.info_masks:  # the masks where AgileRL and Shimmy read them
            for i, agent in enumerate(agents):
                infos[agent]["action_mask"] = mask_of(i).copy()
        self.infos = infos

    def _move_on(self, player: int, returns: Callable[[], list[float]]) -> None:
        """Hand the move to ``player``, or end the episode (``returns()`` at the end; a
        truncation after ``max_cycles``)."""
        if player >= 0:
            if self.max_cycles is None or self._decisions < self.max_cycles * self._num_players:
                self.agent_selection = self.possible_agents[player]
                return
            for agent in self.agents:
                self.rewards[agent] = 0.0
                self.truncations[agent] = True
        else:
            final = returns()
            for i, agent in enumerate(self.possible_agents):
                self.rewards[agent] = final[i]
                self.terminations[agent] = True
            self._accumulate_rewards()
        self._deads_step_first()

    def observe(self, agent: str) -> ObsDict:
        """Observation dict of ``agent`` (fresh arrays, safe to keep and to change)."""
        state = self._state
        if state is None:
            raise ResetNeededError("Call reset() before using the environment.")
        i = self.agent_name_mapping[agent]
        if not self._cached:
            tensor, mask = self._observations.fresh(state, i)
            return {"observation": tensor, "action_mask": mask}
        assert self._keys is not None
        key = self._keys[i]
        view = self._observations.cached(key)
        if view is None:
            view = self._observations.get(state, i, key)
        return {"observation": view.tensor.copy(), "action_mask": view.mask.copy()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, accumulated reward, terminated, truncated, info of the agent to act.

        Raises:
            GameOverError: every agent has left the episode (call ``reset()``).
        """
        if not self.agents:
            raise GameOverError(
                "The episode is over and every agent has left; call reset() to play again."
            )
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        """Apply ``action`` for ``agent_selection``.

        Raises:
            ActionTypeError: the action is not an integer (``None`` for a live agent).
            InvalidActionError: the action is outside ``[0, num_actions)``.
            IllegalActionError: the action is masked out and ``strict=True``.
            GameOverError: a done agent got an action other than ``None``.
        """
        if not self._started:
            raise ResetNeededError("Call reset() before using the environment.")
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(
                    f"{agent} is done (its episode ended); the only valid action is None, "
                    f"received {action!r}."
                )
            self._was_dead_step(None)
            return
        a = check_action_value(action, self._num_actions)
        self._cumulative_rewards[agent] = 0.0
        if not self._play_action(a):
            self._illegal(agent, a)
            return
        if self.render_mode == "human":
            self.render()

    def _play_action(self, action: int) -> bool:
        """Play ``action`` for the agent to move and move on; False (and nothing done)
        if it is not legal."""
        state = self._state
        assert state is not None
        if action not in state.legal_actions():
            return False
        state.apply_unchecked(action)
        self._decisions += 1
        self._advance()
        return True

    def _illegal(self, agent: str, action: int) -> None:
        state = self._require_state()
        legal = list(state.legal_actions())
        msg = (
            f"{agent} played illegal action {action} "
            f"({state.action_to_string(action)}); legal actions are {legal}."
        )
        if self.strict:
            raise IllegalActionError(msg)
        warnings.warn(
            msg + f" The episode ends with reward {self.illegal_reward} for {agent} "
            "(pass strict=True to raise instead).",
            IllegalActionWarning,
            stacklevel=3,
        )
        for other in self.agents:
            self.rewards[other] = 0.0
            self.terminations[other] = True
        self.infos[agent]["illegal_action"] = True
        self.rewards[agent] = self.illegal_reward
        self._accumulate_rewards()
        self._deads_step_first()

    # -- rendering ------------------------------------------------------------------------
    def render(self) -> str | None:
        """Text of the current state; printed in ``"human"`` mode, returned in ``"ansi"``."""
        if self.render_mode is None:
            warnings.warn(
                "render() was called without a render_mode; pass render_mode='ansi' or "
                "'human' when making the env.",
                stacklevel=2,
            )
            return None
        text = state_text(self._require_state(), self.agent_selection if self.agents else None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (text rendering only)."""


def _guarded(name: str) -> property:
    def get(self: OrderEnforcingWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (after reset).")


class OrderEnforcingWrapper(_PZOrderEnforcingWrapper):
    """PettingZoo's order enforcement, with two changes.

    Use before ``reset()`` raises :class:`~nashzoo.errors.ResetNeededError` (still an
    ``AssertionError``, as PettingZoo's), naming the method; and the attributes read in
    every step (``agents``, ``agent_selection``, ``rewards``, ...) are properties rather
    than ``__getattr__`` look-ups, which made the wrapper cost more than the game itself.
    A step after every agent has left warns, as PettingZoo's does.
    """

    agents = _guarded("agents")
    agent_selection = _guarded("agent_selection")
    rewards = _guarded("rewards")
    terminations = _guarded("terminations")
    truncations = _guarded("truncations")
    infos = _guarded("infos")
    num_agents = _guarded("num_agents")

    def _check_reset(self, what: str) -> None:
        if not self._has_reset:
            raise ResetNeededError(f"Call reset() before {what}.")

    def observe(self, agent: str) -> Any:
        self._check_reset("observe()")
        return self.env.observe(agent)

    def render(self) -> Any:
        self._check_reset("render()")
        return self.env.render()

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        self._check_reset("agent_iter()")
        return super().agent_iter(max_iter)

    def step(self, action: Any) -> None:
        self._check_reset("step()")
        self._has_updated = True
        self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._check_reset("last()")
        return self.env.last(observe)
