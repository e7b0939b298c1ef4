"""Simplex-gradient learning on the probability simplex (torch extra).

* :class:`SimplexGradient` — self-play with a value model f and a policy model g trained
  on the projected loss ``-(Pi f)^T g`` over counterfactual successors; its last and
  average policies as PolicyAgents (:class:`SimplexGradientAgent`, :mod:`.agent`).
* :mod:`.losses` — the projection, the simplex projection and the losses.
* :class:`SimplexGradientConfig` — its settings (:mod:`.config`).
* :class:`SimplexGradientValues` — f as an AIVAT value function (:mod:`.values`).
"""

from nashzoo.agents.simplex_gradient.agent import SimplexGradientAgent
from nashzoo.agents.simplex_gradient.config import SimplexGradientConfig
from nashzoo.agents.simplex_gradient.selfplay import SimplexGradient
from nashzoo.agents.simplex_gradient.values import SimplexGradientValues

__all__ = [
    "SimplexGradient",
    "SimplexGradientAgent",
    "SimplexGradientConfig",
    "SimplexGradientValues",
]
