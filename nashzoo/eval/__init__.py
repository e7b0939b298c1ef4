"""Measurement: exact best response and exploitability (more to come: matches, tournaments)."""

from nashzoo.eval.exploitability import (
    ExploitabilityResult,
    best_response_value,
    exploitability,
    nash_conv_array,
)

__all__ = ["ExploitabilityResult", "best_response_value", "exploitability", "nash_conv_array"]
