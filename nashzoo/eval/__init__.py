"""Measurement: exact best response and exploitability, the local best response (a lower
bound on exploitability where the game is too large, :mod:`nashzoo.eval.lbr`), duplicate
head-to-head matches, and duplicate tables of three or more seats
(:mod:`nashzoo.eval.seats`)."""

from nashzoo.eval.exploitability import (
    ExploitabilityResult,
    best_response_value,
    exploitability,
    nash_conv_array,
)
from nashzoo.eval.lbr import LBRResult, local_best_response
from nashzoo.eval.matches import MatchResult, exact_duplicate_value, head_to_head
from nashzoo.eval.seats import RosterResult, TableResult, play_table, play_tables, seatings

__all__ = [
    "TableResult",
    "play_table",
    "play_tables",
    "RosterResult",
    "seatings",
    "ExploitabilityResult",
    "MatchResult",
    "best_response_value",
    "exact_duplicate_value",
    "exploitability",
    "head_to_head",
    "local_best_response",
    "LBRResult",
    "nash_conv_array",
]
