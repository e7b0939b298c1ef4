"""Uploading to a leaderboard from Python or ``nashzoo submit`` (standard library only:
submitting needs no extra)."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from nashzoo.errors import LeaderboardError

__all__ = ["submit"]


def submit(
    server: str, token: str, game: str, name: str, path: str | Path, description: str = ""
) -> dict[str, Any]:
    """Upload the agent at ``path``; returns the server's answer (``id``, ``status``, ``url``).

    Raises:
        FileNotFoundError: no file at ``path``.
        LeaderboardError: the server refused the upload (its code and message), or cannot
            be reached.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No agent file at {path}")
    boundary = f"nashzoo-{secrets.token_hex(16)}"
    parts = []
    for key, value in (("game", game), ("name", name), ("description", description)):
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
        parts.append(f"{head}{value}\r\n".encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + path.read_bytes()
        + b"\r\n"
    )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        server.rstrip("/") + "/api/submissions",
        data=body,
        method="POST",
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Authorization": f"Bearer {token}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read())
            message = f"{detail.get('code')}: {detail.get('message')}"
        except (ValueError, AttributeError):
            message = str(exc)
        raise LeaderboardError(
            f"The leaderboard refused the upload ({exc.code}): {message}"
        ) from None
    except urllib.error.URLError as exc:
        raise LeaderboardError(f"Cannot reach the leaderboard at {server}: {exc.reason}") from None
