"""One iteration of simplex-gradient self-play: the games, and what they teach.

:func:`play` plays ``n`` games at once with the policy ``g`` and returns every decision
with the successor of each legal action (:class:`Decisions`): in a simultaneous game the
exchange resolved against the opponent's actual card, in a turn-based game the child.
Two ways to play, the same games for the same generator:

* over the rules' :class:`~nashzoo.games.base.State` objects, one state at a time (any
  two-player game);
* in bulk, where the game has arrays for it (the fighting card game:
  :class:`~nashzoo.vector.fighting_env.FightingExchanges`, one numba call per exchange
  for all games; Limit Hold'em: :class:`~nashzoo.vector.poker_env.PokerDecisions`, one
  per round of decisions). Both draw the same random numbers in the same order from the same
  generator and build the same tensors, so they return the same arrays (a test); the
  bulk way only costs far less per exchange.

:func:`value_targets` turns the decisions into ``f``'s regression targets (each
decision's lambda-return, at the decision and at the successor actually reached).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.envs.sampling import sample_index
from nashzoo.games.base import CHANCE, TERMINAL, Game, State
from nashzoo.games.observation import ObservationCache

__all__ = ["Decisions", "Policy", "play", "has_bulk_play", "value_targets"]

Policy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``policy(obs, mask, players) -> probs``: ``(n, A)`` float64 probabilities of ``g`` at
``n`` tensors with their masks and observing players."""


@dataclass(frozen=True)
class Decisions:
    """Every decision of one iteration, one row each, in the order they were taken
    (exchange by exchange, game by game, player 0 first).

    Attributes:
        obs: ``(D, n)`` float32 information-state tensors.
        mask: ``(D, A)`` int8 legal actions.
        player: ``(D,)`` who decided.
        action: ``(D,)`` the action taken.
        game: ``(D,)`` the game (0 .. games - 1).
        succ_index: ``(D, A)`` each legal action's successor: its row in ``succ``, or
            -1 (an illegal action, or a successor that ends the game).
        known: ``(D, A)`` float32: the decider's final return, rescaled to [0, 1], where
            the action's successor ends the game (0 elsewhere).
        succ: ``(S, n)`` float32 successors' tensors, from the decider's view.
        succ_player: ``(S,)`` whose view each successor is.
        finals: ``(games, 2)`` each game's returns rescaled to [0, 1].
    """

    obs: np.ndarray
    mask: np.ndarray
    player: np.ndarray
    action: np.ndarray
    game: np.ndarray
    succ_index: np.ndarray
    known: np.ndarray
    succ: np.ndarray
    succ_player: np.ndarray
    finals: np.ndarray

    def __len__(self) -> int:
        return int(self.player.size)


def join(parts: list[Decisions]) -> Decisions:
    """One iteration's decisions from several batches' (the actors'), in order: games and
    successor rows renumbered to follow the earlier batches'."""
    games = np.cumsum([0] + [len(d.finals) for d in parts[:-1]])
    succs = np.cumsum([0] + [len(d.succ_player) for d in parts[:-1]])
    return Decisions(
        obs=np.concatenate([d.obs for d in parts]),
        mask=np.concatenate([d.mask for d in parts]),
        player=np.concatenate([d.player for d in parts]),
        action=np.concatenate([d.action for d in parts]),
        game=np.concatenate([d.game + g for d, g in zip(parts, games, strict=True)]),
        succ_index=np.concatenate(
            [
                np.where(d.succ_index >= 0, d.succ_index + k, -1)
                for d, k in zip(parts, succs, strict=True)
            ]
        ),
        known=np.concatenate([d.known for d in parts]),
        succ=np.concatenate([d.succ for d in parts]),
        succ_player=np.concatenate([d.succ_player for d in parts]),
        finals=np.concatenate([d.finals for d in parts]),
    )


def has_bulk_play(game: Game) -> bool:
    """Whether ``game`` declares arrays for bulk self-play (``fast_paths.decisions``:
    the fighting card game, and limit poker on the 52-card deck)."""
    return game.fast_paths.decisions is not None


def play(
    game: Game,
    games: int,
    policy: Policy,
    rng: np.random.Generator,
    *,
    bulk: bool = True,
    cache: ObservationCache | None = None,
) -> Decisions:
    """Play ``games`` games to their end with ``policy`` (all their next decisions in one
    call per round) and return their decisions.

    Args:
        game: a two-player zero-sum game.
        games: games played at once.
        policy: ``g`` (:data:`Policy`).
        rng: every random number (chance and the actions) comes from it.
        bulk: play in bulk where the game has arrays for it (the same result).
        cache: the observation cache of the one-state-at-a-time way.
    """
    low, span = game.min_utility, game.max_utility - game.min_utility
    if bulk and has_bulk_play(game):
        return _play_bulk(game, games, policy, rng, low, span)
    return _play_states(game, games, policy, rng, low, span, cache or ObservationCache(game))


# -- one state at a time -----------------------------------------------------------------------
class _Rows:
    """Decisions gathered as lists, stacked at the end."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.obs: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.player: list[int] = []
        self.action: list[int] = []
        self.index: list[int] = []
        self.succ_index: list[np.ndarray] = []
        self.known: list[np.ndarray] = []
        self.succ: list[np.ndarray] = []
        self.succ_player: list[int] = []

    def decisions(self, finals: np.ndarray) -> Decisions:
        n, a = self.game.information_state_tensor_size, self.game.num_distinct_actions
        return Decisions(
            obs=np.stack(self.obs) if self.obs else np.zeros((0, n), np.float32),
            mask=np.stack(self.mask) if self.mask else np.zeros((0, a), np.int8),
            player=np.array(self.player, np.int64),
            action=np.array(self.action, np.int64),
            game=np.array(self.index, np.int64),
            succ_index=np.stack(self.succ_index) if self.succ_index else np.zeros((0, a), np.int64),
            known=np.stack(self.known) if self.known else np.zeros((0, a), np.float32),
            succ=np.stack(self.succ) if self.succ else np.zeros((0, n), np.float32),
            succ_player=np.array(self.succ_player, np.int64),
            finals=finals,
        )


def _advance(state: State, rng: np.random.Generator) -> None:
    while state.current_player() == CHANCE:
        state.advance_chance(rng.random)


def _successors(
    rows: _Rows, state: State, player: int, joint: list[int] | None, low: float, span: float
) -> None:
    """Record, for every legal action of ``player`` here, its successor (tensor or final
    value) with everything else as it happened."""
    size = state.game.num_distinct_actions
    index = np.full(size, -1, np.int64)
    known = np.zeros(size, np.float32)
    legal = state.pending_legal_actions(player) if joint else state.legal_actions()
    for action in legal:
        nxt = state.clone()
        if joint is None:
            nxt.apply_unchecked(action)
        else:
            for p, a in enumerate(joint):
                nxt.apply_unchecked(action if p == player else a)
        if nxt.current_player() == TERMINAL:
            known[action] = (nxt.returns()[player] - low) / span
        else:  # a successor's tensor only: built directly, never cached (few repeat)
            index[action] = len(rows.succ)
            rows.succ.append(nxt.information_state_tensor(player))
            rows.succ_player.append(player)
    rows.succ_index.append(index)
    rows.known.append(known)


def _play_states(
    game: Game,
    count: int,
    policy: Policy,
    rng: np.random.Generator,
    low: float,
    span: float,
    cache: ObservationCache,
) -> Decisions:
    rows = _Rows(game)
    states = []
    for _ in range(count):
        s = game.new_initial_state()
        _advance(s, rng)
        states.append(s)
    live = list(range(len(states)))
    while live:
        # every live game's next decision(s) go through g in one forward pass
        asks: list[tuple[int, int]] = []
        for gi in live:
            s = states[gi]
            if game.simultaneous and s.current_player() == 0:
                asks += [(gi, p) for p in range(game.num_players)]
            else:
                asks.append((gi, s.current_player()))
        views = []
        for gi, p in asks:
            state = states[gi]
            view = cache.get(state, p, state.information_state_string_unchecked(p))
            views.append((view.tensor, view.mask))
        obs = np.stack([v[0] for v in views])
        mask = np.stack([v[1] for v in views])
        probs = policy(obs, mask, np.array([p for _, p in asks]))
        chosen: dict[int, list[int]] = {}
        for k, (gi, p) in enumerate(asks):
            action = sample_index(np.cumsum(probs[k]), rng.random())
            chosen.setdefault(gi, []).append(action)
            rows.action.append(action)
            rows.obs.append(obs[k])
            rows.mask.append(mask[k])
            rows.player.append(p)
            rows.index.append(gi)
        for gi, p in asks:
            joint = chosen[gi] if len(chosen[gi]) > 1 else None
            _successors(rows, states[gi], p, joint, low, span)
        for gi, actions in chosen.items():
            for a in actions:
                states[gi].apply_unchecked(a)
            _advance(states[gi], rng)
        live = [gi for gi in live if not states[gi].is_terminal()]
    finals = np.array([[(r - low) / span for r in s.returns()] for s in states], np.float64)
    return rows.decisions(finals.reshape(count, game.num_players))


# -- in bulk -----------------------------------------------------------------------------------
def _play_bulk(
    game: Any, count: int, policy: Policy, rng: np.random.Generator, low: float, span: float
) -> Decisions:
    """The games in bulk, one numba call per round of decisions, on the arrays the game
    declares (``game.fast_paths.decisions``)."""
    bulk = game.fast_paths.load("decisions")(game, count)
    bulk.deal(rng)
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "mask", "player", "action", "game", "index", "known", "succ")
    }
    succ_rows = 0
    live = bulk.live_games()
    while live.size:
        obs, mask, players, rows = bulk.views(live)
        actions = bulk.sample(policy(obs, mask, players), rng)
        succ, index, known = bulk.successors(live, mask, actions)
        parts["obs"].append(obs)
        parts["mask"].append(mask)
        parts["player"].append(players)
        parts["action"].append(actions)
        parts["game"].append(rows)
        parts["index"].append(np.where(index >= 0, index + succ_rows, -1))
        parts["known"].append(known)
        parts["succ"].append(succ)
        succ_rows += succ.shape[0]
        bulk.apply(live, actions, rng)
        live = bulk.live_games()
    return _decisions(parts, bulk.returns, low, span)


def _decisions(
    parts: dict[str, list[np.ndarray]], returns0: np.ndarray, low: float, span: float
) -> Decisions:
    """The bulk loops' per-round arrays, joined; each successor's player is its
    decision's."""
    finals = np.stack([(returns0 - low) / span, (-returns0 - low) / span], axis=1)
    succ_all = np.concatenate(parts["succ"])
    index_all = np.concatenate(parts["index"])
    player_all = np.concatenate(parts["player"])
    succ_player = np.zeros(succ_all.shape[0], np.int64)
    hit = index_all >= 0
    succ_player[index_all[hit]] = np.broadcast_to(player_all[:, None], index_all.shape)[hit]
    return Decisions(
        obs=np.concatenate(parts["obs"]),
        mask=np.concatenate(parts["mask"]),
        player=player_all,
        action=np.concatenate(parts["action"]),
        game=np.concatenate(parts["game"]),
        succ_index=index_all,
        known=np.concatenate(parts["known"]),
        succ=succ_all,
        succ_player=succ_player,
        finals=finals,
    )


# -- what f learns -----------------------------------------------------------------------------
def lambda_returns(
    decisions: Decisions, lam: float, value: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Each decision's lambda-return for its player, and the lambda-return of that
    player's next decision (the final outcome after the last): backwards through each
    player's decisions in each game, bootstrapped from ``value`` (``f`` at each
    decision; unused when ``lam`` is 1)."""
    d = decisions
    n = len(d)
    if lam >= 1.0:
        own = d.finals[d.game, d.player]
        return own, own.copy()
    assert value is not None
    own = np.zeros(n)
    after = np.zeros(n)
    following: dict[tuple[int, int], int] = {}  # (game, player) -> its next decision
    games, players = d.game.tolist(), d.player.tolist()
    for k in range(n - 1, -1, -1):
        key = (games[k], players[k])
        nxt = following.get(key)
        if nxt is None:  # the player's last decision: the outcome
            after[k] = own[k] = d.finals[key[0], key[1]]
        else:
            after[k] = own[nxt]
            own[k] = (1.0 - lam) * float(value[nxt]) + lam * after[k]
        following[key] = k
    return own, after


def value_targets(
    decisions: Decisions, own: np.ndarray, after: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``f``'s targets, in order: each decision's tensor with its lambda-return, followed
    (where the action taken leads to a successor that is not final) by that successor's
    tensor with the lambda-return of the player's next decision. Returns the tensors,
    the targets and the players."""
    d = decisions
    reached = d.succ_index[np.arange(len(d)), d.action]
    has = reached >= 0
    step = 1 + has.astype(np.int64)
    at = np.concatenate([[0], np.cumsum(step)[:-1]]).astype(np.int64)
    total = int(step.sum())
    obs = np.empty((total, d.obs.shape[1]), np.float32)
    target = np.empty(total, np.float64)
    player = np.empty(total, np.int64)
    obs[at] = d.obs
    target[at] = own
    player[at] = d.player
    second = at[has] + 1
    obs[second] = d.succ[reached[has]]
    target[second] = after[has]
    player[second] = d.player[has]
    return obs, target, player
