"""NFSP on Leduc Hold'em: nashzoo vs OpenSpiel's ``open_spiel.python.pytorch.nfsp``,
same wall-clock budget, one torch thread each, in one run.

OpenSpiel runs its Leduc example's hyper-parameters (hidden layer 128, SGD 0.01, replay
2e5, reservoir 2e6, eta 0.1, batch 128, learn every 64, target every 19200 steps,
epsilon 0.06 -> 0.001 over 2e7); nashzoo runs its defaults (the same, but Adam 1e-3,
replay 2e4, target every 50 learning steps; see ``NFSPConfig``) and plays
``batch_games`` games at once. The
exploitability of each average policy is measured exactly every ``--eval-every`` seconds of
training (evaluation time excluded from both clocks) and plotted against seconds.

Goal (issue 5): at least 5x OpenSpiel's episodes per second, and at most half of its
exploitability at 10 minutes. Needs ``open_spiel``, ``torch`` and ``dm-tree``.
Usage: ``python benchmarks/nfsp_vs_openspiel.py [--minutes 10] [--eval-every 60]``
"""

from __future__ import annotations

import argparse
import platform
import time
from datetime import date

import torch

GAMES = {
    "leduc": ("nashzoo/leduc_holdem-v0", "leduc_poker"),
    "kuhn": ("nashzoo/kuhn_poker-v0", "kuhn_poker"),
}
GAME = "leduc"


def run_ours(seconds: float, eval_every: float, seed: int):
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.envs import make_game

    nfsp = NFSP(make_game(GAMES[GAME][0]), NFSPConfig(seed=seed))
    curve = []

    def record(m):
        curve.append((m.seconds, m.episodes, m.exploitability()))
        print(
            f"  nashzoo   {m.seconds:7.1f} s {m.episodes:>10,} episodes "
            f"exploitability {curve[-1][2]:.4f}",
            flush=True,
        )

    nfsp.train(seconds=seconds, callback=record, callback_every=eval_every)
    return curve


def run_openspiel(seconds: float, eval_every: float, seed: int):
    from open_spiel.python import policy, rl_environment
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import nfsp

    env = rl_environment.Environment(GAMES[GAME][1], players=2)
    info_state_size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    kwargs = dict(
        replay_buffer_capacity=int(2e5),
        reservoir_buffer_capacity=int(2e6),
        min_buffer_size_to_learn=1000,
        anticipatory_param=0.1,
        batch_size=128,
        learn_every=64,
        rl_learning_rate=0.01,
        sl_learning_rate=0.01,
        optimizer_str="sgd",
        loss_str="mse",
        update_target_network_every=19200,
        discount_factor=1.0,
        epsilon_decay_duration=int(20e6),
        epsilon_start=0.06,
        epsilon_end=0.001,
    )
    torch.manual_seed(seed)
    agents = [
        nfsp.NFSP(i, info_state_size, num_actions, [128], seed=seed + i, **kwargs) for i in range(2)
    ]

    class Policies(policy.Policy):
        def __init__(self):
            super().__init__(env.game, [0, 1])
            self._obs = {"info_state": [None, None], "legal_actions": [None, None]}

        def action_probabilities(self, state, player_id=None):
            p = state.current_player()
            legal = state.legal_actions(p)
            self._obs["current_player"] = p
            self._obs["info_state"][p] = state.information_state_tensor(p)
            self._obs["legal_actions"][p] = legal
            step = rl_environment.TimeStep(
                observations=self._obs, rewards=None, discounts=None, step_type=None
            )
            with agents[p].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                probs = agents[p].step(step, is_evaluation=True).probs
            return {a: probs[a] for a in legal}

    curve = []
    trained = 0.0
    episodes = 0
    next_eval = eval_every
    while trained < seconds:
        start = time.perf_counter()
        for _ in range(100):
            step = env.reset()
            while not step.last():
                p = step.observations["current_player"]
                out = agents[p].step(step)
                step = env.step([out.action])
            for agent in agents:
                agent.step(step)
        trained += time.perf_counter() - start
        episodes += 100
        if trained >= next_eval or trained >= seconds:
            next_eval += eval_every
            expl = exploitability.exploitability(env.game, Policies())
            curve.append((trained, episodes, expl))
            print(
                f"  OpenSpiel {trained:7.1f} s {episodes:>10,} episodes exploitability {expl:.4f}",
                flush=True,
            )
    return curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--eval-every", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default="benchmarks/nfsp_vs_openspiel.png")
    parser.add_argument("--only", choices=["ours", "openspiel"], default=None)
    parser.add_argument("--game", choices=list(GAMES), default="leduc")
    args = parser.parse_args()
    global GAME
    GAME = args.game
    torch.set_num_threads(1)
    seconds = 60 * args.minutes
    print(
        f"date {date.today()}  machine {platform.machine()}  python "
        f"{platform.python_version()}  torch {torch.__version__}  threads 1"
    )
    curves = {}
    if args.only in (None, "ours"):
        curves["nashzoo NFSP"] = run_ours(seconds, args.eval_every, args.seed)
    if args.only in (None, "openspiel"):
        curves["OpenSpiel NFSP (pytorch)"] = run_openspiel(seconds, args.eval_every, args.seed)
    print("\n| implementation | seconds | episodes | episodes/s | exploitability |")
    print("|---|---:|---:|---:|---:|")
    for name, curve in curves.items():
        s, e, x = curve[-1]
        print(f"| {name} | {s:.0f} | {e:,} | {e / s:,.0f} | {x:.4f} |")
    if len(curves) == 2:
        (_, a), (_, b) = curves.items()
        rate = (a[-1][1] / a[-1][0]) / (b[-1][1] / b[-1][0])
        print(f"\nepisodes/s ratio nashzoo / OpenSpiel: {rate:.1f}x (goal >= 5x)")
        print(
            f"exploitability ratio nashzoo / OpenSpiel at {args.minutes:g} min: "
            f"{a[-1][2] / b[-1][2]:.2f} (goal <= 0.5)"
        )
    if args.plot and curves:
        from nashzoo.eval.plots import require_matplotlib

        plt = require_matplotlib()
        fig, ax = plt.subplots(figsize=(7, 4.3))
        for name, curve in curves.items():
            ax.plot([c[0] for c in curve], [c[2] for c in curve], marker=".", label=name)
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="training seconds (1 torch thread)",
            ylabel="exploitability of the average policy (chips)",
            title=f"NFSP on {GAMES[GAME][1]}",
        )
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
