"""What `pip install nashzoo` really installs, checked: build the sdist and the wheel,
look inside the wheel for the package data, install the wheel into fresh venvs (no
extras with pip, then ``[all]`` with uv where it is installed) and run
``.ci/wheel_smoke.py`` in each, from a folder outside the checkout so that nothing is
imported from the source tree. Last, RLlib (which pins its own Gymnasium, so it gets no
extra of ours) is installed into the ``[all]`` venv and the documentation's RLlib page
(``docs/howto/rllib.md``) runs there against the wheel: it trains PPO with action masks
and asserts no illegal action and a win over random.

Usage: ``python .ci/wheel_check.py [--extras none,all] [--no-rllib] [--keep]``
(``make wheel-check``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from find_links import uv_options  # beside this file

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints.txt"
PACKAGE_DATA = (
    "nashzoo/py.typed",
    "nashzoo/leaderboard/templates/base.html",
    "nashzoo/leaderboard/templates/board.html",
    "nashzoo/leaderboard/static/style.css",
    "nashzoo/leaderboard/migrations/script.py.mako",
    "nashzoo/leaderboard/migrations/env.py",
)


# pip installs without byte-compiling and Python writes the bytecode of what is imported,
# as `make install` does (the Makefile says why): PYTHONDONTWRITEBYTECODE is left out.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(*cmd: str | Path, cwd: Path | None = None) -> None:
    """Run ``cmd``, failing the check if it fails; its seconds are printed after it, to
    see where the check's time goes."""
    print("+", " ".join(str(c) for c in cmd), flush=True)
    started = time.perf_counter()
    subprocess.run([str(c) for c in cmd], check=True, cwd=cwd, env=ENV)
    print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)


def installer(python: Path, *, with_pip: bool) -> tuple[str | Path, ...]:
    """The install command for the venv of ``python``. The venv with no extras is
    installed by pip, as a user's ``pip install nashzoo`` is. The ``[all]`` one is
    installed by uv where the checkout's venv has it (``make install`` puts it there): the
    same versions resolve, and its cache, filled by ``make install``, makes the install
    take seconds where pip took 78 s in CI."""
    uv = Path(sys.executable).parent / "uv"
    if with_pip or not uv.is_file():
        return (python, "-m", "pip", "install", "--quiet", "--no-compile", "-c", CONSTRAINTS)
    return (uv, "pip", "install", "--quiet", "--python", python, *uv_options(), "-c", CONSTRAINTS)


def check_wheel_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [p for p in PACKAGE_DATA if p not in names]
    if missing:
        raise SystemExit(f"{wheel.name} lacks package data: {missing}")
    leaked = sorted(n for n in names if n.startswith(("tests/", "benchmarks/", "examples/")))
    if leaked:
        raise SystemExit(f"{wheel.name} ships files that are not the package: {leaked[:5]}")
    print(f"{wheel.name}: {len(names)} files, package data present", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="none,all")
    parser.add_argument("--keep", action="store_true", help="keep the build folder")
    parser.add_argument(
        "--no-rllib", action="store_true", help="skip the RLlib docs page in the [all] venv"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nashzoo-wheel-"))
    start = time.perf_counter()
    try:
        dist = work / "dist"
        run(sys.executable, "-m", "build", "--quiet", "--sdist", "--wheel", "--outdir", dist, ROOT)
        wheel = next(dist.glob("nashzoo-*.whl"))
        sdist = next(dist.glob("nashzoo-*.tar.gz"))
        print(f"built {wheel.name} and {sdist.name}", flush=True)
        check_wheel_contents(wheel)
        for extras in args.extras.split(","):
            venv = work / f"venv-{extras}"
            run(sys.executable, "-m", "venv", venv)
            python = venv / "bin" / "python"
            pip = installer(python, with_pip=extras == "none")
            run(*pip, f"{wheel}[all]" if extras == "all" else str(wheel))
            outside = work / f"run-{extras}"
            outside.mkdir()
            run(python, ROOT / ".ci" / "wheel_smoke.py", extras, cwd=outside)
            if extras == "all" and not args.no_rllib:
                run(*pip, "ray[rllib]")
                run(
                    python,
                    ROOT / "docs" / "_ext" / "snippets.py",
                    ROOT / "docs/howto/rllib.md",
                    cwd=outside,
                )
        print(f"wheel checks passed in {time.perf_counter() - start:.0f} s", flush=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
