"""Parameter checks shared by every layer: each returns the clean value or raises
:class:`~nashzoo.errors.InvalidParameterError` naming the parameter, what it expects and
what it received. Nothing is rounded or silently remapped."""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

import numpy as np

from nashzoo.errors import InvalidParameterError

__all__ = [
    "check_int", "check_bool", "check_choice", "check_number", "check_seed", "check_time_limit",
    "Config", "Rule", "integer", "number", "choice", "flag", "seed_field", "integers",
    "numbers", "text",
]  # fmt: skip

_C = TypeVar("_C", bound="Config")


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Validate an integer parameter and return it as ``int``.

    Args:
        name: parameter name, used in the error message.
        value: the value received.
        low: smallest allowed value.
        high: largest allowed value, or ``None`` for no upper bound.

    Raises:
        InvalidParameterError: ``value`` is not an integer or is out of range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(
            f"Parameter `{name}` expects an integer, received {value!r} ({type(value).__name__})."
        )
    value = int(value)
    if value < low or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise InvalidParameterError(f"Parameter `{name}` must be {allowed}, received {value}.")
    return value


def check_bool(name: str, value: Any) -> bool:
    """Validate a boolean flag (``True``/``False`` or a NumPy bool; not 0, 1 or strings).

    Raises:
        InvalidParameterError: ``value`` is not a bool.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"Parameter `{name}` expects True or False, received {value!r} "
            f"({type(value).__name__})."
        )
    return bool(value)


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """Validate that ``value`` is one of ``choices`` and return it.

    Raises:
        InvalidParameterError: "`name` must be one of 'a', 'b', received 'c'."
    """
    if not isinstance(value, Hashable) or value not in choices:
        raise InvalidParameterError(
            f"`{name}` must be one of {', '.join(map(repr, choices))}, received {value!r}."
        )
    return value


def check_number(
    name: str,
    value: Any,
    *,
    finite: bool = True,
    low: float | None = None,
    low_inclusive: bool = True,
) -> float:
    """Validate a real number (Python or NumPy ints and floats; not bools) as ``float``.

    Args:
        name: parameter name.
        value: the value received.
        finite: reject infinities (NaN is always rejected).
        low: smallest allowed value, if any.
        low_inclusive: whether ``low`` itself is allowed.

    Raises:
        InvalidParameterError: not a number, NaN, infinite when ``finite``, or too small.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise InvalidParameterError(
            f"Parameter `{name}` expects a number, received {value!r} ({type(value).__name__})."
        )
    number = float(value)
    if math.isnan(number) or (finite and math.isinf(number)):
        raise InvalidParameterError(
            f"Parameter `{name}` expects a finite number, received {number!r}."
        )
    if low is not None and (number < low or (number == low and not low_inclusive)):
        sign = ">=" if low_inclusive else ">"
        raise InvalidParameterError(
            f"Parameter `{name}` must be {sign} {low}, received {number!r}."
        )
    return number


def check_seed(value: Any, name: str = "seed") -> int | None:
    """Validate a seed: ``None`` or a non-negative integer (NumPy's ``default_rng`` range).

    Raises:
        InvalidParameterError: anything else (floats, negative numbers, strings, ...).
    """
    if value is None:
        return None
    return check_int(name, value, 0)


def check_time_limit(value: Any, name: str = "move_time_limit") -> float | None:
    """Validate a per-move time limit in seconds.

    ``None`` and ``math.inf`` mean no limit (both return ``None``); otherwise a finite
    number > 0.

    Raises:
        InvalidParameterError: zero, negative, NaN, a bool or not a number.
    """
    if value is None:
        return None
    seconds = check_number(name, value, finite=False, low=0.0, low_inclusive=False)
    return None if math.isinf(seconds) else seconds


# -- declared configs ----------------------------------------------------------------------
# A config is a frozen dataclass whose fields carry their rule in ``metadata["rule"]``
# (made by the helpers below); ``Config.__post_init__`` checks every field once, when the
# config is made, and a frozen config cannot change afterwards (``dataclasses.replace``
# makes a new one, checked again). Every message has one form:
# "`NFSPConfig.batch_size` must be an integer >= 1, received 0."


@dataclass(frozen=True)
class Rule:
    """What one config field accepts.

    Attributes:
        kind: ``"int"``, ``"number"``, ``"bool"``, ``"choice"``, ``"ints"`` (a non-empty
            tuple of integers), ``"numbers"`` (a tuple of ``length`` numbers) or
            ``"text"`` (a non-empty string, which the code reading it parses).
        low, high: the bounds of a number or integer (or of each element of a tuple).
        low_inclusive, high_inclusive: whether a bound itself is allowed.
        choices: the allowed values of a ``"choice"``.
        optional: ``None`` is allowed too.
        length: the length of a ``"numbers"`` tuple.
        pattern: a regular expression a ``"text"`` must match whole, and ``says``: how
            the message names what it matches.
    """

    kind: str
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    choices: tuple[Any, ...] = ()
    optional: bool = False
    length: int | None = None
    pattern: str | None = None
    says: str = ""

    def describe(self) -> str:
        """What the field must be, as the message says it."""
        if self.kind == "choice":
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "bool":
            text = "True or False"
        elif self.kind == "text":
            text = self.says or "a non-empty string"
        else:
            noun = {"int": "an integer", "number": "a finite number"}.get(self.kind)
            if noun is None:
                each = "integers" if self.kind == "ints" else "finite numbers"
                size = "a non-empty tuple" if self.length is None else f"a tuple of {self.length}"
                noun = f"{size} of {each}"
            text = noun + self._bounds()
        return text + (" or None" if self.optional else "")

    def _bounds(self) -> str:
        low = None if self.low is None else f"{'>=' if self.low_inclusive else '>'} {self.low:g}"
        high = (
            None if self.high is None else f"{'<=' if self.high_inclusive else '<'} {self.high:g}"
        )
        if low and high:
            return f" {low} and {high}"
        return f" {low or high}" if low or high else ""

    def _in_bounds(self, x: float) -> bool:
        if self.low is not None and (x < self.low or (x == self.low and not self.low_inclusive)):
            return False
        return not (
            self.high is not None
            and (x > self.high or (x == self.high and not self.high_inclusive))
        )

    def _scalar(self, value: Any) -> Any:
        """The clean value, or ``_BAD``."""
        if self.kind in ("int", "ints"):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                return _BAD
            clean: Any = int(value)
        else:
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)
            ):
                return _BAD
            clean = float(value)
            if not math.isfinite(clean):
                return _BAD
        return clean if self._in_bounds(clean) else _BAD

    def check(self, name: str, value: Any) -> Any:
        """The clean value of field ``name`` (ints as ``int``, numbers as ``float``,
        sequences as tuples).

        Raises:
            InvalidParameterError: "`name` must be ..., received ...".
        """
        if value is None and self.optional:
            return None
        clean: Any = _BAD
        if self.kind == "bool":
            clean = bool(value) if isinstance(value, (bool, np.bool_)) else _BAD
        elif self.kind == "choice":
            clean = value if isinstance(value, Hashable) and value in self.choices else _BAD
        elif self.kind == "text":
            ok = isinstance(value, str) and bool(value.strip())
            if ok and self.pattern is not None:
                ok = re.fullmatch(self.pattern, value) is not None
            clean = value if ok else _BAD
        elif self.kind in ("int", "number"):
            clean = self._scalar(value)
        elif isinstance(value, (list, tuple)) and (
            len(value) > 0 if self.length is None else len(value) == self.length
        ):
            items = tuple(self._scalar(v) for v in value)
            clean = _BAD if any(v is _BAD for v in items) else items
        if clean is _BAD:
            raise InvalidParameterError(f"`{name}` must be {self.describe()}, received {value!r}.")
        return clean


_BAD = object()


def _setting(default: Any, rule: Rule, help: str) -> Any:
    return field(default=default, metadata={"rule": rule, "help": help})


def integer(
    default: int | None,
    *,
    low: int = 0,
    high: int | None = None,
    optional: bool = False,
    help: str = "",
) -> Any:
    """A config field holding an integer in ``[low, high]`` (``None`` too if optional)."""
    return _setting(default, Rule("int", low, high, optional=optional), help)


def number(
    default: float | None,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    optional: bool = False,
    help: str = "",
) -> Any:
    """A config field holding a finite number within the bounds."""
    rule = Rule("number", low, high, low_inclusive, high_inclusive, optional=optional)
    return _setting(default, rule, help)


def choice(default: Any, choices: tuple[Any, ...], *, help: str = "") -> Any:
    """A config field holding one of ``choices`` (``None`` may be one of them)."""
    return _setting(default, Rule("choice", choices=tuple(choices)), help)


def text(
    default: str | None,
    *,
    optional: bool = False,
    pattern: str | None = None,
    says: str = "",
    help: str = "",
) -> Any:
    """A config field holding a non-empty string (a spec that the code using it parses
    and checks, such as a card abstraction's ``"ehs2:169,50,50,50"``; ``None`` too if
    optional); with ``pattern``, one that regular expression matches whole, ``says``
    naming what it matches in the message."""
    rule = Rule("text", optional=optional, pattern=pattern, says=says)
    return _setting(default, rule, help)


def flag(default: bool, *, help: str = "") -> Any:
    """A config field holding ``True`` or ``False`` (not 0, 1 or strings)."""
    return _setting(default, Rule("bool"), help)


def seed_field(default: int | None = 0, *, help: str = "") -> Any:
    """A config field holding a seed: ``None`` or an integer >= 0."""
    return _setting(default, Rule("int", 0, optional=True), help)


def integers(
    default: tuple[int, ...] | None, *, low: int = 1, optional: bool = False, help: str = ""
) -> Any:
    """A config field holding a non-empty tuple of integers >= ``low`` (layer widths;
    ``None`` too if optional)."""
    return _setting(default, Rule("ints", low, optional=optional), help)


def numbers(
    default: tuple[float, ...],
    *,
    length: int,
    low: float | None = None,
    low_inclusive: bool = True,
    help: str = "",
) -> Any:
    """A config field holding a tuple of ``length`` finite numbers within the bounds."""
    return _setting(default, Rule("numbers", low, None, low_inclusive, length=length), help)


def _attributes_section(doc: str) -> dict[str, str]:
    """Each name's paragraph in the ``Attributes:`` section of a Google-style docstring
    (``a, b: text`` describes both)."""
    documented: dict[str, str] = {}
    inside, indent = False, 0
    names: list[str] = []
    for line in inspect.cleandoc(doc).splitlines():
        if line.strip() == "Attributes:":
            inside, names = True, []
            continue
        if not inside:
            continue
        if line and not line[0].isspace():
            break  # the section has ended
        text = line.strip()
        head = re.match(r"^([A-Za-z_][\w, ]*):\s*(.*)$", text)
        depth = len(line) - len(line.lstrip())
        if head and (not names or depth <= indent):
            names = [n.strip() for n in head.group(1).split(",")]
            indent = depth
            for n in names:
                documented[n] = head.group(2)
        elif names and text:
            for n in names:
                documented[n] = f"{documented[n]} {text}".strip()
    return documented


class Config:
    """Base of the package's frozen config dataclasses: checks every field's declared
    rule once, at construction, and reads and writes plain dicts.

    A subclass is ``@dataclass(frozen=True)`` with fields made by :func:`integer`,
    :func:`number`, :func:`choice`, :func:`flag`, :func:`seed_field`, :func:`integers`
    or :func:`numbers`; it may add a ``check()`` for rules that join several fields.
    """

    def __post_init__(self) -> None:
        kind = type(self).__name__
        for f in fields(self):  # type: ignore[arg-type]
            rule = f.metadata.get("rule")
            if rule is not None:
                clean = rule.check(f"{kind}.{f.name}", getattr(self, f.name))
                object.__setattr__(self, f.name, clean)
        self.check()

    def check(self) -> None:
        """Rules that join several fields (none by default).

        Raises:
            InvalidParameterError: naming the fields.
        """

    @classmethod
    def field_help(cls) -> dict[str, str]:
        """Each field's one-paragraph description: its ``help`` metadata, else its entry in
        the class docstring's ``Attributes:`` section (``a, b: text`` describes both), else
        a base class's (a subclass that only changes defaults keeps their descriptions);
        what ``nashzoo train`` shows for each option."""
        documented: dict[str, str] = {}
        for klass in reversed(cls.__mro__):  # the subclass's own entries last, so they win
            if "__doc__" in vars(klass) and issubclass(klass, Config):
                documented.update(_attributes_section(klass.__doc__ or ""))
        out = {}
        for f in fields(cls):  # type: ignore[arg-type]
            out[f.name] = f.metadata.get("help") or documented.get(f.name, "")
        return out

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON-ready values (tuples as lists)."""
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in fields(self)  # type: ignore[arg-type]
        }

    @classmethod
    def from_dict(cls: type[_C], d: Mapping[str, Any]) -> _C:
        """The config of a dict (as :meth:`to_dict` writes it); missing keys take their
        defaults.

        Raises:
            InvalidParameterError: not a mapping, an unknown key (the known ones are
                listed) or a value its field refuses.
        """
        if not isinstance(d, Mapping):
            raise InvalidParameterError(
                f"{cls.__name__}.from_dict expects a mapping, received {type(d).__name__}."
            )
        known = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        unknown = sorted(set(d) - set(known))
        if unknown:
            raise InvalidParameterError(
                f"Unknown {cls.__name__} fields {unknown}; the known ones are {known}."
            )
        return cls(**d)
