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

import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

import requests

from .. import _operations as operations
from .._errors import NetworkError
from .._frames.shape import problem
from .._json import NOT_PARSED, is_utf8
from .._json import fast as fast_json
from .._models import Fetched, fetched_at
from .rules import remember
from .sqlite import Store

if TYPE_CHECKING:
    from .._clock import Clock


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
    """The page's JSON body: decoded by the operation's own ``decode`` where it has one
    (comments straight into structs, what the frame builder reads fastest), else a
    dict; :data:`NOT_PARSED` where only requests' own decoding can say (another
    charset, JSON msgspec refuses, an author that is not JSON). ``authors``: the
    run's author texts parsed so far (see
    :func:`socialframe._frames.structs.decode_comments`), at most
    :data:`MAX_AUTHORS` of them."""
    if not is_utf8(page.encoding):
        return NOT_PARSED
    record = operations.get(operation)
    if record.decode is not None:
        if authors is not None and len(authors) >= MAX_AUTHORS:
            authors.clear()  # bounded: each page keeps the values of its own authors
        body = record.decoded(page.content, authors)
        return NOT_PARSED if body is None else body
    return fast_json(page.content)


MAX_AUTHORS = 10_000
"""Author texts a run remembers (parsed once each) before it starts again: about
11 MB of sandbox-shaped authors."""


class WarmRead:
    """A page straight from the cache's store, or None to take the full path.

    A warm re-run spent most of its time in requests and requests-cache before the
    cache was even read (preparing the request, hooks, the policy checks). This
    computes the page's requests-cache key once (:meth:`key`) and reads the store
    directly; the cache stays requests-cache's own store. It answers only what it is
    sure of: a fresh (or, offline, any) stored 200 page of the right shape whose
    ``Vary`` headers match what the client sends. Anything else (a miss, an expired
    page, a ``Vary`` it cannot judge, a page of the wrong shape, a backend that
    fails) goes through the full path, which decides as requests-cache does: the
    property test in ``tests/cache/test_warm_read.py`` holds the two to the same
    answers.

    Args:
        session: The client's ``requests_cache.CachedSession``.
        auth_header: The header that carries the key.
        offline: Whether expired pages are served too.
        clock: Stands for the time of a page that has no stamp.
    """

    def __init__(self, session: Any, *, auth_header: str, offline: bool, clock: Clock) -> None:
        self.session = session
        self.offline = offline
        self.clock = clock
        self._auth_header = auth_header.lower()
        ignored = getattr(getattr(session, "settings", None), "ignored_parameters", None)
        self._redacted = {str(name).lower() for name in ignored or ()}
        #: The cache key of each page read: computing one (requests' URL preparation,
        #: requests-cache's normalisation) was a third of a warm read.
        self._keys: dict[tuple[Any, ...], str] = {}

    def read(
        self,
        operation: str,
        url: str,
        params: Mapping[str, str],
        verify: Any = None,
        authors: dict[bytes, Any] | None = None,
    ) -> Fetched | None:
        """The page of ``operation`` at ``url`` with ``params`` if the store holds a good
        one this client may be answered with; None to take the full path.

        Args:
            verify: What the call would pass to requests as ``verify`` (None: the
                session's): it is part of the key.
            authors: The run's author texts parsed so far (comment pages).
        """
        session = self.session
        if "Cache-Control" in session.headers or "Pragma" in session.headers:
            return None  # the caller asked the cache something: requests-cache answers
        backend = session.cache
        try:
            key = self.key(url, params, session.verify if verify is None else verify)
            page = stored(backend, key)
        except (NetworkError, OSError, sqlite3.Error):
            return None  # the full path meets the same failure and reports it
        if (
            page is None
            or page.status != 200
            or (page.expired and not self.offline)
            or not self._vary_matches(page)
        ):
            return None
        body = body_of(operation, page, authors)
        if body is NOT_PARSED or problem(operation, body) is not None:
            return None  # the full path decodes it as requests does, or drops it and refetches
        stale = self.offline and page.expired  # (only offline serves those)
        return Fetched(body, fetched_at(page.headers, self.clock), True, stale)

    def key(self, url: str, params: Mapping[str, str], verify: Any) -> str:
        """The requests-cache key of a GET of ``url`` with ``params`` (computed once)."""
        try:
            memo: tuple[Any, ...] | None = (url, tuple(sorted(params.items())), verify)
            known = self._keys.get(memo)  # type: ignore[arg-type]
        except TypeError:  # an unhashable verify setting: compute it every time
            memo = known = None
        if known is not None:
            return known
        request = requests.PreparedRequest()
        request.prepare_method("GET")
        request.prepare_url(url, params)
        request.prepare_headers({})
        request.body = None
        key = str(self.session.cache.create_key(request, verify=verify))
        if memo is not None:
            remember(self._keys, memo, key)
        return key

    def _vary_matches(self, page: Stored) -> bool:
        """Whether a stored page's ``Vary`` headers match this client's requests.

        The headers this client sends are the same on every call (the session's
        and the key's), so the check is requests-cache's own, made cheaply: the
        named headers must be equal on the stored request and on ours. Cookies,
        ``*`` and headers this client sends whose values are redacted from the
        cache (requests-cache counts those as a miss) are left to the full path.
        """
        vary = page.headers.get("vary")
        if not vary:
            return True
        headers = self.session.headers
        names = [name.strip().lower() for name in vary.split(",") if name.strip()]
        sent = {name.lower() for name in headers} | {self._auth_header}
        if any(
            name in ("*", "cookie") or (name in self._redacted and name in sent) for name in names
        ):
            return False
        if page.sent is None:
            return False
        return all(page.sent.get(name) == headers.get(name) for name in names)
