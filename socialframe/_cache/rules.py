"""What the cache stores, and under which key.

What is stored: only HTTP 200 bodies that are pages of their operation, by the
one shape rule (:func:`socialframe._frames.shape.problem`): the service also fails
with HTTP 200 + ``success: false`` (those must be retried, not replayed), and a
body of the wrong shape stored once would fail every re-run from the cache.

Cache keys drop the port of loopback hosts, so a sandbox restarted on another
port still finds its pages (the sandbox names its world, its seed and its clock, in the
URL's path instead: see ``socialframe.sandbox.Sandbox.world``).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import requests
import requests_cache

from .._frames.shape import problem
from .._json import decoded
from .._operations import of_url
from .serializer import KEY_SERIALIZER

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def is_storable(response: requests.Response) -> bool:
    """Cache filter: an HTTP 200 page of its operation (known by the URL's path)."""
    if getattr(response, "from_cache", False):
        return True  # it passed this filter when it was stored
    if response.status_code != 200:
        return False
    operation = of_url(response.url)
    if operation is None:  # not a page of any operation: nothing to keep
        return False
    return problem(operation.name, decoded(response)) is None


def _cache_key(request: Any, **kwargs: Any) -> str:

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
        key = str(requests_cache.create_key(request, **kwargs))
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
