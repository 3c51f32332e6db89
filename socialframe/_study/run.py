"""One refresh of a whole study, under its write lock: walk every watched item (in the
client's workers), then keep what the walks brought back, whole or not at all.

Each kind of watched item has its module, with the same small interface
(:class:`.refresh.Kind`): :mod:`.posts` and :mod:`.searches` know what the study holds,
walk one item, and compare its walk with what the study held (-> its rows, changes and
state). This module keeps what is the refresh's: the pool the walks run in, the budget,
the interrupts (Ctrl-C, SIGTERM: what the walks fetched is kept), the writes of the
rows, the changes, the per-item figures and the run's, and the manifest.
"""

from __future__ import annotations

import functools
import json
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from .._errors import FetchError, SkippedWarning, StudyError
from .._ledger import PRICE_CENTS, Ledger, Money
from .._models import PageFetch
from .._schema import mark
from . import queries, refresh, searches, watch
from .dataset import Dataset, Manifest, refresh_id
from .posts import NEWEST_KNOWN, Posts
from .searches import Searches
from .searches import ads_for_storage as _ads_for_storage

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["NEWEST_KNOWN", "RUN_COLUMNS", "OnError", "Refresh", "_ads_for_storage"]

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
    "filters",
)
#: The watched item's key, kept beside its shown name (two searches of one text with
#: other filters are two items).
WATCH = {"watch": "string"}
#: A walk cut short (budget, error, interrupt) is walked on by the next refresh from the
#: pages it had paid for, if that is no longer ago than this; else afresh.
RESUME_WITHIN = timedelta(days=1)
#: Failures that end a refresh whatever ``on_error`` says.
_ENDS = refresh.ENDS

Results = list[tuple[dict[str, Any], refresh.Walked]]


class Refresh:
    """One refresh of a whole study, under its write lock (the :class:`.refresh.Run`
    its kinds of watched items see)."""

    def __init__(
        self,
        data: Dataset,
        manifest: Manifest,
        client: Client,
        full: bool,
        budget: Money | None,
        on_error: OnError,
        stopped_after: timedelta = searches.STOPPED_AFTER,
        recheck_pages: int = 0,
        confirm_stops: bool = False,
    ) -> None:
        self.data, self.manifest, self.client = data, manifest, client
        self.stopped_after = stopped_after
        self.recheck_pages = recheck_pages
        self.confirm_stops = confirm_stops
        self.full, self.on_error = full, on_error
        self.budget = None if budget is None else Ledger(budget)
        # The client's clock: a ManualClock shared with a sandbox simulates weeks.
        self.at = client.clock.now().astimezone(UTC)
        self.id = refresh_id(self.at)
        # (also the ids of refreshes cut between their commits: their rows are in the
        # tables, uncounted, and must stay so: a new refresh never takes their id)
        taken = {r["id"] for r in manifest.refreshes} | manifest.used
        if self.id in taken or (taken and self.id < max(taken)):
            # Two refreshes in one millisecond (a ManualClock that stood still) or a clock
            # set back: ids stay unique and in the order the refreshes ran.
            base = max(self.id, *(t.split("-")[0] for t in taken))
            number = len(taken) + 1
            while f"{base}-{number:06d}" in taken:
                number += 1
            self.id = f"{base}-{number:06d}"
        pending = manifest.pending
        # Pages paid for by a refresh that never finished are in the HTTP cache: they count.
        started = datetime.fromisoformat(pending["at"]) if pending else None
        recent = started is not None and timedelta(0) <= self.at - started <= RESUME_WITHIN
        self.fresh_after = started if recent and started is not None else self.at
        # The run's stop (set on the first failure that ends it, or an interrupt), and
        # one fetch per (operation, freshness) sharing it.
        self.stop = threading.Event()
        self._stops: list[threading.Event] = []
        self._fetchers: dict[tuple[str, datetime], PageFetch] = {}
        self._lock = threading.Lock()
        self.kinds: dict[str, refresh.Kind] = {"post": Posts(self), "ads": Searches(self)}

    def run(self) -> pd.DataFrame:
        duckdb = queries.duckdb_module()  # (before anything is marked or paid for)

        # What the study holds is read before anything is paid for: a study whose files
        # cannot be read is refused as it is.
        kinds = self.watched_kinds
        con = queries.connect(self.data, views=tuple(v for kind in kinds for v in kind.views))
        try:
            try:
                for kind in kinds:
                    kind.know(con)
            except duckdb.Error as exc:
                raise queries.unreadable(self.data, exc) from None
            lease = self.data.lease
            if lease is not None:  # (the lease names this refresh: a next one reads it)
                lease.refresh, lease.at = self.id, self.fresh_after.isoformat()
                lease.renew()
            return self._run(con)
        finally:
            con.close()

    def _run(self, con: queries.Reader) -> pd.DataFrame:
        self.interrupted: Results | None = None
        try:
            results = self._walk_all()
        except KeyboardInterrupt:
            if self.interrupted:  # keep what the walks had fetched, then stop
                self._learn(con, self.interrupted, whole=False)
                self._commit(self.interrupted)
            raise
        self._learn(con, results, whole=True)
        frame, first_error = self._commit(results)
        if first_error is not None:
            raise first_error.with_partial(frame).with_traceback(first_error.__traceback__)
        return frame

    def _learn(self, con: queries.Reader, results: Results, *, whole: bool) -> None:
        """What comparing the walks needs of the files; a file that cannot be read any
        more, or is not the one checked before the walks (damaged, moved away, replaced
        while they ran) is a StudyError, and the refresh stays pending: the pages it
        paid for are the next one's, from the HTTP cache."""
        import duckdb

        try:
            for kind in self.watched_kinds:
                kind.learn(con, results, whole=whole)
            return
        except duckdb.Error as exc:
            error = queries.unreadable(self.data, exc)
        except StudyError as exc:  # a file changed since it was checked (named)
            error = exc
        raise StudyError(
            f"{error}. Nothing of this refresh was kept; the pages it paid for are in"
            " the client's HTTP cache (if it keeps one), for the next refresh once the"
            " files are put back"
        )

    @functools.cached_property
    def watched_kinds(self) -> list[refresh.Kind]:
        """The kinds of the items this refresh watches: only they are read from the files
        (a study of posts alone asks nothing of its ads; a kind with no item compares
        nothing, and its finish has nothing left to prove)."""
        watched = {w["kind"] for w in self.manifest.watched}
        return [kind for name, kind in self.kinds.items() if name in watched]

    def walk_start(self, state: dict[str, Any]) -> datetime:
        """Where an item's walk starts: its pages count from the start of this refresh,
        or of the one that cut its walk short (those pages are in the HTTP cache, paid
        for), if that is not longer ago than :data:`RESUME_WITHIN`."""
        cut = state.get("resume_after")
        if cut is None:
            return self.fresh_after
        since = datetime.fromisoformat(cut)
        recent = self.at - since <= RESUME_WITHIN
        return min(since, self.fresh_after) if recent else self.fresh_after

    def fetcher(self, operation: str, fresh_after: datetime, paid: Ledger) -> refresh.Fetch:
        """One fetch per (operation, freshness), sharing the run's stop, counted in
        ``paid`` (the item's) and in the refresh's budget beside the client's: each
        attempt, a charged one that is retried too."""
        ledgers = (paid,) if self.budget is None else (self.budget, paid)
        with self._lock:
            if (operation, fresh_after) not in self._fetchers:
                fetch = self.client.page_fetch(operation, fresh_after=fresh_after)
                self._fetchers[operation, fresh_after] = fetch
                self._stops.append(fetch.stop)
                if self.stop.is_set():
                    fetch.stop.set()
            return functools.partial(
                self._leased,
                functools.partial(self._fetchers[operation, fresh_after], ledgers=ledgers),
            )

    def _leased(self, fetch: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fetch``, once the study's lease is known to be this refresh's still: one
        lost ends the run before anything more is paid (its pages could never be kept)."""
        lease = self.data.lease
        if lease is not None and not self.stop.is_set():
            try:
                lease.check()
            except StudyError:
                self._stop_all()  # (the commit says it: the lease is renewed there)
        return fetch(*args, **kwargs)

    def _stop_all(self) -> None:
        with self._lock:
            self.stop.set()
            for each in self._stops:
                each.set()

    def _walk_all(self) -> Results:
        stop = self.stop

        def one(watched: dict[str, Any]) -> refresh.Walked:
            if stop.is_set():
                return refresh.Walked(error=FetchError("the refresh was stopped"), stopped=True)
            state = self.manifest.state.get(watch.key(watched), {})
            paid = Ledger()  # this item's calls
            walked = self.kinds[watched["kind"]].walk(watched, state, paid)
            walked.paid = paid.paid_calls
            if walked.error is not None and stop.is_set():
                walked.stopped = True  # another item's failure ended it: not its own
            elif walked.error is not None and (
                self.on_error == "raise" or isinstance(walked.error, _ENDS)
            ):
                self._stop_all()
            return walked

        watched = list(self.manifest.watched)
        pool = ThreadPoolExecutor(max_workers=max(1, self.client.workers))
        futures = [pool.submit(one, item) for item in watched]
        try:
            walks = [future.result() for future in futures]
        except BaseException:
            # Ctrl-C (or SIGTERM through the command line): nothing more is sent, the
            # walks under way end at their next page, and what they fetched is kept.
            self._stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            self.interrupted = [
                (item, future.result())
                for item, future in zip(watched, futures, strict=True)
                if future.done() and not future.cancelled() and future.exception() is None
            ]
            raise
        pool.shutdown()
        return list(zip(watched, walks, strict=True))

    def _commit(self, results: Results) -> tuple[pd.DataFrame, FetchError | None]:
        at = pd.Timestamp(self.at).as_unit("us")
        parts: dict[str, list[pd.DataFrame]] = {"comments": [], "ads": []}
        changes: list[tuple[Any, ...]] = []
        compared: list[refresh.Compared] = []
        first_error: FetchError | None = None
        skipped: list[str] = []
        for watched, walked in results:
            key, item = watch.key(watched), watched["item"]
            if walked.error is not None and not walked.stopped:
                # A budget stop or a refused key ends the refresh under "skip" too: it is
                # raised whatever failed before it, and its item is not "left out" (what it
                # fetched is kept).
                if self.on_error == "skip" and not isinstance(walked.error, _ENDS):
                    skipped.append(item)
                elif first_error is None:
                    first_error = walked.error
            kind = self.kinds[watched["kind"]]
            state = dict(self.manifest.state.get(key, {}))
            its = kind.compare(watched, walked, state)
            parts[kind.dataset].extend(its.rows)
            changes.extend(its.changes)
            compared.append(its)
            self.manifest.state[key] = its.state
        for kind in self.kinds.values():  # (every item is in: what is left to prove)
            rows, more, failed = kind.finish()
            parts[kind.dataset].extend(rows)
            changes.extend(more)
            if failed is not None and first_error is None and isinstance(failed, _ENDS):
                first_error = failed
        rows_of = [
            {
                "kind": watched["kind"],
                "item": watched["item"],
                "new": its.new,
                "changed": its.changed,
                "paid_calls": its.paid,
                "cost_usd": its.paid * PRICE_CENTS / 100,
                "complete": its.complete,
                "missing": its.missing,
                "filters": watch.filters_text(watched),
            }
            for (watched, _), its in zip(results, compared, strict=True)
        ]
        frame = pd.DataFrame(rows_of, columns=list(RUN_COLUMNS))
        frame = mark(
            queries.typed(frame, queries.ITEM_DTYPES | {"filters": "string"}), "study.refresh"
        )
        kept: dict[str, pd.DataFrame] = {}
        for dataset, rows in parts.items():
            if rows:
                kept[dataset] = pd.concat(rows, ignore_index=True)
        if changes:
            change_frame = pd.DataFrame(changes, columns=list(searches.CHANGE_COLUMNS))
            dtypes = queries.CHANGE_DTYPES | WATCH | queries.CHANGE_DETAIL
            kept["changes"] = queries.typed(change_frame, dtypes)
        items = frame.drop(columns="filters").assign(
            at=at,
            watch=[watch.key(w) for w, _ in results],
            state=[json.dumps(self.manifest.state[watch.key(w)]) for w, _ in results],
        )
        kept["items"] = queries.typed(items, queries.ITEM_DTYPES | WATCH | {"state": "string"})
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
        kept["runs"] = queries.typed(run, queries.RUN_DTYPES)
        self.data.commit_refresh(self.id, kept)
        self.manifest.refreshes.append({"id": self.id, "at": self.at.isoformat()})
        self.manifest.pending = None
        if skipped:
            warnings.warn(
                SkippedWarning(f"{len(skipped)} watched items failed and were left out: {skipped}"),
                stacklevel=4,
            )
        return frame, first_error
