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
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import pandas as pd

from . import normal

#: How far apart two complete walks without an ad must be to prove it stopped: the
#: default of ``Study.refresh(stopped_after=...)``.
STOPPED_AFTER: Final = timedelta(days=3)
#: How long before a refresh an ad's ``end_date`` must be to say it stopped, where the
#: service sent no ``is_active`` (a running ad's ``end_date`` is its last day shown,
#: which may lag a day behind).
END_PAST: Final = timedelta(days=2)
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
    #: Per search (its key): the complete walk's candidates for missing or stopped.
    absent: list[tuple[str, str, set[str], dict[str, Any]]] = field(default_factory=list)

    def seen(
        self, ident: str, aid: str, row: pd.Series, item: str, key: str, evidence: dict[str, Any]
    ) -> int:
        """An ad the study held, returned by a search: its changes (how many)."""
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
                said = {"is_active": None if ended else False, "end_date": row["end_date"]}
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
            elif state == "stopped" and not stopped_now and not _missing(active):
                self.moved.add(ident)
                self.changes.append(
                    change(
                        self.at,
                        "ad",
                        item,
                        aid,
                        "resumed",
                        key,
                        evidence={
                            **evidence,
                            "service": {"is_active": True},
                            "state_before": "stopped",
                        },
                    )
                )
                counted += 1
        fields = normal.edited(old, row)
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
                    previous={f: old[f] for f in fields},
                    current={f: row[f] for f in fields},
                    evidence={**evidence, "compared": "normalised (socialframe._study.normal)"},
                )
            )
            counted += 1
        return counted

    def walked_whole(
        self, key: str, item: str, mine: set[str], returned: set[str], evidence: dict[str, Any]
    ) -> None:
        """A complete walk of a search (its running ads all read): ``mine`` are the ads
        it had found before, ``returned`` those it brought back (names in the study)."""
        self.absent.append((key, item, mine - returned, evidence))

    def absences(self) -> dict[str, int]:
        """The missing and stopped ads of the complete walks, once every search of the
        refresh is in (an ad another search saw running is running): changes per key."""
        counted: dict[str, int] = {}
        old = self.old
        for key, item, gone, evidence in self.absent:
            for ident in sorted(gone - self.running - self.moved):
                state = old.at[ident, "state"]
                aid = ident
                if state == "running" or _missing(state):
                    what = "missing"
                    proof = {**evidence, "absent_from": [self.refresh]}
                elif state == "missing":
                    since = pd.Timestamp(old.at[ident, "missing_at"])
                    if pd.isna(since) or self.at - since < pd.Timedelta(self.stopped_after):
                        continue  # (missing still: too soon to tell)
                    what = "stopped"
                    proof = {
                        **evidence,
                        "absent_from": [old.at[ident, "missing_refresh"], self.refresh],
                        "apart_hours": round((self.at - since).total_seconds() / 3600, 2),
                        "stopped_after_hours": self.stopped_after.total_seconds() / 3600,
                    }
                else:
                    continue  # stopped already
                self.moved.add(ident)
                self.changes.append(change(self.at, "ad", item, aid, what, key, evidence=proof))
                counted[key] = counted.get(key, 0) + 1
        return counted


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
