import json

import numpy as np
import pytest

from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.games import KuhnPokerGame, LeducHoldemGame
from nashzoo.tree import TabularPolicy, compile_game


def random_policy(tree, seed=0):
    rng = np.random.default_rng(seed)
    probs = rng.random(tree.legal_mask.shape) * tree.legal_mask
    return TabularPolicy(tree, probs / probs.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_save_load_round_trip(tmp_path, suffix):
    tree = compile_game(LeducHoldemGame())
    policy = random_policy(tree)
    policy.metadata["algorithm"] = "test"
    path = policy.save(tmp_path / f"p{suffix}")
    loaded = TabularPolicy.load(path)
    assert loaded.game == LeducHoldemGame()
    np.testing.assert_allclose(loaded.probs, policy.probs)
    assert loaded.metadata["algorithm"] == "test"
    key = tree.infoset_keys[5]
    np.testing.assert_allclose(loaded.action_probabilities(key), policy.probs[5])


def test_uniform_and_lookup_errors():
    policy = TabularPolicy.uniform(KuhnPokerGame())
    np.testing.assert_allclose(policy.action_probabilities("player=0 card=J history="), [0.5, 0.5])
    with pytest.raises(KeyError, match="not an information set"):
        policy.action_probabilities("player=0 card=A history=")
    with pytest.raises(InvalidParameterError, match="Game or GameTree"):
        TabularPolicy("kuhn")


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda p: p.__setitem__((3, 0), np.nan), "player=0 card=J history=pb.* NaN"),
        (lambda p: p.__setitem__((1, slice(None)), [1.5, -0.5]), "negative"),
        (lambda p: p.__setitem__((2, slice(None)), [0.2, 0.2]), "sums to 0.4"),
    ],
)
def test_bad_rows_name_the_first_bad_infoset(edit, match):
    tree = compile_game(KuhnPokerGame())
    probs = np.full(tree.legal_mask.shape, 0.5)
    edit(probs)
    with pytest.raises(PolicyFileError, match=match):
        TabularPolicy(tree, probs)


def test_mass_on_illegal_action():
    tree = compile_game(LeducHoldemGame())
    probs = tree.legal_mask / tree.legal_mask.sum(axis=1, keepdims=True)
    row = int(np.flatnonzero(~tree.legal_mask[:, 0])[0])  # fold illegal here
    probs[row] = [0.5, 0.5, 0.0]
    with pytest.raises(PolicyFileError, match=f"{tree.infoset_keys[row]}.*illegal actions"):
        TabularPolicy(tree, probs)


def test_corrupt_and_foreign_files(tmp_path):
    kuhn = TabularPolicy.uniform(KuhnPokerGame())
    path = kuhn.save(tmp_path / "kuhn.json")
    with pytest.raises(PolicyFileError, match="not for LeducHoldemGame"):
        TabularPolicy.load(path, game=LeducHoldemGame())
    doc = json.loads(path.read_text())
    doc["infosets"]["player=0 card=J history="] = [0.9, 0.9]
    path.write_text(json.dumps(doc))
    with pytest.raises(PolicyFileError, match=r"player=0 card=J history=.*sums to 1\.8"):
        TabularPolicy.load(path)
    del doc["infosets"]["player=0 card=J history="]
    path.write_text(json.dumps(doc))
    with pytest.raises(
        PolicyFileError, match=r"1 information set.* missing, first 'player=0 card=J"
    ):
        TabularPolicy.load(path)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="not a readable nashzoo policy file"):
        TabularPolicy.load(tmp_path / "junk.npz")
    with pytest.raises(FileNotFoundError):
        TabularPolicy.load(tmp_path / "missing.npz")
    with pytest.raises(InvalidParameterError, match=r"\.npz or \.json"):
        kuhn.save(tmp_path / "x.txt")
