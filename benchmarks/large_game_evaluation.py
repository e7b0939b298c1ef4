"""Measuring agents where exact exploitability is out of reach (issue 16): local best
response (LBR) and a learned best response, on Leduc (where the exact value is known, to
validate them) and on Limit Hold'em.

For each agent: the exact exploitability (Leduc only), the LBR lower bound with its 95%
CI and seconds, and the learned best response (MaskablePPO trained against the frozen
agent, then a duplicate match) with its CI and seconds. Agents: uniform random, a
rule-based agent (always-call on Leduc, ``poker-rules`` on Hold'em), NFSP (self-play)
and MaskablePPO trained against random (SB3).

Then variance reduction of duplicate matches (section ``variance``): the standard
deviation per duplicate pair (a deal played in both seatings) between NFSP and CFR+ on
Leduc and between NFSP and SB3 on Hold'em, plain, with common random numbers (CRN) and
with AIVAT under each value function, and the factor by which each cuts the deals needed
for a given CI width, ``(sd_plain / sd) ** 2``; "plain" is the uncorrected score of the
very games AIVAT corrected.

Goals (issue 16): LBR of a Limit Hold'em agent in under 10 minutes on this machine; on
Leduc, LBR within 20% of the exact best-response value for random and always-call;
variance reduction cuts the games needed for a given CI width at least 5x on both games.

Usage: ``python benchmarks/large_game_evaluation.py [--leduc-hands 3000]
[--holdem-hands 1000] [--rollouts 20] [--br-steps 32768] [--deals 2000]
[--sections lbr,variance] [--vr-deals 2000]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line


def leduc_agents(nfsp_seconds: float, ppo_steps: int) -> dict:
    from sb3_contrib import MaskablePPO

    from nashzoo.agents.cfr import TabularPolicyAgent
    from nashzoo.agents.nfsp import NFSP
    from nashzoo.agents.random_agent import RandomAgent
    from nashzoo.agents.sb3 import SB3Agent
    from nashzoo.games import LeducHoldemGame
    from nashzoo.tree import TabularPolicy, compile_game
    from nashzoo.wrappers.sb3_vec import SB3VecEnv

    game = LeducHoldemGame()
    tree = compile_game(game)
    call = np.zeros(tree.legal_mask.shape)
    call[:, 1] = 1.0
    nfsp = NFSP(game).train(seconds=nfsp_seconds)
    env = SB3VecEnv("nashzoo/leduc_holdem-v0", 16, seed=0)
    ppo = MaskablePPO("MlpPolicy", env, n_steps=128, gamma=1.0, seed=0, device="cpu")
    return {
        "random": RandomAgent(seed=0),
        "always-call": TabularPolicyAgent(TabularPolicy(tree, call), name="always-call"),
        f"NFSP ({nfsp.episodes:,} episodes)": nfsp.agent(seed=0),
        f"SB3 MaskablePPO ({ppo_steps:,} steps vs random)": SB3Agent(ppo.learn(ppo_steps), seed=0),
    }, game


def holdem_agents(nfsp_seconds: float, ppo_steps: int) -> dict:
    from sb3_contrib import MaskablePPO

    from nashzoo.agents.nfsp import NFSP
    from nashzoo.agents.random_agent import RandomAgent
    from nashzoo.agents.sb3 import SB3Agent
    from nashzoo.agents.scripted import PokerRulesAgent
    from nashzoo.games.poker import limit_holdem
    from nashzoo.wrappers.sb3_vec import SB3VecEnv

    game = limit_holdem()
    nfsp = NFSP(game).train(seconds=nfsp_seconds)
    env = SB3VecEnv("nashzoo/limit_holdem-v0", 32, seed=0)
    ppo = MaskablePPO("MlpPolicy", env, n_steps=64, gamma=1.0, seed=0, device="cpu")
    return {
        "random": RandomAgent(seed=0),
        "poker-rules": PokerRulesAgent(game),
        f"NFSP ({nfsp.episodes:,} episodes)": nfsp.agent(seed=0),
        f"SB3 MaskablePPO ({ppo_steps:,} steps vs random)": SB3Agent(ppo.learn(ppo_steps), seed=0),
    }, game


def measure(title: str, agents: dict, game, args, *, hands: int, rollouts) -> None:
    from nashzoo.bounds import learned_best_response
    from nashzoo.errors import GameTooLargeError
    from nashzoo.eval import exploitability
    from nashzoo.eval.lbr import local_best_response

    scale = 1000.0 / game.big_blind
    print(f"\n### {title} (mbb/hand; 1 chip = {scale:g} mbb)\n")
    print(
        "| agent | exact | LBR [95% CI] | LBR / exact | LBR s | learned BR [95% CI] | "
        "learned / exact | learned BR s (train + match) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, agent in agents.items():
        try:
            exact = exploitability(agent, game).exploitability
        except GameTooLargeError:
            exact = None
        lbr = local_best_response(game, agent, hands=hands, rollouts=rollouts, seed=1)
        learned = learned_best_response(game, agent, steps=args.br_steps, deals=args.deals, seed=0)

        def cell(value, ci):
            return f"{value * scale:,.0f} [{ci[0] * scale:,.0f}, {ci[1] * scale:,.0f}]"

        ratio = "-" if exact is None else f"{lbr.value / exact:.2f}"
        lratio = "-" if exact is None else f"{learned.value / exact:.2f}"
        print(
            f"| {name} | {'-' if exact is None else f'{exact * scale:,.0f}'} | "
            f"{cell(lbr.value, lbr.ci95)} | {ratio} | {lbr.seconds:.0f} | "
            f"{cell(learned.value, learned.ci95)} | {lratio} | "
            f"{learned.train_seconds:.0f} + {learned.eval_seconds:.0f} |",
            flush=True,
        )
    values = "exact action values" if rollouts is None else f"{rollouts} rollouts per action"
    print(
        f"\nLBR: {hands:,} hands, {values}; learned BR: MaskablePPO, {args.br_steps:,} steps, "
        f"{args.deals:,} duplicate deals."
    )


def _ratio(before: float, after: float) -> str:
    """The factor by which the deals needed shrink: ``(before / after) ** 2``."""
    return "every deal exact (sd 0)" if after < 1e-6 * before else f"{(before / after) ** 2:.2f}"


def variance(title: str, game, a, b, value_functions: dict, deals: int) -> None:
    """Standard deviation per duplicate pair of ``a`` against ``b``, per method."""
    from nashzoo.eval import head_to_head

    scale = 1000.0 / game.big_blind
    print(f"\n### {title}: {a.name} vs {b.name}, {deals:,} duplicate deals (mbb/game)\n")
    print("| method | mean [95% CI] | sd per pair | deals saved (x) | s |")
    print("|---|---:|---:|---:|---:|")
    base = None
    rows = [("plain (cards shared)", None, None), ("CRN (agents reseeded too)", "crn", None)]
    rows += [(f"AIVAT, {k}", "aivat", v) for k, v in value_functions.items()]
    for label, reduction, vf in rows:
        start = time.perf_counter()
        r = head_to_head(
            game, a, b, deals=deals, seed=7, variance_reduction=reduction, value_function=vf
        )
        seconds = time.perf_counter() - start
        sd = r.stderr * np.sqrt(deals) * scale
        if base is None:
            base = sd
        line = (
            f"| {label} | {r.mean * scale:+,.0f} [{r.ci95[0] * scale:+,.0f}, "
            f"{r.ci95[1] * scale:+,.0f}] | {sd:,.0f} | {_ratio(base, sd)} | {seconds:.0f} |"
        )
        if r.plain_stderr is not None:
            plain_sd = r.plain_stderr * np.sqrt(deals) * scale
            line += (
                f"\n| (the same games uncorrected) | {r.plain_mean * scale:+,.0f} | "
                f"{plain_sd:,.0f} | AIVAT cuts {_ratio(plain_sd, sd)} | |"
            )
        print(line, flush=True)


def leduc_variance(agents: dict, game, deals: int) -> None:
    from nashzoo.agents import build_agent
    from nashzoo.eval import head_to_head
    from nashzoo.eval.aivat import TreeValues
    from nashzoo.tree import TabularPolicy, compile_game

    tree = compile_game(game)
    nfsp = next(v for k, v in agents.items() if k.startswith("NFSP"))
    cfr = build_agent("cfr+:300", game)
    equilibrium = TabularPolicy.from_agent(build_agent("cfr+:2000", game), tree)
    exact = head_to_head(game, nfsp, cfr, exact=True).mean
    print(
        f"\nLeduc exact expectation of NFSP vs CFR+: {exact * 1000 / game.big_blind:+,.1f} mbb/game"
    )
    variance(
        "Leduc Hold'em",
        game,
        nfsp,
        cfr,
        {
            "uniform-play values (default)": None,
            "equilibrium values (CFR+ 2000)": TreeValues(tree, equilibrium),
            "the two agents' own values (oracle)": TreeValues.of_match(tree, nfsp, cfr),
        },
        deals,
    )


def holdem_variance(agents: dict, game, deals: int) -> None:
    nfsp = next(v for k, v in agents.items() if k.startswith("NFSP"))
    sb3 = next(v for k, v in agents.items() if k.startswith("SB3"))
    variance(
        "Limit Hold'em",
        game,
        nfsp,
        sb3,
        {"check-down equity (default; 256 samples, 1,024 gave the same sd)": None},
        deals,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leduc-hands", type=int, default=3000)
    parser.add_argument("--holdem-hands", type=int, default=1000)
    parser.add_argument("--rollouts", type=int, default=20)
    parser.add_argument("--br-steps", type=int, default=32_768)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--nfsp-seconds", type=float, default=60.0)
    parser.add_argument("--ppo-steps", type=int, default=16_384)
    parser.add_argument("--games", default="leduc,holdem")
    parser.add_argument("--sections", default="lbr,variance")
    parser.add_argument("--vr-deals", type=int, default=2000)
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    import torch

    torch.set_num_threads(1)
    print(machine_line())
    games = set(args.games.split(","))
    start = time.perf_counter()
    if "leduc" in games:
        agents, game = leduc_agents(args.nfsp_seconds, args.ppo_steps)
        if "lbr" in sections:
            measure("Leduc Hold'em", agents, game, args, hands=args.leduc_hands, rollouts=None)
        if "variance" in sections:
            leduc_variance(agents, game, args.vr_deals)
    if "holdem" in games:
        agents, game = holdem_agents(args.nfsp_seconds, args.ppo_steps)
        if "lbr" in sections:
            measure(
                "Limit Hold'em", agents, game, args, hands=args.holdem_hands, rollouts=args.rollouts
            )
        if "variance" in sections:
            holdem_variance(agents, game, args.vr_deals)
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
