"""Client: ties transport, paging and frames together; one method per operation."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from . import _config as config
from . import _frames as frames
from . import _operations as endpoints
from . import _pages as pages_
from ._calls import Fetched, Transport
from ._errors import SocialFrameError
from ._ledger import Ledger, to_cents
from ._progress import Progress, interactive
from ._schema import AD_COLUMNS

if TYPE_CHECKING:
    import pandas as pd


class Client:
    """A cached, budgeted connection to the service.

    Args:
        api_key: The key; falls back to ``SOCIALFRAME_API_KEY``. Never stored
            on disk, never shown in reprs or errors.
        base_url: One base URL, or ``{"ads": url, "comments": url}``; falls back
            to ``SOCIALFRAME_BASE_URL`` (and ``SOCIALFRAME_ADS_URL`` /
            ``SOCIALFRAME_COMMENTS_URL``).
        auth_header: Header carrying the key: ``Authorization`` sends
            ``Bearer <key>``, any other name the bare key (e.g. ``X-RapidAPI-Key``).
            The default, ``"Authorization"``, yields to ``SOCIALFRAME_AUTH_HEADER``
            when that is set; any other value given here wins over it.
        headers: Extra fixed headers (e.g. ``{"X-RapidAPI-Host": "..."}``).
        cache: ``True`` (SQLite in the user cache dir, or ``SOCIALFRAME_CACHE_DIR``),
            a path to a SQLite file or folder, ``False`` for none, or a
            requests-cache backend object.
        offline: Answer from the cache only; a miss raises ``NotCachedError``
            and sends nothing. No key is needed.
        max_cost: USD this client may spend; a call that would go over it is
            refused before it is sent (``BudgetExceededError``). Cached pages
            are still served.
        max_retries: Retries of 429, 5xx, connection errors and ``success: false``.
        timeout: Seconds to wait for the service on each call.
        progress: A progress bar on multi-page fetches; ``None`` shows it in
            interactive sessions only.
        expire_after: Seconds (or a timedelta) cached pages stay fresh; ``-1``
            never expires. Falls back to ``SOCIALFRAME_CACHE_EXPIRE``, then never.
        backoff: First retry wait in seconds; doubles on each retry, with jitter.

    Raises:
        ConfigError: no key (unless offline) or no base URL.

    Example:
        >>> import socialframe as sf
        >>> with sf.Sandbox() as sandbox, sandbox.client(cache=False) as client:
        ...     comments = client.post_comments("7384427202391592960")
        >>> len(comments), client.ledger.paid_calls
        (82, 2)
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | Mapping[str, str] | None = None,
        auth_header: str = "Authorization",
        headers: Mapping[str, str] | None = None,
        cache: object = True,
        offline: bool = False,
        max_cost: float | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        progress: bool | None = None,
        expire_after: float | timedelta | None = None,
        backoff: float = 1.0,
    ) -> None:
        if offline and (cache is False or cache is None):
            raise ValueError("offline=True needs a cache to answer from")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        if not timeout or timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
        if backoff < 0:
            raise ValueError(f"backoff must be >= 0 seconds, got {backoff!r}")
        # An explicit auth_header wins; the default one yields to the environment.
        header = None if auth_header == "Authorization" else auth_header
        settings = config.resolve(
            api_key, base_url=base_url, auth_header=header, headers=headers, require_key=not offline
        )
        self.max_cost = None if max_cost is None else float(max_cost)
        self.progress = progress
        self._transport = Transport(
            settings,
            cache=cache,
            offline=offline,
            max_cost_cents=None if max_cost is None else to_cents(max_cost),
            max_retries=max_retries,
            timeout=float(timeout),
            backoff=float(backoff),
            expire_after=config.resolve_expire(expire_after),
        )

    # -- properties ----------------------------------------------------------------------

    @property
    def ledger(self) -> Ledger:
        """Calls paid, served from the cache and failed, and what they cost."""
        return self._transport.ledger

    @property
    def offline(self) -> bool:
        """Whether this client answers from the cache only."""
        return self._transport.offline

    @property
    def base_urls(self) -> Mapping[str, str]:
        """The base URL of each operation."""
        return dict(self._transport.settings.base_urls)

    @property
    def session(self) -> Any:
        """The underlying ``requests_cache.CachedSession`` (or ``requests.Session``)."""
        return self._transport.session

    def __repr__(self) -> str:
        urls = self._transport.settings.base_urls
        where = urls["ads"] if urls["ads"] == urls["comments"] else dict(urls)
        return (
            f"<socialframe.Client {where!r} auth_header="
            f"{self._transport.settings.auth_header!r} offline={self.offline}"
            f" max_cost={self.max_cost} | {self.ledger}>"
        )

    def close(self) -> None:
        """Close the HTTP session and the cache."""
        self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- operations ----------------------------------------------------------------------

    def post_comments(
        self,
        post: str | int | Iterable[str | int],
        *,
        sort: str = "mostRelevant",
        max_pages: int | None = None,
    ) -> pd.DataFrame:
        """All comments of a post (replies included), one row per comment.

        Args:
            post: A post id, ``urn:li:activity:<id>``, or a post URL containing
                the activity id. A list (or any iterable) of them gives one
                combined frame with a first column ``post`` holding each row's
                post as given.
            sort: ``"mostRelevant"`` or ``"mostRecent"``.
            max_pages: Read at most this many pages (50 comments each) per post.

        Returns:
            A frame with the columns of ``socialframe._frames.COMMENT_COLUMNS``.

        Raises:
            ValueError: bad arguments, for any post of a list (before any request).
            SocialFrameError: see ``socialframe._errors``; ``.partial`` holds the
                pages fetched before the failure.
        """
        return self._post_comments(post, sort=sort, max_pages=max_pages, key="post")

    def search_ads(
        self,
        query: str | Iterable[str] | None = None,
        *,
        ad_page_id: str | int | None = None,
        country: str | None = None,
        active_status: str | bool | None = None,
        after: date | datetime | str | None = None,
        before: date | datetime | str | None = None,
        max_pages: int | None = None,
        max_ads: int | None = None,
    ) -> pd.DataFrame:
        """Ads of the Meta Ad Library matching a query (or of one ad page).

        Args:
            query: Search text. Either this or ``ad_page_id``. A list (or any
                iterable) of queries gives one combined frame with the same
                filters, its ``query`` column telling each row's query.
            ad_page_id: Numeric id of an advertiser page.
            country: ISO-3166 alpha-2 code (``"US"``) or ``"ALL"``.
            active_status: ``"active"``, ``"inactive"``, ``"all"``, ``True`` or ``False``.
            after: Ads started on or after this day (date, datetime or ISO string).
            before: Ads started on or before this day.
            max_pages: Read at most this many pages (up to 26 ads each) per query.
            max_ads: Stop calling once this many distinct ads are in; the frame
                holds at most this many rows (per query).

        Returns:
            A frame with the columns of ``socialframe._frames.AD_COLUMNS``, then
            every other field the service sent.

        Raises:
            ValueError: bad arguments, for any query of a list (before any request).
            SocialFrameError: see ``socialframe._errors``; ``.partial`` holds the
                pages fetched before the failure.
        """
        return self._search_ads(
            query,
            ad_page_id=ad_page_id,
            country=country,
            active_status=active_status,
            after=after,
            before=before,
            max_pages=max_pages,
            max_ads=max_ads,
            key=None,
        )

    # -- internals -----------------------------------------------------------------------

    def _post_comments(
        self, post: object, *, sort: str, max_pages: int | None, key: str
    ) -> pd.DataFrame:
        endpoints.positive("max_pages", max_pages)
        posts = _many(post)
        items = _each(posts, post, lambda p: endpoints.comment_params(p, sort))
        fetch = self._fetcher("comments", endpoints.COMMENTS_PATH)

        def one(params: dict[str, str], progress: bool) -> pd.DataFrame:
            pages = pages_.iter_comment_pages(fetch, params, max_pages=max_pages)
            return self._collect(
                pages, frames.comments_frame, f"comments {params['urn']}", _total_page, progress
            )

        if posts is None:
            return one(items[0], True)
        return self._run_many(posts, items, one, key, "posts", frames.comments_frame([]))

    def _search_ads(
        self,
        query: object,
        *,
        ad_page_id: str | int | None = None,
        country: str | None = None,
        active_status: str | bool | None = None,
        after: date | datetime | str | None = None,
        before: date | datetime | str | None = None,
        max_pages: int | None = None,
        max_ads: int | None = None,
        key: str | None = None,
    ) -> pd.DataFrame:
        endpoints.positive("max_pages", max_pages)
        endpoints.positive("max_ads", max_ads)
        queries = _many(query)
        items = _each(
            queries,
            query,
            lambda q: endpoints.ad_params(
                q,
                ad_page_id=ad_page_id,
                country=country,
                active_status=active_status,
                after=after,
                before=before,
            ),
        )
        fetch = self._fetcher("ads", endpoints.ADS_PATH)

        def one(params: dict[str, str], progress: bool) -> pd.DataFrame:
            pages = pages_.iter_ad_pages(fetch, params, max_pages=max_pages, max_ads=max_ads)
            label = params.get("query") or f"page {params.get('ad_page_id')}"
            frame = self._collect(
                pages, frames.ads_frame, f"ads {label!r}", lambda _: max_pages, progress
            )
            return frame if max_ads is None else frame.head(max_ads)

        if queries is None:
            return one(items[0], True)
        # The ads frame already has a `query` column; a pipeline over another column
        # adds that column too.
        return self._run_many(queries, items, one, key, "queries", frames.ads_frame([]))

    def _run_many(
        self,
        keys: list[Any],
        items: list[dict[str, str]],
        one: Callable[[dict[str, str], bool], pd.DataFrame],
        key: str | None,
        what: str,
        empty: pd.DataFrame,
    ) -> pd.DataFrame:
        """Fetch every item into one frame, under one progress bar over the items.

        An item given twice (the same post as an id and as a URL, say) is fetched
        once; its rows carry the first form given.
        """
        import pandas as pd

        if key is not None and key in empty.columns and key != "query":
            raise ValueError(
                f"the key column {key!r} has the name of a result column; rename it first"
            )
        unique: dict[tuple[tuple[str, str], ...], tuple[Any, dict[str, str]]] = {}
        for item_key, params in zip(keys, items, strict=True):
            unique.setdefault(tuple(sorted(params.items())), (item_key, params))
        bar = Progress(self._progress_on(), what, self.ledger, unit=_UNITS[what])
        done: list[pd.DataFrame] = []

        def combined(last: pd.DataFrame | None = None) -> pd.DataFrame:
            parts = done + ([last] if last is not None else [])
            if not parts:
                return _keyed(empty, key, "")
            # One query's extras may all be missing (typed object) where another's are
            # text: retype after the concat so the frame stays typed (and Parquet-safe).
            return frames.retype_extras(pd.concat(parts, ignore_index=True), AD_COLUMNS)

        try:
            for item_key, params in unique.values():
                try:
                    frame = one(params, False)
                except SocialFrameError as exc:
                    if exc.partial is not None:
                        exc.partial = combined(_keyed(exc.partial, key, item_key))
                    raise
                done.append(_keyed(frame, key, item_key))
                bar.page(len(unique))
        finally:
            bar.close()
        return combined()

    def _progress_on(self) -> bool:
        return interactive() if self.progress is None else bool(self.progress)

    def _fetcher(self, operation: str, path: str) -> Callable[[Mapping[str, str]], Fetched]:
        def fetch(params: Mapping[str, str]) -> Fetched:
            return self._transport.get(operation, path, params)

        return fetch

    def _collect(
        self,
        pages: Iterator[pages_.Page],
        build: Callable[[list[pages_.Page]], pd.DataFrame],
        description: str,
        total: Callable[[pages_.Page], Any],
        progress: bool = True,
    ) -> pd.DataFrame:
        """Drain a pager into a frame; on failure, hand back what was fetched."""
        bar = Progress(progress and self._progress_on(), description, self.ledger)
        got: list[pages_.Page] = []
        try:
            for page in pages:
                got.append(page)
                known = total(page)
                bar.page(known if isinstance(known, int) and known > 0 else None)
        except SocialFrameError as exc:
            exc.partial = build(got)
            raise
        finally:
            bar.close()
        return build(got)


_UNITS = {"posts": "post", "queries": "query"}


def _total_page(page: pages_.Page) -> Any:
    return page.body.get("totalPage")


def _many(value: object) -> list[Any] | None:
    """The items of a list-like argument, or None for a single post / query."""
    if value is None or isinstance(value, str | bytes | int | Mapping):
        return None
    if isinstance(value, Iterable):
        return list(value)
    return None


def _keyed(frame: pd.DataFrame, key: str | None, value: Any) -> pd.DataFrame:
    """The frame with a column ``key`` holding the item it came from, as given.

    First, unless it is the ads frame's own ``query`` column, which it fills.
    """
    if key is None:
        return frame
    import pandas as pd

    keyed = frame.copy()
    column = pd.array([str(value)] * len(keyed), dtype="string")
    if key in keyed.columns:  # only "query": checked before any call
        keyed[key] = column
    else:
        keyed.insert(0, key, column)
    return keyed


def _each(
    many: list[Any] | None, one: object, check: Callable[[Any], dict[str, str]]
) -> list[dict[str, str]]:
    """Validated parameters of every item, before any call; errors name the item."""
    if many is None:
        return [check(one)]
    out = []
    for position, item in enumerate(many):
        try:
            out.append(check(item))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"item {position} ({item!r}): {exc}") from None
    return out
