"""Argument validators shared by every layer: one rule, one message.

They run before anything is sent, so a bad argument costs nothing. Each takes
the ``error`` class to raise (a :class:`ValueError`; the client's settings use
:class:`~socialframe._config.SettingError`, a ``ConfigError`` too).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import operator


def count(
    name: str,
    value: object,
    *,
    minimum: int = 0,
    maximum: int | None = None,
    error: type[ValueError] = ValueError,
) -> int:
    """A whole number ``>= minimum`` (and ``<= maximum`` when given).

    Any integer type is accepted (NumPy's included); a bool, a float or a string
    is not, even when it looks whole.

    Raises:
        ValueError: anything else, naming the argument (as ``error``).
    """
    number = None
    if not isinstance(value, bool):
        with contextlib.suppress(TypeError):
            number = operator.index(value)  # type: ignore[arg-type]
    if number is None or number < minimum or (maximum is not None and number > maximum):
        allowed = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum:,}"
        raise error(f"{name} must be an int {allowed}, got {_shown(value)}")
    return int(number)


def count_or_none(name: str, value: object, *, minimum: int = 0) -> int | None:
    """``None``, or :func:`count`."""
    if value is None:
        return None
    try:
        return count(name, value, minimum=minimum)
    except ValueError:
        raise ValueError(f"{name} must be an int >= {minimum} or None, got {value!r}") from None


def seconds(
    name: str,
    value: object,
    *,
    positive: bool = False,
    maximum: float | None = None,
    error: type[ValueError] = ValueError,
) -> float:
    """A finite number of seconds, ``> 0`` when ``positive``, else ``>= 0``, and at
    most ``maximum`` when given (a longer wait overflows the clocks it is handed to).

    Raises:
        ValueError: NaN, infinity, a negative (or zero) value, too large, or not a
            number (as ``error``).
    """
    number = None
    if not isinstance(value, bool) and isinstance(value, numbers.Real):
        with contextlib.suppress(OverflowError):  # an int too large for a float
            number = float(value)
    if (
        number is None
        or not math.isfinite(number)
        or number < 0
        or (positive and number == 0)
        or (maximum is not None and number > maximum)
    ):
        allowed = "> 0" if positive else ">= 0"
        if maximum is not None:
            allowed += f" and <= {maximum:,g}"
        raise error(f"{name} must be a finite number of seconds {allowed}, got {_shown(value)}")
    return number


def flag(name: str, value: object, *, none: bool = False) -> bool | None:
    """``True`` or ``False`` (or ``None`` when ``none``): a string such as ``"no"``
    is refused, since it would count as true.

    Raises:
        TypeError: anything else.
    """
    if isinstance(value, bool) or (none and value is None):
        return value
    allowed = "True, False or None" if none else "True or False"
    raise TypeError(f"{name} must be {allowed}, not {type(value).__name__}")


def _shown(value: object) -> str:
    """``value`` for a message, cut short: a setting may be a huge number or text."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
