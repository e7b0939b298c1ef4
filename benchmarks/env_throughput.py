"""Env throughput: random legal play on Leduc, nashzoo vs its peers, in one run.

Every contender runs the loop a user writes (``agent_iter`` / ``last`` / ``step`` for the
PettingZoo envs) with the same action choice (uniform over the mask's legal actions from
one ``np.random.Generator``), for the same number of *episodes*. Random Leduc episodes
differ in length between implementations (PettingZoo's leduc_holdem_v4 is RLCard's
Leduc, with different raise rules and no chance node for the first deal in the loop), so
both decisions per second and episodes per second are reported. Contenders:

* ``nashzoo/leduc_holdem-v0`` through the full wrapped AEC API;
* PettingZoo's ``leduc_holdem_v4`` (RLCard underneath), same loop (``pettingzoo[classic]``);
* nashzoo's rules API (``apply_action`` with chance sampling, no env);
* OpenSpiel's ``rl_environment`` over its C++ Leduc (``open_spiel``), for reference.

Limit Hold'em (issue 15): ``nashzoo/limit_holdem-v0`` through the same AEC loop against
PettingZoo's ``texas_holdem_v4`` (RLCard underneath) and RLCard's own ``limit-holdem``
env stepped directly; hand evaluations per second, nashzoo's tables (one hand per call,
and numba over an array) against phevaluator, eval7 and treys on the same 7-card hands;
batched envs (``nashzoo.vector``) on Leduc, Kuhn and Limit Hold'em against OpenSpiel's
``leduc_poker`` and ``universal_poker`` (the same Hold'em definition) stepped one state at
a time, and pgx's batched JAX Leduc on CPU (pgx has no Limit Hold'em).

The Hold'em envs ``nashzoo.make`` gives are stepped by compiled rules
(:class:`nashzoo.envs.compiled.CompiledEnv`); each Hold'em section also runs the generic
``GameEnv`` over the same game (the rules in Python, the same episodes) for comparison.

Interleaved, median of ``--repeats``. Goals: the wrapped Leduc AEC env at least 5x
PettingZoo's (issue 2); the Hold'em AEC env at least 5x PettingZoo's and above RLCard;
the batched Leduc env at least 10x OpenSpiel's single-state stepping (issue 15). The
issue's NFSP goal (episodes/s with the batched env against the code before it) is
measured by ``benchmarks/release_compare.py BEFORE nfsp``.
Usage: ``python benchmarks/env_throughput.py [--episodes 20000] [--repeats 3]
[--sections leduc,holdem,nolimit,ring,hands,vector]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import interleaved, machine_line, median, random_legal, runs_text

import nashzoo
from nashzoo.games import LeducHoldemGame


def random_play(
    env, *, decisions: int | None = None, games: int | None = None, seed: int = 0
) -> tuple[int, int, float]:
    """Random legal play through ``agent_iter``/``last``/``step`` until ``decisions``
    decisions or ``games`` games; returns (decisions, games, seconds)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = played = 0
    start = time.perf_counter()
    while (decisions is None or done < decisions) and (games is None or played < games):
        env.reset()
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(random_legal(rng, obs["action_mask"]))
            done += 1
        played += 1
    return done, played, time.perf_counter() - start


def rules_play(game, games: int, seed: int = 0) -> tuple[int, int, float]:
    """Random legal play on a game's states, no env: nashzoo's rules or OpenSpiel's
    ``pyspiel`` states (whose simultaneous moves take every player's action at once);
    returns (decisions, games, seconds)."""
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            elif getattr(state, "is_simultaneous_node", bool)():
                moves = []
                for p in range(game.num_players()):
                    legal = state.legal_actions(p)
                    moves.append(legal[int(rng.random() * len(legal))])
                state.apply_actions(moves)
                done += len(moves)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                done += 1
    return done, games, time.perf_counter() - start


def openspiel_play(
    games: int, seed: int = 0, game: object = "leduc_poker"
) -> tuple[int, int, float]:
    """OpenSpiel's ``rl_environment`` (its Leduc, or ``game``: a name or a loaded game);
    at a simultaneous move every player's action at once. Returns (decisions, games,
    seconds)."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed)
    )
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for _ in range(games):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            players = range(len(step.observations["legal_actions"])) if player < 0 else [player]
            moves = []
            for p in players:
                legal = step.observations["legal_actions"][p]
                moves.append(legal[int(rng.random() * len(legal))])
            step = env.step(moves)
            done += len(moves)
    return done, games, time.perf_counter() - start


def rlcard_play(
    games: int, seed: int = 0, env_name: str = "limit-holdem", players: int = 2
) -> tuple[int, int, float]:
    """An RLCard env (``limit-holdem`` by default) stepped directly, no AEC layer, random
    legal actions; ``players`` seats."""
    import rlcard

    env = rlcard.make(env_name, config={"seed": seed, "game_num_players": players})
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    for _ in range(games):
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.random() * len(legal))])
            done += 1
    return done, games, time.perf_counter() - start


def python_rules_env(env_id: str, **params):
    """The wrapped generic ``GameEnv`` over ``env_id``'s game: the rules stepped in Python,
    where ``nashzoo.make`` gives the compiled env (the same episodes)."""
    from nashzoo.envs import GameEnv, OrderEnforcingWrapper

    return OrderEnforcingWrapper(GameEnv(nashzoo.make_game(env_id, **params)))


def holdem_contenders(episodes: int) -> dict:
    from nashzoo.games.poker.hands import standard_tables

    standard_tables()  # built once per process, not inside a timed run
    runs = {
        "nashzoo limit_holdem-v0 (wrapped AEC)": lambda: random_play(
            nashzoo.make("nashzoo/limit_holdem-v0"), games=episodes
        ),
        "nashzoo limit_holdem-v0, GameEnv (rules in Python, wrapped)": lambda: random_play(
            python_rules_env("nashzoo/limit_holdem-v0"), games=episodes // 2
        ),
    }
    try:
        from pettingzoo.classic import texas_holdem_v4

        runs["PettingZoo texas_holdem_v4 (wrapped AEC)"] = lambda: random_play(
            texas_holdem_v4.env(), games=episodes // 4
        )
        runs["RLCard limit-holdem (raw env)"] = lambda: rlcard_play(episodes // 2)
    except ImportError as exc:
        print(f"PettingZoo classic / RLCard not available ({exc}); pip install 'nashzoo[peers]'")
    return runs


def ring_contenders(episodes: int, players: int = 6) -> dict:
    """Limit Hold'em at a table of ``players`` (issue 38): our AEC env (the ACPC ring
    rules) against PettingZoo's texas_holdem_v4(num_players=N) in the same loop and
    RLCard's limit-holdem with N seats stepped directly."""
    runs = {
        f"nashzoo limit_holdem-v0 players={players} (wrapped AEC)": lambda: random_play(
            nashzoo.make("nashzoo/limit_holdem-v0", players=players), games=episodes
        ),
        f"nashzoo limit_holdem-v0 players={players}, GameEnv (rules in Python, wrapped)": (
            lambda: random_play(
                python_rules_env("nashzoo/limit_holdem-v0", players=players), games=episodes // 2
            )
        ),
        f"nashzoo vector limit_holdem players={players} (4,096 games, numba)": lambda: vector_play(
            "nashzoo/limit_holdem-v0", 4096, max(1, episodes // 4), players=players
        ),
    }
    try:
        from pettingzoo.classic import texas_holdem_v4

        runs[f"PettingZoo texas_holdem_v4 num_players={players} (wrapped AEC)"] = lambda: (
            random_play(texas_holdem_v4.env(num_players=players), games=episodes // 4)
        )
        runs[f"RLCard limit-holdem {players} players (raw env)"] = lambda: rlcard_play(
            episodes // 2, players=players
        )
    except ImportError as exc:
        print(f"PettingZoo classic / RLCard not available ({exc}); pip install 'nashzoo[peers]'")
    return runs


def nolimit_contenders(episodes: int) -> dict:
    """Heads-up no-limit (issue 38): our AEC env (PettingZoo's five actions, ACPC stacks
    of 200 big blinds) against PettingZoo's texas_holdem_no_limit_v6 (RLCard underneath,
    100-chip stacks) in the same loop and RLCard's no-limit-holdem stepped directly; our
    batched env (the ACPC rules in numba) against OpenSpiel's universal_poker
    with the same definition and its five-action abstraction (fchpa), one state at a
    time. Episode lengths differ with the stacks, so decisions per second are compared."""
    from nashzoo.games.poker import no_limit_holdem

    runs = {
        "nashzoo no_limit_holdem-v0 (wrapped AEC)": lambda: random_play(
            nashzoo.make("nashzoo/no_limit_holdem-v0"), games=episodes
        ),
        "nashzoo no_limit_holdem-v0, GameEnv (rules in Python, wrapped)": lambda: random_play(
            python_rules_env("nashzoo/no_limit_holdem-v0"), games=episodes // 2
        ),
        "nashzoo vector no-limit (4,096 games, numba)": lambda: vector_play(
            "nashzoo/no_limit_holdem-v0", 4096, max(1, episodes // 40)
        ),
    }
    try:
        from pettingzoo.classic import texas_holdem_no_limit_v6

        runs["PettingZoo texas_holdem_no_limit_v6 (wrapped AEC)"] = lambda: random_play(
            texas_holdem_no_limit_v6.env(), games=episodes // 4
        )
        runs["RLCard no-limit-holdem (raw env)"] = lambda: rlcard_play(
            episodes // 2, env_name="no-limit-holdem"
        )
    except ImportError as exc:
        print(f"PettingZoo classic / RLCard not available ({exc}); pip install 'nashzoo[peers]'")
    try:
        import pyspiel

        params = no_limit_holdem().definition.universal_poker_params("fchpa")
        hunl = pyspiel.load_game("universal_poker", params)
        runs["OpenSpiel universal_poker HUNL fchpa (one state at a time)"] = lambda: rules_play(
            hunl, episodes // 4
        )
    except ImportError:
        print("open_spiel not installed")
    return runs


def evaluator_contenders(hands: int) -> dict:
    """Each run ranks the same random 7-card hands; returns (hands, 1, seconds)."""
    from nashzoo.games.poker.hands import standard_tables
    from nashzoo.vector.hands import strengths

    rng = np.random.default_rng(0)
    cards = np.array([rng.choice(52, 7, replace=False) for _ in range(hands)])
    rows = cards.tolist()
    tables = standard_tables()
    strengths(cards[:10])  # compile outside the timed runs

    def timed(fn, n):
        start = time.perf_counter()
        fn(n)
        return n, 1, time.perf_counter() - start

    runs = {
        "nashzoo tables (Python, one hand per call)": lambda: timed(
            lambda n: [tables.strength(r) for r in rows[:n]], hands
        ),
        "nashzoo tables (numba, an array of hands)": lambda: timed(
            lambda n: strengths(cards[:n]), hands
        ),
    }
    try:
        import phevaluator

        runs["phevaluator 0.6 (C, one hand per call)"] = lambda: timed(
            lambda n: [phevaluator.evaluate_cards(*r) for r in rows[:n]], hands
        )
    except ImportError:
        print("phevaluator not installed")
    try:
        import eval7

        names = [[eval7.Card("23456789TJQKA"[c // 4] + "cdhs"[c % 4]) for c in r] for r in rows]
        runs["eval7 0.1 (Cython, one hand per call)"] = lambda: timed(
            lambda n: [eval7.evaluate(h) for h in names[:n]], hands
        )
    except ImportError:
        print("eval7 not installed")
    try:
        from treys import Card, Evaluator

        evaluator = Evaluator()
        ints = [[Card.new("23456789TJQKA"[c // 4] + "cdhs"[c % 4]) for c in r] for r in rows]
        runs["treys 0.1.8 (pure Python, one hand per call)"] = lambda: timed(
            lambda n: [evaluator.evaluate(h[:5], h[5:]) for h in ints[:n]], hands // 10
        )
    except ImportError:
        print("treys not installed")
    return runs


def vector_play(env_id: str, num_envs: int, steps: int, **params) -> tuple[int, int, float]:
    """Random legal play in a batched env (the actions drawn with NumPy, timed too; one
    untimed step first, so that numba's compilation or cache load is not timed)."""
    from nashzoo.vector import make_vector

    venv = make_vector(env_id, num_envs, **params)
    batch = venv.reset(seed=0)
    batch = venv.step(np.argmax(batch.action_mask, axis=1))
    rng = np.random.default_rng(0)
    games = 0
    start = time.perf_counter()
    for _ in range(steps):
        cum = np.cumsum(batch.action_mask, axis=1)
        pick = (rng.random(num_envs) * cum[:, -1]).astype(np.int64)
        batch = venv.step((cum <= pick[:, None]).sum(axis=1))
        games += int(batch.terminated.sum())
    return num_envs * steps, games, time.perf_counter() - start


def pgx_play(num_envs: int, steps: int) -> tuple[int, int, float]:
    """pgx's leduc_holdem, vmapped and jitted with JAX on CPU, with pgx's own auto-reset
    wrapper, random legal actions drawn by JAX inside the same jitted call."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("leduc_holdem")
    init = jax.jit(jax.vmap(env.init))
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def play(state, key):
        k1, k2 = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k1, logits, axis=-1)
        state = step(state, action, jax.random.split(k2, num_envs))
        return state, state.terminated.sum()

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, num_envs))
    state, _ = play(state, key)  # compile outside the timing
    games = 0
    start = time.perf_counter()
    for _ in range(steps):
        key, sub = jax.random.split(key)
        state, ended = play(state, sub)
        games += int(ended)
    return num_envs * steps, games, time.perf_counter() - start


def vector_contenders(episodes: int) -> dict:
    from nashzoo.vector import make_vector

    make_vector("nashzoo/leduc_holdem-v0", 8, seed=0).step(np.ones(8, dtype=np.int64))
    runs = {
        "nashzoo vector Leduc (4,096 games, numba)": lambda: vector_play(
            "nashzoo/leduc_holdem-v0", 4096, max(1, episodes // 100)
        ),
        "nashzoo vector Kuhn (4,096 games, numba)": lambda: vector_play(
            "nashzoo/kuhn_poker-v0", 4096, max(1, episodes // 100)
        ),
        "nashzoo vector Limit Hold'em (4,096 games, numba)": lambda: vector_play(
            "nashzoo/limit_holdem-v0", 4096, max(1, episodes // 200)
        ),
    }
    make_vector("nashzoo/limit_holdem-v0", 8, seed=0).step(np.ones(8, dtype=np.int64))
    try:
        import pyspiel

        # OpenSpiel's C++ Leduc stepped one state at a time from Python: the same loop as
        # nashzoo's rules run (its State API has the same method names)
        leduc = pyspiel.load_game("leduc_poker")
        runs["OpenSpiel leduc_poker (one state at a time)"] = lambda: rules_play(leduc, episodes)
        from nashzoo.games.poker import limit_holdem

        params = limit_holdem().definition.universal_poker_params()
        holdem = pyspiel.load_game("universal_poker", params)
        runs["OpenSpiel universal_poker Limit Hold'em (one state at a time)"] = lambda: rules_play(
            holdem, episodes // 4
        )
    except ImportError:
        print("open_spiel not installed")
    try:
        import pgx  # noqa: F401

        runs["pgx leduc_holdem (JAX on CPU, 4,096 games)"] = lambda: pgx_play(
            4096, max(1, episodes // 400)
        )
    except ImportError:
        print("pgx not installed; pip install pgx to compare")
    return runs


def contenders(episodes: int) -> dict:
    runs = {
        "nashzoo leduc_holdem-v0 (wrapped AEC)": lambda: random_play(
            nashzoo.make("nashzoo/leduc_holdem-v0"), games=episodes
        ),
        "nashzoo rules API (no env)": lambda: rules_play(LeducHoldemGame(), episodes),
    }
    try:
        from pettingzoo.classic import leduc_holdem_v4

        runs["PettingZoo leduc_holdem_v4 (wrapped AEC)"] = lambda: random_play(
            leduc_holdem_v4.env(), games=episodes // 4
        )
    except ImportError as exc:
        print(f"PettingZoo classic not available ({exc}); pip install 'pettingzoo[classic]'")
    try:
        import pyspiel  # noqa: F401  (only checks that open_spiel is installed)

        runs["OpenSpiel rl_environment leduc_poker"] = lambda: openspiel_play(episodes // 2)
    except ImportError:
        print("open_spiel not installed; skipping its reference run")
    return runs


def report(
    title: str,
    runs: dict,
    repeats: int,
    unit: str,
    ratios: list[tuple[str, str, float, str]],
) -> None:
    """Interleave ``runs``, print their table, then each (ours, peer, goal, text) ratio."""
    raw: dict[str, list[tuple[int, int, float]]] = {}

    def measured(name, run):
        def go():
            result = run()
            raw.setdefault(name, []).append(result)
            return result[0] / result[2]

        return go

    rates = interleaved({n: measured(n, r) for n, r in runs.items()}, repeats)
    episodes = {n: [g / s for _, g, s in raw[n]] for n in raw}
    length = {n: sum(d for d, _, _ in raw[n]) / sum(g for _, g, _ in raw[n]) for n in raw}
    print(f"\n### {title}\n")
    if unit == "decisions":
        print("| contender | decisions/s | episodes/s | decisions/episode | runs (decisions/s) |")
        print("|---|---:|---:|---:|---|")
        for name in rates:
            print(
                f"| {name} | {median(rates[name]):,.0f} | {median(episodes[name]):,.0f} | "
                f"{length[name]:.2f} | {runs_text(rates[name])} |"
            )
    else:
        print(f"| contender | {unit}/s | runs |")
        print("|---|---:|---|")
        for name in rates:
            print(f"| {name} | {median(rates[name]):,.0f} | {runs_text(rates[name])} |")
    for ours, peer, goal, text in ratios:
        if ours in rates and peer in rates:
            ratio = median(rates[ours]) / median(rates[peer])
            verdict = (
                "" if goal <= 0 else f"; goal >= {goal:g}x: {'met' if ratio >= goal else 'NOT met'}"
            )
            print(
                f"\n{text}: {ratio:.2f}x {unit}/s ({peer} alone: "
                f"{median(rates[peer]):,.0f} {unit}/s){verdict}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sections", default="leduc,holdem,nolimit,ring,hands,vector")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    print(machine_line())
    if "leduc" in sections:
        ours = "nashzoo leduc_holdem-v0 (wrapped AEC)"
        report(
            "Leduc through the AEC loop",
            contenders(args.episodes),
            args.repeats,
            "decisions",
            [(ours, "PettingZoo leduc_holdem_v4 (wrapped AEC)", 5, "nashzoo / PettingZoo")],
        )
    if "holdem" in sections:
        ours = "nashzoo limit_holdem-v0 (wrapped AEC)"
        report(
            "Limit Hold'em through the AEC loop",
            holdem_contenders(args.episodes // 2),
            args.repeats,
            "decisions",
            [
                (ours, "PettingZoo texas_holdem_v4 (wrapped AEC)", 5, "nashzoo / PettingZoo"),
                (ours, "RLCard limit-holdem (raw env)", 1, "nashzoo / RLCard"),
                (ours, "nashzoo limit_holdem-v0, GameEnv (rules in Python, wrapped)", 0,
                 "compiled env / GameEnv"),
            ],
        )  # fmt: skip
    if "nolimit" in sections:
        ours = "nashzoo no_limit_holdem-v0 (wrapped AEC)"
        report(
            "Heads-up no-limit Hold'em",
            nolimit_contenders(args.episodes // 2),
            args.repeats,
            "decisions",
            [
                (ours, "PettingZoo texas_holdem_no_limit_v6 (wrapped AEC)", 5,
                 "nashzoo / PettingZoo"),
                (ours, "RLCard no-limit-holdem (raw env)", 1, "nashzoo / RLCard"),
                (ours, "nashzoo no_limit_holdem-v0, GameEnv (rules in Python, wrapped)", 0,
                 "compiled env / GameEnv"),
                ("nashzoo vector no-limit (4,096 games, numba)",
                 "OpenSpiel universal_poker HUNL fchpa (one state at a time)", 10,
                 "vector no-limit / OpenSpiel"),
            ],
        )  # fmt: skip
    if "ring" in sections:
        ours = "nashzoo limit_holdem-v0 players=6 (wrapped AEC)"
        report(
            "Limit Hold'em at six seats",
            ring_contenders(args.episodes // 4),
            args.repeats,
            "decisions",
            [
                (ours, "PettingZoo texas_holdem_v4 num_players=6 (wrapped AEC)", 5,
                 "nashzoo / PettingZoo"),
                (ours, "RLCard limit-holdem 6 players (raw env)", 1, "nashzoo / RLCard"),
                (ours, "nashzoo limit_holdem-v0 players=6, GameEnv (rules in Python, wrapped)",
                 0, "compiled env / GameEnv"),
                ("nashzoo vector limit_holdem players=6 (4,096 games, numba)",
                 "RLCard limit-holdem 6 players (raw env)", 1, "vector 6-player / RLCard"),
            ],
        )  # fmt: skip
    if "hands" in sections:
        ours = "nashzoo tables (numba, an array of hands)"
        report(
            "7-card hand evaluations",
            evaluator_contenders(20 * args.episodes),
            args.repeats,
            "hands",
            [
                (ours, "phevaluator 0.6 (C, one hand per call)", 0, "nashzoo numba / phevaluator"),
                (
                    "nashzoo tables (Python, one hand per call)",
                    "phevaluator 0.6 (C, one hand per call)",
                    0,
                    "nashzoo Python / phevaluator",
                ),
            ],
        )
    if "vector" in sections:
        ours = "nashzoo vector Leduc (4,096 games, numba)"
        report(
            "Batched envs",
            vector_contenders(args.episodes),
            args.repeats,
            "decisions",
            [
                (
                    ours,
                    "OpenSpiel leduc_poker (one state at a time)",
                    10,
                    "vector Leduc / OpenSpiel",
                ),
                (ours, "pgx leduc_holdem (JAX on CPU, 4,096 games)", 0, "vector Leduc / pgx"),
                (
                    "nashzoo vector Limit Hold'em (4,096 games, numba)",
                    "OpenSpiel universal_poker Limit Hold'em (one state at a time)",
                    0,
                    "vector Hold'em / OpenSpiel",
                ),
            ],
        )


if __name__ == "__main__":
    main()
