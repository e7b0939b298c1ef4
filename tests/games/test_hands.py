"""The 7-card hand evaluator: the standard category counts over every hand of the deck,
the 7,462 classes of five-card hands, and agreement with phevaluator (Cactus Kev's
numbering) where it is installed."""

import itertools

import numpy as np
import pytest

from nashzoo.games.poker.hands import CATEGORIES, hand_value, parse_cards, standard_tables

TABLES = standard_tables()


def test_five_card_classes():
    # 7,462 distinct five-card hands (Cactus Kev); per category, weakest first
    assert len(TABLES.values) == 7462
    sizes = np.diff([*TABLES.category_starts, 7463]).tolist()
    assert sizes == [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]


def test_every_seven_card_hand_by_category():
    from nashzoo.vector.hands import category_counts

    # the standard counts of the 133,784,560 seven-card hands (e.g. Wikipedia's "Poker
    # probability"), each hand ranked by the tables
    assert category_counts(7) == {
        "straight flush": 41_584,
        "four of a kind": 224_848,
        "full house": 3_473_184,
        "flush": 4_047_644,
        "straight": 6_180_020,
        "three of a kind": 6_461_620,
        "two pair": 31_433_400,
        "one pair": 58_627_800,
        "high card": 23_294_460,
    }
    # and of the 2,598,960 five-card hands
    five = category_counts(5)
    assert [five[c] for c in CATEGORIES] == [
        1_302_540,
        1_098_240,
        123_552,
        54_912,
        10_200,
        5_108,
        3_744,
        624,
        40,
    ]


def test_tables_agree_with_the_direct_ranking():
    from nashzoo.vector.hands import strengths

    rng = np.random.default_rng(0)
    hands = np.array([rng.choice(52, 7, replace=False) for _ in range(3000)])
    batch = strengths(hands)
    for hand, strength in zip(hands.tolist(), batch.tolist()):
        assert TABLES.strength(hand) == strength
        assert TABLES.value(strength) == hand_value(hand)
    # fewer cards too: 5 and 6
    for k in (5, 6):
        assert strengths(hands[:, :k]).tolist() == [TABLES.strength(h[:k]) for h in hands.tolist()]


@pytest.mark.parametrize(
    "better, worse",
    [
        ("AsKsQsJsTs2c3d", "9s9h9d9c2c3d4h"),  # royal flush over quads
        ("As2s3s4s5s9d9h", "KhKdKc2h2d3c4s"),  # steel wheel over a full house
        ("As2d3c4h5s9dJh", "KsQdJcTh8s3d2h"),  # the wheel is a straight
        ("AsAd3c3h5s5d2h", "AsAd3c3h4s4d2h"),  # two pair: the best two of three pairs
        ("AsAd3c3h5s9dKh", "AsAd3c3h5s9dQh"),  # the kicker
    ],
)
def test_hand_order(better, worse):
    assert TABLES.strength(parse_cards(better)) > TABLES.strength(parse_cards(worse))
    assert hand_value(parse_cards(better)) > hand_value(parse_cards(worse))


def test_short_hands_and_decks():
    # Leduc: a pair beats a high card, then the higher card
    leduc = dict(num_ranks=3, num_suits=2)
    assert hand_value([0, 1], **leduc) > hand_value([5, 1], **leduc)
    assert hand_value([5, 0], **leduc) > hand_value([3, 0], **leduc)
    assert hand_value(parse_cards("AsAd")) == (1, 12)


def test_matches_phevaluator():
    phevaluator = pytest.importorskip("phevaluator")
    rng = np.random.default_rng(1)
    for _ in range(5000):
        cards = rng.choice(52, 7, replace=False).tolist()
        names = [f"{'23456789TJQKA'[c // 4]}{'cdhs'[c % 4]}" for c in cards]
        # phevaluator numbers the classes 1 (royal flush) to 7,462 (7-5-4-3-2)
        assert TABLES.strength(cards) == 7463 - phevaluator.evaluate_cards(*names)


def test_parse_cards_errors():
    with pytest.raises(ValueError, match="Unknown card 'Xs'"):
        parse_cards("Xs")
    with pytest.raises(ValueError, match="pairs of rank and suit"):
        parse_cards("Asd")


def test_all_five_card_hands_rank_like_the_direct_ranking_on_a_sample():
    # a deterministic stride through the 2,598,960 five-card hands
    for i, hand in enumerate(itertools.combinations(range(52), 5)):
        if i % 997 == 0:
            assert TABLES.value(TABLES.strength(hand)) == hand_value(hand)


def test_the_best_flush_of_any_suit_counts_in_long_hands():
    # issue 31, D3: in hands of 8 or more cards the first suit with five cards was taken
    # as the flush: 2-3-4-5-7 of clubs with 9-T-J-Q-K of spades ranked as a flush
    cards = parse_cards("2c 3c 4c 5c 7c 9s Ts Js Qs Ks")
    assert CATEGORIES[hand_value(cards)[0]] == "straight flush"
    assert hand_value(cards) == hand_value(parse_cards("9s Ts Js Qs Ks"))
    # and of two plain flushes the better one
    two = parse_cards("2c 3c 4c 5c 7c 2s 3s 4s 5s 8s")
    assert hand_value(two) == hand_value(parse_cards("2s 3s 4s 5s 8s"))
