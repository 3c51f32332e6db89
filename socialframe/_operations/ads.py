"""Operation A, an ad search (``GET /fetch_search_ads_pages``), as a record.

Its parameters in the service's forms (a query or an advertiser's page, and the
filters), the shape of its pages, and where its pager and frame builder live.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Final, Literal

import pandas as pd

from .._schema import AD_COLUMNS
from .._time import calendar_day, parse_when
from .base import Operation, kind_of
from .checks import DIGITS, is_sendable_text, too_long

ADS_PATH: Final = "fetch_search_ads_pages"
ActiveStatus = Literal["active", "inactive", "all"]
ACTIVE_STATUS: Final = {"all": "ALL", "active": "Active", "inactive": "Inactive"}
_COUNTRY = re.compile(r"[A-Za-z]{2}")


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
    if not DIGITS.fullmatch(text):
        raise ValueError(f"ad_page_id must be a numeric page id, got {page_id!r:.80}")
    wrong = too_long(text, "ad_page_id")
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


def ad_params(
    query: str | None,
    *,
    ad_page_id: str | int | None = None,
    country: str | None = None,
    active_status: str | bool | None = None,
    after: date | datetime | str | None = None,
    before: date | datetime | str | None = None,
) -> dict[str, str]:
    """Validated parameters of the first ads page, in the service's forms."""
    params: dict[str, str] = {}
    if query is not None:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, not {type(query).__name__}")
        if not query.strip():
            raise ValueError("query is empty")
        if not is_sendable_text(query):
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


def shape(body: Any, paging: bool) -> str | None:
    """What makes ``body`` (a JSON object) not a page of an ad search, or None. See
    :attr:`socialframe._operations.base.Operation.shape`."""
    data = body.get("data")
    if not isinstance(data, Mapping):
        return f"'data' is {kind_of(data)}, not an object"
    groups = data.get("ads")
    if not isinstance(groups, list):
        return f"'data.ads' is {kind_of(groups)}, not a list"
    for i, group in enumerate(groups):
        ads = group if isinstance(group, list) else [group]
        if not all(isinstance(ad, Mapping) for ad in ads):
            return f"entry {i} of 'data.ads' is not an ad or a list of ads"
    if not paging:
        return None
    info = data.get("page_info")
    if info is None:
        return None
    if not isinstance(info, Mapping):
        return f"'page_info' is {kind_of(info)}, not an object"
    cursor, more = info.get("end_cursor"), info.get("has_next_page")
    if cursor is not None and not isinstance(cursor, str):
        return f"'page_info.end_cursor' is {kind_of(cursor)}, not text"
    if more is not None and not isinstance(more, bool):
        return f"'page_info.has_next_page' is {kind_of(more)}, not true/false"
    return None


def _item(params: Mapping[str, str]) -> str:
    """The query, else ``ad_page_id=<id>``: how a person tells the searches apart."""
    if "query" in params:
        return params["query"]
    return f"ad_page_id={params.get('ad_page_id', '')}"


def _label(params: Mapping[str, str]) -> str:
    label = params.get("query") or f"page {params.get('ad_page_id')}"
    return f"ads {label!r}"


ADS: Final = Operation(
    name="ads",
    path=ADS_PATH,
    base_url="ads",
    params=ad_params,
    shape=shape,
    pager="socialframe._fetch.pages:iter_ad_pages",
    frame="socialframe._frames.ads:ads_frame",
    columns=AD_COLUMNS,
    # Each ad by the id the frame gives it (derived from the ad where the service sent
    # none): a page repeated, or an ad two pages show, is one row.
    row_ids="socialframe._frames.ads:ad_ids",
    item_params=frozenset({"query", "ad_page_id"}),
    paging=frozenset({"end_cursor"}),
    item=_item,
    filter_names={
        "country": "country",
        "activeStatus": "active_status",
        "after_time": "after",
        "before_time": "before",
    },
    filter_words={"activeStatus": {service: user for user, service in ACTIVE_STATUS.items()}},
    label=_label,
    report_facts="socialframe._display.report:ad_facts",
    report_sections="socialframe._display.sections:AD_SECTIONS",
    noun="ad",
    units=("queries", "query"),
    page_rows=26,
    row_limit="max_ads",
    ended="socialframe._fetch.pages:ads_ended",
)
"""The record of an ad search."""

__all__ = ["ACTIVE_STATUS", "ADS", "ADS_PATH", "ActiveStatus", "ad_params"]
