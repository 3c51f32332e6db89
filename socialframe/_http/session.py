"""The HTTP session: requests-cache's ``CachedSession`` over the transport, and what
each response goes through before it is stored.

What is never stored: the API key. requests-cache redacts the headers named in
``ignored_parameters``, but matches their names case-sensitively, so every
casing of each header that carries the key is listed. A ``Vary`` naming such a
header is dropped from responses before they are cached: requests-cache treats a
``Vary`` on an ignored header as a miss, which would turn every paid page into a
new paid call. A response header or body echoing a secret has it removed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, timedelta
from typing import TYPE_CHECKING, Any

import msgspec
import requests
from requests.adapters import BaseAdapter
from requests_cache import CachedSession

from .._cache.rules import _cache_key, is_storable
from .._cache.setting import CacheSetting, open_backend
from .._clock import SYSTEM_CLOCK, Clock
from .._config import Secret
from .._json import decoded
from .._models import FETCHED_AT
from .transport import Guard, HTTPTransport

if TYPE_CHECKING:
    from .pace import Pacer


def casings(name: str) -> list[str]:
    """The spellings of a header name to redact (requests-cache matches exactly)."""
    title = "-".join(part.capitalize() for part in name.split("-"))
    return sorted({name, name.lower(), name.upper(), title})


def _response_hook(secret_headers: Iterable[str], secrets: Iterable[Secret], clock: Clock) -> Any:
    """Runs on each response before requests-cache stores it.

    Stamps the time the service answered (kept with the cached copy, so a re-run
    reports the original time) and drops ``Vary`` entries naming a key header,
    and ``Vary: *`` (requests-cache never serves such a page, so every re-run
    would pay for it again; a page is the same whoever asks). Response headers
    that echo a secret (the key, a token) are dropped: they would be stored; a
    body that does has each secret replaced by ``***``.
    """
    secret = {h.lower() for h in secret_headers} | {"*"}
    hidden = list(secrets)  # revealed per response: no frame of the client holds them

    def hook(response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        values = [v for v in (s.reveal() for s in hidden) if v]
        secret_bytes = [v.encode() for v in values]
        if FETCHED_AT not in response.headers:
            response.headers[FETCHED_AT] = clock.now().astimezone(UTC).isoformat()
        for name, value in list(response.headers.items()):
            if any(v in value for v in values):
                del response.headers[name]
        _scrub_body(response, values, secret_bytes)
        vary = response.headers.get("Vary")
        if vary:
            kept = [v.strip() for v in vary.split(",") if v.strip().lower() not in secret]
            if kept:
                response.headers["Vary"] = ", ".join(kept)
            else:
                del response.headers["Vary"]
        return response

    return hook


def _scrub_body(response: requests.Response, secrets: list[str], raw: list[bytes]) -> None:
    """Replace each secret a body echoes by ``***``, inside its JSON strings.

    A body echoing a secret (a service repeating the request, a comment quoting a
    key) would put it in the cache file and the frame. JSON may spell it escaped
    (``\\/``, ``\\u002b``), so the check is made on the decoded body, written out
    again in one canonical spelling; only string values change, never the JSON
    around them nor an object's keys (the names of the service's schema: a key
    that happens to be spelled inside ``paginationToken`` must not rename it). A
    body that is not JSON has the secret's bytes replaced. Secrets shorter than
    ``MIN_SECRET`` never come here (see :mod:`socialframe._http.auth`).
    """
    if vars(response).get("_socialframe_scrubbed"):
        return  # (requests and requests-cache both run the response hooks)
    response._socialframe_scrubbed = True  # type: ignore[attr-defined]
    content = response.content
    if not secrets or not isinstance(content, bytes) or not content:
        return
    body = decoded(response)
    if body is None:
        if any(v in content for v in raw):
            for v in raw:
                content = content.replace(v, b"***")
            _set_content(response, content, None)
        return

    try:
        canonical = msgspec.json.encode(body)
        forms = [msgspec.json.encode(v)[1:-1] for v in secrets]
    except (msgspec.EncodeError, TypeError, ValueError, OverflowError):
        canonical = json.dumps(body).encode()  # (NaN, lone surrogates: ASCII escapes)
        forms = [json.dumps(v)[1:-1].encode() for v in secrets]
    if not any(form in canonical for form in forms):
        return
    try:
        clean = _without(body, secrets)
        content = json.dumps(clean).encode()  # exact for NaN, big ints, any text
    except RecursionError:  # nested past any page: keep nothing of it
        clean, content = None, b""
    _set_content(response, content, clean)


def _without(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, "***")
        return value
    if isinstance(value, list):
        return [_without(item, secrets) for item in value]
    if isinstance(value, dict):  # values only: a key is a name of the service's schema
        return {k: _without(v, secrets) for k, v in value.items()}
    return value


def _set_content(response: requests.Response, content: bytes, body: Any) -> None:
    response._content = content
    response._socialframe_body = body  # type: ignore[attr-defined]
    if "Content-Length" in response.headers:
        response.headers["Content-Length"] = str(len(content))


def make_session(
    cache: CacheSetting,
    *,
    secret_headers: Iterable[str],
    secret_values: Iterable[Secret] = (),
    expire_after: float | timedelta,
    serve_stale: bool = False,
    transport: BaseAdapter | None = None,
    clock: Clock = SYSTEM_CLOCK,
    pacer: Pacer | None = None,
) -> requests.Session:
    """Build the HTTP session.

    Args:
        cache: ``True`` for the default on-disk cache, a path for a SQLite cache
            there (a folder, or a path without a suffix, gets ``http_cache.sqlite``
            inside; ``x.sqlite`` is that file), ``False`` for no
            cache, or a requests-cache backend object.
        secret_headers: Names of the headers that carry the key or a secret:
            never stored with a request, never matched by ``Vary``.
        secret_values: The key and the secrets, in memory only: a response
            header echoing one is not stored.
        expire_after: Seconds (or timedelta) a page stays fresh; -1 for never.
        serve_stale: Answer cache-only requests with expired pages too (offline
            mode: they were paid for, and nothing would be sent anyway).
        transport: What sends the requests the cache cannot answer: the network
            (:class:`~socialframe._http.transport.HTTPTransport`) unless given.
        clock: Stamps each page's arrival time.
        pacer: Paces the requests that go out (not the cache's answers).

    Returns:
        A ``requests_cache.CachedSession``, or a plain ``requests.Session`` when
        ``cache`` is false.
    """
    secret_headers = list(secret_headers)
    session: requests.Session
    if cache is False or cache is None:
        session = requests.Session()
    else:
        backend = open_backend(cache)
        ignored = {"Authorization", "X-API-KEY", "access_token", "api_key"}
        for name in secret_headers:
            ignored.update(casings(name))
        session = CachedSession(
            backend=backend,
            expire_after=expire_after,
            allowable_codes=(200,),
            allowable_methods=("GET",),
            filter_fn=is_storable,
            ignored_parameters=sorted(ignored),
            key_fn=_cache_key,
            cache_control=False,
            stale_if_error=serve_stale,
        )
    adapter = Guard(transport if transport is not None else HTTPTransport(), pacer)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.hooks["response"].append(_response_hook(secret_headers, secret_values, clock))
    return session
