"""Card abstractions of games that compile (Leduc and kin): exact where truth is known.

References: Leduc Hold'em (Southey et al., 2005) has 936 information sets (OpenSpiel's
``leduc_poker`` agrees); its six cards in two suits make every deal's suit-renamed twin
strategically identical, so suit isomorphism halves the sets (468: 3 ranks preflop
instead of 6 cards, and 15 ordered (hole, board) classes instead of 30 postflop).
"""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

import nashzoo
from nashzoo.abstraction import parse_abstraction
from nashzoo.abstraction.buckets import equal_weight_buckets
from nashzoo.abstraction.small import _engine_twin, _Enumerated, abstract_tree
from nashzoo.agents.cfr import make_solver
from nashzoo.errors import InvalidParameterError
from nashzoo.games.fighting import fighting_cards_tiny

LEDUC = "nashzoo/leduc_holdem-v0"


@pytest.fixture(scope="module")
def leduc():
    return nashzoo.make_game(LEDUC)


def test_identity_gives_the_real_tree_and_the_same_cfr_plus_iterates(leduc):
    abstract = abstract_tree(leduc, "identity")
    real = abstract.real
    assert abstract.num_infosets == real.num_infosets == 936
    np.testing.assert_array_equal(abstract.tree.infoset, real.infoset)
    ours = make_solver("cfr+", abstract.tree)
    theirs = make_solver("cfr+", real)
    for _ in range(4):
        ours.iterate(25)
        theirs.iterate(25)
        # bit for bit: the same arrays in the same order give the same floating-point sums
        np.testing.assert_array_equal(
            abstract.expand(ours.average_policy().probs), theirs.average_policy().probs
        )
        np.testing.assert_array_equal(
            abstract.expand(ours.current_policy().probs), theirs.current_policy().probs
        )
    assert abstract.exploitability(ours.average_policy().probs) == pytest.approx(
        theirs.exploitability(), abs=1e-12
    )


def test_suit_isomorphism_halves_leduc_and_loses_nothing(leduc):
    abstract = abstract_tree(leduc, "iso")
    assert abstract.num_infosets == 468
    # every abstract set merges exactly a deal and its suit-swapped twin
    assert np.all(np.bincount(abstract.to_abstract) == 2)
    ours = make_solver("cfr+", abstract.tree).iterate(50)
    theirs = make_solver("cfr+", abstract.real).iterate(50)
    # the same game: a set's regret is twice each twin's, so the iterates are the same up
    # to floating-point rounding (which CFR+'s clipping amplifies over hundreds of
    # iterations: 1e-12 apart at 50, 3e-9 at 100, visibly apart by 200)
    np.testing.assert_allclose(
        abstract.expand(ours.current_policy().probs), theirs.current_policy().probs, atol=1e-10
    )
    assert abstract.exploitability(ours.average_policy().probs) == pytest.approx(
        theirs.exploitability(), rel=1e-9
    )
    policy = abstract.real_policy(ours.average_policy())
    assert policy.metadata["abstraction"] == "iso"
    np.testing.assert_allclose(policy.probs.sum(axis=1), 1.0)


def _brute_force_hs(twin, hole, board):
    """HS of ``hole`` with the full ``board`` against every opponent card, by hand."""
    used = set(hole) | set(board)
    own = twin.strength(list(hole) + list(board))
    scores = []
    for other in itertools.combinations([c for c in range(6) if c not in used], 1):
        theirs = twin.strength(list(other) + list(board))
        scores.append(1.0 if own > theirs else 0.5 if own == theirs else 0.0)
    return float(np.mean(scores))


def test_enumerated_strengths_match_a_brute_force_count(leduc):
    twin, _ = _engine_twin(leduc)
    enumerated = _Enumerated(twin, parse_abstraction("ehs2:3,3:perfect"))
    # preflop: E[HS] of each card over the 5 boards, by hand
    for card in range(6):
        finals = [_brute_force_hs(twin, (card,), (b,)) for b in range(6) if b != card]
        mean, square = enumerated.value[0][((card,), ((),))]
        assert mean == pytest.approx(np.mean(finals))
        assert square == pytest.approx(np.mean(np.square(finals)))
    # Leduc's river HS takes three values: a pair 1, else 5/8 or 1/8 (see _brute_force_hs)
    river = {round(v[0], 12) for v in enumerated.value[1].values()}
    assert river == {1.0, 0.625, 0.125}
    # the preflop ranks order by strength: the kings' E[HS] above the queens' above the jacks'
    pre = [enumerated.value[0][((c,), ((),))][0] for c in range(6)]
    assert pre[0] == pre[1] < pre[2] == pre[3] < pre[4] == pre[5]


def test_strength_buckets_merge_equal_strengths_and_nothing_else(leduc):
    # three river strengths: however many buckets are asked for, three river buckets
    # (the pathology of strength abstractions: K|Q and Q|K look alike to E[HS])
    assert (
        abstract_tree(leduc, "ehs:3,3:perfect").num_infosets
        == abstract_tree(leduc, "ehs:3,100:perfect").num_infosets
    )
    one = abstract_tree(leduc, "ehs:1,1")
    # one bucket a round: a set is only the player and the betting (counted from the
    # real tree's keys)
    betting = {(k.split(" ")[0], k.split("bets=")[1]) for k in one.real.infoset_keys}
    assert one.num_infosets == len(betting)
    coarse = abstract_tree(leduc, "ehs:3,3:perfect")
    # preflop buckets are the three ranks: the abstraction keeps the preflop game whole
    iso = abstract_tree(leduc, "iso")
    preflop = [i for i, k in enumerate(iso.real.infoset_keys) if "/" not in k]
    assert len(set(coarse.to_abstract[preflop])) == len(set(iso.to_abstract[preflop]))


def test_equal_weight_buckets():
    values = np.array([0.3, 0.1, 0.1, 0.9, 0.5])
    np.testing.assert_array_equal(equal_weight_buckets(values, np.ones(5), 10), [1, 0, 0, 3, 2])
    # two buckets of equal weight: the two 0.1s share one whatever their weights
    two = equal_weight_buckets(values, np.ones(5), 2)
    assert two[1] == two[2] == 0 and two[3] == 1
    heavy = equal_weight_buckets(values, np.array([1, 1, 1, 10, 1.0]), 2)
    assert heavy[3] == 1 and heavy[0] == heavy[4] == 0


def test_coarser_abstractions_are_solved_and_measured_in_the_real_game(leduc):
    fine = abstract_tree(leduc, "ehs2:3,3:perfect")
    crude = abstract_tree(leduc, "ehs2:1,1")
    fine_x = fine.exploitability(make_solver("cfr+", fine.tree).iterate(200).average_policy().probs)
    crude_x = crude.exploitability(
        make_solver("es-mccfr", crude.tree, seed=0).iterate(20_000).average_policy().probs
    )
    uniform = fine.exploitability(np.where(fine.tree.legal_mask, 1.0, 0.0))
    # Leduc's uniform policy: NashConv 4.7472 chips (OpenSpiel's figure), exploitability
    # half that. A 3-by-3 strength abstraction, solved, plays the real game far better;
    # a card-blind one, solved, far worse than the 3-by-3
    assert uniform == pytest.approx(4.747222222222222 / 2, abs=1e-9)
    assert fine_x < uniform / 4
    assert crude_x > fine_x + 1.0


def test_imperfect_recall_needs_a_sampling_solver(tmp_path):
    def solve(*args):
        return subprocess.run(
            [sys.executable, "-m", "nashzoo", "solve", "leduc_holdem", "--quiet", *args],
            capture_output=True,
            text=True,
            timeout=300,
        )

    refused = solve("--abstraction", "ehs2:3,3", "--algo", "cfr+", "--iterations", "10")
    assert refused.returncode != 0
    assert "imperfect-recall" in refused.stderr and "es-mccfr" in refused.stderr
    out = tmp_path / "leduc.npz"
    done = solve(
        "--abstraction", "ehs2:3,3", "--algo", "es-mccfr", "--iterations", "2000",
        "--points", "2", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "abstract information sets (of 936)" in done.stdout
    # the saved policy is the real game's (its rows are the real sets) and names its
    # abstraction
    from nashzoo.tree.policy import TabularPolicy

    policy = TabularPolicy.load(out, game=nashzoo.make_game(LEDUC))
    assert policy.probs.shape[0] == 936 and policy.metadata["abstraction"] == "ehs2:3,3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "received ''"),
        ("ehs3:1,2", "Unknown abstraction 'ehs3'"),
        ("ehs2", "needs bucket counts per round"),
        ("ehs2:169,0,5,5", "at least 1, received '0'"),
        ("ehs2:169,x,5,5", "received 'x'"),
        ("ehs2:3,3:sometimes", "'perfect' or 'imperfect', received 'sometimes'"),
        ("iso:3", "takes no counts"),
    ],
)
def test_abstraction_text_errors_name_what_was_received(text, message):
    with pytest.raises(InvalidParameterError, match=message.replace("[", r"\[")):
        parse_abstraction(text)


def test_counts_must_fit_the_rounds(leduc):
    with pytest.raises(InvalidParameterError, match="gives 4 bucket count.*needs 2"):
        abstract_tree(leduc, "ehs2:3,3,3,3")
    with pytest.raises(InvalidParameterError, match="apply to poker games"):
        abstract_tree(fighting_cards_tiny(), "iso")
    assert str(parse_abstraction("ehs2:169,50,50,50")) == "ehs2:169,50,50,50"
    assert str(parse_abstraction("EHS:3,5:perfect")) == "ehs:3,5:perfect"
