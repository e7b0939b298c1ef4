"""Simplex-gradient learning on the probability simplex (torch extra).

* :class:`SimplexGradient` — self-play with a value model f and a policy model g trained
  on the projected loss ``-(Pi f)^T g`` over counterfactual successors; its last and
  average policies as PolicyAgents (:mod:`.selfplay`).
* :mod:`.losses` — the projection, the simplex projection and the losses.
* :class:`SimplexGradientConfig` — its settings (:mod:`.config`).
"""

from nashzoo.agents.simplex_gradient.config import SimplexGradientConfig
from nashzoo.agents.simplex_gradient.selfplay import SimplexGradient, SimplexGradientAgent

__all__ = ["SimplexGradient", "SimplexGradientAgent", "SimplexGradientConfig"]
