"""Liar's Dice — ``nashzoo/liars_dice-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/liars_dice-v0", dice=1, faces=6)``
Agents                 ``["player_0", "player_1"]`` (``players`` of them)
Action space           ``Discrete(T * faces + 1)``, ``T = players * dice``: the bids
                       and liar (13 with the defaults)
Observation space      ``Dict(observation=Box(0, 1, (P + dice * faces + T * faces + 1,),
                       float32), action_mask=Box(0, 1, (T * faces + 1,), int8))``; 21
                       floats with the defaults
Parameters             ``dice`` (per player, >= 1), ``faces`` (>= 2; the highest is
                       wild), ``players`` (2 to 6), ``bidding_rule`` (``"reset-face"`` or
                       ``"reset-quantity"``): OpenSpiel's ``numdice``, ``dice_sides``,
                       ``players``, ``bidding_rule``
Rules                  :mod:`nashzoo.games.liars_dice`
=====================  ============================================================

Every player rolls its dice in secret; player 0 opens and the turn goes round; each
either bids a quantity of a face among all the dice, higher than the standing bid, or
calls liar (not at the first move). The dice are then shown, the highest face matching
every face: the bidder wins if the bid holds, the caller otherwise (+1 and -1, everyone
else 0). The rules, bid encoding, information-state tensor and strings are OpenSpiel's
``liars_dice`` (checked in lockstep with it).

Observation (perfect-recall information state, OpenSpiel's layout): a one-hot of the
observing player, a one-hot of each of its sorted dice, and one bit for each bid made
and for liar.

Infos (numbers and arrays only, the same keys on every step): ``player``,
``public_history`` (the bids; -1 for the dice and padding), ``history_length``,
``illegal_action``. Information-state string
(``env.unwrapped.information_state_string(agent)``): ``"P0 6 1-2 1-3"`` (OpenSpiel's,
after the player).

Actions (the defaults, ``"reset-face"``):

=======  ==========  ====================================
id       name        meaning
=======  ==========  ====================================
0        1-1         at least one 1 among all the dice
1 .. 5   1-2 .. 1-6  at least one 2 .. 6
6 .. 11  2-1 .. 2-6  at least two 1s .. 6s
12       Liar        the standing bid is false
=======  ==========  ====================================

Rewards: +1 to the winner and -1 to the loser at the end (zero-sum).

Version History:
    v0: first release.
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.games.liars_dice import LiarsDiceGame

ENV_ID = "nashzoo/liars_dice-v0"


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env; keyword arguments as :func:`nashzoo.make`."""
    from nashzoo.envs.registration import make

    return make(ENV_ID, **kwargs)


def raw_env(
    dice: int = 1, faces: int = 6, players: int = 2, bidding_rule: str = "reset-face", **kwargs: Any
) -> GameEnv:
    """The unwrapped :class:`~nashzoo.envs.aec.GameEnv`."""
    game = LiarsDiceGame(dice, faces, players, bidding_rule)
    return GameEnv(game, name="liars_dice_v0", **kwargs)
