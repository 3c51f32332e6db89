"""The paid tools' work, in plain threads: check, estimate, fetch; no MCP here.

A call is checked by the library's own checks (:mod:`socialframe._operations`) before
anything else, so bad input is the library's message and nothing is paid. Its worst
case is the pages its bound allows for each item, less those the cache already holds:
those are walked through an offline client over the same cache (which sends nothing,
and stops at the first page the cache lacks). The fetch then walks the same pages
through the server's client, counted in the call's own ledger (see :mod:`.cap`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import _operations as operations
from .._errors import FetchError, NotCachedError
from .cap import Worst, pages_for

if TYPE_CHECKING:
    import pandas as pd

    from .._client import Client
    from .._ledger import Ledger
    from .._models import Page, PageFetch
    from .._operations.base import Operation

#: The most one call may ask for, per item: a bound, not a budget (the budget is the cap).
MOST_ROWS = 100_000
#: The most items (posts, queries) one call may name.
MOST_ITEMS = 50


@dataclass(frozen=True)
class Call:
    """One paid tool call, checked.

    Attributes:
        operation: The operation's record.
        given: The items as the caller gave them.
        params: Each item's first page's parameters (checked).
        bound: The bound's name and value (``("max_comments", 200)``).
        per_page: Rows a page brings at most.
    """

    operation: Operation
    given: list[str]
    params: list[dict[str, str]]
    bound: tuple[str, int]
    per_page: int

    @property
    def max_pages(self) -> int:
        """The pages the bound allows for one item."""
        return pages_for(self.bound[1], self.per_page)

    def pager_limits(self) -> dict[str, Any]:
        """The pager's keyword arguments: the bound as pages (and as ads)."""
        limits: dict[str, Any] = {"max_pages": self.max_pages}
        if self.operation.row_limit is not None:
            limits[self.operation.row_limit] = self.bound[1]
        return limits


def _bound(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}")
    if not 1 <= value <= MOST_ROWS:
        raise ValueError(f"{name} must be from 1 to {MOST_ROWS:,}, got {value}")
    return value


def comments_call(posts: list[str] | str, sort: str, max_comments: int) -> Call:
    """A ``post_comments`` call, checked.

    Raises:
        ValueError: a post, the sort or the bound is not allowed (the library's message).
        TypeError: a value of the wrong type.
    """
    given = [posts] if isinstance(posts, str) else list(posts)
    if not given:
        raise ValueError("posts must name at least one post (an id, urn or URL)")
    if len(given) > MOST_ITEMS:
        raise ValueError(f"at most {MOST_ITEMS} posts a call, got {len(given)}")
    record = operations.COMMENTS
    # One post named several ways (an id, its urn, its URL) is one item: its worst case
    # counted once, its comments once in the rows (the first name given kept).
    items: dict[tuple[tuple[str, str], ...], tuple[str, dict[str, str]]] = {}
    for post in given:
        checked = record.params(post, sort=sort)
        items.setdefault(tuple(sorted(checked.items())), (post, checked))
    bound = _bound("max_comments", max_comments)
    kept = list(items.values())
    return Call(
        record,
        [post for post, _ in kept],
        [checked for _, checked in kept],
        ("max_comments", bound),
        _page_rows(record),
    )


def ads_call(query: str | None, max_ads: int, **filters: Any) -> Call:
    """A ``search_ads`` call, checked.

    Raises:
        ValueError: a filter or the bound is not allowed (the library's message).
        TypeError: a value of the wrong type.
    """
    record = operations.ADS
    params = [record.params(query, **filters)]
    bound = _bound("max_ads", max_ads)
    item = query if query is not None else f"ad_page_id={filters.get('ad_page_id')}"
    return Call(record, [item], params, ("max_ads", bound), _page_rows(record))


def _page_rows(record: Operation) -> int:
    assert record.page_rows is not None, f"{record.name}: no page_rows (the bound needs it)"
    return record.page_rows


def worst(call: Call, offline: Client) -> Worst:
    """The most ``call`` can pay: each item's pages its bound allows, less those the
    cache holds (walked through ``offline``, which sends nothing).

    The pages a cached page says its item has (a post's ``totalPage``) do not lower it:
    the pages after the cached ones are fetched afresh, and a post that grew since has
    more than its old page said (an estimate of 1 page to pay was 3). A page past its
    expiry, which ``offline`` serves, is not free: the server's client fetches it
    afresh, and the pages after it (their tokens may change) too."""
    fetch = offline.page_fetch(call.operation.name)
    paid = cached = 0
    for params in call.params:
        seen, complete = 0, False
        try:
            for page in call.operation.pages(fetch, params, **call.pager_limits()):
                if page.stale:
                    break  # (to be paid, from here on)
                seen += 1
            else:
                complete = True
        except NotCachedError:
            pass
        except FetchError:  # a cached page that cannot be read: fetched again, paid
            pass
        cached += seen
        if not complete:
            paid += max(0, call.max_pages - seen)
    return Worst(
        pages=paid,
        cached=cached,
        per_item=call.max_pages,
        items=len(call.params),
        unit=(call.bound[0], call.per_page),
    )


@dataclass
class Fetched:
    """What a call fetched: each item's pages, and the failure that ended it, if one."""

    groups: list[list[Page]] = field(default_factory=list)
    error: FetchError | None = None


def run(call: Call, fetch: PageFetch, ledger: Ledger, client: Client) -> Fetched:
    """Walk each item's pages through ``fetch``, counted in ``ledger`` beside the
    client's. A failure (a refusal, an interrupt: ``fetch.stop`` set) ends the walk; the
    pages so far are kept (and are in the cache)."""
    got = Fetched()
    with client.fetching():
        for params in call.params:
            pages: list[Page] = []
            got.groups.append(pages)
            try:
                for page in call.operation.pages(
                    lambda p: fetch(p, ledgers=(ledger,)), params, **call.pager_limits()
                ):
                    pages.append(page)
            except FetchError as exc:
                got.error = exc
                return got
    return got


def frame(call: Call, got: Fetched) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The rows of what was fetched (each item's cut to its bound), and per item what
    the service holds beyond them."""
    import pandas as pd

    parts, more = [], []
    limit = call.bound[1]
    for given, pages in zip(call.given, got.groups, strict=False):
        part = call.operation.build(pages)
        kept = part.head(limit)
        parts.append(kept)
        more.append(_more(call, given, pages, len(part), len(kept)))
    if not parts:
        return call.operation.build([]), more
    whole = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    return whole, more


def _more(call: Call, given: str, pages: list[Page], built: int, kept: int) -> dict[str, Any]:
    """What one item's result holds, and whether (and how much) the service has more."""
    item: dict[str, Any] = {"item": given, "rows": kept, "pages": len(pages)}
    if not pages:
        return item
    body, record = pages[-1].body, call.operation
    total = record.total_rows(body) if record.total_rows is not None else None
    if total is not None:  # the service says how many rows the item holds
        item["service_total"] = total
        item["more_on_service"] = max(0, total - kept)
        return item
    if record.walked_whole(pages) is False:
        item["more_on_service"] = "yes (a next page)"
    else:  # read to its end: the rows read beyond the bound are all there are
        item["more_on_service"] = built - kept
    return item
