"""Helpers shared by the sandbox's data generators: the reference date, seeded randomness, dates.

Everything here is pure: the same arguments always give the same result, so two
sandboxes with the same seed and the same ``now`` answer byte-identical bodies.
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime

from .._clock import START

REFERENCE: datetime = START
"""2026-01-01T00:00:00Z: the sandbox's world is dated relative to it, never to the
wall clock's zero hour, so the world at a given ``now`` never drifts. At this
``now`` it is the world the docs describe (2,345 comments on the biggest post);
it grows after it (``COMMENT_GROWTH``, ``AD_GROWTH``)."""

REFERENCE_MS = 1_767_225_600_000
REFERENCE_S = REFERENCE_MS // 1000
assert int(REFERENCE.timestamp()) * 1000 == REFERENCE_MS

DAY_S = 86_400
WEEK_MS = 7 * DAY_S * 1000


def now_ms(now: datetime | None) -> int:
    """Return ``now`` in Unix milliseconds; ``None`` is the reference date.

    Args:
        now: A tz-aware datetime, or None.

    Returns:
        Milliseconds since the epoch (floored).

    Raises:
        ValueError: ``now`` is naive (no time zone).
    """
    if now is None:
        return REFERENCE_MS
    if now.tzinfo is None:
        raise ValueError("now must be tz-aware, e.g. datetime(2026, 1, 8, tzinfo=UTC)")
    # Exact integer arithmetic: timestamp() is a float and would round microseconds.
    delta = now - REFERENCE
    return REFERENCE_MS + (delta.days * DAY_S + delta.seconds) * 1000 + delta.microseconds // 1000


class BadParam(ValueError):
    """A query parameter the real service would answer with HTTP 400."""


def rng_for(*parts: object) -> random.Random:
    """Return a generator seeded from ``parts``.

    String seeds are hashed with SHA-512 by :mod:`random`, so this does not depend
    on ``PYTHONHASHSEED`` and is stable across processes and Python versions.

    Args:
        *parts: Values that together name what is being generated (seed, kind, id).

    Returns:
        A fresh :class:`random.Random`.
    """
    return random.Random("|".join(map(str, parts)))


def digest(*parts: object) -> str:
    """Return the SHA-256 hex digest of ``parts`` joined with ``|``.

    Args:
        *parts: Values to hash.

    Returns:
        64 lowercase hex characters.
    """
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def _civil_from_days(days: int) -> tuple[int, int, int]:
    # Howard Hinnant's days -> (year, month, day) for the proleptic Gregorian
    # calendar. Used instead of datetime because datetime stops at year 9999 and
    # the replies' garbage timestamps land in the tens of thousands.
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def utc_string(seconds: int) -> str:
    """Render Unix seconds as ``YYYY-MM-DD HH:MM:SS`` (UTC), for any year.

    Args:
        seconds: Seconds since the epoch; may be far beyond year 9999.

    Returns:
        The rendering, e.g. ``"2025-11-03 14:05:09"``.
    """
    days, rest = divmod(seconds, DAY_S)
    year, month, day = _civil_from_days(days)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    return f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"


def date_to_seconds(text: str) -> int:
    """Parse ``YYYY-MM-DD`` into Unix seconds at 00:00 UTC.

    Args:
        text: The date.

    Returns:
        Seconds since the epoch.

    Raises:
        BadParam: ``text`` is not a valid ``YYYY-MM-DD`` date.
    """
    parts = text.split("-")
    if (
        len(parts) != 3
        or [len(p) for p in parts] != [4, 2, 2]
        or not all(p.isascii() and p.isdigit() for p in parts)
    ):
        raise BadParam(f"Invalid date {text!r}: expected YYYY-MM-DD")
    year, month, day = (int(p) for p in parts)
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        raise BadParam(f"Invalid date {text!r}: expected YYYY-MM-DD")
    # Inverse of _civil_from_days (same algorithm, other direction).
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    mp = month - 3 if month > 2 else month + 9
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return (era * 146_097 + doe - 719_468) * DAY_S


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31
