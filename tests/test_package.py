import re
import subprocess
import sys
from pathlib import Path

import pytest

import nashzoo

ROOT = Path(__file__).resolve().parents[1]

# Blocks the service and learning stacks, as if they were not installed.
BLOCKER = """
import sys
BLOCKED = ("sqlalchemy", "torch", "ray", "matplotlib", "stable_baselines3", "fastapi")
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked for this test")
        return None
sys.meta_path.insert(0, Blocker())
"""


def run(code):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout


def test_import_does_not_load_heavy_stacks():
    code = (
        "import sys, nashzoo, nashzoo.testing\n"
        "heavy = [m for m in ('torch', 'ray', 'fastapi', 'sqlalchemy', 'stable_baselines3',"
        " 'matplotlib', 'numba') if m in sys.modules]\n"
        "print(heavy)"
    )
    assert run(code).strip() == "[]"


def test_building_an_agent_does_not_load_numba_or_scipy():
    # agent factories import the solver registry; a Ray or pool worker builds its agents
    # inside the per-move time limit, so the registry must not compile or load kernels
    code = (
        "import sys\n"
        "from nashzoo.agents import AgentSpec\n"
        "import nashzoo.agents.cfr\n"
        "import nashzoo.tree.kernels, nashzoo.tree.sampling, nashzoo.agents.cfr.learner\n"
        "AgentSpec('random')(nashzoo.make_game('nashzoo/kuhn_poker-v0'))\n"
        "print([m for m in ('numba', 'scipy') if m in sys.modules])"
    )
    assert run("import nashzoo\n" + code).strip() == "[]"


def test_core_works_with_only_the_core_dependencies():
    # Issue 10: `import nashzoo` and every env work with numpy, gymnasium, pettingzoo,
    # numba, scipy and tqdm; the store's import error names the extra to install.
    code = (
        BLOCKER
        + """
import pytest

import nashzoo
from nashzoo.eval import exploitability, head_to_head
from nashzoo.tree import TabularPolicy
for env_id in sorted(nashzoo.registry):
    env = nashzoo.make(env_id)
    print(env_id, nashzoo.play_episode(env, [nashzoo.RandomAgent(seed=1)] * 2, seed=3))
print(exploitability(TabularPolicy.uniform(nashzoo.make_game("leduc_holdem"))).nash_conv)
print(head_to_head("kuhn_poker", nashzoo.RandomAgent(), nashzoo.RandomAgent(), deals=10).deals)
try:
    from nashzoo.eval.store import ResultStore
    ResultStore("x.sqlite")
except ImportError as exc:
    print("store:", exc)
"""
    )
    out = run(code)
    assert out.count("nashzoo/") == len(nashzoo.registry)
    assert "4.7472222" in out  # Leduc uniform NashConv, computed with numba
    assert (
        "store: The tournament result store needs sqlalchemy: pip install 'nashzoo[store]'." in out
    )


def test_old_pettingzoo_without_a_registry_is_supported():
    # Issue 10: AgileRL pins pettingzoo<1.27, where `pettingzoo.register` does not exist.
    code = """
import pettingzoo
if hasattr(pettingzoo, "register"):
    del pettingzoo.register
import pytest

import nashzoo
env = nashzoo.make("nashzoo/leduc_holdem-v0")
print(nashzoo.play_episode(env, [nashzoo.RandomAgent(seed=0)] * 2, seed=1))
"""
    assert "player_0" in run(code)


def private_state_members():
    """Underscore names defined by the State classes (methods and slots)."""
    from nashzoo.games.base import State
    from nashzoo.games.kuhn import KuhnPokerState
    from nashzoo.games.leduc import LeducHoldemState
    from nashzoo.games.matrix import MatrixGameState

    names = set()
    for cls in (State, KuhnPokerState, LeducHoldemState, MatrixGameState):
        names |= {
            k
            for k in [*vars(cls), *getattr(cls, "__slots__", ())]
            if k.startswith("_") and not k.startswith("__") and k != "_abc_impl"
        }
    # the names the issue found in five loops, whether or not they still exist
    return names | {"_apply", "_information_state_string", "_information_state_indices"}


def test_no_private_state_member_is_used_outside_games():
    # Issue 10: every loop steps games through the public State interface.
    names = private_state_members()
    assert {"_history", "_player", "_apply"} <= names
    pattern = re.compile(r"\.(" + "|".join(sorted(names)) + r")\b")
    offenders = []
    for path in ROOT.glob("*/**/*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in (".venv", "build") or rel.parts[:2] == ("nashzoo", "games"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []


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
        "AgentInfo",
        "registry",
        "__version__",
    ):
        assert hasattr(nashzoo, name)


def test_the_agent_contract_has_one_public_home_and_is_checked_with_isinstance():
    # issue 30: Agent was importable from five paths, and four optional methods were
    # found by getattr and declared nowhere
    import nashzoo.agents
    import nashzoo.envs
    from nashzoo.agents import ActsMany, ChecksGame, StatesBatch, StatesMany, StatesProbabilities
    from nashzoo.agents.cfr import CFRPlusSolver, TabularPolicyAgent
    from nashzoo.games import KuhnPokerGame

    assert (
        nashzoo.Agent is nashzoo.agents.Agent and nashzoo.PolicyAgent is nashzoo.agents.PolicyAgent
    )
    assert not hasattr(nashzoo.envs, "Agent")
    with pytest.raises(ImportError):
        __import__("nashzoo.agents.protocol")
    cfr = TabularPolicyAgent(CFRPlusSolver(KuhnPokerGame()).iterate(5).average_policy())
    assert isinstance(cfr, nashzoo.PolicyAgent) and isinstance(cfr, StatesProbabilities)
    assert not isinstance(nashzoo.RandomAgent(), ChecksGame)

    class Bare:
        pass

    bare = Bare()
    assert not any(
        isinstance(bare, p)
        for p in (ActsMany, StatesMany, StatesBatch, ChecksGame, StatesProbabilities)
    )
    bare.act_many = lambda requests: []
    assert isinstance(bare, ActsMany)


# The project's notes outside the repository: a user's checkout has none of them.
_OUTSIDE = re.compile(
    r"\.\./shared|shared/references|NASH_ISMCTS\.md|\bDESIGN\.md|\bSTYLE\.md|DEVELOPERS\.md"
)


def _refers_outside(text: str) -> list[str]:
    return [m.group(0) for m in _OUTSIDE.finditer(text)]


def test_nothing_refers_to_files_outside_the_repository():
    # issue 30: docstrings, comments and tests cited notes that only the developers have
    assert _refers_outside("see ../" + "shared/NASH_ISMCTS.md section 2") != []
    assert _refers_outside("see docs/explanation/nash-ismcts.md") == []
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    offenders = {}
    for name in tracked:
        if not name.endswith((".py", ".md", ".toml", ".txt", ".cfg", ".html")):
            continue
        if name.startswith("CHANGELOG"):
            continue
        found = _refers_outside((ROOT / name).read_text(errors="replace"))
        if found and name != "tests/test_package.py":
            offenders[name] = found
    assert offenders == {}


LARGE_FILE_BYTES = 1_000_000
"""Tracked files above this size are refused outside :data:`LARGE_FILES_ALLOWED`."""

LARGE_FILES_ALLOWED: frozenset[str] = frozenset()
"""Docs pictures allowed above :data:`LARGE_FILE_BYTES` (none is, today)."""

ARTIFACT_SUFFIXES = (".pt", ".pth", ".ckpt", ".npz", ".npy", ".pkl", ".pickle", ".onnx", ".zip")
"""Training artifacts and caches: benchmarks remake them; none is tracked."""


def _source_tree_offenders(files: dict[str, int]) -> list[str]:
    """The tracked files (name: size in bytes) that break the no-binaries rule."""
    return sorted(
        name
        for name, size in files.items()
        if (size > LARGE_FILE_BYTES and name not in LARGE_FILES_ALLOWED)
        or name.endswith(ARTIFACT_SUFFIXES)
    )


def test_no_binary_training_artifacts_in_the_source_tree():
    """Issue 88, item 4: 24 MB of .pt checkpoints were committed under benchmarks/. No
    tracked file is over 1 MB (outside an allow-list of docs pictures) and no training
    artifact (checkpoint, policy array, pickle) is tracked at all: benchmarks remake them,
    and RESULTS.md says how."""
    assert _source_tree_offenders({"benchmarks/x/nfsp.pt": 2_000, "docs/a.png": 900}) == [
        "benchmarks/x/nfsp.pt"
    ]
    assert _source_tree_offenders({"benchmarks/big.png": 2_000_000}) == ["benchmarks/big.png"]
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    sizes = {name: (ROOT / name).stat().st_size for name in tracked if (ROOT / name).is_file()}
    assert _source_tree_offenders(sizes) == []
