"""Paging rules, with a scripted fetch (no network, no client)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import pytest

import socialframe as sf
from socialframe._fetch import pages as pages_
from socialframe._models import Fetched

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class Script:
    """A fetch that answers the given bodies in order and records what was asked."""

    def __init__(self, *bodies: Mapping[str, object]) -> None:
        self.bodies = list(bodies)
        self.sent: list[dict[str, str]] = []

    def __call__(self, params: Mapping[str, str]) -> Fetched:
        self.sent.append(dict(params))
        return Fetched(self.bodies[len(self.sent) - 1], NOW, False)


def comments(n: int, total_page: int, token: str = "tok") -> dict[str, object]:
    return {"success": True, "data": [{}] * n, "totalPage": total_page, "paginationToken": token}


def ads(ids: list[str], cursor: str | None, more: bool) -> dict[str, object]:
    groups = [[{"ad_archive_id": i}] for i in ids]
    return {"data": {"ads": groups, "page_info": {"end_cursor": cursor, "has_next_page": more}}}


def test_comment_pages_follow_tokens_and_stop_at_total_page() -> None:
    fetch = Script(comments(50, 3, "t1"), comments(50, 3, "t2"), comments(7, 3, "t3"))
    pages = list(pages_.iter_comment_pages(fetch, {"urn": "1", "sort": "mostRecent"}))
    assert [p.page for p in pages] == [1, 2, 3]
    assert fetch.sent == [
        {"urn": "1", "sort": "mostRecent", "page": "1"},
        {"urn": "1", "sort": "mostRecent", "page": "2", "paginationToken": "t1"},
        {"urn": "1", "sort": "mostRecent", "page": "3", "paginationToken": "t2"},
    ]  # and no 4th call although page 3 carries a token


def test_comment_pages_stop_on_an_empty_page() -> None:
    fetch = Script(comments(50, 5), comments(0, 5))
    assert len(list(pages_.iter_comment_pages(fetch, {"urn": "1", "sort": "x"}))) == 2


@pytest.mark.parametrize(
    "body",
    [
        {"data": [{}], "totalPage": None, "paginationToken": "t"},
        {"data": [{}], "totalPage": 2},
        {"data": None, "totalPage": 2},
    ],
)
def test_comment_pages_schema_errors(body: dict[str, object]) -> None:
    with pytest.raises(sf.SchemaError):
        list(pages_.iter_comment_pages(Script(body, body), {"urn": "1", "sort": "x"}))


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
    pages = list(pages_.iter_ad_pages(fetch, {"query": "q"}))
    assert len(pages) == calls == len(fetch.sent)
    assert (
        [s.get("end_cursor") for s in fetch.sent][1:]
        == [
            b["data"]["page_info"]["end_cursor"]  # type: ignore[index]
            for b in bodies[: calls - 1]
        ]
    )


def test_ad_pages_max_ads_and_max_pages() -> None:
    bodies = [ads([f"{p}-{i}" for i in range(26)], f"c{p}", True) for p in range(5)]
    assert len(list(pages_.iter_ad_pages(Script(*bodies), {"query": "q"}, max_ads=52))) == 2
    assert len(list(pages_.iter_ad_pages(Script(*bodies), {"query": "q"}, max_ads=53))) == 3
    assert len(list(pages_.iter_ad_pages(Script(*bodies), {"query": "q"}, max_pages=4))) == 4


def test_max_ads_counts_ads_without_ids() -> None:
    nameless = {
        "data": {
            "ads": [[{"x": i}] for i in range(26)],
            "page_info": {"end_cursor": "c", "has_next_page": True},
        }
    }
    bodies = [
        dict(
            nameless,
            data=dict(nameless["data"], page_info={"end_cursor": f"c{p}", "has_next_page": True}),
        )
        for p in range(6)
    ]
    assert len(list(pages_.iter_ad_pages(Script(*bodies), {"query": "q"}, max_ads=30))) == 2
