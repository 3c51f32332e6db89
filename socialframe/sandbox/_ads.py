"""Operation A data: ad searches in Meta Ad Library shape, with the real paging quirk.

Rules (all deterministic; the seed changes the content, never the counts):

* A query is normalised (whitespace collapsed, casefolded). ``EXAMPLE_QUERIES`` pins
  the count of a few queries; any other query gets
  ``ADS_COUNTS[int(sha256("ads-total|" + query)[:8], 16) % 5]`` with
  ``ADS_COUNTS = (3, 26, 40, 75, 130)``. An ``ad_page_id`` search gets
  ``PAGE_AD_COUNTS[...same with "page-total|"...]`` from ``(2, 3, 5, 8, 13)``.
* Filters reduce that: ``activeStatus`` on ``is_active``; a ``country`` other than
  ``ALL`` keeps the collation groups whose ``sha256(collation_id, country) % 3 != 0``
  (about 2/3); ``after_time`` keeps ads with ``start_date >= `` that day 00:00 UTC,
  ``before_time`` those with ``start_date <`` the end of that day.
* Answers hold whole collation groups, at most 26 ads in total.
* Repeat quirk: when ``repeats(search)`` (about half the queries and page ids,
  independent of filters and seed), the last page still says ``has_next_page:
  true`` and its cursor answers the same last page again, forever, each time
  with a new cursor. Otherwise the last page has ``has_next_page: false`` and
  ``end_cursor: null``. Nothing left after filters: ``ads: []``, no cursor.
* Cursors are url-safe base64 of a small JSON (search fingerprint, offset, step,
  a short hash): one from another search, another seed or tampered is a 400.
* The first groups generated show every quirk: a DCO and a DPA ad (templates in
  ``snapshot.body.text`` / ``snapshot.title``, real copy in ``cards``), page
  fields missing at the top level, then in the snapshot, and every text in
  ``_corpus.AD_BODIES`` (emoji, languages, URLs, ``<script>``, empty).

Its size (over 400 lines) is earned: it is one generator for one response shape,
and it keeps every rule above in one place next to the code that enforces it;
split, the paging quirk and the cursors would sit apart from the data they page.
"""

from __future__ import annotations

import base64
import copy
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ._common import DAY_S, REFERENCE_S, BadParam, date_to_seconds, digest, rng_for
from ._corpus import AD_BODIES, AD_TITLES, BRANDS, CTA, PAGE_CATEGORIES, PRODUCT_NAMES

ADS_PER_ANSWER = 26
ADS_COUNTS = (3, 26, 40, 75, 130)
PAGE_AD_COUNTS = (2, 3, 5, 8, 13)
DEFAULT_QUERY = "for kids"
ACTIVE_STATUSES = ("ALL", "Active", "Inactive")
PLATFORMS = ("FACEBOOK", "INSTAGRAM", "AUDIENCE_NETWORK", "MESSENGER", "THREADS")

EXAMPLE_QUERIES: dict[str, int] = {
    "for kids": 75,
    "running shoes": 130,
    "coffee": 40,
    "yoga mat": 26,
    "typewriter ribbon": 3,
}
"""Queries with pinned ad counts (before filters), one for each possible count."""

Ad = dict[str, Any]
Group = tuple[Ad, ...]


@dataclass(frozen=True, slots=True)
class AdSearch:
    """One search, as the sandbox understands the parameters.

    Attributes:
        key: ``"q:<normalised query>"`` or ``"p:<page id>"``.
        country: ``"ALL"`` or an ISO alpha-2 code.
        active_status: ``"ALL"``, ``"Active"`` or ``"Inactive"``.
        after: Keep ads that started at or after this Unix second.
        before: Keep ads that started before this Unix second.

    Example:
        >>> parse_search({"query": " Running  Shoes ", "country": "US"})[0]
        AdSearch(key='q:running shoes', country='US', active_status='ALL', after=None, before=None)
    """

    key: str
    country: str = "ALL"
    active_status: str = "ALL"
    after: int | None = None
    before: int | None = None


def normalise_query(query: str) -> str:
    """Collapse whitespace and casefold, as a search box would."""
    return " ".join(query.split()).casefold()


def ads_total(query_or_page_id: str, seed: int = 0, *, page: bool = False) -> int:
    """Return how many ads a search finds before filters.

    Args:
        query_or_page_id: The query text, or the page id when ``page`` is true.
        seed: The sandbox seed. Counts do not depend on it, so that
            ``EXAMPLE_QUERIES`` holds for every seed.
        page: Whether ``query_or_page_id`` is an ``ad_page_id``.

    Returns:
        One of ``ADS_COUNTS`` for a query, of ``PAGE_AD_COUNTS`` for a page id.

    Example:
        >>> ads_total("Running Shoes"), ads_total("for kids"), ads_total("123", page=True)
        (130, 75, 13)
    """
    del seed  # part of the signature for symmetry with the other generators
    if page:
        return PAGE_AD_COUNTS[int(digest("page-total", query_or_page_id)[:8], 16) % 5]
    query = normalise_query(query_or_page_id)
    if query in EXAMPLE_QUERIES:
        return EXAMPLE_QUERIES[query]
    return ADS_COUNTS[int(digest("ads-total", query)[:8], 16) % 5]


def repeats(search: AdSearch) -> bool:
    """Return whether this search keeps ``has_next_page`` true after its last page.

    Args:
        search: The search; only its query or page id matters.

    Returns:
        True for about half of all queries and page ids.

    Example:
        >>> repeats(AdSearch("q:running shoes")), repeats(AdSearch("q:for kids"))
        (True, False)
    """
    return int(digest("ads-repeat", search.key)[:8], 16) % 2 == 0


def parse_search(params: Mapping[str, str]) -> tuple[AdSearch, str | None]:
    """Validate the query parameters of a request.

    Args:
        params: ``query``, ``ad_page_id``, ``country``, ``activeStatus``,
            ``after_time``, ``before_time``, ``end_cursor`` (all optional).

    Returns:
        The search and the cursor sent, if any.

    Raises:
        BadParam: A parameter has a value the service refuses.

    Example:
        >>> search, cursor = parse_search({"ad_page_id": "123", "activeStatus": "Active"})
        >>> search.key, search.active_status, cursor
        ('p:123', 'Active', None)
    """
    query = params.get("query", "").strip()
    page_id = params.get("ad_page_id")
    if query:
        key = "q:" + normalise_query(query)
    elif page_id is not None:
        if not (page_id.isascii() and page_id.isdigit() and len(page_id) <= 30):
            raise BadParam(f"Invalid ad_page_id {page_id!r}: expected digits")
        key = "p:" + page_id
    else:
        key = "q:" + DEFAULT_QUERY
    country = params.get("country", "ALL")
    if country != "ALL" and not (
        len(country) == 2 and country.isascii() and country.isalpha() and country.isupper()
    ):
        raise BadParam(f"Invalid country {country!r}: expected ALL or an ISO alpha-2 code")
    status = params.get("activeStatus", "ALL")
    if status not in ACTIVE_STATUSES:
        raise BadParam(f"Invalid activeStatus {status!r}: expected ALL, Active or Inactive")
    after = params.get("after_time")
    before = params.get("before_time")
    search = AdSearch(
        key=key,
        country=country,
        active_status=status,
        after=None if after is None else date_to_seconds(after),
        before=None if before is None else date_to_seconds(before) + DAY_S,
    )
    return search, params.get("end_cursor")


def ads_body(params: Mapping[str, str], seed: int = 0) -> dict[str, Any]:
    """Validate a request's parameters and return its 200 body.

    Args:
        params: The query parameters, see :func:`parse_search`.
        seed: The sandbox seed.

    Returns:
        ``{"data": {"ads": [[ad, ...], ...], "page_info": {"end_cursor",
        "has_next_page"}}}``; the ads are fresh copies, safe to mutate.

    Raises:
        BadParam: A parameter is invalid, or ``end_cursor`` was not issued for
            this search.

    Example:
        >>> data = ads_body({"query": "running shoes"})["data"]
        >>> sum(len(group) for group in data["ads"]), data["page_info"]["has_next_page"]
        (26, True)
    """
    search, cursor = parse_search(params)
    fingerprint = digest(
        seed,
        "search",
        search.key,
        search.country,
        search.active_status,
        search.after,
        search.before,
    )[:16]
    offset, step = (0, 0) if cursor is None else _read_cursor(cursor, fingerprint, seed)
    groups = _visible(search, seed)
    starts = _page_starts(groups)
    if not groups:
        return {"data": {"ads": [], "page_info": {"end_cursor": None, "has_next_page": False}}}
    if offset not in starts:  # only reachable with a cursor of a changed generator
        raise BadParam("Invalid end_cursor")
    index = starts.index(offset)
    end = starts[index + 1] if index + 1 < len(starts) else len(groups)
    following: int | None = end if end < len(groups) else None
    if following is None and repeats(search):
        following = offset  # the quirk: "next" is this last page again
    return {
        "data": {
            "ads": [list(copy.deepcopy(group)) for group in groups[offset:end]],
            "page_info": {
                "end_cursor": None
                if following is None
                else _make_cursor(fingerprint, following, step + 1, seed),
                "has_next_page": following is not None,
            },
        }
    }


def error_body(message: str) -> dict[str, Any]:
    """Return the body of a 400 answer of this operation."""
    return {"message": message}


def _make_cursor(fingerprint: str, offset: int, step: int, seed: int) -> str:
    mac = digest(seed, "cursor", fingerprint, offset, step)[:12]
    raw = json.dumps({"f": fingerprint, "o": offset, "s": step, "h": mac}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _read_cursor(cursor: str, fingerprint: str, seed: int) -> tuple[int, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        fields = json.loads(raw)
        offset, step = fields["o"], fields["s"]
        valid = (
            type(offset) is int
            and type(step) is int
            and fields["f"] == fingerprint
            and fields["h"] == digest(seed, "cursor", fingerprint, offset, step)[:12]
        )
    except (ValueError, TypeError, KeyError):
        valid = False
    if not valid:
        raise BadParam("Invalid end_cursor")
    return offset, step


def _page_starts(groups: tuple[Group, ...]) -> list[int]:
    starts, count = [0], 0
    for i, group in enumerate(groups):
        if count + len(group) > ADS_PER_ANSWER:
            starts.append(i)
            count = 0
        count += len(group)
    return starts


@lru_cache(maxsize=32)
def _visible(search: AdSearch, seed: int) -> tuple[Group, ...]:
    kept: list[Group] = []
    for group in _groups(search.key, seed):
        head = group[0]
        if search.active_status != "ALL" and head["is_active"] != (
            search.active_status == "Active"
        ):
            continue
        if search.country != "ALL" and (
            int(digest("country", head["collation_id"], search.country)[:8], 16) % 3 == 0
        ):
            continue
        ads = tuple(
            ad
            for ad in group
            if (search.after is None or ad["start_date"] >= search.after)
            and (search.before is None or ad["start_date"] < search.before)
        )
        if ads:
            kept.append(ads)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class _Page:
    id: str
    name: str
    likes: int
    categories: tuple[str, ...]
    slug: str


@lru_cache(maxsize=32)
def _groups(key: str, seed: int) -> tuple[Group, ...]:
    kind, value = key.split(":", 1)
    total = ads_total(value, seed, page=kind == "p")
    rng = rng_for(seed, "ads", key)
    pages = _pages(rng, value if kind == "p" else None, total)
    seen: set[str] = set()
    groups: list[Group] = []
    n = 0
    while n < total:
        r = rng.random()
        size = min(total - n, 1 if r < 0.75 else 2 if r < 0.92 else 3)
        groups.append(_group(rng, pages, len(groups), size, seen))
        n += size
    return tuple(groups)


def _pages(rng: random.Random, page_id: str | None, total: int) -> list[_Page]:
    # A pool of advertisers per search, drawn with a skew below, so pages repeat.
    if page_id is not None:
        names = [rng.choice(BRANDS)]
    else:
        names = rng.sample(BRANDS, max(2, min(len(BRANDS), total // 6)))
    pages = []
    for name in names:
        pid = page_id or str(rng.randrange(10**14, 10**15))
        slug = "".join(ch for ch in name.lower() if ch.isalnum())
        cats = tuple(rng.sample(PAGE_CATEGORIES, rng.randint(1, 2)))
        pages.append(_Page(pid, name, int(10 ** rng.uniform(2, 6.5)), cats, slug))
    return pages


def _group(rng: random.Random, pages: list[_Page], index: int, size: int, seen: set[str]) -> Group:
    page = pages[int(len(pages) * rng.random() ** 1.5)]
    # The first groups are forced to show each quirk, so small tests can rely on them.
    forced_format = {0: "DCO", 1: "DPA"}.get(index)
    missing = {2: "top", 3: "snapshot"}.get(index)
    if missing is None:
        r = rng.random()
        missing = "top" if r < 0.08 else "snapshot" if r < 0.16 else ""
    text = AD_BODIES[index] if index < len(AD_BODIES) else rng.choice(AD_BODIES)
    snapshot = _snapshot(rng, page, forced_format, text)
    if missing == "snapshot":
        del snapshot["page_id"], snapshot["page_name"]
    is_active = rng.random() < 0.55
    start = REFERENCE_S - rng.randrange(730) * DAY_S - 8 * 3600  # midnight Pacific
    collation_id = str(rng.randrange(10**14, 10**16))
    platforms = [p for p in PLATFORMS if rng.random() < 0.5] or ["FACEBOOK"]
    ads: list[Ad] = []
    for j in range(size):
        ad_start = min(start + j * DAY_S, REFERENCE_S)
        end = REFERENCE_S if is_active else min(ad_start + rng.randint(1, 120) * DAY_S, REFERENCE_S)
        ad: Ad = {
            "ad_archive_id": _unique_id(rng, seen),
            "ad_id": None,
            "collation_count": None if rng.random() < 0.15 else size,
            "collation_id": collation_id,
            "page_id": page.id,
            "page_name": page.name,
            "is_active": is_active,
            "start_date": ad_start,
            "end_date": end,
            "publisher_platform": list(platforms),
            "targeted_or_reached_countries": [] if rng.random() < 0.8 else rng.choice(_COUNTRIES),
            "currency": "" if rng.random() < 0.8 else rng.choice(["USD", "EUR"]),
            "spend": None if rng.random() < 0.85 else rng.choice(_SPEND),
            "reach_estimate": None,
            "impressions_with_index": rng.choice(_IMPRESSIONS),
            "total_active_time": None if rng.random() < 0.2 else end - ad_start,
            "categories": ["UNKNOWN"],
            "entity_type": "PERSON_PROFILE",
            "gated_type": "ELIGIBLE",
            "contains_digital_created_media": rng.random() < 0.05,
            "contains_sensitive_content": False,
            "hide_data_status": "NONE",
            "state_media_run_label": None,
            "snapshot": copy.deepcopy(snapshot),
        }
        if missing == "top":
            del ad["page_id"], ad["page_name"]
        ads.append(ad)
    return tuple(ads)


_SPEND = (
    {"lower_bound": "0", "upper_bound": "99"},
    {"lower_bound": "100", "upper_bound": "199"},
    {"lower_bound": "1000", "upper_bound": "1499"},
)
_IMPRESSIONS = (
    {"impressions_text": None, "impressions_index": -1},
    {"impressions_text": None, "impressions_index": -1},
    {"impressions_text": "<1K", "impressions_index": 0},
    {"impressions_text": "1K-5K", "impressions_index": 1},
    {"impressions_text": ">1M", "impressions_index": 9},
)
_COUNTRIES = (["US"], ["DE"], ["US", "CA", "GB"])
_CDN = "https://scontent.example.net/v/t39.35426-6/"


def _unique_id(rng: random.Random, seen: set[str]) -> str:
    while True:
        candidate = str(rng.randrange(10**15, 10**16))
        if candidate not in seen:
            seen.add(candidate)
            return candidate


def _media(rng: random.Random, ext: str) -> str | None:
    # Media URLs are often missing in search results.
    return None if rng.random() < 0.4 else f"{_CDN}{rng.randrange(10**8, 10**9)}_n.{ext}"


def _snapshot(rng: random.Random, page: _Page, forced: str | None, text: str) -> Ad:
    fmt = forced or rng.choices(["IMAGE", "VIDEO", "CAROUSEL", "DCO", "DPA"], [4, 3, 1, 1, 1])[0]
    cta_text, cta_type = rng.choice(CTA)
    link = f"https://example.com/{page.slug}?utm_source=facebook"
    title: str | None = rng.choice(AD_TITLES)
    cards: list[dict[str, Any]] = []
    if fmt in ("DCO", "DPA", "CAROUSEL"):
        for _ in range(rng.randint(2, 4)):
            cards.append(
                {
                    "body": f"{page.name}: {rng.choice(AD_BODIES) or rng.choice(AD_TITLES)}",
                    "title": rng.choice(PRODUCT_NAMES),
                    "link_url": link,
                    "original_image_url": _media(rng, "jpg"),
                    "resized_image_url": _media(rng, "jpg"),
                    "video_hd_url": None,
                    "video_sd_url": None,
                }
            )
    if fmt in ("DCO", "DPA"):
        text, title = "{{product.brand}}", "{{product.name}}"
    images = []
    if fmt == "IMAGE" and rng.random() < 0.5:
        images.append(
            {"original_image_url": _media(rng, "jpg"), "resized_image_url": _media(rng, "jpg")}
        )
    videos = []
    if fmt == "VIDEO" and rng.random() < 0.5:
        videos.append(
            {
                "video_hd_url": _media(rng, "mp4"),
                "video_sd_url": _media(rng, "mp4"),
                "video_preview_image_url": _media(rng, "jpg"),
            }
        )
    return {
        "page_id": page.id,
        "page_name": page.name,
        "page_profile_uri": f"https://www.facebook.com/{page.slug}/",
        "page_like_count": page.likes,
        "page_categories": list(page.categories),
        "body": {"text": text},
        "title": title,
        "caption": "example.com",
        "cta_text": cta_text,
        "cta_type": cta_type,
        "link_url": link,
        "link_description": None if rng.random() < 0.5 else "Free returns within 30 days",
        "display_format": fmt,
        "images": images,
        "videos": videos,
        "cards": cards,
        "country_iso_code": None,
        "extra_texts": [],
        "extra_images": [],
        "extra_links": [],
    }
