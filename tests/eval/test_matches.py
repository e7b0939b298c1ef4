import math

import numpy as np
import pytest

import nashzoo
from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
from nashzoo.errors import AgentForfeitError, InvalidParameterError
from nashzoo.eval import exploitability, head_to_head
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, rock_paper_scissors
from nashzoo.tree import TabularPolicy, compile_game
from tests.rounding import tree_rounding

LEDUC = compile_game(LeducHoldemGame())


@pytest.fixture(scope="module")
def leduc_equilibrium():
    return CFRPlusSolver(LEDUC).iterate(1500).average_policy()


def test_exact_duplicate_value_against_uniform_matches_openspiel(leduc_equilibrium):
    # OpenSpiel (exact, CFR+ near convergence): a converged equilibrium wins +0.7072 chips/game on
    # Leduc against uniform random, averaged over both seats.
    res = head_to_head(LEDUC, leduc_equilibrium, TabularPolicy.uniform(LEDUC), exact=True)
    assert res.exact and res.stderr == 0.0
    assert res.mean == pytest.approx(0.7072, abs=2e-3)
    assert res.mean_mbb == pytest.approx(1000 * res.mean)


def test_sampled_duplicate_agrees_with_exact_within_its_interval(leduc_equilibrium):
    agent = TabularPolicyAgent(leduc_equilibrium, seed=0, name="cfr+")
    rand = nashzoo.RandomAgent(seed=1)
    exact = head_to_head(LEDUC, agent, rand, exact=True)
    sampled = head_to_head(LeducHoldemGame(), agent, rand, deals=1500, seed=3)
    assert sampled.ci95[0] <= exact.mean <= sampled.ci95[1]
    assert 0 < sampled.stderr < 0.1
    assert sampled.agent_a == "cfr+" and sampled.deals == 1500


class AlwaysAction:
    """A deterministic agent: the highest legal action below ``cap``."""

    def __init__(self, cap):
        self.cap, self.name = cap, f"cap{cap}"

    def act(self, observation, info):
        legal = [a for a, ok in enumerate(observation["action_mask"]) if ok and a <= self.cap]
        return legal[-1]

    def reset(self, *, seed=None):
        pass


def test_duplicate_seating_cancels_the_cards():
    # A deterministic agent against itself scores exactly zero on every duplicate pair.
    res = head_to_head("nashzoo/leduc_holdem-v0", AlwaysAction(2), AlwaysAction(2), deals=200)
    assert res.mean == 0.0 and res.stderr == 0.0


class Folder(AlwaysAction):
    """Checks when it can, folds to any raise."""

    def act(self, observation, info):
        return 0 if observation["action_mask"][0] else 1


def test_seat_swap_negates_the_score():
    # The raiser wins the folder's ante in every game: +1 chip per game.
    ab = head_to_head(LeducHoldemGame(), AlwaysAction(2), Folder(0), deals=300, seed=9)
    ba = head_to_head(LeducHoldemGame(), Folder(0), AlwaysAction(2), deals=300, seed=9)
    assert ab.mean == 1.0 and ba.mean == -1.0
    # exact results of policies negate too
    rps = compile_game(rock_paper_scissors())
    rock = TabularPolicy(rps, [[1.0, 0, 0], [1.0, 0, 0]])
    paper = TabularPolicy(rps, [[0, 1.0, 0], [0, 1.0, 0]])
    assert head_to_head(rps, rock, paper, exact=True).mean == -1.0
    assert head_to_head(rps, paper, rock, exact=True).mean == 1.0
    assert head_to_head(rps, rock, paper, exact=True).big_blind is None


def test_forfeits_raise_a_clear_error():
    class Broken:
        name = "broken"

        def act(self, observation, info):
            return 0  # fold: illegal when not facing a bet

        def reset(self, *, seed=None):
            pass

    with pytest.raises(AgentForfeitError, match=r"broken forfeited.*illegal action 0"):
        head_to_head(LeducHoldemGame(), Broken(), nashzoo.RandomAgent(), deals=5)


def kuhn_equilibrium(alpha):
    """Kuhn's (1950) equilibrium family, indexed by player 0's J-bluff rate alpha."""
    tree = compile_game(KuhnPokerGame())
    bet = {  # probability of the second action (bet/call) at each information set
        "player=0 card=J history=": alpha,
        "player=0 card=Q history=": 0.0,
        "player=0 card=K history=": 3 * alpha,
        "player=0 card=J history=pb": 0.0,
        "player=0 card=Q history=pb": alpha + 1 / 3,
        "player=0 card=K history=pb": 1.0,
        "player=1 card=J history=b": 0.0,
        "player=1 card=Q history=b": 1 / 3,
        "player=1 card=K history=b": 1.0,
        "player=1 card=J history=p": 1 / 3,
        "player=1 card=Q history=p": 0.0,
        "player=1 card=K history=p": 1.0,
    }
    probs = np.array([[1 - bet[k], bet[k]] for k in tree.infoset_keys])
    return TabularPolicy(tree, probs)


def test_kuhn_score_against_uniform_across_the_equilibrium_family():
    # OpenSpiel's converged CFR+ scores +0.1483 on Kuhn; Kuhn has a family of
    # equilibria and the score against uniform depends on which one a solver reaches.
    uniform = TabularPolicy.uniform(KuhnPokerGame())
    ends = [
        head_to_head(uniform.tree, kuhn_equilibrium(a), uniform, exact=True).mean
        for a in (0.0, 1 / 3)
    ]
    for a in (0.0, 1 / 6, 1 / 3):
        nash_conv = exploitability(kuhn_equilibrium(a)).nash_conv
        assert nash_conv == pytest.approx(0, abs=4 * tree_rounding(uniform.tree))
    ours = CFRPlusSolver(uniform.tree).iterate(5000).average_policy()
    alpha = ours.action_probabilities("player=0 card=J history=")[1]
    score = head_to_head(uniform.tree, ours, uniform, exact=True).mean
    assert min(ends) - 1e-3 <= score <= max(ends) + 1e-3
    assert score == pytest.approx(
        head_to_head(uniform.tree, kuhn_equilibrium(alpha), uniform, exact=True).mean, abs=2e-3
    )
    assert min(ends) < 0.1483 < max(ends)  # the quoted figure is one member of the family


def test_exact_refuses_the_settings_of_played_matches():
    # issue 30: exact=True silently ignored them
    uniform = TabularPolicy.uniform(KuhnPokerGame())
    for setting, value in (
        ("variance_reduction", "crn"),
        ("move_time_limit", 1.0),
    ):
        with pytest.raises(InvalidParameterError, match=f"exact=True .*{setting}"):
            head_to_head(uniform.tree, uniform, uniform, exact=True, **{setting: value})
    # no limit is no setting
    assert head_to_head(uniform.tree, uniform, uniform, exact=True, move_time_limit=math.inf).exact


class _RaisesOnQueenPolicy:
    name = "faulty"

    def __init__(self):
        self.inner = TabularPolicyAgent(TabularPolicy.uniform(KuhnPokerGame()))

    def act(self, observation, info):
        return self.inner.act(observation, info)

    def action_probabilities(self, observation, info):
        if "card=Q" in info["info_state"]:
            raise RuntimeError("no queens")
        return self.inner.action_probabilities(observation, info)


class _WrongShapePolicy(_RaisesOnQueenPolicy):
    def action_probabilities(self, observation, info):
        return [1.0]


@pytest.mark.parametrize("agent", [_RaisesOnQueenPolicy(), _WrongShapePolicy()])
def test_an_agent_fault_while_tabulated_is_its_forfeit(agent):
    # issue 30: it surfaced as PolicyFileError (or the agent's own exception)
    uniform = TabularPolicyAgent(TabularPolicy.uniform(KuhnPokerGame()), name="uniform")
    with pytest.raises(AgentForfeitError, match="faulty forfeited the match"):
        head_to_head(KuhnPokerGame(), agent, uniform, exact=True)
    with pytest.raises(AgentForfeitError, match="faulty forfeited the match"):
        head_to_head(KuhnPokerGame(), uniform, agent, exact=True)
