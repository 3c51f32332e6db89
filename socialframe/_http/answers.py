"""What an answer of the service means: a status and a body mapped to the library's
error, and how the ledger counts it; a failed connection said in one line.

Pure: nothing here sends, waits or counts. :mod:`.caller` asks, then raises what it is
told and records the outcome (as httpx's ``Response.raise_for_status`` is apart from
its ``Client.send``).
"""

from __future__ import annotations

import email.utils
import socket
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import urlsplit

import requests
import urllib3

from .._errors import (
    APIError,
    AuthError,
    BadRequestError,
    FetchError,
    RateLimitError,
    SchemaError,
    ServerError,
)
from .._json import decoded
from .._ledger import Outcome
from .charges import is_success
from .transport import BrokenBody

#: What requests, urllib3 and the socket raise for a request they cannot send at all.
UNSENDABLE: Final = (
    requests.exceptions.InvalidURL,
    requests.exceptions.InvalidHeader,
    requests.exceptions.InvalidSchema,
    requests.exceptions.MissingSchema,
    urllib3.exceptions.LocationValueError,
    UnicodeError,
)


def is_paid_page(response: requests.Response) -> bool:
    """Whether ``response`` is a page the service charged for: an HTTP 200 whose body is
    a JSON object that is not the ``success: false`` failure."""
    return response.status_code == 200 and is_success(decoded(response))


def failure(
    operation: str,
    response: requests.Response,
    scrub: Callable[[str], str],
    now: datetime | None = None,
) -> tuple[FetchError, Outcome]:
    """The error for a response that is not a paid page, and how the ledger counts it.

    Args:
        operation: The operation's name (said in the error).
        response: The answer, its body read.
        scrub: Removes the key and the secrets from a text (a body may echo them).
        now: The client's time, for a ``Retry-After`` given as an HTTP date.

    Returns:
        The error to raise, and the call's outcome: a ``success: false`` and any
        status but 200 are ``"failed"`` (free); a 200 whose body is no JSON object is
        ``"paid"`` (the service charged it).

    Example:
        >>> from socialframe._http.transport import MockTransport
        >>> import requests
        >>> answer = MockTransport(lambda r: (400, {"message": "bad id"})).send(
        ...     requests.Request("GET", "https://x.example/").prepare())
        >>> error, outcome = failure("comments", answer, str)
        >>> type(error).__name__, outcome
        ('BadRequestError', 'failed')
    """
    status = response.status_code
    body = decoded(response)
    message = ""
    if isinstance(body, dict):
        message = str(body.get("message") or body.get("error") or "")
    elif status != 200:
        message = response.text
    message = scrub(message)[:200]  # scrubbed whole: a cut could split the key
    if status == 200:
        if isinstance(body, dict):  # success: false
            return ServerError(status, message, operation=operation), "failed"
        return (
            SchemaError(
                f"{operation}: HTTP 200 but the body is not a JSON object:"
                f" {scrub(response.text)[:200]!r}"
            ),
            "paid",
        )
    if status == 400:
        return BadRequestError(status, message, operation=operation), "failed"
    if status in (401, 403):
        return AuthError(status, message, operation=operation), "failed"
    if 300 <= status < 400:
        where = scrub(response.headers.get("Location", "?"))
        return (
            APIError(
                status,
                f"redirected to {where}; set base_url to the final URL (redirects are not"
                " followed, so the key never travels to another host)",
                operation=operation,
            ),
            "failed",
        )
    if status == 429:
        wait = retry_after(response, now)
        return RateLimitError(status, message, operation=operation, retry_after=wait), "failed"
    if status >= 500:
        return ServerError(status, message, operation=operation), "failed"
    return APIError(status, message, operation=operation), "failed"


def retry_after(response: requests.Response, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` of seconds or an HTTP date; None if unreadable.

    An HTTP date counts from ``now`` (the client's clock; the real time when omitted).

    Example:
        >>> response = requests.Response()
        >>> response.headers["Retry-After"] = "7"
        >>> retry_after(response)
        7.0
    """
    raw = response.headers.get("Retry-After", "").strip()
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": UTC by RFC 5322
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def charged(exc: requests.ConnectionError | requests.Timeout) -> Outcome:
    """How the ledger counts a call that got no whole answer.

    A body that broke was charged if what came of it says so (a 200 success); when too
    little came to tell, ``"unsure"``: paid for the budget, and said so. So is a request
    sent that got no status in time: the service may have answered it, and charged (one
    that could not connect was not sent).

    Example:
        >>> charged(requests.ConnectionError("refused")), charged(requests.ReadTimeout())
        ('failed', 'unsure')
    """
    if isinstance(exc, BrokenBody):
        was = exc.charged
    else:
        was = None if isinstance(exc, requests.ReadTimeout) else False
    return "unsure" if was is None else "paid" if was else "failed"


def unreached(exc: BaseException, url: str, timeout: float) -> str:
    """What a failed connection says, in one line: which host, and why (not urllib3's
    pool, retry and URL text).

    Example:
        >>> import requests
        >>> unreached(requests.ConnectionError("[Errno 111] Connection refused"),
        ...           "http://127.0.0.1:9/x?y=1", 60)
        'could not reach 127.0.0.1:9: the connection was refused'
    """
    if isinstance(exc, BrokenBody):  # our own words: the status came, the body did not
        return f"{type(exc).__name__}: {exc}"
    parts = urlsplit(url)
    where = parts.hostname or "the service"
    if parts.port:
        where += f":{parts.port}"
    text = " ".join(str(e) for e in _chain(exc)).lower()
    if isinstance(exc, requests.Timeout) or "timed out" in text:
        why = f"no answer within the {timeout:g} s timeout"
    elif "refused" in text:
        why = "the connection was refused"
    elif "resolve" in text or "name or service not known" in text or "nodename" in text:
        why = "its name was not found (check the base URL, and the network)"
    elif "ssl" in text or "certificate" in text:
        why = "the TLS handshake failed (its certificate, or a proxy in between)"
    elif "reset" in text or "aborted" in text or "closed" in text or "remote end" in text:
        why = "the connection was closed before an answer"
    elif "unreachable" in text:
        why = "the network is unreachable"
    else:
        why = f"the connection failed ({type(exc).__name__})"
    return f"could not reach {where}: {why}"


#: What the resolver answers for a name that does not exist (not "try again later").
_NO_SUCH_NAME: Final = frozenset(
    getattr(socket, name)
    for name in ("EAI_NONAME", "EAI_NODATA", "EAI_FAIL")
    if hasattr(socket, name)
)


def unknown_host(exc: BaseException) -> bool:
    """Whether ``exc`` is the resolver saying the host's name does not exist (a typo in
    the base URL: trying again cannot help; ``EAI_AGAIN``, a resolver that did not
    answer in time, can).

    Example:
        >>> import socket
        >>> unknown_host(OSError(socket.gaierror(socket.EAI_NONAME, "Name or service not known")))
        True
        >>> unknown_host(socket.gaierror(socket.EAI_AGAIN, "Temporary failure"))
        False
    """
    return any(isinstance(e, socket.gaierror) and e.errno in _NO_SUCH_NAME for e in _chain(exc))


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the errors it wraps (requests wraps urllib3's, which wraps the socket's)."""
    seen: list[BaseException] = []
    todo: list[Any] = [exc]
    while todo and len(seen) < 12:
        current = todo.pop()
        if not isinstance(current, BaseException) or current in seen:
            continue
        seen.append(current)
        todo += [current.__cause__, current.__context__, getattr(current, "reason", None)]
        todo += [a for a in current.args if isinstance(a, BaseException)]
    return seen
