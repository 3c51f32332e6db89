"""The small data types the layers hand down: a fetched body, a page, a stamp.

They sit below every layer that uses them (the caller makes a :class:`Fetched`, the
pagers make a :class:`Page` of it, the frame builders read pages), so no layer has to
import another one's module for them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from ._time import instant

if TYPE_CHECKING:
    from ._clock import Clock

FETCHED_AT: Final = "X-Socialframe-Fetched-At"
"""The header stamped on each response as it arrives (and kept with the cached copy):
when the service answered, so a re-run from the cache reports the original time."""


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
        stale: Served from the cache past its expiry (offline only): a client online
            would fetch it afresh.

    Example:
        >>> Page({"data": []}, page=1, key="7").page
        1
    """

    body: Mapping[str, Any]
    page: int
    fetched_at: datetime | None = None
    from_cache: bool = False
    key: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    stale: bool = False


@dataclass(frozen=True)
class Fetched:
    """A decoded 200 body and where it came from: what a pager's ``fetch`` returns.

    Attributes:
        body: The decoded JSON body.
        fetched_at: When the service sent it (the original time for a cached page).
        from_cache: Whether it came from the cache.
        stale: Served from the cache past its expiry (offline only): a client online
            would fetch it afresh.

    Example:
        >>> from datetime import UTC, datetime
        >>> Fetched({"data": []}, datetime(2026, 1, 1, tzinfo=UTC), from_cache=True).from_cache
        True
    """

    body: Any
    fetched_at: datetime
    from_cache: bool
    stale: bool = False


@dataclass(frozen=True)
class PageFetch:
    """One run's fetch of raw pages (:meth:`socialframe.Client.page_fetch`): call it with
    a page's query parameters; set :attr:`stop` to end the run (a call then raises
    before sending).

    Example:
        >>> from socialframe.sandbox import Sandbox
        >>> with Sandbox().client(in_process=True, cache=False) as client:
        ...     fetch = client.page_fetch("ads")
        ...     fetch.stop.is_set()
        False
    """

    call: Callable[..., Fetched]
    stop: threading.Event

    def __call__(self, params: Mapping[str, str], ledgers: tuple[Any, ...] = ()) -> Fetched:
        """Fetch one page.

        Args:
            params: The page's query parameters (the API's own names).
            ledgers: :class:`~socialframe.Ledger` objects to count the call in beside
                the client's (each refuses before sending past its budget).

        Returns:
            The decoded body, when the service answered, and whether it came from the
            cache.

        Example:
            >>> from socialframe.sandbox import Sandbox
            >>> with Sandbox().client(in_process=True, cache=False) as client:
            ...     got = client.page_fetch("ads")({"query": "coffee", "country": "US"})
            >>> len(got.body["data"]["ads"]) > 0, got.from_cache
            (True, False)
        """
        return self.call(params, ledgers=ledgers)


def fetched_at(headers: Mapping[str, str], clock: Clock) -> datetime:
    """When the service answered: stamped on arrival (:data:`FETCHED_AT`) and kept with
    the cached copy; ``clock``'s now where a page has no readable stamp.

    Args:
        headers: A response's (case-insensitive) or a stored page's (in lower case).
        clock: The client's clock.
    """
    return instant(headers.get(FETCHED_AT.lower())) or clock.now()
