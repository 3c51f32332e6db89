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

Each figure twice: with the absence rule alone, and with ``confirm_stops=True`` (a
search by the advertiser's page id before each stop by absence); the confirmations'
cost as a share of the refreshes. The days between refreshes are the arguments, taken
in turn (``7 8``: alternately 7 and 8 days apart, every refresh on an odd day, the
days the faulty world drops ads from its pages):

    python bench/change_bench.py          # weekly
    python bench/change_bench.py 7 8      # alternately 7 and 8 days apart
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
#: Days between refreshes, taken in turn (``python bench/change_bench.py 7 8``).
STEPS = [int(a) for a in sys.argv[1:]] or [7]
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


def one(confirm: bool) -> tuple[dict[str, str], float]:
    """The figures of one run of the world (``confirm``: with ``confirm_stops``)."""
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
            study.refresh(client, recheck_pages=RECHECK, full=week == WEEKS, confirm_stops=confirm)
            clock.advance(STEPS[week % len(STEPS)] * 86400)
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
    stop_evidence = [json.loads(e) for e in stopped["evidence"]]
    confirm_cost = float(
        sum(
            c
            for c, e in zip(stopped["cost_usd"].fillna(0), stop_evidence, strict=True)
            if "confirmation" in e
        )
    )
    # (a confirmation that found the ad running made no change: its calls are in the runs)
    plain_paid = paid - confirm_cost
    figures = {
        "refreshes paid": f"${paid:,.2f} ({int(runs['paid_calls'].sum()):,} calls)",
        "false stopped (goal 0)": f"{len(false_stopped)}",
        "false edits, ads (goal 0)": f"{len(false_edits)}",
        "ads stopped, truth / confirmed <=2": f"{len(true_stops)} / {confirmed}",
        "  of those before the last refresh": f"{len(confirmable)} / {confirmed_in_time}",
        "ads resumed, truth / found": f"{len(resumed_true)} / {len(resumed)}",
        "ads edited, truth / found": f"{len(edits_truth)} / {len(true_edits)}",
        "comments edited, truth / found (false)": f"{len(edited_truth)} /"
        f" {len(found_edited & edited_truth)} ({len(found_edited - edited_truth)})",
        "comments deleted, truth / found (false)": f"{len(deleted_truth)} /"
        f" {len(found_deleted & deleted_truth)} ({len(found_deleted - deleted_truth)})",
        "stops confirmed by a page-id search": f"{sum('confirmation' in e for e in stop_evidence)}",
        "stops' cost_usd (their confirmations)": f"${confirming:,.2f} ="
        f" {100 * confirming / max(plain_paid, 0.01):.1f}%",
        "comments' edits/deletions cost": f"${proving - confirming:,.2f} ="
        f" {100 * (proving - confirming) / paid:.1f}%",
        "time": f"{elapsed:.0f}s",
    }
    if false_edits:
        figures["false edits"] = json.dumps(false_edits[:5])
    for aid in false_stopped[:3]:
        figures[f"false stop {aid}"] = str(stopped.set_index("id").at[aid, "evidence"])[:120]
    return figures, paid


def main() -> None:
    (plain, paid_plain), (confirming, paid_confirming) = one(False), one(True)
    extra = paid_confirming - paid_plain  # (the same world, the same walks: the searches)
    confirming["all confirmation searches (goal < 10%)"] = (
        f"${extra:,.2f} = {100 * extra / paid_plain:.1f}%"
    )
    print(f"change bench: 100 posts, {len(QUERIES)} searches, {WEEKS + 1} refreshes")
    print(f"  (sandbox faults on, seed {SEED}; recheck_pages={RECHECK}; full=True the last)")
    print(f"  days between refreshes, in turn: {' '.join(map(str, STEPS))}")
    print(f"  {'':42} {'absence rule':>24}   {'confirm_stops=True':>24}")
    for name in dict.fromkeys([*plain, *confirming]):
        print(f"  {name:42} {plain.get(name, '-'):>24}   {confirming.get(name, '-'):>24}")


if __name__ == "__main__":
    main()
