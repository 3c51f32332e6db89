"""The two operations as data: paths, parameters in the service's forms, validation.

Everything here runs before any request: a bad argument is a ``ValueError``
(or ``TypeError``) that costs nothing.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Final, Literal, get_args
from urllib.parse import unquote

from ._time import calendar_day

COMMENTS_PATH: Final = "get-profile-posts-comments"
ADS_PATH: Final = "fetch_search_ads_pages"
#: The operation a URL path ends in (the cache filter knows a page only by its URL).
OPERATION_OF_PATH: Final = {COMMENTS_PATH: "comments", ADS_PATH: "ads"}
Sort = Literal["mostRelevant", "mostRecent"]
SORTS: Final = get_args(Sort)
ActiveStatus = Literal["active", "inactive", "all"]
ACTIVE_STATUS: Final = {"all": "ALL", "active": "Active", "inactive": "Inactive"}

_ACTIVITY = re.compile(r"activity[:\-](\d{1,25})", re.ASCII)  # ids are ASCII digits
_DIGITS = re.compile(r"\d{1,25}", re.ASCII)
_COUNTRY = re.compile(r"[A-Za-z]{2}")


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
