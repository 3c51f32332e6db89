"""The SQLite file under the cache: bounded lock waits, failed writes reported, not hidden.

requests-cache's SQLite backend waits for the write lock forever (a notebook
in another process holding it stalls every paid call) and rolls a failed write
back silently (a full disk or a read-only file means the next run pays again,
with no word). :class:`Store` keeps the backend and changes only that:

- the write lock is waited for at most :data:`LOCK_WAIT` seconds, and the
  pages that follow while it is still held do not wait again;
- a write that fails (disk full, read-only, still locked) is counted with its
  reason, the page is still returned, and the client warns once per fetch
  (:class:`~socialframe.CacheWarning`, naming the file);
- a file that cannot be a cache (corrupt, a folder's place taken by a file, a
  folder that cannot be written) is a :class:`~socialframe.ConfigError` when the
  client is built, naming the path and what to do;
- a read-only cache still reads (offline mode over a shared, read-only copy).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache, SQLiteDict

from ._errors import ConfigError

_HEX = re.compile(r"[0-9a-f]{1,128}")
LOCK_WAIT = 3.0
"""Seconds a write waits for another process's lock before giving up on storing."""


class StoreFailed(Exception):
    """A write to the cache file did not happen (internal: counted, never raised out)."""


class Failures:
    """Pages that could not be stored, and the last reason, shared by both tables."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.reason = ""
        self.locked = False  # the last write found the lock held: the next does not wait

    def add(self, reason: str) -> None:
        """One more page not stored."""
        with self._lock:
            self.count += 1
            self.reason = reason

    def take(self) -> tuple[int, str]:
        """``(pages, last reason)`` since the last call, and start again from zero."""
        with self._lock:
            taken = (self.count, self.reason)
            self.count, self.reason = 0, ""
            return taken


class _Table(SQLiteDict):
    """One table of the cache file, with bounded lock waits and counted failures."""

    def __init__(self, path: Path, *, failures: Failures, **kwargs: Any) -> None:
        self.failures = failures
        self.read_only = False
        super().__init__(path, timeout=LOCK_WAIT, wal=True, **kwargs)

    def init_db(self) -> None:
        try:
            super().init_db()  # type: ignore[no-untyped-call]
        except (StoreFailed, sqlite3.OperationalError) as exc:
            # Locked, or read-only: fine if the table is already there to read.
            if "read-only" in str(exc) or "readonly" in str(exc):
                # WAL needs to write its index even to read: a read-only copy is
                # opened as immutable instead (nothing can write it anyway).
                self.read_only = True
                self.close()  # type: ignore[no-untyped-call]
                self._connection = sqlite3.connect(
                    f"{Path(self.db_path).absolute().as_uri()}?immutable=1",
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,
                )
            try:
                with self.connection() as con:
                    con.execute(f"SELECT key FROM {self.table_name} LIMIT 1").fetchall()
            except sqlite3.Error:
                self.close()  # type: ignore[no-untyped-call]
                raise StoreFailed(_reason(exc)) from None

    @contextmanager
    def _acquire_sqlite_lock(self) -> Iterator[None]:
        # requests-cache retries BEGIN forever and hides a failed COMMIT; here the
        # wait is bounded (the connection's busy timeout) and a failure raises.
        with self._lock:
            assert self._connection is not None
            # Wait once per stretch of a held lock, not once per page.
            wait = 0 if self.failures.locked else int(LOCK_WAIT * 1000)
            self._connection.execute(f"PRAGMA busy_timeout={wait}")
            try:
                self._connection.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                self.failures.locked = "locked" in str(exc) or "busy" in str(exc)
                raise StoreFailed(_reason(exc)) from None
            self.failures.locked = False
            self._active_transaction = True
            try:
                yield
                self._connection.commit()
            except (sqlite3.Error, OSError) as exc:
                self._connection.rollback()
                raise StoreFailed(_reason(exc)) from None
            finally:
                self._active_transaction = False

    def __getitem__(self, key: str) -> Any:
        # requests-cache reads without its lock, on the connection the writers share:
        # a read while another thread's write transaction is open runs inside it and
        # sees the file as it was when that transaction began, missing a page another
        # process stored since, which would then be paid again. Reads wait for writes.
        with self._lock:
            return super().__getitem__(key)  # type: ignore[no-untyped-call]

    def _write(self, key: str, value: Any) -> None:
        try:
            super()._write(key, value)  # type: ignore[no-untyped-call]
        except (StoreFailed, sqlite3.Error, OSError) as exc:
            self.failures.add(str(exc) if isinstance(exc, StoreFailed) else _reason(exc))

    def __delitem__(self, key: str) -> None:
        try:
            super().__delitem__(key)  # type: ignore[no-untyped-call]
        except (StoreFailed, sqlite3.Error, OSError) as exc:
            self.failures.add(str(exc) if isinstance(exc, StoreFailed) else _reason(exc))


def _reason(exc: BaseException) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"another process held the cache's lock for over {LOCK_WAIT:g} s"
    if "full" in text:
        return "the disk is full"
    if "disk I/O error" in text or isinstance(exc, OSError):
        return f"the disk is full or failing ({text})"
    if "readonly" in text or "read-only" in text:
        return "the cache file is read-only"
    return text


class PageLocks:
    """Lock files beside the cache, so processes sharing it pay for a page once.

    A process about to fetch a page holds the lock of the page's stripe (page
    keys hash onto :data:`STRIPES` files in ``<cache file>.locks/``); another
    process asking for the same page waits, then finds it in the cache. The
    wait is bounded: past it the call goes on without the lock (it may pay
    again, it never hangs). No lock at all where the folder cannot be written.

    Args:
        cache_file: The SQLite file of the cache.

    Example:
        >>> import tempfile, pathlib
        >>> locks = PageLocks(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
        >>> with locks.held("https://api.example/x?page=1", wait=1.0) as locked:
        ...     locked
        True
    """

    STRIPES = 1024

    def __init__(self, cache_file: Path) -> None:
        self.folder = Path(f"{cache_file}.locks")

    @contextmanager
    def held(self, key: str, wait: float) -> Iterator[bool]:
        """Hold ``key``'s lock for the block; yields whether it is held."""
        from filelock import FileLock, Timeout

        stripe = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % self.STRIPES
        lock = FileLock(self.folder / f"{stripe:04d}.lock", timeout=wait)
        try:
            self.folder.mkdir(exist_ok=True)
            lock.acquire()
        except (Timeout, OSError):
            yield False
            return
        try:
            yield True
        finally:
            lock.release()


class Store(SQLiteCache):
    """requests-cache's SQLite backend with the rules above.

    Args:
        path: The SQLite file.

    Raises:
        ConfigError: ``path`` cannot hold a cache (see the module doc).

    Example:
        >>> import tempfile, pathlib
        >>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
        >>> store.failures.take()
        (0, '')
    """

    def __init__(self, path: Path) -> None:
        BaseCache.__init__(self, cache_name=str(path))
        self.failures = Failures()
        try:
            _folder(path)
            self.responses = _Table(path, table_name="responses", failures=self.failures)
            self.redirects = _Table(
                path,
                table_name="redirects",
                lock=self.responses._lock,
                serializer=None,
                failures=self.failures,
            )
        except (StoreFailed, sqlite3.Error, OSError) as exc:
            raise ConfigError(_unusable(path, exc)) from None

    def unstructured(self, key: str) -> dict[str, Any] | None:
        """The response stored under ``key`` as requests-cache's serializer has it just
        before its cattrs stage builds a ``CachedResponse``: a dict of plain values.

        Structuring a ``CachedResponse`` (two case-insensitive header dicts, the
        request, the cookies) was most of a warm read; the fast read needs five of
        its fields. ``None`` when nothing is stored under ``key``.

        Raises:
            LookupError: the value cannot be read this way (a serializer without a
                cattrs first stage, a key that is not the hex of a hash, as
                requests-cache's are, a value the serializer cannot read): read
                it with ``get_response``.
            sqlite3.Error: the file cannot be read.
        """
        from requests_cache.serializers.cattrs import CattrStage

        table = self.responses
        stages = getattr(table.serializer, "stages", None)
        if not stages or not isinstance(stages[0], CattrStage) or not _HEX.fullmatch(key):
            raise LookupError(key)
        with table._lock, table.connection() as con:  # reads wait for writes: __getitem__
            # A placeholder, so SQLite compiles the statement once: requests-cache puts
            # the key in the text (placeholders misbehaved on a connection threads
            # use at once), but only this statement uses this text, always under the
            # lock, and its cursor is closed before the lock is let go.
            cursor = con.execute(f"SELECT value FROM {table.table_name} WHERE key=?", (key,))
            try:
                row = cursor.fetchone()
            finally:
                cursor.close()
        if row is None:
            return None
        from requests_cache.backends.base import DESERIALIZE_ERRORS

        value = row[0]
        try:
            for stage in reversed(stages[1:]):
                value = stage.loads(value)
        except DESERIALIZE_ERRORS:
            raise LookupError(key) from None  # requests-cache's read decides: a miss
        if not isinstance(value, dict):
            raise LookupError(key)
        return value

    @property
    def read_only(self) -> bool:
        """Whether pages cannot be written (a read-only file, or locked at open)."""
        return bool(getattr(self.responses, "read_only", False))


def _folder(path: Path) -> None:
    """Make the cache's folder, or say why it cannot be one."""
    for parent in [path.parent, *path.parent.parents]:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"{parent} is a file, not a folder")
            break
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and not path.is_file():
        raise IsADirectoryError(f"{path} is a folder, not a SQLite file")


def _unusable(path: Path, exc: BaseException) -> str:
    what = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in what:
        what = "it is not a SQLite database (corrupt, or another kind of file)"
        todo = f"move or delete {path} (pages in it are lost)"
    elif isinstance(exc, NotADirectoryError | IsADirectoryError):
        todo = "choose another cache= path"
    else:
        what = _reason(exc) if isinstance(exc, sqlite3.Error) else what
        todo = "make the folder writable, or choose another cache= path"
    return (
        f"cannot use the cache at {path}: {what}. To go on, {todo}, set"
        " SOCIALFRAME_CACHE_DIR to another folder, or pass cache=False (every call is then paid)."
    )
