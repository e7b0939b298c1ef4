"""NFSP on Leduc Hold'em: nashzoo vs OpenSpiel's ``open_spiel.python.pytorch.nfsp`` with
the same hyper-parameters, one torch thread each, interleaved, median of ``--repeats``.

Both run the same learners: hidden layer 128 in both networks, Adam at 1e-3 for both,
replay 2e4 and reservoir 2e6 transitions, eta (anticipatory) 0.1, batch 128, a learning
step every 64 transitions, the DQN target copied every 3,200 transitions (50 learning
steps), epsilon 0.06 -> 0.001 over 2e7, MSE loss, at least 1,000 transitions before
learning. nashzoo plays ``batch_games`` games at once (its decisions share one forward
pass); OpenSpiel plays one game at a time through ``rl_environment``.

Each repeat (seed = repeat number) runs, in turn:

* OpenSpiel for ``--minutes`` of training;
* nashzoo for the same time (equal time);
* nashzoo for as many episodes as OpenSpiel played (equal episodes).

The exploitability of each average policy is measured exactly at the end (and every
``--eval-every`` seconds for the plot), evaluation time excluded from the clocks.
Goals (issue 5): at least 5x OpenSpiel's episodes per second; at most half of its
exploitability at equal time. Needs ``open_spiel``, ``torch`` and ``dm-tree``.
Usage: ``python benchmarks/nfsp_vs_openspiel.py [--minutes 2] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, median, one_thread

HIDDEN = 128
SETTINGS = dict(
    replay=20_000,
    reservoir=2_000_000,
    min_learn=1000,
    eta=0.1,
    batch=128,
    learn_every=64,
    lr=1e-3,
    target_every_learning_steps=50,
    eps_start=0.06,
    eps_end=0.001,
    eps_steps=20_000_000,
)


def run_ours(
    seed: int, *, seconds: float | None = None, episodes: int | None = None, eval_every: float = 1e9
) -> list[tuple[float, int, float]]:
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.envs import make_game

    s = SETTINGS
    config = NFSPConfig(
        hidden_sizes=(HIDDEN,),
        replay_capacity=s["replay"],
        reservoir_capacity=s["reservoir"],
        min_buffer_to_learn=s["min_learn"],
        anticipatory=s["eta"],
        batch_size=s["batch"],
        learn_every=s["learn_every"],
        rl_learning_rate=s["lr"],
        sl_learning_rate=s["lr"],
        optimizer="adam",
        target_update_every=s["target_every_learning_steps"],
        epsilon_start=s["eps_start"],
        epsilon_end=s["eps_end"],
        epsilon_decay_steps=s["eps_steps"],
        loss="mse",
        seed=seed,
    )
    nfsp = NFSP(make_game("nashzoo/leduc_holdem-v0"), config)
    curve: list[tuple[float, int, float]] = []

    def record(m):
        curve.append((m.seconds, m.episodes, m.exploitability()))

    nfsp.train(seconds=seconds, steps=episodes, callback=record, callback_every=eval_every)
    return curve


def run_openspiel(seed: int, seconds: float, eval_every: float) -> list[tuple[float, int, float]]:
    import torch
    from open_spiel.python import policy, rl_environment
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import nfsp

    s = SETTINGS
    env = rl_environment.Environment("leduc_poker", players=2)
    info_state_size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    kwargs = dict(
        replay_buffer_capacity=s["replay"],
        reservoir_buffer_capacity=s["reservoir"],
        min_buffer_size_to_learn=s["min_learn"],
        anticipatory_param=s["eta"],
        batch_size=s["batch"],
        learn_every=s["learn_every"],
        rl_learning_rate=s["lr"],
        sl_learning_rate=s["lr"],
        optimizer_str="adam",
        loss_str="mse",
        update_target_network_every=s["target_every_learning_steps"] * s["learn_every"],
        discount_factor=1.0,
        epsilon_decay_duration=s["eps_steps"],
        epsilon_start=s["eps_start"],
        epsilon_end=s["eps_end"],
    )
    torch.manual_seed(seed)
    agents = [
        nfsp.NFSP(i, info_state_size, num_actions, [HIDDEN], seed=seed + i, **kwargs)
        for i in range(2)
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

    curve: list[tuple[float, int, float]] = []
    trained, episodes, next_eval = 0.0, 0, eval_every
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
            curve.append((trained, episodes, exploitability.exploitability(env.game, Policies())))
    return curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--eval-every", type=float, default=20.0)
    parser.add_argument("--plot", default="benchmarks/nfsp_vs_openspiel.png")
    args = parser.parse_args()
    one_thread()
    import torch

    print(machine_line() + f"  torch {torch.__version__}, 1 thread")
    seconds = 60 * args.minutes
    rows = {
        "OpenSpiel NFSP (pytorch)": [],
        "nashzoo NFSP, equal time": [],
        "nashzoo NFSP, equal episodes": [],
    }
    curves = {}
    for r in range(args.repeats):
        theirs = run_openspiel(r, seconds, args.eval_every)
        rows["OpenSpiel NFSP (pytorch)"].append(theirs[-1])
        print(
            f"  repeat {r + 1} OpenSpiel: {theirs[-1][1]:,} episodes in {theirs[-1][0]:.1f} s, "
            f"exploitability {theirs[-1][2]:.4f}",
            flush=True,
        )
        ours = run_ours(r, seconds=seconds, eval_every=args.eval_every)
        rows["nashzoo NFSP, equal time"].append(ours[-1])
        print(
            f"  repeat {r + 1} nashzoo (time): {ours[-1][1]:,} episodes in {ours[-1][0]:.1f} s, "
            f"exploitability {ours[-1][2]:.4f}",
            flush=True,
        )
        same = run_ours(r, episodes=theirs[-1][1])
        rows["nashzoo NFSP, equal episodes"].append(same[-1])
        print(
            f"  repeat {r + 1} nashzoo (episodes): {same[-1][1]:,} episodes in "
            f"{same[-1][0]:.1f} s, exploitability {same[-1][2]:.4f}",
            flush=True,
        )
        if r == 0:
            curves = {"OpenSpiel NFSP (pytorch)": theirs, "nashzoo NFSP": ours}
    print("\n| run | seconds | episodes | episodes/s | exploitability (median) | runs |")
    print("|---|---:|---:|---:|---:|---|")
    for name, rs in rows.items():
        rate = median([e / s for s, e, _ in rs])
        print(
            f"| {name} | {median([s for s, _, _ in rs]):.1f} | "
            f"{int(median([e for _, e, _ in rs])):,} | {rate:,.0f} | "
            f"{median([x for *_, x in rs]):.4f} | "
            f"{', '.join(f'{x:.4f}' for *_, x in rs)} |"
        )
    theirs_rate = median([e / s for s, e, _ in rows["OpenSpiel NFSP (pytorch)"]])
    ours_rate = median([e / s for s, e, _ in rows["nashzoo NFSP, equal time"]])
    theirs_x = median([x for *_, x in rows["OpenSpiel NFSP (pytorch)"]])
    print(
        f"\nepisodes/s: nashzoo / OpenSpiel = {ours_rate / theirs_rate:.1f}x (OpenSpiel alone "
        f"{theirs_rate:,.0f} episodes/s; goal >= 5x)"
    )
    print(
        f"exploitability at equal time: nashzoo / OpenSpiel = "
        f"{median([x for *_, x in rows['nashzoo NFSP, equal time']]) / theirs_x:.2f} "
        f"(goal <= 0.5); at equal episodes: "
        f"{median([x for *_, x in rows['nashzoo NFSP, equal episodes']]) / theirs_x:.2f}"
    )
    if args.plot and curves:
        from nashzoo.eval.plots import require_matplotlib

        plt = require_matplotlib()
        fig, (ax_t, ax_e) = plt.subplots(1, 2, figsize=(11, 4.2))
        for name, curve in curves.items():
            ax_t.plot([c[0] for c in curve], [c[2] for c in curve], marker=".", label=name)
            ax_e.plot([c[1] for c in curve], [c[2] for c in curve], marker=".", label=name)
        for ax, xlabel in ((ax_t, "training seconds (1 torch thread)"), (ax_e, "episodes")):
            ax.set(
                xscale="log",
                yscale="log",
                xlabel=xlabel,
                ylabel="exploitability of the average policy (chips)",
            )
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
        fig.suptitle("NFSP on Leduc, same hyper-parameters (repeat 1)", fontsize=10)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
