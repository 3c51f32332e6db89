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
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Protocol

import pandas as pd

from .. import _frames as frames
from .. import _operations as endpoints
from .._errors import AuthError, BudgetExceededError, FetchError
from .._fetch import pages as pager
from .._models import Fetched, Page
from . import watch

if TYPE_CHECKING:
    from .._ledger import Ledger
    from .dataset import Manifest
    from .queries import Reader

Fetch = Callable[[Mapping[str, str]], Fetched]
#: Failures that end a refresh whatever ``on_error`` says.
ENDS: Final = (BudgetExceededError, AuthError)


class Run(Protocol):
    """What a kind of watched item needs of the refresh it is part of (kept by
    :class:`socialframe._study.run.Refresh`: the pool, the budget, the manifest)."""

    id: str
    at: datetime
    fresh_after: datetime
    manifest: Manifest
    full: bool
    recheck_pages: int
    stopped_after: timedelta
    confirm_stops: bool
    stop: threading.Event

    def walk_start(self, state: dict[str, Any]) -> datetime:
        """Where an item's walk starts (its pages count from then)."""

    def fetcher(self, operation: str, fresh_after: datetime, paid: Ledger) -> Fetch:
        """A fetch of ``operation`` counted in ``paid`` and the refresh's budget."""


@dataclass
class Compared:
    """What comparing one watched item's walk with what the study held gave.

    Attributes:
        rows: The versions to keep (comments or ads, labelled with the item).
        changes: Its change rows (:data:`.searches.CHANGE_COLUMNS`).
        new: How many new comments or ads; ``changed``: how many changes else.
        paid: The calls the item's walk (and what proved its changes) was charged.
        complete: Whether the item was read as far as it must be.
        missing: A post's comments the service counts that the study lacks.
        state: The item's state in the manifest after this refresh.
    """

    rows: list[pd.DataFrame] = field(default_factory=list)
    changes: list[tuple[Any, ...]] = field(default_factory=list)
    new: int = 0
    changed: int = 0
    paid: int = 0
    complete: bool | None = None
    missing: int | None = None
    state: dict[str, Any] = field(default_factory=dict)


class Kind(Protocol):
    """One kind of watched item (:mod:`.posts`, :mod:`.searches`): the same small
    interface, run in this order by a refresh."""

    kind: str  # as the manifest names it ("post", "ads")
    dataset: str  # where its rows are kept ("comments", "ads")
    views: tuple[str, ...]  # the study's views it reads (queries.NEEDS: "comments", ...)

    def know(self, con: Reader) -> None:
        """Read what the study holds of these items, before anything is paid."""

    def walk(self, watched: dict[str, Any], state: dict[str, Any], paid: Ledger) -> Walked:
        """Fetch one item's pages (in a worker of the refresh's pool)."""

    def learn(
        self, con: Reader, results: list[tuple[dict[str, Any], Walked]], *, whole: bool
    ) -> None:
        """Read what comparing the walks needs of the files (``whole``: the refresh was
        not interrupted)."""

    def compare(self, watched: dict[str, Any], walked: Walked, state: dict[str, Any]) -> Compared:
        """One item's walk against what the study held -> its rows, changes, state."""

    def finish(self) -> tuple[list[pd.DataFrame], list[tuple[Any, ...]], FetchError | None]:
        """Once every item is compared: more rows to keep, more changes, and a failure
        that ended what was left to prove."""


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
            if page.page == 1 and endpoints.COMMENTS.total_rows is not None:
                # (kept in the manifest: the record's rule, as the MCP server reads it)
                walked.total = endpoints.COMMENTS.total_rows(page.body)
            if more is not None:
                more -= 1
                if more <= 0 and not full:
                    walked.whole = pager.comments_ended(walked.pages)  # (re-read to the last)
                    break
                continue
            if known and walked.stop_page is None and _holds_known(walked.pages, known):
                walked.stop_page = page.page  # older from here
                more = recheck
                if recheck <= 0 and not full:
                    walked.whole = pager.comments_ended(walked.pages)  # (a post of one page)
                    break
        else:
            walked.whole = True  # (every page, to the last)
        walked.reached = True
    except FetchError as exc:
        walked.error = exc
    return walked


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
            if not pager.ads_ended(got):
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


class Names:
    """Comments (or ads) the study held, by every name they had: what tells one seen
    before from a new one (see :meth:`named`).

    Args:
        rows: Rows of the view ``_comment_names`` (or ``_ad_names``): each one's id
            (``id_column``), ``content_id``, ``id_derived`` and ``ident_`` (its name in
            the study), and for comments ``text`` and ``refresh``.
        id_column: ``comment_id`` or ``ad_archive_id``.

    Attributes:
        ident: Each name (an id; a content id of one sent with its id) -> its name in
            the study.
        content: Each content id of one sent with its id -> its name in the study.
        text: Each comment's latest text.
    """

    def __init__(self, rows: pd.DataFrame | None = None, id_column: str = "comment_id") -> None:
        self.ident: dict[str, str] = {}
        self.content: dict[str, str] = {}
        self.text: dict[str, Any] = {}
        if rows is None or not len(rows):
            return
        if "refresh" in rows:
            rows = rows.sort_values("refresh", kind="stable")
        texts = rows["text"] if "text" in rows else [None] * len(rows)
        for cid, content, derived, ident, text in zip(
            rows[id_column],
            rows["content_id"],
            rows["id_derived"],
            rows["ident_"],
            texts,
            strict=True,
        ):
            if not isinstance(ident, str):
                continue  # (a comment an older socialframe kept without any id)
            self.ident[str(cid)] = ident
            if not derived and isinstance(content, str):
                self.content[content] = ident
            self.text[ident] = text  # (the latest refresh last)

    def named(self, cid: str, content: str | None, derived: bool) -> str | None:
        """The study's name of the comment a walk sent as ``cid`` (content id
        ``content``), or None when it is new.

        Known by that id; or, sent without its id, known by its id under the content
        id it had then; or, sent with its id, known only by the id derived from it
        (never another id's: two ids are two comments).
        """
        ident = self.ident.get(cid)
        if ident is not None:
            return ident
        if derived:
            return self.content.get(cid)
        ident = None if content is None else self.ident.get(content)
        return ident if ident == content else None


def labelled(rows: pd.DataFrame, item: str, key: str, at: pd.Timestamp) -> pd.DataFrame:
    """``rows`` with the watched item they belong to (as shown, and its key) and when
    this refresh saw them."""
    return rows.assign(
        item=pd.array([item] * len(rows), "string"),
        watch=pd.array([key] * len(rows), "string"),
        seen_at=at,
    )


def differs(old: Any, new: Any) -> bool:
    """Whether two sightings of a field differ (missing equals missing only)."""
    old_missing, new_missing = _missing(old), _missing(new)
    if old_missing or new_missing:
        return old_missing != new_missing
    return bool(old != new)


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
