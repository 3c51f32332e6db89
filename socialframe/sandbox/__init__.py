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
"""

from __future__ import annotations

from socialframe.sandbox.data import (
    ADS_PER_ANSWER,
    EXAMPLE_POSTS,
    EXAMPLE_QUERIES,
    PAGE_SIZE,
    TOTALS,
    AdSearch,
    ads_body,
    ads_total,
    comment_total,
    comments_body,
    expected_token,
    has_pinned,
    parse_search,
    repeats,
    total_pages,
)
from socialframe.sandbox.routes import ENVELOPES
from socialframe.sandbox.server import RequestRecord, Sandbox

__all__ = [
    "ADS_PER_ANSWER",
    "ENVELOPES",
    "EXAMPLE_POSTS",
    "EXAMPLE_QUERIES",
    "PAGE_SIZE",
    "TOTALS",
    "AdSearch",
    "RequestRecord",
    "Sandbox",
    "ads_body",
    "ads_total",
    "comment_total",
    "comments_body",
    "expected_token",
    "has_pinned",
    "parse_search",
    "repeats",
    "total_pages",
]
