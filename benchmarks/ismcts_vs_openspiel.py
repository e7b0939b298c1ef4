"""Information-set MCTS: nashzoo's MT-ISMCTS and Nash-ISMCTS vs OpenSpiel's ``ISMCTSBot``.

Two measurements, one run:

1. Exploitability (chips) of the search policy against simulations per move, on Kuhn
   poker and Leduc Hold'em: one search at every information set, the move distribution
   assembled into a policy, exact exploitability (OpenSpiel's is_mcts_exploitability
   protocol). Contenders: OpenSpiel's C++ ``ISMCTSBot`` (uct_c 2, one random rollout per
   leaf, final policy NORMALIZED_VISIT_COUNT, unlimited world samples, no resampling);
   nashzoo's MT-ISMCTS (UCB1 with the same constant on the same chip scale, random
   rollouts, spawned opponent trees up to 3 levels, visit-proportional final policy);
   nashzoo's Nash-ISMCTS with self-play-trained networks (an agent file from
   ``nashzoo train nash-ismcts``, or trained here for ``--kuhn-minutes`` /
   ``--leduc-minutes``), beside the exploitability of its own network policy P.
2. Simulations per second of MT-ISMCTS and OpenSpiel's bot at those equal settings
   (searching every information set; Kuhn 10,000 and Leduc 1,000 simulations per search),
   interleaved, median of ``--repeats``.

Goals (issue 12): Kuhn, Nash-ISMCTS <= 0.05 at 10,000 simulations and not rising from
1,000 to 100,000; Leduc, after <= 15 minutes of self-play, <= 0.3 at 1,000 simulations,
no worse than P, not rising from 100 to 3,000; MT-ISMCTS >= 5x OpenSpiel's simulations
per second. Needs ``open_spiel`` (``pip install open_spiel``) and torch.

Usage: ``python benchmarks/ismcts_vs_openspiel.py [--kuhn-agent k.pt] [--leduc-agent l.pt]
[--kuhn-minutes 5] [--leduc-minutes 15] [--repeats 3] [--plot benchmarks/ismcts_vs_openspiel.png]``
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, one_thread, runs_text

UCT_C = 2.0
KUHN_COUNTS = [10, 100, 1000, 10_000, 100_000]
LEDUC_COUNTS = [100, 300, 1000, 3000]
OPENSPIEL_COUNTS = {"kuhn_poker": [10, 100, 1000, 10_000], "leduc_holdem": [100, 1000]}
SPEED_SIMULATIONS = {"kuhn_poker": 10_000, "leduc_holdem": 1000}
OPENSPIEL_NAME = {"kuhn_poker": "kuhn_poker", "leduc_holdem": "leduc_poker"}


def openspiel_search(
    game_name: str, simulations: int, seed: int = 0, final: str = "NORMALIZED_VISIT_COUNT"
) -> tuple[float, int, float]:
    """(exploitability, simulations run, seconds) of OpenSpiel's ISMCTSBot searched at
    every information set (``final``: its final-policy type)."""
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game(OPENSPIEL_NAME[game_name])
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.ISMCTSBot(
        seed,
        evaluator,
        UCT_C,
        simulations,
        -1,  # max_world_samples: unlimited
        getattr(pyspiel.ISMCTSFinalPolicyType, final),
        False,  # use_observation_string
        False,  # allow_inconsistent_action_sets
    )
    table = os_policy.TabularPolicy(game)
    start = time.perf_counter()
    for state in table.states:
        row = table.policy_for_key(state.information_state_string())
        row[:] = 0.0
        for action, p in bot.get_policy(state):
            row[action] = p
    seconds = time.perf_counter() - start
    return (
        float(exploitability.exploitability(game, table)),
        simulations * len(table.states),
        seconds,
    )


def ours_search(tables: Any, config: Any, seed: int = 0) -> tuple[float, int, float]:
    """(exploitability, simulations run, seconds) of one nashzoo search per information set."""
    from nashzoo.agents.ismcts import CompiledSearch
    from nashzoo.tree import nash_conv_array

    tree = tables.tree
    search = CompiledSearch(tables, config)
    search.run(0, 0)  # numba's compiled code is loaded before the clock starts
    probs = np.zeros(tree.legal_mask.shape)
    sims = 0
    start = time.perf_counter()
    for i in range(tree.num_infosets):
        result = search.run(i, np.random.SeedSequence([seed, i]))
        probs[i] = result.policy
        sims += result.simulations
    seconds = time.perf_counter() - start
    return float(nash_conv_array(tree, probs) / 2), sims, seconds


def mt_config(game: Any, simulations: int) -> Any:
    from nashzoo.agents.ismcts import SearchConfig
    from nashzoo.agents.ismcts.tables import payoff_scale
    from nashzoo.tree import compile_game

    # nashzoo scales payoffs to [-1, 1]; the same exploration in chips is uct_c / scale
    scale = payoff_scale(compile_game(game))
    return SearchConfig(variant="mt", simulations=simulations, c_uct=UCT_C / scale)


def trained_agent(
    game: Any, path: str | None, minutes: float, actors: int, seed: int, save: str | None
) -> tuple[Any, str]:
    from nashzoo.agents.ismcts import ISMCTSAgent
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig

    if path:
        return ISMCTSAgent.load(path, game), f"agent file {path}"
    start = time.perf_counter()
    config = TrainConfig(
        actors=actors or None, backend="ray" if actors else "local", search_every=10, seed=seed
    )
    trainer = NashISMCTS(game, config).train(seconds=60 * minutes)
    if save:
        trainer.save(save)
    took = time.perf_counter() - start
    last = trainer.history[-1]
    return trainer.agent(), (
        f"trained here (seed {seed}, {actors} Ray actors): {last.generation} "
        f"generations, {last.games:,} games in {took / 60:.1f} min"
        + (f"; saved to {save}" if save else "")
    )


def mean_over_seeds(tables: Any, config: Any, seeds: int) -> tuple[float, float]:
    """Mean and standard error over ``seeds`` of the search operator's exploitability."""
    values = [ours_search(tables, config, seed)[0] for seed in range(seeds)]
    return float(np.mean(values)), float(np.std(values) / np.sqrt(len(values)))


def goal_lines(name: str, nash: dict[int, tuple[float, float]], prior: float) -> list[str]:
    """The issue's goals for Nash-ISMCTS on this game, met or missed, with the figures.
    "Not rising" allows two standard errors of the difference (the search is sampled)."""

    def not_rising(a: int, b: int) -> str:
        (ma, sa), (mb, sb) = nash[a], nash[b]
        slack = 2 * float(np.hypot(sa, sb))
        verdict = "met" if mb <= ma + slack else "MISSED"
        return (
            f"not rising from {a:,} to {b:,}: {ma:.4f} -> {mb:.4f} (2 s.e. {slack:.4f}): {verdict}"
        )

    if name == "kuhn_poker":
        e = nash[10_000][0]
        return [
            f"kuhn: Nash-ISMCTS {e:.4f} at 10,000 simulations (goal <= 0.05): "
            + ("met" if e <= 0.05 else "MISSED"),
            "kuhn: " + not_rising(1000, 100_000),
        ]
    e = nash[1000][0]
    return [
        f"leduc: Nash-ISMCTS {e:.4f} at 1,000 simulations (goal <= 0.3): "
        + ("met" if e <= 0.3 else "MISSED"),
        f"leduc: no worse than its prior P ({prior:.4f}): " + ("met" if e <= prior else "MISSED"),
        "leduc: " + not_rising(100, 3000),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kuhn-agent", default=None, help="a trained Nash-ISMCTS .pt for Kuhn")
    parser.add_argument("--leduc-agent", default=None, help="a trained Nash-ISMCTS .pt for Leduc")
    parser.add_argument("--kuhn-minutes", type=float, default=5.0)
    parser.add_argument("--leduc-minutes", type=float, default=15.0)
    parser.add_argument(
        "--actors", type=int, default=2, help="self-play Ray actors when training (0: none)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1, help="training seed")
    parser.add_argument(
        "--search-seeds", type=int, default=5, help="seeds per Nash-ISMCTS point (mean, s.e.)"
    )
    parser.add_argument("--save-agents", default=None, help="folder for the trained .pt files")
    parser.add_argument("--plot", default="benchmarks/ismcts_vs_openspiel.png")
    args = parser.parse_args()
    one_thread()
    import pyspiel

    from nashzoo.agents.ismcts import SearchConfig, SearchTables
    from nashzoo.games import KuhnPokerGame, LeducHoldemGame
    from nashzoo.tree import compile_game, nash_conv_array

    print(
        machine_line()
        + f"  open_spiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''}"
    )
    print(
        f"settings: OpenSpiel ISMCTSBot(uct_c={UCT_C}, RandomRolloutEvaluator(1 rollout), "
        "NORMALIZED_VISIT_COUNT, max_world_samples=-1); nashzoo MT-ISMCTS(c_uct=uct_c/payoff "
        "scale, random rollouts, spawn_cap=3, final policy visits; also at its own default "
        "c_uct=2 on payoffs scaled to [-1, 1]); Nash-ISMCTS "
        "(trained networks, the agent file's eps and c_puct, LCB move selection)"
    )
    games = {"kuhn_poker": KuhnPokerGame(), "leduc_holdem": LeducHoldemGame()}
    curves: dict[str, dict[str, list[tuple[int, float]]]] = {}
    speed_rows = []
    verdicts: list[str] = []
    for name, game in games.items():
        print(f"\n== {name}")
        tree = compile_game(game)
        counts = KUHN_COUNTS if name == "kuhn_poker" else LEDUC_COUNTS
        path = args.kuhn_agent if name == "kuhn_poker" else args.leduc_agent
        minutes = args.kuhn_minutes if name == "kuhn_poker" else args.leduc_minutes
        save = None
        if args.save_agents:
            os.makedirs(args.save_agents, exist_ok=True)
            save = os.path.join(args.save_agents, f"nash-ismcts-{name}.pt")
        agent, origin = trained_agent(game, path, minutes, args.actors, args.seed, save)
        tables = agent.tables
        prior = float(nash_conv_array(tree, tables.prior) / 2)
        print(
            f"Nash-ISMCTS networks: {origin}; search eps {agent.config.eps}, c_puct "
            f"{agent.config.c_puct}, LCB move selection"
        )
        from nashzoo.agents.ismcts.losses import belief_kl

        print(
            f"exploitability of the network's own policy P: {prior:.4f}; belief head H: mean "
            f"KL {belief_kl(tables):.4f} from Bayes' rule under P (the spec asks < 0.01)"
        )
        lines: dict[str, list[tuple[int, float]]] = {
            "OpenSpiel ISMCTS": [],
            "OpenSpiel ISMCTS (MAX_VISIT_COUNT)": [],
            "nashzoo MT-ISMCTS": [],
            "nashzoo MT-ISMCTS (its default c_uct)": [],
        }
        lines["nashzoo Nash-ISMCTS (trained)"] = []
        for n in OPENSPIEL_COUNTS[name]:
            e, _, s = openspiel_search(name, n)
            lines["OpenSpiel ISMCTS"].append((n, e))
            print(
                f"  OpenSpiel ISMCTS       n={n:>7,}  exploitability {e:.4f}  ({s:.1f} s)",
                flush=True,
            )
        for n in OPENSPIEL_COUNTS[name]:
            e, _, s = openspiel_search(name, n, final="MAX_VISIT_COUNT")
            lines["OpenSpiel ISMCTS (MAX_VISIT_COUNT)"].append((n, e))
            print(
                f"  OpenSpiel ISMCTS MAX_VISIT_COUNT  n={n:>7,}  exploitability {e:.4f}  "
                f"({s:.1f} s)",
                flush=True,
            )
        for n in OPENSPIEL_COUNTS[name]:
            e, _, s = ours_search(SearchTables.uninformed(tree), mt_config(game, n))
            lines["nashzoo MT-ISMCTS"].append((n, e))
            print(
                f"  nashzoo MT-ISMCTS      n={n:>7,}  exploitability {e:.4f}  ({s:.1f} s)",
                flush=True,
            )
        for n in OPENSPIEL_COUNTS[name]:
            default = SearchConfig(variant="mt", simulations=n)
            e, _, s = ours_search(SearchTables.uninformed(tree), default)
            lines["nashzoo MT-ISMCTS (its default c_uct)"].append((n, e))
            print(
                f"  nashzoo MT-ISMCTS c_uct {default.c_uct:g} (scaled payoffs)  n={n:>7,}  "
                f"exploitability {e:.4f}  ({s:.1f} s)",
                flush=True,
            )
        nash: dict[int, tuple[float, float]] = {}
        for n in counts:
            config = dataclasses.replace(agent.config, simulations=n)
            nash[n] = mean_over_seeds(tables, config, args.search_seeds)
            lines["nashzoo Nash-ISMCTS (trained)"].append((n, nash[n][0]))
            print(
                f"  nashzoo Nash-ISMCTS    n={n:>7,}  exploitability {nash[n][0]:.4f} "
                f"+- {nash[n][1]:.4f} (s.e., {args.search_seeds} seeds)",
                flush=True,
            )
        verdicts.extend(goal_lines(name, nash, prior))
        lines["network P (no search)"] = [(counts[0], prior), (counts[-1], prior)]
        curves[name] = lines

        sims = SPEED_SIMULATIONS[name]
        ours_tables = SearchTables.uninformed(tree)

        def ours_rate(tables=ours_tables, game=game, sims=sims) -> float:
            _, done, s = ours_search(tables, mt_config(game, sims))
            return done / s

        def theirs_rate(name=name, sims=sims) -> float:
            _, done, s = openspiel_search(name, sims)
            return done / s

        print(f"simulations per second, {sims:,} per search at every information set:")
        rates = interleaved(
            {"nashzoo MT-ISMCTS": ours_rate, "OpenSpiel ISMCTSBot (C++)": theirs_rate},
            repeats=args.repeats,
        )
        ours_m, theirs_m = (
            median(rates["nashzoo MT-ISMCTS"]),
            median(rates["OpenSpiel ISMCTSBot (C++)"]),
        )
        speed_rows.append((name, sims, ours_m, theirs_m, rates))

    print(
        "\n| game | simulations/search | nashzoo MT-ISMCTS sims/s | OpenSpiel sims/s | ratio "
        "| runs (ours; OpenSpiel) |"
    )
    print("|---|---:|---:|---:|---:|---|")
    for name, sims, ours_m, theirs_m, rates in speed_rows:
        print(
            f"| {name} | {sims:,} | {ours_m:,.0f} | {theirs_m:,.0f} | {ours_m / theirs_m:.2f}x | "
            f"{runs_text(rates['nashzoo MT-ISMCTS'])}; "
            f"{runs_text(rates['OpenSpiel ISMCTSBot (C++)'])} |"
        )
    print(
        "\n| game | contender | "
        + " | ".join(
            f"n={n:,}"
            for n in sorted({n for c in curves.values() for line in c.values() for n, _ in line})
        )
        + " |"
    )
    for name, lines in curves.items():
        for label, points in lines.items():
            print(
                f"| {name} | {label} | " + " | ".join(f"{n:,}: {e:.4f}" for n, e in points) + " |"
            )

    for name, _sims, ours_m, theirs_m, _rates in speed_rows:
        ratio = ours_m / theirs_m
        verdicts.append(
            f"{name}: MT-ISMCTS {ratio:.1f}x OpenSpiel's simulations/s (goal >= 5x): "
            + ("met" if ratio >= 5 else "MISSED")
        )
    print("\ngoals (issue 12):")
    for line in verdicts:
        print("  " + line)

    if args.plot:
        from nashzoo.eval.plots import require_matplotlib

        plt = require_matplotlib()
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for ax, (name, lines) in zip(axes, curves.items()):
            for label, points in lines.items():
                style = ":" if label.startswith("network P") else "-"
                ax.plot(
                    [n for n, _ in points], [e for _, e in points], style, marker="o", label=label
                )
            if name == "kuhn_poker":
                ax.axhline(1 / 6, color="grey", lw=0.8, ls="--", label="1/6: best pure profile")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("simulations per move")
            ax.set_ylabel("exploitability of the search (chips)")
            ax.set_title(name)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"\nplot written to {args.plot}")


if __name__ == "__main__":
    main()
