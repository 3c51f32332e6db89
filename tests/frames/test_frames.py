"""frames: raw dicts -> typed frames, tested from dicts alone (no network)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pandas as pd
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

import socialframe as sf
import socialframe._frames as _frames  # the builders' own parts: the schema read by name
from socialframe import AD_COLUMNS, COMMENT_COLUMNS
from socialframe.sandbox import ManualClock

POST = "7384427202391592960"

#: The frames' dtypes as docs/frames.md says them (text ``string``, flags ``boolean``, counts
#: ``Int64``, times ``datetime64[us, UTC]``, lists as lists), written out: a change fails here.
COMMENT_DTYPES = {
    "post_urn": "string",
    "comment_id": "string",
    "id_derived": "boolean",
    "parent_comment_id": "string",
    "is_reply": "boolean",
    "created_at": "datetime64[us, UTC]",
    "text": "string",
    "is_pinned": "boolean",
    "is_edited": "boolean",
    "thread_urn": "string",
    "permalink": "string",
    "author_type": "category",
    "author_name": "string",
    "author_id": "string",
    "author_urn": "string",
    "author_username": "string",
    "author_url": "string",
    "author_title": "string",
    "author_company_id": "string",
    "author_followers": "Int64",
    "page": "Int64",
    "fetched_at": "datetime64[us, UTC]",
}
AD_DTYPES = {
    "ad_archive_id": "string",
    "id_derived": "boolean",
    "collation_id": "string",
    "collation_count": "Int64",
    "page_id": "string",
    "page_name": "string",
    "is_active": "boolean",
    "start_date": "datetime64[us, UTC]",
    "end_date": "datetime64[us, UTC]",
    "publisher_platforms": "object",
    "countries": "object",
    "display_format": "string",
    "body_text": "string",
    "title": "string",
    "caption": "string",
    "link_url": "string",
    "cta_text": "string",
    "cta_type": "string",
    "page_like_count": "Int64",
    "page_profile_uri": "string",
    "image_urls": "object",
    "video_urls": "object",
    "currency": "string",
    "spend": "Float64",
    "impressions_text": "string",
    "total_active_time": "timedelta64[s]",
    "query": "string",
    "result_page": "Int64",
    "fetched_at": "datetime64[us, UTC]",
}


def permalink(comment_id: int, reply_id: int | None = None, post: str = POST) -> str:
    url = f"https://www.linkedin.com/feed/update/urn:li:activity:{post}?commentUrn=" + quote(
        f"urn:li:comment:(activity:{post},{comment_id})", safe=""
    )
    if reply_id is not None:
        url += "&replyUrn=" + quote(f"urn:li:comment:(activity:{post},{reply_id})", safe="")
    return url


T0 = 1760584641073  # 2025-10-16 03:17:21.073 UTC
TOP = (T0 << 22) | 12345
REPLY = ((T0 + 3_600_000) << 22) | 777

PERSON = {
    "name": "Zoë Ångström",
    "urn": "ACoAAATfHGYBQiQQhZiUYdM0RE_6jnPuSg3rH-w",
    "id": "80563302",
    "username": "ACoAAATfHGYBQiQQhZiUYdM0RE_6jnPuSg3rH-w",
    "linkedinUrl": "https://www.linkedin.com/in/ACoAAATfHGYBQiQQhZiUYdM0RE_6jnPuSg3rH-w",
    "title": "Head of Data 🚀",
}
ORG = {
    "name": "FleetWorks",
    "id": "urn:li:company:94275825",
    "linkedinUrl": "https://www.linkedin.com/",
    "title": "12,345 followers",
}
SPLIT_NAME = {"FirstName": "anna", "LastName": "VON Berg", "id": "42", "title": "--"}


def comments_body(*comments: dict[str, object], total_page: int = 1) -> dict[str, object]:
    return {
        "success": True,
        "message": "",
        "data": list(comments),
        "total": len(comments),
        "totalPage": total_page,
        "paginationToken": "1490966991-1767981263540-92ad882a3c4a36b2d580eeddfdf36f25",
    }


TOP_COMMENT = {
    "isPinned": True,
    "isEdited": False,
    "threadUrn": f"urn:li:comment:(activity:{POST},{TOP})",
    "createdAt": T0,
    "createdAtString": "2025-10-16 03:17:21",
    "permalink": permalink(TOP),
    "text": 'Great point   \n<script>alert("x")</script> https://lnkd.in/e8ffrNhj ',
    "author": PERSON,
}
REPLY_COMMENT = {
    "isPinned": False,
    "isEdited": True,
    "threadUrn": "",
    "createdAt": 0,
    "createdAtString": "55791-06-13 04:24:33",
    "permalink": permalink(TOP, REPLY),
    "text": "素晴らしい 👏",
    "author": ORG,
}
SPLIT_COMMENT = {
    "isPinned": False,
    "isEdited": False,
    "threadUrn": "",
    "createdAt": T0 + 5,
    "permalink": permalink(TOP + 1),
    "text": "",
    "author": SPLIT_NAME,
}


def test_comment_columns_dtypes_and_values() -> None:
    df = sf.comments_frame([comments_body(TOP_COMMENT, REPLY_COMMENT, SPLIT_COMMENT)])
    assert tuple(df.columns) == COMMENT_COLUMNS
    assert {c: str(t) for c, t in df.dtypes.items()} == {
        c: str(t) for c, t in COMMENT_DTYPES.items()
    }
    top, reply, split = (df.iloc[i] for i in range(3))
    assert top["post_urn"] == f"urn:li:activity:{POST}"
    assert top["comment_id"] == str(TOP) and pd.isna(top["parent_comment_id"])
    assert top["is_reply"] is False or top["is_reply"] == False  # noqa: E712 (numpy bool)
    assert top["created_at"] == pd.Timestamp("2025-10-16 03:17:21.073", tz="UTC")
    assert top["text"] == TOP_COMMENT["text"]  # kept exactly: spaces, newline, <script>
    assert top["is_pinned"] and not top["is_edited"]
    assert top["thread_urn"] == TOP_COMMENT["threadUrn"]
    assert (top["author_type"], top["author_name"], top["author_id"]) == (
        "person",
        "Zoë Ångström",
        "80563302",
    )
    assert top["author_urn"] == PERSON["urn"] and top["author_username"] == PERSON["username"]
    assert top["author_url"] == PERSON["linkedinUrl"] and top["author_title"] == "Head of Data 🚀"
    assert pd.isna(top["author_company_id"]) and pd.isna(top["author_followers"])
    assert top["page"] == 1 and pd.isna(top["fetched_at"])

    # a reply: its own id from replyUrn, its parent from commentUrn, time from the id
    assert reply["comment_id"] == str(REPLY) and reply["parent_comment_id"] == str(TOP)
    assert reply["is_reply"]
    assert reply["created_at"] == pd.Timestamp(T0 + 3_600_000, unit="ms", tz="UTC")
    assert pd.isna(reply["thread_urn"])  # empty threadUrn is NA
    assert (reply["author_type"], reply["author_company_id"], reply["author_followers"]) == (
        "organization",
        "94275825",
        12345,
    )
    assert reply["author_id"] == "urn:li:company:94275825" and pd.isna(reply["author_urn"])
    assert reply["text"] == "素晴らしい 👏"

    assert split["author_name"] == "anna VON Berg"  # capitalisation as given
    assert pd.isna(split["author_title"])  # "--" means none
    assert split["text"] == ""  # empty text is text, not missing
    assert split["created_at"] == pd.Timestamp(T0 + 5, unit="ms", tz="UTC")


@pytest.mark.parametrize(
    ("title", "followers"),
    [
        ("12,345 followers", 12345),
        ("87 followers", 87),
        ("1 follower", 1),
        ("1.2K followers", 1200),
        ("3M followers", 3_000_000),
        ("Nonprofit", None),
    ],
)
def test_organisation_followers(title: str, followers: int | None) -> None:
    df = sf.comments_frame([comments_body(dict(REPLY_COMMENT, author=dict(ORG, title=title)))])
    got = df.loc[0, "author_followers"]
    assert (pd.isna(got) and followers is None) or got == followers


@pytest.mark.parametrize("title", ["--", ".", "", " - ", None])
def test_junk_titles_are_na(title: str | None) -> None:
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, author=dict(PERSON, title=title)))])
    assert pd.isna(df.loc[0, "author_title"])


@pytest.mark.parametrize(
    "names",
    [
        {"firstName": "Ada", "lastName": "Lovelace"},
        {"first_name": "Ada", "last_name": "Lovelace"},
        {"FirstName": "Ada", "LastName": "Lovelace"},
        {"firstname": "Ada", "LASTNAME": "Lovelace"},
    ],
)
def test_author_name_from_first_and_last(names: dict[str, str]) -> None:
    author = {"id": "1", "urn": "ACo", **names}
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, author=author))])
    assert df.loc[0, "author_name"] == "Ada Lovelace"


def test_created_at_never_from_created_at_string() -> None:
    no_time = {k: v for k, v in REPLY_COMMENT.items() if k != "createdAt"}
    df = sf.comments_frame([comments_body(no_time, dict(no_time, permalink=None))])
    assert df.loc[0, "created_at"] == pd.Timestamp(T0 + 3_600_000, unit="ms", tz="UTC")
    assert pd.isna(df.loc[1, "created_at"])  # no createdAt, no id: NaT, not the garbage string


def fetched(
    bodies: list[dict[str, object]],
    call: Callable[[sf.Client], pd.DataFrame],
    at: datetime | None = None,
) -> pd.DataFrame:
    """The frame ``call`` gets from a client whose service answers these bodies, one per
    page in order, at the time ``at``."""

    def service(request: requests.PreparedRequest) -> Any:
        params = dict(parse_qsl(urlsplit(str(request.url)).query))
        later = "paginationToken" in params or "end_cursor" in params
        return 200, bodies[int(params.get("page", 2 if later else 1)) - 1]

    with sf.Client(
        "key",
        base_url="https://api.example",
        cache=False,
        transport=sf.MockTransport(service),
        clock=ManualClock(at),
        progress=False,
    ) as client:
        return call(client)


def test_page_objects_give_page_key_and_fetch_time() -> None:
    """The client hands the builder its pages: number, post and the time they came."""
    at = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    bodies = [
        comments_body(TOP_COMMENT, total_page=2),
        comments_body(dict(SPLIT_COMMENT, permalink=None), total_page=2),
    ]
    df = fetched(bodies, lambda client: client.post_comments(POST), at)
    assert df["page"].tolist() == [1, 2]
    assert df["fetched_at"].tolist() == [pd.Timestamp(at)] * 2
    assert df.loc[1, "post_urn"] == f"urn:li:activity:{POST}"  # from the page when no permalink


def test_raw_dicts_are_numbered_by_position() -> None:
    df = sf.comments_frame([comments_body(TOP_COMMENT), comments_body(SPLIT_COMMENT)])
    assert df["page"].tolist() == [1, 2]


def test_empty_comments_frame_has_every_column_and_dtype() -> None:
    for df in (sf.comments_frame([]), sf.comments_frame([comments_body()])):
        assert tuple(df.columns) == COMMENT_COLUMNS and len(df) == 0
        assert {c: str(t) for c, t in df.dtypes.items()} == {
            c: str(t) for c, t in COMMENT_DTYPES.items()
        }


@pytest.mark.parametrize(
    "body",
    [{"success": False, "message": "The request failed.", "data": None}, {"data": {"a": 1}}, []],
)
def test_comments_schema_errors(body: object) -> None:
    with pytest.raises(sf.SchemaError):
        sf.comments_frame([body])  # type: ignore[list-item]


def test_nineteen_digit_ids_survive_as_strings() -> None:
    big = 9_223_372_036_854_775_000  # near 2**63: a float would lose the last digits
    author = dict(PERSON, id=big)
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, author=author))])
    assert df.loc[0, "author_id"] == str(big)


# -- ads -----------------------------------------------------------------------------------


def ad(ad_id: str, **fields: object) -> dict[str, object]:
    record: dict[str, object] = {
        "ad_archive_id": ad_id,
        "ad_id": None,
        "collation_id": "c" + ad_id,
        "collation_count": 1,
        "page_id": "1001",
        "page_name": "Acme Shoes",
        "is_active": True,
        "start_date": 1_700_000_000,
        "end_date": 1_700_086_400,
        "publisher_platform": ["FACEBOOK", "INSTAGRAM"],
        "targeted_or_reached_countries": [],
        "currency": "",
        "spend": None,
        "reach_estimate": None,
        "impressions_with_index": {"impressions_text": None, "impressions_index": -1},
        "total_active_time": 86_400,
        "categories": ["UNKNOWN"],
        "snapshot": {
            "page_profile_uri": "https://www.facebook.com/acme",
            "page_like_count": 5321,
            "body": {"text": "Run further 🏃 <script>x</script>"},
            "title": "Spring sale",
            "caption": "acme.example",
            "cta_text": "Shop now",
            "cta_type": "SHOP_NOW",
            "link_url": "https://acme.example/sale",
            "display_format": "IMAGE",
            "images": [
                {
                    "original_image_url": "https://img/1.jpg",
                    "resized_image_url": "https://img/1s.jpg",
                }
            ],
            "videos": [],
            "cards": [],
        },
    }
    record.update(fields)
    return record


def ads_body(
    *groups: list[dict[str, object]], cursor: str | None = "c1", more: bool = True
) -> dict[str, object]:
    return {
        "data": {"ads": list(groups), "page_info": {"end_cursor": cursor, "has_next_page": more}}
    }


def test_ad_columns_dtypes_values_and_extras() -> None:
    dynamic = ad(
        "2",
        page_id=None,
        page_name=None,
        spend={"lower_bound": "100", "upper_bound": "199"},
        collation_count=None,
        snapshot={
            "page_id": "2002",
            "page_name": "Dyn Store",
            "body": {"text": "{{product.brand}}"},
            "title": "{{product.name}}",
            "display_format": "DCO",
            "cards": [{"body": "Real copy", "title": "Real title"}, {"body": "Other"}],
            "videos": [{"video_hd_url": None, "video_sd_url": "https://v/sd.mp4"}],
        },
    )
    df = sf.ads_frame([ads_body([ad("1"), ad("1b")], [dynamic]), ads_body([ad("1")], more=False)])
    assert tuple(df.columns[: len(AD_COLUMNS)]) == AD_COLUMNS
    for name, dtype in AD_DTYPES.items():
        assert str(df[name].dtype) == str(dtype), name
    assert df["ad_archive_id"].tolist() == ["1", "1b", "2"]  # order kept, duplicate dropped
    first, dyn = df.iloc[0], df.iloc[2]
    assert first["start_date"] == pd.Timestamp(1_700_000_000, unit="s", tz="UTC")
    assert first["publisher_platforms"] == ["FACEBOOK", "INSTAGRAM"] and first["countries"] == []
    assert first["body_text"] == "Run further 🏃 <script>x</script>"
    assert first["image_urls"] == ["https://img/1.jpg"] and first["video_urls"] == []
    assert pd.isna(first["currency"]) and first["page_like_count"] == 5321
    assert first["total_active_time"] == pd.Timedelta(days=1)
    assert (dyn["page_id"], dyn["page_name"]) == ("2002", "Dyn Store")  # from snapshot
    assert (dyn["body_text"], dyn["title"]) == ("Real copy", "Real title")  # first card
    assert dyn["snapshot_body_text"] == "{{product.brand}}"  # the template is kept too
    assert dyn["video_urls"] == ["https://v/sd.mp4"] and pd.isna(dyn["collation_count"])
    assert (dyn["spend_lower_bound"], dyn["spend_upper_bound"]) == ("100", "199")
    assert pd.isna(dyn["spend"])
    # everything else the service sent is a snake_case column
    assert {
        "ad_id",
        "reach_estimate",
        "categories",
        "snapshot_cards",
        "snapshot_images",
        "impressions_with_index_impressions_index",
    } <= set(df.columns)
    assert df["result_page"].tolist() == [1, 1, 1]
    assert df.loc[1, "snapshot_images"][0]["resized_image_url"] == "https://img/1s.jpg"


def test_the_pager_counts_a_pages_ads_by_the_frames_ids() -> None:
    """``ads.ad_ids`` (what the ads pager and a study's refresh count a page by) names
    each ad as the frame does: an ad sent without an id, by its derived one; twins of a
    group, apart."""
    no_id = {k: v for k, v in ad("x").items() if k != "ad_archive_id"}
    other = {**no_id, "snapshot": {**no_id["snapshot"], "title": "other"}}  # type: ignore[dict-item]
    body = ads_body([no_id, dict(no_id)], [other], [ad("9")])
    ids = sf.ads_frame([body])["ad_archive_id"].tolist()
    assert len(ids) == 4 and sum(i.startswith("derived:") for i in ids) == 3
    assert _frames.ads.ad_ids(body) == ids


def test_empty_ads_frame_has_every_column_and_dtype() -> None:
    empty = {"data": {"ads": [], "page_info": {"end_cursor": None, "has_next_page": False}}}
    for df in (sf.ads_frame([]), sf.ads_frame([empty])):
        assert tuple(df.columns) == AD_COLUMNS and len(df) == 0
        for name, dtype in AD_DTYPES.items():
            assert str(df[name].dtype) == str(dtype), name


def test_ads_query_and_page_from_page_objects() -> None:
    bodies = [ads_body([ad("1")]), ads_body([ad("2")], more=False)]
    df = fetched(bodies, lambda client: client.search_ads("shoes"))
    assert df["query"].tolist() == ["shoes", "shoes"] and df["result_page"].tolist() == [1, 2]


@pytest.mark.parametrize(
    "body", [{"data": None}, {"data": {"ads": {"x": 1}}}, {"data": {"ads": [3]}}]
)
def test_ads_schema_errors(body: dict[str, object]) -> None:
    with pytest.raises(sf.SchemaError):
        sf.ads_frame([body])


# -- property-based ------------------------------------------------------------------------

ids = st.integers(min_value=1 << 40, max_value=(1 << 63) - 1) | st.integers(
    min_value=946_684_800_000 << 22, max_value=(4_102_444_800_000 << 22) - 1
)
texts = st.text(max_size=30)


@st.composite
def comment(draw: st.DrawFn) -> dict[str, object]:
    cid = draw(ids)
    reply = draw(st.none() | ids)
    author = draw(
        st.fixed_dictionaries(
            {"id": st.from_regex(r"\d{1,12}", fullmatch=True), "name": texts, "title": texts}
        )
        | st.fixed_dictionaries(
            {
                "id": st.integers(1, 10**9).map(lambda n: f"urn:li:company:{n}"),
                "name": texts,
                "title": st.integers(0, 10**7).map(lambda n: f"{n:,} followers"),
            }
        )
    )
    return {
        "createdAt": draw(st.sampled_from([0, None]) | st.integers(1, 4_000_000_000_000)),
        "permalink": permalink(cid, reply),
        "text": draw(texts),
        "threadUrn": draw(st.sampled_from(["", "urn:li:comment:x"])),
        "isPinned": draw(st.booleans()),
        "isEdited": draw(st.booleans()),
        "author": author,
        "_ids": (cid, reply),
    }


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(comment(), max_size=5), max_size=4))
@pytest.mark.slow
def test_comments_frame_properties(pages: list[list[dict[str, object]]]) -> None:
    import warnings

    with warnings.catch_warnings():  # garbage createdAt with no usable id: counted, missing
        warnings.simplefilter("ignore", sf.SchemaWarning)
        df = sf.comments_frame([comments_body(*page) for page in pages])
    flat = [c for page in pages for c in page]
    assert len(df) == len(flat) and tuple(df.columns) == COMMENT_COLUMNS
    for row, c in zip(df.itertuples(index=False), flat, strict=True):
        cid, reply = c["_ids"]  # type: ignore[misc]
        assert row.comment_id == str(reply if reply is not None else cid)
        assert row.is_reply == (reply is not None)
        own = reply if reply is not None else cid

        def plausible(ms: object) -> bool:  # 2000-01-01 .. 2100-01-01
            return isinstance(ms, int) and 946_684_800_000 <= ms < 4_102_444_800_000

        expected_ms = next((m for m in (c["createdAt"], own >> 22) if plausible(m)), None)
        if expected_ms is None:
            assert pd.isna(row.created_at)
        else:
            assert row.created_at == pd.Timestamp(expected_ms, unit="ms", tz="UTC")
        assert row.text == c["text"]
        org = str(c["author"]["id"]).startswith("urn:li:company:")  # type: ignore[index]
        assert row.author_type == ("organization" if org else "person")
        if org:
            assert row.author_followers == int(
                str(c["author"]["title"]).split()[0].replace(",", "")
            )  # type: ignore[index]


@pytest.mark.parametrize(
    ("created", "expected"),
    [
        (10**17, TOP >> 22),
        (10**19, TOP >> 22),
        ("²", TOP >> 22),
        ("1760584641073", 1760584641073),
        (-5, TOP >> 22),
    ],
)
def test_garbage_created_at_falls_back_to_the_id(created: object, expected: int) -> None:
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, createdAt=created))])
    assert df.loc[0, "created_at"] == pd.Timestamp(expected, unit="ms", tz="UTC")


@pytest.mark.parametrize(
    ("title", "kept"),
    [("🚀", "🚀"), ("—", None), ("-", None), ("C++ dev", "C++ dev"), ("...", None)],
)
def test_titles_keep_emoji_but_not_placeholders(title: str, kept: str | None) -> None:
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, author=dict(PERSON, title=title)))])
    got = df.loc[0, "author_title"]
    assert (pd.isna(got) and kept is None) or got == kept


def test_author_url_is_never_a_picture() -> None:
    author = {
        "firstName": "A",
        "lastName": "B",
        "id": "1",
        "profilePictureUrl": "https://pic",
        "profileUrl": "https://www.linkedin.com/in/ab",
    }
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, author=author))])
    assert df.loc[0, "author_url"] == "https://www.linkedin.com/in/ab"
    only_picture = {"name": "C", "id": "2", "profilePictureUrl": "https://pic"}
    df = sf.comments_frame([comments_body(dict(TOP_COMMENT, author=only_picture))])
    assert pd.isna(df.loc[0, "author_url"])


@pytest.mark.parametrize(
    ("title", "n"),
    [("1\u00a0234 followers", 1234), ("12.345 followers", 12345), ("1,2K followers", 1200)],
)
def test_follower_counts_in_other_locales(title: str, n: int) -> None:
    df = sf.comments_frame([comments_body(dict(REPLY_COMMENT, author=dict(ORG, title=title)))])
    assert df.loc[0, "author_followers"] == n


def test_nothing_the_service_sent_is_dropped() -> None:
    odd = ad(
        "9",
        page_id="111",
        snapshot={"page_id": "222", "page_name": "Snap name", "body": {"text": "x"}},
        total_active_time=1.5,
        pageId="999",
        big=2**70,
        mixed=[1, 2.5],
        legacy_id=123,
        huge_ints=None,
    )
    other = ad("10", huge_ints=2**60, mixed=None)
    with pytest.warns(sf.SchemaWarning, match="total_active_time"):  # 1.5 s is not whole
        df = sf.ads_frame([ads_body([odd], [other])])
    row = df.iloc[0]
    assert row["page_id"] == "111" and row["snapshot_page_id"] == "222"
    assert row["snapshot_page_name"] == "Snap name" and row["page_name"] == "Acme Shoes"
    assert pd.isna(row["total_active_time"]) and row["raw_total_active_time"] == 1.5
    assert row["page_id_2"] == "999"  # "pageId" flattens onto page_id: kept, not overwritten
    assert row["big"] == 2**70 and row["mixed"] == [1, 2.5]
    assert row["legacy_id"] == "123" and str(df["legacy_id"].dtype) == "string"
    assert df.loc[1, "huge_ints"] == 2**60 and str(df["huge_ints"].dtype) == "Int64"


# -- the schema is read by name --------------------------------------------------------------


@pytest.mark.parametrize("kind", ["comments", "ads"])
def test_reordering_the_schema_reorders_columns_and_never_mislabels_them(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from socialframe.sandbox import example_ads, example_comments

    expected = example_comments() if kind == "comments" else example_ads()
    module = _frames.comments if kind == "comments" else _frames.ads
    name = "COMMENT_COLUMNS" if kind == "comments" else "AD_COLUMNS"
    shuffled = tuple(reversed(getattr(module, name)))
    monkeypatch.setattr(module, name, shuffled)
    if kind == "comments":
        # The author fields too: the old code zipped a slice of the list with a tuple.
        monkeypatch.setattr(module, "AUTHOR_FIELDS", tuple(reversed(module.AUTHOR_FIELDS)))
    else:
        monkeypatch.setattr(module, "_ROW_FIELDS", tuple(reversed(module._ROW_FIELDS)))
    got = example_comments() if kind == "comments" else example_ads()
    assert tuple(got.columns[: len(shuffled)]) == shuffled
    pd.testing.assert_frame_equal(got[list(expected.columns)], expected)


def test_a_builder_that_forgets_a_column_fails_loudly() -> None:
    with pytest.raises(AssertionError, match="missing"):
        _frames.values.typed_frame({"post_urn": ["x"]}, COMMENT_COLUMNS, COMMENT_DTYPES)


# -- raw bodies ---------------------------------------------------------------------------


def _sandbox_bodies() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    from socialframe.sandbox import EXAMPLE_POSTS, ads_body, comments_body

    comments = [comments_body(EXAMPLE_POSTS[82], "mostRelevant", p, 0) for p in (1, 2)]
    ads = [ads_body({"query": "for kids", "country": "US"}, 0)]
    return comments, ads


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, str])
def test_raw_bodies_give_the_frame_of_their_dicts(kind: type) -> None:
    import json

    comments, ads = _sandbox_bodies()
    for build, bodies in ((sf.comments_frame, comments), (sf.ads_frame, ads)):
        raw = [json.dumps(b, ensure_ascii=False) for b in bodies]
        payloads = raw if kind is str else [kind(r.encode()) for r in raw]
        frame = build(payloads)
        assert len(frame) > 0
        pd.testing.assert_frame_equal(frame, build(bodies))
    one = sf.comments_frame(json.dumps(comments[0]).encode())  # one raw body alone
    pd.testing.assert_frame_equal(one, sf.comments_frame(comments[0]))


def test_a_raw_body_that_is_not_json_is_named() -> None:
    with pytest.raises(sf.SchemaError, match="page 2 is not JSON"):
        sf.comments_frame([b'{"data": []}', b'{"data": [}'])
    with pytest.raises(sf.SchemaError, match="page 1 is JSON list, not an object"):
        sf.ads_frame([b"[1, 2]"])


def test_lone_surrogates_become_replacement_characters() -> None:
    # JSON can spell a lone surrogate ("\ud800"); UTF-8 and Arrow cannot hold one
    body = {"data": [{"text": "a\ud800b", "author": {"name": "\udfff", "id": "1"}}]}
    frame = sf.comments_frame([body])
    assert frame.loc[0, "text"] == "a\ufffdb"
    assert frame.loc[0, "author_name"] == "\ufffd"
    pair = sf.comments_frame([{"data": [{"text": "\ud83d\ude00"}]}])  # a pair: its character
    assert pair.loc[0, "text"] == "\U0001f600"
    raw = sf.comments_frame([b'{"data": [{"text": "a\\ud800b"}]}'])
    assert raw.loc[0, "text"] == "a\ufffdb"


# -- what the second review of the speed work found ---------------------------------------


def test_digits_python_will_not_read_are_missing_not_an_error() -> None:
    # str.strip() takes "\x1f" away, int() does not: the value is unfit, not a crash
    with pytest.warns(sf.SchemaWarning, match="created_at"):
        comments = sf.comments_frame([{"data": [{"createdAt": "0\x1f"}]}])
    assert pd.isna(comments.loc[0, "created_at"])
    body = {"data": {"ads": [[{"ad_archive_id": "1", "collation_count": "5\x1c"}]]}}
    with pytest.warns(sf.SchemaWarning, match="collation_count"):
        ads = sf.ads_frame([body])
    assert pd.isna(ads.loc[0, "collation_count"]) and ads.loc[0, "raw_collation_count"] == "5\x1c"


def test_a_memoryview_with_gaps_is_read_like_its_bytes() -> None:
    import json

    comments, ads = _sandbox_bodies()
    for build, body in ((sf.comments_frame, comments[0]), (sf.ads_frame, ads[0])):
        raw = json.dumps(body).encode()
        spread = memoryview(bytes(b for c in raw for b in (c, 32)))[::2]  # not contiguous
        assert bytes(spread) == raw
        pd.testing.assert_frame_equal(build([spread]), build([body]))


def test_equal_authors_that_parse_differently_are_not_reused() -> None:
    # equal dicts, keys in another order: the fallbacks read them in order
    first = {"id": "1", "firstName": "A", "first_name": "B"}
    second = {"id": "1", "first_name": "B", "firstName": "A"}
    frame = sf.comments_frame([{"data": [{"author": first}, {"author": second}]}])
    one, other = (sf.comments_frame([{"data": [{"author": a}]}]) for a in (first, second))
    assert frame["author_name"].tolist() == [one.loc[0, "author_name"], other.loc[0, "author_name"]]
    urls = [{"id": "2", "name": "x", "fooUrl": "u1", "barUrl": "u2"}]
    urls.append({"id": "2", "name": "x", "barUrl": "u2", "fooUrl": "u1"})
    frame = sf.comments_frame([{"data": [{"author": a} for a in urls]}])
    assert frame["author_url"].tolist() == ["u1", "u2"]


def test_keys_equal_as_numbers_are_not_one_flattened_name() -> None:
    ads = sf.ads_frame([{"data": {"ads": [[{"ad_archive_id": "1", 1: "a"}]]}}])
    assert ads.columns[-1] == "1"
    ads = sf.ads_frame([{"data": {"ads": [[{"ad_archive_id": "2", True: "b"}]]}}])
    assert ads.columns[-1] == "true"


def test_a_field_named_like_a_raw_column_is_not_overwritten() -> None:
    """An unfit value is kept as raw_<column>; a field the service sent under that very
    name keeps its own column, so nothing sent is dropped."""
    ad = {"ad_archive_id": "1", "start_date": 10**30, "raw_start_date": "sent as is"}
    with pytest.warns(sf.SchemaWarning, match="start_date"):
        frame = sf.ads_frame({"data": {"ads": [[ad]]}})
    assert frame.loc[0, "raw_start_date"] == "sent as is"
    assert frame.loc[0, "raw_start_date_2"] == 10**30
    assert pd.isna(frame.loc[0, "start_date"])
