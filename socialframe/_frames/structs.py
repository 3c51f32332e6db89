"""msgspec structs a raw comments body decodes into, skipping the dicts.

Twice as fast as decoding to dicts, and only the fields the frame reads are
built. The fields are typed ``Any``, so every value arrives exactly as it would
in a dict. Imported only when a raw body is given (msgspec loads lazily).
"""

# No ``from __future__ import annotations``: msgspec reads these types at run time.
from typing import Any

import msgspec


class Comment(msgspec.Struct, gc=False):  # no cycles: the collector need not track it
    """The fields of a comment the frame reads; the rest is skipped unbuilt."""

    createdAt: Any = None  # noqa: N815 - the service's names
    text: Any = None
    isPinned: Any = None  # noqa: N815
    isEdited: Any = None  # noqa: N815
    threadUrn: Any = None  # noqa: N815
    permalink: Any = None
    author: Any = None


class CommentsBody(msgspec.Struct, gc=False):
    """A comments page: its comments and whether the service says it failed."""

    data: list[Comment]
    success: Any = None


COMMENTS_DECODER = msgspec.json.Decoder(CommentsBody)
DECODE_ERRORS = (msgspec.MsgspecError, ValueError, RecursionError)
