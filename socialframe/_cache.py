"""The HTTP session and its on-disk cache (requests-cache).

What is stored: only HTTP 200 bodies that are pages of their operation, by the
one shape rule (:func:`socialframe._pages.problem`): the service also fails
with HTTP 200 + ``success: false`` (those must be retried, not replayed), and a
body of the wrong shape stored once would fail every re-run from the cache.

What is never stored: the API key. requests-cache redacts the headers named in
``ignored_parameters``, but matches their names case-sensitively, so every
casing of each header that carries the key is listed. A ``Vary`` naming such a
header is dropped from responses before they are cached: requests-cache treats a
``Vary`` on an ignored header as a miss, which would turn every paid page into a
new paid call.

Cache keys drop the port of loopback hosts, so a sandbox restarted on another
port still finds its pages (the sandbox puts its seed in the URL path instead).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from datetime import UTC, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import BaseAdapter

from . import _config as config
from ._clock import SYSTEM_CLOCK, Clock
from ._config import Secret
from ._errors import ConfigError
from ._json import NOT_PARSED, is_utf8
from ._json import fast as fast_json
from ._operations import OPERATION_OF_PATH
from ._pages import problem
from ._team import SCHEMES, is_team_url, shown, team_cache
from ._transport import Guard, HTTPTransport

if TYPE_CHECKING:
    from requests_cache.backends.base import BaseCache

    from ._pace import Pacer

CacheSetting: TypeAlias = "bool | str | os.PathLike[str] | BaseCache"
"""The ``cache`` argument of a Client: ``True`` (the default on-disk cache), a path
to a SQLite file or folder, ``False`` (none), or a requests-cache backend."""

CACHE_FILENAME = "http_cache.sqlite"
_URL_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")  # a scheme (one letter is a drive: C:/)
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def casings(name: str) -> list[str]:
    """The spellings of a header name to redact (requests-cache matches exactly)."""
    title = "-".join(part.capitalize() for part in name.split("-"))
    return sorted({name, name.lower(), name.upper(), title})


def decoded(response: requests.Response) -> Any:
    """The JSON body (None if it is not JSON), decoded once per response object.

    msgspec parses UTF-8 JSON at twice the speed of the standard library and,
    unlike orjson, keeps integers beyond 64 bits exact (orjson turns
    ``99999999999999999999999`` into ``1e+23``). What msgspec refuses (``NaN``,
    lone surrogates, a body in another declared charset) goes to requests' own
    decoding, so every body decodes to the same value as before.
    """
    if "_socialframe_body" not in vars(response):
        body: Any = NOT_PARSED
        if is_utf8(response.encoding):
            body = fast_json(response.content)
        if body is NOT_PARSED:
            try:
                body = response.json()
            except (ValueError, RecursionError):  # not JSON, or nested past the parser's limit
                body = None
        response._socialframe_body = body  # type: ignore[attr-defined]
    return response._socialframe_body  # type: ignore[attr-defined]


def is_storable(response: requests.Response) -> bool:
    """Cache filter: an HTTP 200 page of its operation (known by the URL's path)."""
    if getattr(response, "from_cache", False):
        return True  # it passed this filter when it was stored
    if response.status_code != 200:
        return False
    return problem(operation_of(response.url), decoded(response)) is None


def operation_of(url: str | None) -> str:
    """``"comments"`` / ``"ads"`` for a URL of that operation, else ``""``."""
    path = urlsplit(url or "").path
    return OPERATION_OF_PATH.get(path.rsplit("/", 1)[-1], "")


FETCHED_AT = "X-Socialframe-Fetched-At"


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
    ``MIN_SECRET`` never come here (see :mod:`socialframe._calls`).
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
    import msgspec

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


def _cache_key(request: Any, **kwargs: Any) -> str:
    from requests_cache import create_key

    from ._serializer import KEY_SERIALIZER

    # requests-cache puts the serializer's name in every key: the pages paid for
    # before the data-only format keep theirs.
    kwargs["serializer"] = KEY_SERIALIZER
    parts = urlsplit(request.url or "")
    if parts.hostname in _LOOPBACK and parts.port is not None:
        request = request.copy()
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        request.url = urlunsplit(parts._replace(netloc=host))
    memo = _memo(request, kwargs)
    key = _KEYS.get(memo) if memo is not None else None
    if key is None:
        key = str(create_key(request, **kwargs))
        if memo is not None:
            remember(_KEYS, memo, key)
    return key


def remember(keys: dict[Any, str], memo: Any, key: str) -> None:
    """Keep ``key`` in a memo of cache keys, bounded at :data:`MAX_KEYS`: past it the
    memo starts again (a run of 20k pages costs the keys again)."""
    if len(keys) >= MAX_KEYS:
        keys.clear()
    keys[memo] = key


#: Cache keys by what they are made of: requests-cache computes a page's key two or three
#: times per call (look up, store) and its URL normalisation is the dearest part of a call.
_KEYS: dict[tuple[Any, ...], str] = {}
#: How many cache keys a memo holds (~13 MB) before it starts again.
MAX_KEYS = 20_000


#: What ``requests_cache.create_key`` reads of its keyword arguments besides ``verify``
#: (requests-cache 1.3; pinned). The rest of what ``send`` passes on (proxies, timeout,
#: stream, cert) is not in a key: left in the memo, a dict of proxies made every call miss.
_KEY_ARGUMENTS: Final = ("ignored_parameters", "serializer", "content_root_key")


def _memo(request: Any, kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
    """Everything a key is made of, hashable; None where headers or odd values are in it."""
    if isinstance(request, requests.Request) or kwargs.get("match_headers"):
        return None  # an unprepared request keeps its params apart; headers in the key
    body = request.body
    if body is not None:
        return None  # a body is normalised by its Content-Type: socialframe sends none
    parts: list[Any] = [bool(kwargs.get("verify", True))]  # the key holds it as a bool
    for name in _KEY_ARGUMENTS:
        value = kwargs.get(name)
        if name == "serializer":
            value = str(value)  # what the key holds of it
        elif isinstance(value, list | tuple):
            value = tuple(value)
        if not isinstance(value, str | bytes | int | float | bool | tuple | None):
            return None
        parts.append(value)
    try:
        memo = (request.method, request.url, tuple(parts))
        hash(memo)
    except TypeError:
        return None
    return memo


def default_cache_path() -> Path:
    """The SQLite file of the default cache (user cache dir or SOCIALFRAME_CACHE_DIR)."""
    return config.cache_dir() / CACHE_FILENAME


def cache_location(cache: CacheSetting) -> str | Path | None:
    """Where a ``cache`` setting keeps its pages, without opening (or creating) it.

    Returns:
        The team cache's URL (a ``str``), the SQLite file (a ``Path``), or ``None``
        for no cache or a backend object.
    """
    url = config.cache_url() if cache is True else None
    if is_team_url(cache) or url:
        return str(url or cache)
    if isinstance(cache, str) and _URL_LIKE.match(cache):
        raise ConfigError(
            f"cache={shown(cache)!r} looks like a URL, but only {', '.join(SCHEMES)} name a team"
            " cache: fix the URL (redis://host:6379/0), or give a folder or file path"
        )
    if isinstance(cache, str | os.PathLike) and not os.fspath(cache).strip():
        # Path("") is the current folder: a cache would appear wherever the code ran.
        raise ConfigError(
            "cache='' names no place: pass a folder or file path, True for the default"
            " cache, or False for none"
        )
    if isinstance(cache, str | os.PathLike) and "\0" in str(os.fspath(cache)):
        raise ConfigError("cache= holds a NUL character: no file can have that name")
    if cache is True:
        path = default_cache_path()
    elif isinstance(cache, str | os.PathLike):
        path = Path(cache).expanduser()
    else:  # False, None, or a backend object
        return None
    if path.is_dir() or not path.suffix:
        path = path / CACHE_FILENAME
    return path


def open_backend(cache: CacheSetting) -> Any:
    """The requests-cache backend a ``cache`` setting names (not ``False``).

    Raises:
        ConfigError: the file or the team cache cannot be used.
        TypeError: ``cache`` is none of the accepted kinds.
    """
    from requests_cache.backends.base import BaseCache
    from requests_cache.serializers import init_serializer

    if isinstance(cache, BaseCache):
        from requests_cache.backends.sqlite import SQLiteCache

        from ._serializer import PageFormat

        # Whatever backend it is, pages are written and read as data only; pickled
        # pages of an earlier version are read (as data only) from a local file alone.
        legacy = isinstance(cache, SQLiteCache)
        cache.responses.serializer = init_serializer(PageFormat(legacy=legacy), False)
        return cache
    where = cache_location(cache)
    if isinstance(where, str):
        return team_cache(where)
    if isinstance(where, Path):
        from ._store import Store

        return Store(where)
    raise TypeError(
        "cache must be True, False, a path, or a requests-cache backend,"
        f" not {type(cache).__name__}"
    )


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
            (:class:`~socialframe._transport.HTTPTransport`) unless given.
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
        from requests_cache import CachedSession

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
