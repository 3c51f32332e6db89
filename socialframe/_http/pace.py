"""How fast a client sends: its rate limit, and one cooldown after a 429.

Both apply where a request really goes out (the transport's :class:`Guard`),
so a page answered from the cache never waits. Shared by every worker of a
client:

- ``rate_limit`` (calls per second, or ``"300/min"``): pyrate-limiter's
  leaky bucket, chosen over ``limits`` because it blocks until a permit is free
  (``limits`` only answers yes / no, the waiting would be ours to write) and
  its buckets are thread-safe;
- a 429 with ``Retry-After`` pauses every worker of the client until it has
  passed (one cooldown), instead of each worker meeting its own 429;
- with a team cache (Redis), the bucket lives in the same Redis, so all the
  machines of a team share one limit.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from pyrate_limiter import Limiter, Rate, RedisBucket

from .._checks import RateLimit, parse_rate
from .._clock import SYSTEM_CLOCK
from .._errors import NetworkError

if TYPE_CHECKING:
    from .._clock import Clock


class Pacer:
    """Waits before each request that goes out: the rate limit, then any cooldown.

    Args:
        rate_limit: See :data:`RateLimit`.
        clock: Sleeps the cooldown (the rate limit keeps real time).
    """

    def __init__(self, rate_limit: RateLimit, clock: Clock) -> None:
        self.rate = parse_rate(rate_limit)
        self.clock = clock
        self._lock = threading.Lock()
        self._until = 0.0  # monotonic time the cooldown ends
        self._limiter: Any = None
        self._shared: Any = None  # the limiter whose bucket is in the team's Redis
        self.notice = ""  # why the shared limit was given up, said once by the client
        if self.rate is not None:
            self._limiter = self._local()

    def _local(self) -> Any:

        assert self.rate is not None
        return Limiter(Rate(self.rate[0], self.rate[1]))

    def share(self, redis: Any) -> None:
        """Keep the rate limit's bucket in the team cache's Redis: one limit for every
        machine of the team (with the same ``rate_limit``)."""
        if self.rate is None:
            return

        key = f"socialframe:rate:{self.rate[0]}/{self.rate[1]}ms"
        try:
            bucket = _quiet_bucket().init([Rate(self.rate[0], self.rate[1])], redis, key)
        except Exception as exc:
            if not _from_redis(exc):
                raise
            self.notice = _refusal(exc)
            return
        self._limiter = self._shared = Limiter(bucket)

    def _give_up_sharing(self, shared: Any, exc: BaseException) -> None:
        """The team's Redis refused the bucket: pace this client alone, at the same rate.

        Workers that met the refusal at once all come here: the first one swaps in
        one local limiter (and the notice), the others find it already done.
        """
        with self._lock:
            if self._limiter is not shared:
                return
            self._limiter = self._local()
            self.notice = _refusal(exc)

    def pause(self, seconds: float) -> None:
        """Hold every request of the client for ``seconds`` from now (a 429's Retry-After)."""
        with self._lock:
            self._until = max(self._until, self.clock.monotonic() + seconds)

    def wait(self, stop: threading.Event | None = None) -> None:
        """Block until this request may go: the cooldown passed and a permit is free.

        Args:
            stop: Set when the run is interrupted: the cooldown ends at once (on the
                system clock) and no permit is taken.
        """

        while True:
            with self._lock:
                left = self._until - self.clock.monotonic()
            if left <= 0 or (stop is not None and stop.is_set()):
                break
            if stop is not None and self.clock is SYSTEM_CLOCK:
                stop.wait(left)
            else:
                self.clock.sleep(left)
        if stop is not None and stop.is_set():
            return
        limiter = self._limiter
        if limiter is None:
            return
        try:
            limiter.try_acquire("socialframe")
        except Exception as exc:
            # A raw Redis error here would lose the pages paid so far (no retry,
            # no .partial): the limit goes on locally, and the client says so.
            if not (limiter is self._shared and _from_redis(exc)):
                raise
            self._give_up_sharing(limiter, exc)
            self._limiter.try_acquire("socialframe")

    def take_notice(self) -> str:
        """What went wrong with the shared limit since the last call ("" if nothing)."""
        with self._lock:
            notice, self.notice = self.notice, ""
            return notice


def _quiet_bucket() -> Any:
    """pyrate-limiter's Redis bucket, whose background leaking never raises.

    pyrate-limiter leaks its buckets from a thread of its own ("PyrateLimiter's
    Leaker"); a Redis that stopped answering made that thread die with a traceback
    printed to standard error. Leaking is housekeeping (the next permit leaks what
    is due anyway): a failed one is skipped, and the failure is met, and said once,
    where a permit is taken (:meth:`Pacer.wait`).
    """

    class QuietBucket(RedisBucket):
        def now(self) -> Any:
            try:
                return super().now()  # type: ignore[no-untyped-call]
            except Exception:
                return int(time.time() * 1000)

        def leak(self, current_timestamp: int | None = None) -> Any:
            try:
                return super().leak(current_timestamp)
            except Exception:
                return 0

    return QuietBucket


def _refusal(exc: BaseException) -> str:
    return (
        f"the team cache's Redis refused the shared rate limit ({type(exc).__name__}):"
        " this client keeps rate_limit on its own, so other machines' calls no longer"
        " count against it"
    )


def _from_redis(exc: BaseException) -> bool:
    """The team cache's failures: the guarded connection's ``NetworkError`` (every command
    goes through it; the bucket sends nothing else), or redis-py's own (one raised
    outside a command; known by its module: redis-py loads only for a team cache)."""
    return isinstance(exc, NetworkError) or type(exc).__module__.split(".")[0] == "redis"
