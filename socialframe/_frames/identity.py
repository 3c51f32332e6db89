"""Ids for the rows the service sent without one, derived from what it did send.

A comment whose permalink is missing or cannot be read has no id of its own, nor
has an ad without an ``ad_archive_id``. Both still get one, so that nothing keyed by
id (a study, a de-duplication, a join) drops them or takes them for one another:

``derived:`` then 32 hexadecimal digits (128 bits) of the SHA-256 of a JSON array
of the row's own values (:func:`derived_id`). The prefix can never begin an id the
service sends (a comment's id is digits read from its permalink; an ad's id sent in
this form is refused as unfit, see :mod:`.ads`), the hash is the same in every
process and on every machine (no ``hash()``, no seed), and the row's ``id_derived``
column says which ids are derived. A derived id is a name, not an address: no link
is ever built from it (an ad's Ad Library link, for one).

What a comment's id is derived from (:func:`comment_key`): its post (``post_urn``),
its time (``createdAt``, to the millisecond, as ``created_at`` shows it; a reply
may come with ``createdAt: 0``, and then the ``createdAtString`` sent beside it
stands for its time, as text: for such replies it holds the milliseconds, written
as if they were seconds), its author (``author_id``; the name where there is no
id), and, only when it has no time at all, its text. Then its occurrence: the
comments of one walk of a post equal in all of these are numbered 0, 1, 2... in
the order the service sent them, so two "+1" of one person in one millisecond stay
two comments. The text is left out when there is a time because a time to the
millisecond and an author already name one comment: an edited comment then keeps
its id (a study reports it "edited", not "new"), and the id does not depend on
which other comments a walk saw.

What an ad's id is derived from (:data:`AD_KEY`): its advertiser (``page_id``),
start (``start_date``), collation group (``collation_id``), format
(``display_format``) and copy (``body_text``, ``title``, ``caption``,
``link_url``, ``cta_text``): variants of one group often differ only in copy. Then
its occurrence among the equal ads of its collation group (the inner list the
service sends), so a repeated page, or a search that finds the ad again, gives it
the same id (and the frame keeps its first sighting, as for any id).

Occurrences count every row, with an id of its own or without, so each row also
has a *content id*: the id it would be derived as without its own. A study keeps it
with every version (``content_id``) and takes a comment or ad sent once with its id
and once without for one (:mod:`socialframe._study.queries`, ``_comment_names``,
``_ad_names``). A comment with no time at all has no content id: its derived id
rests on its text and its place among the equal ones of a walk, which another walk
(the newest pages only) may see otherwise.

What it cannot tell apart: rows equal in everything the id is made of but a field it
leaves out (a comment's thread, an ad's images) are one; a comment seen twice in one
walk without its permalink (the pages moved on as new comments arrived) is two.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Iterable, Sequence
from typing import Final

#: What every derived id starts with, and no id the service sends.
DERIVED: Final = "derived:"
#: Hexadecimal digits of the hash kept: 128 bits.
DIGITS: Final = 32


def is_derived(value: object) -> bool:
    """Whether ``value`` is an id of the derived form (``derived:`` + 32 hex digits).

    Example:
        >>> is_derived(derived_id("comment", ("urn:li:activity:1", None), 0))
        True
        >>> is_derived("7384427202391592960"), is_derived(None)
        (False, False)
    """
    return (
        isinstance(value, str)
        and len(value) == len(DERIVED) + DIGITS
        and value.startswith(DERIVED)
        and all(c in "0123456789abcdef" for c in value[len(DERIVED) :])
    )


def derived_id(kind: str, key: Sequence[str | int | None], occurrence: int) -> str:
    """The derived id of the ``occurrence``-th row (from 0) of ``kind`` equal to ``key``.

    The hash is taken of the JSON array ``[kind, *key, occurrence]`` written with
    ASCII escapes (any text, a lone surrogate too, has one spelling), so distinct
    inputs are distinct texts, and equal inputs give the same id anywhere.

    Example:
        >>> derived_id("comment", ("urn:li:activity:1", 1760584641073, None, "42", None, None), 0)
        'derived:5199c7d9e7c08ccfc3f58de239ae97e9'
    """
    text = json.dumps([kind, *key, occurrence], ensure_ascii=True, separators=(",", ":"))
    return DERIVED + hashlib.sha256(text.encode("ascii")).hexdigest()[:DIGITS]


def comment_key(
    post_urn: str | None,
    created_ms: int | None,
    created_text: str | None,
    author_id: str | None,
    author_name: str | None,
    text: str | None,
) -> tuple[str | int | None, ...]:
    """What a comment's derived id is made of, before its occurrence (see the module):
    the second part is None when it has no time at all (no time, no text of one)."""
    timed = created_ms is not None or created_text is not None
    return (
        post_urn,
        created_ms,
        created_text if created_ms is None else None,
        author_id,
        author_name if author_id is None else None,
        None if timed else text,
    )


def is_timed(key: tuple[str | int | None, ...]) -> bool:
    """Whether a :func:`comment_key` holds a time (``createdAt`` or its text)."""
    return key[1] is not None or key[2] is not None


#: The ad columns a derived ad id is made of, in this order.
AD_KEY: Final = (
    "page_id",
    "start_date",
    "collation_id",
    "display_format",
    "body_text",
    "title",
    "caption",
    "link_url",
    "cta_text",
)


def occurrences(keys: Iterable[Hashable]) -> list[int]:
    """For each key, how many equal keys came before it (0 for the first).

    Example:
        >>> occurrences(["a", "b", "a", "a"])
        [0, 0, 1, 2]
    """
    seen: dict[Hashable, int] = {}
    out = []
    for key in keys:
        n = seen.get(key, 0)
        seen[key] = n + 1
        out.append(n)
    return out


def comment_ids(keys: Sequence[tuple[str | int | None, ...]], walks: Sequence[int]) -> list[str]:
    """The derived id of every comment: ``keys`` from :func:`comment_key`, ``walks``
    the walk each came on (occurrences are counted within a walk).

    Example:
        >>> key = comment_key("urn:li:activity:1", 1760584641073, None, "42", None, "+1")
        >>> first, second, again = comment_ids([key, key, key], [0, 0, 1])
        >>> first != second, first == again
        (True, True)
    """
    numbers = occurrences(zip(walks, keys, strict=True))
    return [derived_id("comment", key, n) for key, n in zip(keys, numbers, strict=True)]
