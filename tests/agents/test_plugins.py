"""Agents as plugins (issue 10): a package that declares a `nashzoo.agents` entry point
adds a family every command knows; an agent written from the protocol's docstring alone
plays in a tournament."""

from pathlib import Path

import numpy as np
import pytest

from nashzoo.agents import AgentSpec, families, get_family
from nashzoo.agents.registry import refresh_plugins
from nashzoo.eval.tournament import TournamentConfig, run_tournament
from nashzoo.games.base import HIDDEN

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
import numpy as np
from nashzoo.agents import AgentFamily


class Stubborn:
    """Plays action ARG whenever it is legal, else the first legal action."""

    def __init__(self, action):
        self.name = f"stubborn-{action}"
        self.action = action

    def reset(self, *, seed=None):
        pass

    def act(self, observation, info):
        mask = observation["action_mask"]
        return self.action if mask[self.action] else int(np.flatnonzero(mask)[0])


def build(game, argument):
    return Stubborn(int(argument or 1))


FAMILY = AgentFamily("stubborn", build, "plays ACTION whenever it can", argument="ACTION")
'''


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A plugin distribution on sys.path, found through importlib.metadata exactly as a
    `pip install`ed one (a .dist-info folder with entry_points.txt)."""
    (tmp_path / "nashzoo_stubborn.py").write_text(PLUGIN)
    info = tmp_path / "nashzoo_stubborn-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nashzoo-stubborn\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[nashzoo.agents]\nstubborn = nashzoo_stubborn:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh_plugins()
    yield tmp_path
    from nashzoo.agents import registry

    registry._FAMILIES.pop("stubborn", None)


@pytest.mark.parametrize("workers", [0, 2])
def test_an_installed_plugin_plays_in_a_tournament(installed_plugin, tmp_path, workers):
    assert get_family("stubborn").argument == "ACTION" and "stubborn" in families()
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        deals=40,
        block_size=20,
        agents=(("raiser", AgentSpec("stubborn:2")), ("caller", AgentSpec("stubborn:1"))),
    )
    result = run_tournament(cfg, tmp_path / f"p{workers}.sqlite", workers=workers, bootstrap=0)
    assert result.complete and result.crosstable.forfeits == ()
    # Raise-once-per-round against always-call gives the same pot in both seatings, and
    # duplicate seating gives each side both hands: every deal scores exactly 0.
    assert result.crosstable.deals[0, 1] == 40 and result.crosstable.mean[0, 1] == 0.0


def test_every_command_knows_the_plugin(installed_plugin, tmp_path):
    from tests.conftest import run_cli

    listing = run_cli(["agents"], tmp_path, pythonpath=[str(installed_plugin)])
    assert "stubborn:ACTION" in listing and "plays ACTION whenever it can" in listing
    out = run_cli(
        [
            "tournament",
            "--game",
            "kuhn_poker",
            "--agent",
            "s=stubborn:1",
            "--agent",
            "r=random",
            "--deals",
            "50",
            "--store",
            str(tmp_path / "cli.sqlite"),
            "--quiet",
            "--bootstrap",
            "0",
        ],
        tmp_path,
        pythonpath=[str(installed_plugin)],
    )
    assert "Crosstable" in out and "Forfeits" not in out


class ProtocolOnly:
    """Written from nashzoo.envs.protocol's docstring alone: it checks every documented
    info key against the observation, and raises (a forfeit) if one is wrong."""

    name = "protocol-only"

    def reset(self, *, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, info):
        tensor, mask = observation["observation"], observation["action_mask"]
        player = info["player"]
        if tensor[player] != 1.0 or tensor[1 - player] != 0.0:  # one-hot of the observer
            raise AssertionError(f"info['player']={player} disagrees with the observation")
        length = info["history_length"]
        public = info["public_history"]
        if public[:2].tolist() != [HIDDEN, HIDDEN] or (public[length:] != HIDDEN).any():
            raise AssertionError(f"private cards leaked or bad padding: {public}")
        if not info["info_state"].startswith(f"player={player} "):
            raise AssertionError(info["info_state"])
        return int(self.rng.choice(np.flatnonzero(mask)))


def test_an_agent_written_from_the_protocol_docstring_plays_a_tournament(tmp_path):
    cfg = TournamentConfig(
        game="nashzoo/leduc_holdem-v0",
        deals=30,
        block_size=10,
        agents=(("docs", ProtocolOnly()), ("rnd", AgentSpec("random"))),
    )
    result = run_tournament(cfg, tmp_path / "d.sqlite", workers=1, bootstrap=0)
    assert result.complete and result.crosstable.forfeits == ()
    assert result.crosstable.deals[0, 1] == 30
