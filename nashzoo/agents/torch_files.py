"""Reading nashzoo's ``.pt`` agent files safely (``torch.load(weights_only=True)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["read_torch_file"]


def read_torch_file(path: str | Path) -> dict[str, Any]:
    """A nashzoo ``.pt`` file's contents, read with ``weights_only=True``.

    Raises:
        FileNotFoundError: no such file.
        PolicyFileError: not a readable torch file holding a dict.
    """
    from nashzoo.errors import PolicyFileError
    from nashzoo.extras import require

    torch = require("torch", "torch", "Reading a .pt agent file")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No agent file at {path}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise PolicyFileError(f"{path} is not a readable nashzoo agent file: {exc}") from exc
    if not isinstance(state, dict):
        raise PolicyFileError(f"{path} holds a {type(state).__name__}, not a nashzoo agent.")
    return state
