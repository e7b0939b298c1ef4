"""Compile a small game once into flat, integer-indexed arrays.

Nodes are numbered breadth first, so every depth level is one contiguous slice
(``level_starts``), a node's children are contiguous (``first_child``, ``num_children``,
in the order of ``legal_actions()``), and a parent always precedes its children. Solvers,
best response and exploitability run over these arrays with compiled loops instead of
walking ``State`` objects.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.games.base import CHANCE, TERMINAL, Game, State
from nashzoo.games.observation import agent_info
from nashzoo.tree.jit import ReadOnlyTables
from nashzoo.validation import check_int

__all__ = ["GameTree", "TreeArrays", "compile_game", "compiled_or_none", "DEFAULT_MAX_NODES"]

DEFAULT_MAX_NODES = 5_000_000


class TreeArrays(NamedTuple):
    """The node and information-set arrays of a :class:`GameTree` that compiled kernels
    read, passed as one argument (``tree.arrays``); see :class:`GameTree` for each."""

    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    infoset: np.ndarray
    action: np.ndarray
    chance_prob: np.ndarray
    utility: np.ndarray
    legal_mask: np.ndarray
    infoset_node: np.ndarray
    level_starts: np.ndarray


@dataclass(frozen=True, eq=False)
class GameTree(ReadOnlyTables):
    """A game's extensive-form tree as arrays (read-only; share freely).

    Node arrays (length ``num_nodes``):

    - ``player``: player id, :data:`~nashzoo.games.CHANCE` or :data:`~nashzoo.games.TERMINAL`.
    - ``parent``: parent node, -1 at the root.
    - ``action``: action or chance outcome leading here, -1 at the root.
    - ``chance_prob``: probability of that chance outcome (1.0 after player actions).
    - ``depth``: number of actions (chance included) from the root.
    - ``first_child``, ``num_children``: the children are
      ``first_child .. first_child+num_children-1``.
    - ``infoset``: global information-set id at decision nodes, -1 elsewhere.
    - ``utility``: ``(num_nodes, num_players)`` returns at terminal nodes, zeros elsewhere.

    Information-set arrays (length ``num_infosets``; player 0's sets first):

    - ``infoset_keys``: the information-state strings; ``infoset_index`` maps them back.
    - ``infoset_player``: owner of each set.
    - ``legal_mask``: ``(num_infosets, num_actions)`` legal actions.
    - ``infoset_tensor``: ``(num_infosets, tensor_size)`` information-state tensors.
    - ``infoset_depth``: depth of the set's nodes.
    - ``infoset_node``: one node of each set (the first in breadth-first order).
    - ``infoset_public_history``: ``(num_infosets, max_history_length)`` public histories
      (what agents receive as ``info["public_history"]``), -1 padded.
    - ``infoset_history_length``: length of each set's history.
    """

    game: Game
    player: np.ndarray
    parent: np.ndarray
    action: np.ndarray
    chance_prob: np.ndarray
    depth: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    infoset: np.ndarray
    utility: np.ndarray
    level_starts: np.ndarray
    infoset_keys: tuple[str, ...]
    infoset_player: np.ndarray
    legal_mask: np.ndarray
    infoset_tensor: np.ndarray
    infoset_depth: np.ndarray
    infoset_node: np.ndarray
    infoset_public_history: np.ndarray
    infoset_history_length: np.ndarray
    single_depth_infosets: bool
    infoset_index: dict[str, int] = field(repr=False)

    @property
    def num_nodes(self) -> int:
        """Histories in the tree (chance and terminal nodes included)."""
        return int(self.player.size)

    @property
    def num_terminals(self) -> int:
        """Terminal histories."""
        return int(np.count_nonzero(self.player == TERMINAL))

    @property
    def num_infosets(self) -> int:
        """Information sets of all players together."""
        return len(self.infoset_keys)

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def num_actions(self) -> int:
        return self.game.num_distinct_actions

    def infosets_of(self, player: int) -> np.ndarray:
        """Ids of ``player``'s information sets."""
        return np.flatnonzero(self.infoset_player == player)

    def num_sequences(self, player: int) -> int:
        """Sequences of ``player`` (sequence-form size): 1 + sum of legal actions."""
        return 1 + int(self.legal_mask[self.infosets_of(player)].sum())

    @functools.cached_property
    def arrays(self) -> TreeArrays:
        """The arrays every compiled kernel walks, as one :class:`TreeArrays` (numba takes
        the named tuple as one argument)."""
        return TreeArrays(
            self.player,
            self.first_child,
            self.num_children,
            self.infoset,
            self.action,
            self.chance_prob,
            self.utility,
            self.legal_mask,
            self.infoset_node,
            self.level_starts,
        )

    def uniform_probs(self) -> np.ndarray:
        """A fresh ``(num_infosets, num_actions)`` array: uniform over the legal actions."""
        mask = self.legal_mask
        uniform: np.ndarray = mask / mask.sum(axis=1, keepdims=True)
        return uniform

    def normalize_rows(self, sums: np.ndarray) -> np.ndarray:
        """Rows of ``sums`` divided by their totals; all-zero rows become uniform over the
        legal actions (how solvers turn accumulated weights into a policy)."""
        totals = sums.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            probs: np.ndarray = np.where(
                totals > 0, sums / np.where(totals > 0, totals, 1.0), self.uniform_probs()
            )
        return probs

    @functools.cached_property
    def _tensor_index(self) -> dict[bytes, int]:
        return {self.infoset_tensor[i].tobytes(): i for i in range(self.num_infosets)}

    def infoset_of_tensor(self, tensor: np.ndarray) -> int:
        """The information set whose information-state tensor is ``tensor``.

        The tensor determines the information state (``check_env`` verifies the
        bijection), so agents that only hold the observation can find their row.

        Raises:
            KeyError: no information set of this game has that tensor.
        """
        key = np.asarray(tensor, dtype=np.float32).tobytes()
        try:
            return self._tensor_index[key]
        except KeyError:
            raise KeyError(
                f"No information set of {self.game} has this observation tensor "
                f"(length {np.asarray(tensor).size}; expected "
                f"{self.game.information_state_tensor_size})."
            ) from None

    def infoset_of_inputs(self, observation: Any, info: Any) -> int:
        """The information set an agent's ``(observation, info)`` identify: by
        ``info["info_state"]`` when the info has it (nashzoo's harness always sends it),
        else by the observation tensor (plain env loops, whose infos hold numbers only).

        Raises:
            KeyError: the string or tensor belongs to no information set of this game.
            InvalidParameterError: neither is given.
        """
        key = info.get("info_state") if isinstance(info, dict) else None
        if key is not None:
            try:
                return self.infoset_index[key]
            except KeyError:
                raise KeyError(f"{key!r} is not an information set of {self.game}") from None
        if not isinstance(observation, dict) or "observation" not in observation:
            raise InvalidParameterError(
                "An agent needs info['info_state'] or the observation dict's 'observation' "
                f"tensor to find its information set, received observation={observation!r}."
            )
        return self.infoset_of_tensor(observation["observation"])

    def agent_inputs(self, infoset: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The ``(observation, info)`` an agent receives at information set ``infoset``,
        exactly as the env and the match engine present it (fresh arrays)."""
        observation = {
            "observation": self.infoset_tensor[infoset].copy(),
            "action_mask": self.legal_mask[infoset].astype(np.int8),
        }
        info = agent_info(
            int(self.infoset_player[infoset]),
            self.infoset_public_history[infoset].copy(),
            int(self.infoset_history_length[infoset]),
            self.infoset_keys[infoset],
        )
        return observation, info

    def summary(self) -> dict[str, Any]:
        """Counts for reports: nodes, terminals, information sets per player, depth."""
        return {
            "game": repr(self.game),
            "nodes": self.num_nodes,
            "terminals": self.num_terminals,
            "infosets_per_player": [len(self.infosets_of(p)) for p in range(self.num_players)],
            "sequences_per_player": [self.num_sequences(p) for p in range(self.num_players)],
            "max_depth": int(self.depth.max()),
        }


ENUMERABLE = 10**9
"""Games with more histories than this are never worth compiling: the advice for them is
to measure by sampling, not to raise ``max_nodes``."""


def _too_large(game: Game, histories: str, size: int, max_nodes: int) -> str:
    """Why ``game`` does not compile, and what to do instead."""
    if getattr(game, "big_blind", None):  # poker: the local best response applies
        bound = (
            "nashzoo.eval.local_best_response (a lower bound on exploitability; `nashzoo "
            "exploitability ... --method lbr`)"
        )
    else:
        bound = (
            "nashzoo.bounds.learned_best_response (a lower bound on exploitability; "
            "`nashzoo exploitability ... --method learned-br`)"
        )
    sampling = (
        f"measure it by sampling instead: {bound} or duplicate matches (nashzoo.eval.head_to_head)"
    )
    if size > ENUMERABLE:
        return f"{game} has {histories} histories, far too many to enumerate; {sampling}."
    return (
        f"{game} has {histories} histories, more than max_nodes={max_nodes:,}; raise "
        f"max_nodes (memory grows with it), or {sampling}."
    )


def compile_game(game: Game, *, max_nodes: int = DEFAULT_MAX_NODES) -> GameTree:
    """Enumerate ``game`` breadth first into a :class:`GameTree`.

    Trees are cached per game (the last 16): the returned tree is shared and read-only.

    Args:
        game: any :class:`~nashzoo.games.base.Game` with an enumerable tree.
        max_nodes: refuse trees larger than this (the error names the size reached).

    Raises:
        GameTooLargeError: more than ``max_nodes`` histories (refused at once when the
            game can count its histories from its parameters, or bound them from below
            past ``max_nodes``, as every shipped game can).
        InvalidParameterError: ``max_nodes`` is not a positive integer, or ``game`` is not
            a Game.
    """
    max_nodes = check_int("max_nodes", max_nodes, 1)
    if not isinstance(game, Game):
        raise InvalidParameterError(
            f"compile_game expects a nashzoo Game, received {type(game).__name__}."
        )
    size = game.count_histories()
    if size is not None and size > max_nodes:
        raise GameTooLargeError(_too_large(game, f"{size:,}", size, max_nodes))
    bound = game.histories_lower_bound() if size is None else None
    if bound is not None and bound > max_nodes:
        raise GameTooLargeError(_too_large(game, f"more than {bound:,}", bound, max_nodes))
    refused = _REFUSED.get((game, max_nodes))
    if refused is not None:  # found too large before: say so at once
        raise GameTooLargeError(refused)
    try:
        return _compile_cached(game, max_nodes)
    except GameTooLargeError as exc:
        if len(_REFUSED) >= 64:
            _REFUSED.clear()
        _REFUSED[game, max_nodes] = str(exc)
        raise


def compiled_or_none(game: Game, *, max_nodes: int = DEFAULT_MAX_NODES) -> GameTree | None:
    """``game``'s tree where it compiles within ``max_nodes`` histories, else ``None``:
    the one place that tells whether a game compiles, for the code that chooses between
    a tree and the rules (its stated size or bound answers at once; a game that states
    neither is compiled, and the tree cached, or the refusal remembered).

    Raises:
        InvalidParameterError: as :func:`compile_game`.
    """
    try:
        return compile_game(game, max_nodes=max_nodes)
    except GameTooLargeError:
        return None


_REFUSED: dict[tuple[Game, int], str] = {}
"""Games that could not tell their size and were found too large while compiling
(seconds of work for a large game), so that asking again fails at once."""


@functools.lru_cache(maxsize=16)
def _compile_cached(game: Game, max_nodes: int) -> GameTree:
    n_players = game.num_players
    player: list[int] = []
    parent: list[int] = []
    action: list[int] = []
    chance_prob: list[float] = []
    depth: list[int] = []
    first_child: list[int] = []
    num_children: list[int] = []
    infoset: list[int] = []
    terminal_nodes: list[int] = []
    terminal_returns: list[list[float]] = []
    keys: list[list[str]] = [[] for _ in range(n_players)]
    local_index: list[dict[str, int]] = [{} for _ in range(n_players)]
    key_node: list[list[int]] = [[] for _ in range(n_players)]
    key_legal: list[list[tuple[int, ...]]] = [[] for _ in range(n_players)]
    key_tensor: list[list[np.ndarray]] = [[] for _ in range(n_players)]
    key_depth: list[list[int]] = [[] for _ in range(n_players)]
    key_public: list[list[list[int]]] = [[] for _ in range(n_players)]
    single_depth = True

    queue: deque[State] = deque([game.new_initial_state()])
    player.append(0)
    parent.append(-1)
    action.append(-1)
    chance_prob.append(1.0)
    depth.append(0)
    node = 0
    while queue:
        state = queue.popleft()
        p = state.current_player()
        player[node] = p
        if p == TERMINAL:
            first_child.append(-1)
            num_children.append(0)
            infoset.append(-1)
            terminal_nodes.append(node)
            terminal_returns.append(state.returns())
            node += 1
            continue
        if p == CHANCE:
            edges = state.chance_outcomes()
            infoset.append(-1)
        else:
            legal = tuple(state.legal_actions())
            edges = [(a, 1.0) for a in legal]
            key = state.information_state_string(p)
            idx = local_index[p].get(key)
            if idx is None:
                idx = len(keys[p])
                local_index[p][key] = idx
                keys[p].append(key)
                key_node[p].append(node)
                key_legal[p].append(legal)
                key_tensor[p].append(state.information_state_tensor(p))
                key_depth[p].append(depth[node])
                key_public[p].append(state.public_history())
            elif key_depth[p][idx] != depth[node]:
                single_depth = False
            infoset.append(idx)  # local for now, made global below
        first_child.append(len(player))
        num_children.append(len(edges))
        if len(player) + len(edges) > max_nodes:
            raise GameTooLargeError(
                f"{game} has more than max_nodes={max_nodes:,} histories (reached "
                f"{len(player) + len(edges):,} at depth {depth[node] + 1}); raise max_nodes "
                "or use a sampling method that does not compile the tree."
            )
        d = depth[node] + 1
        for a, prob in edges:
            child = state.clone()
            child.apply_unchecked(a)
            queue.append(child)
            player.append(0)
            parent.append(node)
            action.append(a)
            chance_prob.append(prob if p == CHANCE else 1.0)
            depth.append(d)
        node += 1

    player_arr = np.asarray(player, dtype=np.int8)
    offsets = np.cumsum([0] + [len(k) for k in keys])
    infoset_arr = np.asarray(infoset, dtype=np.int32)
    decision = player_arr >= 0
    infoset_arr[decision] += offsets[player_arr[decision]].astype(np.int32)
    n_nodes = len(player)
    utility = np.zeros((n_nodes, n_players), dtype=np.float64)
    if terminal_nodes:
        utility[terminal_nodes] = np.asarray(terminal_returns, dtype=np.float64)
    all_keys = tuple(k for ks in keys for k in ks)
    n_actions = game.num_distinct_actions
    legal_mask = np.zeros((len(all_keys), n_actions), dtype=bool)
    row = 0
    for p in range(n_players):
        for legal in key_legal[p]:
            legal_mask[row, list(legal)] = True
            row += 1
    depth_arr = np.asarray(depth, dtype=np.int32)
    level_starts = np.searchsorted(depth_arr, np.arange(depth_arr.max() + 2)).astype(np.int32)
    tensor_size = game.information_state_tensor_size
    tensors = [t for ts in key_tensor for t in ts]
    publics = [h for hs in key_public for h in hs]
    public_history = np.full((len(publics), game.max_history_length), -1, dtype=np.int64)
    for row, hist in enumerate(publics):
        public_history[row, : len(hist)] = hist
    arrays: dict[str, np.ndarray] = dict(
        player=player_arr,
        parent=np.asarray(parent, dtype=np.int32),
        action=np.asarray(action, dtype=np.int32),
        chance_prob=np.asarray(chance_prob, dtype=np.float64),
        depth=depth_arr,
        first_child=np.asarray(first_child, dtype=np.int32),
        num_children=np.asarray(num_children, dtype=np.int32),
        infoset=infoset_arr,
        utility=utility,
        level_starts=level_starts,
        infoset_player=np.repeat(np.arange(n_players, dtype=np.int8), [len(k) for k in keys]),
        legal_mask=legal_mask,
        infoset_tensor=(np.stack(tensors) if tensors else np.zeros((0, tensor_size), np.float32)),
        infoset_depth=np.asarray([d for ds in key_depth for d in ds], dtype=np.int32),
        infoset_node=np.asarray([n for ns in key_node for n in ns], dtype=np.int32),
        infoset_public_history=public_history,
        infoset_history_length=np.asarray([len(h) for h in publics], dtype=np.int32),
    )
    return GameTree(
        game=game,
        infoset_keys=all_keys,
        infoset_index={k: i for i, k in enumerate(all_keys)},
        single_depth_infosets=single_depth,
        **arrays,
    )
