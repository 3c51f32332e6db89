"""Paging: how each operation walks its pages, as pure generators over a fetch.

The pagers take a ``fetch(params) -> Fetched`` callable and yield :class:`Page`
objects, so paging is tested without a network (a scripted fetch), and the
client decides how a page is fetched (cache, retries, budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ._errors import SchemaError

if TYPE_CHECKING:
    from ._calls import Fetched

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
