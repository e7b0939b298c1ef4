"""Tabular behaviour policies over a compiled game (OpenSpiel's ``TabularPolicy`` idea).

A :class:`TabularPolicy` is an ``(num_infosets, num_actions)`` probability array whose rows
follow :class:`~nashzoo.tree.GameTree`'s information sets, with the legal mask and the
information-state string -> row map. It saves to ``.npz`` or ``.json`` with the game's
type and parameters embedded, and loading validates everything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.extras import temporary_sibling
from nashzoo.games import Game, load_game
from nashzoo.tree.compile import GameTree, compile_game

__all__ = ["TabularPolicy", "FORMAT_NAME", "tree_of", "seat_profiles"]

FORMAT_NAME = "nashzoo.tabular_policy"
FORMAT_VERSION = 1
_TOL = 1e-6


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: refuse objects with a repeated key (the last would win)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears more than once")
        out[key] = value
    return out


def _rows_by_key(tree: GameTree, keys: list[str], rows: Any, where: str) -> np.ndarray:
    """The ``(num_infosets, num_actions)`` array of ``rows`` keyed by ``keys``, which must
    name every information set of ``tree`` exactly once (errors name ``where``)."""
    game = tree.game
    try:
        arr = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise PolicyFileError(f"{where}: policy rows are not numeric ({exc}).") from exc
    if arr.ndim != 2 or arr.shape[1] != tree.num_actions or len(keys) != arr.shape[0]:
        raise PolicyFileError(
            f"{where}: policy table has shape {arr.shape} for {len(keys)} keys; expected "
            f"(n, {tree.num_actions})."
        )
    unknown = [k for k in keys if k not in tree.infoset_index]
    if unknown:
        raise PolicyFileError(
            f"{where}: {len(unknown)} information set(s) not in {game}, first {unknown[0]!r}."
        )
    missing = set(tree.infoset_keys) - set(keys)
    if missing:
        first = next(k for k in tree.infoset_keys if k in missing)
        raise PolicyFileError(
            f"{where}: {len(missing)} information set(s) of {game} missing, first {first!r}."
        )
    probs = np.zeros(tree.legal_mask.shape)
    probs[[tree.infoset_index[k] for k in keys]] = arr
    return probs


def tree_of(game_or_tree: Game | GameTree) -> GameTree:
    """A compiled tree as given, or the game compiled (cached).

    Raises:
        InvalidParameterError: neither a Game nor a GameTree.
        GameTooLargeError: the game does not compile.
    """
    if isinstance(game_or_tree, GameTree):
        return game_or_tree
    if isinstance(game_or_tree, Game):
        return compile_game(game_or_tree)
    raise InvalidParameterError(
        f"Expected a nashzoo Game or GameTree, received {type(game_or_tree).__name__}."
    )


def seat_profiles(
    tree: GameTree, probs_a: np.ndarray, probs_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The two seatings of a duplicate match as behaviour profiles: A in seat 0 with B in
    seat 1, then B in seat 0 with A in seat 1 (``probs_*``: each agent's rows for every
    information set)."""
    seat0 = (tree.infoset_player == 0)[:, None]
    return np.where(seat0, probs_a, probs_b), np.where(seat0, probs_b, probs_a)


class TabularPolicy:
    """A behaviour policy for every player, one row per information set.

    Args:
        game_or_tree: the game (compiled on the spot) or its :class:`GameTree`.
        probs: ``(num_infosets, num_actions)`` probabilities; ``None`` gives the uniform
            policy over legal actions. Copied and validated.
        metadata: free-form JSON-able facts saved with the policy (algorithm, iterations...).

    Raises:
        PolicyFileError: ``probs`` has the wrong shape, NaN, negative entries, mass on
            illegal actions or rows that do not sum to 1 (the first bad set is named).

    ``probs`` is the policy's own array: mutate it only if you mean to change the policy.
    Solvers hand out fresh snapshots, never their working arrays.
    """

    def __init__(
        self,
        game_or_tree: Game | GameTree,
        probs: np.ndarray | None = None,
        *,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.tree = tree_of(game_or_tree)
        if probs is None:
            probs = self.tree.uniform_probs()
        self.probs = np.array(probs, dtype=np.float64, copy=True)
        self.metadata = dict(metadata or {})
        self.validate()

    # -- construction -------------------------------------------------------------------
    @classmethod
    def uniform(cls, game_or_tree: Game | GameTree) -> TabularPolicy:
        """Uniform over the legal actions at every information set."""
        return cls(game_or_tree)

    @classmethod
    def from_table(
        cls,
        game_or_tree: Game | GameTree,
        table: dict[str, Any],
        *,
        metadata: dict[str, Any] | None = None,
    ) -> TabularPolicy:
        """A policy from ``{information-state string: probabilities over all actions}``
        naming every information set once (e.g. :func:`nashzoo.games.kuhn.kuhn_equilibrium`).

        Raises:
            PolicyFileError: unknown or missing information sets, or rows that are not
                distributions over the legal actions.
        """
        tree = tree_of(game_or_tree)
        if not isinstance(table, dict):
            raise PolicyFileError(
                f"Expected a dict from information-state strings to probabilities, received "
                f"{type(table).__name__}."
            )
        keys = list(table)
        probs = _rows_by_key(tree, keys, [table[k] for k in keys], "the table")
        return cls(tree, probs, metadata=metadata)

    @classmethod
    def from_agent(cls, agent: Any, game_or_tree: Game | GameTree) -> TabularPolicy:
        """Query a PolicyAgent's ``action_probabilities`` once at every information set.

        The agent sees exactly what the env and the match engine would show it there
        (:meth:`GameTree.agent_inputs`): the observation dict and the full agent info.

        Raises:
            InvalidParameterError: the agent has no ``action_probabilities``.
            PolicyFileError: an answer has the wrong shape, or is not a distribution over
                the legal actions (the set is named).
        """
        if not callable(getattr(agent, "action_probabilities", None)):
            raise InvalidParameterError(
                f"{type(agent).__name__} has no action_probabilities(observation, info); "
                "exact evaluation needs a PolicyAgent."
            )
        tree = tree_of(game_or_tree)
        probs = np.zeros(tree.legal_mask.shape)
        for i, key in enumerate(tree.infoset_keys):
            obs, info = tree.agent_inputs(i)
            row = np.asarray(agent.action_probabilities(obs, info), dtype=np.float64)
            if row.shape != (tree.num_actions,):
                raise PolicyFileError(
                    f"{type(agent).__name__}.action_probabilities returned shape {row.shape} "
                    f"at {key!r}; expected ({tree.num_actions},)."
                )
            probs[i] = row
        return cls(tree, probs, metadata={"source": repr(agent)})

    # -- queries ------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.tree.game

    @property
    def keys(self) -> tuple[str, ...]:
        """Information-state strings, one per row."""
        return self.tree.infoset_keys

    @property
    def legal_mask(self) -> np.ndarray:
        return self.tree.legal_mask

    def index(self, info_state: str) -> int:
        """Row of ``info_state``.

        Raises:
            KeyError: not an information set of this game (message names it).
        """
        try:
            return self.tree.infoset_index[info_state]
        except KeyError:
            raise KeyError(f"{info_state!r} is not an information set of {self.game}") from None

    def action_probabilities(self, info_state: str) -> np.ndarray:
        """Distribution over all actions at ``info_state`` (a copy)."""
        row: np.ndarray = self.probs[self.index(info_state)].copy()
        return row

    def copy(self) -> TabularPolicy:
        return TabularPolicy(self.tree, self.probs, metadata=self.metadata)

    def validate(self) -> None:
        """Check shape and that every row is a distribution over its legal actions.

        Raises:
            PolicyFileError: naming the first bad information set.
        """
        mask = self.tree.legal_mask
        probs = self.probs
        if probs.shape != mask.shape:
            raise PolicyFileError(
                f"Policy array has shape {probs.shape}; {self.game} needs {mask.shape} "
                "(information sets x actions)."
            )
        bad_rows = (
            ~np.isfinite(probs).all(axis=1)
            | (probs < -_TOL).any(axis=1)
            | (np.abs(np.where(mask, 0.0, probs)) > _TOL).any(axis=1)
            | (np.abs(probs.sum(axis=1) - 1.0) > _TOL)
        )
        if bad_rows.any():
            i = int(np.flatnonzero(bad_rows)[0])
            row = probs[i]
            if not np.isfinite(row).all():
                why = "contains NaN or infinity"
            elif (row < -_TOL).any():
                why = "has negative probabilities"
            elif (np.abs(np.where(mask[i], 0.0, row)) > _TOL).any():
                why = f"puts mass on illegal actions (legal: {np.flatnonzero(mask[i]).tolist()})"
            else:
                why = f"sums to {row.sum():.6g}, not 1"
            raise PolicyFileError(
                f"Information set {self.keys[i]!r} (row {i}) {why}: {row.tolist()}. "
                f"{int(bad_rows.sum())} bad row(s) in all."
            )
        np.clip(self.probs, 0.0, None, out=self.probs)

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path, *, arrays: Mapping[str, np.ndarray] | None = None) -> Path:
        """Write ``.npz`` (compact) or ``.json`` (readable), chosen by the suffix.

        The file embeds the game type and parameters; :meth:`load` rebuilds the game.

        Args:
            path: where to write.
            arrays: more named arrays to store beside the policy (``.npz`` only; a
                learner's state, read back by the learner; :meth:`load` ignores them).
        """
        path = Path(path)
        extra = dict(arrays or {})
        if extra and path.suffix != ".npz":
            raise InvalidParameterError(f"Extra arrays need an .npz file, received {path.name!r}.")
        taken = sorted(set(extra) & {"header", "keys", "probs"})
        if taken:
            raise InvalidParameterError(f"Extra array names {taken} are the policy's own.")
        header = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "game": self.game.to_spec(),
            "num_actions": self.tree.num_actions,
            "metadata": self.metadata,
        }
        if path.suffix == ".json":
            doc = dict(header, infosets={k: row.tolist() for k, row in zip(self.keys, self.probs)})
            tmp = temporary_sibling(path)
            tmp.write_text(json.dumps(doc, indent=1))
            tmp.replace(path)
        elif path.suffix == ".npz":
            tmp = temporary_sibling(path)
            np.savez_compressed(
                tmp,
                header=np.array(json.dumps(header)),
                keys=np.array(self.keys, dtype=str),
                probs=self.probs,
                **extra,  # type: ignore[arg-type]
            )
            tmp.replace(path)
        else:
            raise InvalidParameterError(
                f"Policy files end in .npz or .json, received {path.name!r}."
            )
        return path

    @classmethod
    def load(cls, path: str | Path, game: Game | None = None) -> TabularPolicy:
        """Read a file written by :meth:`save`.

        Args:
            path: ``.npz`` or ``.json`` file.
            game: if given, the file must be for this game.

        Raises:
            PolicyFileError: unreadable or corrupt file, a header that is not an object,
                another format version, another game, duplicate, missing or unknown
                information sets, or rows that are not distributions (first bad set named).
            GameTooLargeError: the file names a game too large to compile (refused before
                any work, from the game's parameters).
            FileNotFoundError: no such file.
        """
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"No policy file at {path}")
        # any parse failure means a corrupt file
        with PolicyFileError.reading(path, "nashzoo policy"):
            if path.suffix == ".json":
                doc = json.loads(path.read_text(), object_pairs_hook=_no_duplicates)
                if not isinstance(doc, dict):
                    raise PolicyFileError(
                        f"{path}: a JSON policy file holds an object, found {type(doc).__name__}."
                    )
                header = doc
                table = doc.get("infosets")
                if not isinstance(table, dict):
                    raise PolicyFileError(
                        f"{path}: 'infosets' must map information-state strings to lists of "
                        f"probabilities, found {type(table).__name__}."
                    )
                keys = list(table)
                rows: Any = [table[k] for k in keys]
            elif path.suffix == ".npz":
                with np.load(path, allow_pickle=False) as data:
                    header = json.loads(str(data["header"]))
                    keys = [str(k) for k in data["keys"]]
                    rows = data["probs"]
            else:
                raise PolicyFileError(f"Policy files end in .npz or .json, received {path.name!r}.")
        if not isinstance(header, dict):
            raise PolicyFileError(
                f"{path}: the header is a {type(header).__name__}; expected a JSON object with "
                f"'format', 'version' and 'game'."
            )
        if header.get("format") != FORMAT_NAME:
            raise PolicyFileError(
                f"{path} has format {header.get('format')!r}; expected {FORMAT_NAME!r}."
            )
        version = header.get("version")
        if version != FORMAT_VERSION:
            raise PolicyFileError(
                f"{path} has format version {version!r}; this nashzoo reads version "
                f"{FORMAT_VERSION} (upgrade nashzoo to read newer files)."
            )
        try:
            file_game = load_game(header.get("game"))  # type: ignore[arg-type]
        except InvalidParameterError as exc:
            raise PolicyFileError(f"{path}: the game it names is invalid: {exc}") from exc
        if game is not None and file_game != game:
            raise PolicyFileError(f"{path} holds a policy for {file_game}, not for {game}.")
        if len(set(keys)) != len(keys):
            seen: set[str] = set()
            dup = next(k for k in keys if k in seen or seen.add(k))  # type: ignore[func-returns-value]
            raise PolicyFileError(f"{path}: information set {dup!r} appears more than once.")
        tree = compile_game(file_game)  # refuses huge games at once (GameTooLargeError)
        probs = _rows_by_key(tree, keys, rows, str(path))
        metadata = header.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise PolicyFileError(f"{path}: 'metadata' must be an object, found {metadata!r}.")
        return cls(tree, probs, metadata=metadata)

    def __repr__(self) -> str:
        return f"TabularPolicy({self.game}, {self.tree.num_infosets} information sets)"
