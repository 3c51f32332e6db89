"""The life of the ads a study watches, and the rules that prove each change of it.

An ad the study holds is in one of three states (``study.ads()["state"]``):

- ``running``: seen running, or not yet proven otherwise;
- ``missing``: a *complete* walk of a search that had found it running did not return
  it (and no other search of the refresh did). The service's paging drops and repeats
  ads, so this alone proves nothing: it still counts as running everywhere;
- ``stopped``: proven stopped, by the service (``is_active`` false; or, where it
  sends no ``is_active``, an ``end_date`` more than :data:`END_PAST` before the
  refresh: a running ad's ``end_date`` is the last day it was shown) or by its absence
  from two complete walks of its search at least ``stopped_after`` apart (and from
  every complete walk between them: one sighting running makes it running again).

The changes (``study.changes()``), each with its evidence as JSON text:

- ``new``: an ad the study did not hold;
- ``missing``: running -> missing, from a complete walk (a walk cut short by the budget,
  an error, an interrupt or the loop guard on a page repeated mid-walk proves nothing);
- ``stopped``: running or missing -> stopped, as above;
- ``resumed``: stopped -> seen running again (its history keeps both);
- ``edited``: the copy or the creatives differ once normalised (:mod:`.normal`):
  ``fields`` names them, ``previous`` / ``current`` hold their values before and after.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from .._errors import FetchError
from .._fetch import pages as pager
from .._ledger import PRICE_CENTS, Ledger
from .._models import Page
from . import normal, refresh, watch
from .queries import END_PAST

if TYPE_CHECKING:
    from .queries import Reader

#: How far apart two complete walks without an ad must be to prove it stopped: the
#: default of ``Study.refresh(stopped_after=...)``.
STOPPED_AFTER: Final = timedelta(days=3)
#: The columns of a change row, as a refresh writes them (``watch`` names the item).
CHANGE_COLUMNS: Final = (
    "at",
    "kind",
    "item",
    "id",
    "change",
    "watch",
    "fields",
    "previous",
    "current",
    "evidence",
    "cost_usd",
)


def change(
    at: pd.Timestamp,
    kind: str,
    item: str,
    cid: str,
    what: str,
    key: str,
    *,
    evidence: dict[str, Any],
    fields: list[str] | None = None,
    previous: dict[str, Any] | None = None,
    current: dict[str, Any] | None = None,
    cost_usd: float = 0.0,
) -> tuple[Any, ...]:
    """One change row, in :data:`CHANGE_COLUMNS`' order (JSON text where it says so)."""
    return (
        at,
        kind,
        item,
        cid,
        what,
        key,
        ",".join(fields) if fields else None,
        None if previous is None else dumps(previous),
        None if current is None else dumps(current),
        dumps(evidence),
        float(cost_usd),
    )


def dumps(value: Any) -> str:
    """JSON text of a change's values (times, numpy scalars and lists made plain)."""
    return json.dumps(_plain(value), default=str, sort_keys=True, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, pd.Timestamp):
        return _plain(value.tolist())
    if isinstance(value, pd.Timestamp):
        return None if pd.isna(value) else value.isoformat()
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value


@dataclass
class Life:
    """The ads' changes of one refresh, across its searches (an ad two searches find
    changes once).

    Args:
        old: The latest version of each ad the study held, indexed by its name in
            the study, with ``state``, ``missing_at`` and ``missing_refresh`` (see
            ``queries._ad_life``) and the columns :mod:`.normal` compares.
        at: The refresh's time; ``refresh``: its id.
        stopped_after: See :data:`STOPPED_AFTER`.
    """

    old: pd.DataFrame
    at: pd.Timestamp
    refresh: str
    stopped_after: timedelta
    changes: list[tuple[Any, ...]] = field(default_factory=list)
    #: Each ad seen running by any search of this refresh (its name in the study).
    running: set[str] = field(default_factory=set)
    #: Each ad whose life changed in this refresh (once).
    moved: set[str] = field(default_factory=set)
    #: Each ad compared for edits in this refresh (once: two searches, or one ad sent
    #: with its id and without, bring one edit).
    compared: set[str] = field(default_factory=set)
    #: Per search (its key): the complete walk's candidates for missing or stopped.
    absent: list[tuple[str, str, set[str], dict[str, Any]]] = field(default_factory=list)

    def seen(
        self,
        ident: str,
        aid: str,
        row: pd.Series,
        item: str,
        key: str,
        evidence: dict[str, Any],
        listed: dict[str, Any] | None = None,
    ) -> int:
        """An ad the study held, returned by a search: its changes (how many).
        ``listed``: how the search said it is stopped, where the service sent no
        ``is_active`` (a search of stopped ads lists it: its ``is_active`` false)."""
        old = self.old.loc[ident]
        state = str(old["state"]) if isinstance(old["state"], str) else "running"
        active = row["is_active"]
        ended = _ended(row["end_date"], self.at) if _missing(active) else False
        stopped_now = _is_false(active) or ended
        counted = 0
        if not stopped_now:
            self.running.add(ident)
        if ident not in self.moved:
            if stopped_now and state != "stopped":
                self.moved.add(ident)
                said = {"is_active": None if ended or listed else False}
                said.update(listed or {}, end_date=row["end_date"])
                self.changes.append(
                    change(
                        self.at,
                        "ad",
                        item,
                        aid,
                        "stopped",
                        key,
                        evidence={**evidence, "service": said, "state_before": state},
                    )
                )
                counted += 1
            elif state == "stopped" and not stopped_now and self._back(old, active):
                self.moved.add(ident)
                said = {"is_active": None if _missing(active) else True}
                self.changes.append(
                    change(
                        self.at,
                        "ad",
                        item,
                        aid,
                        "resumed",
                        key,
                        evidence={**evidence, "service": said, "state_before": "stopped"},
                    )
                )
                counted += 1
        fields = [] if ident in self.compared else normal.edited(old, row)
        self.compared.add(ident)
        if fields:
            self.changes.append(
                change(
                    self.at,
                    "ad",
                    item,
                    aid,
                    "edited",
                    key,
                    fields=fields,
                    previous=normal.shown(old, fields),
                    current=normal.shown(row, fields),
                    evidence={**evidence, "compared": "normalised (socialframe._study.normal)"},
                )
            )
            counted += 1
        return counted

    def _back(self, old: pd.Series, active: Any) -> bool:
        """Whether a stopped ad a search returned now runs again: the service says so
        (``is_active`` true); or, where it sends no ``is_active``, the stop was its
        absence (nothing the service said stopped it: its last version was neither
        inactive nor past its end) and it is returned again, with no ``end_date`` past."""
        if not _missing(active):
            return True
        # (``latest_active``: what the service last said, not ``ads()``'s is_active,
        # which is false for every stopped ad)
        said = old["latest_active"]
        said_stopped = _is_false(said) or (_missing(said) and _ended(old["end_date"], self.at))
        return not said_stopped

    def walked_whole(
        self, key: str, item: str, mine: set[str], returned: set[str], evidence: dict[str, Any]
    ) -> None:
        """A complete walk of a search (its running ads all read): ``mine`` are the ads
        it had found before, ``returned`` those it brought back (names in the study)."""
        self.absent.append((key, item, mine - returned, evidence))

    def to_stop(self) -> list[tuple[str, str, str]]:
        """The ads the complete walks are about to call stopped by their absence (each
        once: its name in the study, and the key and item of the search that lacked
        it): those a confirmation may settle (see :class:`Confirmed`)."""
        chosen: dict[str, tuple[str, str, str]] = {}
        for key, item, gone, _ in self.absent:
            for ident in sorted(gone - self.running - self.moved):
                if ident not in chosen and self._absent_as(ident) == "stopped":
                    chosen[ident] = (ident, key, item)
        return list(chosen.values())

    def _absent_as(self, ident: str) -> str | None:
        """What an ad's absence from a complete walk makes it: missing, stopped, or
        nothing (too soon to tell; stopped already)."""
        state = self.old.at[ident, "state"]
        if state == "running" or _missing(state):
            return "missing"
        if state == "missing":
            since = pd.Timestamp(self.old.at[ident, "missing_at"])
            if pd.isna(since) or self.at - since < pd.Timedelta(self.stopped_after):
                return None  # (missing still: too soon to tell)
            return "stopped"
        return None  # stopped already

    def absences(self, confirmed: Mapping[str, Confirmed] | None = None) -> dict[str, int]:
        """The missing and stopped ads of the complete walks, once every search of the
        refresh is in (an ad another search saw running is running): changes per key.

        ``confirmed``: the ads about to be stopped (:meth:`to_stop`) that a search by
        their advertiser's page id looked for: one it found running is not stopped,
        one it found stopped is stopped by what the service said, one it did not find
        is stopped by three absences; its evidence and price are the change's.
        """
        counted: dict[str, int] = {}
        old = self.old
        confirmed = confirmed or {}
        for key, item, gone, evidence in self.absent:
            for ident in sorted(gone - self.running - self.moved):
                aid = ident
                what = self._absent_as(ident)
                cost = 0.0
                if what == "missing":
                    proof = {**evidence, "absent_from": [self.refresh]}
                elif what == "stopped":
                    since = pd.Timestamp(old.at[ident, "missing_at"])
                    proof = {
                        **evidence,
                        "absent_from": [old.at[ident, "missing_refresh"], self.refresh],
                        "apart_hours": round((self.at - since).total_seconds() / 3600, 2),
                        "stopped_after_hours": self.stopped_after.total_seconds() / 3600,
                    }
                    check = confirmed.get(ident)
                    if check is not None:
                        if check.found == "running":
                            continue  # seen running by its advertiser's search: not stopped
                        proof["confirmation"] = check.evidence
                        cost = check.cost_usd
                        if check.found == "stopped":
                            proof["service"] = check.said
                else:
                    continue
                self.moved.add(ident)
                self.changes.append(
                    change(self.at, "ad", item, aid, what, key, evidence=proof, cost_usd=cost)
                )
                counted[key] = counted.get(key, 0) + 1
        return counted


@dataclass
class Confirmed:
    """What a search by an ad's advertiser's page id from its start day said of it.

    Attributes:
        found: ``"running"``, ``"stopped"`` (``is_active`` false there), ``"absent"``
            (a complete walk of that search lacked it), or ``"unknown"`` (the search
            failed or was cut short: the plain rule applies).
        evidence: The search (``ad_page_id``, ``after_time``), its pages and calls,
            what it found.
        said: What the service said of the ad there (``is_active``, ``end_date``).
        cost_usd: This ad's share of what the search cost.
    """

    found: str
    evidence: dict[str, Any]
    said: dict[str, Any] = field(default_factory=dict)
    cost_usd: float = 0.0


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _ended(end: Any, at: pd.Timestamp) -> bool:
    """Whether an ``end_date`` is more than :data:`END_PAST` before ``at``."""
    if _missing(end):
        return False
    try:
        stamp = pd.Timestamp(end)
    except (TypeError, ValueError):
        return False
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize("UTC")
    return bool(stamp < at - pd.Timedelta(END_PAST))


def _is_false(value: Any) -> bool:
    return not _missing(value) and not bool(value)


def evidence_of(refresh: str, walked: Any, complete: bool) -> dict[str, Any]:
    """What a search's walk was: the refresh, the pages it read (paid or cached), and
    whether it was complete."""
    return {
        "refresh": refresh,
        "pages": len(walked.pages),
        "paid_calls": int(walked.paid),
        "complete": bool(complete),
    }


def started(at: datetime) -> pd.Timestamp:
    return pd.Timestamp(at).as_unit("us")


class Searches:
    """The ad searches of one refresh (:class:`.refresh.Kind`): what the study knows of
    its ads, each search's walk, the ads it brought back against those, and once every
    search is in, the ads' absences (and, ``confirm_stops``, their confirmations)."""

    kind = "ads"
    dataset = "ads"
    views: tuple[str, ...] = ("ads",)  # (with its life, from the changes)

    def __init__(self, run: refresh.Run) -> None:
        self.run = run
        self.names = refresh.Names()
        self.old = pd.DataFrame()
        self.ads_of: dict[str, set[str]] = {}
        self.new_ads: set[str] = set()  # an ad two searches find is new once
        self.compared: dict[str, refresh.Compared] = {}  # each search's, by its key
        self.life: Life | None = None

    def know(self, con: Reader) -> None:
        """The ads the study holds by their name in the study (``ident_``, as comments:
        see queries), every name each had, their life, and the searches that found each."""
        self.names = refresh.Names(
            con.df("select distinct ad_archive_id, content_id, id_derived, ident_ from _ad_names"),
            "ad_archive_id",
        )
        ads = con.df(
            "select a.item, a.ad_archive_id, a.is_active, a.end_date, a.extra, l.state,"
            " a.page_id, a.start_date,"
            " l.missing_at, l.missing_refresh, l.latest_active,"
            f" {', '.join('a.' + f for f in normal.AD_FIELDS)}"
            " from ads a join _ad_names n on n.ad_archive_id = a.ad_archive_id"
            " and n.refresh = a.refresh join _ad_life l on l.ident_ = n.ident_"
            " qualify row_number() over (partition by a.ad_archive_id) = 1"
        )
        ads.index = pd.Index([self.names.ident.get(a, a) for a in ads["ad_archive_id"]])
        self.old = ads
        found = con.df("select distinct watch, ident_ from _ad_names where watch is not null")
        self.ads_of = {str(k): set(g["ident_"]) for k, g in found.groupby("watch")}

    def walk(self, watched: dict[str, Any], state: dict[str, Any], paid: Ledger) -> refresh.Walked:
        """A search's pages: whole the first time, then the ads started since its last
        day and the running ones (see :mod:`.refresh`)."""
        run = self.run
        since = state.get("checked")
        return refresh.walk_search(
            run.fetcher("ads", run.walk_start(state), paid),
            watched,
            since=date.fromisoformat(since) if since else None,
            stop=run.stop,
        )

    def learn(
        self,
        con: Reader,
        results: list[tuple[dict[str, Any], refresh.Walked]],
        *,
        whole: bool,
    ) -> None:
        """Nothing more is asked of the files: :meth:`know` read what the ads need."""

    def compare(
        self, watched: dict[str, Any], walked: refresh.Walked, state: dict[str, Any]
    ) -> refresh.Compared:
        """A search's walk against the ads the study held: its ads to keep, the new
        ones, the changes of those seen (:class:`Life`), and the search's new state."""
        run = self.run
        at = pd.Timestamp(run.at).as_unit("us")
        if self.life is None:
            self.life = Life(self.old, at, run.id, run.stopped_after)
        life, names, old_ads = self.life, self.names, self.old
        key, item = watch.key(watched), watched["item"]
        out = refresh.Compared(paid=walked.paid)
        got = refresh.ad_rows(walked.pages) if walked.pages else None
        whole = bool(walked.reached and not walked.looped)
        proof = evidence_of(run.id, walked, whole)
        seen: set[str] = set()  # (by their names in the study)
        # An ad a search of stopped ads lists is stopped: that is what the service said
        # of it, where it sent no is_active (kept so: the ad's state reads it).
        listed = watched["filters"].get("activeStatus") == "Inactive"
        if got is not None and len(got):
            content = got.pop("content_id").array
            got = refresh.labelled(ads_for_storage(got).assign(content_id=content), item, key, at)
            unsaid = got["is_active"].isna()
            if listed and unsaid.any():
                got["is_active"] = got["is_active"].mask(unsaid, False)
            out.rows.append(got)
            for index, row in got.iterrows():
                aid, derived = row["ad_archive_id"], bool(row["id_derived"])
                its = row["content_id"] if isinstance(row["content_id"], str) else None
                ident = names.named(aid, its, derived)
                if ident is None:  # (one two searches find, or sent twice: new once)
                    if aid not in self.new_ads and (derived or its not in self.new_ads):
                        out.new += 1
                        out.changes.append(change(at, "ad", item, aid, "new", key, evidence=proof))
                    self.new_ads.add(aid)
                    if its is not None and not derived:
                        self.new_ads.add(its)
                    continue
                seen.add(ident)
                said = {"listed_in": "activeStatus=Inactive"} if listed and unsaid[index] else {}
                out.changed += life.seen(ident, aid, row, item, key, proof, said)
        if walked.active is not None and whole:
            running_now = {names.named(*ad) or ad[0] for ad in walked.active}
            # the ads this very search found before (another search's are not its)
            mine = set(old_ads.index[old_ads.index.isin(self.ads_of.get(key, set()))])
            life.walked_whole(key, item, mine, running_now | seen, proof)
        if whole:
            # as of its oldest page: a walk finished from the cache shows the
            # search as it was then, and an ad started later that day is new next time
            seen_at = [p.fetched_at for p in walked.pages if p.fetched_at is not None]
            state["checked"] = min([run.at, *seen_at]).astimezone(UTC).date().isoformat()
            state.pop("resume_after", None)
        elif walked.pages and not walked.reached:
            state["resume_after"] = run.walk_start(state).isoformat()
        else:  # (the loop guard cut it: its pages would loop again, read afresh)
            state.pop("resume_after", None)
        out.complete = whole
        out.state = state
        self.compared[key] = out
        return out

    def finish(self) -> tuple[list[pd.DataFrame], list[tuple[Any, ...]], FetchError | None]:
        """Once every search is in: the ads missing or stopped by their absence (an ad
        another search saw running is running), after their confirmations
        (``confirm_stops``). Returns the confirmations' ads to keep, the ads' changes
        of this refresh, and a budget stop or refused key that ended the confirmations."""
        if self.life is None:
            return [], [], None
        parts: list[pd.DataFrame] = []
        confirmed: dict[str, Confirmed] = {}
        failed: FetchError | None = None
        if self.run.confirm_stops:
            confirmed, failed = self._confirm(parts)
        for key, count in self.life.absences(confirmed).items():
            self.compared[key].changed += count
        return parts, self.life.changes, failed

    def _confirm(self, parts: list[pd.DataFrame]) -> tuple[dict[str, Confirmed], FetchError | None]:
        """``confirm_stops``: each ad about to be called stopped by its absence, looked
        for by one search by its advertiser's page id from its start day (one search per
        advertiser, day and country covers several ads), counted in the refresh's budget,
        in its search's row and in the change's ``cost_usd``. An ad found is kept as
        seen (running: it is not stopped). A search that fails or is cut short leaves its
        ads to the plain rule; a budget stop ends the confirmations (returned)."""
        assert self.life is not None
        run, old_ads = self.run, self.old
        by_key = {watch.key(w): w for w in run.manifest.watched}
        groups: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {}
        confirmed: dict[str, Confirmed] = {}
        for ident, key, item in self.life.to_stop():
            page_id, start = old_ads.at[ident, "page_id"], old_ads.at[ident, "start_date"]
            country = str(by_key[key]["filters"].get("country", ""))
            if not isinstance(page_id, str) or not page_id.isdigit() or _missing(start):
                continue  # (no advertiser to ask: the plain rule)
            day = pd.Timestamp(start).tz_convert("UTC").date().isoformat()
            groups.setdefault((page_id, day, country), []).append((ident, key, item))
        at = pd.Timestamp(run.at).as_unit("us")
        failed: FetchError | None = None
        for (page_id, day, country), ads in sorted(groups.items()):
            params = {"ad_page_id": page_id, "after_time": day}
            if country:
                params["country"] = country
            asked = {"ad_page_id": page_id, "after_time": day, "country": country or None}
            if failed is not None:
                for ident, _, _ in ads:
                    confirmed[ident] = Confirmed(
                        "unknown", {**asked, "not_made": str(failed)[:200]}
                    )
                continue
            paid = Ledger()
            pages: list[Page] = []
            error: FetchError | None = None
            try:
                for page in pager.iter_ad_pages(run.fetcher("ads", run.at, paid), params):
                    pages.append(page)
            except FetchError as exc:
                error = exc
                if isinstance(exc, refresh.ENDS):
                    failed = exc
            whole = error is None and pager.ads_ended(pages)
            got = refresh.ad_rows(pages) if pages else None
            found: dict[str, pd.Series] = {}
            if got is not None and len(got):
                content = got.pop("content_id").array
                got = ads_for_storage(got).assign(content_id=content)
                for index, row in got.iterrows():
                    its = row["content_id"] if isinstance(row["content_id"], str) else None
                    name = self.names.named(row["ad_archive_id"], its, bool(row["id_derived"]))
                    if name is not None:
                        found[name] = got.loc[index]
            cost = paid.paid_calls * PRICE_CENTS / 100
            self.compared[ads[0][1]].paid += paid.paid_calls  # (the first ad's search's row)
            evidence = {
                **asked,
                "pages": len(pages),
                "paid_calls": paid.paid_calls,
                "complete": whole,
                "ads_sharing_it": len(ads),
            }
            for ident, key, item in ads:
                row = found.get(ident)
                if row is not None:
                    active = row["is_active"]
                    on = _missing(active) or bool(active)
                    parts.append(refresh.labelled(pd.DataFrame([row]), item, key, at))
                    said = {"is_active": None if _missing(active) else bool(active)}
                    said["end_date"] = row["end_date"]
                    state = "running" if on else "stopped"
                elif whole:
                    said, state = {}, "absent"
                else:
                    said, state = {}, "unknown"
                confirmed[ident] = Confirmed(
                    state, {**evidence, "found": state}, said, round(cost / len(ads), 9)
                )
        return confirmed, failed


def ads_for_storage(frame: pd.DataFrame) -> pd.DataFrame:
    """The contract columns as they are; every other field in one JSON text column."""
    from .._schema import AD_COLUMNS

    core = frame[list(AD_COLUMNS)].copy()
    extras = [c for c in frame.columns if c not in AD_COLUMNS]
    records = frame[extras].to_dict("records") if extras else [{} for _ in range(len(frame))]
    core["extra"] = pd.array(
        [json.dumps(_stored(r), default=str, sort_keys=True) for r in records], dtype="string"
    )
    return core


def _stored(value: Any) -> Any:
    """A record's other fields as JSON holds them (missing values left out)."""
    if isinstance(value, dict):
        return {str(k): _stored(v) for k, v in value.items() if not _missing(v)}
    if isinstance(value, list | tuple):
        return [_stored(v) for v in value]
    if hasattr(value, "tolist"):
        return _stored(value.tolist())
    return value
