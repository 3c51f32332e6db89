"""A study's tables: one Delta Lake table per kind of row, in a folder or a bucket.

::

    brand-watch/                       (a folder, or s3://bucket/brand-watch)
      watched/    what is watched: one row per item added
      comments/   every version of every comment a refresh saw, with its ``refresh``
      ads/        every version of every ad
      changes/    what changed, with its proof
      items/      one row per watched item a refresh looked at: its figures and the
                  state the next refresh starts from (``state``, JSON)
      runs/       one row per refresh: its figures. Written last.
      _lease/     the lease of the refresh under way (:mod:`.lease`)

Each table is read by any Delta reader (``deltalake.DeltaTable(root + "/comments")``,
``polars.read_delta``, Spark's ``format("delta")``, DuckDB's ``delta_scan``).

A refresh writes its rows as one new Parquet file per table (never over a file), then
commits one version to each table that has rows, ``runs`` last. The Delta log's commits
are the only atomicity: a refresh's rows count once its ``runs`` row is committed, and
every answer reads only the rows of refreshes ``runs`` names, so a refresh killed at any
point (``kill -9``, a lost connection) leaves the study as it was, and readers during a
refresh see the last complete one. Files of a refresh that never committed stay unnamed
by the log (``vacuum`` removes them); rows of one killed between its commits stay in the
tables they reached, and count nowhere.

Each file's name holds its SHA-256 (``part-<refresh>-<sha256>.parquet``): every file
the log names is checked (its size, as the log records it, and its bytes) before anything
reads it (:mod:`.integrity`), on a folder where it is, in a bucket as this machine's copy
of it (:mod:`.copies`); files that ``compact`` wrote carry no hash,
and are checked by their size and columns. No link inside a local study is followed
(:mod:`.folder`): not a table's folder, not its log, not a data file.

One refresh at a time holds the study's lease (:mod:`.lease`); adding watched items
needs none (Delta's appends do not conflict; an item added twice is read once).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pandas as pd

from .._errors import StudyError
from . import folder, schema, storage
from .lease import Lease

#: The tables a refresh writes, in the order it commits them (``runs`` last).
KINDS: Final = ("comments", "ads", "changes", "items", "runs")
#: Every table of a study.
TABLES: Final = ("watched", *KINDS)
#: A refresh compacts the study's tables (:meth:`Dataset.compact`) when it brings the
#: ``runs`` table to a multiple of this many versions (one a refresh): an hourly cron
#: job's study keeps about this many files a table between compactions, not one a
#: refresh for ever. 0: never by itself.
COMPACT_EVERY: int = 50
#: ``as_of``'s version of a table that held nothing yet then.
NONE_YET: Final = -1
#: A data file the study writes: its refresh, and the SHA-256 of its bytes.
HASHED = re.compile(r"part-([0-9]{8}T[0-9]{9}Z(?:-[0-9]{6})?)-([0-9a-f]{64})\.parquet")
#: Any data file a table's log may name: a name in the table's own folder (``compact``
#: writes ``part-00001-<uuid>-c000.zstd.parquet``), never a path elsewhere.
_DATA = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=-]{0,200}\.parquet")
_REFRESH_ID = re.compile(r"[0-9]{8}T[0-9]{9}Z(-[0-9]{6})?")
_LOG_NAME = re.compile(r"[0-9]{20}(\.json|\.checkpoint\.parquet|\.crc)|_last_checkpoint|\..*")


@dataclass
class Manifest:
    """What the study holds besides its rows, read from its tables.

    Attributes:
        watched: One dict per watched item (``kind``, ``item``, ``filters``, ``added_at``).
        refreshes: One dict per committed refresh, oldest first: ``id`` and ``at``.
        state: Per watched item (by its key), what the next refresh needs.
        pending: The refresh that took the lease before and never committed (``id``,
            ``at``), if any: the pages it paid for are in the HTTP cache.
    """

    watched: list[dict[str, Any]] = field(default_factory=list)
    refreshes: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    complete_in: dict[str, set[str]] = field(default_factory=dict)
    #: Every refresh id a data file of the tables is named by (committed or not).
    used: set[str] = field(default_factory=set)

    def done_since(self, known: set[str]) -> set[str]:
        """The watched items (keys) that refreshes other than ``known`` read completely."""
        done: set[str] = set()
        for entry in self.refreshes:
            if entry["id"] not in known:
                done |= self.complete_in.get(entry["id"], set())
        return done


@dataclass
class DataFile:
    """One data file a table's log names."""

    kind: str
    name: str  # (in the table's folder)
    size: int
    sha256: str | None

    @property
    def relative(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass
class Snapshot:
    """The files of each table as its log names them now (or as of a time)."""

    files: dict[str, list[DataFile]]
    versions: dict[str, int | None]


def refresh_id(at: datetime) -> str:
    """A refresh's id: its UTC time, sortable as text.

    Example:
        >>> refresh_id(datetime(2026, 11, 25, 3, 5, 0, 123456, tzinfo=UTC))
        '20261125T030500123Z'
    """
    at = at.astimezone(UTC)
    return at.strftime("%Y%m%dT%H%M%S") + f"{at.microsecond // 1000:03d}Z"


class Dataset:
    """One study's tables (see the module's docstring).

    Args:
        location: A folder path, or a bucket's URI (``s3://bucket/name``).
        storage_options: For a bucket: ``object_store`` / delta-rs options.
        as_of: Read the tables as they were then (a time), or at this version of
            ``runs``: a read-only dataset.
    """

    def __init__(
        self,
        location: str | os.PathLike[str],
        storage_options: object = None,
        as_of: datetime | int | None = None,
    ) -> None:
        options = storage.hidden(storage_options)  # (no frame below holds them as given)
        del storage_options
        if not isinstance(location, str | os.PathLike):
            raise TypeError(
                f"a study is a folder path or a bucket URI, not {type(location).__name__}"
            )
        self.place = storage.place(location, options)
        self.as_of = as_of
        if isinstance(self.place, storage.Folder):
            self.path: Path | str = self.place.path
            if self.place.path.exists() and not self.place.path.is_dir():
                raise StudyError(f"{self.place.path} is a file, not a study folder")
        else:
            self.path = self.place.shown
        self._pinned: dict[str, int | None] | None = None
        # (per thread, each table's DeltaTable at its newest version)
        self._latest: dict[tuple[int, str], Any] = {}

    def at(self, when: datetime | int) -> Dataset:
        """This study as of ``when`` (a time, or a version of ``runs``): read-only."""
        past = Dataset.__new__(Dataset)
        past.__dict__.update(self.__dict__)
        past.as_of, past._pinned, past.lease, past._latest = when, None, None, {}
        return past

    @property
    def shown(self) -> str:
        return self.place.shown

    @property
    def name(self) -> str:
        """The study's name: the last part of its folder or URI."""
        return self.place.shown.rstrip("/").rsplit("/", 1)[-1]

    # -- the log ---------------------------------------------------------------------------

    def _options(self) -> dict[str, str] | None:
        return self.place.delta_options()

    def _check_local_table(self, kind: str) -> bool:
        """On a folder: ``kind``'s folder and its log are folders of the study's own and
        every name in the log a file, none reached through a link; whether it exists."""
        if not isinstance(self.place, storage.Folder):
            return True
        root_path = self.place.path
        if not root_path.is_dir():
            return False
        try:
            with folder.opened(root_path) as root:
                folder.check_folder(root_path, root, kind)
                folder.check_folder(root_path, root, f"{kind}/_delta_log")
                try:
                    at = folder.open_dir(root_path, root, f"{kind}/_delta_log")
                except FileNotFoundError:
                    if any(HASHED.fullmatch(n) for n in self.place.listed(kind)):
                        raise StudyError(
                            f"{root_path / kind} holds a study's data but no _delta_log (moved"
                            " away, or a partial copy): it is left as it is; put its"
                            " _delta_log back"
                        ) from None
                    return False
                try:
                    for name in os.listdir(at):
                        info = os.stat(name, dir_fd=at, follow_symlinks=False)
                        if stat.S_ISLNK(info.st_mode):
                            raise folder.link_error(
                                root_path, f"{kind}/_delta_log/{name}", at, name
                            ) or StudyError(f"{root_path / kind} has a link in its log")
                        if not stat.S_ISREG(info.st_mode) and not name.startswith("."):
                            raise StudyError(
                                f"{root_path / kind / '_delta_log' / name} is not a file:"
                                " the study's log is not as Delta writes it; it is left as it is"
                            )
                finally:
                    os.close(at)
        except OSError as exc:
            raise StudyError(f"{root_path} cannot be opened ({exc.strerror})") from None
        return True

    def _table(self, kind: str, version: int | None = None) -> Any | None:
        """``kind``'s DeltaTable (as of ``version``), or None where it has none yet."""
        deltalake = _deltalake()
        if version == NONE_YET or not self._check_local_table(kind):
            return None
        uri = self.place.table_uri(kind)
        try:
            # (a bucket that refuses us says nothing here: it is asked again below, loudly)
            if self.place.local and not deltalake.DeltaTable.is_deltatable(uri):
                return None
            # (a refresh, which holds the lease, asks many times: the newest version is
            # read from the table this thread opened, only the commits since, not the
            # whole log again; a reader opens it afresh, whatever was made at its URI)
            mine = (threading.get_ident(), kind)
            keep = version is None and self.lease is not None
            if keep and mine in self._latest:
                table = self._latest[mine]
                table.update_incremental()
                return table
            table = deltalake.DeltaTable(uri, storage_options=self._options())
            if version is not None:
                try:
                    table.load_as_version(version)
                except Exception:  # (before the table existed: it held nothing then)
                    return None
            elif keep:
                self._latest[mine] = table
            return table
        except deltalake.exceptions.TableNotFoundError:
            return None
        except Exception as exc:
            raise self._failed(exc, "read") from None

    def _failed(self, exc: BaseException, done: str) -> StudyError:
        if isinstance(exc, StudyError):
            return exc
        reason = storage.storage_reason(exc)
        if (
            _deltalake().exceptions.DeltaProtocolError is type(exc)
            or "protocol" in str(exc).lower()
            and ("unsupported" in str(exc).lower() or "version" in str(exc).lower())
        ):
            return StudyError(
                f"{self.shown} was written by a newer writer (its Delta protocol asks for"
                " features this deltalake cannot read): upgrade socialframe and deltalake"
                " to read it"
            )
        if reason == type(exc).__name__:
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            reason = f"{reason}: {_without_secrets(text, self._options())[:200]}"
        return StudyError(
            f"{self.shown} cannot be {done} ({reason}); the study is as it was before this step"
        )

    def snapshot(self, kinds: tuple[str, ...] = TABLES) -> Snapshot:
        """The data files each table's log names (as of the dataset's ``as_of``).

        Raises:
            StudyError: a log names a file outside its table's folder, or cannot be read.
        """
        files: dict[str, list[DataFile]] = {}
        versions: dict[str, int | None] = {}
        pinned = self._pins()
        # runs first: a refresh commits it last, so every table read after it holds the
        # files of each refresh it names (a later refresh's rows count nowhere); read
        # last, it could name a refresh whose rows the tables read before it lacked
        for kind in sorted(kinds, key=lambda k: k != "runs"):
            table = self._table(kind, pinned.get(kind))
            if table is None:
                files[kind], versions[kind] = [], None
                continue
            versions[kind] = table.version()
            files[kind] = self._files_of(kind, table)
        return Snapshot(files, versions)

    def _files_of(self, kind: str, table: Any) -> list[DataFile]:
        import pyarrow as pa

        try:
            actions = pa.table(table.get_add_actions(flatten=True))
        except Exception as exc:
            raise self._failed(exc, "read") from None
        out = []
        for path, size in zip(
            actions.column("path").to_pylist(),
            actions.column("size_bytes").to_pylist(),
            strict=True,
        ):
            name = str(path)
            if not _DATA.fullmatch(name):
                raise StudyError(
                    f"{self.shown}: the log of {kind} names a file {name!r:.120} outside its"
                    " folder: it is not a log socialframe wrote, and nothing was read"
                )
            hashed = HASHED.fullmatch(name)
            out.append(DataFile(kind, name, int(size), hashed[2] if hashed else None))
        return sorted(out, key=lambda f: f.name)

    def _pins(self) -> dict[str, Any]:
        """Per table, the version to read (``as_of``'s; absent: the newest).

        Every version is chosen by the commit times the logs record (each commit's
        ``commitInfo.timestamp``, the committing machine's clock), never by deltalake's
        own choice for a time, which goes by the log files' modification times (the
        storage's clock: a bucket's, or a file server's, which may run ahead of the
        writer's; then the other tables were read one refresh behind ``runs``).

        - ``runs``: ``as_of``'s version, or its last commit at or before ``as_of``'s time;
        - ``comments``, ``ads``, ``changes``, ``items``: the newest version, since every
          answer reads only the rows of the refreshes ``runs`` names (a later refresh's
          rows are in none of them);
        - ``watched`` (no refresh of its own): its last commit at or before ``runs``'
          commit (or ``as_of``'s time).
        """
        if self.as_of is None:
            return {}
        if self._pinned is not None:
            return self._pinned
        runs = self._table("runs")
        stamps = self._stamps(runs)
        if isinstance(self.as_of, datetime):
            moment = self.as_of.timestamp() * 1000
            version = max((v for v, at in stamps.items() if at <= moment), default=NONE_YET)
        else:
            if not 0 <= self.as_of <= max(stamps, default=-1):
                latest = None if runs is None else runs.version()
                raise StudyError(
                    f"{self.shown} has no version {self.as_of} (its runs table is at"
                    f" {latest if latest is not None else 'no version yet'})"
                )
            version = self.as_of
            moment = stamps.get(version, 0)
        watched = self._stamps(self._table("watched"))
        self._pinned = {
            "runs": version,
            "watched": max((v for v, at in watched.items() if at <= moment), default=NONE_YET),
        }
        return self._pinned

    def _stamps(self, table: Any | None) -> dict[int, float]:
        """Each version of ``table`` and its commit's time (ms since the epoch)."""
        if table is None:
            return {}
        try:
            return {
                int(entry["version"]): float(entry["timestamp"])
                for entry in table.history()
                if "version" in entry and "timestamp" in entry
            }
        except Exception as exc:
            raise self._failed(exc, "read") from None

    def opened(self) -> None:
        """Check, as the study is opened, that it is one (or an empty place for one).

        Raises:
            StudyError: a folder holding other files and no table; a study's data
                without its log; a log that cannot be read.
        """
        if isinstance(self.place, storage.Folder) and self.place.path.is_dir():
            found = [p.name for p in self.place.path.iterdir()]
            ours = [n for n in found if n in TABLES]
            if not ours and any(n not in ("_lease",) for n in found):
                raise StudyError(
                    f"{self.place.path} is not a study (it holds other files and no study"
                    " tables); give an empty or new folder"
                )
        self.read(watched_only=True)

    def exists(self) -> bool:
        """Whether the study has any table yet."""
        return any(self._table(kind) is not None for kind in ("watched", "runs"))

    # -- reading the small tables ----------------------------------------------------------

    def read_table(self, files: list[DataFile]) -> Any:
        """The rows of ``files`` (a small table's), each checked: a pyarrow Table."""
        import pyarrow as pa

        from .. import _parquet as parquet
        from . import integrity

        parts = []
        for each in files:
            data = self.file_bytes(each)
            problem = integrity.bytes_problem(
                data, each.size, each.sha256, schema.STORED[each.kind]
            )
            if problem:
                raise integrity.damaged(self.shown_file(each), problem)
            try:
                parts.append(parquet.table(data))  # (never pq.read_table: see _parquet)
            except (pa.ArrowException, OSError, ValueError):
                raise integrity.damaged(
                    self.shown_file(each), "is not a Parquet file: damaged or cut short"
                ) from None
        if not parts:
            return None
        wanted = schema.arrow_schema(files[0].kind)
        try:
            return pa.concat_tables([p.select(wanted.names).cast(wanted) for p in parts])
        except (pa.ArrowException, KeyError, ValueError):
            raise integrity.damaged(
                self.shown_file(files[0]), "does not hold the columns the study writes"
            ) from None

    def shown_file(self, each: DataFile) -> Any:
        if isinstance(self.place, storage.Folder):
            return self.place.path / each.relative
        return _Shown(f"{self.shown}/{each.relative}")

    def file_bytes(self, each: DataFile) -> bytes:
        from . import integrity

        try:
            data = self.place.get(each.relative)
        except FileNotFoundError:
            data = None
        except (IsADirectoryError, NotADirectoryError):
            raise integrity.damaged(
                self.shown_file(each),
                "is not a file the study wrote (a folder, a FIFO or a device)",
            ) from None
        except OSError as exc:
            raise integrity.damaged(
                self.shown_file(each), f"cannot be opened ({exc.strerror})"
            ) from None
        if data is None:
            raise integrity.damaged(self.shown_file(each), "is missing")
        return data

    def read(self, *, watched_only: bool = False) -> Manifest:
        """What is watched, the committed refreshes, and each item's state (or what is
        watched alone: its other fields empty)."""
        from .watch import checked

        snapshot = self.snapshot(("watched",) if watched_only else TABLES)
        manifest = Manifest()
        for kind in KINDS:
            for each in snapshot.files.get(kind, []):
                named = HASHED.fullmatch(each.name)
                if named:
                    manifest.used.add(named[1])
        watched = self.read_table(snapshot.files["watched"])
        if watched is not None:
            rows = sorted(watched.to_pylist(), key=lambda r: (r["added_at"], r["position"] or 0))
            seen: set[str] = set()
            for row in rows:
                try:
                    filters = json.loads(row["filters"] or "{}")
                except ValueError:
                    filters = None
                item = {
                    "kind": row["kind"],
                    "item": row["item"],
                    "filters": filters,
                    "added_at": row["added_at"].isoformat() if row["added_at"] else None,
                }
                problem = checked(item)
                if problem:
                    raise StudyError(
                        f"{self.shown}: its watched table holds {problem}: not as the study"
                        " wrote it"
                    )
                from .watch import key

                if key(item) not in seen:
                    seen.add(key(item))
                    manifest.watched.append(item)
        if watched_only:
            return manifest
        runs = self.read_table(snapshot.files["runs"])
        committed: set[str] = set()
        if runs is not None:
            for row in sorted(runs.to_pylist(), key=lambda r: r["refresh"]):
                if row["refresh"] in committed:
                    continue
                committed.add(row["refresh"])
                manifest.refreshes.append({"id": row["refresh"], "at": row["at"].isoformat()})
        items = self.read_table(snapshot.files["items"])
        if items is not None:
            for row in sorted(items.to_pylist(), key=lambda r: r["refresh"]):
                if row["refresh"] not in committed or row["state"] is None:
                    continue
                if row["complete"]:
                    manifest.complete_in.setdefault(row["refresh"], set()).add(row["watch"])
                try:
                    state = json.loads(row["state"])
                except ValueError:
                    state = None
                from .legacy import _state_problem

                problem = _state_problem(state)
                if problem:
                    raise StudyError(
                        f"{self.shown}: the state of {row['watch']!r:.60} is not as the study"
                        f" wrote it ({problem})"
                    )
                manifest.state[row["watch"]] = state
        return manifest

    # -- writing ---------------------------------------------------------------------------

    def _writable(self) -> None:
        if self.as_of is not None:
            raise StudyError(
                f"{self.shown} as of {self.as_of} is read-only: refresh or add to the study itself"
            )

    def check_folders(self) -> None:
        """Before a refresh pays: each table's folder, where it exists, is a folder of the
        study's own, not a link out of it (on a folder).

        Raises:
            StudyError: naming the link (or the file where a folder belongs).
        """
        for kind in TABLES:
            self._check_local_table(kind)
        if isinstance(self.place, storage.Folder) and self.place.path.is_dir():
            with folder.opened(self.place.path) as root:
                folder.check_folder(self.place.path, root, "_lease")

    def _put(self, kind: str, refresh: str, frame: pd.DataFrame) -> DataFile:
        """Write ``frame`` as a new file of table ``kind``; what the log will name."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        wanted = schema.arrow_schema(kind)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        columns = []
        for each in wanted:
            if each.name in table.column_names:
                column = table.column(each.name)
                if pa.types.is_dictionary(column.type):
                    column = column.cast(column.type.value_type)
                columns.append(column.cast(each.type))
            else:
                columns.append(pa.nulls(len(table), each.type))
        extra = set(table.column_names) - set(wanted.names)
        if extra:
            raise AssertionError(f"{kind} rows with columns the study does not keep: {extra}")
        table = pa.Table.from_arrays(columns, schema=wanted)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        data = sink.getvalue().to_pybytes()
        name = f"part-{refresh}-{hashlib.sha256(data).hexdigest()}.parquet"
        try:
            self.place.put_new(f"{kind}/{name}", data)
        except storage.Already:
            pass  # (the same bytes, by their hash: a retry of the same rows)
        except OSError as exc:
            raise self._unwritable(exc) from None
        return DataFile(kind, name, len(data), None)

    def _commit(self, kind: str, files: list[DataFile], refresh: str | None, rows: int) -> None:
        """One commit to table ``kind`` adding ``files`` (``rows`` in all)."""
        self._commit_many(kind, [(f, rows) for f in files], refresh)

    def _commit_many(
        self, kind: str, files: list[tuple[DataFile, int]], refresh: str | None = None
    ) -> None:
        """One commit to table ``kind`` adding ``files`` (each with its count of rows)."""
        deltalake = _deltalake()
        from deltalake.transaction import AddAction, CommitProperties

        self._check_local_table(kind)
        delta_schema = deltalake.Schema.from_arrow(schema.arrow_schema(kind))
        now = int(time.time() * 1000)
        actions = [
            AddAction(f.name, f.size, {}, now, True, json.dumps({"numRecords": rows}))
            for f, rows in files
        ]
        properties = CommitProperties(
            custom_metadata={"socialframe.refresh": refresh or ""}, max_commit_retries=50
        )
        try:
            table = self._table(kind)
            if table is None:
                raise StudyError(f"{self.shown}: its {kind} table is missing")
            table.create_write_transaction(
                actions, "append", delta_schema, commit_properties=properties
            )
        except StudyError:
            raise
        except OSError as exc:
            raise self._unwritable(exc) from None
        except Exception as exc:
            raise self._failed(exc, "written") from None

    def _ensure(self, kinds: tuple[str, ...]) -> None:
        """Create the tables ``kinds`` that are missing (before any file is written in
        them: a table's folder with data and no log is refused as a damaged study)."""
        deltalake = _deltalake()
        for kind in kinds:
            if self._table(kind) is not None:
                continue
            try:
                deltalake.DeltaTable.create(
                    self.place.table_uri(kind),
                    deltalake.Schema.from_arrow(schema.arrow_schema(kind)),
                    mode="ignore",
                    storage_options=self._options(),
                    name=kind,
                    description=f"socialframe study: {kind}",
                )
            except Exception as exc:
                if self._table(kind) is None:  # (not made by another meanwhile)
                    raise self._failed(exc, "written") from None

    def add_watched(self, items: list[dict[str, Any]]) -> None:
        """Append ``items`` to what is watched (one commit)."""
        self._writable()
        if not items:
            return
        if isinstance(self.place, storage.Folder):
            try:
                self.place.make()
            except OSError as exc:
                raise self._unwritable(exc) from None
        self._ensure(TABLES)
        now = pd.Timestamp(datetime.now(UTC)).as_unit("us")
        frame = pd.DataFrame(
            {
                "watch": [self._key(i) for i in items],
                "kind": [i["kind"] for i in items],
                "item": [i["item"] for i in items],
                "filters": [json.dumps(i["filters"], sort_keys=True) for i in items],
                "added_at": [now] * len(items),
                "position": list(range(len(items))),
            }
        )
        stamp = refresh_id(now.to_pydatetime())
        written = self._put("watched", stamp, _typed(frame, schema.WATCHED_DTYPES))
        self._commit("watched", [written], None, len(frame))

    @staticmethod
    def _key(item: dict[str, Any]) -> str:
        from .watch import key

        return key(item)

    def commit_refresh(self, refresh: str, frames: dict[str, pd.DataFrame]) -> None:
        """Keep a refresh's rows: one file and one commit per table that has rows, ``runs``
        last (its row is what makes the others count)."""
        self._writable()
        self._ensure(KINDS)
        written = {}
        for kind in KINDS:  # every file first: a refresh that fails here commits nothing
            frame = frames.get(kind)
            if frame is not None and len(frame):
                frame = frame.assign(refresh=pd.array([refresh] * len(frame), dtype="string"))
                written[kind] = (self._put(kind, refresh, frame), len(frame))
        for kind in KINDS:
            if kind in written:
                if kind == "runs" and self.lease is not None:
                    self.lease.renew()  # (still ours: else nothing is committed)
                self._commit(kind, [written[kind][0]], refresh, written[kind][1])
        runs = self._table("runs")
        if runs is not None and COMPACT_EVERY and runs.version() % COMPACT_EVERY == 0:
            self.compact()  # (kept: a failure here loses nothing, said as a StudyError)

    lease: Lease | None = None

    def compact(self) -> dict[str, tuple[int, int]]:
        """Rewrite each table's small files into fewer, larger ones (Delta's
        ``optimize.compact``); the history is kept (no file is removed: ``as_of`` reads
        the versions before). Per table, its files before and after.

        Raises:
            StudyError: the study is read-only (``as_of``), or cannot be written.
        """
        self._writable()
        counts: dict[str, tuple[int, int]] = {}
        for kind in TABLES:
            table = self._table(kind)
            if table is None:
                continue
            before = len(self._files_of(kind, table))
            try:
                table.optimize.compact()
            except OSError as exc:
                raise self._unwritable(exc) from None
            except Exception as exc:
                raise self._failed(exc, "written") from None
            after = self._table(kind)
            counts[kind] = (before, before if after is None else len(self._files_of(kind, after)))
        return counts

    @contextlib.contextmanager
    def writing(
        self, refresh: str | None = None, at: str | None = None, *, migrating: bool = False
    ) -> Iterator[Manifest]:
        """Hold the study's lease (for ``refresh``, started ``at``); yield what it holds
        now, with the refresh a killed one left ``pending``.

        Raises:
            StudyError: another refresh holds the lease still after waiting (naming it),
                or the study cannot be written.
        """
        self._writable()
        if isinstance(self.place, storage.Folder):
            try:
                self.place.make()
            except OSError as exc:
                raise self._unwritable(exc) from None
        self.check_folders()
        lease = Lease(self.place)
        try:
            was = lease.take(refresh or "", at or datetime.now(UTC).isoformat())
        except OSError as exc:
            raise self._unwritable(exc) from None
        self.lease = lease
        try:
            if migrating:  # (the tables are not the study yet)
                yield Manifest()
                return
            manifest = self.read()
            done = {r["id"] for r in manifest.refreshes}
            # The last holder's refresh, if it never committed (killed, or failed before
            # its commit: the pages it paid for are in the HTTP cache, and count).
            if (
                was is not None
                and was.refresh
                and _REFRESH_ID.fullmatch(was.refresh)
                and was.refresh not in done
                and was.at is not None
            ):
                manifest.pending = {"id": was.refresh, "at": was.at}
            yield manifest
        finally:
            self.lease = None
            self._latest.clear()
            lease.release()

    def _unwritable(self, exc: OSError) -> StudyError:
        import errno

        why = {
            errno.ENOSPC: "the disk is full",
            errno.EDQUOT: "the disk quota is used up",
            errno.EROFS: "the file system is read-only",
            errno.EACCES: "no permission to write there",
            errno.EPERM: "no permission to write there",
        }.get(exc.errno or 0, exc.strerror or type(exc).__name__)
        return StudyError(
            f"{self.shown} cannot be written ({why}); the study is as it was before this step"
        )


class _Shown:
    """A bucket's file as an error names it (a path-like for the messages)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__

    def __fspath__(self) -> str:
        return self.text


def _typed(frame: pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    out = frame.copy()
    for name, dtype in dtypes.items():
        if name in out:
            out[name] = out[name].astype(dtype)
    return out


def _without_secrets(text: str, options: dict[str, str] | None) -> str:
    """``text`` with every storage option's value of some length replaced by ``***``."""
    for value in (options or {}).values():
        if len(value) >= 4:
            text = text.replace(value, "***")
    return text


def _deltalake() -> Any:
    try:
        import deltalake
    except ImportError:
        raise StudyError(
            'studies need deltalake, DuckDB and pyarrow: pip install "socialframe[study]"'
        ) from None
    return deltalake
