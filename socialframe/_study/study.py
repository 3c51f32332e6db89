"""``sf.Study``: watch posts and advertisers over time, paying only for what may be new.

A study is a folder (:mod:`socialframe._study.dataset`): what it watches, and every
version of every comment and ad its refreshes saw, as Parquet any tool reads. Its
answers (:meth:`Study.comments`, :meth:`Study.ads`, :meth:`Study.changes`,
:meth:`Study.runs`, :meth:`Study.sql`) are DuckDB queries over those files
(:mod:`socialframe._study.queries`); a refresh (:mod:`socialframe._study.refresh`)
asks the service for the fewest pages that may hold what is new.
"""

from __future__ import annotations

import functools
import numbers
import os
import re
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import pandas as pd

from .._checks import flag
from .._config import Hidden
from .._errors import StudyError
from .._schema import mark
from . import migration, queries, watch
from .dataset import Dataset
from .notify import checked as notify_checked
from .run import OnError, Refresh
from .searches import STOPPED_AFTER

if TYPE_CHECKING:
    from .._client import Client


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _no_context(method: _Method) -> _Method:
    """A public method whose StudyError carries nothing it was raised from: the error a
    storage library raised (said in the message, and suppressed by ``from None``) stays
    reachable through ``__context__`` otherwise, with its traceback, whose frames hold
    the storage options (an S3 secret key, a session token): crash reporters walk it."""

    @functools.wraps(method)
    def method_(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except StudyError as exc:
            error = exc
        del args, kwargs  # (the caller's values: the storage options among them)
        error.__cause__ = error.__context__ = None  # (raised here, outside the handler)
        error.__suppress_context__ = True
        raise error

    return method_  # type: ignore[return-value]


class Study:
    """Posts and ad searches watched over time, every version kept in a folder.

    Args:
        path: The study's folder (any path); created on the first write. A folder
            holding other files is refused, never written into.

    Example:
        >>> import tempfile
        >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
        >>> study = Study(tempfile.mkdtemp() + "/brand-watch")
        >>> study.add_posts([EXAMPLE_POSTS[82], f"urn:li:activity:{EXAMPLE_POSTS[82]}"])
        >>> study.watched()[["kind", "item"]]
           kind                 item
        0  post  7384427202391592960
    """

    @_no_context
    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        storage_options: dict[str, object] | None = None,
    ) -> None:
        options = Hidden(storage_options)  # (no frame of an error holds them as given)
        del storage_options
        if isinstance(path, str) and not path.strip():
            raise ValueError("a study is a folder or a bucket URI: give one (not an empty one)")
        self._data = Dataset(path, options)
        if migration.needed(self._data):  # (a folder study of the format before Delta)
            migration.migrate(self._data)
        self._data.opened()  # refused now if the folder is not a study, or newer

    @_no_context
    def as_of(self, when: object) -> Study:
        """The study as it was then: a read-only Study (every answer as it was; a
        refresh or an add is refused).

        Args:
            when: A time (``"2026-11-01"``, an ISO time, a datetime or a date; UTC
                where it names no zone; or a span back from now, ``"7d"``): the tables
                as of their last commit at or before it (a commit's time is the
                committing machine's clock, not a refresh's ``at``);
                or a whole number: the version of the ``runs`` table (each refresh
                commits one), the other tables as they were at its commit.

        Returns:
            A read-only Study: its answers (``comments()``, ``changes()``, ``sql()``...)
            as they were then.

        Raises:
            ValueError: ``when`` is neither a time nor a version.

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).as_of("2026-11-01").runs().empty
            True
        """
        if isinstance(when, bool):
            raise TypeError("as_of takes a time or a version of the runs table, not a bool")
        at: datetime | int
        if isinstance(when, numbers.Integral):  # (numpy's too: a frame's version)
            if when < 0:
                raise ValueError(f"a version is >= 0, not {when}")
            at = int(when)
        else:
            at = _since(when, "as_of's when")  # (a span, "7d", is back from now)
        past = Study.__new__(Study)
        past._data = self._data.at(at)
        return past

    @_no_context
    def compact(self) -> pd.DataFrame:
        """Rewrite each table's small files (one a refresh) into fewer, larger ones, so
        that the number of files follows the data, not the number of refreshes. The
        history is kept: :meth:`as_of` still reads every version before. A refresh
        compacts by itself every :data:`~socialframe._study.dataset.COMPACT_EVERY`
        refreshes.

        Returns:
            One row per table: ``table``, ``files_before``, ``files_after``.

        Raises:
            StudyError: the study is read-only (:meth:`as_of`) or cannot be written.

        Example:
            >>> import tempfile
            >>> study = Study(tempfile.mkdtemp())
            >>> study.add_posts("7384427202391592960")
            >>> study.compact().set_index("table").loc["watched", "files_after"]
            np.int64(1)
        """
        counts = self._data.compact()
        return pd.DataFrame(
            {
                "table": pd.array(list(counts), dtype="string"),
                "files_before": pd.array([b for b, _ in counts.values()], dtype="Int64"),
                "files_after": pd.array([a for _, a in counts.values()], dtype="Int64"),
            }
        )

    @property
    def path(self) -> os.PathLike[str] | str:
        """The study's folder (a Path), or its URI in a bucket (text)."""
        return self._data.path

    def __repr__(self) -> str:
        return f"Study({self._data.shown!r})"

    # -- what is watched -------------------------------------------------------------------

    @_no_context
    def add_posts(self, posts: object) -> None:
        """Watch posts: ids, ``urn:li:activity:<id>`` or URLs; one, a list or a Series.

        A post already watched (written any way) is not added twice.

        Args:
            posts: One post, or several (a list, any iterable, a Series): each checked
                as :meth:`~socialframe.Client.post_comments` checks it.

        Raises:
            ValueError / TypeError: a post that is not one; nothing is added.
            StudyError: the folder cannot be written.

        Example:
            >>> import tempfile
            >>> study = Study(tempfile.mkdtemp())
            >>> study.add_posts(["7384427202391592960", "urn:li:activity:7384427202391592960"])
            >>> study.watched()["item"].tolist()
            ['7384427202391592960']
        """
        self._add(watch.posts(posts))

    @_no_context
    def add_ads(
        self,
        query: str | None = None,
        *,
        page_id: str | int | None = None,
        country: str | None = None,
        active_status: Literal["active", "inactive", "all"] | bool | None = None,
    ) -> None:
        """Watch an ad search (``query``) or an advertiser (``page_id``), with filters
        as :meth:`~socialframe.Client.search_ads` takes them.

        Args:
            query: Search text. Either this or ``page_id``.
            page_id: Numeric id of an advertiser page.
            country: ISO-3166 alpha-2 code (``"US"``) or ``"ALL"``.
            active_status: ``"active"``, ``"inactive"``, ``"all"``, ``True`` or ``False``.

        Raises:
            ValueError / TypeError: bad arguments (as ``search_ads`` says); nothing added.
            StudyError: the folder cannot be written.

        Example:
            >>> import tempfile
            >>> study = Study(tempfile.mkdtemp())
            >>> study.add_ads("running shoes", country="us", active_status="all")
            >>> study.add_ads(page_id=123456)
            >>> for row in study.watched().itertuples():
            ...     print(row.item, row.filters)
            running shoes active_status=all country=US
            page 123456 <NA>
        """
        self._add(
            [watch.search(query, page_id=page_id, country=country, active_status=active_status)]
        )

    def _add(self, items: list[dict[str, Any]]) -> None:
        known = {watch.key(w) for w in self._data.read(watched_only=True).watched}
        new: dict[str, dict[str, Any]] = {}
        for item in items:
            if watch.key(item) not in known:
                new.setdefault(watch.key(item), item)
        # (one commit; another process adding the same item meanwhile: it is read once)
        self._data.add_watched(list(new.values()))

    @_no_context
    def watched(self) -> pd.DataFrame:
        """What the study watches.

        Returns:
            One row per watched item, in the order added: ``kind`` (``post`` / ``ads``),
            ``item`` (the post id; the search text or ``page <id>``), ``filters`` (the
            search's filters as ``search_ads`` names them, ``active_status=all
            country=US``, as :meth:`refresh` and :meth:`changes` show them; none for a
            post) and ``added_at`` (UTC, to the second).

        Example:
            >>> import tempfile
            >>> study = Study(tempfile.mkdtemp())
            >>> study.add_posts("7384427202391592960")
            >>> study.watched().columns.tolist()
            ['kind', 'item', 'filters', 'added_at']
        """
        manifest = self._data.read(watched_only=True)
        added = pd.to_datetime([w["added_at"] for w in manifest.watched], utc=True)
        frame = pd.DataFrame(
            {
                "kind": pd.array([w["kind"] for w in manifest.watched], dtype="string"),
                "item": pd.array([w["item"] for w in manifest.watched], dtype="string"),
                "filters": pd.array(
                    [watch.filters_text(w) for w in manifest.watched], dtype="string"
                ),
                # (an older study wrote microseconds: when it was added, not how fast)
                "added_at": added.astype("datetime64[us, UTC]").floor("s"),
            }
        )
        return mark(frame, "study.watched")

    # -- refreshing ------------------------------------------------------------------------

    @_no_context
    def refresh(
        self,
        client: Client,
        *,
        full: bool = False,
        max_cost: float | None = None,
        on_error: OnError = "raise",
        stopped_after: timedelta = STOPPED_AFTER,
        recheck_pages: int = 0,
        notify: str | None = None,
        confirm_stops: bool = False,
    ) -> pd.DataFrame:
        """Look at every watched item again, paying only for pages that may hold
        what is new (see :mod:`socialframe._study.refresh`), and keep what is found.

        Args:
            client: The client to fetch with (its cache, workers, rate limit and
                budget apply; it must not be offline).
            full: Walk every page of the posts that are not complete (``missing`` > 0).
            max_cost: USD this refresh may spend (on top of the client's own budget).
            on_error: ``"raise"``: the first item that fails stops the refresh;
                ``"skip"``: it is left out (``complete`` false) with one warning.
                Either way what was fetched is kept, and a budget stop or a refused
                key ends the refresh.
            stopped_after: How far apart two complete walks of a search that both
                lacked a running ad must be to prove it stopped (3 days by default):
                the first walk only makes it ``missing`` (the service's paging drops
                ads now and then), the second, this long after, ``stopped``. A
                sighting running in between makes it running again.
            recheck_pages: Pages of each post to read again past the first holding a
                known comment (0 by default): edits in recent threads are found there
                (and deletions, where that reaches the post's last page), at up to this
                many calls more a post, each refresh. Their price is in the rows'
                ``paid_calls`` / ``cost_usd`` and in each change's ``cost_usd``.
            confirm_stops: Before calling an ad stopped by its absence (two complete
                walks ``stopped_after`` apart), look for it once more: one search by its
                advertiser's page id from its start day (one per advertiser, start day
                and country: several ads may share it), usually one call. Found running,
                it is not stopped; found stopped, the service said so; not found, it is
                stopped. Off by default: each such search is paid (a cent a page),
                counted in ``max_cost``, in its search's row and in the change's
                ``cost_usd``, and named in its ``evidence``. A search that fails leaves
                the plain rule.
            notify: An ``http(s)://`` webhook URL (or, with apprise installed, the
                ``notify`` extra, any URL apprise knows: ``mailto://``, ``slack://``,
                ...): once the refresh is kept, a JSON POST (or apprise's message)
                of its digest (what it paid, the counts by change, the first changes;
                see :mod:`socialframe._study.notify`). A failure to send it is a
                :class:`~socialframe.NotifyWarning`, never an error.

        Returns:
            One row per watched item: ``kind``, ``item``, ``new``, ``changed``,
            ``paid_calls``, ``cost_usd``, ``complete``, ``missing``, and ``filters``
            (a search's filters as :meth:`watched` shows them, telling two searches of
            one text apart; none for a post). Where another refresh (another machine's,
            another process's) held the study while this one waited for its lease, the
            items it read whole are not read again and have no row here (no row at all:
            nothing was left to do, nothing was paid).

        Raises:
            StudyError: another refresh holds the study's lease still after waiting
                (naming who, and until when), or it cannot be written; a
                file of it is damaged or not the study's, or a link is in the way
                (named; all checked before the first paid call).
            BudgetExceededError, FetchError: after what was fetched is kept;
                ``.partial`` is the frame above.

        Warns:
            CacheWarning: pages paid for that the client's HTTP cache could not store
                (its disk full, its file read-only); the study keeps their rows.

        Example:
            >>> import tempfile
            >>> from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox
            >>> study = Study(tempfile.mkdtemp())
            >>> study.add_posts([EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]])
            >>> clock = ManualClock()  # the sandbox's world as of 2026-01-01
            >>> sandbox = Sandbox(clock=clock)
            >>> with sandbox.client(in_process=True, cache=False, clock=clock) as client:
            ...     first = study.refresh(client)
            ...     again = study.refresh(client)  # nothing new: one page a post
            >>> first[["item", "new", "paid_calls", "complete", "missing"]]
                              item  new  paid_calls  complete  missing
            0  7384427202391592960   82           2      True        0
            1  7384427202391592963   50           1      True        0
            >>> again["paid_calls"].tolist(), again["new"].tolist()
            ([1, 1], [0, 0])
        """
        from .._client import Client

        if not isinstance(client, Client):
            raise TypeError(f"client must be a socialframe Client, not {type(client).__name__}")
        flag("full", full)
        flag("confirm_stops", confirm_stops)
        if on_error not in ("raise", "skip"):
            raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
        if client.offline:
            raise ValueError("a refresh asks the service what is new: give a client not offline")
        if not self._data.read(watched_only=True).watched:
            raise ValueError(
                f"{self._data.path} watches nothing yet: add posts or searches first"
                " (add_posts, add_ads)"
            )
        if not isinstance(stopped_after, timedelta) or stopped_after < timedelta(0):
            raise ValueError(f"stopped_after must be a timedelta >= 0, got {stopped_after!r:.40}")
        webhook = notify_checked(notify)
        if isinstance(recheck_pages, bool) or not isinstance(recheck_pages, int):
            raise TypeError(f"recheck_pages must be a whole number, not {recheck_pages!r:.40}")
        if recheck_pages < 0:
            raise ValueError(f"recheck_pages must be >= 0, got {recheck_pages}")
        from .._config import budget as checked_budget

        budget = checked_budget(max_cost)  # (Money, as the client's: None for no budget)
        # Paid pages the HTTP cache could not store (a full disk): one CacheWarning, as
        # every fetch of the client says it.
        known = {entry["id"] for entry in self._data.read().refreshes}
        with self._data.writing() as manifest, client.fetching():
            self._data.check_folders()  # before anything is paid: no link to write through
            # Another refresh held the study while this one waited: what it read whole is
            # not read (nor paid for) again.
            done = manifest.done_since(known)
            manifest.watched = [w for w in manifest.watched if watch.key(w) not in done]
            if not manifest.watched:
                return _nothing_left()
            frame = Refresh(
                self._data,
                manifest,
                client,
                full,
                budget,
                on_error,
                stopped_after,
                recheck_pages,
                confirm_stops,
            ).run()
        if webhook is not None:
            self._notify(webhook, frame)
        return frame

    def _notify(self, url: str, frame: pd.DataFrame) -> None:
        """Send the digest of the refresh just kept (see :mod:`.notify`)."""
        from . import notify

        run = self._data.read().refreshes[-1]
        at = pd.Timestamp(run["at"])
        changes = self.changes(since=at.to_pydatetime())  # (not the whole history)
        changes = changes[changes["at"] == at]
        payload = notify.digest(self._data.name, run, frame, changes)
        notify.send(url, {**payload, "at": str(run["at"])})

    # -- reading ---------------------------------------------------------------------------

    @_no_context
    def comments(self) -> pd.DataFrame:
        """Every comment the study has seen.

        Returns:
            One row per comment (its latest version), newest first: the comments
            frame's columns (``sf.COMMENT_COLUMNS``, typed alike), then ``item`` (the
            watched post), ``first_seen`` and ``last_seen`` (the refreshes that first
            and last saw it). A comment sent without a readable permalink is kept
            under its derived id (``id_derived``); one seen with its permalink and
            without is one comment, shown under its id whenever a sighting had it.

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).comments().columns[-3:].tolist()
            ['item', 'first_seen', 'last_seen']
        """
        frame = self._query(
            "select * exclude (refresh, item, watch, seen_at, first_seen, last_seen),"
            " item, first_seen, last_seen"
            " from comments order by created_at desc nulls last, comment_id",
            arrow=True,
            views=("comments",),
        )
        return mark(queries.read_as(self._data, frame, queries.comment_dtypes()), "study.comments")

    @_no_context
    def ads(self) -> pd.DataFrame:
        """Every ad the study has seen.

        Returns:
            One row per ad (its latest version; one sent without ``ad_archive_id``
            under its derived id, as comments): the ads frame's columns
            (``sf.AD_COLUMNS``), ``extra`` (every other field, as JSON text), then
            ``item`` (the watched search), ``first_seen``, ``last_seen``, ``state``
            (``running``, ``missing`` or ``stopped``: its state now; a missing ad
            still counts as running, ``is_active`` true) and ``stopped_seen`` (the
            refresh that proved the current stop: null unless ``state`` is
            ``stopped``, and for an ad first seen already stopped; ``is_active`` is
            false while it is stopped). See docs/studies.md for the rules.

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).ads().columns[-5:].tolist()
            ['item', 'first_seen', 'last_seen', 'state', 'stopped_seen']
        """
        frame = self._query(
            "select * exclude (refresh, item, watch, seen_at, first_seen, last_seen,"
            " state, stopped_seen),"
            " item, first_seen, last_seen, state, stopped_seen from ads"
            " order by start_date desc nulls last, ad_archive_id",
            views=("ads",),
        )
        return mark(queries.read_as(self._data, frame, queries.ad_dtypes()), "study.ads")

    @_no_context
    def changes(self, since: object = None) -> pd.DataFrame:
        """What changed, oldest first: ``at`` (the refresh), ``kind`` (comment / ad),
        ``item``, ``id``, ``change``, ``fields``, ``previous``, ``current``,
        ``evidence``, ``cost_usd`` and ``filters``.

        - ``change``: for ads ``new``, ``missing``, ``stopped``, ``resumed``,
          ``edited``; for comments ``new``, ``edited``, ``deleted`` (docs/studies.md
          says what proves each);
        - ``fields``: for ``edited``, the columns whose values differ, comma-separated;
        - ``previous`` / ``current``: those columns' values before and after, as JSON
          text (null where not an edit);
        - ``evidence``: how it is known, as JSON text (the refresh, the pages read,
          whether the walk was complete, what the service said);
        - ``cost_usd``: what the refresh paid to establish it beyond its normal walk;
        - ``filters``: the search's filters (as :meth:`watched` and :meth:`refresh` show
          them; none for a comment), telling apart two watched searches of one text.

        A study written before these columns existed has them null on its older rows.

        Args:
            since: Only changes at or after this: a time (datetime, date, ISO text) or
                a span back from now (a timedelta, or text such as ``"7d"``, ``"12h"``).

        Returns:
            One row per change, oldest first.

        Raises:
            ValueError: ``since`` is text that is neither a time nor a span.

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).changes(since="7d").columns.tolist()[5:]
            ['fields', 'previous', 'current', 'evidence', 'cost_usd', 'filters']
        """
        where, args = "", []
        if since is not None:
            where, args = 'where "at" >= ?', [_since(since)]
        frame = self._query(
            'select "at", kind, item, id, change, fields, previous, current, evidence,'
            f" cost_usd, watch from changes {where}"
            ' order by "at", kind, item, id, watch, change',
            args,
            arrow=True,
            views=("changes",),
        )
        # the watch key (kept in the files) names the search: its filters, as watched
        texts = {
            watch.key(w): watch.filters_text(w) for w in self._data.read(watched_only=True).watched
        }
        frame["filters"] = frame.pop("watch").map(texts)
        return mark(
            queries.read_as(
                self._data,
                frame,
                queries.CHANGE_DTYPES | queries.CHANGE_DETAIL | {"filters": "string"},
            ),
            "study.changes",
        )

    @_no_context
    def runs(self) -> pd.DataFrame:
        """What each refresh paid and found.

        Returns:
            One row per refresh, oldest first: ``at``, ``paid_calls``, ``cost_usd``,
            ``new``, ``changed``, ``items`` (how many it looked at) and ``complete``
            (whether every one was).

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).runs().columns.tolist()
            ['at', 'paid_calls', 'cost_usd', 'new', 'changed', 'items', 'complete']
        """
        frame = self._query(
            'select "at", paid_calls, cost_usd, new, changed, items, complete'
            ' from runs order by "at", refresh',
            views=("runs",),
        )
        return mark(queries.read_as(self._data, frame, queries.RUN_DTYPES), "study.runs")

    @_no_context
    def sql(
        self, query: str, params: list[Any] | None = None, *, timeout: float | None = None
    ) -> pd.DataFrame:
        """Any query over the study's views: ``comments``, ``ads`` (latest versions),
        ``comment_versions``, ``ad_versions`` (every version), ``changes``, ``runs``.

        One ``SELECT`` (DuckDB's dialect), which reads the study's own files and
        nothing else: no other file, no extension, no network; no ``COPY``, ``ATTACH``,
        ``SET`` or second statement (it would write files, in the study or beside it).

        Args:
            query: The SQL (DuckDB's dialect); ``?`` marks a parameter.
            params: The values of its parameters, in order.
            timeout: The most seconds the query may run: past them DuckDB is
                interrupted (its thread freed, nothing kept) and ``TimeoutError`` raised.

        Returns:
            The query's result (DuckDB streams the files: only the result must fit in
            memory).

        Raises:
            ValueError: the query is not one ``SELECT``, or DuckDB refused it (reading
                a file outside the study among the reasons), saying why.
            TimeoutError: it ran past ``timeout``.
            StudyError: a file of the study is damaged, or changed while it was read.

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).sql("select count(*) as n from comments")
               n
            0  0
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be SQL text, not {type(query).__name__}")
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not 0 < timeout < float("inf")
        ):
            raise ValueError(f"timeout is seconds above 0, not {timeout!r:.40}")
        return self._query(query, params or [], yours=True, timeout=timeout)

    def _query(
        self,
        query: str,
        params: list[Any] | None = None,
        *,
        yours: bool = False,
        arrow: bool = False,
        timeout: float | None = None,
        views: tuple[str, ...] | None = None,
    ) -> pd.DataFrame:
        """``query`` over the study's views; a file that cannot be read is a StudyError
        (and, for ``yours``, the user's SQL that DuckDB refuses a ValueError).
        ``arrow``: through Arrow (:meth:`queries.Reader.frame`: text stays Arrow's, for
        a frame as large as the study), for a frame with no column of lists. ``views``:
        the views the query reads, the only ones made (:data:`queries.NEEDS`); every
        view for ``None`` (the user's SQL)."""
        import duckdb

        con = queries.connect(self._data, views=views)
        # (past its time the query is interrupted from this timer's thread: DuckDB's
        # interrupt is the one call a connection takes while it runs)
        timer = threading.Timer(timeout, con.con.interrupt) if timeout is not None else None
        try:
            if yours:
                _only_a_query(con, query)
            if timer is not None:
                timer.start()
            if arrow:
                return con.frame(query, params or [])
            return con.df(query, params or [])
        except duckdb.InterruptException:
            if timer is None:
                raise
            raise TimeoutError(
                f"the query ran past {timeout:g} seconds and was stopped: ask for less"
                " (a where clause, a limit)"
            ) from None
        except duckdb.Error as exc:
            files = isinstance(exc, duckdb.IOException | duckdb.InvalidInputException)
            if yours and not files:
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                raise ValueError(f"the query failed: {reason[:300]}") from None
            raise queries.unreadable(self._data, exc) from None
        finally:
            if timer is not None:
                timer.cancel()
            con.close()


def _nothing_left() -> pd.DataFrame:
    """What a refresh returns that found every item read by another meanwhile: no row."""
    from .run import RUN_COLUMNS

    frame = pd.DataFrame({name: [] for name in RUN_COLUMNS})
    return mark(queries.typed(frame, queries.ITEM_DTYPES | {"filters": "string"}), "study.refresh")


def _only_a_query(con: queries.Reader, query: str) -> None:
    """Refuse SQL that is not one ``SELECT`` (a ``COPY``, ``ATTACH``, ``EXPORT``,
    ``INSTALL``, ``SET``..., or a second statement): :meth:`Study.sql` reads the study,
    it never writes a file, inside the study (its manifest, its data) or beside it.

    Raises:
        ValueError: it is not.
        duckdb.Error: DuckDB cannot parse it.
    """
    import duckdb

    statements = con.con.extract_statements(query)
    kinds = [statement.type for statement in statements]
    if kinds != [duckdb.StatementType.SELECT]:
        what = ", ".join(str(k.name) for k in kinds) or "nothing"
        raise ValueError(
            f"study.sql answers one query (SELECT ..., WITH ... SELECT ...), not {what}: it"
            " reads the study and writes no file. Write its answer yourself (a DataFrame:"
            " .to_parquet(), .to_csv()), or query the files with DuckDB directly"
        )


_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)", re.ASCII | re.IGNORECASE)
_UNIT_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}


def _back(now: pd.Timestamp, seconds: float, given: object) -> pd.Timestamp:
    """``now`` less ``seconds``, or a ValueError naming ``given`` past the calendar."""
    try:
        return now - pd.Timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        raise ValueError(f"since {given!r:.40} reaches before the calendar") from None


def _since(value: object, name: str = "since") -> datetime:
    """The time ``changes(since=...)`` means (see there); ``name``: the argument, as
    errors say it (``as_of``'s ``when`` too)."""
    now = pd.Timestamp.now(tz=UTC)
    stamp: pd.Timestamp
    if isinstance(value, timedelta | pd.Timedelta):
        if pd.isna(value) or value < timedelta(0):
            raise ValueError(f"{name} must be a span back from now (>= 0), not {value!r:.40}")
        stamp = _back(now, pd.Timedelta(value).total_seconds(), value)
    elif isinstance(value, datetime | pd.Timestamp):
        stamp = pd.Timestamp(value)
    elif isinstance(value, date):
        stamp = pd.Timestamp(value.year, value.month, value.day)
    elif isinstance(value, str):
        if not value.strip():
            raise ValueError(f"{name} is empty: give a time (2026-11-01) or a span (7d)")
        text = value.strip()
        span = _SPAN.fullmatch(text)
        if text.lower() in ("nan", "nat", "none", "null"):
            raise ValueError(f"{name} must be a time or a span, not {text!r}")
        if span:
            amount, unit = float(span[1]), span[2].lower()
            stamp = _back(now, amount * _UNIT_SECONDS[unit], text)
        else:
            try:
                stamp = pd.Timestamp(text)
            except ValueError:
                raise ValueError(
                    f"{name} must be a time (2026-11-01, an ISO time) or a span back from now"
                    f" (7d, 12h, 2w, 30m), got {text!r}"
                ) from None
    else:
        raise TypeError(f"{name} must be a time, a date, a timedelta or text, not {value!r:.40}")
    if pd.isna(stamp):
        raise ValueError(f"{name} must be a time, not {value!r:.40}")
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize(UTC)
    try:
        result: datetime = stamp.to_pydatetime()
    except ValueError:  # (pandas reaches further back than Python's calendar)
        raise ValueError(f"{name} {value!r:.40} reaches before the calendar") from None
    return result
