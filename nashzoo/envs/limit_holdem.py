"""Heads-up Limit Texas Hold'em — ``nashzoo/limit_holdem-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/limit_holdem-v0")``
Agents                 ``["player_0", "player_1"]``
Action space           ``Discrete(3)``
Observation space      ``Dict(observation=Box(0, 1, (279,), float32),
                       action_mask=Box(0, 1, (3,), int8))``
Parameters             ``players`` (2, the default, to 6; other definitions:
                       ``GameEnv(PokerGame(parse_gamedef(text)))``)
Rules                  :mod:`nashzoo.games.poker.game`, definition
                       :data:`nashzoo.games.poker.LIMIT_HOLDEM_GAMEDEF`
Gymnasium id           ``gymnasium.make("nashzoo:nashzoo/LimitHoldem-v0", opponent=...)``
=====================  ============================================================

The game of the ACPC's heads-up limit competitions (and of Cepheus). A 52-card deck.
``player_0`` posts the big blind (10 chips), ``player_1`` the small blind (5); each gets
two private cards. Four betting rounds: pre-flop (``player_1`` acts first), then the flop
(three board cards), the turn (one) and the river (one), where ``player_0`` acts first.
Bets and raises are 10 chips before and on the flop, 20 on the turn and river; a round
allows four bets counting the big blind (three raises pre-flop, four after). The best
five-card hand of the seven cards wins the pot; equal hands split it.

``players=3`` to ``6``: the ACPC's ring-game rules (``holdem.limit.3p.game``): ``player_0``
posts 5 and ``player_1`` 10, ``player_2`` opens before the flop and ``player_0`` after it,
the same bets and caps, no stacks (checked in lockstep against ``universal_poker``), agents
``player_0`` to ``player_{N-1}``, observation ``N + 52 * 4 + 3 * L`` floats.

Unlike PettingZoo's ``texas_holdem_v4`` (RLCard underneath), the observation is a
perfect-recall information state: it holds the player's cards, the board of each round
and every betting action, so two information sets never share an observation.

Observation (279 floats):

============  ===========================================================
index         meaning
============  ===========================================================
0, 1          one-hot: which player is observing
2 .. 53       own hole cards (card ``c`` = ``rank * 4 + suit``, suits c d h s,
              rank 0 the deuce)
54 .. 105     the flop's three cards
106 .. 157    the turn card
158 .. 209    the river card
210 .. 224    pre-flop actions: 5 slots of 3 (one-hot fold, call, raise)
225 .. 242    flop actions: 6 slots of 3
243 .. 260    turn actions: 6 slots of 3
261 .. 278    river actions: 6 slots of 3
============  ===========================================================

Infos (numbers and arrays only, the same keys on every step): ``player``,
``public_history`` (``int64``, length 32: chance events and actions as every player
saw them, -1 for the other player's cards and padding), ``history_length``,
``illegal_action``. Information-state string
(``env.unwrapped.information_state_string(agent)``):
``"player=0 hole=AsKd board=Qh7c2d/5s/9h bets=crc/rc/c"``.

Stepping: the env is a :class:`~nashzoo.envs.compiled.CompiledEnv`, the rules in numba
(one call per decision): 100,000 to 125,000 random decisions a second through the AEC
loop on one core (``benchmarks/RESULTS.md``), 1.5x to 2x ``GameEnv`` over the same game
(the rules stepped in Python), which plays the same episodes
(``tests/envs/test_compiled_env.py``). The
first env made on a machine compiles the rules (a few seconds; cached on disk after).

Actions:

=====  ======  ==============================================================
id     name    meaning
=====  ======  ==============================================================
0      Fold    give up the pot (legal only when facing a bet)
1      Call    match the bet (check when there is none)
2      Raise   bet or raise 10 (pre-flop, flop) or 20 (turn, river)
=====  ======  ==============================================================

Rewards: chips won or lost at the end, zero-sum, at most 240 either way
(``big_blind`` = 10, so 1 chip = 100 mbb). Exact exploitability is out of reach (about
10^14 information sets): compare agents with duplicate matches
(:func:`nashzoo.eval.head_to_head`).

Version History:
    v0: first release (nashzoo 0.3).
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.games.poker import limit_holdem_table

ENV_ID = "nashzoo/limit_holdem-v0"


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env; keyword arguments as :func:`nashzoo.make`."""
    from nashzoo.envs.registration import make

    return make(ENV_ID, **kwargs)


def raw_env(**kwargs: Any) -> GameEnv:
    """The unwrapped :class:`~nashzoo.envs.aec.GameEnv` (env options only; a
    :class:`~nashzoo.envs.compiled.CompiledEnv`: the rules in numba)."""
    from nashzoo.envs.registration import env_class

    game = limit_holdem_table(**kwargs)
    return env_class(game)(game, name="limit_holdem_v0")
