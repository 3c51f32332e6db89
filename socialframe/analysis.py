"""Pure analysis of comments and ads frames: what people do right after the fetch.

Every function takes a frame (as built by :mod:`socialframe.frames`) and returns
a new one; nothing is fetched, nothing is kept. ``df.social`` (the accessor) and
the widgets are thin shells over these.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

COMMENT_NEEDS = ("comment_id", "parent_comment_id", "created_at", "author_type", "author_name")
AD_NEEDS = ("ad_archive_id", "page_id", "page_name", "is_active", "start_date", "end_date")

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


def comment_activity(
    comments: pd.DataFrame, freq: str = "1D", *, by: str | None = None, tz: str = "UTC"
) -> pd.DataFrame:
    """Comments per period, empty periods as 0; optionally one column per ``by`` value.

    Periods are cut in ``tz`` (a day in Europe/Berlin starts at midnight there, not
    in UTC). Comments without a time are left out. A categorical ``by`` column
    (``author_type``) gives a column for every category, even an absent one.

    Returns:
        An int64 frame indexed by period start (tz-aware, in ``tz``), with one
        column ``comments`` or one per ``by`` value.
    """
    times = comments["created_at"].dt.tz_convert(tz)
    keep = times.notna().to_numpy()
    index = pd.DatetimeIndex(times[keep], name="period")
    if by is None:
        values = pd.Series(np.ones(int(keep.sum()), dtype="int64"), index=index)
        counts = values.resample(freq).sum().to_frame("comments")
    else:
        labels = comments.loc[keep, by]
        dummies = pd.get_dummies(labels.astype("object").fillna("<NA>").to_numpy(), dtype="int64")
        dummies.index = index
        counts = dummies.resample(freq).sum()
        if isinstance(labels.dtype, pd.CategoricalDtype):
            counts = counts.reindex(columns=list(labels.cat.categories), fill_value=0)
        counts.columns = pd.Index(counts.columns, name=by)
    counts.index.name = "period"
    return counts.astype("int64")


def authors(comments: pd.DataFrame) -> pd.DataFrame:
    """One row per author (person or organisation), most comments first.

    Columns: :data:`AUTHOR_COLUMNS`. Authors are keyed by ``author_id`` (by name
    when the id is missing); their details come from their latest comment.
    """
    if comments.empty:
        return _empty_authors(comments)
    key = comments["author_id"].fillna("name:" + comments["author_name"].fillna(""))
    ordered = comments.assign(_key=key).sort_values("created_at", kind="stable")
    grouped = ordered.groupby("_key", sort=False, observed=True)
    detail = grouped[list(AUTHOR_COLUMNS[:6])].last()
    out = detail.assign(
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
    """Top-level comments with their reply counts and last reply time, busiest first."""
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
    """One row per advertiser: ads, active ads, first start, last end, platforms, formats."""
    key = ads["page_id"].fillna("name:" + ads["page_name"].fillna(""))
    grouped = ads.assign(_key=key).groupby("_key", sort=False, observed=True)
    out = pd.DataFrame(
        {
            "page_id": grouped["page_id"].first(),
            "page_name": grouped["page_name"].first(),
            "ads": grouped.size().astype("int64"),
            "active": grouped["is_active"].sum().astype("int64"),
            "first_start": grouped["start_date"].min(),
            "last_end": grouped["end_date"].max(),
            "platforms": _unions(grouped, "publisher_platforms"),
            "display_formats": _unions(grouped, "display_format"),
        }
    )
    if ads.empty:
        out = out.astype({"page_id": "string", "page_name": "string"})
    return out.sort_values(
        ["ads", "active", "page_name"], ascending=[False, False, True], kind="stable"
    ).reset_index(drop=True)


def _day_bounds(day: date | datetime | str, tz: str) -> tuple[pd.Timestamp, pd.Timestamp]:
    stamp = pd.Timestamp(day)
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize(tz)
    start = stamp.normalize()
    return start, start + pd.Timedelta(days=1)


def ads_active_on(
    ads: pd.DataFrame, day: date | datetime | str, *, tz: str = "UTC"
) -> pd.DataFrame:
    """Ads running at some moment of ``day`` (a day in ``tz``).

    An ad runs from ``start_date`` to ``end_date``; an ad with no end date runs
    until now if it is still active.
    """
    try:
        start, end = _day_bounds(day, tz)
    except (TypeError, ValueError):
        raise ValueError(
            f"day must be a date, a datetime or an ISO date string; got {day!r}"
        ) from None
    ends = ads["end_date"].copy()
    ends[ends.isna() & ads["is_active"].fillna(False).astype(bool)] = pd.Timestamp.now(tz="UTC")
    running = (ads["start_date"] < end) & (ends >= start)
    return ads[running.fillna(False).astype(bool)]
