"""What an answer of the service means (``_http/answers.py``): a status and a body
mapped to the library's error, and how the ledger counts it.

Through the public client with an in-process transport (the whole call path: requests,
the guard, the caller's tries), and the map itself on real ``requests`` responses.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

import socialframe as sf
from socialframe._http import answers
from socialframe.sandbox import ManualClock

KEY = "sk-answers-0123456789"


def _client(*replies: Any, **kwargs: Any) -> tuple[sf.Client, list[requests.PreparedRequest]]:
    """A client whose service gives ``replies`` in order (an in-process transport)."""
    seen: list[requests.PreparedRequest] = []

    def handler(request: requests.PreparedRequest) -> Any:
        seen.append(request)
        return replies[len(seen) - 1]

    kwargs.setdefault("cache", False)
    kwargs.setdefault("clock", ManualClock())
    client = sf.Client(
        KEY, base_url="https://api.example", transport=sf.MockTransport(handler), **kwargs
    )
    return client, seen


def _response(status: int, body: Any, headers: dict[str, str] | None = None) -> requests.Response:
    """A real response as requests builds it, its body read."""
    transport = sf.MockTransport(lambda request: (status, body, headers or {}))
    return transport.send(requests.Request("GET", "https://api.example/x").prepare())


@pytest.mark.parametrize(
    ("answer", "error", "status", "retried"),
    [
        ((400, {"message": "bad urn"}), sf.BadRequestError, 400, False),
        ((401, {"message": "Invalid API key"}), sf.AuthError, 401, False),
        ((403, {"message": "forbidden"}), sf.AuthError, 403, False),
        ((404, {"message": "Endpoint does not exist"}), sf.APIError, 404, False),
        ((307, b"", {"Location": "https://elsewhere.example/x"}), sf.APIError, 307, False),
        ((500, {"message": "oops"}), sf.ServerError, 500, True),
        ((502, "<html>bad gateway</html>"), sf.ServerError, 502, True),
        ((200, {"success": False, "message": "not charged"}), sf.ServerError, 200, True),
        ((429, {"message": "slow"}), sf.RateLimitError, 429, True),
    ],
)
def test_status_to_error(answer: Any, error: type[sf.APIError], status: int, retried: bool) -> None:
    c, seen = _client(*[answer] * 3, max_retries=2)
    with c, pytest.raises(error) as info:
        c.post_comments("1")
    assert type(info.value) is error and info.value.status_code == status
    assert info.value.operation == "comments" and len(seen) == (3 if retried else 1)
    assert (c.ledger.paid_calls, c.ledger.failed_calls) == (0, len(seen))
    assert info.value.partial is not None and info.value.partial.empty


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"data": 3, "totalPage": 1}'])
def test_a_200_that_is_not_the_documented_shape_is_paid_and_a_schema_error(body: bytes) -> None:
    c, seen = _client((200, body))
    with c, pytest.raises(sf.SchemaError):
        c.post_comments("1")
    assert (c.ledger.paid_calls, len(seen)) == (1, 1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("3", 3.0),
        ("0.5", 0.5),
        ("soon", None),
        ("", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
        ("Wed, 21 Oct 2015 07:28:00 -0000", 0.0),
    ],
)
def test_retry_after_forms(header: str, expected: float | None) -> None:
    c, _ = _client((429, {}, {"Retry-After": header}), max_retries=0)
    with c, pytest.raises(sf.RateLimitError) as info:
        c.post_comments("1")
    assert info.value.retry_after == expected


@pytest.mark.parametrize(
    ("status", "body", "error", "outcome"),
    [
        (200, {"success": False, "message": "m"}, sf.ServerError, "failed"),
        (200, b"[1]", sf.SchemaError, "paid"),  # charged: the service answered a 200
        (200, b"not json", sf.SchemaError, "paid"),
        (400, {"message": "m"}, sf.BadRequestError, "failed"),
        (401, {"error": "m"}, sf.AuthError, "failed"),
        (403, {}, sf.AuthError, "failed"),
        (301, b"", sf.APIError, "failed"),
        (404, "gone", sf.APIError, "failed"),
        (418, {}, sf.APIError, "failed"),
        (429, {}, sf.RateLimitError, "failed"),
        (503, {}, sf.ServerError, "failed"),
    ],
)
def test_each_status_maps_to_one_error_and_one_outcome(
    status: int, body: Any, error: type[sf.SocialFrameError], outcome: str
) -> None:
    said, counted = answers.failure("ads", _response(status, body), str)
    assert type(said) is error and counted == outcome


def test_the_message_the_location_and_a_non_json_body_are_scrubbed() -> None:
    def scrub(text: str) -> str:
        return text.replace(KEY, "***")

    said, _ = answers.failure("ads", _response(400, {"message": f"bad key {KEY}"}), scrub)
    assert KEY not in str(said) and "***" in str(said)
    moved = _response(302, b"", {"Location": f"https://x.example/?k={KEY}"})
    said, _ = answers.failure("ads", moved, scrub)
    assert KEY not in str(said) and "set base_url to the final URL" in str(said)
    said, _ = answers.failure("ads", _response(200, f"<p>{KEY}</p>".encode()), scrub)
    assert KEY not in str(said)


def test_a_paid_page_is_a_200_object_that_is_not_success_false() -> None:
    assert answers.is_paid_page(_response(200, {"data": {"ads": []}}))
    assert answers.is_paid_page(_response(200, {"success": True, "data": []}))
    assert not answers.is_paid_page(_response(200, {"success": False}))
    assert not answers.is_paid_page(_response(200, b"[]"))
    assert not answers.is_paid_page(_response(500, {"success": True}))


def _cut(head: bytes) -> sf.Ledger:
    """The ledger of one call whose body broke after ``head``: its Content-Length says
    more than comes, so the transport hands the body over cut short, as a dropped
    connection does."""
    c, _ = _client((200, head, {"Content-Length": str(len(head) + 100)}), max_retries=0)
    with c, pytest.raises(sf.NetworkError, match=r"HTTP 200: the body broke"):
        c.post_comments("1")
    return c.ledger


def test_a_call_without_a_whole_answer_is_counted_by_what_came() -> None:
    assert answers.charged(requests.ConnectionError("refused")) == "failed"  # never sent
    assert answers.charged(requests.ReadTimeout("late")) == "unsure"  # sent: maybe charged
    # a body cut short, by what came of it: "paid", "failed", "unsure" (counted paid too)
    counted = [
        (ledger.paid_calls, ledger.failed_calls, ledger.unsure_calls)
        for ledger in map(_cut, [b'{"success": true, "da', b'{"success": false', b'{"succ'])
    ]
    assert counted == [(1, 0, 0), (0, 1, 0), (1, 0, 1)]
