"""Damaged checkpoints of every learner that saves a ``.pt`` file (issue 85, "not yet
probed"): a truncated file, a file for another game and a file with a NaN weight each end
in a one-line error and exit status 2 from the command line, and in PolicyFileError from
the library, never in a traceback or an agent that plays garbage."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from nashzoo.agents.learner import learners
from nashzoo.agents.specs import build_agent
from nashzoo.cli import main
from nashzoo.envs.registration import make_game
from nashzoo.errors import NashzooError, PolicyFileError

LEARNERS = {
    "nfsp": "kuhn_poker",
    "deep-cfr": "kuhn_poker",
    "escher": "kuhn_poker",
    "nash-ismcts": "kuhn_poker",
    "nash-memory": "kuhn_poker",
    "simplex-gradient": "kuhn_poker",
}
OTHER_GAME = {"kuhn_poker": "leduc_holdem"}


@pytest.fixture(scope="module", params=sorted(LEARNERS))
def checkpoint(request, tmp_path_factory):
    name = request.param
    game = make_game(LEARNERS[name])
    path = tmp_path_factory.mktemp(name) / f"{name}.pt"
    learners()[name].load_class()(game).save(path)
    build_agent(str(path), game)  # the undamaged file loads
    return name, LEARNERS[name], path


def _refused_by_the_cli(path, game, capsys) -> str:
    code = main(["exploitability", str(path), "--game", game])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("nashzoo: error:"), err
    return err[0]


def test_a_truncated_checkpoint_is_refused(checkpoint, tmp_path, capsys):
    name, game, path = checkpoint
    cut = tmp_path / f"cut-{name}.pt"
    data = path.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(PolicyFileError, match="not a readable nashzoo agent file"):
        build_agent(str(cut), make_game(game))
    assert "not a readable" in _refused_by_the_cli(cut, game, capsys)


def test_a_checkpoint_for_another_game_is_refused(checkpoint, capsys):
    name, game, path = checkpoint
    other = OTHER_GAME[game]
    with pytest.raises(NashzooError, match=r"for kuhn_poker, not for leduc_holdem"):
        build_agent(str(path), make_game(other))
    assert "not for" in _refused_by_the_cli(path, other, capsys)


def test_a_checkpoint_with_a_nan_weight_is_refused(checkpoint, tmp_path, capsys):
    name, game, path = checkpoint
    state = torch.load(path, weights_only=True)
    poisoned = _poison_first_float_tensor(state)
    assert poisoned
    bad = tmp_path / f"nan-{name}.pt"
    torch.save(state, bad)
    with pytest.raises(PolicyFileError, match="NaN or infinite"):
        build_agent(str(bad), make_game(game))
    assert "NaN or infinite" in _refused_by_the_cli(bad, game, capsys)


def _poison_first_float_tensor(value) -> bool:
    """Set one element of the first floating-point tensor found to NaN."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point() and value.numel():
            value.view(-1)[0] = float("nan")
            return True
        return False
    items = value.values() if isinstance(value, dict) else value
    if isinstance(value, (dict, list, tuple)):
        return any(_poison_first_float_tensor(v) for v in items)
    return False
