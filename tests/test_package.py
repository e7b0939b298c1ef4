import subprocess
import sys
from pathlib import Path

import nashzoo


def test_import_does_not_load_heavy_stacks():
    code = (
        "import sys, nashzoo, nashzoo.testing\n"
        "heavy = [m for m in ('torch', 'ray', 'fastapi', 'sqlalchemy', 'stable_baselines3',"
        " 'matplotlib') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_py_typed_is_shipped():
    assert (Path(nashzoo.__file__).parent / "py.typed").exists()


def test_public_api():
    for name in (
        "make",
        "make_parallel",
        "play_episode",
        "RandomAgent",
        "Agent",
        "PolicyAgent",
        "registry",
        "__version__",
    ):
        assert hasattr(nashzoo, name)
