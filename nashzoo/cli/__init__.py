"""The ``nashzoo`` command: thin over the library, one module per command (its parser
beside its run function).

nashzoo envs
nashzoo agents
nashzoo solve GAME --algo cfr+ [--algo dcfr ...] --iterations N [--out p.npz] [--plot c.png]
nashzoo values limit_holdem --blueprint lhe.npz --out lhe.values.pt
    (the values of histories under a blueprint's play, for nash-ismcts:0.2s+lhe.npz+lhe.values.pt)
nashzoo exploitability policy.npz
nashzoo play leduc_holdem --against cfr+:1000
nashzoo tournament --game leduc_holdem --agent cfr=cfr+:1000 --agent rnd=random --deals 2000
nashzoo table --game kuhn_poker --param players=3 --agent a=cfr+:1000 --agent b=random ...
    (three or more seats: every agent in every seat with the same cards)
nashzoo train LEARNER GAME --minutes 10 --out agent.pt --plot curve.png
    (LEARNER: cfr, nfsp, deep-cfr, escher, nash-memory, nash-ismcts, simplex-gradient, or a
    plugin's; its options come from its config: ``nashzoo train LEARNER --help``)
nashzoo serve / submit / leaderboard add-user
nashzoo cache [list|clear]   (the Hold'em abstraction tables and compiled code on disk)
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from nashzoo.cli import (
    cache,
    exploitability,
    leaderboard,
    listing,
    play,
    solve,
    table,
    tournament,
    train,
    values,
)
from nashzoo.errors import NashzooError

__all__ = ["main", "build_parser", "subcommand_parsers"]

logger = logging.getLogger("nashzoo")

# in the order `nashzoo --help` lists them
_COMMANDS = (
    listing,
    solve,
    values,
    tournament,
    table,
    train,
    exploitability,
    play,
    leaderboard,
    cache,
)


def build_parser(*, learners: bool | str = True) -> argparse.ArgumentParser:
    """The ``nashzoo`` command's argument parser. ``learners``: the per-learner parsers
    of ``nashzoo train`` with every learner's config options (``True``, which imports
    every learner), with one learner's (its name), or none (``False``)."""
    return _parser_and_commands(learners)[0]


def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser by name, in the order ``nashzoo --help`` lists them (the
    documentation's command-line page prints their help)."""
    return dict(_parser_and_commands(True)[1].choices)


def _parser_and_commands(learners: bool | str) -> tuple[argparse.ArgumentParser, Any]:
    parser = argparse.ArgumentParser(prog="nashzoo", description="nashzoo command line")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in _COMMANDS:
        if command is train:
            train.add_parser(sub, learners=learners)
        else:
            command.add_parser(sub)
    return parser, sub


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``nashzoo`` command."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    argv = list(sys.argv[1:] if argv is None else argv)
    # `nashzoo train LEARNER ...` loads that learner's options alone
    learners: bool | str = argv[:1] == ["train"]
    if learners and len(argv) > 1 and not argv[1].startswith("-"):
        learners = argv[1]
    args = build_parser(learners=learners).parse_args(argv)
    try:
        return int(args.func(args))
    except (NashzooError, FileNotFoundError, KeyError) as exc:
        print(f"nashzoo: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "nashzoo: interrupted; what finished is stored, run the same command to resume",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
