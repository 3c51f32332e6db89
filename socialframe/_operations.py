"""The two operations as data: paths, parameter validation, and how to page.

Everything here runs before any request: a bad argument is a ``ValueError``
that costs nothing. The pagers take a ``fetch(params) -> Fetched`` callable and
yield :class:`Page` objects, so paging is tested without a network.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from ._errors import SchemaError

if TYPE_CHECKING:
    from ._calls import Fetched

COMMENTS_PATH: Final = "get-profile-posts-comments"
ADS_PATH: Final = "fetch_search_ads_pages"
SORTS: Final = ("mostRelevant", "mostRecent")
ACTIVE_STATUS: Final = {"all": "ALL", "active": "Active", "inactive": "Inactive"}

_ACTIVITY = re.compile(r"activity[:\-](\d{1,25})")
_DIGITS = re.compile(r"\d{1,25}")
_COUNTRY = re.compile(r"[A-Za-z]{2}")

Fetch = Callable[[Mapping[str, str]], "Fetched"]


@dataclass(frozen=True)
class Page:
    """One decoded page and its provenance (what frames need beyond the body).

    Attributes:
        body: The JSON object the service sent.
        page: 1-based number of the page within its fetch.
        fetched_at: When the service sent it (the original time for cached pages).
        from_cache: Whether it came from the cache.
        key: The post id or the search query it belongs to.
        params: The query parameters that were sent.
    """

    body: Mapping[str, Any]
    page: int
    fetched_at: datetime | None = None
    from_cache: bool = False
    key: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)


# -- validation --------------------------------------------------------------------------


def post_id(post: object) -> str:
    """The numeric activity id of a post given as id, ``urn:li:activity:<id>`` or URL.

    Raises:
        ValueError: empty, or no activity id in it.
        TypeError: not a string or int.
    """
    if isinstance(post, bool) or not isinstance(post, str | int):
        raise TypeError(
            f"post must be a post id, urn:li:activity:<id> or a post URL (str),"
            f" not {type(post).__name__}"
        )
    text = str(post).strip()
    if not text:
        raise ValueError("post is empty: give a post id, urn:li:activity:<id> or a post URL")
    if _DIGITS.fullmatch(text):
        return text
    found = _ACTIVITY.search(unquote(text))
    if found:
        return found.group(1)
    raise ValueError(
        f"no activity id in post {text[:120]!r}: expected digits, urn:li:activity:<id>"
        " or a URL containing 'activity:<id>' / 'activity-<id>'"
    )


def positive(name: str, value: int | None) -> int | None:
    """``None`` or an int >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int or None, got {value!r}")
    return value


def comment_params(post: object, sort: str) -> dict[str, str]:
    """Validated parameters of the first comments page."""
    pid = post_id(post)
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {SORTS}, got {sort!r}")
    return {"urn": pid, "sort": sort}


def _country(country: str | None) -> str | None:
    if country is None:
        return None
    if not isinstance(country, str):
        raise TypeError(
            f"country must be a str such as 'US' or 'ALL', not {type(country).__name__}"
        )
    code = country.strip()
    if code.upper() == "ALL":
        return "ALL"
    if not _COUNTRY.fullmatch(code):
        raise ValueError(
            f"country must be an ISO-3166 alpha-2 code such as 'US', or 'ALL'; got {country!r}"
        )
    return code.upper()


def _active_status(status: str | bool | None) -> str | None:
    if status is None:
        return None
    if status is True:
        return "Active"
    if status is False:
        return "Inactive"
    if isinstance(status, str) and status.strip().lower() in ACTIVE_STATUS:
        return ACTIVE_STATUS[status.strip().lower()]
    raise ValueError(
        f"active_status must be 'active', 'inactive', 'all', True, False or None; got {status!r}"
    )


def calendar_day(value: date | datetime | str, tz: str = "UTC", *, name: str = "day") -> date:
    """The calendar day a date, datetime or ISO string names, in ``tz``.

    A naive datetime is read as is; one with a zone names the day it falls on in
    ``tz`` (for the service's ``after`` / ``before``: UTC, its calendar).

    Raises:
        ValueError: a string that is not an ISO date or datetime.
        TypeError: anything else that is not a date.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(
                f"{name} must be a date, a datetime or an ISO date string; got {value!r}"
            ) from None
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(ZoneInfo(tz))
        return date(value.year, value.month, value.day)
    if isinstance(value, date):
        return value
    raise TypeError(
        f"{name} must be a date, a datetime or an ISO date string, not {type(value).__name__}"
    )


def _day(name: str, value: date | datetime | str | None) -> date | None:
    if value is None:
        return None
    try:
        return calendar_day(value, "UTC", name=name)
    except TypeError as exc:  # a wrong type here is a bad value of a search filter
        raise ValueError(str(exc)) from None


def ad_params(
    query: str | None,
    *,
    ad_page_id: str | int | None,
    country: str | None,
    active_status: str | bool | None,
    after: date | datetime | str | None,
    before: date | datetime | str | None,
) -> dict[str, str]:
    """Validated parameters of the first ads page, in the service's forms."""
    params: dict[str, str] = {}
    if query is not None:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, not {type(query).__name__}")
        if not query.strip():
            raise ValueError("query is empty")
        if ad_page_id is not None:
            raise ValueError("give query or ad_page_id, not both (the service ignores one)")
        params["query"] = query.strip()
    elif ad_page_id is not None:
        if isinstance(ad_page_id, bool) or not _DIGITS.fullmatch(str(ad_page_id).strip()):
            raise ValueError(f"ad_page_id must be a numeric page id, got {ad_page_id!r}")
        params["ad_page_id"] = str(ad_page_id).strip()
    else:
        raise ValueError("search_ads needs a query or an ad_page_id")
    if (code := _country(country)) is not None:
        params["country"] = code
    if (status := _active_status(active_status)) is not None:
        params["activeStatus"] = status
    start, end = _day("after", after), _day("before", before)
    if start and end and start > end:
        raise ValueError(f"after ({start}) is later than before ({end})")
    if start:
        params["after_time"] = start.isoformat()
    if end:
        params["before_time"] = end.isoformat()
    return params


# -- paging ------------------------------------------------------------------------------


def _page(fetched: Fetched, number: int, key: str, params: Mapping[str, str]) -> Page:
    return Page(fetched.body, number, fetched.fetched_at, fetched.from_cache, key, dict(params))


def iter_comment_pages(
    fetch: Fetch, params: Mapping[str, str], *, max_pages: int | None = None
) -> Iterator[Page]:
    """Pages 1..totalPage of a post's comments.

    Each later page sends the previous page's ``paginationToken``. Stops at
    ``totalPage`` or an empty page, never on the token (it is set on the last
    page too).
    """
    number, token = 1, None
    while True:
        sent = dict(params, page=str(number))
        if token:
            sent["paginationToken"] = token
        fetched = fetch(sent)
        body = fetched.body
        data = body.get("data")
        if not isinstance(data, list):
            raise SchemaError(f"comments page {number}: 'data' is not a list")
        yield _page(fetched, number, params["urn"], sent)
        total_pages = body.get("totalPage")
        if not data or (max_pages is not None and number >= max_pages):
            return
        if isinstance(total_pages, bool) or not isinstance(total_pages, int):
            raise SchemaError(f"comments page {number}: 'totalPage' is {total_pages!r}")
        if number >= total_pages:
            return
        token = body.get("paginationToken")
        if not token:
            raise SchemaError(f"comments page {number} of {total_pages} has no paginationToken")
        number += 1


def ad_groups(body: Mapping[str, Any], number: int = 1) -> tuple[list[Any], Mapping[str, Any]]:
    """``(ads, page_info)`` of an ads page; ``data.ads`` flattened, order kept."""
    data = body.get("data")
    if not isinstance(data, Mapping):
        raise SchemaError(f"ads page {number}: 'data' is not an object")
    groups = data.get("ads") or []
    if not isinstance(groups, list):
        raise SchemaError(f"ads page {number}: 'data.ads' is not a list")
    ads: list[Any] = []
    for group in groups:
        if isinstance(group, list):
            ads.extend(group)
        elif isinstance(group, Mapping):
            ads.append(group)
        else:
            raise SchemaError(
                f"ads page {number}: an entry of 'data.ads' is {type(group).__name__}"
            )
    info = data.get("page_info")
    return ads, info if isinstance(info, Mapping) else {}


def iter_ad_pages(
    fetch: Fetch,
    params: Mapping[str, str],
    *,
    max_pages: int | None = None,
    max_ads: int | None = None,
) -> Iterator[Page]:
    """Pages of an ads search, following ``page_info.end_cursor``.

    Stops when ``has_next_page`` is false, the cursor is missing or was seen
    before, a page brings no new ``ad_archive_id`` (the service may repeat pages
    with ``has_next_page`` still true), ``max_pages`` pages were read, or
    ``max_ads`` distinct ads are in.
    """
    key = params.get("query") or params.get("ad_page_id", "")
    seen_ids: set[str] = set()
    anonymous = 0  # ads without an ad_archive_id: rows all the same
    seen_cursors: set[str] = set()
    number, cursor = 1, None
    while True:
        sent = dict(params)
        if cursor:
            sent["end_cursor"] = cursor
        fetched = fetch(sent)
        ads, info = ad_groups(fetched.body, number)
        yield _page(fetched, number, key, sent)
        ids = [ad.get("ad_archive_id") for ad in ads if isinstance(ad, Mapping)]
        known = {str(i) for i in ids if i is not None}
        nameless = len(ids) - sum(i is not None for i in ids)
        new = len(known - seen_ids) + nameless
        seen_ids |= known
        anonymous += nameless
        if not new or (max_ads is not None and len(seen_ids) + anonymous >= max_ads):
            return
        if max_pages is not None and number >= max_pages:
            return
        cursor = info.get("end_cursor")
        if not info.get("has_next_page") or not cursor or cursor in seen_cursors:
            return
        seen_cursors.add(cursor)
        number += 1
