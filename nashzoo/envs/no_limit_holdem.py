"""Heads-up No-Limit Texas Hold'em — ``nashzoo/no_limit_holdem-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/no_limit_holdem-v0")``
Agents                 ``["player_0", "player_1"]``
Action space           ``Discrete(5)`` (default; ``3 + len(raises)``)
Observation space      ``Dict(observation=Box(0, 1, (290,), float32),
                       action_mask=Box(0, 1, (5,), int8))`` with the defaults:
                       2 + 52 * 4 + 5 * ``max_game_length`` (16 betting actions)
Parameters             ``raises`` (pot fractions of the raise actions, default
                       ``(0.5, 1.0)``), ``stack`` (both players' stacks, default 20000)
Rules                  :mod:`nashzoo.games.poker.game`, definition
                       :data:`nashzoo.games.poker.presets.NO_LIMIT_HOLDEM_GAMEDEF`
Gymnasium id           ``gymnasium.make("nashzoo:nashzoo/NoLimitHoldem-v0", opponent=...)``
=====================  ============================================================

The game of the ACPC's heads-up no-limit competitions (and of OpenSpiel's HUNL
``universal_poker`` definition): a 52-card deck, stacks of 20,000 chips, ``player_0``
the big blind (100), ``player_1`` the small blind (50) and first to act before the flop;
``player_0`` acts first after it. Any raise from the minimum raise (the last raise's
size, at least the big blind) to all-in is legal in the rules; the env offers the
action abstraction PettingZoo's ``texas_holdem_no_limit_v6`` offers, so code written for
it ports by changing the import:

=====  ================  ==========================================================
id     name              meaning
=====  ================  ==========================================================
0      Fold              give up the pot (when facing a bet and not all-in)
1      Check/Call        match the bet (check when nothing is owed)
2      Raise Half Pot    raise to the bet plus half the pot after calling (2x the bet)
3      Raise Full Pot    raise to the bet plus the pot after calling (3x the bet)
4      All-In            raise to the whole stack
=====  ================  ==========================================================

A raise below the minimum raise or at the stack is masked (at the stack, All-In is the
same move). ``raises=(0.33, 0.75, 1.5)`` offers other pot fractions (then
``3 + len(raises)`` actions, All-In last); ``state.raise_to(action)`` tells the chips of a
raise. Rules, numbering of cards and every raise-to total are cross-checked in lockstep
against ``universal_poker`` (``tests/games/test_nolimit.py``).

Unlike PettingZoo's (RLCard underneath), the observation is a perfect-recall
information state: the observing player (2), its hole cards (52), the flop, turn and
river cards (52 each), then one one-hot slot per betting action in order (the chips
follow from the actions). Information-state string:
``"player=0 hole=AsKd board=Qh7c2d/5s/9h bets=r200c/cr400c/c/"`` (ACPC betting: ``r``
and the raise-to total).

Infos (numbers and arrays only, the same keys on every step): ``player``,
``public_history``, ``history_length``, ``illegal_action``.

Stepping: the env is a :class:`~nashzoo.envs.compiled.CompiledEnv`, the rules in numba
(one call per decision): 100,000 to 125,000 random decisions a second through the AEC
loop on one core (``benchmarks/RESULTS.md``), 1.5x to 2x ``GameEnv`` over the same game
(the rules stepped in Python), which plays the same episodes
(``tests/envs/test_compiled_env.py``). The
first env made on a machine compiles the rules (a few seconds; cached on disk after).

Rewards: chips won or lost at the end, zero-sum, at most 20,000 either way
(``big_blind`` = 100, so 1 chip = 10 mbb). Compare agents with duplicate matches
(:func:`nashzoo.eval.head_to_head`).

Version History:
    v0: first release (nashzoo 0.4).
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import GameEnv, OrderEnforcingWrapper
from nashzoo.games.poker import no_limit_holdem

ENV_ID = "nashzoo/no_limit_holdem-v0"


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env; keyword arguments as :func:`nashzoo.make`."""
    from nashzoo.envs.registration import make

    return make(ENV_ID, **kwargs)


def raw_env(**kwargs: Any) -> GameEnv:
    """The unwrapped :class:`~nashzoo.envs.aec.GameEnv` (game parameters only;
    a :class:`~nashzoo.envs.compiled.CompiledEnv`: the rules in numba)."""
    from nashzoo.envs.registration import env_class

    game = no_limit_holdem(**kwargs)
    return env_class(game)(game, name="no_limit_holdem_v0")
