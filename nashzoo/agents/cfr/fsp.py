"""Fictitious Self-Play (FSP), the sample-based tabular form.

Paper: Heinrich, Lanctot & Silver, "Fictitious Self-Play in Extensive-Form Games",
ICML 2015 (Algorithm 2). XFP (:mod:`nashzoo.agents.cfr.xfp`) is its full-width parent;
NFSP replaces both learners below by neural networks.

Each player ``i`` keeps an average policy ``pi_i`` and a best response ``beta_i``. One
iteration ``k``:

1. **Generate data.** ``episodes`` games of self-play in which, at the start of every
   game, each player independently plays ``beta_i`` with probability ``eta_k`` and
   ``pi_i`` otherwise (the mixture ``sigma = (1 - eta_k) pi + eta_k beta``,
   ``eta_k = mixing / (k + 1)``). Every transition ``(I, a, r, I')`` of player ``i``
   (``I'`` its next information set, or the end with reward ``r``) in the games where
   ``i`` explores (see ``explore``) goes to its reinforcement-learning memory, a sliding
   window of the latest ``rl_memory`` transitions (the opponents played ``sigma_{-i}`` in
   them). Then, per player ``i``,
   ``sl_episodes`` games in which ``i`` plays ``beta_i`` against ``sigma_{-i}``: the
   ``(I, a)`` pairs ``i`` chose go to its supervised memory, a reservoir of ``sl_memory``
   pairs (uniform over everything seen, so every iteration's best response weighs the
   same, as fictitious play's average requires).
2. **Reinforcement learning.** Fitted Q-iteration on the RL memory: ``Q(I, a)`` is
   refitted as the mean of ``r + max_a' Q(I', a')`` over the transitions from ``(I, a)``,
   once per level of the tree (enough for the targets to reach every set);
   ``beta_i`` is greedy in ``Q``.
3. **Supervised learning.** ``pi_i(a | I)`` is proportional to the count of ``(I, a)`` in
   the reservoir: the average of the player's past best-response behaviour, which is
   what fictitious play averages.

Everything runs on the compiled tree's arrays (sampling compiled with numba), so its cost
per iteration does not grow with the number of histories, the point of the paper's
60-card Leduc comparison. Seeded end to end.
"""

from __future__ import annotations

import numpy as np

from nashzoo.agents.cfr.base import TabularSolver
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.compile import GameTree
from nashzoo.tree.jit import compile_kernels
from nashzoo.tree.sampling import rng_state, sample_paths
from nashzoo.validation import check_int

__all__ = ["FSPSolver"]


class FSPSolver(TabularSolver):
    """Sample-based tabular Fictitious Self-Play.

    Args:
        game: the game or its compiled tree.
        episodes: self-play games per iteration (data of the best responses).
        sl_episodes: games per player and iteration in which it plays its best response
            (data of the average policy).
        mixing: ``eta_k = mixing / (k + 1)``, the probability of playing the best response
            (the paper's anticipatory mixing, 1 in its Leduc experiments).
        rl_memory: transitions kept per player for fitted Q-iteration (a sliding window of
            a few iterations: the average policy the data was played against moves by a
            constant fraction over any window proportional to ``k``, so older data
            misleads; measured on Kuhn: 0.145 after 64 iterations with 200,000 against
            0.043 with 6,000, and a window of the last k/4 iterations was worse than a
            fixed one on Kuhn and Leduc).
        sl_memory: best-response ``(infoset, action)`` pairs kept per player (reservoir).
        explore: in the RL games, the probability that the learning player tries a
            uniformly random action (the games alternate which player learns from them, so
            the opponent's play in every stored transition is exactly ``sigma``). Without
            it, actions that no past best response chose have no data, and fitted
            Q-iteration cannot find out that they are better (on Leduc, exploitability
            stalled near 1.0 with 0; see ``benchmarks/RESULTS.md``). 0 reproduces the
            paper's on-policy data.
        seed: seed of the sampling.
    """

    name = "fsp"

    def __init__(
        self,
        game: Game | GameTree,
        *,
        episodes: int = 10_000,
        sl_episodes: int = 1_000,
        mixing: float = 1.0,
        rl_memory: int = 40_000,
        sl_memory: int = 2_000_000,
        explore: float = 0.1,
        seed: int | None = None,
    ) -> None:
        super().__init__(game)
        self.episodes = check_int("episodes", episodes, 1)
        self.sl_episodes = check_int("sl_episodes", sl_episodes, 1)
        if (
            isinstance(mixing, bool)
            or not isinstance(mixing, (int, float))
            or not 0.0 < mixing <= 1.0
        ):
            raise InvalidParameterError(
                f"Parameter `mixing` must be a number in (0, 1], received {mixing!r}."
            )
        self.mixing = float(mixing)
        if (
            isinstance(explore, bool)
            or not isinstance(explore, (int, float))
            or not 0.0 <= explore < 1.0
        ):
            raise InvalidParameterError(
                f"Parameter `explore` must be a number in [0, 1), received {explore!r}."
            )
        self.explore = float(explore)
        self.rl_memory = check_int("rl_memory", rl_memory, 1)
        self.sl_memory = check_int("sl_memory", sl_memory, 1)
        self.seed = 0 if seed is None else check_int("seed", seed, 0)
        self._rng = np.random.default_rng(self.seed)
        tree = self.tree
        self._max_len = int(tree.depth.max()) + 1
        self._levels = int(tree.infoset_depth.max()) + 2
        self._pi = tree.uniform_probs()
        self._beta = tree.uniform_probs()
        self._counts = np.zeros(tree.legal_mask.shape)
        n = tree.num_players
        # per player: (infoset, action, reward, next infoset) of each transition
        self._rl: list[tuple[np.ndarray, ...]] = [
            tuple(np.empty(0, dtype=dt) for dt in (np.int64, np.int64, np.float64, np.int64))
            for _ in range(n)
        ]
        self._sl_seen = np.zeros(n, dtype=np.int64)
        self._sl: list[np.ndarray] = [np.empty((0, 2), dtype=np.int64) for _ in range(n)]

    # -- data ------------------------------------------------------------------------------
    def _transitions(
        self, paths: np.ndarray, p: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Player ``p``'s transitions ``(episode, infoset, action, reward, next infoset)``
        in the sampled paths (``next = -1`` at the end of the game)."""
        t = self.tree
        valid = paths >= 0
        nodes = np.where(valid, paths, 0)
        mine = valid & (t.player[nodes] == p)
        mine[:, -1] = False
        ep, pos = np.nonzero(mine)  # row-major: in episode order, then path order
        node = paths[ep, pos]
        child = paths[ep, pos + 1]
        infoset = t.infoset[node]
        act = t.action[child]
        same_next = np.zeros(ep.size, dtype=bool)
        same_next[:-1] = ep[1:] == ep[:-1]
        nxt = np.full(ep.size, -1, dtype=np.int64)
        nxt[same_next] = infoset[1:][same_next[:-1]]
        last = paths[np.arange(paths.shape[0]), valid.sum(axis=1) - 1]
        reward = np.where(same_next, 0.0, t.utility[last[ep], p])
        return ep, infoset, act, reward, nxt

    def _fit_q(self, p: int) -> None:
        t = self.tree
        s, a, r, s2 = self._rl[p]
        shape = t.legal_mask.shape
        flat = s * shape[1] + a
        counts = np.bincount(flat, minlength=shape[0] * shape[1]).reshape(shape)
        seen = counts > 0
        any_seen = np.asarray(seen.any(axis=1), dtype=bool)
        q = np.zeros(shape)
        for _ in range(self._levels):
            # the value of a set is the best *tried* action's (an untried action has no
            # estimate; counting it as 0 made the greedy choice prefer it wherever the
            # tried actions lose chips, and on 60-card Leduc, where most sets have few
            # samples, the average policy grew more exploitable with every iteration)
            best = np.where(any_seen, np.where(seen, q, -np.inf).max(axis=1), 0.0)
            target = r + np.where(s2 >= 0, best[np.maximum(s2, 0)], 0.0)
            sums = np.bincount(flat, weights=target, minlength=shape[0] * shape[1]).reshape(shape)
            q = np.where(seen, sums / np.maximum(counts, 1), 0.0)
        rows = t.infosets_of(p)
        rows = rows[any_seen[rows]]  # sets without data keep their best response
        greedy = np.where(seen[rows], q[rows], -np.inf).argmax(axis=1)
        self._beta[rows] = 0.0
        self._beta[rows, greedy] = 1.0

    def _reservoir_add(self, p: int, pairs: np.ndarray) -> None:
        """Algorithm R over ``pairs`` in order, keeping ``self._counts`` equal to the
        reservoir's ``(infoset, action)`` counts."""
        cap = self.sl_memory
        mem = self._sl[p]
        seen = int(self._sl_seen[p])
        room = max(0, cap - mem.shape[0])
        if room:
            added = pairs[:room]
            mem = np.concatenate([mem, added])
            np.add.at(self._counts, (added[:, 0], added[:, 1]), 1.0)
            pairs = pairs[room:]
            seen += len(added)
        if len(pairs):
            # the j-th item seen replaces a random slot with probability cap / j
            j = seen + 1 + np.arange(len(pairs))
            slot = (self._rng.random(len(pairs)) * j).astype(np.int64)
            keep = np.flatnonzero(slot < cap)
            # when a batch hits one slot twice, the later item wins (as in sequence)
            _, last = np.unique(slot[keep][::-1], return_index=True)
            keep = keep[::-1][last]
            old = mem[slot[keep]]
            np.add.at(self._counts, (old[:, 0], old[:, 1]), -1.0)
            mem[slot[keep]] = pairs[keep]
            np.add.at(self._counts, (pairs[keep, 0], pairs[keep, 1]), 1.0)
            seen += len(pairs)
        self._sl[p] = mem
        self._sl_seen[p] = seen

    def _run(self, n: int) -> None:
        compile_kernels(globals())  # numba loads on the first run, not on import
        t = self.tree
        if n == 0:  # compile the sampler outside the timed region
            sample_paths(
                1,
                rng_state(0),
                t.arrays,
                self._pi,
                self._beta,
                0.0,
                self._max_len,
                t.num_players,
                -1,
                0.0,
            )
        for _ in range(n):
            k = self.iteration + 1 + _
            eta = min(1.0, self.mixing / (k + 1))
            seed = int(self._rng.integers(2**31 - 1))
            paths, _ = sample_paths(
                self.episodes,
                rng_state(seed),
                t.arrays,
                self._pi,
                self._beta,
                eta,
                self._max_len,
                t.num_players,
                -1,
                self.explore,
            )
            for p in range(t.num_players):
                ep, s, a, r, s2 = self._transitions(paths, p)
                if self.explore > 0:  # only the games in which p was the explorer
                    learner = ep % t.num_players == p
                    s, a, r, s2 = s[learner], a[learner], r[learner], s2[learner]
                self._rl[p] = tuple(
                    np.concatenate([o, x])[-self.rl_memory :]
                    for o, x in zip(self._rl[p], (s, a, r, s2))
                )
                sl_paths, _ = sample_paths(
                    self.sl_episodes,
                    rng_state(seed + 1 + p),
                    t.arrays,
                    self._pi,
                    self._beta,
                    eta,
                    self._max_len,
                    t.num_players,
                    p,
                    0.0,
                )
                _, s, a, _, _ = self._transitions(sl_paths, p)
                self._reservoir_add(p, np.stack([s, a], axis=1))
            for p in range(t.num_players):
                self._fit_q(p)
            self._pi = t.normalize_rows(self._counts)

    def _average_sums(self) -> np.ndarray:
        return self._counts

    def _current_probs(self) -> np.ndarray:
        return self._beta.copy()
