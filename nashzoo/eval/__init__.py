"""Measurement: exact best response and exploitability, duplicate head-to-head matches."""

from nashzoo.eval.exploitability import (
    ExploitabilityResult,
    best_response_value,
    exploitability,
    nash_conv_array,
)
from nashzoo.eval.matches import MatchResult, exact_duplicate_value, head_to_head

__all__ = [
    "ExploitabilityResult",
    "MatchResult",
    "best_response_value",
    "exact_duplicate_value",
    "exploitability",
    "head_to_head",
    "nash_conv_array",
]
