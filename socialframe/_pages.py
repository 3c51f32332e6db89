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


def problem(operation: str, body: Any, *, paging: bool = True) -> str | None:
    """What makes ``body`` not a page of ``operation``, or ``None`` if it is one.

    The one home of the page shape: pagers, frame builders and the cache filter
    all ask here, so a page that would fail later is never stored.

    Args:
        operation: ``"comments"`` or ``"ads"``.
        body: The decoded JSON body (a dict, or a comments body decoded into
            structs, which reads like one).
        paging: Check the paging fields too (``totalPage``, ``paginationToken``,
            ``page_info``); frame builders, which do not page, skip them.

    Returns:
        A short description of the first problem (``"'data' is a str, not a
        list"``), or ``None``.

    Example:
        >>> problem("comments", {"data": [], "totalPage": "2"})
        "'totalPage' is '2', not a whole number"
        >>> problem("ads", {"data": {"ads": [[{"ad_archive_id": "1"}]]}}) is None
        True
    """
    if not isinstance(body, Mapping) and not _decoded(body):
        return f"the body is {_kind(body)}, not a JSON object"
    if body.get("success") is False:
        return f"it is a failure (success: false): {str(body.get('message'))[:200]!r}"
    if operation == "comments":
        return _comments_problem(body, paging)
    if operation == "ads":
        return _ads_problem(body, paging)
    return None


def _decoded(body: Any) -> bool:
    """Whether ``body`` is a raw body decoded into structs, which reads like its dict
    (:class:`socialframe._frames.structs.CommentsPage`) and whose comments msgspec
    has already checked to be objects."""
    return getattr(type(body), "DECODED", False) is True


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


def _comments_problem(body: Any, paging: bool) -> str | None:
    data = body.get("data")
    if not isinstance(data, list):
        return f"'data' is {_kind(data)}, not a list"
    for i, comment in enumerate(data if isinstance(body, Mapping) else ()):
        if not isinstance(comment, Mapping):
            return f"comment {i} is {_kind(comment)}, not an object"
    if not paging:
        return None
    total = body.get("totalPage")
    if total is None and data:
        return "'totalPage' is missing"
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        return f"'totalPage' is {str(total)[:50]!r}, not a whole number"
    token = body.get("paginationToken")
    if token is not None and not isinstance(token, str):
        return f"'paginationToken' is {_kind(token)}, not text"
    return None


def _ads_problem(body: Any, paging: bool) -> str | None:
    data = body.get("data")
    if not isinstance(data, Mapping):
        return f"'data' is {_kind(data)}, not an object"
    groups = data.get("ads")
    if not isinstance(groups, list):
        return f"'data.ads' is {_kind(groups)}, not a list"
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
        return f"'page_info' is {_kind(info)}, not an object"
    cursor, more = info.get("end_cursor"), info.get("has_next_page")
    if cursor is not None and not isinstance(cursor, str):
        return f"'page_info.end_cursor' is {_kind(cursor)}, not text"
    if more is not None and not isinstance(more, bool):
        return f"'page_info.has_next_page' is {_kind(more)}, not true/false"
    return None


def checked(operation: str, body: Any, number: int, *, paging: bool = True) -> None:
    """Raise :class:`SchemaError` naming page ``number`` if ``body`` is not a page.

    Raises:
        SchemaError: see :func:`problem`.
    """
    found = problem(operation, body, paging=paging)
    if found is not None:
        raise SchemaError(f"{operation} page {number}: {found}")


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
        checked("comments", body, number)
        data = body["data"]
        yield _page(fetched, number, params["urn"], sent)
        total_pages = body.get("totalPage")
        if not data or (max_pages is not None and number >= max_pages):
            return
        if number >= total_pages:
            return
        token = body.get("paginationToken")
        if not token:
            raise SchemaError(f"comments page {number} of {total_pages} has no paginationToken")
        number += 1


def ad_groups(body: Mapping[str, Any]) -> tuple[list[Any], Mapping[str, Any]]:
    """``(ads, page_info)`` of an ads page (checked by :func:`problem`); ``data.ads``
    flattened, order kept."""
    data = body["data"]
    ads: list[Any] = []
    for group in data["ads"]:
        if isinstance(group, list):
            ads.extend(group)
        else:
            ads.append(group)
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
        checked("ads", fetched.body, number)
        ads, info = ad_groups(fetched.body)
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
