"""Time as the client and the sandbox see it: a wall clock, a monotonic clock, sleep.

Injected (``sf.Client(clock=...)``, ``Sandbox(clock=...)``) so that retries,
``Retry-After`` waits and rate limits are tested in milliseconds:
:class:`ManualClock` jumps forward when slept on instead of waiting.
:class:`PinnedClock` holds the wall clock still (the sandbox's world is a function
of it) while waits stay real.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

START = datetime(2026, 1, 1, tzinfo=UTC)
"""Where :class:`ManualClock` and :class:`PinnedClock` start by default: the
sandbox's reference date, at which its world is the one its docs describe."""


@runtime_checkable
class Clock(Protocol):
    """What socialframe asks of a clock (the type of ``sf.Client(clock=...)``).

    Example:
        >>> import socialframe as sf
        >>> from socialframe.sandbox import ManualClock
        >>> isinstance(ManualClock(), sf.Clock)
        True
    """

    def now(self) -> datetime:
        """The wall-clock time.

        Returns:
            A tz-aware datetime.

        Example:
            >>> from socialframe.sandbox import ManualClock
            >>> ManualClock().now().isoformat()
            '2026-01-01T00:00:00+00:00'
        """
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (for waits and rate limits).

        Returns:
            Seconds from an arbitrary start.

        Example:
            >>> from socialframe.sandbox import ManualClock
            >>> ManualClock().monotonic()
            0.0
        """
        ...

    def sleep(self, seconds: float) -> None:
        """Wait.

        Args:
            seconds: How long.

        Example:
            >>> from socialframe.sandbox import ManualClock
            >>> clock = ManualClock()
            >>> clock.sleep(2)
            >>> clock.monotonic()
            2.0
        """
        ...


class SystemClock:
    """The real clocks and a real sleep."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


SYSTEM_CLOCK = SystemClock()


class ManualClock:
    """A clock that only moves when slept on (or advanced): waits cost no time.

    Thread-safe. Every ``sleep`` is recorded in :attr:`sleeps`, so a test can
    assert how long code *would* have waited.

    Args:
        start: The wall-clock time at the start (tz-aware); 2026-01-01 UTC by default.

    Example:
        >>> clock = ManualClock()
        >>> clock.sleep(1.5)
        >>> clock.monotonic(), clock.sleeps, clock.now().isoformat()
        (1.5, [1.5], '2026-01-01T00:00:01.500000+00:00')
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._start = start or START
        if self._start.tzinfo is None:
            raise ValueError("start must be tz-aware")
        self._elapsed = 0.0
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    @property
    def start(self) -> datetime:
        """Where the clock started, whatever it has moved since (a sandbox names its
        world by it: see :attr:`socialframe.sandbox.Sandbox.world`).

        Example:
            >>> clock = ManualClock()
            >>> clock.advance(60)
            >>> clock.start.isoformat()
            '2026-01-01T00:00:00+00:00'
        """
        return self._start

    def now(self) -> datetime:
        """The start time plus the time slept and advanced.

        Returns:
            A tz-aware datetime.

        Example:
            >>> clock = ManualClock()
            >>> clock.advance(60)
            >>> clock.now().isoformat()
            '2026-01-01T00:01:00+00:00'
        """
        with self._lock:
            return self._start + timedelta(seconds=self._elapsed)

    def monotonic(self) -> float:
        """Seconds slept and advanced so far.

        Returns:
            The seconds.

        Example:
            >>> clock = ManualClock()
            >>> clock.sleep(0.5); clock.advance(1)
            >>> clock.monotonic()
            1.5
        """
        with self._lock:
            return self._elapsed

    def sleep(self, seconds: float) -> None:
        """Jump forward ``seconds`` at once, and record the sleep.

        Args:
            seconds: How long the caller would have waited (a negative one moves
                nothing but is recorded).

        Example:
            >>> clock = ManualClock()
            >>> clock.sleep(3)
            >>> clock.sleeps, clock.monotonic()
            ([3], 3.0)
        """
        with self._lock:
            self.sleeps.append(seconds)
            self._elapsed += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        """Move time forward without recording a sleep.

        Args:
            seconds: How far.

        Example:
            >>> clock = ManualClock()
            >>> clock.advance(10)
            >>> clock.sleeps, clock.monotonic()
            ([], 10.0)
        """
        with self._lock:
            self._elapsed += max(0.0, seconds)

    def __repr__(self) -> str:
        return f"ManualClock(now={self.now().isoformat()!r})"


class PinnedClock:
    """A wall clock that stands still where you pin it; waits and timers stay real.

    ``now()`` shows ``at`` (2026-01-01 UTC by default, the sandbox's reference
    date) plus what :meth:`advance` added, whatever the time; ``monotonic()`` and
    ``sleep()`` are the system's. Give it to a sandbox to fix the date its world
    shows (its comments and ads) while its rate limit, ``Retry-After`` and latency
    take real time, as they must for a client on the other side of a socket.
    (A :class:`ManualClock` pins the date too, but its time moves only when slept
    on: a sandbox's rate limit over HTTP would then never let up.)

    Thread-safe.

    Args:
        at: The date to show (tz-aware); 2026-01-01 UTC by default.

    Raises:
        ValueError: ``at`` is naive (no time zone).

    Example:
        >>> from datetime import datetime, UTC
        >>> clock = PinnedClock()
        >>> clock.now().isoformat()
        '2026-01-01T00:00:00+00:00'
        >>> clock.advance(7 * 86_400)  # a week later, at once
        >>> clock.now().isoformat()
        '2026-01-08T00:00:00+00:00'
        >>> PinnedClock(datetime(2026, 3, 1, tzinfo=UTC)).now().isoformat()
        '2026-03-01T00:00:00+00:00'
    """

    def __init__(self, at: datetime | None = None) -> None:
        if at is not None and at.tzinfo is None:
            raise ValueError("at must be tz-aware, e.g. datetime(2026, 1, 1, tzinfo=UTC)")
        self._at = at or START
        self._start = self._at
        self._lock = threading.Lock()

    @property
    def start(self) -> datetime:
        """The date it was pinned to, whatever :meth:`advance` added since (a sandbox
        names its world by it: see :attr:`socialframe.sandbox.Sandbox.world`).

        Example:
            >>> clock = PinnedClock()
            >>> clock.advance(3600)
            >>> clock.start.isoformat()
            '2026-01-01T00:00:00+00:00'
        """
        return self._start

    def now(self) -> datetime:
        """The pinned date plus what :meth:`advance` added; it does not run.

        Returns:
            A tz-aware datetime.

        Example:
            >>> clock = PinnedClock()
            >>> clock.sleep(0.01)  # a real wait...
            >>> clock.now().isoformat()  # ...and the date has not moved
            '2026-01-01T00:00:00+00:00'
        """
        with self._lock:
            return self._at

    def monotonic(self) -> float:
        """The system's monotonic clock, in seconds.

        Returns:
            ``time.monotonic()``.

        Example:
            >>> clock = PinnedClock()
            >>> before = clock.monotonic(); clock.sleep(0.01)
            >>> clock.monotonic() > before
            True
        """
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Wait for real (``time.sleep``); the date does not move.

        Args:
            seconds: How long.

        Example:
            >>> PinnedClock().sleep(0.01)
        """
        time.sleep(seconds)

    def advance(self, seconds: float) -> None:
        """Move the date forward by ``seconds``, at once.

        Args:
            seconds: How far, 0 or more.

        Raises:
            ValueError: ``seconds`` is negative (a clock does not go back: pin a
                new one at the earlier date).

        Example:
            >>> clock = PinnedClock()
            >>> clock.advance(3600)
            >>> clock.now().isoformat()
            '2026-01-01T01:00:00+00:00'
        """
        if not seconds >= 0:
            raise ValueError(f"seconds must be >= 0, got {seconds}: pin a new clock to go back")
        with self._lock:
            self._at += timedelta(seconds=seconds)

    def __repr__(self) -> str:
        return f"PinnedClock(now={self.now().isoformat()!r})"
