"""Whether a study's changes can be put in front of a client: eight weekly refreshes of
a sandbox world with the real service's faults (``Sandbox(faults=True)``: ads dropped
from a day's pages, paused and resumed, copy edited; tracking parameters, CDN hosts and
signatures changing on every answer; comments edited and deleted), 100 posts and 10
searches, beside the truth the sandbox knows (:mod:`socialframe.sandbox._faults`).

Printed, each against its goal:

- false stopped: ``stopped`` changes of ads that were running then (goal 0);
- false edits: ``edited`` changes of ads whose copy did not change (goal 0);
- true changes found: the ads' stops, resumptions and copy edits a complete walk can
  see, and the comments' edits and deletions on the pages the refreshes read (a
  weekly refresh with ``recheck_pages``, and ``full=True`` the last week);
- stopped ads confirmed within two refreshes;
- what proving changes cost beyond the normal walks, as a share of all the refreshes
  paid (goal under 10%).

    python bench/change_bench.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

import socialframe as sf  # noqa: E402
from socialframe.sandbox import REFERENCE, ManualClock, Sandbox, posts_with  # noqa: E402
from socialframe.sandbox import _faults as faults  # noqa: E402
from socialframe.sandbox._ads import _running_at_reference, ads_body  # noqa: E402

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
WEEKS = 8
#: Days between refreshes (``python bench/change_bench.py 8`` for another step).
STEP = int(sys.argv[1]) if len(sys.argv) > 1 else 7
RECHECK = 1
SEED = 0


def running_truth(query: str, at: pd.Timestamp) -> dict[str, bool]:
    """Each ad of a search (country US, every status) -> whether it runs at ``at``, as
    the faulty world has it (its pauses; an ad a day's pages drop runs all the same)."""
    params = {"query": query, "country": "US", "activeStatus": "ALL"}
    running: dict[str, bool] = {}
    cursor = None
    while True:
        sent = dict(params, **({"end_cursor": cursor} if cursor else {}))
        data = ads_body(sent, SEED, at.to_pydatetime(), faults=False)["data"]
        ids = [str(ad["ad_archive_id"]) for group in data["ads"] for ad in group]
        fresh = [aid for aid in ids if aid not in running]
        for group in data["ads"]:
            for ad in group:
                running[str(ad["ad_archive_id"])] = bool(ad["is_active"])
        cursor = data["page_info"]["end_cursor"]
        if not data["page_info"]["has_next_page"] or cursor is None or not fresh:
            break
    day = int((at - pd.Timestamp(REFERENCE)).total_seconds() // 86400)
    pausing = _running_at_reference(f"q:{query}", SEED)  # (those running at the reference)
    for aid, on in running.items():
        pause = faults.ad_pause(SEED, aid) if aid in pausing else None
        if on and pause is not None and pause[0] <= day < pause[1]:
            running[aid] = False
    return running


def main() -> None:
    posts = [p for total in (51, 82, 120, 2345) for p in posts_with(total, 25)]
    clock = ManualClock(REFERENCE)
    folder = Path(tempfile.mkdtemp(prefix="sf-change-bench-"))
    study = sf.Study(folder / "study")
    study.add_posts(posts)
    for query in QUERIES:
        study.add_ads(query, country="US", active_status="all")
    truth: list[dict[str, dict[str, bool]]] = []
    times: list[pd.Timestamp] = []
    began = time.perf_counter()
    with (
        Sandbox(seed=SEED, clock=clock, faults=True) as sandbox,
        sandbox.client(in_process=True, cache=False, clock=clock, progress=False) as client,
    ):
        for week in range(WEEKS + 1):
            at = pd.Timestamp(clock.now())
            times.append(at)
            truth.append({q: running_truth(q, at) for q in QUERIES})
            study.refresh(client, recheck_pages=RECHECK, full=week == WEEKS)
            clock.advance(STEP * 86400)
    elapsed = time.perf_counter() - began
    changes = study.changes()
    runs = study.runs()
    ads = changes.query("kind == 'ad'")
    at_index = {t: i for i, t in enumerate(runs["at"])}

    def running_at(aid: str, i: int) -> bool | None:
        for q in QUERIES:
            if aid in truth[i][q]:
                return truth[i][q][aid]
        return None

    stopped = ads.query("change == 'stopped'")
    false_stopped = [
        aid
        for aid, at in zip(stopped["id"], stopped["at"], strict=True)
        if running_at(aid, at_index[at]) is True
    ]
    # the true stops: running at refresh i - 1, stopped at refresh i
    true_stops: list[tuple[str, int]] = []
    for i in range(1, len(times)):
        for q in QUERIES:
            for aid, on in truth[i][q].items():
                if not on and truth[i - 1][q].get(aid) is True:
                    true_stops.append((aid, i))
    stop_at = {aid: at_index[at] for aid, at in zip(stopped["id"], stopped["at"], strict=True)}
    confirmed = sum(1 for aid, i in true_stops if i <= stop_at.get(aid, 99) <= i + 1)
    # (a stop first missed by the last refresh has no second one to confirm it yet)
    last = len(times) - 1
    confirmable = [(aid, i) for aid, i in true_stops if i < last]
    confirmed_in_time = sum(1 for aid, i in confirmable if i <= stop_at.get(aid, 99) <= i + 1)
    resumed_true = {
        (aid, i)
        for i in range(1, len(times))
        for q in QUERIES
        for aid, on in truth[i][q].items()
        if on and truth[i - 1][q].get(aid) is False
    }
    resumed = ads.query("change == 'resumed'")
    edited = ads.query("change == 'edited'")
    day = {
        i: int((t - pd.Timestamp(REFERENCE)).total_seconds() // 86400) for i, t in enumerate(times)
    }
    false_edits, true_edits = [], []
    for aid, at, fields in zip(edited["id"], edited["at"], edited["fields"], strict=True):
        i = at_index[at]
        when = faults.ad_edit_day(SEED, aid)
        if when is not None and day[i - 1] < when <= day[i]:
            true_edits.append(aid)
        else:
            false_edits.append((aid, fields))
    # an edit a complete walk can see: the ad runs at the first refresh after it (a
    # stopped ad is not among the running ones a refresh reads)
    edits_truth = set()
    for aid in set(study.ads()["ad_archive_id"]):
        when = faults.ad_edit_day(SEED, aid)
        if when is None or not day[0] < when <= day[len(times) - 1]:
            continue
        after = next(i for i in range(len(times)) if day[i] >= when)
        if running_at(aid, after) and running_at(aid, after - 1):
            edits_truth.add(aid)
    comments = changes.query("kind == 'comment'")
    held = study.comments()
    week_of = {i: (t - pd.Timestamp(REFERENCE)).days // 7 for i, t in enumerate(times)}
    last_week = week_of[len(times) - 1]
    deleted_truth = {
        cid
        for cid, link in zip(held["comment_id"], held["permalink"], strict=True)
        if (w := faults.comment_deleted_week(SEED, str(link))) is not None and w <= last_week
    }
    edited_truth = {
        cid
        for cid, link in zip(held["comment_id"], held["permalink"], strict=True)
        if (w := faults.comment_edit_week(SEED, str(link))) is not None and w <= last_week
    }
    found_deleted = set(comments.query("change == 'deleted'")["id"])
    found_edited = set(comments.query("change == 'edited'")["id"])
    paid = float(runs["cost_usd"].sum())
    proving = float(changes["cost_usd"].fillna(0).sum())
    confirming = float(ads["cost_usd"].fillna(0).sum())
    print(f"change bench: {len(posts)} posts, {len(QUERIES)} searches, {WEEKS} weekly refreshes")
    print(f"  (sandbox faults on, seed {SEED}; recheck_pages={RECHECK}; full=True the last week)")
    print(f"  days between refreshes              {STEP}")
    print(
        f"  refreshes paid                      ${paid:,.2f} ({int(runs['paid_calls'].sum()):,} calls)"
    )
    print(f"  false stopped                       {len(false_stopped)}   (goal 0)")
    print(f"  false edits (ads)                   {len(false_edits)}   (goal 0)")
    print(
        f"  ads stopped, truth / confirmed <=2  {len(true_stops)} / {confirmed}"
        f" (of those before the last refresh: {len(confirmable)} / {confirmed_in_time})"
    )
    print(f"  ads resumed, truth / found          {len(resumed_true)} / {len(resumed)}")
    print(f"  ads edited, truth / found           {len(edits_truth)} / {len(true_edits)}")
    print(
        f"  comments edited, truth / found      {len(edited_truth)} / {len(found_edited & edited_truth)}"
        f" (false {len(found_edited - edited_truth)})"
    )
    print(
        f"  comments deleted, truth / found     {len(deleted_truth)} / {len(found_deleted & deleted_truth)}"
        f" (false {len(found_deleted - deleted_truth)})"
    )
    print(
        f"  confirming stops (ads) cost         ${confirming:,.2f} ="
        f" {100 * confirming / paid:.1f}% of the refreshes (goal < 10%)"
    )
    print(
        f"  comments' edits/deletions cost      ${proving - confirming:,.2f} ="
        f" {100 * (proving - confirming) / paid:.1f}% (recheck_pages={RECHECK} each week,"
        " full=True the last)"
    )
    print(f"  ({elapsed:.0f}s)")
    if false_edits:
        print("  false edits:", json.dumps(false_edits[:5]))
    for aid in false_stopped[:5]:
        print(f"  false stop {aid}: {stopped.set_index('id').at[aid, 'evidence']}")


if __name__ == "__main__":
    main()
