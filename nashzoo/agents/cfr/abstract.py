"""External-sampling MCCFR on a card abstraction of Texas Hold'em: deals sampled, the
betting tree walked, regrets kept per abstract information set.

Paper: Lanctot, Waugh, Zinkevich & Bowling, "Monte Carlo Sampling for Regret Minimization
in Extensive Games", NeurIPS 2009 (external sampling); the card abstraction as in the
Annual Computer Poker Competition's limit agents (Johanson et al., AAMAS 2013, for
E[HS^2] buckets).

Nothing of the real tree (about 3.2e14 histories) is enumerated. One iteration:

1. deal both players' hole cards and the five board cards (one PCG64 stream, seeded);
2. find each player's bucket in each round (:mod:`nashzoo.abstraction.holdem`) and who
   wins the showdown;
3. for each player in turn, walk the betting tree (:mod:`nashzoo.abstraction.betting`):
   at the player's own decisions try every action, at the opponent's sample one from
   its current (regret-matching) policy, adding that policy to its average; at the ends
   the chips won with these cards; back up, and add to each own decision's regrets the
   value of each action minus the value of the policy.

An abstract information set is a decision of the betting tree with the acting player's
bucket of this round (imperfect recall) or of every round so far (perfect recall).
Regrets and the average policy are two ``(sets, actions)`` float64 arrays, whose size is
stated before solving and refused above ``max_memory``.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from nashzoo.abstraction.actions import ActionAbstraction, parse_actions
from nashzoo.abstraction.betting import FOLDED, BettingTree
from nashzoo.abstraction.holdem import board_strengths, bucket_of, pair_slot
from nashzoo.abstraction.isomorphism import SCRATCH
from nashzoo.abstraction.layout import HoldemAbstraction, check_holdem
from nashzoo.abstraction.spec import AbstractionSpec
from nashzoo.agents.cfr.abstract_policy import AbstractPolicy
from nashzoo.agents.cfr.mccfr import _compiled as _mccfr_compiled
from nashzoo.agents.cfr.mccfr import external_sampling_traverse
from nashzoo.agents.learner import TrainCallback
from nashzoo.errors import InvalidParameterError
from nashzoo.games.pcg import next_double, seeded_states
from nashzoo.games.poker.game import PokerGame
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.validation import check_int

__all__ = ["AbstractionSolver", "DEFAULT_MAX_MEMORY"]

DEFAULT_MAX_MEMORY = 8 * 2**30
"""The largest regret and average tables a solver takes unless told otherwise (8 GiB)."""


# -- the kernel ---------------------------------------------------------------------------
@kernel
def _draw(rng, pool, n, k):
    """Move ``k`` draws without replacement to the front of ``pool[:n]`` (a partial
    Fisher-Yates shuffle)."""
    for i in range(k):
        j = i + int(next_double(rng, 0) * (n - i))
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t


@kernel(nogil=True)
def _es_mccfr(
    n_iters, deals_per_board, rng, player, rnd, first_child, num_children, action, payoff,
    pot, legal_mask, base, perfect, sizes, b, regret, avg,
):  # fmt: skip
    """``n_iters`` iterations; a board serves ``deals_per_board`` deals of hole cards in a
    row (its river strengths computed once for all of them). Each deal is one
    :func:`~nashzoo.agents.cfr.mccfr.external_sampling_traverse` per player, with the
    deal's bucket keys and showdown result."""
    n_nodes = player.size
    active = np.zeros(n_nodes, np.int64)
    chosen = np.zeros(n_nodes, np.int64)
    value = np.zeros(n_nodes)
    sig = np.zeros(legal_mask.shape[1])
    nodes = np.arange(n_nodes)
    no_chance = np.zeros(0)
    sign = np.zeros(2)
    deck = np.zeros(52, np.int64)
    board = np.zeros(5, np.int64)
    rest = np.zeros(47, np.int64)
    spots = np.zeros(47, np.int64)
    pa = np.zeros(1081, np.int64)
    pb = np.zeros(1081, np.int64)
    half = np.zeros(1081, np.int64)
    strength = np.zeros(1081, np.int64)
    keys = np.zeros((2, 4), np.int64)
    hole = np.zeros(2, np.int64)
    slots = np.zeros(2, np.int64)
    hand = np.zeros(6, np.int64)
    scratch = np.zeros(SCRATCH, np.int64)
    seven = np.zeros(7, np.int64)
    for it in range(n_iters):
        if it % deals_per_board == 0:
            for c in range(52):
                deck[c] = c
            _draw(rng, deck, 52, 5)
            for j in range(5):
                board[j] = deck[j]
            board_strengths(board, b.pow5, b.flush, b.hand_keys, b.hand_values, rest, pa, pb,
                            half, strength)  # fmt: skip
        for c in range(47):
            spots[c] = c
        _draw(rng, spots, 47, 4)
        for q in range(2):
            x = spots[2 * q]
            y = spots[2 * q + 1]
            hole[0] = rest[x]
            hole[1] = rest[y]
            slots[q] = pair_slot(min(x, y), max(x, y))
            acc = 0
            for r in range(4):
                if r < 3:
                    bucket = bucket_of(hole, board, r, b, hand, scratch, seven)
                else:
                    bucket = np.searchsorted(b.river_edges, half[slots[q]], side="right")
                if perfect:
                    acc = acc * sizes[r] + bucket
                    keys[q, r] = acc
                else:
                    keys[q, r] = bucket
        s0 = strength[slots[0]]
        s1 = strength[slots[1]]
        sign[0] = 1.0 if s0 > s1 else (-1.0 if s0 < s1 else 0.0)
        sign[1] = -sign[0]
        for p in range(2):
            external_sampling_traverse(
                p, rng, player, first_child, num_children, action, no_chance, base, keys, rnd,
                legal_mask, nodes, payoff, pot, sign, regret, avg, active, chosen, value, sig,
            )  # fmt: skip


def end_values(t: BettingTree) -> tuple[np.ndarray, np.ndarray]:
    """The traversal's ``payoff`` and ``pot`` of a betting tree's ends, ``(nodes, 2)``
    each: at a fold, what each player wins (the folder loses its chips in, the other wins
    the folder's); at a showdown, the opponent's chips in, which the deal's result signs."""
    mine, theirs = t.contrib.astype(float), t.contrib[:, ::-1].astype(float)
    folded = (t.player == FOLDED)[:, None]
    payoff = np.where(folded & (t.folder[:, None] == [0, 1]), -mine, theirs)
    return np.where(folded, payoff, 0.0), theirs


# -- the solver ---------------------------------------------------------------------------
class AbstractionSolver:
    """External-sampling MCCFR on a Hold'em card abstraction (see the module docstring).

    Args:
        game: heads-up Texas Hold'em (the poker engine's ``limit_holdem``).
        abstraction: e.g. ``"ehs2:169,50,50,50"`` (or a :class:`HoldemAbstraction`).
        seed: seed of the deals and the opponents' sampled actions.
        max_memory: the most bytes the regret and average tables may take; a larger
            abstraction is refused (the message states its size) before anything is
            allocated.
        deals_per_board: deals of hole cards each sampled board serves in a row (its
            river strengths, 1,081 hand rankings, computed once for them all; every deal
            is still uniformly random, so the sampled regrets keep their expectation).
        progress: a progress bar while the bucket tables are built (the first time).
        actions: on heads-up no-limit, an action abstraction (``"0.5,1/1/1/1"``,
            :mod:`nashzoo.abstraction.actions`): the raises kept per round. The solved
            game is then ``game`` with those raises (the policy's
            :attr:`~AbstractPolicy.game`), and the policy plays ``game`` by bet
            translation.
        threads: sampling threads, each running its share of every batch of iterations
            on its own generator, all updating the same regret and average tables without
            locks (as Pluribus's blueprint did on one machine's cores). With one thread a
            seed gives the same tables every run; with more, the threads' updates
            interleave as they happen, so runs differ (each thread's stream is still
            seeded).

    Raises:
        InvalidParameterError: not Hold'em, a bad abstraction, seed or memory limit, or
            tables larger than ``max_memory``.
    """

    name = "es-mccfr"

    def __init__(
        self,
        game: PokerGame,
        abstraction: str | AbstractionSpec | HoldemAbstraction,
        *,
        seed: int = 0,
        max_memory: int = DEFAULT_MAX_MEMORY,
        deals_per_board: int = 8,
        progress: bool = True,
        threads: int = 1,
        actions: str | ActionAbstraction | None = None,
    ) -> None:
        seed = check_int("seed", seed, 0)
        if actions is not None:
            if isinstance(actions, str):
                actions = parse_actions(actions, check_holdem(game).definition.num_rounds)
            game = actions.game_for(game)
        self.threads = check_int("threads", threads, 1)
        self.deals_per_board = check_int("deals_per_board", deals_per_board, 1)
        max_memory = check_int("max_memory", max_memory, 1)
        self.abstraction = (
            abstraction
            if isinstance(abstraction, HoldemAbstraction)
            else HoldemAbstraction.build(game, abstraction, actions=actions, progress=progress)
        )
        need = self.abstraction.memory_bytes()
        if need > max_memory:
            raise InvalidParameterError(
                f"{self.abstraction.spec} has {self.abstraction.num_infosets:,} information sets "
                f"x {game.num_distinct_actions} actions: its regret and average tables take "
                f"{need / 2**30:.2f} GiB, over the limit of {max_memory / 2**30:.2f} GiB; "
                "raise max_memory (--max-memory) or choose fewer buckets."
            )
        self.game = game
        self.seed = seed
        n, a = self.abstraction.num_infosets, game.num_distinct_actions
        self.regret = np.zeros((n, a))
        self.avg = np.zeros((n, a))
        # thread 0 keeps the single-threaded stream; thread k > 0 one seeded by (seed, k)
        extra = [np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0] for k in
                 range(1, self.threads)]  # fmt: skip
        self._rng = seeded_states([seed, *(int(x) for x in extra)])
        self._arrays = self.abstraction.buckets.arrays()
        self._ends = end_values(self.abstraction.betting)
        _mccfr_compiled()  # the traversal's module first, with the draws it imports
        compile_kernels(globals())  # numba compiles (or loads) the kernel on first use
        self.iteration = 0
        self.seconds = 0.0

    def iterate(self, n: int = 1) -> AbstractionSolver:
        """Run ``n`` iterations (each: one deal, both players traversing)."""
        n = check_int("n", n, 0)
        start = time.perf_counter()
        self._run(n)
        self.seconds += time.perf_counter() - start
        return self

    def _run(self, n: int) -> None:
        t = self.abstraction.betting
        sizes = np.array(self.abstraction.buckets.sizes)

        def share(k: int) -> None:  # thread k's part of the n iterations
            part = n // self.threads + (1 if k < n % self.threads else 0)
            _es_mccfr(
                part, self.deals_per_board, self._rng[k : k + 1], t.player, t.round,
                t.first_child, t.num_children, t.action, *self._ends, t.legal_mask,
                self.abstraction.base, self.abstraction.spec.perfect_recall, sizes,
                self._arrays, self.regret, self.avg,
            )  # fmt: skip

        if self.threads == 1:
            share(0)
        else:  # the kernel releases the GIL: the threads run on as many cores
            with ThreadPoolExecutor(self.threads) as pool:
                list(pool.map(share, range(self.threads)))
        self.iteration += n

    def train(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: TrainCallback | None = None,
        callback_every: float = 60.0,
        progress: bool = False,
        batch: int = 2000,
    ) -> AbstractionSolver:
        """Iterate for ``steps`` iterations or ``seconds`` of solving, in batches of
        ``batch``; ``callback`` (a ``Callback``, a function or a list of them) every
        ``callback_every`` seconds of solving and at the end (its time not counted;
        ``False`` stops).

        Raises:
            InvalidParameterError: neither budget, or a bad one.
        """
        from nashzoo.agents.training import train_loop

        batch = check_int("batch", batch, 1)  # the budgets: train_loop checks them
        self._run(0)  # compile outside the clock

        def step(left: int | None) -> int:  # train_loop adds the time to self.seconds
            n = batch if left is None else min(batch, left)
            self._run(n)
            return n

        train_loop(
            self,
            step,
            steps=steps,
            seconds=seconds,
            callback=callback,
            callback_every=callback_every,
            progress=progress,
            desc=f"ES-MCCFR on {self.abstraction.spec}",
        )
        return self

    step_unit = "iterations"

    @property
    def steps(self) -> int:
        """Iterations so far."""
        return self.iteration

    def average_policy(self) -> AbstractPolicy:
        """The average policy (uniform over the legal actions of a set never visited)."""
        t = self.abstraction.betting
        legal = np.zeros(self.avg.shape, bool)
        decided = np.flatnonzero(t.player >= 0)
        width = self.abstraction.width
        for node in decided:
            start = self.abstraction.base[node]
            legal[start : start + width[t.round[node]]] = t.legal_mask[node] > 0
        probs = np.where(legal, self.avg, 0.0)
        total = probs.sum(axis=1, keepdims=True)
        uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
        probs = np.where(total > 0, probs / np.where(total > 0, total, 1.0), uniform)
        return AbstractPolicy(
            self.abstraction,
            probs,
            metadata={
                "algorithm": self.name,
                "iterations": self.iteration,
                "seconds": round(self.seconds, 3),
                "seed": self.seed,
            },
        )

    def __repr__(self) -> str:
        return (
            f"AbstractionSolver({self.game.short_name}, {self.abstraction.spec}, "
            f"iteration={self.iteration})"
        )
