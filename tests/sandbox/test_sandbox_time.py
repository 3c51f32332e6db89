"""The sandbox in time: its world is a function of (seed, clock.now()), over real HTTP.

At the reference date it is exactly the world it served before it could move (the
digests below were taken from the code before); after it, every week brings the
documented comments and ads, and nothing dated after ``now`` exists.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests

import socialframe.sandbox as sandbox_module
from socialframe import Clock
from socialframe.sandbox import (
    AD_GROWTH,
    COMMENT_GROWTH,
    EXAMPLE_POSTS,
    EXAMPLE_QUERIES,
    PAGE_AD_GROWTH,
    REFERENCE,
    TOTALS,
    ManualClock,
    PinnedClock,
    Sandbox,
    ads_total,
    comment_total,
    comments_body,
    posts_with,
)

COMMENTS = "get-profile-posts-comments"
ADS = "fetch_search_ads_pages"
WEEK = timedelta(weeks=1)
BIG = EXAMPLE_POSTS[2345]

# Pages served by the code at the start of this work (commit bffd432), at seed 0:
# sha256 of every page's bytes, in order, per post and sort or per search; comment
# pages without their paginationToken, which carries when its walk started (since
# 24b6925: the digests were taken again from that commit's code, tokens left out).
TOKEN = re.compile(rb'"paginationToken": ?"[^"]*"')
POSTS = [
    *EXAMPLE_POSTS.values(),
    str(int(EXAMPLE_POSTS[82]) + 6),
    str(int(EXAMPLE_POSTS[82]) + 7),
    "8",
    "1234567890123456789",
]
SEARCHES: list[dict[str, str]] = [{"query": q} for q in EXAMPLE_QUERIES] + [
    {"query": "running shoes", "country": "US", "activeStatus": "Active"},
    {"query": "for kids", "activeStatus": "Inactive"},
    {"query": "coffee", "after_time": "2025-06-01"},
    {"query": "coffee", "before_time": "2025-06-01"},
    {"query": "espresso machine"},
    {"ad_page_id": "123456"},
]
BEFORE = {
    "7384427202391592961 mostRelevant": "56cf2b133cdbb338",
    "7384427202391592961 mostRecent": "56cf2b133cdbb338",
    "7384427202391592962 mostRelevant": "4eff41693e1e3992",
    "7384427202391592962 mostRecent": "4eff41693e1e3992",
    "7384427202391592963 mostRelevant": "04c748ab0d475700",
    "7384427202391592963 mostRecent": "8159fb0085eeb676",
    "7384427202391592964 mostRelevant": "4b4cdcee0a9ffc23",
    "7384427202391592964 mostRecent": "f9d45895c4d9caae",
    "7384427202391592960 mostRelevant": "e3866d867be4d180",
    "7384427202391592960 mostRecent": "220df25adb91c6bb",
    "7384427202391592965 mostRelevant": "3213882175828402",
    "7384427202391592965 mostRecent": "ab380f2910e87cae",
    "7384427202391592966 mostRelevant": "e460a34ff344a0f3",
    "7384427202391592966 mostRecent": "12d721e114273268",
    "7384427202391592967 mostRelevant": "f942af8735d3ed20",
    "7384427202391592967 mostRecent": "c24374b5682e269e",
    "8 mostRelevant": "503a91cf5b3cf6ac",
    "8 mostRecent": "e2b7ee29f7466b56",
    "1234567890123456789 mostRelevant": "3597b34745809b99",
    "1234567890123456789 mostRecent": "04ea5a80405f1a46",
    '{"query": "for kids"}': "a127e0ca534777e6",
    '{"query": "running shoes"}': "18c46c81b08dd683",
    '{"query": "coffee"}': "1eb521c30ddebc6a",
    '{"query": "yoga mat"}': "ae8a14c1adf64a35",
    '{"query": "typewriter ribbon"}': "e64555de6b88fc0a",
    '{"activeStatus": "Active", "country": "US", "query": "running shoes"}': "81a75aafbb3c3ad6",
    '{"activeStatus": "Inactive", "query": "for kids"}': "466acb8b9ecb8631",
    '{"after_time": "2025-06-01", "query": "coffee"}': "2197a24df270f9b7",
    '{"before_time": "2025-06-01", "query": "coffee"}': "c22e7c3c55af1ad6",
    '{"query": "espresso machine"}': "e6c001efb74fa641",
    '{"ad_page_id": "123456"}': "38c96b39983ebff7",
}
BEFORE_SEED_3 = "38b45c036facf978"  # the same pages at seed 3, all digests digested


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


def get(sb: Sandbox, http: requests.Session, op: str, **params: Any) -> requests.Response:
    answer = http.get(
        f"{sb.url}/{op}",
        params=params,
        headers={"Authorization": f"Bearer {sb.api_key}"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer


def comment_pages(
    sb: Sandbox, http: requests.Session, post: str, sort: str = "mostRecent"
) -> list[requests.Response]:
    pages, page, token = [], 1, None
    while True:
        params: dict[str, Any] = {"urn": post, "sort": sort, "page": page}
        if token:
            params["paginationToken"] = token
        pages.append(get(sb, http, COMMENTS, **params))
        body = pages[-1].json()
        if page >= body["totalPage"]:
            return pages
        page, token = page + 1, body["paginationToken"]


def ad_pages(
    sb: Sandbox, http: requests.Session, search: dict[str, str]
) -> list[requests.Response]:
    pages, params = [], dict(search)
    for _ in range(8):  # (some searches repeat their last page forever)
        pages.append(get(sb, http, ADS, **params))
        info = pages[-1].json()["data"]["page_info"]
        if not info["has_next_page"]:
            break
        params = {**search, "end_cursor": info["end_cursor"]}
    return pages


def digests(sb: Sandbox, http: requests.Session) -> dict[str, str]:
    out = {}
    for post in POSTS:
        for sort in ("mostRelevant", "mostRecent"):
            h = hashlib.sha256()
            for page in comment_pages(sb, http, post, sort):
                h.update(TOKEN.sub(b"", page.content))  # a token carries its walk's start
            out[f"{post} {sort}"] = h.hexdigest()[:16]
    for search in SEARCHES:
        h = hashlib.sha256()
        for page in ad_pages(sb, http, search):
            h.update(page.content)
        out[json.dumps(search, sort_keys=True)] = h.hexdigest()[:16]
    return out


def comments_at(clock: Clock, post: str, sort: str = "mostRecent") -> pd.DataFrame:
    sandbox = Sandbox(clock=clock)
    with sandbox, sandbox.client(cache=False, progress=False) as client:
        return client.post_comments(post, sort=sort)


def ads_at(clock: Clock, query: str, **filters: Any) -> pd.DataFrame:
    sandbox = Sandbox(clock=clock)
    with sandbox, sandbox.client(cache=False, progress=False) as client:
        return client.search_ads(query, **filters)


# -- the reference date ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "clock",
    [PinnedClock, ManualClock, lambda: ManualClock(REFERENCE + timedelta(minutes=10))],
    ids=["pinned", "manual", "manual-10-minutes-on"],
)
def test_at_the_reference_date_every_body_is_as_before(
    clock: Callable[[], Clock], http: requests.Session
) -> None:
    assert REFERENCE == datetime(2026, 1, 1, tzinfo=UTC) == PinnedClock().now()
    with Sandbox(seed=0, clock=clock()) as sb:
        assert digests(sb, http) == BEFORE


def test_at_the_reference_date_another_seed_is_as_before(http: requests.Session) -> None:
    with Sandbox(seed=3, clock=PinnedClock()) as sb:
        got = hashlib.sha256(json.dumps(digests(sb, http), sort_keys=True).encode())
    assert got.hexdigest()[:16] == BEFORE_SEED_3


# -- comments ----------------------------------------------------------------------------------


def test_each_week_brings_the_documented_comments(http: requests.Session) -> None:
    clock = PinnedClock()
    with Sandbox(clock=clock) as sb:
        before = {t: comment_pages(sb, http, post) for t, post in EXAMPLE_POSTS.items()}
        for weeks in (1, 2):
            clock.advance(WEEK.total_seconds())
            for total, post in EXAMPLE_POSTS.items():
                now_total = total + weeks * COMMENT_GROWTH[total].per_week
                pages = comment_pages(sb, http, post)
                first = pages[0].json()
                assert (first["total"], first["totalPage"]) == (
                    now_total,
                    math.ceil(now_total / 50),
                )
                assert comment_total(post, now=clock.now()) == now_total
                ids = [c["permalink"] for p in pages for c in p.json()["data"]]
                assert len(ids) == len(set(ids)) == now_total  # every one, once
                old = {c["permalink"] for p in before[total] for c in p.json()["data"]}
                assert old <= set(ids)  # nothing leaves
            # the post that never grows answers the very same comments, under the tokens
            # of a new walk
            again = comment_pages(sb, http, EXAMPLE_POSTS[82])
            assert [TOKEN.sub(b"", p.content) for p in again] == [
                TOKEN.sub(b"", p.content) for p in before[82]
            ]
            assert again[0].json()["paginationToken"] != before[82][0].json()["paginationToken"]
    # the documented rates: dozens a week on the big post, a few on the others, one never
    assert COMMENT_GROWTH[2345].per_week >= 24
    assert all(1 <= COMMENT_GROWTH[t].per_week <= 4 for t in (0, 1, 50, 51))
    assert COMMENT_GROWTH[82].per_week == 0
    assert set(COMMENT_GROWTH) == set(TOTALS)


def test_within_a_week_comments_arrive_one_by_one(http: requests.Session) -> None:
    clock = PinnedClock()
    totals = []
    with Sandbox(clock=clock) as sb:
        for _ in range(28):  # every 6 hours through the first week
            clock.advance(6 * 3600)
            body = get(sb, http, COMMENTS, urn=BIG, sort="mostRecent").json()
            assert body["total"] == comment_total(BIG, now=clock.now())
            assert all(
                (c["createdAt"] or 0) <= clock.now().timestamp() * 1000 for c in body["data"]
            )
            totals.append(body["total"])
    assert totals == sorted(totals) and totals[0] > 2345 and totals[-1] == 2345 + 72
    assert max(b - a for a, b in zip(totals, totals[1:], strict=False)) <= 4  # spread out


@pytest.mark.parametrize("weeks", [1, 3])
def test_most_recent_is_newest_thread_first_and_old_thread_replies_land_later(
    weeks: int,
) -> None:
    now = REFERENCE + weeks * WEEK
    df = comments_at(ManualClock(now), BIG)
    growth = COMMENT_GROWTH[2345]
    assert len(df) == 2345 + weeks * growth.per_week
    # Threads newest first, consistently across pages; each reply right after its thread.
    tops = df[~df["is_reply"]]
    assert tops["created_at"].is_monotonic_decreasing
    thread = df["comment_id"].where(~df["is_reply"]).ffill()
    assert (df.loc[df["is_reply"], "parent_comment_id"] == thread[df["is_reply"]]).all()
    in_order = df.groupby(thread, sort=False)["created_at"].apply(
        lambda s: s.is_monotonic_increasing
    )
    assert in_order.all()

    new = df[df["created_at"] > REFERENCE]
    new_tops, new_replies = new[~new["is_reply"]], new[new["is_reply"]]
    assert len(new_tops) == weeks * (growth.per_week - growth.old_thread_replies)
    assert len(new_replies) == weeks * growth.old_thread_replies
    old = df[df["created_at"] <= REFERENCE]
    assert new_tops.index.max() < old.index.min()  # every new thread before every old one
    # each new reply joins a thread older than its own week
    created = df.set_index("comment_id")["created_at"]
    for _, reply in new_replies.iterrows():
        week_start = REFERENCE + ((reply["created_at"] - REFERENCE) // WEEK) * WEEK
        assert created[reply["parent_comment_id"]] < week_start
    # A refresh reading mostRecent pages until one holds a comment it had (one of the
    # reference date's) sees every new thread; most new replies lie beyond, unseen...
    stop = int(old["page"].iloc[0])
    assert stop == math.ceil((old.index.min() + 1) / 50) and new_tops["page"].max() <= stop
    beyond = new_replies[new_replies["page"] > stop]
    assert len(beyond) >= growth.old_thread_replies * weeks // 2
    # ...while page 1's total counts them
    assert comments_body(BIG, "mostRecent", now=now)["total"] == len(df)

    relevant = comments_at(ManualClock(now), BIG, sort="mostRelevant")
    assert set(relevant["comment_id"]) == set(df["comment_id"])
    assert bool(relevant["is_pinned"].iloc[0])  # the pin stays first
    where = relevant.index[relevant["created_at"] > REFERENCE].to_numpy()
    where = where[~relevant.loc[where, "is_reply"].to_numpy()]
    assert where.min() < len(relevant) / 2 < where.max()  # new threads anywhere


def test_small_posts_replies_and_the_first_comments_of_an_empty_post() -> None:
    now = REFERENCE + 2 * WEEK
    empty = comments_at(ManualClock(now), EXAMPLE_POSTS[0])
    assert len(empty) == 2 * COMMENT_GROWTH[0].per_week and not empty["is_reply"].any()
    one = comments_at(ManualClock(now), EXAMPLE_POSTS[1])
    assert len(one) == 1 + 2 * COMMENT_GROWTH[1].per_week
    assert int(one["is_reply"].sum()) == 2 * COMMENT_GROWTH[1].old_thread_replies
    fifty = comments_at(ManualClock(REFERENCE + WEEK), EXAMPLE_POSTS[50])
    assert len(fifty) == 53 and fifty["page"].tolist()[-3:] == [2, 2, 2]


# -- ads ---------------------------------------------------------------------------------------


def test_ads_started_after_the_reference_date_appear_with_after_time() -> None:
    clock = PinnedClock()
    with Sandbox(clock=clock) as sb, sb.client(cache=False, progress=False) as client:
        assert client.search_ads("running shoes", after="2026-01-02").empty
        clock.advance(WEEK.total_seconds())
        everything = client.search_ads("running shoes")
        fresh = client.search_ads("running shoes", after="2026-01-01")
        by_page = client.search_ads(ad_page_id="123456")
    page_ads = ads_total("123456", page=True)
    started = AD_GROWTH[EXAMPLE_QUERIES["running shoes"]].started
    assert len(everything) == 130 + started == ads_total("running shoes", now=clock.now())
    new = fresh[fresh["start_date"] > REFERENCE]
    assert len(new) == started and set(new["ad_archive_id"]) <= set(everything["ad_archive_id"])
    assert new["is_active"].all()
    assert (new["end_date"] == REFERENCE + WEEK).all()  # a running ad ends "today"
    assert new["start_date"].dt.strftime("%H:%M:%S").eq("00:00:00").all()
    assert everything["ad_archive_id"].tolist()[-started:] == new["ad_archive_id"].tolist()
    assert len(by_page) == page_ads + PAGE_AD_GROWTH[page_ads].started


@pytest.mark.parametrize("query", ["for kids", "running shoes", "coffee"])
def test_stopped_ads_leave_the_active_search_with_their_end_date(query: str) -> None:
    growth = AD_GROWTH[EXAMPLE_QUERIES[query]]
    active = set(ads_at(ManualClock(), query, active_status="active")["ad_archive_id"])
    for weeks in (1, 2):
        now = REFERENCE + weeks * WEEK
        still = set(ads_at(ManualClock(now), query, active_status="active")["ad_archive_id"])
        everything = ads_at(ManualClock(now), query).set_index("ad_archive_id")
        stopped = active - still  # (what a weekly refresh of the active ones finds gone)
        assert len(stopped) == growth.stopped
        assert len(still - active) == growth.started
        gone = everything.loc[sorted(stopped)]
        assert not gone["is_active"].any()
        assert ((gone["end_date"] > REFERENCE) & (gone["end_date"] <= now)).all()
        assert gone["end_date"].dt.strftime("%H:%M:%S").eq("00:00:00").all()
        spent = gone.dropna(subset=["total_active_time"])
        seconds = (spent["end_date"] - spent["start_date"]).dt.total_seconds()
        assert (spent["total_active_time"].astype(int) == seconds.astype(int)).all()
        running = everything.loc[sorted(still)]
        assert running["is_active"].all() and (running["end_date"] == now).all()
        active = still


def test_a_search_whose_ads_never_start_or_stop() -> None:
    assert AD_GROWTH[EXAMPLE_QUERIES["typewriter ribbon"]] == (0, 0)
    now = REFERENCE + 5 * WEEK + timedelta(hours=7)
    then = ads_at(ManualClock(), "typewriter ribbon")
    later = ads_at(ManualClock(now), "typewriter ribbon")
    assert then["ad_archive_id"].tolist() == later["ad_archive_id"].tolist()
    assert then["is_active"].tolist() == later["is_active"].tolist()
    # ...but its running ads have run five weeks more: they end "today"
    running = later[later["is_active"]]
    assert len(running) and (running["end_date"] == REFERENCE + 5 * WEEK).all()
    stopped = later[~later["is_active"]]
    assert stopped["end_date"].tolist() == then.loc[~then["is_active"], "end_date"].tolist()


# -- nothing after now -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "now",
    [
        REFERENCE - timedelta(days=20, hours=5),
        REFERENCE + timedelta(days=3, hours=5, minutes=7),
        REFERENCE + timedelta(weeks=9, days=1),
    ],
    ids=["20-days-before", "3-days-after", "9-weeks-after"],
)
def test_nothing_dated_after_now_exists(now: datetime) -> None:
    at_reference = comments_at(ManualClock(), EXAMPLE_POSTS[51])
    for post in (BIG, EXAMPLE_POSTS[51]):
        df = comments_at(ManualClock(now), post)
        assert (df["created_at"] <= now).all()
        assert len(df) == comment_total(post, now=now)
        if now > REFERENCE:  # ...and everything up to now is there
            grown = COMMENT_GROWTH[comment_total(post)].per_week
            weeks = (now - REFERENCE) / WEEK
            assert math.floor(weeks) * grown <= len(df) - comment_total(post) <= weeks * grown + 1
            assert df["created_at"].max() > now - 2 * WEEK / grown
    if now < REFERENCE:  # the reference world, cut at now
        assert len(df) < 51 and set(df["comment_id"]) <= set(at_reference["comment_id"])
        cut = at_reference[at_reference["created_at"] <= now]
        assert df["comment_id"].tolist() == cut["comment_id"].tolist()
    ads = ads_at(ManualClock(now), "for kids")
    assert len(ads) == ads_total("for kids", now=now)
    assert (ads["start_date"] <= now).all() and (ads["end_date"] <= now).all()
    assert (ads["end_date"] >= ads["start_date"]).all()
    if now > REFERENCE:
        started = ads[ads["start_date"] > REFERENCE]
        assert len(started) == len(ads) - 75 >= math.floor((now - REFERENCE) / WEEK) * 4
        running = started[started["is_active"]]
        assert len(running) and (running["end_date"] == now.replace(hour=0, minute=0)).all()
    if now < REFERENCE:
        reference = ads_at(ManualClock(), "for kids").set_index("ad_archive_id")
        assert len(ads) < 75 and set(ads["ad_archive_id"]) <= set(reference.index)
        # an ad that had stopped by the reference date, but after now, still runs
        then = reference.loc[ads["ad_archive_id"]]
        ended_later = (~then["is_active"] & (then["end_date"] > now)).to_numpy()
        assert ended_later.any() and ads.loc[ended_later, "is_active"].all()


def test_a_naive_now_is_refused() -> None:
    with pytest.raises(ValueError, match="tz-aware"):
        comments_body(BIG, "mostRecent", now=datetime(2026, 1, 8))  # noqa: DTZ001
    with pytest.raises(ValueError, match="tz-aware"):
        PinnedClock(datetime(2026, 1, 8))  # noqa: DTZ001
    with pytest.raises(ValueError, match=">= 0"):
        PinnedClock().advance(-1)


# -- clocks ------------------------------------------------------------------------------------


def test_the_default_clock_is_the_system_clock(http: requests.Session) -> None:
    with Sandbox() as sb:
        before = comment_total(BIG, now=datetime.now(UTC))
        total = get(sb, http, COMMENTS, urn=BIG, sort="mostRecent").json()["total"]
        after = comment_total(BIG, now=datetime.now(UTC))
    assert before <= total <= after
    if datetime.now(UTC) > REFERENCE + WEEK:  # (true on any machine with a right clock)
        assert total > 2345 + 72


def test_a_pinned_clock_keeps_waits_real(http: requests.Session) -> None:
    clock = PinnedClock()
    with Sandbox(rate_limit=2, clock=clock) as sb:
        headers = {"Authorization": f"Bearer {sb.api_key}"}
        url = f"{sb.url}/{COMMENTS}"
        params = {"urn": BIG, "sort": "mostRecent"}
        statuses = [http.get(url, params=params, headers=headers).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        time.sleep(1.1)  # the rate-limit window runs on real time
        answer = http.get(url, params=params, headers=headers)
        assert answer.status_code == 200 and answer.json()["total"] == 2345
        assert clock.now() == REFERENCE  # the date did not move
        clock.advance(WEEK.total_seconds())
        assert get(sb, http, COMMENTS, **params).json()["total"] == 2345 + 72


SERVE = """
import hashlib, sys
from datetime import timedelta
import requests
from socialframe.sandbox import EXAMPLE_POSTS, REFERENCE, ManualClock, Sandbox

now = REFERENCE + timedelta(seconds=float(sys.argv[1]))
h = hashlib.sha256()
with Sandbox(seed=5, clock=ManualClock(now)) as sb, requests.Session() as http:
    http.headers["Authorization"] = f"Bearer {sb.api_key}"
    for post in (EXAMPLE_POSTS[2345], EXAMPLE_POSTS[51], EXAMPLE_POSTS[0]):
        page, token = 1, None
        while True:
            params = {"urn": post, "sort": "mostRecent", "page": page}
            if token:
                params["paginationToken"] = token
            r = http.get(f"{sb.url}/get-profile-posts-comments", params=params)
            h.update(r.content)
            if page >= r.json()["totalPage"]:
                break
            page, token = page + 1, r.json()["paginationToken"]
    for search in ({"query": "for kids"}, {"query": "coffee", "activeStatus": "Active"}):
        params = dict(search)
        for _ in range(8):
            r = http.get(f"{sb.url}/fetch_search_ads_pages", params=params)
            h.update(r.content)
            info = r.json()["data"]["page_info"]
            if not info["has_next_page"]:
                break
            params = {**search, "end_cursor": info["end_cursor"]}
print(h.hexdigest())
"""


def test_two_processes_answer_the_same_bytes(tmp_path: Path) -> None:
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    at = timedelta(weeks=3, days=2, hours=5).total_seconds()

    def serve(seconds: float) -> str:
        done = subprocess.run(
            [sys.executable, str(script), str(seconds)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return done.stdout.strip()

    first, second, later = serve(at), serve(at), serve(at + WEEK.total_seconds())
    assert re.fullmatch(r"[0-9a-f]{64}", first)
    assert first == second  # same seed, same now: the same bytes in another process
    assert later != first  # another now, another world


# -- many posts, the documentation -------------------------------------------------------------


def test_posts_with_gives_many_distinct_posts_to_watch(http: requests.Session) -> None:
    watched = [p for total in (51, 82, 120, 2345) for p in posts_with(total, 25)]
    assert len(set(watched)) == 100 and all(len(p) == 19 for p in watched)
    assert posts_with(2345, 1) == [BIG]
    clock = PinnedClock()
    with Sandbox(clock=clock) as sb:
        firsts = {}
        for post in watched[::12]:
            body = get(sb, http, COMMENTS, urn=post, sort="mostRecent").json()
            assert body["total"] == comment_total(post) and 51 <= body["total"] <= 2345
            firsts[post] = body["data"][0]["permalink"]
        clock.advance(WEEK.total_seconds())
        for post in watched[::12]:
            body = get(sb, http, COMMENTS, urn=post, sort="mostRecent").json()
            assert body["total"] == comment_total(post) + COMMENT_GROWTH[comment_total(post)][0]
    assert len(set(firsts.values())) == len(firsts)  # each post its own comments
    for bad in [(3, 1), (51, -1), (51, 10**7), (51, True)]:
        with pytest.raises(ValueError):
            posts_with(*bad)  # type: ignore[arg-type]


def test_the_rate_table_in_the_docs_is_the_rates() -> None:
    doc = sandbox_module.__doc__ or ""
    rows = re.findall(r"^ {8}(\d+) +(\d+)(?: \(never\))? +(\d+)$", doc, re.M)
    posts = {int(t): (int(n), int(r)) for t, n, r in rows}
    assert posts == {t: tuple(g) for t, g in COMMENT_GROWTH.items()}
    rows = re.findall(r"^ {8}(query|ad_page_id), (\d+) +(\d+)(?: \(never\))? +(\d+)$", doc, re.M)
    ads = {(kind, int(n)): (int(s), int(p)) for kind, n, s, p in rows}
    assert ads == {("query", n): tuple(g) for n, g in AD_GROWTH.items()} | {
        ("ad_page_id", n): tuple(g) for n, g in PAGE_AD_GROWTH.items()
    }


def test_each_walk_has_its_own_tokens_and_a_walk_goes_on_with_its_own(
    http: requests.Session,
) -> None:
    """As the service's: a token carries when its walk's page 1 was served, so the
    pages of two walks are never one cache entry; a walk goes on under its tokens."""
    clock = PinnedClock()
    with Sandbox(clock=clock) as sb:
        first = get(sb, http, COMMENTS, urn=BIG, sort="mostRecent").json()["paginationToken"]
        clock.advance(3600)
        second = get(sb, http, COMMENTS, urn=BIG, sort="mostRecent").json()["paginationToken"]
        assert first != second
        assert first.split("-")[1] == str(int(REFERENCE.timestamp() * 1000))
        assert second.split("-")[1] == str(int(REFERENCE.timestamp() * 1000) + 3_600_000)
        # the earlier walk goes on, its page 2 carrying its own start
        page2 = get(sb, http, COMMENTS, urn=BIG, sort="mostRecent", page=2, paginationToken=first)
        assert page2.json()["paginationToken"].split("-")[1] == first.split("-")[1]
        # a token whose time was changed is not one the service gave
        digits, ms, tail = first.split("-")
        forged = f"{digits}-{int(ms) + 1}-{tail}"
        refused = http.get(
            f"{sb.url}/{COMMENTS}",
            params={"urn": BIG, "sort": "mostRecent", "page": 2, "paginationToken": forged},
            headers={"Authorization": f"Bearer {sb.api_key}"},
            timeout=30,
        )
        assert refused.status_code == 400


# -- worlds: one cache, never a page of another world ---------------------------------------


def test_a_pinned_world_never_gets_the_live_worlds_pages_from_a_shared_cache(
    tmp_path: Path,
) -> None:
    """Before: every sandbox of seed 0 was cached under ``/seed-0`` whatever its clock,
    so a notebook pinned to 2026-01-01 read the pages a live sandbox had left in the
    cache (295 ads where its world has 94; the CLI got 2,427 comments where the live
    world has 5,824), without a word."""
    cache = tmp_path / "shared.sqlite"
    with (
        Sandbox(seed=0) as live,  # the system clock: the world grown since 2026-01-01
        live.client(cache=cache, progress=False) as client,
    ):
        live_ads = client.search_ads("running shoes", country="US")
        live_comments = client.post_comments(BIG)
        assert live.charges > 0
    with (
        Sandbox(seed=0, clock=PinnedClock()) as pinned,
        pinned.client(cache=cache, progress=False) as client,
    ):
        ads = client.search_ads("running shoes", country="US")
        comments = client.post_comments(BIG)
        paid = pinned.charges
    with (
        Sandbox(seed=0, clock=PinnedClock()) as fresh,
        fresh.client(cache=False, progress=False) as client,
    ):
        truth_ads = client.search_ads("running shoes", country="US")
    assert len(comments) == 2345 < len(live_comments)
    assert set(ads["ad_archive_id"]) == set(truth_ads["ad_archive_id"])
    assert len(ads) < len(live_ads)
    assert paid > 0  # its own pages, paid for once...
    with (
        Sandbox(seed=0) as live,
        live.client(cache=cache, progress=False) as client,
    ):
        again = client.post_comments(BIG)  # ...and the live world still finds its own
        assert live.charges == 0
    assert len(again) == len(live_comments)


def test_worlds_are_named_by_seed_and_by_where_their_clock_started() -> None:
    start = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
    pinned, manual = PinnedClock(start), ManualClock(start)
    assert Sandbox(seed=2).world == "seed-2"  # the live world: as the real service
    assert Sandbox(seed=2, clock=pinned).world == "seed-2/at-20260301T123000Z"
    assert Sandbox(seed=2, clock=manual).world == "seed-2/manual-20260301T123000Z"
    # a clock's whole timeline is one world: moving it does not rename it
    pinned.advance(WEEK.total_seconds())
    manual.sleep(5)
    assert Sandbox(seed=2, clock=pinned).world == "seed-2/at-20260301T123000Z"
    assert Sandbox(seed=2, clock=manual).world == "seed-2/manual-20260301T123000Z"
    assert Sandbox(clock=PinnedClock(start + timedelta(microseconds=5))).world == (
        "seed-0/at-20260301T123000.000005Z"
    )
    assert Sandbox(clock=manual).in_process_url == (
        "http://sandbox.invalid/seed-0/manual-20260301T123000Z"
    )


def test_the_command_line_sandbox_pinned_to_a_date_prints_its_own_world() -> None:
    """``socialframe sandbox --at`` prints the base URL of its world, so the CLI's cache
    keeps its pages apart from the live sandbox's and the demo's."""
    with subprocess.Popen(
        [sys.executable, "-m", "socialframe", "sandbox", "--at", "2026-02-01", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None
            lines = [process.stdout.readline() for _ in range(3)]
        finally:
            process.terminate()
            process.wait(timeout=30)
    exported = next(line for line in lines if "SOCIALFRAME_BASE_URL" in line)
    assert re.search(r"/seed-0/at-20260201T000000Z$", exported.strip()), lines
