"""msgspec structs a raw comments body decodes into, skipping the dicts.

Twice as fast as decoding to dicts, and only the fields the frame reads are
built. The fields are typed ``Any``, so every value arrives exactly as it would
in a dict. The author stays JSON text (``msgspec.Raw``): authors repeat from
comment to comment, and equal texts parse the same, so each distinct author is
parsed once. Imported only when a raw body is given (msgspec loads lazily).
"""

# No ``from __future__ import annotations``: msgspec reads these types at run time.
from typing import Any

import msgspec

#: The author of a comment that has none (the dict path reads ``None``).
NO_AUTHOR = msgspec.Raw(b"null")


class Comment(msgspec.Struct, gc=False):  # no cycles: the collector need not track it
    """The fields of a comment the frame reads; the rest is skipped unbuilt."""

    createdAt: Any = None  # noqa: N815 - the service's names
    text: Any = None
    isPinned: Any = None  # noqa: N815
    isEdited: Any = None  # noqa: N815
    threadUrn: Any = None  # noqa: N815
    permalink: Any = None
    author: msgspec.Raw = NO_AUTHOR


class CommentsBody(msgspec.Struct, gc=False):
    """A comments page: its comments, whether the service says it failed, its paging.

    Read like the dict it stands for (``body["data"]``, ``body.get("totalPage")``)
    by the pagers and :func:`socialframe._pages.problem`; a key it does not hold
    reads as missing.
    """

    data: list[Comment]
    success: Any = None
    message: Any = None
    totalPage: Any = None  # noqa: N815
    paginationToken: Any = None  # noqa: N815

    def get(self, name: str, default: Any = None) -> Any:
        """The field ``name``, as a dict's ``get`` gives it (a field left out is None)."""
        return getattr(self, name) if name in self.__struct_fields__ else default

    def __getitem__(self, name: str) -> Any:
        if name not in self.__struct_fields__:
            raise KeyError(name)
        return getattr(self, name)


COMMENTS_DECODER = msgspec.json.Decoder(CommentsBody)
DECODE_ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)


def decode_comments(content: bytes | bytearray | memoryview | str) -> CommentsBody | None:
    """A raw comments body as a :class:`CommentsBody`, or None where the generic
    path must decide (no ``data`` list, a comment that is not an object, JSON
    msgspec refuses); a ``success: false`` body is returned, for the caller to judge."""
    try:
        return COMMENTS_DECODER.decode(content)
    except DECODE_ERRORS:
        return None


def author_value(text: bytes) -> Any:
    """The JSON value of an author's text; raises ValueError where it is not JSON.

    msgspec refuses a number beyond a float's range (``1e999``), which the
    standard library reads as ``inf``, as the generic path does; invalid UTF-8 is
    the one thing inside a ``Raw`` msgspec does not check: neither parser takes it.
    """
    import json

    try:
        return msgspec.json.decode(text)
    except DECODE_ERRORS:
        return json.loads(text)
