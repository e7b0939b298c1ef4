"""Re-solving poker's last betting rounds on the real cards, vectorised over the hands.

Papers: Burch, Johanson & Bowling, "Solving Imperfect Information Games Using
Decomposition", AAAI 2014 (the re-solve gadget); Moravčík et al., "Refining Subgames in
Large Imperfect Information Games", AAAI 2016, and Brown & Sandholm, "Safe and Nested
Subgame Solving for Imperfect-Information Games", NeurIPS 2017 (max-margin, and the
counterfactual best-response values that keep re-solving safe); Johanson et al.,
"Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011 (showdown
values by sorting hand strengths, with card removal).

The same re-solving as :mod:`nashzoo.agents.cfr.subgame`, where the game is too big to
compile. The public state at a round's first decision fixes the board so far, and the
subgame from there to the end of the hand (:class:`Endgame`) is the betting tree's part
below it times every pair of hands that misses the board (1,081 hands a player on
Hold'em's river, 1,128 on the turn), with a deal node wherever a later round's cards
come: one copy of the rest of the betting per card chance can deal (the 48 cards off the
turn's board, each hand's own cards masked out of their copies). Nothing walks the
pairs: every quantity is a vector over one player's hands at a public node, and a
terminal's values for all of a player's hands come from the other's vector in one pass,

* at a fold: the other's total weight minus what shares a card with the hand
  (inclusion-exclusion over the hand's cards);
* at a showdown: hands sorted by strength on that board once, a running sum over the
  weaker ones (and, from the top, the stronger ones) minus the running sums of each of
  the hand's cards;
* at a deal: the sum over the dealt cards that miss the hand (a hand holding one is not
  there: its reach below is 0).

A re-solve for player ``us``:

1. the ranges at the subgame's root are Bayes' rule under the blueprint along the real
   betting (:meth:`Endgame.ranges`): a hand's weight is the product of the blueprint's
   probabilities of the actions its holder took, at each decision, with the cards dealt
   by then;
2. the opponent's counterfactual best-response values against ``us``'s blueprint in the
   subgame (one per opponent hand) are the gadget's terminate values;
3. CFR+ (alternating updates, regret matching+, linearly weighted averages) solves the
   gadget game, exactly as the compiled re-solver does: the two agree to rounding on
   games that compile (the tests compare them on Leduc's last round and on a small game
   with two board rounds, from its second round).

Weights carry chance's factor, the probability of dealing one pair of hands and the
board out at each node (:attr:`Endgame.node_chance`), so values are in chips per deal,
the compiled tree's.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.abstraction.betting import (
    FOLDED,
    SHOWDOWN,
    BettingTree,
    betting_subtree,
    betting_tree,
    deal_any,
)
from nashzoo.agents.cfr.abstract_policy import AbstractionAgent, AbstractPolicy, moves_of, onto
from nashzoo.agents.cfr.subgame import GADGETS, gadget_follow, gadget_update
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE
from nashzoo.games.poker.game import CALL, FOLD, RAISE, PokerGame, PokerState
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.policy import TabularPolicy
from nashzoo.tree.sampling import next_uniform, rng_state
from nashzoo.validation import check_choice, check_int

__all__ = [
    "HandProbabilities",
    "Endgame",
    "UNSAFE",
    "ResolvingAbstractionAgent",
    "excess_gain",
    "resolve_endgame",
    "street_name",
    "carried",
    "round_root",
    "tabular_hand_probabilities",
]

log = logging.getLogger(__name__)

HandProbabilities = Callable[[list[int], list[int], np.ndarray], np.ndarray]
"""A blueprint as re-solving reads it: ``(nodes, board, hands) -> (len(nodes), hands,
actions)``, the distribution at each betting node for each hand (``board``: the cards
dealt so far; each node sees its own round's part)."""


# -- terminal values over the hands ---------------------------------------------------------
_NOISE = 1e-12
"""A weight sum below this share of the total is rounding left by subtracting the
blocked hands' weights (the exact sum is 0: every hand left is blocked or beaten); it
counts as 0, so that an exact tie between two actions stays a tie."""

_DEAL = -4
"""An endgame node where chance deals a later round's board cards (beside the betting
tree's :data:`~nashzoo.abstraction.betting.FOLDED` and ``SHOWDOWN`` ends)."""


@kernel
def _fold_values(gain, weight, cards, n_cards, out):
    """``out[h] = gain`` times the weight of the other's hands that share no card with
    ``h`` (one or two cards a hand)."""
    total = 0.0
    per_card = np.zeros(n_cards)
    for h in range(weight.size):
        total += weight[h]
        for c in range(cards.shape[1]):
            per_card[cards[h, c]] += weight[h]
    two = cards.shape[1] == 2
    for h in range(weight.size):
        m = total
        for c in range(cards.shape[1]):
            m -= per_card[cards[h, c]]
        if two:  # the hand itself: taken off with each of its two cards
            m += weight[h]
        out[h] = gain * (m if m > _NOISE * total else 0.0)


@kernel
def _showdown_values(win, lose, weight, cards, order, strength, n_cards, out):
    """``out[h]``: ``win`` times the weight of the other's weaker hands that share no
    card with ``h``, less ``lose`` times that of its stronger ones (``order``: the hands
    by rising strength)."""
    size = weight.size
    per_card = np.zeros(n_cards)
    for direction in range(2):  # 0: weaker ones from the bottom; 1: stronger from the top
        total = 0.0
        per_card[:] = 0.0
        i = 0
        while i < size:
            j = i  # the group of equal strength order[i:j] (counted after it is valued)
            s = strength[order[i if direction == 0 else size - 1 - i]]
            while j < size and strength[order[j if direction == 0 else size - 1 - j]] == s:
                j += 1
            for q in range(i, j):
                h = order[q if direction == 0 else size - 1 - q]
                m = total
                for c in range(cards.shape[1]):
                    m -= per_card[cards[h, c]]
                if m <= _NOISE * total:  # what cancels exactly stays 0, as pairs would sum
                    m = 0.0
                if direction == 0:
                    out[h] = win * m
                else:
                    out[h] -= lose * m
            for q in range(i, j):
                h = order[q if direction == 0 else size - 1 - q]
                total += weight[h]
                for c in range(cards.shape[1]):
                    per_card[cards[h, c]] += weight[h]
            i = j


@kernel
def _terminal(n, p, player, contrib, folder, weight, cards, board_of, order, strength, n_cards,
              out):  # fmt: skip
    """Player ``p``'s chips at terminal ``n`` for each of its hands, against the other's
    ``weight`` (a showdown ranks the hands on its board, row ``board_of[n]``)."""
    if player[n] == FOLDED:
        gain = -contrib[n, p] if folder[n] == p else contrib[n, 1 - p]
        _fold_values(gain, weight, cards, n_cards, out)
    else:
        b = board_of[n]
        _showdown_values(contrib[n, 1 - p], contrib[n, p], weight, cards, order[b], strength[b],
                         n_cards, out)  # fmt: skip


# -- the solve ----------------------------------------------------------------------------------
@kernel
def _forward(player, first_child, num_children, action, deal, blocked, sigma, active, reach):
    """Each player's reach (``reach[0]``, ``reach[1]``: ``(nodes, hands)``) from the
    root's, through ``sigma``; past a deal, 0 for the hands holding a dealt card. Nodes
    not ``active`` (a deal's children not drawn this iteration) are skipped."""
    for n in range(player.size):
        if not active[n]:
            continue
        pl = player[n]
        if pl == _DEAL:
            for c in range(first_child[n], first_child[n] + num_children[n]):
                d = deal[c]
                for q in range(2):
                    for h in range(reach.shape[2]):
                        reach[q, c, h] = 0.0 if blocked[d, h] else reach[q, n, h]
            continue
        if pl < 0:
            continue
        for c in range(first_child[n], first_child[n] + num_children[n]):
            for q in range(2):
                for h in range(reach.shape[2]):
                    reach[q, c, h] = reach[q, n, h]
                    if q == pl:
                        reach[q, c, h] *= sigma[n, h, action[c]]


@kernel
def _dealt(n, first_child, num_children, deal, blocked, active, value):
    """A deal's value for each hand: the sum over the dealt cards that miss the hand
    (each child's weights carry the deal's chance); where only some children are
    ``active`` (drawn), their sum scaled up by the children's count over theirs (an
    unbiased estimate of the whole sum)."""
    fc, nc = first_child[n], num_children[n]
    drawn = 0
    for c in range(fc, fc + nc):
        drawn += active[c]
    scale = nc / max(drawn, 1)
    for h in range(value.shape[1]):
        v = 0.0
        for c in range(fc, fc + nc):
            if active[c] and not blocked[deal[c], h]:
                v += value[c, h]
        value[n, h] = scale * v


@kernel
def _draw_deals(player, first_child, num_children, rng, active):
    """This pass's nodes under public chance sampling: every deal keeps one child drawn
    uniformly (:func:`~nashzoo.tree.sampling.next_uniform` on ``rng``), with all below it."""
    active[0] = True
    for n in range(player.size):  # parents first
        fc, nc = first_child[n], num_children[n]
        if nc <= 0:
            continue
        if not active[n]:
            for c in range(fc, fc + nc):
                active[c] = False
        elif player[n] == _DEAL:
            k = min(int(next_uniform(rng) * nc), nc - 1)
            for c in range(fc, fc + nc):
                active[c] = c - fc == k
        else:
            for c in range(fc, fc + nc):
                active[c] = True


@kernel
def _best_response(
    us, player, first_child, num_children, action, contrib, folder, legal, deal, blocked,
    board_of, node_chance, cards, order, strength, n_cards, root_weight, sigma, out,
):  # fmt: skip
    """The opponent's counterfactual best-response value, for each of its hands, against
    ``us`` playing ``sigma`` from ``root_weight`` (chance's factor included)."""
    size, hands = player.size, cards.shape[0]
    reach = np.zeros((2, size, hands))
    for h in range(hands):
        reach[0, 0, h] = 1.0
        reach[1, 0, h] = 1.0
    active = np.ones(size, np.bool_)
    _forward(player, first_child, num_children, action, deal, blocked, sigma, active, reach)
    value = np.zeros((size, hands))
    weight = np.zeros(hands)
    them = 1 - us
    for n in range(size - 1, -1, -1):
        pl = player[n]
        fc, nc = first_child[n], num_children[n]
        if pl == _DEAL:
            _dealt(n, first_child, num_children, deal, blocked, active, value)
        elif pl < 0:
            for h in range(hands):
                weight[h] = root_weight[h] * reach[us, n, h]
            _terminal(n, them, player, contrib, folder, weight, cards, board_of, order, strength,
                      n_cards, value[n])  # fmt: skip
            for h in range(hands):
                value[n, h] *= node_chance[n]
        elif pl == us:
            for c in range(fc, fc + nc):
                for h in range(hands):
                    value[n, h] += value[c, h]
        else:
            for h in range(hands):
                best = value[fc, h]
                for c in range(fc + 1, fc + nc):
                    best = max(best, value[c, h])
                value[n, h] = best
    for h in range(hands):
        out[h] = value[0, h]


@kernel
def _match(regret, legal, sigma, n):
    """Regret matching at node ``n`` for every hand (uniform over the legal actions where
    no regret is positive): :func:`~nashzoo.agents.cfr.mccfr.regret_matching` a row at a
    time, without a view a row."""
    count = 0
    for a in range(legal.shape[1]):
        count += legal[n, a] > 0
    for h in range(regret.shape[1]):
        total = 0.0
        for a in range(legal.shape[1]):
            if legal[n, a] > 0 and regret[n, h, a] > 0.0:
                total += regret[n, h, a]
        for a in range(legal.shape[1]):
            if legal[n, a] == 0:
                sigma[n, h, a] = 0.0
            elif total > 0.0:
                sigma[n, h, a] = max(regret[n, h, a], 0.0) / total
            else:
                sigma[n, h, a] = 1.0 / count


@kernel
def _cfr_plus(
    first, iterations, us, mode, player, first_child, num_children, action, contrib, folder,
    legal, deal, blocked, board_of, node_chance, cards, order, strength, n_cards, root_weight,
    root_opp, cbv, regret, avg, gadget, sample, rng, reach, value, sigma, active, discount,
):  # fmt: skip
    """Iterations ``first .. first + iterations - 1`` of CFR+ (or Linear CFR: ``discount``,
    a row of :data:`_DISCOUNTS`) on the gadget game, as the
    compiled re-solver's loop (:func:`nashzoo.agents.cfr.subgame._cfr_plus`) with each
    information set a (node, hand) pair: alternating updates, regret matching+, averages
    (``avg``, both players') weighted by the iteration number; ``gadget``: the
    follow/terminate regrets of each opponent hand (``mode`` 1) or its regret of entering
    (``mode`` 2); ``mode`` 0 holds the opponent's root weights at ``root_opp``. With
    ``sample``, public chance sampling: each pass draws one child of every deal (from the
    generator state ``rng``, which carries on from batch to batch) and walks that part
    alone, the deal's value scaled up to an unbiased estimate (Johanson et al.,
    AAMAS 2012); the nodes below the other cards keep their regrets until drawn.
    ``reach``, ``value``, ``sigma`` and ``active`` are the caller's scratch arrays (kept
    from batch to batch: a turn's are hundreds of megabytes)."""
    size, hands, n_actions = player.size, cards.shape[0], legal.shape[1]
    weight = np.zeros(hands)
    follow = np.ones(hands)
    them = 1 - us
    # sigma follows the regrets: matched at every decision once, then after each pass at
    # the decisions whose regrets that pass changed (the updating player's walked ones),
    # instead of at every walked decision before each pass (the same sigma, half the work)
    for n in range(size):
        if player[n] >= 0:
            _match(regret, legal, sigma, n)
    for step in range(first, first + iterations):
        # the average weighted by t^gamma; CFR+ (discount[0] < 0) floors the regrets at
        # 0, else discounted CFR's (alpha, beta): positive regrets kept t^a/(t^a+1),
        # negative ones t^b/(t^b+1)
        weigh = float(step) ** discount[2]  # CFR+'s gamma is 1: t itself
        keep_pos = step ** discount[0] / (step ** discount[0] + 1.0)
        keep_neg = step ** discount[1] / (step ** discount[1] + 1.0)
        for p in (us, them):
            if sample:
                _draw_deals(player, first_child, num_children, rng, active)
            gadget_follow(mode, gadget, follow)
            for h in range(hands):
                reach[us, 0, h] = 1.0
                reach[them, 0, h] = root_opp[h] * follow[h]
            _forward(player, first_child, num_children, action, deal, blocked, sigma, active,
                     reach)  # fmt: skip
            for n in range(size - 1, -1, -1):
                if not active[n]:
                    continue
                pl = player[n]
                fc, nc = first_child[n], num_children[n]
                if pl == _DEAL:
                    _dealt(n, first_child, num_children, deal, blocked, active, value)
                elif pl < 0:  # chance's factor, and us's blueprint range (which p's is not)
                    for h in range(hands):
                        weight[h] = (
                            reach[them, n, h] if p == us else root_weight[h] * reach[us, n, h]
                        )
                    _terminal(n, p, player, contrib, folder, weight, cards, board_of, order,
                              strength, n_cards, value[n])  # fmt: skip
                    scale = node_chance[n]
                    for h in range(hands):
                        value[n, h] *= scale * (root_weight[h] if p == us else 1.0)
                elif pl != p:
                    for h in range(hands):
                        v = 0.0
                        for c in range(fc, fc + nc):
                            v += value[c, h]
                        value[n, h] = v
                else:
                    for h in range(hands):
                        v = 0.0
                        for c in range(fc, fc + nc):
                            v += sigma[n, h, action[c]] * value[c, h]
                        value[n, h] = v
                        own = reach[p, n, h]
                        for c in range(fc, fc + nc):
                            a = action[c]
                            regret[n, h, a] += value[c, h] - v
                            avg[n, h, a] += weigh * own * sigma[n, h, a]
            for n in range(size):  # regret matching+ (no negative regret kept), or discounts
                if player[n] == p and active[n]:
                    for h in range(hands):
                        for a in range(n_actions):
                            r = regret[n, h, a]
                            if discount[0] < 0.0:
                                regret[n, h, a] = max(r, 0.0)
                            else:
                                regret[n, h, a] = r * (keep_pos if r > 0.0 else keep_neg)
                    _match(regret, legal, sigma, n)
            if mode > 0 and p != us:
                gadget_update(mode, follow, value[0], cbv, gadget)


SOLVERS = ("cfr+", "lcfr")
"""The regret minimisers a re-solve may run (:func:`resolve_endgame`'s ``solver``)."""
_DISCOUNTS = {
    "cfr+": np.array([-1.0, 0.0, 1.0]),  # the floor at 0, linear averages
    "lcfr": np.array([1.0, 1.0, 1.0]),  # Linear CFR: discounted CFR with alpha = beta = gamma = 1
}


def _compiled() -> None:
    compile_kernels(globals())


# -- the subgame ---------------------------------------------------------------------------
def round_root(tree: BettingTree, node: int) -> int:
    """The first decision of ``node``'s betting round on the way to it."""
    r = tree.round[node]
    while tree.parent[node] >= 0 and tree.round[tree.parent[node]] == r:
        node = int(tree.parent[node])
    return int(node)


def _needed(tree: BettingTree, node: int, shown: Any) -> int:
    """Board cards betting ``node`` needs out: its round's at a decision, the whole board
    at a showdown, none at a fold."""
    if tree.player[node] == FOLDED:
        return 0
    if tree.player[node] < 0:
        return int(shown[-1])
    return int(shown[int(tree.round[node])])


@dataclass(frozen=True, eq=False)
class Endgame:
    """The public subgame from one betting round's first decision to the end of the hand,
    on the real cards: the betting tree's nodes below it and, where a later round starts
    (or a showdown comes before the whole board is out), a deal node whose children are
    the rest of the betting once for each card (or cards) chance can deal; every hand
    that misses the board so far. On the last round there is no deal: the river of
    Hold'em. From the turn, each river card gets its own copy of the river's betting.

    Nodes are numbered from 0 (the root) breadth first, a node's children contiguous.

    Attributes:
        tree: the betting tree the subgame's betting belongs to (the game's, or a subtree
            grown from the real bets: :func:`~nashzoo.abstraction.betting.betting_subtree`).
        board: the board dealt by the root's round.
        root: the subgame's root, a node of ``tree``.
        nodes: the betting node of each subgame node (at a deal: the node whose cards it
            deals).
        path: ``(node, action)`` of each decision of ``path_tree`` from its root to the
            round's first decision (the betting the ranges follow).
        path_tree: the blueprint's betting tree (``tree`` unless a subtree was given).
        hands: ``(hands, k)`` the hole cards of each hand, ascending.
        boards: every board the subgame's nodes see (``boards[0] == board``).
        node_board: each node's row of ``boards``.
        player: who acts at each node (the betting tree's code, or ``-4`` at a deal).
        first_child: each node's first child (-1 at the ends).
        num_children: each node's children.
        deal: at a deal's children, the row of ``blocked`` of the cards dealt (-1
            elsewhere).
        blocked: ``(deals, hands)`` whether a hand holds one of a deal's cards.
        board_of: at a showdown, its row of ``strength`` and ``order`` (0 elsewhere).
        strength: ``(showdown boards, hands)`` each hand's showdown strength on that
            board (a larger one wins; -1 where the hand holds a board card).
        order: the hands by rising strength, per showdown board.
        node_chance: the probability of dealing one pair of hands and the node's board
            (each round's cards in any order, the rounds in theirs).
    """

    tree: BettingTree
    board: tuple[int, ...]
    root: int
    nodes: np.ndarray
    path: tuple[tuple[int, int], ...]
    path_tree: BettingTree
    hands: np.ndarray
    boards: tuple[tuple[int, ...], ...]
    node_board: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    deal: np.ndarray
    blocked: np.ndarray
    board_of: np.ndarray
    strength: np.ndarray
    order: np.ndarray
    node_chance: np.ndarray
    contrib: np.ndarray
    depth_limited: bool = False

    @classmethod
    def at(
        cls,
        tree: BettingTree,
        board: Sequence[int],
        node: int,
        *,
        subtree: BettingTree | None = None,
        max_nodes: int | None = None,
        leaves: Callable[[int], tuple[float, float]] | None = None,
    ) -> Endgame:
        """The subgame from the first decision of ``node``'s round (``node`` a decision
        of ``tree``) on ``board`` (that round's cards); with ``subtree`` (the round's
        betting grown from the real bets at its start, of the same cards, blinds and
        stacks), that tree's nodes instead of ``tree``'s below the round's first
        decision, the ranges still following ``tree``'s betting to it (a no-limit
        subgame with the real chips in and the opponent's real sizes).

        With ``leaves``, the subgame is depth-limited: where chance deals the last board
        cards before more betting, each card's copy of that betting is a leaf instead,
        valued as a showdown on the whole board whose stakes ``leaves(n)`` gives for the
        next round's first decision ``n`` (of the betting tree): player 0's value in
        chips holding the better hand and holding the worse, if both play the blueprint
        from there (:meth:`~nashzoo.agents.ismcts.blueprint_values.BlueprintValues.
        outcome_values`). Player 1's are their negatives, the other way round; a tie is
        worth 0. On Limit Hold'em's turn that is 48 leaves for each way the turn's betting
        can end in a call, about 450 nodes where the whole subgame has 11,691.

        Raises:
            InvalidParameterError: ``node`` not a decision, a board of the wrong size or
                with repeated or unknown cards, hands of more than two cards, a subtree
                of another game or round, or more than ``max_nodes`` nodes
                (:meth:`count_nodes` says how many before building), or ``leaves`` where
                the next deal leaves board cards to come.
        """
        game = tree.game
        d = game.definition
        node = check_int("node", node, 0, tree.num_nodes - 1)
        if tree.player[node] < 0:
            raise InvalidParameterError(
                f"Re-solving starts from a decision of the betting tree; node {node} is an end."
            )
        r = int(tree.round[node])
        shown = np.cumsum(d.num_board_cards)
        board = tuple(int(c) for c in board)
        cards = d.num_cards
        if (
            len(board) != shown[r]
            or len(set(board)) != len(board)
            or any(not 0 <= c < cards for c in board)
        ):
            raise InvalidParameterError(
                f"Round {r}'s board is {int(shown[r])} distinct cards of 0 to {cards - 1}, "
                f"received {list(board)}."
            )
        k = d.num_hole_cards
        if k > 2:
            raise InvalidParameterError(
                f"Re-solving on the real cards handles hands of one or two cards, not {k}."
            )
        root = round_root(tree, node)
        path: list[tuple[int, int]] = []
        up = root
        while tree.parent[up] >= 0:
            path.append((int(tree.parent[up]), int(tree.action[up])))
            up = int(tree.parent[up])
        below, start = tree, root
        if subtree is not None:
            if subtree.game.definition != d or subtree.round[0] != r:
                raise InvalidParameterError(
                    f"A subgame's own tree starts on round {r} of the same cards, blinds "
                    f"and stacks ({game}); received one of {subtree.game} from round "
                    f"{int(subtree.round[0])}."
                )
            below, start = subtree, 0
        if leaves is not None and r + 2 != d.num_rounds:
            raise InvalidParameterError(
                f"A depth-limited subgame stops where the last board cards are dealt: it "
                f"starts on round {d.num_rounds - 2} of {game}, received a decision of "
                f"round {r}."
            )
        if max_nodes is not None:
            size = cls.count_nodes(below, start, len(board), depth_limited=leaves is not None)
            if size > max_nodes:
                raise InvalidParameterError(
                    f"The subgame from node {node} has {size:,} nodes, over "
                    f"max_nodes={max_nodes:,}."
                )
        off = [c for c in range(cards) if c not in board]
        hands = np.array(list(itertools.combinations(off, k)), np.int64).reshape(-1, k)
        deals, left = comb(cards, k) * comb(cards - k, k), cards - 2 * k
        for count in d.num_board_cards[: r + 1]:  # a round's cards unordered, the rounds in order
            deals, left = deals * comb(left, count), left - count
        # breadth first: (betting node, dealt here, board, deal row, chance, leaf)
        items: list[tuple[int, bool, tuple[int, ...], int, float, bool]] = [
            (start, False, board, -1, 1.0 / deals, False)
        ]
        first: list[int] = []
        count_children: list[int] = []
        deal_rows: dict[tuple[int, ...], int] = {}
        i = 0
        while i < len(items):
            n, dealing, seen, _, chance, leaf = items[i]
            kids: list[tuple[int, bool, tuple[int, ...], int, float, bool]] = []
            if dealing:
                m = _needed(below, n, shown) - len(seen)
                rest = [c for c in range(cards) if c not in seen]
                share = chance / comb(cards - 2 * k - len(seen), m)
                cut = leaves is not None and below.player[n] >= 0
                for dealt in itertools.combinations(rest, m):
                    row = deal_rows.setdefault(dealt, len(deal_rows))
                    kids.append((n, False, seen + dealt, row, share, cut))
            elif below.player[n] >= 0 and not leaf:
                fc = int(below.first_child[n])
                for c in range(fc, fc + int(below.num_children[n])):
                    kids.append((c, _needed(below, c, shown) > len(seen), seen, -1, chance, False))
            first.append(len(items) if kids else -1)
            count_children.append(len(kids))
            items.extend(kids)
            i += 1
        nodes = np.array([it[0] for it in items], np.int64)
        player = below.player[nodes].astype(np.int64)
        player[[it[1] for it in items]] = _DEAL
        cut = np.array([it[5] for it in items], np.bool_)
        player[cut] = SHOWDOWN  # a leaf: a showdown at the stakes leaves() gives
        contrib = below.contrib[nodes].astype(np.float64)
        if leaves is not None:
            stakes: dict[int, tuple[float, float]] = {}
            for q in np.flatnonzero(cut).tolist():
                n = int(nodes[q])
                if n not in stakes:
                    win, lose = (float(x) for x in leaves(n))
                    stakes[n] = (-lose, win)  # player 0 wins the other's, loses its own
                contrib[q] = stakes[n]
        board_rows: dict[tuple[int, ...], int] = {}
        node_board = np.array([board_rows.setdefault(it[2], len(board_rows)) for it in items])
        boards = tuple(board_rows)
        blocked = np.zeros((max(len(deal_rows), 1), len(hands)), np.uint8)
        for dealt, row in deal_rows.items():
            blocked[row] = np.isin(hands, dealt).any(axis=1)
        showdown_rows: dict[tuple[int, ...], int] = {}
        board_of = np.zeros(len(items), np.int64)
        for j, it in enumerate(items):
            if player[j] == SHOWDOWN:
                board_of[j] = showdown_rows.setdefault(it[2], len(showdown_rows))
        strength = np.full((max(len(showdown_rows), 1), len(hands)), -1, np.int64)
        for full, row in showdown_rows.items():
            apart = np.flatnonzero(~np.isin(hands, full).any(axis=1))
            if getattr(game, "standard_hands", False):  # 52 cards: one compiled batch
                from nashzoo.vector.hands import strengths

                seven = np.hstack([hands[apart], np.tile(np.array(full), (apart.size, 1))])
                raw = strengths(seven).astype(np.int64)
                strength[row, apart] = np.unique(raw, return_inverse=True)[1]  # dense ranks
                continue
            values = [game.strength([*map(int, hands[h]), *full]) for h in apart]
            ranks = {v: q for q, v in enumerate(sorted(set(values)))}  # values may be tuples
            strength[row, apart] = [ranks[v] for v in values]
        return cls(
            tree=below, board=board, root=int(start), nodes=nodes, path=tuple(path[::-1]),
            path_tree=tree, hands=hands, boards=boards, node_board=node_board, player=player,
            first_child=np.array(first, np.int64), num_children=np.array(count_children, np.int64),
            deal=np.array([it[3] for it in items], np.int64), blocked=blocked, board_of=board_of,
            strength=strength, order=np.argsort(strength, axis=1, kind="stable"),
            node_chance=np.array([it[4] for it in items]), contrib=contrib,
            depth_limited=leaves is not None,
        )  # fmt: skip

    @staticmethod
    def count_nodes(
        tree: BettingTree, node: int, board_size: int, *, depth_limited: bool = False
    ) -> int:
        """The nodes of the subgame from betting ``node`` with ``board_size`` cards out
        (deals and their copies included), counted without building it: what
        :meth:`at` would hold (with ``depth_limited``, what it holds given ``leaves``)."""
        d = tree.game.definition
        shown = np.cumsum(d.num_board_cards)

        @functools.cache
        def below(n: int, out: int) -> int:
            total = 1
            if tree.player[n] >= 0:
                fc = int(tree.first_child[n])
                for c in range(fc, fc + int(tree.num_children[n])):
                    need = _needed(tree, c, shown)
                    if need > out:  # a deal, then a copy per deal (a leaf where cut)
                        copy = 1 if depth_limited and tree.player[c] >= 0 else below(c, need)
                        total += 1 + comb(d.num_cards - out, need - out) * copy
                    else:
                        total += below(c, out)
            return total

        return below(int(node), int(board_size))

    @property
    def num_hands(self) -> int:
        return int(self.hands.shape[0])

    @property
    def chance(self) -> float:
        """The probability of dealing one pair of hands and the root's board."""
        return float(self.node_chance[0])

    def hand_index(self, cards: Sequence[int]) -> int:
        """The row of :attr:`hands` holding ``cards`` (in any order).

        Raises:
            InvalidParameterError: not a hand of this subgame (a card on the board, or the
                wrong number of cards).
        """
        want = np.sort(np.asarray(cards, np.int64))
        rows = np.zeros(0, np.int64)
        if want.size == self.hands.shape[1]:
            rows = np.flatnonzero((self.hands == want).all(axis=1))
        if len(rows) != 1:
            raise InvalidParameterError(
                f"{list(map(int, cards))} is not a hand of this subgame (its hands are "
                f"{self.hands.shape[1]} cards off the board {list(self.board)})."
            )
        return int(rows[0])

    @functools.cached_property
    def _index(self) -> dict[tuple[int, tuple[int, ...]], int]:
        return {
            (int(n), self.boards[b]): j
            for j, (n, b) in enumerate(zip(self.nodes, self.node_board))
            if self.player[j] != _DEAL
        }

    def local(self, node: int, board: Sequence[int] | None = None) -> int:
        """The subgame's node of betting ``node`` (a node of :attr:`tree`) on ``board``
        (the cards out there; ``None``: the root's board).

        Raises:
            InvalidParameterError: not a node of this subgame.
        """
        key = (int(node), self.board if board is None else tuple(int(c) for c in board))
        found = self._index.get(key)
        if found is None:
            raise InvalidParameterError(
                f"Node {node} on the board {list(key[1])} is not in the subgame below node "
                f"{self.root} on {list(self.board)}."
            )
        return found

    def memory_bytes(self) -> int:
        """What a re-solve holds at most: the blueprint, the result, regrets, averages
        and the current strategy for every (node, hand, action), and two reaches and a
        value for every (node, hand) (measured on Limit Hold'em's turn: 1.5 GiB at the
        peak against 1.8 GiB counted)."""
        return self.bytes_for(self.tree, self.nodes.size, self.num_hands)

    @staticmethod
    def bytes_for(tree: BettingTree, nodes: int, hands: int) -> int:
        """:meth:`memory_bytes` of a subgame of ``nodes`` nodes and ``hands`` hands."""
        return 8 * nodes * hands * (5 * tree.game.num_distinct_actions + 3)

    def _board_at(self, node: int) -> list[int]:
        """The board cards dealt by ``node``'s round (a node on the way to the root)."""
        rounds = self.path_tree.game.definition.num_board_cards
        shown = sum(rounds[: int(self.path_tree.round[node]) + 1])
        return list(self.board[:shown])

    def ranges(self, probabilities: HandProbabilities) -> np.ndarray:
        """``(2, hands)``: each player's own reach of the root for each hand under the
        blueprint ``probabilities`` (Bayes' rule along :attr:`path`: the product of the
        blueprint's probabilities of the actions each player took)."""
        out = np.ones((2, self.num_hands))
        for node, a in self.path:
            p = int(self.path_tree.player[node])
            out[p] *= probabilities([node], self._board_at(node), self.hands)[0][:, a]
        return out

    @functools.cached_property
    def _common(self) -> tuple[object, ...]:
        """The arguments every kernel takes first: the subgame's arrays and its hands."""
        t, nodes = self.tree, self.nodes
        return (
            self.player, self.first_child, self.num_children,
            np.ascontiguousarray(t.action[nodes]), self.contrib,
            np.ascontiguousarray(t.folder[nodes]), np.ascontiguousarray(t.legal_mask[nodes]),
            self.deal, self.blocked, self.board_of, self.node_chance, self.hands, self.order,
            self.strength, self.tree.game.definition.num_cards,
        )  # fmt: skip

    def best_response_values(
        self, player: int, ranges: np.ndarray, blueprint: np.ndarray
    ) -> np.ndarray:
        """``player``'s counterfactual best-response value for each of its hands against
        the other player's part of ``blueprint`` (``(nodes, hands, actions)``) from the
        other's root range in ``ranges`` (``(2, hands)``): the most it can win below the
        root, weighted by chance and the other's reach (its own reach left out), as
        :meth:`nashzoo.agents.cfr.subgame.Subgame.counterfactual_best_responses` gives
        it on a compiled tree."""
        player = check_int("player", player, 0, 1)
        ranges, blueprint = self._checked(ranges, blueprint)
        _compiled()
        out = np.zeros(self.num_hands)
        _best_response(1 - player, *self._common, ranges[1 - player], blueprint, out)
        return out

    def _checked(self, ranges: np.ndarray, blueprint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``ranges`` and ``blueprint`` as float64 arrays of this subgame's shapes.

        Raises:
            InvalidParameterError: another shape.
        """
        size, hands = self.nodes.size, self.num_hands
        n_actions = self.tree.game.num_distinct_actions
        ranges = np.ascontiguousarray(ranges, np.float64)
        blueprint = np.ascontiguousarray(blueprint, np.float64)
        if ranges.shape != (2, hands) or blueprint.shape != (size, hands, n_actions):
            raise InvalidParameterError(
                f"This subgame takes ranges of shape {(2, hands)} and a blueprint of shape "
                f"{(size, hands, n_actions)}, received {ranges.shape} and {blueprint.shape}."
            )
        return ranges, blueprint

    def blueprint_at(self, probabilities: HandProbabilities) -> np.ndarray:
        """``(nodes, hands, actions)``: the blueprint's distribution at each decision of
        the subgame for each hand that misses its board (zeros at its ends and deals, and
        for the hands holding a card dealt there)."""
        out = np.zeros((self.nodes.size, self.num_hands, self.tree.game.num_distinct_actions))
        by_board: dict[int, list[int]] = {}
        for j in np.flatnonzero(self.player >= 0):
            by_board.setdefault(int(self.node_board[j]), []).append(int(j))
        for b, rows in by_board.items():
            board = self.boards[b]
            apart = np.flatnonzero(~np.isin(self.hands, board).any(axis=1))
            found = probabilities(
                [int(self.nodes[j]) for j in rows], list(board), self.hands[apart]
            )
            out[np.ix_(np.array(rows), apart)] = found
        return out


def resolve_endgame(
    subgame: Endgame,
    us: int,
    ranges: np.ndarray,
    blueprint: np.ndarray,
    *,
    iterations: int = 1000,
    gadget: str = "maxmargin",
    seconds: float | None = None,
    sample_deals: bool = False,
    seed: int = 0,
    cbv: np.ndarray | None = None,
    solver: str = "cfr+",
) -> tuple[np.ndarray, int]:
    """``us``'s strategy in ``subgame`` solved again by CFR+ (or ``solver``) from the root
    ``ranges`` (:meth:`Endgame.ranges`) and ``blueprint`` (:meth:`Endgame.blueprint_at`),
    the opponent's root range set by ``gadget`` as
    :func:`nashzoo.agents.cfr.subgame.resolve` sets it. Runs ``iterations``, or fewer where
    ``seconds`` run out first (counted from the call, the opponent's best responses and the
    arrays included; at least one iteration, in batches of about a tenth of ``seconds``).
    Returns ``(strategy, iterations run)``: ``(nodes, hands, actions)``, ``us``'s re-solved
    distribution at its decisions (the blueprint's where the solve never reached them), the
    blueprint elsewhere. With ``sample_deals``, each iteration walks one card of each deal,
    drawn from ``seed`` (public chance sampling: on Limit Hold'em's turn, one river card of
    48, an iteration about 40 times cheaper and noisier); the opponent's best-response
    values are exact either way. ``cbv``: those values
    (``subgame.best_response_values(1 - us, ranges, blueprint)``) where the caller has
    them already. ``solver``: one of
    :data:`SOLVERS`, ``"cfr+"`` (regrets floored at 0, averages weighted by the iteration
    number) or ``"lcfr"``, Linear CFR (Brown & Sandholm, AAAI 2019: every regret, positive
    or negative, kept ``t / (t + 1)`` after iteration ``t``, the same linear average); the
    two are compared on heads-up no-limit's river subgames by
    ``benchmarks/subgame_solving.py --games solvers``.

    Raises:
        InvalidParameterError: ``us`` not 0 or 1, ``iterations`` below 1, an unknown gadget
            or solver, ``seconds`` not positive, or arrays of the wrong shape.
    """
    begun = time.perf_counter()
    us = check_int("us", us, 0, 1)
    iterations = check_int("iterations", iterations, 1)
    mode = GADGETS.index(check_choice("gadget", gadget, GADGETS))
    if seconds is not None and not seconds > 0:
        raise InvalidParameterError(f"A re-solving budget is seconds > 0, received {seconds!r}.")
    ranges, blueprint = subgame._checked(ranges, blueprint)
    size, hands, n_actions = blueprint.shape
    common = subgame._common
    if cbv is None:
        cbv = subgame.best_response_values(1 - us, ranges, blueprint)
    root_opp = np.ones(hands) if mode else ranges[1 - us]
    regret = np.zeros((size, hands, n_actions))
    avg = np.zeros((size, hands, n_actions))
    state = np.zeros((hands, 2))
    rng = rng_state(check_int("seed", seed, 0))
    discount = _DISCOUNTS[check_choice("solver", solver, SOLVERS)]
    scratch = (np.zeros((2, size, hands)), np.zeros((size, hands)),
               np.zeros((size, hands, n_actions)), np.ones(size, np.bool_))  # fmt: skip
    start, done, batch = time.perf_counter(), 0, 1  # the pace from here; the budget from begun
    while done < iterations:
        batch = iterations - done if seconds is None else min(batch, iterations - done)
        _cfr_plus(done + 1, batch, us, mode, *common, ranges[us], root_opp, cbv, regret, avg,
                  state, bool(sample_deals), rng, *scratch, discount)  # fmt: skip
        done += batch
        spent = time.perf_counter() - start
        if seconds is not None:
            if time.perf_counter() - begun >= seconds:
                break
            # batches of a tenth of the budget at the pace so far (a turn's iteration
            # takes a large share of a second; a river's, a thousandth)
            batch = max(1, min(10 * batch, int(0.1 * seconds * done / max(spent, 1e-9))))
    out = blueprint.copy()
    totals = avg.sum(axis=2)
    mine = (subgame.player == us)[:, None] & (totals > 0)
    out[mine] = avg[mine] / totals[mine][:, None]
    return out, done


def excess_gain(
    subgame: Endgame, us: int, ranges: np.ndarray, strategy: np.ndarray, before: np.ndarray
) -> float:
    """How much more the opponent's best response gains against ``us`` playing
    ``strategy`` in ``subgame`` than ``before`` (its values against the blueprint), with
    its best hand, over the largest of ``before``: above :data:`UNSAFE`, a re-solve
    breaks the gadget's promise (the agent plays the blueprint instead)."""
    after = subgame.best_response_values(1 - us, ranges, strategy)
    return float((after - before).max()) / max(float(np.abs(before).max()), 1e-300)


def tabular_hand_probabilities(policy: TabularPolicy) -> HandProbabilities:
    """A :class:`~nashzoo.tree.TabularPolicy` of a compiled heads-up game of the poker
    engine, read as :data:`HandProbabilities` (each hand's information set found by its
    string), so that the vectorised re-solver runs on games the compiled one also solves."""
    game = policy.game
    if not isinstance(game, PokerGame):
        raise InvalidParameterError(
            f"Hand probabilities come from a policy of the poker engine, received one of {game}."
        )
    tree = betting_tree(game)

    def probabilities(nodes: list[int], board: list[int], hands: np.ndarray) -> np.ndarray:
        out = np.empty((len(nodes), len(hands), game.num_distinct_actions))
        for k, node in enumerate(nodes):
            state = _replayed(tree, int(node), board)
            p = int(tree.player[node])
            for h, hand in enumerate(np.asarray(hands)):
                text = state.information_state_string_as(p, [int(c) for c in hand])
                out[k, h] = policy.probs[policy.index(text)]
        return out

    return probabilities


def _replayed(tree: BettingTree, node: int, board: Sequence[int]) -> PokerState:
    """A state at betting ``node`` with ``board``'s cards on the board (as many as its
    round shows) and any other cards in the players' hands."""
    game = tree.game
    actions: list[int] = []
    up = node
    while tree.parent[up] >= 0:
        actions.append(int(tree.action[up]))
        up = int(tree.parent[up])
    spare = [c for c in range(game.definition.num_cards) if c not in board]
    deck = iter(spare[: game.private_cards] + list(board))
    state = game.new_initial_state()
    for a in reversed(actions):
        while state.current_player() == CHANCE:
            state.apply_action(next(deck))
        state.apply_action(a)
    while state.current_player() == CHANCE:
        state.apply_action(next(deck))
    return state


# -- playing ---------------------------------------------------------------------------------
class ResolvingAbstractionAgent(AbstractionAgent):
    """A card-abstraction blueprint (:class:`~nashzoo.agents.cfr.abstract_policy.
    AbstractionAgent`) that re-solves the last ``streets`` betting rounds on the real
    cards: at its first decision of the first of them in a hand it solves the public
    subgame from that round's start to the end of the hand (:class:`Endgame`: the
    ranges Bayes' rule gives under the blueprint along the betting, the gadget's
    terminate values the opponent's best responses to the blueprint, every card chance
    can deal later) and plays the result at every later decision of the hand; earlier
    rounds are the blueprint's. Where the real bets are read onto the blueprint's tree by
    translation (no-limit), the subgame grows instead from the real chips in at the
    round's start (:func:`~nashzoo.abstraction.betting.betting_subtree`), with the
    abstraction's sizes for that round and every size played on it so far, so that an
    opponent's bet the abstraction does not make is an action of the subgame, as
    Libratus adds it; a new real size means a new subgame, solved from the round's
    start. The blueprint inside it is the plain agent's reading of each decision's
    bets.

    A subgame whose re-solve would hold more than ``max_memory`` bytes is played from
    the blueprint instead, with a warning (counted in :attr:`fallbacks`). With a gadget,
    a re-solve that would give some opponent hand more than against the blueprint (by
    over :data:`UNSAFE` of the largest value: a solve cut short by its budget) is
    replaced by the blueprint too, with a warning (counted in :attr:`unsafe`). On Limit
    Hold'em the river's subgame holds 4 MiB and the turn's 1.8 GiB (within the default
    2 GiB; :meth:`Endgame.count_nodes` gives the size before anything is built); the
    flop's (5.2 million nodes) does not fit.

    Args:
        policy, game, seed, name: as :class:`AbstractionAgent`'s.
        iterations: CFR+ iterations a re-solve runs at most.
        seconds: time a re-solve may take, its building, ranges and blueprint included
            (``None``: ``iterations`` alone decide).
        gadget: one of :data:`~nashzoo.agents.cfr.subgame.GADGETS`.
        max_memory: the most bytes a re-solve may hold.
        streets: the betting rounds re-solved, counted from the last (1: Hold'em's
            river; 2: from the turn, every river card in the subgame).
        continual: with ``streets`` above 1, each later round is solved again from its
            own start (the river's 1,081 hands, a thousand times cheaper than the
            turn's subgame), its ranges and the opponent's best-response values carried
            from the earlier round's solve (:func:`carried`): continual re-solving, safe
            against what that solve played. ``False``: the later rounds are played from
            the first re-solved round's solve.
        sample_deals: public chance sampling in subgames with deals (each iteration walks
            one card of each deal: :func:`resolve_endgame`); ``None`` (the default) where
            a subgame has deals, exact on the last round. Measured on Limit Hold'em's
            turn (random ranges and blueprint, ``benchmarks/subgame_solving.py``): in
            5 s, 309 sampled iterations leave the opponent's smallest margin under its
            blueprint values at +0.055 of the largest value, where 8 exact iterations
            leave it at -0.309 (less safe than the blueprint).
        solver: the re-solve's regret minimiser, one of :data:`SOLVERS`
            (:func:`resolve_endgame`).
        values: a :class:`~nashzoo.agents.ismcts.blueprint_values.BlueprintValues` of
            the game, fitted to this blueprint's play (``nashzoo values``), or its file:
            with ``streets=2`` the round before the last is solved depth-limited, its
            subgame cut where the last board card is dealt and each cut valued by the
            network as the blueprint's continuation (:meth:`Endgame.at`'s ``leaves``).
            On Limit Hold'em's turn that is about 460 nodes instead of 11,691: a CFR+
            iteration about 25 times cheaper, exact over the river cards. The last round
            is then solved from its own start, its ranges carried from the turn's solve.

    Raises:
        InvalidParameterError: a bad policy or game, ``iterations`` below 1, ``seconds``
            not positive, an unknown gadget, a ``max_memory`` below 1, ``streets``
            not between 1 and the rounds after the first, or ``values`` of another game,
            with ``streets`` other than 2 or without ``continual``.
    """

    def __init__(
        self,
        policy: AbstractPolicy | str | Path,
        game: Any = None,
        *,
        iterations: int = 1000,
        seconds: float | None = 1.0,
        gadget: str = "maxmargin",
        max_memory: int = 2**31,
        streets: int = 1,
        continual: bool = True,
        sample_deals: bool | None = None,
        solver: str = "cfr+",
        values: Any = None,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(policy, game, seed=seed, name=name)
        self.iterations = check_int("iterations", iterations, 1)
        self.solver = check_choice("solver", solver, SOLVERS)
        rounds = self.policy.game.definition.num_rounds
        self.streets = check_int("streets", streets, 1, max(rounds - 1, 1))
        self.continual = bool(continual)
        self.sample_deals = sample_deals
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise InvalidParameterError(
                f"A re-solving budget is seconds > 0 (or None), received {seconds!r}."
            )
        self.seconds = None if seconds is None else float(seconds)
        self.gadget = check_choice("gadget", gadget, GADGETS)
        self.max_memory = check_int("max_memory", max_memory, 1)
        self.values = self._checked_values(values)
        if name is None:
            budget = f"{self.seconds:g}s" if self.seconds is not None else str(self.iterations)
            where = "" if self.streets == 1 else f"{street_name(rounds, self.streets)}:"
            self.name = f"{self.name}+resolve:{where}{budget}"
            if self.values is not None:
                self.name += "+values"
        self._solved: OrderedDict[tuple[Any, ...], tuple[Endgame | None, np.ndarray | None]] = (
            OrderedDict()
        )
        self.resolves = 0
        """Subgames re-solved so far."""
        self.resolve_seconds: list[float] = []
        """The time each re-solve took (ranges and values included)."""
        self.resolve_iterations: list[int] = []
        """The CFR+ iterations each re-solve ran."""
        self.resolve_rounds: list[int] = []
        """The betting round each re-solve started from."""
        self.fallbacks = 0
        """Subgames played from the blueprint because their re-solve was over ``max_memory``."""
        self.unsafe = 0
        """Re-solves replaced by the blueprint because they broke the gadget's promise."""
        self._wide: PokerGame | None = None
        self._river_sizes: tuple[float, ...] = ()

    def _checked_values(self, values: Any) -> Any:
        """``values`` (a BlueprintValues or its file) checked against the settings."""
        if values is None:
            return None
        from nashzoo.agents.ismcts.blueprint_values import BlueprintValues

        if isinstance(values, (str, Path)):
            values = BlueprintValues.load(values, self.game)
        if not isinstance(values, BlueprintValues):
            raise InvalidParameterError(
                f"values is a BlueprintValues (or its file), received {type(values).__name__}."
            )
        if values.game != self.game:
            raise InvalidParameterError(
                f"The values are of {values.game}, the re-solving agent plays {self.game}."
            )
        if self.streets != 2 or not self.continual:
            raise InvalidParameterError(
                "values make the re-solve of the round before the last depth-limited: they "
                "need streets=2 (resolve:turn:... on Hold'em) and continual=True, received "
                f"streets={self.streets}, continual={self.continual}."
            )
        return values

    def _leaf_values(self, node: int) -> tuple[float, float]:
        """:meth:`Endgame.at`'s ``leaves``: player 0's values at betting ``node`` (the
        last round's first decision) with the better and the worse hand."""
        tree = self.policy.abstraction.betting
        return self.values.outcome_values(
            tree.contrib[node], int(tree.round[node]), int(tree.player[node])
        )

    def _hands(self) -> HandProbabilities:
        def probabilities(nodes: list[int], board: list[int], hands: np.ndarray) -> np.ndarray:
            return self.policy.probabilities_at_nodes(hands, board, nodes)

        return probabilities

    def _solution(
        self, board: list[int], node: int, us: int | None = None
    ) -> tuple[Endgame | None, np.ndarray | None]:
        """The subgame holding ``node`` on ``board`` and ``us``'s (the acting player's)
        re-solved strategy in it (``None``, and the subgame too where it is not built:
        over the memory cap), solved on first use. The subgame starts at the first
        re-solved round's start, or with ``continual`` at ``node``'s round's, its ranges
        and blueprint then the earlier round's solve (:func:`carried`)."""
        tree = self.policy.abstraction.betting
        us = int(tree.player[node]) if us is None else us
        d = self.policy.game.definition
        first = d.num_rounds - self.streets
        begin = int(tree.round[node]) if self.continual else first
        start_node = node
        while tree.parent[start_node] >= 0 and tree.round[tree.parent[start_node]] >= begin:
            start_node = int(tree.parent[start_node])
        shown = int(np.sum(d.num_board_cards[: begin + 1]))
        key = (tuple(board[:shown]), start_node, us)
        found = self._solved.get(key)
        if found is not None:
            self._solved.move_to_end(key)
            return found
        hands = self._hands()
        if begin > first:  # continual: what the solve of the round before played
            outer, played = self._solution(board, int(tree.parent[start_node]), us)
            if outer is not None and played is not None:
                hands = carried(outer, played, hands)
        start = time.perf_counter()
        subgame: Endgame | None = None
        strategy: np.ndarray | None = None
        leaves = self._leaf_values if self.values is not None and begin == first else None
        if self._fits(tree, start_node, board[:shown], depth_limited=leaves is not None):
            subgame = Endgame.at(tree, board[:shown], start_node, leaves=leaves)
            strategy = self._solve(subgame, us, subgame.ranges(hands),
                                   subgame.blueprint_at(hands), key, start, begin)  # fmt: skip
        self._keep(key, (subgame, strategy))
        return subgame, strategy

    def _solve(
        self, subgame: Endgame, us: int, ranges: np.ndarray, blueprint: np.ndarray,
        key: tuple[Any, ...], start: float, round_: int,
    ) -> np.ndarray:  # fmt: skip
        """``us``'s re-solve of ``subgame``, counted; with a gadget, checked against the
        gadget's promise: where some opponent hand would gain more against it than
        against ``blueprint`` (by over :data:`UNSAFE` of the largest such value: a solve
        cut short by its budget, whose first iterations play near uniformly), the
        blueprint instead, with a warning (counted in :attr:`unsafe`)."""
        before = subgame.best_response_values(1 - us, ranges, blueprint)  # once, for both
        seconds = self.seconds
        if seconds is not None:  # the budget counts from the subgame's building
            seconds = max(seconds - (time.perf_counter() - start), 1e-9)
        strategy, done = resolve_endgame(
            subgame, us, ranges, blueprint, iterations=self.iterations, gadget=self.gadget,
            seconds=seconds, cbv=before, solver=self.solver, **self._sampling(subgame, key),
        )  # fmt: skip
        if self.gadget != "none":
            gain = excess_gain(subgame, us, ranges, strategy, before)
            if gain > UNSAFE:
                self.unsafe += 1
                log.warning(
                    "%s: the re-solve from round %d on %s ran %d %s iterations and would "
                    "give an opponent hand %.3g of the largest value more than the blueprint "
                    "does; playing the blueprint there (a larger budget solves further)",
                    self.name, round_, list(subgame.board), done, self.solver.upper(), gain,
                )  # fmt: skip
                strategy = blueprint
        self._count(start, done, round_)
        return strategy

    def _sampling(self, subgame: Endgame, key: tuple[Any, ...]) -> dict[str, Any]:
        """``resolve_endgame``'s sampling settings for ``subgame``: sampled where
        :attr:`sample_deals` says so (by default, where it has deals), seeded by the
        agent's seed and the subgame."""
        sample = self.sample_deals
        if sample is None:  # a depth-limited subgame's deals are cheap: exact
            sample = bool((subgame.player == _DEAL).any()) and not subgame.depth_limited
        return {
            "sample_deals": sample,
            "seed": (zlib.crc32(repr(key).encode()) + self._reading) % 2**31,
        }

    def _fits(
        self, tree: BettingTree, node: int, board: Sequence[int], *, depth_limited: bool = False
    ) -> bool:
        """Whether the re-solve of the subgame from ``node`` on ``board`` fits in
        ``max_memory`` (where it does not: a warning, and a count in :attr:`fallbacks`),
        counted before it is built."""
        d = tree.game.definition
        nodes = Endgame.count_nodes(tree, node, len(board), depth_limited=depth_limited)
        hands = comb(d.num_cards - len(board), d.num_hole_cards)
        need = Endgame.bytes_for(tree, nodes, hands)
        if need <= self.max_memory:
            return True
        self.fallbacks += 1
        log.warning(
            "%s: re-solving from round %d on %s would hold %.1f MiB (%s nodes), over "
            "max_memory (%.1f MiB); playing the blueprint there",
            self.name, int(tree.round[node]), list(board), need / 2**20, f"{nodes:,}",
            self.max_memory / 2**20,
        )  # fmt: skip
        return False

    def _count(self, start: float, done: int, round_: int) -> None:
        self.resolves += 1
        self.resolve_rounds.append(round_)
        self.resolve_iterations.append(done)
        self.resolve_seconds.append(time.perf_counter() - start)

    def _keep(self, key: tuple[Any, ...], solved: tuple[Endgame | None, np.ndarray | None]) -> None:
        self._solved[key] = solved
        if len(self._solved) > _KEPT:
            self._solved.popitem(last=False)

    def _re_solved(self, board: list[int], node: int) -> bool:
        """Whether ``node`` is a decision of a re-solved round with that round's board out."""
        d = self.policy.game.definition
        r = int(self.policy.abstraction.betting.round[node])
        return r >= d.num_rounds - self.streets and len(board) == sum(d.num_board_cards[: r + 1])

    def _at(self, hole: tuple[int, ...], board: list[int], node: int) -> np.ndarray:
        if not self._re_solved(board, node):
            return super()._at(hole, board, node)
        subgame, strategy = self._solution(board, node)
        if subgame is None or strategy is None:
            return super()._at(hole, board, node)
        return strategy[subgame.local(node, board), subgame.hand_index(hole)].copy()

    def _many(self, info_state: str, holes: np.ndarray) -> np.ndarray:
        _, board, node, _ = self.policy._locate(info_state)
        if not self._re_solved(board, node):
            return super()._many(info_state, holes)
        subgame, strategy = self._solution(board, node)
        if subgame is None or strategy is None:
            return super()._many(info_state, holes)
        rows = [subgame.hand_index(hole) for hole in np.asarray(holes)]
        return strategy[subgame.local(node, board)][rows]

    # -- no-limit: the river subgame grown from the real bets -----------------------------
    def _translated(self, text: str, mask: np.ndarray) -> np.ndarray:
        """On the last round, the re-solve of the subgame grown from the real bets
        (:meth:`_real_river`); elsewhere, and where that cannot be built, the plain
        agent's reading of the bets onto the tree."""
        from nashzoo.abstraction.small import parse_info_state

        player, hole, board, bets = parse_info_state(self.game, text)
        flat = [c for part in board for c in part]
        played = self._real_river(player, hole, flat, bets, mask)
        return super()._translated(text, mask) if played is None else played

    def _wide_game(self) -> PokerGame:
        """The real game with the abstraction's last-round raise sizes added: the game the
        real subgames grow in (every real raise of the hand replays in it)."""
        if self._wide is None:
            last = self.policy.game.definition.num_rounds - 1
            actions = self.policy.abstraction.actions
            kept = actions.rounds[last] if actions is not None else self.policy.game.raises
            self._river_sizes = tuple(kept)
            sizes = tuple(sorted(set(self.game.raises) | set(kept)))
            self._wide = PokerGame(self.game.definition, raises=sizes, name=self.game.short_name)
        return self._wide

    def _real_river(
        self, player: int, hole: tuple[int, ...], board: list[int], bets: str, mask: np.ndarray
    ) -> np.ndarray | None:
        """The re-solved distribution over the real game's actions at a last-round
        decision of a no-limit game: the subgame from the round's first decision with the
        real chips in, the abstraction's raise sizes for that round and every size played
        on it so far (the opponent's real bets among them), ranges read along the bets
        before it by translation. ``None`` before the last round, or where the bets do
        not read onto the tree."""
        d = self.game.definition
        last = d.num_rounds - 1
        parts = bets.split("/")
        if len(parts) != d.num_rounds or len(board) != sum(d.num_board_cards):
            return None
        pre = "/".join(parts[:last]) + "/"
        found = self._read(pre, None)
        tree = self.policy.abstraction.betting
        if found is None or tree.player[found[0]] < 0 or tree.round[found[0]] != last:
            return None
        wide = self._wide_game()
        state = wide.new_initial_state()
        used: set[float] = set()
        tokens = [(r, t) for r, part in enumerate(parts) for t in re.findall(r"[fc]|r\d+", part)]
        river: PokerState | None = None
        for r, token in tokens:
            deal_any(state)
            if r == last and river is None:
                river = state.clone()
            action = _action_of(state, token)
            if action is None:
                return None
            size = wide.raises[action - RAISE] if RAISE <= action < wide.all_in else None
            if r == last and size is not None and size not in self._river_sizes:
                used.add(size)  # a size the round's abstraction lacks
            state.apply_action(action)
        if river is None:
            deal_any(state)
            river = state.clone()
        key = ("real", tuple(board), pre, frozenset(used), player)
        found_solve = self._solved.get(key)
        if found_solve is None:
            found_solve = self._solve_real(key, river, pre, found[0], board, used, player)
        subgame, strategy = found_solve
        if subgame is None or strategy is None:
            return None
        node = 0  # the decision reached by the round's real bets, in the subtree
        sub = subgame.tree
        for r, token in tokens:
            if r == last:
                node = _child_of(sub, node, token)
        p = int(sub.player[node])
        dist = strategy[subgame.local(node), subgame.hand_index(hole)]
        spent = [int(x) for x in sub.contrib[node]]
        moves, kinds = moves_of(sub, node, p)
        out = np.zeros(self.game.num_distinct_actions)
        for a, target in zip(moves, onto(kinds, self.game, mask, spent, p)):
            out[target] += dist[a]
        return out / out.sum()

    def _solve_real(
        self, key: tuple[Any, ...], river: PokerState, pre: str, root: int, board: list[int],
        used: set[float], us: int,
    ) -> tuple[Endgame | None, np.ndarray | None]:  # fmt: skip
        """Grow, re-solve and keep the real subgame of :meth:`_real_river`."""
        wide = self._wide_game()
        kept = set(self._river_sizes) | used

        def keep(state: PokerState, a: int) -> bool:
            return a < RAISE or a == wide.all_in or wide.raises[a - RAISE] in kept

        start = time.perf_counter()
        sub = betting_subtree(river, keep)
        subgame: Endgame | None = None
        strategy: np.ndarray | None = None
        if self._fits(sub, 0, board):
            subgame = Endgame.at(self.policy.abstraction.betting, board, root, subtree=sub)
            hands = self._hands()
            blueprint = self._blueprint_on(subgame, pre, board)
            last = self.policy.game.definition.num_rounds - 1
            strategy = self._solve(subgame, us, subgame.ranges(hands), blueprint, key, start, last)
        self._keep(key, (subgame, strategy))
        return subgame, strategy

    def _blueprint_on(self, subgame: Endgame, pre: str, board: list[int]) -> np.ndarray:
        """The blueprint as it plays the real subgame: at each decision, the real bets to
        it read onto the abstraction's tree, and its raises played as the subtree's
        nearest (a call where the bets leave the tree)."""
        sub, wide = subgame.tree, self._wide_game()
        readings = []
        for n in subgame.nodes:
            n = int(n)
            if sub.player[n] < 0:
                continue
            readings.append((n, self._read(pre + _bets_below(sub, n), int(sub.player[n]))))
        abstract_nodes = [found[0] for _, found in readings if found is not None]
        probs = self.policy.probabilities_at_nodes(subgame.hands, board, abstract_nodes)
        out = np.zeros((subgame.nodes.size, subgame.num_hands, wide.num_distinct_actions))
        tree = self.policy.abstraction.betting
        k = 0
        for n, found in readings:
            row = subgame.local(n)
            if found is None:
                out[row][:, CALL] = 1.0
                continue
            m, _ = found
            p = int(sub.player[n])
            moves, kinds = moves_of(tree, m, p)
            mask = sub.legal_mask[n]
            for a, target in zip(moves, onto(kinds, wide, mask, list(sub.contrib[n]), p)):
                out[row][:, target] += probs[k][:, a]
            k += 1
        return out


def _action_of(state: PokerState, token: str) -> int | None:
    """The action of ``state``'s game that plays the ACPC ``token`` (``f``, ``c``,
    ``r<total>``) here, or ``None`` where it has none."""
    if token in ("f", "c"):
        return FOLD if token == "f" else CALL
    total = int(token[1:])
    for a in state.legal_actions():
        if a >= RAISE and state.raise_to(int(a)) == total:
            return int(a)
    return None


def _bets_below(tree: BettingTree, node: int) -> str:
    """The ACPC text of ``tree``'s bets from its root to ``node``."""
    out: list[str] = []
    while tree.parent[node] >= 0:
        a, up = int(tree.action[node]), int(tree.parent[node])
        out.append("fc"[a] if a < RAISE else f"r{int(tree.contrib[node, tree.player[up]])}")
        node = up
    return "".join(reversed(out))


def _child_of(tree: BettingTree, node: int, token: str) -> int:
    """``node``'s child by the ACPC ``token``."""
    first = int(tree.first_child[node])
    for k in range(first, first + int(tree.num_children[node])):
        a = int(tree.action[k])
        if (token == "f" and a == FOLD) or (token == "c" and a == CALL):
            return k
        if token[0] == "r" and a >= RAISE and tree.contrib[k, tree.player[node]] == int(token[1:]):
            return k
    raise InvalidParameterError(f"Node {node} has no child for {token!r}.")


def carried(outer: Endgame, strategy: np.ndarray, base: HandProbabilities) -> HandProbabilities:
    """The hand probabilities a later round's re-solve reads from an earlier round's
    solve (continual re-solving): at a node of ``outer`` on its board, ``strategy``'s
    rows there (the re-solving player's solved play, the opponent's blueprint), so that
    the later subgame's ranges follow what was played and its gadget's values are the
    opponent's best responses to the earlier solve; ``base`` (the blueprint) at the
    nodes before ``outer``'s root."""
    rows = {tuple(h): i for i, h in enumerate(outer.hands.tolist())}
    shown = np.cumsum(outer.tree.game.definition.num_board_cards)

    def probabilities(nodes: list[int], board: list[int], hands: np.ndarray) -> np.ndarray:
        out = np.empty((len(nodes), len(hands), strategy.shape[2]))
        mine = np.array([rows.get(tuple(h), -1) for h in np.asarray(hands).tolist()])
        before = []
        for k, n in enumerate(nodes):
            seen = tuple(board[: int(shown[int(outer.tree.round[n])])])
            j = outer._index.get((int(n), seen))
            if j is None or outer.player[j] < 0 or (mine < 0).any():  # not its decision
                before.append(k)
            else:
                out[k] = strategy[j][mine]
        if before:
            out[before] = base([nodes[k] for k in before], board, hands)
        return out

    return probabilities


def street_name(rounds: int, streets: int) -> str:
    """The name of the first of the last ``streets`` of ``rounds`` betting rounds
    (Hold'em's ``"river"``, ``"turn"``, ``"flop"``; ``"round R"`` in other games)."""
    if rounds == 4:
        return ("river", "turn", "flop", "preflop")[streets - 1]
    return f"round {rounds - streets}"


UNSAFE = 0.01
"""The most a re-solve may give some opponent hand beyond its best-response value against
the blueprint, as a share of the largest such value, before the agent plays the
blueprint instead (the solve's own error: after 1,000 river iterations about 0.002)."""

_KEPT = 8
"""Re-solved subgames an agent keeps (the oldest go first)."""
