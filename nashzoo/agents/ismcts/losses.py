"""The loss of Nash-ISMCTS's networks (``docs/explanation/nash-ismcts.md``): P's
cross-entropy toward the search's policy target, the value heads' squared errors, the
belief head's cross-entropy toward the true world, the child values' consistency, and the
Bayes-rule term; and the belief head's distance from Bayes' rule under P.

Two networks, one loss: the tabulated :class:`~nashzoo.agents.ismcts.nets.SearchNetwork`
of a game that compiles (every view in one forward pass, exact Bayes-rule structure) and
the :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork` evaluated at search time over
the rules (:func:`rules_loss`: views met in play, H by sampled softmax, the Bayes-rule
term on drawn worlds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.nets import (
    EmbeddingNetwork,
    SearchNetwork,
    device_of,
    masked_log_softmax,
)
from nashzoo.agents.ismcts.tables import SearchTables, payoff_scale
from nashzoo.extras import require
from nashzoo.games import Game
from nashzoo.games.base import TERMINAL
from nashzoo.tree.views import ViewTable

__all__ = ["belief_kl", "rules_loss", "RulesRecords"]

torch = require("torch", "torch", "Nash-ISMCTS training")


@dataclass(frozen=True)
class _Structure:
    """Index arrays of the game the V_c and Bayes-rule losses need (built once)."""

    set_view: Any  # (I,) view of each information set
    legal: Any  # (I, A) bool
    child_view: Any  # (I, A) the owner's view after each action, -1 if terminal
    child_views: Any  # (I, A, K) the view after it in each world where they differ, or None
    child_mixed: Any  # (I, A) bool: the view after the action depends on the world
    set_worlds: Any  # (I, K) world ids of the set's histories, -1 padded
    terminal_value: Any  # (I, A, K) scaled payoff when the action ends the game
    bayes_before: Any  # (T,) p's view before the opponent's action
    bayes_after: Any  # (T,) p's view after it
    bayes_action: Any  # (T,)
    bayes_worlds: Any  # (T, K) world ids, -1 padded
    bayes_worlds_after: Any  # (T, K) each world's id in the view after the action
    bayes_sets: Any  # (T, K) the opponent's information set in each world


def _structure(views: ViewTable, device: Any = "cpu") -> _Structure:
    """The index arrays of ``views``' game, as tensors on ``device``."""
    tree = views.tree
    n_sets, n_actions = tree.legal_mask.shape
    k_max = views.max_worlds_per_infoset
    scale = payoff_scale(tree)
    child_view = np.full((n_sets, n_actions), -1, dtype=np.int64)
    set_worlds = np.full((n_sets, k_max), -1, dtype=np.int64)
    terminal = np.zeros((n_sets, n_actions, k_max), dtype=np.float32)
    # where what the owner sees after its action depends on the world (Goofspiel: the
    # round it completes is won or lost), each world's view after it
    mixed: dict[tuple[int, int], np.ndarray] = {}
    for i in range(n_sets):
        p = int(tree.infoset_player[i])
        nodes = views.worlds_of(i)
        set_worlds[i, : nodes.size] = views.node_world[p, nodes]
        for a in np.flatnonzero(tree.legal_mask[i]):
            children = tree.first_child[nodes] + views.action_slot[i, a]
            if tree.player[children[0]] == TERMINAL:
                terminal[i, a, : nodes.size] = tree.utility[children, p] / scale
            else:
                seen = views.node_view[p, children]
                child_view[i, a] = seen[0]
                if (seen != seen[0]).any():
                    mixed[i, int(a)] = seen
    child_mixed = np.zeros((n_sets, n_actions), dtype=bool)
    child_views = None
    if mixed:
        child_views = np.full((n_sets, n_actions, k_max), -1, dtype=np.int64)
        for (row, action), seen in mixed.items():
            child_mixed[row, action] = True
            child_views[row, action, : seen.size] = seen
    before, after, acts, worlds, moved, sets = [], [], [], [], [], []
    for u in range(views.num_views):
        p = int(views.view_player[u])
        nodes = np.flatnonzero(views.node_view[p] == u)
        movers = tree.player[nodes]
        if nodes.size == 0 or movers[0] < 0 or movers[0] == p:
            continue
        infosets = tree.infoset[nodes]  # the opponent's, one per world
        for a in np.flatnonzero(tree.legal_mask[infosets].any(axis=0)):
            # the worlds where the action is legal (Goofspiel: the cards the opponent holds
            # there); elsewhere its likelihood is 0 and the world drops out
            legal_there = tree.legal_mask[infosets, a]
            nodes_a, infosets_a = nodes[legal_there], infosets[legal_there]
            children = tree.first_child[nodes_a] + views.action_slot[infosets_a, a]
            if tree.player[children[0]] == TERMINAL:
                continue
            # p's view after the action: one for all worlds where p sees only the action
            # (a bet); one per outcome where it also sees what the worlds decide
            # (Goofspiel's round won or lost), each with the worlds that lead there
            seen = views.node_view[p, children]
            for view in dict.fromkeys(seen.tolist()):
                if view < 0:
                    continue
                there = seen == view
                w = np.full((2, k_max), -1, dtype=np.int64)
                s = np.zeros(k_max, dtype=np.int64)
                w[0, : there.sum()] = views.node_world[p, nodes_a[there]]
                # each world's id after the action: the same where p sees the action; another
                # where it does not (Goofspiel's hidden bid joins the world)
                w[1, : there.sum()] = views.node_world[p, children[there]]
                s[: there.sum()] = infosets_a[there]
                before.append(u)
                after.append(int(view))
                acts.append(int(a))
                worlds.append(w[0])
                moved.append(w[1])
                sets.append(s)

    def t(array: np.ndarray) -> Any:
        return torch.as_tensor(array, device=device)

    return _Structure(
        set_view=t(views.infoset_view.astype(np.int64)),
        legal=t(np.array(tree.legal_mask)),
        child_view=t(child_view),
        child_views=None if child_views is None else t(child_views),
        child_mixed=t(child_mixed),
        set_worlds=t(set_worlds),
        terminal_value=t(terminal),
        bayes_before=t(np.asarray(before, dtype=np.int64)),
        bayes_after=t(np.asarray(after, dtype=np.int64)),
        bayes_action=t(np.asarray(acts, dtype=np.int64)),
        bayes_worlds=t(np.asarray(worlds, dtype=np.int64).reshape(-1, k_max)),
        bayes_worlds_after=t(np.asarray(moved, dtype=np.int64).reshape(-1, k_max)),
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
        if st.child_views is not None:  # the view after depends on the world: V under H
            per_world = out["value"][st.child_views.clamp(min=0)]
            expected = (per_world * h_set[:, None, :]).sum(-1)
            target_c = torch.where(st.child_mixed, expected, target_c)
    child = out["child_value"][sets]
    child_value = (((child - target_c) ** 2) * st.legal).sum() / st.legal.sum()
    # Bayes' rule: H after an opponent's action = H before it times P(action | its set)
    bayes = torch.zeros((), device=inputs.device)
    if st.bayes_before.numel():
        with torch.no_grad():
            prior_h = _gather_worlds(logh[st.bayes_before], st.bayes_worlds)
            opp_sets = sets[st.bayes_sets]
            opp_logp = masked_log_softmax(out["policy"][opp_sets], st.legal[st.bayes_sets])
            act = st.bayes_action[:, None, None].expand(-1, opp_logp.shape[1], 1)
            target = torch.softmax(prior_h + opp_logp.gather(2, act).squeeze(2), dim=1)
            target = torch.nan_to_num(target, nan=0.0)
        post = _gather_worlds(logh[st.bayes_after], st.bayes_worlds_after)
        post = torch.log_softmax(post, dim=1)
        bayes = -(target * post.masked_fill(st.bayes_worlds < 0, 0.0)).sum(1).mean()
    terms = {"policy": policy, "value": value, "world_value": world_value}
    return _summed({**terms, "belief": belief, "child_value": child_value}, bayes, bayes_weight)


def _summed(terms: dict[str, Any], bayes: Any, bayes_weight: float) -> tuple[Any, dict[str, float]]:
    """The loss: ``terms`` added in their order, then ``bayes_weight`` times the
    Bayes-rule term; and every term's value for the record."""
    total = sum(terms.values(), torch.zeros((), device=bayes.device)) + bayes_weight * bayes
    return total, {**{k: v.item() for k, v in terms.items()}, "bayes": bayes.item()}


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


# -- over the rules: a network evaluated at search time ------------------------------------
@dataclass(frozen=True)
class RulesRecords:
    """What training over the rules fits, from the replay buffer: decisions (P, V_c) and
    views (V, V_w) as ``(game record, index)`` pairs, the belief games' views and the
    self-play opponent actions of the Bayes-rule term."""

    decisions: list[tuple[dict[str, Any], int]]
    views: list[tuple[dict[str, Any], int]]
    beliefs: list[tuple[np.ndarray, Any, int, Any]]
    transitions: list[Any]


def rules_loss(
    net: EmbeddingNetwork,
    game: Game,
    rng: np.random.Generator,
    records: RulesRecords,
    *,
    batch_size: int,
    negatives: int,
    bayes_weight: float,
    piece_weight: float = 0.25,
) -> tuple[Any, dict[str, float]]:
    """One gradient step's loss of an :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork`
    on batches drawn from ``records``: P's cross-entropy and V_c's squared error at
    decisions, V's and V_w's at views, H's sampled softmax (:func:`_belief_loss`),
    ``bayes_weight`` times the Bayes-rule term (:func:`_bayes_loss`) and, where the
    game's private values come in pieces with features, ``piece_weight`` times the
    piece-by-piece draw's terms (:func:`_piece_belief_loss`, and V of each partial
    world; left out, drawing nothing, at 0). The returned terms are unweighted."""
    dec, views = records.decisions, records.views
    d = net.shape.embed_size
    device = device_of(net)

    def on(array: np.ndarray) -> Any:
        return torch.from_numpy(array).to(device)

    # P and V_c at decisions
    pick = [dec[i] for i in rng.integers(0, len(dec), batch_size)]
    x = net.dense([g["x"][k] for g, k in pick])
    legal = on(np.stack([g["legal"][k] for g, k in pick]))
    target = on(np.stack([g["target"][k] for g, k in pick]))
    out = net(x)
    logp = masked_log_softmax(out["policy"], legal).masked_fill(~legal, 0.0)
    policy = -(target * logp).sum(1).mean()
    child_target = np.stack([g["after_value"][k] for g, k in pick])
    rows, cols, xs = [], [], []
    for r, (g, k) in enumerate(pick):
        acts = np.flatnonzero(g["legal"][k])
        for a, idx in zip(acts.tolist(), g["after"][k]):
            if idx is not None:
                rows.append(r)
                cols.append(a)
                xs.append(idx)
    if xs:
        with torch.no_grad():
            child_target[rows, cols] = net(net.dense(xs))["value"].cpu().numpy()
    ct = on(child_target)
    known = ~torch.isnan(ct)
    child_value = ((out["child_value"] - ct.nan_to_num()) ** 2 * known).sum() / known.sum()
    # V and V_w at every player's view
    pick_v = [views[i] for i in rng.integers(0, len(views), 2 * batch_size)]
    out_v = net(net.dense([g["view_x"][k] for g, k in pick_v]))
    z = on(np.array([g["view_return"][k] for g, k in pick_v]))
    value = ((out_v["value"] - z) ** 2).mean()
    feats = _features_at(game, [([g["view_value"][k]], g["view_public"][k]) for g, k in pick_v])
    e = net.encode(on(feats))
    q = out_v["query"]
    w = torch.tanh((e * q[:, d : 2 * d]).sum(-1) + q[:, 2 * d])
    world_value = ((w - z) ** 2).mean()
    # V of the true world's partial worlds (its first pieces), toward the same returns
    pieces = piece_weight > 0 and game_has_pieces(game)
    prefixes = _prefix_rows(game, [g["view_value"][k] for g, k in pick_v]) if pieces else []
    piece_value = torch.zeros((), device=device)
    if prefixes:
        owners = torch.tensor([r for r, _ in prefixes], device=device)
        publics = [pick_v[r][0]["view_public"][pick_v[r][1]] for r, _ in prefixes]
        e_p = net.encode(on(_piece_features(game, [cut for _, cut in prefixes], publics)))
        q_p = q[owners]
        w_p = torch.tanh((e_p * q_p[:, d : 2 * d]).sum(-1) + q_p[:, 2 * d])
        piece_value = ((w_p - z[owners]) ** 2).mean()
    # H: the true world against sampled others, and Bayes' rule on transitions
    belief = _belief_loss(net, game, rng, records.beliefs, batch_size, negatives)
    piece_belief = (
        _piece_belief_loss(net, game, rng, records.beliefs, batch_size)
        if pieces
        else torch.zeros((), device=device)
    )
    bayes = (
        _bayes_loss(net, game, rng, records.transitions, batch_size)
        if bayes_weight > 0
        else torch.zeros((), device=device)
    )
    terms = {"policy": policy, "value": value, "world_value": world_value}
    terms |= {"child_value": child_value, "belief": belief}
    total, parts = _summed(terms, bayes, bayes_weight)
    if pieces:  # the piece-by-piece draw's H and V (draw_pieces)
        total = total + piece_weight * (piece_value + piece_belief)
        parts |= {"piece_value": piece_value.item(), "piece_belief": piece_belief.item()}
    return total, parts


def game_has_pieces(game: Game) -> bool:
    """Whether ``game``'s hidden values come in two or more pieces with features for the
    partial worlds (``Game.hidden_piece_features``): then the network also learns H over
    each piece and V of each partial world (the search's ``draw_pieces``)."""
    pieces = game.hidden_value_pieces([])
    if pieces is None or pieces.shape[1] < 2:
        return False
    return game.hidden_piece_features(np.zeros((0, 1), dtype=np.int64), None) is not None


def _prefix_rows(game: Game, values: Sequence[Any]) -> list[tuple[int, np.ndarray]]:
    """Every proper prefix of each value's pieces, as ``(row of the value, prefix)``
    (the caller checks :func:`game_has_pieces`)."""
    if not values:
        return []
    table = game.hidden_value_pieces(list(values))
    assert table is not None
    return [(r, table[r, :length]) for r in range(len(values)) for length in
            range(1, table.shape[1])]  # fmt: skip


def _piece_features(game: Game, rows: Sequence[np.ndarray], publics: Sequence[Any]) -> np.ndarray:
    """``Game.hidden_piece_features`` of prefixes each at its own public information (one
    call per distinct length and public information), stacked in row order."""
    out: np.ndarray | None = None
    groups: dict[tuple[int, Any], list[int]] = {}
    for r, (row, public) in enumerate(zip(rows, publics)):
        groups.setdefault((len(row), public), []).append(r)
    for (_, public), members in groups.items():
        features = game.hidden_piece_features(np.stack([rows[r] for r in members]), public)
        assert features is not None
        if out is None:
            out = np.zeros((len(rows), features.shape[1]), dtype=np.float32)
        out[members] = features
    assert out is not None
    return out


def _piece_belief_loss(
    net: EmbeddingNetwork,
    game: Game,
    rng: np.random.Generator,
    beliefs: list[tuple[np.ndarray, Any, int, Any]],
    batch_size: int,
) -> Any:
    """H over each piece but the last given the true world's pieces before it: the
    cross-entropy of the true piece among the options the view's worlds allow after that
    prefix (the belief query against each partial world's embedding, as
    :meth:`NetworkKnowledge.piece_belief
    <nashzoo.agents.ismcts.knowledge.NetworkKnowledge.piece_belief>` scores them; the
    last piece is the flat belief's, conditioned on the prefix)."""
    device = device_of(net)
    if not beliefs or not game_has_pieces(game):
        return torch.zeros((), device=device)
    d = net.shape.embed_size
    pick = [beliefs[i] for i in rng.integers(0, len(beliefs), max(batch_size // 4, 1))]
    rows: list[np.ndarray] = []
    publics: list[Any] = []
    owner: list[int] = []
    spans: list[tuple[int, int]] = []
    truth: list[int] = []
    for r, (_, values, t, public) in enumerate(pick):
        table = game.hidden_value_pieces(values)
        assert table is not None
        true = table[t]
        for level in range(table.shape[1] - 1):
            match = np.all(table[:, :level] == true[:level], axis=1)
            options = np.unique(table[match, level])
            start = len(rows)
            for c in options.tolist():
                rows.append(np.array([*true[:level], c], dtype=np.int64))
                publics.append(public)
            owner.append(r)
            spans.append((start, len(rows)))
            truth.append(start + int(np.searchsorted(options, true[level])))
    e = net.encode(torch.from_numpy(_piece_features(game, rows, publics)).to(device))
    q = net(net.dense([x for x, _, _, _ in pick]))["query"][:, :d]
    of_row = torch.tensor(np.repeat(owner, [b - a for a, b in spans]), device=device)
    logits = (e * q[of_row]).sum(-1)
    losses = [torch.logsumexp(logits[a:b], dim=0) - logits[t] for (a, b), t in zip(spans, truth)]
    return torch.stack(losses).mean()


def _belief_loss(
    net: EmbeddingNetwork,
    game: Game,
    rng: np.random.Generator,
    beliefs: list[tuple[np.ndarray, Any, int, Any]],
    batch_size: int,
    m: int,
) -> Any:
    """H's sampled softmax: each picked view's true world against ``m`` others drawn
    uniformly without replacement, their logits raised by ``log(others / drawn)`` (the
    sampling correction)."""
    device = device_of(net)
    if not beliefs:
        return torch.zeros((), device=device)
    d = net.shape.embed_size
    pick = [beliefs[i] for i in rng.integers(0, len(beliefs), batch_size)]
    index, valid, correction = _negatives(rng, [(len(v), t) for _, v, t, _ in pick], m)
    chosen = [_chosen(vals, index[r]) for r, (_, vals, _, _) in enumerate(pick)]
    feats = _features_at(game, [(x, b) for x, (*_, b) in zip(chosen, pick)])
    e = net.encode(torch.from_numpy(feats.reshape(len(pick), m + 1, -1)).to(device))
    q = net(net.dense([x for x, _, _, _ in pick]))["query"]
    logits = (e * q[:, None, :d]).sum(-1) + torch.from_numpy(correction).to(device)
    logits = logits.masked_fill(~torch.from_numpy(valid).to(device), float("-inf"))
    return -(logits[:, 0] - torch.logsumexp(logits, dim=1)).mean()


def _bayes_loss(
    net: EmbeddingNetwork,
    game: Game,
    rng: np.random.Generator,
    transitions: list[Any],
    batch_size: int,
) -> Any:
    """The Bayes-rule term on self-play's opponent actions: over each transition's drawn
    worlds, the cross-entropy of H after the action against the softmax of H's logits
    before it plus the log-probability of the action under P at the acting player's view
    in each world (no gradient through the target, as in the tabulated network's term)."""
    device = device_of(net)
    if not transitions:
        return torch.zeros((), device=device)
    d = net.shape.embed_size
    pick = [transitions[i] for i in rng.integers(0, len(transitions), batch_size // 4 + 1)]
    k = max(len(t[3]) for t in pick)
    valid = np.zeros((len(pick), k), dtype=bool)
    feats, moved, rows, legal, acts = [], [], [], [], []
    for r, (_, _, action, values, opponent, mask, public, after_values) in enumerate(pick):
        n = len(values)
        valid[r, :n] = True
        padded = [*values, *[values[0]] * (k - n)]
        feats.append(_features_at(game, [(padded, public)]))
        if after_values is not None:  # a hidden action: each world's value after it
            padded = [*after_values, *[after_values[0]] * (k - n)]
            moved.append(_features_at(game, [(padded, public)]))
        else:
            moved.append(feats[-1])
        for row in [*opponent, *[opponent[0]] * (k - n)]:
            rows.append(row[row >= 0])
        rows_legal = mask if mask.ndim == 2 else mask[None, :]
        legal.append(
            np.concatenate([rows_legal, np.repeat(rows_legal[:1], k - len(rows_legal), 0)])
        )
        acts.append(action)
    e = net.encode(torch.from_numpy(np.stack(feats)).to(device))
    hidden = any(t[7] is not None for t in pick)  # else each world keeps its value
    e_after = net.encode(torch.from_numpy(np.stack(moved)).to(device)) if hidden else e
    ok = torch.from_numpy(valid).to(device)
    with torch.no_grad():
        before = net(net.dense([t[0] for t in pick]))["query"]
        prior = (e.detach() * before[:, None, :d]).sum(-1)
        opp = net(net.dense(rows))["policy"].reshape(len(pick), k, -1)
        logp = masked_log_softmax(opp, torch.from_numpy(np.stack(legal)).to(device))
        act = torch.tensor(acts, device=device)[:, None, None].expand(-1, k, 1)
        likelihood = logp.gather(2, act).squeeze(2)
        target = torch.softmax((prior + likelihood).masked_fill(~ok, float("-inf")), dim=1)
        target = torch.nan_to_num(target, nan=0.0)  # no drawn world allows the action
    after = net(net.dense([t[1] for t in pick]))["query"]
    post = torch.log_softmax(
        (e_after * after[:, None, :d]).sum(-1).masked_fill(~ok, float("-inf")), dim=1
    )
    return -(target * post.masked_fill(~ok, 0.0)).sum(1).mean()


def _features_at(game: Game, rows: Sequence[tuple[Sequence[Any], Any]]) -> np.ndarray:
    """``Game.hidden_value_features`` of each row's values at its public information,
    stacked in row order (``Game.hidden_value_features_rows``: one pass where the game
    has one)."""
    features = game.hidden_value_features_rows(rows)
    assert features is not None
    return features.astype(np.float32, copy=False)


def _negatives(
    rng: np.random.Generator, rows: Sequence[tuple[int, int]], m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """H's sampled-softmax columns for rows of ``(worlds, true world)``: column 0 the true
    world, columns 1 to ``m`` up to ``m`` of the other worlds drawn uniformly without
    replacement (the ``m`` smallest of one uniform key per other world, all rows in one
    draw); a column with nothing drawn repeats the true world and is not ``valid``.
    ``correction`` is ``log(others / drawn)`` on the drawn columns. Returns ``(index,
    valid, correction)``, each ``(rows, m + 1)``."""
    n = len(rows)
    others = np.array([w - 1 for w, _ in rows], dtype=np.int64)
    true = np.array([t for _, t in rows], dtype=np.int64)
    index = np.repeat(true[:, None], m + 1, axis=1)
    valid = np.zeros((n, m + 1), dtype=bool)
    valid[:, 0] = True
    correction = np.zeros((n, m + 1), dtype=np.float32)
    width = int(others.max()) if n else 0
    if width == 0:
        return index, valid, correction
    keys = rng.random((n, width))
    keys[np.arange(width)[None, :] >= others[:, None]] = np.inf
    drawn = np.argpartition(keys, m - 1, axis=1)[:, :m] if m < width else np.argsort(keys, axis=1)
    ok = drawn < others[:, None]
    cols = slice(1, drawn.shape[1] + 1)
    index[:, cols] = np.where(ok, drawn + (drawn >= true[:, None]), true[:, None])
    valid[:, cols] = ok
    take = np.minimum(others, m)
    ratio = np.log(np.maximum(others, 1) / np.maximum(take, 1)).astype(np.float32)
    correction[:, cols] = np.where(ok, ratio[:, None], 0.0)
    return index, valid, correction


def _chosen(values: Any, index: np.ndarray) -> Any:
    """``values[index]`` (vectorized where the values can ``take`` many at once, as
    poker's hole cards)."""
    if hasattr(values, "take"):
        return values.take(index)
    return [values[int(k)] for k in index]
