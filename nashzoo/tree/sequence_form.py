"""The sequence form of a small two-player zero-sum game, and what its linear programs say.

A *sequence* of player ``p`` is the list of ``p``'s own (information set, action) choices on
the way to a history; perfect recall makes the last one name it. A behaviour policy
becomes a *realization plan* ``x`` (the product of ``p``'s own probabilities along each
sequence), and the expected payoff of two plans is bilinear, ``x^T A y`` with ``A`` sparse
(one entry per terminal history: chance reach times payoff). The plans of a player are
the non-negative solutions of ``E x = e`` (the empty sequence has weight 1; at every
information set the weights of its actions sum to the weight of the sequence that leads
there). So an equilibrium of the whole game is one linear program of the tree's size
(Koller, Megiddo and von Stengel, "Fast algorithms for finding randomized strategies in
game trees", STOC 1994; von Stengel, "Efficient computation of behavior strategies",
GEB 1996), where the reduced normal form (:mod:`nashzoo.tree.normal_form`) grows
exponentially.

Beyond one equilibrium, the same constraints describe *every* equilibrium strategy of a
seat: the plans that guarantee the game value. :func:`equilibrium_score_range` optimises a
linear objective over that set: the least and the most any equilibrium of the game
scores against a fixed opponent. It answers a question one solver run cannot: how much
can playing an equilibrium win against this baseline, at best and at worst? (A best
response wins the most of all; an equilibrium only what its own safety allows.)

scipy's HiGHS solves the programs; games of up to a few hundred thousand histories take
seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import TERMINAL, Game
from nashzoo.tree.compile import GameTree
from nashzoo.tree.policy import TabularPolicy, tree_of
from nashzoo.tree.reach import reach_without, realization_weights

__all__ = [
    "SequenceForm",
    "sequence_form",
    "solve_sequence_form",
    "EquilibriumScoreRange",
    "equilibrium_score_range",
]


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """Both players' sequences of a compiled two-player game and player 0's payoffs.

    Attributes:
        tree: the compiled game.
        num_sequences: ``(n_0, n_1)``; sequence 0 of each player is the empty one.
        sequence: per player, ``(num_infosets, num_actions)`` ids of the sequences
            "(set, action)" (-1 at illegal actions and at the other player's sets).
        parent_sequence: ``(num_infosets,)`` the owner's sequence that leads to each set.
        payoff: player 0's payoffs as a sparse ``(n_0, n_1)`` matrix (scipy CSR);
            player 1's are its negative in a zero-sum game.
    """

    tree: GameTree
    num_sequences: tuple[int, int]
    sequence: tuple[np.ndarray, np.ndarray] = field(repr=False)
    parent_sequence: np.ndarray = field(repr=False)
    payoff: Any = field(repr=False)

    def constraints(self, player: int) -> tuple[Any, np.ndarray]:
        """``(E, e)`` with ``E x = e, x >= 0`` the realization plans of ``player``: row 0
        sets the empty sequence to 1, then one row per information set of ``player``."""
        from scipy import sparse

        tree = self.tree
        sets = tree.infosets_of(player)
        ids = self.sequence[player][sets]
        legal = ids >= 0
        rows = np.repeat(np.arange(1, sets.size + 1), legal.sum(axis=1))
        row_ids = np.r_[0, rows, np.arange(1, sets.size + 1)]
        col_ids = np.r_[0, ids[legal], self.parent_sequence[sets]]
        values = np.r_[1.0, np.ones(int(legal.sum())), -np.ones(sets.size)]
        matrix = sparse.csr_matrix(
            (values, (row_ids, col_ids)), shape=(sets.size + 1, self.num_sequences[player])
        )
        rhs = np.zeros(sets.size + 1)
        rhs[0] = 1.0
        return matrix, rhs

    def realization_plan(self, probs: np.ndarray, player: int) -> np.ndarray:
        """``player``'s realization plan of the behaviour profile ``probs``
        (``(num_infosets, num_actions)``)."""
        tree = self.tree
        probs = np.asarray(probs, dtype=np.float64)
        if probs.shape != tree.legal_mask.shape:
            raise InvalidParameterError(
                f"Expected a profile of shape {tree.legal_mask.shape}, received {probs.shape}."
            )
        rho = realization_weights(tree, probs, player)
        plan = np.zeros(self.num_sequences[player])
        plan[0] = 1.0
        ids = self.sequence[player]
        own = ids >= 0
        plan[ids[own]] = (rho[:, None] * probs)[own]
        return plan

    def behavioural(self, plan: np.ndarray, player: int, out: np.ndarray) -> None:
        """Write into ``out``'s rows of ``player``'s sets the behaviour policy that plays
        like ``plan``: each action's weight over the weight of the set's sequence
        (uniform over the legal actions at sets the plan never reaches)."""
        tree = self.tree
        sets = tree.infosets_of(player)
        ids = self.sequence[player][sets]
        legal = ids >= 0
        weights = np.where(legal, np.clip(plan[np.where(legal, ids, 0)], 0.0, None), 0.0)
        total = weights.sum(axis=1, keepdims=True)
        uniform = legal / legal.sum(axis=1, keepdims=True)
        out[sets] = np.where(total > 1e-12, weights / np.where(total > 0, total, 1.0), uniform)


def sequence_form(game_or_tree: Game | GameTree) -> SequenceForm:
    """Build the sequence form of a two-player game that compiles.

    Raises:
        InvalidParameterError: the game does not have two players.
        GameTooLargeError: the game does not compile.
    """
    from scipy import sparse

    tree = tree_of(game_or_tree)
    if tree.num_players != 2:
        raise InvalidParameterError(
            f"The sequence form is built for two-player games; {tree.game} has {tree.num_players}."
        )
    legal = tree.legal_mask
    ids: list[np.ndarray] = []
    counts: list[int] = []
    for p in range(2):
        own = legal & (tree.infoset_player == p)[:, None]
        seq = np.full(legal.shape, -1, dtype=np.int64)
        seq[own] = np.arange(1, int(own.sum()) + 1)
        ids.append(seq)
        counts.append(int(own.sum()) + 1)
    # each node's last own sequence per player, level by level (breadth-first order)
    last = np.zeros((tree.num_nodes, 2), dtype=np.int64)
    starts = tree.level_starts
    for level in range(1, len(starts) - 1):
        nodes = np.arange(starts[level], starts[level + 1])
        parents = tree.parent[nodes]
        last[nodes] = last[parents]
        mover = tree.player[parents]
        for p in range(2):
            chose = nodes[mover == p]
            at = tree.parent[chose]
            last[chose, p] = ids[p][tree.infoset[at], tree.action[chose]]
    parent_sequence = last[tree.infoset_node, tree.infoset_player]
    terminals = np.flatnonzero(tree.player == TERMINAL)
    chance = reach_without(tree, np.ones(legal.shape), 0)[terminals]
    payoff = sparse.csr_matrix(
        (chance * tree.utility[terminals, 0], (last[terminals, 0], last[terminals, 1])),
        shape=(counts[0], counts[1]),
    )
    return SequenceForm(
        tree=tree,
        num_sequences=(counts[0], counts[1]),
        sequence=(ids[0], ids[1]),
        parent_sequence=parent_sequence,
        payoff=payoff,
    )


def _zero_sum(form: SequenceForm) -> None:
    game = form.tree.game
    if not game.zero_sum:
        raise InvalidParameterError(
            f"Equilibria by the sequence-form LP need a two-player zero-sum game; {game} "
            "is not zero-sum."
        )


def _seat_payoff(form: SequenceForm, player: int) -> Any:
    """``player``'s payoffs with ``player``'s sequences as rows."""
    return form.payoff if player == 0 else -form.payoff.T.tocsr()


def _maximin_program(form: SequenceForm, player: int) -> dict[str, Any]:
    """The LP of ``player``'s safe plans: variables ``[x, q]``, ``x`` the plan and ``q``
    the dual of the opponent's best response (``F^T q <= A^T x``); ``q[0]`` is the value
    ``x`` guarantees."""
    from scipy import sparse

    own, own_rhs = form.constraints(player)
    other, _ = form.constraints(1 - player)
    a = _seat_payoff(form, player)
    nx, nq = own.shape[1], other.shape[0]
    return {
        "A_ub": sparse.hstack([-a.T, other.T]).tocsr(),
        "b_ub": np.zeros(other.shape[1]),
        "A_eq": sparse.hstack([own, sparse.csr_matrix((own.shape[0], nq))]).tocsr(),
        "b_eq": own_rhs,
        "bounds": [(0, None)] * nx + [(None, None)] * nq,
        "nx": nx,
        "nq": nq,
    }


def _linprog(cost: np.ndarray, program: dict[str, Any], a_ub: Any, b_ub: np.ndarray) -> Any:
    from scipy.optimize import linprog

    res = linprog(
        cost,
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=program["A_eq"],
        b_eq=program["b_eq"],
        bounds=program["bounds"],
        method="highs",
    )
    if not res.success:  # pragma: no cover - the programs are feasible and bounded
        raise RuntimeError(f"The sequence-form LP failed: {res.message}")
    return res


def _safe_value(form: SequenceForm, player: int) -> tuple[float, np.ndarray, dict[str, Any]]:
    """The value ``player`` can guarantee, a plan that guarantees it, and the program."""
    program = _maximin_program(form, player)
    cost = np.zeros(program["nx"] + program["nq"])
    cost[program["nx"]] = -1.0
    res = _linprog(cost, program, program["A_ub"], program["b_ub"])
    return float(-res.fun), np.asarray(res.x[: program["nx"]]), program


def solve_sequence_form(game_or_tree: Game | GameTree) -> tuple[TabularPolicy, float]:
    """An exact equilibrium of a two-player zero-sum game that compiles, by two LPs.

    Returns:
        ``(policy, value)``: an equilibrium profile (a maximin plan of each seat turned
        into behaviour probabilities) and the game value for player 0.

    Raises:
        InvalidParameterError: not a two-player zero-sum game.
        GameTooLargeError: the game does not compile.
    """
    form = sequence_form(game_or_tree)
    _zero_sum(form)
    probs = form.tree.uniform_probs()
    value = 0.0
    for p in range(2):
        v, plan, _ = _safe_value(form, p)
        form.behavioural(plan, p, probs)
        if p == 0:
            value = v
    return TabularPolicy(form.tree, probs, metadata={"solver": "sequence-form LP"}), value


@dataclass(frozen=True)
class EquilibriumScoreRange:
    """What the equilibria of a game score against one fixed opponent.

    Attributes:
        value: the game value for each seat.
        seat_low: per seat, the least expected return of an equilibrium strategy of that
            seat against the opponent in the other seat.
        seat_high: per seat, the most.
        best_response: per seat, what a best response to the opponent gets there (for
            scale: no strategy does better).
    """

    value: tuple[float, float]
    seat_low: tuple[float, float]
    seat_high: tuple[float, float]
    best_response: tuple[float, float]

    @property
    def low(self) -> float:
        """The least duplicate score (the two seats' mean) of an equilibrium."""
        return (self.seat_low[0] + self.seat_low[1]) / 2

    @property
    def high(self) -> float:
        """The most duplicate score of an equilibrium."""
        return (self.seat_high[0] + self.seat_high[1]) / 2

    @property
    def best_response_score(self) -> float:
        """A best response's duplicate score."""
        return (self.best_response[0] + self.best_response[1]) / 2


def equilibrium_score_range(
    game_or_tree: Game | GameTree, opponent: Any, *, tol: float = 1e-7
) -> EquilibriumScoreRange:
    """The least and the most that an equilibrium strategy wins against ``opponent``.

    For each seat, two LPs over that seat's safe plans (those that guarantee the game
    value, within ``tol`` times the largest payoff), minimising and maximising the
    expected return against ``opponent`` in the other seat. The duplicate score of any
    equilibrium lies in ``[low, high]``; a learner that approaches an equilibrium cannot
    expect more than ``high`` from this opponent without leaving the equilibria.

    Args:
        game_or_tree: a two-player zero-sum game that compiles, or its tree.
        opponent: a :class:`TabularPolicy`, a ``(num_infosets, num_actions)`` profile or a
            PolicyAgent (tabulated at every information set); it plays both seats.
        tol: slack on the guaranteed value, relative to the largest payoff.

    Raises:
        InvalidParameterError: not a two-player zero-sum game, a bad ``tol``, a policy
            for another game, or an opponent that is none of the above.
        GameTooLargeError: the game does not compile.
    """
    from scipy import sparse

    from nashzoo.tree.best_response import best_response_value

    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 <= tol < 1:
        raise InvalidParameterError(f"tol must be a number in [0, 1), received {tol!r}.")
    form = sequence_form(game_or_tree)
    _zero_sum(form)
    tree = form.tree
    if isinstance(opponent, TabularPolicy):
        if opponent.game != tree.game:
            raise InvalidParameterError(
                f"The opponent's policy is for {opponent.game}, not for {tree.game}."
            )
        probs = opponent.probs
    elif isinstance(opponent, np.ndarray):
        probs = TabularPolicy(tree, opponent).probs
    else:
        probs = TabularPolicy.from_agent(opponent, tree).probs
    scale = max(float(np.abs(tree.utility).max()), 1e-12)
    values, lows, highs, responses = [], [], [], []
    for p in range(2):
        value, _, program = _safe_value(form, p)
        nx, nq = program["nx"], program["nq"]
        versus = _seat_payoff(form, p) @ form.realization_plan(probs, 1 - p)
        guarantee = sparse.csr_matrix(([-1.0], ([0], [nx])), shape=(1, nx + nq))
        a_ub = sparse.vstack([program["A_ub"], guarantee]).tocsr()
        b_ub = np.r_[program["b_ub"], -(value - tol * scale)]
        found = []
        for sign in (1.0, -1.0):
            res = _linprog(np.r_[sign * versus, np.zeros(nq)], program, a_ub, b_ub)
            found.append(sign * float(res.fun))
        values.append(value)
        lows.append(found[0])
        highs.append(found[1])
        responses.append(best_response_value(tree, probs, p))
    return EquilibriumScoreRange(
        value=(values[0], values[1]),
        seat_low=(lows[0], lows[1]),
        seat_high=(highs[0], highs[1]),
        best_response=(responses[0], responses[1]),
    )
