"""What the sandbox answers, as data: route a request to its operation, build fault answers.

Pure: no sockets, no shared state. :mod:`socialframe.sandbox._sandbox` decides
*whether* a request gets through (auth, rate limit, faults); this module says what
the answer is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from . import _ads as ads
from . import _comments as comments
from ._common import BadParam

# Headers of successful answers: some real deployments send this Vary, and a
# cache keyed on it must still find the page again.
VARY = ("Vary", "Authorization, X-RapidAPI-Key")

ENVELOPES: dict[str, str] = {
    "success_false": "The request failed. You will not be charged for this request",
    "bad_gateway": "Bad gateway error. You will not be charged for this request",
}
"""The HTTP-200 failure envelopes, by the name :meth:`Sandbox.inject` takes."""

_MESSAGES: dict[int, str] = {
    400: "Bad request",
    401: "Invalid API key",
    404: "Endpoint does not exist",
    405: "Method not allowed",
    429: "Too many requests",
    500: "Internal server error",
    502: "Bad gateway",
    503: "Service unavailable",
    504: "Gateway timeout",
}

WIRE: dict[str, str] = {
    "truncated": "the body stops short of its Content-Length and the connection closes",
    "bad_chunk": "chunked transfer with a chunk size that is not hexadecimal",
    "bad_gzip": "Content-Encoding: gzip on bytes that are not gzip",
    "drip": "the body arrives one byte every DRIP_SECONDS",
    "drip_headers": "the status line and headers arrive one byte every DRIP_SECONDS",
    "vary_star": "the answer is sent with Vary: *",
}
"""Faults on the way to the client, by name: the service's real answer (charged,
as a sent 200 is), broken in transit. In-process, where there is no wire, every
one but ``vary_star`` is a body cut short."""

DRIP_SECONDS = 0.2

Fault = int | str | Mapping[str, Any] | tuple[str, Any]
"""A fault to serve: an HTTP status (4xx/5xx), a key of :data:`ENVELOPES` or of
:data:`WIRE`, a JSON object served as a charged HTTP 200 body (a hostile
body: ``{"data": None}``), or ``(wire, fault)``: that fault's answer broken in transit
by a :data:`WIRE` fault (``("truncated", "success_false")``: a failure envelope cut
short, not charged)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One HTTP answer before it is written.

    Attributes:
        status: The HTTP status.
        body: The JSON body.
        headers: Extra headers (Content-Type and Content-Length are always added).
        charged: Whether the real service would bill it (a 200 success).
        wire: A :data:`WIRE` fault to break it with on the way, or ``""``.
    """

    status: int
    body: Mapping[str, Any]
    headers: tuple[tuple[str, str], ...] = ()
    charged: bool = False
    wire: str = ""


def _bad_request(message: str) -> dict[str, Any]:
    return {"message": message}


class Route(NamedTuple):
    """How the sandbox answers one more operation: a seam for an operation socialframe
    does not ship yet (``Sandbox(routes={path: Route(...)})``), served with the same
    gates, faults, records and charges as the two it knows.

    Attributes:
        answer: ``answer(params, seed, now, faults) -> body``: the 200 body (charged)
            for the query parameters; raises :class:`~socialframe.sandbox.BadParam`
            for a parameter the service answers with HTTP 400.
        bad_request: ``bad_request(message) -> body``: the 400 body.

    Example:
        >>> from socialframe.sandbox import BadParam, Route, Sandbox
        >>> def echo(params, seed, now, faults):
        ...     if "q" not in params:
        ...         raise BadParam("q is required")
        ...     return {"success": True, "data": [params["q"]]}
        >>> sandbox = Sandbox(routes={"echo": Route(echo)})
        >>> with sandbox, __import__("requests").Session() as http:
        ...     got = http.get(f"{sandbox.url}/echo", params={"q": "hi"},
        ...                    headers={"Authorization": f"Bearer {sandbox.api_key}"})
        >>> got.json()["data"], sandbox.charges
        (['hi'], 1)
    """

    answer: Callable[[Mapping[str, str], int, datetime, bool], Mapping[str, Any]]
    bad_request: Callable[[str], Mapping[str, Any]] = _bad_request


OPERATIONS: dict[str, Route] = {
    "get-profile-posts-comments": Route(comments.comments_response, comments.error_body),
    "fetch_search_ads_pages": Route(ads.ads_body, ads.error_body),
}
"""Last path segment -> how it is answered."""


def route(
    path: str,
    params: Mapping[str, str],
    seed: int,
    now: datetime,
    faults: bool = False,
    more: Mapping[str, Route] | None = None,
) -> Answer:
    """Answer an authorised GET.

    The service is reached through prefixes that differ per deployment
    (``/v1/linkedin/...``, ``/seed-0/at-20260101T000000Z/...``), so only the last path
    segment counts.

    Args:
        path: The URL path, without the query string.
        params: The query parameters.
        seed: The sandbox seed.
        now: The date the world is shown at (tz-aware).
        faults: Whether the world has the faults of :mod:`socialframe.sandbox._faults`.
        more: Routes of operations besides the service's two (``Sandbox(routes=)``).

    Returns:
        A 200 success (charged), a 400 or a 404.
    """
    segment = path.rstrip("/").rsplit("/", 1)[-1]
    operation = OPERATIONS.get(segment) or (more or {}).get(segment)
    if operation is None:
        return error(404)
    build, bad_request = operation
    try:
        body = build(params, seed, now, faults)
    except BadParam as exc:
        return Answer(400, bad_request(str(exc)))
    return Answer(200, body, (VARY,), charged=True)


def error(status: int, message: str | None = None) -> Answer:
    """Return a plain error answer ``{"message": ...}``.

    Args:
        status: A 4xx or 5xx status.
        message: The text; a standard one for the status when omitted.

    Returns:
        The answer, with ``Retry-After: 1`` for 429.
    """
    headers = (("Retry-After", "1"),) if status == 429 else ()
    return Answer(status, {"message": message or _MESSAGES.get(status, "Error")}, headers)


def fault(kind: Fault) -> Answer:
    """Return the answer for an injected or random fault (not a :data:`WIRE` one).

    Args:
        kind: An HTTP status (400-599), ``"success_false"`` / ``"bad_gateway"``
            (never charged), or a JSON object (a charged 200 body).

    Returns:
        The answer.

    Raises:
        ValueError: ``kind`` is none of these.
    """
    if isinstance(kind, Mapping):
        return Answer(200, kind, (VARY,), charged=True)
    if isinstance(kind, str):
        if kind not in ENVELOPES:
            names = sorted(ENVELOPES) + sorted(WIRE)
            raise ValueError(
                f"unknown fault {kind!r}: use a status, a JSON object or one of {names}"
            )
        body = {"success": False, "message": ENVELOPES[kind], "data": None}
        # The envelopes come from the same gateway as successes, with its headers.
        return Answer(200, body, (VARY,))
    if isinstance(kind, bool) or not isinstance(kind, int) or not 400 <= kind <= 599:
        raise ValueError(f"unknown fault {kind!r}: use a 4xx/5xx status or an envelope name")
    return error(kind)
