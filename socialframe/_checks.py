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
import re
from typing import Final


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


_UNITS: Final = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
}


# Unit words spelled out in full ("ms" is no unit here, never read as minutes).
_TEXT = re.compile(r"\s*(\d+)\s*/\s*(\d*)\s*([a-z]+)\s*", re.ASCII)


RateLimit = float | str | None
"""Calls per second (``2.5``), ``"<n>/<unit>"`` (``"300/min"``, ``"5/s"``,
``"1000/hour"``, ``"10/2s"``), or ``None`` for no limit."""


def parse_rate(rate_limit: object) -> tuple[int, int] | None:
    """``(calls, per milliseconds)`` of a rate limit, or None.

    Raises:
        ValueError: not a positive number of calls per second or ``"n/unit"``.
        TypeError: neither a number nor text.

    Example:
        >>> parse_rate("300/min"), parse_rate(2), parse_rate(0.5), parse_rate(None)
        ((300, 60000), (2, 1000), (1, 2000), None)
        >>> parse_rate(5), parse_rate(2.5), parse_rate("10/2s"), parse_rate("5 / s")
        ((5, 1000), (1, 400), (10, 2000), (5, 1000))
        >>> parse_rate("1000/hour")
        (1000, 3600000)
    """
    if rate_limit is None:
        return None
    if isinstance(rate_limit, str):
        found = _TEXT.fullmatch(rate_limit.lower())
        if (
            not found
            or found.group(3) not in _UNITS
            or int(found.group(1)) < 1
            or (found.group(2) != "" and int(found.group(2)) < 1)
        ):
            raise ValueError(
                f"rate_limit must be calls per second or like '300/min', got {rate_limit!r}"
            )
        times = int(found.group(2) or 1)
        return int(found.group(1)), times * _UNITS[found.group(3)] * 1000
    if isinstance(rate_limit, bool) or not isinstance(rate_limit, int | float):
        raise TypeError(
            f"rate_limit must be a number, text or None, not {type(rate_limit).__name__}"
        )
    if not rate_limit > 0 or rate_limit == float("inf"):
        raise ValueError(f"rate_limit must be a finite number > 0, got {rate_limit!r}")
    if float(rate_limit).is_integer():
        return int(rate_limit), 1000
    return 1, max(1, round(1000 / rate_limit))  # one call every 1/r seconds
