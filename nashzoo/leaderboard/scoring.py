"""Scoring entrants: exact exploitability where the game compiles (from the probabilities
an agent states, or its policy table), a local-best-response lower bound where it does
not, and the ratings (Bradley-Terry with bootstrap intervals, Nash averaging) refit from
the stored blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.envs.protocol import MixedStrategy
from nashzoo.errors import (
    NashzooError,
)
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.stats import score_unit
from nashzoo.leaderboard.board import Board
from nashzoo.leaderboard.models import (
    BoardVersion,
    Rating,
    RatingPoint,
    utcnow,
)
from nashzoo.leaderboard.sandbox import SandboxedAgent
from nashzoo.tree.policy import TabularPolicy

__all__ = ["Scoring"]


class _SandboxedPolicy:
    """A sandboxed agent's stated probabilities, asked in batches of 256 requests, each
    on a fresh time bank: every information set of a game that compiles, or the states
    a local best response asks about."""

    def __init__(self, agent: SandboxedAgent) -> None:
        self.agent = agent
        self.name = "submission"

    def action_probabilities(self, observation: Any, info: Any) -> Any:
        return self.probabilities_many([(observation, info)])[0]

    def probabilities_many(self, requests: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for start in range(0, len(requests), 256):
            self.agent.new_match()
            out.extend(self.agent.probabilities_many(requests[start : start + 256]))
        return out


class Scoring(Board):
    """The leaderboard's scoring job."""

    def _exact_figures(self, game: str, agent: Any) -> dict[str, Any]:
        """Exact exploitability and exact expected scores against the gauntlet's policy
        agents, where the game compiles."""
        from nashzoo.eval.exploitability import as_tabular_policy, exploitability
        from nashzoo.eval.matches import exact_duplicate_value
        from nashzoo.tree.compile import compiled_or_none
        from nashzoo.tree.policy import TabularPolicy

        out: dict[str, Any] = {}
        if agent is None:
            out["exploitability_note"] = f"{game} is too large to compute exactly"
            return out
        tree = compiled_or_none(self.game(game))
        if tree is None:
            return self._lbr_figures(game, agent)
        try:  # a mixed strategy (Nash memory) as the behavioural policy it plays like
            mine = as_tabular_policy(agent, tree)
        except (NashzooError, TypeError) as exc:
            out["exploitability_note"] = str(exc)[:300]
            return out
        result = exploitability(mine)
        out["exploitability"] = float(result.exploitability)
        if self.seats(game) > 2:
            out["exploitability_note"] = (
                f"NashConv / {self.seats(game)} of the profile where every seat plays this "
                "policy (exact); the exact expected scores are for two-player boards"
            )
            return out
        try:
            exact = {}
            for name in self.gauntlet_of(game):
                other = self._in_process(game, f"gauntlet:{name}", None)
                if hasattr(other, "action_probabilities"):
                    theirs = TabularPolicy.from_agent(other, self.game(game))
                    exact[name] = exact_duplicate_value(mine, theirs)
            out["exact_scores"] = exact
        except (NashzooError, TypeError) as exc:
            out["exact_scores_note"] = str(exc)[:300]
        return out

    def _lbr_figures(self, game: str, agent: Any) -> dict[str, Any]:
        """A local-best-response lower bound on exploitability (:mod:`nashzoo.eval.lbr`),
        for games too large for the exact figure.

        Raises:
            Forfeit: a sandboxed agent failed or ran out of time while answering.
        """
        from nashzoo.eval.lbr import DEFAULT_ROLLOUTS, local_best_response

        hands = self.settings.lbr_hands
        too_large = f"{game} is too large to compute exactly"
        if not hands:
            return {"exploitability_note": too_large}
        try:
            bound = local_best_response(
                self.game(game),
                agent,
                hands=hands,
                rollouts=DEFAULT_ROLLOUTS,
                seed=self.settings.seed,
            )
        except NashzooError as exc:
            return {"exploitability_note": f"{too_large}; LBR failed: {exc}"[:300]}
        return {
            "exploitability_bound": float(bound.value),
            "exploitability_method": "lbr",
            "exploitability_ci95": [float(x) for x in bound.ci95],
            "exploitability_note": f"{too_large}: local best response lower bound, {bound}",
        }

    def _sandbox_policy(self, game: str, agent: SandboxedAgent) -> Any:
        """A sandboxed agent's policy, asked at every information set in batches (its
        clock runs as for decisions); where the game does not compile, an object that
        asks it for the states a local best response needs.

        Raises:
            Forfeit: the agent failed or ran out of time while answering.
        """
        from nashzoo.tree.compile import compiled_or_none
        from nashzoo.tree.policy import TabularPolicy

        tree = compiled_or_none(self.game(game))
        if tree is None:
            return _SandboxedPolicy(agent)  # asked state by state (local best response)
        inputs: list[Any] = [tree.agent_inputs(i) for i in range(len(tree.infoset_keys))]
        rows = _SandboxedPolicy(agent).probabilities_many(inputs)
        try:
            probs = np.asarray(rows, dtype=np.float64)
            return TabularPolicy(tree, probs, metadata={"source": "sandbox"})
        except (ValueError, TypeError, NashzooError) as exc:
            raise Forfeit(-1, f"stated probabilities that are not a policy: {exc}"[:500],
                          "bad_output") from None  # fmt: skip

    def exploitability_of(self, game: str, entrant: str) -> tuple[float | None, str | None]:
        """Exact exploitability of a gauntlet agent (computed once), with a note when
        unknown."""
        figures = self.figures_of(game, entrant)
        return figures.get("exploitability"), figures.get("exploitability_note")

    def figures_of(self, game: str, entrant: str) -> dict[str, Any]:
        """A gauntlet agent's exploitability figures (computed once): ``exploitability``
        where exact, else ``exploitability_bound`` with ``exploitability_method``
        (``"lbr"``) and its CI where :attr:`Settings.lbr_hands` is set, and a note."""
        key = (game, entrant)
        if key not in self._exploitability:
            agent = self._in_process(game, entrant, None)
            if hasattr(agent, "action_probabilities") or isinstance(agent, MixedStrategy):
                self._exploitability[key] = self._exact_figures(game, agent)
            else:
                note = "the agent states no action probabilities"
                self._exploitability[key] = {"exploitability_note": note}
        return self._exploitability[key]

    # -- matches ----------------------------------------------------------------------

    def _tabulated_policy(self, game: str, entrant: str) -> TabularPolicy | None:
        """An in-process entrant's policy at every information set (computed once), or
        ``None`` where the game does not compile or the entrant states no probabilities
        (sandboxed code, people)."""
        key = (game, entrant)
        if key not in self._tabulated:
            agent = self.stated_policy(game, entrant)
            policy = None
            if agent is not None:
                try:
                    policy = (
                        agent if isinstance(agent, TabularPolicy)
                        else TabularPolicy.from_agent(agent, self.game(game))
                    )  # fmt: skip
                except (NashzooError, TypeError):
                    policy = None  # too large to compile, or not a policy there
            self._tabulated[key] = policy
        return self._tabulated[key]

    def exact_payoffs(self, game: str, names: Sequence[str]) -> np.ndarray:
        """``(n, n)`` exact expected duplicate scores (chips/game, row's view) for every
        pair of entrants whose policies are known at every information set of a
        two-player game that compiles; NaN elsewhere (those pairings are measured by
        play, AIVAT-corrected where the board uses AIVAT). Each pair is computed once per worker."""
        from nashzoo.eval.matches import exact_duplicate_value

        n = len(names)
        out = np.full((n, n), np.nan)
        if self.seats(game) > 2:  # a pair's score at a table depends on the others seated
            return out
        policies = [self._tabulated_policy(game, name) for name in names]
        for i in range(n):
            for j in range(i + 1, n):
                mine, theirs = policies[i], policies[j]
                if mine is None or theirs is None:
                    continue
                key = (game, names[i], names[j])
                if key not in self._exact_pairs:
                    self._exact_pairs[key] = float(exact_duplicate_value(mine, theirs))
                out[i, j], out[j, i] = self._exact_pairs[key], -self._exact_pairs[key]
        return out

    def refit(self, game: str) -> None:
        """Refit Bradley-Terry, Nash-averaging and α-Rank ratings of a game from every stored
        block of its ranked entrants, and replace the board in one transaction, unless a
        board fitted on more blocks is in place already (:class:`BoardVersion`). Nash
        averaging uses exact expected scores where both policies are known
        (:meth:`exact_payoffs`); each entrant's new rating is added to its history."""
        from sqlalchemy import delete, update

        from nashzoo.eval.ratings import crosstable, rate

        with self.session() as session:
            names = list(self.entrant_names(session, game))
        results = [
            r for r in self.store.results(self.tournament(game)) if r.a in names and r.b in names
        ]
        playing = [n for n in names if any(n in (r.a, r.b) for r in results)]
        if len(playing) < 2:
            return
        table = crosstable(results, playing)
        exact = self.exact_payoffs(game, playing)
        ratings = rate(results, playing, table=table, seed=self.settings.seed, exact=exact)
        scale, _ = score_unit(self.game(game))
        with self.session() as session:
            # Claim the board for a fit on len(results) blocks; a concurrent refit that saw
            # more blocks has claimed it already (or waits on this row until we commit).
            claimed = session.execute(
                update(BoardVersion)
                .where(BoardVersion.game == game, BoardVersion.blocks <= len(results))
                .values(blocks=len(results), updated_at=utcnow())
            ).rowcount
            if not claimed:
                session.rollback()
                return
            session.execute(delete(Rating).where(Rating.game == game))
            for k, name in enumerate(playing):
                row = table.mean[k]
                deals = table.deals[k]
                played = deals.sum()
                mean = float(np.nansum(row * deals) / played) if played else 0.0
                nash = [
                    float(x[k] * scale) if np.isfinite(x[k]) else None
                    for x in (ratings.nash_score, ratings.nash_low, ratings.nash_high)
                ]
                elo = [float(x[k]) for x in (ratings.elo, ratings.elo_low, ratings.elo_high)]
                alpha = [
                    float(x[k]) if x is not None and np.isfinite(x[k]) else None
                    for x in (ratings.alpharank, ratings.alpharank_low, ratings.alpharank_high)
                ]
                session.add(
                    Rating(
                        game=game, entrant=name, rating=elo[0], low=elo[1], high=elo[2],
                        nash=nash[0], nash_low=nash[1], nash_high=nash[2],
                        alpharank=alpha[0], alpharank_low=alpha[1], alpharank_high=alpha[2],
                        mean_mbb=mean * scale, games=int(2 * played),
                    )
                )  # fmt: skip
                session.add(
                    RatingPoint(
                        game=game, entrant=name, blocks=len(results),
                        rating=elo[0], low=elo[1], high=elo[2],
                    )
                )  # fmt: skip
            session.commit()
