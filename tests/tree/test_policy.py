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
    probs = tree.uniform_probs()
    row = int(np.flatnonzero(~tree.legal_mask[:, 0])[0])  # fold illegal here
    probs[row] = [0.5, 0.5, 0.0]
    with pytest.raises(PolicyFileError, match=f"{tree.infoset_keys[row]}.*illegal actions"):
        TabularPolicy(tree, probs)


def test_corrupt_and_foreign_files(tmp_path):
    kuhn = TabularPolicy.uniform(KuhnPokerGame())
    path = kuhn.save(tmp_path / "kuhn.json")
    with pytest.raises(PolicyFileError, match="for kuhn_poker, not for leduc_holdem"):
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


def kuhn_json(tmp_path):
    path = TabularPolicy.uniform(KuhnPokerGame()).save(tmp_path / "kuhn.json")
    return path, path.read_text()


def test_duplicate_information_sets_are_refused(tmp_path):
    # Issue 11: the last of two rows for one information set silently won.
    path, text = kuhn_json(tmp_path)
    key = '"player=0 card=J history=": ['
    doubled = text.replace(key, key.replace(": [", ": [0.9, 0.1],\n  " + key[:-3] + ": ["), 1)
    path.write_text(doubled)
    with pytest.raises(PolicyFileError, match="the key 'player=0 card=J history=' appears more"):
        TabularPolicy.load(path)
    policy = TabularPolicy.uniform(KuhnPokerGame())
    keys = list(policy.keys)
    keys[1] = keys[0]
    header = {
        "format": "nashzoo.tabular_policy",
        "version": 1,
        "game": KuhnPokerGame().to_spec(),
        "num_actions": 2,
        "metadata": {},
    }
    np.savez(
        tmp_path / "dup.npz",
        header=np.array(json.dumps(header)),
        keys=np.array(keys),
        probs=policy.probs,
    )
    with pytest.raises(PolicyFileError, match="appears more than once"):
        TabularPolicy.load(tmp_path / "dup.npz")


@pytest.mark.parametrize("header", ["[1, 2]", "null", '"a string"', "3"])
def test_a_header_that_is_not_an_object_is_a_policy_error(tmp_path, header):
    # Issue 11: a list, null or string header raised AttributeError.
    path = tmp_path / "bad.json"
    path.write_text(header)
    with pytest.raises(PolicyFileError, match="holds an object|header"):
        TabularPolicy.load(path)
    npz = tmp_path / "bad.npz"
    np.savez(npz, header=np.array(header), keys=np.array(["k"]), probs=np.ones((1, 2)))
    with pytest.raises(PolicyFileError, match="the header is a"):
        TabularPolicy.load(npz)


def test_the_format_version_is_checked(tmp_path):
    path, text = kuhn_json(tmp_path)
    doc = json.loads(text)
    doc["version"] = 99
    path.write_text(json.dumps(doc))
    with pytest.raises(PolicyFileError, match="format version 99; this nashzoo reads version 1"):
        TabularPolicy.load(path)


def test_a_small_file_naming_a_huge_game_is_refused_at_once(tmp_path):
    # Issue 11: a 1 KB file naming a huge game took 39 s before GameTooLargeError.
    from nashzoo.errors import GameTooLargeError

    huge = {
        "type": "leduc_holdem",
        "params": {"num_ranks": 13, "num_suits": 4, "max_raises": 10, "num_rounds": 6},
    }
    path = tmp_path / "huge.json"
    path.write_text(
        json.dumps({"format": "nashzoo.tabular_policy", "version": 1, "game": huge, "infosets": {}})
    )
    assert path.stat().st_size < 1024
    with pytest.raises(GameTooLargeError, match="histories, far too many to enumerate"):
        TabularPolicy.load(path)
    path.write_text(
        json.dumps(
            {
                "format": "nashzoo.tabular_policy",
                "version": 1,
                "game": {"type": "kuhn_poker", "params": {"deck_size": 10**9}},
                "infosets": {},
            }
        )
    )
    with pytest.raises(PolicyFileError, match=r"deck_size.*must be in \[3, 100\]"):
        TabularPolicy.load(path)
