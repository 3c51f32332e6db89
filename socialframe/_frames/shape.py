"""The page shape: what makes a body a page of its operation. One rule, one home.

Pagers, frame builders, the cache filter and the cache report all ask
:func:`problem`, so a page that would fail later is never stored, and a stored
one that fails it is not served.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _operations as operations
from .._errors import SchemaError
from .._operations.base import kind_of


def problem(operation: str, body: Any, *, paging: bool = True) -> str | None:
    """What makes ``body`` not a page of ``operation``, or ``None`` if it is one.

    The one home of the page shape: pagers, frame builders and the cache filter
    all ask here, so a page that would fail later is never stored. What is common
    to every operation (a JSON object, not a failure envelope) is checked here; the
    rest is the operation's record's :attr:`~socialframe._operations.base.Operation.shape`.

    Args:
        operation: The operation's name (``"comments"``, ``"ads"``...).
        body: The decoded JSON body (a dict, or a comments body decoded into
            structs, which reads like one).
        paging: Check the paging fields too (``totalPage``, ``paginationToken``,
            ``page_info``); frame builders, which do not page, skip them.

    Returns:
        A short description of the first problem (``"'data' is a str, not a
        list"``), or ``None``.

    Raises:
        ValueError: no operation has that name: a body is never a page of nothing.

    Example:
        >>> problem("comments", {"data": [], "totalPage": "2"})
        "'totalPage' is '2', not a whole number"
        >>> problem("ads", {"data": {"ads": [[{"ad_archive_id": "1"}]]}}) is None
        True
    """
    record = operations.get(operation)
    if not isinstance(body, Mapping) and not _decoded(body):
        return f"the body is {kind_of(body)}, not a JSON object"
    if body.get("success") is False:
        return f"it is a failure (success: false): {str(body.get('message'))[:200]!r}"
    return record.shape(body, paging)


def _decoded(body: Any) -> bool:
    """Whether ``body`` is a raw body decoded into structs, which reads like its dict
    (:class:`socialframe._frames.structs.CommentsPage`) and whose comments msgspec
    has already checked to be objects."""
    return getattr(type(body), "DECODED", False) is True


def checked(operation: str, body: Any, number: int, *, paging: bool = True) -> None:
    """Raise :class:`SchemaError` naming page ``number`` if ``body`` is not a page:
    what a pager calls on each body before it trusts it.

    Args:
        operation: The operation's name.
        body: The decoded JSON body.
        number: The page's 1-based number within its fetch (the error names it).
        paging: Check the paging fields too (see :func:`problem`).

    Raises:
        SchemaError: see :func:`problem`.

    Example:
        >>> checked("comments", {"data": None, "totalPage": 1}, 2)
        Traceback (most recent call last):
        ...
        socialframe._errors.SchemaError: comments page 2: 'data' is null, not a list
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
