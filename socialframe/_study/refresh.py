"""One refresh of one watched item: the fewest pages that may hold what is new.

**A post** is read newest thread first (``sort=mostRecent``), each page fresh from the
service (a page the cache holds from before the refresh does not count), and the
walk stops after the first page holding a comment the study knew before: what
follows is older. A post with nothing new costs one call. What this cannot see: a
new reply under an old thread lands on a later page. Page 1's ``total`` says how
many comments the service counts; ``missing`` is that minus what the study holds
after the refresh, and a ``full`` refresh walks every page of the post.

A walk cut short (the budget, an error, an interrupt) keeps what it fetched; a refresh
within a day walks it again from the cache (its pages are paid for) and goes on where
it stopped. Later than that the walk starts afresh: the service's paging token changes
from one walk to the next, and new comments move the pages along. So the first read
of a post needs a budget for all its pages, or refreshes within a day of each other;
``missing`` says how far it got.

**A search**: the first refresh reads it whole. Later ones read the ads started
since the day of the last one (``after``), and the running ones: an ad the study
knew as running (found by this search) that is no longer among them, or that now
shows ``is_active`` false, has stopped. A search of running ads only is read whole
each time (the running ones are the search itself): an ad that started and stopped
between two refreshes is not seen there. A search of stopped ads only is read whole
each time too: an ad joins it when it stops, whenever it started.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pandas as pd

from .. import _frames as frames
from .. import _operations as endpoints
from .._errors import FetchError
from .._fetch import pages as pager
from .._frames.ads import ad_ids
from .._frames.shape import ad_groups
from .._models import Fetched, Page
from . import watch

Fetch = Callable[[Mapping[str, str]], Fetched]


@dataclass
class Walked:
    """What one item's refresh fetched.

    Attributes:
        pages: Every page fetched, in order (ads: of every search it ran).
        reached: Whether the walk got where it had to (a known comment, the last
            page; every page of each search): if not, it was cut short.
        total: Page 1's ``total`` (posts).
        whole: Whether a post's walk read every page, to the last (``full``, or a post
            read whole: it never stopped at a known comment).
        stop_page: The page a walk newest first stops at (the first holding a known
            comment), if it met one: the pages after it are beyond its normal walk.
        active: The running ads the search returned, when it read them all (None
            otherwise: nothing can be said about stopped ads): each one's id, content
            id and whether its id was derived.
        looped: Whether a search's paging was stopped by the loop guard on a page
            that was not its last one repeated (a page of ads seen before, mid-walk):
            the walk may have missed ads, so its absences prove nothing.
        error: The failure that cut the walk short.
        stopped: Whether that failure is another item's (the refresh was ended for it).
        paid: The calls the service charged for, counted as they were made (a page
            that came back broken after the charge and was fetched again is two).
    """

    pages: list[Page] = field(default_factory=list)
    reached: bool = False
    total: int | None = None
    whole: bool = False
    stop_page: int | None = None
    active: list[tuple[str, str, bool]] | None = None
    looped: bool = False
    error: FetchError | None = None
    stopped: bool = False  # the refresh was ended by another item (or an interrupt)
    paid: int = 0  # the calls the service charged for (a charged retry too)

    @functools.cached_property
    def comments(self) -> pd.DataFrame:
        """The comments of :attr:`pages` (a post's walk), one row each (built once)."""
        return comment_rows(self.pages)


def _holds_known(pages: list[Page], known: set[str]) -> bool:
    """Whether the last of ``pages`` (a walk's, so far) holds a comment in ``known``,
    by its id or its content id (a comment known under its other name is known).

    An id the service sent needs no other page; a derived id, and any content id,
    count the equal comments before it in the walk: for those the walk's pages are
    read together.
    """
    alone, content = frames.comments_with_content(pages[-1:])
    if set(alone["comment_id"][~alone["id_derived"]]) & known:
        return True
    if len(pages) > 1 and len(alone):
        frame, content = frames.comments_with_content(pages)
        alone, content = frame.tail(len(alone)), content[-len(alone) :]
    return bool((set(alone["comment_id"]) | (set(content) - {None})) & known)


def walk_post(
    fetch: Fetch, watched: dict[str, Any], known: set[str], *, full: bool, recheck: int = 0
) -> Walked:
    """Comment pages of a post, newest first, until one holds a comment in ``known``
    (and ``recheck`` pages more: edits and deletions in recent threads), or all of
    them (``full``)."""
    walked = Walked()
    params = endpoints.comment_params(watched["item"], "mostRecent")
    more: int | None = None  # pages still to re-read past the first known one
    try:
        for page in pager.iter_comment_pages(fetch, params):
            walked.pages.append(page)
            total = page.body.get("total")
            if page.page == 1 and isinstance(total, int) and not isinstance(total, bool):
                walked.total = max(total, 0)  # (kept in the manifest: a count)
            if more is not None:
                more -= 1
                if more <= 0 and not full:
                    walked.whole = _last(page)  # (re-read to the last page: whole)
                    break
                continue
            if known and walked.stop_page is None and _holds_known(walked.pages, known):
                walked.stop_page = page.page  # older from here
                more = recheck
                if recheck <= 0 and not full:
                    walked.whole = _last(page)  # (a post of one page: read whole)
                    break
        else:
            walked.whole = True  # (every page, to the last)
        walked.reached = True
    except FetchError as exc:
        walked.error = exc
    return walked


def _last(page: Page) -> bool:
    """Whether a comments page is its post's last (as the pager stops on it)."""
    pages = page.body.get("totalPage")
    last = isinstance(pages, int) and not isinstance(pages, bool) and page.page >= pages
    return bool(last or not page.body.get("data"))


def joined(resumed: Walked, since: Walked) -> Walked:
    """A cut walk finished from the cache, then the newest pages read afresh: one walk
    whose ``total`` is the fresh page 1's (its comments win: they are the latest)."""
    return Walked(
        pages=resumed.pages + since.pages,
        reached=since.reached,
        stop_page=None,
        total=since.total if since.total is not None else resumed.total,
        error=since.error,
    )


def walk_search(
    fetch: Fetch, watched: dict[str, Any], *, since: date | None, stop: threading.Event
) -> Walked:
    """Ad pages of a watched search: whole (``since`` None), or the ads started since
    ``since`` and the running ones."""
    walked = Walked()
    status = watched["filters"].get("activeStatus")
    runs: list[tuple[dict[str, str], bool]]
    if since is None:  # the first look: the whole search, once (its running ads among it)
        runs = [(watch.ad_params(watched), status != "Inactive")]
    elif status == "Active":  # the running ads are the search itself
        runs = [(watch.ad_params(watched), True)]
    elif status == "Inactive":
        # An ad joins a search of stopped ads when it stops, whenever it started: the
        # ads started since the last refresh are not all that may be new there.
        runs = [(watch.ad_params(watched), False)]
    else:
        runs = [(watch.ad_params(watched, after=since), False)]
        if status != "Inactive":
            runs.append((dict(watch.ad_params(watched), activeStatus="Active"), True))
    try:
        for params, active in runs:
            if stop.is_set():
                raise FetchError("ads: the refresh was stopped; nothing more was sent")
            got: list[Page] = []
            for page in pager.iter_ad_pages(fetch, params):  # (kept page by page: a walk
                got.append(page)  # cut short keeps what it paid for)
                walked.pages.append(page)
            if not ended(got):
                walked.looped = True
            if active and not walked.looped:
                ads = ad_rows(got)
                running = ads[ads["is_active"].fillna(True).astype(bool)]
                walked.active = list(
                    zip(
                        running["ad_archive_id"].tolist(),
                        running["content_id"].tolist(),
                        running["id_derived"].tolist(),
                        strict=True,
                    )
                )
        walked.reached = True
    except FetchError as exc:
        walked.error = exc
    return walked


def ended(pages: list[Page]) -> bool:
    """Whether a search's pages end where the search does: its last page says so (no
    next page, no cursor), or is the page before it again (the service's quirk of a
    last page that says there is a next one, answered by itself).

    The pager's loop guard also stops on a page holding only ads seen before that is
    not the last one repeated: the service repeated an earlier page mid-walk, and what
    lay beyond it was never read, so the walk is not a complete one.
    """
    if not pages:
        return True
    _, info = ad_groups(pages[-1].body)
    if not info.get("has_next_page") or not info.get("end_cursor"):
        return True
    return len(pages) >= 2 and set(ad_ids(pages[-1].body)) == set(ad_ids(pages[-2].body))


def comment_rows(pages: list[Page]) -> pd.DataFrame:
    """The comments of ``pages``, one row per comment (the last sighting wins), with
    ``content_id``: the id each is derived as without its permalink (see
    :func:`socialframe._frames.comments.comments_with_content`)."""
    frame, content = frames.comments_with_content(pages)
    frame["content_id"] = pd.array(content, dtype="string")
    return frame.drop_duplicates("comment_id", keep="last").reset_index(drop=True)


def ad_rows(pages: list[Page]) -> pd.DataFrame:
    """The ads of ``pages``, one row per ad, with ``content_id``: the id each is
    derived as without its ``ad_archive_id`` (see
    :func:`socialframe._frames.ads.ads_with_content`)."""
    frame, content = frames.ads_with_content(pages)
    frame["content_id"] = pd.array(content, dtype="string")
    return frame.drop_duplicates("ad_archive_id", keep="last").reset_index(drop=True)
