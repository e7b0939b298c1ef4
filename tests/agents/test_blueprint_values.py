"""Values of histories under a blueprint's play, for a search on the blueprint (issue 89,
item 7: "V from a network trained on that blueprint's play")."""

from __future__ import annotations

import numpy as np
import pytest

import nashzoo
from nashzoo.agents.ismcts.blueprint_values import (
    BlueprintValues,
    BlueprintValuesConfig,
    train_blueprint_values,
)
from nashzoo.agents.ismcts.knowledge import PolicyKnowledge, view_key
from nashzoo.agents.specs import build_agent
from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.eval.matches import head_to_head
from nashzoo.vector.hands import checkdown_signs

torch = pytest.importorskip("torch")

HOLDEM = nashzoo.make_game("limit_holdem")


class CallingStation:
    """Checks or calls at every decision: under it a history's value is exactly its
    check-down value (the stake a call makes times the showdown's expected result),
    since nobody bets again and nobody folds."""

    def action_probabilities(self, observation, info):
        probs = np.zeros(len(observation["action_mask"]))
        probs[1] = 1.0  # call (check)
        return probs


def _late_states(game, count, seed):
    """Decision states on the turn or river (a card or none to come: exact equities)
    reached by a calling station, with random deals."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                if state.round >= 2:
                    out.append(state.clone())
                    break
                state.apply_action(1)
    return out


@pytest.fixture(scope="module")
def station_values():
    torch.set_num_threads(1)
    config = BlueprintValuesConfig(hands=3000, epochs=15, seed=0)
    return train_blueprint_values(HOLDEM, CallingStation(), config)


def test_a_calling_stations_values_are_its_check_down_values(station_values):
    """Against itself a calling station's every hand reaches the showdown at the stake
    already called, so the value to player 0 is ``stake * E[sign]`` exactly. The fitted
    network must come close to that on histories it never saw (within 0.5% of Limit
    Hold'em's 240-chip payoff scale, mean absolute error), and its held-out error must
    be the check-down value's (the noise of the showdowns themselves) within 5%, far
    below the error of the value 0."""
    values = station_values
    m = values.metrics
    assert m["hands"] == 3000 and m["rows"] > 3000
    assert m["mse"] <= 1.05 * m["mse_checkdown"], m
    assert m["mse_checkdown"] < 0.8 * m["mse_zero"], m
    errors = []
    for state in _late_states(HOLDEM, 40, seed=7):
        dealt = [*state.hole_cards(0), *state.hole_cards(1), *state.board_cards()]
        sign = checkdown_signs([dealt], 2, 5)[0]
        exact = max(state.pot_contributions()) * sign
        fitted = values.values(state, 0)[0]
        # zero-sum by construction: player 1's value is the negative (float32 network)
        assert values.values(state, 1)[0] == pytest.approx(-fitted, abs=1e-4)
        errors.append(abs(fitted - exact))
    assert np.mean(errors) < 0.005 * HOLDEM.max_payoff_magnitude, np.mean(errors)


def test_every_world_of_a_view_is_valued_at_once_as_one_by_one(station_values):
    """values(state, p, hands) answers each opponent hand of p's view as the same
    history with that hand dealt to the opponent."""
    state = _late_states(HOLDEM, 1, seed=3)[0]
    worlds = state.hidden_worlds(0)
    batch = station_values.values(state, 0, worlds.values)
    assert batch.shape == (len(worlds),) == (1035 if state.round == 2 else 990,)
    for k in (0, 17, len(worlds) - 1):
        alone = station_values.values(worlds.state(k), 0)[0]
        assert batch[k] == pytest.approx(alone, abs=1e-4)  # float32 in batches of any size


def test_poker_rules_values_beat_the_value_zero_by_a_wide_margin():
    """On poker-rules' own play (it raises, calls and folds by hand strength) the fitted
    network's held-out squared error is below 70% of the value 0's: a value a search can
    use where its simulations stop."""
    torch.set_num_threads(1)
    blueprint = build_agent("poker-rules", HOLDEM)
    values = train_blueprint_values(
        HOLDEM, blueprint, BlueprintValuesConfig(hands=2000, epochs=10, seed=1)
    )
    assert values.metrics["mse"] < 0.7 * values.metrics["mse_zero"], values.metrics


def test_a_values_file_round_trips_and_is_refused_for_another_game(station_values, tmp_path):
    path = station_values.save(tmp_path / "station.values.pt")
    again = BlueprintValues.load(path, HOLDEM)
    state = _late_states(HOLDEM, 1, seed=5)[0]
    assert again.values(state, 0)[0] == station_values.values(state, 0)[0]
    assert again.config == station_values.config and again.metrics == station_values.metrics
    with pytest.raises(PolicyFileError, match="not of"):
        BlueprintValues.load(path, nashzoo.make_game("no_limit_holdem"))
    padded = torch.load(path, weights_only=True) | {"extra": torch.zeros(3)}
    torch.save(padded, tmp_path / "padded.pt")
    with pytest.raises(PolicyFileError, match="unknown entries"):
        BlueprintValues.load(tmp_path / "padded.pt")
    broken = tmp_path / "broken.pt"
    broken.write_bytes(path.read_bytes()[:200])
    with pytest.raises(PolicyFileError):
        BlueprintValues.load(broken)
    finished = HOLDEM.new_initial_state()
    for card in (0, 1, 2, 3):
        finished.apply_action(card)
    finished.apply_action(0)  # the small blind folds
    with pytest.raises(InvalidParameterError, match="finished hand"):
        again.values(finished, 0)
    with pytest.raises(InvalidParameterError, match="before the deal ended"):
        again.values(HOLDEM.new_initial_state(), 0)
    with pytest.raises(InvalidParameterError, match="heads-up poker"):
        train_blueprint_values(nashzoo.make_game("leduc_holdem"), CallingStation())
    with pytest.raises(InvalidParameterError, match="hands"):
        BlueprintValuesConfig(hands=0)
    with pytest.raises(ValueError, match="exact_missing"):
        checkdown_signs([[0, 1, 2, 3]], 2, 5, exact_missing=3)


def test_a_sampled_check_down_is_the_exact_one_within_its_noise():
    """exact_missing=1 averages two missing cards over ``samples`` completions: within
    four standard errors of the exact enumeration on every row."""
    rows = [[0, 5, 9, 14, 30, 33], [12, 13, 40, 44, 2, 33], [51, 50, 0, 1, 25, 33]]
    exact = checkdown_signs(rows, 2, 5)  # flop: 2 to come, enumerated
    sampled = checkdown_signs(rows, 2, 5, samples=400, exact_missing=1)
    assert np.all(np.abs(sampled - exact) < 4 * 1.0 / np.sqrt(400)), (sampled, exact)
    assert not np.array_equal(sampled, exact)


def test_a_search_on_a_blueprint_reads_its_values(station_values, tmp_path):
    """``nash-ismcts:BUDGET+SPEC+VALUES.pt``: the knowledge's V_c of a fold is its exact
    payoff and of every other action the H-weighted values of the worlds after it; the
    values file of another game, or one on a game that compiles, is refused."""
    path = station_values.save(tmp_path / "station.values.pt")
    agent = build_agent(f"nash-ismcts:20+poker-rules+{path}", HOLDEM)
    assert agent.name == "nash-ismcts:20+poker-rules+station.values"
    knowledge = agent.search.knowledge
    assert knowledge.values is not None
    state = _late_states(HOLDEM, 1, seed=11)[0]
    p = state.current_player()
    legal = list(state.legal_actions())
    prior, child, v = knowledge.act(state, p)
    worlds = state.hidden_worlds(p)
    h = knowledge.belief(state, p, worlds)
    scale = HOLDEM.max_payoff_magnitude
    for k, a in enumerate(legal):
        after = state.child(a)
        if after.is_terminal():
            expected = h @ np.asarray(after.returns_over(p, worlds.values)) / scale
        else:
            expected = h @ station_values.values(after, p, worlds.values) / scale
        assert child[k] == pytest.approx(expected, abs=1e-9)
    assert v == pytest.approx(h @ station_values.values(state, p, worlds.values) / scale)
    assert knowledge.history_value(state, p) == pytest.approx(
        station_values.values(state, p)[0] / scale
    )
    # the agent plays: a hand against poker-rules
    result = head_to_head(HOLDEM, agent, build_agent("poker-rules", HOLDEM), deals=1, seed=0)
    assert result.deals == 1
    nolimit = nashzoo.make_game("no_limit_holdem")
    with pytest.raises(PolicyFileError, match="not of"):
        build_agent(f"nash-ismcts:20+random+{path}", nolimit)
    with pytest.raises(InvalidParameterError, match="The values are of"):
        PolicyKnowledge(nolimit, build_agent("random", nolimit), values=station_values)


def test_a_views_world_values_are_computed_once(station_values):
    """The search asks for the worlds after an action at the parent's ``act`` (V_c) and
    again at the chance node it builds there: the network runs once a view, and the
    values it keeps are the fresh ones, read-only (nodes share them)."""
    calls = []

    class Counting:
        game = station_values.game

        def values(self, state, player, hands=None):
            calls.append(view_key(state, player))
            return station_values.values(state, player, hands)

    knowledge = PolicyKnowledge(HOLDEM, CallingStation(), values=Counting())
    state = _late_states(HOLDEM, 1, seed=5)[0]
    p = state.current_player()
    worlds = state.hidden_worlds(p)
    knowledge.act(state, p)
    asked = len(calls)
    going = [a for a in state.legal_actions() if not state.child(a).is_terminal()]
    assert asked == len(going) + 1  # each going child and the view itself
    after = state.child(going[0])
    kept = knowledge.world_values(after, p, worlds)
    assert len(calls) == asked  # no second pass
    fresh = station_values.values(after, p, worlds.values) / HOLDEM.max_payoff_magnitude
    np.testing.assert_array_equal(kept, fresh)
    with pytest.raises(ValueError, match="read-only"):
        kept[0] = 0.0


def test_the_command_line_fits_and_saves_values(tmp_path, capsys):
    """``nashzoo values GAME --blueprint SPEC --out FILE``: the settings are the config's,
    and the file it writes is one the agent spec reads."""
    from nashzoo.cli import main

    out = tmp_path / "rules.values.pt"
    argv = ["values", "limit_holdem", "--blueprint", "poker-rules", "--out", str(out)]
    assert main([*argv, "--hands", "200", "--epochs", "1", "--seed", "3"]) == 0
    assert "held-out mean squared error" in capsys.readouterr().out
    values = BlueprintValues.load(out, HOLDEM)
    assert values.config == BlueprintValuesConfig(hands=200, epochs=1, seed=3)
    agent = build_agent(f"nash-ismcts:10+poker-rules+{out}", HOLDEM)
    assert agent.search.knowledge.values is not None
    assert main([*argv, "--hands", "0"]) == 2
    assert "BlueprintValuesConfig.hands` must be an integer >= 10, received 0" in (
        capsys.readouterr().err
    )
