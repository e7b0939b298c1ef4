"""Neural regret minimisation for games too big for tables: Deep CFR and ESCHER."""

from nashzoo.agents.neural_cfr.base import NeuralPolicyAgent, NeuralRegretLearner
from nashzoo.agents.neural_cfr.config import DeepCFRConfig, ESCHERConfig
from nashzoo.agents.neural_cfr.deep_cfr import DeepCFR
from nashzoo.agents.neural_cfr.escher import ESCHER

__all__ = [
    "DeepCFR",
    "DeepCFRConfig",
    "ESCHER",
    "ESCHERConfig",
    "NeuralPolicyAgent",
    "NeuralRegretLearner",
]
