"""Parameter checks shared by every layer: each returns the clean value or raises
:class:`~nashzoo.errors.InvalidParameterError` naming the parameter, what it expects and
what it received. Nothing is rounded or silently remapped."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nashzoo.errors import InvalidParameterError

__all__ = ["check_int", "check_bool", "check_number", "check_seed", "check_time_limit"]


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
