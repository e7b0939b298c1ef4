"""Variance-reduced duplicate matches: common random numbers and AIVAT.

AIVAT (Burch et al., AAAI 2018) adds, at every event whose distribution is known, the
value function's expectation over that event minus its value of the outcome: zero in
expectation whatever the value function, so the corrected payoff stays unbiased. The
checks: with the two agents' own values every corrected deal is the exact expectation;
with a value function that knows nothing of the agents the corrected mean equals the
exact expectation (Leduc) and the plain mean (Hold'em) within their CIs; agents cannot
bias it by misstating their probabilities.
"""

import numpy as np
import pytest

from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.envs.registration import make_game
from nashzoo.errors import AgentForfeitError, InvalidParameterError
from nashzoo.eval import head_to_head
from nashzoo.eval.aivat import TreeValues, default_value_function
from nashzoo.eval.checkdown import CheckdownValues
from nashzoo.games import KuhnPokerGame, LeducHoldemGame, MatrixGame
from nashzoo.tree import TabularPolicy, compile_game

LEDUC = LeducHoldemGame()


@pytest.fixture(scope="module")
def leduc_pair():
    solver = CFRPlusSolver(LEDUC)
    solver.iterate(10)
    return TabularPolicyAgent(solver.average_policy(), name="cfr+10"), RandomAgent(seed=0)


class ActOnly:
    """A PolicyAgent's ``act`` without its ``action_probabilities``: AIVAT cannot
    correct its decisions."""

    def __init__(self, agent):
        self.agent, self.name = agent, "act-only"

    def act(self, observation, info):
        return self.agent.act(observation, info)

    def reset(self, *, seed=None):
        self.agent.reset(seed=seed)


@pytest.mark.parametrize(
    ("env_id", "deals", "seed", "plain_above"),
    [
        ("nashzoo/leduc_holdem-v0", 200, 3, 0.1),
        # simultaneous moves: played as two hidden decisions, each drawn from what its
        # agent states, and corrected like any other
        ("nashzoo/rps-v0", 100, 2, 0.05),
        ("nashzoo/fighting_cards_tiny-v0", 100, 2, 0.05),
    ],
)
def test_own_values_make_every_corrected_deal_the_exact_expectation(
    env_id, deals, seed, plain_above
):
    game = make_game(env_id)
    solver = CFRPlusSolver(game)
    solver.iterate(10)
    a, b = TabularPolicyAgent(solver.average_policy(), name="cfr+10"), RandomAgent(seed=0)
    exact = head_to_head(game, a, b, exact=True).mean
    result = head_to_head(
        game,
        a,
        b,
        deals=deals,
        seed=seed,
        variance_reduction="aivat",
        value_function=TreeValues.of_match(game, a, b),
    )
    # the plain scores of the same games vary; the corrected ones are all the expectation,
    # up to rounding. A bound on that rounding (u = 2**-53): every node value is a nest of
    # at most H = max_history_length weighted sums of at most B + 1 terms of payoffs below
    # U in size, so it is off by at most H (B + 1) u U; a deal adds at most H corrections
    # per seating, each the difference of two such values, with the expectation and the
    # exact figure computed the same way: 4 H^2 (B + 1) u U bounds every deal's distance
    # from the expectation (4.9e-12 chips on Leduc; measured about 5e-15). The standard
    # error of samples that all lie within that distance is below it, and it is computed
    # from the samples in two passes, so no cancellation floor (about 1e-9 here, the
    # one-pass sum-of-squares formula's) sits above it.
    h, n = game.max_history_length, max(game.max_chance_outcomes, game.num_distinct_actions)
    rounding = 4 * h * h * (n + 1) * 2.0**-53 * game.max_payoff_magnitude
    assert result.plain_stderr > plain_above
    assert result.stderr < rounding
    assert result.mean == pytest.approx(exact, abs=rounding)


@pytest.mark.parametrize("act_only", [False, True], ids=["both-stated", "one-act-only"])
def test_corrected_mean_is_the_exact_expectation_over_seeds(leduc_pair, act_only):
    """Uniform-play values (the default on games that compile) know nothing of the
    agents: 12 matches of 250 deals, corrected means pooled, equal the exact expectation
    within 4 standard errors; so does each seed's plain mean of the same games."""
    a, b = leduc_pair
    exact = head_to_head(LEDUC, a, b, exact=True).mean
    b_played = ActOnly(b) if act_only else b
    results = [
        head_to_head(LEDUC, a, b_played, deals=250, seed=s, variance_reduction="aivat")
        for s in range(12)
    ]
    means = np.array([r.mean for r in results])
    pooled_se = np.sqrt(np.sum([r.stderr**2 for r in results])) / len(results)
    assert abs(means.mean() - exact) < 4 * pooled_se, (means.mean(), exact, pooled_se)
    plain = np.array([r.plain_mean for r in results])
    plain_se = np.sqrt(np.sum([r.plain_stderr**2 for r in results])) / len(results)
    assert abs(plain.mean() - exact) < 4 * plain_se
    # the corrections remove variance: chance and (at least) A's decisions are known
    ratio = np.mean([(r.plain_stderr / r.stderr) ** 2 for r in results])
    assert ratio > 1.2, ratio


def test_a_misstating_agent_plays_what_it_states(leduc_pair):
    """The referee draws a stated agent's actions from its stated probabilities, so
    claiming uniform play while ``act`` always raises changes the play, not the
    estimator: the corrected mean is the exact value of the stated (uniform) policy."""
    a, _ = leduc_pair
    tree = compile_game(LEDUC)

    class Liar(RandomAgent):
        def act(self, observation, info):
            mask = observation["action_mask"]
            return 2 if mask[2] else 1

    exact_stated = head_to_head(LEDUC, a, RandomAgent(seed=0), exact=True).mean
    raise_probs = np.zeros(tree.legal_mask.shape)
    raise_probs[:, 1] = 1.0
    raise_probs[tree.legal_mask[:, 2] > 0] = [0.0, 0.0, 1.0]
    exact_acted = head_to_head(
        LEDUC, TabularPolicy.from_agent(a, tree), TabularPolicy(tree, raise_probs), exact=True
    ).mean
    assert abs(exact_stated - exact_acted) > 0.3
    r = head_to_head(LEDUC, a, Liar(seed=1), deals=1500, seed=0, variance_reduction="aivat")
    assert abs(r.mean - exact_stated) < 4 * r.stderr, (r, exact_stated, exact_acted)


@pytest.mark.parametrize(
    "stated, fragment",
    [
        (lambda mask: mask / mask.sum() * 0.5, "not a distribution"),
        (lambda mask: np.full(mask.size, 1.0 / mask.size), "not a distribution"),
        (lambda mask: np.full(mask.size, np.nan), "invalid probabilities"),
        (lambda mask: np.ones(2), "invalid probabilities"),
    ],
    ids=["sums-to-half", "mass-on-illegal", "nan", "wrong-shape"],
)
def test_invalid_stated_probabilities_forfeit(stated, fragment):
    class Bad(RandomAgent):
        def action_probabilities(self, observation, info):
            return stated(observation["action_mask"].astype(float))

    with pytest.raises(AgentForfeitError, match=fragment):
        head_to_head(LEDUC, RandomAgent(seed=0), Bad(seed=0), deals=50, variance_reduction="aivat")


def test_crn_reseeds_each_agent_alike_in_both_seatings():
    class Recorder(RandomAgent):
        def __init__(self):
            super().__init__(seed=0)
            self.seeds = []

        def reset(self, *, seed=None):
            self.seeds.append(seed)
            super().reset(seed=seed)

    a, b = Recorder(), Recorder()
    first = head_to_head(KuhnPokerGame(), a, b, deals=30, seed=5, variance_reduction="crn")
    deal_seeds = a.seeds[1:]  # the first reset seeds the match, as without CRN
    assert deal_seeds[0::2] == deal_seeds[1::2]  # both games of a deal
    assert len(set(deal_seeds[0::2])) == 30 and set(deal_seeds).isdisjoint(b.seeds[1:])
    again = head_to_head(KuhnPokerGame(), a, b, deals=30, seed=5, variance_reduction="crn")
    assert (first.mean, first.stderr) == (again.mean, again.stderr)
    assert first.variance_reduction == "crn" and first.plain_mean is None


def test_checkdown_values():
    game = make_game("nashzoo/limit_holdem-v0")
    values = CheckdownValues(game, samples=4096)
    state = game.new_initial_state()
    for card in (48, 49, 44, 45):  # player 0: two aces; player 1: two kings
        state.apply_action(card)
    # blinds 10 and 5; player 1 (small blind) to act. Aces win about 82% and tie 0.4%
    # against kings: E[sign] = 0.653 (400,000 sampled boards: 0.6529)
    legal = list(state.legal_actions())  # fold, call, raise
    v = values.child_values(state, legal)
    assert v[0] == state.child(0).returns()[0] == 5.0  # a fold is its payoff
    assert v[1] / 10 == pytest.approx(0.653, abs=0.03)  # called: 10 chips each
    assert v[2] / 20 == pytest.approx(v[1] / 10)  # raised: 20 each, the same equity
    # on the river the equity is exact: the final board decides
    river = state.clone()
    # call, check; flop 2 7 9 (three suits), check, check; turn J (the fourth suit), check,
    # check: no straight or flush is possible for either player
    for event in (1, 1, 0, 21, 30, 1, 1, 39, 1, 1):
        river.apply_action(event)
    assert river.is_chance_node()
    outcomes = [c for c, _ in river.chance_outcomes()]
    signs = values.child_values(river, outcomes) / 10
    assert set(np.unique(signs)) <= {-1.0, 0.0, 1.0}
    assert signs[outcomes.index(47)] == -1.0  # the last king gives player 1 a set
    assert signs[outcomes.index(50)] == 1.0
    with pytest.raises(InvalidParameterError, match="52-card deck"):
        CheckdownValues(LEDUC)
    assert isinstance(default_value_function(game), CheckdownValues)
    assert isinstance(default_value_function(LEDUC), TreeValues)


def test_checkdown_values_of_heads_up_no_limit():
    # the poker engine's HUNL (stacks of 20,000): a fold is its payoff, a call stakes the
    # bet, and a raise is staked at most at the stacks (what a call can match)
    game = make_game("nashzoo/no_limit_holdem-v0", stack=1000)
    values = CheckdownValues(game, samples=4096)
    assert isinstance(default_value_function(game), CheckdownValues)
    state = game.new_initial_state()
    for card in (48, 49, 44, 45):  # player 0: two aces; player 1: two kings
        state.apply_action(card)
    legal = list(state.legal_actions())  # fold, call, half pot, pot, all-in
    v = values.child_values(state, legal)
    assert v[0] == state.child(0).returns()[0] == 50.0  # the small blind folds
    assert v[1] / 100 == pytest.approx(0.653, abs=0.03)  # called: 100 each
    assert v[4] / 1000 == pytest.approx(v[1] / 100)  # all-in: staked at the 1,000 stack
    three = make_game("nashzoo/no_limit_holdem-v0", players=3)
    with pytest.raises(InvalidParameterError, match="heads-up"):
        CheckdownValues(three)


@pytest.mark.parametrize("env_id", ["nashzoo/limit_holdem-v0", "nashzoo/no_limit_holdem-v0"])
def test_holdem_corrected_mean_agrees_with_the_plain_one(env_id):
    """Limit and no-limit Hold'em with the check-down value function (NFSP and SB3 state
    their probabilities too; the benchmark measures them): 240 deals of random against
    the rules agent, whose choices are known to the referee."""
    game = make_game(env_id)
    from nashzoo.agents import build_agent

    r = head_to_head(
        game,
        build_agent("random", game),
        build_agent("poker-rules", game),
        deals=240,
        seed=2,
        variance_reduction="aivat",
    )
    both = np.hypot(r.stderr, r.plain_stderr)
    assert abs(r.mean - r.plain_mean) < 4 * both, r
    assert r.stderr < r.plain_stderr, r


def test_bad_parameters():
    a, b = RandomAgent(seed=0), RandomAgent(seed=1)
    with pytest.raises(InvalidParameterError, match="variance_reduction must be one of"):
        head_to_head(LEDUC, a, b, deals=5, variance_reduction="AIVAT")
    with pytest.raises(InvalidParameterError, match="only with variance_reduction='aivat'"):
        head_to_head(LEDUC, a, b, deals=5, value_function=TreeValues(LEDUC))
    with pytest.raises(InvalidParameterError, match="child_values"):
        head_to_head(LEDUC, a, b, deals=5, variance_reduction="aivat", value_function=42)
    dilemma = MatrixGame([[3, 0], [5, 1]], [[3, 5], [0, 1]])  # not zero-sum
    with pytest.raises(InvalidParameterError, match="two-player zero-sum game.*zero_sum=False"):
        head_to_head(dilemma, a, b, deals=5, variance_reduction="aivat")
    with pytest.raises(InvalidParameterError, match="shape"):
        TreeValues(LEDUC, np.ones((3, 3)))


def test_tournament_with_aivat(tmp_path):
    """Every block plays with the corrections; the crosstable keeps the uncorrected
    figures of the same games beside, and both agree with the exact expectation."""
    from nashzoo.agents import AgentSpec
    from nashzoo.eval.tournament import TournamentConfig, run_tournament

    def config(**kw):
        return TournamentConfig(
            game="nashzoo/leduc_holdem-v0",
            agents=(("cfr", AgentSpec("cfr+:10")), ("rnd", AgentSpec("random"))),
            deals=600,
            block_size=200,
            seed=1,
            **kw,
        )

    plain = config()
    assert "variance_reduction" not in plain.to_dict()  # ids of older tournaments hold
    aivat = config(variance_reduction="aivat")
    assert aivat.id != plain.id and aivat.to_dict()["variance_reduction"] == "aivat"
    result = run_tournament(aivat, tmp_path / "t.sqlite", workers=0, bootstrap=0)
    ct = result.crosstable
    cfr, rnd = build_pair()
    exact = head_to_head(LEDUC, cfr, rnd, exact=True).mean
    assert abs(ct.mean[0, 1] - exact) < 4 * ct.stderr[0, 1]
    assert abs(ct.plain_mean[0, 1] - exact) < 4 * ct.plain_stderr[0, 1]
    assert ct.stderr[0, 1] < ct.plain_stderr[0, 1]
    text = result.format()
    assert "aivat" in text and "uncorrected" in text
    with pytest.raises(InvalidParameterError, match="variance_reduction must be one of"):
        config(variance_reduction="controlvariates")
    # simultaneous moves are accepted: the tiny fighting preset's default values are exact
    fighting = TournamentConfig(
        game="nashzoo/fighting_cards_tiny-v0",
        agents=(("a", AgentSpec("random")), ("b", AgentSpec("random"))),
        deals=10,
        variance_reduction="aivat",
    )
    assert fighting.to_dict()["variance_reduction"] == "aivat"


def build_pair():
    from nashzoo.agents import build_agent

    return build_agent("cfr+:10", LEDUC), build_agent("random", LEDUC)


def test_a_version_2_store_is_upgraded_in_place(tmp_path):
    import sqlite3

    from nashzoo.eval.store import ResultStore

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:  # the tables as nashzoo 0.x (schema 2) wrote them
        db.executescript(
            """
            CREATE TABLE tournaments (id VARCHAR(40) PRIMARY KEY, config TEXT NOT NULL,
                created VARCHAR(40) NOT NULL);
            CREATE TABLE blocks (tournament VARCHAR(40), a VARCHAR(200), b VARCHAR(200),
                block INTEGER, deals INTEGER NOT NULL, total FLOAT NOT NULL,
                total_sq FLOAT NOT NULL, wins INTEGER NOT NULL, losses INTEGER NOT NULL,
                ties INTEGER NOT NULL, seconds FLOAT NOT NULL, forfeit VARCHAR(200),
                reason TEXT, PRIMARY KEY (tournament, a, b, block));
            CREATE TABLE exploitability (tournament VARCHAR(40), agent VARCHAR(200),
                exploitability FLOAT, reason TEXT, PRIMARY KEY (tournament, agent));
            CREATE TABLE nashzoo_meta (key VARCHAR(40) PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO nashzoo_meta VALUES ('schema', '2');
            INSERT INTO tournaments VALUES ('t1', '{}', '2026-01-01');
            INSERT INTO blocks VALUES ('t1', 'x', 'y', 0, 10, 5.0, 9.0, 6, 3, 1, 0.5, NULL, NULL);
            INSERT INTO exploitability VALUES ('t1', 'x', 0.25, NULL);
            """
        )
    store = ResultStore(path)
    (block,) = store.results("t1")
    assert (block.deals, block.total, block.plain_total) == (10, 5.0, None)
    assert store.exploitabilities("t1") == {"x": (0.25, None, "exact", None)}
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM nashzoo_meta").fetchone() == ("3",)
