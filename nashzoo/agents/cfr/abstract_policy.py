"""A policy solved on a Hold'em card abstraction, as a file and as an agent that plays the
real game: the information state's betting names the decision, its cards the bucket(s),
and the two the row (:class:`~nashzoo.abstraction.layout.HoldemAbstraction`)."""

from __future__ import annotations

import dataclasses
import json
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.abstraction.betting import deal_any
from nashzoo.abstraction.layout import HoldemAbstraction, check_holdem
from nashzoo.abstraction.translation import pot_fraction, translate_size, translates
from nashzoo.agents.sampled import SampledPolicyAgent
from nashzoo.envs.protocol import AgentInfo, Observation
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.extras import temporary_sibling
from nashzoo.games import load_game
from nashzoo.games.poker.game import CALL, FOLD, RAISE, PokerGame

__all__ = [
    "ABSTRACT_POLICY_FORMAT",
    "AbstractPolicy",
    "AbstractionAgent",
    "is_abstract_policy_file",
    "moves_of",
    "onto",
]

ABSTRACT_POLICY_FORMAT = "nashzoo.abstract_policy"
"""The ``format`` a saved :class:`AbstractPolicy` declares."""
_FORMAT_VERSION = 1


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
        if not np.all(np.isfinite(probs)) or probs.min(initial=0.0) < 0.0:
            raise PolicyFileError(
                f"An abstract policy's probabilities are finite and non-negative; received "
                f"{int((~np.isfinite(probs)).sum())} non-finite and "
                f"{int((probs < 0).sum())} negative entries."
            )
        self.abstraction = abstraction
        self.probs = probs
        self.metadata = dict(metadata or {})
        self._names = {name: c for c, name in enumerate(abstraction.game.card_names)}

    @property
    def game(self) -> PokerGame:
        return self.abstraction.game

    def _locate(self, info_state: str) -> tuple[tuple[int, ...], list[int], int, int]:
        """``(hole, board, betting node, round)`` of a real information state, checked."""
        from nashzoo.abstraction.small import parse_info_state

        player, hole, board, bets = parse_info_state(self.game, info_state)
        node = self.abstraction.betting.node_of_bets(bets)
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
        return hole, flat, node, r

    def row(self, info_state: str) -> tuple[int, np.ndarray]:
        """The abstract set of a real information state (``"player=0 hole=AsKd
        board=Qh7c2d bets=cr/c"``) and its legal mask.

        Raises:
            InvalidParameterError: not an information state of this game.
        """
        hole, flat, node, _ = self._locate(info_state)
        return self._row_at(hole, flat, node)

    def _row_at(self, hole: tuple[int, ...], board: list[int], node: int) -> tuple[int, np.ndarray]:
        """The abstract set of ``hole`` cards on ``board`` at betting ``node``, and the
        node's legal mask."""
        r = int(self.abstraction.betting.round[node])
        buckets = np.zeros(4, np.int64)
        for q in range(r + 1):
            buckets[q] = self.abstraction.buckets.bucket(hole, board[: (0, 3, 4, 5)[q]])
        key = self.abstraction.keys_of(buckets)[r]
        return int(self.abstraction.base[node] + key), self.abstraction.betting.legal_mask[node]

    def probabilities(self, info_state: str) -> np.ndarray:
        """The distribution over all actions at a real information state."""
        hole, flat, node, _ = self._locate(info_state)
        return self.probabilities_at(hole, flat, node)

    def probabilities_at(self, hole: tuple[int, ...], board: list[int], node: int) -> np.ndarray:
        """The distribution at betting ``node`` for ``hole`` cards on ``board`` (the cards
        dealt so far, in order): what :meth:`probabilities` gives once the node is found,
        for callers that find it otherwise (bet translation)."""
        row, legal = self._row_at(hole, board, node)
        return self._normalised(self.probs[row][None, :], legal)[0]

    def probabilities_many(self, info_state: str, holes: np.ndarray) -> np.ndarray:
        """``(n, actions)``: :meth:`probabilities` at ``info_state`` had its player held
        each row of ``holes`` (``(n, 2)``) instead: one betting node, the buckets of the
        whole range in numba (LBR asks about every holding at once)."""
        _, flat, node, _ = self._locate(info_state)
        return self.probabilities_at_nodes(holes, flat, [node])[0]

    def probabilities_at_nodes(
        self, holes: np.ndarray, board: list[int], nodes: list[int]
    ) -> np.ndarray:
        """``(len(nodes), n, actions)``: the distribution at each betting node of
        ``nodes`` for each row of ``holes`` (``(n, 2)``), ``board`` holding at least the
        cards of the latest node's round (each node sees its round's part): the whole
        range's buckets computed once, in numba (LBR and re-solving ask about every
        holding at once)."""
        holes = np.asarray(holes, np.int64).reshape(-1, 2)
        t = self.abstraction.betting
        rounds = [int(t.round[node]) for node in nodes]
        buckets = np.zeros((len(holes), 4), np.int64)
        for q in range(max(rounds, default=-1) + 1):
            buckets[:, q] = self.abstraction.buckets.buckets_many(holes, board[: (0, 3, 4, 5)[q]])
        keys = self.abstraction.keys_many(buckets)
        at = np.asarray(nodes, dtype=np.int64)
        rows = self.abstraction.base[at][:, None] + keys[:, rounds].T  # (nodes, holes)
        return self._normalised(self.probs[rows], t.legal_mask[at][:, None, :])

    @staticmethod
    def _normalised(probs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Each row of ``probs`` (actions last) on the legal actions of ``legal``
        (broadcast against it), summing to 1 (uniform over them where a row gives them
        nothing)."""
        mask = legal > 0
        out = np.where(mask, probs, 0.0)
        total = out.sum(axis=-1, keepdims=True)
        uniform = np.broadcast_to(mask / mask.sum(axis=-1, keepdims=True), out.shape)
        return np.where(total > 0, out / np.where(total > 0, total, 1.0), uniform)

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
            "actions": None if self.abstraction.actions is None else str(self.abstraction.actions),
            "fingerprint": self.abstraction.buckets.fingerprint,
            "metadata": self.metadata,
        }
        tmp = temporary_sibling(path)
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
            raise PolicyFileError(f"{path} holds a policy for {file_game}, not for {game}.")
        try:
            abstraction = HoldemAbstraction.build(
                check_holdem(file_game),
                header["abstraction"],
                actions=header.get("actions"),
                progress=progress,
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


def _differences(mine: Any, other: Any) -> str:
    """``": stacks (20000, 20000) against (5000, 5000)"``: the definition's fields in which
    two poker games differ, or nothing where they are not both poker games."""
    if not isinstance(mine, PokerGame) or not isinstance(other, PokerGame):
        return ""
    parts = [
        f"{f.name} {getattr(mine.definition, f.name)} against {getattr(other.definition, f.name)}"
        for f in dataclasses.fields(mine.definition)
        if getattr(mine.definition, f.name) != getattr(other.definition, f.name)
    ]
    return f": {'; '.join(parts)}" if parts else ""


def moves_of(tree: Any, node: int, p: int) -> tuple[list[int], list[str | float]]:
    """The actions of betting ``node``'s children (``tree``: a
    :class:`~nashzoo.abstraction.betting.BettingTree`, ``p`` to act) and what each is,
    for :func:`onto`: ``"f"``, ``"c"``, ``"a"`` (all-in) or a raise's size in pots."""
    game = tree.game
    first = int(tree.first_child[node])
    moves: list[int] = []
    kinds: list[str | float] = []
    for k in range(first, first + int(tree.num_children[node])):
        a = int(tree.action[k])
        moves.append(a)
        if a in (FOLD, CALL):
            kinds.append("fc"[a])
        elif a == game.all_in:
            kinds.append("a")
        else:
            kinds.append(pot_fraction(int(tree.contrib[k, p]), tree.contrib[node], p))
    return moves, kinds


def onto(
    kinds: list[str | float], game: PokerGame, mask: np.ndarray, spent: list[int], p: int
) -> list[int]:
    """The action of ``game`` legal under ``mask`` (``spent``: the chips in, ``p`` to
    act) that plays each of ``kinds`` (:func:`moves_of`'s): a fold where there is none
    becomes the call (a check), all-in stays all-in, and a raise (or any, where ``game``
    has no raise left but all-in) becomes the legal raise nearest in size; where none is
    legal, the call."""
    legal = np.flatnonzero(np.asarray(mask) > 0)
    top = max(spent)
    pot = sum(spent) + top - spent[p]
    sizes = {
        int(a): (
            game.raises[a - RAISE] if a < game.all_in else (game.definition.stacks[p] - top) / pot
        )
        for a in legal
        if a >= RAISE
    }
    out = []
    for kind in kinds:
        if kind == "f":
            out.append(FOLD if mask[FOLD] else CALL)
        elif kind == "c" or not sizes:
            out.append(CALL)
        elif kind == "a":
            out.append(game.all_in if game.all_in in sizes else max(sizes))
        else:
            out.append(min(sizes, key=lambda r: abs(sizes[r] - float(kind))))
    return out


class AbstractionAgent(SampledPolicyAgent):
    """An :class:`AbstractPolicy` playing the real game through the Agent protocol (a
    PolicyAgent). It reads its information state from ``info["info_state"]`` where the
    harness sends it, else from the observation tensor (hole cards, board and bets are
    all in it), so it also plays in plain env loops.

    A no-limit policy also plays a no-limit game with other raise sizes (the same cards,
    blinds and stacks): each raise of the real game is read as one of the abstraction's
    by the pseudo-harmonic mapping (:mod:`nashzoo.abstraction.translation`; the draw is
    fixed by the agent's seed and the betting so far, so one hand is read one way), and
    each of the policy's raises is played as the real game's legal raise of the nearest
    size. Where the real betting goes past what the tree holds (a raise war whose sizes,
    read as the abstraction's, reach its all-in first), it calls, and counts the
    decision in :attr:`off_tree`.

    Args:
        policy: the policy, or a path to its ``.npz``.
        game: the game it is to play (the file's, or the same no-limit game with other
            raise sizes).
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
            file_game = game if game is None or not translates(game) else None
            policy = AbstractPolicy.load(policy, file_game)
        if not isinstance(policy, AbstractPolicy):
            raise InvalidParameterError(
                f"AbstractionAgent expects an AbstractPolicy or its file, received "
                f"{type(policy).__name__}."
            )
        game = policy.game if game is None else game
        # another no-limit game, or the policy's own with raises its actions prune
        self.translating = policy.game != game or policy.abstraction.actions is not None
        if self.translating and not (translates(game) and translates(policy.game)
                                     and game.definition == policy.game.definition):  # fmt: skip
            raise InvalidParameterError(
                f"The policy is for {policy.game}, not for {game}{_differences(policy.game, game)} "
                "(a no-limit policy plays the same no-limit game with other raise sizes, "
                "nothing else)."
            )
        self.policy = policy
        self.game = game
        self.name = name or f"cfr-{policy.abstraction.spec}"
        self._reading = int(self._rng.integers(2**32))  # fixes the translation's draws
        self.off_tree = 0
        """Decisions where the real bets could not be read onto the tree (then it calls)."""

    def check_game(self, game: Any) -> None:
        """Raise unless ``game`` is the policy's."""
        if game != self.game:
            raise InvalidParameterError(f"{self.name} plays {self.game}, not {game}.")

    def reset(self, *, seed: int | None = None) -> None:
        super().reset(seed=seed)
        if seed is not None:
            self._reading = int(self._rng.integers(2**32))

    def action_probabilities(self, observation: Observation, info: AgentInfo) -> np.ndarray:
        """The policy's distribution at this information state."""
        text = info.get("info_state") if isinstance(info, dict) else None
        if not isinstance(text, str):
            text = self._info_state(np.asarray(observation["observation"]))
        if self.translating:
            return self._translated(text, np.asarray(observation["action_mask"]))
        hole, flat, node, _ = self.policy._locate(text)
        return self._at(hole, flat, node)

    def _at(self, hole: tuple[int, ...], board: list[int], node: int) -> np.ndarray:
        """The abstraction's distribution at betting ``node`` for ``hole`` on ``board``
        (what a re-solving agent replaces on the last round)."""
        return self.policy.probabilities_at(hole, board, node)

    def _many(self, info_state: str, holes: np.ndarray) -> np.ndarray:
        """:meth:`AbstractPolicy.probabilities_many` as this agent plays it."""
        return self.policy.probabilities_many(info_state, holes)

    def _translated(self, text: str, mask: np.ndarray) -> np.ndarray:
        """The distribution over the real game's actions at real information state
        ``text``: its bets read onto the abstraction's tree, the policy's raises played
        as the nearest legal real ones."""
        from nashzoo.abstraction.small import parse_info_state

        game = self.game
        player, hole, board, bets = parse_info_state(game, text)
        found = self._read(bets, player)
        if found is None:  # the real betting went past what the tree holds (its all-in
            self.off_tree += 1  # came first): call, and count it
            out = np.zeros(game.num_distinct_actions)
            out[CALL] = 1.0
            return out
        node, spent = found
        flat = [c for part in board for c in part]
        abstract = self._at(hole, flat, node)
        return self._played(abstract, node, spent, player, mask)

    def _read(self, bets: str, player: int | None) -> tuple[int, list[int]] | None:
        """:meth:`_read_bets` by the pseudo-harmonic draws, or where they lead off the
        tree (an all-in it did not make), by the smaller sizes throughout."""
        found = self._read_bets(bets, player, draw=True)
        return found if found is not None else self._read_bets(bets, player, draw=False)

    def _read_bets(self, bets: str, player: int | None, draw: bool) -> tuple[int, list[int]] | None:
        """The abstraction's node for the real ``bets`` and the real chips in, or ``None``
        where the reading leaves the tree or does not leave ``player`` to act (any node,
        ``player`` ``None``). A real
        raise reads as one of the abstraction's raises other than all-in (all-in only as
        all-in, or where it is the only raise), by the pseudo-harmonic draw (``draw``) or
        as the smaller neighbour."""
        tree = self.policy.abstraction.betting
        d = self.game.definition
        all_in = self.policy.game.all_in
        spent = list(d.blinds)
        node, prefix = 0, ""
        for token in re.findall(r"[fc]|r\d+", bets):
            p = int(tree.player[node])
            if p < 0:
                return None
            prefix += token
            if token in ("f", "c"):
                node = tree.child(node, FOLD if token == "f" else CALL)
                if token == "c":
                    spent[p] = min(max(spent), d.stacks[p])
                continue
            first = int(tree.first_child[node])
            kids = range(first, first + int(tree.num_children[node]))
            total = int(token[1:])
            raises = [k for k in kids if tree.action[k] >= RAISE]
            if not raises:
                return None
            sized = [k for k in raises if tree.action[k] != all_in] or raises
            if total >= d.stacks[p]:  # all-in reads as all-in
                node = raises[-1]
            else:
                sizes = [
                    pot_fraction(int(tree.contrib[k, p]), tree.contrib[node], p) for k in sized
                ]
                u = 0.0
                if draw:
                    seed = [self._reading, zlib.crc32(prefix.encode())]
                    u = float(np.random.default_rng(seed).random())
                node = sized[translate_size(pot_fraction(total, spent, p), sizes, u)]
            spent[p] = total
        if player is not None and int(tree.player[node]) != player:
            return None
        return node, spent

    def _played(
        self, abstract: np.ndarray, node: int, spent: list[int], p: int, mask: np.ndarray
    ) -> np.ndarray:
        """The abstraction's distribution at ``node`` moved onto the real game's legal
        actions ``mask`` (``spent``: the real chips in): a fold where the real game has
        none becomes the call (a check), each raise the real legal raise nearest in size
        (all-in to all-in)."""
        moves, kinds = moves_of(self.policy.abstraction.betting, node, p)
        out = np.zeros(self.game.num_distinct_actions)
        for a, target in zip(moves, onto(kinds, self.game, mask, spent, p)):
            out[target] += abstract[a]
        return out / out.sum()

    def batch_probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, player: np.ndarray
    ) -> np.ndarray:
        """``(n, actions)`` at ``n`` decisions at once: the rows that share a public state
        (all of them, when LBR asks about a range) are bucketed together in numba."""
        tensors = np.asarray(observation)
        if self.translating:  # one row at a time: each reads its own bets
            return np.array(
                [
                    self._translated(self._info_state(row), mask)
                    for row, mask in zip(tensors, np.asarray(action_mask))
                ]
            ).reshape(len(tensors), self.game.num_distinct_actions)
        out = np.zeros((len(tensors), self.game.num_distinct_actions))
        if not len(tensors):
            return out
        cards = self.game.definition.num_cards
        public = tensors.copy()
        public[:, 2 : 2 + cards] = 0  # the hole cards' slots: the rest is public
        groups: dict[bytes, list[int]] = {}
        for i, row in enumerate(public):
            groups.setdefault(row.tobytes(), []).append(i)
        on = tensors[:, 2 : 2 + cards] > 0.5
        held = int(on[0].sum())
        if held and (on.sum(axis=1) == held).all():  # each row's cards, highest first
            holes = np.nonzero(on)[1].reshape(len(on), held)[:, ::-1]
        else:
            holes = np.array([np.flatnonzero(row)[::-1] for row in on], dtype=np.int64)
        for rows in groups.values():
            text = self._info_state(tensors[rows[0]])
            out[rows] = self._many(text, np.ascontiguousarray(holes[rows], dtype=np.int64))
        return out

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
        a_n = game.num_distinct_actions
        if game.slot_start is not None and game.round_slots is not None:
            blocks = [(game.slot_start[r], game.round_slots[r]) for r in range(d.num_rounds)]
        else:  # the actions in the order played
            blocks = [(0, game.max_game_length)]
        actions: list[int] = []
        for start, size in blocks:  # heads-up limit: a block a round
            base = game.actions_offset + a_n * start
            for j in range(size):
                row = on[base + a_n * j : base + a_n * (j + 1)]
                if not row.any():
                    break
                actions.append(int(np.flatnonzero(row)[0]))
        state = game.new_initial_state()  # the bets as the rules write them: replayed
        for a in actions:  # on any cards (the betting does not depend on them)
            deal_any(state)
            state.apply_action(a)
        bets = state.information_state_string_unchecked(player).split(" bets=")[1]
        hole_text = "".join(names[c] for c in sorted(hole, reverse=True))
        board_text = f" board={'/'.join(board)}" if game.has_board else ""
        return f"player={player} hole={hole_text}{board_text} bets={bets}"
