"""client.cache_report(): what the cache holds and what it cost, from the SQLite file and Redis.

Expected values come from what the same client fetched and paid (its ledger and
frames, the sandbox's charges), not from the report's own arithmetic.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import (
    EXAMPLE_POSTS,
    IDLESS_QUERIES,
    AdSearch,
    PinnedClock,
    Sandbox,
    repeats,
)

P82, P2345 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[2345]
# The report's columns, as docs/cache-and-ledger.md documents them.
REPORT_COLUMNS = (
    "operation",
    "item",
    "filters",
    "pages",
    "rows",
    "first_fetched",
    "last_fetched",
    "paid_usd",
    "expired_pages",
    "base_url",
)


def _fill(client: sf.Client) -> dict[str, tuple[pd.DataFrame, int]]:
    """Each fetch's frame and the calls it paid (its pages, the cache being empty)."""
    fetches = {
        "p82": lambda: client.post_comments(P82),
        "p2345": lambda: client.post_comments(P2345, sort="mostRecent", max_pages=3),
        "shoes": lambda: client.search_ads("running shoes"),  # its last page repeats
        "kids": lambda: client.search_ads(
            "for kids", country="us", active_status=True, after="2025-01-01", max_pages=1
        ),
        "page": lambda: client.search_ads(ad_page_id=123456, max_pages=1),
    }
    got = {}
    for name, fetch in fetches.items():
        before = client.ledger.paid_calls
        got[name] = (fetch(), client.ledger.paid_calls - before)
    return got


def _check(
    report: pd.DataFrame, got: dict[str, tuple[pd.DataFrame, int]], sandbox: Sandbox
) -> None:
    assert report.columns.tolist() == list(REPORT_COLUMNS)
    assert report["operation"].tolist() == ["comments", "comments", "ads", "ads", "ads"]
    assert report["item"].tolist() == [P82, P2345, "running shoes", "for kids", "ad_page_id=123456"]
    assert report["filters"].tolist() == [
        "sort=mostRelevant",
        "sort=mostRecent",
        "",
        "active_status=active after=2025-01-01 country=US",
        "",
    ]
    frames = [got[k][0] for k in ("p82", "p2345", "shoes", "kids", "page")]
    assert report["rows"].tolist() == [len(f) for f in frames]  # distinct ads
    assert report["pages"].tolist() == [
        got[k][1] for k in ("p82", "p2345", "shoes", "kids", "page")
    ]
    assert report.loc[2, "pages"] > frames[2]["result_page"].max()  # the repeated page
    assert int(report["pages"].sum()) == sandbox.charges  # every page stored was paid once
    assert report["paid_usd"].sum() == pytest.approx(sandbox.charges / 100)
    # to the second (when a page was paid, not how fast)
    firsts = [f["fetched_at"].min().floor("s") for f in frames]
    lasts = [f["fetched_at"].max().floor("s") for f in frames]
    assert report["first_fetched"].tolist() == firsts
    # The repeated page of "running shoes" brought no rows: it is later than any of them.
    assert report["last_fetched"].drop(index=2).tolist() == lasts[:2] + lasts[3:]
    assert report.loc[2, "last_fetched"] >= lasts[2]
    assert report["expired_pages"].tolist() == [0] * 5
    assert str(report["first_fetched"].dtype) == "datetime64[us, UTC]"


def test_the_report_of_a_sqlite_cache(sandbox: Sandbox, tmp_path: Path) -> None:
    assert repeats(AdSearch("q:running shoes"))  # so its rows are fewer than its pages' ads
    with sandbox.client(cache=tmp_path / "c.sqlite", progress=False) as client:
        got = _fill(client)
        report = client.cache_report()
    _check(report, got, sandbox)
    assert set(report["base_url"]) == {sandbox.url.replace(f":{sandbox.port}", "")}


def test_the_report_of_a_team_cache(team: str) -> None:
    with (
        Sandbox(clock=PinnedClock()) as sandbox,
        sandbox.client(cache=team, progress=False) as client,
    ):
        got = _fill(client)
        _check(client.cache_report(), got, sandbox)


def test_ads_without_ids_are_counted_once_each(sandbox: Sandbox, tmp_path: Path) -> None:
    # Their searches' last page repeats: its ads (known by the ids derived from them) are
    # rows already, as the frame says.
    queries = list(IDLESS_QUERIES.values())
    assert all(repeats(AdSearch(f"q:{q}")) for q in queries)
    with sandbox.client(cache=tmp_path, progress=False, max_cost=0.5) as client:
        frames = [client.search_ads(q) for q in queries]
        report = client.cache_report()
    assert report["rows"].tolist() == [len(f) for f in frames] == [26, 40]
    assert report["pages"].tolist() == [f["result_page"].max() + 1 for f in frames]
    assert all(f["id_derived"].any() for f in frames)


def test_a_second_run_adds_nothing_and_pays_nothing(sandbox: Sandbox, tmp_path: Path) -> None:
    with sandbox.client(cache=tmp_path, progress=False) as client:
        client.post_comments(P82)
        first = client.cache_report()
    with sandbox.client(cache=tmp_path, progress=False) as again:
        again.post_comments(P82)
        pd.testing.assert_frame_equal(again.cache_report(), first)
    assert sandbox.charges == 2


@pytest.mark.slow
def test_expired_pages_are_counted_and_still_there(sandbox: Sandbox, tmp_path: Path) -> None:
    # A page cannot be stored already expired (expire_after under 1 s is refused: every
    # run would pay), so the pages get a second and the report waits that out.
    with sandbox.client(cache=tmp_path, progress=False, expire_after=1) as c:
        c.post_comments(P82)
        time.sleep(1.1)  # a wait, not a timing assertion
        report = c.cache_report()
    assert report[["pages", "expired_pages"]].values.tolist() == [[2, 2]]


def test_without_a_cache_the_report_is_empty() -> None:
    with Sandbox(clock=PinnedClock()).client(in_process=True, cache=False) as client:
        client.post_comments(P82)
        report = client.cache_report()
    assert report.empty and report.columns.tolist() == list(REPORT_COLUMNS)
