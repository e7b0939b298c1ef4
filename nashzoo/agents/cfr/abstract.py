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

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from nashzoo.abstraction.betting import FOLDED, SHOWDOWN, BettingTree, betting_tree
from nashzoo.abstraction.holdem import (
    HoldemBuckets,
    board_strengths,
    bucket_of,
    holdem_buckets,
    pair_slot,
)
from nashzoo.abstraction.isomorphism import SCRATCH
from nashzoo.abstraction.spec import AbstractionSpec, parse_abstraction
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.games import load_game
from nashzoo.games.poker.engine import PokerGame
from nashzoo.validation import check_int, check_number
from nashzoo.vector.pcg import next_double, seeded_states

__all__ = [
    "HoldemAbstraction",
    "AbstractionSolver",
    "AbstractPolicy",
    "AbstractionAgent",
    "is_abstract_policy_file",
    "ABSTRACT_POLICY_FORMAT",
    "DEFAULT_MAX_MEMORY",
]

ABSTRACT_POLICY_FORMAT = "nashzoo.abstract_policy"
"""The ``format`` a saved :class:`AbstractPolicy` declares."""
_FORMAT_VERSION = 1
DEFAULT_MAX_MEMORY = 8 * 2**30
"""The largest regret and average tables a solver takes unless told otherwise (8 GiB)."""


def check_holdem(game: Any) -> PokerGame:
    """``game`` if it is heads-up Texas Hold'em as the bucket tables know it (52 cards,
    two hole cards, boards of 0, 3, 1 and 1 cards).

    Raises:
        InvalidParameterError: naming what differs.
    """
    if not isinstance(game, PokerGame):
        raise InvalidParameterError(
            f"Hold'em card abstractions apply to poker-engine games, received "
            f"{type(game).__name__}."
        )
    d = game.definition
    shape = (d.num_cards, d.num_hole_cards, tuple(d.num_board_cards))
    if shape != (52, 2, (0, 3, 1, 1)):
        raise InvalidParameterError(
            f"The Hold'em bucket tables need 52 cards, 2 hole cards and boards of (0, 3, 1, 1) "
            f"cards; {game.short_name} has {shape[0]} cards, {shape[1]} hole card(s) and "
            f"boards of {shape[2]}."
        )
    return game


@dataclass(frozen=True, eq=False)
class HoldemAbstraction:
    """A Hold'em game with its card buckets and the layout of its abstract information
    sets over the betting tree.

    Attributes:
        game: the game.
        spec: the abstraction (``ehs`` or ``ehs2`` with four counts).
        buckets: the bucket tables.
        betting: the betting tree.
        width: per round, the keys a decision's set takes (its buckets, or with perfect
            recall the product of every round's so far).
        base: each betting node's first abstract set (-1 at the ends).
        num_infosets: abstract information sets in all.
    """

    game: PokerGame
    spec: AbstractionSpec
    buckets: HoldemBuckets
    betting: BettingTree
    width: np.ndarray
    base: np.ndarray
    num_infosets: int

    @classmethod
    def build(
        cls, game: PokerGame, abstraction: str | AbstractionSpec, *, progress: bool = True
    ) -> HoldemAbstraction:
        """Parse ``abstraction`` and load (or build, once) its bucket tables.

        Raises:
            InvalidParameterError: not Hold'em, or an abstraction that does not parse, or
                not ``ehs``/``ehs2`` with four counts.
        """
        check_holdem(game)
        spec = (
            abstraction
            if isinstance(abstraction, AbstractionSpec)
            else parse_abstraction(abstraction, game.definition.num_rounds)
        )
        if spec.kind not in ("ehs", "ehs2") or len(spec.counts) != 4:
            raise InvalidParameterError(
                f"Texas Hold'em takes an 'ehs' or 'ehs2' abstraction with four counts "
                f"(e.g. 'ehs2:169,50,50,50'), received {spec}."
            )
        counts = (spec.counts[0], spec.counts[1], spec.counts[2], spec.counts[3])
        buckets = holdem_buckets(spec.kind, counts, progress=progress)
        tree = betting_tree(game)
        sizes = np.array(buckets.sizes, np.int64)
        width = np.cumprod(sizes) if spec.perfect_recall else sizes
        offsets = np.concatenate([[0], np.cumsum(tree.decisions * width)])
        base = np.full(tree.num_nodes, -1, np.int64)
        decided = tree.player >= 0
        rounds = tree.round[decided]
        base[decided] = offsets[rounds] + tree.slot[decided] * width[rounds]
        return cls(game, spec, buckets, tree, width, base, int(offsets[-1]))

    def memory_bytes(self) -> int:
        """What the solver's regret and average tables take (two float64 per set and
        action)."""
        return 2 * 8 * self.num_infosets * self.game.num_distinct_actions

    def keys_of(self, buckets: np.ndarray) -> np.ndarray:
        """Per round, the key of a player's set given its bucket of each round."""
        if not self.spec.perfect_recall:
            return np.asarray(buckets, np.int64)
        sizes = np.array(self.buckets.sizes, np.int64)
        out = np.zeros(4, np.int64)
        acc = 0
        for r in range(4):
            acc = acc * sizes[r] + int(buckets[r])
            out[r] = acc
        return out


# -- the kernel ---------------------------------------------------------------------------
@njit(cache=True)
def _regret_matching(regret, row, legal, out):
    total = 0.0
    count = 0
    for a in range(out.size):
        if legal[a]:
            count += 1
            if regret[row, a] > 0.0:
                total += regret[row, a]
    for a in range(out.size):
        if not legal[a]:
            out[a] = 0.0
        elif total > 0.0:
            out[a] = regret[row, a] / total if regret[row, a] > 0.0 else 0.0
        else:
            out[a] = 1.0 / count


@njit(cache=True)
def _draw(rng, pool, n, k):
    """Move ``k`` draws without replacement to the front of ``pool[:n]`` (a partial
    Fisher-Yates shuffle)."""
    for i in range(k):
        j = i + int(next_double(rng, 0) * (n - i))
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t


@njit(cache=True)
def _es_mccfr(
    n_iters, deals_per_board, rng, player, rnd, first_child, num_children, action, contrib,
    folder, legal_mask, base, perfect, sizes, b, regret, avg,
):  # fmt: skip
    """``n_iters`` iterations; a board serves ``deals_per_board`` deals of hole cards in a
    row (its river strengths computed once for all of them)."""
    n_actions = legal_mask.shape[1]
    n_nodes = player.size
    active = np.zeros(n_nodes, np.int64)
    chosen = np.zeros(n_nodes, np.int64)
    value = np.zeros(n_nodes)
    sig = np.zeros(n_actions)
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
        sign0 = 1.0 if s0 > s1 else (-1.0 if s0 < s1 else 0.0)
        for p in range(2):
            active[0] = 0
            size = 1
            k = 0
            while k < size:
                n = active[k]
                k += 1
                pl = player[n]
                if pl < 0:
                    continue
                fc = first_child[n]
                nc = num_children[n]
                if pl == p:
                    for c in range(fc, fc + nc):
                        active[size] = c
                        size += 1
                    continue
                row = base[n] + keys[pl, rnd[n]]
                _regret_matching(regret, row, legal_mask[n], sig)
                for a in range(n_actions):
                    avg[row, a] += sig[a]
                u = next_double(rng, 0)
                c = fc + nc - 1
                for cc in range(fc, fc + nc):
                    u -= sig[action[cc]]
                    if u < 0.0:
                        c = cc
                        break
                chosen[n] = c
                active[size] = c
                size += 1
            for k in range(size - 1, -1, -1):
                n = active[k]
                pl = player[n]
                if pl == FOLDED:
                    value[n] = -contrib[n, p] if folder[n] == p else contrib[n, 1 - p]
                elif pl == SHOWDOWN:
                    value[n] = (sign0 if p == 0 else -sign0) * contrib[n, 1 - p]
                elif pl == p:
                    row = base[n] + keys[p, rnd[n]]
                    _regret_matching(regret, row, legal_mask[n], sig)
                    fc = first_child[n]
                    v = 0.0
                    for c in range(fc, fc + num_children[n]):
                        v += sig[action[c]] * value[c]
                    value[n] = v
                    for c in range(fc, fc + num_children[n]):
                        regret[row, action[c]] += value[c] - v
                else:
                    value[n] = value[chosen[n]]


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
    ) -> None:
        seed = check_int("seed", seed, 0)
        self.deals_per_board = check_int("deals_per_board", deals_per_board, 1)
        max_memory = check_int("max_memory", max_memory, 1)
        self.abstraction = (
            abstraction
            if isinstance(abstraction, HoldemAbstraction)
            else HoldemAbstraction.build(game, abstraction, progress=progress)
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
        self._rng = seeded_states([seed])
        self._arrays = self.abstraction.buckets.arrays()
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
        _es_mccfr(
            n, self.deals_per_board, self._rng, t.player, t.round, t.first_child,
            t.num_children, t.action, t.contrib, t.folder, t.legal_mask, self.abstraction.base,
            self.abstraction.spec.perfect_recall, np.array(self.abstraction.buckets.sizes),
            self._arrays, self.regret, self.avg,
        )  # fmt: skip
        self.iteration += n

    def train(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: Callable[[AbstractionSolver], Any] | None = None,
        callback_every: float = 60.0,
        progress: bool = False,
        batch: int = 2000,
    ) -> AbstractionSolver:
        """Iterate for ``steps`` iterations or ``seconds`` of solving, in batches of
        ``batch``; ``callback(self)`` every ``callback_every`` seconds of solving and at the
        end (its time not counted; returning ``False`` stops).

        Raises:
            InvalidParameterError: neither budget, or a bad one.
        """
        from nashzoo.agents.training import train_loop

        batch = check_int("batch", batch, 1)
        if steps is None and seconds is None:
            raise InvalidParameterError("train() needs `steps` or `seconds`, received neither.")
        if seconds is not None:
            check_number("seconds", seconds, low=0.0)
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


# -- the solved policy, as a file and as an agent ------------------------------------------
class AbstractPolicy:
    """A policy over a Hold'em abstraction's information sets, that plays the real game
    by finding its set: the betting node of the information state's bets and the
    player's bucket(s) of its cards.

    Args:
        abstraction: the abstraction.
        probs: ``(sets, actions)`` probabilities.
        metadata: JSON-able facts saved with it.
    """

    def __init__(
        self,
        abstraction: HoldemAbstraction,
        probs: np.ndarray,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        probs = np.asarray(probs, np.float64)
        want = (abstraction.num_infosets, abstraction.game.num_distinct_actions)
        if probs.shape != want:
            raise PolicyFileError(
                f"An abstract policy of {abstraction.spec} has shape {want}, received "
                f"{probs.shape}."
            )
        self.abstraction = abstraction
        self.probs = probs
        self.metadata = dict(metadata or {})
        self._names = {name: c for c, name in enumerate(abstraction.game.card_names)}

    @property
    def game(self) -> PokerGame:
        return self.abstraction.game

    def row(self, info_state: str) -> tuple[int, np.ndarray]:
        """The abstract set of a real information state (``"player=0 hole=AsKd
        board=Qh7c2d bets=cr/c"``) and its legal mask.

        Raises:
            InvalidParameterError: not an information state of this game.
        """
        from nashzoo.abstraction.small import parse_info_state

        game = self.game
        player, hole, board, bets = parse_info_state(game, info_state)
        letters = {"f": 0, "c": 1, "r": 2}
        actions = [letters[ch] for ch in bets.replace("/", "") if ch in letters]
        node = self.abstraction.betting.node_of(actions)
        t = self.abstraction.betting
        if t.player[node] != player:
            raise InvalidParameterError(
                f"{info_state!r}: the bets {bets!r} leave player {int(t.player[node])} to act, "
                f"not player {player}."
            )
        r = int(t.round[node])
        flat = [c for part in board for c in part]
        shown = (0, 3, 4, 5)[r]
        if len(hole) != 2 or len(flat) != shown:
            raise InvalidParameterError(
                f"{info_state!r}: round {r} needs 2 hole cards and {shown} board cards."
            )
        buckets = np.zeros(4, np.int64)
        for q in range(r + 1):
            buckets[q] = self.abstraction.buckets.bucket(hole, flat[: (0, 3, 4, 5)[q]])
        key = self.abstraction.keys_of(buckets)[r]
        return int(self.abstraction.base[node] + key), t.legal_mask[node]

    def probabilities(self, info_state: str) -> np.ndarray:
        """The distribution over all actions at a real information state."""
        row, legal = self.row(info_state)
        out = np.where(legal > 0, self.probs[row], 0.0)
        total = out.sum()
        return out / total if total > 0 else legal / legal.sum()

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write an ``.npz`` holding the probabilities, the game and the abstraction's
        definition and table fingerprint (atomically)."""
        path = Path(path)
        if path.suffix != ".npz":
            raise InvalidParameterError(
                f"Abstract policies are .npz files, received {path.name!r}."
            )
        header = {
            "format": ABSTRACT_POLICY_FORMAT,
            "version": _FORMAT_VERSION,
            "game": self.game.to_spec(),
            "abstraction": str(self.abstraction.spec),
            "fingerprint": self.abstraction.buckets.fingerprint,
            "metadata": self.metadata,
        }
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, header=json.dumps(header), probs=self.probs.astype(np.float32))
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: str | Path, game: Any = None, *, progress: bool = False) -> AbstractPolicy:
        """Read a file written by :meth:`save` (no pickle; the bucket tables are loaded
        or rebuilt and must match the file's fingerprint).

        Raises:
            FileNotFoundError: no such file.
            PolicyFileError: not such a file, another version, another game than ``game``,
                or buckets that differ from those it was solved with.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"No policy file at {path}")
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                probs = np.asarray(data["probs"], np.float64)
        except Exception as exc:
            raise PolicyFileError(f"{path} is not a readable abstract policy file: {exc}") from None
        if (
            header.get("format") != ABSTRACT_POLICY_FORMAT
            or header.get("version") != _FORMAT_VERSION
        ):
            raise PolicyFileError(
                f"{path} has format {header.get('format')!r} version {header.get('version')!r}; "
                f"expected {ABSTRACT_POLICY_FORMAT!r} version {_FORMAT_VERSION}."
            )
        try:
            file_game = load_game(header["game"])
        except Exception as exc:
            raise PolicyFileError(f"{path}: its game does not load ({exc}).") from None
        if game is not None and file_game != game:
            raise PolicyFileError(f"{path} holds a policy for {file_game!r}, not for {game!r}.")
        try:
            abstraction = HoldemAbstraction.build(
                check_holdem(file_game), header["abstraction"], progress=progress
            )
        except InvalidParameterError as exc:
            raise PolicyFileError(f"{path}: {exc}") from None
        if abstraction.buckets.fingerprint != header.get("fingerprint"):
            raise PolicyFileError(
                f"{path} was solved with buckets {header.get('fingerprint')!r} of "
                f"{header['abstraction']}; this installation builds "
                f"{abstraction.buckets.fingerprint!r}."
            )
        return cls(abstraction, probs, metadata=header.get("metadata") or {})


def is_abstract_policy_file(path: str | Path) -> bool:
    """Whether ``path`` is an ``.npz`` that declares :data:`ABSTRACT_POLICY_FORMAT`."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if "header" not in data.files:
                return False
            return json.loads(str(data["header"])).get("format") == ABSTRACT_POLICY_FORMAT
    except Exception:
        return False


class AbstractionAgent(SampledPolicyAgent):
    """An :class:`AbstractPolicy` playing the real game through the Agent protocol (a
    PolicyAgent). It reads its information state from ``info["info_state"]`` where the
    harness sends it, else from the observation tensor (hole cards, board and bets are
    all in it), so it also plays in plain env loops.

    Args:
        policy: the policy, or a path to its ``.npz``.
        game: the game it is to play (checked against the file's).
        seed: seed of the agent's draws.
        name: display name.
    """

    def __init__(
        self,
        policy: AbstractPolicy | str | Path,
        game: Any = None,
        *,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed=seed)
        if isinstance(policy, (str, Path)):
            policy = AbstractPolicy.load(policy, game)
        if not isinstance(policy, AbstractPolicy):
            raise InvalidParameterError(
                f"AbstractionAgent expects an AbstractPolicy or its file, received "
                f"{type(policy).__name__}."
            )
        if game is not None and policy.game != game:
            raise InvalidParameterError(f"The policy is for {policy.game!r}, not for {game!r}.")
        self.policy = policy
        self.game = policy.game
        self.name = name or f"cfr-{policy.abstraction.spec}"

    def check_game(self, game: Any) -> None:
        """Raise unless ``game`` is the policy's."""
        if game != self.game:
            raise InvalidParameterError(f"{self.name} plays {self.game!r}, not {game!r}.")

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """The policy's distribution at this information state."""
        text = info.get("info_state") if isinstance(info, dict) else None
        if not isinstance(text, str):
            text = self._info_state(np.asarray(observation["observation"]))
        return self.policy.probabilities(text)

    def _info_state(self, tensor: np.ndarray) -> str:
        """The information-state string a poker-engine tensor encodes."""
        game = self.game
        d = game.definition
        names = game.card_names
        on = tensor > 0.5
        player = 0 if on[0] else 1
        hole = [c for c in range(d.num_cards) if on[2 + c]]
        board = []
        for r in range(d.num_rounds):
            off = game.board_offset[r]
            if off >= 0:
                board.append("".join(names[c] for c in sorted(
                    (c for c in range(d.num_cards) if on[off + c]), reverse=True)))  # fmt: skip
        letters = []
        a_n = game.num_distinct_actions
        for r in range(d.num_rounds):
            base = game.round_action_offset[r]
            text = ""
            for j in range(game.round_slots[r]):
                row = on[base + a_n * j : base + a_n * (j + 1)]
                if not row.any():
                    break
                text += "fcr"[min(int(np.flatnonzero(row)[0]), 2)]
            letters.append(text)
        rounds = max((r for r, t in enumerate(letters) if t), default=0)
        if len(letters[rounds]) and self._closes(letters[rounds]) and rounds + 1 < d.num_rounds:
            rounds += 1
        bets = "/".join(letters[: rounds + 1])
        hole_text = "".join(names[c] for c in sorted(hole, reverse=True))
        board_text = f" board={'/'.join(board)}" if game.has_board else ""
        return f"player={player} hole={hole_text}{board_text} bets={bets}"

    @staticmethod
    def _closes(bets: str) -> bool:
        """Whether a round's bets end with the call that closes it."""
        return len(bets) >= 2 and bets[-1] == "c"
