"""The retry policy: which failures are tried again, how long to wait between tries,
and the deadlines a call's waits are bounded by.

Retried (with exponential backoff and jitter, by tenacity): a 429 (waiting at least
its ``Retry-After``, and not at all past :data:`MAX_RETRY_AFTER`), a 5xx or an HTTP
200 ``success: false``, and a network failure that may pass (not a body over the cap,
nor a host name that does not exist). 400, 401, 403 and the rest are final.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import tenacity

from .._errors import NetworkError, RateLimitError, ServerError

MAX_BACKOFF: Final = 30.0  # seconds between two tries, at most
MAX_RETRY_AFTER: Final = 120.0  # a longer Retry-After is not waited for


def retryable(exc: BaseException) -> bool:
    """Whether a call that failed with ``exc`` is tried again.

    Example:
        >>> from socialframe import AuthError, RateLimitError
        >>> retryable(RateLimitError(429, "", retry_after=5.0)), retryable(AuthError(401, ""))
        (True, False)
    """
    if isinstance(exc, RateLimitError):
        return exc.retry_after is None or exc.retry_after <= MAX_RETRY_AFTER
    if isinstance(exc, NetworkError):
        return exc.retryable
    return isinstance(exc, ServerError)


def waits_out(wait: float | None) -> bool:
    """Whether a 429's ``Retry-After`` of ``wait`` seconds is waited for (by every worker
    of the client: the pace pauses)."""
    return wait is not None and wait <= MAX_RETRY_AFTER


class Wait(tenacity.wait.wait_base):
    """Exponential backoff with jitter, and never less than a 429's Retry-After."""

    def __init__(self, backoff: float) -> None:
        self._exp = tenacity.wait_exponential(
            multiplier=backoff, max=MAX_BACKOFF
        ) + tenacity.wait_random(0, backoff)

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        wait = float(self._exp(retry_state))
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(exc, RateLimitError) and exc.retry_after is not None:
            wait = max(wait, exc.retry_after)
        return wait


@dataclass(frozen=True)
class RetryPolicy:
    """How often a call is tried, how long between tries, and its deadlines.

    Attributes:
        max_retries: Tries after the first.
        backoff: Seconds the backoff starts from (doubling, plus up to as much jitter).
        timeout: Seconds one try may take, connect to last byte.

    Example:
        >>> policy = RetryPolicy(max_retries=4, backoff=1.0, timeout=60.0)
        >>> policy.page_wait, policy.budget_wait
        (120.0, 240.0)
    """

    max_retries: int
    backoff: float
    timeout: float

    @property
    def page_wait(self) -> float:
        """Seconds a call waits for another process's fetch of its page: that one may take
        its whole deadline twice (a retry after a cooldown)."""
        return 2 * self.timeout

    @property
    def budget_wait(self) -> float:
        """Seconds a call waits for the calls in flight that hold the rest of the budget:
        one of them may take its whole deadline after a Retry-After cooldown."""
        return 2 * self.timeout + MAX_RETRY_AFTER

    def retrying(self, sleep: Callable[[float], None]) -> tenacity.Retrying:
        """The tenacity loop that runs one call's tries, sleeping on ``sleep`` (the
        client's clock)."""
        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=Wait(self.backoff),
            retry=tenacity.retry_if_exception(retryable),
            reraise=True,
            sleep=sleep,
        )
