"""Operation A data: ad searches in Meta Ad Library shape, with the real paging quirk.

Rules (all deterministic; the seed changes the content, never the counts):

* A query is normalised (whitespace collapsed, casefolded). ``EXAMPLE_QUERIES`` pins
  the count of a few queries; any other query gets
  ``ADS_COUNTS[int(sha256("ads-total|" + query)[:8], 16) % 5]`` with
  ``ADS_COUNTS = (3, 26, 40, 75, 130)``. An ``ad_page_id`` search gets
  ``PAGE_AD_COUNTS[...same with "page-total|"...]`` from ``(2, 3, 5, 8, 13)``.
* That is at the reference date (2026-01-01T00:00Z). After it, each week brings
  ``AD_GROWTH[count]`` (``PAGE_AD_GROWTH`` for a page id; :mod:`._growth`): new
  ads (a group of one each, after the others), and running ads that stop
  (``is_active`` false, ``end_date`` 00:00 UTC of the day they stopped). A running
  ad's ``end_date`` is 00:00 UTC of ``now``'s day (the reference date itself at
  the reference date), and ``total_active_time`` follows. An ad that starts after
  ``now`` is not there yet; before the reference date, an ad that ended after
  ``now`` is still running.
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
* ``IDLESS_QUERIES``: searches whose ads come without an ``ad_archive_id`` (all of
  them, or about a third), as the service sends some.
* Cursors are url-safe base64 of a small JSON (search fingerprint, offset, step,
  a short hash): one from another search, another seed or tampered is a 400.
* The first groups generated show every quirk: a DCO and a DPA ad (templates in
  ``snapshot.body.text`` / ``snapshot.title``, real copy in ``cards``), page
  fields missing at the top level, then in the snapshot, and every text in
  ``_corpus.AD_BODIES`` (emoji, languages, URLs, ``<script>``, empty).

Its size (over 400 lines) is earned: it is one generator for one response shape,
and it keeps every rule above in one place next to the code that enforces it;
split, the paging quirk and the cursors would sit apart from the data they page,
and the ads that start and stop after the reference date (``_AdGrowth``, drawn by
the same ``_group`` as the others) apart from the ads they join. When they
happen, content-free, is :mod:`._growth`'s.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from . import _faults
from ._common import (
    DAY_S,
    REFERENCE_MS,
    REFERENCE_S,
    BadParam,
    date_to_seconds,
    digest,
    now_ms,
    rng_for,
)
from ._corpus import AD_BODIES, AD_TITLES, BRANDS, CTA, PAGE_CATEGORIES, PRODUCT_NAMES
from ._growth import AD_GROWTH, PAGE_AD_GROWTH, AdGrowth, ad_days, ads_started, day_of, day_start

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

IDLESS_QUERIES: dict[str, str] = {"all": "garden gnomes", "some": "desk lamps"}
"""Searches whose ads come without an ``ad_archive_id``, as the service sends some:
``"all"`` (26 ads, a search whose last page repeats forever) has none; ``"some"``
(40 ads, repeating too) lacks it on about a third. Which ad lacks it, and how (no
``ad_archive_id`` key, ``null`` or ``""``), follows from its hidden id, so an ad stays
as it is from one request to the next."""

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


def ads_total(
    query_or_page_id: str, seed: int = 0, *, page: bool = False, now: datetime | None = None
) -> int:
    """Return how many ads a search finds before filters, at ``now``.

    Args:
        query_or_page_id: The query text, or the page id when ``page`` is true.
        seed: The sandbox seed. Counts do not depend on it, so that
            ``EXAMPLE_QUERIES`` holds for every seed (before the reference date
            they do: the ads' start dates decide which are there yet).
        page: Whether ``query_or_page_id`` is an ``ad_page_id``.
        now: When (tz-aware); the reference date (2026-01-01 UTC) by default.

    Returns:
        At the reference date one of ``ADS_COUNTS`` for a query, of
        ``PAGE_AD_COUNTS`` for a page id; ``AD_GROWTH[that].started``
        (``PAGE_AD_GROWTH``) more for every week after it, counted day by day.

    Raises:
        ValueError: ``now`` is naive.

    Example:
        >>> from datetime import timedelta
        >>> from socialframe.sandbox import REFERENCE
        >>> ads_total("Running Shoes"), ads_total("for kids"), ads_total("123", page=True)
        (130, 75, 13)
        >>> ads_total("running shoes", now=REFERENCE + timedelta(weeks=2))
        142
    """
    at = now_ms(now)
    key = ("p:" + query_or_page_id) if page else ("q:" + normalise_query(query_or_page_id))
    if at < REFERENCE_MS:
        return sum(ad["start_date"] <= at // 1000 for group in _groups(key, seed) for ad in group)
    base = _base_count(query_or_page_id, page)
    return base + ads_started(key, _rate(key).started, day_of(at))


def _base_count(query_or_page_id: str, page: bool) -> int:
    if page:
        return PAGE_AD_COUNTS[int(digest("page-total", query_or_page_id)[:8], 16) % 5]
    query = normalise_query(query_or_page_id)
    if query in EXAMPLE_QUERIES:
        return EXAMPLE_QUERIES[query]
    return ADS_COUNTS[int(digest("ads-total", query)[:8], 16) % 5]


def _rate(key: str) -> AdGrowth:
    kind, value = key.split(":", 1)
    if kind == "p":
        return PAGE_AD_GROWTH[_base_count(value, True)]
    return AD_GROWTH[_base_count(value, False)]


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


def ads_body(
    params: Mapping[str, str], seed: int = 0, now: datetime | None = None, faults: bool = False
) -> dict[str, Any]:
    """Validate a request's parameters and return its 200 body.

    Args:
        params: The query parameters, see :func:`parse_search`.
        seed: The sandbox seed.
        now: When (tz-aware); the reference date (2026-01-01 UTC) by default.
        faults: What the real service does to a monitor
            (:mod:`socialframe.sandbox._faults`): ads dropped, paused, edited, and
            noise in their URLs.

    Returns:
        ``{"data": {"ads": [[ad, ...], ...], "page_info": {"end_cursor",
        "has_next_page"}}}``; the ads are fresh copies, safe to mutate.

    Raises:
        BadParam: A parameter is invalid, or ``end_cursor`` was not issued for
            this search.
        ValueError: ``now`` is naive.

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
    groups = _visible(search, seed, _state(now_ms(now)))
    base_running = _running_at_reference(search.key, seed)
    if faults and search.key.startswith("p:"):
        groups, base_running = _with_advertised(search, seed, now_ms(now), groups, base_running)
    if offset >= len(groups):  # no ads at all; or, since the cursor, running ones stopped
        return {"data": {"ads": [], "page_info": {"end_cursor": None, "has_next_page": False}}}
    # Pages are cut from the cursor's offset on rather than from a fixed plan, so
    # a cursor stays good while the world moves (ads added at the end, running
    # ones leaving an activeStatus=Active search).
    end = _page_end(groups, offset)
    following: int | None = end if end < len(groups) else None
    if following is None and repeats(search):
        following = offset  # the quirk: "next" is this last page again
    idless = {normalise_query(q): kind for kind, q in IDLESS_QUERIES.items()}.get(search.key[2:])
    page = [list(copy.deepcopy(group)) for group in groups[offset:end]]
    if faults:
        page = _faults.ads(
            page,
            seed=seed,
            at_ms=now_ms(now),
            active_status=search.active_status,
            base_running=base_running,
            call=_faults.call_of(params),
            by_page=search.key.startswith("p:"),
        )
    return {
        "data": {
            "ads": [[_without_id(ad, idless) for ad in group] for group in page],
            "page_info": {
                "end_cursor": None
                if following is None
                else _make_cursor(fingerprint, following, step + 1, seed),
                "has_next_page": following is not None,
            },
        }
    }


def _without_id(ad: Ad, idless: str | None) -> Ad:
    """An ad of an :data:`IDLESS_QUERIES` search as served: without its id where its
    hidden id says so (see there)."""
    own = int(ad["ad_archive_id"])
    if idless is None or (idless == "some" and own % 3):
        return ad
    way = own % 3 if idless == "all" else (own // 3) % 3
    if way == 0:
        del ad["ad_archive_id"]
    else:
        ad["ad_archive_id"] = None if way == 1 else ""
    return ad


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


def _page_end(groups: tuple[Group, ...], offset: int) -> int:
    """Where the answer starting at group ``offset`` ends: whole groups, <= 26 ads."""
    end, count = offset, 0
    while end < len(groups) and (end == offset or count + len(groups[end]) <= ADS_PER_ANSWER):
        count += len(groups[end])
        end += 1
    return end


@lru_cache(maxsize=32)
def _visible(search: AdSearch, seed: int, state: _State) -> tuple[Group, ...]:
    kept: list[Group] = []
    for group in _world(search.key, seed, state):
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


def running_ads(query: str, *, seed: int = 0) -> frozenset[str]:
    """The ads of a text search running at the reference date: those a sandbox made
    with ``faults=True`` may pause (:func:`socialframe.sandbox.faults.ad_pause`).

    Args:
        query: The search's text (as given to ``search_ads``).
        seed: The sandbox's seed.

    Returns:
        Their ``ad_archive_id`` values.

    Example:
        >>> len(running_ads("running shoes"))
        85
    """
    return _running_at_reference(f"q:{query}", seed)


@lru_cache(maxsize=32)
def _running_at_reference(key: str, seed: int) -> frozenset[str]:
    """The ids of the search's ads running at the reference date (those may pause)."""
    return frozenset(
        str(ad["ad_archive_id"]) for group in _groups(key, seed) for ad in group if ad["is_active"]
    )


@lru_cache(maxsize=32)
def _groups(key: str, seed: int) -> tuple[Group, ...]:
    return _base(key, seed)[1]


#: (seed, page id) -> the text searches (keys) whose generated world holds ads of that
#: advertiser: what a faulty world's search by ``ad_page_id`` answers beside its own.
_ADVERTISED: dict[tuple[int, str], set[str]] = {}
_ADVERTISED_LOCK = threading.Lock()


def _with_advertised(
    search: AdSearch,
    seed: int,
    at_ms: int,
    groups: tuple[Group, ...],
    base_running: frozenset[str],
) -> tuple[tuple[Group, ...], frozenset[str]]:
    """A search by page id in a faulty world: its own ads, then the ads of that
    advertiser in every text search this sandbox has generated (same filters), as the
    real service lists an advertiser's ads whatever search found them."""
    page_id = search.key[2:]
    with _ADVERTISED_LOCK:
        keys = sorted(_ADVERTISED.get((seed, page_id), ()))
    kept = list(groups)
    running = set(base_running)
    for key in keys:
        other = dataclasses.replace(search, key=key)
        for group in _visible(other, seed, _state(at_ms)):
            head = group[0]
            owner = head.get("page_id") or (head.get("snapshot") or {}).get("page_id")
            if owner == page_id:
                kept.append(group)
        running |= _running_at_reference(key, seed)
    return tuple(kept), frozenset(running)


@lru_cache(maxsize=32)
def _base(key: str, seed: int) -> tuple[list[_Page], tuple[Group, ...], frozenset[str]]:
    """The search's advertisers, its ads at the reference date, and their ids."""
    kind, value = key.split(":", 1)
    total = _base_count(value, kind == "p")
    rng = rng_for(seed, "ads", key)
    pages = _pages(rng, value if kind == "p" else None, total)
    if kind == "q":
        with _ADVERTISED_LOCK:
            for page in pages:
                _ADVERTISED.setdefault((seed, page.id), set()).add(key)
    seen: set[str] = set()
    groups: list[Group] = []
    n = 0
    while n < total:
        r = rng.random()
        size = min(total - n, 1 if r < 0.75 else 2 if r < 0.92 else 3)
        groups.append(_group(rng, pages, len(groups), size, seen))
        n += size
    return pages, tuple(groups), frozenset(seen)


# -- in time -----------------------------------------------------------------------------------

_State = tuple[int, int]
"""What an ad search's world depends on: ``(day, 0)``, the day after the reference
date (its ads start and stop at 00:00 UTC), or ``(-1, second)`` before it."""


def _state(at: int) -> _State:
    return (day_of(at), 0) if at >= REFERENCE_MS else (-1, at // 1000)


@lru_cache(maxsize=64)
def _world(key: str, seed: int, state: _State) -> tuple[Group, ...]:
    """The search's ads as they stand in ``state``: started, running or stopped."""
    groups = _groups(key, seed)
    day, second = state
    if day < 0:  # before the reference date: not started yet, or still running
        today = day_start((second - REFERENCE_S) // DAY_S)
        cut = (
            tuple(
                _as_of(ad, ad["is_active"] or ad["end_date"] > second, today)
                for ad in group
                if ad["start_date"] <= second
            )
            for group in groups
        )
        return tuple(group for group in cut if group)
    if day == 0:
        return groups  # the reference world as generated (nothing starts or stops on day 0)
    growth = _ad_growth(key, seed)
    started, stops = growth.upto(day)
    today = day_start(day)
    return tuple(
        tuple(_as_of(ad, i not in stops, today, stops.get(i)) for ad in group)
        if group[0]["is_active"] or i >= len(groups)  # (ads stopped by then keep their end)
        else group
        for i, group in enumerate((*groups, *started))
    )


def _as_of(ad: Ad, running: bool, today: int, stop_day: int | None = None) -> Ad:
    """An ad with ``is_active``, ``end_date`` and ``total_active_time`` at a date."""
    if running:
        end = max(today, ad["start_date"])
    elif stop_day is not None:
        end = day_start(stop_day)
    else:
        return ad
    if ad["is_active"] == running and ad["end_date"] == end:
        return ad
    spent = None if ad["total_active_time"] is None else end - ad["start_date"]
    return {**ad, "is_active": running, "end_date": end, "total_active_time": spent}


class _AdGrowth:
    """A search's ads after the reference date, drawn week by week as far as asked.

    New ads are groups of one (so a stop count of ads can be met exactly); the
    ads that stop are drawn among the groups running at the week's start.
    """

    def __init__(self, key: str, seed: int) -> None:
        self.key, self.seed = key, seed
        self.rate = _rate(key)
        self._pages, groups, ids = _base(key, seed)
        self._seen = set(ids)
        self._sizes = [len(group) for group in groups]
        # The groups running now (base ones active at the reference date, new ones):
        self._running = [i for i, group in enumerate(groups) if group[0]["is_active"]]
        self._started: list[Group] = []  # in start order
        self._start_days: list[int] = []
        self._stops: dict[int, int] = {}  # group index -> the day it stopped
        self._weeks = 0
        self._lock = threading.Lock()  # the server answers requests in parallel threads

    def upto(self, day: int) -> tuple[tuple[Group, ...], dict[int, int]]:
        """The ads started by ``day``, and the stop day of each group stopped by then."""
        with self._lock:
            while self._weeks * 7 < day:
                self._draw(self._weeks)
                self._weeks += 1
            started = tuple(
                g for g, d in zip(self._started, self._start_days, strict=True) if d <= day
            )
            stops = {i: d for i, d in self._stops.items() if d <= day}
        return started, stops

    def _draw(self, week: int) -> None:
        started, stopped = self.rate
        rng = rng_for(self.seed, "ad-growth", self.key, week)
        # Stops first: among the groups running at the week's start, drawn one at a
        # time (years of growth keep thousands running: no shuffling them all).
        running = self._running
        tried: set[int] = set()
        chosen: list[int] = []
        days = ad_days(self.key, "stop", week, stopped)
        left = stopped
        while left and len(tried) < len(running):
            j = int(rng.random() * len(running))
            if j in tried:
                continue
            tried.add(j)
            if self._sizes[running[j]] <= left:
                self._stops[running[j]] = days[stopped - left]
                left -= self._sizes[running[j]]
                chosen.append(j)
        for j in sorted(chosen, reverse=True):
            del running[j]
        for day in ad_days(self.key, "start", week, started):
            # A free index: past the 11 ad texts and 4 quirks the first groups show.
            group = _group(rng, self._pages, 1_000, 1, self._seen)
            at = day_start(day)
            ad = group[0]
            spent = None if ad["total_active_time"] is None else 0
            new = {**ad, "is_active": True, "start_date": at, "end_date": at}
            self._started.append(({**new, "total_active_time": spent},))
            self._start_days.append(day)
            self._running.append(len(self._sizes))  # (the index of the group just added)
            self._sizes.append(1)


@lru_cache(maxsize=256)
def _ad_growth(key: str, seed: int) -> _AdGrowth:
    return _AdGrowth(key, seed)


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
