"""``nashzoo envs`` and ``nashzoo agents``: what is registered."""

from __future__ import annotations

import argparse
from typing import Any


def run_agents(args: argparse.Namespace) -> int:
    from nashzoo.agents import families

    for family in families().values():
        facts = [
            f
            for f, on in (
                ("compiles the tree", family.needs_tree),
                ("sampling", family.samples),
                ("FILES RUN CODE", family.loads_code),
            )
            if on
        ]
        defaults = ", ".join(f"{k}={v}" for k, v in family.defaults.items())
        print(
            f"{family.usage:32s} {family.description}"
            + (f" [{'; '.join(facts)}]" if facts else "")
            + (f" (defaults: {defaults})" if defaults else "")
        )
    print(f"{'package.module:factory':32s} your own code: factory() or factory(game=game)")
    return 0


def run_envs(args: argparse.Namespace) -> int:
    import nashzoo

    for env_id in sorted(nashzoo.registry):
        spec = nashzoo.registry[env_id]
        params = ", ".join(spec.game_parameters()) or "-"
        kind = "AEC + parallel" if spec.parallel else "AEC"
        print(f"{env_id:32s} {kind:15s} parameters: {params}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo envs`` and ``nashzoo agents``."""
    p = sub.add_parser("envs", help="list the registered environments")
    p.set_defaults(func=run_envs)
    p = sub.add_parser("agents", help="list the agent families (built-in and plugins)")
    p.set_defaults(func=run_agents)
