"""Leduc Hold'em — ``nashzoo/leduc_holdem-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/leduc_holdem-v0")``
Agents                 ``["player_0", "player_1"]``
Action space           ``Discrete(3)``
Observation space      ``Dict(observation=Box(0, 1, (30,), float32),
                       action_mask=Box(0, 1, (3,), int8))`` (standard Leduc)
Parameters             ``num_ranks=3, num_suits=2, max_raises=2, raise_sizes=(2, 4),
                       ante=1, num_rounds=2, players=2`` (``players=N``: OpenSpiel's
                       ``leduc_poker(players=N)``, ``N + 1`` ranks, agents
                       ``player_0 .. player_{N-1}``)
Rules                  :mod:`nashzoo.games.leduc`
=====================  ============================================================

Six cards (J, Q, K in two suits). Both players ante 1 and get a private card; a betting
round (raises of 2) is followed by one public card and a second round (raises of 4), at
most two raises per round, player 0 first in each round. A pair with the public card wins,
else the higher private card; equal ranks split. Unlike PettingZoo's ``leduc_holdem_v4``
(RLCard underneath), the observation is a perfect-recall information state: it records
every betting action, so two different information sets never share an observation.
With ``players=3`` (a deck of T J Q K in two suits) turns go round the players still in,
a round ends when all of them have checked or called the last raise, and a fold does not
end the hand while two players are left; the tree (1,831,601 histories) and the play
match OpenSpiel's in lockstep (``tests/games/test_leduc_players.py``).

Observation (standard Leduc; the OpenSpiel layout):

==========  ==========================================================
index       meaning
==========  ==========================================================
0, 1        one-hot: which player is observing
2 .. 7      one-hot: own private card (Js, Jh, Qs, Qh, Ks, Kh)
8 .. 13     one-hot: public card (same order), zero before it is dealt
14 .. 21    round 1 actions, 2 bits each (4 slots): call = 10, raise = 01
22 .. 29    round 2 actions, same encoding (fold, which ends the game, = 11)
==========  ==========================================================

Infos (numbers and arrays only, the same keys on every step): ``player`` (the agent's
seat), ``public_history`` (``int64``, length 10: the history as every player saw it,
-1 for private events and padding), ``history_length``, ``illegal_action``.
Information-state string (``env.unwrapped.information_state_string(agent)``):
``"player=0 card=Js public=Qh bets=rc/r"``.

Episode end: PettingZoo's dead-agent convention (every agent terminated together,
``agent_selection`` on the first done agent, each steps ``None`` to leave).
``max_cycles=N`` truncates after N cycles.

Actions:

=====  ======  ======================================================
id     name    meaning
=====  ======  ======================================================
0      Fold    give up the pot (legal only when facing a raise)
1      Call    match the stake (check when nothing to match)
2      Raise   raise by 2 (round 1) or 4 (round 2); at most 2 per round
=====  ======  ======================================================

Rewards: chips won or lost, zero-sum, at the end (at most 13 either way). Value for player
0 under optimal play: -0.0856.

Version History:
    v0: first release. nashzoo 0.2: infos hold numbers and arrays only (the string moved
    to ``information_state_string`` / ``info_strings=True``), ``public_history`` added,
    PettingZoo's dead-agent convention, ``max_cycles``. Observations, actions and
    rewards are unchanged.
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.games.leduc import LeducHoldemGame

ENV_ID = "nashzoo/leduc_holdem-v0"


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env; keyword arguments as :func:`nashzoo.make`."""
    from nashzoo.envs.registration import make

    return make(ENV_ID, **kwargs)


def raw_env(**kwargs: Any) -> GameEnv:
    """The unwrapped :class:`~nashzoo.envs.aec.GameEnv` (game parameters + env options)."""
    env_opts = {
        k: kwargs.pop(k) for k in ("render_mode", "strict", "illegal_reward") if k in kwargs
    }
    return GameEnv(LeducHoldemGame(**kwargs), name="leduc_holdem_v0", **env_opts)
