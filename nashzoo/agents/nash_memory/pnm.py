"""Parallel Nash Memory for two-player zero-sum games, on compiled trees.

Papers: Ficici & Pollack, "A Game-Theoretic Memory Mechanism for Coevolution", GECCO
2003; Oliehoek, de Jong & Vlassis, "The Parallel Nash Memory for Asymmetric Games",
GECCO 2006; Oliehoek, "Game theory and AI: a unified approach to poker games", MSc thesis
2005, chapter 7.

State per player i: a support N_i and a memory M_i of pure policies, and a mixture over
N_i. One iteration:

1. ask the search heuristic for new policies of each player (default: the exact pure best
   response to the opponent's current mixture, turned behavioural by realization weights);
2. admit a candidate into W_i when it beats the current mixture, i.e. gains more than
   ``tolerance`` over the player's current value;
3. fill the payoff matrix over N u M u W (each entry once: payoffs are bilinear in the
   two players' terminal realization weights, so an entry is one dot product), solve the
   restricted zero-sum game by LP (scipy's HiGHS);
4. the new support N_i is the equilibrium's support, everything else goes to memory.

When no best response gains more than ``tolerance`` the mixtures form a
``tolerance``-Nash equilibrium of the whole game (``converged``) and the iteration stops;
it also stops if the heuristic finds nothing that beats the current mixtures
(``stalled``, possible with approximate heuristics). Each player's worst-case payoff
(security level against a best response) is recorded every iteration; what grows
monotonically is the security *set*: the mixture is an equilibrium of the game restricted
to every policy seen so far, so it earns at least the restricted value against all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.best_response import best_response_value, policy_values
from nashzoo.tree.compile import GameTree
from nashzoo.tree.lp import solve_zero_sum
from nashzoo.tree.mixture import behavioural_mixture
from nashzoo.tree.reach import forward_reach

__all__ = ["ParallelNashMemory", "PNMRecord", "best_response_heuristic", "Heuristic"]

Heuristic = Callable[["ParallelNashMemory", int, np.ndarray], Sequence[np.ndarray]]
"""``heuristic(pnm, player, opponent_profile)`` -> candidate policies of ``player``
(``(num_infosets, num_actions)`` arrays; only ``player``'s rows are used)."""


def best_response_heuristic(
    pnm: ParallelNashMemory, player: int, profile: np.ndarray
) -> list[np.ndarray]:
    """The exact pure best response of ``player`` to ``profile`` (one candidate)."""
    tree = pnm.tree
    actions = np.empty(tree.num_infosets, dtype=np.int64)
    best_response_value(tree, profile, player, actions)
    rows = tree.infosets_of(player)
    pure = tree.uniform_probs()
    pure[rows] = 0.0
    pure[rows, actions[rows]] = 1.0
    return [pure]


@dataclass(frozen=True)
class PNMRecord:
    """One iteration of Parallel Nash Memory.

    Attributes:
        iteration: 1-based.
        value: player 0's value of the restricted game.
        worst_case: each player's security level (payoff against a best response).
        best_response_gain: what each player's best response gains over its value.
        support_sizes, memory_sizes: per player.
        policies: pure policies held per player (support + memory).
    """

    iteration: int
    value: float
    worst_case: tuple[float, float]
    best_response_gain: tuple[float, float]
    support_sizes: tuple[int, int]
    memory_sizes: tuple[int, int]
    policies: tuple[int, int]


class ParallelNashMemory(TabularSolver):
    """Parallel Nash Memory; a :class:`~nashzoo.agents.cfr.TabularSolver`, so ``iterate``,
    ``average_policy`` (the behavioural form of the mixtures) and the CLI work as for CFR.

    Args:
        game: a two-player zero-sum game or its compiled tree.
        heuristic: the search heuristic (default: exact best response).
        tolerance: admission threshold and stopping criterion (chips).
        initial_policies: per player, pure policies to start from (default: one each,
            the best response to the uniform opponent).
    """

    name = "nash-memory"

    def __init__(
        self,
        game: Game | GameTree,
        *,
        heuristic: Heuristic | None = None,
        tolerance: float = 1e-9,
        initial_policies: Sequence[Sequence[np.ndarray]] | None = None,
    ) -> None:
        super().__init__(game)
        tree = self.tree
        if tree.num_players != 2 or not tree.game.zero_sum:
            raise InvalidParameterError("Parallel Nash Memory needs a two-player zero-sum game.")
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0:
            raise InvalidParameterError(
                f"`tolerance` must be a number >= 0, received {tolerance!r}."
            )
        self.heuristic = heuristic or best_response_heuristic
        self.tolerance = float(tolerance)
        self.policies: list[list[np.ndarray]] = [[], []]
        self.support: list[list[int]] = [[], []]
        self.weights: list[np.ndarray] = [np.zeros(0), np.zeros(0)]
        self._reach: list[list[np.ndarray]] = [[], []]
        self._matrix = np.zeros((0, 0))
        self._own = np.empty(tree.num_nodes)
        self._opp = np.empty(tree.num_nodes)
        self._terminals = np.flatnonzero(tree.player == -4)
        ones = np.ones(tree.legal_mask.shape)
        forward_reach(tree, 0, ones, self._own, self._opp)
        self._chance_utility = self._opp[self._terminals] * tree.utility[self._terminals, 0]
        self.history: list[PNMRecord] = []
        self.converged = False
        self.stalled = False
        uniform = tree.uniform_probs()
        if initial_policies is None:
            initial_policies = [best_response_heuristic(self, p, uniform) for p in (0, 1)]
        for p in (0, 1):
            if not initial_policies[p]:
                raise InvalidParameterError(f"Player {p} needs at least one initial policy.")
            for pol in initial_policies[p]:
                self._add(p, pol)
        self._solve()

    # -- bookkeeping -----------------------------------------------------------------------
    def _add(self, player: int, policy: np.ndarray) -> int:
        arr = np.asarray(getattr(policy, "probs", policy), dtype=np.float64)
        if arr.shape != self.tree.legal_mask.shape:
            raise InvalidParameterError(
                f"Policies must have shape {self.tree.legal_mask.shape}, received {arr.shape}."
            )
        rows = self.tree.infosets_of(player)
        for k, known in enumerate(self.policies[player]):
            if np.array_equal(known[rows], arr[rows]):
                return k
        self.policies[player].append(arr)
        # Payoffs are bilinear in the two players' terminal realization weights:
        # u0(i, j) = sum_z rho_i(z) rho_j(z) chance(z) u0(z), one dot product per entry.
        reach = self._terminal_reach(arr, player)
        self._reach[player].append(reach)
        other = self._reach[1 - player]
        if other:
            weighted = reach * self._chance_utility
            column = np.array([weighted @ r for r in other])
            n0, n1 = len(self._reach[0]), len(self._reach[1])
            grown = np.zeros((n0, n1))
            grown[: self._matrix.shape[0], : self._matrix.shape[1]] = self._matrix
            if player == 0:
                grown[n0 - 1, :] = column
            else:
                grown[:, n1 - 1] = column
            self._matrix = grown
        return len(self.policies[player]) - 1

    def _terminal_reach(self, probs: np.ndarray, player: int) -> np.ndarray:
        forward_reach(self.tree, player, probs, self._own, self._opp)
        return self._own[self._terminals].copy()

    def payoff_matrix(self) -> np.ndarray:
        """Player 0's payoffs over every pair of stored policies (a copy)."""
        return self._matrix.copy()

    def _solve(self) -> None:
        x, y, value = solve_zero_sum(self._matrix)
        self.value = value
        for p, w in ((0, x), (1, y)):
            w = np.where(w > 1e-12, w, 0.0)
            self.weights[p] = w / w.sum()
            self.support[p] = [k for k in range(len(w)) if self.weights[p][k] > 0]

    def mixture_profile(self) -> np.ndarray:
        """Both players' mixtures as one behavioural profile (realization-weight mixing)."""
        probs = self.tree.uniform_probs()
        for p in (0, 1):
            idx = self.support[p]
            behavioural_mixture(
                self.tree, p, [self.policies[p][k] for k in idx], self.weights[p][idx], out=probs
            )
        return probs

    # -- iteration -------------------------------------------------------------------------
    def _run(self, n: int) -> int:
        for k in range(n):
            if self.converged or self.stalled:
                return k
            self._iterate_once()
        return n

    def _iterate_once(self) -> None:
        tree = self.tree
        profile = self.mixture_profile()
        values = policy_values(tree, profile)
        gains = []
        admitted = 0
        for p in (0, 1):
            br_value = best_response_value(tree, profile, p)
            gains.append(br_value - values[p])
            for candidate in self.heuristic(self, p, profile):
                cand = np.where((tree.infoset_player == p)[:, None], candidate, profile)
                if policy_values(tree, cand)[p] > values[p] + self.tolerance:
                    before = len(self.policies[p])
                    self._add(p, candidate)
                    admitted += len(self.policies[p]) - before
        worst = (values[0] - gains[1], values[1] - gains[0])
        self.converged = max(gains) <= self.tolerance
        self.stalled = admitted == 0 and not self.converged
        if not (self.converged or self.stalled):
            self._solve()
        self.history.append(
            PNMRecord(
                iteration=len(self.history) + 1,
                value=float(self.value),
                worst_case=(float(worst[0]), float(worst[1])),
                best_response_gain=(float(gains[0]), float(gains[1])),
                support_sizes=(len(self.support[0]), len(self.support[1])),
                memory_sizes=(
                    len(self.policies[0]) - len(self.support[0]),
                    len(self.policies[1]) - len(self.support[1]),
                ),
                policies=(len(self.policies[0]), len(self.policies[1])),
            )
        )

    # -- TabularSolver outputs -------------------------------------------------------------
    def _average_sums(self) -> np.ndarray:
        return self.mixture_profile()

    def _current_probs(self) -> np.ndarray:
        return self.mixture_profile()
