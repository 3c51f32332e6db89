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
        "author_id",
        "author_name",
        "author_type",
        "author_title",
        "author_followers",
        "author_url",
        "comments",
        "first_comment_at",
        "last_comment_at",
    ]
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


def ad(
    ad_id: str, page: str, start: str, end: str | None, active: bool, platforms: list[str], fmt: str
) -> dict[str, object]:
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
    assert list(got.columns) == [
        "page_id",
        "page_name",
        "ads",
        "active",
        "first_start",
        "last_end",
        "platforms",
        "display_formats",
    ]
    assert len(ads.iloc[:0].social.by_page()) == 0


@pytest.mark.parametrize(
    ("day", "ids"),
    [
        ("2025-01-20", ["1", "2"]),
        ("2025-02-01", ["2", "3"]),
        ("2025-02-02", ["2"]),
        ("2025-06-01", ["4"]),
        ("2024-12-31", []),
    ],
)
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
    assert vars(comments.social).keys() == {"_frame"}  # its kind is its class's


def test_the_accessor_is_the_kind_of_its_frame(comments: pd.DataFrame, ads: pd.DataFrame) -> None:
    """As pandas' ``.dt``: the accessor is built as the class of the frame's kind, whose
    methods are its own (tab completion shows them), and nothing else's."""
    base = pd.DataFrame.social  # the class registered as df.social
    kinds = {"comments": type(comments.social), "ads": type(ads.social)}
    assert type(pd.DataFrame({"x": [1]}).social) is base
    for kind, cls in kinds.items():
        assert cls is not base and issubclass(cls, base) and cls.kind == kind
    assert type(sf.comments_frame([]).social) is kinds["comments"]
    assert type(sf.ads_frame([]).social) is kinds["ads"]
    assert "activity" in dir(comments.social) and "activity" not in dir(ads.social)
    assert "by_page" in dir(ads.social) and "by_page" not in dir(comments.social)
    for frame in (comments, ads, pd.DataFrame({"x": [1]})):
        assert {"fetch_comments", "fetch_ads", "to_csv", "report"} <= set(dir(frame.social))


# -- pipelines ----------------------------------------------------------------------------


def test_fetch_comments_for_a_column_of_posts(sandbox: Sandbox, client: sf.Client) -> None:
    posts = pd.DataFrame(
        {
            "url": [
                f"https://www.linkedin.com/feed/update/urn:li:activity:{EXAMPLE_POSTS[82]}/",
                EXAMPLE_POSTS[1],
                f"urn:li:activity:{EXAMPLE_POSTS[51]}",
            ]
        }
    )
    got = posts.social.fetch_comments("url", client=client)
    assert list(got.columns[:2]) == ["url", "post_urn"] and len(got) == 82 + 1 + 51
    assert got.groupby("url", sort=False).size().tolist() == [82, 1, 51]
    assert (client.ledger.paid_calls, sandbox.charges) == (2 + 1 + 2, 5)


def test_fetch_ads_for_a_column_of_queries(sandbox: Sandbox, client: sf.Client) -> None:
    queries = pd.DataFrame({"query": ["coffee", "typewriter ribbon"]})
    got = queries.social.fetch_ads(client=client, active_status="active")
    sizes = got.groupby("query", sort=False).size()
    alone = [len(client.search_ads(q, active_status="active")) for q in sizes.index]
    assert sizes.index.tolist() == ["coffee", "typewriter ribbon"] and sizes.tolist() == alone
    assert got["is_active"].all() and client.ledger.paid_calls == sandbox.charges > 0
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
    with sandbox.client(cache=cache_path, max_cost=0.03, workers=1) as c:  # in order
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
    assert "posts" in err and "3/3" in err and "4 pages, $0.04" in err
    assert "comments 7" not in err  # no bar per post under the one over the items


def test_one_bar_with_workers_counts_every_page_and_cent(
    sandbox: Sandbox, cache_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    posts = [EXAMPLE_POSTS[82], EXAMPLE_POSTS[50], EXAMPLE_POSTS[1], EXAMPLE_POSTS[51]]
    with sandbox.client(cache=cache_path, progress=True, workers=4) as c:
        c.post_comments(posts)
    last = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert "4/4" in last and "6 pages, $0.06" in last and sandbox.charges == 6


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


# -- periods, zones and edge cases ---------------------------------------------------------


def _at(*stamps: str, types: list[str | None] | None = None) -> pd.DataFrame:
    """A comments frame with comments at these UTC instants."""
    rows = [comment(int(pd.Timestamp(s, tz="UTC").timestamp() * 1000), ADA) for s in stamps]
    frame = sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])
    if types is not None:
        frame["author_type"] = pd.Categorical(types, categories=["person", "organization"])
    return frame


def test_weeks_and_months_are_labelled_by_their_start() -> None:
    df = _at("2025-10-20 10:00", "2025-10-21 10:00", "2025-10-26 21:00", "2025-11-03 08:00")
    weeks = df.social.activity("1W")
    assert [str(d.date()) for d in weeks.index] == ["2025-10-20", "2025-10-27", "2025-11-03"]
    assert weeks["comments"].tolist() == [3, 0, 1]  # Monday to Sunday
    months = df.social.activity("1ME", tz="Europe/Berlin")
    assert months.index.tolist() == [
        pd.Timestamp("2025-10-01", tz="Europe/Berlin"),
        pd.Timestamp("2025-11-01", tz="Europe/Berlin"),
    ]
    assert months["comments"].tolist() == [3, 1]


def test_days_are_local_days_across_dst() -> None:
    # 23:30 UTC on Oct 25 is 01:30 on Oct 26 in Berlin (summer time); Oct 26 has 25 hours
    df = _at("2025-10-25 21:30", "2025-10-25 23:30", "2025-10-26 22:30", "2025-10-26 23:30")
    berlin = df.social.activity("1D", tz="Europe/Berlin")
    assert berlin.index.tolist() == [
        pd.Timestamp("2025-10-25", tz="Europe/Berlin"),
        pd.Timestamp("2025-10-26", tz="Europe/Berlin"),
        pd.Timestamp("2025-10-27", tz="Europe/Berlin"),
    ]
    assert berlin["comments"].tolist() == [1, 2, 1]
    assert df.social.activity("1D")["comments"].tolist() == [2, 2]  # the same in UTC


def test_zones_where_midnight_does_not_exist() -> None:
    # Santiago skipped from 00:00 to 01:00 on 2025-09-07 (03:00 and 04:00 UTC)
    df = _at("2025-09-06 12:00", "2025-09-07 05:00", "2025-09-07 12:00")
    got = df.social.activity("1D", tz="America/Santiago")
    assert got["comments"].tolist() == [1, 2]
    assert got.index[1] == pd.Timestamp("2025-09-07 01:00", tz="America/Santiago")


def test_missing_by_values_are_counted() -> None:
    df = _at(
        "2026-01-01 10:00",
        "2026-01-01 11:00",
        "2026-01-02 10:00",
        types=["person", None, "organization"],
    )
    got = df.social.activity("1D", by="author_type")
    assert list(got.columns) == ["person", "organization", "<NA>"]
    assert got.to_numpy().sum() == 3 and got["<NA>"].tolist() == [1, 0]
    plain = df.assign(kind=["b", "a", None]).social.activity("1D", by="kind")
    assert list(plain.columns) == ["a", "b", "<NA>"]


def test_authors_take_their_latest_details_and_skip_anonymous_comments() -> None:
    old = comment(T0, {"name": "Ada Old", "id": "1", "title": "Engineer"})
    new = comment(T0 + DAY, {"name": "Ada New", "id": "1"})
    nobody = comment(T0 + 2 * DAY, {})
    df = sf.comments_frame([{"success": True, "data": [new, old, nobody, nobody], "totalPage": 1}])
    got = df.social.authors()
    assert got["author_name"].tolist() == ["Ada New"] and pd.isna(got.loc[0, "author_title"])
    assert got["comments"].tolist() == [2]


def test_by_page_latest_name_and_still_running() -> None:
    rows = [
        ad("1", "10", "2025-01-01", "2025-02-01", False, ["FACEBOOK"], "IMAGE"),
        ad("2", "10", "2025-03-01", None, True, ["FACEBOOK"], "IMAGE"),
    ]
    rows[1]["page_name"] = "New name"
    rows.append(
        dict(ad("3", "x", "2025-01-01", None, False, [], "IMAGE"), page_id=None, page_name=None)
    )
    frame = sf.ads_frame([{"data": {"ads": [[r] for r in rows], "page_info": {}}}])
    got = frame.social.by_page()
    assert got["page_name"].tolist() == ["New name"]  # the anonymous ad is left out
    assert pd.isna(got.loc[0, "last_end"])  # an active ad without end: still running


@pytest.mark.parametrize(
    ("day", "tz", "ids"),
    [
        ("2025-10-26", "Europe/Berlin", ["b"]),
        ("2025-10-27", "Europe/Berlin", []),
        ("2025-03-31", "Europe/Berlin", ["n"]),
        ("2025-03-30", "Europe/Berlin", []),
        (pd.Timestamp("2025-03-30 23:00", tz="UTC"), "Europe/Berlin", ["n"]),
    ],
)
def test_active_on_local_days(day: object, tz: str, ids: list[str]) -> None:
    rows = [
        ad("b", "1", "2025-10-26 22:30", "2025-10-26 22:45", False, [], "IMAGE"),  # 23:30 Berlin
        ad("n", "1", "2025-03-30 22:30", None, False, [], "IMAGE"),  # 00:30 Berlin, Mar 31
    ]
    frame = sf.ads_frame([{"data": {"ads": [[r] for r in rows], "page_info": {}}}])
    assert frame.social.active_on(day, tz=tz)["ad_archive_id"].tolist() == ids  # type: ignore[arg-type]


def test_active_on_refuses_numbers(ads: pd.DataFrame) -> None:
    with pytest.raises(TypeError):
        ads.social.active_on(20250601)  # type: ignore[arg-type]


def test_dir_offers_the_methods_of_the_frame(comments: pd.DataFrame, ads: pd.DataFrame) -> None:
    assert "threads" in dir(comments.social) and "by_page" not in dir(comments.social)
    assert "by_page" in dir(ads.social) and "threads" not in dir(ads.social)
    assert "fetch_comments" in dir(pd.DataFrame({"post": []}).social)
    with pytest.raises(ValueError):
        comments.social.top_authors(-1)


def test_pipeline_keys_never_overwrite_results(sandbox: Sandbox, client: sf.Client) -> None:
    with pytest.raises(ValueError, match="page_name"):
        pd.DataFrame({"page_name": ["coffee"]}).social.fetch_ads("page_name", client=client)
    with pytest.raises(ValueError, match="text"):
        pd.DataFrame({"text": [EXAMPLE_POSTS[1]]}).social.fetch_comments("text", client=client)
    assert sandbox.requests == []
    got = pd.DataFrame({"query": [" Coffee "]}).social.fetch_ads(client=client, max_ads=2)
    assert got["query"].tolist() == [" Coffee "] * 2  # the key as given


def test_duplicate_items_are_fetched_once(sandbox: Sandbox, cache_path: object) -> None:
    p82 = EXAMPLE_POSTS[82]
    with sandbox.client(cache=False) as c:
        got = c.post_comments([p82, f"urn:li:activity:{p82}", p82])
    assert len(got) == 82 and sandbox.charges == 2 and (got["post"] == p82).all()


def test_bad_item_errors_name_the_item(sandbox: Sandbox, client: sf.Client) -> None:
    with pytest.raises(TypeError, match=r"item 1 \(None\)"):
        client.post_comments([EXAMPLE_POSTS[1], None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"item 0 \(''\)"):
        client.search_ads([""])
    assert sandbox.requests == []


def test_combined_ads_frames_stay_typed(client: sf.Client, tmp_path: object) -> None:
    got = client.search_ads(["coffee", "typewriter ribbon"])
    assert str(got["snapshot_link_description"].dtype) == "string"
    path = tmp_path / "multi.parquet"  # type: ignore[operator]
    got.to_parquet(path)
    back = pd.read_parquet(path)
    assert {c: str(t) for c, t in back.dtypes.items()} == {c: str(t) for c, t in got.dtypes.items()}
