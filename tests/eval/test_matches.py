import pytest

import nashzoo
from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
from nashzoo.errors import AgentForfeitError
from nashzoo.eval import head_to_head
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, rock_paper_scissors
from nashzoo.tree import TabularPolicy, compile_game

LEDUC = compile_game(LeducHoldemGame())


@pytest.fixture(scope="module")
def leduc_equilibrium():
    return CFRPlusSolver(LEDUC).iterate(1500).average_policy()


def test_exact_duplicate_value_against_uniform_matches_openspiel(leduc_equilibrium):
    # DESIGN.md (OpenSpiel, exact): a converged equilibrium wins +0.7072 chips/game on
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

    with pytest.raises(AgentForfeitError, match="broken forfeited.*illegal action 0"):
        head_to_head(LeducHoldemGame(), Broken(), nashzoo.RandomAgent(), deals=5)
