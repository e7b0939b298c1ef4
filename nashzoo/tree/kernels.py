"""Compiled (numba) loops over :class:`~nashzoo.tree.GameTree` arrays.

Every kernel walks nodes by index: forward passes in breadth-first order (parents first),
backward passes in reverse order or level by level. Player ids: >= 0 players, -1 chance,
-4 terminal. ``sigma`` is an ``(num_infosets, num_actions)`` behaviour policy.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from nashzoo.extras import user_cache_dir

# Compiled kernels are cached in the user's cache directory (every process, Ray workers
# included, imports this module before compiling), never next to the installed package,
# which may be read-only or shared. NUMBA_CACHE_DIR, when set, wins.
if not numba.config.CACHE_DIR:  # type: ignore[attr-defined]
    numba.config.CACHE_DIR = str(user_cache_dir("numba"))  # type: ignore[attr-defined]

CHANCE = -1
TERMINAL = -4
REGRET_NOISE = 1e-12
"""Regret-matching+ floors cumulative regrets below this at zero. An exact tie (regret 0)
comes out of floating-point sums as 0 or +-1e-17 depending on the summation order; RM+
would turn a +1e-17 into a pure strategy. Real CFR+ regrets this small do not move a
policy. (Tie handling that matches OpenSpiel's CFR+ to 1e-9.)"""


@njit(cache=True)
def forward_reach(
    p, player, first_child, num_children, infoset, action, chance_prob, sigma, reach_own, reach_opp
):
    """Reach probabilities: ``reach_own`` = player ``p``'s own contribution, ``reach_opp``
    = chance's and every other player's. With ``p = -2`` all players count as others."""
    reach_own[0] = 1.0
    reach_opp[0] = 1.0
    for n in range(player.size):
        pl = player[n]
        if pl == TERMINAL:
            continue
        fc = first_child[n]
        ro = reach_own[n]
        rp = reach_opp[n]
        if pl == CHANCE:
            for c in range(fc, fc + num_children[n]):
                reach_own[c] = ro
                reach_opp[c] = rp * chance_prob[c]
        elif pl == p:
            i = infoset[n]
            for c in range(fc, fc + num_children[n]):
                reach_own[c] = ro * sigma[i, action[c]]
                reach_opp[c] = rp
        else:
            i = infoset[n]
            for c in range(fc, fc + num_children[n]):
                reach_own[c] = ro
                reach_opp[c] = rp * sigma[i, action[c]]


@njit(cache=True)
def expected_returns(
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    utility,
    sigma,
    reach_own,
    reach_opp,
):
    """Expected return of every player under ``sigma``."""
    forward_reach(
        -2,
        player,
        first_child,
        num_children,
        infoset,
        action,
        chance_prob,
        sigma,
        reach_own,
        reach_opp,
    )
    out = np.zeros(utility.shape[1])
    for n in range(player.size):
        if player[n] == TERMINAL:
            r = reach_opp[n]
            for q in range(utility.shape[1]):
                out[q] += r * utility[n, q]
    return out


@njit(cache=True)
def best_response(
    p,
    player,
    first_child,
    num_children,
    infoset,
    action,
    level_starts,
    utility,
    legal_mask,
    reach_opp,
    value,
    q,
    br_action,
):
    """Best response of ``p`` to the others' part of the profile in ``reach_opp``.

    Requires every information set's nodes to share one depth. ``q`` (infosets x actions)
    must be zero and ``br_action`` -1 on entry; on exit ``br_action`` holds the best
    action at each of ``p``'s sets (ties go to the smallest action id). Returns the
    best-response value.
    """
    for lev in range(level_starts.size - 2, -1, -1):
        start = level_starts[lev]
        stop = level_starts[lev + 1]
        for n in range(start, stop):
            if player[n] == p:
                i = infoset[n]
                fc = first_child[n]
                for c in range(fc, fc + num_children[n]):
                    q[i, action[c]] += value[c]
        for n in range(start, stop):
            pl = player[n]
            if pl == TERMINAL:
                value[n] = reach_opp[n] * utility[n, p]
            elif pl == p:
                i = infoset[n]
                if br_action[i] < 0:
                    best = -1
                    best_q = -np.inf
                    for a in range(legal_mask.shape[1]):
                        if legal_mask[i, a] and q[i, a] > best_q + 1e-12:
                            best = a
                            best_q = q[i, a]
                    br_action[i] = best
                fc = first_child[n]
                for c in range(fc, fc + num_children[n]):
                    if action[c] == br_action[i]:
                        value[n] = value[c]
            else:
                v = 0.0
                fc = first_child[n]
                for c in range(fc, fc + num_children[n]):
                    v += value[c]
                value[n] = v
    return value[0]


@njit(cache=True)
def cfr_values(
    p, player, first_child, num_children, infoset, action, utility, sigma, reach_opp, value, regret
):
    """Backward pass of CFR for player ``p``: adds the instantaneous counterfactual
    regrets of ``p``'s information sets to ``regret`` and returns ``p``'s
    counterfactual value of the root."""
    for n in range(player.size - 1, -1, -1):
        pl = player[n]
        if pl == TERMINAL:
            value[n] = reach_opp[n] * utility[n, p]
            continue
        fc = first_child[n]
        nc = num_children[n]
        if pl == p:
            i = infoset[n]
            v = 0.0
            for c in range(fc, fc + nc):
                v += sigma[i, action[c]] * value[c]
            value[n] = v
            for c in range(fc, fc + nc):
                regret[i, action[c]] += value[c] - v
        else:
            v = 0.0
            for c in range(fc, fc + nc):
                v += value[c]
            value[n] = v
    return value[0]


@njit(cache=True)
def update_player(
    lo,
    hi,
    regret,
    sigma,
    avg,
    legal_mask,
    infoset_node,
    reach_own,
    pos_discount,
    neg_discount,
    floor_regrets,
    avg_decay,
    avg_weight,
):
    """After a CFR pass for the player owning sets ``lo .. hi-1``: accumulate the average
    policy with the policy just played, discount (or floor) the regrets, and regret-match
    the next policy."""
    n_actions = legal_mask.shape[1]
    for i in range(lo, hi):
        w = avg_weight * reach_own[infoset_node[i]]
        total = 0.0
        for a in range(n_actions):
            avg[i, a] = avg[i, a] * avg_decay + w * sigma[i, a]
            r = regret[i, a]
            if r > 0.0:
                r *= pos_discount
            elif floor_regrets:
                r = 0.0
            else:
                r *= neg_discount
            if floor_regrets and r < REGRET_NOISE:
                r = 0.0
            regret[i, a] = r
            if r > 0.0 and legal_mask[i, a]:
                total += r
        if total > 0.0:
            for a in range(n_actions):
                r = regret[i, a]
                sigma[i, a] = r / total if (r > 0.0 and legal_mask[i, a]) else 0.0
        else:
            count = 0
            for a in range(n_actions):
                if legal_mask[i, a]:
                    count += 1
            for a in range(n_actions):
                sigma[i, a] = 1.0 / count if legal_mask[i, a] else 0.0


@njit(cache=True)
def cfr_run(
    n_iters,
    t0,
    alternating,
    regret_plus,
    alpha,
    beta,
    gamma,
    averaging,
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    utility,
    legal_mask,
    infoset_node,
    player_lo,
    player_hi,
    sigma,
    regret,
    avg,
    reach_own,
    reach_opp,
    value,
):
    """Run ``n_iters`` CFR-family iterations starting after iteration ``t0``.

    ``alpha``/``beta`` < 0 mean no discount of positive/negative regrets; ``averaging``
    0 = uniform weights, 1 = linear (weight t), 2 = DCFR (old sum times ((t-1)/t)^gamma).
    ``reach_own`` is ``(num_players, num_nodes)``. With ``alternating`` each player's
    update sees the others' policies already updated in the same iteration.
    """
    n_players = player_lo.size
    for it in range(n_iters):
        t = t0 + it + 1
        pos = 1.0 if alpha < 0 else t**alpha / (t**alpha + 1.0)
        neg = 1.0 if beta < 0 else t**beta / (t**beta + 1.0)
        if averaging == 1:
            decay, weight = 1.0, float(t)
        elif averaging == 2:
            decay, weight = ((t - 1.0) / t) ** gamma, 1.0
        else:
            decay, weight = 1.0, 1.0
        for p in range(n_players):
            forward_reach(
                p,
                player,
                first_child,
                num_children,
                infoset,
                action,
                chance_prob,
                sigma,
                reach_own[p],
                reach_opp,
            )
            cfr_values(
                p,
                player,
                first_child,
                num_children,
                infoset,
                action,
                utility,
                sigma,
                reach_opp,
                value,
                regret,
            )
            if alternating:
                update_player(
                    player_lo[p],
                    player_hi[p],
                    regret,
                    sigma,
                    avg,
                    legal_mask,
                    infoset_node,
                    reach_own[p],
                    pos,
                    neg,
                    regret_plus,
                    decay,
                    weight,
                )
        if not alternating:
            for p in range(n_players):
                update_player(
                    player_lo[p],
                    player_hi[p],
                    regret,
                    sigma,
                    avg,
                    legal_mask,
                    infoset_node,
                    reach_own[p],
                    pos,
                    neg,
                    regret_plus,
                    decay,
                    weight,
                )


@njit(cache=True)
def pcfr_run(
    n_iters,
    t0,
    avg_power,
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    utility,
    legal_mask,
    infoset_node,
    player_lo,
    player_hi,
    sigma,
    regret,
    instant,
    avg,
    reach_own,
    reach_opp,
    value,
):
    """Run ``n_iters`` iterations of predictive CFR+ (alternating updates) after ``t0``.

    Per information set: the instantaneous regrets ``r`` of this pass (collected in
    ``instant``), ``R = max(R + r, 0)``, and the next policy regret-matches ``R + r``
    (the prediction of the next regret is the last one). The average sums add the policy
    just played times ``t ** avg_power`` times the player's reach.
    """
    n_players = player_lo.size
    n_actions = legal_mask.shape[1]
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        for p in range(n_players):
            forward_reach(
                p,
                player,
                first_child,
                num_children,
                infoset,
                action,
                chance_prob,
                sigma,
                reach_own[p],
                reach_opp,
            )
            for i in range(player_lo[p], player_hi[p]):
                for a in range(n_actions):
                    instant[i, a] = 0.0
            cfr_values(
                p,
                player,
                first_child,
                num_children,
                infoset,
                action,
                utility,
                sigma,
                reach_opp,
                value,
                instant,
            )
            for i in range(player_lo[p], player_hi[p]):
                w = weight * reach_own[p][infoset_node[i]]
                total = 0.0
                count = 0
                for a in range(n_actions):
                    avg[i, a] += w * sigma[i, a]
                    if not legal_mask[i, a]:
                        continue
                    count += 1
                    r = regret[i, a] + instant[i, a]
                    regret[i, a] = r if r > REGRET_NOISE else 0.0
                    pred = regret[i, a] + instant[i, a]
                    if pred > 0.0:
                        total += pred
                for a in range(n_actions):
                    if not legal_mask[i, a]:
                        sigma[i, a] = 0.0
                    elif total > 0.0:
                        pred = regret[i, a] + instant[i, a]
                        sigma[i, a] = pred / total if pred > 0.0 else 0.0
                    else:
                        sigma[i, a] = 1.0 / count


@njit(cache=True)
def _mmd_update(lo, hi, eta, tau, legal_mask, log_magnet, sigma, log_sigma, q, opp):
    """The MMD step at sets ``lo .. hi-1``; ``log_sigma`` carries ``log sigma`` between
    iterations (one ``log`` per set instead of one per action)."""
    n_actions = legal_mask.shape[1]
    scale = 1.0 / (1.0 + eta * tau)
    pull = eta * tau
    for i in range(lo, hi):
        if opp[i] <= 0.0:
            continue  # no history of the set is reachable: nothing to learn there
        step = eta / opp[i]
        best = -1e300
        for a in range(n_actions):
            if legal_mask[i, a]:
                z = (log_sigma[i, a] + pull * log_magnet[i, a] + step * q[i, a]) * scale
                q[i, a] = z
                if z > best:
                    best = z
        total = 0.0
        for a in range(n_actions):
            if legal_mask[i, a]:
                e = np.exp(q[i, a] - best)
                sigma[i, a] = e
                total += e
        inv = 1.0 / total
        shift = best + np.log(total)
        for a in range(n_actions):
            if legal_mask[i, a]:
                sigma[i, a] *= inv
                log_sigma[i, a] = q[i, a] - shift


@njit(cache=True)
def mmd_run(
    n_iters,
    eta,
    tau,
    alternating,
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    utility,
    legal_mask,
    player_lo,
    player_hi,
    log_magnet,
    sigma,
    log_sigma,
    q,
    opp,
    reach_own,
    reach_opp,
    value,
):
    """Run ``n_iters`` iterations of magnetic mirror descent, behavioural form: both
    players updated from the same profile (``alternating=False``), or player 0 first and
    player 1 against player 0's new policy.

    Per information set ``I`` with action values ``q(I, a)`` (counterfactual action values
    divided by the opponents' and chance's reach of ``I``), the next policy is

        log pi'(a) = [log pi(a) + eta tau log rho(a) + eta q(I, a)] / (1 + eta tau) + c,

    ``rho`` the magnet (``log_magnet``), ``c`` normalising over the legal actions.
    """
    n_players = player_lo.size
    n_actions = legal_mask.shape[1]
    for _ in range(n_iters):
        for i in range(q.shape[0]):
            opp[i] = 0.0
            for a in range(n_actions):
                q[i, a] = 0.0
        for p in range(n_players):
            forward_reach(
                p,
                player,
                first_child,
                num_children,
                infoset,
                action,
                chance_prob,
                sigma,
                reach_own[p],
                reach_opp,
            )
            for n in range(player.size - 1, -1, -1):
                pl = player[n]
                if pl == TERMINAL:
                    value[n] = reach_opp[n] * utility[n, p]
                    continue
                fc = first_child[n]
                nc = num_children[n]
                v = 0.0
                if pl == p:
                    i = infoset[n]
                    opp[i] += reach_opp[n]
                    for c in range(fc, fc + nc):
                        v += sigma[i, action[c]] * value[c]
                        q[i, action[c]] += value[c]
                else:
                    for c in range(fc, fc + nc):
                        v += value[c]
                value[n] = v
            if alternating:
                _mmd_update(
                    player_lo[p],
                    player_hi[p],
                    eta,
                    tau,
                    legal_mask,
                    log_magnet,
                    sigma,
                    log_sigma,
                    q,
                    opp,
                )
        if not alternating:
            _mmd_update(0, q.shape[0], eta, tau, legal_mask, log_magnet, sigma, log_sigma, q, opp)


def rng_state(seed: int) -> np.ndarray:
    """A state for :func:`next_uniform` (xorshift64*, never 0) spread from ``seed``."""
    return np.array([(int(seed) * 0x9E3779B97F4A7C15 + 1) % 2**64 or 1], dtype=np.uint64)


@njit(cache=True)
def next_uniform(rng_state):
    """xorshift64* step on ``rng_state[0]``; a float in [0, 1)."""
    x = rng_state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng_state[0] = x
    return float((x * np.uint64(2685821657736338717)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _regret_matching(regret, legal_mask, i, out):
    total = 0.0
    count = 0
    for a in range(legal_mask.shape[1]):
        if legal_mask[i, a]:
            count += 1
            if regret[i, a] > 0.0:
                total += regret[i, a]
    for a in range(legal_mask.shape[1]):
        if not legal_mask[i, a]:
            out[a] = 0.0
        elif total > 0.0:
            out[a] = regret[i, a] / total if regret[i, a] > 0.0 else 0.0
        else:
            out[a] = 1.0 / count


@njit(cache=True)
def _sample_chance(fc, nc, chance_prob, u):
    """The child of a chance node (children ``fc .. fc+nc-1``) that ``u`` in [0, 1) picks."""
    for c in range(fc, fc + nc - 1):
        u -= chance_prob[c]
        if u < 0.0:
            return c
    return fc + nc - 1


@njit(cache=True)
def _sample_child(n, first_child, num_children, action, probs_by_action, u):
    fc = first_child[n]
    last = fc + num_children[n] - 1
    for c in range(fc, last):
        u -= probs_by_action[action[c]]
        if u < 0.0:
            return c
    return last


@njit(cache=True)
def external_sampling_run(
    n_iters,
    rng_state,
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    utility,
    legal_mask,
    regret,
    avg,
    active,
    chosen,
    value,
    scratch,
):
    """External-sampling MCCFR (Lanctot et al. 2009): per iteration one traversal per
    player; chance and the other players sample one action, the traverser explores all.
    The others' average policies get their current policy added at every visited node."""
    n_players = utility.shape[1]
    n_actions = legal_mask.shape[1]
    sig = np.zeros(n_actions)
    for _it in range(n_iters):
        for p in range(n_players):
            # forward: collect the sampled subtree breadth first
            active[0] = 0
            size = 1
            k = 0
            while k < size:
                n = active[k]
                k += 1
                pl = player[n]
                if pl == TERMINAL:
                    continue
                fc = first_child[n]
                nc = num_children[n]
                if pl == p:
                    for c in range(fc, fc + nc):
                        active[size] = c
                        size += 1
                    continue
                if pl == CHANCE:
                    c = _sample_chance(fc, nc, chance_prob, next_uniform(rng_state))
                else:
                    i = infoset[n]
                    _regret_matching(regret, legal_mask, i, sig)
                    for a in range(n_actions):
                        avg[i, a] += sig[a]
                    c = _sample_child(
                        n, first_child, num_children, action, sig, next_uniform(rng_state)
                    )
                chosen[n] = c
                active[size] = c
                size += 1
            # backward over the sampled subtree
            for k in range(size - 1, -1, -1):
                n = active[k]
                pl = player[n]
                if pl == TERMINAL:
                    value[n] = utility[n, p]
                elif pl == p:
                    i = infoset[n]
                    _regret_matching(regret, legal_mask, i, scratch)
                    fc = first_child[n]
                    v = 0.0
                    for c in range(fc, fc + num_children[n]):
                        v += scratch[action[c]] * value[c]
                    value[n] = v
                    for c in range(fc, fc + num_children[n]):
                        regret[i, action[c]] += value[c] - v
                else:
                    value[n] = value[chosen[n]]


@njit(cache=True)
def outcome_sampling_run(
    n_iters,
    epsilon,
    rng_state,
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    utility,
    legal_mask,
    regret,
    avg,
    path_node,
    path_child,
    path_sigma,
    path_sample,
    path_reach,
):
    """Outcome-sampling MCCFR (Lanctot et al. 2009) without baseline, as OpenSpiel's:
    one sampled trajectory per player per iteration, the updating player exploring with
    ``epsilon``-uniform mixing; at its nodes, regrets get the importance-weighted
    counterfactual values and the average policy its own reach over the sampling reach.

    ``path_reach[d]`` holds (own reach, others' reach, sampling reach) before depth d."""
    n_players = utility.shape[1]
    n_actions = legal_mask.shape[1]
    for _it in range(n_iters):
        for p in range(n_players):
            n = 0
            depth = 0
            my_reach = 1.0
            opp_reach = 1.0
            sample_reach = 1.0
            while player[n] != TERMINAL:
                pl = player[n]
                fc = first_child[n]
                nc = num_children[n]
                if pl == CHANCE:
                    c = _sample_chance(fc, nc, chance_prob, next_uniform(rng_state))
                    opp_reach *= chance_prob[c]
                    sample_reach *= chance_prob[c]
                    n = c
                    continue
                i = infoset[n]
                sig = path_sigma[depth]
                smp = path_sample[depth]
                _regret_matching(regret, legal_mask, i, sig)
                count = 0
                for a in range(n_actions):
                    if legal_mask[i, a]:
                        count += 1
                for a in range(n_actions):
                    if pl == p and legal_mask[i, a]:
                        smp[a] = epsilon / count + (1.0 - epsilon) * sig[a]
                    else:
                        smp[a] = sig[a]
                c = _sample_child(
                    n, first_child, num_children, action, smp, next_uniform(rng_state)
                )
                path_node[depth] = n
                path_child[depth] = c
                path_reach[depth, 0] = my_reach
                path_reach[depth, 1] = opp_reach
                path_reach[depth, 2] = sample_reach
                a = action[c]
                if pl == p:
                    my_reach *= sig[a]
                else:
                    opp_reach *= sig[a]
                sample_reach *= smp[a]
                depth += 1
                n = c
            child_value = utility[n, p]
            for d in range(depth - 1, -1, -1):
                node = path_node[d]
                a_s = action[path_child[d]]
                sig = path_sigma[d]
                sampled_value = child_value / path_sample[d, a_s]
                value_estimate = sig[a_s] * sampled_value
                if player[node] == p:
                    i = infoset[node]
                    w = path_reach[d, 1] / path_reach[d, 2]
                    avg_w = path_reach[d, 0] / path_reach[d, 2]
                    for a in range(n_actions):
                        if legal_mask[i, a]:
                            cfa = sampled_value if a == a_s else 0.0
                            regret[i, a] += w * (cfa - value_estimate)
                            avg[i, a] += avg_w * sig[a]
                child_value = value_estimate


@njit(cache=True)
def sample_paths(
    n,
    rng_state,
    player,
    first_child,
    num_children,
    infoset,
    action,
    chance_prob,
    pi,
    beta,
    eta,
    max_len,
    n_players,
    forced,
    explore,
):
    """Sample ``n`` episodes; returns the node paths ``(n, max_len)`` (-1 padded) and which
    players played their best response ``(n, n_players)``. Player ``forced`` (if >= 0)
    always plays ``beta``; the others play ``beta`` with probability ``eta``. With
    ``explore > 0`` episode ``e``'s *explorer* ``e % n_players`` picks a uniformly random
    legal action with probability ``explore`` at each of its decisions."""
    paths = np.full((n, max_len), -1, dtype=np.int64)
    use_beta = np.zeros((n, n_players), dtype=np.bool_)
    for e in range(n):
        for p in range(n_players):
            u = next_uniform(rng_state)
            use_beta[e, p] = True if p == forced else u < eta
        node = 0
        k = 0
        while True:
            paths[e, k] = node
            k += 1
            pl = player[node]
            if pl == TERMINAL:
                break
            fc = first_child[node]
            nc = num_children[node]
            u = next_uniform(rng_state)
            c = 0.0
            nxt = fc + nc - 1
            if pl == CHANCE:
                for ch in range(fc, fc + nc):
                    c += chance_prob[ch]
                    if u < c:
                        nxt = ch
                        break
            elif explore > 0.0 and pl == e % n_players and u < explore:
                nxt = fc + min(int(next_uniform(rng_state) * nc), nc - 1)
            else:
                if explore > 0.0 and pl == e % n_players:
                    u = (u - explore) / (1.0 - explore)  # reuse the draw, uniform again
                i = infoset[node]
                probs = beta if use_beta[e, pl] else pi
                for ch in range(fc, fc + nc):
                    c += probs[i, action[ch]]
                    if u < c:
                        nxt = ch
                        break
            node = nxt
    return paths, use_beta
