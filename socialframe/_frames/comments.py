"""Comment pages -> one typed row per comment (columns: ``_schema.COMMENTS``).

Why over 400 lines: a comment's row takes four readings of loose data (ids from
the permalink or the URN, the time from ``createdAt`` or the comment's id, the author's
fields, followers from a title), each total over any JSON value; the builder
uses them all and nothing else does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from operator import attrgetter
from typing import Any, Final, NamedTuple

import numpy as np
import pandas as pd

from .._models import Page
from .._schema import AUTHOR_FIELDS, COMMENT_COLUMNS, COMMENT_DTYPES, mark
from .identity import comment_ids as derived_comment_ids
from .identity import comment_key, is_timed
from .shape import checked
from .values import (
    INT64,
    NAT,
    Coded,
    Payloads,
    Raw,
    Unfit,
    fetch_times,
    flags,
    page_numbers,
    pages,
    paused_gc,
    text,
    texts,
    times,
    typed_frame,
    walk_numbers,
    whole,
    without_lone_surrogates,
)

_URN_AT = re.compile(
    r"urn(?::|%3A)li(?::|%3A)comment(?::|%3A)(?:\(|%28)([A-Za-z]+)(?::|%3A)(\d+)(?:,|%2C)(\d+)",
    re.IGNORECASE,
)
_PERMALINK_URN = re.compile(
    r"(comment|reply)Urn=urn(?::|%3A)li(?::|%3A)comment(?::|%3A)(?:\(|%28)"
    r"([A-Za-z]+)(?::|%3A)(\d+)(?:,|%2C)(\d+)",
    re.IGNORECASE,
)
_FOLLOWERS = re.compile(
    r"(\d[\d,.\s\u00a0\u202f']*)\s*([KkMm]?)\s*followers?", re.IGNORECASE | re.ASCII
)
_ORG_ID = re.compile(r"urn:li:(?:fsd_)?(?:company|organization):(\d+)")
# Placeholder headlines: nothing but dashes, dots and the like ("--", ".", "—").
_NO_TITLE = re.compile(r"[\s\-\u2010-\u2015.,;:_·•|/\\*~]*")
# createdAt outside this window (epoch ms) is garbage, not a time: use the id instead.
_MS_RANGE: Final = (946_684_800_000, 4_102_444_800_000)  # 2000-01-01 .. 2100-01-01
_NOT_PROFILE_URL: Final = ("picture", "image", "photo", "logo", "avatar", "banner")
_NO_AUTHOR: Final[dict[str, Any]] = {**dict.fromkeys(AUTHOR_FIELDS), "unfit": ()}


class Ids(NamedTuple):
    """A comment's place, read from its permalink."""

    post_urn: str | None
    comment_id: str | None
    parent_comment_id: str | None


_NO_IDS: Final = Ids(None, None, None)


def comments_frame(payloads: Payloads) -> pd.DataFrame:
    """Comment pages -> one row per comment, columns :data:`socialframe.COMMENT_COLUMNS`.

    Args:
        payloads: Response bodies of ``get-profile-posts-comments``, in page
            order: dicts, or the raw JSON (``bytes`` / ``str``, e.g. saved to
            files; parsed here, faster than parsing them first); a single body
            is taken as a list of one. The page number
            of each row is the body's position, and ``fetched_at`` is missing
            (the client's own pages carry both).

    Returns:
        A DataFrame with exactly the columns of ``COMMENT_COLUMNS``, typed: ids
        and text as ``string``, flags ``boolean``, counts ``Int64``, times
        tz-aware UTC, ``author_type`` categorical (person / organization). Every
        comment is a row: one whose permalink is missing or unreadable gets a
        ``comment_id`` derived from what was sent (``derived:`` + 32 hex digits:
        its post, time, author and, without a time, its text; equal ones numbered
        in the order sent, within a walk: pages numbered from 1 again start
        another) and ``id_derived`` true; see :mod:`socialframe._frames.identity`.
        Built from raw bodies (not the client's pages) such a comment has no post.

    Raises:
        SchemaError: a page or a comment is not the documented shape, or a raw
            body is not JSON (naming the page); never any other error, whatever
            the values.

    Warns:
        SchemaWarning: values that did not fit their columns (now missing).

    Example:
        >>> body = {"success": True, "data": [{"createdAt": 1760584641073,
        ...     "text": "hi", "author": {"name": "Ada", "id": "1"}}], "totalPage": 1}
        >>> comments_frame([body])[["created_at", "author_name"]].iloc[0].tolist()
        [Timestamp('2025-10-16 03:17:21.073000+0000', tz='UTC'), 'Ada']
    """
    with paused_gc():
        return mark(_comments_frame(payloads)[0], "comments")


def comments_with_content(payloads: Payloads) -> tuple[pd.DataFrame, list[str | None]]:
    """:func:`comments_frame`, and each comment's content id: the id it is derived as
    when it comes without a readable permalink (its ``comment_id`` when it did), or
    None when it has no time (neither ``createdAt`` nor ``createdAtString``).

    What lets a study know a comment it saw under one name under the other: sent
    once with its permalink and once without, a comment has one content id. Only a
    comment with a time has one: without, its derived id is made of its text and its
    place among the equal comments of the walk, which another walk (newest pages
    only) may see otherwise, and it names no comment beyond its walk.
    """
    with paused_gc():
        frame, content = _comments_frame(payloads, content=True)
    return mark(frame, "comments"), content or []


#: The fields of a comment the frame reads (the rest of what the service sends is unused).
_FIELDS: Final = (
    "createdAt",
    "createdAtString",  # (only in the id of a comment sent without one: see .identity)
    "text",
    "isPinned",
    "isEdited",
    "threadUrn",
    "permalink",
    "author",
)


def _comments_frame(
    payloads: Payloads, *, content: bool = False
) -> tuple[pd.DataFrame, list[str | None] | None]:
    raw: dict[str, list[Any]] = {name: [] for name in _FIELDS}
    fallbacks: list[str | None] = []
    counted: list[tuple[Page, int]] = []
    parsed: dict[bytes, Any] = {}  # each author text's value (texts repeat from page to page)
    for page in pages(payloads, fast=lambda content: _decode(content, parsed)):
        if isinstance(page.body, Mapping):
            checked("comments", page.body, page.page, paging=False)
            data = page.body["data"]
            for name, values in raw.items():
                if name != "author":
                    values.extend([c.get(name) for c in data])
            # bytes in a dict is no author object: it must not pass for a raw body's text
            raw["author"].extend([None if type(a := c.get("author")) is bytes else a for c in data])
        else:  # decoded straight into structs, the shape checked by msgspec
            data = page.body.data
            for name, values in raw.items():
                if name != "author":
                    values.extend(map(attrgetter(name), data))
            raw["author"].extend(page.body.texts)  # each one's JSON text: see _authors
            parsed.update(page.body.authors)
        fallbacks.extend([f"urn:li:activity:{page.key}" if page.key else None] * len(data))
        counted.append((page, len(data)))

    # Column by column: list comprehensions over plain lists are the fast path here.
    unfit = Unfit()
    permalinks = texts(raw["permalink"], unfit, "permalink")
    post_urns, comment_ids, parent_ids = _ids(permalinks)
    created = _created(raw["createdAt"], comment_ids, unfit)
    authors, rows = _authors(raw["author"], parsed)
    for author, n in zip(authors, np.bincount(rows, minlength=len(authors)).tolist(), strict=True):
        for column in author["unfit"]:
            unfit.counts[column] += n
            unfit.total += n
    if None in post_urns:
        post_urns = [p or fb for p, fb in zip(post_urns, fallbacks, strict=True)]
    comment_texts = texts(raw["text"], unfit, "text", empty=True)  # "" is a comment too
    derived = [c is None for c in comment_ids] if None in comment_ids else None
    made: list[str] | None = None
    content_ids: list[str | None] | None = None
    if derived is not None or content:
        # The service sent no id for some: derive theirs (see .identity), from what each
        # comment would be without its permalink (the post walked, createdAt alone), so
        # that one sent with it and once without has one content id.
        sent = (
            created
            if derived is not None and all(derived)
            else _created(raw["createdAt"], [None] * len(comment_ids), Unfit())
        )
        keys = _keys(fallbacks, sent, raw["createdAtString"], authors, rows, comment_texts)
        made = derived_comment_ids(keys, walk_numbers(counted))
        if content:
            content_ids = [m if is_timed(k) else None for m, k in zip(made, keys, strict=True)]
    if derived is not None and made is not None:
        comment_ids = [c if c is not None else d for c, d in zip(comment_ids, made, strict=True)]
    columns: dict[str, Any] = {
        "post_urn": post_urns,
        "comment_id": comment_ids,
        "id_derived": derived if derived is not None else _none_derived(len(comment_ids)),
        "parent_comment_id": parent_ids,
        "is_reply": [p is not None for p in parent_ids],
        "created_at": times(created, "ms"),
        "text": comment_texts,
        "is_pinned": flags(raw["isPinned"], unfit, "is_pinned"),
        "is_edited": flags(raw["isEdited"], unfit, "is_edited"),
        "thread_urn": texts(raw["threadUrn"], unfit, "thread_urn"),
        "permalink": permalinks,
        **{name: Coded([a[name] for a in authors], rows) for name in AUTHOR_FIELDS},
        "page": page_numbers(counted),
        "fetched_at": fetch_times(counted),
    }
    frame = typed_frame(columns, COMMENT_COLUMNS, COMMENT_DTYPES)
    unfit.warn("comments")
    return frame, content_ids


def _keys(
    posts: list[Any],
    created: list[int | None] | np.ndarray[Any, Any],
    created_texts: list[Any],
    authors: list[dict[str, Any]],
    rows: np.ndarray[Any, Any],
    comment_texts: list[str | None],
) -> list[tuple[str | int | None, ...]]:
    """Each comment's :func:`~.identity.comment_key`, from its values as the frame
    holds them when it has no id (a time in whole milliseconds, text without lone
    surrogates), and ``createdAtString`` where ``createdAt`` gives no time (as sent,
    if it is text)."""
    ms = created.tolist() if isinstance(created, np.ndarray) else created
    keys = []
    for post, at, sent, code, said in zip(
        posts, ms, created_texts, rows.tolist(), comment_texts, strict=True
    ):
        author = authors[code]
        when = None if at is None or at == NAT else at
        written = sent if when is None and type(sent) is str and sent else None
        untimed = when is None and written is None  # (only then is the text a part)
        keys.append(
            comment_key(
                post,
                when,
                None if written is None else without_lone_surrogates(written),
                author["author_id"],
                author["author_name"],
                without_lone_surrogates(said) if untimed and said is not None else None,
            )
        )
    return keys


def _none_derived(n: int) -> pd.Series:
    """``id_derived`` of a frame whose every comment has its own id: all false."""
    return pd.Series(pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)))


def _decode(content: Raw, parsed: dict[bytes, Any]) -> Any:
    """A raw comments body as :mod:`.structs`, or None where the generic path must decide.

    A body of another shape (no ``data`` list, a comment that is not an object,
    ``success: false``, JSON msgspec refuses, an author that is not JSON) is
    left to the generic path and its errors. ``parsed``: the author texts
    parsed so far, and their values.
    """
    from .structs import decode_comments  # (msgspec: not at import)

    body = decode_comments(content, parsed)
    return None if body is None or body.success is False else body


# The usual spelling of a permalink, whole: one match instead of two searches and two
# matches. Its groups: the post's urn type and id, the comment id, where "replyUrn="
# starts and the reply's id.
_TAIL: Final = (
    r"commentUrn=urn%3Ali%3Acomment%3A%28([A-Za-z]+)%3A(\d+)%2C(\d+)%29"
    r"(?:&dashCommentUrn=[^&]*)?"
    r"(?:&(replyUrn=)urn%3Ali%3Acomment%3A%28[A-Za-z]+%3A\d+%2C(\d+)%29)?"
)
_USUAL = re.compile(r"[^?]*\?" + _TAIL)
_AFTER_PREFIX = re.compile(_TAIL)
_COMMENT_AT: Final = len("commentUrn=urn%3Ali%3Acomment%3A%28")


def _ids(permalinks: list[str | None]) -> tuple[list[Any], list[Any], list[Any]]:
    """:func:`ids_from_permalink` of each, as three columns (post urn, id, parent id).

    Permalinks of the usual spelling take one regex match; the answer is the same
    as :func:`ids_from_permalink`'s (it reads the first ``commentUrn=`` and the
    first ``replyUrn=``, so the match counts only where those are the ones it
    matched); any other goes to it. The part before ``?`` repeats from comment to
    comment of a post: once a permalink shows it holds neither parameter, the
    next ones starting with it are matched after it.
    """
    posts: list[Any] = []
    comments: list[Any] = []
    parents: list[Any] = []
    urns: dict[tuple[str, str], str] = {}  # one string per post, not one per comment
    match, after = _USUAL.match, _AFTER_PREFIX.match
    last = ("", "", "")  # the latest (kind, post id, urn)
    prefix = ""  # "...?" without "commentUrn=" or "replyUrn=" (it ends in "?": none straddles)
    for link in permalinks:
        found = None
        if link is not None and prefix and link.startswith(prefix):
            found = after(link, len(prefix))  # the prefix holds neither parameter
            start = searched = len(prefix)
        if found is None and link:
            found = match(link)
            start, searched = -1 if found is None else found.start(1) - _COMMENT_AT, 0
            if found is not None and link.find("commentUrn=") != start:
                found = None
        if link is not None and found is not None:
            kind, post, comment, reply_at, reply = found.groups()
            if link.find("replyUrn=", searched) == (-1 if reply_at is None else found.start(4)):
                if not searched:  # matched whole (after the prefix, it is the same one)
                    prefix = link[:start]
                if post != last[1] or kind != last[0]:  # comments of a post come together
                    urn = urns.get((kind, post))
                    if urn is None:
                        urn = urns[kind, post] = f"urn:li:{kind}:{post}"
                    last = (kind, post, urn)
                posts.append(last[2])
                if reply is None:
                    comments.append(comment)
                    parents.append(None)
                else:
                    comments.append(reply)
                    parents.append(comment)
                continue
        ids = ids_from_permalink(link)
        posts.append(ids.post_urn)
        comments.append(ids.comment_id)
        parents.append(ids.parent_comment_id)
    return posts, comments, parents


def ids_from_permalink(permalink: str | None) -> Ids:
    """A comment's post urn, id and parent id from its ``commentUrn`` / ``replyUrn``.

    One regex over the raw permalink, URL-encoded or not: parsing the query
    string properly costs ten times more and this runs once per comment.
    """
    if not permalink:
        return _NO_IDS
    # Fast path: the usual spelling, then one anchored match at each parameter.
    at, reply_at = permalink.find("commentUrn="), permalink.find("replyUrn=")
    if at >= 0 or reply_at >= 0:
        comment = _URN_AT.match(permalink, at + 11) if at >= 0 else None
        reply = _URN_AT.match(permalink, reply_at + 9) if reply_at >= 0 else None
        return _urn_ids(
            ("comment", *comment.groups()) if comment else None,
            ("reply", *reply.groups()) if reply else None,
        )
    found_comment = found_reply = None
    for found in _PERMALINK_URN.findall(permalink):
        if found[0].lower() == "comment":
            found_comment = found
        else:
            found_reply = found
    return _urn_ids(found_comment, found_reply)


def _urn_ids(comment: tuple[str, ...] | None, reply: tuple[str, ...] | None) -> Ids:
    # Each tuple: (kind, urn type, post id, comment id).
    post = comment or reply
    if post is None:
        return _NO_IDS
    post_urn = f"urn:li:{post[1]}:{post[2]}"
    if reply is not None:
        return Ids(post_urn, reply[3], comment[3] if comment else None)
    return Ids(post_urn, post[3], None)


def _created(
    raw: list[Any], comment_ids: list[str | None], unfit: Unfit
) -> list[int | None] | np.ndarray[Any, Any]:
    """:func:`_created_ms` of each comment. Whole milliseconds (or nulls), as the service
    sends them, are checked in numpy; only the rows out of range or missing (the id
    then gives the time) take the Python path. ``NAT`` marks no time."""
    if not raw or not set(map(type, raw)) <= {int, type(None)}:
        return [_created_ms(ms, i, unfit) for ms, i in zip(raw, comment_ids, strict=True)]
    try:
        ms = np.array([0 if v is None else v for v in raw], dtype=np.int64)
    except OverflowError:  # beyond 64 bits: each one decides
        return [_created_ms(ms, i, unfit) for ms, i in zip(raw, comment_ids, strict=True)]
    for row in np.flatnonzero((ms < _MS_RANGE[0]) | (ms >= _MS_RANGE[1])).tolist():
        found = _created_ms(raw[row], comment_ids[row], unfit)
        ms[row] = NAT if found is None else found
    return ms


def _created_ms(raw: Any, comment_id: str | None, unfit: Unfit) -> int | None:
    """``createdAt``, else the time in the comment's id; unfit when neither gives one."""
    ms = _ms(whole(raw))
    if ms is None and comment_id and comment_id.isdigit() and len(comment_id) <= 25:
        ms = _ms(int(comment_id) >> 22)  # ids are time-ordered: the top bits are epoch ms
    if ms is None and raw not in (None, 0, "", "0"):
        unfit.note("created_at")  # a time was sent, but not one that can be used
    return ms


def _ms(value: int | None) -> int | None:
    """Epoch milliseconds, or None for 0, missing and out-of-range garbage."""
    return value if value is not None and _MS_RANGE[0] <= value < _MS_RANGE[1] else None


def _authors(
    raw: list[Any], parsed: Mapping[bytes, Any]
) -> tuple[list[dict[str, Any]], np.ndarray[Any, Any]]:
    """:func:`author_fields` of each distinct author (authors repeat), and each row's.

    An author of a raw body comes as its JSON text (``bytes``, which no JSON
    value is), its value in ``parsed``: equal texts parse the same, so each
    distinct text is read once. Any other author is looked up by its id and
    reused when the whole object is equal and any equal object parses the same
    (see :func:`_reusable`).
    """
    seen: dict[str, tuple[dict[str, Any], int]] = {}
    by_text: dict[bytes, int] = {}
    distinct: list[dict[str, Any]] = []
    codes: list[int] = []
    add = codes.append
    for author in raw:
        if type(author) is bytes:
            code = by_text.get(author)
            if code is None:
                code = by_text[author] = len(distinct)
                distinct.append(author_fields(parsed[author]))
            add(code)
            continue
        ident = author.get("id") if type(author) is dict else None
        if type(ident) is str:
            hit = seen.get(ident)
            if hit is not None and hit[0] == author:
                add(hit[1])
                continue
        code = len(distinct)
        distinct.append(author_fields(author))
        if type(ident) is str and _reusable(author):
            seen[ident] = (author, code)
        add(code)
    return distinct, np.array(codes, dtype=np.intp)


def _reusable(author: dict[str, Any]) -> bool:
    """Whether any author equal to this one parses the same.

    Dict equality ignores key order and ``True == 1``; the parse does not always:
    only text values, and no two keys the fallbacks would read in order (firstName
    and first_name, two ``...Url`` keys).
    """
    if not all(type(v) is str or v is None for v in author.values()):
        return False
    folded = [str(k).lower().replace("_", "") for k in author]
    return len(set(folded)) == len(folded) and sum(k.endswith("url") for k in folded) <= 1


def author_fields(author: Any) -> dict[str, Any]:
    """The ``author_*`` columns of one comment, by name, from its ``author`` object.

    Also ``unfit``: the columns whose value was sent but could not be used.
    """
    if not isinstance(author, Mapping):
        return _NO_AUTHOR
    unfit = Unfit()
    author_id = text(author.get("id"), unfit, "author_id")
    org = _ORG_ID.fullmatch(author_id) if author_id and author_id[0] == "u" else None
    name = text(author.get("name"), unfit, "author_name")
    url = text(author.get("linkedinUrl"), unfit, "author_url")
    if name is None or url is None:
        # Other API versions: firstName / FirstName / first_name, and <brand>Url.
        folded = {str(k).lower().replace("_", ""): v for k, v in author.items()}
        if name is None:
            parts = [text(folded.get("firstname")), text(folded.get("lastname"))]
            name = " ".join(p.strip() for p in parts if p and p.strip()) or None
        if url is None:
            url = _profile_url(folded)
    title = text(author.get("title"), unfit, "author_title")
    if title is not None and _NO_TITLE.fullmatch(title):
        title = None  # "--", ".", "" mean no headline
    count = followers(title) if org else None
    if count is not None and not INT64[0] <= count < INT64[1]:
        count = None
        unfit.note("author_followers")
    return {
        "author_type": "organization" if org else "person",
        "author_name": name,
        "author_id": author_id,
        "author_urn": text(author.get("urn"), unfit, "author_urn"),
        "author_username": text(author.get("username"), unfit, "author_username"),
        "author_url": url,
        "author_title": title,
        "author_company_id": org.group(1) if org else None,
        "author_followers": count,
        "unfit": tuple(unfit.counts.elements()),
    }


def followers(title: str | None) -> int | None:
    """The follower count in an organisation's title ("1.2K followers", "12,345 followers")."""
    if not title:
        return None
    found = _FOLLOWERS.search(title)
    if not found:
        return None
    number = re.sub(r"[\s\u00a0\u202f']", "", found.group(1))
    suffix = found.group(2).lower()
    if suffix:  # "1.2K", "1,2K": the separator is a decimal point
        number = number.replace(",", ".")
    else:  # "12,345", "12.345", "12 345": separators group thousands
        number = number.replace(",", "").replace(".", "")
    try:
        value = float(number) * {"": 1, "k": 1_000, "m": 1_000_000}[suffix]
    except ValueError:
        return None
    if not math.isfinite(value):
        return 2**63  # beyond any column: the caller marks it unfit
    return round(value)


def _profile_url(folded: Mapping[str, Any]) -> str | None:
    """The ``<network>Url`` field under another brand or casing; never a picture's URL."""
    for key in ("url", "profileurl"):
        if folded.get(key):
            return text(folded[key])
    for key, value in folded.items():
        if key.endswith("url") and value and not any(w in key for w in _NOT_PROFILE_URL):
            return text(value)
    return None
