"""V for a search on a blueprint: a value network fitted to the blueprint's own play.

A search on a blueprint's P (``nash-ismcts:BUDGET+SPEC``) needs a value wherever its
simulations stop before the end of a hand. With none, every history that goes on is
worth 0 while a fold is a known loss, and on Limit Hold'em such a search almost never
folds (the Nash-ISMCTS explanation page has the measurement). The field's recipe for
combining a blueprint with search (DeepStack's and Libratus' leaf values, Brown,
Sandholm & Amos 2018's continuation values) is a value of each history *under the
blueprint's play*. This module learns one for heads-up poker on the 52-card deck:

1. **Data.** The blueprint plays ``hands`` hands against itself over the rules (its
   probabilities asked at each view, as in a match; chance drawn from a seeded
   generator). Every history after the hole cards are dealt is kept with the hand's
   payoff to player 0: an unbiased sample of that history's value when both players
   follow the blueprint.
2. **Features** of a history seen by player ``p`` (both hands known, as at a world of a
   search): ``p``'s check-down equity ``e`` (its expected showdown result over the
   cards to come, :func:`~nashzoo.vector.hands.checkdown_signs`), the stake a call would
   make (capped by the shorter stack), ``e`` times the stake, each player's chips in,
   the betting round, and who acts next. Payoffs and chips are divided by the game's
   largest payoff.
3. **Network.** ``v_p(x) = (g(x_p) - g(x_q)) / 2``, an MLP ``g`` read from both
   players' sides: the two values sum to 0 by construction (the game is zero-sum). It is
   fitted to the payoffs by least squares (Adam), a tenth of the hands held out.

:meth:`BlueprintValues.values` answers many worlds of one view at once (the search asks
every world's value at each new node: 1,225 on Limit Hold'em); the equities of a view are
computed once per hole cards and board and kept. The check-down equity on a board with
two or more cards to come is the mean over ``samples`` completions (the same draws for
the same cards), in training and in search alike.

:class:`~nashzoo.agents.ismcts.knowledge.PolicyKnowledge` takes a :class:`BlueprintValues`
(``values=``) for its V, V_c, V_w and history values; the agent spec is
``nash-ismcts:BUDGET+SPEC+VALUES.pt``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError, PolicyFileError
from nashzoo.games.base import Game, State
from nashzoo.validation import Config, check_int, integer, number, seed_field

__all__ = ["BlueprintValuesConfig", "BlueprintValues", "train_blueprint_values", "FORMAT"]

FORMAT = "nashzoo.blueprint_values"
"""The ``format`` entry of a :class:`BlueprintValues` file."""


@dataclass(frozen=True)
class BlueprintValuesConfig(Config):
    """Settings of :func:`train_blueprint_values`.

    Attributes:
        hands: hands the blueprint plays against itself; each history after the deal
            is a training row.
        hidden: width of the MLP's hidden layers.
        layers: hidden layers.
        epochs: passes over the training rows.
        batch_size: rows per Adam step.
        lr: Adam's learning rate.
        samples: completions of the board over which a check-down equity is averaged
            where two or more cards are to come (exact where one is).
        seed: seeds the deals, the blueprint's draws, the split and the network.
    """

    hands: int = integer(20_000, low=10)
    hidden: int = integer(64, low=1)
    layers: int = integer(2, low=1)
    epochs: int = integer(20, low=1)
    batch_size: int = integer(1024, low=1)
    lr: float = number(1e-3, low=0.0, low_inclusive=False)
    samples: int = integer(64, low=1)
    seed: int | None = seed_field(0)


def _check_game(game: Game) -> Any:
    """The game as heads-up poker on the 52-card deck with hands of 5 to 7 cards."""
    from nashzoo.vector.hands import check_heads_up_hands

    return check_heads_up_hands(game, "Blueprint values")


class _Features:
    """The feature rows of histories (see the module docstring), both players' sides."""

    def __init__(self, game: Any, samples: int) -> None:
        d = game.definition
        self.hole = int(d.num_hole_cards)
        self.board = int(sum(d.num_board_cards))
        self.rounds = int(d.num_rounds)
        self.cap = float(min(d.stacks))
        self.scale = float(game.max_payoff_magnitude) or 1.0
        self.samples = int(samples)
        self.size = 7 + self.rounds
        # player 0's equity over every opponent hand of one view: (p, own, board) ->
        # (opponent hand -> row, equities of player p)
        self._views: dict[tuple[int, tuple[int, ...], tuple[int, ...]], Any] = {}
        self._rows: dict[tuple[int, ...], float] = {}  # one history's cards -> equity

    def row_equities(self, rows: Sequence[tuple[int, ...]]) -> np.ndarray:
        """:meth:`equities` of single histories (a chance node's children), each row
        computed once and kept."""
        missing = [r for r in dict.fromkeys(rows) if r not in self._rows]
        if missing:
            if len(self._rows) + len(missing) > 200_000:
                self._rows.clear()
            self._rows.update(zip(missing, self.equities(missing).tolist()))
        return np.array([self._rows[r] for r in rows], dtype=np.float64)

    def equities(self, rows: Sequence[Sequence[int]]) -> np.ndarray:
        """Player 0's check-down equity of each row of dealt cards (seat order)."""
        from nashzoo.vector.hands import checkdown_signs

        return checkdown_signs(
            [list(r) for r in rows],
            self.hole,
            self.board,
            samples=self.samples,
            seed=0,
            exact_missing=1,
        )

    def view_equities(
        self, player: int, own: tuple[int, ...], board: tuple[int, ...], hands: Sequence[Any]
    ) -> np.ndarray:
        """``player``'s equity, holding ``own`` on ``board``, against each of ``hands``
        (the opponent's hole cards): every hand of the view computed once and kept."""
        key = (player, own, board)
        found = self._views.get(key)
        if found is None:
            import itertools

            seen = set(own) | set(board)
            free = [c for c in range(52) if c not in seen]
            every = list(itertools.combinations(free, self.hole))
            rows = [(*own, *h, *board) if player == 0 else (*h, *own, *board) for h in every]
            e = self.equities(rows)
            if player == 1:
                e = -e
            if len(self._views) >= 256:
                self._views.clear()
            found = self._views[key] = ({h: k for k, h in enumerate(every)}, e)
        index, e = found
        at = np.fromiter((index[tuple(sorted(h))] for h in hands), np.int64, len(hands))
        return np.asarray(e[at])

    def rows(
        self,
        equity: np.ndarray,
        spent: np.ndarray,
        rounds: np.ndarray,
        to_act: np.ndarray,
        player: int,
    ) -> np.ndarray:
        """Feature rows from ``player``'s side: ``equity`` its check-down equity, ``spent``
        ``(n, 2)`` chips in by seat, ``rounds`` the betting round, ``to_act`` the seat to
        act (-1: chance)."""
        n = equity.shape[0]
        own, opp = spent[:, player], spent[:, 1 - player]
        stake = np.minimum(np.maximum(own, opp), self.cap) / self.scale
        out = np.zeros((n, self.size), dtype=np.float32)
        out[:, 0] = equity
        out[:, 1] = equity * stake
        out[:, 2] = stake
        out[:, 3] = own / self.scale
        out[:, 4] = opp / self.scale
        out[:, 5] = to_act == player
        out[:, 6] = to_act == 1 - player
        out[np.arange(n), 7 + np.asarray(rounds, dtype=np.int64)] = 1.0
        return out


def _both_sides(
    f: _Features,
    equity: np.ndarray,
    spent: np.ndarray,
    rounds: np.ndarray,
    to_act: np.ndarray,
    player: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of histories from ``player``'s side and from the other's (``equity`` is
    ``player``'s; the other's is its negative)."""
    return (
        f.rows(equity, spent, rounds, to_act, player),
        f.rows(-equity, spent, rounds, to_act, 1 - player),
    )


def _network(size: int, hidden: int, layers: int) -> Any:
    import torch

    parts: list[Any] = []
    width = size
    for _ in range(layers):
        parts += [torch.nn.Linear(width, hidden), torch.nn.ReLU()]
        width = hidden
    parts.append(torch.nn.Linear(width, 1))
    return torch.nn.Sequential(*parts)


class BlueprintValues:
    """A history's value under a blueprint's play (see the module docstring), from
    :func:`train_blueprint_values` or :meth:`load`.

    Attributes:
        game: the game.
        config: the settings it was trained with.
        metrics: what training measured on the held-out hands: ``"mse"`` of the network,
            ``"mse_checkdown"`` of the check-down value (equity times stake) and
            ``"mse_zero"`` of the value 0, payoffs divided by the game's largest payoff;
            ``"rows"``, ``"hands"``, ``"seconds"``.
    """

    def __init__(
        self, game: Game, config: BlueprintValuesConfig, network: Any, metrics: dict[str, float]
    ) -> None:
        self.game = _check_game(game)
        self.config = config
        self.network = network.eval()
        # the network's layers as numpy arrays (float64): a search asks for a few rows at a
        # time, where torch's per-call overhead is most of the cost
        self._layers = [
            (
                m.weight.detach().numpy().T.astype(np.float64),
                m.bias.detach().numpy().astype(np.float64),
            )
            for m in network
            if hasattr(m, "weight")
        ]
        self.metrics = dict(metrics)
        self._features = _Features(self.game, config.samples)

    def _predict(self, x_p: np.ndarray, x_q: np.ndarray) -> np.ndarray:
        """``(g(x_p) - g(x_q)) / 2`` for each row: the value to the side of ``x_p``. A few
        rows (a search's single histories) go through numpy, where torch's per-call
        overhead would be most of the cost; many rows through torch."""
        z = np.concatenate([x_p, x_q])
        if z.shape[0] > 64:
            import torch

            with torch.no_grad():
                g = self.network(torch.from_numpy(z))[:, 0].numpy().astype(np.float64)
        else:
            last = len(self._layers) - 1
            for k, (w, b) in enumerate(self._layers):
                z = z @ w + b
                if k < last:
                    np.maximum(z, 0.0, out=z)
            g = z[:, 0].astype(np.float64)
        n = x_p.shape[0]
        out: np.ndarray = (g[:n] - g[n:]) / 2.0
        return out

    def values(
        self, state: State, player: int, hands: Sequence[Hashable] | None = None
    ) -> np.ndarray:
        """What the history ``state`` is worth to ``player`` in chips, if both play the
        blueprint from here: for each of ``hands`` (the opponent's hole cards: the worlds
        of ``player``'s view), or ``None`` for ``state``'s own (one value). ``state`` is
        not terminal and both hands are dealt."""
        if hands is None:
            return self.history_values([state], player)
        poker = self._dealt(state)
        f = self._features
        own = tuple(sorted(poker.hole_cards(player)))
        equity = f.view_equities(player, own, poker.board_cards(), hands)
        n = equity.shape[0]
        spent = np.tile(np.asarray(poker.pot_contributions(), dtype=np.float64), (n, 1))
        rounds = np.full(n, poker.round)
        to_act = np.full(n, state.current_player())
        return self._value_rows(equity, spent, rounds, to_act, player)

    def history_values(self, states: Sequence[State], player: int) -> np.ndarray:
        """What each of ``states`` (histories, not terminal, both hands dealt: a chance
        node's children) is worth to ``player`` in chips, in one batch."""
        dealt = [self._dealt(s) for s in states]
        rows = [(*s.hole_cards(0), *s.hole_cards(1), *s.board_cards()) for s in dealt]
        equity = self._features.row_equities(rows)
        if player == 1:
            equity = -equity
        spent = np.array([s.pot_contributions() for s in dealt], dtype=np.float64)
        rounds = np.array([s.round for s in dealt])
        to_act = np.array([s.current_player() for s in dealt])
        return self._value_rows(equity, spent, rounds, to_act, player)

    def outcome_values(
        self, spent: Sequence[float], round_: int, to_act: int
    ) -> tuple[float, float]:
        """Player 0's value in chips, if both play the blueprint from here, at a history
        with ``spent`` chips in by seat, betting round ``round_`` and seat ``to_act`` to
        move, with the whole board out: ``(holding the better hand, holding the worse)``
        (equity +1 and -1). What a depth-limited re-solve puts at a leaf where the last
        board card is dealt (:meth:`nashzoo.agents.cfr.endgame.Endgame.at`); by
        construction player 1's are their negatives, the other way round.

        Raises:
            InvalidParameterError: ``spent`` not two chip counts, ``round_`` not a round
                of the game, or ``to_act`` not 0 or 1.
        """
        f = self._features
        chips = np.asarray(spent, dtype=np.float64)
        if chips.shape != (2,) or not np.isfinite(chips).all() or (chips < 0).any():
            raise InvalidParameterError(
                f"spent is the chips each of the two seats put in, received {spent!r}."
            )
        round_ = check_int("round_", round_, 0, f.rounds - 1)
        to_act = check_int("to_act", to_act, 0, 1)
        win, lose = self._value_rows(
            np.array([1.0, -1.0]), np.tile(chips, (2, 1)), np.full(2, round_),
            np.full(2, to_act), 0,
        )  # fmt: skip
        return float(win), float(lose)

    def _dealt(self, state: State) -> Any:
        """``state`` checked: not terminal, both hands dealt."""
        poker: Any = state
        if state.is_terminal():
            raise InvalidParameterError(
                "values() reads a history that goes on; received a finished hand (its value "
                "is its payoff)."
            )
        h = self._features.hole
        if len(poker.hole_cards(0)) < h or len(poker.hole_cards(1)) < h:
            raise InvalidParameterError(
                "values() needs both players' hole cards dealt; received a history before "
                "the deal ended."
            )
        return poker

    def _value_rows(
        self,
        equity: np.ndarray,
        spent: np.ndarray,
        rounds: np.ndarray,
        to_act: np.ndarray,
        player: int,
    ) -> np.ndarray:
        """The values in chips to ``player`` of histories given by their features."""
        f = self._features
        return self._predict(*_both_sides(f, equity, spent, rounds, to_act, player)) * f.scale

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the network, its settings and game (atomically)."""
        from nashzoo.agents.torch_files import write_torch_file

        return write_torch_file(
            {
                "format": FORMAT,
                "version": 1,
                "game": self.game.to_spec(),
                "config": self.config.to_dict(),
                "network": self.network.state_dict(),
                "metrics": dict(self.metrics),
            },
            path,
        )

    @classmethod
    def load(cls, path: str | Path, game: Game | None = None) -> BlueprintValues:
        """A file :meth:`save` wrote; ``game``, where given, must be the file's.

        Raises:
            PolicyFileError: not such a file, or one of another game.
        """
        from nashzoo.agents.torch_files import check_checkpoint, load_modules, read_torch_file
        from nashzoo.games import load_game

        state = read_torch_file(path)
        check_checkpoint(state, path, FORMAT, 1)
        with PolicyFileError.reading(path, "nashzoo blueprint values"):
            saved = load_game(state["game"])
            config = BlueprintValuesConfig.from_dict(state["config"])
            metrics = {str(k): float(v) for k, v in dict(state["metrics"]).items()}
        if game is not None and saved.to_spec() != game.to_spec():
            raise PolicyFileError(f"{path} holds values of {saved}, not of {game}.")
        network = _network(_Features(_check_game(saved), 1).size, config.hidden, config.layers)
        load_modules(path, {"network": state["network"]}, {"network": network}, "blueprint values")
        return cls(saved, config, network, metrics)


def _play(
    game: Any,
    prior: Callable[[State, int], np.ndarray],
    hands: int,
    rng: np.random.Generator,
    progress: Callable[[int], None] | None,
) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``hands`` hands of the blueprint against itself: every history after the deal
    (its dealt cards, chips in, round, seat to act), its hand's index and each hand's
    payoff to player 0."""
    h2 = 2 * game.definition.num_hole_cards
    cards: list[tuple[int, ...]] = []
    spent: list[tuple[int, ...]] = []
    rounds: list[int] = []
    to_act: list[int] = []
    hand_of: list[int] = []
    payoffs = np.empty(hands)
    for i in range(hands):
        state: Any = game.new_initial_state()
        while not state.is_terminal():
            dealt = (*state.hole_cards(0), *state.hole_cards(1), *state.board_cards())
            if len(dealt) >= h2:
                cards.append(dealt)
                spent.append(state.pot_contributions())
                rounds.append(state.round)
                to_act.append(state.current_player())
                hand_of.append(i)
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                weights = np.array([p for _, p in outcomes])
                k = int(rng.choice(len(outcomes), p=weights / weights.sum()))
                state.apply_unchecked(outcomes[k][0])
            else:
                p = state.current_player()
                probs = prior(state, p)
                legal = list(state.legal_actions())
                state.apply_unchecked(legal[int(rng.choice(len(legal), p=probs))])
        payoffs[i] = state.returns()[0]
        if progress is not None and (i + 1) % 1000 == 0:
            progress(i + 1)
    return (
        cards,
        np.asarray(spent, dtype=np.float64),
        np.asarray(rounds, dtype=np.int64),
        np.asarray(to_act, dtype=np.int64),
        np.asarray(hand_of, dtype=np.int64),
        payoffs,
    )


def train_blueprint_values(
    game: Game,
    blueprint: Any,
    config: BlueprintValuesConfig | None = None,
    *,
    progress: Callable[[str], None] | None = None,
) -> BlueprintValues:
    """Fit a :class:`BlueprintValues` to ``blueprint`` playing itself on ``game`` (see
    the module docstring); seeded end to end by ``config.seed``.

    Args:
        game: heads-up poker on the 52-card deck.
        blueprint: an agent that states its probabilities (``action_probabilities``).
        config: the settings (defaults: :class:`BlueprintValuesConfig`).
        progress: called with a line of text as the work goes on.

    Raises:
        InvalidParameterError: another game, or a blueprint that states no probabilities.
    """
    import torch

    from nashzoo.agents.ismcts.knowledge import PolicyKnowledge

    poker = _check_game(game)
    config = config or BlueprintValuesConfig()
    say = progress or (lambda _line: None)
    start = time.perf_counter()
    knowledge = PolicyKnowledge(game, blueprint, belief="chance")
    rng = np.random.default_rng(config.seed)
    say(f"blueprint values: {config.hands:,} hands of the blueprint against itself")
    cards, spent, rounds, to_act, hand_of, payoffs = _play(
        poker,
        lambda s, p: knowledge.act(s, p)[0],
        config.hands,
        rng,
        lambda n: say(f"  {n:,} hands, {time.perf_counter() - start:.0f} s"),
    )
    f = _Features(poker, config.samples)
    equity = f.equities(cards)
    x0, x1 = _both_sides(f, equity, spent, rounds, to_act, 0)
    y = (payoffs[hand_of] / f.scale).astype(np.float32)
    held = rng.random(config.hands) < 0.1
    test = held[hand_of]
    say(f"  {len(y):,} histories ({int(test.sum()):,} held out); fitting the network")
    torch.manual_seed(0 if config.seed is None else config.seed)
    network = _network(f.size, config.hidden, config.layers)
    optimiser = torch.optim.Adam(network.parameters(), lr=config.lr)
    train = np.flatnonzero(~test)
    t0, t1, ty = (torch.from_numpy(a) for a in (x0, x1, y))
    for epoch in range(config.epochs):
        order = train[rng.permutation(train.size)]
        for k in range(0, order.size, config.batch_size):
            batch = torch.from_numpy(order[k : k + config.batch_size])
            g = network(torch.cat([t0[batch], t1[batch]]))[:, 0]
            v = (g[: batch.numel()] - g[batch.numel() :]) / 2
            loss = torch.mean((v - ty[batch]) ** 2)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        if epoch == config.epochs - 1 or (epoch + 1) % 5 == 0:
            say(f"  epoch {epoch + 1}: training loss {loss.item():.4f}")
    values = BlueprintValues(poker, config, network, {})
    rows = np.flatnonzero(test)
    fit = values._predict(x0[rows], x1[rows])
    checkdown = x0[rows, 1].astype(np.float64)
    metrics = {
        "mse": float(np.mean((fit - y[rows]) ** 2)),
        "mse_checkdown": float(np.mean((checkdown - y[rows]) ** 2)),
        "mse_zero": float(np.mean(y[rows].astype(np.float64) ** 2)),
        "rows": float(len(y)),
        "hands": float(config.hands),
        "seconds": time.perf_counter() - start,
    }
    values.metrics = metrics
    say(
        f"  held-out mean squared error {metrics['mse']:.4f} (check-down value "
        f"{metrics['mse_checkdown']:.4f}, zero {metrics['mse_zero']:.4f}), "
        f"{metrics['seconds']:.0f} s"
    )
    return values
