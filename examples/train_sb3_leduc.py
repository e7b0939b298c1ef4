"""Train sb3-contrib's MaskablePPO on Leduc Hold'em against a random opponent, then
measure it: its exact expected score against uniform random (what it learns), its exact
exploitability (what a best response would take from it), and sampled duplicate matches
against random and CFR+.

Usage: ``python examples/train_sb3_leduc.py [--steps 20480] [--deals 2000] [--seed 0]``
(needs ``pip install 'nashzoo[sb3]'``).
"""

from __future__ import annotations

import argparse

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import nashzoo
from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
from nashzoo.agents.sb3 import SB3Agent
from nashzoo.eval import exploitability, head_to_head
from nashzoo.games import LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_480)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    game = LeducHoldemGame()
    env = gymnasium.make("nashzoo/LeducHoldem-v0", opponent="random")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        seed=args.seed,
        n_steps=2048,
        batch_size=256,
        gamma=1.0,
        verbose=0,
        device="cpu",
    )
    model.learn(total_timesteps=args.steps, progress_bar=False)
    agent = SB3Agent(model, seed=args.seed, name="maskable-ppo")
    cfr = TabularPolicyAgent(CFRPlusSolver(game).iterate(1000).average_policy(), name="cfr+")
    tree = compile_game(game)
    expl = exploitability(agent, tree)
    exact = head_to_head(
        tree, TabularPolicy.from_agent(agent, tree), TabularPolicy.uniform(tree), exact=True
    )
    vs_random = head_to_head(game, agent, nashzoo.RandomAgent(), deals=args.deals, seed=1)
    vs_cfr = head_to_head(game, agent, cfr, deals=args.deals, seed=2)
    print(f"MaskablePPO after {args.steps:,} steps against random:")
    print(
        f"  exploitability   {expl.exploitability:.3f} chips ({expl.exploitability_mbb:.0f} mbb/g)"
    )
    print(f"  vs uniform       {exact.mean:+.3f} chips/game (exact)")
    print(f"  vs random        {vs_random}")
    print(f"  vs CFR+          {vs_cfr}")
    return {
        "exploitability": expl,
        "vs_uniform_exact": exact,
        "vs_random": vs_random,
        "vs_cfr": vs_cfr,
    }


if __name__ == "__main__":
    main()
