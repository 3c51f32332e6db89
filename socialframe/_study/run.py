"""One refresh of a whole study, under its write lock: walk every watched item (in the
client's workers), then keep what the walks brought back, whole or not at all.

The walks (:mod:`.refresh`) say which pages to read; this module runs them, holds the
refresh's own budget, and turns what they fetched into the refresh's rows: the
versions of comments and ads, the changes (new, stopped, edited) against what the study
held, the per-item figures and the run's, then the manifest. A refresh interrupted
(Ctrl-C, SIGTERM), cut by its budget or by an error keeps what it fetched.

Why over 400 lines: the change rules of comments and of ads, the budget, the
interrupt and the resumption of cut walks are one sequence over one manifest.
"""

from __future__ import annotations

import functools
import json
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

import pandas as pd

from .. import _operations as endpoints
from .._errors import AuthError, BudgetExceededError, FetchError, SkippedWarning, StudyError
from .._ledger import PRICE_CENTS, Ledger
from .._models import Fetched
from .._schema import mark
from . import normal, queries, refresh, searches, watch
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
    "filters",
)
#: The watched item's key, kept beside its shown name (two searches of one text with
#: other filters are two items).
WATCH = {"watch": "string"}
#: How many of a post's newest known comments a walk looks for: it stops at the first
#: page holding one (a page is 50; a comment deleted since only means reading on).
NEWEST_KNOWN = 500
#: A walk cut short (budget, error, interrupt) is walked on by the next refresh from the
#: pages it had paid for, if that is no longer ago than this; else afresh.
RESUME_WITHIN = timedelta(days=1)
#: Failures that end a refresh whatever ``on_error`` says.
_ENDS: Final = (BudgetExceededError, AuthError)
#: Fields whose change makes an ad "edited" (compared as :mod:`.normal` says).
AD_TEXT = normal.AD_FIELDS


class Refresh:
    """One refresh of a whole study, under its write lock."""

    def __init__(
        self,
        data: Dataset,
        manifest: Manifest,
        client: Client,
        full: bool,
        budget_cents: int | None,
        on_error: OnError,
        stopped_after: timedelta = searches.STOPPED_AFTER,
        recheck_pages: int = 0,
    ) -> None:
        self.data, self.manifest, self.client = data, manifest, client
        self.stopped_after = stopped_after
        self.recheck_pages = recheck_pages
        self.full, self.on_error = full, on_error
        self.budget = None if budget_cents is None else Ledger(budget_cents)
        # The client's clock: a ManualClock shared with a sandbox simulates weeks.
        self.at = client.clock.now().astimezone(UTC)
        self.id = refresh_id(self.at)
        taken = {r["id"] for r in manifest.refreshes}
        if self.id in taken or (manifest.refreshes and self.id < manifest.refreshes[-1]["id"]):
            # Two refreshes in one millisecond (a ManualClock that stood still) or a clock
            # set back: ids stay unique and in the order the refreshes ran.
            base = max(self.id, *(t.split("-")[0] for t in taken))
            self.id = f"{base}-{len(manifest.refreshes) + 1:06d}"
        pending = manifest.pending
        # Pages paid for by a refresh that never finished are in the HTTP cache: they count.
        started = datetime.fromisoformat(pending["at"]) if pending else None
        recent = started is not None and timedelta(0) <= self.at - started <= RESUME_WITHIN
        self.fresh_after = started if recent and started is not None else self.at

    def run(self) -> pd.DataFrame:
        duckdb = queries.duckdb_module()  # (before anything is marked or paid for)

        manifest = self.manifest
        # What the study holds is read before anything is marked or paid for: a study
        # whose files cannot be read is refused as it is.
        con = queries.connect(self.data, manifest)
        try:
            try:
                known = self._known(con)
            except duckdb.Error as exc:
                raise queries.unreadable(self.data, exc) from None
            manifest.pending = {"id": self.id, "at": self.fresh_after.isoformat()}
            self.data.write(manifest)
            return self._run(con, known)
        finally:
            con.close()

    def _run(self, con: queries.Reader, known: dict[str, Any]) -> pd.DataFrame:
        self.interrupted: list[tuple[dict[str, Any], refresh.Walked]] | None = None
        try:
            results = self._walk_all(known)
        except KeyboardInterrupt:
            if self.interrupted:  # keep what the walks had fetched, then stop
                texts = self._old_texts(con, self.interrupted)
                self._commit(self.interrupted, {**known, "texts": texts})
            raise
        frame, first_error = self._commit(
            results,
            {
                **known,
                "texts": self._old_texts(con, results),
                "held_of": self._held_of(con, results),
            },
        )
        if first_error is not None:
            raise first_error.with_partial(frame).with_traceback(first_error.__traceback__)
        return frame

    def _old_texts(
        self, con: queries.Reader, results: list[tuple[dict[str, Any], refresh.Walked]]
    ) -> Names:
        """:func:`_old_texts`; a file that cannot be read any more, or is not the one
        checked before the walks (damaged, moved away, replaced while they ran) is a
        StudyError, and the refresh stays pending: the pages
        it paid for are the next one's, from the HTTP cache."""
        import duckdb

        try:
            return _old_texts(con, results)
        except duckdb.Error as exc:
            error = queries.unreadable(self.data, exc)
        except StudyError as exc:  # a file changed since it was checked (named)
            error = exc
        raise StudyError(
            f"{error}. Nothing of this refresh was kept; the pages it paid for are in"
            " the client's HTTP cache (if it keeps one), for the next refresh once the"
            " files are put back"
        )

    def _read_whole(self, walked: refresh.Walked) -> bool:
        """Whether a post's walk proves what is no longer there: it read every page of
        the post, all of them fresh (of this refresh), and brought back as many
        comments as page 1's ``total`` (fewer: the pages moved under it as it read)."""
        return bool(
            walked.whole
            and walked.reached
            and walked.error is None
            and walked.total is not None
            and all(p.fetched_at is None or p.fetched_at >= self.fresh_after for p in walked.pages)
            and len(walked.comments) >= walked.total
        )

    def _held_of(
        self, con: queries.Reader, results: list[tuple[dict[str, Any], refresh.Walked]]
    ) -> dict[str, set[str]]:
        """The comments (their names in the study) each post read whole holds, but
        those proven deleted before."""
        held: dict[str, set[str]] = {}
        for watched, walked in results:
            if watched["kind"] != "post" or not self._read_whole(walked):
                continue
            found = con.df(
                "select distinct ident_ from _comment_names where item = ? and ident_ not in"
                " (select id from changes where kind = 'comment' and change = 'deleted')",
                [watched["item"]],
            )
            held[watched["item"]] = {str(i) for i in found["ident_"] if isinstance(i, str)}
        return held

    def _known(self, con: queries.Reader) -> dict[str, Any]:
        """What the study holds, as the walks and the change rules need it."""
        # A walk stops at the first page holding a comment known before: reading newest
        # first, that is one of the post's newest known ones, so those are all it needs
        # (with the refresh that first saw each), not every id of a study that may be
        # larger than memory. Whether a comment a walk brings back is new, and its old
        # text, are asked of the files afterwards, for those comments only.
        # Only comments a finished walk saw count (one cut short may have left a gap
        # below them), and they are chosen among those: chosen first, a post whose newest
        # comments came from a cut walk had none to stop at, and was read whole again.
        walked = pd.DataFrame(
            {
                "item": pd.array(
                    [w["item"] for w in self.manifest.watched if w["kind"] == "post"], "string"
                ),
                "walked": pd.array(
                    [
                        self.manifest.state.get(watch.key(w), {}).get("walked")
                        for w in self.manifest.watched
                        if w["kind"] == "post"
                    ],
                    "string",
                ),
            }
        )
        con.register("walked_through", walked)
        try:
            # A comment is known by every name it had: its id and its content id (the
            # id derived from it), so that one sent now without its permalink, or now with
            # it, is known (see queries: _comment_names).
            comments = con.df(
                "with newest as (select item, ident_, refresh from ("
                " select item, ident_, min(refresh) as refresh, max(created_at) as created"
                " from _comment_names group by item, ident_"
                ") c join walked_through w using (item) where c.refresh <= w.walked"
                " qualify row_number() over (partition by item order by created desc nulls"
                f" last, ident_ desc) <= {NEWEST_KNOWN})"
                " select n.item, n.refresh, list_concat(list(distinct v.comment_id),"
                " list(distinct v.content_id) filter (where v.content_id is not null)) as names"
                " from newest n join _comment_names v using (item, ident_)"
                " group by n.item, n.ident_, n.refresh"
            )
        finally:
            con.unregister("walked_through")
        # (a comment proven deleted is no longer held: the post's total no longer counts it)
        held = con.df(
            "select item, count(distinct ident_) as n from _comment_names where ident_ not in"
            " (select id from changes where kind = 'comment' and change = 'deleted')"
            " group by item"
        )
        # Ads by their name in the study (ident_, as comments: see queries), and every
        # name each had.
        ad_names = Names(
            con.df("select distinct ad_archive_id, content_id, id_derived, ident_ from _ad_names"),
            "ad_archive_id",
        )
        ads = con.df(
            "select a.item, a.ad_archive_id, a.is_active, a.end_date, a.extra, l.state,"
            f" l.missing_at, l.missing_refresh, {', '.join('a.' + f for f in AD_TEXT)}"
            " from ads a join _ad_names n on n.ad_archive_id = a.ad_archive_id"
            " and n.refresh = a.refresh join _ad_life l on l.ident_ = n.ident_"
            " qualify row_number() over (partition by a.ad_archive_id) = 1"
        )
        ads.index = pd.Index([ad_names.ident.get(a, a) for a in ads["ad_archive_id"]])
        found = con.df("select distinct watch, ident_ from _ad_names where watch is not null")
        ads_of = {str(k): set(g["ident_"]) for k, g in found.groupby("watch")}
        return {
            "comments": comments,
            "held": dict(zip(held["item"], held["n"], strict=True)),
            "ads": ads,
            "ad_names": ad_names,
            "ads_of": ads_of,
        }

    def _walk_start(self, state: dict[str, Any]) -> datetime:
        """Where an item's walk starts: its pages count from the start of this refresh,
        or of the one that cut its walk short (those pages are in the HTTP cache, paid
        for), if that is not longer ago than :data:`RESUME_WITHIN`."""
        cut = state.get("resume_after")
        if cut is None:
            return self.fresh_after
        since = datetime.fromisoformat(cut)
        recent = self.at - since <= RESUME_WITHIN
        return min(since, self.fresh_after) if recent else self.fresh_after

    def _walk_all(self, known: dict[str, Any]) -> list[tuple[dict[str, Any], refresh.Walked]]:
        client = self.client
        stop = threading.Event()
        stops: list[threading.Event] = []
        fetchers: dict[tuple[str, datetime], Callable[..., Fetched]] = {}
        lock = threading.Lock()

        def fetcher(operation: str, fresh_after: datetime, paid: Ledger) -> refresh.Fetch:
            """One fetch per (operation, freshness), sharing the run's stop, counted in
            ``paid`` (the item's) and in the refresh's budget beside the client's: each
            attempt, a charged one that is retried too."""
            ledgers = (paid,) if self.budget is None else (self.budget, paid)
            with lock:
                if (operation, fresh_after) not in fetchers:
                    path = (
                        endpoints.COMMENTS_PATH if operation == "comments" else endpoints.ADS_PATH
                    )
                    fetch, its_stop = client._fetcher(operation, path, fresh_after=fresh_after)
                    fetchers[operation, fresh_after] = fetch
                    stops.append(its_stop)
                    if stop.is_set():
                        its_stop.set()
                return functools.partial(fetchers[operation, fresh_after], ledgers=ledgers)

        def stop_all() -> None:
            with lock:
                stop.set()
                for each in stops:
                    each.set()

        def resumed(state: dict[str, Any], paid: Ledger) -> refresh.Fetch:
            """A post's pages: fresh, or those of a walk cut short within the last
            day, from the cache. (Not older: the service's paging token changes from
            one walk to the next and new comments move the pages along, so a walk
            cannot be picked up from old pages.)"""
            return fetcher("comments", self._walk_start(state), paid)

        by_post = known["comments"].groupby("item", sort=False)
        ids_of: dict[str, pd.DataFrame] = {str(k): g for k, g in by_post}

        def one(watched: dict[str, Any]) -> refresh.Walked:
            if stop.is_set():
                return refresh.Walked(error=FetchError("the refresh was stopped"), stopped=True)
            state = self.manifest.state.get(watch.key(watched), {})
            paid = Ledger()  # this item's calls
            if watched["kind"] == "post":
                rows = ids_of.get(watched["item"])
                walked_through = state.get("walked")
                if rows is None:
                    base: set[str] = set()
                elif walked_through is None:
                    base = set()
                else:
                    names = rows.loc[rows["refresh"] <= walked_through, "names"]
                    base = {str(name) for each in names for name in each}
                full = self.full and not state.get("complete", False)
                walked = refresh.walk_post(
                    resumed(state, paid), watched, base, full=full, recheck=self.recheck_pages
                )
                first = walked.pages[0].fetched_at if walked.pages else None
                if walked.reached and first is not None and first < self.fresh_after:
                    # A cut walk finished from the cache: its pages are of when it began,
                    # so what arrived since is on none of them (and its total is old).
                    # Read the newest pages now, as any refresh does, down to a known one.
                    seen = base | set(walked.comments["comment_id"])
                    seen |= set(walked.comments["content_id"])
                    newest = refresh.walk_post(
                        fetcher("comments", self.fresh_after, paid), watched, seen, full=False
                    )
                    walked = refresh.joined(walked, newest)
            else:
                since = state.get("checked")
                walked = refresh.walk_search(
                    fetcher("ads", self._walk_start(state), paid),
                    watched,
                    since=date.fromisoformat(since) if since else None,
                    stop=stop,
                )
            walked.paid = paid.paid_calls
            if walked.error is not None and stop.is_set():
                walked.stopped = True  # another item's failure ended it: not its own
            elif walked.error is not None and (
                self.on_error == "raise" or isinstance(walked.error, _ENDS)
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
        comment_parts: list[pd.DataFrame] = []
        ad_parts: list[pd.DataFrame] = []
        changes: list[tuple[Any, ...]] = []
        rows: list[dict[str, Any]] = []
        first_error: FetchError | None = None
        skipped: list[str] = []
        old_ads = known["ads"]  # the latest version of each, by its name in the study
        ad_names = known["ad_names"]
        held = known["held"]
        names = known["texts"]  # the comments the walks brought back that the study held
        new_ads: set[str] = set()  # an ad two searches find is new once
        life = searches.Life(old_ads, at, self.id, self.stopped_after)
        ad_rows: dict[str, int] = {}  # each search's row in `rows`, by its key
        change = searches.change
        for watched, walked in results:
            key, item = watch.key(watched), watched["item"]
            state = dict(self.manifest.state.get(key, {}))
            new = changed = 0
            if walked.error is not None and not walked.stopped:
                # A budget stop or a refused key ends the refresh under "skip" too: it is
                # raised whatever failed before it, and its item is not "left out" (what it
                # fetched is kept).
                if self.on_error == "skip" and not isinstance(walked.error, _ENDS):
                    skipped.append(item)
                elif first_error is None:
                    first_error = walked.error
            if watched["kind"] == "post":
                got = walked.comments if walked.pages else None
                fresh: set[str] = set()  # the names of the comments new in this walk
                whole = self._read_whole(walked)
                proof = {
                    "refresh": self.id,
                    "pages": len(walked.pages),
                    "paid_calls": int(walked.paid),
                    "complete": bool(walked.reached),
                    "read_whole": whole,
                }
                # What the pages past the normal walk's cost (re-read pages, a full walk):
                # the price of the edits found there and of the deletions, shared.
                beyond = [
                    p
                    for p in walked.pages
                    if walked.stop_page is not None and p.page > walked.stop_page
                ]
                extra_usd = sum(not p.from_cache for p in beyond) * PRICE_CENTS / 100
                costly: list[int] = []  # (indexes in `changes` of those it paid for)
                returned: set[str] = set()  # the names in the study of what it brought
                if got is not None and len(got):
                    got = _labelled(got, item, key, at)
                    comment_parts.append(got)
                    checked: set[str] = set()
                    for cid, content, derived, text, number in zip(
                        got["comment_id"],
                        got["content_id"],
                        got["id_derived"],
                        got["text"],
                        got["page"],
                        strict=True,
                    ):
                        content = content if isinstance(content, str) else None
                        ident = names.named(cid, content, bool(derived))
                        returned.add(cid if ident is None else ident)
                        if content is not None:
                            returned.add(content)
                        if ident is None:
                            # (sent twice in one walk, with and without its permalink: once)
                            if cid not in fresh and (derived or content not in fresh):
                                new += 1
                                changes.append(
                                    change(at, "comment", item, cid, "new", key, evidence=proof)
                                )
                            fresh.add(cid)
                            if content is not None and not derived:
                                fresh.add(content)
                        elif ident not in checked and _differs(names.text[ident], text):
                            changed += 1
                            if walked.stop_page is not None and number > walked.stop_page:
                                costly.append(len(changes))
                            changes.append(
                                change(
                                    at,
                                    "comment",
                                    item,
                                    cid,
                                    "edited",
                                    key,
                                    fields=["text"],
                                    previous={"text": names.text[ident]},
                                    current={"text": text},
                                    evidence=proof,
                                )
                            )
                        if ident is not None:
                            checked.add(ident)
                gone: list[str] = []
                if whole:  # every page read, as many comments as the post counts
                    gone = sorted(known["held_of"].get(item, set()) - returned)
                for ident in gone:
                    changed += 1
                    costly.append(len(changes))
                    changes.append(
                        change(
                            at,
                            "comment",
                            item,
                            ident,
                            "deleted",
                            key,
                            evidence={
                                **proof,
                                "total": walked.total,
                                "returned": len(walked.comments),
                            },
                        )
                    )
                for index in costly:  # (each the same share of what it cost)
                    changes[index] = (
                        *changes[index][:-1],
                        round(extra_usd / len(costly), 9),
                    )
                have = held.get(item, 0) + new - len(gone)
                total = walked.total if walked.total is not None else state.get("total")
                missing = None if total is None else max(int(total) - have, 0)
                # a post whose total is below what the study holds lost comments: not
                # complete (`full` reads it whole, and proves which)
                lost = total is not None and int(total) < have
                if walked.reached:
                    state["walked"] = self.id
                    state.pop("resume_after", None)
                elif walked.pages:  # cut short: the next refresh walks on from its pages
                    # (from where this walk started: a walk begun afresh, the old cut
                    # too long ago, is the one to go on with)
                    state["resume_after"] = self._walk_start(state).isoformat()
                state["total"] = total
                complete: bool | None = bool(walked.reached and missing == 0 and not lost)
                if walked.pages:  # (a walk that fetched nothing learned nothing of the post:
                    state["complete"] = complete  # a complete one stays so for `full`)
            else:
                got = refresh.ad_rows(walked.pages) if walked.pages else None
                whole = bool(walked.reached and not walked.looped)
                proof = searches.evidence_of(self.id, walked, whole)
                seen: set[str] = set()  # (by their names in the study)
                if got is not None and len(got):
                    content = got.pop("content_id").array
                    got = _labelled(_ads_for_storage(got).assign(content_id=content), item, key, at)
                    ad_parts.append(got)
                    for _, row in got.iterrows():
                        aid, derived = row["ad_archive_id"], bool(row["id_derived"])
                        its = row["content_id"] if isinstance(row["content_id"], str) else None
                        ident = ad_names.named(aid, its, derived)
                        if ident is None:  # (one two searches find, or sent twice: new once)
                            if aid not in new_ads and (derived or its not in new_ads):
                                new += 1
                                changes.append(
                                    change(at, "ad", item, aid, "new", key, evidence=proof)
                                )
                            new_ads.add(aid)
                            if its is not None and not derived:
                                new_ads.add(its)
                            continue
                        seen.add(ident)
                        changed += life.seen(ident, aid, row, item, key, proof)
                if walked.active is not None and whole:
                    running_now = {ad_names.named(*ad) or ad[0] for ad in walked.active}
                    # the ads this very search found before (another search's are not its)
                    mine = set(old_ads.index[old_ads.index.isin(known["ads_of"].get(key, set()))])
                    life.walked_whole(key, item, mine, running_now | seen, proof)
                if whole:
                    # as of its oldest page: a walk finished from the cache shows the
                    # search as it was then, and an ad started later that day is new next time
                    seen_at = [p.fetched_at for p in walked.pages if p.fetched_at is not None]
                    state["checked"] = min([self.at, *seen_at]).astimezone(UTC).date().isoformat()
                    state.pop("resume_after", None)
                elif walked.pages and not walked.reached:
                    state["resume_after"] = self._walk_start(state).isoformat()
                else:  # (the loop guard cut it: its pages would loop again, read afresh)
                    state.pop("resume_after", None)
                complete = whole
                missing = None
                ad_rows[key] = len(rows)
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
                    "filters": watch.filters_text(watched),
                }
            )
        for key, count in life.absences().items():
            rows[ad_rows[key]]["changed"] += count
        changes.extend(life.changes)
        frame = pd.DataFrame(rows, columns=list(RUN_COLUMNS))
        frame = mark(
            queries.typed(frame, queries.ITEM_DTYPES | {"filters": "string"}), "study.refresh"
        )
        files: dict[str, str] = {}
        write = self.data.write_partition
        if comment_parts:
            files["comments"] = write(
                "comments", self.id, pd.concat(comment_parts, ignore_index=True)
            )
        if ad_parts:
            files["ads"] = write("ads", self.id, pd.concat(ad_parts, ignore_index=True))
        if changes:
            change_frame = pd.DataFrame(changes, columns=list(searches.CHANGE_COLUMNS))
            dtypes = queries.CHANGE_DTYPES | WATCH | queries.CHANGE_DETAIL
            files["changes"] = write("changes", self.id, queries.typed(change_frame, dtypes))
        items = frame.drop(columns="filters").assign(
            at=at, watch=[watch.key(w) for w, _ in results]
        )
        files["items"] = write("items", self.id, queries.typed(items, queries.ITEM_DTYPES | WATCH))
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
        if skipped:
            warnings.warn(
                SkippedWarning(f"{len(skipped)} watched items failed and were left out: {skipped}"),
                stacklevel=4,
            )
        return frame, first_error


class Names:
    """Comments (or ads) the study held, by every name they had: what tells one seen
    before from a new one (see :meth:`named`).

    Args:
        rows: Rows of the view ``_comment_names`` (or ``_ad_names``): each one's id
            (``id_column``), ``content_id``, ``id_derived`` and ``ident_`` (its name in
            the study), and for comments ``text`` and ``refresh``.
        id_column: ``comment_id`` or ``ad_archive_id``.

    Attributes:
        ident: Each name (an id; a content id of one sent with its id) -> its name in
            the study.
        content: Each content id of one sent with its id -> its name in the study.
        text: Each comment's latest text.
    """

    def __init__(self, rows: pd.DataFrame | None = None, id_column: str = "comment_id") -> None:
        self.ident: dict[str, str] = {}
        self.content: dict[str, str] = {}
        self.text: dict[str, Any] = {}
        if rows is None or not len(rows):
            return
        if "refresh" in rows:
            rows = rows.sort_values("refresh", kind="stable")
        texts = rows["text"] if "text" in rows else [None] * len(rows)
        for cid, content, derived, ident, text in zip(
            rows[id_column],
            rows["content_id"],
            rows["id_derived"],
            rows["ident_"],
            texts,
            strict=True,
        ):
            if not isinstance(ident, str):
                continue  # (a comment an older socialframe kept without any id)
            self.ident[str(cid)] = ident
            if not derived and isinstance(content, str):
                self.content[content] = ident
            self.text[ident] = text  # (the latest refresh last)

    def named(self, cid: str, content: str | None, derived: bool) -> str | None:
        """The study's name of the comment a walk sent as ``cid`` (content id
        ``content``), or None when it is new.

        Known by that id; or, sent without its id, known by its id under the content
        id it had then; or, sent with its id, known only by the id derived from it
        (never another id's: two ids are two comments).
        """
        ident = self.ident.get(cid)
        if ident is not None:
            return ident
        if derived:
            return self.content.get(cid)
        ident = None if content is None else self.ident.get(content)
        return ident if ident == content else None


def _old_texts(con: Any, results: list[tuple[dict[str, Any], refresh.Walked]]) -> Names:
    """Of the comments the walks brought back, those the study held (by their ids or
    their content ids), with their latest text (a study may be larger than memory:
    only these are asked for)."""
    ids = [
        name
        for watched, walked in results
        if watched["kind"] == "post" and walked.pages
        for column in ("comment_id", "content_id")
        for name in walked.comments[column]
    ]
    if not ids:
        return Names()
    wanted = pd.DataFrame({"id": pd.array(ids, dtype="string")}).drop_duplicates()
    con.register("wanted", wanted)
    try:
        found = con.df(
            "with touched as ("
            " select ident_ from _comment_names join wanted on comment_id = wanted.id"
            " union select ident_ from _comment_names join wanted on content_id = wanted.id"
            ") select comment_id, content_id, id_derived, ident_, text, refresh"
            " from _comment_names join touched using (ident_)"
        )
    finally:
        con.unregister("wanted")
    return Names(found)


def _labelled(rows: pd.DataFrame, item: str, key: str, at: pd.Timestamp) -> pd.DataFrame:
    """``rows`` with the watched item they belong to (as shown, and its key) and when
    this refresh saw them."""
    return rows.assign(
        item=pd.array([item] * len(rows), "string"),
        watch=pd.array([key] * len(rows), "string"),
        seen_at=at,
    )


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
