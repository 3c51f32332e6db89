"""The sandbox's monitor faults (``Sandbox(faults=True)``): off unless asked, their own
world, deterministic by seed, and each as documented in
:mod:`socialframe.sandbox._faults`."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qsl, urlsplit

import pytest

from socialframe.sandbox import (
    EXAMPLE_POSTS,
    REFERENCE,
    PinnedClock,
    Sandbox,
    ads_body,
    comments_body,
    faults,
    posts_with,
)

DAY = timedelta(days=1)


def _ads(body: dict[str, object]) -> list[dict[str, object]]:
    return [ad for group in body["data"]["ads"] for ad in group]  # type: ignore[index]


def _untracked(link: str) -> tuple[object, ...]:
    """A landing URL as docs/studies.md says a study compares it: its query without the
    tracking parameters (``utm_*``, ``fbclid``, ...), and no fragment."""
    parts = urlsplit(link)
    kept = [(k, v) for k, v in parse_qsl(parts.query) if k != "fbclid" and not k.startswith("utm_")]
    return parts.scheme, parts.netloc.lower(), parts.path, kept


def _file_name(url: str) -> str:
    """An image as a study compares it: the file name in its URL's path (the CDN's host and
    signature query left out)."""
    return urlsplit(url).path.rsplit("/", 1)[-1]


def test_faults_are_off_unless_asked_and_their_world_is_their_own() -> None:
    at = REFERENCE + 31 * DAY
    plain = Sandbox(clock=PinnedClock(at))
    faulty = Sandbox(clock=PinnedClock(at), faults=True)
    assert plain.world == "seed-0/at-20260201T000000Z"
    assert faulty.world == "seed-0/faults/at-20260201T000000Z"  # (caches never mix them)
    with plain, plain.client(cache=False, progress=False) as client:
        served = client.search_ads("running shoes", active_status="all")
    assert served["link_url"].str.contains("fbclid").sum() == 0
    params = {"query": "running shoes", "activeStatus": "ALL"}
    assert ads_body(params, now=at) == ads_body(params, now=at, faults=False)


def test_faults_are_the_same_for_a_seed_and_differ_for_another() -> None:
    at = REFERENCE + 31 * DAY
    params = {"query": "running shoes", "activeStatus": "ALL"}
    one, again = ads_body(params, 0, at, faults=True), ads_body(params, 0, at, faults=True)
    assert one == again
    assert ads_body(params, 1, at, faults=True) != one


def test_tracking_parameters_and_cdn_change_on_every_call_and_normalise_away() -> None:
    at = REFERENCE + 12 * DAY
    first = _ads(ads_body({"query": "running shoes", "activeStatus": "ALL"}, 0, at, faults=True))
    later = _ads(
        ads_body({"query": "running shoes", "activeStatus": "ALL"}, 0, at + DAY, faults=True)
    )
    same = {ad["ad_archive_id"]: ad for ad in later}
    compared = 0
    for ad in first:
        other = same.get(ad["ad_archive_id"])
        if other is None or ad["snapshot"]["images"] == []:
            continue
        compared += 1
        link, link2 = ad["snapshot"]["link_url"], other["snapshot"]["link_url"]
        assert link != link2 and "fbclid=" in link and "#" in link
        assert _untracked(link) == _untracked(link2)
        image = ad["snapshot"]["images"][0]["original_image_url"]
        image2 = other["snapshot"]["images"][0]["original_image_url"]
        if image is not None:
            assert image != image2 and "_nc_sig=" in image
            assert _file_name(image) == _file_name(image2) != ""
    assert compared


def test_an_ad_is_dropped_on_odd_days_only_never_two_days_running() -> None:
    params = {"query": "running shoes", "activeStatus": "Active"}
    everyone = {ad["ad_archive_id"] for ad in _ads(ads_body(params, 0, REFERENCE))}
    dropped_days: dict[str, list[int]] = {}
    for day in range(1, 15):
        for aid in everyone:
            if faults.ad_dropped(0, aid, day):
                dropped_days.setdefault(aid, []).append(day)
    assert dropped_days
    for days in dropped_days.values():
        assert all(d % 2 == 1 for d in days)
        assert all(b - a >= 2 for a, b in zip(days, days[1:], strict=False))
    aid, days = next(iter(dropped_days.items()))
    served = set()
    body = ads_body(params, 0, REFERENCE + days[0] * DAY, faults=True)
    while True:  # every page of the day: the dropped ad is on none
        served |= {ad["ad_archive_id"] for ad in _ads(body)}
        info = body["data"]["page_info"]  # type: ignore[index]
        if not info["has_next_page"] or info["end_cursor"] is None:
            break
        got = ads_body(
            dict(params, end_cursor=info["end_cursor"]), 0, REFERENCE + days[0] * DAY, faults=True
        )
        if {ad["ad_archive_id"] for ad in _ads(got)} <= served:
            break
        body = got
    assert aid not in served


def test_a_search_by_page_id_lists_the_advertisers_ads_of_text_searches() -> None:
    # "for kids" (US) on day 7: this running ad is dropped from the text search's pages
    flaky, at = "6768667446161864", REFERENCE + 7 * DAY
    params = {"query": "for kids", "country": "US"}
    everyone = {a["ad_archive_id"]: a for a in _ads(ads_body(params, 0, REFERENCE))}
    ad = everyone[flaky]
    page_id = ad.get("page_id") or ad["snapshot"]["page_id"]  # type: ignore[index]
    start = (REFERENCE + timedelta(seconds=int(ad["start_date"]) - REFERENCE.timestamp())).date()  # type: ignore[arg-type]
    assert faults.ad_dropped(0, flaky, 7) and not faults.ad_dropped(0, flaky, 7, by_page=True)
    assert flaky not in {a["ad_archive_id"] for a in _ads(ads_body(params, 0, at, faults=True))}
    by_page = {"ad_page_id": str(page_id), "country": "US", "after_time": start.isoformat()}
    listed = {a["ad_archive_id"]: a for a in _ads(ads_body(by_page, 0, at, faults=True))}
    # Before: a page id's own generated world, which holds none of the text search's ads
    assert listed[flaky]["is_active"] is True
    owners = {a.get("page_id") or a["snapshot"]["page_id"] for a in listed.values()}  # type: ignore[index]
    assert owners == {page_id}
    # without faults, a page id's world is its own, as before
    assert flaky not in {a["ad_archive_id"] for a in _ads(ads_body(by_page, 0, at))}


def test_a_paused_ad_shows_stopped_then_runs_again() -> None:
    running = sorted(faults.running_ads("running shoes"))
    paused = [aid for aid in running if faults.ad_pause(0, aid) is not None]
    assert paused

    def shown(day: int, status: str) -> dict[str, object] | None:
        params = {"query": "running shoes", "activeStatus": status}
        body = ads_body(params, 0, REFERENCE + day * DAY, faults=True)
        seen: dict[str, dict[str, object]] = {}
        while True:
            ads = _ads(body)
            if not ads or all(a["ad_archive_id"] in seen for a in ads):
                break
            seen.update({str(a["ad_archive_id"]): a for a in ads})
            info = body["data"]["page_info"]  # type: ignore[index]
            if not info["has_next_page"]:
                break
            body = ads_body(
                dict(params, end_cursor=info["end_cursor"]), 0, REFERENCE + day * DAY, faults=True
            )
        return seen.get(aid)

    def after(aid: str) -> int:
        last = faults.ad_pause(0, aid)[1]  # type: ignore[index]
        return last + (0 if last % 2 == 0 else 1)  # (an even day: no drop)

    def plain(aid: str, day: int) -> bool:  # running in the world without faults
        body = ads_body({"query": "running shoes"}, 0, REFERENCE + day * DAY)
        groups = body["data"]["ads"]  # type: ignore[index]
        ads = {a["ad_archive_id"]: a for g in groups for a in g}
        return aid in ads and bool(ads[aid]["is_active"])

    # (one the week's stops of the world leave running: its pause ends, it runs again)
    aid = next(a for a in paused if plain(a, after(a)) or _still(a, after(a)))
    first = faults.ad_pause(0, aid)[0]  # type: ignore[index]
    during = first + (1 if (first + 1) % 2 == 0 else 2)  # (an even day: no drop)
    ad = shown(during, "ALL")
    assert ad is not None and ad["is_active"] is False
    assert shown(during, "Active") is None
    back = shown(after(aid), "Active")
    assert back is not None and back["is_active"] is True


def _still(aid: str, day: int) -> bool:
    """Whether the ad runs on ``day`` in the world without faults (every page read)."""
    params = {"query": "running shoes", "activeStatus": "Active"}
    body = ads_body(params, 0, REFERENCE + day * DAY)
    seen: set[str] = set()
    while True:
        ids = {str(a["ad_archive_id"]) for a in _ads(body)}
        if not ids or ids <= seen:
            return aid in seen
        seen |= ids
        info = body["data"]["page_info"]  # type: ignore[index]
        if not info["has_next_page"]:
            return aid in seen
        body = ads_body(dict(params, end_cursor=info["end_cursor"]), 0, REFERENCE + day * DAY)


@pytest.mark.parametrize("post", [posts_with(82, 1)[0], EXAMPLE_POSTS[2345]])
def test_comments_are_edited_and_deleted_from_their_week_and_the_total_says_so(post: str) -> None:
    at = REFERENCE + 9 * 7 * DAY
    plain = comments_body(post, "mostRecent", 1, now=at)
    faulty = comments_body(post, "mostRecent", 1, now=at, faults=True)
    gone = 0
    page = 1
    base: set[str] = set()
    while True:  # the comments of the reference world (those the faults touch)
        body = comments_body(post, "mostRecent", page, now=REFERENCE)
        base |= {c["permalink"] for c in body["data"]}
        gone += sum(
            1
            for c in body["data"]
            if (w := faults.comment_deleted_week(0, c["permalink"])) is not None and w <= 9
        )
        if page >= body["totalPage"]:
            break
        page += 1
    assert gone and faulty["total"] == plain["total"] - gone
    edited = [c for c in faulty["data"] if c["text"].endswith(faults.EDITED_COMMENT)]
    assert all(c["isEdited"] for c in edited)
    links = {c["permalink"] for c in faulty["data"]}
    for c in plain["data"]:
        week = faults.comment_deleted_week(0, c["permalink"])
        if c["permalink"] in base and week is not None and week <= 9:
            assert c["permalink"] not in links
    # before the reference date's first week is out, nothing is edited or deleted
    early = REFERENCE + 3 * DAY
    assert comments_body(post, "mostRecent", 1, now=early, faults=True) == comments_body(
        post, "mostRecent", 1, now=early
    )
