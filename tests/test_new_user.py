"""What a new user trips on (issue 86): ids that resolve in a fresh interpreter, errors
that say what was expected, and the names a user looks for."""

from __future__ import annotations

import pytest

import nashzoo
from nashzoo.errors import InvalidParameterError


@pytest.mark.parametrize("players", [1, 7, 10])
def test_limit_holdem_states_the_players_it_takes(players):
    """Issue 86, item 3: players=7 said "must be 3 to 6", yet 2 is accepted."""
    with pytest.raises(InvalidParameterError, match=f"must be 2 to 6, received {players}"):
        nashzoo.make("nashzoo/limit_holdem-v0", players=players)


def test_the_local_best_response_is_exported_beside_exploitability():
    import nashzoo.eval
    from nashzoo.eval.lbr import local_best_response

    assert nashzoo.eval.local_best_response is local_best_response
    assert "local_best_response" in nashzoo.eval.__all__


def test_the_leaderboard_commands_start_quietly(tmp_path):
    """Issue 86, item 10: `serve`, `leaderboard add-user` and `queue` printed seven
    `setup plugin alembic...` lines (alembic sets up its plugins on import, before the
    logger was quietened)."""
    import subprocess
    import sys

    pytest.importorskip("alembic")
    base = ["--db", str(tmp_path / "lb.db"), "--data", str(tmp_path / "data")]
    for argv in (["leaderboard", "add-user", "ann", *base], ["leaderboard", "queue", *base]):
        done = subprocess.run(
            [sys.executable, "-m", "nashzoo", *argv], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert "alembic" not in done.stdout + done.stderr
        assert "setup plugin" not in done.stdout + done.stderr


def test_two_agents_of_one_name_print_apart():
    """Issue 86, item 7: play_table printed two agents both named `random` as two
    identical lines; `nashzoo table` took two `--agent random=...`."""
    from nashzoo.eval import play_table

    game = nashzoo.games.KuhnPokerGame(players=3)
    agents = [nashzoo.RandomAgent(seed=k) for k in range(3)]
    result = play_table(game, agents, deals=5, bootstrap=0)
    assert result.names == ("random", "random#2", "random#3")


def test_the_cli_refuses_an_agent_name_given_twice(capsys):
    from nashzoo.cli import main

    argv = ["table", "--game", "kuhn_poker", "--param", "players=3", "--agent", "r=random",
            "--agent", "r=random", "--agent", "s=random", "--deals", "2"]  # fmt: skip
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["nashzoo: error: --agent names must be unique: 'r' is given twice "
                   "(r=random, r=random, s=random)"]  # fmt: skip


@pytest.mark.parametrize(
    ("env_id", "typed", "owed", "expected"),
    [
        ("nashzoo/leduc_holdem-v0", ["check"], False, (1, "Check")),
        ("nashzoo/leduc_holdem-v0", ["call"], False, (1, "Check")),
        ("nashzoo/leduc_holdem-v0", ["raise"], False, (2, "Bet")),
        ("nashzoo/leduc_holdem-v0", ["bet"], False, (2, "Bet")),
        ("nashzoo/leduc_holdem-v0", ["check", "call"], True, (1, "Call")),
        ("nashzoo/leduc_holdem-v0", ["raise"], True, (2, "Raise")),
        ("nashzoo/no_limit_holdem-v0", ["call"], True, (1, "Call")),
        ("nashzoo/no_limit_holdem-v0", ["bet half"], False, (2, "Bet Half Pot (to 200)")),
        ("nashzoo/no_limit_holdem-v0", ["bet", "raise half"], True, (2, "Raise Half Pot (to 200)")),
        ("nashzoo/limit_holdem-v0", ["call"], True, (1, "Call")),
    ],
)
def test_play_names_actions_as_the_spot_does_and_takes_every_word(env_id, typed, owed, expected):
    """Issue 86, item 6: with nothing to call the menu showed `[1] Call [2] Raise` while the
    log said `you: Check`, and `check` was refused; in no-limit `call` was refused (its
    name was Check/Call). The menu now names the actions as the state does, and a word
    that names nothing legal here (check facing a bet) is refused and asked again."""
    import io

    from nashzoo.agents.human import HumanAgent, action_labels

    env = nashzoo.make(env_id)
    env.reset(seed=0)
    leduc = env_id == "nashzoo/leduc_holdem-v0"
    if leduc and owed:  # Leduc's first player bets
        env.step(2)
    if not owed and not leduc:  # Hold'em: the flop, after a call and a check preflop
        env.step(1)
        env.step(1)
    obs, _, _, _, info = env.last()
    # what the referee (`nashzoo play`) hands an agent: the env's info and the string
    info = {**info, "info_state": env.unwrapped.information_state_string(env.agent_selection)}
    game = env.unwrapped.game
    out = io.StringIO()
    answers = iter(typed)

    def read(prompt: str) -> str:
        out.write(prompt)
        return next(answers)

    action = HumanAgent(game, read=read, out=out).act(obs, info)
    assert (action, action_labels(game, info, [action])[action]) == expected
    shown = out.getvalue()
    assert f"[{action}] {expected[1]}" in shown  # the menu names it as the log does
    if len(typed) > 1:
        assert "names no legal action" in shown  # the first word was refused


@pytest.mark.parametrize(
    ("env_id", "params", "text"),
    [
        ("leduc_holdem", {}, "leduc_holdem"),
        ("leduc_holdem", {"players": 3}, "leduc_holdem(players=3)"),
        ("kuhn_poker", {"deck_size": 8}, "kuhn_poker(deck_size=8)"),
        ("limit_holdem", {}, "limit_holdem"),
        ("limit_holdem", {"players": 3}, "limit_holdem(players=3)"),
        ("no_limit_holdem", {"players": 6}, "no_limit_holdem(players=6)"),
        ("fighting_cards_small", {}, "fighting_cards_small"),
        ("rps", {}, "rps"),
    ],
)
def test_a_game_prints_as_its_short_name(env_id, params, text):
    """Issue 86, item 3: headers and errors printed a game's repr (for a ring game its
    whole definition dict); they print the short name and its non-default parameters,
    the form `load_game` reads."""
    from nashzoo.envs.registration import load_game, make_game

    game = make_game(env_id, **params)
    assert str(game) == text
    assert load_game(text) == game


def test_exploitability_of_a_huge_game_points_to_sampling():
    """Issue 86, item 3: on Limit Hold'em (2*10^22 histories) the error advised "raise
    max_nodes" and printed the definition dict, without naming LBR."""
    from nashzoo.envs.registration import make_game
    from nashzoo.errors import GameTooLargeError
    from nashzoo.eval import exploitability

    for game in (make_game("limit_holdem"), make_game("limit_holdem", players=3)):
        with pytest.raises(GameTooLargeError) as info:
            exploitability(nashzoo.RandomAgent(), game)
        text = str(info.value)
        assert text.startswith(f"{game} has ") and "far too many to enumerate" in text
        assert "local_best_response" in text and "--method lbr" in text
        assert "raise max_nodes" not in text and "definition" not in text


def test_commands_check_every_agent_before_building_any(tmp_path, capsys):
    """Issue 86, item 3: `nashzoo table` with poker-rules on 3-player Leduc built
    cfr+:300 first (1 m 38 s) and then refused; an MT-ISMCTS at a 3-player table was
    refused as `ISMCTSSearch needs a two-player nashzoo Game, received PokerGame(...)`."""
    import time

    from nashzoo.cli import main

    cases = [
        (["table", "--game", "leduc_holdem", "--param", "players=3", "--agent", "c=cfr+:300",
          "--agent", "p=poker-rules", "--agent", "r=random"],
         "agent p=poker-rules: poker-rules cannot play leduc_holdem(players=3): it plays "
         "games of the poker engine"),
        (["table", "--game", "limit_holdem", "--param", "players=3", "--agent", "r=random",
          "--agent", "mt=mt-ismcts:30", "--agent", "s=random"],
         "agent mt=mt-ismcts:30: mt-ismcts:30 cannot play limit_holdem(players=3): it "
         "searches two-player games"),
        (["tournament", "--game", "limit_holdem", "--agent", "c=cfr+:10", "--agent",
          "r=random", "--store", str(tmp_path / "r.sqlite")],
         "agent c=cfr+:10: cfr+:10 cannot play limit_holdem: it solves the game tree"),
    ]  # fmt: skip
    for argv, expected in cases:
        start = time.perf_counter()
        assert main(argv) == 2
        assert time.perf_counter() - start < 10  # nothing was built
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"nashzoo: error: {expected}"), err


def test_exploitability_of_a_pt_file_needs_no_game(tmp_path, capsys):
    """Issue 86, item 3: `nashzoo exploitability nfsp.pt` answered "Policy files end in
    .npz or .json", though the file names its game."""
    pytest.importorskip("torch")
    from nashzoo.agents.nfsp import NFSP
    from nashzoo.cli import main
    from nashzoo.envs.registration import make_game

    path = tmp_path / "nfsp.pt"
    NFSP(make_game("kuhn_poker")).save(path)
    assert main(["exploitability", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path} in kuhn_poker: exact" in out
    assert "chips/game" in out


def test_a_run_logged_to_a_file_says_how_far_it_is(tmp_path):
    """Issue 86, item 4: a 6-minute tournament logged to a file printed nothing (tqdm's
    bar needs a terminal). Off a terminal, a line every NASHZOO_PROGRESS_SECONDS."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NASHZOO_PROGRESS_SECONDS": "0"}
    argv = ["tournament", "--game", "kuhn_poker", "--agent", "a=random", "--agent",
            "b=cfr+:20", "--deals", "600", "--block-size", "100", "--store",
            str(tmp_path / "t.sqlite")]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "nashzoo", *argv], capture_output=True, text=True, env=env,
        timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [x for x in done.stderr.splitlines() if x.startswith("[tournament ")]
    assert len(lines) >= 2 and "/6 blocks" in lines[0] and "elapsed" in lines[0]
    assert lines[-1].endswith("6/6 blocks (100%), " + lines[-1].split(", ")[1] + ", done")


def test_figures_carry_their_units(tmp_path, capsys):
    """Issue 86, item 5: head_to_head on Limit Hold'em said chips/game only, play_table
    chips/game where the command says mbb/game, the tournament's exploitability column
    had no unit, and the measured points of solve and train none."""
    from nashzoo.cli import main
    from nashzoo.envs.registration import make_game
    from nashzoo.eval import head_to_head, play_table
    from nashzoo.eval.curves import MeasuredPoint

    a, b = nashzoo.RandomAgent(seed=1), nashzoo.RandomAgent(seed=2)
    text = str(head_to_head(make_game("limit_holdem"), a, b, deals=10))
    assert "chips/game" in text and "mbb/game" in text
    ring = make_game("limit_holdem", players=3)
    table = play_table(ring, [nashzoo.RandomAgent(seed=k) for k in range(3)], deals=2)
    assert str(table).count("mbb/game") == 3
    kuhn = play_table(make_game("kuhn_poker", players=3), [a, b, nashzoo.RandomAgent()], deals=2)
    assert "mbb/game" in str(kuhn)  # Kuhn has a big blind of 1 chip: mbb as the CLI prints
    point = MeasuredPoint(1, 1.0, "steps", {"random": (1.0, 0.5, 1.5)}, 10, (2.0, 1.0, 3.0))
    assert point.text() == ("vs random +1.000 [+0.500, +1.500] chips/game  "
                            "LBR 2.000 [1.000, 3.000] chips/hand")  # fmt: skip
    argv = ["tournament", "--game", "kuhn_poker", "--agent", "a=random", "--agent",
            "b=cfr+:20", "--deals", "100", "--store", str(tmp_path / "r.sqlite"),
            "--quiet"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "exploitability: mbb/game a best response wins" in out


def test_agents_receive_read_only_arrays_and_torch_tensor_copies_them_quietly():
    """Issue 86, item 8: `torch.as_tensor(obs)` warns "not writable" in every first torch
    agent; the how-to documents `torch.tensor` (a copy). What the harness hands over is
    read-only (so no agent can write another's view), and the copy is quiet."""
    import warnings

    torch = pytest.importorskip("torch")
    from nashzoo.eval import play_table

    seen = []

    class Recorder(nashzoo.RandomAgent):
        def act(self, observation, info):
            seen.append(observation["observation"])
            return super().act(observation, info)

    game = nashzoo.games.KuhnPokerGame(players=3)
    play_table(game, [Recorder(seed=0), nashzoo.RandomAgent(), nashzoo.RandomAgent()], deals=2)
    array = seen[0]
    assert not array.flags.writeable
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.as_tensor(array)
    assert any("not writable" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.tensor(array).shape == array.shape


def test_the_cache_is_listed_sized_and_cleared(tmp_path, monkeypatch, capsys, caplog):
    """Issue 86, item 9: the abstraction cache grew to 582 MB unannounced, with no way
    to list or clear it."""
    import logging

    from nashzoo.cli import main
    from nashzoo.extras import cache_written

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tables = tmp_path / "nashzoo" / "abstraction"
    compiled = tmp_path / "nashzoo" / "numba"
    tables.mkdir(parents=True)
    compiled.mkdir(parents=True)
    (tables / "holdem-ehs2-v1.npz").write_bytes(b"\0" * 3_000_000)
    (tables / "holdem-ehs2-v1.npz.lock").write_bytes(b"")
    (compiled / "f.nbi").write_bytes(b"\0" * 1_000_000)
    with caplog.at_level(logging.INFO, logger="nashzoo.extras"):
        cache_written(tables / "holdem-ehs2-v1.npz", "Hold'em buckets")
    assert "Hold'em buckets cached" in caplog.text and "(3.0 MB; the cache 4.0 MB" in caplog.text
    assert main(["cache"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["3.0", "MB", "abstraction/holdem-ehs2-v1.npz"]
    assert out[-1].split()[:5] == ["4.0", "MB", "in", "2", "files"]
    assert main(["cache", "clear", "--part", "abstraction"]) == 0
    assert "removed 1 files, 3.0 MB" in capsys.readouterr().out
    assert not (tables / "holdem-ehs2-v1.npz").exists() and (compiled / "f.nbi").exists()
    assert main(["cache", "clear"]) == 0
    assert not (compiled / "f.nbi").exists()


def test_every_id_resolves_in_a_fresh_interpreter_through_the_documented_forms():
    """Issue 86, item 1: in a fresh interpreter `gymnasium.make("nashzoo/...")` raised
    NamespaceNotFound (since Gymnasium 1.0 no plugin hook registers third-party ids).
    The documented forms work for every id: Gymnasium's module prefix, and `import
    nashzoo` first for PettingZoo."""
    import subprocess
    import sys

    import gymnasium

    gym_ids = [k for k in gymnasium.registry if k.startswith("nashzoo/")]
    aec_ids = sorted(nashzoo.envs.registration.registry)
    assert len(gym_ids) >= 10 and len(aec_ids) >= 10
    script = f"""
import gymnasium, sys
assert "nashzoo" not in sys.modules
for env_id in {gym_ids!r}:
    env = gymnasium.make("nashzoo:" + env_id, opponent="random")
    env.reset(seed=0)
import nashzoo, pettingzoo
for env_id in {aec_ids!r}:  # PettingZoo 1.27 has a registry; earlier ones nashzoo.make
    env = (pettingzoo.make if hasattr(pettingzoo, "make") else nashzoo.make)(
        *(["aec"] if hasattr(pettingzoo, "make") else []), env_id
    )
    env.reset(seed=0)
print("ok", len({gym_ids!r}), len({aec_ids!r}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, cwd="/"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ok", str(len(gym_ids)), str(len(aec_ids))]


def test_a_training_run_logs_its_figures_for_plotting_tools(tmp_path, capsys):
    """Issue 86, item 11: SB3 users expect a training log (CSV or TensorBoard); `nashzoo
    train --log-dir` writes every measured figure as it comes, and TensorBoard events."""
    import csv

    pytest.importorskip("torch")
    from nashzoo.cli import main

    logs = tmp_path / "logs"
    argv = ["train", "nfsp", "kuhn_poker", "--steps", "4000", "--eval-every", "1e-9",
            "--log-dir", str(logs), "--quiet"]  # fmt: skip
    try:
        import tensorboard  # noqa: F401  (the tensorboard extra)
    except ImportError:
        board = []
    else:
        board = ["--tensorboard"]
    assert main([*argv, *board]) == 0
    rows = list(csv.DictReader((logs / "scalars.csv").open()))
    printed = [x for x in capsys.readouterr().out.splitlines() if "exploitability" in x]
    assert len(rows) == len(printed) >= 2
    assert {r["name"] for r in rows} == {"exploitability"}
    steps = [int(r["step"]) for r in rows]
    assert steps == sorted(steps) and steps[-1] >= 4000
    # the figures are the printed ones
    assert [f"{float(r['value']):.4f}" for r in rows] == [
        x.split("exploitability")[1].split()[0] for x in printed
    ]
    assert bool(list(logs.glob("events.out.tfevents.*"))) == bool(board)
    with pytest.raises(SystemExit):
        main(["train", "nfsp", "kuhn_poker", "--steps", "10", "--tensorboard"])
    assert "--tensorboard needs --log-dir" in capsys.readouterr().err
