"""A learner's measured curve where exact exploitability is unavailable (issue 33): the
duplicate scores against fixed baselines with their intervals, LBR, the file that keeps
them, and `nashzoo train` measuring and plotting them on Limit Hold'em."""

from __future__ import annotations

import json

import numpy as np
import pytest

import nashzoo
from nashzoo.agents.random_agent import RandomAgent
from nashzoo.agents.scripted import FightingHeuristicAgent, PokerRulesAgent, baselines
from nashzoo.cli import main
from nashzoo.errors import InvalidParameterError
from nashzoo.eval.curves import measure_point, read_points, variance_reduction_for, write_points
from nashzoo.games import KuhnPokerGame
from tests.conftest import coverage_paused

HOLDEM = nashzoo.make_game("limit_holdem")


def test_the_baselines_are_random_and_the_games_rule_based_agent():
    assert list(baselines(HOLDEM)) == ["random", "poker-rules"]
    assert isinstance(baselines(HOLDEM)["poker-rules"], PokerRulesAgent)
    fighting = nashzoo.make_game("fighting_cards")
    assert isinstance(baselines(fighting)["heuristic"], FightingHeuristicAgent)
    assert list(baselines(KuhnPokerGame())) == ["random"]
    assert variance_reduction_for(HOLDEM) == "aivat"
    assert variance_reduction_for(fighting) == "crn"  # no default value function: too large
    assert variance_reduction_for(nashzoo.make_game("fighting_cards_small")) == "aivat"


def test_a_measured_point_scores_an_agent_against_each_baseline(tmp_path):
    # the rule-based agent against the baselines: it beats random (measured +3.8 chips
    # a game, 95% interval +1.4 .. +6.2 over 200 deals) and ties itself exactly (the
    # same deterministic agent in both seats of every deal)
    # Untraced (47 s traced, 21 s plain): the CLI test below runs measure_point's lines,
    # duplicate deals and LBR, traced
    agent = PokerRulesAgent(HOLDEM)
    with coverage_paused():
        point = measure_point(HOLDEM, agent, baselines(HOLDEM), deals=200, seed=0, step=3)
    mean, lo, hi = point.duplicate["random"]
    assert lo > 0 and lo <= mean <= hi
    assert point.duplicate["poker-rules"] == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    assert point.method == "aivat" and point.step == 3 and point.lbr is None
    # LBR against uniform random play wins a lot (a lower bound on its exploitability;
    # measured 21.5 chips a hand, 8.1 .. 34.9 over 40 hands)
    with coverage_paused():
        with_lbr = measure_point(HOLDEM, RandomAgent(seed=0), {}, lbr_hands=40, seed=0)
    assert with_lbr.lbr is not None and with_lbr.lbr[1] > 0, with_lbr.lbr
    path = write_points([point, with_lbr], tmp_path / "curve.json")
    assert read_points(path) == [point, with_lbr]
    assert "vs random +" in point.text() and "LBR" in with_lbr.text()


def test_bad_measurements_are_refused(tmp_path):
    with pytest.raises(InvalidParameterError, match="a baseline or lbr_hands"):
        measure_point(HOLDEM, RandomAgent(), {})
    with pytest.raises(InvalidParameterError, match="deals"):
        measure_point(HOLDEM, RandomAgent(), baselines(HOLDEM), deals=0)
    bad = tmp_path / "bad.json"
    bad.write_text('[{"step": 1}]')
    with pytest.raises(InvalidParameterError, match="not a file of measured points"):
        read_points(bad)


def test_nashzoo_train_measures_and_plots_where_the_game_does_not_compile(tmp_path, capsys):
    pytest.importorskip("torch")
    out, plot = tmp_path / "hulh.pt", tmp_path / "hulh.png"
    code = main(
        [
            "train",
            "nash-ismcts",
            "limit_holdem",
            "--steps",
            "2",
            "--quiet",
            "--games-per-generation",
            "2",
            "--simulations",
            "10",
            "--eval-simulations",
            "10",
            "--belief-games",
            "4",
            "--steps-per-generation",
            "2",
            "--batch-size",
            "8",
            "--hidden-sizes",
            "16",
            "--measure-deals",
            "5",
            "--lbr-hands",
            "4",
            "--out",
            str(out),
            "--plot",
            str(plot),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0, text
    assert "does not compile" in text and "vs poker-rules" in text and "LBR" in text
    points = json.loads((tmp_path / "hulh.pt.curve.json").read_text())
    assert (
        points
        and points[-1]["step"] == 2
        and set(points[-1]["duplicate"])
        == {
            "random",
            "poker-rules",
        }
    )
    assert np.isfinite(points[-1]["lbr"][0])
    assert plot.stat().st_size > 10_000 and out.is_file()


def test_several_learners_curves_share_one_panel_per_baseline(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    from nashzoo.eval.curves import MeasuredPoint
    from nashzoo.eval.plots import plot_learner_curves

    def point(minutes: float, score: float) -> MeasuredPoint:
        duplicate = {
            "random": (score, score - 1, score + 1),
            "poker-rules": (-score, -score - 2, 0.0),
        }
        return MeasuredPoint(step=int(minutes), seconds=60 * minutes, step_unit="episodes",
                             duplicate=duplicate, deals=100)  # fmt: skip

    curves = {"nfsp": [point(1, 3.0), point(2, 5.0)], "cfr": [point(2, 1.0)], "idle": []}
    path = plot_learner_curves(curves, tmp_path / "curves.png", title="two learners")
    image = imread(path)
    assert image.shape[1] > 1.8 * image.shape[0]  # two panels side by side, one per baseline
    with pytest.raises(InvalidParameterError, match="received 1 curves with 0 points"):
        plot_learner_curves({"idle": []}, tmp_path / "none.png")


def test_the_plots_name_the_games_payoff_unit(tmp_path, monkeypatch):
    # the fighting game pays +1 for a win and -1 for a loss, not chips: its curves said
    # "chips per game" before the games named their payoff unit
    pytest.importorskip("matplotlib")
    from nashzoo.eval import plots
    from nashzoo.eval.curves import MeasuredPoint

    fighting = nashzoo.make_game("fighting_cards")
    assert (fighting.payoff_unit, HOLDEM.payoff_unit, KuhnPokerGame().payoff_unit) == (
        "points",
        "chips",
        "chips",
    )
    labels: list[str] = []
    save = plots._save

    def keep_labels(plt, fig, path, **kwargs):
        labels.extend(ax.get_ylabel() for ax in fig.axes)
        return save(plt, fig, path, **kwargs)

    monkeypatch.setattr(plots, "_save", keep_labels)
    point = MeasuredPoint(
        step=1,
        seconds=60.0,
        step_unit="generations",
        duplicate={"heuristic": (0.1, -0.1, 0.3)},
        deals=100,
        method="crn",
    )
    plots.plot_learner_curves({"a": [point]}, tmp_path / "c.png", unit=fighting.payoff_unit)
    plots.plot_measured([point], tmp_path / "m.png", unit=fighting.payoff_unit)
    assert labels[0] == "duplicate score, points per game (crn, 95%)"
    assert labels[1] == labels[0] and "chips" not in " ".join(labels)
