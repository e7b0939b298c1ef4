import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from nashzoo.agents import AgentSpec
from nashzoo.cli import main
from nashzoo.errors import InvalidParameterError, StoreError
from nashzoo.eval.store import ResultStore
from nashzoo.eval.tournament import TournamentConfig, run_tournament
from tests.conftest import untraced_children, untraced_env

ROOT = Path(__file__).resolve().parents[2]


def specs(*pairs):
    return tuple((name, AgentSpec(spec)) for name, spec in pairs)


def config(**kw):
    base = dict(
        game="nashzoo/leduc_holdem-v0",
        agents=specs(
            ("cfr", "cfr+:300"), ("rnd", "random"), ("raiser", "tests.fixture_agents:raiser")
        ),
        deals=400,
        block_size=100,
        seed=3,
    )
    return TournamentConfig(**{**base, **kw})


def rows(store_path):
    with sqlite3.connect(store_path) as db:
        return sorted(
            db.execute(
                "SELECT a, b, block, deals, total, total_sq, wins, losses, "
                "ties, forfeit FROM blocks"
            ).fetchall()
        )


def test_serial_and_process_pool_give_identical_results(tmp_path):
    serial = run_tournament(config(), tmp_path / "serial.sqlite", workers=0, bootstrap=20)
    pooled = run_tournament(config(), tmp_path / "pool.sqlite", workers=2, bootstrap=20)
    assert rows(tmp_path / "serial.sqlite") == rows(tmp_path / "pool.sqlite")
    np.testing.assert_array_equal(serial.crosstable.mean, pooled.crosstable.mean)
    assert serial.complete and serial.blocks_done == 12
    # CFR+ (exploitability < 0.05 after 300 iterations) beats random by a wide margin.
    assert serial.exploitability["cfr"] < 0.05
    assert serial.exploitability["raiser"] is None  # not a PolicyAgent
    assert serial.crosstable.mean[0, 1] > 0.3
    assert serial.ratings.elo[0] > serial.ratings.elo[1]


def test_running_again_adds_nothing(tmp_path):
    store = tmp_path / "t.sqlite"
    run_tournament(config(), store, workers=0, bootstrap=0)
    before = rows(store)
    again = run_tournament(config(), store, workers=0, bootstrap=0)
    assert rows(store) == before and again.blocks_done == 12


def test_an_agent_measured_before_a_stop_is_not_measured_again(tmp_path, monkeypatch):
    # An LBR bound on Hold'em takes minutes per agent: a run stopped while the later agents
    # are still being measured must keep the earlier ones' measures, and a rerun must not
    # measure them again.
    import nashzoo.eval.tournament as tournament

    real, measured = tournament.check_agent, []

    def stopped_at_the_third(cfg, k, measure, calls=None):
        if k == 2:
            raise KeyboardInterrupt
        return real(cfg, k, measure, calls)

    def counted(cfg, k, measure, calls=None):
        measured.extend([cfg.names[k]] if measure else [])
        return real(cfg, k, measure, calls)

    path = tmp_path / "t.sqlite"
    monkeypatch.setattr(tournament, "check_agent", stopped_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(config(), path, workers=0, bootstrap=0)
    store = ResultStore(path)
    first = store.exploitabilities(config().id)
    store.close()
    assert sorted(first) == ["cfr", "rnd"] and first["cfr"][0] < 0.05
    monkeypatch.setattr(tournament, "check_agent", counted)
    result = run_tournament(config(), path, workers=0, bootstrap=0)
    assert measured == ["raiser"]  # the two stored before the stop are kept
    assert result.exploitability["cfr"] == first["cfr"][0] and result.complete


def test_forfeits_are_recorded_and_the_tournament_goes_on(tmp_path):
    cfg = config(
        agents=specs(
            ("crasher", "tests.fixture_agents:crasher"),
            ("cheater", "tests.fixture_agents:cheater"),
            ("sleeper", "tests.fixture_agents:sleeper"),
            ("rnd", "random"),
        ),
        deals=4,
        block_size=2,
        move_time_limit=0.02,
    )
    result = run_tournament(cfg, tmp_path / "f.sqlite", workers=0, bootstrap=0)
    reasons = {who: why for _, _, _, who, why in result.crosstable.forfeits}
    assert "raised RuntimeError: boom in round 2" in reasons["crasher"]
    assert "illegal action 0" in reasons["cheater"]
    assert "per-move time limit of 0.02 s" in reasons["sleeper"]
    assert result.complete  # every block was stored, forfeited or not
    assert "Forfeits (every deal of a forfeited block counts as lost" in result.format()
    with pytest.raises(
        InvalidParameterError, match=r"`ratings` must be one of .*'alpharank', received 'elo'"
    ):
        result.format(ratings="elo")


@pytest.mark.parametrize("workers", [0, 1])
def test_a_cold_start_is_not_charged_to_the_move_clock(tmp_path, workers):
    """Issue 31, D10: building an agent and its first decision (numba compiling, say)
    were timed by the per-move clock, so a 0.3 s limit refused an agent that takes 0.6 s
    to build and 0.6 s to warm up, though each of its moves is fast. They have their own
    stated allowance; a slow move is still a forfeit."""
    cfg = config(
        agents=specs(("cold", "tests.fixture_agents:cold_starter"), ("rnd", "random")),
        deals=4,
        block_size=2,
        move_time_limit=0.3,
    )
    result = run_tournament(cfg, tmp_path / "c.sqlite", workers=workers, bootstrap=0)
    assert result.complete and not result.crosstable.forfeits
    short = config(
        agents=specs(("cold", "tests.fixture_agents:cold_starter"), ("rnd", "random")),
        deals=4,
        block_size=2,
        move_time_limit=0.3,
        setup_time_limit=0.35,
    )
    with pytest.raises(InvalidParameterError, match=r"cold.* setup time limit of 0\.35 s"):
        run_tournament(short, tmp_path / "s.sqlite", workers=workers, bootstrap=0)


def test_bad_configurations(tmp_path):
    with pytest.raises(InvalidParameterError, match="unique"):
        config(agents=specs(("a", "random"), ("a", "random")))
    with pytest.raises(InvalidParameterError, match="at least 2 agents"):
        config(agents=specs(("a", "random")))
    with pytest.raises(InvalidParameterError, match=r"build a factory with.*AgentSpec"):
        config(agents=(("a", "random"), ("b", "random")))  # spec strings are the CLI's job
    with pytest.raises(
        InvalidParameterError,
        match=r"refused at the start.*'b' could not be built.*Unknown agent spec 'cfr\+\+'",
    ):
        run_tournament(
            config(agents=specs(("a", "random"), ("b", "cfr++"))), tmp_path / "x.sqlite", workers=0
        )


def test_store_rejects_a_conflicting_configuration(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    store.register("abc", {"x": 1})
    with pytest.raises(StoreError, match="another configuration"):
        store.register("abc", {"x": 2})


@pytest.mark.slow
def test_ray_backend_matches_serial(tmp_path):
    ray = pytest.importorskip("ray")
    from nashzoo.testing import hostile

    serial = run_tournament(config(), tmp_path / "a.sqlite", workers=0, bootstrap=0)
    hostile_cfg = config(
        agents=(
            ("sleeper", hostile.make("sleeper", seconds=1.5)),
            ("crash", hostile.make("hard_exit")),
            ("rnd", AgentSpec("random")),
        ),
        deals=2,
        block_size=2,
        move_time_limit=0.2,
    )
    try:
        with untraced_children():  # Ray's processes, traced, took 4x as long as untraced
            ray_run = run_tournament(config(), tmp_path / "b.sqlite", backend="ray", bootstrap=0)
            faults = run_tournament(hostile_cfg, tmp_path / "h.sqlite", backend="ray", bootstrap=0)
    finally:
        ray.shutdown()
    assert rows(tmp_path / "a.sqlite") == rows(tmp_path / "b.sqlite")
    np.testing.assert_array_equal(serial.crosstable.mean, ray_run.crosstable.mean)
    # Under Ray a hung agent forfeits on time (threads, no SIGALRM), and a block whose
    # worker died is re-run under local supervision, which names the agent at fault.
    reasons = {(a, b): (who, why) for a, b, _, who, why in faults.crosstable.forfeits}
    assert faults.complete
    assert reasons[("sleeper", "rnd")][0] == "sleeper"
    assert "per-move time limit of 0.2 s" in reasons[("sleeper", "rnd")][1]
    assert reasons[("crash", "rnd")] == (
        "crash",
        "CRASH: its worker process died (exit code 3) in each of 2 attempts",
    )
    # Before the first deal each agent makes one warm-up decision under the setup
    # allowance (issue 31, D10): the sleeper's is slow but allowed, the crasher's kills
    # its worker, so the crasher is at fault in their block.
    assert reasons[("sleeper", "crash")][0] == "crash"


def wait_for_blocks(path, count, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        time.sleep(0.05)
        if path.exists():
            try:
                with sqlite3.connect(path) as db:
                    if db.execute("SELECT COUNT(*) FROM blocks").fetchone()[0] >= count:
                        return
            except sqlite3.OperationalError:
                continue
    raise AssertionError(f"fewer than {count} blocks after {timeout} s")


def process_group_gone(pgid, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def kill_test_args(workers):
    """The tournament of the kill tests below: 120 blocks of Leduc (3 agents, 6,000 deals
    a pairing), the command line a user would type."""
    return [
        sys.executable,
        "-m",
        "nashzoo",
        "tournament",
        "--game",
        "leduc_holdem",
        "--agent",
        "a=random",
        "--agent",
        "b=random",
        "--agent",
        "c=tests.fixture_agents:raiser",
        "--deals",
        "6000",
        "--block-size",
        "150",
        "--seed",
        "5",
        "--quiet",
        "--bootstrap",
        "0",
        "--workers",
        str(workers),
    ]


@pytest.fixture(scope="module")
def uninterrupted_rows(tmp_path_factory):
    """The kill tests' tournament run through once, in one process: what a killed and
    resumed run must store. Untraced (it runs the lines the resumed runs run) and shared
    by the three kill tests; serial and pooled runs store the same rows (the first test
    of this file)."""
    path = tmp_path_factory.mktemp("uninterrupted") / "fresh.sqlite"
    env = untraced_env({**os.environ, "PYTHONPATH": str(ROOT)})
    subprocess.run(
        [*kill_test_args(0), "--store", str(path)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return rows(path)


@pytest.mark.parametrize(
    "workers, how",
    [(0, signal.SIGKILL), (2, signal.SIGKILL), (2, signal.SIGINT)],
    ids=["kill9", "kill9-2workers", "ctrl-c-2workers"],
)
def test_killed_or_interrupted_then_resumed_loses_and_doubles_nothing(
    tmp_path, workers, how, uninterrupted_rows
):
    args = kill_test_args(workers)
    # Traced: the pool's worker processes are measured here only (they save their data
    # when they exit, a killed parent's workers included). A process killed with -9
    # saves nothing, so with no workers the killed run goes untraced.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    killed_env = untraced_env(env) if workers == 0 and how == signal.SIGKILL else env
    killed = tmp_path / "killed.sqlite"
    # A child inherits an ignored SIGINT, and an earlier test of the same pytest process
    # may leave it ignored (the full suite did, twice, on fresh clones): the tournament
    # then rightly ignores Ctrl-C and finishes. A user's shell starts it with the default.
    proc = subprocess.Popen(
        [*args, "--store", str(killed)],
        cwd=ROOT,
        env=killed_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_for_blocks(killed, 10)
    if how == signal.SIGINT:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "interrupted; what finished is stored" in err, (
            proc.returncode,
            signal.getsignal(signal.SIGINT),
            err,
        )
    else:
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: its workers must not linger
        proc.wait()
    assert process_group_gone(proc.pid)
    partial = len(rows(killed))
    assert 10 <= partial < 120, partial  # stopped mid-way
    subprocess.run(
        [*args, "--store", str(killed)], cwd=ROOT, env=env, check=True, capture_output=True
    )
    resumed = rows(killed)
    assert len(resumed) == 120 and len(set((r[0], r[1], r[2]) for r in resumed)) == 120
    assert resumed == uninterrupted_rows


def test_cli_tournament_writes_report(tmp_path, capsys):
    code = main(
        [
            "tournament",
            "--game",
            "kuhn_poker",
            "--agent",
            "cfr=cfr+:200",
            "--agent",
            "rnd=random",
            "--deals",
            "300",
            "--store",
            str(tmp_path / "k.sqlite"),
            "--report",
            str(tmp_path / "report"),
            "--quiet",
            "--bootstrap",
            "20",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "Crosstable" in out and "Elo (BT)" in out
    page = (tmp_path / "report" / "index.html").read_text()
    assert "crosstable.png" in page and "ratings.png" in page and "cfr+:200" in page
    for png in ("crosstable.png", "ratings.png"):
        assert (tmp_path / "report" / png).read_bytes()[:4] == b"\x89PNG"
    # the same stored tournament, its ratings sorted by alpha-Rank: CFR+ beats random, so
    # alpha-Rank's stationary mass sits on it (a dominant agent absorbs the evolution)
    args = ["tournament", "--game", "kuhn_poker", "--agent", "rnd=random", "--agent"]
    args += ["cfr=cfr+:200", "--deals", "300", "--store", str(tmp_path / "k.sqlite")]
    assert main([*args, "--quiet", "--bootstrap", "20", "--ratings", "alpharank"]) == 0
    table = capsys.readouterr().out.split("exploitability\n")[-1].splitlines()
    assert [row.split()[0] for row in table[:2]] == ["cfr", "rnd"]
    mass = [float(row.split("]")[1].split()[2]) for row in table[:2]]  # after the Nash columns
    interval = [row.split("]")[1].split("[")[1].split(",") for row in table[:2]]
    assert mass[0] > 0.9 and mass[1] < 0.1 and sum(mass) == pytest.approx(1.0, abs=2e-3)
    assert all(
        float(lo) <= m + 1e-3 and m <= float(hi) + 1e-3 for m, (lo, hi) in zip(mass, interval)
    )
    with pytest.raises(SystemExit):
        main([*args, "--ratings", "elo"])
    assert "invalid choice: 'elo'" in capsys.readouterr().err


def test_replacing_any_agent_file_makes_a_new_tournament(tmp_path, monkeypatch):
    # Issue 11: only .npz/.json were fingerprinted, so a resume mixed two NFSP agents.
    monkeypatch.syspath_prepend(str(tmp_path))
    module = tmp_path / "my_agents.py"
    module.write_text("from tests.fixture_agents import raiser as make\n")
    checkpoint = tmp_path / "agent.pt"
    checkpoint.write_bytes(b"first weights")

    def config_id():
        return config(
            agents=specs(("mine", "my_agents:make"), ("nfsp", str(checkpoint)), ("rnd", "random"))
        ).id

    first = config_id()
    assert config_id() == first  # same files, same tournament
    checkpoint.write_bytes(b"other weights")
    second = config_id()
    module.write_text("from tests.fixture_agents import raiser as make  # v2\n")
    third = config_id()
    assert len({first, second, third}) == 3
    info = config(agents=specs(("mine", "my_agents:make"), ("rnd", "random"))).info
    assert [n for n, _ in info.fingerprints] == ["mine"]  # random has no file


def _kuhn_policy_files(*folders):
    from nashzoo.envs.registration import make_game
    from nashzoo.tree import TabularPolicy

    policy = TabularPolicy.uniform(make_game("nashzoo/kuhn_poker-v0"))
    paths = []
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        paths.append(policy.save(folder / "uniform.npz"))
    return paths


def _kuhn_config(policy_spec, deals=200):
    return TournamentConfig(
        game="nashzoo/kuhn_poker-v0",
        agents=specs(("pol", policy_spec), ("rnd", "random")),
        deals=deals,
        block_size=100,
        seed=1,
    )


def test_the_same_agent_files_elsewhere_are_the_same_tournament(tmp_path, monkeypatch):
    # The id named a file agent by its path, so a folder moved or a checkout elsewhere
    # started the tournament over; the file's content is what identifies it.
    here, there = _kuhn_policy_files(tmp_path / "a", tmp_path / "b")
    first = _kuhn_config(str(here))
    assert dict(first.info.agents)["pol"] == "uniform.npz"
    assert _kuhn_config(str(there)).id == first.id
    monkeypatch.chdir(tmp_path / "a")
    assert _kuhn_config("uniform.npz").id == first.id
    assert _kuhn_config("./uniform.npz").id == first.id
    assert first.legacy_id is not None and first.legacy_id != first.id
    assert _kuhn_config("random").legacy_id is None  # no file agents: one id as before
    there.write_bytes(there.read_bytes() + b"\0")  # another content: another tournament
    assert _kuhn_config(str(there)).id != first.id


def test_a_store_from_before_resumes_under_its_earlier_id(tmp_path, monkeypatch):
    # A store written when file agents were named by their paths keeps its blocks: the
    # run finds them under the earlier id instead of playing them again.
    import nashzoo.eval.tournament as tournament

    (policy,) = _kuhn_policy_files(tmp_path)
    config = _kuhn_config(str(policy), deals=200)
    old = config.legacy_info
    store = ResultStore(tmp_path / "old.sqlite")
    store.register(old.id, old.to_dict())  # as the earlier version did, then one block
    store.add_block(old.id, tournament.run_block(config, 0, 1, 0, 100))
    played = []
    real = tournament.run_block
    monkeypatch.setattr(
        tournament, "run_block", lambda c, *block: played.append(block) or real(c, *block)
    )
    result = run_tournament(_kuhn_config(str(policy), deals=200), store, workers=0)
    assert played == [(0, 1, 1, 100)]  # only the missing block
    assert store.tournament_ids() == [old.id] and result.tournament_id == old.id
    assert len(store.results(old.id)) == 2
    fresh = ResultStore(tmp_path / "new.sqlite")  # a new store uses the new id
    assert run_tournament(config, fresh, workers=0).tournament_id == config.id != old.id
    assert fresh.tournament_ids() == [config.id]


def test_a_game_without_blinds_is_scored_in_its_own_unit_to_three_decimals(tmp_path):
    # the fighting game pays +1 a win: its tables said "chips/game" and rounded every
    # score to one decimal, so that +0.045 printed as +0.0
    import nashzoo
    from nashzoo.agents.random_agent import RandomAgent
    from nashzoo.eval.matches import head_to_head
    from nashzoo.eval.report import write_tournament_report

    cfg = TournamentConfig(
        game="fighting_cards_tiny",
        agents=specs(("heuristic", "heuristic"), ("rnd", "random")),
        deals=200,
        block_size=100,
        seed=0,
    )
    result = run_tournament(cfg, tmp_path / "f.sqlite", workers=0, bootstrap=20)
    text = result.format()
    assert "points/game" in text and "chips" not in text
    mean, half = result.crosstable.cell(0, 1, 1.0)
    assert f"{mean:+.3f} ±{half:.3f}" in text
    page = write_tournament_report(result, tmp_path / "report").read_text()
    assert f"{mean:+.3f}" in page and "points/game" in page
    # α-Rank beside Elo and Nash averaging (issue 93): the heuristic beats random, so the
    # evolutionary process settles on it; the report gives each mass with its interval
    r = result.ratings
    top = list(r.names).index("heuristic")
    assert r.alpharank is not None and r.alpharank[top] > 0.99 and "α-Rank" in text
    assert f"{r.alpharank[top]:.3f}<br><small>[" in page
    match = head_to_head(
        nashzoo.make_game("fighting_cards_tiny"), RandomAgent(seed=0), RandomAgent(seed=1),
        deals=20, seed=0,
    )  # fmt: skip
    assert " points/game (95% CI " in str(match) and match.unit == "points"
