"""A study's refresh walks (``_study/refresh.py``): the fewest pages that may hold what is
new, after walks cut short, a budget stop, a clock set back or a failed item. Through
the sandbox over HTTP, a real SQLite cache, real Parquet files and DuckDB."""

from __future__ import annotations

import json
from pathlib import Path

import deltalake
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox, comment_total

P82, P2345 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[2345]


@pytest.mark.slow
def test_a_cut_walk_finished_from_the_cache_still_finds_what_arrived_since(
    tmp_path: Path,
) -> None:
    """Before: a walk cut by the budget and finished within the day from the cached
    pages saw the post as it was when the cut walk began: what arrived since was on
    none of its pages, and ``complete`` was true with ``missing`` 0 from the old total."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])  # 47 pages; 72 comments a week, 60 of them new threads
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, backoff=0.01) as client,
    ):
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.10)
        clock.advance(12 * 3600)  # within RESUME_WITHIN: the cut walk goes on from the cache
        now = comment_total(P2345, now=clock.now(), seed=0)
        assert now > 2345  # comments arrived in those 12 hours
        sent = len(sandbox.requests)
        run = study.refresh(client)
        charged = sum(r.charged for r in sandbox.requests[sent:])
    held = len(study.comments())
    assert held == now  # every comment the service has now
    assert run["complete"].tolist() == [True] and run["missing"].tolist() == [0]
    assert run["new"].tolist() == [now - 500]
    # the 37 pages the cut walk had not paid for, and the newest page read afresh
    assert run["paid_calls"].tolist() == [charged] == [37 + 1]


def test_a_search_of_stopped_ads_finds_the_ads_that_stopped_since(tmp_path: Path) -> None:
    """Before: a watched search of stopped ads only (``active_status="inactive"``) asked
    for the ads *started* since the last refresh; an older ad that stopped in the week
    joins that search, and was never seen, with ``complete`` true."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", active_status="inactive")
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
        clock.advance(7 * 86400)
        week = study.refresh(client)
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        sweep = set(client.search_ads("running shoes", active_status="inactive")["ad_archive_id"])
    have = set(study.ads()["ad_archive_id"])
    assert week["complete"].tolist() == [True]
    assert sweep - have == set()  # the re-sweep finds nothing the refresh missed
    assert week["new"].tolist() == [len(sweep) - 45] and len(sweep) > 45
    new = set(study.changes().query("change == 'new'")["id"])
    assert new == have


# -- a damaged or hostile study: one StudyError, never a raw DuckDB / pandas error -----------


@pytest.mark.slow
def test_a_post_whose_newest_comments_came_from_a_cut_walk_is_not_read_whole_again(
    tmp_path: Path,
) -> None:
    """Before: the walk's stopping set was the post's 500 newest known comments, and
    then only those a finished walk saw: when a walk cut short (more than a day ago) had
    brought the 500 newest, none was left, and the next refresh read the post whole."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, backoff=0.01) as client,
    ):
        study.refresh(client)  # 47 pages, every comment
        clock.advance(12 * 7 * 86400)  # 864 comments, 720 of them new threads: 15 pages
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.11)  # 550 of them, the newest
        clock.advance(2 * 86400)  # past RESUME_WITHIN: a fresh walk
        held = len(study.comments())
        run = study.refresh(client)
        now = comment_total(P2345, now=clock.now(), seed=0)
    # down to the first page of what the first (finished) walk saw, not all 65 pages
    assert run["paid_calls"].tolist() == [16]
    assert int(run.at[0, "new"]) + int(run.at[0, "missing"]) == now - held
    assert len(study.comments()) == held + int(run.at[0, "new"])


def test_a_search_cut_short_keeps_its_pages_and_is_checked_as_of_the_oldest(
    tmp_path: Path,
) -> None:
    """Its pages show the search as it was when the cut walk began: the next refresh
    asks for the ads started since that day, not since the day it was finished."""
    from datetime import timedelta

    from socialframe.sandbox import REFERENCE, PinnedClock, Sandbox

    clock = PinnedClock(REFERENCE + timedelta(hours=23))  # late on 2026-01-01
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes")  # several pages
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.BudgetExceededError) as cut:
            study.refresh(client, max_cost=0.02)
        # Before: a search cut short kept nothing (its two paid pages were lost to the
        # study, and paid again by the next refresh).
        assert cut.value.partial is not None and cut.value.partial["new"].tolist() == [52]
        assert len(study.ads()) == 52
        clock.advance(2 * 3600)  # past midnight: 2026-01-02
        done = study.refresh(client)
        assert sandbox.charges == 2 + int(done["paid_calls"].sum())
        first_pages = [r for r in sandbox.requests if "end_cursor" not in r.params]
        assert len(first_pages) == 1  # page 1 paid once

    # the state the next refresh starts from: the items table's, of the last refresh
    # runs names (docs/studies.md, "The tables")
    items = deltalake.DeltaTable(tmp_path / "s" / "items").to_pandas()
    runs = deltalake.DeltaTable(tmp_path / "s" / "runs").to_pandas()
    kept = items[items["refresh"].isin(runs["refresh"]) & items["state"].notna()]
    kept = kept.sort_values("refresh")
    assert kept["watch"].nunique() == 1
    assert json.loads(kept["state"].iloc[-1])["checked"] == "2026-01-01"


# -- a second hostile review: what the fixes above left ----------------------------------


def test_a_failing_item_skipped_does_not_hide_a_budget_stop(tmp_path: Path) -> None:
    """Before: with ``on_error="skip"``, an item that failed before the one the budget
    stopped made the refresh return as if it had finished (the budget stop was dropped
    with the skipped error; ``socialframe study refresh`` exited 0, not 3), and the warning
    named the budget-stopped item as "left out" though its pages were kept."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([EXAMPLE_POSTS[50], P2345])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, workers=1) as client,
    ):
        sandbox.inject(400)  # the first post's page 1 is refused (final: never retried)
        with (
            pytest.warns(sf.SkippedWarning, match=r"^1 watched items failed") as said,
            pytest.raises(sf.BudgetExceededError) as stopped,
        ):
            study.refresh(client, max_cost=0.03, on_error="skip")
        assert sandbox.charges == 3
    assert P2345 not in str(said[0].message)
    partial = stopped.value.partial
    assert partial is not None
    assert partial.set_index("item")["new"].to_dict() == {EXAMPLE_POSTS[50]: 0, P2345: 150}
    assert partial["complete"].tolist() == [False, False]
    assert len(study.comments()) == 150  # what the budget let it fetch is kept


def test_after_the_clock_is_set_back_a_refresh_still_asks_the_service(tmp_path: Path) -> None:
    """Before: pages a refresh stored while the clock ran a week ahead were stamped a
    week ahead, and counted as fresh for every refresh until the clock got there again:
    two days later (clock set right) the refresh paid nothing and found nothing."""
    from datetime import timedelta

    from socialframe.sandbox import REFERENCE

    world = PinnedClock()  # the service's time
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82, EXAMPLE_POSTS[50]])
    with Sandbox(seed=0, clock=world) as sandbox:
        ahead = PinnedClock(REFERENCE + timedelta(days=7))  # this machine's, a week ahead
        with sandbox.client(cache=tmp_path / "c", progress=False, clock=ahead) as client:
            first = study.refresh(client)
        world.advance(2 * 86400)
        right = PinnedClock(REFERENCE + timedelta(days=2))  # set right: back five days
        with sandbox.client(cache=tmp_path / "c", progress=False, clock=right) as client:
            sent = sandbox.charges
            again = study.refresh(client)
            paid = sandbox.charges - sent
        now = comment_total(EXAMPLE_POSTS[50], now=world.now(), seed=0)
    assert first["paid_calls"].tolist() == [2, 1]
    assert again["paid_calls"].tolist() == [1, 1] and paid == 2  # each post asked again
    assert now == 51 and again["new"].tolist() == [0, 1]  # the comment of those two days
    import deltalake

    commits = deltalake.DeltaTable(str(tmp_path / "s" / "runs")).history()
    ids = [c["socialframe.refresh"] for c in sorted(commits, key=lambda c: c["version"])[1:]]
    assert len(ids) == 2 and ids == sorted(ids)  # ids in the order run


def test_an_item_a_failed_refresh_never_looked_at_stays_complete(tmp_path: Path) -> None:
    """Before: a post the refresh never fetched (it was stopped by another item's failure
    first, or its own first page failed) was marked not complete in the study, and the
    next ``full`` refresh read it whole again (the big post: 47 pages for nothing)."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([EXAMPLE_POSTS[50], P82])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, workers=1) as client,
    ):
        study.refresh(client)
        clock.advance(3600)
        sandbox.inject(400)  # the first post's page 1: the refresh stops there
        with pytest.raises(sf.BadRequestError) as failed:
            study.refresh(client)
        partial = failed.value.partial
        assert partial is not None and partial["paid_calls"].tolist() == [0, 0]
        assert partial["complete"].tolist() == [False, False]  # neither was looked at
        clock.advance(3600)
        sent = sandbox.charges
        full = study.refresh(client, full=True)
        assert sandbox.charges - sent == 2
    # both were complete, and nothing said otherwise since: one page each, not P82's two
    assert full["paid_calls"].tolist() == [1, 1]
    assert full["complete"].tolist() == [True, True]


@pytest.mark.slow
def test_a_walk_cut_again_after_starting_afresh_is_resumed_the_next_time(
    tmp_path: Path,
) -> None:
    """Before: a cut walk kept the time of the first cut; once that was more than a day
    ago, every later walk started afresh, and one cut again was never resumed: a post too
    big for one refresh's budget was paid from page 1 every time and never got further."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.05)  # pages 1-5
        clock.advance(2 * 86400)  # past RESUME_WITHIN: a fresh walk
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.05)  # pages 1-5 again, as the post is now
        held = len(study.comments())
        clock.advance(3600)  # within a day of that walk: it goes on from its pages
        sent = len(sandbox.requests)
        with pytest.raises(sf.BudgetExceededError) as third:
            study.refresh(client, max_cost=0.05)
        asked = [r.params.get("page", "1") for r in sandbox.requests[sent:] if r.charged]
    assert asked == ["6", "7", "8", "9", "10"]  # on from that walk's page 5
    partial = third.value.partial
    assert partial is not None
    new = int(partial.at[0, "new"])  # (before: 0, the same five pages)
    assert new > 200 and len(study.comments()) == held + new
