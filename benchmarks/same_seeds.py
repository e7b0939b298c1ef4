"""Same seeds, same numbers: fingerprints (``float.hex`` of every figure) of the solvers,
the match paths and the learners, to compare two checkouts of nashzoo.

Usage::

    git archive 0305d3a | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before python benchmarks/same_seeds.py solvers learners > before.json
    python benchmarks/same_seeds.py solvers learners > after.json
    diff before.json after.json && echo same

Sections: ``solvers`` (every tabular solver on Leduc, GEMP, two searches), ``matches``
(plain, CRN and AIVAT matches, lockstep blocks, a keyboard session; needs the lockstep
``draw_from`` of issue 31), ``learners`` (NFSP on Kuhn and Leduc, simplex-gradient),
``search`` (Nash-ISMCTS trained and searching over the rules of Limit Hold'em).
Issue 30's redesign was checked this way (see RESULTS.md).
"""

from __future__ import annotations

import inspect
import json
import sys

import numpy as np


def solvers() -> dict:
    import nashzoo
    from nashzoo.agents import build_agent
    from nashzoo.agents.cfr import SAMPLING_SOLVERS, make_solver
    from nashzoo.agents.nfg import GempSolver
    from nashzoo.tree import compile_game
    from nashzoo.tree.best_response import nash_conv_array
    from nashzoo.tree.normal_form import reduced_normal_form

    out: dict = {}
    leduc = compile_game(nashzoo.make_game("leduc_holdem"))
    for algo in [
        "cfr",
        "cfr+",
        "lcfr",
        "dcfr",
        "pcfr+",
        "mmd",
        "es-mccfr",
        "os-mccfr",
        "xfp",
        "fsp",
    ]:
        seed = 3 if algo in SAMPLING_SOLVERS else None
        probs = make_solver(algo, leduc, seed=seed).iterate(30 if algo == "fsp" else 200)
        probs = probs.average_policy().probs
        out[algo] = [float(nash_conv_array(leduc, probs)).hex(), float(probs.sum()).hex()]
    kuhn = reduced_normal_form(compile_game(nashzoo.make_game("kuhn_poker")))
    out["gemp"] = float(
        GempSolver(kuhn, tau=0.05, learning_rate=1.0).iterate(500).exploitability()
    ).hex()
    game = nashzoo.make_game("kuhn_poker")
    nash = build_agent("nash-ismcts-oracle:200", game)
    out["nash-ismcts"] = [
        float(x).hex() for x in nash.search_at(3, np.random.SeedSequence([0, 3])).policy
    ]
    mt = build_agent("mt-ismcts:200", game)
    out["mt-ismcts"] = [
        float(x).hex() for x in mt.search_at(5, np.random.SeedSequence([0, 5])).policy
    ]
    return out


def matches() -> dict:
    import nashzoo
    from nashzoo.agents import build_agent
    from nashzoo.eval.engine import deal_uniforms
    from nashzoo.eval.lockstep import play_duplicate_lockstep
    from nashzoo.eval.matches import head_to_head
    from nashzoo.eval.session import DuplicateSession

    out: dict = {}
    for game_id, specs in (
        ("leduc_holdem", ("cfr+:200", "random")),
        ("limit_holdem", ("poker-rules", "random")),
    ):
        game = nashzoo.make_game(game_id)
        for reduction in (None, "crn", "aivat"):
            a, b = build_agent(specs[0], game), build_agent(specs[1], game)
            deals = 300 if game_id == "leduc_holdem" else 40
            r = head_to_head(game, a, b, deals=deals, seed=7, variance_reduction=reduction)
            out[f"{game_id} {reduction}"] = float(r.mean).hex()
        uniforms = deal_uniforms(game, 30, np.random.default_rng(3))
        a, b = build_agent(specs[0], game), build_agent(specs[1], game)
        a.reset(seed=1)
        b.reset(seed=2)
        record: list = []
        drawn = (game_id == "leduc_holdem", False)
        scores = play_duplicate_lockstep(
            game, a, b, uniforms, record=record, record_games=4, draw_from=drawn, draw_seed=5
        )
        out[f"{game_id} lockstep"] = [float(x).hex() for x in scores.scores] + [
            list(map(int, h)) for h in record
        ]
    game = nashzoo.make_game("leduc_holdem")
    session = DuplicateSession(game, build_agent("cfr+:100", game), seed=4)
    hands = []
    for hand in range(6):
        while not session.hand_over:
            legal = session.legal_actions()
            session.apply(legal[hand % len(legal)][0])
        hands.append([(s.player, s.action, s.text) for s in session.finished[-1].steps])
        session.start_hand()
    out["session"] = [hands, session.score().text()]
    return out


def learners() -> dict:
    import torch

    import nashzoo
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig
    from nashzoo.games.fighting import fighting_cards_tiny

    torch.set_num_threads(1)
    out: dict = {}
    for name in ("kuhn_poker", "leduc_holdem"):
        nfsp = NFSP(nashzoo.make_game(name), NFSPConfig(seed=3, batch_games=16))
        budget = "steps" if "steps" in inspect.signature(nfsp.train).parameters else "episodes"
        nfsp.train(**{budget: 3000})
        out[f"nfsp {name}"] = [nfsp.episodes, float(nfsp.exploitability()).hex()]
    sg = SimplexGradient(fighting_cards_tiny(), SimplexGradientConfig(hidden_sizes=(8,), seed=0))
    budget = "steps" if "steps" in inspect.signature(sg.train).parameters else "iterations"
    sg.train(**{budget: 20})
    out["simplex-gradient"] = float(sg.exploitability()).hex()
    return out


def search() -> dict:
    """Nash-ISMCTS over the rules: two generations of self-play on Limit Hold'em, then
    the trained agent's search and its prior at the same deals."""
    import torch

    import nashzoo
    from nashzoo.agents.ismcts.rules_train import NashISMCTSRules, RulesTrainConfig
    from nashzoo.eval.matches import head_to_head

    torch.set_num_threads(1)
    game = nashzoo.make_game("limit_holdem")
    config = RulesTrainConfig(
        games_per_generation=2,
        simulations=10,
        belief_games=4,
        steps_per_generation=2,
        hidden_sizes=(16,),
        embed_size=8,
        negatives=7,
        eval_simulations=10,
        seed=0,
    )
    trainer = NashISMCTSRules(game, config).train(steps=2)
    weights = trainer.network.state_dict()["policy.weight"]
    agent = trainer.agent(name="search")
    prior = agent.policy_model()
    out: dict = {"weights": float(weights.double().sum()).hex()}
    for name, other in (("search", agent), ("prior", prior)):
        r = head_to_head(game, other, nashzoo.agents.build_agent("random", game), deals=4, seed=1)
        out[name] = float(r.mean).hex()
    return out


SECTIONS = {"solvers": solvers, "matches": matches, "learners": learners, "search": search}


def main() -> None:
    names = sys.argv[1:] or list(SECTIONS)
    unknown = sorted(set(names) - set(SECTIONS))
    if unknown:
        raise SystemExit(f"unknown sections {unknown}; choose from {list(SECTIONS)}")
    print(json.dumps({name: SECTIONS[name]() for name in names}, indent=1, default=str))


if __name__ == "__main__":
    main()
