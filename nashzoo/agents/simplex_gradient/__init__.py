"""Simplex-gradient learning on the probability simplex (torch extra).

* :class:`SimplexGradient` — self-play with a value model f and a policy model g trained
  on the projected loss ``-(Pi f)^T g`` over counterfactual successors; its last and
  average policies as PolicyAgents (:mod:`.selfplay`).
* :mod:`.losses` — the projection, the simplex projection and the losses.
"""

from nashzoo.agents.simplex_gradient.selfplay import (
    SimplexGradient,
    SimplexGradientAgent,
    SimplexGradientConfig,
)

__all__ = ["SimplexGradient", "SimplexGradientAgent", "SimplexGradientConfig"]
