"""Pure analysis of comments frames: what people do right after the fetch.

Every function takes a frame (as built by :mod:`socialframe._frames`) and returns
a new one; nothing is fetched, nothing is kept. ``df.social`` (the accessor) and
the widgets are thin shells over these. Time rules (days, bounds, periods, ad run
spans) come from :mod:`socialframe._time`; result columns from
:mod:`socialframe._schema`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from .. import _time
from .. import _words as words
from .._checks import count_or_none
from .._schema import (
    AUTHOR_DETAILS,
    AUTHOR_SUMMARY,
    THREAD_DETAILS,
    THREAD_SUMMARY,
    summary_columns,
)

AUTHOR_COLUMNS = summary_columns(AUTHOR_SUMMARY)
THREAD_COLUMNS = summary_columns(THREAD_SUMMARY)


# -- comments ---------------------------------------------------------------------------


def comment_activity(
    comments: pd.DataFrame, freq: str = "1D", *, by: str | None = None, tz: str = "UTC"
) -> pd.DataFrame:
    """Comments per period, empty periods as 0; optionally one column per ``by`` value.

    See :meth:`socialframe._accessor.CommentsAccessor.activity` for the rules.
    """
    _time.check_zone(tz)
    times = comments["created_at"].dt.tz_convert(tz)
    keep = times.notna().to_numpy()
    offset = _time.period_offset(freq)
    # Calendar periods (days and longer) are cut on local wall time, then labelled
    # with their local start; shorter ones are fixed durations, cut on the instants.
    calendar = _time.is_calendar(offset)
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
    if calendar:
        counts.index = _time.localize_starts(pd.DatetimeIndex(counts.index), tz)
    if by is not None:
        counts.columns = pd.Index(counts.columns, name=by)
    counts.index.name = "period"
    return counts.astype("int64")


def authors(comments: pd.DataFrame) -> pd.DataFrame:
    """One row per author, most comments first (columns :data:`AUTHOR_COLUMNS`).

    Authors are keyed by ``author_id`` (by name when the id is missing); their
    details (name, title, followers, ...) are those of their latest comment.
    Comments with neither an author id nor a name are not counted.
    """
    key = comments["author_id"].fillna("name:" + comments["author_name"])
    known = comments.assign(_key=key)[key.notna()]
    if known.empty:
        return _empty_authors(comments)
    ordered = known.sort_values("created_at", kind="stable", na_position="first")
    grouped = ordered.groupby("_key", sort=False, observed=True)
    latest = grouped.tail(1).set_index("_key")[list(AUTHOR_DETAILS)]
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
    frame = comments[list(AUTHOR_DETAILS)].iloc[:0].copy()
    frame["comments"] = pd.Series(dtype="int64")
    frame["first_comment_at"] = comments["created_at"].iloc[:0]
    frame["last_comment_at"] = comments["created_at"].iloc[:0]
    return frame.reset_index(drop=True)[list(AUTHOR_COLUMNS)]


def authors_of_type(comments: pd.DataFrame, author_type: str) -> pd.DataFrame:
    """:func:`authors` of one type (``"person"`` or ``"organization"``)."""
    found = authors(comments)
    return found[found["author_type"] == author_type].reset_index(drop=True)


def threads(comments: pd.DataFrame) -> pd.DataFrame:
    """Top-level comments with their reply counts and last reply time, busiest first.

    Replies count toward their parent only when the parent is in the frame (after
    ``max_pages`` or a filter it may not be); such replies appear in no thread.
    """
    is_reply = comments["parent_comment_id"].notna()
    replies = comments[is_reply].groupby("parent_comment_id", observed=True)["created_at"]
    top = comments.loc[~is_reply, list(THREAD_DETAILS)]
    ids = top["comment_id"].to_numpy()
    out = top.assign(
        replies=replies.size().reindex(ids, fill_value=0).to_numpy(dtype="int64"),
        last_reply_at=replies.max().reindex(ids).array,
    )
    out = out.sort_values(["replies", "created_at"], ascending=[False, False], kind="stable")
    return out.reset_index(drop=True)[list(THREAD_COLUMNS)]


def filter_comments(
    comments: pd.DataFrame,
    *,
    author_type: str | Iterable[str] | None = None,
    start: object = None,
    end: object = None,
    text: str | None = None,
    min_followers: int | None = None,
    tz: str = "UTC",
) -> pd.DataFrame:
    """The comments matching every given filter, in their original order and index.

    See :meth:`socialframe._accessor.SocialAccessor.filter` for the rules.
    """
    _time.check_zone(tz)
    keep = pd.Series(True, index=comments.index)
    if author_type is not None:
        wanted = _author_types(comments, author_type)
        keep &= comments["author_type"].isin(wanted).fillna(False).astype(bool)
    low = _time.bound(start, tz, upper=False, name="start")
    high = _time.bound(end, tz, upper=True, name="end")
    _time.check_order(low, high, f"start ({start}) is later than end ({end})")
    keep &= _time.within(comments["created_at"], low, high)
    needle = (text or "").strip().casefold()
    if needle:
        found = comments["text"].str.casefold().str.contains(needle, regex=False)
        keep &= found.fillna(False).astype(bool)
    floor = count_or_none("min_followers", min_followers)
    if floor:
        keep &= (comments["author_followers"] >= floor).fillna(False).astype(bool)
    return comments.loc[keep.to_numpy()].copy()


def author_types(comments: pd.DataFrame) -> list[str]:
    """Author types of a frame: every category of a categorical column, else those seen."""
    column = comments["author_type"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [str(c) for c in column.cat.categories]
    return sorted(str(v) for v in column.dropna().unique())


def _author_types(comments: pd.DataFrame, wanted: str | Iterable[str]) -> list[str]:
    chosen = [wanted] if isinstance(wanted, str) else list(wanted)
    known = set(author_types(comments))
    unknown = [t for t in chosen if t not in known]
    if unknown:
        # A typo ("people") would otherwise silently match nothing.
        raise ValueError(
            f"unknown {words.noun(len(unknown), 'author type')} {unknown}; expected some of"
            f" {sorted(known)}"
        )
    return chosen
