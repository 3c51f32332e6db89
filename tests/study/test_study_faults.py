"""The change rules against what the real service does to a monitor: a sandbox with
``faults=True`` (ads dropped from a day's pages, paused and resumed, edited; tracking
parameters, CDN hosts and signatures that change on every answer; comments edited and
deleted), over HTTP with a real SQLite cache, Parquet and DuckDB, its clock advanced a
week at a time; the truth from the sandbox's own functions
(:mod:`socialframe.sandbox._faults`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import REFERENCE, PinnedClock, Sandbox, ads_body, faults, posts_with

WEEK = 7 * 86400
#: A post of 82 comments that never grows: two of them deleted (weeks 6 and 7), two
#: edited (weeks 1 and 3), with seed 0.
LOSING = posts_with(82, 1)[0]
#: Another: four deleted, four edited, within eight weeks.
EDITED = posts_with(82, 3)[2]


@pytest.fixture
def clock() -> PinnedClock:
    return PinnedClock()


@pytest.fixture
def sandbox(clock: PinnedClock) -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=clock, faults=True) as server:
        yield server


def _client(sandbox: Sandbox, clock: PinnedClock, tmp_path: Path) -> sf.Client:
    return sandbox.client(cache=tmp_path / "cache", progress=False, clock=clock, backoff=0.01)


def _truth(study: sf.Study, weeks: int, which: str) -> set[str]:
    """The ids of the study's comments edited (or deleted) by ``weeks`` after the
    reference date, as the sandbox has it (by each one's permalink)."""
    pick = faults.comment_edit_week if which == "edited" else faults.comment_deleted_week
    held = study.comments()
    return {
        cid
        for cid, link in zip(held["comment_id"], held["permalink"], strict=True)
        if (week := pick(0, str(link))) is not None and week <= weeks
    }


# -- comments ------------------------------------------------------------------------------------


@pytest.mark.parametrize("junk", [-1, True, "80"])
def test_a_total_that_is_no_count_is_no_count(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path, junk: object
) -> None:
    """Page 1's ``total`` is what a walk is held to (deletions are proved by bringing
    back that many); one that is no count is unknown: -1 was taken as 0, and the post
    as one that lost all its comments."""
    from socialframe.sandbox import comments_body

    pages = [comments_body(LOSING, "mostRecent", n, now=clock.now()) for n in (1, 2)]
    for body in pages:
        body["total"] = junk
    sandbox.inject(*pages)
    study = sf.Study(tmp_path / "s")
    study.add_posts([LOSING])
    with _client(sandbox, clock, tmp_path) as client:
        run = study.refresh(client)
    assert run["paid_calls"].tolist() == [2] and run["new"].tolist() == [82]
    assert run["missing"].isna().all()


def test_a_post_that_lost_comments_is_not_complete_and_only_a_whole_walk_deletes(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([LOSING])
    with _client(sandbox, clock, tmp_path) as client:
        study.refresh(client)
        deleted = _truth(study, 9, "deleted")
        assert len(deleted) == 2
        clock.advance(9 * WEEK)
        newest = study.refresh(client)  # page 1 holds a known comment: it stops there
        # Before: 80 comments counted, 82 held, and the post was "complete"
        assert newest[["paid_calls", "complete", "missing"]].values.tolist() == [[1, False, 0]]
        assert "deleted" not in set(study.changes()["change"])  # stopped early: proves nothing
        full = study.refresh(client, full=True)  # not complete: walked whole
        # (page 1 read this very moment is in the cache; a cached page 1 kept no total
        # before: the warm read dropped it)
        assert full[["paid_calls", "complete", "missing"]].values.tolist() == [[1, True, 0]]
        clock.advance(86400)
        again = study.refresh(client, full=True)  # complete now: not walked again
    assert again["paid_calls"].tolist() == [1] and again["complete"].all()
    gone = study.changes().query("change == 'deleted'")
    assert set(gone["id"]) == deleted and gone["id"].is_unique
    evidence = json.loads(gone["evidence"].iloc[0])
    assert evidence["read_whole"] and evidence["total"] == 80 and evidence["returned"] == 80
    # the walk's second page (past the normal walk's one) paid for what it proved
    proved = study.changes().query("at == @gone['at'].iloc[0]")
    assert proved["cost_usd"].sum() == pytest.approx(0.01) and (gone["cost_usd"] > 0).all()


class Hiding:
    """The sandbox's answers (in process), without the comments whose permalink holds
    one of ``hidden`` (the post's ``total`` one less for each): deleted, for as long as
    they are in it."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = sandbox.transport().handler
        self.hidden: set[str] = set()

    def __call__(self, request: Any) -> tuple[int, bytes, dict[str, str]]:
        status, content, headers = self.inner(request)
        body = json.loads(content)
        if isinstance(body.get("data"), list) and self.hidden:
            body["total"] -= sum(
                any(h in str(c.get("permalink")) for h in self.hidden)
                for c in _every_comment(request, self.inner)
            )
            body["data"] = [
                c for c in body["data"] if not any(h in str(c["permalink"]) for h in self.hidden)
            ]
        return status, json.dumps(body).encode(), headers


def _every_comment(request: Any, handler: Any) -> list[dict[str, Any]]:
    """Every comment of the post ``request`` asks for (page 1 on; the sandbox's pages)."""
    from urllib.parse import parse_qs, urlsplit

    urn = parse_qs(urlsplit(str(request.url)).query)["urn"][0]
    comments: list[dict[str, Any]] = []
    token, page = None, 1
    while True:
        url = (
            f"https://api.example/get-profile-posts-comments?urn={urn}&sort=mostRecent&page={page}"
        )
        asked = type("Asked", (), {"url": url + (f"&paginationToken={token}" if token else "")})
        asked.method, asked.headers = "GET", request.headers
        body = json.loads(handler(asked)[1])
        comments += body["data"]
        token, page = body.get("paginationToken"), page + 1
        if not body["data"] or page > int(body.get("totalPage") or 1):
            return comments


def test_a_comment_deleted_then_seen_again_is_held_again(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    """Before: a comment proven deleted was never held again, though a walk brought it
    back: its post counted one comment short, not complete for ever (and ``full=True``
    walked it whole on every refresh)."""
    service = Hiding(sandbox)
    study = sf.Study(tmp_path / "s")
    study.add_posts([LOSING])
    with sf.Client(
        sandbox.api_key,
        base_url="https://api.example",
        transport=sf.MockTransport(service),
        cache=False,
        progress=False,
        clock=clock,
    ) as client:
        study.refresh(client)
        oldest = study.comments().sort_values("created_at")["comment_id"].iloc[0]
        service.hidden.add(oldest)  # (on the last page: only a whole walk sees it gone)
        clock.advance(86400)
        assert study.refresh(client)["complete"].tolist() == [False]
        study.refresh(client, full=True)
        assert study.changes().query("change == 'deleted'")["id"].tolist() == [oldest]
        service.hidden.clear()  # it is back, on the last page
        clock.advance(86400)
        back = study.refresh(client, full=True)  # (complete before: page 1 only)
        assert back[["paid_calls", "complete", "missing"]].values.tolist() == [[1, False, 1]]
        clock.advance(86400)
        whole = study.refresh(client, full=True)  # walked whole: seen again
        clock.advance(86400)
        later = study.refresh(client, full=True)
    assert whole[["paid_calls", "complete", "missing"]].values.tolist() == [[2, True, 0]]
    assert later[["paid_calls", "complete", "missing"]].values.tolist() == [[1, True, 0]]
    assert study.changes().query("change == 'deleted'")["id"].tolist() == [oldest]


def test_recheck_pages_finds_edits_past_the_first_known_page_at_their_price(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([EDITED])
    with _client(sandbox, clock, tmp_path) as client:
        study.refresh(client)
        edited = _truth(study, 9, "edited")
        before = study.comments().set_index("comment_id")["text"]
        clock.advance(9 * WEEK)
        run = study.refresh(client, recheck_pages=1)
    assert run["paid_calls"].tolist() == [2]  # page 1, and one page more
    changes = study.changes()
    edits = changes.query("change == 'edited'").set_index("id")
    # Before: no recheck_pages; the edits past page 1 were never seen
    assert set(edits.index) == edited and len(edited) == 4
    for cid, row in edits.iterrows():
        assert row["fields"] == "text"
        assert json.loads(row["previous"]) == {"text": before[cid]}
        assert json.loads(row["current"]) == {"text": before[cid] + faults.EDITED_COMMENT}
    # the one page past the normal walk paid for what it proved (the deletions, and
    # the edits it held), shared among them
    costly = changes[changes["cost_usd"] > 0]
    assert set(costly["change"]) == {"deleted"} | (set(edits["change"]) & set(costly["change"]))
    assert changes["cost_usd"].sum() == pytest.approx(0.01)
    # it reached the last page, fresh, as many comments as the total: read whole
    assert set(changes.query("change == 'deleted'")["id"]) == _truth(study, 9, "deleted")


# -- ads ---------------------------------------------------------------------------------------

SEARCHES = ("running shoes", "for kids", "coffee")


def _running(query: str, day: int) -> dict[str, bool]:
    """Each ad of the search (US, every status) -> whether it truly runs on ``day``."""
    at = (pd.Timestamp(REFERENCE) + pd.Timedelta(days=day)).to_pydatetime()
    params = {"query": query, "country": "US", "activeStatus": "ALL"}
    running: dict[str, bool] = {}
    cursor = None
    while True:
        sent = dict(params, **({"end_cursor": cursor} if cursor else {}))
        data = ads_body(sent, 0, at)["data"]
        ids = [str(ad["ad_archive_id"]) for group in data["ads"] for ad in group]
        fresh = [i for i in ids if i not in running]
        for group in data["ads"]:
            for ad in group:
                running[str(ad["ad_archive_id"])] = bool(ad["is_active"])
        cursor = data["page_info"]["end_cursor"]
        if not data["page_info"]["has_next_page"] or cursor is None or not fresh:
            break
    paused = faults.running_ads(query)
    for aid, on in running.items():
        pause = faults.ad_pause(0, aid) if aid in paused else None
        if on and pause is not None and pause[0] <= day < pause[1]:
            running[aid] = False
    return running


def test_eight_weeks_of_a_faulty_service_make_no_false_stop_and_no_false_edit(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "s")
    for query in SEARCHES:
        study.add_ads(query, country="US", active_status="all")
    days = [0]
    with _client(sandbox, clock, tmp_path) as client:
        study.refresh(client)
        for week in range(8):
            step = 7 + week % 2  # (refreshes on odd days and on even ones)
            clock.advance(step * 86400)
            days.append(days[-1] + step)
            study.refresh(client)
    changes = study.changes().query("kind == 'ad'")
    at_day = dict(zip(sorted(set(changes["at"])), days, strict=False))
    truth = {day: {k: v for q in SEARCHES for k, v in _running(q, day).items()} for day in days}
    # the world did what the test needs: drops, pauses, edits
    dropped = {
        aid
        for day in days
        for aid, on in truth[day].items()
        if on and faults.ad_dropped(0, aid, day)
    }
    resumed_truth = {
        aid
        for a, b in zip(days, days[1:], strict=False)
        for aid, on in truth[b].items()
        if on and truth[a].get(aid) is False
    }
    assert dropped and resumed_truth
    for _, row in changes.iterrows():
        day = at_day[row["at"]]
        if row["change"] == "stopped":  # Before: every dropped ad "stopped"
            assert truth[day][row["id"]] is False, row.to_dict()
        if row["change"] == "edited":  # Before: every answer's new utm_content, fbclid
            assert row["fields"] == "body_text" or row["fields"] == "body_text,title", row
            edit = faults.ad_edit_day(0, row["id"])
            previous = days[days.index(day) - 1]
            assert edit is not None and previous < edit <= day, row.to_dict()
        if row["change"] == "resumed":
            assert truth[day][row["id"]] is True
    # a dropped ad is missing once, then running (never stopped while it runs: above)
    missing = set(changes.query("change == 'missing'")["id"])
    assert missing & dropped
    assert set(changes.query("change == 'resumed'")["id"]) == resumed_truth
    ads = study.ads().set_index("ad_archive_id")
    last = truth[days[-1]]
    for aid, state in ads["state"].items():
        if state == "stopped":
            assert last.get(aid) is False, aid
    assert (ads.loc[ads["state"] == "missing", "is_active"]).all()


def test_stopped_after_is_how_far_apart_two_walks_without_it_must_be(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", country="US", active_status="all")
    with _client(sandbox, clock, tmp_path) as client:
        study.refresh(client)
        clock.advance(9 * 86400)  # day 9: the week's stops, and day 9's drops, missing
        study.refresh(client)
        missing = set(study.changes().query("change == 'missing'")["id"])
        clock.advance(86400)  # day 10, one day later: too soon (3 days by default)
        study.refresh(client)
        assert not (set(study.changes().query("change == 'stopped'")["id"]) & missing)
        clock.advance(2 * 86400)  # day 12
        study.refresh(client, stopped_after=timedelta(days=3))
    stopped = set(study.changes().query("change == 'stopped'")["id"])
    truly = {aid for aid, on in _running("running shoes", 12).items() if not on}
    assert stopped and stopped <= truly and stopped <= missing


#: "for kids" (US) on days 0, 7 and 11: this ad runs throughout, and the text search's
#: pages drop it on days 7 and 11 (both odd): absent from two complete walks 4 days apart.
FLAKY = "6768667446161864"


def _three_refreshes(
    sandbox: Sandbox, clock: PinnedClock, folder: Path, *variants: dict[str, Any]
) -> list[tuple[sf.Study, pd.DataFrame]]:
    """A study of "for kids" per variant (its refresh's options, the last refresh's
    only), refreshed side by side on days 0, 7 and 11, each with its own cache."""
    studies = []
    for n, _ in enumerate(variants):
        study = sf.Study(folder / f"s{n}")
        study.add_ads("for kids", country="US", active_status="all")
        studies.append(study)
    runs = [pd.DataFrame() for _ in variants]
    clients = [_client(sandbox, clock, folder / f"c{n}") for n, _ in enumerate(variants)]
    try:
        for refresh, step in enumerate((0, 7, 4)):
            clock.advance(step * 86400)
            for n, (study, client, options) in enumerate(
                zip(studies, clients, variants, strict=True)
            ):
                chosen = options if refresh == 2 else {}
                try:
                    runs[n] = study.refresh(client, **chosen)
                except sf.BudgetExceededError as exc:
                    runs[n] = exc.partial
    finally:
        for client in clients:
            client.close()
    return list(zip(studies, runs, strict=True))


def test_confirm_stops_asks_the_advertiser_before_a_stop_and_shows_its_price(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    assert all(faults.ad_dropped(0, FLAKY, day) for day in (7, 11))
    assert all(_running("for kids", day)[FLAKY] for day in (0, 7, 11))
    (plain, plain_run), (sure, sure_run) = _three_refreshes(
        sandbox, clock, tmp_path, {}, {"confirm_stops": True}
    )
    # the absence rule alone, as documented: two complete walks without it, 4 days apart
    plain_stops = plain.changes().query("change == 'stopped'").set_index("id")
    assert FLAKY in plain_stops.index
    assert "confirmation" not in json.loads(plain_stops.at[FLAKY, "evidence"])
    assert (plain_stops["cost_usd"] == 0).all()
    # with the option: its advertiser's search from its start day found it running
    stops = sure.changes().query("change == 'stopped'").set_index("id")
    truly = {aid for aid, on in _running("for kids", 11).items() if not on}
    assert FLAKY not in stops.index  # Before: confirm_stops did not exist
    assert set(stops.index) <= truly and len(stops)
    assert sure.ads().set_index("ad_archive_id").at[FLAKY, "state"] == "running"
    # every stop by absence was asked of its advertiser, and says what that cost
    by_absence = [json.loads(e) for e in stops["evidence"] if "absent_from" in json.loads(e)]
    assert by_absence and all("confirmation" in e for e in by_absence)
    for evidence in by_absence:
        asked = evidence["confirmation"]
        assert asked["ad_page_id"].isdigit() and asked["after_time"]
        assert asked["found"] in ("stopped", "absent") and asked["paid_calls"] >= 1
    assert (stops["cost_usd"] > 0).all()
    # its calls are in the refresh's row and run, beyond the plain walk's
    extra = int(sure_run["paid_calls"].sum() - plain_run["paid_calls"].sum())
    searches = {
        (e["confirmation"]["ad_page_id"], e["confirmation"]["after_time"]) for e in by_absence
    }
    assert extra >= len(searches) + 1  # (+ the one that found FLAKY running)
    assert sure.runs()["cost_usd"].iloc[-1] == pytest.approx(
        plain.runs()["cost_usd"].iloc[-1] + extra * 0.01
    )
    assert stops["cost_usd"].sum() <= extra * 0.01 + 1e-9


def test_confirm_stops_stays_within_max_cost_and_falls_back_to_the_rule(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    # (the plain walks of day 11 cost 3 calls: the ads started since day 7, the running ones)
    [(plain, plain_run), (study, run)] = _three_refreshes(
        sandbox, clock, tmp_path, {}, {"confirm_stops": True, "max_cost": 0.03}
    )
    assert plain_run["paid_calls"].sum() == 3
    # nothing paid past max_cost; the refresh was kept, its stops by the plain rule
    assert study.runs()["cost_usd"].iloc[-1] == pytest.approx(0.03)
    assert run["paid_calls"].sum() == 3
    stops = study.changes().query("change == 'stopped'").set_index("id")
    assert FLAKY in stops.index
    assert "not_made" in json.loads(stops.at[FLAKY, "evidence"])["confirmation"]


def _without_floor(study: Path) -> None:
    """Another program appends each item's latest row with no ``floor`` in its state:
    the refresh then groups every comment of the post, as before floors existed."""
    import deltalake
    import pyarrow as pa

    items = deltalake.DeltaTable(str(study / "items"))
    table = items.to_pyarrow_table()
    rows = table.to_pylist()
    for row in rows:
        state = json.loads(row["state"])
        state.pop("floor", None)
        row["state"] = json.dumps(state)
    deltalake.write_deltalake(items, pa.Table.from_pylist(rows, schema=table.schema), mode="append")


def _assert_floor_is_the_500th_newest(study: sf.Study, post: str) -> None:
    held = study.comments()
    newest = held.loc[held["item"] == post, "created_at"].dropna().sort_values()
    state = study.sql(
        "select state from items where item = ? order by refresh desc limit 1", [post]
    )["state"][0]
    assert pd.Timestamp(json.loads(state)["floor"]) == newest.iloc[-500]


def test_a_big_posts_floor_changes_nothing_a_refresh_finds_or_pays(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    """A refresh groups only the comments at or after each post's ``floor`` (the 500th
    newest comment's time when a walk last finished): the same walks, the same new,
    edited and deleted comments and the same calls as grouping every comment, week after
    week, on a post that grows, edits and deletes (the truth: the same study refreshed
    with its floors taken away before each refresh)."""
    big = posts_with(2345, 1)[0]
    with _client(sandbox, clock, tmp_path) as client:
        study = sf.Study(tmp_path / "with")
        study.add_posts([big, LOSING])
        study.refresh(client)
    shutil.copytree(tmp_path / "with", tmp_path / "without")
    _assert_floor_is_the_500th_newest(study, big)
    floorless = sf.Study(tmp_path / "without")
    for week in range(1, 5):
        clock.advance(timedelta(weeks=1).total_seconds())
        found = []
        for each, name in ((study, "with"), (floorless, "without")):
            if name == "without":
                _without_floor(tmp_path / name)
            with _client(sandbox, clock, tmp_path / name) as client:
                ran = each.refresh(client)
                found.append(
                    (
                        ran[["item", "paid_calls", "new", "changed", "complete"]].to_dict("list"),
                        sorted(map(tuple, each.changes()[["id", "change"]].to_numpy().tolist())),
                    )
                )
        assert found[0] == found[1], f"week {week}"
        _assert_floor_is_the_500th_newest(study, big)  # (kept exact as the post grows)
    assert study.changes()["change"].isin(["new"]).any()
