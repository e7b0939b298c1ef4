"""No-limit action abstractions (issue 90): their text, the betting tree pruned round by
round, the file that remembers them, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

from nashzoo.abstraction.actions import parse_actions
from nashzoo.abstraction.betting import betting_tree
from nashzoo.errors import InvalidParameterError
from nashzoo.games.poker import limit_holdem, no_limit_holdem
from nashzoo.games.poker.game import RAISE

from .playing import check_plays
from .stand_in import use_stand_in_buckets


def test_the_text_and_its_refusals():
    per_round = parse_actions("0.5,1/1/1/-", 4)
    assert per_round.rounds == ((0.5, 1.0), (1.0,), (1.0,), ())
    assert str(per_round) == "0.5,1/1/1/-" and per_round.fractions == (0.5, 1.0)
    same = parse_actions("0.33, 0.75", 4)
    assert same.rounds == ((0.33, 0.75),) * 4 and str(same) == "0.33,0.75"
    for text, match in [
        ("", "text such as"),
        ("0.5/1", "1 or 4 rounds"),
        ("0.5,x", "pot fractions separated by commas"),
        ("0,1", "above 0"),
        ("-1", "above 0"),
        ("1,0.5", "increase within a round"),
        ("0.5,0.5", "increase within a round"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            parse_actions(text, 4)
    with pytest.raises(InvalidParameterError, match="heads-up no-limit"):
        per_round.game_for(limit_holdem())
    with pytest.raises(InvalidParameterError, match="has 2 rounds"):
        parse_actions("1/1", 2).game_for(no_limit_holdem())


def test_the_tree_keeps_each_rounds_raises_and_all_in():
    game = no_limit_holdem()
    actions = parse_actions("0.5,1/1/1/1", 4)
    full, pruned = betting_tree(game), betting_tree(game, actions)
    # measured: 22,438 nodes (368, 1,196, 2,604 and 5,292 decisions) of 307,250
    assert pruned.num_nodes < full.num_nodes
    assert pruned.decisions[0] == full.decisions[0]  # preflop keeps both raises
    decided = np.flatnonzero(pruned.player >= 0)
    for node in decided:
        r = int(pruned.round[node])
        for a in np.flatnonzero(pruned.legal_mask[node]):
            if RAISE <= a < game.all_in:
                assert game.raises[a - RAISE] in actions.rounds[r]
        # what is kept is what the rules allow there: the same node of the full tree
        path, at = [], int(node)
        while pruned.parent[at] >= 0:
            path.append(int(pruned.action[at]))
            at = int(pruned.parent[at])
        twin = full.node_of(path[::-1])
        allowed = full.legal_mask[twin] > 0
        assert np.all(allowed[pruned.legal_mask[node] > 0])
        assert allowed[0] == pruned.legal_mask[node][0] and pruned.legal_mask[node][1]
        assert allowed[game.all_in] == pruned.legal_mask[node][game.all_in]
    with pytest.raises(InvalidParameterError, match="keeps raises of"):
        betting_tree(game, parse_actions("0.75", 4))


def test_a_policy_file_remembers_its_actions_and_plays_the_real_game(monkeypatch, tmp_path):
    use_stand_in_buckets(monkeypatch)
    from nashzoo.agents.cfr.abstract import AbstractionSolver
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent, AbstractPolicy

    game = no_limit_holdem(raises=(0.5, 0.75, 1.0))
    solver = AbstractionSolver(
        game, "ehs2:169,4,3,3", seed=0, progress=False, actions="1/0.5/0.5/0.5"
    )
    assert solver.game.raises == (0.5, 1.0)  # the abstract game: the kept raises only
    path = solver.iterate(2000).average_policy().save(tmp_path / "hunl.npz")
    loaded = AbstractPolicy.load(path)
    assert str(loaded.abstraction.actions) == "1/0.5/0.5/0.5"
    agent = AbstractionAgent(path, game, seed=0)
    assert agent.translating
    assert check_plays(agent, game, hands=40, seed=2) > 50


def test_the_command_line_refuses_actions_where_they_do_not_apply(capsys):
    from nashzoo.cli import main

    assert main(["solve", "no_limit_holdem", "--actions", "0.5,1"]) != 0
    assert "give --abstraction too (received --actions '0.5,1' alone)" in capsys.readouterr().err
    assert main(["solve", "leduc_holdem", "--abstraction", "iso", "--actions", "0.5,1"]) != 0
    assert "compiles and is solved with its own raises" in capsys.readouterr().err
