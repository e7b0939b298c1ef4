"""Fighting cards — ``nashzoo/fighting_cards-v0`` (and the compilable presets
``nashzoo/fighting_cards_tiny-v0``, ``nashzoo/fighting_cards_small-v0``).

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/fighting_cards-v0")`` (AEC) or
                       ``nashzoo.make_parallel("nashzoo/fighting_cards-v0")``
Agents                 ``["player_0", "player_1"]``
Action space           ``Discrete(4 * ranks)`` (12 by default): the card kind played
Observation space      ``Dict(observation=Box(0, 1, (S,), float32),
                       action_mask=Box(0, 1, (4 * ranks,), int8))``; S = 434 by default
Parameters             ``ranks`` (1-5, default 3), ``copies`` (1-3, default 1),
                       ``hand_size`` (default 3), ``hit_points`` (default 10)
Rules                  :mod:`nashzoo.games.fighting`
=====================  ============================================================

How to play
-----------
Each player has a deck of ``4 * ranks * copies`` cards (12 by default): Attack, Throw,
Block and Dodge cards of ranks ``1 .. ranks``. A low rank is fast, a high rank is strong.
Both players start with ``hit_points`` and a private hand of ``hand_size`` cards.

Every exchange both players pick a card at the same time. In the AEC API player 0 picks
first and player 1 picks without seeing it; in the parallel API both actions go in one
``step``. The two cards are revealed and resolved:

===========================  =======================================================
cards                        result
===========================  =======================================================
Attack r vs Throw s          the attacker deals ``2r`` (the throw is interrupted)
Attack r vs Attack s         the lower rank hits first for its rank; equal ranks
                             trade ``r`` each
Throw r vs Throw s           the lower rank throws for its rank; equal ranks: nothing
Throw s vs Block             the thrower deals ``s``
Throw s vs Dodge             the thrower deals ``s + 1``
Block vs Attack r            the blocker reflects ``r``
Dodge d vs Attack r          the dodger counters for ``d + 1``
Block/Dodge vs Block/Dodge   nothing
===========================  =======================================================

Played cards go face up to the discard piles (both players see them from then on) and
each player draws one card. The game ends when a player is at 0 hit points or less, or
when the decks are empty; more hit points wins.

Observation (perfect-recall information state; the layout is in
:mod:`nashzoo.games.fighting`): the observing player, its hand, both discard piles (the
opponent's known cards), the opponent's hand size, both players' hit points, the hand
first dealt, and every exchange so far (own card, opponent's card, own draw).
Information-state string (``env.unwrapped.information_state_string(agent)``):
``"player=0 hp=10/7 deal=A1,T2,B3 | A1vT2+D1"``. Action mask: the kinds in hand.

Infos (numbers and arrays only, the same keys on every step): ``player``,
``public_history`` (``int64``: deals and draws are -1, a revealed exchange shows both
cards), ``history_length``, ``illegal_action``.

Rewards: +1 to the player with more hit points at the end, -1 to the other, 0 each on
equal hit points; zero-sum, given at the end.

Episode end: PettingZoo's dead-agent convention. ``max_cycles=N`` truncates.

Version History:
    v0: first release (nashzoo 0.3).
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import OrderEnforcingWrapper
from nashzoo.envs.parallel import ParallelGameEnv

ENV_ID = "nashzoo/fighting_cards-v0"


def env(name: str = "fighting_cards", **kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env of preset ``name`` (``"fighting_cards"``,
    ``"fighting_cards_small"``, ``"fighting_cards_tiny"``)."""
    from nashzoo.envs.registration import make

    return make(f"nashzoo/{name}-v0", **kwargs)


def parallel_env(name: str = "fighting_cards", **kwargs: Any) -> ParallelGameEnv:
    """The parallel-API env of preset ``name``."""
    from nashzoo.envs.registration import make_parallel

    return make_parallel(f"nashzoo/{name}-v0", **kwargs)
