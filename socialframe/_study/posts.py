"""The watched posts of a refresh: what the study knows of them, their walks, and what
comparing those with it proves (new, edited and deleted comments, ``complete``,
``missing``).

The same small interface as :mod:`.searches` (see :class:`.refresh.Kind`): ``know``
before anything is paid, ``walk`` one item, ``learn`` what the walks brought back
needs of the files, ``compare`` one item -> its rows, changes and state, ``finish``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from .._errors import FetchError
from .._ledger import PRICE_CENTS, Ledger
from . import refresh, watch
from .refresh import Compared, Names, Run, differs, labelled
from .searches import change

if TYPE_CHECKING:
    from .queries import Reader

#: How many of a post's newest known comments a walk looks for: it stops at the first
#: page holding one (a page is 50; a comment deleted since only means reading on).
NEWEST_KNOWN: Final = 500


#: Every comment the study saw (``item``, ``ident_``), and whether it is ``gone``:
#: proven deleted and not seen since. One seen again after its ``deleted`` is held again
#: (else its post would count one comment short, incomplete for ever). (The deletions
#: are few: each comment's last is joined, not looked up for every comment.)
_KNOWN: Final = (
    'with deleted as (select id, max("at") as deleted_at from changes'
    " where kind = 'comment' and change = 'deleted' group by id)"
    " select h.item, h.ident_, coalesce(d.deleted_at >= h.last_seen, false) as gone"
    " from (select item, ident_, max(seen_at) as last_seen"
    " from _comment_names group by item, ident_) h"
    " left join deleted d on d.id = h.ident_"
)
#: The comments each post holds now (``item``, ``ident_``).
HELD: Final = f"select item, ident_ from ({_KNOWN}) where not gone"
#: Per post: how many comments it holds now (``held``), and those proven deleted and
#: not seen since (``gone``, a list): one row a post, however many comments the study
#: holds (not a row a comment into pandas).
HELD_BY_POST: Final = (
    f"select item, count(*) filter (where not gone) as held,"
    f" coalesce(list(ident_) filter (where gone), []) as gone from ({_KNOWN}) group by item"
)


class Posts:
    """The posts of one refresh (:class:`.refresh.Kind`)."""

    kind = "post"
    dataset = "comments"
    views: tuple[str, ...] = ("comments", "changes")  # (a comment proven deleted: its change)

    def __init__(self, run: Run) -> None:
        self.run = run
        self.newest = pd.DataFrame({"item": [], "refresh": [], "names": []})
        self.ids_of: dict[str, pd.DataFrame] = {}
        self.held: dict[str, int] = {}
        self.texts = Names()
        self.held_of: dict[str, set[str]] = {}
        #: Per post: its comments proven deleted and not seen since (one a walk brings
        #: back is held again, and counts in its post's total again).
        self.gone_of: dict[str, set[str]] = {}

    def know(self, con: Reader) -> None:
        """What the study holds, as the walks and the change rules need it."""
        # A walk stops at the first page holding a comment known before: reading newest
        # first, that is one of the post's newest known ones, so those are all it needs
        # (with the refresh that first saw each), not every id of a study that may be
        # larger than memory. Whether a comment a walk brings back is new, and its old
        # text, are asked of the files afterwards, for those comments only.
        # Only comments a finished walk saw count (one cut short may have left a gap
        # below them), and they are chosen among those: chosen first, a post whose newest
        # comments came from a cut walk had none to stop at, and was read whole again.
        # Only comments at or after each post's ``floor`` (its state: the 500th newest
        # comment's time when the last refresh finished a walk of it) can be among its
        # newest now, since a post's comments only ever grow: the rest of the study is
        # not grouped at all (a refresh's cost follows the watched posts, not the years
        # of comments behind them). One bound for all, given as a constant, lets DuckDB
        # skip the older rows as it reads them; each post's own bound then applies.
        manifest = self.run.manifest
        posts = [w for w in manifest.watched if w["kind"] == "post"]
        states = [manifest.state.get(watch.key(w), {}) for w in posts]
        floors = [s.get("floor") for s in states]
        walked = pd.DataFrame(
            {
                "item": pd.array([w["item"] for w in posts], "string"),
                "walked": pd.array([s.get("walked") for s in states], "string"),
                "floor": pd.to_datetime(pd.Series(floors, dtype=object), utc=True).astype(
                    "datetime64[us, UTC]"
                ),
            }
        )
        lowest = None if any(f is None for f in floors) or not floors else min(walked["floor"])
        con.register("walked_through", walked)
        try:
            # A comment is known by every name it had: its id and its content id (the
            # id derived from it), so that one sent now without its permalink, or now with
            # it, is known (see queries: _comment_names).
            comments = con.df(
                "with newest as (select item, ident_, refresh, created from ("
                " select n.item, n.ident_, min(n.refresh) as refresh,"
                " max(n.created_at) as created"
                " from _comment_names n join walked_through f on f.item = n.item"
                f" where {'' if lowest is None else 'n.created_at >= ? and '}"
                "(f.floor is null or n.created_at >= f.floor)"
                " group by n.item, n.ident_"
                ") c join walked_through w using (item) where c.refresh <= w.walked"
                " qualify row_number() over (partition by item order by created desc nulls"
                f" last, ident_ desc) <= {NEWEST_KNOWN})"
                " select n.item, n.ident_, n.refresh, n.created,"
                " list_concat(list(distinct v.comment_id),"
                " list(distinct v.content_id) filter (where v.content_id is not null)) as names"
                " from newest n join _comment_names v using (item, ident_)"
                " group by n.item, n.ident_, n.refresh, n.created",
                [] if lowest is None else [lowest.to_pydatetime()],
            )
        finally:
            con.unregister("walked_through")
        # (a comment proven deleted is no longer held: the post's total no longer counts it)
        known = con.df(HELD_BY_POST)  # (one read: the held counts and the gone, per post)
        self.ids_of = {str(k): g for k, g in comments.groupby("item", sort=False)}
        pairs = zip(known["item"], known["held"], known["gone"], strict=True)
        self.held, self.gone_of = {}, {}
        for item, held, gone in pairs:
            if held:
                self.held[str(item)] = int(held)
            if len(gone):
                self.gone_of[str(item)] = {str(i) for i in gone}

    def walk(self, watched: dict[str, Any], state: dict[str, Any], paid: Ledger) -> refresh.Walked:
        """A post's pages newest first, down to a known comment (see :mod:`.refresh`)."""
        run = self.run
        rows = self.ids_of.get(watched["item"])
        walked_through = state.get("walked")
        if rows is None or walked_through is None:
            base: set[str] = set()
        else:
            names = rows.loc[rows["refresh"] <= walked_through, "names"]
            base = {str(name) for each in names for name in each}
        full = run.full and not state.get("complete", False)
        # A post's pages: fresh, or those of a walk cut short within the last day, from
        # the cache. (Not older: the service's paging token changes from one walk to the
        # next and new comments move the pages along, so a walk cannot be picked up from
        # old pages.)
        walked = refresh.walk_post(
            run.fetcher("comments", run.walk_start(state), paid),
            watched,
            base,
            full=full,
            recheck=run.recheck_pages,
        )
        first = walked.pages[0].fetched_at if walked.pages else None
        if walked.reached and first is not None and first < run.fresh_after:
            # A cut walk finished from the cache: its pages are of when it began,
            # so what arrived since is on none of them (and its total is old).
            # Read the newest pages now, as any refresh does, down to a known one.
            seen = base | set(walked.comments["comment_id"])
            seen |= set(walked.comments["content_id"])
            newest = refresh.walk_post(
                run.fetcher("comments", run.fresh_after, paid), watched, seen, full=False
            )
            walked = refresh.joined(walked, newest)
        return walked

    def learn(
        self, con: Reader, results: list[tuple[dict[str, Any], refresh.Walked]], *, whole: bool
    ) -> None:
        """Of the comments the walks brought back, those the study held, with their
        latest text; and (``whole``: not after an interrupt) the comments each post
        read whole holds."""
        self.texts = old_texts(con, results)
        self.held_of = self._held_of(con, results) if whole else {}

    def read_whole(self, walked: refresh.Walked) -> bool:
        """Whether a post's walk proves what is no longer there: it read every page of
        the post, all of them fresh (of this refresh), and brought back as many
        comments as page 1's ``total`` (fewer: the pages moved under it as it read)."""
        fresh_after = self.run.fresh_after
        return bool(
            walked.whole
            and walked.reached
            and walked.error is None
            and walked.total is not None
            and all(p.fetched_at is None or p.fetched_at >= fresh_after for p in walked.pages)
            and len(walked.comments) >= walked.total
        )

    def _held_of(
        self, con: Reader, results: list[tuple[dict[str, Any], refresh.Walked]]
    ) -> dict[str, set[str]]:
        """The comments (their names in the study) each post read whole holds, but
        those proven deleted before."""
        held: dict[str, set[str]] = {}
        for watched, walked in results:
            if watched["kind"] != "post" or not self.read_whole(walked):
                continue
            found = con.df(f"select ident_ from ({HELD}) where item = ?", [watched["item"]])
            held[watched["item"]] = {str(i) for i in found["ident_"] if isinstance(i, str)}
        return held

    def compare(
        self, watched: dict[str, Any], walked: refresh.Walked, state: dict[str, Any]
    ) -> Compared:
        """A post's walk against what the study held: its comments to keep, the
        changes (new, edited, deleted) and the post's new state."""
        run = self.run
        at = pd.Timestamp(run.at).as_unit("us")
        key, item = watch.key(watched), watched["item"]
        names = self.texts
        out = Compared(paid=walked.paid)
        got = walked.comments if walked.pages else None
        fresh: set[str] = set()  # the names of the comments new in this walk
        whole = self.read_whole(walked)
        proof = {
            "refresh": run.id,
            "pages": len(walked.pages),
            "paid_calls": int(walked.paid),
            "complete": bool(walked.reached),
            "read_whole": whole,
        }
        # What the pages past the normal walk's cost (re-read pages, a full walk):
        # the price of the edits found there and of the deletions, shared.
        beyond = [
            p for p in walked.pages if walked.stop_page is not None and p.page > walked.stop_page
        ]
        extra_usd = sum(not p.from_cache for p in beyond) * PRICE_CENTS / 100
        changes = out.changes
        costly: list[int] = []  # (indexes in `changes` of those it paid for)
        returned: set[str] = set()  # the names in the study of what it brought
        if got is not None and len(got):
            got = labelled(got, item, key, at)
            out.rows.append(got)
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
                        out.new += 1
                        changes.append(change(at, "comment", item, cid, "new", key, evidence=proof))
                    fresh.add(cid)
                    if content is not None and not derived:
                        fresh.add(content)
                elif ident not in checked and differs(names.text[ident], text):
                    out.changed += 1
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
            gone = sorted(self.held_of.get(item, set()) - returned)
        for ident in gone:
            out.changed += 1
            costly.append(len(changes))
            changes.append(
                change(
                    at,
                    "comment",
                    item,
                    ident,
                    "deleted",
                    key,
                    evidence={**proof, "total": walked.total, "returned": len(walked.comments)},
                )
            )
        for index in costly:  # (each the same share of what it cost)
            changes[index] = (*changes[index][:-1], round(extra_usd / len(costly), 9))
        back = returned & self.gone_of.get(item, set())  # (deleted, then seen again)
        have = self.held.get(item, 0) + out.new + len(back) - len(gone)
        total = walked.total if walked.total is not None else state.get("total")
        out.missing = None if total is None else max(int(total) - have, 0)
        # a post whose total is below what the study holds lost comments: not
        # complete (`full` reads it whole, and proves which)
        lost = total is not None and int(total) < have
        if walked.reached:
            state["walked"] = run.id
            state.pop("resume_after", None)
            state["floor"] = self._floor(item, got, names)
        elif walked.pages:  # cut short: the next refresh walks on from its pages
            # (from where this walk started: a walk begun afresh, the old cut
            # too long ago, is the one to go on with)
            state["resume_after"] = run.walk_start(state).isoformat()
        state["total"] = total
        out.complete = bool(walked.reached and out.missing == 0 and not lost)
        if walked.pages:  # (a walk that fetched nothing learned nothing of the post:
            state["complete"] = out.complete  # a complete one stays so for `full`)
        out.state = state
        return out

    def _floor(self, item: str, got: pd.DataFrame | None, names: Names) -> str | None:
        """The time of the post's 500th newest comment among those the study knew (its
        newest known, from :meth:`know`) and those this walk brought back, each comment
        once; None while fewer than 500 have a time. Never later than the 500th newest
        of all the post's comments (these are some of them), which only grows as
        comments are added: every one of its newest is at or after it, next time too."""
        created: dict[str, pd.Timestamp] = {}
        known = self.ids_of.get(item)
        if known is not None:
            for ident, when in zip(known["ident_"], known["created"], strict=True):
                if isinstance(ident, str) and not pd.isna(when):
                    created[ident] = pd.Timestamp(when)
        if got is not None:
            for cid, content, derived, when in zip(
                got["comment_id"],
                got["content_id"],
                got["id_derived"],
                got["created_at"],
                strict=True,
            ):
                if pd.isna(when):
                    continue
                content = content if isinstance(content, str) else None
                ident = names.named(cid, content, bool(derived)) or cid
                at = pd.Timestamp(when)
                created[ident] = max(at, created.get(ident, at))
        if len(created) < NEWEST_KNOWN:
            return None
        return str(sorted(created.values(), reverse=True)[NEWEST_KNOWN - 1].isoformat())

    def finish(self) -> tuple[list[pd.DataFrame], list[tuple[Any, ...]], FetchError | None]:
        """Nothing is left to prove once every post is compared."""
        return [], [], None


def old_texts(con: Reader, results: list[tuple[dict[str, Any], refresh.Walked]]) -> Names:
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
