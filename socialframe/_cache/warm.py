"""A cached page as the fast read needs it: five fields of the stored response.

A warm re-run reads every page from the cache. requests-cache's own read builds
a whole ``CachedResponse`` (two case-insensitive header dicts, the request, the
cookies): at 1,000 pages that was as long as parsing the bodies. From the
SQLite store the fast read takes the stored page's plain dict instead
(:meth:`socialframe._cache.sqlite.Store.page`, read as data only by
:func:`socialframe._cache.serializer.plain`); from any other backend (Redis, one passed
in) it takes the ``CachedResponse``. Either way it gets a
:class:`Stored`, and anything unexpected sends the call down the full path,
which decides as requests-cache does.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple

from .._frames.structs import decode_comments
from .._json import NOT_PARSED, is_utf8
from .._json import fast as fast_json


class Stored(NamedTuple):
    """What the fast read uses of a stored response (header names in lower case)."""

    status: int
    expires: datetime | None
    headers: Mapping[str, str]
    sent: Mapping[str, str] | None  # the stored request's headers, if it has them
    content: bytes
    encoding: str | None

    @property
    def expired(self) -> bool:
        """requests-cache's ``is_expired``: past ``expires`` by the real clock."""
        return self.expires is not None and datetime.now(UTC) >= self.expires


def stored(backend: Any, key: str) -> Stored | None:
    """The response stored under ``key``, or None for a miss or one this cannot read
    (the caller then takes the full path).

    Raises:
        Whatever the backend raises on a read (``sqlite3.Error``, a Redis error).
    """
    from .sqlite import Store

    if isinstance(backend, Store):
        try:
            value = backend.page(key)
        except LookupError:
            pass
        else:
            return None if value is None else _from_dict(value)
    cached = backend.get_response(key)
    return None if cached is None else _from_response(cached)


def _from_dict(value: dict[str, Any]) -> Stored | None:
    """A :class:`Stored` from requests-cache's plain dict of a ``CachedResponse``
    (fields at their default are left out of it), or None where it is not as expected."""
    content, status = value.get("_content"), value.get("status_code", 0)
    headers, request = value.get("headers", {}), value.get("request", {})
    sent = request.get("headers", {}) if isinstance(request, dict) else None  # left out when empty
    expires = value.get("expires")
    if (
        type(content) is not bytes
        or type(status) is not int
        or "_decoded_content" in value
        or not isinstance(headers, dict)
        or not isinstance(sent, dict)
        or not (expires is None or isinstance(expires, str))
    ):
        return None
    if expires is not None:
        try:
            expires = datetime.fromisoformat(expires)
        except ValueError:
            return None
        if expires.tzinfo is None:  # requests-cache reads a naive time as UTC
            expires = expires.replace(tzinfo=UTC)
    return Stored(
        status,
        expires,
        _lower(headers),
        _lower(sent),
        content,
        value.get("encoding"),
    )


def _from_response(cached: Any) -> Stored:
    sent = getattr(getattr(cached, "request", None), "headers", None)
    return Stored(
        cached.status_code,
        cached.expires,
        _lower(cached.headers),
        None if sent is None else _lower(sent),
        cached.content,
        cached.encoding,
    )


def _lower(headers: Mapping[str, Any]) -> dict[str, Any]:
    return {str(name).lower(): value for name, value in headers.items()}


def body_of(operation: str, page: Stored, authors: dict[bytes, Any] | None = None) -> Any:
    """The page's JSON body: comments straight into structs (what the frame builder
    reads fastest), else a dict; :data:`NOT_PARSED` where only requests' own
    decoding can say (another charset, JSON msgspec refuses, an author that is
    not JSON). ``authors``: the run's author texts parsed so far (see
    :func:`socialframe._frames.structs.decode_comments`), at most
    :data:`MAX_AUTHORS` of them."""
    if not is_utf8(page.encoding):
        return NOT_PARSED
    if operation == "comments":
        if authors is not None and len(authors) >= MAX_AUTHORS:
            authors.clear()  # bounded: each page keeps the values of its own authors
        body = decode_comments(page.content, authors)
        return NOT_PARSED if body is None else body
    return fast_json(page.content)


MAX_AUTHORS = 10_000
"""Author texts a run remembers (parsed once each) before it starts again: about
11 MB of sandbox-shaped authors."""
