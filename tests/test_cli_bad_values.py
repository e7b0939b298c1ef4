"""Every ``nashzoo`` command's numeric options refuse bad values (issue 85 items 8-10):
negative, zero where a count must be positive, NaN, infinite, huge and wrong-typed values
each end in a one-line error naming what was expected and what was received, with exit
status 2, before anything runs; and ``serve`` refuses bad gauntlet items the same way."""

from __future__ import annotations

import pytest

from nashzoo.cli import main

COUNT = ("-1", "0", "99999999999999999999999", "nan", "abc", "1.5")
"""Bad values of a count that must be at least 1."""
COUNT0 = ("-1", "99999999999999999999999", "nan", "abc")
"""Bad values of a count that may be 0."""
SEED = ("-1", "99999999999999999999999", "abc")
POSITIVE = ("-1", "0", "nan", "inf", "1e400", "abc")
"""Bad values of a number that must be above 0."""
NONNEGATIVE = ("-1", "nan", "inf", "abc")

TWO = ["--agent", "a=random", "--agent", "b=random"]
COMMANDS = {
    "solve": (["solve", "kuhn_poker"], {
        "--iterations": COUNT, "--points": COUNT, "--seed": SEED,
        "--measure-deals": COUNT0, "--minutes": POSITIVE, "--max-memory": POSITIVE,
        "--target": NONNEGATIVE, "--measure-every": POSITIVE,
    }),
    "values": (["values", "limit_holdem", "--blueprint", "random", "--out", "v.pt"], {
        "--threads": COUNT,
    }),
    "table": (["table", "--game", "kuhn_poker", *TWO], {"--deals": COUNT, "--seed": SEED}),
    "tournament": (["tournament", "--game", "kuhn_poker", *TWO], {
        "--deals": COUNT, "--block-size": COUNT, "--workers": COUNT0, "--seed": SEED,
        "--move-time-limit": POSITIVE, "--setup-time-limit": POSITIVE,
        "--memory-limit": COUNT, "--bootstrap": COUNT0,
    }),
    "exploitability": (["exploitability", "random", "--game", "kuhn_poker"], {
        "--hands": COUNT, "--steps": COUNT, "--rollouts": COUNT, "--seed": SEED,
    }),
    "play": (["play", "kuhn_poker"], {"--hands": COUNT, "--seed": SEED}),
    "train": (["train", "nfsp", "kuhn_poker"], {
        "--minutes": POSITIVE, "--steps": COUNT, "--eval-every": POSITIVE,
        "--threads": COUNT, "--checkpoint-every": NONNEGATIVE, "--measure-every": POSITIVE,
        "--measure-deals": COUNT0,
    }),
    "serve": (["serve"], {
        "--port": (*COUNT, "99999", "65536"), "--workers": COUNT0, "--seed": SEED,
        "--deals-per-block": COUNT, "--blocks-per-pairing": COUNT,
        "--validation-deals": COUNT, "--lbr-hands": ("-2", "3", "nan", "abc"),
    }),
    "add-user": (["leaderboard", "add-user", "ann"], {
        "--max-submissions": COUNT0, "--max-upload-bytes": COUNT,
    }),
    "set-limits": (["leaderboard", "set-limits", "ann"], {
        "--max-submissions": COUNT0, "--max-upload-bytes": COUNT,
    }),
}  # fmt: skip
CASES = [
    pytest.param(argv, option, value, id=f"{name}{option}={value}")
    for name, (argv, options) in COMMANDS.items()
    for option, values in options.items()
    for value in values
]


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    last = captured.err.strip().splitlines()[-1]
    assert "error:" in last
    return last


@pytest.mark.parametrize(("argv", "option", "value"), CASES)
def test_bad_numeric_options_end_in_one_line_and_status_2(argv, option, value, capsys, tmp_path):
    last = _refused([*argv, f"{option}={value}"], capsys)
    assert option in last and repr(value) in last and "expected" in last


def test_leaderboard_remove_refuses_a_bad_submission_id(capsys):
    for value in ("-1", "0", "abc", "99999999999999999999999"):
        last = _refused(["leaderboard", "remove", value], capsys)
        assert repr(value) in last


@pytest.mark.parametrize(
    ("games", "item", "expected"),
    [
        ("kuhn_poker", "x=nosuch", "Unknown agent spec 'nosuch'"),
        ("kuhn_poker", "x=missing.npz", "no such file"),
        ("kuhn_poker", "x=no_such_module:make", "cannot import"),
        ("kuhn_poker", "random", "expects NAME=SPEC"),
        ("kuhn_poker", "=random", "expects NAME=SPEC"),
        ("kuhn_poker", "leduc_holdem:r=random", "no board here"),
        # a game's parameters hold '=': the item is split after the game, not inside it
        ("kuhn_poker(players=4)", "kuhn_poker(players=3):r2=random", "no board here"),
    ],
)
def test_serve_refuses_bad_gauntlet_items(games, item, expected, capsys, tmp_path):
    argv = ["serve", "--games", games, "--gauntlet", item, "--workers", "0"]
    argv += ["--db", str(tmp_path / "lb.db"), "--data", str(tmp_path / "data")]
    last = _refused(argv, capsys)
    assert expected in last
    assert not (tmp_path / "lb.db").exists()  # refused before the board was opened


def test_a_gauntlet_item_of_a_game_with_parameters_is_split_after_the_game():
    """Issue 85, item 5: ``kuhn_poker(players=3):r2=random`` was split at the first '=',
    making a bogus agent in every game's gauntlet."""
    import argparse

    from nashzoo.cli.leaderboard import _settings

    args = argparse.Namespace(
        db="lb.db", data="data", games="kuhn_poker(players=3),leduc_holdem", seed=None,
        gauntlet=["kuhn_poker(players=3):r2=random", "leduc_holdem:c=cfr+:10", "r=random"],
    )  # fmt: skip
    settings = _settings(args)
    assert settings.gauntlet == {"r": "random"}
    assert settings.game_gauntlet == {
        "kuhn_poker(players=3)": {"r2": "random"},
        "leduc_holdem": {"c": "cfr+:10"},
    }


def test_serve_sets_the_board_options_a_class_needs_for_a_quick_board():
    """Issue 86, item 10: serve had no flags for deals per block, blocks per pairing,
    validation deals and LBR hands; its help states the server's own defaults."""
    import argparse

    from nashzoo.cli.leaderboard import BOARD_DEFAULTS, _settings
    from nashzoo.leaderboard.board import Settings

    defaults = Settings()
    assert {k: getattr(defaults, k) for k in BOARD_DEFAULTS} == BOARD_DEFAULTS
    args = argparse.Namespace(
        db="lb.db", data="data", games=None, gauntlet=None, seed=None, deals_per_block=20,
        blocks_per_pairing=1, validation_deals=10, lbr_hands=0,
    )  # fmt: skip
    settings = _settings(args)
    assert (settings.deals_per_block, settings.blocks_per_pairing) == (20, 1)
    assert (settings.validation_deals, settings.lbr_hands) == (10, 0)
