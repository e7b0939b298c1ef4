"""A hand-written Leduc Hold'em agent: a plain class that enters tournaments as is.

It reads only what a PettingZoo player sees (the action mask and the information-state
string). Use it in a tournament with ``--agent rules=examples.heuristic_agent:make_agent``
(run from the repository root, or put this file's folder on ``PYTHONPATH``).
"""

from __future__ import annotations

FOLD, CALL, RAISE = 0, 1, 2


class HeuristicLeducAgent:
    """Raise with a king or a pair, call with a queen, fold a jack to a raise."""

    name = "heuristic"

    def reset(self, *, seed: int | None = None) -> None:
        """Deterministic: nothing to reset."""

    def act(self, observation, info) -> int:
        mask = observation["action_mask"]
        fields = dict(part.split("=", 1) for part in info["info_state"].split())
        rank, public = fields["card"][0], fields["public"]
        strong = rank == "K" or (public != "-" and public[0] == rank)
        if strong and mask[RAISE]:
            return RAISE
        if rank == "J" and not strong and mask[FOLD]:
            return FOLD
        return CALL


def make_agent() -> HeuristicLeducAgent:
    """Factory for ``module:factory`` agent specs."""
    return HeuristicLeducAgent()
