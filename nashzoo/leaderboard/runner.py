"""The program inside the sandbox: hosts one submitted agent and answers the referee.

Started by :class:`nashzoo.leaderboard.sandbox.SandboxedAgent` as
``python -I -m nashzoo.leaderboard.runner KIND PATH GAME``. It speaks JSON lines on the
stdin/stdout it was started with; the agent's own ``print`` output goes to stderr (the
referee keeps its tail as the log), so a chatty agent does not break the protocol.

Protocol (one JSON object per line; referee → runner, then runner → referee):

* start: the runner sends ``{"ready": true, "name": ..., "probabilities": bool}`` or
  ``{"error": ..., "code": ...}``.
* ``{"seed": S}`` → ``reset(seed=S)`` → ``{"ok": true}``.
* ``{"act": [[info_state, player, history_length, obs, mask, public_history], ...]}`` →
  ``{"actions": [a, ...]}``: several decisions per message. ``obs``, ``mask`` and
  ``public_history`` are sent the first time an information state is seen and ``null``
  afterwards (the runner keeps them by information state).
* ``{"probs": [rows as in act]}`` → ``{"probabilities": [[p_0, ..., p_{A-1}], ...]}``,
  for an agent with ``action_probabilities`` (its ``ready`` said ``"probabilities":
  true``): how the referee computes a code agent's exact exploitability.
* ``{"bye": true}`` → exit.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from typing import Any


def _numbers(values: Any) -> Any:
    """Stated probabilities as JSON numbers; strings, booleans and complex numbers are
    refused, never converted."""
    import numpy as np

    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise TypeError(
            f"action_probabilities returned {array.dtype} values, not real numbers: "
            f"{str(values)[:100]}"
        )
    return array.astype(np.float64).tolist()


def _send(out: Any, message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def _code(exc: BaseException) -> str:
    return "MEMORY" if isinstance(exc, MemoryError) else "CRASH"


def _build(kind: str, path: str, game_id: str) -> Any:
    from nashzoo.envs.registration import load_game

    game = load_game(game_id)
    if kind == "sb3":
        from nashzoo.agents.sb3 import load_sb3_agent

        return load_sb3_agent(path, game)
    if kind != "code":
        raise ValueError(f"unknown agent kind {kind!r}")
    from nashzoo.leaderboard.bundles import toml_module

    with open(os.path.join(path, "agent.toml"), "rb") as f:
        spec = toml_module().load(f)
    module_name, factory_name = spec["entry"].split(":")
    sys.path.insert(0, path)
    import importlib

    module = importlib.import_module(module_name)
    return getattr(module, factory_name)(game)


def main(argv: list[str]) -> int:
    kind, path, game_id = argv
    out = os.fdopen(os.dup(1), "w", buffering=1 << 16)
    source = os.fdopen(os.dup(0), "r", buffering=1 << 16)
    os.dup2(2, 1)  # the agent's prints go to the log, not to the referee
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = sys.stderr
    try:
        agent = _build(kind, path, game_id)
    except BaseException as exc:
        traceback.print_exc()
        _send(out, {"error": f"building the agent failed: {exc!r}"[:2000], "code": _code(exc)})
        return 1
    import numpy as np

    from nashzoo.games.observation import agent_info

    name = str(getattr(agent, "name", None) or type(agent).__name__)[:64]
    stated = getattr(agent, "action_probabilities", None)
    _send(out, {"ready": True, "name": name, "probabilities": callable(stated)})
    views: dict[str, tuple[Any, Any, Any]] = {}
    act = agent.act

    def inputs(row: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        key, player, length, obs, mask, public = row
        if obs is not None:
            views[key] = (
                np.asarray(obs, dtype=np.float32),
                np.asarray(mask, dtype=np.int8),
                np.asarray(public, dtype=np.int64),
            )
        tensor, legal, history = views[key]
        return {"observation": tensor, "action_mask": legal}, agent_info(
            player, history, length, key
        )

    for line in source:
        try:
            message = json.loads(line)
            if "act" in message:
                actions = []
                for row in message["act"]:
                    action = act(*inputs(row))
                    actions.append(int(action) if isinstance(action, (int, np.integer)) else action)
                _send(out, {"actions": actions})
            elif "probs" in message and callable(stated):
                rows = [_numbers(stated(*inputs(row))) for row in message["probs"]]
                _send(out, {"probabilities": rows})
            elif "seed" in message:
                agent.reset(seed=int(message["seed"]))
                _send(out, {"ok": True})
            elif "bye" in message:
                return 0
            else:
                _send(out, {"error": f"unknown message {sorted(message)}", "code": "CRASH"})
        except BaseException as exc:
            traceback.print_exc()
            with contextlib.suppress(BaseException):
                _send(out, {"error": f"the agent raised {exc!r}"[:2000], "code": _code(exc)})
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
