"""H-splitting and P-splitting against the flat search (issue 33, item 5), on a
Nash-ISMCTS network trained over the rules.

``SearchConfig.split_hidden`` draws the opponent's private information piece by piece:
on heads-up Limit Hold'em a SAMPLE node over up to 1,225 hole-card pairs becomes a node
over the first card and one over the second, each with its own L1 ball. Measured here,
with the same network and settings except the split:

* simulations per second from the same decision states (interleaved, median of
  ``--repeats``), and the peak resident memory of each search (a process of its own);
* the two searches against each other in duplicate deals (common random numbers), and
  each against the rule-based agent (AIVAT), at the same simulations per move.

On Leduc the hidden information is one card, so the split is the flat node by
construction (``Game.hidden_value_pieces`` names no pieces there): nothing to measure.
With ``eps`` 0 the split is the flat search exactly (a test); with ``eps`` > 0 each node
of the series takes its own ball, so the interval is wider than the flat node's.

``--split belief`` measures online H refinement (``TrainConfig.belief_source`` /
``NetworkKnowledge(belief="bayes")``) against the belief head on the same network: H of a
view is Bayes' rule over the public history with the network's own P as the opponent's
policy, from the start of the game, instead of the H head's output. Nothing is split; the
"split" side of the output is the refined search.

``--split pieces`` measures the piece-by-piece draw (``SearchConfig.draw_pieces``, issue
89 item 4) against the flat node: the series built lazily, each node over one card's
options. ``--node-memory`` adds what a SAMPLE node holds (the bytes of its arrays) by
the number of worlds of the view, flat, split and drawn piece by piece, on Hold'em's
streets and on a Limit Hold'em with three hole cards and no river (18,424 worlds
preflop), with untrained
networks of each game (what a node holds depends on the worlds, not on the weights).
With ``--small`` it also measures the search operator's exact exploitability, flat and
piece by piece, on an 8-card game with two hole cards that compiles.

``--split actions`` measures P-splitting (``SearchConfig.split_actions``) the same way on
a no-limit network (``--game no_limit_holdem``): an ACT node picks fold, call or raise,
then the raise size. Limit games and Leduc have one raise: nothing to split there. With
``--small`` it also measures the search operator's exact exploitability, flat and split,
on a 6-card no-limit game that compiles (CFR+ oracle tables, seeds 0-2).

Simulations per second are measured with cold caches: every timed pass starts from a
fresh :class:`~nashzoo.agents.ismcts.knowledge.NetworkKnowledge`, so no view evaluated in
an earlier pass (or in the warm-up) is answered from the cache.

Usage: ``python benchmarks/h_splitting.py --ours hulh.pt [--game limit_holdem]
[--split hidden|pieces|actions|belief] [--simulations 200] [--deals 200] [--repeats 3]
[--small] [--node-memory]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, one_thread, peak_rss_mib, runs_text
from nash_ismcts_holdem import decision_states, match

SPLITS = {
    "hidden": "split_hidden",
    "pieces": "draw_pieces",
    "actions": "split_actions",
    "belief": "belief_source",
}


def agents(path: str, simulations: int, split_kind: str = "hidden") -> tuple[Any, Any, Any]:
    """The game and the flat and split search agents on the file's network (for
    ``split_kind="belief"``: the belief head's H and the online Bayes refinement's)."""
    from nashzoo.agents.ismcts.knowledge import NetworkKnowledge
    from nashzoo.agents.ismcts.train import NashISMCTS

    trainer = NashISMCTS.load(path)
    names = (
        ("head", "bayes")
        if split_kind == "belief"
        else ("flat", "pieces" if split_kind == "pieces" else "split")
    )
    flat = trainer.agent(name=names[0])
    config = replace(
        flat.config, simulations=simulations, time_budget=None, split_hidden=False,
        draw_pieces=False, split_actions=False,
    )  # fmt: skip
    flat.search.config = config
    flat.search.knowledge = NetworkKnowledge(trainer.game, trainer.playing_network)
    split = trainer.agent(name=names[1])
    if split_kind == "belief":
        split.search.config = config
        split.search.knowledge = NetworkKnowledge(
            trainer.game, trainer.playing_network, belief="bayes"
        )
    else:
        split.search.config = replace(config, **{SPLITS[split_kind]: True})
    return trainer.game, flat, split


def operator_exploitability(
    game: Any, tables: Any, simulations: int, setting: str, label: str
) -> None:
    """Print the search operator's exact exploitability (Nash-ISMCTS on ``tables``, eps
    0.2, seeds 0-2) with the flag ``setting`` of ``SearchConfig`` off, then on (``label``)."""
    import numpy as np

    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig, TablesKnowledge
    from nashzoo.eval.exploitability import exploitability

    for on in (False, True):
        start, found = time.perf_counter(), []
        for seed in range(3):
            config = SearchConfig(
                variant="nash", simulations=simulations, eps=0.2, seed=seed, **{setting: on}
            )
            agent = ISMCTSAgent(game, TablesKnowledge(tables), config)
            found.append(exploitability(agent, game).exploitability)
        name = label if on else "flat"
        print(
            f"  {name:<{len(label)}}  exploitability {np.mean(found):.4f} "
            f"({', '.join(f'{v:.4f}' for v in found)})  {time.perf_counter() - start:.0f} s"
        )


def small_no_limit(simulations: int) -> None:
    """The search operator's exact exploitability, flat and P-split, on a 6-card no-limit
    game with three pot fractions (CFR+ oracle tables), seeds 0-2."""
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.ismcts import SearchTables
    from nashzoo.games.poker import PokerDefinition, PokerGame
    from nashzoo.tree import compile_game

    d = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=3, num_hole_cards=1,
    )  # fmt: skip
    game = PokerGame(d, raises=(0.5, 1.0, 2.0))
    probs = make_solver("cfr+", game).iterate(300).average_policy().probs
    tables = SearchTables.oracle(compile_game(game), probs)
    print(f"\nsmall no-limit game, CFR+ oracle tables, {simulations} simulations, eps 0.2:")
    operator_exploitability(game, tables, simulations, "split_actions", "split")


def small_two_cards(simulations: int) -> None:
    """The search operator's exact exploitability, flat and drawn piece by piece, on an
    8-card game with two hole cards and a board card that compiles (CFR+ after 30
    iterations read as oracle tables), seeds 0-2: the lazy series against the flat node
    on exact numbers (the tables answer each piece with the marginals over the worlds)."""
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.ismcts import SearchTables
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.games.poker import PokerDefinition, PokerGame
    from nashzoo.tree import compile_game

    d = PokerDefinition(
        num_rounds=2, blinds=(2, 1), stacks=(20, 20), first_player=(1, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=4, num_hole_cards=2,
        betting="limit", raise_sizes=((2,), (4,)), max_raises=(2, 2),
    )  # fmt: skip
    game = PokerGame(d)
    policy = make_solver("cfr+", game).iterate(30).average_policy()
    tables = SearchTables.oracle(compile_game(game), policy.probs)
    blueprint = exploitability(policy, game).exploitability
    print(f"\n8-card game, two hole cards, CFR+ after 30 iterations ({blueprint:.4f} "
          f"exploitable) as oracle tables, {simulations} simulations, eps 0.2:")  # fmt: skip
    operator_exploitability(game, tables, simulations, "draw_pieces", "piece by piece")


def node_memory(simulations: int) -> None:
    """The bytes of arrays one SAMPLE node holds (its H, running total, values, the
    split's group arrays, the options), averaged over every SAMPLE node the searches
    made, with the largest, by the number of worlds of the views searched: flat, split
    and drawn piece by piece."""
    import numpy as np
    import torch

    import nashzoo
    from nashzoo.agents.ismcts import ISMCTSSearch, NetworkKnowledge, SearchConfig
    from nashzoo.agents.ismcts import search as module
    from nashzoo.agents.ismcts.nets import EmbeddingNetwork, EmbeddingNetworkShape
    from nashzoo.games.poker import PokerGame, presets

    def held(node: Any) -> int:
        arrays = [node.belief, node.vstar, node.options]
        if isinstance(node.cumulative, np.ndarray):
            arrays.append(node.cumulative)
        total = 8 * len(node.cumulative) if isinstance(node.cumulative, list) else 0
        if node.split is not None:
            split = node.split
            arrays += [*split.mass, *split.prior, *split.base_lo, *split.base_hi]
        return total + sum(a.nbytes for a in arrays if a is not None)

    d = presets.limit_holdem().definition  # three hole cards, no river (7 cards a hand)
    three = PokerGame(
        replace(d, num_hole_cards=3, num_rounds=3, num_board_cards=d.num_board_cards[:3],
                first_player=d.first_player[:3], raise_sizes=d.raise_sizes[:3],
                max_raises=d.max_raises[:3])
    )  # fmt: skip
    games = {
        "limit_holdem": nashzoo.make_game("limit_holdem"),
        "no_limit_holdem": nashzoo.make_game("no_limit_holdem"),
        "three hole cards": three,
    }
    print(f"\nwhat a SAMPLE node holds ({simulations} simulations a search, untrained networks)")
    print("| game | street | worlds | flat: bytes a node (largest) | split | piece by piece |")
    print("|---|---|---:|---:|---:|---:|")
    made: list[Any] = []
    original = module._Sample.__init__

    def counted(self: Any, belief: Any, vstar: Any, exact: bool) -> None:
        original(self, belief, vstar, exact)
        made.append(self)

    module._Sample.__init__ = counted  # type: ignore[method-assign]
    try:
        for name, game in games.items():
            torch.manual_seed(0)
            shape = EmbeddingNetworkShape.for_game(game, hidden_sizes=(64, 64), embed_size=16)
            network = EmbeddingNetwork(shape).eval()
            rng = np.random.default_rng(3)
            for street, cards in (("preflop", 0), ("flop", 3), ("turn", 4), ("river", 5)):
                state = game.new_initial_state()
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes = state.chance_outcomes()
                        state.apply_action(int(outcomes[rng.integers(len(outcomes))][0]))
                    elif len(state.board_cards()) >= cards:
                        break
                    else:
                        state.apply_action(1)
                if state.is_terminal() or len(state.board_cards()) != cards:
                    continue  # no such street (three hole cards: no river)
                p = state.current_player()
                worlds = len(state.hidden_worlds(p))
                cells = []
                for kind in ("flat", "split", "pieces"):
                    config = SearchConfig(simulations=simulations, split_hidden=kind == "split",
                                          draw_pieces=kind == "pieces")  # fmt: skip
                    made.clear()
                    ISMCTSSearch(game, NetworkKnowledge(game, network), config).run_state(state, 0)
                    sizes = [held(node) for node in made]
                    cells.append(f"{np.mean(sizes):,.0f} ({max(sizes):,})")
                print(f"| {name} | {street} | {worlds:,} | {' | '.join(cells)} |")
    finally:
        module._Sample.__init__ = original  # type: ignore[method-assign]


def searches_per_second(agent: Any, states: list[Any]) -> float:
    """Simulations per second over ``states``, from a cold cache (a fresh knowledge on the
    same network)."""
    from nashzoo.agents.ismcts.knowledge import NetworkKnowledge

    old = agent.search.knowledge
    agent.search.knowledge = NetworkKnowledge(old.game, old.network, belief=old.belief_source)
    start = time.perf_counter()
    for k, state in enumerate(states):
        agent.search.run_state(state, k)
    return agent.search.config.simulations * len(states) / (time.perf_counter() - start)


def memory_child(path: str, simulations: int, split: bool, game_name: str, kind: str) -> None:
    """In a process of its own: one agent searches the first three states; prints its
    peak resident memory in MB."""
    one_thread()
    _, flat, split_agent = agents(path, simulations, kind)
    agent = split_agent if split else flat
    for k, state in enumerate(
        decision_states(agent.game, 3, seed=11, poker=game_name != "fighting_cards")
    ):
        agent.search.run_state(state, k)
    print(peak_rss_mib())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ours", required=True, help="a Nash-ISMCTS .pt file (over the rules)")
    parser.add_argument("--game", default="limit_holdem")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--states", type=int, default=20)
    parser.add_argument("--deals", type=int, default=200, help="0: speed and memory only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--split", choices=sorted(SPLITS), default="hidden")
    parser.add_argument(
        "--small", action="store_true",
        help="also a small game that compiles (no-limit; two hole cards with --split pieces)",
    )  # fmt: skip
    parser.add_argument(
        "--node-memory", action="store_true", help="also what a SAMPLE node holds, by worlds"
    )
    parser.add_argument("--memory-child", choices=["flat", "split"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child(
            args.ours, args.simulations, args.memory_child == "split", args.game, args.split
        )
        return
    one_thread()
    from nashzoo.agents.specs import build_agent

    print(machine_line())
    print(f"compared: {SPLITS[args.split]} (off against on)")
    if args.small:
        if args.split == "pieces":
            small_two_cards(args.simulations)
        else:
            small_no_limit(args.simulations)
    if args.node_memory:
        node_memory(args.simulations)
    game, flat, split = agents(args.ours, args.simulations, args.split)
    poker = args.game != "fighting_cards"
    states = decision_states(game, args.states, seed=11, poker=poker)
    print(f"{args.game}: {args.simulations} simulations per search, eps {flat.config.eps}")
    for agent in (flat, split):  # warm up: numba's compiled kernels, torch
        searches_per_second(agent, states[:2])
    runs = interleaved(
        {
            "flat": lambda: searches_per_second(flat, states),
            "split": lambda: searches_per_second(split, states),
        },
        repeats=args.repeats,
    )
    f, s = median(runs["flat"]), median(runs["split"])
    a, b = flat.name, split.name
    print(
        f"simulations/s  {a} {f:,.0f} ({runs_text(runs['flat'])})  {b} {s:,.0f} "
        f"({runs_text(runs['split'])})  {b}/{a} {s / f:.2f}x"
    )
    for kind in ("flat", "split"):
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--ours",
                args.ours,
                "--game",
                args.game,
                "--simulations",
                str(args.simulations),
                "--split",
                args.split,
                "--memory-child",
                kind,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        name = flat.name if kind == "flat" else split.name
        print(f"peak resident memory, {name} search: {float(out.stdout.split()[-1]):,.0f} MiB")
    if args.deals <= 0:
        return
    print(f"\nduplicate matches (the {split.name} search's mean per game)")
    match(game, split, flat, args.deals, args.deals, f"the {flat.name} search")
    baseline = "poker-rules" if poker else "heuristic"
    for agent in (flat, split):
        print(f"{agent.name}:", end="")
        match(game, agent, build_agent(baseline, game), args.deals, args.deals, baseline)


if __name__ == "__main__":
    main()
