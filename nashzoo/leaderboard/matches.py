"""Matches: which pairings each new entrant plays (the gauntlet's among themselves once,
then every submission against the gauntlet and the other ranked submissions), and one
block of duplicate deals played in lockstep and stored. A pairing's block ``k`` draws its
cards and seeds from ``(seed, game, entrants, k)`` only, so a retried job plays exactly
the same block, and the result store keeps the first copy.

**Boards of three or more seats.** A match block is then one duplicate table
(:func:`nashzoo.eval.seats.play_table`: every entrant in every seat with the same cards,
all ``n!`` seatings up to four seats, the ``n`` rotations above). A new submission is
seated with every other entrant: its opponents, least played first, are packed ``n - 1``
to a table (``ceil(k / (n - 1))`` tables for ``k`` opponents), each table played
``blocks_per_pairing`` times; the gauntlet, where it has ``n`` members or more, plays each
of its own tables. A table is stored as its pairwise outcomes: for entrants ``i`` and
``j`` at it, the per-deal score ``(s_i - s_j) (n - 1) / n`` from the deal scores ``s``.
At two seats that is A's duplicate score exactly; at ``n`` seats an entrant's mean over
the others at its table is its own chips per game (zero-sum: the others' scores sum to
``-s_i``). So the crosstable, Bradley-Terry (each deal's ranking broken into pairwise
wins, the rank-breaking rating of ``nashzoo table``) and Nash averaging run on tables
unchanged. Tables keep no replays (the replay viewer shows heads-up hands), and the
pairwise records of one table share its job's id as their block number.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import time
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from nashzoo.eval.engine import deal_uniforms
from nashzoo.eval.guard import Forfeit
from nashzoo.eval.lockstep import play_duplicate_lockstep
from nashzoo.eval.matches import deal_seed
from nashzoo.eval.seats import play_table
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


def _packed_tables(
    opponents: Sequence[str], per_table: int, played: dict[str, int]
) -> list[tuple[str, ...]]:
    """A new entrant's tables: its opponents, least played first (then by name), packed
    ``per_table`` to a table so that it meets each at least once; the last table is
    filled up with the least played of those already met."""
    order = sorted(opponents, key=lambda o: (played.get(o, 0), o))
    tables = []
    for start in range(0, len(order), per_table):
        table = order[start : start + per_table]
        table += [o for o in order if o not in table][: per_table - len(table)]
        tables.append(tuple(table))
    return tables


class Matches(Board):
    """The leaderboard's match job."""

    def _add_table(self, session: Any, game: str, names: Sequence[str], **job: Any) -> None:
        """Queue ``blocks_per_pairing`` blocks of one table (its entrants ``names``, the
        first the one it is scheduled for) unless they are queued already."""
        from sqlalchemy import select

        seats = sorted(names[1:])
        key = "table:" + hashlib.sha256("\n".join([names[0], *seats]).encode()).hexdigest()[:16]
        for block in range(self.settings.blocks_per_pairing):
            exists = session.scalar(
                select(Job.id).where(
                    Job.kind == "match", Job.game == game, Job.entrant == names[0],
                    Job.opponent == key, Job.block == block,
                )
            )  # fmt: skip
            if exists is None:
                session.add(
                    Job(kind="match", game=game, entrant=names[0], opponent=key, block=block,
                        seats=json.dumps([names[0], *seats]),
                        deals=self.settings.deals_per_block, priority=block * 1000, **job)
                )  # fmt: skip

    def _schedule_gauntlet(self, game: str) -> None:
        """Queue the gauntlet's own pairings once (so that the crosstable is complete and
        Nash averaging has every cell); on a board of ``n`` seats, each table of ``n`` of
        its members."""
        from sqlalchemy import select

        names = [f"gauntlet:{g}" for g in self.gauntlet_of(game)]
        n = self.seats(game)
        if n > 2:
            with self.session() as session:
                for table in itertools.combinations(names, n):
                    self._add_table(session, game, table)
                session.commit()
            return
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
            for a, b, seated, n in session.execute(
                select(Job.entrant, Job.opponent, Job.seats, func.count())
                .where(Job.game == game, Job.kind == "match")
                .group_by(Job.entrant, Job.opponent, Job.seats)
            ).all():
                for name in json.loads(seated) if seated else (a, b):
                    played[name] = played.get(name, 0) + n
            seats = self.seats(game)
            if seats > 2:
                tables = _packed_tables(opponents, seats - 1, played)
                for table in tables:
                    self._add_table(session, game, [me, *table], submission_id=sub_id)
                session.commit()
                self._log(
                    sub_id,
                    f"scheduled {len(tables) * self.settings.blocks_per_pairing} table blocks "
                    f"({len(tables)} tables of {seats} seats) with {len(opponents)} opponents",
                )
                return
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

    def _table(self, job: Job) -> None:
        """Play one table block (a board of three or more seats) and store its pairwise
        outcomes (see the module)."""
        game, deals = job.game, job.deals
        names: list[str] = json.loads(job.seats or "[]")
        tid = self.tournament(game)
        n = len(names)
        pairs = list(itertools.combinations(range(n), 2))
        done = self.store.done(tid)
        if all((names[i], names[j], job.id) in done for i, j in pairs):
            return  # a retried job whose results were stored before its worker died
        rules = self.game(game)
        seed = deal_seed(self.settings.seed, *[zlib.crc32(x.encode()) for x in names], job.block)
        start = time.perf_counter()
        try:
            with contextlib.ExitStack() as stack:
                agents = [stack.enter_context(self.open_agent(game, name)) for name in names]
                result = play_table(
                    rules, agents, deals=deals, seed=seed, bootstrap=0,
                    draw_from=[states_probabilities(a) for a in agents],
                )  # fmt: skip
            seconds = time.perf_counter() - start
            for i, j in pairs:
                scores = (result.scores[:, i] - result.scores[:, j]) * (n - 1) / n
                self.store.add_block(
                    tid, BlockResult.played(names[i], names[j], job.id, scores, seconds)
                )
        except Forfeit as exc:
            loser = names[exc.who] if 0 <= exc.who < n else names[0]
            reason = f"{outcome_code(exc.kind)}: {exc.reason}"[:2000]
            for other in names:
                if other != loser:
                    self.store.add_block(
                        tid,
                        BlockResult.forfeited(
                            loser, other, block=job.id, deals=deals, loser=loser, reason=reason,
                            seconds=time.perf_counter() - start,
                            penalty=rules.max_payoff_magnitude,
                        ),
                    )  # fmt: skip

    def _match(self, job: Job) -> None:
        if job.seats:
            self._table(job)
            return
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
