"""Learned best response: a lower bound on the exploitability of *any* agent.

Timbers, Bard, Lanctot, Burch, Schmid et al., "Approximate exploitability: learning a
best response", IJCAI 2022. A reinforcement learner (sb3-contrib's MaskablePPO here)
trains against the frozen agent, in both seats; its duplicate-match payoff against the
agent is then measured with a confidence interval. The learner plays a legal strategy,
so its expected payoff is at most the best response's: a lower bound on exploitability
(up to sampling error), for search agents and code submissions as well as for policies.

The learner trains in the batched env (:class:`~nashzoo.wrappers.sb3_vec.SB3VecEnv`)
where the game has one and the agent states its action probabilities; otherwise in
:class:`~nashzoo.wrappers.SingleAgentEnv` copies (any agent that answers ``act``).
"""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any

from nashzoo.envs.protocol import StatesBatch, StatesProbabilities
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.matches import MatchResult, head_to_head
from nashzoo.extras import require
from nashzoo.games import Game
from nashzoo.validation import check_int, check_number, check_seed

__all__ = ["LearnedBRResult", "learned_best_response"]


@dataclass(frozen=True)
class LearnedBRResult:
    """What :func:`learned_best_response` measured.

    Attributes:
        value: the learner's mean payoff per game against the agent (both seats): a lower
            bound on the agent's exploitability, up to sampling error.
        ci95: its 95% interval.
        match: the full duplicate-match result.
        steps: the learner's training steps taken (see :func:`learned_best_response`).
        train_seconds: seconds of training.
        eval_seconds: seconds of the match.
        batched: whether the learner trained in the batched env.
        model: the trained stable-baselines3 model.
        method: ``"learned-br (maskable-ppo, N steps)"``.
    """

    value: float
    ci95: tuple[float, float]
    match: MatchResult
    steps: int
    train_seconds: float
    eval_seconds: float
    batched: bool
    model: Any
    method: str

    def __str__(self) -> str:
        lo, hi = self.ci95
        return f"{self.method}: {self.value:.4g} chips/game [{lo:.4g}, {hi:.4g}]"


def _train_env(game: Game, agent: Any, num_envs: int, seed: int | None) -> tuple[Any, bool]:
    from nashzoo.wrappers.sb3_vec import SB3VecEnv

    states_probs = isinstance(agent, (StatesBatch, StatesProbabilities))
    if states_probs:  # every game has a batched env (in Python where no numba one)
        return SB3VecEnv(game, num_envs, agent, seed=seed), True
    from stable_baselines3.common.vec_env import DummyVecEnv

    from nashzoo.wrappers import SingleAgentEnv

    def make(i: int) -> Any:
        def build() -> Any:
            env = SingleAgentEnv(game, agent, seat="alternate")
            env.reset(seed=None if seed is None else seed + i)
            return env

        return build

    return DummyVecEnv([make(i) for i in range(num_envs)]), False


def learned_best_response(
    game: Game,
    agent: Any,
    *,
    steps: int = 200_000,
    deals: int = 2000,
    num_envs: int = 16,
    seed: int | None = 0,
    n_steps: int = 128,
    progress: bool = False,
    seconds: float | None = None,
) -> LearnedBRResult:
    """Train MaskablePPO against ``agent`` for ``steps`` steps (or ``seconds``, whichever
    ends first), then play ``deals`` duplicate deals against it.

    Args:
        game: a two-player :class:`~nashzoo.games.Game`.
        agent: any Agent (frozen: it is not trained).
        steps: the learner's training steps (its decisions). The default's reach on Leduc
            (2026-12-05, seed 0, 2,000 deals): 2.22 [2.06, 2.38] of uniform play's exact
            2.374 (50,000 steps found 2.13), 0.287 [0.190, 0.384] of CFR+ 10's 0.610
            (100,000 found 0.073): a near-equilibrium policy needs far more.
        deals: deals of the duplicate match that measures it (each played twice).
        num_envs: games the learner plays at once.
        seed: seeds training and the match.
        n_steps: MaskablePPO's rollout length per env.
        progress: show SB3's progress bar (when ``rich`` is installed).
        seconds: a wall-clock budget for training (``None``: ``steps`` alone decides);
            training stops at the first step after it (the rollout under way is not
            learned from).

    The result's ``steps`` are the steps taken: at least ``steps`` without a time
    budget, since MaskablePPO learns from whole rollouts of ``num_envs * n_steps``.

    Raises:
        InvalidParameterError: not a two-player game, or bad numbers.
        MissingDependencyError: sb3-contrib is not installed.
    """
    if not isinstance(game, Game) or game.num_players != 2:
        raise InvalidParameterError(
            f"A learned best response needs a two-player Game, received {game}."
        )
    steps = check_int("steps", steps, 1)
    deals = check_int("deals", deals, 1)
    num_envs = check_int("num_envs", num_envs, 1)
    n_steps = check_int("n_steps", n_steps, 2)
    seed = check_seed(seed)
    if seconds is not None:
        seconds = check_number("seconds", seconds, low=0.0, low_inclusive=False)
    contrib = require("sb3_contrib", "sb3", "The learned best response")
    torch = require("torch", "sb3", "The learned best response")
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger

    from nashzoo.agents.sb3 import SB3Agent

    env, batched = _train_env(game, agent, num_envs, seed)
    start = time.perf_counter()
    with torch.random.fork_rng(devices=[]):
        model = contrib.MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=n_steps,
            batch_size=min(256, n_steps * num_envs),
            gamma=1.0,
            seed=seed,
            device="cpu",
            verbose=0,
        )
        # SB3's default logger makes an empty tempdir/SB3-<date> folder at every learn()
        # even with verbose=0 (stable_baselines3.common.logger.configure); this one writes
        # nowhere, so a call leaves nothing behind in the user's temporary folder
        model.set_logger(Logger(folder=None, output_formats=[]))
        # SB3's progress bar needs rich (not a dependency of the sb3 extra); like every
        # bar of ours it draws on a terminal only, never into a log (it has no off-TTY
        # mode), and tqdm's "rich is experimental" warning is not the user's concern
        bar = progress and importlib.util.find_spec("rich") is not None and sys.stdout.isatty()
        clock = None
        if seconds is not None:
            budget = start + seconds

            class Clock(BaseCallback):
                def _on_step(self) -> bool:  # False stops learn() after this step
                    return time.perf_counter() < budget

            clock = Clock()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "rich is experimental")
            model.learn(steps, progress_bar=bar, callback=clock)
    train_seconds = time.perf_counter() - start
    steps = int(model.num_timesteps)
    learner = SB3Agent(model, seed=seed, name="learned-br")
    start = time.perf_counter()
    match = head_to_head(game, learner, agent, deals=deals, seed=0 if seed is None else seed)
    return LearnedBRResult(
        value=match.mean,
        ci95=match.ci95,
        match=match,
        steps=steps,
        train_seconds=train_seconds,
        eval_seconds=time.perf_counter() - start,
        batched=batched,
        model=model,
        method=f"learned-br (maskable-ppo, {steps:,} steps)",
    )
