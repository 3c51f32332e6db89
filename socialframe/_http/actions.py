"""What the cache does for one call, decided before anything is read or sent.

As in requests-cache's ``policy/actions.py`` (``CacheActions``): the decision is
made first, from the client's setting and the call's, into a small frozen value of
plain booleans; :mod:`.caller` then branches on them. Nothing here reads, sends or
counts.

- :class:`CacheActions`, once per call: read the cache first? hold the page's locks
  while it is fetched (one page, one payment)? read it again once the lock is held?
- :class:`SendActions`, once per try, when the budget has said whether it holds a
  cent for it: send, ask the cache only, send past the cache, or refuse.
- :func:`counts_as_fresh` and :func:`serves`: whether a page the cache holds may
  answer the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from .._frames.shape import problem

#: How far past the clock's now a cached page's stamp may be and still count as fresh
#: (another process's clock a little ahead); further, it was stamped by a clock since
#: set back, and is as old as anything.
FRESH_SKEW: Final = timedelta(minutes=5)


@dataclass(frozen=True)
class CacheActions:
    """What the cache does for one call.

    Attributes:
        read_first: Answer from the cache when it holds the page (free), before any
            lock or budget.
        lock_page: Hold the page's locks (threads; processes, through lock files beside
            a SQLite cache) while it is fetched: another call for it waits, then reads
            it from the cache.
        read_again: Once the lock is held, read the cache once more (a page that must be
            fetched anew may have been, by the call the lock waited for); the send
            itself goes past the cache.

    Example:
        >>> CacheActions.decide(cached=True, fresh=False)
        CacheActions(read_first=True, lock_page=True, read_again=False)
        >>> CacheActions.decide(cached=False, fresh=True)
        CacheActions(read_first=False, lock_page=False, read_again=False)
    """

    read_first: bool
    lock_page: bool
    read_again: bool

    @classmethod
    def decide(cls, *, cached: bool, fresh: bool) -> CacheActions:
        """The actions for a call.

        Args:
            cached: The client has a cache.
            fresh: The call wants pages fetched after a time (``fresh_after``).
        """
        return cls(read_first=cached, lock_page=cached, read_again=cached and fresh)


@dataclass(frozen=True)
class SendActions:
    """What one try of a call does, once the budget has answered.

    Attributes:
        refuse: Nothing may answer it: raise the refusal (offline: not in the cache;
            else the budget), nothing sent.
        only_if_cached: Ask the cache only (no budget for a paid call, or offline): a
            page it does not hold is refused, never sent.
        force_refresh: Send it whatever the cache holds, and store the answer in the
            page's place (a page fetched before ``fresh_after``).

    Example:
        >>> SendActions.decide(cached=True, fresh=False, held=False)
        SendActions(refuse=False, only_if_cached=True, force_refresh=False)
    """

    refuse: bool
    only_if_cached: bool
    force_refresh: bool

    @classmethod
    def decide(cls, *, cached: bool, fresh: bool, held: bool) -> SendActions:
        """The actions for a try.

        Args:
            cached: The client has a cache.
            fresh: The call wants a page fetched after a time: the cache's is too old
                to count, so it must be paid.
            held: The budget holds a cent for this try (never, offline).
        """
        if held:
            return cls(refuse=False, only_if_cached=False, force_refresh=cached and fresh)
        if cached and not fresh:
            return cls(refuse=False, only_if_cached=True, force_refresh=False)
        return cls(refuse=True, only_if_cached=False, force_refresh=False)

    def session_options(self) -> dict[str, Any]:
        """requests-cache's per-request options for these actions.

        Example:
            >>> SendActions.decide(cached=True, fresh=True, held=True).session_options()
            {'force_refresh': True}
        """
        options: dict[str, Any] = {}
        if self.only_if_cached:
            options["only_if_cached"] = True
        if self.force_refresh:
            options["force_refresh"] = True  # sent whatever the cache holds; stored anew
        return options


def counts_as_fresh(fetched_at: datetime, fresh_after: datetime | None, now: datetime) -> bool:
    """Whether a cached page fetched at ``fetched_at`` may answer a call that wants pages
    fetched at or after ``fresh_after`` (any, when None). A stamp later than ``now``
    (past :data:`FRESH_SKEW`: by a clock since set back) counts as old.

    Example:
        >>> from datetime import UTC, datetime
        >>> now = datetime(2026, 1, 2, tzinfo=UTC)
        >>> counts_as_fresh(datetime(2026, 1, 1, tzinfo=UTC), now, now)
        False
    """
    if fresh_after is None:
        return True
    return fresh_after <= fetched_at <= now + FRESH_SKEW


def serves(operation: str, status: int, body: Any) -> bool:
    """Whether a page the cache answered with is a page of ``operation``. One that is not
    (stored by an older version that did not check shapes, or by someone else) is
    dropped and fetched again, rather than fail every re-run from the cache.

    Example:
        >>> serves("ads", 500, None)
        False
    """
    return status == 200 and problem(operation, body) is None
