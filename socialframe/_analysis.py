"""Pure analysis of comments and ads frames: what people do right after the fetch.

Every function takes a frame (as built by :mod:`socialframe._frames`) and returns
a new one; nothing is fetched, nothing is kept. ``df.social`` (the accessor) and
the widgets are thin shells over these.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

from ._time import calendar_day

#: The columns each kind of analysis reads: a frame with all of them is of that kind.
COMMENT_NEEDS = (
    "post_urn", "comment_id", "parent_comment_id", "created_at", "text", "author_type",
    "author_name", "author_id", "author_title", "author_followers", "author_url",
)  # fmt: skip
AD_NEEDS = (
    "ad_archive_id", "page_id", "page_name", "is_active", "start_date", "end_date",
    "publisher_platforms", "display_format",
)  # fmt: skip

AUTHOR_COLUMNS = (
    "author_id",
    "author_name",
    "author_type",
    "author_title",
    "author_followers",
    "author_url",
    "comments",
    "first_comment_at",
    "last_comment_at",
)


def _start_anchored(freq: str) -> Any:
    """The offset whose bins start where the period starts.

    pandas labels ``"1W"`` / ``"1ME"`` bins by their last day; charts and tables
    want the first. Weeks run Monday to Sunday for ``"W"`` (= ``"W-SUN"``, weeks
    ending on Sunday), months from the 1st.
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


def local_midnight(day: date, tz: str) -> pd.Timestamp:
    """The first instant of ``day`` in ``tz``.

    A DST change can skip midnight (the day starts at the first instant after the
    gap) or repeat it (the day starts at the first of the two).
    """
    return pd.Timestamp(day).tz_localize(tz, nonexistent="shift_forward", ambiguous=True)


def comment_activity(
    comments: pd.DataFrame, freq: str = "1D", *, by: str | None = None, tz: str = "UTC"
) -> pd.DataFrame:
    """Comments per period, empty periods as 0; optionally one column per ``by`` value.

    Periods are cut in ``tz`` (a day in Europe/Berlin starts at midnight there, not
    in UTC; a zone's 23- and 25-hour days are days too) and labelled by their start:
    weeks run Monday to Sunday, months from the 1st. Comments without a time are
    left out. A categorical ``by`` column (``author_type``) gives a column for every
    category, even an absent one; rows whose ``by`` value is missing are counted
    in a last column ``"<NA>"``.

    Returns:
        An int64 frame indexed by period start (tz-aware, in ``tz``), with one
        column ``comments`` or one per ``by`` value.
    """
    times = comments["created_at"].dt.tz_convert(tz)
    keep = times.notna().to_numpy()
    offset = _start_anchored(freq)
    # Calendar periods (days and longer) are cut on local wall time, then labelled
    # with their local start; shorter ones are fixed durations, cut on the instants.
    calendar = not isinstance(offset, pd.tseries.offsets.Tick) or offset.nanos >= 86_400e9
    stamps = times[keep].dt.tz_localize(None) if calendar else times[keep]
    index = pd.DatetimeIndex(stamps, name="period")
    if by is None:
        frame = pd.DataFrame({"comments": np.ones(int(keep.sum()), dtype="int64")}, index=index)
    else:
        labels = comments.loc[keep, by]
        if isinstance(labels.dtype, pd.CategoricalDtype):
            columns = [str(c) for c in labels.cat.categories]
        else:
            columns = sorted({str(v) for v in labels.dropna()})
        text = labels.astype("object").where(labels.notna(), "<NA>").astype(str).to_numpy()
        if (text == "<NA>").any():
            columns.append("<NA>")
        frame = pd.get_dummies(pd.Categorical(text, categories=columns), dtype="int64")
        frame.index = index
    counts = frame.resample(offset, closed="left", label="left").sum()
    if calendar and counts.empty:
        counts.index = counts.index.tz_localize(tz)
    elif calendar:
        counts.index = pd.DatetimeIndex(
            [local_midnight(stamp, tz) if stamp == stamp.normalize() else stamp.tz_localize(tz)
             for stamp in counts.index]
        )  # fmt: skip
    if by is not None:
        counts.columns = pd.Index(counts.columns, name=by)
    counts.index.name = "period"
    return counts.astype("int64")


def authors(comments: pd.DataFrame) -> pd.DataFrame:
    """One row per author (person or organisation), most comments first.

    Columns: :data:`AUTHOR_COLUMNS`. Authors are keyed by ``author_id`` (by name
    when the id is missing); their details (name, title, followers, ...) are those
    of their latest comment, as shown there. Comments with neither an author id
    nor a name belong to no author and are not counted.
    """
    key = comments["author_id"].fillna("name:" + comments["author_name"])
    known = comments.assign(_key=key)[key.notna()]
    if known.empty:
        return _empty_authors(comments)
    ordered = known.sort_values("created_at", kind="stable", na_position="first")
    grouped = ordered.groupby("_key", sort=False, observed=True)
    latest = grouped.tail(1).set_index("_key")[list(AUTHOR_COLUMNS[:6])]
    out = latest.assign(
        comments=grouped.size().astype("int64"),
        first_comment_at=grouped["created_at"].min(),
        last_comment_at=grouped["created_at"].max(),
    )
    out = out.sort_values(
        ["comments", "last_comment_at", "author_name"],
        ascending=[False, False, True],
        kind="stable",
    )
    return out.reset_index(drop=True)[list(AUTHOR_COLUMNS)]


def _empty_authors(comments: pd.DataFrame) -> pd.DataFrame:
    frame = comments[list(AUTHOR_COLUMNS[:6])].iloc[:0].copy()
    frame["comments"] = pd.Series(dtype="int64")
    frame["first_comment_at"] = comments["created_at"].iloc[:0]
    frame["last_comment_at"] = comments["created_at"].iloc[:0]
    return frame.reset_index(drop=True)


def threads(comments: pd.DataFrame) -> pd.DataFrame:
    """Top-level comments with their reply counts and last reply time, busiest first.

    Replies count toward their parent only when the parent is in the frame (after
    ``max_pages`` or a filter it may not be); such replies appear in no thread.
    """
    is_reply = comments["parent_comment_id"].notna()
    replies = comments[is_reply].groupby("parent_comment_id", observed=True)["created_at"]
    top = comments.loc[~is_reply, [
        "post_urn", "comment_id", "created_at", "author_name", "author_type", "text",
    ]]  # fmt: skip
    ids = top["comment_id"].to_numpy()
    out = top.assign(
        replies=replies.size().reindex(ids, fill_value=0).to_numpy(dtype="int64"),
        last_reply_at=replies.max().reindex(ids).array,
    )
    return out.sort_values(
        ["replies", "created_at"], ascending=[False, False], kind="stable"
    ).reset_index(drop=True)


# -- ads ---------------------------------------------------------------------------------


def _sorted_union(values: Iterable[Any]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        if isinstance(value, list | tuple | np.ndarray):
            seen.update(str(v) for v in value)
        elif not pd.isna(value):
            seen.add(str(value))
    return sorted(seen)


def _unions(grouped: Any, column: str) -> pd.Series:
    # Built by hand: pandas infers an Arrow list dtype for some inputs and object for others.
    unions = {key: _sorted_union(values) for key, values in grouped[column]}
    return pd.Series(unions, dtype=object)


def ads_by_page(ads: pd.DataFrame) -> pd.DataFrame:
    """One row per advertiser: ads, active ads, first start, last end, platforms, formats.

    Advertisers are keyed by ``page_id`` (by name when the id is missing); the name
    shown is the one of their latest ad. ``last_end`` is NaT while an active ad has
    no end date (still running). Ads with neither a page id nor a name are left out.
    """
    key = ads["page_id"].fillna("name:" + ads["page_name"])
    known = ads.assign(_key=key)[key.notna()]
    ordered = known.sort_values("start_date", kind="stable", na_position="first")
    grouped = ordered.groupby("_key", sort=False, observed=True)
    open_ended = (ordered["end_date"].isna() & ordered["is_active"].fillna(False)).groupby(
        ordered["_key"], sort=False
    ).any()  # fmt: skip
    latest = grouped.tail(1).set_index("_key")
    out = pd.DataFrame(
        {
            "page_id": latest["page_id"],
            "page_name": latest["page_name"],
            "ads": grouped.size().astype("int64"),
            "active": grouped["is_active"].sum().astype("int64"),
            "first_start": grouped["start_date"].min(),
            "last_end": grouped["end_date"].max().mask(open_ended.astype(bool)),
            "platforms": _unions(grouped, "publisher_platforms"),
            "display_formats": _unions(grouped, "display_format"),
        }
    )
    out = out.astype({"page_id": "string", "page_name": "string"})
    return out.sort_values(
        ["ads", "active", "page_name"], ascending=[False, False, True], kind="stable"
    ).reset_index(drop=True)


def ads_active_on(
    ads: pd.DataFrame, day: date | datetime | str, *, tz: str = "UTC"
) -> pd.DataFrame:
    """Ads running at some moment of ``day`` (from its midnight to the next, in ``tz``).

    An ad runs from ``start_date`` to ``end_date``. With no end date, an active ad
    runs until now, an inactive one is taken to have run on its start day only.
    The rows keep their index (this is a filter).
    """
    local = calendar_day(day, tz)
    start = local_midnight(local, tz)
    end = local_midnight(local + pd.Timedelta(days=1), tz)
    ends = ads["end_date"].copy()
    open_active = ends.isna() & ads["is_active"].fillna(False).astype(bool)
    ends[open_active] = pd.Timestamp.now(tz="UTC")
    ends = ends.fillna(ads["start_date"])
    running = (ads["start_date"] < end) & (ends >= start)
    return ads[running.fillna(False).astype(bool)]
