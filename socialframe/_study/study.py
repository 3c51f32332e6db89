"""``sf.Study``: watch posts and advertisers over time, paying only for what may be new.

A study is a folder (:mod:`socialframe._study.dataset`): what it watches, and every
version of every comment and ad its refreshes saw, as Parquet any tool reads. Its
answers (:meth:`Study.comments`, :meth:`Study.ads`, :meth:`Study.changes`,
:meth:`Study.runs`, :meth:`Study.sql`) are DuckDB queries over those files
(:mod:`socialframe._study.queries`); a refresh (:mod:`socialframe._study.refresh`)
asks the service for the fewest pages that may hold what is new.
"""

from __future__ import annotations

import json
import os
import re
import threading
import warnings
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from .. import _operations as endpoints
from .._checks import flag
from .._errors import (
    AuthError,
    BudgetExceededError,
    FetchError,
    SkippedWarning,
)
from .._ledger import PRICE_CENTS, Ledger
from .._models import Fetched
from . import queries, refresh, watch
from .dataset import Dataset, Manifest, refresh_id

if TYPE_CHECKING:
    from .._client import Client

OnError = Literal["raise", "skip"]

#: What :meth:`Study.refresh` returns, one row per watched item.
RUN_COLUMNS = (
    "kind",
    "item",
    "new",
    "changed",
    "paid_calls",
    "cost_usd",
    "complete",
    "missing",
)
#: A walk cut short (budget, error, interrupt) is walked on by the next refresh from the
#: pages it had paid for, if that is no longer ago than this; else afresh.
RESUME_WITHIN = timedelta(days=1)
#: How long a call waits for this refresh's calls in flight to settle before its budget
#: refuses it (one may take a whole deadline after a Retry-After cooldown).
BUDGET_WAIT = 300.0
#: Fields whose change makes an ad "edited".
AD_TEXT = ("body_text", "title", "caption", "link_url", "cta_text")


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

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._data = Dataset(path)
        self._data.read()  # refused now if the folder is not a study, or newer

    @property
    def path(self) -> os.PathLike[str]:
        """The study's folder."""
        return self._data.path

    def __repr__(self) -> str:
        return f"Study({str(self._data.path)!r})"

    # -- what is watched -------------------------------------------------------------------

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
            running shoes {'activeStatus': 'ALL', 'country': 'US'}
            page 123456 {'ad_page_id': '123456'}
        """
        self._add(
            [watch.search(query, page_id=page_id, country=country, active_status=active_status)]
        )

    def _add(self, items: list[dict[str, Any]]) -> None:
        now = datetime.now(UTC).isoformat()
        with self._data.writing() as manifest:
            known = {watch.key(w) for w in manifest.watched}
            for item in items:
                if watch.key(item) not in known:
                    manifest.watched.append({**item, "added_at": now})
                    known.add(watch.key(item))
            self._data.write(manifest)

    def watched(self) -> pd.DataFrame:
        """What the study watches.

        Returns:
            One row per watched item, in the order added: ``kind`` (``post`` / ``ads``),
            ``item`` (the post id; the search text or ``page <id>``), ``filters`` (a
            dict of the search's filters, as sent) and ``added_at`` (UTC).

        Example:
            >>> import tempfile
            >>> study = Study(tempfile.mkdtemp())
            >>> study.add_posts("7384427202391592960")
            >>> study.watched().columns.tolist()
            ['kind', 'item', 'filters', 'added_at']
        """
        manifest = self._data.read()
        frame = pd.DataFrame(
            {
                "kind": pd.array([w["kind"] for w in manifest.watched], dtype="string"),
                "item": pd.array([w["item"] for w in manifest.watched], dtype="string"),
                "filters": [dict(w["filters"]) for w in manifest.watched],
                "added_at": pd.to_datetime(
                    [w["added_at"] for w in manifest.watched], utc=True
                ).astype("datetime64[us, UTC]"),
            }
        )
        return frame

    # -- refreshing ------------------------------------------------------------------------

    def refresh(
        self,
        client: Client,
        *,
        full: bool = False,
        max_cost: float | None = None,
        on_error: OnError = "raise",
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

        Returns:
            One row per watched item: ``kind``, ``item``, ``new``, ``changed``,
            ``paid_calls``, ``cost_usd``, ``complete``, ``missing``.

        Raises:
            StudyError: another refresh holds the study, or it cannot be written.
            BudgetExceededError, FetchError: after what was fetched is kept;
                ``.partial`` is the frame above.

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
        if on_error not in ("raise", "skip"):
            raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
        if client.offline:
            raise ValueError("a refresh asks the service what is new: give a client not offline")
        budget = None
        if max_cost is not None:
            from .._config import budget_cents

            budget = budget_cents(max_cost)
        with self._data.writing() as manifest:
            return _Refresh(self._data, manifest, client, full, budget, on_error).run()

    # -- reading ---------------------------------------------------------------------------

    def comments(self) -> pd.DataFrame:
        """Every comment the study has seen.

        Returns:
            One row per ``comment_id`` (its latest version), newest first: the comments
            frame's columns (``sf.COMMENT_COLUMNS``, typed alike), then ``item`` (the
            watched post), ``first_seen`` and ``last_seen`` (the refreshes that first
            and last saw it).

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).comments().columns[-3:].tolist()
            ['item', 'first_seen', 'last_seen']
        """
        frame = self._query(
            "select * exclude (refresh, item, seen_at, first_seen, last_seen),"
            " item, first_seen, last_seen"
            " from comments order by created_at desc nulls last, comment_id"
        )
        return queries.typed(frame, queries.comment_dtypes())

    def ads(self) -> pd.DataFrame:
        """Every ad the study has seen.

        Returns:
            One row per ``ad_archive_id`` (its latest version): the ads frame's columns
            (``sf.AD_COLUMNS``), ``extra`` (every other field, as JSON text), then
            ``item`` (the watched search), ``first_seen``, ``last_seen`` and
            ``stopped_seen`` (the first refresh that saw it stopped; ``is_active`` is
            false from then on).

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).ads().columns[-4:].tolist()
            ['item', 'first_seen', 'last_seen', 'stopped_seen']
        """
        frame = self._query(
            "select * exclude (refresh, item, seen_at, first_seen, last_seen, stopped_seen),"
            " item, first_seen, last_seen, stopped_seen from ads"
            " order by start_date desc nulls last, ad_archive_id"
        )
        return queries.typed(frame, queries.ad_dtypes())

    def changes(self, since: object = None) -> pd.DataFrame:
        """What changed, oldest first: ``at`` (the refresh), ``kind`` (comment / ad),
        ``item``, ``id``, ``change`` (new / stopped / edited).

        Args:
            since: Only changes at or after this: a time (datetime, date, ISO text) or
                a span back from now (a timedelta, or text such as ``"7d"``, ``"12h"``).

        Returns:
            One row per change, oldest first.

        Raises:
            ValueError: ``since`` is text that is neither a time nor a span.

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).changes(since="7d").columns.tolist()
            ['at', 'kind', 'item', 'id', 'change']
        """
        where, args = "", []
        if since is not None:
            where, args = 'where "at" >= ?', [_since(since)]
        frame = self._query(
            f'select "at", kind, item, id, change from changes {where}'
            ' order by "at", kind, item, id',
            args,
        )
        return queries.typed(frame, queries.CHANGE_DTYPES)

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
            ' from runs order by "at", refresh'
        )
        return queries.typed(frame, queries.RUN_DTYPES)

    def sql(self, query: str, params: list[Any] | None = None) -> pd.DataFrame:
        """Any SQL over the study's views: ``comments``, ``ads`` (latest versions),
        ``comment_versions``, ``ad_versions`` (every version), ``changes``, ``runs``.

        Args:
            query: The SQL (DuckDB's dialect); ``?`` marks a parameter.
            params: The values of its parameters, in order.

        Returns:
            The query's result (DuckDB streams the files: only the result must fit in
            memory).

        Example:
            >>> import tempfile
            >>> Study(tempfile.mkdtemp()).sql("select count(*) as n from comments")
               n
            0  0
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be SQL text, not {type(query).__name__}")
        return self._query(query, params or [])

    def _query(self, query: str, params: list[Any] | None = None) -> pd.DataFrame:
        con = queries.connect(self._data, self._data.read())
        try:
            return con.execute(query, params or []).df()
        finally:
            con.close()


_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)", re.ASCII | re.IGNORECASE)
_UNIT_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}


def _since(value: object) -> datetime:
    """The time ``changes(since=...)`` means (see there)."""
    now = pd.Timestamp.now(tz=UTC)
    stamp: pd.Timestamp
    if isinstance(value, timedelta | pd.Timedelta):
        stamp = now - pd.Timedelta(value)
    elif isinstance(value, datetime | pd.Timestamp):
        stamp = pd.Timestamp(value)
    elif isinstance(value, date):
        stamp = pd.Timestamp(value.year, value.month, value.day)
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        span = _SPAN.fullmatch(text)
        if span:
            amount, unit = float(span[1]), span[2].lower()
            stamp = now - pd.Timedelta(seconds=amount * _UNIT_SECONDS[unit])
        else:
            try:
                stamp = pd.Timestamp(text)
            except ValueError:
                raise ValueError(
                    "since must be a time (2026-11-01, an ISO time) or a span back from now"
                    f" (7d, 12h, 2w, 30m), got {text!r}"
                ) from None
    else:
        raise TypeError(f"since must be a time, a date, a timedelta or text, not {value!r}")
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize(UTC)
    result: datetime = stamp.to_pydatetime()
    return result


class _Refresh:
    """One refresh of a whole study, under its write lock."""

    def __init__(
        self,
        data: Dataset,
        manifest: Manifest,
        client: Client,
        full: bool,
        budget_cents: int | None,
        on_error: OnError,
    ) -> None:
        self.data, self.manifest, self.client = data, manifest, client
        self.full, self.on_error = full, on_error
        self.budget = None if budget_cents is None else Ledger(budget_cents)
        # The client's clock: a ManualClock shared with a sandbox simulates weeks.
        self.at = client.clock.now().astimezone(UTC)
        self.id = refresh_id(self.at)
        taken = {r["id"] for r in manifest.refreshes}
        if self.id in taken or (manifest.refreshes and self.id < manifest.refreshes[-1]["id"]):
            # Two refreshes in one millisecond (a ManualClock that stood still) or a clock
            # set back: ids stay unique and in the order the refreshes ran.
            self.id = f"{max([self.id, *taken])}-{len(manifest.refreshes) + 1:06d}"
        pending = manifest.pending
        # Pages paid for by a refresh that never finished are in the HTTP cache: they count.
        self.fresh_after = datetime.fromisoformat(pending["at"]) if pending else self.at

    def run(self) -> pd.DataFrame:
        manifest = self.manifest
        manifest.pending = {"id": self.id, "at": self.fresh_after.isoformat()}
        self.data.write(manifest)
        con = queries.connect(self.data, manifest)
        try:
            return self._run(con)
        finally:
            con.close()

    def _run(self, con: Any) -> pd.DataFrame:
        known = self._known(con)
        self.interrupted: list[tuple[dict[str, Any], refresh.Walked]] | None = None
        try:
            results = self._walk_all(known)
        except KeyboardInterrupt:
            if self.interrupted:  # keep what the walks had fetched, then stop
                texts = _old_texts(con, self.interrupted)
                self._commit(self.interrupted, {**known, "texts": texts})
            raise
        frame, first_error = self._commit(results, {**known, "texts": _old_texts(con, results)})
        if first_error is not None:
            raise first_error.with_partial(frame).with_traceback(first_error.__traceback__)
        return frame

    def _budgeted(
        self, operation: str, fetch: refresh.Fetch, stop: threading.Event
    ) -> refresh.Fetch:
        """``fetch`` under this refresh's own budget (``max_cost``), kept in a ledger of
        its own: the client's budget (and its other users) are left alone."""
        budget = self.budget
        if budget is None:
            return fetch

        def call(params: Mapping[str, str]) -> Fetched:
            # calls in flight may settle (fail, for free): wait for them, boundedly
            hold = budget.reserve(wait=BUDGET_WAIT, stop=stop)
            if hold is None:
                raise budget.refusal(operation)
            try:
                fetched = fetch(params)
            except BaseException:
                budget.release(hold)
                raise
            if fetched.from_cache:
                budget.release(hold)
            else:
                budget.record("paid", hold=hold)
            return fetched

        return call

    def _known(self, con: Any) -> dict[str, Any]:
        """What the study holds, as the walks and the change rules need it."""
        # Each comment once, with the refresh that first saw it (its text is read later,
        # for the comments a walk brings back only: a study may be larger than memory).
        comments = con.execute(
            "select item, comment_id, min(refresh) as refresh from comment_versions"
            " group by item, comment_id"
        ).df()
        ads = con.execute(
            "select item, ad_archive_id, is_active, end_date, stopped_seen,"
            f" {', '.join(AD_TEXT)} from ads"
        ).df()
        return {"comments": comments, "ads": ads}

    def _walk_all(self, known: dict[str, Any]) -> list[tuple[dict[str, Any], refresh.Walked]]:
        client = self.client
        stop = threading.Event()
        stops: list[threading.Event] = []
        fetchers: dict[tuple[str, datetime], refresh.Fetch] = {}
        lock = threading.Lock()

        def fetcher(operation: str, fresh_after: datetime) -> refresh.Fetch:
            """One fetch per (operation, freshness), sharing the run's stop."""
            with lock:
                if (operation, fresh_after) not in fetchers:
                    path = (
                        endpoints.COMMENTS_PATH if operation == "comments" else endpoints.ADS_PATH
                    )
                    fetch, its_stop = client._fetcher(operation, path, fresh_after=fresh_after)
                    fetchers[operation, fresh_after] = self._budgeted(operation, fetch, stop)
                    stops.append(its_stop)
                    if stop.is_set():
                        its_stop.set()
                return fetchers[operation, fresh_after]

        def stop_all() -> None:
            with lock:
                stop.set()
                for each in stops:
                    each.set()

        def fresh_after(state: dict[str, Any]) -> datetime:
            """Pages count from the start of this refresh, or of the one that cut this
            item's walk short (lately: its pages are in the HTTP cache, paid for)."""
            cut = state.get("resume_after")
            if cut is None:
                return self.fresh_after
            since = datetime.fromisoformat(cut)
            return since if self.at - since <= RESUME_WITHIN else self.fresh_after

        by_post = known["comments"].groupby("item", sort=False)
        ids_of: dict[str, pd.DataFrame] = {str(k): g for k, g in by_post}

        def one(watched: dict[str, Any]) -> refresh.Walked:
            if stop.is_set():
                return refresh.Walked(error=FetchError("the refresh was stopped"))
            state = self.manifest.state.get(watch.key(watched), {})
            if watched["kind"] == "post":
                rows = ids_of.get(watched["item"])
                walked_through = state.get("walked")
                if rows is None:
                    base: set[str] = set()
                elif walked_through is None:
                    base = set()
                else:
                    base = set(rows.loc[rows["refresh"] <= walked_through, "comment_id"])
                full = self.full and not state.get("complete", False)
                fetch = fetcher("comments", fresh_after(state))
                walked = refresh.walk_post(fetch, watched, base, full=full)
            else:
                since = state.get("checked")
                walked = refresh.walk_search(
                    fetcher("ads", fresh_after(state)),
                    watched,
                    since=date.fromisoformat(since) if since else None,
                    stop=stop,
                )
            if walked.error is not None and (
                self.on_error == "raise"
                or isinstance(walked.error, BudgetExceededError | AuthError)
            ):
                stop_all()
            return walked

        watched = list(self.manifest.watched)
        pool = ThreadPoolExecutor(max_workers=max(1, client.workers))
        futures = [pool.submit(one, item) for item in watched]
        try:
            walks = [future.result() for future in futures]
        except BaseException:
            # Ctrl-C (or SIGTERM through the command line): nothing more is sent, the
            # walks under way end at their next page, and what they fetched is kept.
            stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            self.interrupted = [
                (item, future.result())
                for item, future in zip(watched, futures, strict=True)
                if future.done() and not future.cancelled() and future.exception() is None
            ]
            raise
        pool.shutdown()
        return list(zip(watched, walks, strict=True))

    def _commit(
        self, results: list[tuple[dict[str, Any], refresh.Walked]], known: dict[str, Any]
    ) -> tuple[pd.DataFrame, FetchError | None]:
        at = pd.Timestamp(self.at).as_unit("us")
        comment_parts, ad_parts, changes, rows = [], [], [], []
        first_error: FetchError | None = None
        skipped: list[str] = []
        old_comments = known["comments"].drop_duplicates("comment_id").set_index("comment_id")
        old_ads = known["ads"].drop_duplicates("ad_archive_id").set_index("ad_archive_id")
        held = known["comments"].groupby("item")["comment_id"].nunique().to_dict()
        for watched, walked in results:
            key, item = watch.key(watched), watched["item"]
            state = dict(self.manifest.state.get(key, {}))
            new = changed = 0
            if walked.error is not None:
                if first_error is None and not _was_stopped(walked.error):
                    first_error = walked.error
                if self.on_error == "skip" and not _was_stopped(walked.error):
                    skipped.append(item)
            if watched["kind"] == "post":
                got = refresh.comment_rows(walked.pages) if walked.pages else None
                if got is not None and len(got):
                    got.insert(len(got.columns), "item", pd.array([item] * len(got), "string"))
                    got.insert(len(got.columns), "seen_at", at)
                    comment_parts.append(got)
                    for cid, text in zip(got["comment_id"], got["text"], strict=True):
                        if pd.isna(cid):
                            continue
                        if cid not in old_comments.index:
                            new += 1
                            changes.append((at, "comment", item, cid, "new"))
                        elif cid in known["texts"] and _differs(known["texts"][cid], text):
                            changed += 1
                            changes.append((at, "comment", item, cid, "edited"))
                ids = set() if got is None else set(got["comment_id"].dropna())
                have = held.get(item, 0) + len(ids - set(old_comments.index))
                total = walked.total if walked.total is not None else state.get("total")
                missing = None if total is None else max(int(total) - have, 0)
                if walked.reached:
                    state["walked"] = self.id
                    state.pop("resume_after", None)
                elif walked.pages:  # cut short: the next refresh walks on from its pages
                    state.setdefault("resume_after", self.fresh_after.isoformat())
                state["total"] = total
                state["complete"] = bool(walked.reached and missing == 0)
                complete: bool | None = state["complete"]
            else:
                got = refresh.ad_rows(walked.pages) if walked.pages else None
                seen: set[str] = set()
                if got is not None and len(got):
                    got = _ads_for_storage(got)
                    got.insert(len(got.columns), "item", pd.array([item] * len(got), "string"))
                    got.insert(len(got.columns), "seen_at", at)
                    ad_parts.append(got)
                    for _, row in got.iterrows():
                        aid = row["ad_archive_id"]
                        if pd.isna(aid):
                            continue
                        seen.add(aid)
                        if aid not in old_ads.index:
                            new += 1
                            changes.append((at, "ad", item, aid, "new"))
                            continue
                        old = old_ads.loc[aid]
                        was_running = bool(old["is_active"]) and pd.isna(old["stopped_seen"])
                        # (a running ad's end_date is the last day it was shown: it moves on)
                        if was_running and _is_false(row["is_active"]):
                            changed += 1
                            changes.append((at, "ad", item, aid, "stopped"))
                        elif any(_differs(old[f], row[f]) for f in AD_TEXT):
                            changed += 1
                            changes.append((at, "ad", item, aid, "edited"))
                if walked.active_ids is not None:
                    mine = old_ads[
                        known["ads"].drop_duplicates("ad_archive_id")["item"].eq(item).values
                    ]
                    running = mine[
                        mine["is_active"].fillna(False).astype(bool) & mine["stopped_seen"].isna()
                    ]
                    for aid in sorted(set(running.index) - walked.active_ids - seen):
                        changed += 1
                        changes.append((at, "ad", item, aid, "stopped"))
                if walked.reached:
                    state["checked"] = self.at.date().isoformat()
                    state.pop("resume_after", None)
                elif walked.pages:
                    state.setdefault("resume_after", self.fresh_after.isoformat())
                complete = bool(walked.reached)
                missing = None
            self.manifest.state[key] = state
            rows.append(
                {
                    "kind": watched["kind"],
                    "item": item,
                    "new": new,
                    "changed": changed,
                    "paid_calls": walked.paid,
                    "cost_usd": walked.paid * PRICE_CENTS / 100,
                    "complete": complete,
                    "missing": missing,
                }
            )
        frame = pd.DataFrame(rows, columns=list(RUN_COLUMNS))
        frame = queries.typed(frame, queries.ITEM_DTYPES)
        files: dict[str, str] = {}
        write = self.data.write_partition
        if comment_parts:
            files["comments"] = write(
                "comments", self.id, pd.concat(comment_parts, ignore_index=True)
            )
        if ad_parts:
            files["ads"] = write("ads", self.id, pd.concat(ad_parts, ignore_index=True))
        if changes:
            change_frame = pd.DataFrame(changes, columns=["at", "kind", "item", "id", "change"])
            files["changes"] = write(
                "changes", self.id, queries.typed(change_frame, queries.CHANGE_DTYPES)
            )
        items = frame.assign(at=at)
        files["items"] = write("items", self.id, queries.typed(items, queries.ITEM_DTYPES))
        run = pd.DataFrame(
            [
                {
                    "at": at,
                    "paid_calls": int(frame["paid_calls"].sum()),
                    "cost_usd": int(frame["paid_calls"].sum()) * PRICE_CENTS / 100,
                    "new": int(frame["new"].sum()),
                    "changed": int(frame["changed"].sum()),
                    "items": len(frame),
                    "complete": bool(frame["complete"].fillna(False).all()),
                }
            ]
        )
        files["runs"] = write("runs", self.id, queries.typed(run, queries.RUN_DTYPES))
        self.manifest.refreshes.append({"id": self.id, "at": self.at.isoformat(), "files": files})
        self.manifest.pending = None
        self.data.write(self.manifest)
        if skipped and self.on_error == "skip":
            warnings.warn(
                SkippedWarning(f"{len(skipped)} watched items failed and were left out: {skipped}"),
                stacklevel=4,
            )
            if not isinstance(first_error, BudgetExceededError | AuthError):
                first_error = None
        return frame, first_error


def _old_texts(con: Any, results: list[tuple[dict[str, Any], refresh.Walked]]) -> dict[str, Any]:
    """The latest text the study holds of each comment the walks brought back."""
    ids = [
        cid
        for watched, walked in results
        if watched["kind"] == "post" and walked.pages
        for cid in refresh.comment_rows(walked.pages)["comment_id"].dropna()
    ]
    if not ids:
        return {}
    wanted = pd.DataFrame({"comment_id": pd.array(ids, dtype="string")})
    con.register("wanted", wanted)
    try:
        found = con.execute(
            "select v.comment_id, arg_max(v.text, v.refresh) as text from comment_versions v"
            " join (select distinct comment_id from wanted) w using (comment_id)"
            " group by v.comment_id"
        ).df()
    finally:
        con.unregister("wanted")
    return dict(zip(found["comment_id"], found["text"], strict=True))


def _is_false(value: Any) -> bool:
    return not _missing(value) and not bool(value)


def _was_stopped(error: FetchError) -> bool:
    """Whether the walk was stopped because another item's failure ended the refresh."""
    return "stopped" in str(error) or "interrupted" in str(error)


def _differs(old: Any, new: Any) -> bool:
    """Whether two sightings of a field differ (missing equals missing only)."""
    old_missing, new_missing = _missing(old), _missing(new)
    if old_missing or new_missing:
        return old_missing != new_missing
    return bool(old != new)


def _ads_for_storage(frame: pd.DataFrame) -> pd.DataFrame:
    """The contract columns as they are; every other field in one JSON text column."""
    from .._schema import AD_COLUMNS

    core = frame[list(AD_COLUMNS)].copy()
    extras = [c for c in frame.columns if c not in AD_COLUMNS]
    records = frame[extras].to_dict("records") if extras else [{} for _ in range(len(frame))]
    core["extra"] = pd.array(
        [json.dumps(_plain(r), default=str, sort_keys=True) for r in records], dtype="string"
    )
    return core


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if not _missing(v)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    return value


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
