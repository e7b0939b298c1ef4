"""nashzoo's main job, end to end (``make demo``).

1. Solves Leduc Hold'em with every tabular solver (CFR, CFR+, DCFR, PCFR+, external- and
   outcome-sampling MCCFR, XFP, Parallel Nash Memory) and plots their exploitability
   curves; trains NFSP and simplex-gradient by self-play, Deep CFR and ESCHER,
   MaskablePPO against random and Nash-ISMCTS's networks by self-play (when torch and
   sb3-contrib are installed);
   MT-ISMCTS searches with random rollouts and needs no training.
2. Runs a short duplicate round robin between every agent that exists so far (the
   solvers' policies, the learners, the search agents and the random agent) through the
   tournament harness: stored in
   ``results.sqlite`` (resumable), rated (Bradley-Terry, Nash averaging), with the
   exact expected scores beside the sampled ones.
3. Measures the exact exploitability of every agent.
4. Plays the fighting-card game's small preset: CFR+ solves it, simplex-gradient and NFSP
   learn it by self-play, every agent's exact exploitability, a duplicate round robin;
   then its default preset, too big to compile: simplex-gradient and NFSP against the
   scripted heuristic and random.
5. Plays heads-up Limit Texas Hold'em: random, the rule-based agent, ES-MCCFR solved on
   a card abstraction, NFSP (self-play) and MaskablePPO (against random) in a duplicate
   round robin, scored in mbb/game, and
   bounds each agent's exploitability from below by local best response; then MT-ISMCTS
   and Nash-ISMCTS (its networks trained by self-play search over the rules, evaluated at
   search time), searching over the rules of a game too big to compile, against random
   and the rule-based agent. On heads-up no-limit Hold'em, random, the rule-based agent,
   ES-MCCFR on a card abstraction (the game's raises are the action abstraction) and
   NFSP in a duplicate round robin.
6. Solves OpenSpiel's 3-player Kuhn poker with CFR+ (NashConv by iterations).
7. Writes ``report.md``, ``convergence.png``, ``crosstable.png``, ``tournament/index.html``
   and the policies to ``--out``.

Parts 4 and 5 (the fighting cards and Limit Hold'em) run in a second process beside the
others where there are two cores (``--jobs 1`` runs everything in one; the second
process writes its output to ``big_games.log`` in ``--out``). On a fresh 2-core machine
the demo took 388 s, against 626 s in one process (2026-12-01, numba compiling every
kernel for the first time).

Usage: ``python examples/demo.py [--out demo_output] [--game leduc_holdem] [--deals 200]
[--jobs 2]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import os
import sys
import time
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np

import nashzoo
from nashzoo.agents import AgentSpec, get_family
from nashzoo.agents.cfr import make_solver
from nashzoo.agents.cfr.run import run_solver
from nashzoo.agents.specs import build_agent
from nashzoo.envs.protocol import HasPolicyModel
from nashzoo.eval import exploitability, head_to_head
from nashzoo.eval.lbr import local_best_response
from nashzoo.eval.plots import plot_convergence, plot_crosstable
from nashzoo.eval.report import write_tournament_report
from nashzoo.eval.tournament import TournamentConfig, run_tournament
from nashzoo.games import Game
from nashzoo.processes import spawn_context
from nashzoo.tree import TabularPolicy, compile_game

# (algorithm, iterations) budgets that take a few seconds in all on a laptop.
BUDGETS = [
    ("cfr+", 2000),
    ("dcfr", 2000),
    ("pcfr+", 2000),
    ("mmd", 2000),
    ("cfr", 2000),
    ("xfp", 300),
    ("fsp", 300),
    ("es-mccfr", 200_000),
    ("os-mccfr", 200_000),
    ("nash-memory", 150),
]
NFSP_SECONDS = 15.0
SIMPLEX_GRADIENT_SECONDS = 15.0
NEURAL_CFR_SECONDS = 10.0  # Deep CFR and ESCHER each, on Leduc
FIGHTING_GAME = "nashzoo/fighting_cards_small-v0"
FIGHTING_SECONDS = 15.0  # per learner on the fighting-card preset
FIGHTING_DEFAULT_SECONDS = 12.0  # per learner on the default preset (does not compile)
PPO_STEPS = 8192
HOLDEM_GAME = "nashzoo/limit_holdem-v0"
HOLDEM_SECONDS = 20.0  # NFSP self-play on Limit Hold'em
# the CFR family on Limit Hold'em: ES-MCCFR on a card abstraction small enough for the
# demo (10 preflop buckets, none on the flop and turn, 8 on the river, perfect recall;
# its bucket tables need only the preflop and river strengths, ~20 s once, then cached)
HOLDEM_ABSTRACTION = "ehs2:10,1,1,8:perfect"
HOLDEM_CFR_SECONDS = 10.0
HOLDEM_PPO_STEPS = 16384  # MaskablePPO against random on Limit Hold'em
HOLDEM_RESOLVE_ITERATIONS = 200  # CFR+ iterations per river subgame re-solved (about 0.2 s;
# at 20, most re-solves broke the gadget's promise and the blueprint was played instead)
HOLDEM_LBR_HANDS = 200  # local best response hands per Limit Hold'em agent (20 boards)
HOLDEM_SEARCH_LBR_HANDS = 20  # LBR hands against the trained Nash-ISMCTS (a search a move)
HOLDEM_SEARCH = "mt-ismcts:100"  # MT-ISMCTS over the rules (Hold'em does not compile)
HOLDEM_SEARCH_DEALS = 60  # duplicate deals against each baseline
HOLDEM_NASH_SECONDS = 15.0  # Nash-ISMCTS self-play over the rules on Limit Hold'em
HOLDEM_NASH_SIMULATIONS = 20  # its simulations per move in the round robin
NASH_ISMCTS_SECONDS = 30.0
SEARCH_SIMULATIONS = 300  # per move, for both search agents

SECTIONS: dict[str, float] = {}  # wall seconds of each part of the demo, in order


@contextlib.contextmanager
def section(name: str) -> Iterator[None]:
    """Time one part of the demo (printed when it ends and listed in the report)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        SECTIONS[name] = time.perf_counter() - start
        print(f"[demo] {name}: {SECTIONS[name]:.0f} s", file=sys.stderr, flush=True)


def search_agents(game, out: Path, scale: float) -> dict[str, tuple[str, object, float, str]]:
    """MT-ISMCTS (random rollouts, no training) and Nash-ISMCTS with networks trained by
    self-play for ``NASH_ISMCTS_SECONDS * scale`` (torch needed for the latter), both
    searching ``SEARCH_SIMULATIONS * scale`` times a move (20 at least)."""

    sims = max(int(SEARCH_SIMULATIONS * scale), 20)
    spec = f"mt-ismcts:{sims}"
    agents = {"mt-ismcts": (spec, build_agent(spec, game), 0.0, f"{sims} sims/move")}
    try:
        from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
    except ImportError:
        print("torch not installed: skipping Nash-ISMCTS (pip install 'nashzoo[torch]')")
        return agents
    config = TrainConfig(games_per_generation=64, eval_simulations=sims, search_every=10, seed=0)
    # one tiny generation first compiles the numba kernels (tens of seconds on a fresh
    # machine, cached afterwards), so that the budget below is spent training
    warm = TrainConfig(games_per_generation=2, eval_simulations=10, search_every=1, seed=0)
    NashISMCTS(game, warm).train(steps=1)
    start = time.perf_counter()
    trainer = NashISMCTS(game, config).train(seconds=NASH_ISMCTS_SECONDS * scale, progress=True)
    trainer.save(out / "nash-ismcts.pt")
    last = trainer.history[-1]
    agents["nash-ismcts"] = (
        str(out / "nash-ismcts.pt"),
        trainer.agent(name="nash-ismcts"),
        time.perf_counter() - start,
        f"{last.generation} generations, {last.games:,} games; {sims} sims/move",
    )
    return agents


def train_learners(game, out: Path, scale: float) -> dict[str, tuple[str, object, float, str]]:
    """NFSP by self-play and MaskablePPO against random, when torch / sb3 are installed.

    Returns ``{name: (agent spec, PolicyAgent, seconds, budget text)}``.
    """
    learners = {}
    try:
        import torch
    except ImportError:
        print("torch not installed: skipping NFSP and MaskablePPO (pip install 'nashzoo[sb3]')")
        return learners
    torch.set_num_threads(1)
    from nashzoo.agents.nfsp import NFSP

    nfsp = NFSP(game).train(seconds=NFSP_SECONDS * scale, progress=True)
    path = nfsp.save(out / "nfsp.pt")
    learners["nfsp"] = (
        str(path),
        nfsp.agent(name="nfsp"),
        nfsp.seconds,
        f"{nfsp.episodes:,} episodes",
    )
    from nashzoo.agents.simplex_gradient import SimplexGradient

    sg = SimplexGradient(game).train(seconds=SIMPLEX_GRADIENT_SECONDS * scale, progress=True)
    learners["simplex-gradient"] = (
        str(sg.save(out / "simplex-gradient.pt")),
        sg.agent(name="simplex-gradient"),
        sg.seconds,
        f"{sg.episodes:,} games",
    )
    from nashzoo.agents.neural_cfr import ESCHER, DeepCFR

    for name, cls in (("deep-cfr", DeepCFR), ("escher", ESCHER)):
        learner = cls(game).train(seconds=NEURAL_CFR_SECONDS * scale, progress=True)
        learners[name] = (
            str(learner.save(out / f"{name}.pt")),
            learner.agent(name=name),
            learner.seconds,
            f"{learner.iterations:,} iterations, {learner.traversals:,} traversals",
        )
    try:
        import gymnasium
        from sb3_contrib import MaskablePPO

        from nashzoo.agents.sb3 import SB3Agent
    except ImportError:
        print("sb3-contrib not installed: skipping MaskablePPO")
        return learners
    start = time.perf_counter()
    env = gymnasium.make("nashzoo/LeducHoldem-v0", opponent="random")
    steps = max(int(PPO_STEPS * scale), 64)
    model = MaskablePPO(
        "MlpPolicy", env, seed=0, gamma=1.0, verbose=0, device="cpu", n_steps=min(2048, steps)
    )
    model.learn(steps)
    model.save(out / "ppo")
    learners["ppo-vs-random"] = (
        str(out / "ppo.zip"),
        SB3Agent(model, name="ppo-vs-random"),
        time.perf_counter() - start,
        f"{steps:,} steps",
    )
    return learners


RATINGS_NOTE = (
    "Who wins the most comes first: Nash score is the agent's mean score against the "
    "maximum-entropy Nash mixture of these agents (Nash mixture: its weight there); "
    "Bradley-Terry (Elo scale) counts duplicate deals won, not their size, so an agent "
    "that wins many small pots and loses a few big ones can rate high and score low."
)


def block_size(deals: int) -> int:
    """Deals per stored block: a quarter of a pairing's deals, 25 at least (all of them
    when fewer). Each block builds its two agents afresh (a block is a pure function of
    its arguments), so blocks of two deals spent a tiny demo's round robin loading agent
    files: 54 of its 74 s on Leduc at ``--deals 10``."""
    return max(deals // 4, min(deals, 25))


def no_negative_zero(text: str) -> str:
    """``text`` with every number that reads as a negative zero (``-0``, ``-0.0``, the
    rounding of a small negative figure) written ``+0`` / ``+0.0``."""
    import re

    return re.sub(r"(?<![0-9.])-(0(?:\.0+)?)(?![0-9.])", r"+\1", text)


def ratings_lines(names, r, *, scale: float, digits: int, unit: str = "") -> list[str]:
    """A ratings table, best Nash score first (the rating that answers who wins the
    most), with what each rating measures."""
    lines = [
        RATINGS_NOTE,
        "",
        f"| agent | Nash score{f' ({unit})' if unit else ''} | Nash mixture | "
        "Elo (Bradley-Terry) | 95% CI |",
        "|---|---:|---:|---:|---|",
    ]
    for k in np.lexsort((-r.elo, -np.round(r.nash_score * scale, 6))):
        lines.append(
            f"| {names[k]} | {r.nash_score[k] * scale:+.{digits}f} | "
            f"{r.nash_mixture[k]:.3f} | {r.elo[k]:+.1f} | "
            f"[{r.elo_low[k]:+.1f}, {r.elo_high[k]:+.1f}] |"
        )
    return lines


def round_robin_lines(
    result, folder: str, *, scale: float, digits: int, unit: str = ""
) -> list[str]:
    """A section's pairings table (the row agent's score times ``scale``, with its 95% CI,
    and with AIVAT the same games' uncorrected score and CI), ratings table and tournament
    link (the table headers are the caller's)."""
    ct, r = result.crosstable, result.ratings
    lines = []
    for i, j in itertools.combinations(range(len(ct.names)), 2):
        line = (
            f"| {ct.names[i]} | {ct.names[j]} | {ct.mean[i, j] * scale:+.{digits}f} | "
            f"[{ct.ci_low[i, j] * scale:+.{digits}f}, {ct.ci_high[i, j] * scale:+.{digits}f}] |"
        )
        plain = ct.plain_cell(i, j, scale)  # with AIVAT: the same games uncorrected
        if plain is not None:
            mean, half = plain
            line += (
                f" {mean:+.{digits}f} | [{mean - half:+.{digits}f}, {mean + half:+.{digits}f}] |"
            )
        lines.append(line)
    lines += ["", *ratings_lines(ct.names, r, scale=scale, digits=digits, unit=unit)]
    return [
        *lines,
        "",
        f"Tournament: [{folder}/tournament/index.html]({folder}/tournament/index.html)",
    ]


def fighting_cards(out: Path, scale: float, deals: int) -> list[str]:
    """The fighting-card game's small preset: CFR+ solves it exactly; simplex-gradient
    (average and last policy) and NFSP train by self-play for the same time; every agent's
    exact exploitability, and a duplicate round robin. Returns the report's lines."""
    game = nashzoo.make_game(FIGHTING_GAME)
    tree = compile_game(game)
    folder = out / "fighting_cards"
    folder.mkdir(exist_ok=True)
    curve = run_solver(make_solver("cfr+", tree), max(1, int(300 * scale)), points=10)
    curve.policy.save(folder / "cfrplus.npz")
    rows = [("cfr+", f"{curve.final.step:,} iterations", curve.final.seconds, curve.policy)]
    specs = {"random": "random", "cfr+": str(folder / "cfrplus.npz")}
    rows.append(("random", "-", 0.0, TabularPolicy.uniform(tree)))
    try:
        import torch
    except ImportError:
        print("torch not installed: the fighting-card section has CFR+ and random only")
    else:
        torch.set_num_threads(1)
        from nashzoo.agents.nfsp import NFSP
        from nashzoo.agents.simplex_gradient import SimplexGradient

        sg = SimplexGradient(game).train(seconds=FIGHTING_SECONDS * scale, progress=True)
        specs["simplex-gradient"] = str(sg.save(folder / "simplex-gradient.pt"))
        budget = f"{sg.episodes:,} games"
        rows.append(("simplex-gradient", budget, sg.seconds, sg.tabular_policy()))
        rows.append(
            ("simplex-gradient (last)", budget, sg.seconds, sg.tabular_policy(average=False))
        )
        nfsp = NFSP(game).train(seconds=FIGHTING_SECONDS * scale, progress=True)
        specs["nfsp"] = str(nfsp.save(folder / "nfsp.pt"))
        rows.append(("nfsp", f"{nfsp.episodes:,} episodes", nfsp.seconds, nfsp.average_policy()))
    config = TournamentConfig(
        game=FIGHTING_GAME,
        deals=deals,
        block_size=block_size(deals),
        seed=0,
        agents=tuple((k, AgentSpec(v)) for k, v in specs.items()),
    )
    result = run_tournament(config, folder / "results.sqlite", progress=True, bootstrap=100)
    write_tournament_report(result, folder / "tournament")
    lines = [
        "",
        f"## Fighting cards ({FIGHTING_GAME})",
        "",
        f"Tree: {tree.num_nodes:,} histories, {tree.num_infosets:,} information sets. "
        "Payoff +1 / -1 / 0 (win, loss, equal hit points); the game value is 0.",
        "",
        "| agent | budget | seconds | exploitability | note |",
        "|---|---|---:|---:|---|",
    ]
    values = {name: exploitability(policy).exploitability for name, _, _, policy in rows}
    for name, budget, seconds, _ in rows:
        value, note = values[name], ""
        if name not in ("random", "cfr+") and value >= values["random"]:
            note = f"not trained enough: worse than random ({values['random']:.4f})"
        lines.append(f"| {name} | {budget} | {seconds:.1f} | {value:.4f} | {note} |")
    lines += [
        "",
        f"Duplicate round robin ({deals} deals x 2 seats per pairing; mean score of the "
        "row agent, 95% CI):",
        "",
        "| A | B | A's score | 95% CI |",
        "|---|---|---:|---|",
    ]
    return lines + round_robin_lines(
        result, "fighting_cards", scale=1.0, digits=3, unit="points/game"
    )


def fighting_cards_default(out: Path, scale: float, deals: int) -> list[str]:
    """The fighting-card game's default preset, too big to compile (the game simplex-
    gradient self-play was designed for): simplex-gradient and NFSP train for the same
    time, then a duplicate round robin (CRN) with the scripted heuristic and random.
    Returns the report's lines."""
    game_id = "nashzoo/fighting_cards-v0"
    game = nashzoo.make_game(game_id)
    folder = out / "fighting_cards_default"
    folder.mkdir(exist_ok=True)
    specs = {"heuristic": "heuristic", "random": "random"}
    budget = []
    try:
        import torch
    except ImportError:
        print("torch not installed: the default preset has the heuristic and random only")
    else:
        torch.set_num_threads(1)
        from nashzoo.agents.nfsp import NFSP
        from nashzoo.agents.simplex_gradient import SimplexGradient

        seconds = max(FIGHTING_DEFAULT_SECONDS * scale, 1.0)
        sg = SimplexGradient(game).train(seconds=seconds, progress=True)
        specs["simplex-gradient"] = str(sg.save(folder / "simplex-gradient.pt"))
        nfsp = NFSP(game).train(seconds=seconds, progress=True)
        specs["nfsp"] = str(nfsp.save(folder / "nfsp.pt"))
        budget = [
            f"Training, {seconds:.0f} s each: simplex-gradient {sg.episodes:,} games "
            f"({sg.iterations:,} iterations), NFSP {nfsp.episodes:,} episodes (both in the "
            "batched numba rules).",
            "",
        ]
    config = TournamentConfig(
        game=game_id,
        deals=deals,
        block_size=block_size(deals),
        seed=0,
        agents=tuple((k, AgentSpec(v)) for k, v in specs.items()),
        variance_reduction="crn",
    )
    result = run_tournament(config, folder / "results.sqlite", progress=True, bootstrap=100)
    write_tournament_report(result, folder / "tournament")
    lines = [
        "",
        f"## Fighting cards, default preset ({game_id}: too big to compile)",
        "",
        *budget,
        f"Duplicate round robin ({deals} deals x 2 seats per pairing, common random "
        "numbers; mean score of the row agent, 95% CI):",
        "",
        "| A | B | A's score | 95% CI |",
        "|---|---|---:|---|",
    ]
    return lines + round_robin_lines(
        result, "fighting_cards_default", scale=1.0, digits=3, unit="points/game"
    )


def solve_abstraction(
    game: Game, abstraction: str, seconds: float, folder: Path
) -> tuple[str, str]:
    """ES-MCCFR on ``abstraction`` of a poker game too big to compile, for ``seconds``;
    returns the saved policy's path (an agent spec) and its budget's description."""
    from nashzoo.agents.cfr.abstract import AbstractionSolver

    solver = AbstractionSolver(game, abstraction, seed=0)
    solver.train(seconds=seconds, progress=True)
    budget = (
        f"{abstraction}, {solver.abstraction.num_infosets:,} sets: "
        f"{solver.iteration:,} iterations ({solver.seconds:.0f} s)"
    )
    return str(solver.average_policy().save(folder / "cfr-abstraction.npz")), budget


def limit_holdem(out: Path, scale: float, deals: int) -> list[str]:
    """Limit Hold'em, where exact exploitability is out of reach: random, the rule-based
    agent, ES-MCCFR on a card abstraction, NFSP (self-play) and MaskablePPO (against
    random) in a duplicate round robin. Returns the report's lines."""
    folder = out / "limit_holdem"
    folder.mkdir(exist_ok=True)
    game = nashzoo.make_game(HOLDEM_GAME)
    specs = {"random": "random", "poker-rules": "poker-rules"}
    budgets = {"random": "-", "poker-rules": "-"}
    # the game does not compile: its card abstraction is solved from sampled deals
    specs["cfr-abstraction"], budgets["cfr-abstraction"] = solve_abstraction(
        game, HOLDEM_ABSTRACTION, HOLDEM_CFR_SECONDS * scale, folder
    )
    # the same blueprint re-solving the river on the real cards (1,081 hands a player)
    specs["cfr-resolve"] = f"resolve:{HOLDEM_RESOLVE_ITERATIONS}+{specs['cfr-abstraction']}"
    budgets["cfr-resolve"] = (
        f"cfr-abstraction's file; the river re-solved with {HOLDEM_RESOLVE_ITERATIONS} "
        "CFR+ iterations (max-margin gadget; a re-solve that would give some opponent hand "
        "more than the blueprint does plays the blueprint instead)"
    )
    trained: tuple[str, str] | None = None
    try:
        import torch
    except ImportError:
        print("torch not installed: the Limit Hold'em section has random and poker-rules only")
    else:
        torch.set_num_threads(1)
        from nashzoo.agents.nfsp import NFSP

        nfsp = NFSP(game).train(seconds=HOLDEM_SECONDS * scale, progress=True)
        specs["nfsp"] = str(nfsp.save(folder / "nfsp.pt"))
        budgets["nfsp"] = f"{nfsp.episodes:,} episodes ({nfsp.seconds:.0f} s)"
        # played below, beside MT-ISMCTS, with its own LBR bound (the range kept with
        # its prior P): in the round robin each of its deals would cost many searches
        trained = holdem_nash_ismcts(game, folder, scale)
        try:
            from sb3_contrib import MaskablePPO

            from nashzoo.wrappers.sb3_vec import SB3VecEnv
        except ImportError:
            print("sb3-contrib not installed: no MaskablePPO on Limit Hold'em")
        else:
            start = time.perf_counter()
            # 32 hands at once against a batched random opponent (numba poker)
            env = SB3VecEnv(HOLDEM_GAME, 32, opponent="random", seed=0)
            steps = max(int(HOLDEM_PPO_STEPS * scale), 64)
            model = MaskablePPO(
                "MlpPolicy", env, seed=0, gamma=1.0, verbose=0, device="cpu",
                n_steps=max(min(128, steps // 32), 2),
            )  # fmt: skip
            model.learn(steps)
            model.save(folder / "ppo")
            specs["ppo-vs-random"] = str(folder / "ppo.zip")
            budgets["ppo-vs-random"] = f"{steps:,} steps ({time.perf_counter() - start:.0f} s)"
    hands = max(int(HOLDEM_LBR_HANDS * scale) // 2 * 2, 4)
    config = TournamentConfig(
        game=HOLDEM_GAME,
        deals=deals,
        block_size=block_size(deals),
        seed=0,
        agents=tuple((k, AgentSpec(v)) for k, v in specs.items()),
        # AIVAT (eval/aivat.py, check-down equity values) with the uncorrected CIs beside;
        # a local-best-response lower bound on each agent's exploitability (eval/lbr.py)
        variance_reduction="aivat",
        lbr_hands=hands,
    )
    result = run_tournament(config, folder / "results.sqlite", progress=True, bootstrap=100)
    write_tournament_report(result, folder / "tournament")
    mbb = 1000 / game.big_blind
    lines = [
        "",
        "## Limit Texas Hold'em (nashzoo/limit_holdem-v0)",
        "",
        "Exact exploitability is out of reach (about 10^14 information sets), so each agent "
        f"gets a local best response lower bound (Lisý & Bowling 2017; {hands} hands, the "
        "turn and river exact, 20 boards a decision before, 95% CI) and the agents meet in "
        "a duplicate round robin "
        f"({deals} deals x 2 seats per pairing; mbb/game of the row agent, 1 chip = 100 mbb).",
        "",
        f"LBR is a yardstick with known limits: {hands} hands give intervals hundreds of "
        "mbb wide, and a bound whose interval reaches below zero bounds nothing. It values "
        "its actions as Lisý & Bowling do (a call checked down against the agent's range, "
        "a bet by the agent's exact folds and the check-down against its calls): on Leduc "
        "it finds 95% of uniform play's exact exploitability and 78% of CFR+ 10's, on Limit "
        "Hold'em 95% of always-call's published 1,163 mbb/game and 99% of always-raise's "
        "3,697 (6,000 hands each). Read the column as a lower bound, and the round robin "
        "for strength.",
        "",
        "| agent | budget | LBR lower bound (mbb/hand) | LBR 95% CI |",
        "|---|---|---:|---|",
    ]
    for name in specs:
        bound, ci = result.exploitability.get(name), result.exploitability_ci95.get(name)
        if bound is None or ci is None:
            lines.append(f"| {name} | {budgets[name]} | - | {result.exploitability_note[name]} |")
        else:
            lines.append(
                f"| {name} | {budgets[name]} | {bound * mbb:+.0f} | "
                f"[{ci[0] * mbb:+.0f}, {ci[1] * mbb:+.0f}] |"
            )
    lines += [
        "",
        "The round robin is variance-reduced: every agent is reseeded per deal alike in both "
        "seatings, and AIVAT (Burch et al. 2018) corrects each score at the chance events and "
        "at the decisions of agents that state their probabilities, with check-down equity "
        "as the value function: unbiased, so both columns estimate the same expectation.",
        "",
        "| A | B | A's score, AIVAT (mbb/game) | 95% CI | uncorrected | 95% CI |",
        "|---|---|---:|---|---:|---|",
    ]
    lines += round_robin_lines(result, "limit_holdem", scale=mbb, digits=0, unit="mbb/game")
    searches = {HOLDEM_SEARCH: build_agent(HOLDEM_SEARCH, game)}
    if trained is not None:
        path, budget = trained
        searches["nash-ismcts"] = build_agent(path, game)
        searches["nash-ismcts"].name = "nash-ismcts"
        lines += ["", f"Nash-ISMCTS trained over the rules: {budget}."]
    deals = max(int(HOLDEM_SEARCH_DEALS * scale), 4)
    return lines + holdem_search(game, searches, deals=deals, mbb=mbb, scale=scale)


def holdem_nash_ismcts(game, folder: Path, scale: float) -> tuple[str, str]:
    """Nash-ISMCTS's networks trained by self-play over the rules (Limit Hold'em does not
    compile; the network is evaluated at search time, batched across the games). A small
    network and a short run: a demonstration, not a strong agent. Returns the saved
    file and its budget line."""
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig

    config = TrainConfig(
        games_per_generation=16,
        simulations=50,
        eval_simulations=HOLDEM_NASH_SIMULATIONS,
        belief_games=64,
        steps_per_generation=40,
        batch_size=128,
        hidden_sizes=(64, 64),
        embed_size=32,
        negatives=31,
        seed=0,
    )
    trainer = NashISMCTS(game, config)
    trainer.train(seconds=max(HOLDEM_NASH_SECONDS * scale, 1.0), progress=True)
    if not trainer.steps:  # a tiny --scale: one generation at least
        trainer.train(steps=1)
    last = trainer.history[-1]
    budget = (
        f"{trainer.steps} generations, {last.games:,} self-play games ({trainer.seconds:.0f} s); "
        f"{HOLDEM_NASH_SIMULATIONS} simulations per move"
    )
    return str(trainer.save(folder / "nash_ismcts.pt")), budget


def holdem_search(game, searches: dict, *, deals: int, mbb: float, scale: float) -> list[str]:
    """The search agents on a game that does not compile (MT-ISMCTS with random rollouts,
    and Nash-ISMCTS on networks trained over the rules) against the round robin's
    baselines, in duplicate matches with AIVAT. Returns the report's lines."""
    lines = [
        "",
        "Information-set search on a game that does not compile, over the rules (the "
        "opponent's hole cards drawn from the pairs left in the deck, nodes created on first "
        f"visit): {deals} duplicate deals with AIVAT against each baseline (mbb/game of the "
        "search, 95% CI):",
        "",
        "| search | opponent | score (mbb/game) | 95% CI | seconds |",
        "|---|---|---:|---|---:|",
    ]
    for label, search in searches.items():
        for opponent in ("random", "poker-rules"):
            start = time.perf_counter()
            result = head_to_head(
                game, search, build_agent(opponent, game), deals=deals, seed=0,
                variance_reduction="aivat",
            )  # fmt: skip
            low, high = result.ci95
            lines.append(
                f"| {label} | {opponent} | {result.mean * mbb:+.0f} | "
                f"[{low * mbb:+.0f}, {high * mbb:+.0f}] | {time.perf_counter() - start:.0f} |"
            )
            print(lines[-1], flush=True)
    hands = max(int(HOLDEM_SEARCH_LBR_HANDS * scale) // 2 * 2, 4)
    for label, search in searches.items():
        if not isinstance(search, HasPolicyModel):
            continue
        # a search's stated distribution costs a search: LBR keeps its range with the
        # search's prior P and plays against the search itself (still a lower bound)
        start = time.perf_counter()
        bound = local_best_response(
            game, search, model=search.policy_model(), hands=hands, rollouts=20, seed=0
        )
        low, high = bound.ci95
        lines += [
            "",
            f"LBR against {label}, its range kept with its prior P ({hands} hands, 20 rollouts, "
            f"{time.perf_counter() - start:.0f} s): {bound.value * mbb:+.0f} mbb/hand "
            f"[{low * mbb:+.0f}, {high * mbb:+.0f}], a lower bound on its exploitability.",
        ]
        print(lines[-1], flush=True)
    return lines


NO_LIMIT_GAME = "nashzoo/no_limit_holdem-v0"
NO_LIMIT_NFSP_SECONDS = 20
# the CFR family on no-limit: the game's half-pot, pot and all-in raises are the action
# abstraction, the card abstraction the Limit Hold'em section's without perfect recall
# (757,000 sets, 58 MiB of tables; its bucket tables are cached by then)
NO_LIMIT_ABSTRACTION = "ehs2:10,1,1,8"
NO_LIMIT_CFR_SECONDS = 15.0


def no_limit_holdem(out: Path, scale: float, deals: int) -> list[str]:
    """Heads-up no-limit Hold'em with PettingZoo's five actions: random, the rule-based
    agent, ES-MCCFR on a card abstraction and NFSP (self-play, a short budget) in a
    duplicate round robin. Returns the report's lines."""
    folder = out / "no_limit_holdem"
    folder.mkdir(exist_ok=True)
    game = nashzoo.make_game(NO_LIMIT_GAME)
    specs = {"random": "random", "poker-rules": "poker-rules"}
    budgets = {"random": "-", "poker-rules": "-"}
    specs["cfr-abstraction"], budgets["cfr-abstraction"] = solve_abstraction(
        game, NO_LIMIT_ABSTRACTION, NO_LIMIT_CFR_SECONDS * scale, folder
    )
    try:
        import torch
    except ImportError:
        print("torch not installed: the no-limit section has random and poker-rules only")
    else:
        torch.set_num_threads(1)
        from nashzoo.agents.nfsp import NFSP

        nfsp = NFSP(game).train(seconds=NO_LIMIT_NFSP_SECONDS * scale, progress=True)
        specs["nfsp"] = str(nfsp.save(folder / "nfsp.pt"))
        budgets["nfsp"] = f"{nfsp.episodes:,} episodes ({nfsp.seconds:.0f} s)"
    config = TournamentConfig(
        game=NO_LIMIT_GAME,
        deals=deals,
        block_size=block_size(deals),
        seed=0,
        agents=tuple((k, AgentSpec(v)) for k, v in specs.items()),
        variance_reduction="crn",  # AIVAT works here too, at ~10 s a pairing: over budget
    )
    result = run_tournament(config, folder / "results.sqlite", progress=True, bootstrap=100)
    write_tournament_report(result, folder / "tournament")
    bb = 1000 / game.big_blind
    lines = [
        "",
        "## Heads-up No-Limit Texas Hold'em (nashzoo/no_limit_holdem-v0)",
        "",
        "The ACPC rules (stacks of 200 big blinds; checked in lockstep against OpenSpiel's "
        "universal_poker) with PettingZoo's five actions: fold, check/call, raise half pot, "
        f"raise full pot, all-in. A duplicate round robin ({deals} deals x 2 seats per "
        "pairing, common random numbers; mbb/game of the row agent, 1 chip = 10 mbb).",
        "",
        "| agent | budget |",
        "|---|---|",
        *(f"| {name} | {budgets[name]} |" for name in specs),
        "",
        "| A | B | A's score (mbb/game) | 95% CI |",
        "|---|---|---:|---|",
    ]
    return lines + round_robin_lines(result, "no_limit_holdem", scale=bb, digits=0, unit="mbb/game")


def three_player_kuhn() -> list[str]:
    """OpenSpiel's 3-player Kuhn poker solved by CFR+: NashConv (the sum over players of
    what a best response gains) after 10, 100 and 1,000 iterations."""
    from nashzoo.games import KuhnPokerGame
    from nashzoo.tree.best_response import nash_conv_array

    game = KuhnPokerGame(players=3)
    solver = make_solver("cfr+", game)
    lines = [
        "",
        "## Kuhn poker, three players (CFR+)",
        "",
        f"{solver.tree.num_nodes:,} histories, {solver.tree.num_infosets} information sets "
        "(OpenSpiel's kuhn_poker(players=3) has the same).",
        "",
        "| CFR+ iterations | NashConv | seconds |",
        "|---:|---:|---:|",
    ]
    for target in (10, 100, 1000):
        solver.iterate(target - solver.iteration)
        policy = solver.average_policy()
        lines.append(
            f"| {target:,} | {nash_conv_array(policy.tree, policy.probs):.2e} | "
            f"{solver.seconds:.2f} |"
        )
    from nashzoo.agents.cfr import TabularPolicyAgent
    from nashzoo.eval.seats import play_table

    agents = [
        TabularPolicyAgent(policy, seed=0, name="cfr+"),
        build_agent("random", game),
        build_agent("random", game, name="random-2"),
    ]
    table = play_table(game, agents, deals=2000, seed=1)
    lines += [
        "",
        f"A duplicate table, {len(table.scores):,} deals: each deal played in all "
        f"{len(table.seatings)} seatings (every agent in every seat and behind every other, "
        "with the same cards); Elo is Bradley-Terry on the pairwise outcomes of each deal's "
        "ranking.",
        "",
        "| agent | chips/game | 95% CI | Elo | 95% CI |",
        "|---|---:|---|---:|---|",
    ]
    for k in np.argsort(-table.mean):
        lo, hi = table.ci95[k]
        lines.append(
            f"| {table.names[k]} | {table.mean[k]:+.3f} | [{lo:+.3f}, {hi:+.3f}] | "
            f"{table.elo[k]:+.1f} | [{table.elo_low[k]:+.1f}, {table.elo_high[k]:+.1f}] |"
        )
    return lines


def dice_and_bids(scale: float) -> list[str]:
    """Liar's Dice and Goofspiel (OpenSpiel's rules): CFR+ on each game's small version
    (``300 * scale`` iterations, 10 at least), exact exploitability as it goes, and each
    rule-based baseline's duplicate score against random and against the CFR+ policy;
    then MT-ISMCTS (``200 * scale`` simulations a move, 20 at least) at full sizes."""
    from nashzoo.agents.cfr import TabularPolicyAgent
    from nashzoo.eval.stats import Z95
    from nashzoo.games import GoofspielGame, LiarsDiceGame

    lines = [
        "",
        "## Liar's Dice and Goofspiel (CFR+, and the rule-based baselines)",
        "",
        "| game | histories | CFR+ iterations | exploitability | baseline vs random | "
        "baseline vs CFR+ |",
        "|---|---:|---:|---:|---|---|",
    ]
    deals = max(int(1000 * scale), 50)
    iterations = max(int(300 * scale), 10)
    for label, game, rules in (
        ("Liar's Dice, 1 die of 4 faces", LiarsDiceGame(faces=4), "dice-rules"),
        ("Goofspiel, 4 cards, hidden bids", GoofspielGame(num_cards=4), "goofspiel-rules"),
    ):
        solver = make_solver("cfr+", game).iterate(iterations)
        policy = solver.average_policy()
        value = exploitability(policy).exploitability
        baseline = build_agent(rules, game)
        cells = []
        cfr = TabularPolicyAgent(policy, seed=0, name="cfr+")  # the policy just measured
        for other in (build_agent("random", game), cfr):
            match = head_to_head(game, baseline, other, deals=deals, seed=0)
            lo, hi = match.mean - Z95 * match.stderr, match.mean + Z95 * match.stderr
            cells.append(f"{match.mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        lines.append(
            f"| {label} | {solver.tree.num_nodes:,} | {iterations} | {value:.4f} | "
            f"{cells[0]} | {cells[1]} |"
        )
    sims = max(int(200 * scale), 20)
    lines += [
        "",
        f"Duplicate matches of {deals:,} deals, points a game with 95% intervals; the "
        "baselines are rule-based (`dice-rules`: liar above its expected count; "
        "`goofspiel-rules`: bid the point card's rank).",
        "",
        f"Sizes no tree reaches: MT-ISMCTS ({sims} simulations a move) searching over the "
        "rules' own hidden worlds (the opponent's dice; the bid sequences that fit who "
        "won each round), against random and against the baseline:",
        "",
        "| game | deals | MT-ISMCTS vs random | MT-ISMCTS vs baseline |",
        "|---|---:|---|---|",
    ]
    for label, game, rules, n in (
        ("Liar's Dice, 2 dice of 6 faces", LiarsDiceGame(dice=2), "dice-rules", 100),
        ("Goofspiel, 8 cards, hidden bids", GoofspielGame(num_cards=8), "goofspiel-rules", 30),
    ):
        search = build_agent(f"mt-ismcts:{sims}", game)
        n = max(int(n * scale), 10)
        cells = []
        for other in (build_agent("random", game), build_agent(rules, game)):
            match = head_to_head(game, search, other, deals=n, seed=0)
            lo, hi = match.mean - Z95 * match.stderr, match.mean + Z95 * match.stderr
            cells.append(f"{match.mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        lines.append(f"| {label} | {n} | {cells[0]} | {cells[1]} |")
    return lines


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the OS reports it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def big_games(out: Path, scale: float, deals: int) -> tuple[list[str], dict[str, float]]:
    """The fighting-card presets and Limit Hold'em: their report lines, and the seconds of
    each of these parts."""
    lines: list[str] = []
    parts = {
        "Fighting cards, small preset": lambda: fighting_cards(out, scale, max(deals // 3, 10)),
        "Fighting cards, default preset": lambda: fighting_cards_default(
            out, scale, max(deals // 2, 10)
        ),
        "Limit Hold'em": lambda: limit_holdem(out, scale, max(deals // 2, 10)),
    }
    for name, part in parts.items():
        with section(name):
            lines += part()
    return lines, {name: SECTIONS[name] for name in parts}


def _big_games_beside(send: Connection, log: Path, out: Path, scale: float, deals: int) -> None:
    """:func:`big_games` in the second process, its output (Python's and the native
    libraries') written to ``log``; sends back ``("ok", result)`` or ``("error",
    traceback)``."""
    with open(log, "w") as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(line_buffering=True)
    try:
        result = big_games(out, scale, deals)
    except BaseException:
        send.send(("error", traceback.format_exc()))
        raise
    send.send(("ok", result))


class SecondProcess:
    """:func:`big_games` running in a spawned process (one core) while this one runs
    the other parts on another: the two halves take about the same time, so two cores
    finish the demo in about 60% of one core's time."""

    def __init__(self, out: Path, scale: float, deals: int) -> None:
        self.log = out / "big_games.log"
        context = spawn_context(threads=1)  # one numeric-library thread in each process
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_big_games_beside, args=(send, self.log, out, scale, deals)
        )
        self._process.start()
        send.close()  # the child holds the only sending end: its death ends the pipe
        print(
            "[demo] the fighting cards and Limit Hold'em run in a second process beside "
            f"the rest; their progress: {self.log}",
            file=sys.stderr,
            flush=True,
        )

    def result(self) -> tuple[list[str], dict[str, float]]:
        """Its report lines and part seconds, once it has finished (waits for it)."""
        if not self._receive.poll():
            print("[demo] waiting for the second process", file=sys.stderr, flush=True)
        try:
            status, payload = self._receive.recv()
        except EOFError:
            self._process.join()
            raise RuntimeError(
                f"the demo's second process died (exit code {self._process.exitcode}) "
                f"before it finished; its output: {self.log}"
            ) from None
        self._process.join()
        if status != "ok":
            raise RuntimeError(
                f"the demo's second process failed (its output: {self.log}):\n{payload}"
            )
        return payload

    def close(self) -> None:
        """Stop it if it still runs (this process failed or was interrupted)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._receive.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="demo_output")
    parser.add_argument("--game", default="nashzoo/leduc_holdem-v0")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals per pairing")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply solver budgets")
    parser.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        default=2 if usable_cores() >= 2 else 1,
        help="2: the fighting cards and Limit Hold'em run in a second process beside the rest "
        "(the default where there are two cores or more)",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    # the big games' parts start first, in a second process when there is a core for it
    beside = SecondProcess(out, args.scale, args.deals) if args.jobs == 2 else None
    try:
        run_demo(args, out, started, beside)
    finally:
        if beside is not None:
            beside.close()


def run_demo(
    args: argparse.Namespace, out: Path, started: float, beside: SecondProcess | None
) -> None:
    """The demo's parts in report order; the big games' come from ``beside`` when given."""
    game = nashzoo.make_game(args.game)
    tree = compile_game(game)
    summary = tree.summary()
    print(
        f"{args.game}: {summary['nodes']:,} histories, {summary['terminals']:,} terminal, "
        f"{summary['infosets_per_player']} information sets per player"
    )

    # 1. solve
    curves = []
    with section("Leduc: tabular solvers"):
        for algo, iterations in BUDGETS:
            solver = make_solver(algo, tree, seed=0 if get_family(algo).samples else None)
            curves.append(
                run_solver(solver, max(1, int(iterations * args.scale)), points=25, progress=True)
            )
            curves[-1].policy.save(out / f"policy-{algo.replace('+', 'plus')}.npz")
        plot_convergence(curves, out / "convergence.png", title=f"{args.game}: exploitability")
    with section("Leduc: learners"):
        learners = train_learners(game, out, args.scale)
    with section("Leduc: search agents"):
        learners.update(search_agents(game, out, args.scale))

    # 3. duplicate round robin through the tournament harness (stored, resumable, rated)
    policy_files = {
        c.algorithm: out / f"policy-{c.algorithm.replace('+', 'plus')}.npz" for c in curves
    }
    config = TournamentConfig(
        game=args.game,
        deals=args.deals,
        block_size=block_size(args.deals),
        seed=0,
        agents=(
            ("random", AgentSpec("random")),
            *((k, AgentSpec(str(v))) for k, v in policy_files.items()),
            *((k, AgentSpec(v[0])) for k, v in learners.items()),
        ),
    )
    with section("Leduc: round robin"):
        result = run_tournament(config, out / "results.sqlite", progress=True, bootstrap=100)
        write_tournament_report(result, out / "tournament")
    names = list(result.crosstable.names)
    unit = "mbb/game" if game.big_blind else "milli-units/game"
    scale = 1000.0 / (game.big_blind or 1.0)
    policies = {c.algorithm: c.policy for c in curves}
    policies["random"] = TabularPolicy.uniform(tree)
    with section("Leduc: exact scores and exploitability"):
        for name, (_, agent, _, _) in learners.items():
            policies[name] = TabularPolicy.from_agent(agent, tree)
        exact = np.full((len(names), len(names)), np.nan)
        for i, j in itertools.permutations(range(len(names)), 2):
            exact[i, j] = (
                head_to_head(tree, policies[names[i]], policies[names[j]], exact=True).mean * scale
            )
        plot_crosstable(
            names,
            exact,
            out / "crosstable.png",
            unit=unit,
            title=f"{args.game}: row agent's exact duplicate score vs column agent ({unit})",
        )
        expl = {name: exploitability(policies[name]) for name in names}

    # 4. report
    lines = [
        f"# nashzoo demo report — {args.game}",
        "",
        f"Tree: {summary['nodes']:,} histories, {summary['terminals']:,} terminal, "
        f"{summary['infosets_per_player']} information sets per player.",
        "",
        "## Solvers",
        "",
        "| algorithm | iterations | solver seconds | exploitability (chips) | mbb/game |",
        "|---|---:|---:|---:|---:|",
    ]
    for c in curves:
        p = c.final
        lines.append(
            f"| {c.algorithm} | {p.step:,} | {p.seconds:.3f} | "
            f"{p.exploitability:.3g} | {p.exploitability * scale:.2f} |"
        )
    for name, (_, _, seconds, budget) in learners.items():
        e = expl[name].exploitability
        lines.append(f"| {name} | {budget} | {seconds:.3f} | {e:.3g} | {e * scale:.2f} |")
    lines += [
        "",
        "![convergence](convergence.png)",
        "",
        "## Agents: exact exploitability",
        "",
        "Value as player 0: the expected chips of the first seat when both seats play the "
        "policy (the game's value is -0.0856 for an equilibrium). A learner above uniform "
        "random's exploitability has not trained enough in the demo's budget (its steps "
        "given): that row says so.",
        "",
        f"| agent | exploitability (chips) | {unit} | value as player 0 | note |",
        "|---|---:|---:|---:|---|",
    ]
    uniform = expl["random"].exploitability if "random" in expl else None
    for name, r in sorted(expl.items(), key=lambda kv: kv[1].exploitability):
        note = ""
        if name in learners and uniform is not None and r.exploitability >= uniform:
            note = (
                f"not trained enough: {learners[name][3]} in {learners[name][2]:.0f} s, "
                f"worse than random ({uniform:.3g})"
            )
        lines.append(
            f"| {name} | {r.exploitability:.4g} | {r.exploitability * scale:.1f} | "
            f"{r.policy_values[0]:+.4f} | {note} |"
        )
    ct = result.crosstable
    lines += [
        "",
        f"## Duplicate round robin ({args.deals} deals x 2 seats per pairing)",
        "",
        f"| A | B | sampled A score ({unit}) | 95% CI | exact ({unit}) |",
        "|---|---|---:|---|---:|",
    ]
    for i, j in itertools.combinations(range(len(names)), 2):
        lines.append(
            f"| {names[i]} | {names[j]} | {ct.mean[i, j] * scale:+.1f} | "
            f"[{ct.ci_low[i, j] * scale:+.1f}, {ct.ci_high[i, j] * scale:+.1f}] | "
            f"{exact[i, j]:+.1f} |"
        )
    r = result.ratings
    lines += [
        "",
        "## Ratings (from the sampled matches)",
        "",
        *ratings_lines(names, r, scale=scale, digits=1, unit=unit),
    ]
    lines += [
        "",
        "![crosstable](crosstable.png)",
        "",
        "Tournament report with ratings plot: [tournament/index.html](tournament/index.html)",
    ]
    leduc_sections = dict(SECTIONS)
    with section("No-limit Hold'em"):
        tail = no_limit_holdem(out, args.scale, max(args.deals, 10))
    with section("Kuhn poker, three players"):
        tail += three_player_kuhn()
    with section("Liar's Dice and Goofspiel"):
        tail += dice_and_bids(args.scale)
    if beside is None:
        big_lines, big_sections = big_games(out, args.scale, args.deals)
    else:
        big_lines, big_sections = beside.result()
    lines += big_lines + tail
    lines += ["", "## Where the time went", "", "| part | seconds |", "|---|---:|"]
    ordered = {**leduc_sections, **big_sections, **SECTIONS}
    lines += [f"| {name} | {seconds:.0f} |" for name, seconds in ordered.items()]
    if beside is not None:
        lines += [
            "",
            "The fighting cards' parts and Limit Hold'em ran in a second process beside "
            f"the others, so their seconds overlap; that process's output: {beside.log.name}.",
        ]
    lines += [
        "",
        f"Generated in {time.perf_counter() - started:.1f} s by examples/demo.py.",
    ]
    text = no_negative_zero("\n".join(lines) + "\n")
    (out / "report.md").write_text(text)
    print(text, end="")
    print(f"\nreport: {out / 'report.md'}")


if __name__ == "__main__":
    main()
