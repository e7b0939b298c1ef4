"""The search's constants and estimators, measured (issue 89, items 2 and 5).

``--section scale``: on what scale PUCT's exploration and the LCB bite
(``SearchConfig.value_scale``). The search operator's exact exploitability on Leduc
(one search at every information set, the compiled path, seeds 0-2) from oracle tables
of three priors (CFR+ after 10, 40 and 300 iterations), on the game's scale and on the
tree's value range, at ``eps`` 0.2 and 0.05; and the policy of a search on a Limit
Hold'em river where P folds the nuts with probability 0.95, by simulations.

``--section luck``: what the luck adjustment at large chance nodes costs and buys. The
search over the rules values a chance node by the expectation over every outcome
(each unvisited outcome at the knowledge's value), which needs the views after all of a
Hold'em board card's 45 to 48 outcomes; before, chance nodes of more than 8 outcomes
averaged the outcomes drawn. Measured here, on the same network and decision states:

* simulations per second of Nash-ISMCTS over the rules on Limit Hold'em, with the
  adjustment (``exact_chance=52``) and without (``exact_chance=8``), interleaved, the
  median of ``--repeats``, every pass from a fresh knowledge (cold view caches), and the
  views each search had evaluated;
* the spread over seeds of the value of calling before a large chance node, on a
  12-card game whose board card has 10 outcomes, with oracle tables of the uniform
  profile (the exact value is known): the test's figure, over more seeds.

``--section paths``: the search over the rules (worlds from the poker engine's fast path,
P and V from the tables) is the compiled search. Both search operators' exact
exploitability on Leduc from CFR+ oracle tables (300 iterations), Nash-ISMCTS eps 0.2,
per seed, at 100 and 1,000 simulations; the two means must lie within the seeds' spread
of each other. The test suite checks it at 100 simulations
(``tests/agents/test_ismcts_rules_nash.py``); 1,000 takes minutes.

``--section blueprint`` (item 7): what a search on a blueprint does with and without the
values of histories under the blueprint's play (``--blueprint lhe.npz --values
lhe.values.pt``, from ``nashzoo values``). On ``--deals`` deals of Limit Hold'em (each in
both seatings, seeded), the search plays one seat at 0.2 s a move and the blueprint the
other; at each of the search's decisions the blueprint is asked too. Printed per search:
its folds and raises, the blueprint's expected folds and raises at the same decisions,
and the median simulations a move. The two searches play the same deals one after
the other.

Usage: ``python benchmarks/nash_ismcts_search.py [--section scale|luck|paths|blueprint]
[--ours hulh.pt] [--states 20] [--simulations 200] [--repeats 3] [--paths-seeds 4]
[--blueprint lhe.npz --values lhe.values.pt --deals 40]``. Without ``--ours``
the network is a fresh one of the default shape (its values are noise, but the views a
search requests, and so the cost, are those of any network).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np
from common import interleaved, machine_line, median, one_thread, runs_text
from nash_ismcts_holdem import decision_states


def holdem_speed(args: argparse.Namespace) -> None:
    import torch

    import nashzoo
    from nashzoo.agents.ismcts import ISMCTSAgent, ISMCTSSearch, NetworkKnowledge, SearchConfig
    from nashzoo.agents.ismcts.nets import EmbeddingNetwork, EmbeddingNetworkShape

    game = nashzoo.make_game("limit_holdem")
    if args.ours:
        agent = ISMCTSAgent.load(args.ours, game)
        network = agent.search.knowledge.network
    else:
        torch.manual_seed(0)
        network = EmbeddingNetwork(EmbeddingNetworkShape.for_game(game)).eval()
    states = decision_states(game, args.states, 0)
    config = SearchConfig(variant="nash", eps=0.2, simulations=args.simulations)
    views: dict[int, list[float]] = {}

    def run(exact_chance: int) -> Any:
        def one() -> float:
            knowledge = NetworkKnowledge(game, network)
            search = ISMCTSSearch(game, knowledge, config, exact_chance=exact_chance)
            done = seconds = 0.0
            for k, state in enumerate(states):
                result = search.run_state(state, k)
                done += result.simulations
                seconds += result.seconds
            views.setdefault(exact_chance, []).append(knowledge.evaluated / len(states))
            return done / seconds

        return one

    print(f"Limit Hold'em, {len(states)} decision states, {args.simulations} simulations")
    results = interleaved(
        {"adjusted (exact_chance=52)": run(52), "drawn average (exact_chance=8)": run(8)},
        args.repeats,
    )
    adjusted = median(results["adjusted (exact_chance=52)"])
    drawn = median(results["drawn average (exact_chance=8)"])
    runs = {name: runs_text(values) for name, values in results.items()}
    print(f"  adjusted      {adjusted:,.0f} sims/s ({runs['adjusted (exact_chance=52)']})")
    print(f"  drawn average {drawn:,.0f} sims/s ({runs['drawn average (exact_chance=8)']})")
    print(f"  ratio adjusted / drawn: {adjusted / drawn:.2f}")
    for ec, counts in sorted(views.items()):
        print(f"  views evaluated per search, exact_chance={ec}: {median(counts):,.0f}")


def small_game_spread(seeds: int) -> None:
    from nashzoo.agents.ismcts import ISMCTSSearch, SearchConfig, SearchTables, TablesKnowledge
    from nashzoo.games.poker import PokerDefinition, PokerGame
    from nashzoo.tree import TabularPolicy, compile_game

    d = PokerDefinition(
        num_rounds=2, blinds=(1, 1), stacks=(13, 13), first_player=(0, 0),
        num_board_cards=(0, 1), num_suits=2, num_ranks=6, num_hole_cards=1,
        betting="limit", raise_sizes=((2,), (4,)), max_raises=(2, 2),
    )  # fmt: skip
    game = PokerGame(d)
    tree = compile_game(game)
    knowledge = TablesKnowledge(SearchTables.oracle(tree, TabularPolicy.uniform(tree).probs))
    state = game.new_initial_state()
    state.advance_chance(np.random.default_rng(0).random)
    state.advance_chance(np.random.default_rng(0).random)
    state.apply_action(2)
    print(f"\n12-card game, the value of calling before the 10-outcome board card, {seeds} seeds")
    for sims in (30, 300):
        for exact_chance in (52, 0):
            search = ISMCTSSearch(
                game,
                knowledge,
                SearchConfig(variant="a", simulations=sims),
                exact_chance=exact_chance,
            )
            values = []
            for seed in range(seeds):
                result = search.run_state(state, seed)
                values.append(result.q_low[list(result.actions).index(1)])
            label = "adjusted" if exact_chance else "drawn average"
            mean, sd = np.mean(values), np.std(values)
            print(f"  {sims:4d} simulations, {label:14s} mean {mean:+.4f}  sd {sd:.4f}")


def leduc_scale() -> None:
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig, SearchTables
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.games.poker import presets
    from nashzoo.tree import compile_game
    from nashzoo.tree.best_response import nash_conv_array

    game = presets.leduc()
    tree = compile_game(game)
    print("Leduc: the search operator's exact exploitability (chips), seeds 0-2, compiled")
    print("| prior P (its exploitability) | simulations | eps | game's scale | tree's range |")
    print("|---|---:|---:|---:|---:|")
    for iterations in (10, 40, 300):
        probs = make_solver("cfr+", game).iterate(iterations).average_policy().probs
        tables = SearchTables.oracle(tree, probs)
        own = float(nash_conv_array(tree, probs)) / 2
        for sims in (100, 1000):
            for eps in (0.2, 0.05):
                cells = []
                for scale in ("game", "tree"):
                    values = [
                        exploitability(
                            ISMCTSAgent(
                                game,
                                tables,
                                SearchConfig(
                                    simulations=sims, eps=eps, value_scale=scale, seed=seed
                                ),
                            ),
                            game,
                        ).exploitability
                        for seed in range(3)
                    ]
                    cells.append(f"{np.mean(values):.4f}")
                print(f"| CFR+ {iterations} ({own:.3f}) | {sims:,} | {eps} | {' | '.join(cells)} |")


def leduc_paths(seeds: int) -> None:
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig, SearchTables, TablesKnowledge
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.games.poker import presets
    from nashzoo.tree import compile_game

    game = presets.leduc()
    probs = make_solver("cfr+", game).iterate(300).average_policy().probs
    tables = SearchTables.oracle(compile_game(game), probs)
    print(f"\nLeduc: the search operator's exact exploitability (chips), seeds 0-{seeds - 1},")
    print("compiled and over the rules, from CFR+ (300 iterations) oracle tables, eps 0.2")
    print("| simulations | compiled | over the rules | mean difference | spread | within |")
    print("|---:|---|---|---:|---:|---|")
    for sims in (100, 1000):
        found: dict[str, list[float]] = {"compiled": [], "rules": []}
        for seed in range(seeds):  # interleaved: a seed's two paths one after the other
            config = SearchConfig(variant="nash", simulations=sims, eps=0.2, seed=seed)
            for path, knowledge in (("compiled", tables), ("rules", TablesKnowledge(tables))):
                agent = ISMCTSAgent(game, knowledge, config)
                found[path].append(exploitability(agent, game).exploitability)
        c, r = np.array(found["compiled"]), np.array(found["rules"])
        spread = max(np.ptp(c), np.ptp(r))
        gap = abs(c.mean() - r.mean())
        cells = [" / ".join(f"{v:.3f}" for v in x) + f" (mean {x.mean():.3f})" for x in (c, r)]
        print(f"| {sims:,} | {' | '.join(cells)} | {gap:.3f} | {spread:.3f} | {gap <= spread} |")


def nuts_spot() -> None:
    import nashzoo
    from nashzoo.agents.ismcts import ISMCTSSearch, Knowledge, SearchConfig

    game = nashzoo.make_game("limit_holdem")

    class FoldsEverything(Knowledge):
        def act(self, state: Any, player: int) -> Any:
            legal = list(state.legal_actions())
            prior = np.full(len(legal), 0.05 / max(len(legal) - 1, 1))
            if 0 in legal:
                prior[legal.index(0)] = 0.95
            return prior / prior.sum(), np.zeros(len(legal)), 0.0

    cards = ["7c", "2d", "As", "Ks", "Qs", "Js", "Ts", "2h", "3d"]
    state, dealt = game.new_initial_state(), 0
    while dealt < len(cards) or state.current_player() != 0:
        if state.current_player() < 0:
            names = {state.action_to_string(a): a for a, _ in state.chance_outcomes()}
            state.apply_action(next(a for n, a in names.items() if cards[dealt] in n))
            dealt += 1
        else:
            state.apply_action(1)
    state.apply_action(2)
    print("\nLimit Hold'em river, AsKs on QsJsTs 2h 3d facing a bet, P folds with 0.95:")
    print("the search policy's fold share (Nash-ISMCTS, eps 0.2, c_puct 2, seed 0)")
    print("| simulations | game's scale | tree's range |")
    print("|---:|---:|---:|")
    for sims in (50, 200, 1000):
        cells = []
        for scale in ("game", "tree"):
            config = SearchConfig(eps=0.2, simulations=sims, value_scale=scale)
            result = ISMCTSSearch(game, FoldsEverything(game), config).run_state(state, 0)
            cells.append(f"{result.policy[0]:.3f}")
        print(f"| {sims:,} | {' | '.join(cells)} |")


def blueprint_moves(args: argparse.Namespace) -> None:
    import nashzoo
    from nashzoo.agents.specs import build_agent
    from nashzoo.games.observation import ObservationCache

    if not args.blueprint or not args.values:
        raise SystemExit("--section blueprint needs --blueprint FILE and --values FILE")
    game = nashzoo.make_game("limit_holdem")
    blueprint = build_agent(args.blueprint, game)
    specs = {
        "with values": f"nash-ismcts:0.2s+{args.blueprint}+{args.values}",
        "values 0": f"nash-ismcts:0.2s+{args.blueprint}",
    }
    observations = ObservationCache(game, max_size=0)
    print(f"{args.deals} deals, each in both seatings, the search at 0.2 s a move:")
    for label, spec in specs.items():
        search = build_agent(spec, game)
        rng = np.random.default_rng(args.seed)
        counts = np.zeros(5)  # moves, folds, raises, blueprint's folds, blueprint's raises
        simulations = []
        for _ in range(args.deals):
            deal = int(rng.integers(2**31))
            for seat in (0, 1):
                chance = np.random.default_rng(deal)  # the same deal for both searches
                other = np.random.default_rng([deal, seat])  # the blueprint's draws
                state = game.new_initial_state()
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes = state.chance_outcomes()
                        state.apply_action(outcomes[chance.integers(len(outcomes))][0])
                        continue
                    p = state.current_player()
                    view = observations.build(state, p)
                    observation = {"observation": view.tensor, "action_mask": view.mask}
                    info = view.info(p, state.information_state_string(p))
                    probs = np.asarray(blueprint.action_probabilities(observation, info))
                    if p == seat:
                        action = search.act(observation, info)
                        simulations.append(search.last_result.simulations)
                        counts += (1, action == 0, action == 2, probs[0], probs[2])
                    else:
                        action = int(other.choice(len(probs), p=probs / probs.sum()))
                    state.apply_action(action)
        moves, folds, raises, bp_folds, bp_raises = counts
        print(
            f"  {label:12s} {int(moves)} moves: folds {int(folds)} (the blueprint's "
            f"{bp_folds:.1f}), raises {int(raises)} (the blueprint's {bp_raises:.1f}); "
            f"median {median(simulations):.0f} simulations a move"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ours", help="a Nash-ISMCTS .pt trained over the rules")
    parser.add_argument("--states", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--paths-seeds", type=int, default=4)
    parser.add_argument(
        "--section", choices=("scale", "luck", "paths", "blueprint"), action="append"
    )
    parser.add_argument("--blueprint", help="a blueprint file (--section blueprint)")
    parser.add_argument("--values", help="its values file, from `nashzoo values`")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    sections = args.section or ["scale", "luck", "paths"]
    one_thread()
    print(machine_line())
    if "scale" in sections:
        leduc_scale()
        nuts_spot()
    if "luck" in sections:
        holdem_speed(args)
        small_game_spread(args.seeds)
    if "paths" in sections:
        leduc_paths(args.paths_seeds)
    if "blueprint" in sections:
        blueprint_moves(args)


if __name__ == "__main__":
    main()
