"""The hostile-agent zoo against every harness: matches, tournaments (1 and 2 supervised
workers) and the single-agent wrapper. Every fault is a forfeit; nothing an agent does
reaches the referee, the other agent or the caller (issue 11)."""

import concurrent.futures
import signal

import numpy as np
import pytest

import nashzoo
from nashzoo.agents import AgentSpec
from nashzoo.errors import AgentForfeitError, GameOverError, InvalidParameterError
from nashzoo.eval import head_to_head
from nashzoo.eval.tournament import TournamentConfig, run_block, run_tournament
from nashzoo.games import LeducHoldemGame
from nashzoo.testing import hostile
from nashzoo.wrappers import SingleAgentEnv

LEDUC = LeducHoldemGame()
LIMIT = 0.2  # seconds per move

# zoo member -> (constructor arguments, the forfeit reason a match reports)
EXPECTED = {
    "raises": ({}, r"raised RuntimeError: hostile agent"),
    "garbage": ({}, r"answered an invalid action"),
    "sleeper": ({"seconds": 1.5}, r"exceeded the per-move time limit of 0\.2 s"),
    "sys_exit": ({}, r"called sys\.exit\(3\)"),
    "interrupter": ({}, r"raised KeyboardInterrupt"),
    "reset_raiser": ({}, r"raised ValueError: hostile agent: cannot reset"),
    "mask_unlocker": ({}, r"played illegal action 2"),
    "memory_hog": ({}, r"raised MemoryError"),
}


def opponent_for(name):
    # The unlocker raises past the cap only when the other side re-raises.
    return (
        hostile.AlwaysCall(cap=2, name="raiser")
        if name == "mask_unlocker"
        else nashzoo.RandomAgent(seed=0)
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_fault_is_a_forfeit_in_a_match(name):
    kwargs, reason = EXPECTED[name]
    agent = hostile.make(name, **kwargs)
    with pytest.raises(AgentForfeitError, match=f"{name} forfeited the match: {reason}"):
        head_to_head(LEDUC, agent, opponent_for(name), deals=3, move_time_limit=LIMIT)


def test_observations_handed_to_agents_cannot_be_unlocked():
    unlocker = hostile.make("mask_unlocker")
    with pytest.raises(AgentForfeitError):
        head_to_head(LEDUC, unlocker, opponent_for("mask_unlocker"), deals=2)
    assert unlocker.unlocked == 0  # every setflags(write=True) was refused


def test_a_poisoner_has_no_effect():
    # Issue 11: rewriting seen masks to fold-only moved always-call from -0.15 to +0.44
    # chips/game against random. Now the writes fail and the results are the honest ones.
    poisoner = hostile.make("mask_poisoner")
    dirty = head_to_head(LEDUC, poisoner, nashzoo.RandomAgent(), deals=300, seed=4)
    clean = head_to_head(LEDUC, hostile.AlwaysCall(), nashzoo.RandomAgent(), deals=300, seed=4)
    assert poisoner.poisoned == 0 and len(poisoner.seen) > 0
    assert dirty.mean == clean.mean and dirty.stderr == clean.stderr


def test_the_time_limit_works_outside_the_main_thread_and_keeps_the_callers_timer():
    signal.setitimer(signal.ITIMER_REAL, 100.0)  # the caller's own alarm
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            future = pool.submit(
                head_to_head,
                LEDUC,
                hostile.make("sleeper", seconds=1.5),
                nashzoo.RandomAgent(),
                deals=2,
                move_time_limit=LIMIT,
            )
            with pytest.raises(AgentForfeitError, match="per-move time limit"):
                future.result(timeout=30)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 90.0 < left <= 100.0  # issue 11: it had 0.0 s left after a match
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_time_limit_values():
    rnd = nashzoo.RandomAgent()
    assert head_to_head(LEDUC, rnd, rnd, deals=5, move_time_limit=float("inf")).deals == 5
    for bad in (-1, 0, float("nan"), "1", True):
        with pytest.raises(InvalidParameterError, match="move_time_limit"):
            head_to_head(LEDUC, rnd, rnd, deals=5, move_time_limit=bad)


def forfeit_reasons(result):
    return {(a, b): (who, why) for a, b, _, who, why in result.crosstable.forfeits}


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", sorted([*EXPECTED, "hard_exit", "mask_poisoner"]))
def test_every_fault_is_a_forfeit_in_a_supervised_tournament(tmp_path, name, workers):
    kwargs, reason = EXPECTED.get(name, ({}, None))
    if name == "hard_exit":
        reason = r"CRASH: its worker process died \(exit code 3\) in each of 2 attempts"
    if name == "sleeper":  # the supervisor kills the worker at the hard deadline
        reason = r"TIMEOUT: exceeded the per-move time limit of 0\.2 s"
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        agents=((name, hostile.make(name, **kwargs)), ("opponent", opponent_for(name))),
        deals=4,
        block_size=2,
        move_time_limit=LIMIT,
        memory_limit_mb=1024,
    )
    result = run_tournament(cfg, tmp_path / "t.sqlite", workers=workers, bootstrap=0)
    assert result.complete  # the tournament always finishes
    forfeits = result.crosstable.forfeits
    if name == "mask_poisoner":
        assert forfeits == ()
        return
    assert len(forfeits) == 2 and {f[3] for f in forfeits} == {name}
    assert all(__import__("re").search(reason, f[4]) for f in forfeits), forfeits
    # a forfeited block counts every deal as lost by the largest payoff (13 chips)
    assert result.crosstable.mean[0, 1] == -13.0


def test_an_agent_that_kills_its_process_cannot_stop_a_two_worker_tournament(tmp_path):
    agents = (
        ("crash", hostile.make("hard_exit")),
        ("a", AgentSpec("random")),
        ("b", hostile.AlwaysCall(name="b")),
    )
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0", agents=agents, deals=6, block_size=2, seed=1
    )
    crashed = run_tournament(cfg, tmp_path / "c.sqlite", workers=2, bootstrap=0)
    assert crashed.complete and crashed.blocks_done == 9
    assert {f[3] for f in crashed.crosstable.forfeits} == {"crash"}
    # the honest pairing is played normally: block for block what this process computes
    honest = [run_block(cfg, 1, 2, k, 2).total for k in range(3)]
    assert crashed.crosstable.mean[1, 2] == pytest.approx(sum(honest) / 6)


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"sleeper"}))
def test_a_faulty_opponent_forfeits_in_the_single_agent_wrapper(name):
    kwargs, reason = EXPECTED[name]
    env = SingleAgentEnv(LEDUC, opponent=hostile.make(name, **kwargs), seat=1)
    with pytest.raises(AgentForfeitError, match=reason):
        env.reset(seed=0)  # the opponent (seat 0) moves first
        for _ in range(20):  # the unlocker faults once its raise is illegal
            env.step(2 if env.action_masks()[2] else 1)
    with pytest.raises(GameOverError, match="call reset"):
        env.step(1)  # the learner cannot move for the opponent after its forfeit


def test_the_poisoner_is_harmless_as_an_opponent():
    env = SingleAgentEnv(LEDUC, opponent=hostile.make("mask_poisoner"), seat=1)
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    assert info["action_mask"].tolist() == mask.tolist() and mask.any()
    assert np.array_equal(env.action_masks(), mask)
