"""A study's folder: Hive-partitioned Parquet any tool reads, and a manifest written last.

::

    brand-watch/
      study.json                                   the manifest (what is watched, the refreshes)
      comments/refresh=20261125T030500123Z/part-0.parquet
      ads/refresh=.../part-0.parquet
      changes/refresh=.../part-0.parquet
      runs/refresh=.../part-0.parquet          one row: the refresh's figures
      items/refresh=.../part-0.parquet         one row per watched item it looked at

One folder per kind of row, Hive-partitioned by refresh (the kind is the folder, not
a ``kind=`` key, because ``changes`` and ``items`` have a column ``kind`` of their own).
      .lock                                         held by the one process writing

Files are only ever added. A refresh writes each of its files into ``.staging``,
flushes it, moves its partition folder into place (one ``rename``: a partition
appears whole or not at all), then rewrites the manifest (a new file moved over
the old one) naming the refresh: the study changes at that one step. A refresh
killed before it (``kill -9``, power loss) leaves partitions the manifest does not
name: socialframe reads only the files the manifest lists, and the next write
removes them: the files of the refresh the manifest names as ``pending`` (written
before its first paid call), by their exact names, and the folders they leave empty.
Nothing else is ever removed: a folder or file of the user's inside the study stays.
Tools reading the folder by themselves see every refresh the manifest names through
``runs`` (a refresh's row there is written last of its files).

Every file written is recorded in the manifest (its size and SHA-256), and checked
before it is read (:mod:`.integrity`). No link inside the folder is ever followed
(:mod:`.folder`).

One process writes at a time: :meth:`Dataset.writing` takes ``.lock`` (``flock``,
released by the kernel when the process dies, so a killed writer never leaves it
held) within a bounded wait, and then refuses with a :class:`StudyError`. Readers
take no lock: the files a manifest names never change.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Final

import pandas as pd

from .._display.files import new_file_mode
from .._errors import StudyError
from . import folder, integrity

#: What ``study.json`` says it is; a newer number is refused, never half-read.
FORMAT: Final = "socialframe-study"
VERSION: Final = 1
MANIFEST: Final = "study.json"
#: The kinds of file a refresh writes, each a folder Hive-partitioned by ``refresh``.
KINDS: Final = ("comments", "ads", "changes", "runs", "items")
#: How long a second writer waits for the first before it is refused.
LOCK_WAIT: Final = 10.0


@dataclass
class Manifest:
    """What ``study.json`` holds.

    Attributes:
        watched: One dict per watched item (``kind``, ``item``, ``filters``, ``added_at``).
        refreshes: One dict per committed refresh, oldest first: ``id``, ``at`` and
            ``files`` (kind -> path relative to the folder).
        state: Per watched item (by its key), what the next refresh needs.
        pending: The refresh under way (``id``, ``at``), if one started and did not
            finish: the next one reads the pages it paid for from the HTTP cache,
            and the next write removes the files it left.
        checks: Per file (its path relative to the folder), what the study wrote:
            ``size`` and ``sha256`` (see :mod:`.integrity`). A file written before
            these were kept has none.
    """

    watched: list[dict[str, Any]] = field(default_factory=list)
    refreshes: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)

    def files(self, kind: str) -> list[str]:
        """The files of ``kind`` of every committed refresh, oldest first."""
        return [r["files"][kind] for r in self.refreshes if kind in r.get("files", {})]


def refresh_id(at: datetime) -> str:
    """A refresh's id: its UTC time, sortable as text and safe as a folder name.

    Example:
        >>> refresh_id(datetime(2026, 11, 25, 3, 5, 0, 123456, tzinfo=UTC))
        '20261125T030500123Z'
    """
    at = at.astimezone(UTC)
    return at.strftime("%Y%m%dT%H%M%S") + f"{at.microsecond // 1000:03d}Z"


class Dataset:
    """One study folder (see the module's docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"a study is a folder path, not {type(path).__name__}")
        self.path = Path(path).expanduser()
        if self.path.exists() and not self.path.is_dir():
            raise StudyError(f"{self.path} is a file, not a study folder")
        # What this process wrote and no manifest names yet: each file's record.
        self._written: dict[str, dict[str, Any]] = {}

    # -- the manifest ----------------------------------------------------------------------

    def exists(self) -> bool:
        return (self.path / MANIFEST).is_file()

    def read(self) -> Manifest:
        """The manifest; an empty one where the folder is not a study yet.

        Raises:
            StudyError: the folder holds files but no manifest (not a study), or the
                manifest is unreadable or of a newer format.
        """
        target = self.path / MANIFEST
        try:
            raw = self._manifest_bytes()
        except FileNotFoundError:
            if self.path.is_dir():
                found = [p for p in self.path.iterdir() if not _scaffolding(p.name)]
                if any(p.name in KINDS for p in found):
                    raise StudyError(
                        f"{self.path} holds a study's data but no {MANIFEST} (moved away, or a"
                        " partial copy): it is left as it is; put its study.json back"
                    ) from None
                if found:
                    raise StudyError(
                        f"{self.path} is not a study (it holds other files and no {MANIFEST});"
                        " give an empty or new folder"
                    ) from None
            return Manifest()
        except OSError as exc:
            raise StudyError(f"{target} cannot be read: {exc.strerror}") from None
        try:
            value = json.loads(raw)
            if value.get("format") != FORMAT:
                raise ValueError("not a study manifest")
            version = value.get("version")
        except (ValueError, AttributeError, RecursionError):
            raise StudyError(f"{target} is not a study manifest (it cannot be read)") from None
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise StudyError(f"{target} is not a study manifest (version {version!r:.20})")
        if version > VERSION:
            raise StudyError(
                f"{self.path} was written by a newer socialframe (study format {version!r};"
                f" this one reads up to {VERSION}): upgrade socialframe to read it"
            )
        problem = _manifest_problem(value)
        if problem:
            raise StudyError(f"{target} is not a study manifest as written ({problem})")
        return Manifest(
            watched=list(value["watched"]),
            refreshes=list(value["refreshes"]),
            state=dict(value["state"]),
            pending=value.get("pending"),
            checks=dict(value.get("checks") or {}),
        )

    def _manifest_bytes(self) -> bytes:
        """``study.json``'s bytes, never read through a link."""
        with folder.opened(self.path) as root:
            fd = folder.open_file(self.path, root, MANIFEST)
            with os.fdopen(fd, "rb") as source:
                return source.read()

    def write(self, manifest: Manifest) -> None:
        """Replace the manifest whole (a new file moved over the old; flushed first),
        with the record of every file it names that this process wrote."""
        named = {path for entry in manifest.refreshes for path in entry["files"].values()}
        manifest.checks = {
            path: record
            for path in sorted(named)
            if (record := manifest.checks.get(path) or self._written.get(path)) is not None
        }
        value = {
            "format": FORMAT,
            "version": VERSION,
            "watched": manifest.watched,
            "refreshes": manifest.refreshes,
            "state": manifest.state,
            "pending": manifest.pending,
            "checks": manifest.checks,
        }
        data = json.dumps(value, indent=1, sort_keys=True).encode()
        self._atomic(self.path / MANIFEST, data)

    # -- writing ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self, wait: float = LOCK_WAIT) -> Iterator[Manifest]:
        """Hold the study's write lock; yield its manifest as it is now.

        Raises:
            StudyError: another process writes the study still after ``wait`` seconds,
                or the folder cannot be created or written.
        """
        self._make_folder()
        try:
            with folder.opened(self.path) as root:
                try:
                    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
                    fd = os.open(".lock", flags, 0o644, dir_fd=root)
                except OSError:  # a link (even dangling) is never followed nor created
                    linked = folder.link_error(self.path, ".lock", root, ".lock")
                    if linked is not None:
                        raise linked from None
                    raise
        except OSError as exc:
            raise self._unwritable(exc) from None
        try:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StudyError(
                            f"{self.path} is being written by another process (a refresh"
                            f" still running after {wait:g} s of waiting): try again when"
                            " it is done"
                        ) from None
                    time.sleep(0.05)
            self._written.clear()  # (records of this session only, made under the lock)
            manifest = self.read()
            self._remove_orphans(manifest)
            yield manifest
        finally:
            self._written.clear()
            os.close(fd)  # releases the lock

    def check_folders(self) -> None:
        """Before a refresh pays: each folder it will write into, where it exists, is
        a folder of the study's own, not a link out of it.

        Raises:
            StudyError: naming the link (or the file where a folder belongs).
        """
        try:
            with folder.opened(self.path) as root:
                for name in (*KINDS, STAGING):
                    folder.check_folder(self.path, root, name)
        except OSError as exc:
            raise StudyError(f"{self.path} cannot be opened ({exc.strerror})") from None

    def write_partition(self, kind: str, refresh: str, frame: pd.DataFrame) -> str:
        """Write ``frame`` as the partition ``<kind>/refresh=<refresh>``, whole or not
        at all; the path of its file, relative to the folder (its record is kept for
        the next manifest written)."""
        pa, pq = _pyarrow()

        name = "part-0.parquet"
        relative = f"{kind}/refresh={refresh}/{name}"
        table = _no_null_types(pa.Table.from_pandas(frame, preserve_index=False))
        try:
            with folder.opened(self.path) as root:
                staged = folder.open_dir(self.path, root, f"{STAGING}/{refresh}", create=True)
                try:
                    self._stage(staged, kind, name, table, pq, relative)
                    into = folder.open_dir(self.path, root, kind, create=True)
                    try:
                        part = f"refresh={refresh}"
                        folder.refuse_existing(self.path, f"{kind}/{part}", into, part)
                        # One rename between two folders held open: the partition appears
                        # whole, and a link swapped in meanwhile redirects nothing.
                        os.rename(kind, part, src_dir_fd=staged, dst_dir_fd=into)
                        folder.fsync_dir(into)
                    finally:
                        os.close(into)
                finally:
                    os.close(staged)
                folder.remove_empty_dirs(root, f"{STAGING}/{refresh}", 2)  # once all moved
        except OSError as exc:
            raise self._unwritable(exc) from None
        return relative

    def _stage(self, staged: int, kind: str, name: str, table: Any, pq: Any, relative: str) -> None:
        """Write ``table`` into ``<staged>/<kind>/<name>``, flushed, and keep its record."""
        at = folder.open_dir(self.path, staged, kind, create=True)
        try:
            fd = folder.create_file(self.path, at, name, relative, new_file_mode())
            # (read back, to record what reached the file)
            with os.fdopen(fd, "w+b") as out:
                pq.write_table(table, out, compression="zstd")
                out.flush()
                os.fsync(out.fileno())
                self._written[relative] = integrity.record(out)
        finally:
            os.close(at)

    def _remove_orphans(self, manifest: Manifest) -> None:
        """Remove what the refresh the manifest names as pending left (under the write
        lock): its files by their exact names, then the folders they leave empty.
        Nothing else: a link is never followed, a file of the user's never removed."""
        pending = manifest.pending
        named = {path for entry in manifest.refreshes for path in entry["files"].values()}
        try:
            with folder.opened(self.path) as root:
                if pending is not None and _REFRESH_ID.fullmatch(str(pending.get("id"))):
                    refresh = pending["id"]
                    for kind in KINDS:
                        staged = f"{STAGING}/{refresh}/{kind}"
                        folder.remove_file(root, f"{staged}/part-0.parquet")
                        folder.remove_empty_dirs(root, staged, 3)
                        placed = f"{kind}/refresh={refresh}"
                        if f"{placed}/part-0.parquet" not in named:
                            folder.remove_file(root, f"{placed}/part-0.parquet")
                            folder.remove_empty_dirs(root, placed, 1)
                for leftover in os.listdir(root):  # a manifest never moved in (mkstemp's)
                    if _MANIFEST_TEMPORARY.fullmatch(leftover):
                        folder.remove_file(root, leftover)
        except OSError:
            pass  # tidying up only: what is left is never read

    def _make_folder(self) -> None:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise self._unwritable(exc) from None

    def _atomic(self, target: Path, data: bytes) -> None:
        try:
            fd, temporary = tempfile.mkstemp(
                dir=target.parent, prefix=f".{target.name}.", suffix=_ON_ITS_WAY
            )
            try:
                os.fchmod(fd, new_file_mode())  # as the Parquet files (mkstemp makes 0600)
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
            _fsync_dir(target.parent)
        except OSError as exc:
            raise self._unwritable(exc) from None

    def _unwritable(self, exc: OSError) -> StudyError:
        why = {
            errno.ENOSPC: "the disk is full",
            errno.EDQUOT: "the disk quota is used up",
            errno.EROFS: "the file system is read-only",
            errno.EACCES: "no permission to write there",
            errno.EPERM: "no permission to write there",
        }.get(exc.errno or 0, exc.strerror or type(exc).__name__)
        return StudyError(
            f"{self.path} cannot be written ({why}); the study is as it was before this step"
        )


#: Where a refresh writes its files before each partition is moved into place.
STAGING: Final = ".staging"
_PART = re.compile(r"(comments|ads|changes|runs|items)/refresh=[0-9TZ-]{1,40}/part-0\.parquet")
_REFRESH_ID = re.compile(r"[0-9]{8}T[0-9]{9}Z(-[0-9]{6})?")
#: A manifest on its way in: ``tempfile.mkstemp``'s names, with a suffix of the study's
#: own (``.study.json.original`` is a name a user may give a copy of their own).
_ON_ITS_WAY: Final = ".socialframe-partial"
_MANIFEST_TEMPORARY = re.compile(
    rf"\.{re.escape(MANIFEST)}\.[a-z0-9_]{{8}}{re.escape(_ON_ITS_WAY)}"
)


def _manifest_problem(value: Any) -> str | None:
    """What is wrong with a manifest's fields, or None: nothing in it is used unchecked
    (a file it names must be one of the study's own partitions, never any path)."""
    from .watch import checked

    watched, refreshes = value.get("watched"), value.get("refreshes")
    if not isinstance(watched, list) or not isinstance(refreshes, list):
        return "watched and refreshes must be lists"
    if not isinstance(value.get("state"), dict):
        return "state must be an object"
    for item in watched:
        problem = checked(item) or _time_problem(item.get("added_at"), "added_at")
        if problem:
            return problem
    for key, state in value["state"].items():
        problem = _state_problem(state)
        if problem:
            return f"the state of {key!r:.60}: {problem}"
    ids: set[str] = set()
    for entry in refreshes:
        if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
            return "a refresh without its files"
        if not isinstance(entry.get("id"), str) or not _REFRESH_ID.fullmatch(entry["id"]):
            return f"a refresh id {entry.get('id')!r:.40}"
        if entry["id"] in ids:  # its files would be read, and its changes counted, twice
            return f"refresh {entry['id']} named twice"
        ids.add(entry["id"])
        problem = _time_problem(entry.get("at"), "a refresh's at")
        if problem:
            return problem
        for kind, path in entry["files"].items():
            if (
                kind not in KINDS
                or not isinstance(path, str)
                or not _PART.fullmatch(path)
                or not path.startswith(f"{kind}/refresh={entry['id']}/")
            ):
                return f"a file that is not one of the study's partitions: {path!r:.80}"
    checks = value.get("checks", {})
    if not isinstance(checks, dict):
        return "checks must be an object"
    for path, record in checks.items():
        problem = integrity.record_problem(record)
        if problem:
            return f"the record of {path!r:.80}: {problem}"
    pending = value.get("pending")
    if pending is not None and not (
        isinstance(pending, dict)
        and isinstance(pending.get("id"), str)
        and _REFRESH_ID.fullmatch(pending["id"])  # (its files' names are made of it)
        and isinstance(pending.get("at"), str)
    ):
        return "pending must be null or an object with a refresh id and at"
    return None if pending is None else _time_problem(pending["at"], "pending's at")


def _time_problem(value: object, name: str) -> str | None:
    """What is wrong with a time read from a manifest (ISO text, with its zone), or None."""
    try:
        if isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None:
            return None
    except ValueError:
        pass
    return f"{name} {value!r:.40} is not an ISO time with its zone"


def _state_problem(state: object) -> str | None:
    """What is wrong with one watched item's state (what the next refresh reads), or None."""
    if not isinstance(state, dict):
        return "not an object"
    walked, total = state.get("walked"), state.get("total")
    if walked is not None and not (isinstance(walked, str) and _REFRESH_ID.fullmatch(walked)):
        return f"walked {walked!r:.40} is not a refresh id"
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        return f"total {total!r:.40} is not a count"
    if not isinstance(state.get("complete", False), bool):
        return "complete is not true or false"
    if "resume_after" in state:
        problem = _time_problem(state["resume_after"], "resume_after")
        if problem:
            return problem
    if "checked" in state:
        try:
            date.fromisoformat(state["checked"])
        except (TypeError, ValueError):
            return f"checked {state['checked']!r:.40} is not a day"
    return None


def _scaffolding(name: str) -> bool:
    """What a study folder holds besides data: its lock, staging, a manifest on its way."""
    return name in (".lock", STAGING) or name.startswith(f".{MANIFEST}.")


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise StudyError(
            'studies need pyarrow and DuckDB: pip install "socialframe[study]"'
        ) from None
    return pa, pq


def _no_null_types(table: Any) -> Any:
    """``table`` with columns of no type (all missing) typed as text (lists of text):
    one refresh's ``list<null>`` beside another's ``list<string>`` breaks readers."""
    pa, _ = _pyarrow()
    fields = []
    for column in table.schema:
        kind = column.type
        if pa.types.is_null(kind):
            kind = pa.string()
        elif pa.types.is_list(kind) and pa.types.is_null(kind.value_type):
            kind = pa.list_(pa.string())
        fields.append(column.with_type(kind))
    schema = pa.schema(fields, metadata=table.schema.metadata)
    return table if schema.equals(table.schema) else table.cast(schema)


def _fsync_dir(path: Path) -> None:
    """Make a rename in the folder ``path`` durable (where the system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
