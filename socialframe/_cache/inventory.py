"""What the cache holds: one row per cached item (a post, a search), and what it cost.

Only pages the service charged for are stored (HTTP 200 pages of the documented
shape, see :mod:`socialframe._cache`), each once, at $0.01. So the cache is also
the record of what was spent over every run that filled it: a team sharing one
cache (a folder or a Redis server) sees what the team has paid for.

A page is known by its URL: the operation by the path, the item (post, or query
and filters) by the parameters other than the paging ones. Pages are read
through the backend's own interface, so the SQLite file and the team cache are
reported alike. Expiry is requests-cache's own (``response.is_expired``): pages
are kept past it (offline mode still serves them), and ``cache clear --expired``
removes them.

Why over 400 lines: it reads two backends alike (SQLite rows, Redis keys), each
page as data and junk left out, groups pages into items per operation, and
builds the report, the summary and the removal list from that one scan.
"""

from __future__ import annotations

import re
import sqlite3
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import pandas as pd

from .. import _operations as operations
from .._errors import CacheWarning
from .._frames.shape import problem
from .._json import decoded
from .._ledger import PRICE_CENTS, usd
from .._models import FETCHED_AT
from .._operations import filters_text, operation_of
from .._schema import mark
from .._time import instant
from .notices import unreadable_message
from .sqlite import Store

#: The columns of :func:`report`, in order.
REPORT_COLUMNS: Final = (
    "operation",
    "item",
    "filters",
    "pages",
    "rows",
    "first_fetched",
    "last_fetched",
    "paid_usd",
    "expired_pages",
    "base_url",
)

# requests-cache keys are hex digests. Others in a team cache's Redis namespace are
# not pages: page locks (``lock:...``), the rate limit's bucket (``rate:...``) and the
# redirects hash; reading them as responses would fail.
_PAGE_KEY: Final = re.compile(r"[0-9a-f]+")
_INTERNAL: Final = ("lock:", "rate:")
_LOOPBACK: Final = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class CachedPage:
    """One page in the cache, as the report sees it."""

    key: str
    operation: str
    base_url: str
    item: tuple[tuple[str, str], ...]
    fetched_at: datetime
    expired: bool
    rows: int
    row_ids: tuple[str, ...]  # the ids its rows are counted by (none: counted as they are)


@dataclass
class _Item:
    pages: int = 0
    rows: int = 0
    ids: set[str] = field(default_factory=set)
    first: datetime | None = None
    last: datetime | None = None
    expired: int = 0


@dataclass(frozen=True)
class Scan:
    """What a cache holds: its pages, and the keys of entries that are not pages
    socialframe can read (junk, another program's, a page pickled by an earlier version
    in a team cache, a body not of its operation's shape)."""

    pages: list[CachedPage]
    unreadable: list[str]


def scan(backend: Any) -> Scan:
    """Every entry of a requests-cache backend, read as data only.

    Args:
        backend: The backend (``client.session.cache``, or one opened by
            ``socialframe._cache.setting.open_backend``).

    Raises:
        NetworkError: the team cache stopped answering.
        OSError: the cache file cannot be read.
    """

    found: list[CachedPage] = []
    unreadable: list[str] = []
    try:
        for key in list(backend.responses.keys()):
            key = str(key)
            if key.startswith(_INTERNAL):
                continue
            response = backend.get_response(key) if _PAGE_KEY.fullmatch(key) else None
            page = _page(key, response) if response is not None else None
            if page is not None:
                found.append(page)
            elif response is not None or key in backend.responses:  # (not gone meanwhile)
                unreadable.append(key)
    except sqlite3.Error as exc:
        raise OSError(f"cannot read the cache file: {exc}") from None
    failures = getattr(backend, "failures", None)
    if failures is not None:
        failures.take_unreadable()  # (counted here, said once by the caller)
    return Scan(found, unreadable)


def pages(backend: Any) -> Iterator[CachedPage]:
    """Every page of either operation in a requests-cache backend; one
    :class:`~socialframe.CacheWarning` if some entries could not be read as pages.

    Args:
        backend: The backend (``client.session.cache``, or one opened by
            ``socialframe._cache.setting.open_backend``).

    Yields:
        One :class:`CachedPage` per stored page; other entries are left out.
    """
    found = scan(backend)
    warn_unreadable(backend, found)
    yield from found.pages


def warn_unreadable(backend: Any, found: Scan) -> None:
    """One :class:`~socialframe.CacheWarning` naming how many entries could not be read."""
    if not found.unreadable:
        return

    where = getattr(backend, "where", None) or getattr(backend, "db_path", "?")
    message = unreadable_message(
        len(found.unreadable),
        where,
        then="left out; a fetch of such a page pays for it again and stores it anew,"
        " and `socialframe cache clear` removes them.",
    )
    warnings.warn(CacheWarning(message), stacklevel=3)


def _page(key: str, response: Any) -> CachedPage | None:
    """The page a stored response is, or None where it is no page of an operation."""
    try:
        urlsplit(response.url or "").port  # noqa: B018 - raises for a URL no one can read
    except ValueError:
        return None
    operation = operation_of(response.url)
    if not operation:
        return None
    rows = _rows(operation, response)
    if rows is None:
        return None
    parts = urlsplit(response.url)
    params = parse_qsl(parts.query, keep_blank_values=True)
    paging = operations.get(operation).paging  # (what moves through an item's pages)
    return CachedPage(
        key=key,
        operation=operation,
        base_url=_base_url(parts),
        item=tuple(sorted((k, v) for k, v in params if k not in paging)),
        fetched_at=_fetched_at(response),
        expired=bool(response.is_expired),
        **rows,
    )


def _base_url(parts: Any) -> str:
    """The base URL the page was fetched from; a loopback port dropped, as in the keys."""
    netloc = parts.netloc
    if parts.hostname in _LOOPBACK:
        netloc = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return str(urlunsplit((parts.scheme, netloc, parts.path.rsplit("/", 1)[0], "", "")))


def _fetched_at(response: Any) -> datetime:
    """When the service sent the page: its stamp, else when requests-cache stored it."""
    found = instant(response.headers.get(FETCHED_AT))
    if found is None:
        created: datetime = response.created_at
        found = instant(created.isoformat()) or datetime.now(UTC)
    return found


def _rows(operation: str, response: Any) -> dict[str, Any] | None:
    """The rows a page brings, as its operation's record counts them (comments; ads by
    id: pages of a search may repeat); None for a body that is not a page of
    ``operation``."""

    body = decoded(response)
    if problem(operation, body, paging=False) is not None:
        return None
    rows, ids = operations.get(operation).count(body)
    return {"rows": rows, "row_ids": ids}


def _describe(operation: str, item: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    """``(item, filters)`` as a person reads them: the post or query, then the rest."""
    given = dict(item)
    return operations.get(operation).item(given), filters_text(given) or ""


def report(backend: Any) -> pd.DataFrame:
    """One row per cached item: what it is, how much of it is cached, what it cost.

    Args:
        backend: A requests-cache backend, or ``None`` for no cache.

    Returns:
        A frame with :data:`REPORT_COLUMNS`, oldest first fetch first: ``pages``
        cached, ``rows`` they hold (comments; distinct ads), ``first_fetched`` /
        ``last_fetched`` (UTC), ``paid_usd`` (each page was paid once, $0.01),
        ``expired_pages`` (past ``expire_after``; still served offline).
    """
    items: dict[tuple[str, str, tuple[tuple[str, str], ...]], _Item] = {}
    for page in pages(backend) if backend is not None else ():
        got = items.setdefault((page.base_url, page.operation, page.item), _Item())
        got.pages += 1
        got.expired += page.expired
        got.rows += page.rows
        got.ids.update(page.row_ids)
        got.first = min(got.first or page.fetched_at, page.fetched_at)
        got.last = max(got.last or page.fetched_at, page.fetched_at)
    rows = []
    for (base_url, operation, item), got in items.items():
        name, filters = _describe(operation, item)
        rows.append(
            {
                "operation": operation,
                "item": name,
                "filters": filters,
                "pages": got.pages,
                "rows": len(got.ids) if operations.get(operation).row_ids else got.rows,
                "first_fetched": got.first,
                "last_fetched": got.last,
                "paid_usd": got.pages * PRICE_CENTS / 100,
                "expired_pages": got.expired,
                "base_url": base_url,
            }
        )
    frame = pd.DataFrame(rows, columns=list(REPORT_COLUMNS))
    for name in ("operation", "item", "filters", "base_url"):
        frame[name] = frame[name].astype("string")
    for name in ("pages", "rows", "expired_pages"):
        frame[name] = frame[name].astype("Int64")
    for name in ("first_fetched", "last_fetched"):
        frame[name] = pd.to_datetime(frame[name], utc=True).astype("datetime64[us, UTC]")
    frame["paid_usd"] = frame["paid_usd"].astype("float64")
    order = frame.sort_values(["first_fetched", "operation", "item"], kind="stable").index
    frame = frame.loc[order].reset_index(drop=True)
    for name in ("first_fetched", "last_fetched"):  # (to the second: when, not how fast)
        frame[name] = frame[name].dt.floor("s")
    return mark(frame, "cache.report")


@dataclass(frozen=True)
class Summary:
    """What ``socialframe cache info`` prints.

    Attributes:
        where: The SQLite file or the team cache's URL (password hidden).
        size_bytes: Bytes on disk or in Redis; ``None`` if unknown.
        pages: Pages stored.
        items: Posts and searches they belong to.
        paid_cents: What those pages cost when they were paid.
        expired_pages: Pages past their expiry (kept, served offline).
        first_fetched: The oldest page's fetch time, if any.
        last_fetched: The newest page's fetch time, if any.
    """

    where: str
    size_bytes: int | None
    pages: int
    items: int
    paid_cents: int
    expired_pages: int
    first_fetched: datetime | None
    last_fetched: datetime | None

    def lines(self) -> list[str]:
        """The summary as ``name: value`` lines."""
        span = (
            f"{self.first_fetched:%Y-%m-%d %H:%M} .. {self.last_fetched:%Y-%m-%d %H:%M} UTC"
            if self.first_fetched and self.last_fetched
            else "-"
        )
        return [
            f"cache:          {self.where}",
            f"size:           {_size(self.size_bytes)}",
            f"items:          {self.items:,}",
            f"pages:          {self.pages:,}",
            f"paid value:     {usd(self.paid_cents)} (each page paid once)",
            f"expired pages:  {self.expired_pages:,}",
            f"fetched:        {span}",
        ]


def _size(size: int | None) -> str:
    if size is None:
        return "unknown"
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size:,} bytes" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def summary(backend: Any, where: str) -> Summary:
    """Totals of a cache (see :class:`Summary`).

    Args:
        backend: A requests-cache backend (``None``: an empty summary).
        where: How to name it (its file or URL).
    """
    frame = report(backend)
    pages_ = int(frame["pages"].sum())
    return Summary(
        where=where,
        size_bytes=size_of(backend) if backend is not None else 0,
        pages=pages_,
        items=len(frame),
        paid_cents=pages_ * PRICE_CENTS,
        expired_pages=int(frame["expired_pages"].sum()),
        first_fetched=frame["first_fetched"].min() if len(frame) else None,
        last_fetched=frame["last_fetched"].max() if len(frame) else None,
    )


def size_of(backend: Any) -> int | None:
    """Bytes the cache takes: the SQLite file with its journal, or its Redis keys."""

    if isinstance(backend, Store):
        db_path = backend.db_path
        files = [Path(f"{db_path}{suffix}") for suffix in ("", "-wal", "-shm")]
        return sum(f.stat().st_size for f in files if f.exists())
    responses = getattr(backend, "responses", None)
    connection = getattr(responses, "connection", None)
    namespace = getattr(responses, "namespace", None)
    if connection is None or namespace is None:
        return None
    total = 0
    for key in connection.scan_iter(f"{namespace}:*"):
        total += int(connection.memory_usage(key) or 0)
    return total


def expired_pages(backend: Any) -> list[CachedPage]:
    """The pages past their expiry (requests-cache's ``is_expired``)."""
    return [page for page in pages(backend) if page.expired]


def remove(backend: Any, chosen: list[CachedPage], unreadable: Iterable[str] = ()) -> None:
    """Delete these pages, and the ``unreadable`` entries (keys of :attr:`Scan.unreadable`),
    through the backend (a SQLite file is vacuumed after).

    Raises:
        OSError: some of them are still there (the file is read-only, another
            process held its lock too long, the team cache stopped answering);
            the backend's own failures are reported, never passed over.
    """
    keys = [page.key for page in chosen] + list(unreadable)
    if not keys:
        return
    reason = ""
    try:
        backend.delete(*keys)
    except Exception as exc:  # the backend's own: sqlite3, our StoreFailed
        reason = str(exc) or type(exc).__name__
    failures = getattr(backend, "failures", None)
    if failures is not None:  # Store counts writes that failed
        reason = failures.take()[1] or reason
    take_undeleted = getattr(backend, "take_undeleted", None)
    if take_undeleted is not None:  # the team cache: why its delete failed
        reason = take_undeleted() or reason
    failure = ""
    try:
        left = sum(key in backend.responses for key in keys)
    except Exception as exc:  # (sqlite3, or the team cache that stopped answering)
        failure = f"cannot tell which pages were removed: {reason or exc}"
    if failure:
        raise OSError(failure)  # (outside the except clause: no chain)
    if left:
        raise OSError(
            f"{left:,} of {len(keys):,} pages could not be removed"
            + (f": {reason}" if reason else "")
        )
