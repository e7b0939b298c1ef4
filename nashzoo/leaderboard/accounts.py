"""Accounts and API tokens.

A token is ``nz_<user id>_<secret>`` (32 random bytes, URL-safe base64). The database keeps
only ``scrypt$n$r$p$salt$hash`` of it (stdlib :func:`hashlib.scrypt`), so a copy of the
database gives no way to upload; the user id in the token finds the one row to check, and
the comparison is constant-time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import threading
import time
from typing import Any

from nashzoo.errors import AuthError, InvalidParameterError
from nashzoo.leaderboard.models import User

__all__ = [
    "hash_token", "verify_token", "new_token", "add_user", "authenticate", "NAME",
    "VerifiedTokens", "user_named", "rotate_token", "revoke_token", "set_limits", "REVOKED",
]  # fmt: skip

_N, _R, _P = 2**14, 8, 1
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""User names: letters, digits, ``_.-``; 1 to 64 characters."""
_TOKEN = re.compile(r"^nz_([0-9]{1,12})_([A-Za-z0-9_-]{43})$")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def hash_token(token: str, salt: bytes | None = None) -> str:
    """The stored form of ``token``: ``scrypt$n$r$p$salt$hash``."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def verify_token(token: str, stored: str) -> bool:
    """Whether ``token`` hashes to ``stored`` (constant-time comparison)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        raw_salt = base64.urlsafe_b64decode(salt + "=" * (-len(salt) % 4))
        expected = base64.urlsafe_b64decode(digest + "=" * (-len(digest) % 4))
        got = hashlib.scrypt(
            token.encode(), salt=raw_salt, n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


def new_token(user_id: int) -> str:
    """A fresh token for user ``user_id``."""
    return f"nz_{user_id}_{_b64(secrets.token_bytes(32))}"


def add_user(
    session: Any, name: str, *, max_submissions: int = 20, max_upload_bytes: int = 20_000_000
) -> tuple[User, str]:
    """Create a user; returns the row and its token (shown once, never stored).

    Raises:
        InvalidParameterError: a bad name or limit, or the name is taken.
    """
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidParameterError(
            f"A user name is 1-64 letters, digits, '_', '.' or '-' starting with a letter "
            f"or digit; got {name!r}."
        )
    for label, value in (
        ("max_submissions", max_submissions),
        ("max_upload_bytes", max_upload_bytes),
    ):
        if type(value) is not int or value < 1:
            raise InvalidParameterError(f"{label} must be a positive integer, got {value!r}.")
    from sqlalchemy import select

    if session.scalar(select(User).where(User.name == name)) is not None:
        raise InvalidParameterError(f"The user name {name!r} is taken.")
    user = User(
        name=name,
        token_hash="pending",
        max_submissions=max_submissions,
        max_upload_bytes=max_upload_bytes,
    )
    session.add(user)
    session.flush()
    token = new_token(user.id)
    user.token_hash = hash_token(token)
    session.commit()
    return user, token


def user_named(session: Any, name: str) -> User:
    """The user called ``name``.

    Raises:
        InvalidParameterError: no such user.
    """
    from sqlalchemy import select

    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise InvalidParameterError(f"There is no user {name!r}.")
    return user


def rotate_token(session: Any, name: str) -> str:
    """A new token for ``name``; the old one stops working at once. Returns the token
    (shown once, stored only as a hash)."""
    user = user_named(session, name)
    token = new_token(user.id)
    user.token_hash = hash_token(token)
    session.commit()
    return token


REVOKED = "revoked"
"""The stored hash of a revoked token: no token verifies against it."""


def revoke_token(session: Any, name: str) -> None:
    """Revoke ``name``'s token (no token works until :func:`rotate_token`)."""
    user_named(session, name).token_hash = REVOKED
    session.commit()


def set_limits(
    session: Any,
    name: str,
    *,
    max_submissions: int | None = None,
    max_upload_bytes: int | None = None,
) -> User:
    """Change ``name``'s limits (``None`` keeps one).

    Raises:
        InvalidParameterError: no such user, or a limit that is not a positive integer.
    """
    user = user_named(session, name)
    for label, value in (
        ("max_submissions", max_submissions),
        ("max_upload_bytes", max_upload_bytes),
    ):
        if value is None:
            continue
        if type(value) is not int or value < 1:
            raise InvalidParameterError(f"{label} must be a positive integer, got {value!r}.")
        setattr(user, label, value)
    session.commit()
    return user


def authenticate(session: Any, token: str | None) -> User:
    """The user whose token this is.

    Raises:
        AuthError: no token, a malformed one, or one that matches no user.
    """
    if not token:
        raise AuthError("This needs an API token (header 'Authorization: Bearer nz_...').")
    match = _TOKEN.match(token.strip())
    if match is None:
        raise AuthError("The API token is malformed: expected 'nz_<id>_<43 characters>'.")
    user = session.get(User, int(match.group(1)))
    if user is None or not verify_token(token.strip(), user.token_hash):
        raise AuthError("The API token is not valid.")
    return user


class VerifiedTokens:
    """Tokens verified recently, so that a signed-in person's page views do not each pay
    for scrypt (about 50 ms here, on purpose).

    Keyed by the token's SHA-256 (the token itself is not kept); an entry holds for
    ``ttl`` seconds and only while the user's stored hash is the one it was verified
    against, so a replaced token stops working at once.

    Args:
        ttl: seconds an entry is trusted.
        max_entries: entries kept (all dropped when full).
    """

    def __init__(self, ttl: float = 600.0, max_entries: int = 4096) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: dict[str, tuple[int, str, float]] = {}
        self._lock = threading.Lock()

    def authenticate(self, session: Any, token: str | None) -> User:
        """:func:`authenticate`, skipping scrypt for a token verified recently.

        Raises:
            AuthError: as :func:`authenticate`.
        """
        if token:
            key = hashlib.sha256(token.strip().encode()).hexdigest()
            with self._lock:
                hit = self._entries.get(key)
            if hit is not None and time.monotonic() - hit[2] < self.ttl:
                user = session.get(User, hit[0])
                if user is not None and hmac.compare_digest(user.token_hash, hit[1]):
                    return user
        user = authenticate(session, token)
        assert token is not None
        with self._lock:
            if len(self._entries) >= self.max_entries:
                self._entries.clear()
            self._entries[hashlib.sha256(token.strip().encode()).hexdigest()] = (
                user.id, user.token_hash, time.monotonic(),
            )  # fmt: skip
        return user
