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
none), and rewritten in this format once (:mod:`socialframe._cache.sqlite`); a team
cache's pickled values are never unpickled: they are fetched again.
"""

from __future__ import annotations

import io
import pickle
import pickletools
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal
from urllib.parse import urlsplit

import msgspec
from msgspec import UNSET, UnsetType
from requests_cache.serializers.cattrs import CattrStage
from requests_cache.serializers.pipeline import Stage

from .._time import instant

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
        """A ``CachedResponse`` as the bytes to store.

        Raises:
            ValueError: a page this format would not read back (more headers than a
                page has, a stamp UTC cannot hold): stored, it would be paid for on
                every run; the cache counts it as not stored, and the client says so.
        """
        value = MAGIC + _ENCODER.encode(_CATTRS.dumps(response))
        if _page(value, legacy=False) is None:
            raise ValueError("the page is not one this cache reads back (see _serializer._Page)")
        return value

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


FETCHED_AT_HEADER: Final = "x-socialframe-fetched-at"
"""The stamp of the time the service answered (``socialframe._models.FETCHED_AT``)."""

MAX_ENTRIES: Final = 256
"""Headers (or cookies) a stored page may have: a value with more is not a page."""


Text = str  # (text costs what it weighs: only the number of entries is bounded)
TextMap = Annotated[dict[Text, Text], msgspec.Meta(max_length=MAX_ENTRIES)]


class _Request(msgspec.Struct, forbid_unknown_fields=True):
    """requests-cache's dict of a ``CachedRequest`` (fields at their default left out)."""

    body: bytes | None | UnsetType = UNSET
    cookies: TextMap | UnsetType = UNSET
    headers: TextMap | UnsetType = UNSET
    method: Text | None | UnsetType = UNSET
    url: str | None | UnsetType = UNSET


class _Page(msgspec.Struct, forbid_unknown_fields=True):
    """requests-cache's dict of a ``CachedResponse`` as socialframe stores one: HTTP 200,
    no redirect history, no decoded body; what it may hold is bounded, so a stored
    value cannot make its reader build more than it is (a 1 MB run of empty maps would
    otherwise cost 60 MB of dicts), and nothing in it is of a type the read does not
    take. Decoded by msgspec against this type: a field of another type, an unknown
    field or a longer container stops the decoding at once."""

    status_code: Literal[200]
    content: bytes | UnsetType = msgspec.field(default=UNSET, name="_content")
    cookies: TextMap | UnsetType = UNSET
    created_at: Text | None | UnsetType = UNSET
    elapsed: Annotated[float, msgspec.Meta(ge=0, le=1e8)] | UnsetType = UNSET
    encoding: Text | None | UnsetType = UNSET
    expires: Text | None | UnsetType = UNSET
    headers: TextMap | UnsetType = UNSET
    history: Annotated[list[None], msgspec.Meta(max_length=0)] | UnsetType = UNSET
    reason: Text | None | UnsetType = UNSET
    request: _Request | UnsetType = UNSET
    url: str | None | UnsetType = UNSET


_PAGE_DECODER: Final = msgspec.msgpack.Decoder(_Page)


def plain(value: Any, *, legacy: bool = False) -> dict[str, Any] | None:
    """The dict of plain values stored as ``value`` (as requests-cache's cattrs stage
    makes it), or ``None`` where it is not a good page.

    A good page: written by :class:`PageFormat` (or, with ``legacy``, pickled by an
    earlier version), at most :data:`MAX_STORED` bytes, of the type :class:`_Page`
    (HTTP 200, bounded, no redirect history), its times ISO text.
    """
    page = _page(value, legacy=legacy)
    if page is None:
        return None
    found: dict[str, Any] = msgspec.to_builtins(page, builtin_types=(bytes,))
    return found


def _page(value: Any, *, legacy: bool) -> _Page | None:
    if isinstance(value, memoryview | bytearray):
        value = bytes(value)
    if not isinstance(value, bytes) or len(value) > MAX_STORED:
        return None
    try:
        if value.startswith(MAGIC):
            page = _PAGE_DECODER.decode(memoryview(value)[len(MAGIC) :])
        elif legacy:
            page = msgspec.convert(unpickle(value), _Page)
        else:
            return None
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError):
        return None
    if isinstance(page.url, str):
        try:
            urlsplit(page.url).port  # noqa: B018 - raises for a URL no one can read
        except ValueError:
            return None
    stamps = [page.created_at, page.expires]
    if isinstance(page.headers, dict):
        stamps += [v for k, v in page.headers.items() if k.lower() == FETCHED_AT_HEADER]
    if any(isinstance(stamp, str) and instant(stamp) is None for stamp in stamps):
        return None  # a time no one can read (or hold in UTC): not a page
    return page


class _NoClasses(pickle.Unpickler):
    """An unpickler that refuses every class and function: only the plain values pickle
    encodes by itself (dict, list, str, bytes, numbers, None, bool) come out."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused {module}.{name}: a cache holds data only")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id: a cache holds data only")


MAX_OPCODES: Final = 10_000
"""Pickle instructions a page pickled by requests-cache 1.x is far below (about 60: its
body is one); a value with more could build more than it weighs, and is not read."""


def unpickle(value: bytes) -> Any:
    """A value pickled by requests-cache 1.x (its cattrs dict of a response), read with
    :class:`_NoClasses`; ``None`` where it is anything else (a class, a function, junk,
    a pickle of more than :data:`MAX_OPCODES` instructions)."""
    if not value.startswith(b"\x80"):  # protocol 2+: what requests-cache 1.x writes
        return None
    try:
        for count, _ in enumerate(pickletools.genops(value)):
            if count >= MAX_OPCODES:
                return None
        return _NoClasses(io.BytesIO(value)).load()
    except Exception:  # junk pickles fail in a dozen ways; every one is "not a page"
        return None


def legacy(value: Any, accept: Callable[[str | None], bool] = lambda url: True) -> bytes | None:
    """``value``, pickled by an earlier version, in this format; ``None`` if it is not a
    good page (see :func:`plain`) or ``accept`` refuses its URL."""
    if isinstance(value, bytes) and value.startswith(MAGIC):
        return None
    try:
        page = _page(value, legacy=True)
        if page is None or not accept(None if page.url is UNSET else page.url):
            return None
        return MAGIC + _ENCODER.encode(page)
    except Exception:  # whatever it holds, a value that is not a page is left as it is
        return None
