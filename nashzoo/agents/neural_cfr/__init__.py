"""Neural regret minimisation for games too big for tables: Deep CFR."""

from nashzoo.agents.neural_cfr.config import DeepCFRConfig
from nashzoo.agents.neural_cfr.deep_cfr import DeepCFR, DeepCFRAgent

__all__ = ["DeepCFR", "DeepCFRAgent", "DeepCFRConfig"]
