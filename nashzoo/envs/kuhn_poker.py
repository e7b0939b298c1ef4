"""Kuhn poker — ``nashzoo/kuhn_poker-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/kuhn_poker-v0", deck_size=3)``
Agents                 ``["player_0", "player_1"]`` (``players`` of them)
Action space           ``Discrete(2)``
Observation space      ``Dict(observation=Box(0, 1, (P + N + 2(2P - 1),), float32),
                       action_mask=Box(0, 1, (2,), int8))``; ``N + 8`` for two players
Parameters             ``deck_size`` (>= 3; 3 = Kuhn poker, 8 = 8-card poker), ``players``
                       (2 to 10; OpenSpiel's N-player Kuhn poker, ``players + 1`` cards)
Rules                  :mod:`nashzoo.games.kuhn`
=====================  ============================================================

Two players ante 1 chip and get one private card from a ``deck_size``-card deck; player 0
acts first; each may pass or bet 1 chip; a pass after a bet folds, otherwise the higher
card wins. With ``deck_size=8`` this is the 8-card poker of Oliehoek's thesis (player 0 is
the gambler, player 1 the dealer).

With ``players=P`` the turn goes round; after the first bet every other player calls or
folds once, and the highest card among the players still in wins (OpenSpiel's N-player
Kuhn poker: ``nashzoo.make("nashzoo/kuhn_poker-v0", players=3)``).

Observation (perfect-recall information state, the OpenSpiel layout; ``N = deck_size``;
two players shown, with ``P`` players the one-hots are ``P`` wide and there are ``2P - 1``
betting actions):

=============  =============================================
index          meaning
=============  =============================================
0, 1           one-hot: which player is observing
2 .. N+1       one-hot: the observing player's card
N+2, N+3       first betting action: pass, bet
N+4, N+5       second betting action: pass, bet
N+6, N+7       third betting action: pass, bet
=============  =============================================

Infos (numbers and arrays only, the same keys on every step): ``player`` (the agent's
seat), ``public_history`` (``int64``, length 5: the history as every player saw it,
-1 for private events and padding), ``history_length``, ``illegal_action``.
Information-state string (``env.unwrapped.information_state_string(agent)``):
``"player=0 card=J history=pb"``.

Episode end: PettingZoo's dead-agent convention (every agent terminated together,
``agent_selection`` on the first done agent, each steps ``None`` to leave).
``max_cycles=N`` truncates after N cycles.

Actions:

=====  ======  =================================
id     name    meaning
=====  ======  =================================
0      Pass    check, or fold when facing a bet
1      Bet     bet 1 chip, or call a bet
=====  ======  =================================

Rewards: chips won or lost, zero-sum, given at the end: +-1 after a fold or a
pass-pass showdown, +-2 after a called bet. Value for player 0 under optimal play:
-1/18 (3 cards), -1/16 (8 cards).

Version History:
    v0: first release. nashzoo 0.2: infos hold numbers and arrays only (the string moved
    to ``information_state_string`` / ``info_strings=True``), ``public_history`` added,
    PettingZoo's dead-agent convention, ``max_cycles``. Observations, actions and
    rewards are unchanged.
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.games.kuhn import KuhnPokerGame

ENV_ID = "nashzoo/kuhn_poker-v0"


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env; keyword arguments as :func:`nashzoo.make`."""
    from nashzoo.envs.registration import make

    return make(ENV_ID, **kwargs)


def raw_env(deck_size: int | None = None, players: int = 2, **kwargs: Any) -> GameEnv:
    """The unwrapped :class:`~nashzoo.envs.aec.GameEnv` (``players`` seats, a deck of
    ``players + 1`` cards unless ``deck_size`` says otherwise)."""
    return GameEnv(KuhnPokerGame(deck_size, players), name="kuhn_poker_v0", **kwargs)
