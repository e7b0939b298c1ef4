"""Safe subgame re-solving measured exactly (issue 90, "Exactness"): blueprints on Leduc
and on a compiled three-round poker game, with every later round's public subgame solved
again (:func:`nashzoo.agents.cfr.subgame.resolve_all`) under the max-margin gadget, the
re-solve gadget and none (unsafe), and the exact exploitability of each.

Blueprints: CFR+ after ``--blueprints`` iterations, and on Leduc the coarse card
abstraction ``ehs2:1,1:perfect`` (one bucket a round: the cards ignored) solved by CFR+
and lifted to the real game. Goal: re-solving with a gadget lowers the exploitability of
every blueprint tried (the unsafe column shows what the gadget protects against). Speed:
seconds to re-solve every subgame, and per subgame and player. Then the first round
re-solved depth-limited (its leaves at the first board card, the opponent choosing one
of 4 continuation strategies there), alone and with the later rounds re-solved after it.

Limit Hold'em (``--games holdem``, issue 90's "Limit Hold'em" goal) and heads-up
no-limit (``--games hunl``, with poker-rules as a fixed opponent too): a card-abstraction
blueprint (``--blueprint FILE``, or solved here for ``--blueprint-minutes`` on
``--abstraction``) against the same blueprint re-solving the river on the real cards
(``resolve:BUDGET+FILE``, :mod:`nashzoo.agents.cfr.endgame`) in ``--deals`` duplicate
deals with AIVAT (``--deals 0``: none); then LBR of each (``--lbr-hands``, the paper's
bet set; ``--lbr-agents`` chooses whose) and the re-solves' time and iterations by
street; ``--street turn`` re-solves from the turn (``resolve:turn:BUDGET+FILE``), and
with ``--values FILE.values.pt`` (``nashzoo values``) the turn depth-limited, the network
valuing each river card's continuation (``resolve:turn:BUDGET+FILE+VALUES``). On
no-limit, ``--lbr-round-actions fc/fc/fc/fc,c/c/fcpa/fcpa`` sets LBR's actions round by
round as the published LBR tables do, and prints their figures for the ACPC agents
beside ours. ``--train-opponents MINUTES`` trains issue 90's learned opponents side by
side, one core each (NFSP by self-play with ``nashzoo train``, MaskablePPO against
poker-rules in both seats), into ``--opponents-dir`` (a file already there is kept), and
both agents play each; ``--opponent NAME=SPEC`` adds any other opponent, and
``--only-opponents`` plays only those pairs.

Street sizes (``--games streets``): the subgame of Limit Hold'em's river, of its
turn (every river card) and of its turn depth-limited (a leaf at each river card, at
check-down stakes), on random ranges and a random blueprint: nodes, hands, the
memory a solve holds, the seconds of a one-iteration solve (the opponent's
best-response values, the arrays, one CFR+ iteration) and of each further iteration
(from a run of ``--street-iterations``; medians of 3), exact and with the deals sampled
(public chance sampling: one river card an iteration); then on the turn, what a 5 s
budget buys each way: the max-margin objective (the opponent's smallest margin under its
blueprint values, over the largest value; below 0, the re-solve is less safe than the
blueprint).

Solvers (``--games solvers``, heads-up no-limit; ``solvers-holdem`` on Limit Hold'em):
CFR+ against Linear CFR on the river subgames a re-solving agent meets in ``--deals``
deals against poker-rules (``--blueprint FILE``), each solved at each of
``--solver-budgets`` seconds: how many re-solves would fall back to the blueprint.

No peer: OpenSpiel has no subgame re-solving to run beside it.

Usage: ``python benchmarks/subgame_solving.py
[--games leduc,three_rounds,streets,holdem,hunl,solvers,solvers-holdem]
[--blueprints 10,30,100,1000] [--iterations 1000] [--blueprint FILE] [--budget 0.5s]
[--values FILE.values.pt] [--street turn] [--deals 1000] [--lbr-hands 1000]
[--lbr-round-actions fc/fc/fc/fc,c/c/fcpa/fcpa]
[--train-opponents 60 --opponents-dir DIR] [--opponent NAME=SPEC] [--only-opponents]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, one_thread

GADGETS = ("maxmargin", "resolve", "none")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="leduc,three_rounds")
    parser.add_argument("--blueprints", default="10,30,100,1000")
    parser.add_argument("--iterations", type=int, default=1000, help="CFR+ per subgame")
    parser.add_argument("--blueprint", help="Hold'em: a blueprint file (else one is solved)")
    parser.add_argument("--blueprint-minutes", type=float, default=10.0)
    parser.add_argument("--abstraction", default="ehs2:169,50,50,50")
    parser.add_argument("--actions", default=None, help="hunl: the action abstraction")
    parser.add_argument("--budget", default="0.5s", help="Hold'em: the re-solving budget")
    parser.add_argument(
        "--street", default="river", help="Hold'em: the first street re-solved (river, turn)"
    )
    parser.add_argument(
        "--values", default=None,
        help="holdem with --street turn: a values file; the turn re-solved depth-limited",
    )  # fmt: skip
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--gadget", default="maxmargin", help="holdem/hunl: the re-solves' gadget")
    parser.add_argument("--lbr-hands", type=int, default=1000)
    parser.add_argument(
        "--lbr-round-actions",
        default="",
        help="hunl: LBR's actions by round, comma-separated ('fc/fc/fc/fc,c/c/fcpa/fcpa': "
        "the published settings, printed beside); empty: the paper's set on every round",
    )
    parser.add_argument(
        "--lbr-agents", default="blueprint,resolving", help="holdem/hunl: whose LBR to measure"
    )
    parser.add_argument(
        "--opponent", action="append", default=[], metavar="NAME=SPEC",
        help="holdem/hunl: one more opponent of both agents (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--train-opponents", type=float, default=0.0, metavar="MINUTES",
        help="holdem/hunl: train NFSP (self-play) and MaskablePPO (against poker-rules) "
        "this long each, at once, one core each, into --opponents-dir, and add both",
    )  # fmt: skip
    parser.add_argument("--opponents-dir", default="opponents")
    parser.add_argument(
        "--only-opponents", action="store_true",
        help="holdem/hunl: play only the pairs with --opponent / --train-opponents",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--street-iterations", type=int, default=5)
    parser.add_argument(
        "--solver-budgets", default="0.5,1,2,4",
        help="solvers: the seconds a re-solve may take, comma-separated",
    )  # fmt: skip
    args = parser.parse_args(argv)
    one_thread()
    from nashzoo.abstraction.small import abstract_tree
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.cfr.subgame import public_subgames, resolve_all
    from nashzoo.games import LeducHoldemGame
    from nashzoo.games.poker import presets
    from nashzoo.tree import compile_game, nash_conv_array

    print(machine_line())
    games = {"leduc": LeducHoldemGame, "three_rounds": presets.two_board_round_limit}
    for name in args.games.split(","):
        if name in ("holdem", "hunl"):
            holdem(args, no_limit=name == "hunl")
            continue
        if name == "streets":
            streets(args)
            continue
        if name in ("solvers", "solvers-holdem"):
            solvers(args, no_limit=name == "solvers")
            continue
        game = games[name]()
        tree = compile_game(game)
        subgames = public_subgames(tree)
        print(
            f"\n{name}: {tree.num_nodes:,} histories, {len(subgames)} public subgames of later "
            f"rounds; {args.iterations} CFR+ iterations per subgame and player"
        )
        blueprints = {}
        for n in (int(x) for x in args.blueprints.split(",")):
            blueprints[f"CFR+ {n}"] = make_solver("cfr+", tree).iterate(n).average_policy().probs
        if name == "leduc":
            coarse = abstract_tree(game, "ehs2:1,1:perfect")
            probs = make_solver("cfr+", coarse.tree).iterate(1000).average_policy().probs
            blueprints["ehs2:1,1:perfect, CFR+ 1000"] = coarse.expand(probs)
        print(f"| blueprint | blueprint | {' | '.join(GADGETS)} | seconds (maxmargin) |")
        print("|---|---:|" + "---:|" * len(GADGETS) + "---:|")
        for label, blueprint in blueprints.items():
            cells = [f"{nash_conv_array(tree, blueprint) / 2:.4f}"]
            seconds = 0.0
            for gadget in GADGETS:
                start = time.perf_counter()
                solved = resolve_all(blueprint, tree, iterations=args.iterations, gadget=gadget)
                if gadget == "maxmargin":
                    seconds = time.perf_counter() - start
                cells.append(f"{nash_conv_array(tree, solved) / 2:.4f}")
            per = 1000 * seconds / (2 * len(subgames))
            print(f"| {label} | {' | '.join(cells)} | {seconds:.1f} ({per:.1f} ms a subgame) |")
        depth_limited(tree, blueprints, args.iterations)


def depth_limited(tree, blueprints: dict, iterations: int) -> None:
    """The first round re-solved depth-limited (leaves at the first board card's deal),
    with the blueprint as the only continuation and with the 4 (the blueprint and its
    biases toward each action), alone and with every later round then re-solved
    (nested, max-margin); exact exploitability of each. At the game's first decision
    the opponent's range is chance's alone, so no gadget is needed there."""
    import numpy as np

    from nashzoo.agents.cfr.subgame import Subgame, resolve, resolve_all
    from nashzoo.tree import nash_conv_array

    root = Subgame.at(tree, 0)
    seat0 = (tree.infoset_player == 0)[:, None]

    def first_round(blueprint, bias):
        mine = [resolve(blueprint, root, p, iterations=iterations, gadget="none", depth=1,
                        bias=bias) for p in (0, 1)]  # fmt: skip
        return np.where(seat0, mine[0], mine[1])

    print(
        "\nThe first round re-solved depth-limited (Brown, Sandholm & Amos 2018; "
        f"{iterations} CFR+ iterations, both players), exact exploitability:\n"
    )
    print(
        "| blueprint | blueprint | later rounds re-solved | first round, the blueprint's "
        "values | first round, 4 continuations | 4 continuations, then later rounds | seconds "
        "(first round, 4) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, blueprint in blueprints.items():
        cells = [nash_conv_array(tree, blueprint) / 2]
        cells.append(nash_conv_array(tree, resolve_all(blueprint, tree, iterations=iterations)) / 2)
        cells.append(nash_conv_array(tree, first_round(blueprint, None)) / 2)
        start = time.perf_counter()
        limited = first_round(blueprint, 5.0)
        seconds = time.perf_counter() - start
        cells.append(nash_conv_array(tree, limited) / 2)
        nested = resolve_all(limited, tree, iterations=iterations)
        cells.append(nash_conv_array(tree, nested) / 2)
        print(f"| {label} | {' | '.join(f'{c:.4f}' for c in cells)} | {seconds:.2f} |")


def streets(args: argparse.Namespace) -> None:
    """The river's and the turn's subgames of Limit Hold'em: size and CFR+ speed."""
    import numpy as np

    from nashzoo.abstraction.betting import betting_tree
    from nashzoo.agents.cfr.endgame import Endgame, resolve_endgame
    from nashzoo.games.poker.presets import limit_holdem

    game = limit_holdem()
    tree = betting_tree(game)
    n = max(args.street_iterations, 2)
    print(
        f"\nLimit Hold'em's re-solving subgames (random ranges and blueprint, max-margin; "
        f"medians of 3 runs of 1 and of {n} CFR+ iterations, one core)"
    )
    print("| street | from | nodes | hands | memory | build s | 1-iteration solve s | "
          "s per further iteration | sampled |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")

    def check_down(n: int) -> tuple[float, float]:
        return float(tree.contrib[n, 1]), -float(tree.contrib[n, 0])

    for street, bets, board in (
        ("river", "rc/cc/cc/", [51, 46, 30, 12, 4]),
        ("turn", "rc/cc/", [51, 46, 30, 12]),
        ("turn, depth-limited", "rc/cc/", [51, 46, 30, 12]),
    ):
        start = time.perf_counter()
        leaves = check_down if "depth" in street else None
        subgame = Endgame.at(tree, board, tree.node_of_bets(bets), leaves=leaves)
        built = time.perf_counter() - start
        rng = np.random.default_rng(args.seed)
        ranges = rng.random((2, subgame.num_hands))
        legal = tree.legal_mask[subgame.nodes][:, None, :] * (subgame.player >= 0)[:, None, None]
        raw = rng.random((subgame.nodes.size, 1, game.num_distinct_actions)) * legal
        blueprint = np.broadcast_to(
            raw / np.maximum(raw.sum(axis=2, keepdims=True), 1e-300),
            (subgame.nodes.size, subgame.num_hands, game.num_distinct_actions),
        ).copy()
        resolve_endgame(subgame, 0, ranges, blueprint, iterations=1)  # compiled, off the clock
        times: dict[tuple[int, bool], list[float]] = {}
        sampled_too = street == "turn"  # the depth-limited turn is exact: no deal to sample
        for _ in range(3):  # interleaved
            for sample in (False, True) if sampled_too else (False,):
                for iterations in (1, n) if not sample else (1, 10 * n):
                    start = time.perf_counter()
                    resolve_endgame(subgame, 0, ranges, blueprint, iterations=iterations,
                                    sample_deals=sample)  # fmt: skip
                    times.setdefault((iterations, sample), []).append(time.perf_counter() - start)
        med = {k: sorted(v)[1] for k, v in times.items()}
        one = med[1, False]
        per = (med[n, False] - one) / (n - 1)
        sampled = (med[10 * n, True] - med[1, True]) / (10 * n - 1) if sampled_too else None
        print(
            f"| {street} | {bets} | {subgame.nodes.size:,} | {subgame.num_hands:,} | "
            f"{subgame.memory_bytes() / 2**20:,.0f} MiB | {built:.2f} | {one:.3f} | {per:.4f} | "
            f"{'' if sampled is None else f'{sampled:.4f}'} |"
        )
        if street.startswith("turn"):
            cbv = subgame.best_response_values(1, ranges, blueprint)
            scale = np.abs(cbv).max()
            line = []
            for sample in (False, True) if sampled_too else (False,):
                solved, done = resolve_endgame(subgame, 0, ranges, blueprint, seconds=5.0,
                                               iterations=10**6, sample_deals=sample)  # fmt: skip
                margin = (cbv - subgame.best_response_values(1, ranges, solved)).min() / scale
                line.append(f"{'sampled' if sample else 'exact'} {done} iterations, {margin:+.3f}")
            print(f"({street} in 5 s: {'; '.join(line)})")
    flop = Endgame.count_nodes(tree, tree.node_of_bets("rc/"), 3)
    print(f"(the flop's subgame would have {flop:,} nodes: it is not built)")


def holdem(args: argparse.Namespace, no_limit: bool = False) -> None:
    """The blueprint against itself re-solving the river, duplicate deals with AIVAT, and
    LBR of both; on no-limit, both against poker-rules too."""
    from pathlib import Path

    from nashzoo.agents.cfr.abstract import AbstractionSolver
    from nashzoo.agents.cfr.endgame import ResolvingAbstractionAgent
    from nashzoo.agents.specs import build_agent
    from nashzoo.eval import head_to_head, local_best_response
    from nashzoo.games.poker import presets

    game = presets.no_limit_holdem() if no_limit else presets.limit_holdem()
    path = args.blueprint
    if path is None:
        stem = f"{game.short_name}-{args.abstraction.replace(':', '-')}"
        path = str(Path(f"{stem}.npz").resolve())
        solver = AbstractionSolver(game, args.abstraction, seed=args.seed, threads=2,
                                   actions=args.actions if no_limit else None)  # fmt: skip
        solver.train(seconds=60 * args.blueprint_minutes, progress=True)
        solver.average_policy().save(path)
        print(f"\nblueprint: {args.abstraction}, {solver.iteration:,} iterations in "
              f"{solver.seconds:.0f} s on 2 threads -> {path}")  # fmt: skip
    blueprint = build_agent(path, game)
    street = "" if args.street == "river" else f"{args.street}:"
    values = f"+{args.values}" if args.values else ""
    resolving = build_agent(f"resolve:{street}{args.budget}+{path}{values}", game)
    assert isinstance(resolving, ResolvingAbstractionAgent)
    if args.gadget != resolving.gadget:  # the spec's is max-margin
        resolving = ResolvingAbstractionAgent(
            resolving.policy, game, iterations=resolving.iterations, seconds=resolving.seconds,
            gadget=args.gadget, name=f"{resolving.name}:{args.gadget}",
            streets=resolving.streets, values=resolving.values,
        )  # fmt: skip
    pairs = [] if args.only_opponents else [(resolving, blueprint)]
    opponents = list(args.opponent)
    if args.train_opponents > 0:
        opponents += train_opponents(game, args.train_opponents, Path(args.opponents_dir),
                                     args.seed)  # fmt: skip
    if no_limit and not args.only_opponents:
        opponents.insert(0, "poker-rules=poker-rules")
    for item in opponents:
        name, _, spec = item.partition("=")
        other = build_agent(spec or name, game, name=name)
        pairs += [(resolving, other), (blueprint, other)]
    for a, b in pairs if args.deals > 0 else []:
        print(f"\n{game.short_name}: {a.name} against {b.name}, {args.deals} duplicate deals, "
              "AIVAT")  # fmt: skip
        start = time.perf_counter()
        match = head_to_head(game, a, b, deals=args.deals, seed=args.seed,
                             variance_reduction="aivat")  # fmt: skip
        print(f"{match}  ({time.perf_counter() - start:.0f} s)")
    report_resolves(resolving)
    measured = {"blueprint": blueprint, "resolving": resolving}
    settings = [s for s in args.lbr_round_actions.split(",") if s] or [None]
    for setting in settings if args.lbr_hands > 0 else []:
        if setting in PUBLISHED_LBR:
            print(f"\nLBR {setting}, published (mbb/game): " + ", ".join(
                f"{bot} {value:,} +- {half}" for bot, (value, half) in PUBLISHED_LBR[setting]
            ))  # fmt: skip
        for name in args.lbr_agents.split(","):
            agent = measured[name]
            start = time.perf_counter()
            lbr = local_best_response(
                game, agent, hands=args.lbr_hands, rollouts=20, seed=args.seed,
                round_actions=setting,
            )  # fmt: skip
            print(f"LBR {agent.name}: {lbr}  ({time.perf_counter() - start:.0f} s)")
            if agent is resolving:
                report_resolves(resolving)


def solvers(args: argparse.Namespace, no_limit: bool = True) -> None:
    """CFR+ against Linear CFR as the river re-solve's regret minimiser: the re-solving
    agent (``resolve:0.5s+FILE``, ``--blueprint``) plays ``--deals`` duplicate deals
    against poker-rules, every river subgame it meets is kept (its ranges, blueprint and
    the opponent's best-response values), and each is solved again by both at each of
    ``--solver-budgets`` seconds: how many would fall back to the blueprint (some
    opponent hand gaining over :data:`~nashzoo.agents.cfr.endgame.UNSAFE` of the
    largest value more than against the blueprint), and the median of that gain over
    the largest value."""
    import numpy as np

    from nashzoo.agents.cfr import endgame
    from nashzoo.agents.cfr.endgame import SOLVERS, UNSAFE, excess_gain, resolve_endgame
    from nashzoo.agents.specs import build_agent
    from nashzoo.eval import head_to_head
    from nashzoo.games.poker import presets

    game = presets.no_limit_holdem() if no_limit else presets.limit_holdem()
    spots = []

    def keep(subgame, us, ranges, blueprint, **kw):  # what the agent asks, kept
        spots.append((subgame, us, ranges.copy(), blueprint.copy()))
        return resolve_endgame(subgame, us, ranges, blueprint, **kw)

    endgame.resolve_endgame = keep
    try:
        agent = build_agent(f"resolve:0.5s+{args.blueprint}", game)
        head_to_head(game, agent, build_agent("poker-rules", game), deals=args.deals,
                     seed=args.seed)  # fmt: skip
    finally:
        endgame.resolve_endgame = resolve_endgame
    nodes = np.median([s[0].player.size for s in spots])
    print(f"\n{game.short_name}: {len(spots)} river subgames from {args.deals} duplicate "
          f"deals against poker-rules (median {nodes:.0f} nodes, {spots[0][0].num_hands} "
          "hands)")  # fmt: skip
    print("| budget | solver | iterations (median) | fall back | gain / largest value (median) |")
    print("|---:|---|---:|---:|---:|")
    for budget in (float(x) for x in args.solver_budgets.split(",")):
        for solver in SOLVERS:
            done, ratios = [], []
            for subgame, us, ranges, blueprint in spots:
                before = subgame.best_response_values(1 - us, ranges, blueprint)
                strategy, n = resolve_endgame(subgame, us, ranges, blueprint, seconds=budget,
                                              cbv=before, solver=solver)  # fmt: skip
                ratios.append(excess_gain(subgame, us, ranges, strategy, before))
                done.append(n)
            unsafe = sum(r > UNSAFE for r in ratios)
            print(f"| {budget:g} s | {solver} | {np.median(done):.0f} | {unsafe} of {len(spots)} "
                  f"| {np.median(ratios):+.4f} |")  # fmt: skip


def report_resolves(resolving) -> None:
    """The re-solves ``resolving`` has made so far, street by street (count, mean time
    and CFR+ iterations), and its fallbacks to the blueprint."""
    import numpy as np

    from nashzoo.agents.cfr.endgame import street_name

    rounds = resolving.policy.game.definition.num_rounds
    for r in sorted(set(resolving.resolve_rounds)):
        mine = [k for k, x in enumerate(resolving.resolve_rounds) if x == r]
        times = [resolving.resolve_seconds[k] for k in mine]
        iterations = [resolving.resolve_iterations[k] for k in mine]
        print(f"re-solves from the {street_name(rounds, rounds - r)}: {len(mine)}, "
              f"{np.mean(times):.3f} s and {np.mean(iterations):.0f} CFR+ iterations on "
              f"average (max {max(times):.3f} s)")  # fmt: skip
    print(f"fallbacks to the blueprint: {resolving.fallbacks} over the memory cap, "
          f"{resolving.unsafe} re-solves that broke the gadget's promise")  # fmt: skip


def train_opponents(game, minutes: float, out, seed: int) -> list[str]:
    """Issue 90's learned opponents on ``game``, trained ``minutes`` each at the same time
    (one core each): NFSP by self-play (the crosstable's runner,
    :func:`learner_crosstable.train_all`: ``nashzoo train nfsp`` in a child process, its
    log in ``out/nfsp.log``, a stopped run resumed) and MaskablePPO against poker-rules in
    both seats (here, :func:`~nashzoo.bounds.learned_best_response` with a time budget;
    its 1,000-deal match against poker-rules is printed). A file already in ``out`` is
    kept. Returns their ``NAME=SPEC`` items."""
    import threading

    from learner_crosstable import train_all

    from nashzoo.agents.specs import build_agent
    from nashzoo.bounds import learned_best_response

    out.mkdir(parents=True, exist_ok=True)
    ppo = out / "maskable-ppo.zip"
    measured = ("--seed", str(seed), "--measure-every", "900", "--measure-deals", "200")
    failed: list[BaseException] = []

    def nfsp() -> None:  # a thread's SystemExit would end only the thread: kept to raise
        try:
            train_all(game.short_name, ["nfsp"], minutes, out, 1, {"nfsp": measured})
        except BaseException as error:
            failed.append(error)

    thread = threading.Thread(target=nfsp)
    thread.start()
    if not ppo.exists():
        print(f"training: MaskablePPO against poker-rules for {minutes:g} min", flush=True)
        rules = build_agent("poker-rules", game)
        found = learned_best_response(game, rules, steps=10**12, seconds=60 * minutes,
                                      deals=1000, seed=seed)  # fmt: skip
        found.model.save(str(ppo))
        print(f"MaskablePPO: {found.steps:,} steps in {found.train_seconds:.0f} s; against "
              f"poker-rules {found.match}", flush=True)  # fmt: skip
    thread.join()
    if failed:
        raise failed[0]
    return [f"nfsp={out / 'nfsp.pt'}", f"maskable-ppo={ppo}"]


PUBLISHED_LBR = {
    "fc/fc/fc/fc": (
        ("Hyperborean (2014)", (721, 56)),
        ("Slumbot (2016)", (522, 50)),
        ("Act1 (2016)", (407, 47)),
        ("Always Fold", (250, 0)),
        ("DeepStack", (-428, 87)),
    ),
    "c/c/fcpa/fcpa": (
        ("Hyperborean (2014)", (3852, 141)),
        ("Slumbot (2016)", (4020, 115)),
        ("Act1 (2016)", (2597, 140)),
        ("Always Fold", (750, 0)),
        ("DeepStack", (-383, 219)),
    ),
}
"""LBR against the ACPC no-limit agents of 2014-2016, mbb/game with the published
interval, for two of LBR's action settings (fold or call on every round; check or call
on the preflop and flop, then fold, call, pot and all-in), from DeepStack's supplementary
Table 3 (Moravčík et al. 2017), which repeats Lisý & Bowling's settings. Read here from a
public transcription of that table, not from the paper itself; the Always Fold rows follow
from the rules (tests/eval/test_lbr.py checks ours gives them)."""


if __name__ == "__main__":
    main()
