"""Reading ``.pt`` agent files (nashzoo.agents.torch_files): a file read before in the
process and unchanged since is not unpickled again (a tournament builds its agents afresh
for every block), every reader gets contents of its own, and a rewritten file is read
anew."""

from __future__ import annotations

import pytest

from nashzoo.agents import torch_files
from nashzoo.agents.specs import build_agent
from nashzoo.agents.torch_files import read_torch_file, torch_file_format, write_torch_file
from nashzoo.errors import PolicyFileError
from nashzoo.games import KuhnPokerGame

torch = pytest.importorskip("torch")


@pytest.fixture
def loads(monkeypatch):
    """Count torch.load calls (the reads that unpickle a file)."""
    calls = []
    real = torch.load

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(torch, "load", counting)
    return calls


def _state(value: float) -> dict:
    return {
        "format": "test",
        "weights": {"w": torch.full((3,), value)},
        "rows": torch.arange(4),
        "sizes": [8, (2, 3)],
    }


def test_an_unchanged_file_is_unpickled_once_and_each_reader_owns_its_copy(tmp_path, loads):
    path = write_torch_file(_state(1.0), tmp_path / "a.pt")
    first = read_torch_file(path)
    first["weights"]["w"] += 5.0  # what a reader does to its copy stays its own
    first["rows"][0] = 99
    first["format"] = "changed"
    first["sizes"].append("x")
    second = read_torch_file(str(path))
    assert loads == [path]  # the second read came from memory
    assert torch.equal(second["weights"]["w"], torch.full((3,), 1.0))
    assert second["rows"].tolist() == [0, 1, 2, 3] and second["sizes"] == [8, (2, 3)]
    assert second["format"] == "test"
    assert torch_file_format(path) == "test" and len(loads) == 1  # the kept contents
    # a rewritten file (renamed over the old one) is read again
    write_torch_file(_state(2.0), path)
    third = read_torch_file(path)
    assert len(loads) == 2 and torch.equal(third["weights"]["w"], torch.full((3,), 2.0))


def test_a_modules_state_dict_comes_back_with_its_metadata(tmp_path):
    # load_state_dict reads each submodule's version from the state dict's _metadata
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4))
    path = write_torch_file({"format": "test", "net": net.state_dict()}, tmp_path / "n.pt")
    for _ in range(2):  # read from the file, then from memory
        weights = read_torch_file(path)["net"]
        assert weights._metadata == net.state_dict()._metadata
        assert list(weights) == list(net.state_dict())
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4)).load_state_dict(weights)


def test_large_files_are_read_each_time_and_the_cache_is_bounded(tmp_path, loads, monkeypatch):
    monkeypatch.setattr(torch_files, "CACHE_FILE_BYTES", 0)
    path = write_torch_file(_state(1.0), tmp_path / "big.pt")
    read_torch_file(path)
    read_torch_file(path)
    assert len(loads) == 2
    monkeypatch.setattr(torch_files, "CACHE_FILE_BYTES", 2**30)
    monkeypatch.setattr(torch_files, "CACHE_FILES", 2)
    paths = [write_torch_file(_state(k), tmp_path / f"{k}.pt") for k in range(3)]
    for p in paths:
        read_torch_file(p)
    read_torch_file(paths[0])  # pushed out by the third: read again
    assert len(loads) == 2 + 3 + 1
    assert len(torch_files._CACHE) == 2
    # and by bytes: room for two of these files, not three
    monkeypatch.setattr(torch_files, "CACHE_FILES", 16)
    monkeypatch.setattr(torch_files, "CACHE_BYTES", int(2.5 * paths[0].stat().st_size))
    for p in paths:  # kept: 2 and 0. 0 from memory; 1 read, 2 pushed out; 2 read
        read_torch_file(p)
    assert len(loads) == 2 + 3 + 1 + 2
    assert len(torch_files._CACHE) == 2


def test_bad_files_are_still_refused_by_name(tmp_path):
    with pytest.raises(FileNotFoundError, match="No agent file"):
        read_torch_file(tmp_path / "missing.pt")
    with pytest.raises(FileNotFoundError, match="No agent file"):
        torch_file_format(tmp_path)  # a folder
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    with pytest.raises(PolicyFileError, match="not a readable nashzoo agent file"):
        read_torch_file(junk)
    torch.save([1, 2], tmp_path / "list.pt")
    with pytest.raises(PolicyFileError, match="holds a list"):
        read_torch_file(tmp_path / "list.pt")


def test_agents_built_twice_from_one_file_play_alike(tmp_path, loads):
    from nashzoo.agents.nfsp import NFSP, NFSPConfig
    from nashzoo.eval.exploitability import exploitability
    from nashzoo.tree import compile_game

    game = KuhnPokerGame()
    learner = NFSP(game, NFSPConfig(seed=0, batch_games=8)).train(steps=2000)
    path = learner.save(tmp_path / "nfsp.pt")
    loads.clear()
    a, b = build_agent(str(path), game), build_agent(str(path), game)
    assert len(loads) == 1  # the spec reads the file's format, the learner its weights
    tree = compile_game(game)
    found = [exploitability(agent, tree).exploitability for agent in (learner.agent(), a, b)]
    assert found[0] == found[1] == found[2] < 0.458  # Kuhn's uniform policy: 0.458
