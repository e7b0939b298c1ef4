"""Nash memory over agents: any best-response oracle, a meta-game measured or exact.

Paper: Ficici & Pollack, "A Game-Theoretic Memory Mechanism for Coevolution", GECCO 2003
(Nash memory for symmetric games); the oracle-based loop is the one PSRO later made
common (Lanctot et al., NeurIPS 2017).

:class:`~nashzoo.agents.nash_memory.ParallelNashMemory` keeps pure *tabular* policies and
an exact best response; it stops at games that compile. Here the memory holds *agents*
that play both seats, so it runs on any two-player zero-sum game:

1. The memory's mixture is a :class:`MixtureAgent` (one member drawn per game by the
   mixture's weights).
2. An *oracle* returns a new agent that best-responds to that mixture: the exact best
   response where the game compiles (:func:`exact_oracle`), or a learned one
   (``nashzoo.bounds.oracles.learned_oracle``: MaskablePPO against the mixture) where it
   does not.
3. The new agent is measured against every member by a *measure*: the exact expected
   score where the game compiles and both are tabular (:func:`exact_measure`), else
   duplicate matches (``nashzoo.bounds.oracles.duplicate_measure``: AIVAT where the game
   has a value function, common random numbers otherwise) whose standard errors are kept
   beside the means. (Matches live in :mod:`nashzoo.eval`, a layer beside this one, so
   the measure is passed in.)
4. The meta-game (A's mean score against B: antisymmetric, zero on the diagonal) is solved
   by linear programming; its equilibrium is the new mixture.

As Ficici & Pollack define Nash memory (and Oliehoek's thesis, chapter 7, after them),
the members are the *support* N (the strategies the mixture plays) and a bounded
*memory* M of strategies that left it:

* **admission**: a candidate joins only if it beats the N-mixture by more than the
  matches' uncertainty: its mean score against the mixture minus ``admission_z``
  standard errors above ``admission_margin`` (with an exact measure: any gain above the
  margin). A rejected candidate is logged with its measured gain and discarded; with an
  exact oracle a rejection means the mixture is an equilibrium.
* **memory**: a member that leaves the support enters M; with ``memory_cap`` set, the
  members that left the support longest ago are evicted once M is over it. The
  meta-game covers N and M.
* **robust meta-solver** (``meta_solver="robust"``): measured entries carry standard
  errors; the robust mixture maximises its worst case over every meta-game whose entries
  lie within ``admission_z`` standard errors of the measured means (each entry at its
  lower end: the LP on ``scores - z * stderrs``), rather than trusting the means as
  exact.

Seats are symmetrised (every match plays both seats of every deal), so the meta-game is
symmetric and one memory serves both players: the form of Ficici & Pollack's original
Nash memory. With the exact oracle and the exact meta-game the mixture's exploitability
falls to 0 on the games that compile (a test); the same loop with a learned oracle and
measured entries is what runs on Limit Hold'em and the fighting game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nashzoo.agents.cfr.agent import TabularPolicyAgent
from nashzoo.errors import InvalidParameterError
from nashzoo.games import Game
from nashzoo.tree.lp import solve_zero_sum
from nashzoo.validation import check_choice, check_int, check_number, check_seed

__all__ = [
    "MixtureAgent",
    "PopulationNashMemory",
    "PopulationRecord",
    "Oracle",
    "Measure",
    "MeasureMany",
    "OracleMany",
    "exact_oracle",
    "exact_measure",
    "META_SOLVERS",
    "solve_meta_game",
]

Oracle = Callable[[Game, "MixtureAgent", int], Any]
"""``oracle(game, mixture, seed)`` -> a new agent that best-responds to ``mixture``."""

Measure = Callable[[Game, Any, Any, int], tuple[float, float]]
"""``measure(game, a, b, seed)`` -> (a's mean score per game against b over both seats,
its standard error; 0 when exact)."""

MeasureMany = Callable[[Game, list[tuple[Any, Any, int]]], list[tuple[float, float]]]
"""``measure_many(game, [(a, b, seed), ...])`` -> each pair's ``measure``, in order: how
a round of entries is spread over workers (the learner's actors)."""

OracleMany = Callable[[Game, "MixtureAgent", list[int]], list[Any]]
"""``oracle_many(game, mixture, seeds)`` -> one ``oracle`` answer per seed, in order, each
against a fresh copy of ``mixture`` (its draws seeded as ``mixture``'s): how an
iteration's candidates are trained on workers (the learner's actors)."""


def exact_measure(game: Game, a: Any, b: Any, seed: int) -> tuple[float, float]:
    """The exact expected score of tabular agent ``a`` against ``b`` (mean of both
    seatings; the game must compile)."""
    from nashzoo.tree import compile_game
    from nashzoo.tree.best_response import policy_values

    for agent in (a, b):
        if not isinstance(agent, TabularPolicyAgent):
            raise InvalidParameterError(
                f"exact_measure needs tabular agents, received {type(agent).__name__}."
            )
    tree = compile_game(game)
    seat0 = (tree.infoset_player == 0)[:, None]
    a_first = np.where(seat0, a.policy.probs, b.policy.probs)
    b_first = np.where(seat0, b.policy.probs, a.policy.probs)
    value = (policy_values(tree, a_first)[0] + policy_values(tree, b_first)[1]) / 2
    return float(value), 0.0


class MixtureAgent:
    """A mixture of agents: at every ``reset`` one member is drawn by ``weights`` and plays
    the whole game (a mixed strategy, not a behavioural average).

    Args:
        members: the agents.
        weights: their probabilities (non-negative, summing to 1).
        seed: seed of the draws.
    """

    def __init__(
        self, members: Sequence[Any], weights: np.ndarray, *, seed: int | None = 0
    ) -> None:
        weights = np.asarray(weights, dtype=np.float64)
        if len(members) != weights.size or weights.min() < 0 or abs(weights.sum() - 1) > 1e-9:
            raise InvalidParameterError(
                f"MixtureAgent needs one non-negative weight per member summing to 1, received "
                f"{weights.tolist()} for {len(members)} members."
            )
        self.members = list(members)
        self.weights = weights
        self.name = "mixture"
        self.seed = seed  # of the draws (a fresh copy draws the same)
        self._rng = np.random.default_rng(check_seed(seed))
        self._cum = np.cumsum(weights)
        self.current: Any = self.members[int(np.argmax(weights))]

    def reset(self, *, seed: int | None = None) -> None:
        """Draw the member that plays the next game (``seed`` reseeds the draws and is
        passed on to the member)."""
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed))
        k = int(np.searchsorted(self._cum, self._rng.random() * self._cum[-1], side="right"))
        self.current = self.members[min(k, len(self.members) - 1)]
        self.current.reset(seed=seed)

    def act(self, observation: Any, info: Any) -> int:
        return int(self.current.act(observation, info))


def _mixture_profile(tree: Any, policies: list[np.ndarray], weights: np.ndarray) -> np.ndarray:
    """Both seats' behavioural form of a mixture of policies (realization weights)."""
    from nashzoo.tree.mixture import mix_policies

    profile: np.ndarray = mix_policies(tree, [(policies, weights)] * 2).probs
    return profile


def exact_oracle(game: Game, mixture: MixtureAgent, seed: int) -> TabularPolicyAgent:
    """The exact best response to ``mixture`` in both seats, as a tabular agent (the game
    must compile and every member must be a :class:`TabularPolicyAgent`)."""
    from nashzoo.tree import TabularPolicy, compile_game
    from nashzoo.tree.best_response import best_response_value

    tree = compile_game(game)
    policies = []
    for member in mixture.members:
        if not isinstance(member, TabularPolicyAgent):
            raise InvalidParameterError(
                f"exact_oracle needs tabular members, received {type(member).__name__}."
            )
        policies.append(member.policy.probs)
    kept = np.flatnonzero(mixture.weights > 0)
    profile = _mixture_profile(tree, [policies[k] for k in kept], mixture.weights[kept])
    pure = tree.uniform_probs()
    for p in (0, 1):
        actions = np.empty(tree.num_infosets, dtype=np.int64)
        best_response_value(tree, profile, p, actions)
        rows = tree.infosets_of(p)
        pure[rows] = 0.0
        pure[rows, actions[rows]] = 1.0
    policy = TabularPolicy(tree, pure, metadata={"algorithm": "best-response"})
    return TabularPolicyAgent(policy, seed=seed, name="best-response")


@dataclass(frozen=True)
class PopulationRecord:
    """One iteration of :class:`PopulationNashMemory`.

    Attributes:
        iteration: 1-based.
        gain: the candidate's mean score against the previous mixture (what the oracle
            found; at most the mixture's exploitability, up to sampling error) and its
            standard error (0 when exact).
        weights: the mixture over all members (support and memory) after the iteration.
        exploitability: the mixture's exact exploitability where it can be computed (the
            game compiles and its members are tabular or state their probabilities),
            else ``None``.
        seconds: wall time of the iteration (oracle, matches, LP).
        admitted: whether the candidate passed the admission test (a rejected one is
            not a member).
        evicted: members evicted from the memory this iteration (over ``memory_cap``).
    """

    iteration: int
    gain: tuple[float, float]
    weights: tuple[float, ...]
    exploitability: float | None
    seconds: float
    admitted: bool = True
    evicted: int = 0


class PopulationNashMemory:
    """Nash memory over agents on a two-player zero-sum game (see the module).

    Args:
        game: the rules.
        oracle: the best-response oracle (default :func:`exact_oracle`).
        measure: the meta-game's entries (default :func:`exact_measure`).
        measure_many: measures a round's entries at once (a candidate against the
            support, then against the memory), e.g. on the actors of
            :mod:`nashzoo.agents.runtime`; the default calls ``measure`` on each in turn.
        initial: the first members (default: the uniform policy as a tabular agent,
            which needs the game to compile).
        seed: seeds the oracle calls, the mixture's draws and the measures.
        admission_z: standard errors the candidate's gain must clear (95% one-sided:
            1.645; the default 1.96 asks the two-sided 95% interval to lie above the
            margin); also the width of the robust meta-solver's intervals.
        admission_margin: the gain a candidate must beat; ``None`` admits every candidate
            (the PSRO loop: no test).
        memory_cap: the most members the memory M keeps beside the support (``None``:
            no bound).
        meta_solver: ``"nash"`` (the LP on the measured means) or ``"robust"`` (the
            maximin over the entries' intervals).
        candidates: best responses the oracle makes an iteration, each from its own
            seed (the first from the seed one candidate would have). With more than one,
            each is measured against the support and the one whose gain has the highest
            lower bound (mean minus ``admission_z`` standard errors) is the iteration's
            candidate; it is then measured afresh, with the seeds of a member, for the
            admission test and the meta-game (so picking the best of several noisy
            measurements does not inflate its gain).
        oracle_many: trains an iteration's candidates at once (e.g. on the actors of
            :mod:`nashzoo.agents.runtime`); the default calls ``oracle`` on each seed in
            turn.

    Raises:
        InvalidParameterError: not a two-player zero-sum game, or a bad setting.
    """

    def __init__(
        self,
        game: Game,
        *,
        oracle: Oracle | None = None,
        measure: Measure | None = None,
        initial: Sequence[Any] | None = None,
        seed: int = 0,
        measure_many: MeasureMany | None = None,
        admission_z: float = 1.96,
        admission_margin: float | None = 0.0,
        memory_cap: int | None = None,
        meta_solver: str = "nash",
        candidates: int = 1,
        oracle_many: OracleMany | None = None,
    ) -> None:
        if not isinstance(game, Game) or game.num_players != 2 or not game.zero_sum:
            raise InvalidParameterError(
                f"Nash memory needs a two-player zero-sum Game, received {game}."
            )
        self.game = game
        self.oracle = oracle or exact_oracle
        self.measure = measure or exact_measure
        self.measure_many = measure_many
        self.seed = check_int("seed", seed, 0)
        self.admission_z = check_number("admission_z", admission_z, low=0.0)
        self.admission_margin = (
            None if admission_margin is None else check_number("admission_margin", admission_margin)
        )
        self.memory_cap = None if memory_cap is None else check_int("memory_cap", memory_cap, 0)
        self.meta_solver = check_choice("meta_solver", meta_solver, META_SOLVERS)
        self.candidates = check_int("candidates", candidates, 1)
        self.oracle_many = oracle_many
        if initial is None:
            from nashzoo.tree import TabularPolicy, compile_game

            uniform = TabularPolicy.uniform(compile_game(game))
            initial = [TabularPolicyAgent(uniform, seed=self.seed, name="uniform")]
        self.members: list[Any] = list(initial)
        self._tabulated: list[np.ndarray | None] = [None] * len(self.members)  # over the tree
        self._left_at: list[int | None] = [None] * len(self.members)  # when it left the support
        if not self.members:
            raise InvalidParameterError("Nash memory needs at least one initial member.")
        n = len(self.members)
        self.scores = np.zeros((n, n))
        self.stderrs = np.zeros((n, n))
        self._measure_pairs([(i, j) for i in range(n) for j in range(i + 1, n)])
        self.weights = self._solve()
        self.history: list[PopulationRecord] = []
        self._update_memory(0)

    # -- the meta-game -------------------------------------------------------------------------
    def _measure_pairs(self, pairs: list[tuple[int, int]]) -> None:
        """Fill entries (i, j) and (j, i) of the meta-game for each pair, each measured
        with its own seed (so where it is measured does not matter)."""
        work = [
            (self.members[i], self.members[j], self.seed + 7919 * (i + 1) + j) for i, j in pairs
        ]
        if self.measure_many is None or not work:
            found = [self.measure(self.game, a, b, seed) for a, b, seed in work]
        else:
            found = self.measure_many(self.game, work)
        for (i, j), (mean, stderr) in zip(pairs, found, strict=True):
            self.scores[i, j], self.scores[j, i] = mean, -mean
            self.stderrs[i, j] = self.stderrs[j, i] = stderr

    def _lower_bound(self, scores: np.ndarray, stderrs: np.ndarray) -> tuple[float, float, float]:
        """A candidate's gain against the mixture from its row of entries against the
        members: (mean, standard error, mean minus ``admission_z`` of them)."""
        gain = float(scores @ self.weights)
        gain_se = float(np.sqrt((self.weights**2) @ (stderrs**2)))
        return gain, gain_se, gain - self.admission_z * gain_se

    def _best_candidate(self, draws: int, seeds: list[int]) -> Any:
        """The oracle's answers for ``seeds``, each against the mixture with its draws
        seeded by ``draws``; with several, the one whose gain against the support has the
        highest lower bound (first on ties), each measured with seeds of its own, apart
        from every member's."""
        if self.oracle_many is None or len(seeds) == 1:
            found = [self.oracle(self.game, self.mixture(seed=draws), s) for s in seeds]
        else:
            found = self.oracle_many(self.game, self.mixture(seed=draws), seeds)
        if len(found) == 1:
            return found[0]
        support = self.support
        work = [
            (c, self.members[i], 15_485_863 * (seed + 1) + 7919 * (j + 1) + i)
            for j, (c, seed) in enumerate(zip(found, seeds, strict=True))
            for i in support
        ]
        if self.measure_many is None:
            measured = [self.measure(self.game, a, b, s) for a, b, s in work]
        else:
            measured = self.measure_many(self.game, work)
        bounds = []
        for j in range(len(found)):
            row = np.zeros((2, len(self.members)))
            for k, i in enumerate(support):
                row[:, i] = measured[j * len(support) + k]
            bounds.append(self._lower_bound(row[0], row[1])[2])
        return found[int(np.argmax(bounds))]

    def _solve(self) -> np.ndarray:
        x = solve_meta_game(self.scores, self.stderrs, self.meta_solver, self.admission_z)
        x = np.where(x > 1e-12, x, 0.0)
        return x / x.sum()

    def _update_memory(self, iteration: int) -> int:
        """Members that left the support enter the memory (``iteration`` is when); over
        ``memory_cap``, those that left longest ago are evicted. Returns how many."""
        for k, w in enumerate(self.weights):
            if w > 0:
                self._left_at[k] = None
            elif self._left_at[k] is None:
                self._left_at[k] = iteration
        memory = [k for k, when in enumerate(self._left_at) if when is not None]
        if self.memory_cap is None or len(memory) <= self.memory_cap:
            return 0
        oldest = sorted(memory, key=lambda k: (self._left_at[k], k))
        evict = set(oldest[: len(memory) - self.memory_cap])
        keep = [k for k in range(len(self.members)) if k not in evict]
        self.members = [self.members[k] for k in keep]
        self._tabulated = [self._tabulated[k] for k in keep]
        self._left_at = [self._left_at[k] for k in keep]
        self.scores = self.scores[np.ix_(keep, keep)]
        self.stderrs = self.stderrs[np.ix_(keep, keep)]
        self.weights = self.weights[keep]
        return len(evict)

    @property
    def support(self) -> list[int]:
        """The members the mixture plays (N)."""
        return [k for k, w in enumerate(self.weights) if w > 0]

    @property
    def memory(self) -> list[int]:
        """The members that left the support and are kept (M)."""
        return [k for k, w in enumerate(self.weights) if w <= 0]

    def mixture(self, seed: int | None = None) -> MixtureAgent:
        """The current mixture as an agent."""
        return MixtureAgent(self.members, self.weights, seed=self.seed if seed is None else seed)

    def exploitability(self) -> float | None:
        """The mixture's exact exploitability where the game compiles and every member in
        its support is tabular or states its probabilities (tabulated over the tree:
        learned best responses included); else ``None``."""
        from nashzoo.tree import TabularPolicy, compiled_or_none
        from nashzoo.tree.best_response import nash_conv_array

        kept = np.flatnonzero(self.weights > 0)
        if not all(
            isinstance(self.members[k], TabularPolicyAgent)
            or hasattr(self.members[k], "action_probabilities")
            for k in kept
        ):
            return None
        tree = compiled_or_none(self.game)
        if tree is None:
            return None
        policies = []
        for k in map(int, kept):
            member = self.members[k]
            if not isinstance(member, TabularPolicyAgent):
                table = self._tabulated[k]
                if table is None:
                    table = self._tabulated[k] = TabularPolicy.from_agent(member, tree).probs
                policies.append(table)
            else:
                policies.append(member.policy.probs)
        return nash_conv_array(tree, _mixture_profile(tree, policies, self.weights[kept])) / 2

    # -- iterations ----------------------------------------------------------------------------
    def iterate(self, n: int = 1) -> PopulationNashMemory:
        """Run ``n`` iterations: the oracle's candidate, measured against the support;
        if admitted, against the memory too, then the meta-game solved and the memory
        updated."""
        for _ in range(check_int("n", n, 0)):
            start = time.perf_counter()
            k = len(self.history)
            seeds = [self.seed + k + 104_729 * j for j in range(self.candidates)]
            candidate = self._best_candidate(self.seed + k, seeds)
            m = len(self.members)
            self.members.append(candidate)  # measured as member m (the seeds' index)
            self._tabulated.append(None)
            self._left_at.append(None)
            self.scores = np.pad(self.scores, ((0, 1), (0, 1)))
            self.stderrs = np.pad(self.stderrs, ((0, 1), (0, 1)))
            self._measure_pairs([(m, i) for i in self.support])
            gain, gain_se, low = self._lower_bound(self.scores[m, :m], self.stderrs[m, :m])
            margin = self.admission_margin
            admitted = margin is None or low > margin
            evicted = 0
            if admitted:
                self._measure_pairs([(m, i) for i in self.memory])
                self.weights = self._solve()
                evicted = self._update_memory(k + 1)
            else:  # discarded: the members and the meta-game as they were
                del self.members[m], self._tabulated[m], self._left_at[m]
                self.scores = self.scores[:m, :m]
                self.stderrs = self.stderrs[:m, :m]
            self.history.append(
                PopulationRecord(
                    iteration=k + 1,
                    gain=(gain, gain_se),
                    weights=tuple(float(w) for w in self.weights),
                    exploitability=self.exploitability(),
                    seconds=time.perf_counter() - start,
                    admitted=admitted,
                    evicted=evicted,
                )
            )
        return self


META_SOLVERS = ("nash", "robust")
"""The meta-game solvers of :class:`PopulationNashMemory`."""


def solve_meta_game(
    scores: np.ndarray, stderrs: np.ndarray, solver: str = "nash", z: float = 1.96
) -> np.ndarray:
    """The mixture a meta-game of measured ``scores`` (row's mean score against column)
    and their standard errors ``stderrs`` gives: ``"nash"``, the maximin strategy of the
    means; ``"robust"``, the maximin over every matrix whose entries lie within ``z``
    standard errors of the means (the row mixture's worst case puts each entry at its
    lower end, so it is the maximin of ``scores - z * stderrs``).

    Raises:
        InvalidParameterError: an unknown solver or matrices of other shapes.
    """
    scores = np.asarray(scores, dtype=np.float64)
    stderrs = np.asarray(stderrs, dtype=np.float64)
    check_choice("solver", solver, META_SOLVERS)
    if stderrs.shape != scores.shape:
        raise InvalidParameterError(
            f"The standard errors must have the scores' shape {scores.shape}, received "
            f"{stderrs.shape}."
        )
    payoffs = scores if solver == "nash" else scores - z * stderrs
    x, _, _ = solve_zero_sum(payoffs)
    return np.asarray(x, dtype=np.float64)
