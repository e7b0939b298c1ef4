"""``nashzoo play GAME --against SPEC``: duplicate hands against an agent from the keyboard."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from nashzoo.cli.common import add_param_option, int_arg, parse_params, seed_arg, usage_error


def _print_steps(steps: Sequence[Any], seat: int, opponent: str) -> None:
    for step in steps:
        who = "chance" if step.player < 0 else ("you" if step.player == seat else opponent)
        print(f"  {who}: {step.text}")


def run(args: argparse.Namespace) -> int:
    from nashzoo.agents.human import HumanAgent, HumanQuit
    from nashzoo.agents.specs import build_agent
    from nashzoo.envs.registration import make_game
    from nashzoo.eval.session import DuplicateSession

    if args.hands is not None and args.hands < 1:
        raise usage_error(f"--hands must be a positive number, received {args.hands}")
    game = make_game(args.game, **parse_params(args.param or []))
    opponent = build_agent(args.against, game)
    name = str(getattr(opponent, "name", None) or args.against)
    human = HumanAgent(game)
    session = DuplicateSession(game, opponent, seed=args.seed)
    print(
        f"Duplicate {args.game} against {name}: every deal is played twice, once from "
        "each seat, and scored as the pair's mean.\nAnswer with an action's number or "
        "name; `quit` (or Ctrl-D) stops.",
        flush=True,
    )
    try:
        while args.hands is None or len(session.finished) < args.hands:
            seat = session.seat
            print(f"\n--- hand {session.hand + 1} (deal {session.hand // 2 + 1}, you are "
                  f"seat {seat}) ---")  # fmt: skip
            shown = 0
            while not session.hand_over:
                steps = session.visible_steps()
                _print_steps(steps[shown:], seat, name)
                shown = len(steps)
                session.apply(human.act(*session.view()))
            record = session.finished[-1]
            _print_steps(record.steps[shown:], seat, name)
            print(f"  hand over: {session.state}")
            if record.forfeit:
                print(f"  {name} forfeits the hand: {record.forfeit}")
            chips = abs(record.person_return)
            print(f"  you {'won' if record.person_return >= 0 else 'lost'} {chips:g} "
                  f"chip{'s' * (chips != 1)}; score {session.score().text()}",
                  flush=True)  # fmt: skip
            session.start_hand()
    except HumanQuit:
        pass
    print(f"\nFinal score against {name}: {session.score().text()}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo play``."""
    p = sub.add_parser("play", help="play duplicate hands against an agent from the keyboard")
    p.add_argument("game", help="a game id (see `nashzoo envs`), e.g. leduc_holdem")
    p.add_argument(
        "--against",
        required=True,
        metavar="SPEC",
        help="the opponent: an agent spec (random, cfr+:1000, policy.npz, ...)",
    )
    p.add_argument(
        "--hands",
        type=int_arg(),
        default=None,
        help="stop after this many hands (default: until quit)",
    )
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the cards (default: 0)")
    add_param_option(p)
    p.set_defaults(func=run)
