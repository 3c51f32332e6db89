"""The two operations as data: paths, parameters in the service's forms, validation.

Everything here runs before any request: a bad argument is a ``ValueError``
(or ``TypeError``) that costs nothing.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Final, Literal, get_args
from urllib.parse import unquote, urlsplit

import pandas as pd

from ._time import calendar_day, parse_when

COMMENTS_PATH: Final = "get-profile-posts-comments"
ADS_PATH: Final = "fetch_search_ads_pages"
#: The operation a URL path ends in (the cache filter knows a page only by its URL).
OPERATION_OF_PATH: Final = {COMMENTS_PATH: "comments", ADS_PATH: "ads"}
Sort = Literal["mostRelevant", "mostRecent"]
SORTS: Final = get_args(Sort)
ActiveStatus = Literal["active", "inactive", "all"]
ACTIVE_STATUS: Final = {"all": "ALL", "active": "Active", "inactive": "Inactive"}

#: The most digits an id may have. The service's post ids have 19 today (64-bit
#: numbers, see SERVICE-NOTES); 20 leaves a little room (the most an unsigned
#: 64-bit number has). A longer run of digits is refused, never cut: a cut id
#: names another post, and that one would be paid for.
MAX_ID_DIGITS: Final = 20
# Ids are ASCII digits; "activity" is a word of its own (not "inactivity-12" of a
# URL's slug), and its id is the whole run of digits after it.
_ACTIVITY = re.compile(r"(?<![A-Za-z0-9])activity[:\-]([0-9]+)", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_COUNTRY = re.compile(r"[A-Za-z]{2}")
_POST_HELP: Final = "a post id, urn:li:activity:<id> or a post URL"


# A post's urn of another kind (a share, a ugcPost): its number is not the activity id.
_OTHER_URN = re.compile(r"urn:li:(ugcPost|share|post|groupPost)[:\-][0-9]+", re.ASCII)


def _float_post(post: numbers.Real) -> str:
    """Why a post given as a float is refused, and what to do instead."""
    if post != post:  # NaN: a blank cell
        return (
            "post is NaN, a missing value: a blank cell of a CSV or spreadsheet column read"
            " by pandas; drop the blank rows (df['post'].dropna()) and read the column as"
            " text: pd.read_csv(..., dtype=str)"
        )
    return (
        f"post {post!r} is a float, which keeps about 16 digits: a 19-digit post id"
        " read as one no longer names its post. pandas reads a column of ids as floats"
        " when a cell is blank: read it as text, pd.read_csv(..., dtype=str)"
    )


def _too_long(digits: str, what: str) -> str | None:
    if len(digits) <= MAX_ID_DIGITS:
        return None
    return (
        f"{what} has {len(digits):,} digits: ids have 19 (at most {MAX_ID_DIGITS} are"
        " taken); a longer one is refused, never cut to another id"
    )


def post_id(post: object) -> str:
    """The numeric activity id of a post given as id, ``urn:li:activity:<id>`` or URL.

    Raises:
        ValueError: empty, no activity id in it, an id of more than
            :data:`MAX_ID_DIGITS` digits, or two different activity ids.
        TypeError: not a string or an integer.
    """
    if isinstance(post, numbers.Real) and not isinstance(post, bool | numbers.Integral):
        raise TypeError(_float_post(post))
    if isinstance(post, bool) or not isinstance(post, str | numbers.Integral):
        raise TypeError(f"post must be {_POST_HELP} (str), not {type(post).__name__}")
    text = post.strip() if isinstance(post, str) else str(int(post))
    if not text:
        raise ValueError(f"post is empty: give {_POST_HELP}")
    if _DIGITS.fullmatch(text):
        wrong = _too_long(text, f"post id {text[:30]!r}...")
        if wrong:
            raise ValueError(wrong)
        return text
    found: list[str] = list(dict.fromkeys(_ACTIVITY.findall(unquote(text))))  # distinct
    for digits in found:
        wrong = _too_long(digits, f"the activity id in post {text[:80]!r}")
        if wrong:
            raise ValueError(wrong)
    if len(found) > 1:
        raise ValueError(
            f"post {text[:120]!r} holds {len(found)} different activity ids; give the"
            " post's id, or urn:li:activity:<id>"
        )
    if found:
        return found[0]
    other = _OTHER_URN.search(unquote(text))
    if other:
        raise ValueError(
            f"post {text[:120]!r} names the post by its urn:li:{other.group(1)} id; the"
            " service takes its activity id (urn:li:activity:<id>), another number. Open"
            " the post on LinkedIn and use '...' > 'Copy link to post': that link holds"
            " urn:li:activity:<id>"
        )
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


def _page_id(page_id: object) -> str:
    """An ad page id: ASCII digits (as text or an integer), at most :data:`MAX_ID_DIGITS`."""
    text = ""
    if isinstance(page_id, str):
        text = page_id.strip()
    elif isinstance(page_id, numbers.Integral) and not isinstance(page_id, bool):
        text = str(int(page_id))
    if not _DIGITS.fullmatch(text):
        raise ValueError(f"ad_page_id must be a numeric page id, got {page_id!r:.80}")
    wrong = _too_long(text, "ad_page_id")
    if wrong:
        raise ValueError(wrong)
    return text


def _day(name: str, value: date | datetime | str | None) -> date | None:
    if value is None:
        return None
    if value is pd.NaT:  # a datetime to isinstance, with no date in it
        raise ValueError(f"{name} is NaT (no date); give a day, or None for no bound")
    try:
        parse_when(value, name=name)  # not a day at all: say how to write one
    except TypeError as exc:  # a wrong type here is a bad value of a search filter
        raise ValueError(str(exc)) from None
    try:
        return calendar_day(value, "UTC", name=name)
    except (ValueError, OverflowError):  # a time zone that moves it past the calendar
        raise ValueError(f"{name} is out of the calendar's range in UTC: {value!r:.80}") from None


def _is_sendable_text(text: str) -> bool:
    """Whether ``text`` can be sent as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
        if not _is_sendable_text(query):
            raise ValueError(
                "query holds a lone surrogate (text decoded with errors='surrogateescape'?):"
                " it cannot be sent as UTF-8"
            )
        if ad_page_id is not None:
            raise ValueError("give query or ad_page_id, not both (the service ignores one)")
        params["query"] = query.strip()
    elif ad_page_id is not None:
        params["ad_page_id"] = _page_id(ad_page_id)
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


#: The service's parameters that are filters, by the names ``search_ads`` and
#: ``post_comments`` give them.
FILTER_NAMES: Final = {
    "sort": "sort",
    "country": "country",
    "activeStatus": "active_status",
    "after_time": "after",
    "before_time": "before",
}
#: The parameters that name the item itself (a post, a query, an advertiser).
ITEM_PARAMS: Final = frozenset({"urn", "query", "ad_page_id"})


def filters_text(params: Mapping[str, str]) -> str | None:
    """The filters among a call's parameters as a person writes them to ``search_ads``:
    the user's names and words, sorted, ``name=value`` apart by spaces (the item and
    nothing else left out); None when there are none. One form for every frame that
    shows filters (a study's ``watched()``, ``refresh()`` and ``changes()``, the cache
    report).

    Example:
        >>> filters_text({"query": "shoes", "country": "US", "activeStatus": "ALL"})
        'active_status=all country=US'
        >>> filters_text({"ad_page_id": "123"}) is None
        True
    """
    words = {service: user for user, service in ACTIVE_STATUS.items()}
    shown = sorted(
        (FILTER_NAMES.get(name, name), words.get(value, value) if name == "activeStatus" else value)
        for name, value in params.items()
        if name not in ITEM_PARAMS
    )
    return " ".join(f"{name}={value}" for name, value in shown) or None


def operation_of(url: str | None) -> str:
    """``"comments"`` / ``"ads"`` for a URL of that operation, else ``""``."""
    path = urlsplit(url or "").path
    return OPERATION_OF_PATH.get(path.rsplit("/", 1)[-1], "")
