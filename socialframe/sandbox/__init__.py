"""The sandbox: a faithful local stand-in for the paid service.

A real HTTP/1.1 server on 127.0.0.1, in a background thread, serving both
operations with deterministic data in the real response shapes, quirks
included: HTTP-200 failure envelopes, a pagination token on the last page,
replies with ``createdAt: 0``, three author shapes, ads as a list of lists, and
ad paging whose ``has_next_page`` can stay true forever. It counts what the
real service would charge, so tests can assert on money, not just on data.

Example:
    >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
    >>> with Sandbox(seed=0) as sandbox, sandbox.client(cache=False) as client:
    ...     df = client.post_comments(EXAMPLE_POSTS[82])
    >>> len(df), sandbox.charges
    (82, 2)

Nothing happens at import: the server binds its port in :meth:`Sandbox.start`
(or ``with``), and data is generated on demand.

Without a server: ``sandbox.client(in_process=True)`` answers through
:meth:`Sandbox.transport`, in this process, with the same gates, records and
charges; with a :class:`ManualClock` shared by both, waits (``Retry-After``,
backoff, latency) cost no time. :func:`example_comments` / :func:`example_ads`
return ready-made frames that way.

The data, as pure deterministic functions of ``(seed, now)`` (no I/O, no state):
same arguments, same result, in any process, so tests and notebooks can compute
what the sandbox will answer without a server. A sandbox answers each request as
of its clock's ``now()``; the functions take ``now=`` (the reference date,
``REFERENCE`` = 2026-01-01T00:00Z, by default).

Operation B (comments, :mod:`socialframe.sandbox._comments`):
    At ``REFERENCE``, ``comment_total(post) = TOTALS[int(post) % 8]`` with
    ``TOTALS = (82, 0, 1, 50, 51, 2345, 7, 120)``; 50 per page; ``EXAMPLE_POSTS``
    maps 0, 1, 50, 51, 82 and 2345 to a 19-digit post id with that total, and
    ``posts_with(total, n)`` gives ``n`` distinct posts of a total (any number of
    posts of 51 to 2,345 comments to watch: totals 51, 82, 120, 2345).

Operation A (ads, :mod:`socialframe.sandbox._ads`):
    At ``REFERENCE``, ``EXAMPLE_QUERIES`` pins a few queries' counts (``"for
    kids"``: 75, ``"running shoes"``: 130); any other query gets one of 3, 26, 40,
    75, 130 from a hash of its text, an ``ad_page_id`` one of 2, 3, 5, 8, 13.
    ``repeats()`` says which searches keep ``has_next_page`` true after their
    last page.

Rows without an id, as the service sends some:
    ``IDLESS_POSTS["all"]`` (50 comments) and ``IDLESS_POSTS["some"]`` (82, with
    an exact duplicate pair) are posts whose comments come without a readable
    permalink (so without an id); ``IDLESS_QUERIES["all"]`` (26 ads) and
    ``IDLESS_QUERIES["some"]`` (40) are searches whose ads come without an
    ``ad_archive_id``. Which rows lack it follows from each row's hidden id, so a
    row stays as it is from request to request, and the worlds grow as any other.

Time (:mod:`socialframe.sandbox._growth`):
    At ``REFERENCE`` the world is the one above, which every example, the demo
    and the notebooks show (they pin it: ``Sandbox(clock=PinnedClock())`` keeps
    waits real, ``ManualClock()`` makes them free). The system clock, the
    default, shows it grown since. Each week after it (``REFERENCE + w weeks``
    to ``w + 1``) brings exactly::

        post, by its total    comments    of which replies
        at REFERENCE          a week      to older threads
        82                    0 (never)   0
        0                     2           0
        1                     3           1
        50                    3           1
        51                    4           1
        2345                  72          12
        7                     1           0
        120                   6           2

        ad search, by its ads   ads started   running ads
        at REFERENCE            a week        stopped a week
        query, 3                0 (never)     0
        query, 26               2             1
        query, 40               3             1
        query, 75               4             2
        query, 130              6             3
        ad_page_id, 2           0 (never)     0
        ad_page_id, 3           1             0
        ad_page_id, 5           1             1
        ad_page_id, 8           2             1
        ad_page_id, 13          2             1

    (``COMMENT_GROWTH``, ``AD_GROWTH``, ``PAGE_AD_GROWTH``.) Comments: a week is
    cut in equal slots, one comment inside each; a new thread comes first in
    ``mostRecent`` (newest first, consistently across pages) and anywhere in
    ``mostRelevant``; a reply joins a thread older than its week, after that
    thread's replies, so ``mostRecent`` shows it on that thread's (later) page
    while ``total`` and ``totalPage`` count it. ``comment_total(post, now=...)``
    counts exactly at any moment. Ads start and stop at 00:00 UTC of one of the
    week's days: a new ad (a group of one, after the search's other ads;
    ``after_time`` finds it) is running; a stopped one has ``is_active`` false and
    ``end_date`` that day; a running ad's ``end_date`` is 00:00 UTC of ``now``'s day.
    ``ads_total(query, now=...)`` counts them. Stops are exact from a search's
    second week on, and in its first for every query search (an ``ad_page_id``
    with too few running ads may stop fewer). Nothing dated after ``now`` exists:
    before ``REFERENCE``, comments and ads dated later are not there yet, and an
    ad that ended later is still running.
"""

from __future__ import annotations

from .._clock import ManualClock, PinnedClock
from ._ads import (
    ADS_PER_ANSWER,
    EXAMPLE_QUERIES,
    IDLESS_QUERIES,
    AdSearch,
    ads_body,
    ads_total,
    parse_search,
    repeats,
    running_ads,
)
from ._comments import (
    EXAMPLE_POSTS,
    IDLESS_POSTS,
    PAGE_SIZE,
    TOTALS,
    comment_total,
    comments_body,
    expected_token,
    has_pinned,
    posts_with,
    total_pages,
)
from ._common import REFERENCE, BadParam
from ._examples import example_ads, example_comments
from ._growth import AD_GROWTH, COMMENT_GROWTH, PAGE_AD_GROWTH, AdGrowth, CommentGrowth
from ._routes import ENVELOPES, Route
from ._sandbox import RequestRecord, Sandbox

__all__ = [
    "ADS_PER_ANSWER",
    "AD_GROWTH",
    "COMMENT_GROWTH",
    "ENVELOPES",
    "EXAMPLE_POSTS",
    "EXAMPLE_QUERIES",
    "IDLESS_POSTS",
    "IDLESS_QUERIES",
    "PAGE_AD_GROWTH",
    "PAGE_SIZE",
    "REFERENCE",
    "TOTALS",
    "AdGrowth",
    "AdSearch",
    "BadParam",
    "CommentGrowth",
    "ManualClock",
    "PinnedClock",
    "RequestRecord",
    "Route",
    "Sandbox",
    "ads_body",
    "ads_total",
    "comment_total",
    "comments_body",
    "example_ads",
    "example_comments",
    "expected_token",
    "has_pinned",
    "parse_search",
    "posts_with",
    "repeats",
    "running_ads",
    "total_pages",
]
