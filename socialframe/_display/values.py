"""How each kind of value shows, one rule per kind, in every display socialframe draws:
a notebook's tables (:mod:`.notebook`), the interactive tables (:mod:`.tables`), the
widgets' tables (:mod:`.html`), the reports (:mod:`.report`) and the charts' labels
(:mod:`.plots`). The data is never changed, only what a display shows of it.

- **Numbers**: one format per column, thousands separated: a column of whole numbers
  shows whole numbers (``1,000`` and ``100``, never ``100.0`` beside them), any other
  the same decimals on every row (two; three when every value is under 1); USD
  (``*_usd``) always two.
- **Shares** are fractions from 0 to 1 in the data (a share of 1 is everything) and
  show as percentages with one decimal (``14.0%``), in the tables and on the charts'
  axes: the columns :func:`socialframe._schema.share_columns` names.
- **Flags** show as ``yes`` / ``no``.
- **Times** show to the minute, in the zone asked (``2025-12-30 23:58``), never with
  seconds or microseconds; a column of whole days shows days. **An ad's dates**
  (:data:`socialframe._schema.AD_DAYS`: ``start_date``, ``end_date``, ``first_start``,
  ``last_end``) are days everywhere (``2024-01-11``), in UTC.
- **Durations** show their two largest units (``20h 14m``, ``1d 19h``).
- **Ranges** of days or times read ``2025-11-02 to 2026-01-01``.
- **Lists** show their items joined by ``, ``; an object (alone or in a list) shows as
  JSON (``{"title": null}``), never as Python's repr.
- **Posts** show the end of their id (``…592962``), as long as it takes to tell the
  posts apart, the whole post on hover where a display has one.

Pure functions of pandas values; HTML is each display's own business.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

import pandas as pd

from .._schema import AD_DAYS, is_instant
from .._time import duration

DAY: Final = "%Y-%m-%d"
"""How a day shows."""
MINUTE: Final = "%Y-%m-%d %H:%M"
"""How a time shows: to the minute."""

Look = str
"""A column's layout: ``num`` (right-aligned), ``time``, ``word`` (short text)."""


def flag(value: object) -> str:
    """A flag as every display shows it (missing: blank).

    Example:
        >>> flag(True), flag(False), flag(pd.NA)
        ('yes', 'no', '')
    """
    if not present(value):
        return ""
    return "yes" if value else "no"


def percent(value: float) -> str:
    """A share (a fraction) as a percentage with one decimal.

    Example:
        >>> percent(0.14), percent(0.1567), percent(0.0), percent(1.0)
        ('14.0%', '15.7%', '0.0%', '100.0%')
    """
    return f"{value * 100:,.1f}%"


def number_format(
    column: pd.Series, *, name: object = None, share: bool = False
) -> Callable[[float], str]:
    """The one format of a column of numbers (see the module): a function of a present
    value.

    Args:
        column: The column (its dtype and values choose the format).
        name: Its name (``*_usd`` is money: two decimals).
        share: It holds shares: percentages.

    Example:
        >>> spend = pd.Series([1000.0, 100.0, None], dtype="Float64")
        >>> fmt = number_format(spend)
        >>> fmt(1000.0), fmt(100.0)
        ('1,000', '100')
        >>> fmt = number_format(pd.Series([0.0, 0.14, 0.157]), share=True)
        >>> fmt(0.0), fmt(0.14), fmt(0.157)
        ('0.0%', '14.0%', '15.7%')
        >>> number_format(pd.Series([0.5, 12.25]))(0.5)
        '0.50'
    """
    if share:
        return percent
    if isinstance(name, str) and name.endswith("_usd"):
        return lambda v: f"{v:,.2f}"
    if pd.api.types.is_integer_dtype(column.dtype):
        return lambda v: f"{int(v):,}"
    finite = [float(v) for v in column.dropna() if math.isfinite(float(v))]
    if all(v.is_integer() for v in finite):
        return lambda v: f"{v:,.0f}"
    decimals = 3 if max(abs(v) for v in finite) < 1 else 2
    return lambda v: f"{v:,.{decimals}f}"


def when(name: object, column: pd.Series, tz: str) -> tuple[pd.Series, str]:
    """How a column of times shows: its instants in the zone they show in, and their
    ``strftime`` format.

    An ad's dates (:data:`~socialframe._schema.AD_DAYS`) are days in UTC; a column of
    moments (:func:`~socialframe._schema.is_instant`: ``created_at``...) shows minutes
    in ``tz``; any other whose every time is a midnight in its own zone (periods of
    days, weeks, months) shows days; the rest minutes in ``tz``. Naive times are
    taken as UTC.

    Example:
        >>> starts = pd.Series(pd.to_datetime(["2024-01-11 16:00"], utc=True))
        >>> shown, fmt = when("first_start", starts, "Asia/Tokyo")
        >>> shown.dt.strftime(fmt).tolist()
        ['2024-01-11']
        >>> shown, fmt = when("created_at", starts, "Asia/Tokyo")
        >>> shown.dt.strftime(fmt).tolist()
        ['2024-01-12 01:00']
    """
    dtype = column.dtype
    stamps = column if isinstance(dtype, pd.DatetimeTZDtype) else column.dt.tz_localize("UTC")
    if name in AD_DAYS:
        return stamps.dt.tz_convert("UTC"), DAY
    present = stamps.dropna()
    days = len(present) and not is_instant(name)
    if days and bool((present == present.dt.floor("D")).all()):
        return stamps, DAY  # (days of the zone they were cut in)
    return stamps.dt.tz_convert(tz), MINUTE


def texts(
    name: object, column: pd.Series, *, tz: str = "UTC", share: bool = False
) -> tuple[list[str], Look] | None:
    """What each cell of a column of numbers, flags, times or durations shows (missing:
    blank), and the column's look; None for other columns (text, lists), which each
    display shows its own way (links, hover titles, cut text).

    Args:
        name: The column's name (an ad's dates are days; ``*_usd`` is money).
        column: Its values.
        tz: The zone times show in.
        share: It holds shares (fractions): percentages.

    Example:
        >>> texts("complete", pd.Series([True, None], dtype="boolean"))
        (['yes', ''], 'word')
        >>> texts("spend_lower", pd.Series([1000.0, 100.0], dtype="Float64"))
        (['1,000', '100'], 'num')
        >>> texts("text", pd.Series(["hi"])) is None
        True
    """
    dtype = column.dtype
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(dtype):
        shown, strftime = when(name, column, tz)
        return [v.strftime(strftime) if present(v) else "" for v in shown], "time"
    if pd.api.types.is_timedelta64_dtype(dtype):
        return [duration(v) if present(v) else "" for v in column], "num"
    if pd.api.types.is_bool_dtype(dtype):
        return [flag(v) for v in column], "word"
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        fmt = number_format(column, name=name, share=share)
        return [fmt(v) if present(v) else "" for v in column], "num"
    return None


def item(value: object) -> str:
    """An object, or one item of a list, as every display shows it: objects and lists as
    JSON, anything else as its text.

    Example:
        >>> item({"title": None}), item(["a", 1]), item("FACEBOOK")
        ('{"title": null}', '["a", 1]', 'FACEBOOK')
    """
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def listed(values: Iterable[object]) -> str:
    """A list as every display shows it: its items (:func:`item`) joined by ``, ``.

    Example:
        >>> listed(["FACEBOOK", "INSTAGRAM"]), listed([{"title": None}])
        ('FACEBOOK, INSTAGRAM', '{"title": null}')
    """
    return ", ".join(map(item, values))


def span(first: str, last: str) -> str:
    """A range, as every display says it (one value when both ends are one).

    Example:
        >>> span("2025-11-02", "2026-01-01"), span("2025-11-02", "2025-11-02")
        ('2025-11-02 to 2026-01-01', '2025-11-02')
    """
    return first if first == last else f"{first} to {last}"


_ID: Final = re.compile(r"(\d+)\D*$")


def post_labels(posts: Sequence[object] | Iterable[object]) -> list[str]:
    """Labels for posts (ids, urns or URLs): the end of each one's id after ``…``, at
    least six digits, as many as it takes to tell the posts apart; a post whose id
    another kind of post shares (``urn:li:activity:1``, ``urn:li:ugcPost:1``) whole.
    Missing posts are ``<NA>``.

    Example:
        >>> post_labels(["urn:li:activity:7384427202391592960", "7384427202391592963", None])
        ['…592960', '…592963', '<NA>']
        >>> post_labels(["7384427202391592960", "7384427202391592960"])
        ['…592960', '…592960']
        >>> post_labels(["urn:li:activity:1", "urn:li:ugcPost:1"])
        ['urn:li:activity:1', 'urn:li:ugcPost:1']
    """
    given = [str(p) if present(p) else None for p in posts]
    ids = {}
    for post in dict.fromkeys(p for p in given if p is not None):
        found = _ID.search(post)
        ids[post] = found.group(1) if found else post
    if len(set(ids.values())) < len(ids):  # one id, two kinds of post: say which
        return [p if p is not None else "<NA>" for p in given]
    longest = max(map(len, ids.values()), default=0)
    keep = 6
    while keep < longest:
        tails = {i if len(i) <= keep + 1 else "…" + i[-keep:] for i in ids.values()}
        if len(tails) == len(set(ids.values())):
            break
        keep += 1
    labels = {
        post: i if len(i) <= keep + 1 or not i.isdigit() else "…" + i[-keep:]
        for post, i in ids.items()
    }
    return [labels[p] if p is not None else "<NA>" for p in given]


def present(value: object) -> bool:
    """Whether a cell holds a value (a list or an array does, even an empty one)."""
    if value is None:
        return False
    try:
        return not bool(pd.isna(value))
    except (TypeError, ValueError):  # a list, an array: present
        return True
