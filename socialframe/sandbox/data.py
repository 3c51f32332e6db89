"""The sandbox's data, as pure deterministic functions (no I/O, no clock, no state).

Same arguments, same result, in any process: tests and notebooks can compute
what the sandbox will answer without a server.

Operation B (comments, :mod:`socialframe.sandbox.comments`):
    ``comment_total(post) = TOTALS[int(post) % 8]`` with
    ``TOTALS = (82, 0, 1, 50, 51, 2345, 7, 120)``; 50 per page; ``EXAMPLE_POSTS``
    maps 0, 1, 50, 51, 82 and 2345 to a 19-digit post id with that total.

Operation A (ads, :mod:`socialframe.sandbox.ads`):
    ``EXAMPLE_QUERIES`` pins a few queries' counts (``"for kids"``: 75,
    ``"running shoes"``: 130); any other query gets one of 3, 26, 40, 75, 130
    from a hash of its text. ``repeats()`` says which searches keep
    ``has_next_page`` true after their last page.
"""

from __future__ import annotations

from socialframe.sandbox.ads import (
    ADS_PER_ANSWER,
    EXAMPLE_QUERIES,
    AdSearch,
    ads_body,
    ads_total,
    parse_search,
    repeats,
)
from socialframe.sandbox.comments import (
    EXAMPLE_POSTS,
    PAGE_SIZE,
    TOTALS,
    comment_total,
    comments_body,
    expected_token,
    has_pinned,
    total_pages,
)

__all__ = [
    "ADS_PER_ANSWER",
    "EXAMPLE_POSTS",
    "EXAMPLE_QUERIES",
    "PAGE_SIZE",
    "TOTALS",
    "AdSearch",
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
