"""Small games compiled once into flat arrays: the ground solvers and exact evaluation run on."""

from nashzoo.tree.best_response import best_response_value, nash_conv_array, policy_values
from nashzoo.tree.compile import DEFAULT_MAX_NODES, GameTree, compile_game, compiled_or_none
from nashzoo.tree.lp import solve_zero_sum
from nashzoo.tree.mixture import behavioural_mixture, mix_policies
from nashzoo.tree.policy import TabularPolicy, seat_profiles, tree_of
from nashzoo.tree.reach import realization_weights
from nashzoo.tree.sequence_form import equilibrium_score_range, solve_sequence_form

__all__ = [
    "GameTree",
    "compile_game",
    "compiled_or_none",
    "DEFAULT_MAX_NODES",
    "TabularPolicy",
    "seat_profiles",
    "tree_of",
    "realization_weights",
    "behavioural_mixture",
    "mix_policies",
    "best_response_value",
    "nash_conv_array",
    "policy_values",
    "solve_zero_sum",
    "solve_sequence_form",
    "equilibrium_score_range",
]
