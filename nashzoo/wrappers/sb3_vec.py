"""A :class:`~nashzoo.wrappers.vector_seat.SeatVectorEnv` as a stable-baselines3
``VecEnv``: PPO, A2C, DQN and sb3-contrib's MaskablePPO train on ``N`` batched games
with no subprocesses (the games step in numba)::

    from sb3_contrib import MaskablePPO
    from nashzoo.wrappers.sb3_vec import SB3VecEnv

    venv = SB3VecEnv("nashzoo/limit_holdem-v0", 64, opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, seed=0).learn(20_000)

``env_method("action_masks")`` gives MaskablePPO the legal actions. Infos carry ``seat``
and, where a game ended, SB3's ``terminal_observation`` (zeros: a finished poker hand
has no decision left) with ``TimeLimit.truncated = False``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from nashzoo.errors import InvalidParameterError
from nashzoo.wrappers.vector_seat import SeatVectorEnv

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """stable-baselines3's ``VecEnv`` over :class:`SeatVectorEnv`.

    Args:
        game: a Game or env id with a batched env, or a ready :class:`SeatVectorEnv`
            (then leave the other arguments out).
        num_envs, opponent, seat, seed: as :class:`SeatVectorEnv`.
    """

    def __init__(
        self,
        game: Any,
        num_envs: int | None = None,
        opponent: Any = None,
        *,
        seat: int | str = "alternate",
        seed: int | None = None,
    ) -> None:
        if isinstance(game, SeatVectorEnv):
            env = game
        else:
            if num_envs is None:
                raise InvalidParameterError("SB3VecEnv needs num_envs with a game or env id.")
            env = SeatVectorEnv(game, num_envs, opponent, seat=seat, seed=seed)
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._pending_actions: np.ndarray | None = None
        self._zeros = np.zeros(env.single_observation_space.shape or (), np.float32)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._pending_actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._pending_actions is None:
            raise InvalidParameterError("step_wait() without step_async().")
        obs, rewards, terminated, _, infos = self.env.step(self._pending_actions)
        self._pending_actions = None
        seats = infos["seat"]
        out: list[dict[str, Any]] = [{"seat": int(s)} for s in seats]
        for i in np.flatnonzero(terminated).tolist():
            out[i]["terminal_observation"] = self._zeros
            out[i]["TimeLimit.truncated"] = False
        return obs, rewards.astype(np.float32), terminated, out

    def action_masks(self) -> np.ndarray:
        """``(num_envs, actions)`` ``int8`` legal-action masks."""
        return self.env.action_masks()

    def close(self) -> None:
        return None

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """Only ``"action_masks"`` (what MaskablePPO calls): one mask per game."""
        if method_name != "action_masks":
            raise InvalidParameterError(
                f"SB3VecEnv.env_method supports 'action_masks', received {method_name!r}."
            )
        masks = self.env.action_masks()
        return [masks[i] for i in self._indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``"render_mode"`` (``None``) or an attribute of the batched env, per game."""
        value = None if attr_name == "render_mode" else getattr(self.env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise InvalidParameterError("SB3VecEnv has no per-game attributes to set.")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
