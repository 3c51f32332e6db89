"""The page shape: what makes a body a page of its operation. One rule, one home.

Pagers, frame builders, the cache filter and the cache report all ask
:func:`problem`, so a page that would fail later is never stored, and a stored
one that fails it is not served.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import SchemaError


def problem(operation: str, body: Any, *, paging: bool = True) -> str | None:
    """What makes ``body`` not a page of ``operation``, or ``None`` if it is one.

    The one home of the page shape: pagers, frame builders and the cache filter
    all ask here, so a page that would fail later is never stored.

    Args:
        operation: ``"comments"`` or ``"ads"``.
        body: The decoded JSON body (a dict, or a comments body decoded into
            structs, which reads like one).
        paging: Check the paging fields too (``totalPage``, ``paginationToken``,
            ``page_info``); frame builders, which do not page, skip them.

    Returns:
        A short description of the first problem (``"'data' is a str, not a
        list"``), or ``None``.

    Example:
        >>> problem("comments", {"data": [], "totalPage": "2"})
        "'totalPage' is '2', not a whole number"
        >>> problem("ads", {"data": {"ads": [[{"ad_archive_id": "1"}]]}}) is None
        True
    """
    if not isinstance(body, Mapping) and not _decoded(body):
        return f"the body is {_kind(body)}, not a JSON object"
    if body.get("success") is False:
        return f"it is a failure (success: false): {str(body.get('message'))[:200]!r}"
    if operation == "comments":
        return _comments_problem(body, paging)
    if operation == "ads":
        return _ads_problem(body, paging)
    return None


def _decoded(body: Any) -> bool:
    """Whether ``body`` is a raw body decoded into structs, which reads like its dict
    (:class:`socialframe._frames.structs.CommentsPage`) and whose comments msgspec
    has already checked to be objects."""
    return getattr(type(body), "DECODED", False) is True


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


def _comments_problem(body: Any, paging: bool) -> str | None:
    data = body.get("data")
    if not isinstance(data, list):
        return f"'data' is {_kind(data)}, not a list"
    for i, comment in enumerate(data if isinstance(body, Mapping) else ()):
        if not isinstance(comment, Mapping):
            return f"comment {i} is {_kind(comment)}, not an object"
    if not paging:
        return None
    total = body.get("totalPage")
    if total is None and data:
        return "'totalPage' is missing"
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        return f"'totalPage' is {str(total)[:50]!r}, not a whole number"
    token = body.get("paginationToken")
    if token is not None and not isinstance(token, str):
        return f"'paginationToken' is {_kind(token)}, not text"
    return None


def _ads_problem(body: Any, paging: bool) -> str | None:
    data = body.get("data")
    if not isinstance(data, Mapping):
        return f"'data' is {_kind(data)}, not an object"
    groups = data.get("ads")
    if not isinstance(groups, list):
        return f"'data.ads' is {_kind(groups)}, not a list"
    for i, group in enumerate(groups):
        ads = group if isinstance(group, list) else [group]
        if not all(isinstance(ad, Mapping) for ad in ads):
            return f"entry {i} of 'data.ads' is not an ad or a list of ads"
    if not paging:
        return None
    info = data.get("page_info")
    if info is None:
        return None
    if not isinstance(info, Mapping):
        return f"'page_info' is {_kind(info)}, not an object"
    cursor, more = info.get("end_cursor"), info.get("has_next_page")
    if cursor is not None and not isinstance(cursor, str):
        return f"'page_info.end_cursor' is {_kind(cursor)}, not text"
    if more is not None and not isinstance(more, bool):
        return f"'page_info.has_next_page' is {_kind(more)}, not true/false"
    return None


def checked(operation: str, body: Any, number: int, *, paging: bool = True) -> None:
    """Raise :class:`SchemaError` naming page ``number`` if ``body`` is not a page.

    Raises:
        SchemaError: see :func:`problem`.
    """
    found = problem(operation, body, paging=paging)
    if found is not None:
        raise SchemaError(f"{operation} page {number}: {found}")


def ad_groups(body: Mapping[str, Any]) -> tuple[list[Any], Mapping[str, Any]]:
    """``(ads, page_info)`` of an ads page (checked by :func:`problem`); ``data.ads``
    flattened, order kept."""
    data = body["data"]
    info = data.get("page_info")
    return [ad for _, ad in grouped_ads(body)], info if isinstance(info, Mapping) else {}


def grouped_ads(body: Mapping[str, Any]) -> list[tuple[int, Any]]:
    """Each ad of an ads page (checked by :func:`problem`), in order, with the number
    of its collation group (the inner list of ``data.ads`` it came in; an ad sent
    outside a list is a group of its own)."""
    out: list[tuple[int, Any]] = []
    for number, group in enumerate(body["data"]["ads"]):
        if isinstance(group, list):
            out.extend((number, ad) for ad in group)
        else:
            out.append((number, group))
    return out
