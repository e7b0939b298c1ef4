"""Parallel Nash Memory on 8-card poker, reproducing Oliehoek's thesis (2005), chapter 7.

Writes two plots into ``--out``:

* ``pnm_worst_case.png``: each player's worst-case payoff (security level) per iteration,
  with the game value (-1/16 for the gambler) and the support sizes. The thesis reached
  the Nash level at iteration 12 with 6 of 12 policies in the support.
* ``pnm_security_vs_model.png``: the security-versus-best-response experiment (thesis
  7.5.3). The gambler starts from the best response to an estimated dealer model (a
  dealer who calls and bets too often); per iteration we record the gambler's worst-case
  payoff and its payoff against the model: security is bought with exploitation.

Usage: ``python examples/nash_memory_8card.py [--out nash_memory_output] [--deck 8]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from nashzoo.agents.nash_memory import ParallelNashMemory, best_response_heuristic
from nashzoo.eval.exploitability import policy_values
from nashzoo.eval.plots import require_matplotlib
from nashzoo.games import KuhnPokerGame
from nashzoo.tree import compile_game


def loose_dealer(tree, aggression: float = 0.8) -> np.ndarray:
    """A dealer model who bets or calls with probability ``aggression`` whatever its card."""
    probs = tree.uniform_probs()
    rows = tree.infosets_of(1)
    probs[rows] = [1 - aggression, aggression]
    return probs


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="nash_memory_output")
    parser.add_argument("--deck", type=int, default=8)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tree = compile_game(KuhnPokerGame(args.deck))
    value = policy_values(tree, _nash(tree))[0]

    # 1. the plain run
    pnm = ParallelNashMemory(tree).iterate(50)
    hist = pnm.history
    its = [r.iteration for r in hist]
    plt = require_matplotlib()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax.plot(its, [r.worst_case[0] for r in hist], marker="o", label="gambler (player 0)")
    ax.plot(
        its,
        [-r.worst_case[1] for r in hist],
        marker="s",
        label="dealer (player 1), as the gambler's payoff it concedes at most",
    )
    ax.axhline(value, color="k", linestyle="--", label=f"game value {value:.4f}")
    ax.set(
        xlabel="iteration",
        ylabel="payoff to the gambler (chips)",
        title=f"PNM on {args.deck}-card poker: worst-case payoffs",
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax2.plot(its, [r.support_sizes[0] for r in hist], marker="o", label="gambler support")
    ax2.plot(its, [r.policies[0] for r in hist], marker=".", label="gambler policies (N u M)")
    ax2.plot(its, [r.support_sizes[1] for r in hist], marker="s", label="dealer support")
    ax2.set(xlabel="iteration", ylabel="pure policies", title="support and memory")
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "pnm_worst_case.png", dpi=110)
    plt.close(fig)

    # 2. security versus best response against an estimated opponent model
    model = loose_dealer(tree)
    start = [
        best_response_heuristic(_Shim(tree), 0, model),
        best_response_heuristic(_Shim(tree), 1, tree.uniform_probs()),
    ]
    pnm2 = ParallelNashMemory(tree, initial_policies=start)
    seat0 = (tree.infoset_player == 0)[:, None]
    worst, vs_model = [], []
    for _ in range(50):
        profile = pnm2.mixture_profile()
        vs_model.append(policy_values(tree, np.where(seat0, profile, model))[0])
        pnm2.iterate(1)
        worst.append(pnm2.history[-1].worst_case[0])
        if pnm2.converged:
            break
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(range(1, len(worst) + 1), worst, marker="o", label="worst-case payoff")
    ax.plot(range(1, len(vs_model) + 1), vs_model, marker="s", label="payoff against the model")
    ax.axhline(value, color="k", linestyle="--", label=f"game value {value:.4f}")
    ax.set(
        xlabel="iteration",
        ylabel="gambler's payoff (chips)",
        title="Security versus best response (start: BR to a loose dealer)",
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "pnm_security_vs_model.png", dpi=110)
    plt.close(fig)
    last = hist[-1]
    print(
        f"{args.deck}-card poker: value {value:.5f}; PNM converged={pnm.converged} after "
        f"{last.iteration} iterations; worst case {last.worst_case[0]:.5f}; support "
        f"{last.support_sizes[0]} of {last.policies[0]} gambler policies"
    )
    print(
        f"security vs model: worst case {worst[0]:.4f} -> {worst[-1]:.4f}, payoff vs model "
        f"{vs_model[0]:.4f} -> {vs_model[-1]:.4f} over {len(worst)} iterations"
    )
    print(f"plots: {out / 'pnm_worst_case.png'}, {out / 'pnm_security_vs_model.png'}")
    return {"history": hist, "worst": worst, "vs_model": vs_model, "value": value}


class _Shim:
    """The part of a ParallelNashMemory that best_response_heuristic reads."""

    def __init__(self, tree):
        self.tree = tree


def _nash(tree):
    from nashzoo.agents.cfr import CFRPlusSolver

    return CFRPlusSolver(tree).iterate(3000).average_policy().probs


if __name__ == "__main__":
    main()
