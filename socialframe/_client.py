"""Client: calls -> pages -> frames; one method per operation, one item or many.

Over 400 lines because it is the user's main page of documentation: half of it
is the docstrings (every argument, return shape, errors, a runnable example) of
the constructor and the two fetches. The work is elsewhere: calls in
``_calls``, paging in ``_pages``, many items in ``_many``, frames in ``_frames``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Self, TypedDict

import pandas as pd

from . import _config as config
from . import _frames as frames
from . import _operations as operations
from ._checks import RateLimit, count_or_none, flag
from ._clock import SYSTEM_CLOCK, Clock
from ._errors import FetchError
from ._fetch import many as many
from ._fetch.many import OnError
from ._fetch.progress import Progress, interactive
from ._ledger import Ledger, Ledgers
from ._models import Page, PageFetch
from ._operations import ActiveStatus, Sort

if TYPE_CHECKING:
    import pandas as pd
    import requests
    from requests.adapters import BaseAdapter

    from ._cache.setting import CacheSetting
    from ._http.transport import Handler
    from ._models import Fetched
    from ._operations.base import Operation


class AdFilters(TypedDict, total=False):
    """The keyword arguments of :meth:`Client.search_ads` besides ``query`` (what
    ``df.social.fetch_ads`` passes on), for code that passes them on too.

    Example:
        >>> from typing import Unpack
        >>> import socialframe as sf
        >>> def coffee_ads(client: sf.Client, **filters: Unpack[sf.AdFilters]) -> object:
        ...     return client.search_ads("coffee", **filters)
        >>> sorted(sf.AdFilters.__annotations__)[:4]
        ['active_status', 'ad_page_id', 'after', 'before']
    """

    ad_page_id: str | int | None
    country: str | None
    active_status: ActiveStatus | bool | None
    after: date | datetime | str | None
    before: date | datetime | str | None
    max_pages: int | None
    max_ads: int | None
    progress: bool | None
    on_error: OnError


class Client:
    """A cached, budgeted connection to the service.

    Every setting is checked here, before anything can be sent or paid; the
    allowed values are listed in ``socialframe._config`` (e.g. ``timeout`` up
    to an hour, ``workers`` up to 256, ``expire_after`` ``-1`` or up to a
    century). Messages never show the key or a header's value.

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
        headers: Extra fixed headers (e.g. ``{"X-RapidAPI-Host": "..."}``): names
            are header names, values Latin-1 text without control characters
            or surrounding spaces; checked here, never shown in a message.
        cache: ``True`` (SQLite in the user cache dir, or ``SOCIALFRAME_CACHE_DIR``),
            a path to a SQLite file or folder, ``False`` for none, or a
            requests-cache backend object.
        offline: Answer from the cache only; a miss raises ``NotCachedError``
            and sends nothing. No key is needed.
        max_cost: USD this client may spend; a call that would go over it is
            refused before it is sent (``BudgetExceededError``). Cached pages
            are still served.
        max_retries: Retries of 429, 5xx, connection errors and ``success: false``
            (0 to 100).
        timeout: Seconds one call may take, from connecting to the last byte of the
            body (a slow or dripping server cannot hold a call longer); retried.
            At most an hour. A body over 64 MB (decoded) is not read: a
            ``NetworkError``, counted as paid when the status was 200.
        progress: A progress bar on multi-page fetches; ``None`` shows it in
            interactive sessions only.
        expire_after: Seconds (or a timedelta) cached pages stay fresh, more than
            0 and at most a century; ``-1`` never expires. Falls back to
            ``SOCIALFRAME_CACHE_EXPIRE``, then never.
        backoff: First retry wait in seconds (0 to 600); doubles on each retry,
            with jitter.
        transport: What sends the requests the cache cannot answer: the network
            by default; a :class:`~socialframe.MockTransport` (or a function
            ``request -> (status, body)``, or any requests adapter) answers them
            in-process, for tests without a server.
        clock: The wall clock, monotonic clock and sleep used for retries,
            ``Retry-After`` waits and arrival times: the system's by default; a
            ``socialframe.sandbox.ManualClock`` makes waits instant in tests.
        workers: Most items (posts, queries) fetched at once by a many-item
            call, each in its own thread; the pages of one item stay in order.
            The frame is the same for any value (items in the order given).
            Under any number of workers the budget holds and a page is paid once.
            1 to 256.
        rate_limit: Most calls sent per second (``2.5``) or as ``"300/min"``,
            shared by all workers of the client (at least one call a day);
            ``None`` for no client limit.
            Pages answered from the cache do not count. A 429 with
            ``Retry-After`` pauses every worker until it has passed.

    Raises:
        ConfigError: no key (unless offline) or no base URL.
        ValueError: a setting outside what is allowed (a ``ConfigError`` too:
            ``max_cost``, ``max_retries``, ``timeout``, ``backoff``, ``workers``,
            ``rate_limit``, ``expire_after``, the key, the URLs, the headers), or
            ``offline`` without a cache.
        TypeError: a setting of the wrong type (``offline="no"``, a header
            value that is not text, ...).

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
        cache: CacheSetting = True,
        offline: bool = False,
        max_cost: float | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        progress: bool | None = None,
        expire_after: float | timedelta | None = None,
        backoff: float = 1.0,
        transport: BaseAdapter | Handler | None = None,
        clock: Clock | None = None,
        workers: int = 4,
        rate_limit: RateLimit = None,
    ) -> None:
        # The key and the headers leave this frame's locals first thing: a bad
        # setting's traceback passes through here, and crash reporters show locals.
        key, named = config.Hidden(api_key), config.Hidden(auth_header)
        extra = config.Hidden(headers)
        del api_key, auth_header, headers
        from ._cache.setting import hidden  # (a team cache's URL may hold a password)

        cache = hidden(cache)
        flag("offline", offline)
        flag("progress", progress, none=True)
        if offline and (cache is False or cache is None):
            raise ValueError("offline=True needs a cache to answer from")
        limits = config.check_limits(
            max_cost=max_cost,
            max_retries=max_retries,
            timeout=timeout,
            backoff=backoff,
            workers=workers,
            rate_limit=rate_limit,
            expire_after=expire_after,
        )
        if clock is not None and not isinstance(clock, Clock):
            raise TypeError(
                "clock must have now(), monotonic() and sleep() (see sf.Clock),"
                f" not {type(clock).__name__}"
            )
        from requests.adapters import BaseAdapter  # requests loads with the first client

        from ._http.transport import MockTransport

        if transport is not None and not isinstance(transport, BaseAdapter):
            if not callable(transport):
                raise TypeError("transport must be a requests adapter or a function")
            transport = MockTransport(transport)
        settings = config.resolve(
            key, base_url=base_url, auth_header=named, headers=extra, require_key=not offline
        )
        self.workers = limits.workers
        self.progress = progress
        from ._http.caller import Caller  # with its retry library: not at import
        from ._http.retry import RetryPolicy

        self._ledger = Ledger(limits.max_cost)  # the budget's one owner: this client
        self._caller = Caller(
            settings,
            cache=cache,
            offline=offline,
            policy=RetryPolicy(limits.max_retries, limits.backoff, limits.timeout),
            expire_after=limits.expire_after,
            transport=transport,
            clock=clock or SYSTEM_CLOCK,
            rate_limit=rate_limit,
        )

    # -- properties ----------------------------------------------------------------------

    @property
    def ledger(self) -> Ledger:
        """Calls paid, served from the cache and failed, and what they cost."""
        return self._ledger

    @property
    def max_cost(self) -> float | None:
        """USD this client may spend (``None``: no budget); the ledger keeps it, in
        whole cents, and refuses a call that would go over it. Setting it changes the
        budget for the calls that follow (``None`` lifts it).

        Raises:
            SettingError: (when set) a value ``max_cost=`` would refuse.
        """
        return self._ledger.max_cost_usd

    @max_cost.setter
    def max_cost(self, usd: float | None) -> None:
        self._ledger.set_max_cost(config.budget(usd))

    @property
    def clock(self) -> Clock:
        """The clock this client waits on and dates pages by (the system's, or the one
        given: a ``ManualClock`` shared with a sandbox simulates time)."""
        return self._caller.clock

    @property
    def offline(self) -> bool:
        """Whether this client answers from the cache only."""
        return self._caller.offline

    @property
    def base_urls(self) -> Mapping[str, str]:
        """The base URL of each operation."""
        return dict(self._caller.settings.base_urls)

    @property
    def session(self) -> requests.Session:
        """The underlying ``requests_cache.CachedSession`` (or ``requests.Session``)."""
        return self._caller.session

    def __repr__(self) -> str:
        if "_caller" not in vars(self):  # (a traceback through __init__ shows its self)
            return "<socialframe.Client (not built)>"
        urls = self._caller.settings.base_urls
        where = urls["ads"] if urls["ads"] == urls["comments"] else dict(urls)
        return (
            f"<socialframe.Client {where!r} auth_header="
            f"{self._caller.settings.auth_header!r} offline={self.offline}"
            f" max_cost={self.max_cost} | {self.ledger}>"
        )

    def close(self) -> None:
        """Close the HTTP session and the cache; ``with Client(...)`` does it on exit.

        Example:
            >>> from socialframe.sandbox import Sandbox
            >>> client = Sandbox().client(in_process=True, cache=False)
            >>> client.close()
        """
        self._caller.close()

    def __enter__(self) -> Self:  # (a subclass's ``with`` keeps its own methods)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cache_report(self) -> pd.DataFrame:
        """What this client's cache holds: one row per cached post or search, and its cost.

        Every page in the cache was paid once ($0.01) when it was stored, so with a
        shared cache (a folder, or a team's Redis) this is what was spent over all
        the runs that filled it. ``socialframe cache report`` prints the same.

        Returns:
            A frame, oldest first: ``operation`` (``comments`` / ``ads``), ``item``
            (the post id, the query, or ``ad_page_id=...``), ``filters`` (``sort=...``,
            ``country=US active_status=active``...), ``pages`` and ``rows`` cached
            (comments; distinct ads), ``first_fetched`` / ``last_fetched`` (UTC),
            ``paid_usd``, ``expired_pages`` (past ``expire_after``: still served
            offline) and ``base_url``. Empty without a cache.

        Example:
            >>> import tempfile
            >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
            >>> cache = tempfile.mkdtemp()
            >>> with Sandbox().client(in_process=True, cache=cache) as client:
            ...     _ = client.post_comments(EXAMPLE_POSTS[82])
            ...     _ = client.search_ads("coffee", country="US", max_pages=1)
            ...     report = client.cache_report()
            >>> report[["operation", "item", "filters", "pages", "rows", "paid_usd"]]
              operation                 item            filters  pages  rows  paid_usd
            0  comments  7384427202391592960  sort=mostRelevant      2    82      0.02
            1       ads               coffee         country=US      1    26      0.01
        """
        from ._cache.inventory import report

        return report(getattr(self.session, "cache", None))

    def page_fetch(self, operation: str, *, fresh_after: datetime | None = None) -> PageFetch:
        """A fetch of raw pages of one operation, for code that walks pages itself (a
        study's refresh): each call goes through this client's cache, retries, rate
        limit, budget and ledger, as :meth:`post_comments` and :meth:`search_ads` do.

        Args:
            operation: ``"comments"`` (a post's comments), ``"ads"`` (an ad search), or
                the name of another registered operation.
            fresh_after: Cached pages fetched before this time are fetched again (and
                paid); ``None``: any cached page counts.

        Returns:
            A :class:`~socialframe._models.PageFetch`: call it with a page's query
            parameters (and ``ledgers=`` to count in beside the client's); set its
            ``stop`` to end the run. Wrap the run in :meth:`fetching`.

        Raises:
            ValueError: no operation has that name.

        Example:
            >>> from socialframe.sandbox import Sandbox
            >>> with Sandbox().client(in_process=True, cache=False) as client:
            ...     with client.fetching():
            ...         got = client.page_fetch("ads")({"query": "coffee"})
            ...     client.ledger.paid_calls
            1
        """
        fetch, stop = self._fetcher(operation, fresh_after=fresh_after)
        return PageFetch(fetch, stop)

    @contextlib.contextmanager
    def fetching(self) -> Iterator[None]:
        """Around a run of :meth:`page_fetch` calls: at its end, one
        :class:`~socialframe.CacheWarning` if pages paid for could not be stored (as
        every operation of the client says it).

        Returns:
            A context manager.

        Example:
            >>> from socialframe.sandbox import Sandbox
            >>> with Sandbox().client(in_process=True, cache=False) as client:
            ...     with client.fetching():
            ...         _ = client.page_fetch("ads")({"query": "coffee"})
        """
        with self._storing():
            yield

    # -- operations ----------------------------------------------------------------------

    def post_comments(
        self,
        post: str | int | Iterable[str | int],
        *,
        sort: Sort = "mostRelevant",
        max_pages: int | None = None,
        progress: bool | None = None,
        on_error: OnError = "raise",
    ) -> pd.DataFrame:
        """All comments of a post (replies included), one row per comment.

        Args:
            post: A post id (text, or an integer of any type), ``urn:li:activity:<id>``,
                or a post URL containing the activity id; an id of more than 20
                digits is refused, never cut. Several posts (a list, any iterable,
                or a pandas Series) give one combined frame whose first column
                holds each row's post as given: named ``post``, or after the
                Series. Bytes, sets (no order), dicts and DataFrames are refused.
            sort: ``"mostRelevant"`` or ``"mostRecent"``.
            max_pages: Read at most this many pages (50 comments each) per post.
            progress: Show a progress bar for this call; ``None`` follows the
                client's ``progress``.
            on_error: For several items: ``"raise"`` (stop at the first item that
                fails, ``.partial`` holding every row so far) or ``"skip"`` (leave
                it out, list it in ``frame.attrs["failed"]``, warn once). A
                refused key or a budget stop ends the run either way.

        Returns:
            A frame with the columns of ``sf.COMMENT_COLUMNS``; a comment sent
            without a readable permalink is a row too, its ``comment_id`` derived
            from it (``id_derived``: see ``sf.comments_frame``).

        Raises:
            ValueError: bad arguments, for any post of a list (before any request).
            TypeError: a post (or ``progress``) of the wrong type (before any request).
            FetchError: see the error tree (``BudgetExceededError``,
                ``APIError``, ...); ``.partial`` holds the frame of the pages
                fetched before the failure.

        Example:
            >>> from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox
            >>> sandbox = Sandbox(clock=ManualClock())  # its world as of 2026-01-01
            >>> with sandbox.client(in_process=True, cache=False) as client:
            ...     comments = client.post_comments(EXAMPLE_POSTS[82])
            ...     several = client.post_comments([EXAMPLE_POSTS[1], EXAMPLE_POSTS[50]])
            >>> len(comments), client.ledger.paid_calls
            (82, 4)
            >>> several.groupby("post", sort=False).size().to_dict()
            {'7384427202391592962': 1, '7384427202391592963': 50}
        """
        count_or_none("max_pages", max_pages, minimum=1)
        flag("progress", progress, none=True)
        many.check_on_error(on_error)
        posts = many.items_of(post, "post")
        record = operations.COMMENTS
        items = many.validate_each(posts, post, lambda p: record.params(p, sort=sort))
        fetch, stop = self._fetcher(record.name)
        show = self._progress_on(progress)

        def one(params: dict[str, str], bar: bool) -> list[Page]:
            pages = record.pages(fetch, params, max_pages=max_pages)
            return self._collect(pages, record, record.label(params), max_pages, bar)

        return self._run(
            posts,
            items,
            one,
            build=_comment_frame,
            stop=stop,
            key=many.key_name(post, "post"),
            empty=frames.comments_frame([]),
            units=record.units,
            show=show,
            on_error=on_error,
        )

    def search_ads(
        self,
        query: str | Iterable[str] | None = None,
        *,
        ad_page_id: str | int | None = None,
        country: str | None = None,
        active_status: ActiveStatus | bool | None = None,
        after: date | datetime | str | None = None,
        before: date | datetime | str | None = None,
        max_pages: int | None = None,
        max_ads: int | None = None,
        progress: bool | None = None,
        on_error: OnError = "raise",
    ) -> pd.DataFrame:
        """Ads of the Meta Ad Library matching a query (or of one ad page).

        Args:
            query: Search text. Either this or ``ad_page_id``. Several queries (a
                list, any iterable, or a pandas Series) give one combined frame
                with the same filters, the ``query`` column telling each row's
                query; a Series named otherwise adds that column first. Bytes,
                sets, dicts and DataFrames are refused.
            ad_page_id: Numeric id of an advertiser page (at most 20 digits).
            country: ISO-3166 alpha-2 code (``"US"``) or ``"ALL"``.
            active_status: ``"active"``, ``"inactive"``, ``"all"``, ``True`` or ``False``.
            after: Ads started on or after this day (date, datetime or ISO string).
            before: Ads started on or before this day.
            max_pages: Read at most this many pages (up to 26 ads each) per query.
            max_ads: Stop calling once this many distinct ads are in; the frame
                holds at most this many rows (per query).
            progress: Show a progress bar for this call; ``None`` follows the
                client's ``progress``.
            on_error: For several items: ``"raise"`` (stop at the first item that
                fails, ``.partial`` holding every row so far) or ``"skip"`` (leave
                it out, list it in ``frame.attrs["failed"]``, warn once). A
                refused key or a budget stop ends the run either way.

        Returns:
            A frame with the columns of ``sf.AD_COLUMNS``, then every other field
            the service sent; an ad sent without ``ad_archive_id`` is a row too, its
            id derived from it (``id_derived``: see ``sf.ads_frame``).

        Raises:
            ValueError: bad arguments, for any query of a list (before any request).
            TypeError: a query (or ``progress``) of the wrong type (before any request).
            FetchError: see the error tree (``BudgetExceededError``,
                ``APIError``, ...); ``.partial`` holds the frame of the pages
                fetched before the failure.

        Example:
            >>> from socialframe.sandbox import Sandbox
            >>> with Sandbox().client(in_process=True, cache=False) as client:
            ...     ads = client.search_ads("running shoes", country="US", max_ads=30)
            >>> len(ads), client.ledger.paid_calls, ads["query"].unique().tolist()
            (30, 2, ['running shoes'])
        """
        count_or_none("max_pages", max_pages, minimum=1)
        count_or_none("max_ads", max_ads, minimum=1)
        flag("progress", progress, none=True)
        many.check_on_error(on_error)
        queries = many.items_of(query, "query")
        record = operations.ADS
        items = many.validate_each(
            queries,
            query,
            lambda q: record.params(
                q,
                ad_page_id=ad_page_id,
                country=country,
                active_status=active_status,
                after=after,
                before=before,
            ),
        )
        fetch, stop = self._fetcher(record.name)
        show = self._progress_on(progress)

        def one(params: dict[str, str], bar: bool) -> list[Page]:
            pages = record.pages(fetch, params, max_pages=max_pages, max_ads=max_ads)
            return self._collect(pages, record, record.label(params), max_pages, bar)

        def build(groups: list[list[Page]]) -> tuple[pd.DataFrame, list[int]]:
            # Each query's ads apart: an ad found by two queries is a row of each. Extras
            # stay as sent: the whole fetch is typed once (see many.finish).
            parts = [frames.untyped_ads_frame(pages).head(max_ads) for pages in groups]
            if len(parts) == 1:
                return parts[0], [len(parts[0])]

            return pd.concat(parts, ignore_index=True), [len(part) for part in parts]

        # The ads frame has a `query` column: a list fills nothing more, a Series named
        # `query` fills it with the queries as given, any other name adds its column.
        return self._run(
            queries,
            items,
            one,
            build=build,
            stop=stop,
            key=many.key_name(query, None),
            empty=frames.ads_frame([]),
            units=record.units,
            show=show,
            on_error=on_error,
        )

    def fetch(
        self,
        operation: str,
        item: Any,
        *,
        max_pages: int | None = None,
        progress: bool | None = None,
        on_error: OnError = "raise",
        **params: Any,
    ) -> pd.DataFrame:
        """The rows of any operation by its name: :meth:`post_comments` and
        :meth:`search_ads` with nothing of their own, for an operation added to
        socialframe's registry (:func:`socialframe.operations.register`) before it has a
        method of its own. Every call goes through the client's cache, retries, rate
        limit, budget and ledger, and several items through its workers.

        Args:
            operation: The operation's name (``"comments"``, ``"ads"``...).
            item: What the operation fetches (a post, a query...), or several of them
                (a list, any iterable, or a pandas Series): one frame, with a column
                naming each row's item unless the frame has one.
            max_pages: Read at most this many pages per item.
            progress: Show a progress bar; ``None`` follows the client's ``progress``.
            on_error: For several items, as :meth:`post_comments` says.
            **params: The operation's other parameters, checked by its record.

        Returns:
            The operation's frame (its record's ``columns`` first).

        Raises:
            ValueError: no operation has that name, or bad arguments (before any
                request).
            FetchError: as :meth:`post_comments`; ``.partial`` holds the rows fetched
                before the failure.

        Example:
            >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
            >>> with Sandbox().client(in_process=True, cache=False) as client:
            ...     rows = client.fetch("comments", EXAMPLE_POSTS[82], sort="mostRecent")
            >>> len(rows), client.ledger.paid_calls
            (82, 2)
        """
        record = operations.get(operation)
        count_or_none("max_pages", max_pages, minimum=1)
        flag("progress", progress, none=True)
        many.check_on_error(on_error)
        given = many.items_of(item, record.units[1])
        items = many.validate_each(given, item, lambda one: record.params(one, **params))
        fetch, stop = self._fetcher(record.name)
        empty = record.build([])

        def one(sent: dict[str, str], bar: bool) -> list[Page]:
            pages = record.pages(fetch, sent, max_pages=max_pages)
            return self._collect(pages, record, record.label(sent), max_pages, bar)

        def build(groups: list[list[Page]]) -> tuple[pd.DataFrame, list[int]]:
            parts = [record.build(pages) for pages in groups]
            whole = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
            return whole, [len(part) for part in parts]

        unit = record.units[1]
        return self._run(
            given,
            items,
            one,
            build=build,
            stop=stop,
            key=many.key_name(item, None if unit in empty.columns else unit),
            empty=empty,
            units=record.units,
            show=self._progress_on(progress),
            on_error=on_error,
        )

    def _run(
        self,
        given: list[Any] | None,
        items: list[dict[str, str]],
        one: Callable[[dict[str, str], bool], list[Page]],
        *,
        build: many.Build,
        stop: threading.Event,
        key: str | None,
        empty: pd.DataFrame,
        units: tuple[str, str],
        show: bool,
        on_error: OnError,
    ) -> pd.DataFrame:
        """One item (``given`` is None) or many, then one CacheWarning if pages were lost."""
        with self._storing():
            if given is None:
                stopped: many.Stopped | None = None
                try:
                    pages = one(items[0], show)
                except many.Stopped as exc:
                    stopped = exc
                except KeyboardInterrupt as exc:  # Ctrl-C: the rows so far ride along
                    exc.partial = many.finish(build([getattr(exc, "pages", [])])[0])  # type: ignore[attr-defined]
                    raise
                if stopped is not None:  # raised outside the except clause: no __context__
                    partial = many.finish(build([stopped.pages])[0])
                    failure = stopped.error.with_partial(partial)
                    raise failure.with_traceback(stopped.error.__traceback__)
                return many.finish(build([pages])[0])
            return many.fetch_all(
                given,
                items,
                one,
                build=build,
                key=key,
                empty=empty,
                progress=Progress(show, units[0], self.ledger, unit=units[1]),
                workers=self.workers,
                on_error=on_error,
                stop=stop.set,
            )

    @contextlib.contextmanager
    def _storing(self) -> Iterator[None]:
        """Around one public fetch: one CacheWarning if paid pages were not stored."""
        try:
            yield
        finally:
            self._caller.warn_unstored()

    def _progress_on(self, progress: bool | None = None) -> bool:
        """This call's choice, else the client's; ``None`` means interactive sessions."""
        chosen = self.progress if progress is None else progress
        return interactive() if chosen is None else bool(chosen)

    def _fetcher(
        self, operation: str, *, fresh_after: datetime | None = None
    ) -> tuple[Callable[..., Fetched], threading.Event]:
        """A fetch of one run of ``operation``, and the run's stop (set when it is
        interrupted).

        Raises:
            ValueError: no operation has that name.

        ``fresh_after`` (a study's refresh): cached pages fetched before it are fetched
        again. The fetch takes ``ledgers`` to keep beside the client's. Each fetch is one
        :class:`socialframe._http.call.Call` (see there).
        """
        from ._http.call import Call

        path = operations.get(operation).path
        stop = threading.Event()
        authors: dict[bytes, Any] = {}  # the run's comment authors, parsed once each

        def fetch(params: Mapping[str, str], ledgers: tuple[Ledger, ...] = ()) -> Fetched:
            ledger = Ledgers(self._ledger, *ledgers) if ledgers else self._ledger
            call = Call(operation, path, params, ledger, stop, authors, fresh_after)
            return self._caller.get(call)

        return fetch, stop

    def _collect(
        self,
        pages: Iterator[Page],
        record: Operation,
        description: str,
        max_pages: int | None,
        show: bool,
    ) -> list[Page]:
        """Drain a pager; on failure, raise :class:`~socialframe._fetch.many.Stopped` with
        the pages fetched before it. The bar counts to the pages the service says the
        item has (a post's ``totalPage``), cut to ``max_pages``; else to ``max_pages``."""
        bar = Progress(show, description, self.ledger)
        got: list[Page] = []
        failure: FetchError | None = None
        try:
            for page in pages:
                got.append(page)
                said = record.total_pages(page.body) if record.total_pages else None
                bar.page(max_pages if said is None else min(said, max_pages or said))
        except FetchError as exc:
            failure = exc
        except KeyboardInterrupt as exc:
            exc.pages = got  # type: ignore[attr-defined]  # (made a frame by the caller)
            raise
        finally:
            bar.close()
        if failure is not None:
            raise many.Stopped(failure, got)  # outside the except clause: no __context__
        return got


def _comment_frame(groups: list[list[Page]]) -> tuple[pd.DataFrame, list[int]]:
    """One comments frame of every post's pages (one build: faster than one per post)."""
    frame = frames.comments_frame([page for pages in groups for page in pages])
    return frame, [sum(len(page.body["data"]) for page in pages) for pages in groups]
