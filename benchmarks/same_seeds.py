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
``search`` (Nash-ISMCTS trained and searching over the rules of Limit Hold'em),
``poker`` (the poker presets' trees, Hold'em hands, envs and bulk decisions). Issue 30's
redesign and issue 88's one poker engine were checked this way (see RESULTS.md).
"""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any

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
    from nashzoo.agents.ismcts.train import NashISMCTS, TrainConfig
    from nashzoo.eval.matches import head_to_head

    torch.set_num_threads(1)
    game = nashzoo.make_game("limit_holdem")
    config = TrainConfig(
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
    trainer = NashISMCTS(game, config).train(steps=2)
    weights = trainer.network.state_dict()["policy.weight"]
    agent = trainer.agent(name="search")
    prior = agent.policy_model()
    out: dict = {"weights": float(weights.double().sum()).hex()}
    for name, other in (("search", agent), ("prior", prior)):
        r = head_to_head(game, other, nashzoo.agents.build_agent("random", game), deals=4, seed=1)
        out[name] = float(r.mean).hex()
    return out


def poker() -> dict:
    """The poker presets (issue 88: one engine): every history of the small ones (string,
    tensor, legal actions, returns) and 300 seeded Hold'em hands hashed; CFR+ iterates on
    them; seeded episodes of the AEC env and the batched env; simplex-gradient's bulk
    decisions on Limit Hold'em."""
    import hashlib

    import nashzoo
    from nashzoo.agents.cfr import make_solver
    from nashzoo.agents.simplex_gradient import SimplexGradient, SimplexGradientConfig, experience
    from nashzoo.games.poker import presets
    from nashzoo.vector import make_vector

    def record(s: Any) -> str:
        """A state's history, player, legal actions, strings and tensors (or returns)."""
        if s.is_terminal():
            return f"{s.history()} {s.returns()}"
        text = f"{s.history()} {s.current_player()} {list(s.legal_actions())}"
        if s.current_player() >= 0:
            for p in (0, 1):
                text += s.information_state_string(p)
                text += str(np.flatnonzero(s.information_state_tensor(p)).tolist())
        return text

    out: dict = {}
    for name in ("kuhn", "leduc", "two_round_six_card", "four_bet_eight_card"):
        game = presets.PRESETS[name]()
        digest, stack = hashlib.sha256(), [game.new_initial_state()]
        while stack:
            state = stack.pop()
            digest.update(record(state).encode())
            if not state.is_terminal():
                stack += [state.child(a) for a in state.legal_actions()]
        probs = make_solver("cfr+", game).iterate(100).average_policy().probs
        out[name] = [
            digest.hexdigest()[:16],
            float(probs.sum()).hex(),
            float((probs**2).sum()).hex(),
        ]
    game = presets.limit_holdem()
    digest = hashlib.sha256()
    for seed in range(300):
        rng, pick = np.random.default_rng(seed), np.random.default_rng(1000 + seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.advance_chance(rng.random)
            else:
                legal = list(state.legal_actions())
                state.apply_action(legal[pick.integers(len(legal))])
            digest.update(record(state).encode())
    out["limit_holdem hands"] = digest.hexdigest()[:16]
    env = nashzoo.make("nashzoo/limit_holdem-v0")
    trace = hashlib.sha256()
    for episode in range(50):
        env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        for _agent in env.agent_iter():
            obs, reward, done, _, _ = env.last()
            trace.update(np.flatnonzero(obs["observation"]).tobytes() + str(reward).encode())
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if done else int(legal[rng.integers(len(legal))]))
    out["limit_holdem env"] = trace.hexdigest()[:16]
    venv = make_vector("nashzoo/limit_holdem-v0", 64, seed=0)
    batch, rng, trace = venv.reset(seed=0), np.random.default_rng(0), hashlib.sha256()
    for _ in range(200):
        cum = np.cumsum(batch.action_mask, axis=1)
        pick = (rng.random(64) * cum[:, -1]).astype(np.int64)
        batch = venv.step((cum <= pick[:, None]).sum(axis=1))
        # + 0.0: a zero reward is the same number with either sign (the old heads-up
        # kernel wrote -0.0 for the second seat of a split pot)
        trace.update(batch.observation.tobytes() + (batch.rewards + 0.0).tobytes())
    out["limit_holdem vector"] = trace.hexdigest()[:16]
    sg = SimplexGradient(game, SimplexGradientConfig(hidden_sizes=(8,), seed=0))
    made = experience.play(game, 32, sg._policy_numpy, np.random.default_rng(5))
    out["limit_holdem decisions"] = [
        hashlib.sha256(getattr(made, f).tobytes()).hexdigest()[:16]
        for f in ("obs", "action", "succ", "known", "finals")
    ]
    return out


SECTIONS = {
    "solvers": solvers,
    "matches": matches,
    "learners": learners,
    "search": search,
    "poker": poker,
}


def main() -> None:
    names = sys.argv[1:] or list(SECTIONS)
    unknown = sorted(set(names) - set(SECTIONS))
    if unknown:
        raise SystemExit(f"unknown sections {unknown}; choose from {list(SECTIONS)}")
    print(json.dumps({name: SECTIONS[name]() for name in names}, indent=1, default=str))


if __name__ == "__main__":
    main()
