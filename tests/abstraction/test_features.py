"""Hand-strength columns read from Hold'em tensor rows: the cards read back match the
state's own cards (every row's columns equal the buckets of the state's hole cards and
board, round by round), the strengths order hands as the published equities do, and bad
input is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import nashzoo
from nashzoo.abstraction import features
from nashzoo.abstraction.features import STRENGTH_TENTHS, HoldemStrengthColumns
from nashzoo.errors import InvalidParameterError

from .stand_in import use_stand_in_buckets

HOLDEM = "nashzoo/limit_holdem-v0"


def _views(game, count, seed):
    """``count`` random games' decision views: (rows, holes, boards)."""
    rng = np.random.default_rng(seed)
    rows, holes, boards = [], [], []
    for _ in range(count):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(outcomes, p=np.array(probs) / sum(probs))))
                continue
            p = s.current_player()
            rows.append(np.asarray(s.information_state_tensor(p), np.float32))
            holes.append(list(s.hole_cards(p)))
            boards.append(list(s.board_cards()))
            s.apply_action(int(rng.choice(s.legal_actions())))
    return np.array(rows), holes, boards


@pytest.fixture
def stand_in(monkeypatch):
    use_stand_in_buckets(monkeypatch)


def test_every_row_gets_the_buckets_of_its_own_cards_round_by_round(stand_in, monkeypatch):
    game = nashzoo.make_game(HOLDEM)
    cols = HoldemStrengthColumns(game, "ehs2:169,7,5,6")
    rows, holes, boards = _views(game, 150, seed=0)
    out = cols(rows)
    assert out.shape == (len(rows), 4 + STRENGTH_TENTHS) and out.dtype == np.float32
    sizes = cols.buckets.sizes
    reached = {0: 0, 3: 1, 4: 2, 5: 3}
    seen = set()
    for row, hole, board in zip(out, holes, boards, strict=True):
        last = reached[len(board)]
        seen.add(last)
        for r in range(4):
            if r > last:
                assert row[r] == 0.0
                continue
            shown = board[: (0, 3, 4, 5)[r]]
            bucket = cols.buckets.bucket(hole, shown)
            # the stand-in's turn is one bucket: no order, the middle of the scale
            expected = bucket / (sizes[r] - 1) if sizes[r] > 1 else 0.5
            assert row[r] == pytest.approx(expected, abs=1e-6), (hole, board, r)
        tenths = row[4:]
        assert tenths.sum() == 1.0
        assert int(np.argmax(tenths)) == min(int(row[last] * 10), 9)
    assert seen == {0, 1, 2, 3}  # random play reaches every round in 150 games
    # a batch is the rows one at a time; a reader whose cache fills and starts again
    # gives the same columns as one that never did
    np.testing.assert_array_equal(cols(rows[:7]), np.vstack([cols(r[None]) for r in rows[:7]]))
    monkeypatch.setattr(features, "CACHE_ROWS", 16)
    small = HoldemStrengthColumns(game, "ehs2:169,7,5,6")
    for start in range(0, len(rows), 40):
        np.testing.assert_array_equal(small(rows[start : start + 40]), out[start : start + 40])
    assert small._filled <= 40
    assert cols(rows[:0]).shape == (0, 4 + STRENGTH_TENTHS)


def test_bad_input_is_refused_by_name(stand_in):
    game = nashzoo.make_game(HOLDEM)
    with pytest.raises(InvalidParameterError, match="poker engine, received LeducHoldemGame"):
        HoldemStrengthColumns(nashzoo.make_game("nashzoo/leduc_holdem-v0"))
    with pytest.raises(InvalidParameterError, match=r"heads-up games.*limit_holdem\(players=3\)"):
        HoldemStrengthColumns(nashzoo.make_game(HOLDEM, players=3))
    with pytest.raises(InvalidParameterError, match="'ehs' or 'ehs2' abstraction with four counts"):
        HoldemStrengthColumns(game, "iso")
    with pytest.raises(InvalidParameterError, match="An abstraction is text such as"):
        HoldemStrengthColumns(game, 169)  # type: ignore[arg-type]
    cols = HoldemStrengthColumns(game, "ehs2:169,7,5,6")
    rows, _, _ = _views(game, 3, seed=1)
    with pytest.raises(InvalidParameterError, match=r"rows of 279 entries .* shape \(4, 278\)"):
        cols(rows[:4, :-1])
    broken = rows[:2].copy()
    broken[1, 2:54] = 0  # no hole cards
    with pytest.raises(InvalidParameterError, match="Row 1 is not a Hold'em view"):
        cols(broken)


def test_strengths_order_hands_as_their_equities_do():
    # the sweep without the flop's and turn's classes (shared with the abstraction tests
    # and the demo): preflop percentiles from the 169 classes' E[HS^2], river from HS
    game = nashzoo.make_game(HOLDEM)
    cols = HoldemStrengthColumns(game, "ehs2:169,1,1,8", progress=False)

    def card(text: str) -> int:
        return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])

    def row(hole, board=()):
        x = np.zeros(game.information_state_tensor_size, np.float32)
        x[0] = 1.0
        for c in hole:
            x[2 + card(c)] = 1.0
        for k, c in enumerate(board):
            r = 0 if k < 3 else k - 2
            x[game.board_offset[r + 1] + card(c)] = 1.0
        return x

    hands = [("Ah", "As"), ("Kc", "Kd"), ("As", "Ks"), ("Ad", "Kc"), ("7h", "2c")]
    pre = cols(np.array([row(h) for h in hands]))[:, 0]
    # PokerStove's equities against a random hand: AA 85.2% > KK 82.4% > AKs 67.0% >
    # AKo 65.4% > 72o 34.6%; AA is the top class of the 169
    assert list(pre) == sorted(pre, reverse=True) and pre[0] == 1.0 and pre[-1] < 0.2
    # on the river a royal flush beats every other hand (HS 1: the top bucket) and the
    # board playing for both (a straight on board, no card of ours improving it) is mid
    river = cols(
        np.array(
            [
                row(("As", "Ks"), ("Qs", "Js", "Ts", "2h", "3d")),
                row(("2c", "3c"), ("4h", "5d", "6s", "7c", "8h")),
            ]
        )
    )
    assert river[0, 3] == 1.0 and river[0, 4 + STRENGTH_TENTHS - 1] == 1.0
    assert 0.0 < river[1, 3] < 1.0
