"""Playing one of our poker games in lockstep with OpenSpiel's universal_poker."""

from __future__ import annotations

import numpy as np

from nashzoo.games.base import CHANCE


def lockstep(game, peer, deals: int, seed: int) -> int:
    """Random deals and random actions of ``game`` (a PokerGame) applied to both it
    and ``peer`` (universal_poker on the same definition, "fullgame" for no-limit): the
    same player to move, the same cards at chance nodes, the same legal actions (limit)
    or fold/call legality and raise-to range with every raise of ours inside it
    (no-limit), and the same payoffs. Returns how many raises were played.
    """
    rng = np.random.default_rng(seed)
    raised = 0
    for _ in range(deals):
        ours, theirs = game.new_initial_state(), peer.new_initial_state()
        while not ours.is_terminal():
            assert not theirs.is_terminal()
            if ours.current_player() == CHANCE:
                assert list(ours.legal_actions()) == [a for a, _ in theirs.chance_outcomes()]
                card = int(rng.choice(ours.legal_actions()))
                ours.apply_action(card)
                theirs.apply_action(card)
                continue
            assert theirs.current_player() == ours.current_player()
            legal, peer_legal = ours.legal_actions(), theirs.legal_actions()
            if game.limit:
                assert list(legal) == list(peer_legal)
            else:
                assert (0 in legal, 1 in legal) == (0 in peer_legal, 1 in peer_legal)
                bets = [a for a in peer_legal if a >= 2]
                assert ours.raise_range() == ((min(bets), max(bets)) if bets else None)
                assert all(ours.raise_to(a) in bets for a in legal if a >= 2)
            action = int(rng.choice(legal))
            raised += action >= 2
            theirs.apply_action(action if action < 2 or game.limit else ours.raise_to(action))
            ours.apply_action(action)
        assert theirs.is_terminal()
        np.testing.assert_allclose(ours.returns(), theirs.returns())
    return raised
