"""Nash-ISMCTS trained over the rules on heads-up Limit Hold'em, measured three ways
(issue 33): duplicate matches against fixed and trained opponents, LBR, and matches
against OpenSpiel's ``ISMCTSBot`` on ``universal_poker`` in lockstep with our engine.
With ``--game fighting_cards`` the same duplicate matches on the fighting game's default
preset, against the scripted heuristic instead of the rule-based poker agent (OpenSpiel
has no such game and LBR is defined for poker, so those two sections are Hold'em's).

Train first (each on one core, for the same time), e.g.::

    nashzoo train nash-ismcts limit_holdem --minutes 60 --out hulh.pt
    nashzoo train nfsp limit_holdem --minutes 60 --out nfsp.pt

then ``python benchmarks/nash_ismcts_holdem.py --ours hulh.pt --nfsp nfsp.pt``.

Our agent plays with the file's search settings (``eval_simulations`` per move) unless
``--simulations`` or ``--move-seconds`` is given; its mean seconds per move are measured
first and the opponents that search get the same time per move: MT-ISMCTS over the
rules and OpenSpiel's bot each with the simulations they run in that time, measured on the
same states (fixed counts, so the machine's load during the matches changes no side's
strength). Every match is a duplicate match (each deal in both
seatings) with AIVAT where the game has a value function (Hold'em: the cards always,
and each side's draws where it states its probabilities, OpenSpiel's bot included) and
common random numbers otherwise, reported as our mean chips per game with its 95%
interval. Then LBR (``--lbr-hands``, 20 rollouts) against our network's P alone, NFSP's
average policy, the rule-based agent, and our search itself (LBR's range kept with P,
the moves the search's own).

Goals: ours beats each opponent with a 95% interval above 0 (at least 1,000 deals each,
300 against OpenSpiel's bot); the deal counts run here are printed beside each result,
and any count below the goal's is said so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line, one_thread

from nashzoo.cli.common import lbr_hands_arg

UCT_C = 2.0


class OpenSpielISMCTS:
    """OpenSpiel's ``ISMCTSBot`` on ``universal_poker`` as a nashzoo agent: it receives
    only our agent's inputs, rebuilds a state consistent with them (``Game.view_state``:
    the opponent's cards are any the view allows; the bot resamples them itself from the
    information state) and replays its history on OpenSpiel's engine, whose card and
    action numbering are ours (``tests/games/test_poker.py``)."""

    def __init__(self, game: Any, simulations: int, seed: int = 0) -> None:
        import pyspiel

        self.game = game
        self.theirs = pyspiel.load_game("universal_poker", game.definition.universal_poker_params())
        self.simulations = int(simulations)
        self.name = f"openspiel-ismcts:{self.simulations}"
        self._seed = seed
        self._bot = self._make(seed)

    def _make(self, seed: int) -> Any:
        import pyspiel

        return pyspiel.ISMCTSBot(
            seed,
            pyspiel.RandomRolloutEvaluator(1, seed),
            UCT_C,
            self.simulations,
            -1,
            pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT,
            False,
            False,
        )

    def reset(self, *, seed: int | None = None) -> None:
        self._bot = self._make(int(seed or 0) % (2**31))

    def _their_state(self, info: dict[str, Any]) -> Any:
        public = [int(a) for a in np.asarray(info["public_history"])[: int(info["history_length"])]]
        view = self.game.view_state(int(info["player"]), str(info["info_state"]), public)
        state = self.theirs.new_initial_state()
        for action in view.history():
            state.apply_action(int(action))
        return state

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return int(self._bot.step(self._their_state(info)))

    def action_probabilities(self, observation: Any, info: dict[str, Any]) -> np.ndarray:
        """The search's final policy (normalised visit counts): the distribution the bot's
        ``step`` samples its move from (OpenSpiel's ``ISMCTSBot::Step`` runs the search
        and samples from ``GetPolicy``'s result), so a referee that draws the move from
        it plays the bot as it is, and AIVAT can correct the draw."""
        row = np.zeros(self.game.num_distinct_actions)
        for action, prob in self._bot.get_policy(self._their_state(info)):
            row[int(action)] = prob
        return row / row.sum()


def seconds_per_move(agent: Any, game: Any, states: list[Any]) -> float:
    """Mean seconds of ``agent.act`` at the given decision states (its own views)."""
    from nashzoo.eval.referee import request_for
    from nashzoo.games.observation import ObservationCache

    cache = ObservationCache(game)
    start = time.perf_counter()
    for state in states:
        observation, info = request_for(cache, state, state.current_player())
        agent.act(observation, info)
    return (time.perf_counter() - start) / len(states)


def decision_states(game: Any, count: int, seed: int, poker: bool = True) -> list[Any]:
    """``count`` decision states from random play (in poker, play that never folds)."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        state.advance_chance(rng.random)
        while not state.is_terminal() and rng.random() < 0.6:
            legal = [a for a in state.legal_actions() if not poker or a != 0]
            state.apply_action(int(rng.choice(legal)))
            state.advance_chance(rng.random)
        if not state.is_terminal():
            states.append(state)
    return states


def match(game: Any, ours: Any, theirs: Any, deals: int, goal: int, label: str) -> None:
    """A duplicate match, printed: AIVAT where the game has a value function (each side's
    draws corrected when it states its probabilities, the chance events always), with the
    uncorrected mean of the same games beside it; common random numbers otherwise."""
    from nashzoo.eval.curves import variance_reduction_for
    from nashzoo.eval.matches import head_to_head

    method = variance_reduction_for(game)
    start = time.perf_counter()
    result = head_to_head(game, ours, theirs, deals=deals, seed=0, variance_reduction=method)
    lo, hi = result.ci95
    verdict = "beats" if lo > 0 else ("loses to" if hi < 0 else "not separated from")
    short = "" if deals >= goal else f"  (goal's count {goal:,}: NOT reached)"
    plain = ""
    if result.plain_mean is not None:
        p_lo, p_hi = result.plain_ci95
        plain = (
            f"\n     uncorrected (the same games): {result.plain_mean:+.3f}  "
            f"95% [{p_lo:+.3f}, {p_hi:+.3f}]"
        )
    print(
        f"  vs {label:34s} {result.mean:+8.3f} chips/game  95% [{lo:+.3f}, {hi:+.3f}]  "
        f"{method}, {deals:,} deals, {time.perf_counter() - start:,.0f} s: {verdict}{short}"
        f"{plain}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--game", default="limit_holdem", help="limit_holdem or fighting_cards (default preset)"
    )
    parser.add_argument("--ours", required=True, help="a Nash-ISMCTS .pt file (over the rules)")
    parser.add_argument("--nfsp", help="an NFSP .pt file trained for the same time")
    parser.add_argument("--simulations", type=int, help="our simulations per move")
    parser.add_argument("--move-seconds", type=float, help="our seconds per move instead")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--openspiel-deals", type=int, default=300)
    parser.add_argument("--lbr-hands", type=lbr_hands_arg, default=1000)
    parser.add_argument(
        "--sections",
        default="match,mt,openspiel,lbr",
        help="match (the rule-based agent or heuristic, NFSP), mt (MT-ISMCTS at equal time), "
        "openspiel, lbr",
    )
    args = parser.parse_args(argv)
    one_thread()
    import nashzoo
    from nashzoo.agents.ismcts import ISMCTSAgent, SearchConfig
    from nashzoo.agents.ismcts.train import NashISMCTS
    from nashzoo.agents.specs import build_agent

    print(machine_line())
    game = nashzoo.make_game(args.game)
    poker = args.game == "limit_holdem"
    baseline = "poker-rules" if poker else "heuristic"
    trainer = NashISMCTS.load(args.ours)
    last = trainer.history[-1] if trainer.history else None
    print(
        f"ours: {args.ours}, {trainer.steps} generations, {trainer.seconds / 60:.1f} min of "
        f"training, {last.games if last else 0:,} self-play games"
    )
    ours = trainer.agent(name="nash-ismcts")
    if args.move_seconds:
        ours.search.config = replace(ours.config, time_budget=args.move_seconds)
    elif args.simulations:
        ours.search.config = replace(ours.config, simulations=args.simulations)
    states = decision_states(game, 40, seed=7, poker=poker)
    per_move = seconds_per_move(ours, game, states)
    budget = ours.config.time_budget
    budget_text = f", budget {budget:.3f} s" if budget else ""
    print(f"ours: {per_move:.3f} s per move ({ours.config.simulations} simulations{budget_text})")
    sections = set(args.sections.split(","))
    if "match" in sections:
        print("\nduplicate matches (our mean chips per game)")
        match(game, ours, build_agent(baseline, game), args.deals, 1000, baseline)
        if args.nfsp:
            nfsp = build_agent(args.nfsp, game)
            match(game, ours, nfsp, args.deals, 1000, "NFSP (same training time)")
    if "mt" in sections:
        # equal time per move, fixed as a simulation count measured here (so that the
        # machine's load during the match changes neither side's strength)
        probe = ISMCTSAgent(game, config=SearchConfig(variant="mt", simulations=500))
        mt_sims = max(1, round(500 * per_move / seconds_per_move(probe, game, states)))
        mt = ISMCTSAgent(
            game, config=SearchConfig(variant="mt", simulations=mt_sims), name="mt-ismcts"
        )
        match(game, ours, mt, args.deals, 1000, f"MT-ISMCTS ({mt_sims:,} sims = {per_move:.3f} s)")
    if not poker and sections & {"openspiel", "lbr"}:
        print("\n(OpenSpiel's bot and LBR: Hold'em only; skipped)")
        sections -= {"openspiel", "lbr"}
    if "openspiel" in sections:
        probe = OpenSpielISMCTS(game, 50)
        spent = seconds_per_move(probe, game, states)
        sims = max(1, round(50 * per_move / spent))
        print(
            f"\nOpenSpiel ISMCTSBot: {50 / spent:,.0f} simulations per second here, so "
            f"{sims} simulations per move for {per_move:.3f} s"
        )
        match(
            game,
            ours,
            OpenSpielISMCTS(game, sims),
            args.openspiel_deals,
            300,
            f"OpenSpiel ISMCTSBot ({sims} sims)",
        )
    if "lbr" in sections and args.lbr_hands > 0:
        from nashzoo.eval.lbr import local_best_response

        print(
            f"\nLBR, {args.lbr_hands:,} hands, 20 rollouts (chips per hand LBR wins: a lower "
            "bound on exploitability)"
        )
        policies = {"nash-ismcts P (network, no search)": trainer.prior_agent()}
        if args.nfsp:
            policies["NFSP average policy"] = build_agent(args.nfsp, game)
        policies["poker-rules"] = build_agent("poker-rules", game)
        for name, policy in policies.items():
            start = time.perf_counter()
            found = local_best_response(game, policy, hands=args.lbr_hands, rollouts=20, seed=0)
            print(f"  {name:38s} {found}  ({time.perf_counter() - start:,.0f} s)", flush=True)
        # the search itself: LBR keeps its range with its P and plays against its moves
        start = time.perf_counter()
        found = local_best_response(
            game, ours, model=ours.policy_model(), hands=args.lbr_hands, rollouts=20, seed=0
        )
        label = "nash-ismcts search (range from its P)"
        print(f"  {label:38s} {found}  ({time.perf_counter() - start:,.0f} s)", flush=True)


if __name__ == "__main__":
    main()
