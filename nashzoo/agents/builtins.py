"""nashzoo's built-in agent families (registered on import by :mod:`nashzoo.agents.registry`).

=========================  ======================================================
spec                       agent
=========================  ======================================================
``random``                 :class:`~nashzoo.agents.RandomAgent`
``poker-rules``            :class:`~nashzoo.agents.scripted.PokerRulesAgent` (games of
                           the poker engine: limit and no-limit Hold'em, any table)
``heuristic``              :class:`~nashzoo.agents.scripted.FightingHeuristicAgent`
                           (the fighting-card game)
``dice-rules``             :class:`~nashzoo.agents.scripted.LiarsDiceRulesAgent`
                           (Liar's Dice)
``goofspiel-rules``        :class:`~nashzoo.agents.scripted.GoofspielRulesAgent`
                           (Goofspiel)
``cfr+:1000``              the average policy of a solver after N iterations (every
                           solver of :data:`nashzoo.agents.cfr.SOLVER_NAMES`)
``path/to/policy.npz``     a saved :class:`~nashzoo.tree.TabularPolicy` (or ``.json``)
``mt-ismcts:1000``         MT-ISMCTS with N simulations per move, or ``mt-ismcts:0.2s``
                           with 0.2 s per move (random rollouts; any game: over the
                           rules where the game does not compile)
``nash-ismcts-oracle:1000`` Nash-ISMCTS with N simulations on oracle networks computed
                           from a CFR+ solution (the spec's experiments' setting)
``nash-ismcts:0.2s+bp.npz`` Nash-ISMCTS improving a blueprint, any agent file that states
                           its probabilities (exact values under it where the game
                           compiles; elsewhere its P, and Bayes' rule under it for H;
                           ``+bp.values.pt`` adds the values of histories under its play:
                           :mod:`~nashzoo.agents.ismcts.blueprint_values`)
``resolve:1s+bp.npz``      a blueprint re-solving as play reaches a later round: every
                           public subgame where the game compiles (``resolve:1000+cfr+:10``),
                           Hold'em's river on the real cards for a card abstraction's file
                           (``resolve:turn:5s+bp.npz``: from the turn, every river card;
                           ``resolve:lcfr:2s+bp.npz``: by Linear CFR instead of CFR+;
                           ``resolve:turn:1s+bp.npz+bp.values.pt``: the turn
                           depth-limited, the values file valuing the river)
``path/to/agent.pt``       a saved NFSP, Deep CFR, ESCHER or simplex-gradient agent (its
                           average policy; simplex-gradient's last iterate where its
                           config says ``play="last"``) or a trained Nash-ISMCTS agent
                           (torch extra)
``path/to/model.zip``      a saved stable-baselines3 model (sb3 extra). SB3 files are
                           pickles: loading one runs code; never load one from someone
                           you do not trust outside a sandbox.
=========================  ======================================================
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nashzoo.agents.registry import AgentFamily, register_family
from nashzoo.errors import InvalidParameterError
from nashzoo.games.base import Game

__all__: list[str] = []

_ITERATIONS = re.compile(r"[0-9]+")


def _declared(name: str, plays: str) -> Callable[[Game], str | None]:
    """The check of a rule-based agent: the game declares it (``Game.rule_agents``)."""

    def check(game: Game) -> str | None:
        return None if name in dict(game.rule_agents) else f"it plays {plays}"

    return check


def _two_players(game: Game) -> str | None:
    if game.num_players == 2:
        return None
    return f"it searches two-player games, and this one has {game.num_players} players"


def _compiles(game: Game) -> str | None:
    """Why a family that compiles the tree cannot play ``game`` (too large), known from
    the game's counts at once."""
    from nashzoo.tree.compile import DEFAULT_MAX_NODES

    size = game.histories_lower_bound()
    if size is None or size <= DEFAULT_MAX_NODES:
        return None
    return (
        f"it solves the game tree, and this one has at least {size:,} histories (at most "
        f"{DEFAULT_MAX_NODES:,} compile)"
    )


def _random(game: Game, argument: str | None) -> Any:
    from nashzoo.agents.random_agent import RandomAgent

    if argument:
        raise InvalidParameterError(f"The random agent takes no argument, received {argument!r}.")
    return RandomAgent(name="random")


def _rule_agent(name: str) -> Any:
    """The factory of the rule-based agent ``name`` the game declares
    (``Game.rule_agents``: ``"package.module:Class"``, built as ``Class(game)``)."""

    def build(game: Game, argument: str | None) -> Any:
        from nashzoo.games.info import load_declared

        if argument:
            raise InvalidParameterError(f"{name} takes no argument, received {argument!r}.")
        declared = dict(game.rule_agents)
        if name not in declared:
            raise InvalidParameterError(
                f"{name} is a rule-based agent of other games; {game} declares "
                f"{sorted(declared) or 'none'}."
            )
        return load_declared(declared[name])(game)

    return build


@functools.lru_cache(maxsize=64)
def _solved_policy(algo: str, iterations: int, game: Game) -> Any:
    from nashzoo.agents.cfr import SAMPLING_SOLVERS, make_solver

    seed = 0 if algo in SAMPLING_SOLVERS else None
    return make_solver(algo, game, seed=seed).iterate(iterations).average_policy()


def _solver_factory(algo: str, default_iterations: int) -> Any:
    def build(game: Game, argument: str | None) -> Any:
        from nashzoo.agents.cfr.agent import TabularPolicyAgent

        text = argument if argument is not None else str(default_iterations)
        if not _ITERATIONS.fullmatch(text) or int(text) < 1:
            raise InvalidParameterError(
                f"A solver spec is {algo}:ITERATIONS with a positive integer (e.g. "
                f"{algo}:1000), received {algo}:{text}."
            )
        policy = _solved_policy(algo, int(text), game)
        return TabularPolicyAgent(policy, name=f"{algo}:{text}")

    build.__name__ = f"solve_{algo}"
    return build


@functools.lru_cache(maxsize=64)
def _loaded_policy(path: str, stamp: int, game: Game) -> Any:
    from nashzoo.tree.policy import TabularPolicy

    return TabularPolicy.load(path, game=game)


@functools.lru_cache(maxsize=16)
def _loaded_abstract_policy(path: str, stamp: int, game: Game) -> Any:
    from nashzoo.abstraction.translation import translates
    from nashzoo.agents.cfr.abstract_policy import AbstractPolicy

    # a no-limit policy may play the game with other raise sizes: the agent checks
    return AbstractPolicy.load(path, None if translates(game) else game)


def _tabular_file(game: Game, path: str | None) -> Any:
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent, is_abstract_policy_file
    from nashzoo.agents.cfr.agent import TabularPolicyAgent

    file = Path(str(path))
    if not file.is_file():
        raise FileNotFoundError(f"No policy file at {file}")
    stamp = file.stat().st_mtime_ns
    if file.suffix == ".npz" and is_abstract_policy_file(file):  # a card abstraction's
        policy = _loaded_abstract_policy(str(file.resolve()), stamp, game)
        return AbstractionAgent(policy, game, name=file.stem)
    policy = _loaded_policy(str(file.resolve()), stamp, game)
    return TabularPolicyAgent(policy, name=file.stem)


def _torch_file(game: Game, path: str | None) -> Any:
    from nashzoo.agents.learner import learner_for_format, learners
    from nashzoo.agents.torch_files import torch_file_format
    from nashzoo.errors import PolicyFileError

    kind = torch_file_format(str(path))
    entry = learner_for_format(kind) if isinstance(kind, str) else None
    if entry is None:
        known = sorted(f for e in learners().values() if e.suffix == ".pt" for f in e.file_formats)
        raise PolicyFileError(
            f"{path} is a {kind!r} file; nashzoo's .pt agents are {', '.join(map(repr, known))}."
        )
    return entry.agent_from_file(str(path), game)


def _ismcts_file(path: str, game: Game) -> Any:
    from nashzoo.agents.ismcts import ISMCTSAgent

    agent = ISMCTSAgent.load(path, game)  # either format, with or without a trainer's state
    agent.name = Path(path).stem
    return agent


_SECONDS = re.compile(r"[0-9]*\.?[0-9]+s")


def _budget(family: str, argument: str | None, default: int) -> dict[str, Any]:
    """A search spec's budget: ``N`` simulations per move, or ``Xs`` seconds per move."""
    text = argument if argument is not None else str(default)
    if _SECONDS.fullmatch(text) and float(text[:-1]) > 0:
        return {"time_budget": float(text[:-1])}
    if not _ITERATIONS.fullmatch(text) or int(text) < 1:
        raise InvalidParameterError(
            f"A search spec is {family}:SIMULATIONS (a positive integer, e.g. {family}:1000) "
            f"or {family}:SECONDSs (time per move, e.g. {family}:0.2s), received "
            f"{family}:{text}."
        )
    return {"simulations": int(text)}


def _mt_ismcts(game: Game, argument: str | None) -> Any:
    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig

    config = SearchConfig(variant="mt", **_budget("mt-ismcts", argument, 1000))
    return ISMCTSAgent(game, config=config)  # compiled where the game compiles


def _nash_ismcts_oracle(game: Game, argument: str | None) -> Any:
    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig, SearchTables

    budget = _budget("nash-ismcts-oracle", argument, 1000)
    policy = _solved_policy("cfr+", 1000, game)
    tables = SearchTables.oracle(policy.tree, policy.probs)
    name = f"nash-ismcts-oracle:{argument or 1000}"
    return ISMCTSAgent(game, tables, SearchConfig(variant="nash", **budget), name=name)


def _nash_ismcts_blueprint(game: Game, argument: str | None) -> Any:
    """``nash-ismcts:BUDGET+SPEC[+VALUES.pt]``: Nash-ISMCTS on a blueprint's P (any agent
    spec, a file or e.g. ``cfr+:100``, whose agent states its probabilities); where the
    game compiles for a search (the search's own test, ``compiles_for_search``), on the
    blueprint's oracle tables (P the blueprint, H Bayes' rule under it, V and V_w its
    exact values), elsewhere on its P, with H Bayes' rule under it where the game's
    actions are public (:class:`~nashzoo.agents.ismcts.knowledge.PolicyKnowledge`, on the
    tree's value scale) and the values of ``VALUES.pt`` (a
    :class:`~nashzoo.agents.ismcts.blueprint_values.BlueprintValues` file: the values
    of histories under the blueprint's play), or zero values without one."""
    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig, SearchTables
    from nashzoo.agents.ismcts.compiled import compiles_for_search
    from nashzoo.agents.ismcts.knowledge import PolicyKnowledge
    from nashzoo.agents.specs import build_agent
    from nashzoo.tree import TabularPolicy, compile_game

    budget, plus, path = (argument or "").partition("+")
    if not plus or not path:
        raise InvalidParameterError(
            "A search on a blueprint is nash-ismcts:BUDGET+SPEC (BUDGET simulations or "
            "SECONDSs a move, SPEC an agent spec, e.g. a file, whose agent states its "
            f"probabilities), received nash-ismcts:{argument or ''}."
        )
    settings = _budget("nash-ismcts", budget, 1000)
    path, values, tail = _values_file(game, path)
    blueprint = build_agent(path, game)
    name = f"nash-ismcts:{budget}+{Path(path).stem}"
    if values is not None and compiles_for_search(game):
        raise InvalidParameterError(
            f"{game} compiles: nash-ismcts:{budget}+{path} reads the blueprint's exact "
            "values there; drop the values file."
        )
    if compiles_for_search(game) and callable(getattr(blueprint, "action_probabilities", None)):
        tree = compile_game(game)
        probs = TabularPolicy.from_agent(blueprint, tree).probs
        config = SearchConfig(variant="nash", eps=0.2, **settings)
        return ISMCTSAgent(game, SearchTables.oracle(tree, probs), config, name=name)
    config = SearchConfig(variant="nash", eps=0.2, value_scale="tree", **settings)
    knowledge = PolicyKnowledge(game, blueprint, values=values)
    if values is not None:
        name = f"{name}+{Path(tail).stem}"
    return ISMCTSAgent(game, knowledge, config, name=name)


def _values_file(game: Game, spec: str) -> tuple[str, Any, str]:
    """``SPEC+VALUES.pt`` split into the blueprint's spec, the values (a
    :class:`~nashzoo.agents.ismcts.blueprint_values.BlueprintValues` file of ``game``)
    and the values file's name; ``(spec, None, "")`` where the spec ends otherwise."""
    head, _, tail = spec.rpartition("+")
    if head and tail.endswith(".pt") and Path(tail).is_file():
        from nashzoo.agents.ismcts.blueprint_values import FORMAT, BlueprintValues
        from nashzoo.agents.torch_files import torch_file_format

        if torch_file_format(tail) == FORMAT:
            return head, BlueprintValues.load(tail, game), tail
    return spec, None, ""


def _resolving(game: Game, argument: str | None) -> Any:
    """``resolve:BUDGET+SPEC``: a blueprint (any agent spec whose agent states its
    probabilities, e.g. ``cfr+:10`` or a policy file) that re-solves safely (max-margin
    CFR+) when play reaches a later round: on a game that compiles, each public subgame
    of a later round with BUDGET iterations
    (:class:`~nashzoo.agents.cfr.subgame.ResolvingAgent`); with a card abstraction's
    blueprint on Hold'em, the last betting round on the real cards with BUDGET iterations
    or ``Xs`` seconds a subgame, or with ``resolve:turn:BUDGET+SPEC`` (``flop``, or
    ``round:R`` in other games) every round from that one
    (:class:`~nashzoo.agents.cfr.endgame.ResolvingAbstractionAgent`); with
    ``resolve:lcfr:...`` its re-solves run Linear CFR instead of CFR+; with
    ``resolve:turn:BUDGET+SPEC+VALUES.pt`` (the values of histories under the blueprint's
    play, ``nashzoo values``) the turn depth-limited, the network valuing each river card's
    continuation."""
    from nashzoo.agents.cfr.abstract_policy import AbstractionAgent
    from nashzoo.agents.specs import build_agent

    budget, plus, spec = (argument or "").partition("+")
    usage = (
        "A re-solving agent is resolve:[lcfr:][STREET:]BUDGET+SPEC (BUDGET: CFR+ "
        "iterations per subgame, a positive integer, or SECONDSs per subgame for a card "
        "abstraction's blueprint; STREET, for a card abstraction's blueprint, the first "
        "round re-solved: river (the default), turn, flop, or round:R; lcfr, for a card "
        "abstraction's blueprint, Linear CFR instead of CFR+; SPEC an agent spec whose "
        "agent states its probabilities, e.g. resolve:1000+cfr+:10, resolve:turn:5s+hunl.npz "
        f"or resolve:lcfr:2s+hunl.npz), received resolve:{argument or ''}."
    )
    street, _, budget = budget.rpartition(":")
    solver = "cfr+"
    if street == "lcfr" or street.startswith("lcfr:"):
        solver, street = "lcfr", street[5:]
    seconds = float(budget[:-1]) if _SECONDS.fullmatch(budget) else None
    iterations = int(budget) if _ITERATIONS.fullmatch(budget) else None
    if not plus or not spec or not ((seconds or 0) > 0 or (iterations or 0) > 0):
        raise InvalidParameterError(usage)
    spec, values, tail = _values_file(game, spec)
    blueprint = build_agent(spec, game)
    lcfr = "lcfr:" if solver == "lcfr" else ""
    name = f"resolve:{lcfr}{street + ':' if street else ''}{budget}+{Path(spec).stem}"
    if values is not None:
        name = f"{name}+{Path(tail).stem}"
    if isinstance(blueprint, AbstractionAgent):
        from nashzoo.agents.cfr.endgame import ResolvingAbstractionAgent

        rounds = blueprint.policy.game.definition.num_rounds
        return ResolvingAbstractionAgent(
            blueprint.policy, game, seconds=seconds, iterations=iterations or 1_000_000,
            name=name, streets=_streets(street, rounds, usage), solver=solver, values=values,
        )  # fmt: skip
    if values is not None:
        raise InvalidParameterError(
            f"resolve:{argument}: a values file serves a card abstraction's blueprint (a "
            f".npz of nashzoo solve), which re-solves the turn depth-limited with it; "
            f"{spec!r} gives a {type(blueprint).__name__}."
        )
    if lcfr:
        raise InvalidParameterError(
            f"resolve:{argument}: lcfr is a setting of a card abstraction's blueprint; on a "
            f"game that compiles the re-solves run CFR+. {usage}"
        )
    if street:
        raise InvalidParameterError(
            f"resolve:{argument}: STREET is a setting of a card abstraction's blueprint; on "
            f"a game that compiles every later round is re-solved. {usage}"
        )
    if not callable(getattr(blueprint, "action_probabilities", None)):
        raise InvalidParameterError(
            f"resolve:{argument} needs a blueprint that states its probabilities "
            f"(action_probabilities); {spec!r} gives a {type(blueprint).__name__}."
        )
    why = _compiles(game)
    if why is not None or iterations is None:
        raise InvalidParameterError(
            f"resolve:{argument}: on {game} re-solving needs a card abstraction's blueprint "
            f"(a .npz of nashzoo solve) or a game that compiles with BUDGET in iterations"
            f"{'; ' + why if why else ''}."
        )
    from nashzoo.agents.cfr.subgame import ResolvingAgent
    from nashzoo.tree import TabularPolicy, compile_game

    policy = TabularPolicy.from_agent(blueprint, compile_game(game))
    return ResolvingAgent(policy, iterations=iterations, name=name)


def _streets(street: str, rounds: int, usage: str) -> int:
    """The rounds re-solved, counted from the last, of ``resolve:STREET:...`` (``""``:
    the last alone)."""
    names = {"river": 1, "turn": 2, "flop": 3} if rounds == 4 else {}
    if not street:
        return 1
    if street in names:
        return names[street]
    r = street.removeprefix("round:")
    if street.startswith("round:") and r.isdigit() and 1 <= int(r) < rounds:
        return rounds - int(r)
    raise InvalidParameterError(
        f"{usage} (STREET {street!r}: this game's later rounds are "
        f"{list(names) or [f'round:{k}' for k in range(1, rounds)]})."
    )


def _sb3_file(game: Game, path: str | None) -> Any:
    from nashzoo.agents.sb3 import load_sb3_agent

    return load_sb3_agent(str(path), game)


def _register() -> None:
    from nashzoo.agents.cfr import SAMPLING_SOLVERS, SOLVER_NAMES
    from nashzoo.agents.learner import LearnerEntry, register_learner

    for entry in (
        LearnerEntry(
            "cfr",
            "nashzoo.agents.cfr.learner:TabularLearner",
            "a tabular solver (CFR+ by default; --algorithm picks another)",
            suffix=".npz",
        ),
        LearnerEntry(
            "nfsp",
            "nashzoo.agents.nfsp:NFSP",
            "Neural Fictitious Self-Play (torch extra)",
            file_format="nashzoo.nfsp",
        ),
        LearnerEntry(
            "deep-cfr",
            "nashzoo.agents.neural_cfr:DeepCFR",
            "Deep CFR: external-sampling traversals, advantage and policy networks (torch extra)",
            file_format="nashzoo.deep_cfr",
        ),
        LearnerEntry(
            "escher",
            "nashzoo.agents.neural_cfr:ESCHER",
            "ESCHER: regrets from a history value function, no importance weights (torch extra)",
            file_format="nashzoo.escher",
        ),
        LearnerEntry(
            "nash-memory",
            "nashzoo.agents.nash_memory.learner:NashMemoryLearner",
            "Nash memory over agents: exact best responses where the game compiles, "
            "MaskablePPO ones and duplicate matches elsewhere (sb3 extra there)",
            file_format="nashzoo.nash_memory",
        ),
        LearnerEntry(
            "simplex-gradient",
            "nashzoo.agents.simplex_gradient:SimplexGradient",
            "simplex-gradient self-play (torch extra)",
            file_format="nashzoo.simplex_gradient",
        ),
        LearnerEntry(
            "nash-ismcts",
            "nashzoo.agents.ismcts.train:NashISMCTS",
            "Nash-ISMCTS's networks by self-play search, any two-player game: tabulated "
            "where the game compiles, evaluated at search time elsewhere (torch extra)",
            file_format=("nashzoo.ismcts", "nashzoo.ismcts_rules"),
            load_agent=_ismcts_file,
        ),
    ):
        register_learner(entry, replace=True)

    register_family(AgentFamily("random", _random, "uniformly random legal actions"))
    for name, description, plays in (
        (
            "poker-rules",
            "raises strong hands, calls middling ones, folds weak ones (poker engine games)",
            "games of the poker engine (Hold'em and more)",
        ),
        (
            "heuristic",
            "greedy one-exchange expected damage (the fighting-card game)",
            "the fighting-card game",
        ),
        (
            "dice-rules",
            "calls liar above its expected count, else the lowest bid it covers (Liar's Dice)",
            "Liar's Dice",
        ),
        (
            "goofspiel-rules",
            "bids the point card's rank, else the next higher (Goofspiel)",
            "Goofspiel",
        ),
    ):
        register_family(
            AgentFamily(name, _rule_agent(name), description, check=_declared(name, plays))
        )
    for algo in SOLVER_NAMES:
        sampling = algo in SAMPLING_SOLVERS
        default = 100_000 if sampling else 1000
        register_family(
            AgentFamily(
                algo,
                _solver_factory(algo, default),
                f"the average policy of nashzoo's {algo} solver after ITERATIONS iterations",
                argument="ITERATIONS",
                needs_tree=True,
                samples=sampling,
                defaults={"iterations": default, **({"seed": 0} if sampling else {})},
                check=_compiles,
            )
        )
    register_family(
        AgentFamily(
            "tabular-file",
            _tabular_file,
            "a saved TabularPolicy (.npz or .json), or a policy solved on a card "
            "abstraction (.npz, from `nashzoo solve ... --abstraction`)",
            needs_tree=True,
            suffixes=(".npz", ".json"),
        )
    )
    register_family(
        AgentFamily(
            "mt-ismcts",
            _mt_ismcts,
            "MT-ISMCTS (UCB1, random rollouts, spawned opponent trees), SIMULATIONS per "
            "move; on games too big to compile it searches over the rules",
            argument="SIMULATIONS",
            needs_tree=False,
            samples=True,
            defaults={"simulations": 1000, "seed": 0},
            check=_two_players,
        )
    )
    register_family(
        AgentFamily(
            "nash-ismcts-oracle",
            _nash_ismcts_oracle,
            "Nash-ISMCTS on oracle networks from a CFR+ solution, SIMULATIONS per move",
            argument="SIMULATIONS",
            needs_tree=True,
            samples=True,
            defaults={"simulations": 1000, "eps": 0.05, "cfr+ iterations": 1000, "seed": 0},
            check=lambda game: _two_players(game) or _compiles(game),
        )
    )
    register_family(
        AgentFamily(
            "nash-ismcts",
            _nash_ismcts_blueprint,
            "Nash-ISMCTS improving a blueprint (any agent spec whose agent states its "
            "probabilities): on its oracle tables where the game compiles, on its P elsewhere, "
            "with the values of a V.pt from `nashzoo values` where one is added",
            argument="BUDGET+SPEC[+V.pt]",
            samples=True,
            defaults={"eps": 0.2, "seed": 0},
            check=_two_players,
        )
    )
    register_family(
        AgentFamily(
            "resolve",
            _resolving,
            "a blueprint (any agent spec that states its probabilities) re-solving safely "
            "(max-margin CFR+) when play reaches a later round: every public subgame where "
            "the game compiles, Hold'em's last round on the real cards for a card "
            "abstraction's blueprint",
            argument="BUDGET+SPEC",
            defaults={"gadget": "maxmargin"},
            check=_two_players,
        )
    )
    register_family(
        AgentFamily(
            "pt-file",
            _torch_file,
            "a saved NFSP, Deep CFR, ESCHER or simplex-gradient agent's average policy "
            "(simplex-gradient: the last iterate where its config says play=last), or a "
            "trained Nash-ISMCTS agent (compiled, or over the rules for big games) (torch extra)",
            suffixes=(".pt",),
        )
    )
    register_family(
        AgentFamily(
            "sb3-file",
            _sb3_file,
            "a saved stable-baselines3 model (sb3 extra); the file is a "
            "pickle and runs code when loaded",
            suffixes=(".zip",),
            loads_code=True,
        )
    )


_register()
