"""Solvers of normal-form games: Gemp et al.'s stochastic loss, fictitious play and
regret matching (full or sampled feedback).

They run on a :class:`~nashzoo.games.MatrixGame` or on the reduced normal form of a small
extensive game (:func:`nashzoo.tree.normal_form.reduced_normal_form`), whose mixed
solutions convert back to behavioural tree policies.
"""

from nashzoo.agents.nfg.fictitious_play import FictitiousPlay
from nashzoo.agents.nfg.gemp import (
    GempConfig,
    GempSolver,
    bimatrix,
    gemp_loss,
    nash_conv_bimatrix,
)
from nashzoo.agents.nfg.regret_matching import RegretMatching

__all__ = [
    "GempConfig",
    "GempSolver",
    "FictitiousPlay",
    "RegretMatching",
    "bimatrix",
    "gemp_loss",
    "nash_conv_bimatrix",
]
