"""df.social: exact values on small hand-made frames, pipelines through the sandbox."""

from __future__ import annotations

from urllib.parse import quote

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox

POST = "7000000000000000000"
DAY = 86_400_000
T0 = 1_767_225_600_000  # 2026-01-01 00:00 UTC


def _permalink(cid: int, parent: int | None) -> str:
    urn = quote(f"urn:li:comment:(activity:{POST},{parent or cid})", safe="")
    url = f"https://www.linkedin.com/feed/update/urn:li:activity:{POST}?commentUrn={urn}"
    if parent:
        url += "&replyUrn=" + quote(f"urn:li:comment:(activity:{POST},{cid})", safe="")
    return url


ADA = {"name": "Ada", "id": "1", "urn": "A1", "title": "Engineer"}
BOB = {"name": "Bob", "id": "2", "urn": "B2", "title": "--"}
ACME = {"name": "Acme", "id": "urn:li:company:9", "title": "1,200 followers"}


def comment(ms: int, author: dict[str, str], parent_ms: int | None = None) -> dict[str, object]:
    cid = (ms << 22) | 1
    parent = ((parent_ms << 22) | 1) if parent_ms is not None else None
    return {
        "createdAt": 0 if parent else ms,
        "permalink": _permalink(cid, parent),
        "text": f"at {ms}",
        "author": author,
        "isPinned": False,
        "isEdited": False,
        "threadUrn": "",
    }


@pytest.fixture
def comments() -> pd.DataFrame:
    rows = [
        comment(T0 + 1 * 3_600_000, ADA),  # 2026-01-01 01:00 UTC (02:00 Berlin)
        comment(T0 - 2 * 3_600_000, BOB),  # 2025-12-31 22:00 UTC (23:00 Berlin)
        comment(T0 + 2 * DAY + 5, ACME),  # 2026-01-03
        comment(T0 + 2 * DAY + 60_000, ADA, parent_ms=T0 + 2 * DAY + 5),  # reply to Acme
        comment(T0 + 2 * DAY + 120_000, BOB, parent_ms=T0 + 2 * DAY + 5),  # reply to Acme
        comment(T0 + 3 * DAY, ADA, parent_ms=T0 + 1 * 3_600_000),  # reply to Ada's first
    ]
    return sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])


def test_activity_counts_every_period(comments: pd.DataFrame) -> None:
    got = comments.social.activity("1D")
    assert got.index.tolist() == list(pd.date_range("2025-12-31", periods=5, freq="D", tz="UTC"))
    assert got["comments"].tolist() == [1, 1, 0, 3, 1]  # the empty day is 0
    assert got.index.name == "period" and str(got["comments"].dtype) == "int64"


def test_activity_is_cut_in_the_requested_zone(comments: pd.DataFrame) -> None:
    got = comments.social.activity("1D", tz="Europe/Berlin")
    assert str(got.index.tz) == "Europe/Berlin"
    assert got.index[0] == pd.Timestamp("2025-12-31", tz="Europe/Berlin")
    # in Berlin, 22:00 UTC on the 31st is 23:00 on the 31st, 01:00 UTC is 02:00 on the 1st
    assert got["comments"].tolist() == [1, 1, 0, 3, 1]
    hourly = comments.social.activity("12h", tz="America/New_York")
    assert hourly["comments"].sum() == 6 and str(hourly.index.tz) == "America/New_York"
    # New York: 17:00 and 20:00 on Dec 31 share one 12h period
    assert hourly["comments"].iloc[0] == 2


def test_activity_split_by_author_type(comments: pd.DataFrame) -> None:
    got = comments.social.activity("1D", by="author_type")
    assert list(got.columns) == ["person", "organization"] and got.columns.name == "author_type"
    assert got["person"].tolist() == [1, 1, 0, 2, 1]
    assert got["organization"].tolist() == [0, 0, 0, 1, 0]
    people_only = comments[comments["author_type"] == "person"]
    assert people_only.social.activity(by="author_type")["organization"].sum() == 0


def test_authors_and_top_authors(comments: pd.DataFrame) -> None:
    got = comments.social.authors()
    assert got["author_name"].tolist() == ["Ada", "Bob", "Acme"]
    assert got["comments"].tolist() == [3, 2, 1]
    ada = got.iloc[0]
    assert ada["first_comment_at"] == pd.Timestamp(T0 + 3_600_000, unit="ms", tz="UTC")
    assert ada["last_comment_at"] == pd.Timestamp(T0 + 3 * DAY, unit="ms", tz="UTC")
    assert ada["author_title"] == "Engineer" and pd.isna(got.iloc[1]["author_title"])
    assert got.iloc[2]["author_followers"] == 1200
    assert list(got.columns) == [
        "author_id", "author_name", "author_type", "author_title", "author_followers",
        "author_url", "comments", "first_comment_at", "last_comment_at",
    ]  # fmt: skip
    assert comments.social.top_authors(2)["author_name"].tolist() == ["Ada", "Bob"]
    assert comments.social.organizations()["author_name"].tolist() == ["Acme"]
    assert comments.social.people()["author_name"].tolist() == ["Ada", "Bob"]


def test_threads(comments: pd.DataFrame) -> None:
    got = comments.social.threads()
    assert got["author_name"].tolist() == ["Acme", "Ada", "Bob"]
    assert got["replies"].tolist() == [2, 1, 0]
    assert got["last_reply_at"].iloc[0] == pd.Timestamp(T0 + 2 * DAY + 120_000, unit="ms", tz="UTC")
    assert pd.isna(got["last_reply_at"].iloc[2])


def test_empty_comments(comments: pd.DataFrame) -> None:
    empty = comments.iloc[:0]
    assert len(empty.social.authors()) == 0 and len(empty.social.threads()) == 0
    assert list(empty.social.authors().columns) == list(comments.social.authors().columns)
    assert empty.social.activity().empty


def ad(ad_id: str, page: str, start: str, end: str | None, active: bool, platforms: list[str],
       fmt: str) -> dict[str, object]:  # fmt: skip
    return {
        "ad_archive_id": ad_id,
        "page_id": page,
        "page_name": f"Page {page}",
        "is_active": active,
        "start_date": int(pd.Timestamp(start, tz="UTC").timestamp()),
        "end_date": int(pd.Timestamp(end, tz="UTC").timestamp()) if end else None,
        "publisher_platform": platforms,
        "snapshot": {"display_format": fmt},
    }


@pytest.fixture
def ads() -> pd.DataFrame:
    rows = [
        ad("1", "10", "2025-01-01", "2025-01-31", False, ["FACEBOOK"], "IMAGE"),
        ad("2", "10", "2025-01-15", "2025-03-01", True, ["FACEBOOK", "INSTAGRAM"], "VIDEO"),
        ad("3", "20", "2025-02-01 12:00", "2025-02-01 13:00", False, ["INSTAGRAM"], "DCO"),
        ad("4", "30", "2025-02-10", None, True, ["MESSENGER"], "IMAGE"),
    ]
    return sf.ads_frame([{"data": {"ads": [[r] for r in rows], "page_info": {}}}])


def test_by_page(ads: pd.DataFrame) -> None:
    got = ads.social.by_page()
    assert got["page_id"].tolist() == ["10", "30", "20"]  # most ads, then most active
    assert got["ads"].tolist() == [2, 1, 1] and got["active"].tolist() == [1, 1, 0]
    first = got.iloc[0]
    assert first["first_start"] == pd.Timestamp("2025-01-01", tz="UTC")
    assert first["last_end"] == pd.Timestamp("2025-03-01", tz="UTC")
    assert first["platforms"] == ["FACEBOOK", "INSTAGRAM"]
    assert first["display_formats"] == ["IMAGE", "VIDEO"]
    assert pd.isna(got.iloc[1]["last_end"])  # still running, no end date
    assert got.iloc[2]["last_end"] == pd.Timestamp("2025-02-01 13:00", tz="UTC")
    assert list(got.columns) == ["page_id", "page_name", "ads", "active", "first_start",
                                 "last_end", "platforms", "display_formats"]  # fmt: skip
    assert len(ads.iloc[:0].social.by_page()) == 0


@pytest.mark.parametrize(
    ("day", "ids"),
    [("2025-01-20", ["1", "2"]), ("2025-02-01", ["2", "3"]), ("2025-02-02", ["2"]),
     ("2025-06-01", ["4"]), ("2024-12-31", [])],
)  # fmt: skip
def test_active_on(ads: pd.DataFrame, day: str, ids: list[str]) -> None:
    assert ads.social.active_on(day)["ad_archive_id"].tolist() == ids


def test_active_on_rejects_a_non_day(ads: pd.DataFrame) -> None:
    with pytest.raises(ValueError):
        ads.social.active_on("someday")


def test_wrong_kind_of_frame_names_the_columns(comments: pd.DataFrame, ads: pd.DataFrame) -> None:
    with pytest.raises(AttributeError, match="ad_archive_id"):
        comments.social.by_page()
    with pytest.raises(AttributeError, match="created_at"):
        ads.social.activity()
    with pytest.raises(AttributeError, match="comment_id"):
        pd.DataFrame({"x": [1]}).social.threads()
    assert comments.social.kind == "comments" and ads.social.kind == "ads"


def test_accessor_keeps_no_state(comments: pd.DataFrame) -> None:
    assert comments.social is not comments.social  # rebuilt on each access (pandas 3)
    assert vars(comments.social).keys() == {"_frame", "kind"}


# -- pipelines ----------------------------------------------------------------------------


def test_fetch_comments_for_a_column_of_posts(sandbox: Sandbox, client: sf.Client) -> None:
    posts = pd.DataFrame(
        {"url": [f"https://www.linkedin.com/feed/update/urn:li:activity:{EXAMPLE_POSTS[82]}/",
                 EXAMPLE_POSTS[1], f"urn:li:activity:{EXAMPLE_POSTS[51]}"]}
    )  # fmt: skip
    got = posts.social.fetch_comments("url", client=client)
    assert list(got.columns[:2]) == ["url", "post_urn"] and len(got) == 82 + 1 + 51
    assert got.groupby("url", sort=False).size().tolist() == [82, 1, 51]
    assert (client.ledger.paid_calls, sandbox.charges) == (2 + 1 + 2, 5)


def test_fetch_ads_for_a_column_of_queries(sandbox: Sandbox, client: sf.Client) -> None:
    queries = pd.DataFrame({"query": ["coffee", "typewriter ribbon"]})
    got = queries.social.fetch_ads(client=client, active_status="active")
    assert got.groupby("query", sort=False).size().index.tolist() == ["coffee", "typewriter ribbon"]
    assert got["is_active"].all() and client.ledger.paid_calls == sandbox.charges
    terms = pd.DataFrame({"term": ["coffee"]})
    assert (
        terms.social.fetch_ads("term", client=client, max_ads=5)["term"].tolist() == ["coffee"] * 5
    )


def test_lists_give_one_combined_frame(sandbox: Sandbox, client: sf.Client) -> None:
    got = client.post_comments([EXAMPLE_POSTS[50], EXAMPLE_POSTS[0], EXAMPLE_POSTS[1]])
    assert got.columns[0] == "post" and got["post"].value_counts().to_dict() == {
        EXAMPLE_POSTS[50]: 50,
        EXAMPLE_POSTS[1]: 1,
    }
    ads = client.search_ads(["coffee", "yoga mat"], max_ads=10)
    assert ads["query"].tolist() == ["coffee"] * 10 + ["yoga mat"] * 10
    assert len(client.post_comments([])) == 0 and client.post_comments([]).columns[0] == "post"


def test_pipeline_failure_hands_back_what_was_fetched(sandbox: Sandbox, cache_path: object) -> None:
    with sandbox.client(cache=cache_path, max_cost=0.03) as c:
        with pytest.raises(sf.BudgetExceededError) as info:
            c.post_comments([EXAMPLE_POSTS[82], EXAMPLE_POSTS[51]])  # 4 calls needed
        partial = info.value.partial
        assert partial is not None and len(partial) == 82 + 50
        assert partial["post"].value_counts().to_dict() == {
            EXAMPLE_POSTS[82]: 82,
            EXAMPLE_POSTS[51]: 50,
        }


def test_pipeline_uses_the_default_client(sandbox: Sandbox) -> None:
    sf.configure(api_key=sandbox.api_key, base_url=sandbox.url, cache=False)
    got = pd.DataFrame({"post": [EXAMPLE_POSTS[1]]}).social.fetch_comments()
    assert len(got) == 1 and sandbox.charges == 1


def test_pipeline_progress_bar_is_over_items(
    sandbox: Sandbox, cache_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with sandbox.client(cache=cache_path, progress=True) as c:
        pd.DataFrame(
            {"post": [EXAMPLE_POSTS[82], EXAMPLE_POSTS[50], EXAMPLE_POSTS[1]]}
        ).social.fetch_comments(client=c)
    err = capsys.readouterr().err
    assert "3/3" in err and "$0.04" in err and "post" in err


def test_result_dtypes(comments: pd.DataFrame, ads: pd.DataFrame) -> None:
    threads = comments.social.threads()
    assert str(threads["last_reply_at"].dtype) == "datetime64[us, UTC]"
    assert str(threads["replies"].dtype) == "int64"
    assert str(comments.iloc[:0].social.threads()["last_reply_at"].dtype) == "datetime64[us, UTC]"
    authors = comments.social.authors()
    assert (
        str(authors["author_followers"].dtype) == "Int64"
        and str(authors["comments"].dtype) == "int64"
    )
    pages = ads.social.by_page()
    assert (
        str(pages["first_start"].dtype) == "datetime64[us, UTC]"
        and pages["platforms"].dtype == object
    )
