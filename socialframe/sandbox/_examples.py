"""Ready-made frames from the sandbox, for examples, docs and quick experiments.

Fetched in-process (no server, no socket, no cache, nothing written) on a
:class:`~socialframe.sandbox.ManualClock`, so every call returns the same frame,
``fetched_at`` included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._clock import ManualClock
from ._comments import EXAMPLE_POSTS
from ._sandbox import Sandbox

if TYPE_CHECKING:
    import pandas as pd


def example_comments(total: int = 82, *, seed: int = 0) -> pd.DataFrame:
    """The comments frame of the sandbox post with ``total`` comments.

    Args:
        total: One of the totals of ``EXAMPLE_POSTS``: 0, 1, 50, 51, 82 or 2345.
        seed: The sandbox's data seed.

    Returns:
        What ``client.post_comments(EXAMPLE_POSTS[total])`` returns.

    Raises:
        KeyError: ``total`` is not a key of ``EXAMPLE_POSTS``.

    Example:
        >>> comments = example_comments()
        >>> len(comments), comments["author_type"].value_counts().to_dict()
        (82, {'person': 71, 'organization': 11})
    """
    sandbox = Sandbox(seed=seed, clock=ManualClock())
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        return client.post_comments(EXAMPLE_POSTS[total])


def example_ads(
    query: str = "running shoes", *, max_ads: int | None = 60, seed: int = 0
) -> pd.DataFrame:
    """The ads frame of a sandbox search (by default the demo's: 60 ads, 14 advertisers).

    Args:
        query: The search text (any text has ads in the sandbox).
        max_ads: At most this many ads; ``None`` for all of them.
        seed: The sandbox's data seed.

    Returns:
        What ``client.search_ads(query, max_ads=max_ads)`` returns.

    Example:
        >>> ads = example_ads()
        >>> len(ads), ads["page_name"].nunique()
        (60, 14)
    """
    sandbox = Sandbox(seed=seed, clock=ManualClock())
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        return client.search_ads(query, max_ads=max_ads)
