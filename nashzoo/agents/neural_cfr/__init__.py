"""Neural regret minimisation for games too big for tables: Deep CFR."""

from nashzoo.agents.neural_cfr.base import NeuralPolicyAgent, NeuralRegretLearner
from nashzoo.agents.neural_cfr.config import DeepCFRConfig
from nashzoo.agents.neural_cfr.deep_cfr import DeepCFR

__all__ = ["DeepCFR", "DeepCFRConfig", "NeuralPolicyAgent", "NeuralRegretLearner"]
