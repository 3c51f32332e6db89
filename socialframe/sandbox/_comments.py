"""Operation B data: the comments of a post, paged by 50, with the real quirks.

Rules (all deterministic; the seed changes the content, never the counts, but for
the world before the reference date, which its comments' dates cut):

* At the reference date (2026-01-01T00:00Z), ``comment_total(post)`` is
  ``TOTALS[int(post) % 8]`` with ``TOTALS = (82, 0, 1, 50, 51, 2345, 7, 120)``.
  Replies are part of the total. After it, each week brings
  ``COMMENT_GROWTH[that total]`` (:mod:`._growth`): new threads, newest first in
  ``mostRecent`` and anywhere in ``mostRelevant``, and replies to older threads,
  after that thread's other replies. ``total`` and ``totalPage`` count them all.
  Before it, comments dated after ``now`` are not there yet.
* A post has a pinned top-level comment when ``(int(post) // 8) % 2 == 0`` and it
  has comments. ``mostRelevant`` puts it first; ``mostRecent`` does not.
* ``mostRelevant``: threads in no time order. ``mostRecent``: threads newest
  first. Either way a thread's replies follow its top-level comment, oldest first.
* About 20% of items are replies. The first thread generated always has two
  replies (when the total allows), so every post with 3+ comments shows them.
  Replies carry ``createdAt: 0`` and a garbage ``createdAtString`` (their creation
  milliseconds rendered as if they were seconds: a year in the tens of thousands).
* Comment ids are ``(created_ms << 22) | random_22_bits``, so ``id >> 22`` gives
  the creation time, for replies too.
* ``IDLESS_POSTS``: posts whose comments come without a readable permalink (all of
  them, or about a quarter with an exact duplicate pair), as the service sends some.
* The first items generated carry every text quirk (``_corpus.COMMENT_QUIRKS``) and
  the first four use one author of each shape (person v1 with ``name``, v2 with
  ``firstName``/``lastName``, v3 with ``FirstName``/``LastName``, organisation), so
  any post with at least 14 comments shows all of them.

Its size (over 400 lines) is earned: one generator for one response shape, whose
comments after the reference date (``_Growth``) are written by the same ``_item``
and join the same threads as the others, and whose two orders must place both
alike; apart, each half would reach into the other's threads. When comments
arrive, content-free, is :mod:`._growth`'s.
"""

from __future__ import annotations

import base64
import random
import re
import threading
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from . import _faults
from ._common import REFERENCE_MS, BadParam, digest, now_ms, rng_for, utc_string
from ._corpus import COMMENT_QUIRKS, COMMENT_TEXTS, COMPANIES, FIRST_NAMES, HEADLINES, LAST_NAMES
from ._growth import COMMENT_GROWTH, arrival_times, comment_position

PAGE_SIZE = 50
TOTALS = (82, 0, 1, 50, 51, 2345, 7, 120)
SORTS = ("mostRelevant", "mostRecent")

_BASE_POST = 7_384_427_202_391_592_960  # divisible by 8, so TOTALS[0] = 82
EXAMPLE_POSTS: dict[int, str] = {
    total: str(_BASE_POST + TOTALS.index(total)) for total in (0, 1, 50, 51, 82, 2345)
}
"""A post id (19 digits) for each interesting total; 2345 is the "thousands" one."""

_IDLESS_BASE = 7_384_427_202_500_000_000  # (divisible by 8: + 3 has 50 comments)
_IDLESS_SPAN = 8 * 10**6
IDLESS_POSTS: dict[str, str] = {"all": str(_IDLESS_BASE + 3), "some": str(_IDLESS_BASE + 8)}
"""Posts whose comments come without a readable permalink (so without an id), as the
service sends some: ``"all"`` (50 comments) has none; ``"some"`` (82 comments) lacks it
on about a quarter, and its first thread's two replies are exact duplicates (one
person's "+1" twice, in the same moment, neither with a permalink). Every post from
``7384427202500000000`` to 8 million after it is one of these two kinds (of its total
as any post): ``"all"`` where ``(post - 7384427202500000000) // 8`` is even, else
``"some"``. Which comment loses its permalink, and how (no ``permalink`` key, ``null``,
or the post's own URL with no comment in it), follows from its hidden id, so a
comment stays as it is from one request to the next."""

_WINDOW_MS = 60 * 86_400_000  # top-level comments: within 60 days before the reference
_REPLY_DELAY_MS = (60_000, 2 * 86_400_000)  # a reply comes minutes to two days later
_AUTHOR_POOL = 3000
_PERMALINK = "https://www.linkedin.com/feed/update/urn:li:activity:"

Comment = dict[str, Any]


def comment_total(post_id: str, *, now: datetime | None = None, seed: int = 0) -> int:
    """Return how many comments (replies included) a post has at ``now``.

    Args:
        post_id: The post id, digits only.
        now: When (tz-aware); the reference date (2026-01-01 UTC) by default.
        seed: The sandbox seed: it matters only before the reference date (the
            comments' dates then decide which are there yet).

    Returns:
        At the reference date ``TOTALS[int(post_id) % 8]``, one of 82, 0, 1, 50,
        51, 2345, 7, 120; ``COMMENT_GROWTH[that].per_week`` more for every week
        after it, counted comment by comment within a week.

    Raises:
        ValueError: ``now`` is naive.

    Example:
        >>> from datetime import timedelta
        >>> from socialframe.sandbox import REFERENCE
        >>> comment_total(EXAMPLE_POSTS[82]), comment_total("8")
        (82, 82)
        >>> comment_total(EXAMPLE_POSTS[2345], now=REFERENCE + timedelta(weeks=2))
        2489
    """
    base = TOTALS[int(post_id) % 8]
    at = now_ms(now)
    if at < REFERENCE_MS:
        return bisect_right(_base_times(post_id, seed), at)
    per_week = COMMENT_GROWTH[base].per_week
    weeks, arrived = comment_position(post_id, per_week, at)
    return base + weeks * per_week + arrived


def posts_with(total: int, count: int) -> list[str]:
    """Return ``count`` distinct post ids with ``total`` comments at the reference date.

    Each is a 19-digit id of its own world (texts, authors, dates and, after the
    reference date, arrivals differ from post to post); the first is
    ``EXAMPLE_POSTS[total]`` when there is one. For many posts worth watching:
    totals 51, 82, 120 and 2345 (82 never grows; see ``COMMENT_GROWTH``).

    Args:
        total: One of ``TOTALS``: 82, 0, 1, 50, 51, 2345, 7 or 120.
        count: How many ids, 0 to 1,000,000.

    Returns:
        The ids, ascending (``int(id) % 8`` picks the total: ids 8 apart).

    Raises:
        ValueError: ``total`` is not one of ``TOTALS``, or ``count`` is out of range.

    Example:
        >>> posts_with(2345, 3)
        ['7384427202391592965', '7384427202391592973', '7384427202391592981']
        >>> [comment_total(p) for p in posts_with(120, 2)]
        [120, 120]
    """
    if total not in TOTALS:
        raise ValueError(f"total must be one of {sorted(TOTALS)}, got {total!r}")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 1_000_000:
        raise ValueError(f"count must be an integer from 0 to 1,000,000, got {count!r}")
    first = _BASE_POST + TOTALS.index(total)
    return [str(first + 8 * k) for k in range(count)]


def has_pinned(post_id: str) -> bool:
    """Return whether the post has a pinned top-level comment.

    Args:
        post_id: The post id, digits only.

    Returns:
        True when ``(int(post_id) // 8) % 2 == 0`` and the post has comments.

    Example:
        >>> has_pinned(EXAMPLE_POSTS[82]), has_pinned(EXAMPLE_POSTS[0])
        (True, False)
    """
    return (int(post_id) // 8) % 2 == 0 and comment_total(post_id) > 0


def total_pages(total: int) -> int:
    """Return the number of 50-comment pages for ``total`` comments.

    Args:
        total: How many comments.

    Returns:
        ``ceil(total / 50)``: 0 for no comments.

    Example:
        >>> total_pages(82), total_pages(50), total_pages(0)
        (2, 1, 0)
    """
    return -(-total // PAGE_SIZE)


def expected_token(
    post_id: str, sort: str, page: int, seed: int = 0, *, walk_started: datetime | None = None
) -> str:
    """Return the ``paginationToken`` the answer for ``page`` carries.

    The request for ``page + 1`` must send it back. As the service's, a token carries
    the time the walk's first page was served: each walk of a post has its own
    tokens, so the pages of two walks are never one cache entry. (The sandbox's tokens
    do not expire: nothing is known of the service's.)

    Args:
        post_id: The post id.
        sort: ``mostRelevant`` or ``mostRecent``.
        page: The page (1-based) whose answer carries the token.
        seed: The sandbox seed.
        walk_started: When page 1 of the walk was served (tz-aware); the reference
            date by default.

    Returns:
        A token shaped like the real ones: ``"<10 digits>-<13-digit ms>-<32 hex>"``,
        the milliseconds being ``walk_started``.

    Example:
        >>> expected_token(EXAMPLE_POSTS[82], "mostRelevant", 1)
        '1797002499-1767225600000-193b56aefce0a7f78b77375bd9321914'
    """
    return _token(post_id, sort, page, seed, now_ms(walk_started))


def _token(post_id: str, sort: str, page: int, seed: int, started_ms: int) -> str:
    h = digest(seed, "token", post_id, sort, page, started_ms)
    digits = 1_000_000_000 + int(h[:8], 16) % 9_000_000_000
    return f"{digits}-{started_ms:013d}-{h[32:]}"


def _walk_started(token: str | None, post_id: str, sort: str, page: int, seed: int) -> int:
    """The start of the walk ``token`` (the previous page's) belongs to.

    Raises:
        BadParam: It is not a token this walk's previous page carried.
    """
    parts = (token or "").split("-")
    if len(parts) == 3 and len(parts[1]) == 13 and parts[1].isascii() and parts[1].isdigit():
        started = int(parts[1])
        if token == _token(post_id, sort, page - 1, seed, started):
            return started
    raise BadParam("Invalid paginationToken")


def comments_body(
    post_id: str,
    sort: str,
    page: int = 1,
    seed: int = 0,
    *,
    now: datetime | None = None,
    walk_started: int | None = None,
    faults: bool = False,
) -> dict[str, Any]:
    """Return the 200 body for one page of a post's comments.

    A page past the last one has ``data: []`` (the real service charges for it).

    Args:
        post_id: The post id, digits only.
        sort: ``mostRelevant`` or ``mostRecent``.
        page: The page, from 1.
        seed: The sandbox seed.
        now: When (tz-aware); the reference date (2026-01-01 UTC) by default.
        walk_started: When the walk's page 1 was served, in Unix milliseconds, which
            its tokens carry (see :func:`expected_token`); ``now`` by default.
        faults: The comments edited and deleted since the reference date
            (:mod:`socialframe.sandbox._faults`).

    Returns:
        ``{"success", "message", "data", "total", "totalPage", "paginationToken"}``;
        the comment dicts are fresh copies, safe to mutate.

    Raises:
        BadParam: ``post_id``, ``sort`` or ``page`` is invalid.
        ValueError: ``now`` is naive.

    Example:
        >>> body = comments_body(EXAMPLE_POSTS[82], "mostRelevant", page=2)
        >>> len(body["data"]), body["totalPage"], body["total"]
        (32, 2, 82)
    """
    _check_post(post_id)
    if sort not in SORTS:
        raise BadParam(f"Invalid sort {sort!r}: use mostRelevant or mostRecent")
    if page < 1:
        raise BadParam("Invalid page: must be a positive integer")
    items = _ordered(post_id, sort, seed, _state(post_id, seed, now_ms(now)))
    if faults:
        items = _faults.comments_kept(items, seed=seed, at_ms=now_ms(now))
    start = (page - 1) * PAGE_SIZE
    data = [_comment(post_id, seed, entry) for entry in items[start : start + PAGE_SIZE]]
    if faults:
        data = [
            _faults.comment_as_of(c, seed=seed, at_ms=now_ms(now)) if isinstance(entry, dict) else c
            for c, entry in zip(data, items[start : start + PAGE_SIZE], strict=True)
        ]
    idless = _idless(post_id)
    if idless is not None:
        data = [_without_id(post_id, seed, idless, c) for c in data]
    return {
        "success": True,
        "message": "",
        "data": [{**c, "author": dict(c["author"])} for c in data],
        "total": len(items),
        "totalPage": total_pages(len(items)),
        "paginationToken": _token(
            post_id, sort, page, seed, now_ms(now) if walk_started is None else walk_started
        ),
    }


def comments_response(
    params: Mapping[str, str], seed: int = 0, now: datetime | None = None, faults: bool = False
) -> dict[str, Any]:
    """Validate the query parameters of a request, then answer it.

    Args:
        params: ``urn``, ``sort``, ``page`` (default 1) and, from page 2 on,
            ``paginationToken`` (the token of the previous page).
        seed: The sandbox seed.
        now: When (tz-aware); the reference date by default.
        faults: See :func:`comments_body`.

    Returns:
        The 200 body, see :func:`comments_body`.

    Raises:
        BadParam: A parameter is missing or invalid, or the token is wrong.
    """
    post_id = params.get("urn")
    if post_id is None:
        raise BadParam("Missing required parameter: urn")
    sort = params.get("sort")
    if sort is None:
        raise BadParam("Missing required parameter: sort")
    raw_page = params.get("page", "1")
    # Bounded length: int() of thousands of digits is slow or refused.
    if not (raw_page.isascii() and raw_page.isdigit() and len(raw_page) <= 9):
        raise BadParam("Invalid page: must be a positive integer")
    page = int(raw_page)
    _check_post(post_id)
    started = None
    if page > 1:
        started = _walk_started(params.get("paginationToken"), post_id, sort, page, seed)
    return comments_body(post_id, sort, page, seed, now=now, walk_started=started, faults=faults)


def _idless(post_id: str) -> str | None:
    """Which of :data:`IDLESS_POSTS`' kinds the post is (``"all"``, ``"some"``), if any."""
    offset = int(post_id) - _IDLESS_BASE
    if not 0 <= offset < _IDLESS_SPAN:
        return None
    return "all" if (offset // 8) % 2 == 0 else "some"


_OWN_ID = re.compile(r"Urn=urn%3Ali%3Acomment%3A%28activity%3A\d+%2C(\d+)%29")


def _without_id(post_id: str, seed: int, kind: str, comment: Comment) -> Comment:
    """A comment of an :data:`IDLESS_POSTS` post as served: without a readable
    permalink where its hidden id says so (see there)."""
    link = comment["permalink"]
    own = int(_OWN_ID.findall(link)[-1])  # (a reply's own id comes last)
    threads = _threads(post_id, seed)
    if kind == "some" and len(threads[0].items) >= 3 and link in _twin_links(threads[0]):
        # the first thread's two replies: one person's "+1", twice in one moment
        first = threads[0].items[1]
        return {
            **first,
            "author": dict(first["author"]),
            "text": "+1",
            "isEdited": False,
            "permalink": None,
        }
    if kind == "some" and own % 4:
        return comment
    served = dict(comment)
    way = own % 3
    if way == 0:
        del served["permalink"]
    elif way == 1:
        served["permalink"] = None
    else:  # the post's URL, no comment in it: nothing to read an id from
        served["permalink"] = f"{_PERMALINK}{post_id}/"
    return served


def _twin_links(thread: _Thread) -> tuple[str, str]:
    return thread.items[1]["permalink"], thread.items[2]["permalink"]


def error_body(message: str) -> dict[str, Any]:
    """Return the body of a 400 answer of this operation (its usual envelope)."""
    return {"success": False, "message": message, "data": None}


def _check_post(post_id: str) -> None:
    if not (post_id.isascii() and post_id.isdigit() and len(post_id) <= 30):
        raise BadParam(f"Invalid urn {post_id!r}: expected the numeric post id")


@dataclass(frozen=True, slots=True)
class _Thread:
    created: int
    pinned: bool
    items: tuple[Comment, ...]  # the top-level comment, then its replies
    top_id: int  # the top-level comment's id: what a later reply links to
    times: tuple[int, ...]  # each item's creation time (ms), for the world before the reference


class _Arrival(NamedTuple):
    """A comment that arrived after the reference date, before it is written out."""

    week: int
    slot: int  # its place among its week's arrivals
    created: int  # ms
    own_id: int
    thread_id: int  # the top-level comment's id (its own, for a new thread)
    reply: bool
    thread: int  # the thread it starts or joins: base threads 0..B-1, then the new ones
    rank: float  # where a new thread sits in mostRelevant, among the threads before it


Entry = Comment | _Arrival
"""An element of a post's ordered comments: a comment of the reference world, or a
reference to one that arrived later (written out only when a page shows it)."""

State = tuple[int, int]
"""How far a post's world has come: ``(weeks, arrived)`` after the reference date,
or ``(-1, comments there yet)`` before it. Equal states answer equal bodies."""


def _state(post_id: str, seed: int, at: int) -> State:
    if at < REFERENCE_MS:
        return -1, bisect_right(_base_times(post_id, seed), at)
    per_week = COMMENT_GROWTH[TOTALS[int(post_id) % 8]].per_week
    return comment_position(post_id, per_week, at) if per_week else (0, 0)


@lru_cache(maxsize=32)
def _ordered(post_id: str, sort: str, seed: int, state: State) -> tuple[Entry, ...]:
    threads = _threads(post_id, seed)
    weeks, arrived = state
    if weeks < 0:  # before the reference date: the reference world, cut at `now`
        times = _base_times(post_id, seed)
        cutoff = times[arrived - 1] if arrived else -1
        return tuple(
            item
            for i in _base_order(post_id, sort, seed)
            for item, at in zip(threads[i].items, threads[i].times, strict=True)
            if at <= cutoff
        )
    new: list[_Arrival] = []
    replies: dict[int, list[_Arrival]] = {}
    for arrival in _growth(post_id, seed).arrivals(weeks, arrived):
        if arrival.reply:
            replies.setdefault(arrival.thread, []).append(arrival)
        else:
            new.append(arrival)
    base = len(threads)
    if sort == "mostRecent":  # every new thread is newer than the reference world's
        order = [a.thread for a in reversed(new)] + list(_base_order(post_id, sort, seed))
    elif new:
        ranked = [(not t.pinned, float(i), i) for i, t in enumerate(threads)]
        ranked += [(True, a.rank, a.thread) for a in new]
        order = [i for *_, i in sorted(ranked)]
    else:
        order = list(_base_order(post_id, sort, seed))
    entries: list[Entry] = []
    for i in order:
        if i < base:
            entries.extend(threads[i].items)
        else:
            entries.append(new[i - base])
        entries.extend(replies.get(i, ()))
    return tuple(entries)


@lru_cache(maxsize=32)
def _base_order(post_id: str, sort: str, seed: int) -> tuple[int, ...]:
    threads = _threads(post_id, seed)
    if sort == "mostRecent":
        return tuple(sorted(range(len(threads)), key=lambda i: threads[i].created, reverse=True))
    return tuple(sorted(range(len(threads)), key=lambda i: not threads[i].pinned))  # stable


@lru_cache(maxsize=32)
def _base_times(post_id: str, seed: int) -> tuple[int, ...]:
    return tuple(sorted(at for thread in _threads(post_id, seed) for at in thread.times))


@lru_cache(maxsize=16)
def _threads(post_id: str, seed: int) -> tuple[_Thread, ...]:
    return _generate(post_id, seed, TOTALS[int(post_id) % 8])


def _links(post_id: str, top_id: int) -> tuple[str, str]:
    """A thread's ``threadUrn`` and the permalink of its top-level comment."""
    link = f"{_PERMALINK}{post_id}?commentUrn={_quoted_urn(post_id, top_id)}"
    link += f"&dashCommentUrn={_quoted_dash(post_id, top_id)}"
    return f"urn:li:comment:(activity:{post_id},{top_id})", link


def _generate(post_id: str, seed: int, total: int) -> tuple[_Thread, ...]:
    rng = rng_for(seed, "comments", post_id)
    pool = _post_authors(post_id, seed, total)
    pinned_thread = rng.randrange(3) if has_pinned(post_id) else -1
    threads: list[_Thread] = []
    n = 0
    while n < total:
        room = total - n - 1
        if not threads:
            replies = min(room, 2)
        elif room and rng.random() < 0.125:  # 1-3 replies, mean 2: ~20% replies overall
            replies = min(room, rng.randint(1, 3))
        else:
            replies = 0
        # int(random() * n) rather than randrange(n): about 3x faster, and big posts
        # build hundreds of thousands of these.
        created = REFERENCE_MS - int(rng.random() * _WINDOW_MS)
        top_id = (created << 22) | rng.getrandbits(22)
        thread_urn, link = _links(post_id, top_id)
        pinned = len(threads) == pinned_thread
        items = [_item(rng, pool, n, pinned, thread_urn, created, created, link)]
        low, high = _REPLY_DELAY_MS
        times = sorted(
            min(created + low + int(rng.random() * (high - low)), REFERENCE_MS)
            for _ in range(replies)
        )
        for i, when in enumerate(times, start=1):
            reply_id = (when << 22) | rng.getrandbits(22)
            reply_link = f"{link}&replyUrn={_quoted_urn(post_id, reply_id)}"
            reply_link += f"&dashReplyUrn={_quoted_dash(post_id, reply_id)}"
            items.append(_item(rng, pool, n + i, False, thread_urn, 0, when, reply_link))
        threads.append(_Thread(created, pinned, tuple(items), top_id, (created, *times)))
        n += 1 + replies
    return tuple(threads)


# -- after the reference date ------------------------------------------------------------------


class _Growth:
    """A post's arrivals after the reference date, drawn week by week as far as asked.

    Which arrivals reply and to which thread, their ids and ranks are drawn here
    (cheap); their texts and authors only when a page shows them (:func:`_grown`),
    so ten years of a big post cost a fraction of writing them all out.
    """

    def __init__(self, post_id: str, seed: int) -> None:
        self.post_id, self.seed = post_id, seed
        self.rate = COMMENT_GROWTH[TOTALS[int(post_id) % 8]]
        self._tops = tuple(thread.top_id for thread in _threads(post_id, seed))
        self._new: list[_Arrival] = []  # the new threads, in arrival order
        self._weeks: list[tuple[_Arrival, ...]] = []
        self._lock = threading.Lock()  # the server answers requests in parallel threads

    def arrivals(self, weeks: int, arrived: int) -> list[_Arrival]:
        """The arrivals of the first ``weeks`` weeks and the first ``arrived`` of the next."""
        with self._lock:
            while len(self._weeks) < weeks + (arrived > 0):
                self._weeks.append(self._draw(len(self._weeks)))
            drawn = self._weeks
        out = [arrival for week in drawn[:weeks] for arrival in week]
        if arrived:
            out += drawn[weeks][:arrived]
        return out

    def _draw(self, week: int) -> tuple[_Arrival, ...]:
        per_week, old = self.rate
        rng = rng_for(self.seed, "growth", self.post_id, week)
        existing = len(self._tops) + len(self._new)  # the threads at the week's start
        replying = set(rng.sample(range(per_week), old)) if existing else set()
        out: list[_Arrival] = []
        for i, at in enumerate(arrival_times(self.post_id, week, per_week)):
            own = (at << 22) | rng.getrandbits(22)
            if i in replying:
                target = int(rng.random() * existing)
                top = self._tops[target] if target < len(self._tops) else self._top(target)
                out.append(_Arrival(week, i, at, own, top, True, target, 0.0))
            else:
                index = len(self._tops) + len(self._new)
                new = _Arrival(week, i, at, own, own, False, index, rng.random() * index)
                self._new.append(new)
                out.append(new)
        return tuple(out)

    def _top(self, thread: int) -> int:
        return self._new[thread - len(self._tops)].own_id


@lru_cache(maxsize=256)
def _growth(post_id: str, seed: int) -> _Growth:
    return _Growth(post_id, seed)


def _comment(post_id: str, seed: int, entry: Entry) -> Comment:
    return _grown(post_id, seed, entry) if isinstance(entry, _Arrival) else entry


@lru_cache(maxsize=8192)
def _grown(post_id: str, seed: int, ref: _Arrival) -> Comment:
    """Write out a comment that arrived after the reference date."""
    rng = rng_for(seed, "grown", post_id, ref.week, ref.slot)
    pool = _growth_authors(post_id, seed)
    thread_urn, link = _links(post_id, ref.thread_id)
    free = len(COMMENT_QUIRKS)  # (past the texts and authors every post shows first)
    if not ref.reply:
        return _item(rng, pool, free, False, thread_urn, ref.created, ref.created, link)
    link += f"&replyUrn={_quoted_urn(post_id, ref.own_id)}"
    link += f"&dashReplyUrn={_quoted_dash(post_id, ref.own_id)}"
    return _item(rng, pool, free, False, thread_urn, 0, ref.created, link)


def _item(
    rng: random.Random,
    pool: tuple[dict[str, str], ...],
    n: int,
    pinned: bool,
    thread_urn: str,
    created_at: int,
    created_ms: int,
    permalink: str,
) -> Comment:
    # created_at is 0 for replies; their string is then the ms rendered as seconds.
    when = utc_string(created_at // 1000) if created_at else utc_string(created_ms)
    if n < len(COMMENT_QUIRKS):
        text = COMMENT_QUIRKS[n]
    elif rng.random() < 0.08:
        text = COMMENT_QUIRKS[int(rng.random() * len(COMMENT_QUIRKS))]
    else:
        text = COMMENT_TEXTS[int(rng.random() * len(COMMENT_TEXTS))]
    # Squaring skews the draw to the front of the pool, so some authors comment often.
    author = pool[n] if n < 4 else pool[int(len(pool) * rng.random() ** 2)]
    return {
        "isPinned": pinned,
        "isEdited": rng.random() < 0.1,
        "threadUrn": "" if rng.random() < 0.15 else thread_urn,
        "createdAt": created_at,
        "createdAtString": when,
        "permalink": permalink,
        "text": text,
        "author": author,
    }


@lru_cache(maxsize=256)
def _growth_authors(post_id: str, seed: int) -> tuple[dict[str, str], ...]:
    # A wider pool than a small post's own: newcomers find it.
    return _post_authors(post_id, seed, max(TOTALS[int(post_id) % 8], 100))


def _quoted_urn(post_id: str, comment_id: int) -> str:
    # quote(f"urn:li:comment:(activity:{post},{id})", safe="") written out: both ids
    # are digits, and quote() would dominate the time to build a big post.
    return f"urn%3Ali%3Acomment%3A%28activity%3A{post_id}%2C{comment_id}%29"


def _quoted_dash(post_id: str, comment_id: int) -> str:
    return f"urn%3Ali%3Afsd_comment%3A%28{comment_id}%2Curn%3Ali%3Aactivity%3A{post_id}%29"


def _post_authors(post_id: str, seed: int, total: int) -> tuple[dict[str, str], ...]:
    shapes, authors = _authors(seed)
    rng = rng_for(seed, "post-authors", post_id)
    chosen: list[int] = []
    for shape in ("v1", "v2", "v3", "org"):  # one of each first: every shape shows
        start = rng.randrange(len(authors))
        chosen.append(
            next(
                i % len(authors)
                for i in range(start, start + len(authors))
                if shapes[i % len(authors)] == shape
            )
        )
    size = max(0, min(len(authors), total * 6 // 10) - 4)
    chosen += rng.sample(range(len(authors)), size)
    return tuple(authors[i] for i in chosen)


@lru_cache(maxsize=4)
def _authors(seed: int) -> tuple[tuple[str, ...], tuple[dict[str, str], ...]]:
    # One pool per seed, shared by all posts: an author keeps the same shape and
    # fields wherever they comment.
    rng = rng_for(seed, "authors")
    shapes: list[str] = []
    authors: list[dict[str, str]] = []
    for _ in range(_AUTHOR_POOL):
        r = rng.random()
        if r < 0.15:
            shape = "org"
            followers = int(10 ** rng.uniform(1.5, 6.5))
            authors.append(
                {
                    "name": rng.choice(COMPANIES),
                    "id": f"urn:li:company:{rng.randrange(10**5, 10**9)}",
                    "linkedinUrl": "https://www.linkedin.com/",
                    "title": f"{followers:,} followers",
                }
            )
        else:
            shape = "v1" if r < 0.55 else "v2" if r < 0.85 else "v3"
            authors.append(_person(rng, shape))
        shapes.append(shape)
    return tuple(shapes), tuple(authors)


def _person(rng: random.Random, shape: str) -> dict[str, str]:
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    urn = "ACoAA" + base64.urlsafe_b64encode(rng.randbytes(27)).decode()[:34]
    rest = {
        "urn": urn,
        "id": str(rng.randrange(10**8, 10**10)),
        "username": urn,
        "linkedinUrl": f"https://www.linkedin.com/in/{urn}",
        "title": rng.choice(HEADLINES),
    }
    if shape == "v1":
        return {"name": f"{first} {last}", **rest}
    if shape == "v2":
        return {"firstName": first, "lastName": last, **rest}
    return {"FirstName": first, "LastName": last, **rest}
