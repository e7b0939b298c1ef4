"""Agents: the :class:`Agent` protocol, the family registry, and one subpackage per
algorithm family (cfr/, nfsp/, nash_memory/, sb3/).

The whole contract an agent may implement, each a runtime-checkable protocol (test an
object with ``isinstance``): :class:`Agent` (``name``, ``act``, ``reset``; required),
:class:`PolicyAgent` (and :class:`StatesProbabilities`: ``action_probabilities``, for
exact exploitability, LBR and AIVAT), and the
optional batch forms :class:`ActsMany` (``act_many``), :class:`StatesMany`
(``probabilities_many``), :class:`StatesBatch` (``batch_probabilities``) and
:class:`ChecksGame` (``check_game``), :class:`HasPolicyModel` (``policy_model``,
the cheap model LBR keeps a search agent's range with), and :class:`MixedStrategy`
(``members`` and ``weights``: one member drawn per game, as Nash memory plays). They are defined in
:mod:`nashzoo.envs.protocol`, whose docstring says what an agent receives; import them
from here or ``nashzoo``.

The learners (what trains an agent) share the :class:`Learner` protocol of
:mod:`nashzoo.agents.learner`, and its registry names them for ``nashzoo train``.
"""

from nashzoo.agents.learner import (
    ConvergenceCurve,
    ConvergencePoint,
    Learner,
    LearnerEntry,
    get_learner,
    learners,
    register_learner,
)
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.registry import AgentFamily, families, get_family, register_family
from nashzoo.agents.specs import AgentSpec, build_agent
from nashzoo.envs.protocol import (
    ActsMany,
    Agent,
    AgentInfo,
    ChecksGame,
    HasPolicyModel,
    MixedStrategy,
    Observation,
    PolicyAgent,
    Request,
    StatesBatch,
    StatesMany,
    StatesProbabilities,
    action_mask_of,
)

__all__ = [
    "Agent",
    "AgentInfo",
    "PolicyAgent",
    "StatesProbabilities",
    "ActsMany",
    "StatesMany",
    "StatesBatch",
    "ChecksGame",
    "HasPolicyModel",
    "MixedStrategy",
    "Observation",
    "Request",
    "RandomAgent",
    "action_mask_of",
    "AgentFamily",
    "families",
    "get_family",
    "register_family",
    "AgentSpec",
    "build_agent",
    "Learner",
    "LearnerEntry",
    "learners",
    "get_learner",
    "register_learner",
    "ConvergenceCurve",
    "ConvergencePoint",
]
