"""The CFR family on heads-up Limit Hold'em through a card abstraction (issue 35).

Sections (``--section``, repeatable; default all):

* ``leduc``: Leduc Hold'em's abstractions solved and measured by exact exploitability in
  the real game (buckets against exploitability).
* ``speed``: ES-MCCFR iterations (sampled deals, both players traversing) per second on
  the abstract Hold'em game, its tables' memory and the process's peak memory.
* ``solve``: ``--minutes`` of ES-MCCFR on ``--abstraction``, saved to ``--policy``
  (skipped when that file exists and ``--resolve`` is not given).
* ``matches``: the solved agent in duplicate matches with AIVAT against the rule-based
  agent, NFSP (``--nfsp``, a ``.pt`` trained for the same time) and OpenSpiel's
  ``ISMCTSBot`` at ``--openspiel-sims`` simulations per move on ``universal_poker``,
  lockstepped with our engine. The bot states its search's final policy (the one its
  ``step`` samples from), so AIVAT corrects its draws as well as the cards and ours;
  the uncorrected mean of the same games is printed beside each corrected one.
* ``lbr``: LBR lower bounds (``--lbr-hands``, 20 rollouts) of the abstraction agent, NFSP,
  the rule-based agent, and of always-call and always-raise beside their exact
  best-response values published by Johanson et al. (IJCAI 2011): 1,163 and 3,697 mbb/g.
  ``--lbr-agents a,b`` measures only those (e.g. ``abstraction,poker-rules``).

``--workers N`` splits the match against OpenSpiel's bot and each LBR run over N
processes, each with its own seed (independent deals or hands, ``seed + i``); their means
are pooled by hand count and their standard errors combined as those of independent
samples. The bot plays a fixed number of simulations, so a faster or busier machine
changes the time, not the result.

Goals (issue 35): beats the rule-based agent and NFSP (2,000 deals each) and
OpenSpiel's bot (300 deals) with 95% intervals above 0; LBR at most a third of the
rule-based agent's. Deal counts below a goal's are printed as such.

Usage::

    nashzoo train nfsp limit_holdem --minutes 60 --out nfsp.pt
    python benchmarks/holdem_abstraction.py --minutes 60 --policy hulh.npz --nfsp nfsp.pt
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import PUBLISHED_BR, Always, machine_line, one_thread, peak_rss_mib
from nash_ismcts_holdem import OpenSpielISMCTS, match

from nashzoo.cli.common import lbr_hands_arg

HOLDEM = "nashzoo/limit_holdem-v0"
LEDUC_TABLE = [
    ("identity", "cfr+"),
    ("iso", "cfr+"),
    ("ehs2:3,3:perfect", "cfr+"),
    ("ehs:3,3:perfect", "cfr+"),
    ("ehs2:3,100:perfect", "cfr+"),
    ("ehs2:2,3:perfect", "cfr+"),
    ("ehs2:3,3", "es-mccfr"),
    ("ehs2:2,2:perfect", "cfr+"),
    ("ehs2:1,3:perfect", "cfr+"),
    ("ehs2:1,1", "es-mccfr"),
]


def leduc_table() -> None:
    import nashzoo
    from nashzoo.abstraction.small import abstract_tree
    from nashzoo.agents.cfr import make_solver

    game = nashzoo.make_game("nashzoo/leduc_holdem-v0")
    print("\nLeduc Hold'em: abstraction, sets, solver, exploitability in the real game (chips)")
    print("| abstraction | recall | sets | solver | exploitability |")
    print("|---|---|---:|---|---:|")
    for text, algo in LEDUC_TABLE:
        abstract = abstract_tree(game, text)
        if algo == "cfr+":
            solver = make_solver(algo, abstract.tree).iterate(2000)
            budget = "CFR+ 2,000 it"
        else:
            solver = make_solver(algo, abstract.tree, seed=0).iterate(200_000)
            budget = "ES-MCCFR 200,000 it"
        value = abstract.exploitability(solver.average_policy().probs)
        recall = "perfect" if abstract.spec.perfect_recall else "imperfect"
        print(f"| {text} | {recall} | {abstract.num_infosets:,} | {budget} | {value:.4f} |")


def speed(abstraction: str) -> None:
    import nashzoo
    from nashzoo.agents.cfr.abstract import AbstractionSolver

    game = nashzoo.make_game(HOLDEM)
    solver = AbstractionSolver(game, abstraction, seed=0)
    solver.iterate(2000)  # compiled and warm
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        solver.iterate(200_000)
        rates.append(200_000 / (time.perf_counter() - start))
    ab = solver.abstraction
    print(
        f"\nES-MCCFR on {ab.spec}: {ab.num_infosets:,} sets x 3 actions, tables "
        f"{ab.memory_bytes() / 2**20:,.1f} MiB; {np.median(rates):,.0f} iterations/s "
        f"(median of 3 x 200,000; {', '.join(f'{r:,.0f}' for r in rates)}); peak RSS "
        f"{peak_rss_mib():,.0f} MiB"
    )


def solve(abstraction: str, minutes: float, path: Path, lbr_hands: int) -> None:
    import nashzoo
    from nashzoo.agents.cfr.abstract import AbstractionSolver
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.agents.scripted import baselines
    from nashzoo.eval.curves import measure_point, write_points

    game = nashzoo.make_game(HOLDEM)
    solver = AbstractionSolver(game, abstraction, seed=0)
    points: list[Any] = []

    def record(s: AbstractionSolver) -> None:
        agent = AbstractionAgent(s.average_policy(), game, name="abstraction", seed=0)
        point = measure_point(
            game, agent, baselines(game), deals=200, seed=len(points), lbr_hands=lbr_hands,
            step=s.iteration, seconds=s.seconds, step_unit="iterations",
        )  # fmt: skip
        points.append(point)
        print(f"{s.seconds:8.0f} s {s.iteration:>12,} iterations  {point.text()}", flush=True)
        s.average_policy().save(path)
        write_points(points, str(path) + ".curve.json")

    print(f"\nsolving {abstraction} for {minutes:g} minutes -> {path}")
    solver.train(seconds=60 * minutes, callback=record, callback_every=60 * minutes / 4)
    solver.average_policy().save(path)
    plot_curve(path)


def plot_curve(path: Path) -> None:
    """The solve's measured curve beside the policy (``PATH.curve.json`` -> PNG)."""
    from nashzoo.eval.curves import read_points
    from nashzoo.eval.plots import plot_measured

    points = read_points(str(path) + ".curve.json")
    out = Path(str(path) + ".png")
    plot_measured(points, out, title=f"ES-MCCFR on a card abstraction, Limit Hold'em ({path.name})")
    print(f"curve: {out}")


def _pool(parts: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    """One mean and standard error from independent parts ``(mean, stderr, count)``."""
    total = sum(n for _, _, n in parts)
    mean = sum(m * n for m, _, n in parts) / total
    stderr = float(np.sqrt(sum((s * n) ** 2 for _, s, n in parts))) / total
    return mean, stderr, total


def _split(count: int, workers: int) -> list[int]:
    """``count`` split into ``workers`` nearly equal positive parts."""
    workers = max(1, min(workers, count))
    return [count // workers + (i < count % workers) for i in range(workers)]


Part = tuple[tuple[float, float, int], tuple[float, float, int], str]


def _os_part(job: tuple[str, int, int, int]) -> Part:
    """One worker's share of the match against OpenSpiel's bot: the estimate and the
    uncorrected one of the same games, each ``(mean, stderr, deals)``, and the method."""
    one_thread()
    import nashzoo
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.eval.curves import variance_reduction_for
    from nashzoo.eval.matches import head_to_head

    path, sims, deals, seed = job
    game = nashzoo.make_game(HOLDEM)
    ours = AbstractionAgent(Path(path), game, seed=0, name="abstraction")
    bot = OpenSpielISMCTS(game, sims)
    method = variance_reduction_for(game)
    r = head_to_head(game, ours, bot, deals=deals, seed=seed, variance_reduction=method)
    plain = (r.plain_mean, r.plain_stderr) if r.plain_mean is not None else (r.mean, r.stderr)
    return (r.mean, r.stderr, deals), (plain[0], plain[1], deals), method


def _os_match(path: Path, deals: int, sims: int, workers: int) -> None:
    """The match against OpenSpiel's bot over ``workers`` processes (seeds 0, 1, ...)."""
    import multiprocessing

    from nashzoo.eval.stats import ci95

    label = f"OpenSpiel ISMCTSBot ({sims} sims)"
    start = time.perf_counter()
    jobs = [(str(path), sims, n, i) for i, n in enumerate(_split(deals, workers))]
    parts: list[Part] = []
    with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
        for part in pool.imap_unordered(_os_part, jobs):  # each part printed as it ends
            parts.append(part)
            (m, se, n), (pm, pse, _), method = part
            print(f"    part {len(parts)}/{len(jobs)}: {m:+.3f} +- {se:.3f} ({method}; "
                  f"uncorrected {pm:+.3f} +- {pse:.3f}), {n} deals", flush=True)  # fmt: skip
    mean, stderr, total = _pool([p[0] for p in parts])
    plain_mean, plain_stderr, _ = _pool([p[1] for p in parts])
    lo, hi = ci95(mean, stderr)
    plain_lo, plain_hi = ci95(plain_mean, plain_stderr)
    verdict = "beats" if lo > 0 else ("loses to" if hi < 0 else "not separated from")
    short = "" if total >= 300 else "  (goal's count 300: NOT reached)"
    print(
        f"  vs {label:34s} {mean:+8.3f} chips/game  95% [{lo:+.3f}, {hi:+.3f}]  "
        f"{parts[0][2]}, {total:,} deals in {len(jobs)} processes (seeds 0-{len(jobs) - 1}), "
        f"{time.perf_counter() - start:,.0f} s: {verdict}{short}\n"
        f"     uncorrected (the same games): {plain_mean:+.3f}  95% "
        f"[{plain_lo:+.3f}, {plain_hi:+.3f}]",
        flush=True,
    )


def matches(
    path: Path, nfsp: str | None, deals: int, os_deals: int, os_sims: int, workers: int = 1
) -> None:
    import nashzoo
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.agents.specs import build_agent

    game = nashzoo.make_game(HOLDEM)
    ours = AbstractionAgent(path, game, seed=0, name="abstraction")
    print(f"\n{path} ({ours.policy.metadata}) in duplicate matches (chips per game; BB = 10)")
    if deals > 0:  # --deals 0: OpenSpiel's bot only (its own process, beside the rest)
        match(game, ours, build_agent("poker-rules", game), deals, 2000, "poker-rules")
    if nfsp and deals > 0:
        match(game, ours, build_agent(nfsp, game), deals, 2000, f"NFSP ({Path(nfsp).name})")
    if os_deals > 0:
        try:
            bot = OpenSpielISMCTS(game, os_sims)
        except ImportError:
            print("  OpenSpiel is not installed: no match against its ISMCTSBot")
        else:
            if workers > 1:
                _os_match(path, os_deals, os_sims, workers)
            else:
                match(game, ours, bot, os_deals, 300, f"OpenSpiel ISMCTSBot ({os_sims} sims)")


def _lbr_policies(path: Path, nfsp: str | None) -> dict[str, Any]:
    import nashzoo
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.agents.specs import build_agent

    game = nashzoo.make_game(HOLDEM)
    policies: dict[str, Any] = {"abstraction": AbstractionAgent(path, game, seed=0)}
    if nfsp:
        policies["NFSP"] = build_agent(nfsp, game)
    policies["poker-rules"] = build_agent("poker-rules", game)
    policies["always-call"] = Always(1, "always-call")
    policies["always-raise"] = Always(2, "always-raise")
    return policies


def _lbr_part(job: tuple[str, str | None, str, int, int]) -> tuple[float, float, int]:
    """One worker's share of an LBR run: (mean chips per hand, stderr, hands)."""
    one_thread()
    import nashzoo
    from nashzoo.eval.lbr import local_best_response

    path, nfsp, name, hands, seed = job
    policy = _lbr_policies(Path(path), nfsp)[name]
    game = nashzoo.make_game(HOLDEM)
    found = local_best_response(game, policy, hands=hands, rollouts=20, seed=seed)
    return found.value, found.stderr, hands


def lbr(
    path: Path, nfsp: str | None, hands: int, workers: int = 1, agents: list[str] | None = None
) -> None:
    import multiprocessing

    import nashzoo
    from nashzoo.eval.stats import ci95

    game = nashzoo.make_game(HOLDEM)
    mbb = 1000 / game.big_blind
    names = list(_lbr_policies(path, nfsp))
    unknown = sorted(set(agents or []) - set(names))
    if unknown:
        raise SystemExit(f"--lbr-agents: expected some of {names}, got {unknown}")
    names = [name for name in names if agents is None or name in agents]
    print(f"\nLBR, {hands:,} hands, 20 rollouts (mbb/hand LBR wins: a lower bound)")
    for name in names:
        start = time.perf_counter()
        # hands are split in even parts: LBR alternates seats within each part
        jobs = [(str(path), nfsp, name, n, i) for i, n in enumerate(_split(hands // 2, workers))]
        jobs = [(p, f, a, 2 * n, s) for p, f, a, n, s in jobs]
        if len(jobs) == 1:
            parts = [_lbr_part(jobs[0])]
        else:
            with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
                parts = pool.map(_lbr_part, jobs)
        value, stderr, _ = _pool(parts)
        lo, hi = ci95(value, stderr)
        published = PUBLISHED_BR.get(name)
        extra = "" if published is None else f"  published best response {published:,.0f}"
        print(
            f"  {name:14s} {value * mbb:+8,.0f} [{lo * mbb:+,.0f}, {hi * mbb:+,.0f}]"
            f"{extra}  ({time.perf_counter() - start:,.0f} s)",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--section", action="append", choices=["leduc", "speed", "solve",
                        "matches", "lbr"])  # fmt: skip
    parser.add_argument("--abstraction", default="ehs2:169,50,50,50")
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--policy", default="hulh.npz", help="the solved policy's file")
    parser.add_argument("--resolve", action="store_true", help="solve even if --policy exists")
    parser.add_argument("--nfsp", help="an NFSP .pt trained on Limit Hold'em")
    parser.add_argument(
        "--deals", type=int, default=2000, help="against poker-rules and NFSP (0: neither)"
    )
    parser.add_argument("--openspiel-deals", type=int, default=300)
    parser.add_argument("--openspiel-sims", type=int, default=1000)
    parser.add_argument("--lbr-hands", type=lbr_hands_arg, default=500)
    parser.add_argument("--curve-lbr-hands", type=lbr_hands_arg, default=50)
    parser.add_argument(
        "--lbr-agents",
        type=lambda text: text.split(","),
        help="comma-separated names of the agents LBR measures (default all): abstraction, "
        "NFSP, poker-rules, always-call, always-raise",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes for OpenSpiel's match and LBR"
    )
    args = parser.parse_args(argv)
    one_thread()
    print(machine_line())
    sections = set(args.section or ["leduc", "speed", "solve", "matches", "lbr"])
    path = Path(args.policy)
    if "leduc" in sections:
        leduc_table()
    if "speed" in sections:
        speed(args.abstraction)
    if "solve" in sections and (args.resolve or not path.is_file()):
        solve(args.abstraction, args.minutes, path, args.curve_lbr_hands)
    if "matches" in sections:
        matches(
            path, args.nfsp, args.deals, args.openspiel_deals, args.openspiel_sims, args.workers
        )
    if "lbr" in sections:
        lbr(path, args.nfsp, args.lbr_hands, args.workers, args.lbr_agents)


if __name__ == "__main__":
    main()
