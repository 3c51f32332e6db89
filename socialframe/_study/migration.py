"""A study of the format before Delta Lake (``study.json``, :mod:`.legacy`) migrated to
Delta tables once, as it is first opened, whole or not at all.

The new tables are made in place (``comments/_delta_log`` beside the old
``comments/refresh=.../part-0.parquet``: Delta reads only the files its log names), under
the study's lease (:mod:`.lease`: one migration at a time), in this order:

1. every old file is checked as the old study checked it (its size and SHA-256, as
   ``study.json`` records them; a file without a record by its columns): a damaged
   study is refused as it is, before anything is written;
2. what a migration killed before left is removed: the new tables' logs and the new
   files, by their exact names (the old files are never touched);
3. the rows of each old refresh become one file of each table (with its ``refresh``),
   committed table by table, ``runs`` last; each watched item's state goes on its
   latest ``items`` row;
4. ``study.json`` is renamed ``study.json.migrated``: the one step where the study
   changes format. Only then are the old files removed (by the names ``study.json``
   gave), and the lock file the old format kept.

A migration killed at any step before 4 (``kill -9``, a full disk) leaves ``study.json``
and every old file as they were: the old study reads (by this socialframe, which migrates
it again, or by the one before) as it did.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from typing import Any

import pandas as pd

from .._errors import StudyError
from . import folder, integrity, legacy, schema, storage
from .dataset import HASHED, TABLES, DataFile, Dataset

#: What ``study.json`` is renamed to once the migration's commits are done.
MIGRATED = "study.json.migrated"


def needed(data: Dataset) -> bool:
    """Whether ``data`` is a folder study of the manifest format, not migrated yet."""
    place = data.place
    return isinstance(place, storage.Folder) and (place.path / legacy.MANIFEST).is_file()


def migrate(data: Dataset) -> None:
    """Migrate the folder study ``data`` (see the module's docstring).

    Raises:
        StudyError: the old study is damaged (named), or cannot be written; it is left as
            it was.
    """
    place = data.place
    assert isinstance(place, storage.Folder)
    old = legacy.Dataset(place.path)
    with data.writing(migrating=True):
        if not needed(data):  # (another process migrated it while this one waited)
            return
        manifest = old.read()
        files = [(kind, path) for kind in legacy.KINDS for path in manifest.files(kind)]
        integrity.check(
            place.path, files, manifest.checks, stored=schema.STORED_BEFORE, optional=_OPTIONAL
        )
        _remove_partial(data)
        _write(data, manifest)
        with folder.opened(place.path) as root:
            os.rename(legacy.MANIFEST, MIGRATED, src_dir_fd=root, dst_dir_fd=root)
            folder.fsync_dir(root)
            _remove_old(root, manifest)


#: The columns the old files may lack (written before them).
_OPTIONAL = {
    "comments": ("watch", "id_derived", "content_id"),
    "ads": ("watch", "id_derived", "content_id"),
    "changes": ("watch", "fields", "previous", "current", "evidence", "cost_usd"),
    "items": ("watch",),
}


def _remove_partial(data: Dataset) -> None:
    """Remove what a migration killed before wrote: the tables' logs, and the files whose
    names only this format gives (``part-<refresh>-<sha256>.parquet``); nothing else."""
    place = data.place
    assert isinstance(place, storage.Folder)
    with folder.opened(place.path) as root:
        for kind in TABLES:
            for name in place.listed(f"{kind}/_delta_log"):
                folder.remove_file(root, f"{kind}/_delta_log/{name}")
            folder.remove_empty_dirs(root, f"{kind}/_delta_log", 1)
            for name in place.listed(kind):
                if HASHED.fullmatch(name):
                    folder.remove_file(root, f"{kind}/{name}")
            folder.remove_empty_dirs(root, kind, 1)


def _write(data: Dataset, manifest: legacy.Manifest) -> None:
    """The old study's rows, as new tables (see the module's docstring, step 3)."""
    from .. import _parquet as parquet
    from .watch import key

    place = data.place
    assert isinstance(place, storage.Folder)
    data._ensure(TABLES)
    watched = [
        {**item, "position": at}
        for at, item in enumerate(manifest.watched)  # (their order kept)
    ]
    frame = pd.DataFrame(
        {
            "watch": [key(w) for w in watched],
            "kind": [w["kind"] for w in watched],
            "item": [w["item"] for w in watched],
            "filters": [json.dumps(w["filters"], sort_keys=True) for w in watched],
            "added_at": pd.to_datetime([w["added_at"] for w in watched], utc=True).astype(
                "datetime64[us, UTC]"
            ),
            "position": [w["position"] for w in watched],
        }
    )
    if len(frame):
        stamp = manifest.refreshes[0]["id"] if manifest.refreshes else "19700101T000000000Z"
        written = data._put("watched", stamp.split("-")[0], frame)
        data._commit("watched", [written], None, len(frame))
    latest = {}  # per watched item, the last refresh that looked at it
    per_kind: dict[str, list[tuple[DataFile, int]]] = {k: [] for k in legacy.KINDS}
    for entry in manifest.refreshes:
        for kind, relative in entry["files"].items():
            with folder.opened(place.path) as root:
                fd = folder.open_file(place.path, root, relative)
                with os.fdopen(fd, "rb") as source:
                    held = source.read()
                rows = parquet.table(held).to_pandas()  # (never pq.read_table: see _parquet)
            rows = rows.assign(refresh=pd.array([entry["id"]] * len(rows), dtype="string"))
            if kind == "items":
                if "watch" in rows:
                    for watch_key in rows["watch"].dropna():
                        latest[watch_key] = entry["id"]
                rows = rows.assign(state=pd.array([None] * len(rows), dtype="string"))
                rows = _with_states(rows, entry, manifest)
            per_kind[kind].append((data._put(kind, entry["id"], rows), len(rows)))
    for kind in ("comments", "ads", "changes", "items", "runs"):  # runs last
        if per_kind[kind]:
            data._commit_many(kind, per_kind[kind])


def _with_states(rows: pd.DataFrame, entry: dict[str, Any], manifest: legacy.Manifest) -> Any:
    """The last refresh's ``items`` rows, with each watched item's state (one row more
    for an item it has none of: its state must reach the next refresh)."""
    if entry is not manifest.refreshes[-1]:
        return rows
    from .watch import key

    by_key = {key(w): w for w in manifest.watched}
    rows = rows.copy()
    extra = []
    for watch_key, state in manifest.state.items():
        text = json.dumps(state)
        hit = rows["watch"] == watch_key if "watch" in rows else None
        if hit is not None and bool(hit.fillna(False).any()):
            rows.loc[hit.fillna(False).astype(bool), "state"] = text
        elif watch_key in by_key:
            extra.append(
                {
                    "kind": by_key[watch_key]["kind"],
                    "item": by_key[watch_key]["item"],
                    "watch": watch_key,
                    "state": text,
                    "refresh": entry["id"],
                    "at": pd.Timestamp(entry["at"]).tz_convert("UTC").as_unit("us"),
                }
            )
    if extra:
        rows = pd.concat([rows, pd.DataFrame(extra)], ignore_index=True)
    return rows


def _remove_old(root: int, manifest: legacy.Manifest) -> None:
    """Remove the old files by the names ``study.json`` gave, the folders they leave
    empty, and the old format's lock file (tidying up: what stays is never read)."""
    for entry in manifest.refreshes:
        for relative in entry["files"].values():
            folder.remove_file(root, relative)
            folder.remove_empty_dirs(root, relative.rpartition("/")[0], 1)
    with contextlib.suppress(OSError):
        info = os.stat(".lock", dir_fd=root, follow_symlinks=False)
        if stat.S_ISREG(info.st_mode) and info.st_size == 0:
            os.unlink(".lock", dir_fd=root)
    folder.remove_empty_dirs(root, legacy.STAGING, 1)


__all__ = ["MIGRATED", "StudyError", "migrate", "needed"]
