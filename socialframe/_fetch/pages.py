"""Paging: how each operation walks its pages, as pure generators over a fetch.

The pagers take a ``fetch(params) -> Fetched`` callable and yield :class:`Page`
objects, so paging is tested without a network (a scripted fetch), and the
client decides how a page is fetched (cache, retries, budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from .._errors import SchemaError
from .._frames.ads import ad_ids
from .._frames.shape import ad_groups, checked
from .._models import Page

if TYPE_CHECKING:
    from .._models import Fetched

Fetch = Callable[[Mapping[str, str]], "Fetched"]


def _page(fetched: Fetched, number: int, key: str, params: Mapping[str, str]) -> Page:
    return Page(
        fetched.body,
        number,
        fetched.fetched_at,
        fetched.from_cache,
        key,
        dict(params),
        fetched.stale,
    )


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


def iter_ad_pages(
    fetch: Fetch,
    params: Mapping[str, str],
    *,
    max_pages: int | None = None,
    max_ads: int | None = None,
) -> Iterator[Page]:
    """Pages of an ads search, following ``page_info.end_cursor``.

    Stops when ``has_next_page`` is false, the cursor is missing or was seen
    before, a page brings no new ad (by ``ad_archive_id``, or the id derived from an
    ad sent without one: the service may repeat pages with ``has_next_page`` still
    true), ``max_pages`` pages were read, or
    ``max_ads`` distinct ads are in.
    """
    key = params.get("query") or params.get("ad_page_id", "")
    seen_ids: set[str] = set()
    seen_cursors: set[str] = set()
    number, cursor = 1, None
    while True:
        sent = dict(params)
        if cursor:
            sent["end_cursor"] = cursor
        fetched = fetch(sent)
        checked("ads", fetched.body, number)
        _, info = ad_groups(fetched.body)
        yield _page(fetched, number, key, sent)
        # Each ad by the id the frame gives it: an ad sent without one by the id derived
        # from it, so a page repeating such ads brings nothing new (and stops the walk).
        ids = set(ad_ids(fetched.body))
        new = len(ids - seen_ids)
        seen_ids |= ids
        if not new or (max_ads is not None and len(seen_ids) >= max_ads):
            return
        if max_pages is not None and number >= max_pages:
            return
        cursor = info.get("end_cursor")
        if not info.get("has_next_page") or not cursor or cursor in seen_cursors:
            return
        seen_cursors.add(cursor)
        number += 1


def comments_ended(pages: list[Page]) -> bool:
    """Whether a post's pages, in order, end where its comments do: the last is the
    page its ``totalPage`` says is the last, or brings no comment (as
    :func:`iter_comment_pages` stops on it)."""
    if not pages:
        return False
    last = pages[-1]
    total = last.body.get("totalPage")
    said = isinstance(total, int) and not isinstance(total, bool) and last.page >= total
    return bool(said or not last.body.get("data"))


def ads_ended(pages: list[Page]) -> bool:
    """Whether a search's pages end where the search does: its last page says so (no
    next page, no cursor), or is the page before it again (the service's quirk of a
    last page that says there is a next one, answered by itself).

    :func:`iter_ad_pages`' loop guard also stops on a page holding only ads seen before
    that is not the last one repeated: the service repeated an earlier page mid-walk,
    and what lay beyond it was never read, so the walk is not a complete one.
    """
    if not pages:
        return True
    _, info = ad_groups(pages[-1].body)
    if not info.get("has_next_page") or not info.get("end_cursor"):
        return True
    return len(pages) >= 2 and set(ad_ids(pages[-1].body)) == set(ad_ids(pages[-2].body))
