"""Exploitability bounds that need training: the learned best response, and the learned
oracle and measured meta-game that Nash memory
(:class:`~nashzoo.agents.nash_memory.NashMemoryLearner`) uses by default on games too big
to compile.

:mod:`nashzoo.eval` measures without learning (exact best response, local best response,
matches). A learned best response trains a stable-baselines3 model in the single-agent
or batched Gymnasium envs of :mod:`nashzoo.wrappers` and measures it with
:mod:`nashzoo.eval`'s duplicate matches, so it sits above both in the layers.
"""

from nashzoo.bounds.learned_br import LearnedBRResult, learned_best_response
from nashzoo.bounds.oracles import duplicate_measure, learned_oracle

__all__ = ["LearnedBRResult", "learned_best_response", "learned_oracle", "duplicate_measure"]
