"""How a card abstraction is written down: ``ehs2:169,50,50,50``.

====================================  ==============================================
text                                  abstraction
====================================  ==============================================
``identity``                          every deal of cards its own bucket (the real
                                      game)
``iso``                               suit-isomorphic deals share a bucket (lossless)
``ehs:B0,B1,...``                     per round, ``Bk`` buckets of equal probability
                                      by expected hand strength
``ehs2:B0,B1,...``                    the same by E[HS^2] (strength and potential)
``...:perfect``, ``...:imperfect``    a set remembers every earlier round's bucket,
                                      or only the current round's (the default for
                                      ``ehs``/``ehs2``; ``identity`` and ``iso``
                                      always remember)
====================================  ==============================================

An abstract information set is the acting player's bucket(s) with the real betting
history, which the abstraction never merges.
"""

from __future__ import annotations

from dataclasses import dataclass

from nashzoo.errors import InvalidParameterError

__all__ = ["DEFAULT_STRENGTH_ABSTRACTION", "AbstractionSpec", "parse_abstraction"]

DEFAULT_STRENGTH_ABSTRACTION = "ehs2:169,50,50,50"
"""The buckets that hand-strength inputs read unless told (issue 35's abstraction); here,
in a module without numba, so that configs can name it without loading the tables."""

_KINDS = ("identity", "iso", "ehs", "ehs2")


@dataclass(frozen=True)
class AbstractionSpec:
    """A parsed abstraction (see the module docstring).

    Attributes:
        kind: ``"identity"``, ``"iso"``, ``"ehs"`` or ``"ehs2"``.
        counts: buckets per round (``ehs``/``ehs2``), else ``()``.
        perfect_recall: whether a set remembers every earlier round's bucket.
    """

    kind: str
    counts: tuple[int, ...] = ()
    perfect_recall: bool = True

    def __str__(self) -> str:
        if self.kind in ("identity", "iso"):
            return self.kind
        text = f"{self.kind}:{','.join(map(str, self.counts))}"
        return text + (":perfect" if self.perfect_recall else "")

    @property
    def lossless(self) -> bool:
        """Whether the abstraction loses no information (``identity``, ``iso``)."""
        return self.kind in ("identity", "iso")


def parse_abstraction(text: str, rounds: int | None = None) -> AbstractionSpec:
    """Read an abstraction's text.

    Args:
        text: e.g. ``"ehs2:169,50,50,50"``, ``"ehs:3,5:perfect"``, ``"iso"``.
        rounds: the game's betting rounds, when known: ``ehs``/``ehs2`` need one count
            per round.

    Raises:
        InvalidParameterError: the text does not parse, a count is not a whole number of
            at least 1, or there are not ``rounds`` counts (each message names what was
            expected and what was received).
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidParameterError(
            f"An abstraction is text such as 'ehs2:169,50,50,50', 'iso' or 'identity'; "
            f"received {text!r}."
        )
    parts = text.strip().split(":")
    kind = parts[0].lower()
    if kind not in _KINDS:
        raise InvalidParameterError(
            f"Unknown abstraction {parts[0]!r} in {text!r}; expected one of "
            f"{', '.join(_KINDS)} (e.g. 'ehs2:169,50,50,50')."
        )
    if kind in ("identity", "iso"):
        if len(parts) > 1:
            raise InvalidParameterError(
                f"The {kind!r} abstraction takes no counts or recall, received {text!r}."
            )
        return AbstractionSpec(kind)
    if len(parts) not in (2, 3) or not parts[1]:
        raise InvalidParameterError(
            f"{kind!r} needs bucket counts per round, e.g. '{kind}:169,50,50,50'; received "
            f"{text!r}."
        )
    counts = []
    for piece in parts[1].split(","):
        try:
            value = int(piece)
        except ValueError:
            value = 0
        if value < 1 or str(value) != piece.strip():
            raise InvalidParameterError(
                f"Bucket counts are whole numbers of at least 1, received {piece!r} in {text!r}."
            )
        counts.append(value)
    if rounds is not None and len(counts) != rounds:
        raise InvalidParameterError(
            f"{text!r} gives {len(counts)} bucket count(s); the game has {rounds} betting "
            f"round(s), so it needs {rounds}."
        )
    recall = parts[2].lower() if len(parts) == 3 else "imperfect"
    if recall not in ("perfect", "imperfect"):
        raise InvalidParameterError(
            f"Recall is 'perfect' or 'imperfect', received {parts[2]!r} in {text!r}."
        )
    return AbstractionSpec(kind, tuple(counts), recall == "perfect")
