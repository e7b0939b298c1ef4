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


SYNONYMS = {"call": "check", "raise": "bet"}
"""Where nothing is owed the call is named Check and a raise Bet (Call and Raise
otherwise); there, ``call`` is taken for Check and ``raise`` for Bet. Facing a bet,
``check`` and ``bet`` name nothing legal and are refused with the legal actions."""


_WALKED_HISTORIES = 100_000
"""Games without a fast path to a state from an agent's view are walked up to this size
to name a decision's actions (Kuhn, Leduc)."""


def action_labels(game: Game, info: Mapping[str, Any], actions: Any) -> dict[int, str]:
    """The names of ``actions`` at the decision ``info`` describes, as the state names
    them (Check and Bet where nothing is owed, Call and Raise otherwise, with the chips of
    a no-limit raise) where the rules can rebuild the state from what the agent sees
    (:meth:`~nashzoo.games.Game.view_state`); else the game's fixed names."""
    from nashzoo.games.worlds import hidden_worlds

    player = info.get("player")
    state = None
    if player is not None and "info_state" in info and "public_history" in info:
        public = [
            int(a) for a in np.asarray(info["public_history"])[: int(info.get("history_length", 0))]
        ]
        view = (int(player), str(info["info_state"]), public)
        try:
            state = game.view_state(*view)
            if state is None:  # no fast path: a small tree is walked
                size = game.count_histories()
                if size is not None and size <= _WALKED_HISTORIES:
                    state = hidden_worlds(game, *view).state(0)
        except NashzooError:
            state = None
    if state is not None and state.current_player() == player:
        return {int(a): state.action_to_string(int(a)) for a in actions}
    return {int(a): game.action_name(int(a), player) for a in actions}


def parse_answer(text: str, legal: dict[int, str]) -> int:
    """The action a typed answer names.

    Args:
        text: what was typed: an action number, or an action name or a prefix of one
            that only one legal action has (case does not matter); where nothing is owed
            ``call`` is taken for Check and ``raise`` for Bet (:data:`SYNONYMS`).
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
    if not matches and low.split(" ", 1)[0] in SYNONYMS:
        # "call" for a check, "raise" for a bet: the same actions where nothing is owed
        head, _, tail = low.partition(" ")
        other = f"{SYNONYMS[head]} {tail}".strip()
        matches = [a for a, name in legal.items() if name.lower().startswith(other)]
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
        legal = action_labels(self.game, info, legal_ids)
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
        return f"HumanAgent({self.game})"
