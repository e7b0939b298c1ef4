"""The networks of A-ISMCTS and Nash-ISMCTS (torch extra).

One multilayer perceptron reads a player's information-state tensor at a view and
answers with five heads (``docs/explanation/nash-ismcts.md``, "A-ISMCTS"), all for that player:

* ``policy``: logits of P over the actions (masked to the legal ones at information sets);
* ``value``: V in [-1, 1] (tanh), the scaled payoff;
* ``child_value``: V_c, the value after each action (first-play urgency);
* ``belief``: logits of H over the world ids (masked to the view's worlds);
* ``world_value``: V_w, the value of each world.

On games small enough to compile, :func:`tabulate` evaluates the network once on every
view (one batch) and returns :class:`~nashzoo.agents.ismcts.tables.SearchTables`, which
is all the search reads.

On games too big to compile, the worlds cannot be numbered in advance (Limit Hold'em's
1,326 opposing hole-card pairs, the fighting game's hands), so :class:`EmbeddingNetwork`
scores a world by its value's features instead of by an output unit: a small encoder
embeds the opponent's private value (``Game.hidden_value_features``), and the view's
torso emits two query vectors; H's logit of a world is the dot product of its embedding
with the first, V_w the tanh of its dot product with the second (plus a bias). One
evaluation per view then answers for any number of worlds
(:class:`~nashzoo.agents.ismcts.knowledge.NetworkKnowledge`).

An :class:`EmbeddingNetwork` whose shape names a card abstraction (``strength``, heads-up Limit
Hold'em) reads the tensor and, after it, the hand-strength columns of
:class:`~nashzoo.abstraction.features.HoldemStrengthColumns`: which of the 1,326 hole-card
pairs and the boards make a strong hand, which the one-hots leave to be learned from play.
Every view reaches the network through :meth:`EmbeddingNetwork.dense`. A shape with
``cards=False`` also zeroes the tensor's card one-hots, so the torso reads the seat, the
betting and the strength columns only: a network fitted to a few thousand self-play
outcomes can then not tell one deal from another and memorize its payoff.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from nashzoo.agents.ismcts.tables import SearchTables
from nashzoo.errors import InvalidParameterError
from nashzoo.extras import require
from nashzoo.tree.views import ViewTable

__all__ = [
    "NetworkShape",
    "SearchNetwork",
    "EmbeddingNetworkShape",
    "EmbeddingNetwork",
    "strength_columns",
    "tabulate",
    "masked_log_softmax",
    "ParameterAverage",
]

torch = require("torch", "torch", "Nash-ISMCTS networks")
nn = torch.nn


class _ShapeDict:
    """``to_dict``/``from_dict`` of a frozen shape dataclass whose ``hidden_sizes`` is a
    tuple (a list in the dict, as JSON and torch files hold it)."""

    hidden_sizes: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)  # type: ignore[call-overload]
        d["hidden_sizes"] = list(self.hidden_sizes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Any:
        return cls(**{**d, "hidden_sizes": tuple(d["hidden_sizes"])})


def _torso(input_size: int, hidden_sizes: tuple[int, ...]) -> tuple[Any, int]:
    """The ReLU torso and its output width.

    Raises:
        InvalidParameterError: a width below 1, or none.
    """
    if not hidden_sizes or any(h < 1 for h in hidden_sizes):
        raise InvalidParameterError(
            f"hidden_sizes must be positive widths, received {hidden_sizes}."
        )
    layers: list[Any] = []
    width = input_size
    for h in hidden_sizes:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers), width


@dataclass(frozen=True)
class NetworkShape(_ShapeDict):
    """Sizes of a :class:`SearchNetwork` (saved with it).

    Attributes:
        input_size: information-state tensor length.
        num_actions: the game's ``num_distinct_actions``.
        num_worlds: the view table's world ids.
        hidden_sizes: widths of the ReLU torso.
    """

    input_size: int
    num_actions: int
    num_worlds: int
    hidden_sizes: tuple[int, ...] = (128, 128)

    @classmethod
    def for_views(
        cls, views: ViewTable, hidden_sizes: tuple[int, ...] = (128, 128)
    ) -> NetworkShape:
        return cls(
            input_size=int(views.view_tensor.shape[1]),
            num_actions=int(views.tree.num_actions),
            num_worlds=views.num_worlds,
            hidden_sizes=tuple(int(h) for h in hidden_sizes),
        )


class SearchNetwork(torch.nn.Module):  # type: ignore[name-defined]
    """P, V, V_c, H and V_w from one torso (see the module docstring)."""

    def __init__(self, shape: NetworkShape) -> None:
        super().__init__()
        self.shape = shape
        self.torso, width = _torso(shape.input_size, shape.hidden_sizes)
        self.policy = nn.Linear(width, shape.num_actions)
        self.value = nn.Linear(width, 1)
        self.child_value = nn.Linear(width, shape.num_actions)
        self.belief = nn.Linear(width, shape.num_worlds)
        self.world_value = nn.Linear(width, shape.num_worlds)

    def forward(self, x: Any) -> dict[str, Any]:
        z = self.torso(x)
        return {
            "policy": self.policy(z),
            "value": torch.tanh(self.value(z)).squeeze(-1),
            "child_value": torch.tanh(self.child_value(z)),
            "belief": self.belief(z),
            "world_value": torch.tanh(self.world_value(z)),
        }


_STRENGTH: dict[tuple[str, str], Any] = {}


def _strength_key(game: Any, abstraction: str) -> tuple[str, str]:
    """Where :func:`strength_columns` keeps the columns of ``game`` and ``abstraction``."""
    return (json.dumps(game.to_spec(), sort_keys=True), str(abstraction))


def strength_columns(game: Any, abstraction: str, *, progress: bool = False) -> Any:
    """The :class:`~nashzoo.abstraction.features.HoldemStrengthColumns` of ``game`` and
    ``abstraction``, one per process (its tables are loaded, or built once per machine,
    on first use; the networks of a process share it).

    Raises:
        InvalidParameterError: not heads-up Limit Hold'em, or not an ``ehs``/``ehs2``
            abstraction with four counts (naming what was received).
    """
    from nashzoo.abstraction.features import HoldemStrengthColumns

    key = _strength_key(game, abstraction)
    found = _STRENGTH.get(key)
    if found is None:
        try:
            # partial: the search evaluates views between two chance outcomes too
            found = HoldemStrengthColumns(game, abstraction, progress=progress, partial=True)
        except InvalidParameterError as exc:
            raise InvalidParameterError(
                f"Hand-strength inputs need heads-up Limit Hold'em and Hold'em buckets: {exc}"
            ) from None
        _STRENGTH[key] = found
    return found


@dataclass(frozen=True)
class EmbeddingNetworkShape(_ShapeDict):
    """Sizes of an :class:`EmbeddingNetwork` (saved with it).

    Attributes:
        input_size: information-state tensor length.
        num_actions: the game's ``num_distinct_actions``.
        feature_size: width of ``Game.hidden_value_features``.
        embed_size: width of a world's embedding and of each query vector.
        hidden_sizes: widths of the ReLU torso.
        strength: the card abstraction whose hand-strength columns the torso reads after
            the tensor (``"ehs2:169,50,50,50"``; heads-up Limit Hold'em), or ``""``:
            the tensor alone.
        cards: whether the torso reads the tensor's card one-hots; ``False`` (only with
            ``strength``) zeroes them, so the cards reach the torso as strengths alone.

    Raises:
        InvalidParameterError: ``cards`` is ``False`` without ``strength``.
    """

    input_size: int
    num_actions: int
    feature_size: int
    embed_size: int = 64
    hidden_sizes: tuple[int, ...] = (256, 256)
    strength: str = ""
    cards: bool = True

    def __post_init__(self) -> None:
        if not self.cards and not self.strength:
            raise InvalidParameterError(
                "A network without the card one-hots (cards=False) reads the cards through "
                "the hand-strength columns; its shape needs a strength abstraction, "
                "received strength=''."
            )

    @property
    def torso_input(self) -> int:
        """Width of what the torso reads: the tensor, and the strength columns if any."""
        if not self.strength:
            return self.input_size
        from nashzoo.abstraction.features import HoldemStrengthColumns

        return self.input_size + HoldemStrengthColumns.width

    @classmethod
    def for_game(
        cls,
        game: Any,
        *,
        embed_size: int = 64,
        hidden_sizes: tuple[int, ...] = (256, 256),
        strength: str = "",
        cards: bool = True,
    ) -> EmbeddingNetworkShape:
        """The shape for ``game``.

        Raises:
            InvalidParameterError: the game does not name its hidden values
                (``hidden_value_features`` returns ``None``), ``strength`` is set and
                the game is not heads-up Limit Hold'em or the abstraction is not one
                Hold'em buckets take, or ``cards`` is ``False`` without ``strength``
                (the network would read no cards at all).
        """
        features = game.hidden_value_features([])
        if features is None:
            raise InvalidParameterError(
                f"{game} does not list its hidden information (State.hidden_worlds and "
                "Game.hidden_value_features); a search network over the rules needs both."
            )
        if strength:
            strength_columns(game, strength, progress=True)  # checks it, builds the tables
        return cls(
            input_size=int(game.information_state_tensor_size),
            num_actions=int(game.num_distinct_actions),
            feature_size=int(features.shape[1]),
            embed_size=int(embed_size),
            hidden_sizes=tuple(int(h) for h in hidden_sizes),
            strength=str(strength),
            cards=bool(cards),
        )


class EmbeddingNetwork(torch.nn.Module):  # type: ignore[name-defined]
    """P, V, V_c and the two world queries from one torso, and the world encoder (see
    the module docstring).

    ``forward(x)`` returns ``policy`` logits, ``value``, ``child_value`` and ``query``
    (``2 * embed_size + 1``: H's query, V_w's query, V_w's bias); :meth:`encode` embeds
    value features; :meth:`world_scores` combines the two. :meth:`dense` builds ``x``.

    Args:
        shape: the sizes.
        game: the game whose views it reads; needed where ``shape.strength`` is set (the
            columns are computed from its cards).

    Raises:
        InvalidParameterError: ``embed_size`` below 1, or a ``strength`` shape without
            a game.
    """

    def __init__(self, shape: EmbeddingNetworkShape, game: Any = None) -> None:
        super().__init__()
        if shape.embed_size < 1:
            raise InvalidParameterError(f"embed_size must be >= 1, received {shape.embed_size}.")
        if shape.strength and game is None:
            raise InvalidParameterError(
                f"A network with hand-strength inputs ({shape.strength!r}) needs its game to "
                "compute them, received game=None."
            )
        self.shape = shape
        # the columns live in a per-process table (strength_columns), not in the module,
        # so copies of the network (the parameter average) share them
        self._strength_game = game
        self._strength_key = _strength_key(game, shape.strength) if shape.strength else None
        # the tensor's cards: after the seat one-hot, up to the betting (the poker engine's
        # layout, the only one strength columns read)
        self._card_columns = (
            slice(int(game.num_players), int(game.actions_offset)) if not shape.cards else None
        )
        self.torso, width = _torso(shape.torso_input, shape.hidden_sizes)
        self.policy = nn.Linear(width, shape.num_actions)
        self.value = nn.Linear(width, 1)
        self.child_value = nn.Linear(width, shape.num_actions)
        self.query = nn.Linear(width, 2 * shape.embed_size + 1)
        d = shape.embed_size
        self.encoder = nn.Sequential(nn.Linear(shape.feature_size, d), nn.ReLU(), nn.Linear(d, d))

    def dense(self, rows: Sequence[Any]) -> Any:
        """The input ``x`` (a float32 tensor) for views given as their information-state
        tensors' active indices (``State.information_state_indices``): the one-hots, then
        the hand-strength columns where the shape names an abstraction."""
        from nashzoo.games.observation import indices_tensors

        return self.features(indices_tensors(rows, self.shape.input_size))

    def features(self, tensors: np.ndarray) -> Any:
        """The input ``x`` (a float32 tensor) for views given as information-state
        tensors (rows of ``input_size``): the rows, then the hand-strength columns where
        the shape names an abstraction."""
        x = np.asarray(tensors, dtype=np.float32)
        if self._strength_key is not None:
            # the key was worked out once, in __init__: a forward pass only looks it up
            columns = _STRENGTH.get(self._strength_key)
            if columns is None:
                columns = strength_columns(self._strength_game, self.shape.strength)
            x = np.concatenate([x, columns(x)], axis=1)
            if self._card_columns is not None:  # the strengths are read: the one-hots go
                x[:, self._card_columns] = 0.0
        return torch.from_numpy(np.ascontiguousarray(x)).to(device_of(self))

    def forward(self, x: Any) -> dict[str, Any]:
        z = self.torso(x)
        return {
            "policy": self.policy(z),
            "value": torch.tanh(self.value(z)).squeeze(-1),
            "child_value": torch.tanh(self.child_value(z)),
            "query": self.query(z),
        }

    def policy_logits(self, x: Any) -> Any:
        """P's logits alone (the torso and the policy head: :meth:`forward`'s
        ``"policy"`` without the other heads)."""
        return self.policy(self.torso(x))

    def encode(self, features: Any) -> Any:
        """World embeddings of value features (``(..., feature_size)``)."""
        return self.encoder(features)

    def world_scores(self, query: Any, embedded: Any) -> tuple[Any, Any]:
        """H's logits and V_w for worlds ``embedded`` (``(B, K, d)``) at views with
        ``query`` (``(B, 2d + 1)``): ``(B, K)`` each."""
        d = self.shape.embed_size
        logits = (embedded * query[:, None, :d]).sum(-1)
        values = torch.tanh((embedded * query[:, None, d : 2 * d]).sum(-1) + query[:, 2 * d :])
        return logits, values

    def encoder_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The encoder's weights as float64 arrays ``(w1, b1, w2, b2)`` (``x @ w1``)."""
        first, second = self.encoder[0], self.encoder[2]
        with torch.no_grad():
            return (
                first.weight.double().cpu().numpy().T.copy(),
                first.bias.double().cpu().numpy().copy(),
                second.weight.double().cpu().numpy().T.copy(),
                second.bias.double().cpu().numpy().copy(),
            )

    def check_game(self, game: Any) -> None:
        """Raise unless this network's shape fits ``game``.

        Raises:
            InvalidParameterError: naming both shapes.
        """
        want = EmbeddingNetworkShape.for_game(
            game,
            embed_size=self.shape.embed_size,
            hidden_sizes=self.shape.hidden_sizes,
            strength=self.shape.strength,
            cards=self.shape.cards,
        )
        if want != self.shape:
            raise InvalidParameterError(
                f"This network's shape {self.shape.to_dict()} does not fit {game}, which "
                f"needs {want.to_dict()}."
            )


def device_of(net: Any) -> Any:
    """The ``torch.device`` ``net``'s parameters are on (the learner's ``device``; its
    inputs go there, its outputs come back to the CPU)."""
    return next(net.parameters()).device


def masked_log_softmax(logits: Any, mask: Any) -> Any:
    """``log_softmax`` over the entries where ``mask`` is true (-inf elsewhere)."""
    return torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)


class ParameterAverage:
    """An exponential moving average of a network's parameters, one update per
    generation (``TrainConfig.average_decay``).

    Self-play keeps training and playing the current network; the trained agent plays
    this average, which smooths the generation-to-generation swings of self-play's fixed
    point the way averaging a learner's iterates does. The first updates use the smaller
    decay ``(1 + n) / (10 + n)`` (``n`` updates so far), so the average follows the
    network early instead of remembering its random start.

    Args:
        network: the network being trained (copied; the copy is the average).
        decay: the weight the average keeps at each update, in [0, 1).
    """

    def __init__(self, network: Any, decay: float) -> None:
        if not 0.0 <= decay < 1.0:
            raise InvalidParameterError(f"decay must be in [0, 1), received {decay!r}.")
        self.decay = float(decay)
        self.updates = 0
        self.network = copy.deepcopy(network).eval()
        for parameter in self.network.parameters():
            parameter.requires_grad_(False)

    def update(self, network: Any) -> None:
        """Move the average toward ``network``'s parameters (buffers are copied)."""
        self.updates += 1
        keep = min(self.decay, (1.0 + self.updates) / (10.0 + self.updates))
        with torch.no_grad():
            mine = self.network.state_dict()
            for name, value in network.state_dict().items():
                if value.is_floating_point():
                    mine[name].mul_(keep).add_(value, alpha=1.0 - keep)
                else:
                    mine[name].copy_(value)

    def state(self) -> dict[str, Any]:
        """What a file keeps to resume the average exactly."""
        return {"state": self.network.state_dict(), "updates": self.updates}

    def restore(self, state: dict[str, Any]) -> None:
        """Undo :meth:`state`."""
        self.network.load_state_dict(state["state"])
        self.updates = int(state["updates"])


def tabulate(net: SearchNetwork, views: ViewTable, *, source: str = "network") -> SearchTables:
    """Evaluate ``net`` on every view of the game at once, on its device: the search's
    tables (float64 arrays on the CPU)."""
    tree = views.tree
    device = device_of(net)

    def on(array: np.ndarray) -> Any:
        return torch.from_numpy(array).to(device)

    with torch.no_grad():
        out = net(on(np.array(views.view_tensor, dtype=np.float32)))
        sets = on(views.infoset_view.astype(np.int64))
        legal = on(np.array(tree.legal_mask))
        prior = masked_log_softmax(out["policy"][sets], legal).exp()
        child = out["child_value"][sets].masked_fill(~legal, 0.0)
        wmask = on(views.view_world_mask.copy())
        belief = masked_log_softmax(out["belief"], wmask).exp()
        world = out["world_value"].masked_fill(~wmask, 0.0)
    return SearchTables(
        views=views,
        prior=prior.double().cpu().numpy(),
        child_value=child.double().cpu().numpy(),
        view_value=out["value"].double().cpu().numpy(),
        belief=belief.double().cpu().numpy(),
        world_value=world.double().cpu().numpy(),
        source=source,
    )
