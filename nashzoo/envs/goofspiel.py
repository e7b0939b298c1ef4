"""Goofspiel — ``nashzoo/goofspiel-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/goofspiel-v0", num_cards=5)``, or the
                       parallel API: ``nashzoo.make_parallel("nashzoo/goofspiel-v0")``
Agents                 ``["player_0", "player_1"]`` (``players`` of them)
Action space           ``Discrete(num_cards)``: bid the card of value ``action + 1``
Observation space      ``Dict(observation=Box(0, 1, (size,), float32),
                       action_mask=Box(0, 1, (num_cards,), int8))``; OpenSpiel's
                       information-state tensor (66 floats for 4 cards, hidden bids)
Parameters             ``num_cards`` (2 to 20; 13 by default, as OpenSpiel),
                       ``points_order`` (``"random"``, ``"descending"``,
                       ``"ascending"``), ``imp_info`` (``True``: bids hidden, only who
                       won each round seen), ``returns_type`` (``"win_loss"``,
                       ``"point_difference"``, ``"total_points"``), ``players`` (2 to 10)
Rules                  :mod:`nashzoo.games.goofspiel`
=====================  ============================================================

A point card is turned up; every player bids a card of its hand at the same time; the
highest bid takes the point card's value (a tie discards it). After ``num_cards`` rounds
(the last one plays itself) the most points wins. The rules, tensors and strings are
OpenSpiel's ``goofspiel`` (checked in lockstep with it); the simultaneous bids are played
in turn, each hidden from the players after it, and ``nashzoo.make_parallel`` gives the
parallel API.

Infos (numbers and arrays only, the same keys on every step): ``player``,
``public_history`` (the point cards; the bids as -1, or, with ``imp_info=False``, each
finished round's bids once it ends), ``history_length``,
``illegal_action``.

Rewards: by ``returns_type`` at the end: +1 / -1 (0 for a tie) by default.

Version History:
    v0: first release.
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.envs.parallel import ParallelGameEnv
from nashzoo.games.goofspiel import GoofspielGame

ENV_ID = "nashzoo/goofspiel-v0"


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env; keyword arguments as :func:`nashzoo.make`."""
    from nashzoo.envs.registration import make

    return make(ENV_ID, **kwargs)


def parallel_env(**kwargs: Any) -> ParallelGameEnv:
    """The parallel-API env."""
    from nashzoo.envs.registration import make_parallel

    return make_parallel(ENV_ID, **kwargs)


def raw_env(
    num_cards: int = 13,
    points_order: str = "random",
    imp_info: bool = True,
    returns_type: str = "win_loss",
    players: int = 2,
    **kwargs: Any,
) -> GameEnv:
    """The unwrapped :class:`~nashzoo.envs.aec.GameEnv`."""
    game = GoofspielGame(num_cards, points_order, imp_info, returns_type, players)
    return GameEnv(game, name="goofspiel_v0", **kwargs)
