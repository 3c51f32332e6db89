"""One call, as a frozen value: what the client asks the caller for."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .._ledger import Ledger, Ledgers


@dataclass(frozen=True, eq=False)
class Call:
    """One GET of one page of an operation, and what of its run it carries.

    Attributes:
        operation: The operation's name (its record says which base URL serves it).
        path: The path under that base URL.
        params: The query.
        ledger: Counts the call and holds its budget: the client's, or the client's and
            a run's own (:class:`~socialframe._ledger.Ledgers`: a study's refresh has its
            budget, and counts each item's paid calls).
        stop: The run's: once set (the user interrupted it), nothing more is sent,
            whatever the call was waiting for (the budget, the rate limit, a
            cooldown): Ctrl-C reaches the main thread only, and workers would go on.
        authors: The run's too: the author texts of the comment pages read from the
            cache so far, parsed once each.
        fresh_after: A cached page fetched before this time does not count: it is
            fetched again and stored in its place (a study's refresh asks so for the
            pages that may hold what is new).
    """

    operation: str
    path: str
    params: Mapping[str, str]
    ledger: Ledger | Ledgers
    stop: threading.Event | None = None
    authors: dict[bytes, Any] | None = field(default=None, repr=False)
    fresh_after: datetime | None = None
