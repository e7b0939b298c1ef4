"""A person at the keyboard, as an agent.

:class:`HumanAgent` shows its information state and legal actions on a text stream and
reads the answer from another, so a person can take a seat wherever an agent goes
(:func:`nashzoo.play_episode`, ``nashzoo play``). An answer is an action number or an
action name (any unambiguous prefix, any case); anything else is refused with the reason
and asked again. ``quit`` (or end of input) raises :class:`HumanQuit`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import numpy as np

from nashzoo.envs.protocol import Observation, action_mask_of
from nashzoo.errors import IllegalActionError, NashzooError
from nashzoo.games.base import Game

__all__ = ["HumanAgent", "HumanQuit", "parse_answer"]


class HumanQuit(NashzooError, EOFError):
    """The person asked to stop (``quit`` or end of input)."""


def parse_answer(text: str, legal: dict[int, str]) -> int:
    """The action a typed answer names.

    Args:
        text: what was typed: an action number, or an action name or a prefix of one
            that only one legal action has (case does not matter).
        legal: legal action number → name.

    Raises:
        IllegalActionError: the answer names no legal action, or several; the message
            lists the legal ones.
    """
    answer = text.strip()
    choices = ", ".join(f"{a} ({name})" for a, name in legal.items())
    if not answer:
        raise IllegalActionError(f"Type an action: {choices}.")
    if answer.lstrip("-").isdigit():
        action = int(answer)
        if action in legal:
            return action
        raise IllegalActionError(f"{action} is not a legal action here; legal: {choices}.")
    low = answer.lower()
    exact = [a for a, name in legal.items() if name.lower() == low]
    matches = exact or [a for a, name in legal.items() if name.lower().startswith(low)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise IllegalActionError(f"{answer!r} names no legal action; legal: {choices}.")
    raise IllegalActionError(
        f"{answer!r} could be {', '.join(legal[a] for a in matches)}; type more of the name."
    )


class HumanAgent:
    """Asks a person for each action.

    Args:
        game: the rules (for the action names).
        read: reads one line (default :func:`input`); end of input raises ``EOFError``.
        out: where the prompt goes (default ``sys.stdout``).
        name: display name.
    """

    def __init__(
        self,
        game: Game,
        *,
        read: Callable[[str], str] = input,
        out: TextIO | None = None,
        name: str = "human",
    ) -> None:
        self.game = game
        self.name = name
        self._read = read
        self._out = out

    def reset(self, *, seed: int | None = None) -> None:
        """Nothing to reset: a person has no seed."""

    def _print(self, text: str) -> None:
        print(text, file=self._out or sys.stdout, flush=True)

    def act(self, observation: Observation, info: Mapping[str, Any]) -> int:
        """Show the information state and the legal actions; return the answer.

        Raises:
            HumanQuit: the person typed ``quit`` or closed the input.
            IllegalActionError: the mask has no legal action.
        """
        legal_ids = np.flatnonzero(action_mask_of(observation))
        if legal_ids.size == 0:
            raise IllegalActionError("The action mask has no legal action to choose from.")
        player = info.get("player")
        legal = {int(a): self.game.action_name(int(a), player) for a in legal_ids}
        if "info_state" in info:
            self._print(f"  you see: {info['info_state']}")
        menu = "   ".join(f"[{a}] {name}" for a, name in legal.items())
        while True:
            try:
                text = self._read(f"  {menu}   (or quit) > ")
            except EOFError:
                raise HumanQuit("input closed") from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise HumanQuit("quit")
            try:
                return parse_answer(text, legal)
            except IllegalActionError as exc:
                self._print(f"  {exc}")

    def __repr__(self) -> str:
        return f"HumanAgent({self.game!r})"
