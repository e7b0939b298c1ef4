"""One seat of ``N`` batched games against a batched opponent, as a Gymnasium
:class:`~gymnasium.vector.VectorEnv` (and, through :class:`SB3VecEnv`, a
stable-baselines3 ``VecEnv``).

The games run in a batched env of :mod:`nashzoo.vector` (compiled trees: Kuhn, Leduc;
numba poker: Limit Hold'em). After every learner step the opponent answers in all the
games that wait on it at once: one call of its ``batch_probabilities(observation,
action_mask, player)`` (NFSP, SB3 models and the random agent have one), or, for any
other :class:`~nashzoo.agents.PolicyAgent`, its ``action_probabilities`` row by row. The
env samples the opponent's actions from those probabilities with its own seeded
generator, so one seed gives one run.

Autoreset is Gymnasium's ``SAME_STEP`` mode: the step that ends a game returns its reward
and ``terminated=True`` together with the first observation of the next game (the last
observation of a finished poker hand carries no decision). Deals that the opponent ends
before the learner's first decision (the small blind folding at once in Limit Hold'em)
are no episode: they are re-dealt and counted in ``skipped_deals``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from nashzoo.envs.protocol import StatesBatch, StatesProbabilities
from nashzoo.envs.sampling import batch_probabilities, sample_rows
from nashzoo.errors import GameOverError, InvalidParameterError, ResetNeededError
from nashzoo.games import Game
from nashzoo.validation import check_seed

__all__ = ["SeatVectorEnv"]


class SeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of one seat against an opponent that acts on batches.

    Args:
        game: a :class:`~nashzoo.games.Game` or a nashzoo env id with a batched env
            (``"nashzoo/leduc_holdem-v0"``, ``"nashzoo/limit_holdem-v0"``, ...).
        num_envs: games stepped at once.
        opponent: a PolicyAgent (or an object with ``batch_probabilities``), an agent
            spec string (``"random"``, ``"cfr+:1000"``, a policy file), or ``None`` for
            the random agent.
        seat: ``0`` or ``1``, or ``"alternate"``: game ``i`` starts in seat ``i % 2``
            and every game switches seat after each episode.
        seed: seeds the games (``seed + i`` for game ``i``) and the opponent's sampling;
            ``reset(seed=...)`` re-seeds.

    Observations are ``(num_envs, obs)`` information-state tensors of the learner's seat;
    infos hold ``action_mask`` ``(num_envs, actions)`` ``int8`` and ``seat`` ``(num_envs,)``
    on every step (numbers and arrays only). Rewards are chips, at the end of a game.

    Raises:
        InvalidParameterError: bad ``seat``, ``num_envs`` or opponent.

    Every game has a batched env (:func:`nashzoo.vector.vector_env`: numba where the game
    has one, else the rules stepped in Python), so every game works here.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    max_redeals: int = 1000
    """A game whose opponent ends this many deals in a row before the learner's first
    decision raises :class:`~nashzoo.errors.GameOverError` (the learner never acts)."""

    def __init__(
        self,
        game: Game | str,
        num_envs: int,
        opponent: Any = None,
        *,
        seat: int | str = "alternate",
        seed: int | None = None,
    ) -> None:
        from nashzoo.agents.random_agent import RandomAgent
        from nashzoo.agents.specs import build_agent
        from nashzoo.envs.registration import make_game
        from nashzoo.vector import vector_env

        if isinstance(game, str):
            game = make_game(game)
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"`game` must be a two-player Game or an env id, received {game}."
            )
        if seat not in (0, 1, "alternate") or isinstance(seat, bool):
            raise InvalidParameterError(f"`seat` must be 0, 1 or 'alternate', received {seat!r}.")
        if opponent is None:
            opponent = RandomAgent()
        elif isinstance(opponent, str):
            opponent = build_agent(opponent, game)
        if not isinstance(opponent, (StatesBatch, StatesProbabilities)):
            raise InvalidParameterError(
                "`opponent` must state its action probabilities (a PolicyAgent, or an object "
                f"with batch_probabilities), received {type(opponent).__name__}."
            )
        self.game = game
        self.opponent = opponent
        self.venv = vector_env(game, num_envs)
        self.num_envs = self.venv.num_envs
        self.seat_mode = seat
        size = game.information_state_tensor_size
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.single_action_space = spaces.Discrete(game.num_distinct_actions)
        self.observation_space = spaces.Box(0.0, 1.0, (self.num_envs, size), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, game.num_distinct_actions))
        self.skipped_deals = 0
        """Deals the opponent ended before the learner's first decision (re-dealt)."""
        self.seats = np.zeros(self.num_envs, np.int64)
        self._acted = np.zeros(self.num_envs, dtype=bool)
        self._skips = np.zeros(self.num_envs, np.int64)  # deals skipped in a row, per game
        self._rng = np.random.default_rng(check_seed(seed))
        self._batch: Any = None
        self._seed = seed

    # -- the opponent's moves ------------------------------------------------------------
    def _play_opponent(self, batch: Any, rewards: np.ndarray, ended: np.ndarray) -> Any:
        """Let the opponent move until every game waits on the learner.

        ``rewards``/``ended`` collect the learner's games that end meanwhile; deals that
        end before the learner acted are skipped (their seat switches as any other).
        """
        acted = self._acted  # whether the learner has acted in each game's current deal
        while True:
            waiting = batch.player != self.seats
            if not waiting.any():
                break
            idx = np.flatnonzero(waiting)
            probs = batch_probabilities(
                self.opponent, batch.observation[idx], batch.action_mask[idx], batch.player[idx]
            )
            actions = np.zeros(self.num_envs, np.int64)
            actions[idx] = sample_rows(np.cumsum(probs, axis=1), self._rng.random(len(idx)))
            batch = self.venv.step(actions, only=waiting)
            done = np.flatnonzero(batch.terminated)
            if done.size:
                credit = done[acted[done]]
                rewards[credit] += batch.rewards[credit, self.seats[credit]]
                ended[credit] = True
                skipped = done[~acted[done]]
                self.skipped_deals += int(skipped.size)
                self._skips[credit] = 0
                self._skips[skipped] += 1
                if self._skips.max() >= self.max_redeals:
                    raise GameOverError(
                        f"The opponent ended {int(self._skips.max())} deals in a row before the "
                        f"learner's first decision in game {int(self._skips.argmax())} (it folds "
                        "at once?); the learner never gets to act."
                    )
                acted[done] = False
                self._switch(done)
        return batch

    def _switch(self, games: np.ndarray) -> None:
        if self.seat_mode == "alternate":
            self.seats[games] = 1 - self.seats[games]

    def _output(self, batch: Any) -> tuple[np.ndarray, dict[str, Any]]:
        return batch.observation, {
            "action_mask": batch.action_mask.copy(),
            "seat": self.seats.copy(),
        }

    # -- gymnasium API -------------------------------------------------------------------
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game everywhere; ``seed`` seeds the games and the opponent's sampling.

        Returns ``(observations, infos)``.
        """
        if seed is None and self._batch is None:
            seed = self._seed
        if seed is not None:
            first = int(seed if isinstance(seed, (int, np.integer)) else seed[0])
            check_seed(first)
            self._rng = np.random.default_rng(first + 10**9)
        if self.seat_mode == "alternate":
            self.seats = np.arange(self.num_envs, dtype=np.int64) % 2
        else:
            self.seats = np.full(self.num_envs, int(self.seat_mode), np.int64)
        self._acted[:] = False
        self._skips[:] = 0
        reset = getattr(self.opponent, "reset", None)
        if callable(reset):
            reset(seed=None if seed is None else int(self._rng.integers(2**31)))
        batch = self.venv.reset(seed=seed)
        rewards = np.zeros(self.num_envs)
        batch = self._play_opponent(batch, rewards, np.zeros(self.num_envs, dtype=bool))
        self._batch = batch
        return self._output(batch)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, actions)`` ``int8`` legal-action masks (sb3-contrib reads any 0/1
        array; Gymnasium's ``sample(mask=...)`` needs ``int8``)."""
        if self._batch is None:
            raise ResetNeededError("Call reset() before action_masks().")
        return self._batch.action_mask.copy()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every game; the opponent answers.

        Returns ``(observations, rewards, terminations, truncations, infos)``.

        Raises:
            ResetNeededError: before :meth:`reset`.
            InvalidActionError, ActionTypeError, IllegalActionError: as the batched env's
                ``step`` (no game is changed).
        """
        if self._batch is None:
            raise ResetNeededError("Call reset() before step().")
        batch = self.venv.step(actions)
        rewards = np.zeros(self.num_envs)
        ended = batch.terminated.copy()
        done = np.flatnonzero(ended)
        rewards[done] = batch.rewards[done, self.seats[done]]
        self._acted[:] = True
        self._acted[done] = False
        self._skips[:] = 0
        self._switch(done)
        batch = self._play_opponent(batch, rewards, ended)
        self._batch = batch
        obs, infos = self._output(batch)
        return obs, rewards, ended, np.zeros(self.num_envs, dtype=bool), infos
