"""Matches: which pairings each new entrant plays (the gauntlet's among themselves once,
then every submission against the gauntlet and the other ranked submissions), and one
block of duplicate deals played in lockstep and stored. A pairing's block ``k`` draws its
cards and seeds from ``(seed, game, entrants, k)`` only, so a retried job plays exactly
the same block, and the result store keeps the first copy.
"""

from __future__ import annotations

import json
import logging
import time
import zlib

import numpy as np

from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.lockstep import play_duplicate_lockstep
from nashzoo.eval.matches import deal_seed
from nashzoo.eval.store import BlockResult
from nashzoo.leaderboard.board import Board, entrant_of, states_probabilities
from nashzoo.leaderboard.models import (
    Hand,
    Job,
    Submission,
)
from nashzoo.leaderboard.sandbox import outcome_code

__all__ = ["Matches"]

logger = logging.getLogger(__name__)


class Matches(Board):
    """The leaderboard's match job."""

    def _schedule_gauntlet(self, game: str) -> None:
        """Queue the gauntlet's own pairings once (so that the crosstable is complete and
        Nash averaging has every cell)."""
        from sqlalchemy import select

        names = [f"gauntlet:{g}" for g in self.gauntlet_of(game)]
        with self.session() as session:
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    for block in range(self.settings.blocks_per_pairing):
                        exists = session.scalar(
                            select(Job.id).where(
                                Job.kind == "match", Job.game == game, Job.entrant == a,
                                Job.opponent == b, Job.block == block,
                            )
                        )  # fmt: skip
                        if exists is None:
                            session.add(
                                Job(kind="match", game=game, entrant=a, opponent=b, block=block,
                                    deals=self.settings.deals_per_block, priority=block * 1000)
                            )  # fmt: skip
            session.commit()

    def _schedule(self, game: str, sub_id: int) -> None:
        """Queue the new submission's blocks against the gauntlet and every other ranked
        submission; pairings whose entrants have played least come first."""
        from sqlalchemy import func, select

        me = entrant_of(sub_id)
        with self.session() as session:
            opponents = [f"gauntlet:{g}" for g in self.gauntlet_of(game)]
            others = session.scalars(
                select(Submission.id).where(
                    Submission.game == game, Submission.status == "ranked", Submission.id != sub_id
                )
            )
            opponents += [entrant_of(i) for i in others]
            played: dict[str, int] = {}
            for a, b, n in session.execute(
                select(Job.entrant, Job.opponent, func.count())
                .where(Job.game == game, Job.kind == "match")
                .group_by(Job.entrant, Job.opponent)
            ).all():
                played[a] = played.get(a, 0) + n
                played[b] = played.get(b, 0) + n
            for opponent in opponents:
                for block in range(self.settings.blocks_per_pairing):
                    session.add(
                        Job(
                            kind="match",
                            game=game,
                            submission_id=sub_id,
                            entrant=me,
                            opponent=opponent,
                            block=block,
                            deals=self.settings.deals_per_block,
                            priority=block * 1000 + int(played.get(opponent, 0)),
                        )
                    )
            session.commit()
        self._log(
            sub_id,
            f"scheduled {len(opponents) * self.settings.blocks_per_pairing} "
            f"match blocks against {len(opponents)} opponents",
        )

    def _match(self, job: Job) -> None:
        game, block, deals = job.game, job.block, job.deals
        a, b = job.entrant, job.opponent
        tid = self.tournament(game)
        if (a, b, block) in self.store.done(tid):
            return  # a retried job whose result was stored before its worker died
        rules = self.game(game)
        pair = [zlib.crc32(a.encode()), zlib.crc32(b.encode())]
        start = time.perf_counter()
        hands: list[list[int]] = []
        try:
            with self.open_agent(game, a) as agent_a, self.open_agent(game, b) as agent_b:
                agent_a.reset(seed=deal_seed(self.settings.seed, *pair, block, 0))
                agent_b.reset(seed=deal_seed(self.settings.seed, *pair, block, 1))
                rng = np.random.default_rng([self.settings.seed, *pair, block])
                scores = play_duplicate_lockstep(
                    rules,
                    agent_a,
                    agent_b,
                    deal_uniforms(rules, deals, rng),
                    record=hands,
                    record_games=self.settings.hands_per_block,
                    draw_from=(states_probabilities(agent_a), states_probabilities(agent_b)),
                    draw_seed=[self.settings.seed, *pair, block, 1],
                    values=self.value_function(game),
                )
            result = BlockResult.played(
                a, b, block, scores.scores, time.perf_counter() - start, corrected=scores.corrected
            )
        except Forfeit as exc:
            result = BlockResult.forfeited(
                a,
                b,
                block=block,
                deals=deals,
                loser=(a, b)[exc.who],
                reason=f"{outcome_code(exc.kind)}: {exc.reason}"[:2000],
                seconds=time.perf_counter() - start,
                penalty=rules.max_payoff_magnitude,
            )
        self._store_hands(game, a, b, block, hands)
        self.store.add_block(tid, result)

    def _store_hands(self, game: str, a: str, b: str, block: int, hands: list[list[int]]) -> None:
        from sqlalchemy import select

        with self.session() as session:
            for g, history in enumerate(hands):
                seat0 = a if g % 2 == 0 else b
                exists = session.scalar(
                    select(Hand.id).where(
                        Hand.game == game, Hand.a == a, Hand.b == b, Hand.block == block,
                        Hand.deal == g // 2, Hand.seat0 == seat0,
                    )
                )  # fmt: skip
                if exists is None:
                    session.add(
                        Hand(game=game, a=a, b=b, block=block, deal=g // 2, seat0=seat0,
                             record=json.dumps({"history": [int(x) for x in history]}))
                    )  # fmt: skip
            session.commit()

    # -- the board --------------------------------------------------------------------
