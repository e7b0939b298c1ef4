import json
import subprocess
import sys

import numpy as np
import pytest

from nashzoo.cli import main
from nashzoo.tree import TabularPolicy
from tests.conftest import run_cli, untraced_env


def test_solve_writes_policy_plot_and_table(tmp_path, capsys):
    out = tmp_path / "kuhn.npz"
    plot = tmp_path / "curve.png"
    code = main(
        [
            "solve",
            "kuhn_poker",
            "--algo",
            "cfr+",
            "--algo",
            "cfr",
            "--iterations",
            "300",
            "--out",
            str(out),
            "--plot",
            str(plot),
            "--quiet",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "58 histories, 12 information sets" in text
    assert "iterations    seconds   exploitability   mbb/game" in text
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    policy = TabularPolicy.load(tmp_path / "kuhn-cfrplus.npz")
    assert policy.metadata["algorithm"] == "cfr+" and policy.metadata["iterations"] == 300
    assert main(["exploitability", str(tmp_path / "kuhn-cfrplus.npz")]) == 0
    report = capsys.readouterr().out
    value = float(report.split("exploitability")[1].split()[0])
    assert 0 <= value < 1e-3


def test_solve_with_game_parameters(tmp_path, capsys):
    out = tmp_path / "eight.json"
    assert (
        main(
            [
                "solve",
                "kuhn_poker",
                "--param",
                "deck_size=8",
                "--algo",
                "dcfr",
                "--iterations",
                "500",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    policy = TabularPolicy.load(out)
    assert policy.game.deck_size == 8 and np.isfinite(policy.probs).all()


def test_cli_errors_are_clear(tmp_path, capsys):
    assert main(["solve", "kuhn_pokr", "--iterations", "5", "--quiet"]) == 2
    assert "Did you mean 'nashzoo/kuhn_poker-v0'" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["exploitability", str(bad)]) == 2
    assert "not a readable nashzoo policy file" in capsys.readouterr().err


def test_solve_with_nash_memory(tmp_path, capsys):
    out = tmp_path / "pnm.npz"
    assert (
        main(
            [
                "solve",
                "kuhn_poker",
                "--param",
                "deck_size=8",
                "--algo",
                "nash-memory",
                "--iterations",
                "50",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "nash-memory" in text
    policy = TabularPolicy.load(out)
    assert policy.metadata["algorithm"] == "nash-memory"
    assert policy.metadata["iterations"] <= 15  # stopped once the equilibrium was certified


def test_progress_bars_write_no_carriage_returns_into_logs(tmp_path):
    # Issue 10: a 3-minute `nashzoo train` wrote about 1,700 tqdm updates into a log file.
    text = run_cli(
        ["solve", "leduc_holdem", "--algo", "cfr+", "--iterations", "300"],
        tmp_path,
        log=tmp_path / "solve.log",
    )  # not a terminal, as under nohup
    assert "\r" not in text and "cfr+" in text and "exploitability" in text


def test_the_agents_command_lists_every_family(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    for usage in (
        "random",
        "cfr+:ITERATIONS",
        "es-mccfr:ITERATIONS",
        "path/to/file.npz|.json",
        "path/to/file.zip",
        "package.module:factory",
    ):
        assert usage in out
    assert "FILES RUN CODE" in out  # SB3 pickles are flagged
    # every kind of .pt file that loads is named (issue 30: simplex-gradient was missing)
    pt_line = next(line for line in out.splitlines() if line.startswith("path/to/file.pt"))
    kinds = ("NFSP", "Deep CFR", "ESCHER", "simplex-gradient", "Nash-ISMCTS")
    assert all(kind in pt_line for kind in kinds), pt_line


def test_train_nfsp_refuses_zero_batch_games(capsys):
    # issue 30: --batch-games 0 silently became 128; it goes to NFSPConfig's check now
    assert main(["train", "nfsp", "kuhn_poker", "--batch-games", "0", "--quiet"]) == 2
    assert "batch_games" in capsys.readouterr().err


def test_train_loads_only_the_chosen_learners_options():
    """`nashzoo train cfr` built every learner's parser, importing torch for the neural
    ones (2.2 s of a 6 s command); now it loads cfr's options alone. Checked in a fresh
    interpreter, where nothing has imported torch yet."""
    code = (
        "import sys\n"
        "from nashzoo.cli import build_parser\n"
        "parser = build_parser(learners='cfr')\n"
        "args = parser.parse_args(['train', 'cfr', 'kuhn_poker', '--algorithm', 'dcfr'])\n"
        "assert args.algorithm == 'dcfr' and args.func.__name__ == 'run', args\n"
        "nfsp = parser.parse_args(['train', 'nfsp', 'kuhn_poker'])\n"
        "assert nfsp.func.__name__ == 'report', nfsp  # not loaded: refuses, never runs\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=untraced_env()
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    # with every learner's options (the docs' page), nfsp's config options are there
    from nashzoo.cli import build_parser

    args = build_parser().parse_args(["train", "nfsp", "kuhn_poker", "--batch-games", "4"])
    assert args.batch_games == 4 and args.func.__name__ == "run"


def test_a_config_option_given_none_is_none_not_its_default():
    """``--admission-margin none`` (the PSRO loop) must reach the config as None. The
    parser once gave every config option a None default and then dropped the Nones, so
    "none" silently left the field at its default (0.0: the thesis' admission)."""
    from nashzoo.cli import build_parser
    from nashzoo.cli.train import given_config

    argv = ["train", "nash-memory", "kuhn_poker", "--admission-margin", "none"]
    args = build_parser(learners="nash-memory").parse_args([*argv, "--memory-cap", "3"])
    assert given_config(args) == {"admission_margin": None, "memory_cap": 3}
    args = build_parser(learners="nash-memory").parse_args(argv[:3])
    assert given_config(args) == {}  # nothing given: every field keeps its default


def test_subcommand_parsers_are_the_commands_of_the_help():
    """The docs' command-line page prints these; each is the parser `nashzoo NAME` uses."""
    from nashzoo.cli import build_parser, subcommand_parsers

    parsers = subcommand_parsers()
    listed = build_parser().format_usage().split("{", 1)[1].split("}", 1)[0].split(",")
    assert list(parsers) == listed and "tournament" in parsers
    assert "--deals" in parsers["tournament"].format_help()


def test_a_tournament_refuses_a_three_player_game_and_names_the_table(capsys, tmp_path):
    # issue 38: a 3-player game crashed inside the pairwise referee (IndexError)
    code = main(
        ["tournament", "--game", "kuhn_poker", "--param", "players=3", "--agent", "a=random",
         "--agent", "b=random", "--deals", "2", "--quiet", "--store", str(tmp_path / "t.db")]
    )  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "has 3 players" in err and "nashzoo table" in err


def _table_args(out, deals):
    return ["table", "--game", "kuhn_poker", "--param", "players=3", "--agent", "cfr=cfr+:300",
            "--agent", "r1=random", "--agent", "r2=random", "--deals", str(deals), "--quiet",
            "--out", str(out)]  # fmt: skip


def _journal_scores(out):
    lines = out.read_text().splitlines()
    return json.loads(lines[0]), np.array([json.loads(line)["scores"] for line in lines[1:]])


def test_table_seats_cfr_plus_against_two_random_agents(capsys, tmp_path):
    """Three-player Kuhn, every agent in every seat (6 seatings per deal): CFR+ after 300
    iterations wins against two uniform random agents with an interval above 0, and the
    per-deal scores are journaled."""
    out = tmp_path / "table.jsonl"
    assert main(_table_args(out, 300)) == 0
    printed = capsys.readouterr().out
    assert "6 seatings (all permutations)" in printed
    header, scores = _journal_scores(out)
    assert header["deals"] == 300 and scores.shape == (300, 3)
    np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-12)  # zero-sum per deal
    mean = scores.mean(axis=0)
    half = 1.96 * scores.std(axis=0, ddof=1) / np.sqrt(300)
    assert mean[0] - half[0] > 0.0, (mean, half)  # CFR+ beats the random seats
    cfr_line = next(line for line in printed.splitlines() if line.strip().startswith("cfr "))
    assert f"{mean[0] * 1000:+.2f}" in cfr_line  # mbb/game: Kuhn's ante is the big blind


def test_an_interrupted_table_resumes_to_the_same_deals(tmp_path):
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert main(_table_args(whole, 40)) == 0
    lines = whole.read_text().splitlines()
    cut.write_text("\n".join(lines[:16]) + "\n")  # the header and 15 deals survived a kill
    assert main(_table_args(cut, 40)) == 0
    assert cut.read_text() == whole.read_text()


def test_more_agents_than_seats_play_every_combination(capsys, tmp_path):
    out = tmp_path / "roster.jsonl"
    args = _table_args(out, 30)
    args[args.index("--deals") : args.index("--deals")] = ["--agent", "r3=random"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "4 agents, 4 table(s)" in printed
    lines = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert [(row["table"], row["deal"]) for row in lines] == [
        (k, d) for k in range(4) for d in range(30)
    ]


def test_a_journal_of_another_table_is_refused(capsys, tmp_path):
    out = tmp_path / "t.jsonl"
    assert main(_table_args(out, 5)) == 0
    assert main(_table_args(out, 6)) == 2  # another deal count: another table
    assert "records another table" in capsys.readouterr().err
    out.write_text("not json\n")
    assert main(_table_args(out, 5)) == 2
    assert "not a table journal" in capsys.readouterr().err


def test_the_envs_command_lists_every_registered_env_with_its_parameters(capsys):
    import nashzoo

    assert main(["envs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(line.split()[0] for line in lines) == sorted(nashzoo.registry)
    for line in lines:  # each env's API: AEC, and the parallel one where it has one
        parallel = nashzoo.registry[line.split()[0]].parallel
        assert ("AEC + parallel" in line) == bool(parallel), line
    kuhn = next(line for line in lines if line.startswith("nashzoo/kuhn_poker-v0"))
    assert "deck_size" in kuhn  # the README's `--param deck_size=8`


@pytest.mark.filterwarnings("error:rich is experimental")
def test_exploitability_by_a_learned_best_response_prints_a_lower_bound(capsys):
    # Kuhn's uniform policy is 0.458 exploitable (exact); a learned best response is a
    # lower bound: its interval starts below that (2,048 steps measured 0.038, 95%
    # interval -0.035 .. +0.110)
    import re

    argv = ["exploitability", "random", "--game", "kuhn_poker", "--method", "learned-br"]
    assert main([*argv, "--steps", "2048", "--hands", "400"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"lower bound +learned-br \(maskable-ppo, 2,048 steps\): (\S+) chips/game "
                      r"\[(\S+), (\S+)\]", out)  # fmt: skip
    assert found is not None, out
    mean, low, high = (float(v) for v in found.groups())
    assert low < mean < high and low < 0.458
    assert "random in kuhn_poker" in out and "training," in out
    assert "\u2501" not in out  # SB3's rich bar draws on a terminal only, not into a log


def test_exploitability_of_a_big_game_that_is_not_poker_is_learned(capsys):
    """Issue 87: LBR values poker bets, so on a game too large to compile that is not
    poker (the fighting game's default preset) the default method is the learned best
    response, said so; on Limit Hold'em it stays LBR."""
    pytest.importorskip("sb3_contrib")
    argv = ["exploitability", "random", "--game", "fighting_cards", "--steps", "256"]
    assert main([*argv, "--hands", "20"]) == 0
    out = capsys.readouterr().out
    assert "is too large for an exact best response and is not poker: a best response " in out
    # --steps 256 asks for at least 256: MaskablePPO learns from whole rollouts of 16
    # environments x 128 steps, and the bound names the 2,048 steps it took
    assert "lower bound     learned-br (maskable-ppo, 2,048 steps)" in out


@pytest.mark.parametrize(
    "member",
    ["raises", "garbage", "sys_exit", "interrupter", "reset_raiser", "memory_hog", "sleeper"],
)  # (mask_unlocker's raise is legal in Kuhn: every action always is)
def test_table_turns_a_hostile_agents_fault_into_a_forfeit(member, tmp_path, capsys):
    """Issue 85, item 6: a crashing or illegal agent ended `nashzoo table` in a raw
    traceback and lost the whole table (7 of 8 hostile agents), and a hanging one hung
    it. Now a fault forfeits the offender's table: the other tables are played, every
    deal is in the journal, and the forfeit is reported."""
    import json

    from nashzoo.cli import main

    out = tmp_path / "table.jsonl"
    argv = [
        "table", "--game", "kuhn_poker", "--param", "players=3", "--deals", "20",
        "--agent", "r1=random", "--agent", "r2=random", "--agent", "r3=random",
        "--agent", f"bad=tests.fixture_agents:hostile_{member}",
        "--move-time-limit", "0.5", "--setup-time-limit", "30", "--out", str(out), "--quiet",
    ]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Forfeits" in printed and "bad at deal 0:" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert len(rows) == 4 * 20  # four tables (every 3 of 4 agents), all 20 deals each
    # the three tables with the hostile agent: it loses 4 chips (three-player Kuhn's
    # largest payoff) a deal, the others share them; the random agents' table was played
    lost = [r for r in rows if r["scores"] == [2.0, 2.0, -4.0] or -4.0 in r["scores"]]
    assert len(lost) == 3 * 20
    assert printed.count("bad at deal 0:") == 3


@pytest.mark.parametrize("member", ["hard_exit", "sleeper", "raises"])
def test_table_in_supervised_workers_survives_an_agent_that_kills_its_process(
    member, tmp_path, capsys
):
    """Issue 85, item 6: with --workers the tables run in the tournament's supervised
    pool, so an agent that ends its process (os._exit) or hangs past the hard deadline
    forfeits its table and the others are played; every deal is in the journal."""
    import json

    from nashzoo.cli import main

    out = tmp_path / "table.jsonl"
    argv = [
        "table", "--game", "kuhn_poker", "--param", "players=3", "--deals", "12",
        "--agent", "r1=random", "--agent", "r2=random", "--agent", "r3=random",
        "--agent", f"bad=tests.fixture_agents:hostile_{member}", "--workers", "2",
        "--move-time-limit", "0.5", "--setup-time-limit", "60", "--out", str(out), "--quiet",
    ]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.count("bad at deal 0:") == 3, printed
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert sorted((r["table"], r["deal"]) for r in rows) == [
        (k, d) for k in range(4) for d in range(12)
    ]
    assert sum(r["scores"] in ([2.0, 2.0, -4.0], [2.0, -4.0, 2.0], [-4.0, 2.0, 2.0])
               for r in rows) == 3 * 12  # fmt: skip
    # the same command resumes from the journal: nothing is played again
    assert main(argv) == 0
    assert "resuming: 48 deals already" in capsys.readouterr().out
