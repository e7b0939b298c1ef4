"""Subgame re-solving on compiled trees: a blueprint's strategy in one public subgame solved
again with CFR+, safely (a gadget) or not (the blueprint's ranges held fixed).

Papers: Burch, Johanson & Bowling, "Solving Imperfect Information Games Using
Decomposition", AAAI 2014 (the re-solving gadget); Brown & Sandholm, "Safe and Nested
Subgame Solving for Imperfect-Information Games", NeurIPS 2017 (why unsafe re-solving can
raise exploitability, and the counterfactual best-response values the gadget keeps).

A public subgame is every history that shares one public state (here: the decision nodes
of one public history, and all below them); every information set that meets it lies in
it. Player ``p`` re-solves it so:

1. the roots' weights are what ``p`` does not control: chance's reach times ``p``'s own
   blueprint reach (the blueprint's range of ``p``, which the opponent knows);
2. the opponent's range at the roots is its choice. For each of the opponent's root
   views ``J`` (its private information), the gadget lets it *terminate* with its
   counterfactual best-response value against ``p``'s blueprint there, ``CBV(J)``, or
   *follow* into the subgame. A strategy that solves this game gives the opponent at most
   ``CBV(J)`` at every ``J``, so replacing the blueprint by it in the subgame cannot make
   ``p`` more exploitable (up to the solve's own error);
3. unsafe re-solving instead fixes the opponent's root range at its blueprint reach and
   solves the subgame as a game of its own: the opponent, free to change its range into
   the subgame, may then gain.

CFR+ (regret matching+, alternating updates, linearly weighted averages; Tammelin 2014)
solves the gadget game; the gadget's follow/terminate choice is a regret-matching+ node
of its own. Everything runs in one compiled loop over the subgame's nodes.

Depth-limited solving (Brown, Sandholm & Amos, "Depth-Limited Solving for
Imperfect-Information Games", NeurIPS 2018): with ``depth`` set, the re-solve keeps only
the subgame's first ``depth`` betting rounds; at each chance event that would start the
next one (a *leaf*), the opponent picks, at its view there, one of several continuation
strategies for the rest of the game, and ``p`` plays the blueprint beyond it. The
continuations are the blueprint and the blueprint biased toward each action in turn (its
probability times ``bias``, renormalised), so the re-solve must be robust to an opponent
who changes how it plays later, not only to one who plays the blueprint. Each leaf's
value under each continuation is one backward pass over the rest of the subgame with the
strategies fixed, computed before the solve; the solve then walks the kept rounds alone.
The gadget's values are still the opponent's best responses over the whole subgame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from nashzoo.agents.cfr.agent import TabularPolicyAgent
from nashzoo.agents.cfr.mccfr import regret_matching
from nashzoo.envs.protocol import Observation
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import CHANCE, TERMINAL
from nashzoo.tree.compile import GameTree, TreeArrays
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.policy import TabularPolicy
from nashzoo.tree.reach import forward_reach
from nashzoo.tree.views import views_of
from nashzoo.validation import check_choice, check_int, check_number

__all__ = [
    "GADGETS",
    "ResolvingAgent",
    "Subgame",
    "continuations",
    "public_subgames",
    "resolve",
    "resolve_all",
]

GADGETS = ("none", "resolve", "maxmargin")
"""The ways :func:`resolve` treats the opponent's range at the subgame's roots: held at the
blueprint's (``"none"``: unsafe), the re-solve gadget (Burch et al. 2014: each view may
terminate with its counterfactual best-response value) or max-margin (Moravčík et al.
2016; Brown & Sandholm 2017: the opponent enters where its margin over that value is
largest, so the smallest margin is made as large as it can be). Both gadgets are safe."""


# -- the subgame -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Subgame:
    """One public subgame of a compiled two-player tree.

    Attributes:
        tree: the game.
        roots: its root nodes (the decision nodes of one public history).
        nodes: every node of the subgame, in the tree's breadth-first order.
        infosets: the information sets inside it.
    """

    tree: GameTree
    roots: np.ndarray
    nodes: np.ndarray
    infosets: np.ndarray

    @classmethod
    def at(cls, tree: GameTree, infoset: int) -> Subgame:
        """The public subgame whose roots are the histories sharing ``infoset``'s public
        history at its depth.

        Raises:
            InvalidParameterError: not a two-player tree, an unknown set, or an information
                set that crosses the subgame's boundary (the public history does not
                separate the game there).
        """
        if tree.num_players != 2:
            raise InvalidParameterError(
                f"Subgame re-solving needs a two-player game, received {tree.num_players} players."
            )
        if not tree.single_depth_infosets:
            raise InvalidParameterError(
                "Subgame re-solving needs every information set's histories at one depth; "
                f"{tree.game} has sets spanning several."
            )
        infoset = check_int("infoset", infoset, 0, tree.num_infosets - 1)
        keys = _public_keys(tree)
        same = (tree.infoset >= 0) & (tree.depth == tree.infoset_depth[infoset])
        same[same] = keys[tree.infoset[same]] == keys[infoset]
        return cls._of_roots(tree, np.flatnonzero(same), _set_sizes(tree))

    @classmethod
    def _of_roots(cls, tree: GameTree, roots: np.ndarray, set_sizes: np.ndarray) -> Subgame:
        """The subgame below ``roots``, checked to hold each of its information sets whole
        (``set_sizes``: every set's number of histories)."""
        inside = np.zeros(tree.num_nodes, dtype=bool)
        frontier = roots
        while frontier.size:  # level by level: the children of the nodes inside
            inside[frontier] = True
            counts = tree.num_children[frontier]
            starts = np.repeat(tree.first_child[frontier], counts)
            offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            frontier = starts + offsets
        nodes = np.flatnonzero(inside)
        at_sets = tree.infoset[nodes]
        sets, here = np.unique(at_sets[at_sets >= 0], return_counts=True)
        crossing = sets[here != set_sizes[sets]]
        if crossing.size:
            raise InvalidParameterError(
                f"Information set {tree.infoset_keys[crossing[0]]!r} has histories inside "
                "and outside the subgame of that public history: not a public subgame."
            )
        return cls(tree, np.asarray(roots, dtype=np.int64), nodes, sets)

    def _profile(self, probs: np.ndarray) -> np.ndarray:
        """``probs`` as the tree's ``(num_infosets, num_actions)`` float64 profile."""
        out = np.ascontiguousarray(probs, dtype=np.float64)
        if out.shape != self.tree.legal_mask.shape:
            raise InvalidParameterError(
                f"A profile must be a {self.tree.legal_mask.shape} array of action "
                f"probabilities, received shape {out.shape}."
            )
        return out

    def ranges(self, profile: np.ndarray) -> np.ndarray:
        """What reaches each root under ``profile``: ``(roots, 3)`` columns chance's
        reach, player 0's own reach, player 1's own reach (each player's range over its
        private information is its column times chance's, summed by view)."""
        tree, probs = self.tree, self._profile(profile)
        out = np.empty((self.roots.size, 3))
        out[:, 0] = views_of(tree).chance_reach[self.roots]
        own, others = np.empty(tree.num_nodes), np.empty(tree.num_nodes)
        for p in range(2):
            forward_reach(tree, p, probs, own, others)
            out[:, 1 + p] = own[self.roots]
        return out

    def counterfactual_best_responses(
        self, profile: np.ndarray, player: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``player``'s counterfactual best-response value against the other player's
        part of ``profile`` in this subgame, at each of its views at the roots: the most
        it can win below them, weighted by chance's and the other player's reach (its
        own reach left out). Returns ``(root_view, values)``: each root's index into
        ``values``, and one value per distinct view of ``player`` at the roots, in the
        order of :attr:`ViewTable.node_view`'s ids."""
        probs = self._profile(profile)
        player = check_int("player", player, 0, 1)
        return self._counterfactual_best_responses(
            probs, player, _local_tree(self), self.ranges(probs)
        )

    def _counterfactual_best_responses(
        self, probs: np.ndarray, player: int, local: TreeArrays, ranges: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`counterfactual_best_responses` on the subgame's arrays ``local`` with
        its root ranges: the shared best-response kernel over the subgame alone."""
        from nashzoo.tree.kernels import compiled

        roots = _local_roots(self)
        reach = np.zeros((local.player.size, 3))
        reach[roots, 0] = 1.0
        reach[roots, 2] = ranges[:, 0] * ranges[:, 2 - player]
        _reach(1 - player, local, probs[self.infosets], reach)
        values = np.empty(local.player.size)
        compiled().best_response(
            player,
            local,
            reach[:, 2] * reach[:, 0],
            values,
            np.zeros(local.legal_mask.shape),
            np.full(local.legal_mask.shape[0], -1, dtype=np.int64),
        )
        ids = views_of(self.tree).node_view[player, self.roots]
        distinct, root_view = np.unique(ids, return_inverse=True)
        out = np.zeros(distinct.size)
        np.add.at(out, root_view, values[roots])
        return root_view.astype(np.int64), out


def _public_keys(tree: GameTree) -> np.ndarray:
    """One id per distinct public history, for each information set."""
    _, ids = np.unique(tree.infoset_public_history, axis=0, return_inverse=True)
    return np.asarray(ids, dtype=np.int64).reshape(-1)


def _set_sizes(tree: GameTree) -> np.ndarray:
    """The number of histories of each information set."""
    return np.bincount(tree.infoset[tree.infoset >= 0], minlength=tree.num_infosets)


def public_subgames(tree: GameTree) -> list[Subgame]:
    """The public subgames that begin a later betting round: one per public history at
    the decision nodes right after a chance event that follows a decision (Leduc's
    second round, one per board card and first-round betting)."""
    keys = _public_keys(tree)
    decided = np.zeros(tree.num_nodes, dtype=bool)  # a decision lies above (or here)
    for n in range(1, tree.num_nodes):  # parents come first
        decided[n] = decided[tree.parent[n]] or tree.infoset[tree.parent[n]] >= 0
    starts = (tree.infoset >= 0) & decided & (tree.player[np.maximum(tree.parent, 0)] == CHANCE)
    starts[0] = False
    at = np.flatnonzero(starts)
    key = keys[tree.infoset[at]]
    order = np.argsort(key, kind="stable")
    groups = [g for g in np.split(at[order], np.flatnonzero(np.diff(key[order])) + 1) if g.size]
    groups.sort(key=lambda g: int(g[0]))  # in the tree's order: earlier rounds first
    sizes = _set_sizes(tree)
    return [Subgame._of_roots(tree, roots, sizes) for roots in groups]


# -- the solve -------------------------------------------------------------------------------
@kernel
def _reach(us, t, sigma, reach):
    """Forward pass over the subgame ``t`` from the roots' reaches (already in
    ``reach``): column 0 ``us``'s own reach, 1 the opponent's, 2 chance's (with ``us``'s
    blueprint range at the roots)."""
    player, first_child, num_children = t.player, t.first_child, t.num_children
    for k in range(player.size):
        pl = player[k]
        if pl == TERMINAL:
            continue
        for c in range(first_child[k], first_child[k] + num_children[k]):
            reach[c, 0] = reach[k, 0]
            reach[c, 1] = reach[k, 1]
            reach[c, 2] = reach[k, 2]
            if pl == CHANCE:
                reach[c, 2] *= t.chance_prob[c]
            else:
                reach[c, 0 if pl == us else 1] *= sigma[t.infoset[k], t.action[c]]


@kernel
def _fixed_values(t, sigma, out):
    """Player 0's expected payoff below each node of ``t`` when every decision follows
    ``sigma`` (rows by ``t.infoset``) and chance its probabilities."""
    player, first_child, num_children = t.player, t.first_child, t.num_children
    for k in range(player.size - 1, -1, -1):
        pl = player[k]
        if pl == TERMINAL:
            out[k] = t.utility[k, 0]
            continue
        v = 0.0
        for c in range(first_child[k], first_child[k] + num_children[k]):
            step = t.chance_prob[c] if pl == CHANCE else sigma[t.infoset[k], t.action[c]]
            v += step * out[c]
        out[k] = v


@kernel
def gadget_follow(mode, gadget, follow):
    """The opponent's chance of following into the subgame at each of its root views,
    from the gadget's regrets (regret matching+): ``mode`` 1, the re-solve gadget (follow
    or terminate, per view); 2, max-margin (one choice of view over all of them); 0, no
    gadget (``follow`` left as it is)."""
    views = follow.size
    if mode == 1:
        for j in range(views):
            total = gadget[j, 0] + gadget[j, 1]
            follow[j] = gadget[j, 0] / total if total > 0.0 else 0.5
    elif mode == 2:
        total = 0.0
        for j in range(views):
            total += gadget[j, 0]
        for j in range(views):
            follow[j] = gadget[j, 0] / total if total > 0.0 else 1.0 / views


@kernel
def gadget_update(mode, follow, follow_value, cbv, gadget):
    """The gadget's regret matching+ update after the opponent's pass: ``follow_value``,
    its counterfactual value of following at each root view; ``cbv``, its value of
    terminating there (its counterfactual best response to the blueprint)."""
    views = follow.size
    if mode == 1:  # follow into the subgame, or terminate with CBV
        for j in range(views):
            mixed = follow[j] * follow_value[j] + (1.0 - follow[j]) * cbv[j]
            gadget[j, 0] = max(gadget[j, 0] + follow_value[j] - mixed, 0.0)
            gadget[j, 1] = max(gadget[j, 1] + cbv[j] - mixed, 0.0)
    elif mode == 2:  # enter at the view of the largest margin over CBV
        mixed = 0.0
        for j in range(views):
            mixed += follow[j] * (follow_value[j] - cbv[j])
        for j in range(views):
            margin = follow_value[j] - cbv[j]
            gadget[j, 0] = max(gadget[j, 0] + margin - mixed, 0.0)


@kernel
def _cfr_plus(
    iterations, us, mode, t, roots, root_weight, root_opp, root_view, cbv, regret, avg, gadget
):  # fmt: skip
    """CFR+ on the gadget game for ``iterations`` (alternating updates, regret
    matching+, averages weighted by the iteration number); ``avg`` gathers both players'
    average strategies. ``mode``: 0 no gadget (the opponent's root reaches fixed), 1 the
    re-solve gadget (``gadget[j]``: the regrets of following into the subgame and of
    terminating with ``cbv[j]`` at the opponent's view ``j``), 2 max-margin (the
    opponent picks the view where it gains most over its ``cbv``; ``gadget[:, 0]``: the
    regrets of that one choice)."""
    player, first_child, num_children = t.player, t.first_child, t.num_children
    action, iset, utility, legal = t.action, t.infoset, t.utility, t.legal_mask
    size = player.size
    reach = np.zeros((size, 3))
    value = np.zeros(size)
    sigma = np.zeros(regret.shape)
    views = cbv.size
    follow = np.ones(views)
    follow_value = np.zeros(views)
    for step in range(1, iterations + 1):
        for p in (us, 1 - us):
            for i in range(regret.shape[0]):
                regret_matching(regret, i, legal[i], sigma[i])
            gadget_follow(mode, gadget, follow)
            reach[:] = 0.0
            for r in range(roots.size):
                reach[roots[r], 0] = 1.0
                reach[roots[r], 1] = root_opp[r] * follow[root_view[r]]
                reach[roots[r], 2] = root_weight[r]
            _reach(us, t, sigma, reach)
            for k in range(size - 1, -1, -1):
                pl = player[k]
                fc = first_child[k]
                if pl == TERMINAL:
                    value[k] = reach[k, 2] * reach[k, 1 if p == us else 0] * utility[k, p]
                elif pl != p:
                    v = 0.0
                    for c in range(fc, fc + num_children[k]):
                        v += value[c]
                    value[k] = v
                else:
                    i = iset[k]
                    v = 0.0
                    for c in range(fc, fc + num_children[k]):
                        v += sigma[i, action[c]] * value[c]
                    value[k] = v
                    own = reach[k, 0 if p == us else 1]
                    for c in range(fc, fc + num_children[k]):
                        regret[i, action[c]] += value[c] - v
                        avg[i, action[c]] += step * own * sigma[i, action[c]]
            for i in range(regret.shape[0]):  # regret matching+: no negative regret kept
                for a in range(regret.shape[1]):
                    regret[i, a] = max(regret[i, a], 0.0)
            if mode > 0 and p != us:  # the gadget's own regrets
                follow_value[:] = 0.0
                for r in range(roots.size):
                    follow_value[root_view[r]] += value[roots[r]]
                gadget_update(mode, follow, follow_value, cbv, gadget)


def resolve(
    blueprint: np.ndarray,
    subgame: Subgame,
    player: int,
    *,
    iterations: int = 1000,
    gadget: str = "maxmargin",
    depth: int | None = None,
    bias: float | None = 5.0,
) -> np.ndarray:
    """``blueprint`` (``(num_infosets, num_actions)``) with ``player``'s strategy in
    ``subgame`` solved again by CFR+ for ``iterations``, the opponent's root range set by
    ``gadget`` (one of :data:`GADGETS`): with a gadget, the opponent gains at most its
    counterfactual best-response value against the blueprint at each of its root views
    (up to the solve's error), so the result is no more exploitable than the blueprint;
    with ``"none"`` its blueprint range is held fixed, which is not safe. Returns the new
    profile (the other player's rows, every row outside the subgame and ``player``'s
    rows the subgame never reaches are the blueprint's).

    ``depth``: solve only the subgame's first ``depth`` betting rounds (each ends at a
    chance event), the opponent choosing a continuation strategy at each leaf (see the
    module); ``player`` keeps the blueprint beyond. ``bias``: how much each biased
    continuation multiplies its action's probability (``None``: the blueprint is the
    only continuation, as if the opponent were known to play it later).

    Raises:
        InvalidParameterError: a profile of the wrong shape, a player not 0 or 1,
            ``iterations`` below 1, an unknown gadget, ``depth`` below 1 or ``bias``
            below 1.
    """
    probs = subgame._profile(blueprint)
    player = check_int("player", player, 0, 1)
    settings = _settings(iterations, gadget, depth, bias)
    out = probs.copy()
    _solve(out, probs, subgame, player, _local_tree(subgame), subgame.ranges(probs), settings)
    return out


class _Settings(NamedTuple):
    """A re-solve's checked settings (:func:`resolve`'s), the gadget by its number in
    :data:`GADGETS`."""

    iterations: int
    mode: int
    depth: int | None
    bias: float | None


def _settings(
    iterations: int, gadget: str, depth: int | None = None, bias: float | None = 5.0
) -> _Settings:
    """:func:`resolve`'s settings, checked.

    Raises:
        InvalidParameterError: ``iterations`` below 1, an unknown gadget, ``depth`` below
            1 or ``bias`` below 1.
    """
    return _Settings(
        check_int("iterations", iterations, 1),
        GADGETS.index(check_choice("gadget", gadget, GADGETS)),
        None if depth is None else check_int("depth", depth, 1),
        None if bias is None else check_number("bias", bias, low=1.0),
    )


def _solve(
    out: np.ndarray,
    probs: np.ndarray,
    subgame: Subgame,
    player: int,
    local: TreeArrays,
    ranges: np.ndarray,
    settings: _Settings,
) -> None:
    """:func:`resolve` from ``probs`` on the subgame's own arrays ``local`` with its root
    ranges (both players' re-solves share them), writing ``player``'s re-solved rows into
    ``out``."""
    roots = _local_roots(subgame)
    root_weight = ranges[:, 0] * ranges[:, 1 + player]
    root_view, cbv = subgame._counterfactual_best_responses(probs, 1 - player, local, ranges)
    solved = local
    if settings.depth is not None:
        solved = _depth_limited(subgame, local, probs, player, settings.depth, settings.bias)
    regret = np.zeros(solved.legal_mask.shape)
    avg = np.zeros(solved.legal_mask.shape)
    regrets = np.zeros((cbv.size, 2))
    mode = settings.mode
    _cfr_plus(
        settings.iterations, player, mode, solved, roots, root_weight,
        np.ones(roots.size) if mode else ranges[:, 2 - player], root_view, cbv, regret, avg,
        regrets,
    )  # fmt: skip
    sets, actions = local.legal_mask.shape  # the leaves' choices come after the game's rows
    avg = avg[:sets, :actions]
    mine = subgame.tree.infoset_player[subgame.infosets] == player
    totals = avg.sum(axis=1)
    rows = mine & (totals > 0)
    out[subgame.infosets[rows]] = avg[rows] / totals[rows, None]


def continuations(probs: np.ndarray, legal: np.ndarray, bias: float | None) -> list[np.ndarray]:
    """The continuation strategies a depth-limited re-solve lets the opponent choose
    from, over the rows ``probs`` (with their ``legal`` masks): the blueprint, then for
    each action ``a`` the blueprint with ``a``'s probability times ``bias`` and each row
    renormalised (a row where ``a`` is illegal stays the blueprint's). ``bias`` ``None``:
    the blueprint alone."""
    out = [np.asarray(probs, dtype=np.float64)]
    if bias is None:
        return out
    for a in range(probs.shape[1]):
        biased = out[0].copy()
        biased[:, a] *= np.where(legal[:, a] > 0, bias, 1.0)
        totals = biased.sum(axis=1, keepdims=True)
        out.append(np.divide(biased, totals, out=out[0].copy(), where=totals > 0))
    return out


def _depth_limited(
    subgame: Subgame,
    local: TreeArrays,
    probs: np.ndarray,
    us: int,
    depth: int,
    bias: float | None,
) -> TreeArrays:
    """``local`` cut at its leaves (the chance events that start the subgame's betting
    round ``depth + 1``): each leaf becomes a decision of the opponent at its view there,
    one child per continuation strategy, a terminal whose payoff is the rest of the
    subgame's value with ``us`` on the blueprint and the opponent on that continuation.
    The leaves' information sets come after the subgame's; every row is as wide as the
    larger of the game's actions and the continuations. Nodes stay parents first."""
    size = local.player.size
    above = subgame.tree.parent[subgame.nodes]  # the tree's parents, renumbered
    parent = np.searchsorted(subgame.nodes, above)
    parent[subgame.nodes[np.minimum(parent, size - 1)] != above] = -1  # the roots'
    events = np.zeros(size, dtype=np.int64)  # chance events above each node
    cut = np.zeros(size, dtype=bool)  # strictly below a leaf
    leaf = np.zeros(size, dtype=bool)
    for k in range(size):  # parents first
        q = parent[k]
        if q >= 0:
            events[k] = events[q] + (local.player[q] == CHANCE)
            cut[k] = cut[q] or leaf[q]
        leaf[k] = not cut[k] and local.player[k] == CHANCE and events[k] == depth - 1
    if not leaf.any():
        return local
    rows = local.legal_mask.shape
    sigma = probs[subgame.infosets]  # the subgame's rows, in its numbering
    opponent = subgame.tree.infoset_player[subgame.infosets] != us
    values = []
    for strategy in continuations(sigma, local.legal_mask, bias):
        profile = np.where(opponent[:, None], strategy, sigma)
        found = np.empty(size)
        _fixed_values(local, profile, found)
        values.append(found[leaf])
    choices = len(values)
    leaves = np.flatnonzero(leaf)
    kept = np.flatnonzero(~cut)
    index = np.full(size, -1, dtype=np.int64)
    index[kept] = np.arange(kept.size)
    at = index[leaves]  # the leaves, renumbered
    views = views_of(subgame.tree).node_view[1 - us, subgame.nodes[leaves]]
    _, first, leaf_set = np.unique(views, return_index=True, return_inverse=True)
    extra = choices * leaves.size
    player = np.r_[local.player[kept], np.full(extra, TERMINAL)].astype(local.player.dtype)
    player[at] = 1 - us
    below = local.first_child[kept]
    first_child = np.r_[np.where(below >= 0, index[np.maximum(below, 0)], -1), np.full(extra, -1)]
    first_child[at] = kept.size + choices * np.arange(leaves.size)
    num_children = np.r_[local.num_children[kept], np.zeros(extra)]
    num_children = num_children.astype(local.num_children.dtype)  # one compiled kernel
    num_children[at] = choices
    infoset = np.r_[local.infoset[kept], np.full(extra, -1)].astype(np.int64)
    infoset[at] = rows[0] + leaf_set
    payoff = np.stack(values, axis=1).reshape(-1)  # leaf by leaf, a continuation each
    utility = np.zeros((kept.size + extra, local.utility.shape[1]))
    utility[: kept.size] = local.utility[kept]
    utility[kept.size :, 0], utility[kept.size :, 1] = payoff, -payoff
    legal = np.zeros((rows[0] + first.size, max(rows[1], choices)), local.legal_mask.dtype)
    legal[: rows[0], : rows[1]] = local.legal_mask
    legal[rows[0] :, :choices] = 1
    return TreeArrays(
        player=player,
        first_child=first_child,
        num_children=num_children,
        infoset=infoset,
        action=np.r_[local.action[kept], np.tile(np.arange(choices), leaves.size)].astype(
            local.action.dtype
        ),
        chance_prob=np.r_[local.chance_prob[kept], np.zeros(extra)],
        utility=utility,
        legal_mask=legal,
        infoset_node=np.r_[index[local.infoset_node], at[first]].astype(np.int64),
        level_starts=np.array([0, kept.size, kept.size + extra], dtype=np.int64),
    )


def _local_roots(subgame: Subgame) -> np.ndarray:
    """The subgame's roots in its own node numbering."""
    return np.searchsorted(subgame.nodes, subgame.roots).astype(np.int64)


def _local_tree(subgame: Subgame) -> TreeArrays:
    """The subgame as the arrays the compiled kernels walk: its nodes renumbered ``0 ..
    size-1`` in the tree's order (children stay contiguous, levels stay in order), its
    information sets in :attr:`Subgame.infosets` order."""
    _compiled()
    tree, nodes = subgame.tree, subgame.nodes
    index = np.full(tree.num_nodes, -1, dtype=np.int64)
    index[nodes] = np.arange(nodes.size)
    sets = np.full(tree.num_infosets, -1, dtype=np.int64)
    sets[subgame.infosets] = np.arange(subgame.infosets.size)
    fc, at = tree.first_child[nodes], tree.infoset[nodes]
    depth = tree.depth[nodes]
    return TreeArrays(
        player=np.ascontiguousarray(tree.player[nodes]),
        first_child=np.where(tree.num_children[nodes] > 0, index[np.maximum(fc, 0)], -1),
        num_children=np.ascontiguousarray(tree.num_children[nodes]),
        infoset=np.where(at >= 0, sets[np.maximum(at, 0)], -1),
        action=np.ascontiguousarray(tree.action[nodes]),
        chance_prob=np.ascontiguousarray(tree.chance_prob[nodes], dtype=np.float64),
        utility=np.ascontiguousarray(tree.utility[nodes], dtype=np.float64),
        legal_mask=np.ascontiguousarray(tree.legal_mask[subgame.infosets]),
        infoset_node=index[tree.infoset_node[subgame.infosets]],
        level_starts=np.r_[0, np.flatnonzero(np.diff(depth)) + 1, nodes.size].astype(np.int64),
    )


def resolve_all(
    blueprint: np.ndarray,
    tree: GameTree,
    *,
    iterations: int = 1000,
    gadget: str = "maxmargin",
    depth: int | None = None,
    bias: float | None = 5.0,
) -> np.ndarray:
    """``blueprint`` re-solved in every subgame of :func:`public_subgames`, round by
    round (a later round's subgames re-solve the profile the earlier rounds left:
    nested, continual re-solving), for both players in each (each player's rows from its
    own re-solve; :func:`resolve`'s settings, ``depth`` and ``bias`` included)."""
    settings = _settings(iterations, gadget, depth, bias)
    out = np.array(blueprint, dtype=np.float64, copy=True)
    for subgame in public_subgames(tree):
        _resolve_both(out, subgame, settings)
    return out


def _resolve_both(profile: np.ndarray, subgame: Subgame, settings: _Settings) -> None:
    """Re-solve ``subgame`` for each player from ``profile`` and write both players'
    re-solved rows into it."""
    probs = subgame._profile(profile).copy()
    local, ranges = _local_tree(subgame), subgame.ranges(probs)
    for p in (0, 1):
        _solve(profile, probs, subgame, p, local, ranges, settings)


def _compiled() -> None:
    compile_kernels(globals())


# -- playing ---------------------------------------------------------------------------------
class ResolvingAgent(TabularPolicyAgent):
    """A blueprint that re-solves each public subgame (:func:`public_subgames`) when play
    first reaches it, for both players, and plays what the re-solve gives there (the
    blueprint elsewhere). A subgame inside another is re-solved on the outer one's
    result, as :func:`resolve_all` does, so the agent plays :func:`resolve_all`'s profile
    without solving subgames play never reaches.

    Args:
        blueprint: the blueprint policy.
        iterations, gadget, depth, bias: :func:`resolve`'s settings.
        seed, name: as :class:`~nashzoo.agents.cfr.agent.TabularPolicyAgent`'s.
    """

    def __init__(
        self,
        blueprint: TabularPolicy,
        *,
        iterations: int = 1000,
        gadget: str = "maxmargin",
        depth: int | None = None,
        bias: float | None = 5.0,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(blueprint, seed=seed, name=name)
        tree = blueprint.tree
        self._settings = _settings(iterations, gadget, depth, bias)
        self.iterations = self._settings.iterations
        self.gadget = gadget
        self.subgames = public_subgames(tree)
        self._profile = np.array(blueprint.probs, dtype=np.float64, copy=True)
        self._solved = np.zeros(len(self.subgames), dtype=bool)
        self._within: list[list[int]] = [[] for _ in range(tree.num_infosets)]
        for k, subgame in enumerate(self.subgames):  # outer subgames come first
            for i in subgame.infosets.tolist():
                self._within[i].append(k)

    def _row(self, observation: Observation, info: Any) -> int:
        row = super()._row(observation, info)
        for k in self._within[row]:
            if not self._solved[k]:
                self._resolve(k)
        return row

    def _resolve(self, k: int) -> None:
        subgame = self.subgames[k]
        _resolve_both(self._profile, subgame, self._settings)
        rows = subgame.infosets
        self._cum[rows] = np.cumsum(self._profile[rows], axis=1)
        self._solved[k] = True

    def action_probabilities(self, observation: Observation, info: dict[str, Any]) -> np.ndarray:
        """The re-solved distribution at this information set (the blueprint's outside
        the subgames)."""
        return self._profile[self._row(observation, info)].copy()
