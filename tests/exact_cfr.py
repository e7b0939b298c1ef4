"""CFR+ without rounding: a slow reference that the tests hold the fast solvers to.

A float CFR run breaks an exact tie between actions by the sign of its rounding noise.
At an information set where every action is worth the same, the exact regrets are 0 and
regret matching plays uniformly; a run whose regrets came out at +6e-18 and -6e-18 plays
one action instead, and from there it is a different (equally valid) CFR run. Goofspiel's
symmetric positions make such ties, and that is why two correct float implementations
can print different exploitabilities after equal iterations.

This module runs CFR+ by its definition on a game's states, in exact rational arithmetic
(``fractions``) or, where the denominators grow too large for that, in 80-digit decimals
with regrets below ``1e-50`` read as 0 (a tie in exact arithmetic stays a tie). Its
conventions are the ones OpenSpiel's ``CFRPlusSolver`` and nashzoo's ``cfr+`` use
(Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015): alternating updates, player 0
then player 1; regrets floored at 0 after each player's update (regret matching+); the
average weighted by the iteration number (linear averaging); regret matching uniform
where no regret is positive.

Run as a script it prints the exploitability after each iteration::

    python -m tests.exact_cfr "goofspiel(num_cards=5,points_order=descending)" --iterations 20
"""

from __future__ import annotations

import argparse
import decimal
from fractions import Fraction
from typing import Any

import numpy as np

from nashzoo.games.base import Game, State

_DIGITS = 80
_TIE = decimal.Decimal(10) ** -50


def _flatten(game: Game, number: Any) -> tuple[list[tuple], dict[str, list[int]]]:
    """The game tree as a list of nodes (children after parents) and the legal actions
    of each information set; probabilities and payoffs converted by ``number``."""
    nodes: list[tuple] = []
    legal: dict[str, list[int]] = {}

    def build(state: State) -> int:
        index = len(nodes)
        nodes.append(())
        if state.is_terminal():
            nodes[index] = ("terminal", [number(r) for r in state.returns()])
        elif state.is_chance_node():
            kids = [
                (number(p, chance=True), build(state.child(a))) for a, p in state.chance_outcomes()
            ]
            nodes[index] = ("chance", kids)
        else:
            player = state.current_player()
            key = state.information_state_string(player)
            actions = list(state.legal_actions())
            legal[key] = actions
            nodes[index] = ("decision", player, key, [(a, build(state.child(a))) for a in actions])
        return index

    build(game.new_initial_state())
    return nodes, legal


class ExactCFRPlus:
    """CFR+ on ``game`` (two players, zero-sum) without rounding's tie-breaking.

    ``exact=True`` uses :class:`fractions.Fraction` throughout (each iteration's
    denominators multiply, so it suits a few iterations of a small game);
    ``exact=False`` uses 80-digit decimals with regrets below 1e-50 read as 0.
    """

    def __init__(self, game: Game, *, exact: bool = True) -> None:
        if game.num_players != 2:
            raise ValueError(f"expected a two-player game, got {game.num_players} players")
        self.exact = exact
        self.context = decimal.Context(prec=_DIGITS)
        self.nodes, self.legal = _flatten(game, self._number)
        self.tie = Fraction(0) if exact else _TIE
        zero = self._number(0)
        self.regret = {key: {a: zero for a in actions} for key, actions in self.legal.items()}
        self.average = {key: {a: zero for a in actions} for key, actions in self.legal.items()}
        with decimal.localcontext(self.context):  # 1/3 to 80 digits, not the default 28
            self.current = {key: self._matching(key) for key in self.legal}
        self.iteration = 0

    def _number(self, value: float, chance: bool = False) -> Any:
        if not chance:  # a payoff: its float exactly
            return (
                Fraction(value) if self.exact else self.context.create_decimal(repr(float(value)))
            )
        fraction = Fraction(value).limit_denominator(10**9)  # 1/3 is not a float
        if abs(float(fraction) - value) > 1e-15:
            raise ValueError(f"expected a chance probability near a fraction, got {value!r}")
        if self.exact:
            return fraction
        return self.context.divide(
            decimal.Decimal(fraction.numerator), decimal.Decimal(fraction.denominator)
        )

    def _matching(self, key: str) -> dict[int, Any]:
        regrets = self.regret[key]
        positive = sum((r for r in regrets.values() if r > self.tie), self._number(0))
        if positive > 0:
            return {
                a: (r / positive if r > self.tie else self._number(0)) for a, r in regrets.items()
            }
        share = self._number(1) / len(regrets)
        return {a: share for a in regrets}

    def _walk(self, index: int, reach: tuple[Any, Any, Any], player: int) -> Any:
        node = self.nodes[index]
        if node[0] == "terminal":
            return node[1][player]
        if node[0] == "chance":
            total = self._number(0)
            for probability, child in node[1]:
                total += probability * self._walk(
                    child, (reach[0], reach[1], reach[2] * probability), player
                )
            return total
        _, mover, key, kids = node
        policy = self.current[key]
        values: dict[int, Any] = {}
        for action, child in kids:
            after = list(reach)
            after[mover] *= policy[action]
            values[action] = self._walk(child, (after[0], after[1], after[2]), player)
        value = sum((policy[a] * v for a, v in values.items()), self._number(0))
        if mover == player:
            counterfactual = reach[1 - mover] * reach[2]
            for action, child_value in values.items():
                self.regret[key][action] += counterfactual * (child_value - value)
                self.average[key][action] += self.iteration * reach[mover] * policy[action]
        return value

    def iterate(self, iterations: int = 1) -> ExactCFRPlus:
        """Run ``iterations`` more iterations of CFR+."""
        one = self._number(1)
        with decimal.localcontext(self.context):
            for _ in range(iterations):
                self.iteration += 1
                for player in (0, 1):
                    self._walk(0, (one, one, one), player)
                    for regrets in self.regret.values():
                        for action, r in regrets.items():
                            if r < 0:
                                regrets[action] = self._number(0)
                    self.current = {key: self._matching(key) for key in self.legal}
        return self

    def average_policy(self, tree: Any) -> np.ndarray:
        """The average strategy as ``tree``'s probability array (float64), uniform where
        an information set was never reached."""
        probs = np.zeros((tree.num_infosets, tree.num_actions))
        for index, key in enumerate(tree.infoset_keys):
            weights = self.average[key]
            total = sum(weights.values(), self._number(0))
            for action, weight in weights.items():
                probs[index, action] = float(weight / total) if total > 0 else 1.0 / len(weights)
        return probs


def _main() -> None:
    from nashzoo.envs.registration import load_game
    from nashzoo.tree import compile_game, nash_conv_array

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", help='a game in load_game form, "goofspiel(num_cards=4)"')
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--exact", action="store_true", help="fractions instead of 80 digits")
    args = parser.parse_args()
    game = load_game(args.game)
    tree = compile_game(game)
    reference = ExactCFRPlus(game, exact=args.exact)
    for _ in range(args.iterations):
        reference.iterate()
        exploitability = nash_conv_array(tree, reference.average_policy(tree)) / 2
        print(f"iteration {reference.iteration}: exploitability {exploitability:.15f}", flush=True)


if __name__ == "__main__":
    _main()
