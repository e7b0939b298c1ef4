"""Every learning family trained on one big game for the same time, then one crosstable
(issue 36): the table a researcher would cite, reproducible by one command.

Each learner trains with ``nashzoo train LEARNER GAME --minutes M --out DIR/LEARNER.pt``
(one torch thread; ``--parallel`` runs that many at once, one core each); a trained file
that exists is kept, and a stopped run's checkpoint (``LEARNER.partial.pt``) is continued
with ``--resume`` to the same budget, so a rerun after an interruption trains only what is
missing. Then
``nashzoo tournament`` plays every pair of the trained agents and the game's fixed
baselines in duplicate matches (AIVAT where the game has a value function: heads-up
Hold'em, limit and no-limit), stored in ``DIR/crosstable.sqlite`` (resumable: a rerun
plays only the missing blocks), and prints the crosstable, Bradley-Terry ratings with
95% intervals, Nash averaging and each agent's LBR lower bound (``--lbr-hands``;
Hold'em). The HTML report (crosstable, ratings plot) goes to ``DIR/report``, and every
learner's training curve (its duplicate scores against the baselines, from
``nashzoo train``'s ``LEARNER.pt.curve.json``) to ``DIR/curves.png``. Deep CFR's and
ESCHER's ``LEARNER.pt`` is their agent file (networks only); the checkpoint with their
reservoir memories, hundreds of MB on Hold'em, is kept beside it as
``LEARNER.checkpoint.pt``, which git ignores.

Cost on a 2-core machine (RESULTS.md): at ``--minutes 10 --deals 100`` on Limit Hold'em,
45 minutes of training and 51 of tournament (workers then ran two torch threads each,
since fixed), most of it Nash-ISMCTS's searched moves
(200 simulations each); the tournament grows with ``--deals`` and the training with
``--minutes``, so the defaults (60 minutes, 1,000 deals) take most of a day.

Usage::

    python benchmarks/learner_crosstable.py --game limit_holdem --minutes 60 --deals 1000 \\
        --lbr-hands 200 --dir hulh-crosstable --agent cfr=hulh.npz
    python benchmarks/learner_crosstable.py --game fighting_cards --minutes 60 --deals 1000

Learners (``--learner``, repeatable; default all): deep-cfr, escher, nash-memory, nfsp,
simplex-gradient, nash-ismcts, each with ``nashzoo train``'s defaults except where
``LEARNER_OPTIONS`` says (Deep CFR explores one action per decision on the fighting game,
whose games are too long for external sampling). Baselines: random and poker-rules on
poker, random and the scripted heuristic on the fighting game; ``--agent NAME=SPEC``
adds more (an abstraction policy, ``mt-ismcts:1000``).
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import machine_line

import nashzoo
from nashzoo.cli.common import lbr_hands_arg
from nashzoo.eval.curves import read_points
from nashzoo.eval.plots import plot_learner_curves
from nashzoo.processes import THREAD_VARIABLES

LEARNERS = ("deep-cfr", "escher", "nash-memory", "nfsp", "simplex-gradient", "nash-ismcts")
BASELINES = {
    "limit_holdem": ("random", "poker-rules"),
    "no_limit_holdem": ("random", "poker-rules"),
    "fighting_cards": ("random", "heuristic"),
}
AIVAT_GAMES = ("limit_holdem", "no_limit_holdem")
# Learner settings that differ from ``nashzoo train``'s defaults, per game. Deep CFR's
# external sampling explores every card of every exchange: on the fighting game's default
# preset (up to ten exchanges of three cards) one iteration had not finished after six
# minutes and 10 GB, so there it explores one card per decision (robust sampling, the
# explored value weighted by the number of cards: 2.3 s an iteration).
LEARNER_OPTIONS = {
    "fighting_cards": {"deep-cfr": ("--sampled-actions", "1")},
}


def _nashzoo(*args: str) -> list[str]:
    return [sys.executable, "-m", "nashzoo", *args]


def train_all(
    game: str,
    learners: list[str],
    minutes: float,
    out: Path,
    parallel: int,
    options: dict[str, tuple[str, ...]] | None = None,
) -> None:
    """Train every learner whose file is missing, ``parallel`` at a time (one thread each);
    a learner's log goes to ``out/LEARNER.log``. A learner that fails does not stop the
    others: they train to the end, and the failures are reported after them. ``options``
    adds ``nashzoo train`` options by learner, after :data:`LEARNER_OPTIONS`' (a resumed
    run takes its own from its checkpoint)."""
    env = {**os.environ, **{name: "1" for name in THREAD_VARIABLES}}
    todo = [name for name in learners if not (out / f"{name}.pt").exists()]
    for name in learners:
        if name not in todo:
            print(f"  {name}: {out / f'{name}.pt'} exists, kept")
    running: list[tuple[str, subprocess.Popen, float]] = []
    failed: list[str] = []
    while todo or running:
        while todo and len(running) < parallel:
            name = todo.pop(0)
            partial = out / f"{name}.partial.pt"
            # a stopped run's last checkpoint: continue it (the budget counts the whole run)
            resume = ["--resume", str(partial)] if partial.exists() else []
            log = open(out / f"{name}.log", "a" if resume else "w")  # noqa: SIM115 (closed with the process)
            extra = (
                ()
                if resume
                else (*LEARNER_OPTIONS.get(game, {}).get(name, ()), *(options or {}).get(name, ()))
            )
            cmd = _nashzoo(
                "train", name, game, "--minutes", str(minutes), "--out", str(partial),
                "--quiet", *extra, *resume,
            )  # fmt: skip
            doing = "resuming" if resume else "training"
            print(f"  {doing} {name} for {minutes:g} min: {' '.join(cmd[2:])}", flush=True)
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
            running.append((name, proc, time.time()))
        time.sleep(2.0)
        for item in list(running):
            name, proc, start = item
            if proc.poll() is None:
                continue
            running.remove(item)
            partial = out / f"{name}.partial.pt"
            if proc.returncode != 0 or not partial.exists():
                failed.append(f"{name} failed (exit {proc.returncode}); see {out / f'{name}.log'}")
                print(f"  {failed[-1]}", flush=True)
                continue
            prefix = partial.name  # only a finished run counts as trained: rename its files
            for path in out.glob(f"{prefix}*"):  # the .pt and its curve
                path.rename(out / (f"{name}.pt" + path.name[len(prefix) :]))
            print(f"  {name}: trained in {time.time() - start:.0f} s", flush=True)
            keep_agent_file(name, out)
    if failed:  # no tournament without every learner; a rerun resumes the failed ones
        raise SystemExit("\n".join(failed))


def keep_agent_file(name: str, out: Path) -> None:
    """Deep CFR's and ESCHER's checkpoints carry their reservoir memories (hundreds of MB
    on Hold'em): the checkpoint moves to ``LEARNER.checkpoint.pt`` (git ignores it) and
    ``LEARNER.pt`` becomes the agent file the tournament reads (the same networks, no
    memories). Other learners' files are small and stay as they are."""
    from nashzoo.agents.learner import get_learner

    cls = get_learner(name).load_class()
    full, checkpoint = out / f"{name}.pt", out / f"{name}.checkpoint.pt"
    if "memories" not in inspect.signature(cls.save).parameters or checkpoint.exists():
        return
    full.rename(checkpoint)
    cls.load(checkpoint).save(full, memories=False)
    mb = full.stat().st_size / 2**20, checkpoint.stat().st_size / 2**20
    print(f"  {name}: agent file {full} ({mb[0]:.1f} MB; checkpoint {mb[1]:.0f} MB)")


def plot_curves(game: str, learners: list[str], out: Path) -> Path | None:
    """Every learner's training curve on one figure, ``out/curves.png`` (one panel per
    baseline, duplicate score against minutes of training), read from each
    ``LEARNER.pt.curve.json`` that ``nashzoo train`` wrote; ``None`` when none exists."""
    curves = {n: read_points(p) for n in learners if (p := out / f"{n}.pt.curve.json").exists()}
    if not any(curves.values()):
        return None
    title = f"{game}: every learner's curve against the baselines"
    unit = nashzoo.make_game(game).payoff_unit
    return plot_learner_curves(curves, out / "curves.png", title=title, unit=unit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="limit_holdem", choices=sorted(BASELINES))
    parser.add_argument("--minutes", type=float, default=60.0, help="training per learner")
    parser.add_argument("--learner", action="append", choices=LEARNERS)
    parser.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC")
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per pairing")
    parser.add_argument("--lbr-hands", type=lbr_hands_arg, default=0)
    parser.add_argument("--parallel", type=int, default=2, help="learners trained at once")
    parser.add_argument("--workers", type=int, default=2, help="tournament worker processes")
    parser.add_argument("--dir", default="crosstable", help="trained files, store, report")
    args = parser.parse_args()
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    learners = args.learner or list(LEARNERS)
    print(machine_line())
    print(f"\n{args.game}: {len(learners)} learners, {args.minutes:g} minutes each\n")
    train_all(args.game, learners, args.minutes, out, args.parallel)
    drawn = plot_curves(args.game, learners, out)
    if drawn:
        print(f"\nthe learners' curves: {drawn}")
    # The tournament runs inside DIR with the learners' files named relative to it (a
    # tournament names an agent file by its file name and content, so a copy of the
    # folder in another checkout finds its stored blocks). A file named with --agent is
    # made absolute, since it is relative to the caller's directory.
    agents = [f"{name}={name}.pt" for name in learners]
    agents += [f"{b}={b}" for b in BASELINES[args.game]]
    for agent in args.agent:
        name, _, spec = agent.partition("=")
        agents.append(f"{name}={os.path.abspath(spec)}" if os.path.isfile(spec) else agent)
    cmd = _nashzoo("tournament", "--game", args.game, "--deals", str(args.deals))
    for agent in agents:
        cmd += ["--agent", agent]
    if args.game in AIVAT_GAMES:
        cmd += ["--variance-reduction", "aivat"]
    if args.lbr_hands:
        cmd += ["--lbr-hands", str(args.lbr_hands)]
    cmd += ["--workers", str(args.workers), "--store", "crosstable.sqlite", "--report", "report"]
    print(f"\nin {out}: {' '.join(cmd[2:])}\n", flush=True)
    # the same nashzoo as this script's, wherever it was imported from (a relative
    # PYTHONPATH would not survive the change of directory)
    path = [str(Path(nashzoo.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    raise SystemExit(subprocess.call(cmd, cwd=out, env=env))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # what finished is kept; a rerun continues from there
        raise SystemExit("interrupted: run the same command again to resume") from None
