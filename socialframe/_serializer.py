"""How a page is written in a cache: data only, never anything that can run code.

requests-cache pickles responses by default, and unpickling runs whatever a value
asks for: anyone who can write to a team's Redis (or to a cache folder a team
shares) would run code on every machine that reads a page. socialframe writes each
page as :data:`MAGIC` + msgpack of the dict requests-cache's cattrs stage makes of a
response (str, bytes, int, float, bool, None, lists and dicts of them), and reads
it back into exactly those types: msgspec's decoder has no hook that calls
anything. Why msgpack through msgspec rather than requests-cache's JSON serializer:
a body stays bytes (JSON needs base64, a third larger, and a decode per page, on the
warm read's path), and msgspec is already what parses the bodies.

Whatever is read is checked before it is a page (:func:`plain`): the format, a size
bound, the types of the fields the read uses, HTTP 200, no redirect history. Any
other value (junk bytes, another serializer's output, a 500) is not a page: the
cache answers it as a miss, and the client fetches the page again and warns once.

Pages paid for before this format (requests-cache's pickle of that same dict, see
:func:`legacy`) are read only from a local SQLite file, by an unpickler that admits
no class at all (requests-cache 1.x pickles the dict of plain values, which needs
none), and rewritten in this format once (:mod:`socialframe._store`); a team
cache's pickled values are never unpickled: they are fetched again.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Final

import msgspec
from requests_cache.serializers.cattrs import CattrStage
from requests_cache.serializers.pipeline import Stage

MAGIC: Final = b"socialframe-page/1\n"
"""The first bytes of every value socialframe writes (the format's name and version)."""

MAX_STORED: Final = 80 * 1024 * 1024
"""Bytes a stored value may take: a body is capped at 64 MB when it arrives, so a
longer value is not one socialframe wrote, and is not read."""

KEY_SERIALIZER: Final = "SerializerPipeline(name=pickle, n_stages=2)"
"""What requests-cache 1.3 puts of its default serializer into every cache key. Keys
keep it whatever the serializer now is, so pages paid for before keep their keys."""

_CATTRS: Final = CattrStage()
_ENCODER: Final = msgspec.msgpack.Encoder()
_DECODER: Final = msgspec.msgpack.Decoder()


class PageFormat(Stage):
    """A requests-cache serializer stage (``dumps`` / ``loads``) that writes and reads
    pages as data only.

    Args:
        legacy: Also read values pickled by earlier versions, with an unpickler that
            admits no class (for the user's own SQLite file only, never a team cache).

    Example:
        >>> from requests_cache import CachedResponse
        >>> form = PageFormat()
        >>> stored = form.dumps(CachedResponse(status_code=200, content=b'{"a": 1}'))
        >>> stored.startswith(MAGIC), form.loads(stored).json()
        (True, {'a': 1})
        >>> form.loads(b"junk") is None
        True
    """

    def __init__(self, *, legacy: bool = False) -> None:
        super().__init__(dumps=self.encode, loads=self.decode)
        self.legacy = legacy

    def __str__(self) -> str:
        return "socialframe-page-1" + "+legacy" * self.legacy

    def encode(self, response: Any) -> bytes:
        """A ``CachedResponse`` as the bytes to store."""
        return MAGIC + _ENCODER.encode(_CATTRS.dumps(response))

    def decode(self, value: Any) -> Any:
        """The ``CachedResponse`` stored as ``value``, or ``None`` where it is not a page
        (requests-cache then answers a miss)."""
        return response(value, legacy=self.legacy)


def response(value: Any, *, legacy: bool = False) -> Any:
    """The ``CachedResponse`` of a stored value, or ``None`` where it is not a page."""
    page = plain(value, legacy=legacy)
    if page is None:
        return None
    try:
        return _CATTRS.loads(page)
    except Exception:  # cattrs' own errors (a group of them) as much as TypeError: not a page
        return None


def plain(value: Any, *, legacy: bool = False) -> dict[str, Any] | None:
    """The dict of plain values stored as ``value`` (as requests-cache's cattrs stage
    makes it), or ``None`` where it is not a good page.

    A good page: written by :class:`PageFormat` (or, with ``legacy``, pickled by an
    earlier version), at most :data:`MAX_STORED` bytes, HTTP 200, its body bytes, its
    headers and its request's headers text, no redirect history.
    """
    if isinstance(value, memoryview | bytearray):
        value = bytes(value)
    if not isinstance(value, bytes) or len(value) > MAX_STORED:
        return None
    page: Any = None
    if value.startswith(MAGIC):
        try:
            page = _DECODER.decode(memoryview(value)[len(MAGIC) :])
        except (msgspec.DecodeError, ValueError, RecursionError):
            return None
    elif legacy:
        page = unpickle(value)
    return page if _is_page(page) else None


def _is_page(page: Any) -> bool:
    if not isinstance(page, dict) or page.get("status_code") != 200:
        return False
    if not isinstance(page.get("_content", b""), bytes) or "_decoded_content" in page:
        return False
    if page.get("history") or page.get("_next"):
        return False  # socialframe follows no redirect: a chain is not one of its pages
    request = page.get("request", {})
    if not isinstance(request, dict) or not _is_text_map(request.get("headers", {})):
        return False
    if not _is_text_map(page.get("headers", {})) or not _is_text_map(page.get("cookies", {})):
        return False
    return all(
        isinstance(page.get(name), str | None)
        for name in ("url", "encoding", "reason", "expires", "created_at")
    )


def _is_text_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


class _NoClasses(pickle.Unpickler):
    """An unpickler that refuses every class and function: only the plain values pickle
    encodes by itself (dict, list, str, bytes, numbers, None, bool) come out."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused {module}.{name}: a cache holds data only")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id: a cache holds data only")


def unpickle(value: bytes) -> Any:
    """A value pickled by requests-cache 1.x (its cattrs dict of a response), read with
    :class:`_NoClasses`; ``None`` where it is anything else (a class, a function, junk)."""
    if not value.startswith(b"\x80"):  # protocol 2+: what requests-cache 1.x writes
        return None
    try:
        return _NoClasses(io.BytesIO(value)).load()
    except Exception:  # junk pickles fail in a dozen ways; every one is "not a page"
        return None


def legacy(value: Any) -> bytes | None:
    """``value``, pickled by an earlier version, in this format; ``None`` if it is not a
    good page (see :func:`plain`)."""
    if isinstance(value, bytes) and value.startswith(MAGIC):
        return None
    page = plain(value, legacy=True)
    return None if page is None else MAGIC + _ENCODER.encode(page)
