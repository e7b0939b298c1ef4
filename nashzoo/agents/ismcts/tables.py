"""What a search knows besides the rules, tabulated over every view of a small game.

The networks of A-ISMCTS and Nash-ISMCTS answer five questions about a player's view
(``docs/explanation/nash-ismcts.md``, "A-ISMCTS"), all in the viewer's payoff scaled to [-1, 1]:

* ``prior[i]``: the policy P at information set ``i`` (legal actions only);
* ``child_value[i, a]``: V_c, the value after action ``a`` (first-play urgency);
* ``view_value[v]``: V, the value of view ``v``;
* ``belief[v]``: H, a distribution over the world ids of view ``v`` (masked to the
  worlds the view allows);
* ``world_value[v, w]``: V_w, the value of the view's history whose world is ``w``.

On Kuhn and Leduc every view is known in advance, so a network is evaluated once on all
of them (one batch) and the search reads arrays. :meth:`SearchTables.oracle` computes the
answers exactly from a policy profile (the spec's oracle networks: P the profile, H
Bayes' rule under it, V and V_w exact values), :meth:`SearchTables.uninformed` the
no-knowledge tables MT-ISMCTS uses (uniform P, chance-only beliefs, zero values).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from nashzoo.errors import InvalidParameterError
from nashzoo.tree.compile import GameTree
from nashzoo.tree.reach import node_values, reach_without
from nashzoo.tree.views import ViewTable, views_of

__all__ = ["SearchTables", "payoff_scale"]


def payoff_scale(tree: GameTree) -> float:
    """The factor that maps payoffs to [-1, 1]: the game's largest absolute payoff
    (Kuhn 2, Leduc 13)."""
    return float(tree.game.max_payoff_magnitude) or 1.0


def _normalized_by_view(views: ViewTable, p: int, weight: np.ndarray) -> np.ndarray:
    """``weight`` (per node) divided by its total over each of ``p``'s views; views whose
    total is zero fall back to chance reach."""
    nv = views.node_view[p]
    live = nv >= 0
    total = np.bincount(nv[live], weights=weight[live], minlength=views.num_views)
    fallback = np.bincount(nv[live], weights=views.chance_reach[live], minlength=views.num_views)
    out = np.zeros(views.tree.num_nodes)
    zero = total[nv[live]] <= 0.0
    w = np.where(zero, views.chance_reach[live], weight[live])
    t = np.where(zero, fallback[nv[live]], total[nv[live]])
    out[live] = w / t
    return out


@dataclass(frozen=True, eq=False)
class SearchTables:
    """P, V_c, V, H and V_w over every view of a compiled game (see the module docstring).

    Attributes:
        views: the game's :class:`~nashzoo.tree.views.ViewTable`.
        prior: ``(num_infosets, num_actions)``.
        child_value: ``(num_infosets, num_actions)``, scaled payoff.
        view_value: ``(num_views,)``, scaled payoff.
        belief: ``(num_views, num_worlds)``, rows sum to 1 over the view's worlds.
        world_value: ``(num_views, num_worlds)``, scaled payoff.
        source: where the answers come from (``"oracle"``, ``"uninformed"``, ``"network"``).
    """

    views: ViewTable
    prior: np.ndarray
    child_value: np.ndarray
    view_value: np.ndarray
    belief: np.ndarray
    world_value: np.ndarray
    source: str = "network"

    def __post_init__(self) -> None:
        tree = self.views.tree
        if tree.num_players != 2:
            raise InvalidParameterError(
                "MT-, A- and Nash-ISMCTS search two-player zero-sum games (one opponent, whose "
                f"private information H describes); this tree has {tree.num_players} players."
            )
        shapes = {
            "prior": (self.prior, tree.legal_mask.shape),
            "child_value": (self.child_value, tree.legal_mask.shape),
            "view_value": (self.view_value, (self.views.num_views,)),
            "belief": (self.belief, self.views.view_world_mask.shape),
            "world_value": (self.world_value, self.views.view_world_mask.shape),
        }
        for name, (arr, shape) in shapes.items():
            if np.shape(arr) != shape or not np.isfinite(arr).all():
                raise InvalidParameterError(
                    f"SearchTables.{name} must be a finite array of shape {shape}, received "
                    f"shape {np.shape(arr)}."
                )
        mask = self.views.view_world_mask
        if (self.belief < 0).any() or (self.belief[~mask] != 0).any():
            raise InvalidParameterError(
                "SearchTables.belief must be non-negative and zero outside each view's worlds."
            )
        if not np.allclose(self.belief.sum(axis=1), 1.0, atol=1e-6):
            raise InvalidParameterError("SearchTables.belief rows must sum to 1.")
        legal = tree.legal_mask
        if (self.prior < 0).any() or (self.prior[~legal] != 0).any():
            raise InvalidParameterError(
                "SearchTables.prior must be non-negative and zero on illegal actions."
            )
        if not np.allclose(self.prior.sum(axis=1), 1.0, atol=1e-6):
            raise InvalidParameterError("SearchTables.prior rows must sum to 1.")

    @property
    def tree(self) -> GameTree:
        return self.views.tree

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def uninformed(cls, tree_or_views: GameTree | ViewTable) -> SearchTables:
        """No knowledge: uniform P, beliefs from chance alone (uniform over the
        opponent's cards), every value 0."""
        views = _views(tree_or_views)
        tree = views.tree
        belief = np.zeros(views.view_world_mask.shape)
        for p in range(tree.num_players):
            post = _normalized_by_view(views, p, views.chance_reach)
            live = views.node_view[p] >= 0
            np.add.at(belief, (views.node_view[p, live], views.node_world[p, live]), post[live])
        return cls(
            views=views,
            prior=tree.uniform_probs(),
            child_value=np.zeros(tree.legal_mask.shape),
            view_value=np.zeros(views.num_views),
            belief=belief,
            world_value=np.zeros(views.view_world_mask.shape),
            source="uninformed",
        )

    @classmethod
    def oracle(cls, tree_or_views: GameTree | ViewTable, probs: np.ndarray) -> SearchTables:
        """Exact answers under the profile ``probs`` (``(num_infosets, num_actions)``):
        P = ``probs``, H = Bayes' rule under it, V, V_w, V_c = exact expected payoffs."""
        views = _views(tree_or_views)
        tree = views.tree
        probs = np.asarray(probs, dtype=np.float64)
        if probs.shape != tree.legal_mask.shape:
            raise InvalidParameterError(
                f"probs must have shape {tree.legal_mask.shape}, received {probs.shape}."
            )
        scale = payoff_scale(tree)
        values = node_values(tree, probs) / scale
        belief = np.zeros(views.view_world_mask.shape)
        view_value = np.zeros(views.num_views)
        world_weight = np.zeros(views.view_world_mask.shape)
        world_sum = np.zeros(views.view_world_mask.shape)
        child_value = np.zeros(tree.legal_mask.shape)
        for p in range(tree.num_players):
            post = _normalized_by_view(views, p, reach_without(tree, probs, p))
            live = np.flatnonzero(views.node_view[p] >= 0)
            v, w = views.node_view[p, live], views.node_world[p, live]
            np.add.at(belief, (v, w), post[live])
            np.add.at(view_value, v, post[live] * values[live, p])
            # V_w: the posterior-weighted value of the view's histories of world w
            # (chance weights where the posterior gives the world no mass).
            weight = np.where(post[live] > 0, post[live], 1e-300 * views.chance_reach[live])
            np.add.at(world_weight, (v, w), weight)
            np.add.at(world_sum, (v, w), weight * values[live, p])
            decision = live[tree.player[live] == p]
            i = tree.infoset[decision]
            for a in range(tree.num_actions):
                legal = tree.legal_mask[i, a]
                nodes, sets = decision[legal], i[legal]
                children = tree.first_child[nodes] + views.action_slot[sets, a]
                np.add.at(child_value[:, a], sets, post[nodes] * values[children, p])
        with np.errstate(invalid="ignore", divide="ignore"):
            world_value = np.where(world_weight > 0, world_sum / world_weight, 0.0)
        return cls(
            views=views,
            prior=probs.copy(),
            child_value=child_value,
            view_value=view_value,
            belief=belief,
            world_value=world_value,
            source="oracle",
        )

    # -- edits for experiments ------------------------------------------------------------
    def with_belief(self, view: int, row: np.ndarray) -> SearchTables:
        """A copy whose belief at ``view`` is ``row`` (the T2/T3 perturbation)."""
        belief = self.belief.copy()
        belief[view] = np.asarray(row, dtype=np.float64)
        return replace(self, belief=belief)


def _views(tree_or_views: GameTree | ViewTable) -> ViewTable:
    if isinstance(tree_or_views, ViewTable):
        return tree_or_views
    if isinstance(tree_or_views, GameTree):
        return views_of(tree_or_views)
    raise InvalidParameterError(
        f"Expected a GameTree or ViewTable, received {type(tree_or_views).__name__}."
    )
