"""The loss of Nash-ISMCTS's networks (``docs/explanation/nash-ismcts.md``): P's
cross-entropy toward the visit counts, the value heads' squared errors, the belief head's
cross-entropy toward the true world, the child values' consistency, and the Bayes-rule
term; and the belief head's distance from Bayes' rule under P.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.nets import SearchNetwork, masked_log_softmax
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.extras import require
from nashzoo.games.base import TERMINAL
from nashzoo.tree.views import ViewTable

__all__ = ["belief_kl"]

torch = require("torch", "torch", "Nash-ISMCTS training")


@dataclass(frozen=True)
class _Structure:
    """Index arrays of the game the V_c and Bayes-rule losses need (built once)."""

    set_view: Any  # (I,) view of each information set
    legal: Any  # (I, A) bool
    child_view: Any  # (I, A) the owner's view after each action, -1 if terminal
    set_worlds: Any  # (I, K) world ids of the set's histories, -1 padded
    terminal_value: Any  # (I, A, K) scaled payoff when the action ends the game
    bayes_before: Any  # (T,) p's view before the opponent's action
    bayes_after: Any  # (T,) p's view after it
    bayes_action: Any  # (T,)
    bayes_worlds: Any  # (T, K) world ids, -1 padded
    bayes_sets: Any  # (T, K) the opponent's information set in each world


def _structure(views: ViewTable) -> _Structure:
    tree = views.tree
    n_sets, n_actions = tree.legal_mask.shape
    k_max = views.max_worlds_per_infoset
    scale = payoff_scale(tree)
    child_view = np.full((n_sets, n_actions), -1, dtype=np.int64)
    set_worlds = np.full((n_sets, k_max), -1, dtype=np.int64)
    terminal = np.zeros((n_sets, n_actions, k_max), dtype=np.float32)
    for i in range(n_sets):
        p = int(tree.infoset_player[i])
        nodes = views.worlds_of(i)
        set_worlds[i, : nodes.size] = views.node_world[p, nodes]
        for a in np.flatnonzero(tree.legal_mask[i]):
            children = tree.first_child[nodes] + views.action_slot[i, a]
            if tree.player[children[0]] == TERMINAL:
                terminal[i, a, : nodes.size] = tree.utility[children, p] / scale
            else:
                child_view[i, a] = views.node_view[p, children[0]]
    before, after, acts, worlds, sets = [], [], [], [], []
    for u in range(views.num_views):
        p = int(views.view_player[u])
        nodes = np.flatnonzero(views.node_view[p] == u)
        movers = tree.player[nodes]
        if nodes.size == 0 or movers[0] < 0 or movers[0] == p:
            continue
        for a in np.flatnonzero(tree.legal_mask[tree.infoset[nodes[0]]]):
            slot = views.action_slot[tree.infoset[nodes[0]], a]
            children = tree.first_child[nodes] + slot
            if tree.player[children[0]] == TERMINAL or views.node_view[p, children[0]] < 0:
                continue
            w = np.full(k_max, -1, dtype=np.int64)
            s = np.zeros(k_max, dtype=np.int64)
            w[: nodes.size] = views.node_world[p, nodes]
            s[: nodes.size] = tree.infoset[nodes]
            before.append(u)
            after.append(int(views.node_view[p, children[0]]))
            acts.append(int(a))
            worlds.append(w)
            sets.append(s)
    t = torch.as_tensor
    return _Structure(
        set_view=t(views.infoset_view.astype(np.int64)),
        legal=t(np.array(tree.legal_mask)),
        child_view=t(child_view),
        set_worlds=t(set_worlds),
        terminal_value=t(terminal),
        bayes_before=t(np.asarray(before, dtype=np.int64)),
        bayes_after=t(np.asarray(after, dtype=np.int64)),
        bayes_action=t(np.asarray(acts, dtype=np.int64)),
        bayes_worlds=t(np.asarray(worlds, dtype=np.int64).reshape(-1, k_max)),
        bayes_sets=t(np.asarray(sets, dtype=np.int64).reshape(-1, k_max)),
    )


def _gather_worlds(logp: Any, worlds: Any) -> Any:
    """``logp[row, worlds[row, k]]`` with -inf where ``worlds`` is -1 (padding)."""
    picked = logp.gather(1, worlds.clamp(min=0))
    return picked.masked_fill(worlds < 0, float("-inf"))


def _losses(
    net: SearchNetwork,
    inputs: Any,
    wmask: Any,
    st: _Structure,
    batch: dict[str, Any],
    bayes_weight: float,
) -> tuple[Any, dict[str, float]]:
    out = net(inputs)  # every view at once
    sets = st.set_view
    # P: cross-entropy with the visit distributions
    logp = masked_log_softmax(out["policy"][sets[batch["infosets"]]], st.legal[batch["infosets"]])
    policy = -(batch["targets"] * logp.masked_fill(~st.legal[batch["infosets"]], 0.0)).sum(1).mean()
    # V and V_w: squared error with the final payoffs
    value = ((out["value"][batch["views"]] - batch["returns"]) ** 2).mean()
    world = out["world_value"][batch["views"], batch["worlds"]]
    world_value = ((world - batch["returns"]) ** 2).mean()
    # H: cross-entropy with the true worlds of games sampled from P
    logh = masked_log_softmax(out["belief"], wmask)
    belief = -logh[batch["h_views"], batch["h_worlds"]].mean()
    # V_c: the network's own V after each action (payoff under H where the action ends it)
    with torch.no_grad():
        v_after = out["value"][st.child_view.clamp(min=0)]
        h_set = _gather_worlds(logh[sets], st.set_worlds).exp()
        ends = (st.terminal_value * h_set[:, None, :]).sum(-1)
        target_c = torch.where(st.child_view >= 0, v_after, ends)
    child = out["child_value"][sets]
    child_value = (((child - target_c) ** 2) * st.legal).sum() / st.legal.sum()
    # Bayes' rule: H after an opponent's action = H before it times P(action | its set)
    bayes = torch.zeros(())
    if st.bayes_before.numel():
        with torch.no_grad():
            prior_h = _gather_worlds(logh[st.bayes_before], st.bayes_worlds)
            opp_sets = sets[st.bayes_sets]
            opp_logp = masked_log_softmax(out["policy"][opp_sets], st.legal[st.bayes_sets])
            act = st.bayes_action[:, None, None].expand(-1, opp_logp.shape[1], 1)
            target = torch.softmax(prior_h + opp_logp.gather(2, act).squeeze(2), dim=1)
            target = torch.nan_to_num(target, nan=0.0)
        post = _gather_worlds(logh[st.bayes_after], st.bayes_worlds)
        post = torch.log_softmax(post, dim=1)
        bayes = -(target * post.masked_fill(st.bayes_worlds < 0, 0.0)).sum(1).mean()
    total = policy + value + world_value + belief + child_value + bayes_weight * bayes
    parts = {
        "policy": policy.item(),
        "value": value.item(),
        "world_value": world_value.item(),
        "belief": belief.item(),
        "child_value": child_value.item(),
        "bayes": bayes.item(),
    }
    return total, parts


def belief_kl(tables: SearchTables) -> float:
    """Mean KL(exact Bayes under P || H) over the views (the spec asks < 0.01): how far
    the belief table is from Bayes' rule applied to the tables' own policy P."""
    exact = SearchTables.oracle(tables.views, tables.prior).belief
    mask = tables.views.view_world_mask & (exact > 0)
    h = np.where(mask, tables.belief, 1.0)
    kl = np.where(
        mask, exact * (np.log(np.where(mask, exact, 1.0)) - np.log(np.maximum(h, 1e-12))), 0.0
    )
    return float(kl.sum(axis=1).mean())
