"""The record of one API operation: what every layer needs to know of it, in one place.

Like requests-cache's ``backends/base.py`` (``BaseStorage``), this holds no
behaviour of any one operation: :mod:`.comments` and :mod:`.ads` fill one
:class:`Operation` each, and :mod:`socialframe._operations` keeps them by name.
Every layer asks the record instead of asking which operation it holds: the
client (its path, parameters, pager and frame), the cache (is a body a page of
it, how the cache report names an item and counts its rows), the warm read (how
a stored body is decoded).

The pager and the frame builder live in the layers above (``_fetch``,
``_frames``), which import this one; a record names them as ``"module:attribute"``
and they are imported on first use, so this layer stays below them (the
import-linter contract) and ``import socialframe`` imports no more than before. A
record registered from outside (a test, a plug-in) may give the callables
themselves.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    import pandas as pd

    from .._models import Fetched, Page

T = TypeVar("T")

#: A callable, or where to import it from: ``"package.module:attribute"``.
Ref = Callable[..., T] | str

#: ``fetch(params) -> Fetched``: how a pager asks for one page (see ``_fetch.pages``).
Fetch = Callable[[Mapping[str, str]], "Fetched"]


def resolve(ref: Ref[T]) -> Callable[..., T]:
    """The callable ``ref`` is, or names (``"package.module:attribute"``)."""
    if not isinstance(ref, str):
        return ref
    module, _, name = ref.partition(":")
    return cast("Callable[..., T]", getattr(importlib.import_module(module), name))


def named(ref: T | str) -> T:
    """The object ``ref`` is, or names (``"package.module:attribute"``): a table of
    builders, say, that a record names in a layer above its own."""
    if not isinstance(ref, str):
        return ref
    module, _, name = ref.partition(":")
    return cast("T", getattr(importlib.import_module(module), name))


def whole(value: Any) -> int | None:
    """``value`` if it is a whole number (not a bool) at least 0, else None: a count
    read off a page, which the service may send as anything."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def kind_of(value: Any) -> str:
    """How a shape problem names a value it did not expect: ``null``, ``a str``..."""
    return "null" if value is None else f"a {type(value).__name__}"


@dataclass(frozen=True, kw_only=True)
class Operation:
    """One operation of the service, as every layer of socialframe needs to know it.

    Attributes:
        name: How socialframe names it: in errors (``"comments page 2: ..."``), the
            ledger's refusals, the cache report's ``operation`` column, the frame's
            kind (``df.attrs["socialframe"]``).
        path: The last segment of its URL path (``get-profile-posts-comments``); the
            cache knows a stored page's operation by it.
        base_url: Which of the client's base URLs (``Client.base_urls``) serves it:
            ``"comments"`` (the professional network's host) or ``"ads"``.
        params: ``params(item, **filters) -> dict``: the first page's query
            parameters of one item, checked, in the service's forms; raises
            ``ValueError`` / ``TypeError`` before anything is sent.
        shape: ``shape(body, paging) -> problem or None``: what makes a JSON object
            (not a failure envelope: :func:`socialframe._frames.shape.problem`
            checks that first) not a page of this operation; ``paging`` says whether
            to check the paging fields too.
        pager: ``pager(fetch, params, max_pages=..., **more) -> Iterator[Page]``:
            walks an item's pages (each ``Page`` carries its ``Fetched``'s
            ``from_cache`` and ``stale``).
        frame: ``frame(pages) -> DataFrame``: the typed frame of pages (of one item
            or several); ``frame([])`` is the empty frame with :attr:`columns`.
        columns: The frame's first columns, in order (its contract in ``_schema``).
        rows: ``rows(body) -> int``: the rows a page (of the right shape) brings,
            which the cache report adds up; or None, given :attr:`row_ids`.
        row_ids: ``row_ids(body) -> ids``, or None: when given, the cache report
            counts an item's distinct ids (pages of an ad search repeat ads) rather
            than adding up :attr:`rows`.
        item_params: The parameters that name the item (the rest are filters).
        paging: The parameters that move through an item's pages: a stored page's
            item is its parameters without them. By default the service's own
            (``page``, ``paginationToken``, ``end_cursor``), as for every record before
            it could say.
        item: ``item(params) -> str``: the item as the cache report names it (the
            post id, the query, ``ad_page_id=...``).
        filter_names: A filter's parameter -> the name the user gives it (the
            cache report and a study write filters in the user's words).
        filter_words: A filter's parameter -> {the service's value: the user's}.
        label: ``label(params) -> str``: the item on a progress bar.
        decode: ``decode(content, memo) -> body or None``, or None: a faster decoding
            of a stored page's bytes than plain JSON (comments straight into structs),
            None where it cannot tell; ``memo`` is the run's (see ``_cache.warm``).
        report_facts: ``facts(frame, tz) -> [(label, text), ...]``: what the header of
            a report (``df.social.report``) says its frame holds; None: its frames
            have no report.
        report_sections: The builders of its report's sections, in order (see
            :mod:`socialframe._display.sections`); None: no report.
        noun: One row, as a person says it (``"comment"``, ``"ad"``).
        units: The items, plural and singular, as a run of several counts them
            (``("posts", "post")``).
        page_rows: The most rows one page brings (50 comments; 26 ads, whole groups
            of variants up to it): how many pages a bound of rows may take. None:
            not known (an agent's tool cannot bound a call of it by rows).
        row_limit: The pager's keyword that stops it after so many rows
            (``"max_ads"``); None: it stops by pages alone.
        total_rows: ``total_rows(body) -> int or None``: the rows the service says
            the item holds in all, read off one of its pages (a post's ``total``);
            None: its pages do not say.
        total_pages: ``total_pages(body) -> int or None``: the pages the service says
            the item has (``totalPage``); None: its pages do not say.
        ended: ``ended(pages) -> bool``: whether an item's pages, in order, end
            where the item does (its last page says it is the last), not where a
            bound or a fault stopped the walk; None: its pages do not say.

    Example:
        >>> from socialframe import operations
        >>> comments = operations.get("comments")
        >>> comments.path, comments.noun, comments.columns[0]
        ('get-profile-posts-comments', 'comment', 'post_urn')
    """

    name: str
    path: str
    base_url: str
    params: Callable[..., dict[str, str]]
    shape: Callable[[Any, bool], str | None]
    pager: Ref[Iterator[Page]]
    frame: Ref[pd.DataFrame]
    columns: tuple[str, ...]
    rows: Ref[int] | None = None
    row_ids: Ref[Sequence[str]] | None = None
    item_params: frozenset[str]
    paging: frozenset[str] = frozenset({"page", "paginationToken", "end_cursor"})
    item: Callable[[Mapping[str, str]], str]
    filter_names: Mapping[str, str] = field(default_factory=dict)
    filter_words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    label: Callable[[Mapping[str, str]], str]
    decode: Ref[Any] | None = None
    report_facts: Ref[list[tuple[str, str]]] | None = None
    report_sections: Sequence[Callable[..., Any]] | str | None = None
    noun: str
    units: tuple[str, str]
    page_rows: int | None = None
    row_limit: str | None = None
    total_rows: Callable[[Any], int | None] | None = None
    total_pages: Callable[[Any], int | None] | None = None
    ended: Ref[bool] | None = None

    def __post_init__(self) -> None:
        if (self.rows is None) == (self.row_ids is None):
            raise ValueError(f"operation {self.name!r}: give rows or row_ids (one of them)")
        if not self.path or "/" in self.path:
            raise ValueError(f"operation {self.name!r}: path is one segment, got {self.path!r}")
        if self.page_rows is not None and self.page_rows < 1:
            raise ValueError(f"operation {self.name!r}: page_rows is at least 1")
        for names in ("item_params", "paging"):  # (a text would be tested by substring)
            if isinstance(getattr(self, names), str | bytes):
                raise TypeError(f"operation {self.name!r}: {names} is a set of names")

    def pages(self, fetch: Fetch, params: Mapping[str, str], **limits: Any) -> Iterator[Page]:
        """The pages of one item, walked by :attr:`pager` over ``fetch``.

        Args:
            fetch: ``fetch(params) -> Fetched``: asks for one page (the client's,
                through its cache, budget and ledger).
            params: The item's first page's parameters (from :attr:`params`).
            **limits: For the pager (``max_pages=``...).

        Returns:
            An iterator of :class:`~socialframe._models.Page`.

        Example:
            >>> from datetime import UTC, datetime
            >>> from socialframe._models import Fetched
            >>> from socialframe._operations import COMMENTS
            >>> body = {"success": True, "data": [], "totalPage": 1}
            >>> fetch = lambda sent: Fetched(body, datetime.now(UTC), from_cache=False)
            >>> [page.page for page in COMMENTS.pages(fetch, {"urn": "7"}, max_pages=None)]
            [1]
        """
        return resolve(self.pager)(fetch, params, **limits)

    def walked_whole(self, pages: Sequence[Page]) -> bool | None:
        """Whether ``pages`` end where their item does (:attr:`ended`).

        Args:
            pages: An item's pages, in order.

        Returns:
            True or False, or None where its pages do not say (no :attr:`ended`).

        Example:
            >>> from datetime import UTC, datetime
            >>> from socialframe._models import Page
            >>> from socialframe._operations import COMMENTS
            >>> body = {"data": [{}], "totalPage": 2}
            >>> COMMENTS.walked_whole([Page(body, 1, datetime.now(UTC), False, "7")])
            False
        """
        return None if self.ended is None else resolve(self.ended)(list(pages))

    def build(self, pages: Sequence[Page]) -> pd.DataFrame:
        """The typed frame of ``pages`` (:attr:`frame`).

        Args:
            pages: Pages of this operation, of one item or several.

        Returns:
            The frame, its columns starting with :attr:`columns`.

        Example:
            >>> from socialframe._operations import ADS
            >>> list(ADS.build([]).columns) == list(ADS.columns)
            True
        """
        return resolve(self.frame)(list(pages))

    def count(self, body: Any) -> tuple[int, tuple[str, ...]]:
        """``(rows, ids)`` a page brings, as the cache report counts them.

        Args:
            body: A page's body, of this operation's shape.

        Returns:
            The rows and, where rows are counted by id (:attr:`row_ids`), their ids;
            else ``()``.

        Example:
            >>> from socialframe._operations import COMMENTS
            >>> COMMENTS.count({"data": [{}, {}]})
            (2, ())
        """
        if self.row_ids is None:
            assert self.rows is not None  # (one of the two: __post_init__)
            return resolve(self.rows)(body), ()
        ids = tuple(resolve(self.row_ids)(body))
        return len(ids), ids

    def decoded(self, content: bytes, memo: dict[bytes, Any] | None) -> Any:
        """A stored page's body by :attr:`decode`, or None (decode it as plain JSON).

        Args:
            content: The stored page's bytes.
            memo: The run's memo of bodies already decoded, or None.

        Returns:
            The body, or None where :attr:`decode` cannot tell (or there is none).

        Example:
            >>> from socialframe._operations import ADS
            >>> ADS.decoded(b'{"data": {}}', None) is None
            True
        """
        return None if self.decode is None else resolve(self.decode)(content, memo)
