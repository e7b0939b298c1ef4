"""What several commands share: game parameters, output names, curve tables."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "parse_params",
    "usage_error",
    "add_param_option",
    "add_agent_option",
    "parse_agents",
    "check_agents",
    "lbr_hands_arg",
    "int_arg",
    "float_arg",
    "seed_arg",
    "MAX_COUNT",
    "out_path",
    "print_curve",
]


def usage_error(message: str) -> SystemExit:
    """A one-line error on stderr (``nashzoo: error: ...``) and exit status 2, as
    argparse ends on bad options: ``raise usage_error(...)``."""
    import sys

    print(f"nashzoo: error: {message}", file=sys.stderr)
    return SystemExit(2)


def parse_params(items: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` game parameters as a dict (values parsed as JSON where they are)."""
    params: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise usage_error(f"--param expects KEY=VALUE (e.g. deck_size=8), received {item!r}")
        key, raw = item.split("=", 1)
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def add_param_option(p: argparse.ArgumentParser) -> None:
    """The repeatable ``--param KEY=VALUE`` option."""
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game parameter, e.g. --param deck_size=8 (repeatable)",
    )


def add_agent_option(p: argparse.ArgumentParser, help: str) -> None:
    """The repeatable, required ``--agent NAME=SPEC`` option."""
    p.add_argument("--agent", action="append", required=True, metavar="NAME=SPEC", help=help)


def parse_agents(items: Sequence[str]) -> list[tuple[str, str]]:
    """``NAME=SPEC`` items as ``(name, spec)`` pairs; module:factory specs resolve against
    the current folder, as ``python -m`` would."""
    import os
    import sys

    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    pairs: list[tuple[str, str]] = []
    for item in items:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise usage_error(f"--agent expects NAME=SPEC (e.g. cfr=cfr+:1000), received {item!r}")
        if name in (n for n, _ in pairs):
            raise usage_error(
                f"--agent names must be unique: {name!r} is given twice ({', '.join(items)})"
            )
        pairs.append((name, spec))
    return pairs


def check_agents(pairs: Sequence[tuple[str, str]], game: Any) -> None:
    """Check every ``(name, spec)`` against ``game`` before any is built
    (:func:`~nashzoo.agents.specs.check_spec`): a spec that cannot play the game is
    refused at once, naming the agent, its spec and the game, not after minutes spent
    building the others.

    Raises:
        InvalidParameterError: the first agent that cannot play ``game``.
    """
    from nashzoo.agents.specs import check_spec
    from nashzoo.errors import InvalidParameterError

    for name, spec in pairs:
        try:
            check_spec(spec, game)
        except (InvalidParameterError, FileNotFoundError) as exc:
            raise InvalidParameterError(f"agent {name}={spec}: {exc}") from None


def lbr_hands_arg(text: str) -> int:
    """An LBR hand count option (``--lbr-hands``): an even int, 0 or more (LBR plays
    duplicate pairs)."""
    from nashzoo.errors import InvalidParameterError
    from nashzoo.eval.lbr import check_lbr_hands

    expected = "expected an even int from 0 (LBR plays hands in duplicate pairs)"
    try:
        count = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{expected}, received {text!r}") from exc
    try:
        return check_lbr_hands("hands", count, 0)
    except InvalidParameterError:
        raise argparse.ArgumentTypeError(f"{expected}, received {text!r}") from None


MAX_COUNT = 2**31 - 1
"""The largest count (iterations, deals, hands, steps) an option takes."""


def int_arg(low: int = 1, high: int = MAX_COUNT) -> Callable[[str], int]:
    """An option's type: an int in ``[low, high]``; anything else is argparse's one-line
    error, naming what was expected and what was received (exit status 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an int from {low:,} to {high:,}, received {text!r}"
            )
        return value

    parse.__name__ = "int"  # argparse names the type in its messages
    return parse


def float_arg(
    low: float = 0.0, high: float = math.inf, *, above: bool = True
) -> Callable[[str], float]:
    """An option's type: a finite number above ``low`` (``above=False``: at least
    ``low``) and at most ``high``; NaN, infinities and the rest are argparse's one-line
    error (exit status 2)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = math.isfinite(value) and (value > low if above else value >= low) and value <= high
        if not ok:
            bound = f"above {low:g}" if above else f"at least {low:g}"
            top = f" and at most {high:g}" if math.isfinite(high) else ""
            raise argparse.ArgumentTypeError(
                f"expected a finite number {bound}{top}, received {text!r}"
            )
        return value

    parse.__name__ = "number"
    return parse


seed_arg = int_arg(0, 2**63 - 1)
"""An option's type for seeds: an int from 0 to 2**63 - 1."""


def out_path(base: str, algo: str, several: bool) -> Path:
    """``base``, or with several algorithms ``base`` with ``-ALGO`` before the suffix."""
    path = Path(base)
    if not several:
        return path
    safe = algo.replace("+", "plus")
    return path.with_name(f"{path.stem}-{safe}{path.suffix}")


def print_curve(curve: Any, big_blind: float | None, rows: int = 12) -> None:
    """About ``rows`` points of a convergence curve as a table (mbb/game for poker)."""
    pts = list(curve.points)
    if len(pts) > rows:
        step = (len(pts) - 1) / (rows - 1)
        pts = [pts[round(i * step)] for i in range(rows)]
    unit = "" if big_blind is None else "   mbb/game"
    print(f"\n{curve.algorithm}  ({curve.game})")
    print(f"{curve.step_unit:>12} {'seconds':>10} {'exploitability':>16}{unit}")
    for p in pts:
        mbb = "" if big_blind is None else f" {1000 * p.exploitability / big_blind:>11.3f}"
        print(f"{p.step:>12,} {p.seconds:>10.3f} {p.exploitability:>16.6g}{mbb}")
