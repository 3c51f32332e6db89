"""msgspec structs a raw comments body decodes into, skipping the dicts.

Twice as fast as decoding to dicts, and only the fields the frame reads are
built. The fields are typed ``Any``, so every value arrives exactly as it would
in a dict. The author stays JSON text (``msgspec.Raw``): authors repeat from
comment to comment, and equal texts parse the same, so each distinct author is
parsed once. Imported only when a raw body is given (msgspec loads lazily).
"""

# No ``from __future__ import annotations``: msgspec reads these types at run time.
import json
from operator import attrgetter
from typing import Any, ClassVar

import msgspec

#: The author of a comment that has none (the dict path reads ``None``).
NO_AUTHOR = msgspec.Raw(b"null")


class Comment(msgspec.Struct, gc=False):  # no cycles: the collector need not track it
    """The fields of a comment the frame reads; the rest is skipped unbuilt."""

    createdAt: Any = None  # noqa: N815 - the service's names
    createdAtString: Any = None  # noqa: N815
    text: Any = None
    isPinned: Any = None  # noqa: N815
    isEdited: Any = None  # noqa: N815
    threadUrn: Any = None  # noqa: N815
    permalink: Any = None
    author: msgspec.Raw = NO_AUTHOR


class CommentsBody(msgspec.Struct, gc=False):
    """A comments page as msgspec decodes it: comments, ``success``, paging."""

    data: list[Comment]
    success: Any = None
    message: Any = None
    # (a post's count: a study's refresh reads it from a cached page 1 too)
    total: Any = None
    totalPage: Any = None  # noqa: N815
    paginationToken: Any = None  # noqa: N815


class CommentsPage:
    """A raw comments body decoded, its authors parsed: what :func:`decode_comments` gives.

    Read like the dict it stands for (``page["data"]``, ``page.get("totalPage")``)
    by the pagers and :func:`socialframe._frames.shape.problem`; a key it does not hold
    reads as missing.

    Attributes:
        data: The comments (:class:`Comment`).
        texts: Each comment's author, as its JSON text.
        authors: The value of each distinct author text.
    """

    #: Tells :func:`socialframe._frames.shape.problem` its comments were checked to be objects.
    DECODED: ClassVar[bool] = True
    __slots__ = ("_body", "authors", "data", "texts")

    def __init__(self, body: CommentsBody, texts: list[bytes], authors: dict[bytes, Any]) -> None:
        self._body, self.data, self.texts, self.authors = body, body.data, texts, authors

    @property
    def success(self) -> Any:
        return self._body.success

    def get(self, name: str, default: Any = None) -> Any:
        """The field ``name``, as a dict's ``get`` gives it (a field left out is None)."""
        fields = self._body.__struct_fields__
        return getattr(self._body, name) if name in fields else default

    def __getitem__(self, name: str) -> Any:
        if name not in self._body.__struct_fields__:
            raise KeyError(name)
        return getattr(self._body, name)


COMMENTS_DECODER = msgspec.json.Decoder(CommentsBody)
DECODE_ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)
_AUTHOR = attrgetter("author")
_NOT_YET: Any = object()


def decode_comments(
    content: bytes | bytearray | memoryview | str, memo: dict[bytes, Any] | None = None
) -> CommentsPage | None:
    """A raw comments body, its authors parsed, or None where the generic path must
    decide (no ``data`` list, a comment that is not an object, JSON msgspec
    refuses, an author text neither parser takes); a ``success: false`` body is
    returned, for the caller to judge.

    Every author is parsed here, page by page, so a page that is not JSON fails
    where the generic path fails it, before the pages after it. ``memo`` holds
    the texts parsed before (equal texts parse the same); threads may share it.
    """
    try:
        body = COMMENTS_DECODER.decode(content)
    except DECODE_ERRORS:
        return None
    texts = list(map(bytes, map(_AUTHOR, body.data)))
    known = memo if memo is not None else {}
    authors = {}
    for text in set(texts):
        value = known.get(text, _NOT_YET)
        if value is _NOT_YET:
            try:
                value = known[text] = author_value(text)
            except (ValueError, RecursionError):
                return None
        authors[text] = value
    return CommentsPage(body, texts, authors)


def author_value(text: bytes) -> Any:
    """The JSON value of an author's text; raises ValueError where it is not JSON.

    msgspec refuses a number beyond a float's range (``1e999``), which the
    standard library reads as ``inf``, as the generic path does; invalid UTF-8
    (which msgspec does not check inside a ``Raw``) and integers too long for
    Python (over 4,300 digits) neither parser takes.
    """

    try:
        return msgspec.json.decode(text)
    except DECODE_ERRORS:
        return json.loads(text)
