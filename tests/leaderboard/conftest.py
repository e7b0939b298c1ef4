"""Shared pieces of the leaderboard tests: a small board, bundles built on the fly."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("alembic")

from nashzoo.leaderboard.sandbox import SandboxLimits, sandbox_problem
from nashzoo.leaderboard.service import Leaderboard, Settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "leaderboard_agent"
LAST_LEGAL = (EXAMPLE / "agent.py").read_text()
"""The example bundle's agent: always the last legal action."""

needs_sandbox = pytest.mark.skipif(
    sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}"
)


def bundle(
    source: str, games: tuple[str, ...] = ("leduc_holdem",), extra: dict | None = None
) -> bytes:
    """A code bundle: agent.toml + agent.py holding ``source``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        games_list = ", ".join(f'"{g}"' for g in games)
        z.writestr("agent.toml", f'entry = "agent:make"\ngames = [{games_list}]\n')
        z.writestr("agent.py", source)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buffer.getvalue()


def make_board(tmp_path: Path, **overrides) -> Leaderboard:
    settings = Settings(
        database=str(tmp_path / "lb.db"),
        data_dir=tmp_path / "data",
        games=("leduc_holdem",),
        gauntlet={"random": "random", "cfr+": "cfr+:50"},
        deals_per_block=100,
        blocks_per_pairing=2,
        validation_deals=20,
        sandbox=SandboxLimits(
            move_seconds=0.5,
            time_bank=2.0,
            startup_seconds=60.0,
            memory_bytes=2 << 30,
            file_bytes=8 << 20,
        ),
        lease_seconds=5.0,
    )
    for key, value in overrides.items():
        setattr(settings, key, value)
    return Leaderboard(settings)


@pytest.fixture()
def board(tmp_path: Path) -> Leaderboard:
    return make_board(tmp_path)


@pytest.fixture(scope="session")
def cfr_policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from nashzoo.agents.cfr import make_solver
    from nashzoo.envs.registration import make_game

    solver = make_solver("cfr+", make_game("leduc_holdem"))
    solver.iterate(200)
    path = tmp_path_factory.mktemp("policies") / "cfr200.npz"
    solver.average_policy().save(path)
    return path


@pytest.fixture()
def reserved_uids(monkeypatch):
    """The sandbox user ids this test's own sandboxes reserve: another test process may
    run sandboxes of its own at the same time, under other ids."""
    from nashzoo.leaderboard import sandbox

    seen: list[int] = []
    real = sandbox._reserve_uid

    def recording():
        uid, handle = real()
        seen.append(uid)
        return uid, handle

    monkeypatch.setattr(sandbox, "_reserve_uid", recording)
    return seen
