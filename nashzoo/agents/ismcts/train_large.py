"""Self-play training of Nash-ISMCTS's networks over the rules: games too big to compile
(Limit Hold'em, the fighting game's default preset) (torch extra).

The targets are the compiled trainer's (:mod:`nashzoo.agents.ismcts.train`); what
changes is that no view can be tabulated, so the network is a
:class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork` evaluated at search time
(:class:`~nashzoo.agents.ismcts.knowledge.NetworkKnowledge`) and the data are views met
in play. One generation:

1. play ``games_per_generation`` self-play games side by side: at every decision the
   mover runs Nash-ISMCTS over the rules from its own view (Dirichlet noise at the root);
   all games' searches advance together and their view requests are evaluated in one
   forward pass (:func:`~nashzoo.agents.ismcts.search.run_searches`). Record the
   visit distribution (P's target), the mover's view after each action (V_c's target is
   the network's own V there, or the payoff where the action ends the game), and for
   every decision state each player's view, the opponent's true private value and the
   final payoff (V's and V_w's targets);
2. play ``belief_games`` games in which everyone plays P (one forward pass per move for
   all of them): at every decision each player's view and the opponent's true private
   value are H's targets. H is a softmax over the view's worlds, trained with the true
   world against ``negatives`` worlds drawn uniformly from the others (sampled softmax,
   corrected for the sampling);
3. take ``steps_per_generation`` gradient steps on the last ``replay_generations``
   generations (P cross-entropy + V, V_w, V_c squared errors + H cross-entropy, and
   ``bayes_weight`` times the Bayes-rule term: nothing is tabulated here, so it is
   computed on ``bayes_worlds`` worlds drawn at each of self-play's opponent actions,
   rebuilding the opponent's view in each).

There is no exact exploitability to measure; the curve is measured from outside the
learner (:func:`nashzoo.eval.curves.measure_point`: the search agent's duplicate score
against fixed baselines with AIVAT intervals, and LBR against P, :meth:`prior_agent`),
which ``nashzoo train`` does at every evaluation on a game that does not compile.

Self-play games run in this process, worker processes (``workers``) or Ray actors
(``backend="ray"``), seeded from (seed, generation, game index): the same seed gives the
same networks whatever the number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nashzoo.abstraction.spec import DEFAULT_STRENGTH_ABSTRACTION
from nashzoo.agents.ismcts.agent import ISMCTSAgent
from nashzoo.agents.ismcts.config import SearchConfig
from nashzoo.agents.ismcts.knowledge import NetworkKnowledge
from nashzoo.agents.ismcts.nets import (
    EmbeddingNetwork,
    EmbeddingNetworkShape,
    ParameterAverage,
    masked_log_softmax,
)
from nashzoo.agents.ismcts.prior import PriorAgent
from nashzoo.agents.ismcts.selfplay import _Players, train_generations
from nashzoo.agents.ismcts.selfplay_large import belief_games, play_large_games
from nashzoo.agents.ismcts.train import TrainConfig
from nashzoo.agents.learner import TrainCallback
from nashzoo.errors import GameTooLargeError, InvalidParameterError
from nashzoo.extras import require
from nashzoo.games import Game
from nashzoo.validation import choice, flag, integer, integers, text

__all__ = ["LargeTrainConfig", "LargeGenerationRecord", "NashISMCTSLarge"]

torch = require("torch", "torch", "Nash-ISMCTS training")


@dataclass(frozen=True)
class LargeTrainConfig(TrainConfig):
    """Hyper-parameters of Nash-ISMCTS self-play over the rules: those of
    :class:`~nashzoo.agents.ismcts.train.TrainConfig`, with defaults for games too big
    to compile, and:

    Attributes:
        embed_size: width of a world's embedding (H's and V_w's dot products).
        negatives: worlds drawn beside the true one for H's sampled softmax.
        node_cap: nodes one search may hold.
        belief_source: where the search's H comes from: ``"network"`` (the belief head)
            or ``"bayes"`` (online refinement: Bayes' rule over the public history under
            the network's P; poker engine games).
        bayes_worlds: worlds drawn per opponent action of self-play for the Bayes-rule
            term (H after the action against H before it times P of the action at the
            opponent's view in each drawn world, on those worlds: Bayes' rule holds on
            any subset of the worlds, so no correction is needed); games whose states
            rebuild the opponent's view in another world (the poker engine). The term's
            weight is ``bayes_weight``; 0 worlds: no term.
        split_hidden: H-splitting in self-play and in the trained agent's search (a
            SAMPLE node drawn piece by piece: Hold'em's two hole cards, the fighting
            game's hand card by card; ``SearchConfig.split_hidden``).
        split_actions: P-splitting in self-play and in the trained agent's search (no-limit
            poker decides whether to raise, then by how much;
            ``SearchConfig.split_actions``).
        inputs: what the network reads of a view: ``"tensor"`` (the information-state
            tensor) or ``"strength"`` (heads-up Limit Hold'em only: the tensor and 14
            hand-strength columns read from card buckets,
            :class:`~nashzoo.abstraction.features.HoldemStrengthColumns`; the world
            encoder is unchanged) or ``"strength_only"`` (the same without the tensor's
            card one-hots: the seat, the betting and the columns. Measured on Limit
            Hold'em, a network of the default shape fitted to the outcomes of 10,000
            games memorizes the deals through the one-hots and predicts held-out
            outcomes worse than a constant; without them it does not; see
            ``benchmarks/RESULTS.md``).
        strength_abstraction: the ``ehs``/``ehs2`` buckets ``inputs="strength"`` and
            ``"strength_only"`` read the strengths from (built once per machine and
            cached).
    """

    games_per_generation: int = integer(32, low=1)
    simulations: int = integer(100, low=1)
    eval_simulations: int = integer(200, low=1)
    hidden_sizes: tuple[int, ...] = integers((256, 256))
    steps_per_generation: int = integer(50, low=1)
    replay_generations: int = integer(10, low=1)
    belief_games: int = integer(256, low=1)
    embed_size: int = integer(64, low=1)
    negatives: int = integer(127, low=1)
    node_cap: int = integer(200_000, low=1)
    belief_source: str = choice("network", ("network", "bayes"))
    bayes_worlds: int = integer(32, low=0)
    split_hidden: bool = flag(False)
    split_actions: bool = flag(False)
    inputs: str = choice("tensor", ("tensor", "strength", "strength_only"))
    strength_abstraction: str = text(DEFAULT_STRENGTH_ABSTRACTION)

    def search_config(self, *, play: bool = False, progress: float = 0.0) -> SearchConfig:
        """:meth:`TrainConfig.search_config`, with ``split_hidden`` and ``split_actions``."""
        config = super().search_config(play=play, progress=progress)
        return replace(config, split_hidden=self.split_hidden, split_actions=self.split_actions)

    @classmethod
    def from_train_config(cls, config: TrainConfig) -> LargeTrainConfig:
        """The same settings (a :class:`TrainConfig`'s fields), the rest at their
        defaults."""
        if isinstance(config, cls):
            return config
        return cls(**{f.name: getattr(config, f.name) for f in fields(TrainConfig)})


@dataclass(frozen=True)
class LargeGenerationRecord:
    """What one generation measured.

    Attributes:
        generation: its number (from 1).
        seconds: training time so far.
        games: self-play games so far.
        loss: the last gradient step's loss terms.
        simulations_per_second: root simulations per second of its self-play searches.
        forward_passes: forward passes of its self-play (each evaluates many views).
        views: views evaluated in them.
        forward_passes_per_second: forward passes per second of self-play search.
        capped: searches that reached the node cap (and reused their nodes).
    """

    generation: int
    seconds: float
    games: int
    loss: dict[str, float]
    simulations_per_second: float
    forward_passes: int
    views: int
    forward_passes_per_second: float = 0.0
    capped: int = 0


# -- the learner --------------------------------------------------------------------------------
class NashISMCTSLarge:
    """Nash-ISMCTS's self-play trainer over the rules, a
    :class:`~nashzoo.agents.learner.Learner` (one step is one generation) for games of any
    size whose states list their hidden worlds (see the module docstring).
    ``NashISMCTS(game)`` returns one for a game that does not compile.

    Args:
        game: a two-player game with ``State.hidden_worlds`` and
            ``Game.hidden_value_features`` (the poker engine's games, the fighting game).
        config: a :class:`LargeTrainConfig` (a :class:`TrainConfig` is taken with the
            other fields at their defaults).

    Attributes:
        history: one :class:`LargeGenerationRecord` per generation.
        network: the :class:`~nashzoo.agents.ismcts.nets.EmbeddingNetwork` being trained.
    """

    name: ClassVar[str] = "nash-ismcts"
    config_type: ClassVar[type] = LargeTrainConfig
    step_unit: ClassVar[str] = "generations"

    def __init__(self, game: Game, config: TrainConfig | None = None) -> None:
        config = LargeTrainConfig() if config is None else config
        if not isinstance(config, TrainConfig):
            raise InvalidParameterError(
                f"config must be a LargeTrainConfig, received {type(config).__name__}."
            )
        if not isinstance(game, Game) or game.num_players != 2:
            raise InvalidParameterError(
                f"NashISMCTSLarge needs a two-player nashzoo Game, received {game}."
            )
        self.game = game
        self.config = LargeTrainConfig.from_train_config(config)
        c = self.config
        torch.manual_seed(c.seed)
        self.rng = np.random.default_rng(np.random.SeedSequence([c.seed, 10**6]))
        shape = EmbeddingNetworkShape.for_game(
            game,
            embed_size=c.embed_size,
            hidden_sizes=c.hidden_sizes,
            strength=c.strength_abstraction if c.inputs != "tensor" else "",
            cards=c.inputs != "strength_only",
        )
        self.network = EmbeddingNetwork(shape, game)
        self.network.eval()
        self.average = (
            None if c.average_decay is None else ParameterAverage(self.network, c.average_decay)
        )
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=c.learning_rate)
        self._buffer: list[list[dict[str, Any]]] = []
        self._beliefs: list[list[tuple[np.ndarray, Any, int, Any]]] = []
        self._values: dict[Any, Any] = {}  # hidden values shared by the belief records
        self.history: list[LargeGenerationRecord] = []
        self.seconds = 0.0
        self.eval_config = c.search_config(play=True)

    @property
    def steps(self) -> int:
        """Generations so far."""
        return len(self.history)

    def train(
        self,
        *,
        steps: int | None = None,
        seconds: float | None = None,
        callback: TrainCallback | None = None,
        callback_every: float = 10.0,
        progress: bool = False,
    ) -> NashISMCTSLarge:
        """Run ``steps`` more generations or for ``seconds`` of wall time; measured every
        ``search_every`` generations and after the last (the measurements' time is not
        training time). ``callback`` (a ``Callback``, a function or a list of them)
        every ``callback_every`` seconds and at the end; ``False`` stops.

        Raises:
            WorkerError: a self-play worker process died.
        """
        train_generations(
            self,
            self._generation,
            steps=steps,
            seconds=seconds,
            callback=callback,
            callback_every=callback_every,
            progress=progress,
            desc="Nash-ISMCTS self-play over the rules",
            postfix=self._postfix,
        )
        return self

    def _postfix(self) -> dict[str, Any]:
        r = self.history[-1]
        out = {
            "sims/s": f"{r.simulations_per_second:,.0f}",
            "passes/s": f"{r.forward_passes_per_second:,.0f}",
            "views/pass": f"{r.views / max(r.forward_passes, 1):.1f}",
        }
        if r.capped:  # the node cap was reached: those searches reused their nodes
            out["capped searches"] = str(r.capped)
        return out

    def _payload(self) -> dict[str, Any]:
        return {
            "game": self.game.to_spec(),
            "shape": self.network.shape.to_dict(),
            "state": {k: v.clone() for k, v in self.network.state_dict().items()},
        }

    def _generation(self, players: _Players, fraction: float) -> int:
        c, net = self.config, self.network
        generation = self.steps + 1
        start = time.perf_counter()
        net.eval()
        search = {
            **c.search_config(progress=fraction).to_dict(),
            "node_cap": c.node_cap,
            "policy_target": c.policy_target,
            "target_scale": c.target_scale,
            "belief_source": c.belief_source,
            "bayes_worlds": c.bayes_worlds if c.bayes_weight > 0 else 0,
        }
        games = players.run(play_large_games, self._payload(), search, generation)
        self._buffer = [*self._buffer, games][-c.replay_generations :]
        knowledge = NetworkKnowledge(self.game, net)
        self._beliefs = [
            *self._beliefs,
            belief_games(self.game, knowledge, self.rng, c.belief_games, self._values),
        ][-c.replay_generations :]
        parts = self._fit()
        if self.average is not None:
            self.average.update(net)
        elapsed = self.seconds + time.perf_counter() - start
        sims = sum(g["simulations"] for g in games)
        secs = sum(g["seconds"] for g in games)
        self.history.append(
            LargeGenerationRecord(
                generation=generation,
                seconds=elapsed,
                games=generation * c.games_per_generation,
                loss=parts,
                simulations_per_second=sims / secs if secs > 0 else 0.0,
                forward_passes=round(sum(g["forward_passes"] for g in games)),
                views=round(sum(g["views"] for g in games)),
                forward_passes_per_second=sum(g["forward_passes"] for g in games) / secs
                if secs > 0
                else 0.0,
                capped=round(sum(g["capped"] for g in games)),
            )
        )
        return 1

    # -- the loss ----------------------------------------------------------------------------
    def _fit(self) -> dict[str, float]:
        c, net, rng = self.config, self.network, self.rng
        games = [g for gen in self._buffer for g in gen]
        dec = [(g, k) for g in games for k in range(len(g["x"]))]
        views = [(g, k) for g in games for k in range(len(g["view_x"]))]
        beliefs = [b for gen in self._beliefs for b in gen]
        transitions = [t for g in games for t in g.get("bayes", ())]
        if not dec:
            return {}
        d = self.network.shape.embed_size
        net.train()
        parts: dict[str, float] = {}
        for _ in range(c.steps_per_generation):
            # P and V_c at decisions
            pick = [dec[i] for i in rng.integers(0, len(dec), c.batch_size)]
            x = net.dense([g["x"][k] for g, k in pick])
            legal = torch.from_numpy(np.stack([g["legal"][k] for g, k in pick]))
            target = torch.from_numpy(np.stack([g["target"][k] for g, k in pick]))
            out = net(x)
            logp = masked_log_softmax(out["policy"], legal).masked_fill(~legal, 0.0)
            policy = -(target * logp).sum(1).mean()
            child_target = np.stack([g["after_value"][k] for g, k in pick])
            rows, cols, xs = [], [], []
            for r, (g, k) in enumerate(pick):
                acts = np.flatnonzero(g["legal"][k])
                for a, idx in zip(acts.tolist(), g["after"][k]):
                    if idx is not None:
                        rows.append(r)
                        cols.append(a)
                        xs.append(idx)
            if xs:
                with torch.no_grad():
                    child_target[rows, cols] = net(net.dense(xs))["value"].numpy()
            ct = torch.from_numpy(child_target)
            known = ~torch.isnan(ct)
            child_value = ((out["child_value"] - ct.nan_to_num()) ** 2 * known).sum() / known.sum()
            # V and V_w at every player's view
            pick_v = [views[i] for i in rng.integers(0, len(views), 2 * c.batch_size)]
            out_v = net(net.dense([g["view_x"][k] for g, k in pick_v]))
            z = torch.from_numpy(np.array([g["view_return"][k] for g, k in pick_v]))
            value = ((out_v["value"] - z) ** 2).mean()
            feats = _features_at(
                self.game, [([g["view_value"][k]], g["view_public"][k]) for g, k in pick_v]
            )
            e = net.encode(torch.from_numpy(feats))
            q = out_v["query"]
            w = torch.tanh((e * q[:, d : 2 * d]).sum(-1) + q[:, 2 * d])
            world_value = ((w - z) ** 2).mean()
            # H: the true world against sampled others, and Bayes' rule on transitions
            belief = self._belief_loss(beliefs, d)
            bayes = self._bayes_loss(transitions, d)
            loss = policy + value + world_value + child_value + belief + c.bayes_weight * bayes
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            parts = {
                "policy": policy.item(),
                "value": value.item(),
                "world_value": world_value.item(),
                "child_value": child_value.item(),
                "belief": belief.item(),
                "bayes": bayes.item(),
            }
        net.eval()
        return parts

    def _belief_loss(self, beliefs: list[tuple[np.ndarray, Any, int, Any]], d: int) -> Any:
        """H's sampled softmax: each picked view's true world against ``negatives``
        others drawn uniformly without replacement, their logits raised by
        ``log(others / drawn)`` (the sampling correction)."""
        c, net, rng = self.config, self.network, self.rng
        if not beliefs:
            return torch.zeros(())
        pick = [beliefs[i] for i in rng.integers(0, len(beliefs), c.batch_size)]
        m = c.negatives
        index, valid, correction = _negatives(rng, [(len(v), t) for _, v, t, _ in pick], m)
        chosen = [_chosen(vals, index[r]) for r, (_, vals, _, _) in enumerate(pick)]
        feats = _features_at(self.game, [(x, b) for x, (*_, b) in zip(chosen, pick)])
        e = net.encode(torch.from_numpy(feats.reshape(len(pick), m + 1, -1)))
        q = net(net.dense([x for x, _, _, _ in pick]))["query"]
        logits = (e * q[:, None, :d]).sum(-1) + torch.from_numpy(correction)
        logits = logits.masked_fill(~torch.from_numpy(valid), float("-inf"))
        return -(logits[:, 0] - torch.logsumexp(logits, dim=1)).mean()

    def _bayes_loss(self, transitions: list[Any], d: int) -> Any:
        """The Bayes-rule term on self-play's opponent actions: over each transition's
        drawn worlds, the cross-entropy of H after the action against the softmax of H's
        logits before it plus the log-probability of the action under P at the acting
        player's view in each world (no gradient through the target, as in the compiled
        trainer's term)."""
        c, net, rng = self.config, self.network, self.rng
        if not transitions or c.bayes_weight <= 0:
            return torch.zeros(())
        pick = [transitions[i] for i in rng.integers(0, len(transitions), c.batch_size // 4 + 1)]
        k = max(len(t[3]) for t in pick)
        valid = np.zeros((len(pick), k), dtype=bool)
        feats, rows, legal, acts = [], [], [], []
        for r, (_, _, action, values, opponent, mask, public) in enumerate(pick):
            n = len(values)
            valid[r, :n] = True
            padded = [*values, *[values[0]] * (k - n)]
            feats.append(_features_at(self.game, [(padded, public)]))
            for row in [*opponent, *[opponent[0]] * (k - n)]:
                rows.append(row[row >= 0])
            legal.append(np.repeat(mask[None, :], k, axis=0))
            acts.append(action)
        e = net.encode(torch.from_numpy(np.stack(feats)))
        ok = torch.from_numpy(valid)
        with torch.no_grad():
            before = net(net.dense([t[0] for t in pick]))["query"]
            prior = (e.detach() * before[:, None, :d]).sum(-1)
            opp = net(net.dense(rows))["policy"].reshape(len(pick), k, -1)
            logp = masked_log_softmax(opp, torch.from_numpy(np.stack(legal)))
            act = torch.tensor(acts)[:, None, None].expand(-1, k, 1)
            likelihood = logp.gather(2, act).squeeze(2)
            target = torch.softmax((prior + likelihood).masked_fill(~ok, float("-inf")), dim=1)
        after = net(net.dense([t[1] for t in pick]))["query"]
        post = torch.log_softmax(
            (e * after[:, None, :d]).sum(-1).masked_fill(~ok, float("-inf")), dim=1
        )
        return -(target * post.masked_fill(~ok, 0.0)).sum(1).mean()

    @property
    def playing_network(self) -> Any:
        """The network the trained agent plays: the parameter average where
        ``average_decay`` is set, the current network otherwise."""
        return self.network if self.average is None else self.average.network

    def exploitability(self) -> float:
        """Not available: the game does not compile (the curve is the duplicate score
        and LBR, :attr:`history`).

        Raises:
            GameTooLargeError: always.
        """
        raise GameTooLargeError(
            f"{self.game} is trained over the rules; exact exploitability needs a game that "
            "compiles. The measurements are the duplicate scores and LBR in `history`."
        )

    def agent(self, *, name: str | None = None, seed: int | None = None) -> ISMCTSAgent:
        """The search on :attr:`playing_network` (the parameter average where
        ``average_decay`` is set; ``eval_simulations`` per move, ``play_eps``,
        ``play_c_puct``) as an agent."""
        config = self.eval_config if seed is None else replace(self.eval_config, seed=seed)
        knowledge = NetworkKnowledge(
            self.game, self.playing_network, belief=self.config.belief_source
        )
        return ISMCTSAgent(
            self.game,
            knowledge,
            config,
            name=name or "nash-ismcts",
            node_cap=self.config.node_cap,
            metadata={"generation": self.steps, "train": self.config.to_dict()},
        )

    def prior_agent(self) -> PriorAgent:
        """The network's P alone as a PolicyAgent (what LBR measures)."""
        return PriorAgent(self.game, self.playing_network)

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the search agent with the trainer's state (network, optimiser, counters)
        to a ``.pt`` file every tool loads as an agent; :meth:`load` resumes training
        (the replay buffer is not saved)."""
        trainer = {
            "config": self.config.to_dict(),
            "seconds": self.seconds,
            "history": [asdict(r) for r in self.history],
            "optimizer": self.optimizer.state_dict(),
        }
        if self.average is not None:  # the agent's network is the average: keep the current one
            trainer["current"] = self.network.state_dict()
            trainer["average_updates"] = self.average.updates
        return self.agent().save(path, trainer=trainer)

    @classmethod
    def load(cls, path: str | Path) -> NashISMCTSLarge:
        """The trainer a file written by :meth:`save` holds.

        Raises:
            PolicyFileError: not such a file, or one without the trainer's state.
            FileNotFoundError: no such file.
        """
        from nashzoo.agents.torch_files import load_modules, read_torch_file
        from nashzoo.errors import PolicyFileError

        agent = ISMCTSAgent.load(path)
        state = read_torch_file(path)
        saved = state.get("trainer")
        if not isinstance(saved, dict):
            raise PolicyFileError(
                f"{path} holds a search agent but no trainer's state; training resumes only "
                "from a file that NashISMCTSLarge.save wrote."
            )
        try:
            trainer = cls(agent.game, LargeTrainConfig.from_dict(saved["config"]))
            if trainer.average is None:
                load_modules(path, state["network"], {"state": trainer.network}, "network")
            else:
                load_modules(path, state["network"], {"state": trainer.average.network}, "network")
                load_modules(path, saved, {"current": trainer.network}, "trainer")
                trainer.average.updates = int(saved["average_updates"])
            load_modules(path, saved, {"optimizer": trainer.optimizer}, "trainer")
            trainer.history = [LargeGenerationRecord(**r) for r in saved["history"]]
            trainer.seconds = float(saved["seconds"])
            trainer.network.eval()
        except PolicyFileError:
            raise
        except Exception as exc:
            raise PolicyFileError(f"{path} is not a readable Nash-ISMCTS file: {exc}") from exc
        return trainer


def _features_at(game: Game, rows: Sequence[tuple[Sequence[Any], Any]]) -> np.ndarray:
    """``Game.hidden_value_features`` of each row's values at its public information,
    stacked in row order (``Game.hidden_value_features_rows``: one pass where the game
    has one)."""
    features = game.hidden_value_features_rows(rows)
    assert features is not None
    return features.astype(np.float32, copy=False)


def _negatives(
    rng: np.random.Generator, rows: Sequence[tuple[int, int]], m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """H's sampled-softmax columns for rows of ``(worlds, true world)``: column 0 the true
    world, columns 1 to ``m`` up to ``m`` of the other worlds drawn uniformly without
    replacement (the ``m`` smallest of one uniform key per other world, all rows in one
    draw); a column with nothing drawn repeats the true world and is not ``valid``.
    ``correction`` is ``log(others / drawn)`` on the drawn columns. Returns ``(index,
    valid, correction)``, each ``(rows, m + 1)``."""
    n = len(rows)
    others = np.array([w - 1 for w, _ in rows], dtype=np.int64)
    true = np.array([t for _, t in rows], dtype=np.int64)
    index = np.repeat(true[:, None], m + 1, axis=1)
    valid = np.zeros((n, m + 1), dtype=bool)
    valid[:, 0] = True
    correction = np.zeros((n, m + 1), dtype=np.float32)
    width = int(others.max()) if n else 0
    if width == 0:
        return index, valid, correction
    keys = rng.random((n, width))
    keys[np.arange(width)[None, :] >= others[:, None]] = np.inf
    drawn = np.argpartition(keys, m - 1, axis=1)[:, :m] if m < width else np.argsort(keys, axis=1)
    ok = drawn < others[:, None]
    cols = slice(1, drawn.shape[1] + 1)
    index[:, cols] = np.where(ok, drawn + (drawn >= true[:, None]), true[:, None])
    valid[:, cols] = ok
    take = np.minimum(others, m)
    ratio = np.log(np.maximum(others, 1) / np.maximum(take, 1)).astype(np.float32)
    correction[:, cols] = np.where(ok, ratio[:, None], 0.0)
    return index, valid, correction


def _chosen(values: Any, index: np.ndarray) -> Any:
    """``values[index]`` (vectorized where the values can ``take`` many at once, as
    poker's hole cards)."""
    if hasattr(values, "take"):
        return values.take(index)
    return [values[int(k)] for k in index]
