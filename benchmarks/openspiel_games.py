"""Liar's Dice and Goofspiel against OpenSpiel's (issue 93), in one run, interleaved,
median of ``--repeats``:

* ``env``: random legal play, decisions per second: ``nashzoo/liars_dice-v0`` or
  ``nashzoo/goofspiel-v0`` (13 cards, hidden bids) through the full wrapped AEC loop
  (``agent_iter`` / ``last`` / ``step``) against OpenSpiel's C++ game in the same loop
  through Shimmy's PettingZoo wrapper (the goal's peer: at least 5x), and, for
  reference, its ``rl_environment`` and its raw ``pyspiel`` states (no env API: the
  fastest way to step it from Python; Goofspiel's simultaneous moves as joint actions).
* ``cfr``: CFR+ iterations per second on Liar's Dice with one die of six faces, or
  Goofspiel with 5 cards (OpenSpiel's turn-based conversion of it), against OpenSpiel's
  C++ ``CFRPlusSolver``, and both exact exploitabilities after the same iterations (they
  must agree within rounding; where rounding breaks an exact tie the two runs part,
  and ``python -m tests.exact_cfr`` gives the rounding-free figure). Goal: at least 30x.
* ``alpharank``: alpha-Rank's stationary distribution against OpenSpiel's
  ``alpharank.compute`` on the same 100 payoff tables: equal to 1e-6 (the goal), and
  tables per second.

Usage: ``python benchmarks/openspiel_games.py [--game liars_dice|goofspiel]
[--sections env,cfr,alpharank] [--episodes 20000] [--iterations 30] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, runs_text
from env_throughput import openspiel_play, random_play, rules_play

import nashzoo

GAMES = {
    "liars_dice": ("nashzoo/liars_dice-v0", {}, "liars_dice", {}),
    "goofspiel": ("nashzoo/goofspiel-v0", {}, "goofspiel", {"imp_info": True}),
}
"""Our env id and parameters, OpenSpiel's game name and parameters."""


def _openspiel_game(name: str):
    import pyspiel

    _, _, theirs, params = GAMES[name]
    return pyspiel.load_game(theirs, params)


def shimmy_play(name: str, games: int, seed: int = 0) -> tuple[int, float]:
    """OpenSpiel's game as a PettingZoo AEC env through Shimmy's
    ``OpenSpielCompatibilityV0``, the same user loop: (decisions, seconds)."""
    from shimmy import OpenSpielCompatibilityV0

    env = OpenSpielCompatibilityV0(_openspiel_game(name))
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(info["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
            done += 1
    return done, time.perf_counter() - start


def env_section(name: str, episodes: int, repeats: int) -> None:
    env_id, params, _, _ = GAMES[name]
    env = nashzoo.make(env_id, **params)
    random_play(env, games=500, seed=1)  # warm-up

    def ours() -> float:
        decisions, _, seconds = random_play(env, games=episodes)
        return decisions / seconds

    def rl_env() -> float:
        decisions, _, seconds = openspiel_play(episodes, game=_openspiel_game(name))
        return decisions / seconds

    def states() -> float:
        decisions, _, seconds = rules_play(_openspiel_game(name), episodes)
        return decisions / seconds

    def shimmy() -> float:
        decisions, seconds = shimmy_play(name, episodes // 4)
        return decisions / seconds

    runs = interleaved(
        {
            f"{env_id} (AEC)": ours,
            "OpenSpiel through Shimmy (PettingZoo AEC)": shimmy,
            f"OpenSpiel rl_environment {name}": rl_env,
            "OpenSpiel pyspiel states": states,
        },
        repeats,
    )
    ours_key = f"{env_id} (AEC)"
    base = median(runs[ours_key])
    print(f"\nenv: random play, {episodes:,} episodes, decisions/s (median of {repeats})")
    for label, values in runs.items():
        ratio = "" if label == ours_key else f"  ours {base / median(values):.2f}x"
        print(f"  {label:40s} {median(values):>12,.0f}  (runs {runs_text(values)}){ratio}")


def cfr_section(name: str, iterations: int, repeats: int) -> None:
    import pyspiel

    from nashzoo.agents.cfr import make_solver
    from nashzoo.games import GoofspielGame, LiarsDiceGame
    from nashzoo.tree import compile_game, nash_conv_array

    if name == "liars_dice":
        tree = compile_game(LiarsDiceGame())
        game = pyspiel.load_game("liars_dice")
    else:  # 5 cards; OpenSpiel's CFR runs on its turn-based conversion
        tree = compile_game(GoofspielGame(num_cards=5))
        game = pyspiel.convert_to_turn_based(
            pyspiel.load_game("goofspiel", {"num_cards": 5, "imp_info": True})
        )
    make_solver("cfr+", tree).iterate(2)  # compile the kernels outside the clock
    values: dict[str, float] = {}

    def ours() -> float:
        solver = make_solver("cfr+", tree)
        start = time.perf_counter()
        solver.iterate(iterations)
        seconds = time.perf_counter() - start
        values["ours"] = nash_conv_array(tree, solver.average_policy().probs) / 2
        return iterations / seconds

    def theirs() -> float:
        solver = pyspiel.CFRPlusSolver(game)
        start = time.perf_counter()
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        seconds = time.perf_counter() - start
        values["theirs"] = pyspiel.exploitability(game, solver.average_policy())
        return iterations / seconds

    runs = interleaved({"nashzoo CFR+": ours, "OpenSpiel C++ CFR+": theirs}, repeats)
    a, b = median(runs["nashzoo CFR+"]), median(runs["OpenSpiel C++ CFR+"])
    print(f"\ncfr: CFR+ on {tree.game} ({tree.num_nodes:,} histories), {iterations} iterations")
    print(f"  nashzoo   {a:10.2f} iterations/s  (runs {runs_text(runs['nashzoo CFR+'], '.2f')})")
    print(
        f"  OpenSpiel {b:10.2f} iterations/s  (runs {runs_text(runs['OpenSpiel C++ CFR+'], '.2f')})"
    )
    print(f"  ratio {a / b:.1f}x (goal 30x); exploitability after {iterations}: ours "
          f"{values['ours']:.8f}, OpenSpiel's {values['theirs']:.8f}")  # fmt: skip


def alpharank_section(repeats: int) -> None:
    """alpha-Rank's stationary distribution against OpenSpiel's ``alpharank.compute``
    (single population) on the same payoff tables: random antisymmetric tables of 2 to
    32 agents at four (alpha, population) settings, five each; the largest difference
    and the time for all of them."""
    from open_spiel.python.egt import alpharank

    from nashzoo.eval.ratings import alpha_rank

    rng = np.random.default_rng(0)
    tables = []
    for alpha, m, scale in ((1.0, 50, 1.0), (10.0, 20, 0.1), (100.0, 50, 0.01), (0.1, 5, 3.0)):
        for n in (2, 4, 8, 16, 32):
            for _ in range(5):
                a = rng.normal(size=(n, n)) * scale
                tables.append((a - a.T, alpha, m))
    found: dict[str, list[np.ndarray]] = {}

    def ours() -> float:
        start = time.perf_counter()
        found["ours"] = [alpha_rank(a, alpha=alpha, population=m) for a, alpha, m in tables]
        return len(tables) / (time.perf_counter() - start)

    def theirs() -> float:
        start = time.perf_counter()
        found["theirs"] = [alpharank.compute([a], m=m, alpha=alpha)[2] for a, alpha, m in tables]
        return len(tables) / (time.perf_counter() - start)

    runs = interleaved({"nashzoo alpha_rank": ours, "OpenSpiel alpharank": theirs}, repeats)
    worst = max(float(np.abs(x - y).max()) for x, y in zip(found["ours"], found["theirs"]))
    a, b = median(runs["nashzoo alpha_rank"]), median(runs["OpenSpiel alpharank"])
    print(f"\nalpharank: {len(tables)} tables of 2 to 32 agents; largest difference {worst:.1e} "
          f"(goal 1e-6)")  # fmt: skip
    print(f"  nashzoo   {a:10.1f} tables/s  (runs {runs_text(runs['nashzoo alpha_rank'], '.1f')})")
    print(f"  OpenSpiel {b:10.1f} tables/s  (runs {runs_text(runs['OpenSpiel alpharank'], '.1f')})")
    print(f"  ratio {a / b:.1f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="liars_dice")
    parser.add_argument("--sections", default="env,cfr")
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_line())
    sections = args.sections.split(",")
    if "env" in sections:
        env_section(args.game, args.episodes, args.repeats)
    if "cfr" in sections:
        cfr_section(args.game, args.iterations, args.repeats)
    if "alpharank" in sections:
        alpharank_section(args.repeats)


if __name__ == "__main__":
    main()
