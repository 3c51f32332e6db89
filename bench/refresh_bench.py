"""What a study's refresh pays for a week, beside a full re-sweep of the same week.

100 watched posts (25 each of 51, 82, 120 and 2,345 comments at the sandbox's
reference date; the 82-comment posts never grow) and 10 watched searches, in the
sandbox over HTTP, its clock a ``ManualClock`` shared with the client:

1. a first refresh (it reads everything: the anchor of what a sweep costs);
2. a week passes (``clock.advance``);
3. a second refresh; then, for the same moment, a full re-sweep (today's only way:
   every page of every post and search, with a client that has no cache).

Printed: both paid-call counts, their ratio (goal: the refresh pays <= 15% of the
re-sweep), and what each found new: top-level comments, replies, ads; and how many
of the re-sweep's new comments and ads the refresh missed on items it calls complete
(goal: 0).

    python bench/refresh_bench.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import socialframe as sf  # noqa: E402
from socialframe.sandbox import REFERENCE, ManualClock, Sandbox, posts_with  # noqa: E402

QUERIES = [
    "running shoes",
    "for kids",
    "coffee",
    "yoga mats",
    "trail running",
    "espresso machine",
    "kids bikes",
    "rain jacket",
    "protein bars",
    "standing desk",
]


def main() -> None:
    posts = [p for total in (51, 82, 120, 2345) for p in posts_with(total, 25)]
    clock = ManualClock(REFERENCE)
    folder = Path(tempfile.mkdtemp(prefix="sf-refresh-bench-"))
    study = sf.Study(folder / "study")
    study.add_posts(posts)
    for query in QUERIES:
        study.add_ads(query, country="US", active_status="all")
    with Sandbox(seed=0, clock=clock) as sandbox:
        options = {"progress": False, "clock": clock, "workers": 8}
        with sandbox.client(cache=folder / "cache", **options) as client:
            began = time.perf_counter()
            first = study.refresh(client)
            first_s = time.perf_counter() - began
            before_comments = set(study.comments()["comment_id"])
            before_ads = set(study.ads()["ad_archive_id"])
            clock.advance(7 * 86400)
            paid_before = client.ledger.paid_calls
            began = time.perf_counter()
            second = study.refresh(client)
            second_s = time.perf_counter() - began
            refresh_paid = client.ledger.paid_calls - paid_before
        with sandbox.client(cache=False, **options) as sweeper:
            swept = sweeper.post_comments(posts, sort="mostRecent")
            swept_ads = sweeper.search_ads(QUERIES, country="US", active_status="all")
            sweep_paid = sweeper.ledger.paid_calls
    new_swept = swept[~swept["comment_id"].isin(before_comments)]
    new_top = new_swept[~new_swept["is_reply"].fillna(False).astype(bool)]
    new_ads_swept = set(swept_ads["ad_archive_id"].dropna()) - before_ads
    held = study.comments()
    found = set(held["comment_id"]) - before_comments
    found_ads = set(study.ads()["ad_archive_id"]) - before_ads
    complete = set(second.loc[second["complete"].fillna(False).astype(bool), "item"])
    post_of = dict(zip(new_swept["comment_id"], new_swept["post"], strict=True))
    missed_complete = [c for c in set(new_swept["comment_id"]) - found if post_of[c] in complete]
    missed_top = set(new_top["comment_id"]) - found
    print(f"first refresh: {int(first['paid_calls'].sum()):,} paid calls in {first_s:.1f} s")
    print(f"{'a week later':<34}{'paid calls':>12}{'new comments':>14}{'new ads':>9}")
    posts_new = int(second.loc[second["kind"] == "post", "new"].sum())
    ads_new = int(second.loc[second["kind"] == "ads", "new"].sum())
    print(f"{'refresh':<34}{refresh_paid:>12,}{posts_new:>14,}{ads_new:>9,}")
    print(
        f"{'full re-sweep (anchor)':<34}{sweep_paid:>12,}{len(new_swept):>14,}{len(new_ads_swept):>9,}"
    )
    print(
        f"refresh / re-sweep: {refresh_paid / sweep_paid:.1%} of the calls (goal <= 15%);"
        f" refresh took {second_s:.1f} s"
    )
    new_replies = set(new_swept["comment_id"]) - set(new_top["comment_id"])
    print(
        f"new top-level comments the refresh missed: {len(missed_top)} of {len(new_top)};"
        f" new replies it found: {len(new_replies & found)} of {len(new_replies)}"
        " (the rest show as missing, for a full refresh)"
    )
    print(
        f"new ads missed: {len(new_ads_swept - found_ads)} of {len(new_ads_swept)};"
        f" new comments missed on items called complete: {len(missed_complete)} (goal 0);"
        f" items not complete: {len(second) - len(complete)}"
    )


if __name__ == "__main__":
    main()
