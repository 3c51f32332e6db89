"""The client through its seam: an in-process transport and a manual clock.

Paging, retries (with Retry-After), budget and error mapping, each in
milliseconds: requests and requests-cache run as usual, but the service answers
in this process (``sandbox.client(in_process=True)`` or a ``MockTransport``
handler) and every wait jumps a :class:`ManualClock` forward. The autouse
fixture below makes any socket connection or real sleep fail the test, so these
tests cannot quietly fall back to the network or the wall clock. The same rules
are tested through real HTTP in test_client.py; the status -> error map and the retry
policy have their own files (tests/http/test_answers.py, tests/http/test_retry.py).
"""

from __future__ import annotations

import email.utils
import socket
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox

P82 = EXAMPLE_POSTS[82]
KEY = "sk-inprocess-0123456789"


@pytest.fixture(autouse=True)
def no_sockets_no_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a socket connection or a real sleep in an in-process test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(time, "sleep", refuse)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def sandbox(clock: ManualClock) -> Sandbox:
    return Sandbox(seed=0, clock=clock)  # never started: no port, no thread


@pytest.fixture
def client(sandbox: Sandbox, tmp_path: Path) -> Iterator[sf.Client]:
    with sandbox.client(in_process=True, cache=tmp_path / "c.sqlite", progress=False) as c:
        yield c


def sent(sandbox: Sandbox) -> list[dict[str, str]]:
    return [dict(r.params) for r in sandbox.requests]


def test_the_fixture_refuses_sockets_and_sleeps() -> None:
    with pytest.raises(AssertionError, match="socket"):
        time.sleep(0.01)
    with pytest.raises(AssertionError, match="socket"):
        socket.create_connection(("127.0.0.1", 9))


# -- paging ----------------------------------------------------------------------------


def test_comment_paging_follows_tokens_and_stops_at_total_page(
    sandbox: Sandbox, client: sf.Client
) -> None:
    df = client.post_comments(P82)
    assert len(df) == 82 and df["page"].tolist() == [1] * 50 + [2] * 32
    first, second = sent(sandbox)
    assert first == {"urn": P82, "sort": "mostRelevant", "page": "1"}
    assert second["page"] == "2" and second["paginationToken"]
    assert (client.ledger.paid_calls, sandbox.charges) == (2, 2)
    assert (df["fetched_at"] == pd.Timestamp("2026-01-01", tz="UTC")).all()  # the clock's time


def test_ad_paging_stops_on_a_repeated_page_and_at_max_ads(
    sandbox: Sandbox, client: sf.Client
) -> None:
    assert len(client.search_ads("running shoes")) == 130 and sandbox.charges == 7
    assert len(client.search_ads("for kids", max_ads=30)) == 30 and sandbox.charges == 7 + 2


def test_second_run_comes_from_the_cache(sandbox: Sandbox, client: sf.Client) -> None:
    first = client.post_comments(P82)
    again = client.post_comments(P82)
    pd.testing.assert_frame_equal(first, again)
    assert (client.ledger.paid_calls, client.ledger.cached_calls, sandbox.charges) == (2, 2, 2)


# -- retries -----------------------------------------------------------------------------


def test_transient_failures_are_retried_with_backoff_and_free(
    sandbox: Sandbox, client: sf.Client, clock: ManualClock
) -> None:
    sandbox.inject(503, "success_false", 429, "bad_gateway")
    assert len(client.post_comments(P82)) == 82
    assert (client.ledger.paid_calls, client.ledger.failed_calls, sandbox.charges) == (2, 4, 2)
    # backoff=1.0: 1, 2, 4, 8 s (+ up to 1 s of jitter); the 429 waits at least its Retry-After.
    assert len(clock.sleeps) == 4
    for attempt, wait in enumerate(clock.sleeps):
        assert 2**attempt <= wait <= 2**attempt + 1


def test_rate_limit_waits_for_retry_after(clock: ManualClock, tmp_path: Path) -> None:
    sandbox = Sandbox(rate_limit=2, clock=clock)
    with sandbox.client(in_process=True, cache=False, backoff=0.01) as c:
        assert len(c.search_ads("running shoes")) == 130
    statuses = [r.status for r in sandbox.requests]
    assert statuses.count(200) == 7 and statuses.count(429) == c.ledger.failed_calls > 0
    assert all(wait >= 1.0 for wait in clock.sleeps)  # Retry-After: 1, not the 10 ms backoff
    assert clock.monotonic() >= 3.0  # 7 calls at 2 per second


def test_rate_limit_error_after_retries_carries_retry_after(
    sandbox: Sandbox, clock: ManualClock
) -> None:
    sandbox.inject(429, 429)
    c = sandbox.client(in_process=True, cache=False, max_retries=1)
    with c, pytest.raises(sf.RateLimitError) as info:
        c.post_comments(P82)
    assert info.value.retry_after == 1.0 and len(sandbox.requests) == 2
    assert clock.sleeps[0] >= 1.0 and c.ledger.failed_calls == 2


def service(*answers: Any) -> tuple[sf.MockTransport, list[requests.PreparedRequest]]:
    """A MockTransport answering ``answers`` in order, recording the requests."""
    seen: list[requests.PreparedRequest] = []

    def handler(request: requests.PreparedRequest) -> Any:
        seen.append(request)
        answer = answers[len(seen) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return sf.MockTransport(handler), seen


def page(n: int = 1, total: int = 1) -> dict[str, object]:
    data = [{"text": f"c{n}", "author": {"name": "Ada", "id": "1"}, "createdAt": 1760584641073}]
    return {"success": True, "data": data, "totalPage": total, "paginationToken": f"t{n}"}


def mock_client(transport: sf.MockTransport, clock: ManualClock, **kwargs: Any) -> sf.Client:
    kwargs.setdefault("cache", False)
    return sf.Client(
        KEY, base_url="https://api.example", transport=transport, clock=clock, **kwargs
    )


def test_retry_after_as_an_http_date_counts_from_the_clients_clock(clock: ManualClock) -> None:
    when = email.utils.format_datetime(clock.now() + timedelta(seconds=30), usegmt=True)
    transport, seen = service((429, {"message": "slow"}, {"Retry-After": when}), (200, page()))
    with mock_client(transport, clock) as c:
        assert len(c.post_comments("1")) == 1
    # 30 s by the injected clock (by the real one that date is long past: 0 s).
    assert len(seen) == 2 and 29 <= clock.sleeps[0] <= 31


def test_exhausted_retries_raise_with_partial(clock: ManualClock) -> None:
    transport, seen = service((200, page(1, 2)), (503, {}), (503, {}), (503, {}))
    with mock_client(transport, clock, max_retries=2) as c, pytest.raises(sf.ServerError) as info:
        c.post_comments("1")
    assert info.value.status_code == 503 and len(seen) == 4
    assert info.value.partial is not None and info.value.partial["text"].tolist() == ["c1"]
    assert (c.ledger.paid_calls, c.ledger.failed_calls) == (1, 3)


def test_network_failures_are_retried_then_network_error(clock: ManualClock) -> None:
    down = requests.ConnectionError(f"refused (key {KEY})")
    transport, seen = service(down, down, (200, page()))
    with mock_client(transport, clock) as c:
        assert len(c.post_comments("1")) == 1
    transport, seen = service(down, down)
    with mock_client(transport, clock, max_retries=1) as c, pytest.raises(sf.NetworkError) as info:
        c.post_comments("1")
    assert KEY not in str(info.value) and c.ledger.failed_calls == 2


# -- budget ------------------------------------------------------------------------------


def test_budget_refuses_before_sending(sandbox: Sandbox, tmp_path: Path) -> None:
    with (
        sandbox.client(in_process=True, cache=tmp_path / "b.sqlite", max_cost=0.03) as c,
        pytest.raises(sf.BudgetExceededError) as info,
    ):
        c.post_comments(EXAMPLE_POSTS[2345])
    err = info.value
    assert err.partial is not None and len(err.partial) == 150
    assert (err.max_cost, err.spent_usd, sandbox.charges, len(sandbox.requests)) == (
        0.03,
        0.03,
        3,
        3,
    )
    with (
        sandbox.client(in_process=True, cache=tmp_path / "b.sqlite", max_cost=0) as broke,
        pytest.raises(sf.BudgetExceededError) as info,
    ):
        broke.post_comments(EXAMPLE_POSTS[2345])  # the 3 cached pages are still served
    assert len(info.value.partial) == 150 and broke.ledger.cached_calls == 3  # type: ignore[arg-type]
    assert sandbox.charges == 3


def test_a_budget_stop_in_a_list_hands_back_every_item_so_far(sandbox: Sandbox) -> None:
    with (
        # One worker: with several, which post gets the third cent is a race (1 run in 6
        # gave {82: 50, 51: 51}); the point here is that every item so far comes back.
        sandbox.client(in_process=True, cache=False, max_cost=0.03, workers=1) as c,
        pytest.raises(sf.BudgetExceededError) as info,
    ):
        c.post_comments([EXAMPLE_POSTS[82], EXAMPLE_POSTS[51]])
    partial = info.value.partial
    assert partial is not None and partial["post"].value_counts().to_dict() == {
        EXAMPLE_POSTS[82]: 82,
        EXAMPLE_POSTS[51]: 50,
    }


# -- the key in errors ---------------------------------------------------------------------


def test_the_key_goes_in_the_header_and_nowhere_else(clock: ManualClock) -> None:
    transport, seen = service((401, {"message": f"bad key {KEY}"}))
    with (
        mock_client(transport, clock, auth_header="X-RapidAPI-Key") as c,
        pytest.raises(sf.AuthError) as info,
    ):
        c.search_ads("coffee")
        assert KEY not in repr(c)
    assert seen[0].headers["X-RapidAPI-Key"] == KEY and "Authorization" not in seen[0].headers
    assert KEY not in str(info.value) and "***" in str(info.value)


# -- the transport forms -------------------------------------------------------------------


def test_a_plain_function_is_a_transport(clock: ManualClock) -> None:
    def handler(request: requests.PreparedRequest) -> Any:
        return 200, page()

    with sf.Client(KEY, base_url="https://api.example", transport=handler, cache=False) as c:
        assert c.post_comments("1")["text"].tolist() == ["c1"]


def test_a_handler_may_return_a_requests_response(clock: ManualClock) -> None:
    def handler(request: requests.PreparedRequest) -> requests.Response:
        response = requests.Response()
        response.status_code = 200
        response._content = b'{"success": true, "data": [], "totalPage": 1}'
        response.headers["Content-Type"] = "application/json"
        return response

    with mock_client(sf.MockTransport(handler), clock) as c:
        assert c.post_comments("1").empty and c.ledger.paid_calls == 1


def test_mock_pages_are_cached_like_network_pages(clock: ManualClock, tmp_path: Path) -> None:
    transport, seen = service((200, page()))
    with mock_client(transport, clock, cache=tmp_path / "m.sqlite") as c:
        first = c.post_comments("1")
        again = c.post_comments("1")
    pd.testing.assert_frame_equal(first, again)
    assert len(seen) == 1 and c.ledger.cached_calls == 1
    with pytest.raises(TypeError, match="transport"):
        sf.Client(KEY, base_url="https://api.example", transport=3)  # type: ignore[arg-type]


# -- the key never rides along ------------------------------------------------------------


def _everything_reachable(error: BaseException) -> str:
    """The error as a thorough crash reporter would render it: message, attributes,
    its whole context / cause chain, and every frame's local variables."""
    import traceback

    rendered = traceback.TracebackException.from_exception(error, capture_locals=True)
    return "".join(rendered.format()) + repr(vars(error))


def test_a_key_cut_by_the_message_limit_is_still_scrubbed(clock: ManualClock) -> None:
    body = ("x" * 190 + KEY).encode()  # the key straddles the 200-character cut
    transport, _ = service((500, body))
    with mock_client(transport, clock, max_retries=0) as c, pytest.raises(sf.ServerError) as info:
        c.post_comments("1")
    assert KEY[:6] not in str(info.value) and str(info.value).endswith("***")


@pytest.mark.parametrize("items", ["1", ["1", "2"]])
def test_a_network_error_keeps_no_request(clock: ManualClock, items: object) -> None:
    def down(request: requests.PreparedRequest) -> Any:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        raise requests.ConnectionError("refused", request=request)

    def fetch() -> None:  # the key lives only inside the client, as in user code
        with mock_client(sf.MockTransport(down), clock, max_retries=1) as c:
            c.post_comments(items)  # type: ignore[arg-type]

    with pytest.raises(sf.NetworkError) as info:
        fetch()
    assert info.value.__context__ is None and info.value.__cause__ is None
    assert KEY not in _everything_reachable(info.value)


def test_an_api_error_keeps_no_key(clock: ManualClock) -> None:
    transport, _ = service((400, {"message": f"bad request with {KEY}"}))

    def fetch() -> None:
        with mock_client(transport, clock, workers=1) as c:  # the script answers once
            c.search_ads(["coffee", "tea"])

    with pytest.raises(sf.BadRequestError) as info:
        fetch()
    assert KEY not in _everything_reachable(info.value)
