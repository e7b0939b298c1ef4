"""Run inside a fresh venv holding the installed nashzoo wheel (see ``wheel_check.py``).

``python wheel_smoke.py none``: the package with no extras: it imports, every registered
env steps through PettingZoo's ``api_test``, the ``nashzoo`` command runs ``envs`` and
``solve``, and every feature that needs an extra says which ``pip install
'nashzoo[extra]'`` to run. ``python wheel_smoke.py all``: the same features work (the
envs' ``api_test`` is left to the first venv: the envs need no extra, and a second venv
would only compile numba's kernels again).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import warnings
from importlib import metadata, resources
from pathlib import Path


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"wheel check failed: {what}")
    print(f"ok  {what}", flush=True)


def cli(*args: str, expect_ok: bool = True) -> str:
    command = Path(sys.executable).parent / "nashzoo"  # the venv's console script
    done = subprocess.run([str(command), *args], capture_output=True, text=True)
    check((done.returncode == 0) == expect_ok, f"`nashzoo {' '.join(args)}` exit {done.returncode}")
    return done.stdout + done.stderr


def missing_extra(extra: str, call) -> None:
    """``call()`` must fail with the message naming ``pip install 'nashzoo[extra]'``."""
    from nashzoo.errors import MissingDependencyError

    try:
        call()
    except MissingDependencyError as exc:
        check(f"pip install 'nashzoo[{extra}]'" in str(exc), f"[{extra}] missing: {exc}")
        return
    raise SystemExit(f"wheel check failed: without [{extra}] the call did not say so")


def main() -> None:
    mode = sys.argv[1]
    import nashzoo

    where = Path(nashzoo.__file__).resolve()
    check("site-packages" in where.parts, f"nashzoo imported from the install ({where})")
    check(metadata.version("nashzoo") == nashzoo.__version__, f"version {nashzoo.__version__}")
    heavy = {"numba", "scipy", "torch", "sqlalchemy", "matplotlib", "ray"} & set(sys.modules)
    check(not heavy, "import nashzoo loads no heavy dependency")
    files = resources.files("nashzoo")
    for name in ("py.typed", "leaderboard/templates/board.html", "leaderboard/static/style.css"):
        check(files.joinpath(name).is_file(), f"package data {name}")

    if mode == "none":  # the envs need no extra: [all] would compile numba's kernels again
        from pettingzoo.test import api_test

        for env_id in sorted(nashzoo.registry):
            env = nashzoo.make(env_id)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                api_test(env, num_cycles=20)
            check(True, f"api_test {env_id}")
    check("leduc_holdem" in cli("envs"), "nashzoo envs lists the games")
    out = cli("solve", "kuhn_poker", "--algo", "cfr+", "--iterations", "50")
    check("exploitability" in out, "nashzoo solve kuhn_poker")

    from nashzoo.agents.random_agent import RandomAgent
    from nashzoo.eval.store import ResultStore

    game = nashzoo.make_game("kuhn_poker")
    tmp = Path(tempfile.mkdtemp())
    if mode == "none":
        from nashzoo.agents.nfsp import NFSP
        from nashzoo.bounds import learned_best_response
        from nashzoo.eval import plots

        missing_extra("torch", lambda: NFSP(game))
        missing_extra("sb3", lambda: learned_best_response(game, RandomAgent(seed=0), steps=64))
        missing_extra("store", lambda: ResultStore(tmp / "results.sqlite"))
        missing_extra("plot", lambda: plots.plot_ratings(["a"], [0.0], [0.0], [0.0], tmp / "r.png"))
        out = cli("serve", "--db", str(tmp / "lb.db"), expect_ok=False)
        check("pip install 'nashzoo[server]'" in out, "[server] missing: nashzoo serve says so")
        return
    # [all]: the same features run
    import torch

    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.eval import plots

    torch.set_num_threads(1)
    nfsp = NFSP(game, NFSPConfig(seed=0)).train(steps=200)
    check(nfsp.steps >= 200, "NFSP trains ([torch])")
    ResultStore(tmp / "results.sqlite").close()
    check((tmp / "results.sqlite").is_file(), "the result store opens ([store])")
    plots.plot_ratings(["a", "b"], [0.0, 1.0], [-1.0, 0.0], [1.0, 2.0], tmp / "r.png")
    check((tmp / "r.png").stat().st_size > 0, "plots draw ([plot])")
    import ray  # noqa: F401
    import sb3_contrib  # noqa: F401

    check(True, "ray and sb3-contrib import ([ray], [sb3])")
    check("--db" in cli("serve", "--help"), "nashzoo serve --help ([server])")


if __name__ == "__main__":
    main()
