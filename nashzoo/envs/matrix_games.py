"""Matrix games — ``nashzoo/rps-v0``, ``nashzoo/weighted_rps-v0``,
``nashzoo/matching_pennies-v0``.

=====================  ============================================================
Import                 ``nashzoo.make("nashzoo/rps-v0")`` (AEC) or
                       ``nashzoo.make_parallel("nashzoo/rps-v0")`` (parallel API)
Agents                 ``["player_0", "player_1"]`` (row, column)
Action space           ``Discrete(A)`` (A = 3 for RPS, 2 for matching pennies)
Observation space      ``Dict(observation=Box(0, 1, (2 + A,), float32),
                       action_mask=Box(0, 1, (A,), int8))``
Rules                  :mod:`nashzoo.games.matrix`
=====================  ============================================================

A simultaneous move, played in the AEC API as player 0 then player 1 with player 0's
action hidden from player 1. The parallel env (:class:`~nashzoo.envs.ParallelGameEnv`,
PettingZoo's ``aec_to_parallel`` with the AEC env's checks) takes both actions at once.

Observation: index 0, 1 one-hot of the observing player; index ``2 + a`` is set once the
player has played action ``a``. Information-state string
(``env.unwrapped.information_state_string(agent)``): ``"player=1"``.

Actions and payoffs (row player's payoff; the column player receives the negative):

=================  =====================================  ===========================
id                 actions                                payoffs
=================  =====================================  ===========================
rps-v0             0 Rock, 1 Paper, 2 Scissors            win +1, lose -1
weighted_rps-v0    0 Rock, 1 Paper, 2 Scissors            as RPS, but any result
                                                          involving Scissors is +-2
matching_pennies   0 Heads, 1 Tails                       +1 on a match, -1 otherwise
=================  =====================================  ===========================

Equilibria: uniform (RPS), (2/5, 2/5, 1/5) (weighted RPS), (1/2, 1/2) (pennies); value 0.

Any other matrix: ``nashzoo.envs.GameEnv(nashzoo.games.MatrixGame(row_payoffs,
col_payoffs))``.

Infos (numbers and arrays only, the same keys on every step): ``player`` (the agent's
seat), ``public_history`` (``int64``, length 2: the history as every player saw it,
-1 for private events and padding), ``history_length``, ``illegal_action``.

Episode end: PettingZoo's dead-agent convention (every agent terminated together,
``agent_selection`` on the first done agent, each steps ``None`` to leave).
``max_cycles=N`` truncates after N cycles.

Version History:
    v0: first release. nashzoo 0.2: infos hold numbers and arrays only (the string moved
    to ``information_state_string`` / ``info_strings=True``), ``public_history`` added,
    PettingZoo's dead-agent convention, ``max_cycles``. Observations, actions and
    rewards are unchanged.
"""

from __future__ import annotations

from typing import Any

from nashzoo.envs.aec import OrderEnforcingWrapper
from nashzoo.envs.parallel import ParallelGameEnv


def env(name: str = "rps", **kwargs: Any) -> OrderEnforcingWrapper:
    """The wrapped AEC env of preset ``name`` (``"rps"``, ``"weighted_rps"``,
    ``"matching_pennies"``)."""
    from nashzoo.envs.registration import make

    return make(f"nashzoo/{name}-v0", **kwargs)


def parallel_env(name: str = "rps", **kwargs: Any) -> ParallelGameEnv:
    """The parallel-API env of preset ``name``."""
    from nashzoo.envs.registration import make_parallel

    return make_parallel(f"nashzoo/{name}-v0", **kwargs)
