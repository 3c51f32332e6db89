"""Time as the client and the sandbox see it: a wall clock, a monotonic clock, sleep.

Injected (``sf.Client(clock=...)``, ``Sandbox(clock=...)``) so that retries,
``Retry-After`` waits and rate limits are tested in milliseconds:
:class:`ManualClock` jumps forward when slept on instead of waiting.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


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
        self._start = start or datetime(2026, 1, 1, tzinfo=UTC)
        if self._start.tzinfo is None:
            raise ValueError("start must be tz-aware")
        self._elapsed = 0.0
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

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
