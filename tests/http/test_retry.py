"""The retry policy (``_http/retry.py``): which failures are tried again, how long a
client waits between tries, and the deadlines its waits are bounded by.

Through the public client with an in-process transport and a manual clock (every wait
recorded, none slept), and the policy's own rules.
"""

from __future__ import annotations

import email.utils
from typing import Any

import pytest
import requests
import tenacity

import socialframe as sf
from socialframe._http import retry
from socialframe.sandbox import ManualClock

PAGE = {"success": True, "data": [], "totalPage": 1}


def _client(clock: ManualClock, *replies: Any, **kwargs: Any) -> tuple[sf.Client, list[Any]]:
    seen: list[requests.PreparedRequest] = []

    def handler(request: requests.PreparedRequest) -> Any:
        seen.append(request)
        return replies[len(seen) - 1]

    client = sf.Client(
        "key",
        base_url="https://api.example",
        cache=False,
        clock=clock,
        transport=sf.MockTransport(handler),
        **kwargs,
    )
    return client, seen


def test_a_retry_after_beyond_two_minutes_is_not_waited_for() -> None:
    clock = ManualClock()
    c, seen = _client(clock, (429, {"message": "come back tomorrow"}, {"Retry-After": "86400"}))
    with c, pytest.raises(sf.RateLimitError) as info:
        c.post_comments("1")
    assert info.value.retry_after == 86400 and len(seen) == 1 and clock.sleeps == []


def test_retry_after_in_the_future_is_waited_for() -> None:
    clock = ManualClock()  # a date counts from the client's clock: exact seconds
    later = email.utils.formatdate(clock.now().timestamp() + 30, usegmt=True)
    c, seen = _client(clock, (429, {}, {"Retry-After": later}), (200, PAGE), max_retries=1)
    with c:
        assert c.post_comments("1").empty  # retried once the date came
    assert clock.sleeps == [30.0] and c.ledger.paid_calls == 1 and len(seen) == 2


def test_the_backoff_doubles_from_backoff_with_up_to_as_much_jitter() -> None:
    clock = ManualClock()
    c, seen = _client(clock, *[(503, {})] * 4, (200, PAGE), backoff=0.5)
    with c:
        assert c.post_comments("1").empty
    assert len(seen) == 5 and len(clock.sleeps) == 4
    for attempt, wait in enumerate(clock.sleeps):
        assert 0.5 * 2**attempt <= wait <= 0.5 * 2**attempt + 0.5


@pytest.mark.parametrize(
    ("error", "again"),
    [
        (sf.RateLimitError(429, "", retry_after=None), True),
        (sf.RateLimitError(429, "", retry_after=retry.MAX_RETRY_AFTER), True),
        (sf.RateLimitError(429, "", retry_after=retry.MAX_RETRY_AFTER + 1), False),
        (sf.ServerError(503, ""), True),
        (sf.ServerError(200, "success: false"), True),
        (sf.NetworkError("refused", retryable=True), True),
        (sf.NetworkError("no such host", retryable=False), False),
        (sf.BadRequestError(400, ""), False),
        (sf.AuthError(401, ""), False),
        (sf.APIError(404, ""), False),
        (sf.SchemaError("not a page"), False),
        (sf.BudgetExceededError("m", max_cost=0.0, spent_usd=0.0), False),
    ],
)
def test_which_failures_are_tried_again(error: BaseException, again: bool) -> None:
    assert retry.retryable(error) is again


def test_a_wait_is_never_shorter_than_a_retry_after_and_the_backoff_is_capped() -> None:
    def state(attempt: int, error: BaseException) -> tenacity.RetryCallState:
        retry_state = tenacity.RetryCallState(tenacity.Retrying(), fn=None, args=(), kwargs={})
        retry_state.attempt_number = attempt
        retry_state.set_exception((type(error), error, None))
        return retry_state

    assert retry.Wait(0.01)(state(1, sf.RateLimitError(429, "", retry_after=7.0))) == 7.0
    assert retry.Wait(1.0)(state(30, sf.ServerError(503, ""))) <= retry.MAX_BACKOFF + 1.0


def test_the_deadlines_follow_the_timeout() -> None:
    policy = retry.RetryPolicy(max_retries=2, backoff=1.0, timeout=10.0)
    assert policy.page_wait == 20.0  # another process's fetch: a try and a retry
    assert policy.budget_wait == 20.0 + retry.MAX_RETRY_AFTER  # and a cooldown between them
