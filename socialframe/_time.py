"""Calendar and time rules, in one place: days, bounds, periods, and when an ad ran.

**Bounds are inclusive.** A search's ``after`` / ``before`` and a filter's
``start`` / ``end`` follow one rule:

- a *day* (a ``date``, or a date-only ISO string such as ``"2025-12-01"``) stands
  for the whole day in the zone ``tz``: a lower bound from its first instant
  (its local midnight), an upper bound through its last (up to, not including,
  the next local midnight);
- an *instant* (a ``datetime`` or an ISO string with a time) is itself
  included; a naive one is read in ``tz``.

The service's searches take whole days only, so an instant given as ``after`` /
``before`` names the day it falls on in UTC, the service's calendar.

A local day starts at its first instant: where a DST change skips midnight
(Santiago, Beirut, Havana) that is the first instant after the gap; where it
repeats midnight, the first of the two.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any, Final, NamedTuple

import pandas as pd

_ISO_HELP: Final = "a date, a datetime or an ISO date string such as '2025-12-01'"


def instant(text: object) -> datetime | None:
    """An ISO time stamp as a UTC ``datetime``, or None where it is none (not text, not
    ISO, or so close to the calendar's ends that UTC cannot hold it: a stored page's
    stamp, which anyone able to write the cache could have set).

    Example:
        >>> instant("2026-01-12T09:30:16+01:00"), instant("9999-12-31T23:59:59-23:59")
        (datetime.datetime(2026, 1, 12, 8, 30, 16, tzinfo=datetime.timezone.utc), None)
    """
    if not isinstance(text, str):
        return None
    try:
        stamp = datetime.fromisoformat(text)
        if stamp.tzinfo is None:  # (as requests-cache reads a naive one)
            stamp = stamp.replace(tzinfo=UTC)
        return stamp.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def check_zone(tz: str) -> None:
    """Raise ``ValueError`` unless ``tz`` is a time zone pandas knows (an IANA name).

    Example:
        >>> check_zone("Mars/Base")
        Traceback (most recent call last):
        ...
        ValueError: tz must be an IANA time zone such as 'Europe/Berlin', got 'Mars/Base'
    """
    try:
        if not isinstance(tz, str) or not tz.strip():
            raise TypeError(tz)
        pd.Timestamp(0, tz=tz)
    except (KeyError, ValueError, TypeError, IndexError) as exc:  # not found: a KeyError
        raise ValueError(f"tz must be an IANA time zone such as 'Europe/Berlin', got {tz!r}") from (
            None if isinstance(exc, KeyError) else exc
        )


def parse_when(value: object, *, name: str = "day") -> date | datetime:
    """A date or a datetime from a ``date``, a ``datetime`` or an ISO string.

    A date-only string is a ``date``; one with a time, a ``datetime``.

    Raises:
        ValueError: a string that is not an ISO date or datetime.
        TypeError: anything else.
    """
    if isinstance(value, str):
        text = value.strip()
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"{name} must be {_ISO_HELP}; got {value!r}") from None
    if isinstance(value, date):  # datetimes (and pandas Timestamps) are dates too
        return value
    raise TypeError(f"{name} must be {_ISO_HELP}, not {type(value).__name__}")


def calendar_day(value: object, tz: str = "UTC", *, name: str = "day") -> date:
    """The calendar day a date, datetime or ISO string names, in ``tz``.

    A naive datetime names its own date; an aware one the day it falls on in ``tz``.

    Raises:
        ValueError, TypeError: see :func:`parse_when`.
    """
    when = parse_when(value, name=name)
    if isinstance(when, datetime):
        if when.tzinfo is not None:
            when = pd.Timestamp(when).tz_convert(tz)
        return date(when.year, when.month, when.day)
    return when


def local_midnight(day: date, tz: str) -> pd.Timestamp:
    """The first instant of ``day`` in ``tz`` (see the module docstring for DST days)."""
    return pd.Timestamp(day).tz_localize(tz, nonexistent="shift_forward", ambiguous=True)


class Bound(NamedTuple):
    """A filter bound as an instant, and whether that instant is excluded."""

    at: pd.Timestamp
    exclusive: bool


def bound(value: object, tz: str, *, upper: bool, name: str) -> Bound | None:
    """A ``start`` (``upper=False``) or ``end`` bound by the module's rule; None stays None.

    A day's upper bound is the next local midnight, excluded; every other bound
    is included.

    Raises:
        ValueError: a malformed value (a wrong type is a ValueError here too: it is
            a bad value of a filter).
    """
    if value is None:
        return None
    try:
        when = parse_when(value, name=name)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    if isinstance(when, datetime):
        stamp = pd.Timestamp(when)
        return Bound(stamp.tz_localize(tz) if stamp.tzinfo is None else stamp, False)
    if upper:
        return Bound(local_midnight(when + timedelta(days=1), tz), True)
    return Bound(local_midnight(when, tz), False)


def check_order(low: Bound | None, high: Bound | None, what: str) -> None:
    """Raise ValueError when the lower bound is past the upper one."""
    if low is None or high is None:
        return
    if low.at >= high.at if high.exclusive else low.at > high.at:
        raise ValueError(what)


def within(times: pd.Series, low: Bound | None, high: Bound | None) -> pd.Series:
    """A boolean mask of ``times`` inside the bounds (missing times are outside)."""
    keep = pd.Series(True, index=times.index)
    if low is not None:
        keep &= (times >= low.at).fillna(False).astype(bool)
    if high is not None:
        inside = times < high.at if high.exclusive else times <= high.at
        keep &= inside.fillna(False).astype(bool)
    return keep


# -- periods ------------------------------------------------------------------------------

_PERIOD_WORDS: Final = {
    "D": "day",
    "h": "hour",
    "min": "minute",
    "W": "week",
    "ME": "month",
    "MS": "month",
    "QE": "quarter",
    "QS": "quarter",
    "YE": "year",
    "YS": "year",
}


def period_offset(freq: str) -> Any:
    """The pandas offset of ``freq`` whose bins start where the period starts.

    pandas labels ``"1W"`` / ``"1ME"`` bins by their last day; charts and tables
    want the first. Weeks run Monday to Sunday for ``"W"`` (= ``"W-SUN"``, weeks
    ending on Sunday), months from the 1st, quarters and years likewise.
    """
    offsets = pd.tseries.offsets
    offset = pd.tseries.frequencies.to_offset(freq)
    if isinstance(offset, offsets.Week) and offset.weekday is not None:
        return offsets.Week(offset.n, weekday=(offset.weekday + 1) % 7)
    if isinstance(offset, offsets.MonthEnd):
        return offsets.MonthBegin(offset.n)
    if isinstance(offset, offsets.QuarterEnd):
        return offsets.QuarterBegin(offset.n, startingMonth=offset.startingMonth % 12 + 1)
    if isinstance(offset, offsets.YearEnd):
        return offsets.YearBegin(offset.n, month=offset.month % 12 + 1)
    return offset


def is_calendar(offset: Any) -> bool:
    """Whether periods of ``offset`` are calendar periods (a day or longer).

    Calendar periods are cut on local wall time (a DST day has 23 or 25 hours);
    shorter ones are fixed durations, cut on the instants.
    """
    return not isinstance(offset, pd.tseries.offsets.Tick) or offset.nanos >= 86_400e9


def localize_starts(starts: pd.DatetimeIndex, tz: str) -> pd.DatetimeIndex:
    """Wall-clock period starts -> instants in ``tz``; a day starts at its first instant."""
    if starts.empty:
        return starts.tz_localize(tz)
    return pd.DatetimeIndex(
        [
            local_midnight(start, tz) if start == start.normalize() else start.tz_localize(tz)
            for start in starts
        ]
    )


def period_word(freq: str) -> str:
    """``"1D"`` -> ``"day"``, ``"1W"`` -> ``"week"``; other frequencies as given."""
    offset = pd.tseries.frequencies.to_offset(freq)
    if offset.n == 1:
        base = offset.rule_code.split("-")[0]
        return _PERIOD_WORDS.get(base, freq)
    return freq


# -- ads ----------------------------------------------------------------------------------


class Spans(NamedTuple):
    """When each ad ran (Series aligned with the ads frame)."""

    start: pd.Series
    end: pd.Series
    ongoing: pd.Series


def ad_spans(ads: pd.DataFrame, *, now: pd.Timestamp | None = None) -> Spans:
    """When each ad ran: from ``start_date`` to ``end_date``.

    With no end date, an active ad runs until ``now`` (it is *ongoing*); an
    inactive one is taken to have run at its start only.

    Args:
        ads: An ads frame.
        now: The end of ongoing ads; the current time when omitted.

    Returns:
        ``start``, ``end`` (tz-aware) and ``ongoing`` (bool), indexed like ``ads``.
    """
    ongoing = (ads["end_date"].isna() & ads["is_active"].fillna(False)).astype(bool)
    until = pd.Timestamp.now(tz="UTC") if now is None else now
    end = ads["end_date"].mask(ongoing, until).fillna(ads["start_date"])
    return Spans(ads["start_date"], end, ongoing)


def duration(value: pd.Timedelta) -> str:
    """``"1d 19h"``, ``"4h 13m"``, ``"35m 10s"``, ``"12s"``: the two largest units, rounded down.

    Example:
        >>> duration(pd.Timedelta("1 days 19:13:32.694"))
        '1d 19h'
        >>> [duration(pd.Timedelta(t)) for t in ("04:13:06.6", "00:35:10", "12.9s", "-3min")]
        ['4h 13m', '35m 10s', '12s', '-3m 0s']
    """
    seconds = int(abs(value).total_seconds())
    sign = "-" if value < pd.Timedelta(0) else ""
    parts = [(seconds // 86_400, "d"), (seconds // 3600 % 24, "h"), (seconds // 60 % 60, "m")]
    parts.append((seconds % 60, "s"))
    while len(parts) > 2 and parts[0][0] == 0:
        parts.pop(0)
    if parts[0][0] == 0 and len(parts) == 2:
        parts.pop(0)
    return sign + " ".join(f"{n}{unit}" for n, unit in parts[:2])
