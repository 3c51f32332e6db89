"""Paging rules, through a client whose transport answers scripted bodies (no network)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest
import requests

import socialframe as sf


class Script:
    """The service as bodies answered in order; records the parameters of each call."""

    def __init__(self, *bodies: Mapping[str, object]) -> None:
        self.bodies = list(bodies)
        self.sent: list[dict[str, str]] = []

    def __call__(self, request: requests.PreparedRequest) -> tuple[int, object]:
        self.sent.append(dict(parse_qsl(urlsplit(str(request.url)).query)))
        return 200, self.bodies[len(self.sent) - 1]


def client(fetch: Script) -> sf.Client:
    return sf.Client(
        "key",
        base_url="https://api.example",
        cache=False,
        transport=sf.MockTransport(fetch),
        progress=False,
    )


def comments(n: int, total_page: int, token: str = "tok") -> dict[str, object]:
    return {"success": True, "data": [{}] * n, "totalPage": total_page, "paginationToken": token}


def ads(ids: list[str], cursor: str | None, more: bool) -> dict[str, object]:
    groups = [[{"ad_archive_id": i}] for i in ids]
    return {"data": {"ads": groups, "page_info": {"end_cursor": cursor, "has_next_page": more}}}


def search(fetch: Script, **kwargs: object) -> pd.DataFrame:
    with client(fetch) as c:
        return c.search_ads("q", **kwargs)  # type: ignore[arg-type]


def test_comment_pages_follow_tokens_and_stop_at_total_page() -> None:
    fetch = Script(comments(50, 3, "t1"), comments(50, 3, "t2"), comments(7, 3, "t3"))
    with client(fetch) as c:
        frame = c.post_comments("1", sort="mostRecent")
    assert frame["page"].tolist() == [1] * 50 + [2] * 50 + [3] * 7
    assert fetch.sent == [
        {"urn": "1", "sort": "mostRecent", "page": "1"},
        {"urn": "1", "sort": "mostRecent", "page": "2", "paginationToken": "t1"},
        {"urn": "1", "sort": "mostRecent", "page": "3", "paginationToken": "t2"},
    ]  # and no 4th call although page 3 carries a token


def test_comment_pages_stop_on_an_empty_page() -> None:
    fetch = Script(comments(50, 5), comments(0, 5))
    with client(fetch) as c:
        assert len(c.post_comments("1")) == 50
    assert len(fetch.sent) == 2


@pytest.mark.parametrize(
    "body",
    [
        {"data": [{}], "totalPage": None, "paginationToken": "t"},
        {"data": [{}], "totalPage": 2},
        {"data": None, "totalPage": 2},
    ],
)
def test_comment_pages_schema_errors(body: dict[str, object]) -> None:
    with client(Script(body, body)) as c, pytest.raises(sf.SchemaError):
        c.post_comments("1")


@pytest.mark.parametrize(
    ("bodies", "calls"),
    [
        ([ads(["a", "b"], "c1", True), ads(["c"], "c2", False)], 2),  # has_next_page false
        ([ads(["a"], "c1", True), ads(["b"], None, True)], 2),  # cursor missing
        ([ads(["a"], "c1", True), ads(["b"], "c1", True)], 2),  # cursor already seen
        ([ads(["a"], "c1", True), ads(["a"], "c2", True), ads(["z"], "c3", True)], 2),  # no new ad
        ([ads([], None, False)], 1),  # nothing found
    ],
)
def test_ad_pages_stop_rules(bodies: list[dict[str, object]], calls: int) -> None:
    fetch = Script(*bodies)
    frame = search(fetch)
    assert len(fetch.sent) == calls
    assert (
        [s.get("end_cursor") for s in fetch.sent][1:]
        == [
            b["data"]["page_info"]["end_cursor"]  # type: ignore[index]
            for b in bodies[: calls - 1]
        ]
    )
    fetched = [g[0]["ad_archive_id"] for b in bodies[:calls] for g in b["data"]["ads"]]  # type: ignore[index]
    assert frame["ad_archive_id"].tolist() == list(dict.fromkeys(fetched))  # every page read


def test_ad_pages_max_ads_and_max_pages() -> None:
    bodies = [ads([f"{p}-{i}" for i in range(26)], f"c{p}", True) for p in range(5)]
    for kwargs, calls in (({"max_ads": 52}, 2), ({"max_ads": 53}, 3), ({"max_pages": 4}, 4)):
        fetch = Script(*bodies)
        search(fetch, **kwargs)
        assert len(fetch.sent) == calls, kwargs


def _nameless(page: int, cursor: str) -> dict[str, object]:
    """A page of 26 ads without ids, each its own copy (``page``: which ones)."""
    groups = [[{"snapshot": {"body": {"text": f"{page}-{i}"}}}] for i in range(26)]
    return {"data": {"ads": groups, "page_info": {"end_cursor": cursor, "has_next_page": True}}}


def test_max_ads_counts_ads_without_ids() -> None:
    fetch = Script(*[_nameless(p, f"c{p}") for p in range(6)])
    assert len(search(fetch, max_ads=30)) == 30
    assert len(fetch.sent) == 2


def test_a_repeated_page_of_ads_without_ids_brings_nothing_new() -> None:
    # The service's quirk: the last page again, has_next_page still true, a new cursor
    # each time. Ads without ids are known by the ids derived from them: one repeat.
    fetch = Script(*[_nameless(0, f"c{p}") for p in range(50)])
    frame = search(fetch)
    assert len(fetch.sent) == 2
    assert len(frame) == 26 and frame["id_derived"].all() and frame["ad_archive_id"].is_unique
