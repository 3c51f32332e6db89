"""The service's operations as records, looked up by name: one home per operation.

The model is requests-cache's ``backends/__init__.py`` (``BACKEND_CLASSES``): a
registry of records, each filled in its own module, and no module outside them
asking which operation it holds. A layer that needs to know something of an
operation (its path, its parameters, the shape of its pages, its pager and frame
builder, how the cache report names its items) asks :func:`get` for the record
(:class:`~socialframe._operations.base.Operation`), and a new operation is one
module and one :func:`register` call::

    comments.COMMENTS   a post's comments  (get-profile-posts-comments)
    ads.ADS             an ad search       (fetch_search_ads_pages)

Everything here runs before any request: a bad argument is a ``ValueError``
(or ``TypeError``) that costs nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from urllib.parse import urlsplit

from .ads import ACTIVE_STATUS, ADS, ADS_PATH, ActiveStatus, ad_params
from .base import Operation
from .checks import MAX_ID_DIGITS
from .comments import COMMENTS, COMMENTS_PATH, SORTS, Sort, comment_params, post_id

#: The operations by name: the two the service sells, and any :func:`register`-ed.
OPERATIONS: dict[str, Operation] = {COMMENTS.name: COMMENTS, ADS.name: ADS}
_BY_PATH: dict[str, Operation] = {op.path: op for op in OPERATIONS.values()}
_LOCK = threading.Lock()


def get(name: str) -> Operation:
    """The record of the operation called ``name``.

    Args:
        name: The operation's name (``"comments"``, ``"ads"``, or one registered).

    Returns:
        Its :class:`~socialframe._operations.base.Operation`.

    Raises:
        ValueError: no operation has that name (never a silent default: a page of an
            unknown operation must not pass for a page of a known one).

    Example:
        >>> get("ads").path
        'fetch_search_ads_pages'
    """
    found = OPERATIONS.get(name) if isinstance(name, str) else None
    if found is None:
        known = [repr(each) for each in OPERATIONS]
        raise ValueError(
            f"operation must be {', '.join(known[:-1])} or {known[-1]}, got {name!r:.60}"
        )
    return found


def names() -> tuple[str, ...]:
    """The names of the operations, as registered.

    Returns:
        The service's two first, then any :func:`register`-ed, in order.

    Example:
        >>> names()
        ('comments', 'ads')
    """
    return tuple(OPERATIONS)


def register(operation: Operation) -> Operation:
    """Add ``operation`` to the registry, so every layer knows it by its name.

    Args:
        operation: The record (its name and its path unknown so far).

    Returns:
        ``operation``.

    Raises:
        ValueError: another operation has its name or its path (the cache knows a
            page's operation by its path alone).

    Example:
        >>> import dataclasses
        >>> copy = dataclasses.replace(get("ads"), name="ads_again", path="ads-again")
        >>> register(copy).name, names()
        ('ads_again', ('comments', 'ads', 'ads_again'))
        >>> _ = unregister("ads_again")
    """
    with _LOCK:
        if operation.name in OPERATIONS or operation.path in _BY_PATH:
            raise ValueError(
                f"an operation named {operation.name!r} or with the path"
                f" {operation.path!r} is registered already"
            )
        OPERATIONS[operation.name] = operation
        _BY_PATH[operation.path] = operation
    return operation


def unregister(name: str) -> Operation:
    """Take the operation ``name`` out of the registry (one that :func:`register` added).

    Args:
        name: The operation's name.

    Returns:
        Its record, now unknown to every layer.

    Raises:
        ValueError: no such operation, or it is one of the service's two.

    Example:
        >>> unregister("ads")
        Traceback (most recent call last):
        ...
        ValueError: 'ads' is one of the service's operations: it stays
    """
    if name in (COMMENTS.name, ADS.name):
        raise ValueError(f"{name!r} is one of the service's operations: it stays")
    with _LOCK:
        operation = get(name)
        del OPERATIONS[name], _BY_PATH[operation.path]
    return operation


def of_url(url: str | None) -> Operation | None:
    """The operation whose path a URL ends in, or None (the cache knows a stored page
    only by its URL)."""
    path = urlsplit(url or "").path
    return _BY_PATH.get(path.rsplit("/", 1)[-1])


def operation_of(url: str | None) -> str:
    """The name of the operation of a URL, as the cache knows a stored page's.

    Args:
        url: A request's URL (its last path segment is the operation's path).

    Returns:
        ``"comments"``, ``"ads"``..., else ``""``.

    Example:
        >>> operation_of("http://127.0.0.1:8000/v1/get-profile-posts-comments?urn=7")
        'comments'
        >>> operation_of("http://127.0.0.1:8000/v1/elsewhere")
        ''
    """
    found = of_url(url)
    return "" if found is None else found.name


def filters_text(params: Mapping[str, str]) -> str | None:
    """The filters among a call's parameters as a person writes them to ``search_ads``:
    the user's names and words, sorted, ``name=value`` apart by spaces (the item and
    nothing else left out); None when there are none. One form for every frame that
    shows filters (a study's ``watched()``, ``refresh()`` and ``changes()``, the cache
    report). Each operation's record says which parameters name the item, and the
    user's names and words of its filters.

    Example:
        >>> filters_text({"query": "shoes", "country": "US", "activeStatus": "ALL"})
        'active_status=all country=US'
        >>> filters_text({"ad_page_id": "123"}) is None
        True
    """
    records = list(OPERATIONS.values())
    items = frozenset().union(*(op.item_params for op in records))
    names_ = {k: v for op in records for k, v in op.filter_names.items()}
    words = {k: v for op in records for k, v in op.filter_words.items()}
    shown = sorted(
        (names_.get(name, name), words.get(name, {}).get(value, value))
        for name, value in params.items()
        if name not in items
    )
    return " ".join(f"{name}={value}" for name, value in shown) or None


__all__ = [
    "ACTIVE_STATUS",
    "ADS",
    "ADS_PATH",
    "COMMENTS",
    "COMMENTS_PATH",
    "MAX_ID_DIGITS",
    "OPERATIONS",
    "SORTS",
    "ActiveStatus",
    "Operation",
    "Sort",
    "ad_params",
    "comment_params",
    "filters_text",
    "get",
    "names",
    "of_url",
    "operation_of",
    "post_id",
    "register",
    "unregister",
]
