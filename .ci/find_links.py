"""Print pip's find-links as uv's options (``--find-links LOCATION`` for each).

uv does not read pip's configuration. A machine that keeps wheels on disk for pip (this
one: a CPU build of torch that ``constraints.txt`` pins) names them in pip's
``find-links``, in a configuration file or in ``PIP_FIND_LINKS``; without them uv would
fetch the pinned torch from PyPI, a build of several GB. Used by the Makefile's install
and by ``wheel_check.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys


def find_links() -> list[str]:
    """Every find-links location pip would use, each once, in pip's order."""
    locations = os.environ.get("PIP_FIND_LINKS", "").split()
    done = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
        capture_output=True,
        text=True,
    )
    if done.returncode == 0:
        locations += done.stdout.split()
    return list(dict.fromkeys(locations))


def uv_options() -> list[str]:
    return [part for location in find_links() for part in ("--find-links", location)]


if __name__ == "__main__":
    print(" ".join(uv_options()))
