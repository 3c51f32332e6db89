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

The data, as pure deterministic functions (no I/O, no clock, no state): same
arguments, same result, in any process, so tests and notebooks can compute what
the sandbox will answer without a server.

Operation B (comments, :mod:`socialframe.sandbox._comments`):
    ``comment_total(post) = TOTALS[int(post) % 8]`` with
    ``TOTALS = (82, 0, 1, 50, 51, 2345, 7, 120)``; 50 per page; ``EXAMPLE_POSTS``
    maps 0, 1, 50, 51, 82 and 2345 to a 19-digit post id with that total.

Operation A (ads, :mod:`socialframe.sandbox._ads`):
    ``EXAMPLE_QUERIES`` pins a few queries' counts (``"for kids"``: 75,
    ``"running shoes"``: 130); any other query gets one of 3, 26, 40, 75, 130
    from a hash of its text. ``repeats()`` says which searches keep
    ``has_next_page`` true after their last page.
"""

from __future__ import annotations

from .._clock import ManualClock
from ._ads import (
    ADS_PER_ANSWER,
    EXAMPLE_QUERIES,
    AdSearch,
    ads_body,
    ads_total,
    parse_search,
    repeats,
)
from ._comments import (
    EXAMPLE_POSTS,
    PAGE_SIZE,
    TOTALS,
    comment_total,
    comments_body,
    expected_token,
    has_pinned,
    total_pages,
)
from ._examples import example_ads, example_comments
from ._routes import ENVELOPES
from ._sandbox import RequestRecord, Sandbox

__all__ = [
    "ADS_PER_ANSWER",
    "ENVELOPES",
    "EXAMPLE_POSTS",
    "EXAMPLE_QUERIES",
    "PAGE_SIZE",
    "TOTALS",
    "AdSearch",
    "ManualClock",
    "RequestRecord",
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
    "repeats",
    "total_pages",
]
