"""Argument validators shared by every layer: one rule, one message.

They run before anything is sent, so a bad argument costs nothing.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import operator


def count(name: str, value: object, *, minimum: int = 0) -> int:
    """A whole number ``>= minimum``.

    Any integer type is accepted (NumPy's included); a bool, a float or a string
    is not, even when it looks whole.

    Raises:
        ValueError: anything else, naming the argument.
    """
    number = None
    if not isinstance(value, bool):
        with contextlib.suppress(TypeError):
            number = operator.index(value)  # type: ignore[arg-type]
    if number is None or number < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(number)


def count_or_none(name: str, value: object, *, minimum: int = 0) -> int | None:
    """``None``, or :func:`count`."""
    if value is None:
        return None
    try:
        return count(name, value, minimum=minimum)
    except ValueError:
        raise ValueError(f"{name} must be an int >= {minimum} or None, got {value!r}") from None


def seconds(name: str, value: object, *, positive: bool = False) -> float:
    """A finite number of seconds, ``> 0`` when ``positive``, else ``>= 0``.

    Raises:
        ValueError: NaN, infinity, a negative (or zero) value, or not a number.
    """
    number = None
    if not isinstance(value, bool) and isinstance(value, numbers.Real):
        number = float(value)
    if number is None or not math.isfinite(number) or number < 0 or (positive and number == 0):
        allowed = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be a finite number of seconds {allowed}, got {value!r}")
    return number
