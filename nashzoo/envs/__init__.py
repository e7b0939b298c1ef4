"""PettingZoo adapters over :mod:`nashzoo.games`, registered at import.

==============================  =====================================  ==========
id                              game                                   parallel
==============================  =====================================  ==========
``nashzoo/kuhn_poker-v0``       Kuhn poker (``deck_size``, 8 = 8-card)  no
``nashzoo/leduc_holdem-v0``     Leduc Hold'em family                    no
``nashzoo/limit_holdem-v0``     Limit Texas Hold'em (``players`` 2-6)   no
``nashzoo/no_limit_holdem-v0``  No-Limit Texas Hold'em (``raises``,     no
                                ``stack``, ``players`` 2-6)
``nashzoo/liars_dice-v0``       Liar's Dice (``dice``, ``faces``,       no
                                ``players``, ``bidding_rule``)
``nashzoo/goofspiel-v0``        Goofspiel (``num_cards``,               yes
                                ``points_order``, ``imp_info``,
                                ``returns_type``, ``players``)
``nashzoo/rps-v0``              rock-paper-scissors                     yes
``nashzoo/weighted_rps-v0``     weighted rock-paper-scissors            yes
``nashzoo/matching_pennies-v0`` matching pennies                        yes
``nashzoo/fighting_cards-v0``   fighting cards (``ranks``, ``hand_size``,  yes
                                ``hit_points``, ``copies``); presets
                                ``fighting_cards_tiny``/``_small``
==============================  =====================================  ==========

Every env is a :class:`GameEnv`; the two Hold'em ids give its subclass
:class:`nashzoo.envs.compiled.CompiledEnv` (the rules in numba, the same episodes;
:func:`~nashzoo.envs.registration.env_class` says which a game gets).
"""

from nashzoo.envs.aec import GameEnv, IllegalActionWarning, OrderEnforcingWrapper
from nashzoo.envs.parallel import ParallelGameEnv
from nashzoo.envs.registration import (
    EnvSpec,
    env_class,
    load_game,
    make,
    make_game,
    make_parallel,
    register,
    registry,
    spec,
)
from nashzoo.games.fighting import PRESETS as FIGHTING_PRESETS
from nashzoo.games.goofspiel import GoofspielGame
from nashzoo.games.kuhn import KuhnPokerGame
from nashzoo.games.leduc import LeducHoldemGame
from nashzoo.games.liars_dice import LiarsDiceGame
from nashzoo.games.matrix import PRESETS
from nashzoo.games.poker import limit_holdem_table, no_limit_holdem

__all__ = [
    "load_game",
    "ParallelGameEnv",
    "GameEnv",
    "IllegalActionWarning",
    "OrderEnforcingWrapper",
    "EnvSpec",
    "make",
    "env_class",
    "make_game",
    "make_parallel",
    "register",
    "registry",
    "spec",
]

register(EnvSpec("nashzoo/kuhn_poker-v0", KuhnPokerGame, "nashzoo.envs.kuhn_poker"))
register(EnvSpec("nashzoo/leduc_holdem-v0", LeducHoldemGame, "nashzoo.envs.leduc_holdem"))
register(EnvSpec("nashzoo/limit_holdem-v0", limit_holdem_table, "nashzoo.envs.limit_holdem"))
register(EnvSpec("nashzoo/no_limit_holdem-v0", no_limit_holdem, "nashzoo.envs.no_limit_holdem"))
register(EnvSpec("nashzoo/liars_dice-v0", LiarsDiceGame, "nashzoo.envs.liars_dice"))
register(EnvSpec("nashzoo/goofspiel-v0", GoofspielGame, "nashzoo.envs.goofspiel", parallel=True))
for _name, _factory in PRESETS.items():
    register(EnvSpec(f"nashzoo/{_name}-v0", _factory, "nashzoo.envs.matrix_games", parallel=True))
for _preset, _make_preset in FIGHTING_PRESETS.items():
    register(
        EnvSpec(f"nashzoo/{_preset}-v0", _make_preset, "nashzoo.envs.fighting_cards", parallel=True)
    )
