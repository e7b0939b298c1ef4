"""Safe subgame re-solving measured exactly (issue 90, "Exactness"): blueprints on Leduc
and on a compiled three-round poker game, with every later round's public subgame solved
again (:func:`nashzoo.agents.cfr.subgame.resolve_all`) under the max-margin gadget, the
re-solve gadget and none (unsafe), and the exact exploitability of each.

Blueprints: CFR+ after ``--blueprints`` iterations, and on Leduc the coarse card
abstraction ``ehs2:1,1:perfect`` (one bucket a round: the cards ignored) solved by CFR+
and lifted to the real game. Goal: re-solving with a gadget lowers the exploitability of
every blueprint tried (the unsafe column shows what the gadget protects against). Speed:
seconds to re-solve every subgame, and per subgame and player.

No peer: OpenSpiel has no subgame re-solving to run beside it.

Usage: ``python benchmarks/subgame_solving.py [--games leduc,three_rounds]
[--blueprints 10,30,100,1000] [--iterations 1000]``
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


if __name__ == "__main__":
    main()
