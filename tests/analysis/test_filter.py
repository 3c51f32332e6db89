"""Filtering comments: df.social.filter, exact values."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pandas as pd
import pytest

import socialframe as sf

SCRIPT = '<script>alert("x")</script>'


@pytest.fixture
def comments(comments_2345: pd.DataFrame) -> pd.DataFrame:
    return comments_2345


def comments_of(text: list[str], created_at: pd.DatetimeIndex | None = None) -> pd.DataFrame:
    """A comments frame of these texts (at these times, if given)."""
    rows = [{"text": t} for t in text]
    frame = sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])
    return frame if created_at is None else frame.assign(created_at=created_at)


def test_no_filter_keeps_everything(comments: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(comments.social.filter(), comments)


@pytest.mark.parametrize("types", [("organization",), ("person",), "person", ()])
def test_author_types(comments: pd.DataFrame, types: Any) -> None:
    wanted = {types} if isinstance(types, str) else set(types)
    expected = [
        i for i, t in zip(comments.index, comments["author_type"], strict=True) if t in wanted
    ]
    got = comments.social.filter(author_type=types)
    assert got.index.tolist() == expected
    assert list(got.columns) == list(comments.columns)


def test_unknown_author_type_is_an_error(comments: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="unknown author type.*'people'"):
        comments.social.filter(author_type=["people"])


@pytest.mark.parametrize("needle", ["script", "SCRIPT", "great", ".", "(", "🚀", "  thanks "])
def test_text_is_case_insensitive_and_literal(comments: pd.DataFrame, needle: str) -> None:
    folded = needle.strip().casefold()
    expected = [
        i for i, t in zip(comments.index, comments["text"], strict=True) if folded in t.casefold()
    ]
    got = comments.social.filter(text=needle)
    assert got.index.tolist() == expected
    if needle == ".":  # a regex "." would match every non-empty comment
        assert 0 < len(got) < (comments["text"].str.len() > 0).sum()
    if needle.lower() == "script":
        assert len(got) == 16 and set(got["text"]) == {SCRIPT}


def test_text_uses_unicode_case_folding() -> None:
    df = comments_of(["Straße", "STRASSE", "strasse", "street"])
    assert df.social.filter(text="STRASSE").index.tolist() == [0, 1, 2]
    assert df.social.filter(text="   ").index.tolist() == [0, 1, 2, 3]
    assert df.social.filter(text="s.r").empty


@pytest.mark.parametrize("floor", [1, 1000, 8305, 10**6, 10**9])
def test_min_followers_keeps_organisations_at_or_above(comments: pd.DataFrame, floor: int) -> None:
    expected = [
        i
        for i, kind, n in zip(
            comments.index, comments["author_type"], comments["author_followers"], strict=True
        )
        if kind == "organization" and n is not pd.NA and n >= floor
    ]
    got = comments.social.filter(min_followers=floor)
    assert got.index.tolist() == expected
    assert (got["author_type"] == "organization").all()  # people have no count: dropped


@pytest.mark.parametrize("floor", [None, 0])
def test_min_followers_none_or_zero_keeps_people(comments: pd.DataFrame, floor: int | None) -> None:
    assert len(comments.social.filter(min_followers=floor)) == 2345


@pytest.mark.parametrize("floor", [-1, True, 1.5, "10"])
def test_bad_min_followers(comments: pd.DataFrame, floor: Any) -> None:
    with pytest.raises(ValueError, match="min_followers"):
        comments.social.filter(min_followers=floor)


def test_date_range_in_utc(comments: pd.DataFrame) -> None:
    first, last = date(2025, 12, 1), date(2025, 12, 15)
    days = [ts.date() for ts in comments["created_at"]]
    expected = [i for i, d in zip(comments.index, days, strict=True) if first <= d <= last]
    got = comments.social.filter(start=first, end=last)
    assert got.index.tolist() == expected
    assert 0 < len(got) < len(comments)
    assert comments.social.filter(start="2025-12-01", end="2025-12-15").index.tolist() == expected


def test_date_range_in_another_zone(comments: pd.DataFrame) -> None:
    day = date(2025, 12, 20)
    local = comments["created_at"].dt.tz_convert("Asia/Tokyo")
    expected = [i for i, ts in zip(comments.index, local, strict=True) if ts.date() == day]
    got = comments.social.filter(start=day, end=day, tz="Asia/Tokyo")
    assert got.index.tolist() == expected
    utc = [
        i for i, ts in zip(comments.index, comments["created_at"], strict=True) if ts.date() == day
    ]
    assert expected != utc  # the zone really changes which comments fall on the day


def test_whole_days_and_instants() -> None:
    times = [
        "2025-12-01 00:00",
        "2025-12-01 23:59:59.999999",
        "2025-12-02 00:00",
        "2025-12-02 08:00",
    ]
    df = comments_of(["a", "b", "c", "d"], pd.to_datetime(times, utc=True, format="ISO8601"))
    assert df.social.filter(end=date(2025, 12, 1)).index.tolist() == [0, 1]
    assert df.social.filter(start=date(2025, 12, 2)).index.tolist() == [2, 3]
    # A datetime is an instant, both ends included; naive ones are read in tz.
    assert df.social.filter(end=datetime(2025, 12, 2, 0, 0)).index.tolist() == [0, 1, 2]
    assert df.social.filter(start="2025-12-02T08:00:00").index.tolist() == [3]
    assert df.social.filter(
        start=datetime(2025, 12, 2, 9, 0), tz="Europe/Berlin"
    ).index.tolist() == [3]


def test_comments_without_time_drop_only_under_a_date_filter() -> None:
    df = comments_of(["a", "b"], pd.to_datetime(["2025-12-01", None], utc=True))
    assert df.social.filter().index.tolist() == [0, 1]
    assert df.social.filter(start=date(2025, 1, 1)).index.tolist() == [0]


@pytest.mark.parametrize(
    ("start", "end", "match"),
    [
        (date(2025, 12, 2), date(2025, 12, 1), "later than"),
        ("yesterday", None, "start must be"),
        (None, "2025-13-45", "end must be"),
    ],
)
def test_bad_dates(comments: pd.DataFrame, start: Any, end: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        comments.social.filter(start=start, end=end)
