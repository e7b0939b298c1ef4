"""``nashzoo train LEARNER GAME``: one function trains every registered learner.

Each learner's options are made from its config dataclass: one ``--field-name`` per
field, typed and checked by the field's rule, described by the field's documentation.
An option left out takes the config's default; one given (0 too) goes to the config's
check, so a bad value is refused with the field's name. Then: train for the budget,
measure exact exploitability every ``--eval-every`` seconds where the game compiles
(print it, keep the curve), save a checkpoint every ``--checkpoint-every`` seconds and
at every measured point (an interrupted run loses at most that), plot, save.
``--resume FILE`` continues a saved run: its learner and config from the file, its
measured curve from ``FILE.curve.json``, the budget counting the whole run.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from typing import Any

from nashzoo.cli.common import (
    add_param_option,
    float_arg,
    int_arg,
    lbr_hands_arg,
    parse_params,
    usage_error,
)
from nashzoo.errors import InvalidParameterError, NashzooError

__all__ = ["add_parser", "run", "config_options"]

# the options every learner has; a config field may not take one of these names
_COMMON = {"param", "minutes", "steps", "eval_every", "threads", "out", "keep_best", "plot"}
_COMMON |= {"quiet", "game", "learner", "help", "measure_deals", "measure_every", "lbr_hands"}
_COMMON |= {"resume", "checkpoint_every", "log_dir", "tensorboard"}


def _plain(text: str) -> str:
    """Documentation text without its reST markup (``x`` -> x, :class:`~a.B` -> B)."""
    text = re.sub(r":[a-z]+:`~(?:[\w.]*\.)?([^`]+)`", r"\1", text)
    text = re.sub(r":[a-z]+:`([^`]+)`", r"\1", text)
    return text.replace("``", "")


def _optional(kind: Any) -> Any:
    def parse(text: str) -> Any:
        return None if text.lower() == "none" else kind(text)

    parse.__name__ = getattr(kind, "__name__", "value")
    return parse


def config_options(parser: argparse.ArgumentParser, config_type: type) -> list[str]:
    """Add one option per field of ``config_type`` (a :class:`~nashzoo.validation.Config`)
    to ``parser``; returns the field names. An option not given is absent from the
    parsed namespace (:func:`given_config`), so ``--admission-margin none`` sets the field
    to ``None`` instead of leaving it at its default."""
    helps = config_type.field_help()  # type: ignore[attr-defined]
    names = []
    for f in dataclasses.fields(config_type):
        rule = f.metadata.get("rule")
        if rule is None:
            continue
        if f.name in _COMMON:
            raise InvalidParameterError(
                f"{config_type.__name__}.{f.name} takes the name of a `nashzoo train` "
                f"option ({sorted(_COMMON)}); rename the field."
            )
        names.append(f.name)
        flag = _flag(f.name)
        default = f.default if f.default is not dataclasses.MISSING else None
        text = f"{_plain(helps.get(f.name, ''))} (default: {default})".replace("%", "%%")
        kw: dict[str, Any] = {"default": argparse.SUPPRESS, "dest": f.name, "help": text}
        if rule.kind == "bool":
            kw["action"] = argparse.BooleanOptionalAction
        elif rule.kind == "choice":
            kinds = {type(c) for c in rule.choices if c is not None}
            kind = kinds.pop() if len(kinds) == 1 else str
            kw["type"] = _optional(kind) if None in rule.choices else kind
            kw["choices"] = list(rule.choices)
        elif rule.kind == "text":
            kw["type"] = str
        elif rule.kind in ("ints", "numbers"):
            kw["type"] = int if rule.kind == "ints" else float
            kw["nargs"] = "+" if rule.length is None else rule.length
        else:
            kind = int if rule.kind == "int" else float
            kw["type"] = _optional(kind) if rule.optional else kind
            if rule.optional:
                kw["metavar"] = f"{kind.__name__.upper()}|none"
        parser.add_argument(flag, **kw)
    return names


def given_config(args: argparse.Namespace) -> dict[str, Any]:
    """The config options given on the command line (:func:`config_options`), by field
    name; lists as tuples."""
    given = {k: getattr(args, k) for k in args.config_fields if hasattr(args, k)}
    return {k: tuple(v) if isinstance(v, list) else v for k, v in given.items()}


def add_parser(sub: Any, *, learners: bool | str = True) -> None:
    """``nashzoo train`` with one sub-parser per registered learner.

    ``learners``: ``True`` gives every learner's sub-parser its config options, which
    imports every learner's module; a learner's name gives only that learner's (the
    others are listed by name and description: ``nashzoo train cfr`` need not import
    torch for the neural learners); ``False`` lists no learner."""
    p = sub.add_parser(
        "train",
        help="train a learner (cfr, nfsp, deep-cfr, escher, nash-memory, nash-ismcts, "
        "simplex-gradient, plugins) on a game",
        description="Train a registered learner; `nashzoo train LEARNER --help` lists its "
        "options, made from its config.",
    )
    lsub = p.add_subparsers(dest="learner", required=True, metavar="LEARNER")
    if not learners:
        return
    from nashzoo.agents.learner import learners as registered

    for name, entry in registered().items():
        q = lsub.add_parser(name, help=entry.description, description=entry.description)
        q.add_argument("game", help="env id or short name, e.g. leduc_holdem")
        add_param_option(q)
        q.add_argument(
            "--minutes",
            type=float_arg(),
            default=None,
            help="wall-clock training budget (default 1, or none when --steps is given)",
        )
        q.add_argument("--steps", type=int_arg(), default=None, help="training steps budget")
        q.add_argument(
            "--eval-every",
            type=float_arg(),
            default=10.0,
            help="seconds of training between exact exploitability measurements "
            "(default: %(default)s)",
        )
        q.add_argument(
            "--threads", type=int_arg(1, 1024), default=1, help="torch threads (default: 1)"
        )
        q.add_argument("--out", help=f"save the learner here ({entry.suffix})")
        q.add_argument(
            "--checkpoint-every",
            type=float_arg(above=False),
            default=60.0,
            help="seconds of training between checkpoints written to --out (besides one "
            "at every measured point and at the end; default: %(default)s): what an "
            "interrupted run can lose, against the time a big checkpoint takes to write",
        )
        q.add_argument(
            "--keep-best",
            action="store_true",
            help="--out holds the checkpoint with the lowest exact exploitability seen, "
            "not the last one",
        )
        q.add_argument(
            "--plot",
            help="the exploitability curve (PNG); on a game that does not compile, the "
            "measured curve (duplicate scores against the baselines, LBR)",
        )
        q.add_argument(
            "--measure-every",
            type=float_arg(),
            default=300.0,
            help="seconds of training between measured points (default: %(default)s)",
        )
        q.add_argument(
            "--measure-deals",
            type=int_arg(0),
            default=None,
            help="duplicate deals against each baseline per measured point, 0: none "
            "(default: 100 on a game that does not compile; none on one that does, where "
            "a number given measures both, on one plot)",
        )
        q.add_argument(
            "--lbr-hands",
            type=lbr_hands_arg,
            default=0,
            help="LBR hands per measured point, 0: none (default: %(default)s)",
        )
        q.add_argument(
            "--resume",
            metavar="FILE",
            help="continue the run saved in FILE (its learner, config and measured curve); "
            "--minutes and --steps then count the whole run, so an interrupted command "
            "given again with --resume OUT ends where it would have; --out defaults to "
            "FILE; config options are refused (the file holds the config); replay "
            "buffers a learner does not save (NFSP, Nash-ISMCTS) start empty",
        )
        q.add_argument(
            "--log-dir",
            metavar="DIR",
            help="append every measured figure (exploitability, duplicate scores, LBR) to "
            "DIR/scalars.csv as it is measured (step,seconds,name,value)",
        )
        q.add_argument(
            "--tensorboard",
            action="store_true",
            help="with --log-dir: TensorBoard event files in DIR too (tensorboard --logdir "
            "DIR; needs the tensorboard package)",
        )
        q.add_argument("--quiet", action="store_true", help="no progress bar")
        if learners is not True and name != learners:
            q.set_defaults(func=_unavailable(name, "its options were not loaded"))
            continue
        try:
            cls: Any = entry.load_class()
            fields = config_options(q, cls.config_type)
        except NashzooError as exc:  # e.g. the torch extra is missing
            q.set_defaults(func=_unavailable(name, exc))
            continue
        q.set_defaults(func=run, config_fields=fields)


def _flag(name: str) -> str:
    """The ``nashzoo train`` option of a config field: ``node_cap`` is ``--node-cap``."""
    return "--" + name.replace("_", "-")


def _unavailable(name: str, exc: Exception | str) -> Any:
    def report(args: argparse.Namespace) -> int:
        raise InvalidParameterError(f"The learner {name!r} cannot be used here: {exc}")

    return report


def _resumed(cls: Any, path: str, game: Any, given: dict[str, Any]) -> Any:
    """The learner saved in ``path``, checked against the command line: the same game,
    and no config option (the file holds the run's config)."""
    if given:
        options = ", ".join(_flag(name) for name in sorted(given))
        raise InvalidParameterError(
            f"--resume continues the run saved in {path} with the config it holds; "
            f"received config options too ({options}): leave them out."
        )
    learner = cls.load(path)
    if learner.game != game:
        raise InvalidParameterError(
            f"--resume {path}: the file holds a {cls.name} learner for {learner.game}, "
            f"not for {game}."
        )
    return learner


def run(args: argparse.Namespace) -> int:
    """Train ``args.learner`` on ``args.game``."""
    from nashzoo.agents.learner import get_learner
    from nashzoo.envs import make_game

    entry = get_learner(args.learner)
    cls: Any = entry.load_class()
    if args.resume is not None and not args.out:
        args.out = args.resume  # a continued run is saved where it was
    if args.keep_best and not args.out:
        raise usage_error("--keep-best needs --out (where the best checkpoint goes)")
    if args.tensorboard and not args.log_dir:
        raise usage_error("--tensorboard needs --log-dir (where the event files go)")
    if args.steps is not None and args.steps < 1:
        raise InvalidParameterError(f"--steps must be >= 1, received {args.steps}.")
    if not args.checkpoint_every >= 0:
        raise InvalidParameterError(
            f"--checkpoint-every must be >= 0 seconds, received {args.checkpoint_every}."
        )
    minutes = args.minutes if args.minutes is not None or args.steps is not None else 1.0
    given = given_config(args)
    game = make_game(args.game, **parse_params(args.param))
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    if args.resume is not None:
        learner = _resumed(cls, args.resume, game, given)
    else:
        learner = cls(game, cls.config_type(**given))
    # after every check of the command line, before any training
    from nashzoo.training import make_folder_of, run_training

    for option in ("out", "plot"):  # named as the command line names them
        make_folder_of(f"--{option}", getattr(args, option, None))

    run_training(
        learner,
        steps=args.steps,
        seconds=None if minutes is None else 60.0 * minutes,
        out=args.out,
        resume=args.resume is not None,
        keep_best=args.keep_best,
        eval_every=args.eval_every,
        checkpoint_every=args.checkpoint_every,
        measure_every=args.measure_every,
        measure_deals=args.measure_deals,
        lbr_hands=args.lbr_hands,
        log_dir=args.log_dir,
        tensorboard=args.tensorboard,
        plot=args.plot,
        progress=not args.quiet,
        echo=lambda line: print(line, flush=True),
    )
    return 0
