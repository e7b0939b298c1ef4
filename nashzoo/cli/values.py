"""``nashzoo values GAME --blueprint SPEC --out FILE.values.pt``: the values of histories
under a blueprint's play, for a search on the blueprint
(``nash-ismcts:BUDGET+SPEC+FILE.values.pt``)."""

from __future__ import annotations

import argparse
from typing import Any

from nashzoo.cli.common import add_param_option, int_arg, parse_params


def run(args: argparse.Namespace) -> int:
    from nashzoo.agents.ismcts.blueprint_values import (
        BlueprintValuesConfig,
        train_blueprint_values,
    )
    from nashzoo.agents.specs import build_agent
    from nashzoo.cli.train import given_config
    from nashzoo.envs import make_game
    from nashzoo.extras import require

    require("torch", "torch", "nashzoo values").set_num_threads(args.threads)
    game = make_game(args.game, **parse_params(args.param))
    config = BlueprintValuesConfig(**given_config(args))
    blueprint = build_agent(args.blueprint, game)
    values = train_blueprint_values(game, blueprint, config, progress=print)
    path = values.save(args.out)
    print(f"saved to {path}; play it with --agent search=nash-ismcts:0.2s+{args.blueprint}+{path}")
    return 0


def add_parser(sub: Any) -> None:
    """``nashzoo values``."""
    from nashzoo.agents.ismcts.blueprint_values import BlueprintValuesConfig
    from nashzoo.cli.train import config_options

    p = sub.add_parser(
        "values",
        help="fit the values of histories under a blueprint's play (heads-up Hold'em), for "
        "a search on the blueprint: nash-ismcts:BUDGET+SPEC+FILE.values.pt",
    )
    p.add_argument("game", help="env id or short name: limit_holdem or no_limit_holdem")
    add_param_option(p)
    p.add_argument(
        "--blueprint",
        required=True,
        help="an agent spec whose agent states its probabilities (a policy file, poker-rules)",
    )
    p.add_argument("--out", required=True, help="the values file to write (.pt)")
    p.add_argument("--threads", type=int_arg(1, 1024), default=1, help="torch threads (default: 1)")
    p.set_defaults(func=run, config_fields=config_options(p, BlueprintValuesConfig))
