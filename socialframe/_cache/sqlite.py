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

Why over 400 lines: the lock waits, the write failures and the file checks all
wrap the same backend object and its one connection; a quarter is docstrings.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache, SQLiteDict

from .._errors import ConfigError
from .._operations import of_url
from .serializer import MAGIC, MAX_STORED, PageFormat, legacy
from .serializer import plain as plain_page
from .serializer import response as read_response

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
        self._unreadable: set[str] = set()

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

    def unreadable(self, key: str) -> None:
        """An entry that is not a page socialframe can read (each key counted once)."""
        with self._lock:
            self._unreadable.add(key)

    def take_unreadable(self) -> int:
        """How many entries were unreadable since the last call; start again from zero."""
        with self._lock:
            taken = len(self._unreadable)
            self._unreadable.clear()
            return taken


class NotACache(Exception):
    """The file holds a table of the cache's name with other columns (internal)."""


class _Table(SQLiteDict):
    """One table of the cache file: bounded lock waits, counted failures, and values read
    as data only (:mod:`socialframe._cache.serializer`), an unreadable one counted as a miss.

    Args:
        path: The SQLite file.
        failures: Counts pages not stored and entries not readable, for both tables.
        lock: Serialises this table's connection: reads, writes and the fast read.
        form: How pages are written and read; ``None`` keeps values as they are (the
            redirects table, which socialframe never uses but requests-cache opens).
    """

    def __init__(
        self,
        path: Path,
        *,
        failures: Failures,
        lock: threading.RLock,
        form: PageFormat | None,
        table_name: str,
    ) -> None:
        self.failures = failures
        self.read_only = False
        self.lock = lock
        self.form = form
        super().__init__(
            path, table_name=table_name, timeout=LOCK_WAIT, wal=True, lock=lock, serializer=form
        )

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
        with self.lock:
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
            except BaseException:  # Ctrl-C mid-way: never leave the file's lock held
                self._connection.rollback()
                raise
            finally:
                self._active_transaction = False

    def raw(self, key: str) -> Any:
        """The value stored under ``key`` as it is in the file, or None.

        Reads wait for writes: requests-cache reads without its lock, on the
        connection the writers share, so a read while another thread's write
        transaction is open would run inside it and miss a page another process
        stored since, which would then be paid again. The key is a parameter:
        requests-cache puts it in the statement's text, where a key read from a
        file someone else wrote could be SQL. A value longer than any page (see
        :data:`~socialframe._cache.serializer.MAX_STORED`) is not loaded: ``b""`` stands
        for it (not a page).
        """
        with self.lock, self.connection() as con:
            cursor = con.execute(
                f"SELECT CASE WHEN length(value) <= ? THEN value ELSE x'' END"
                f" FROM {self.table_name} WHERE key=?",
                (MAX_STORED, key),
            )
            try:
                row = cursor.fetchone()
            finally:
                cursor.close()
        return None if row is None else row[0]

    def __getitem__(self, key: str) -> Any:
        value = self.raw(key)
        if value is None:
            raise KeyError(key)
        return self.deserialize(key, value)

    def deserialize(self, key: str, value: Any) -> Any:
        if self.form is None:
            return value
        response = read_response(value, legacy=self.form.legacy)
        if response is None:
            self.failures.unreadable(str(key))
            return None
        response.cache_key = key
        return response

    def _write(self, key: str, value: Any) -> None:
        try:
            super()._write(key, value)  # type: ignore[no-untyped-call]
        except (StoreFailed, sqlite3.Error, OSError, ValueError) as exc:
            # (ValueError: a page the format would not read back, see PageFormat.encode)
            self.failures.add(
                str(exc) if isinstance(exc, StoreFailed | ValueError) else _reason(exc)
            )

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
        self.responses: _Table
        lock = threading.RLock()
        try:
            _folder(path)
            _refuse_another_program(path)
            self.responses = _Table(
                path,
                table_name="responses",
                failures=self.failures,
                lock=lock,
                form=PageFormat(legacy=True),
            )
            self.redirects = _Table(
                path, table_name="redirects", failures=self.failures, lock=lock, form=None
            )
        except (StoreFailed, NotACache, sqlite3.Error, OSError) as exc:
            raise ConfigError(_unusable(path, exc)) from None
        if not self.read_only:
            _migrate(self.responses)

    def get_response(self, key: str, default: Any = None) -> Any:
        """The page stored under ``key``, or ``default``: a miss, or a value that is not
        a page (counted in :attr:`failures`). Redirect aliases are not followed:
        socialframe stores none, and one written by someone else could point a page's
        key at another page."""
        try:
            response = self.responses[key]
        except KeyError:
            return default
        return default if response is None else response

    def page(self, key: str) -> dict[str, Any] | None:
        """The page stored under ``key`` as the plain dict of
        :func:`socialframe._cache.serializer.plain`, for the fast read; ``None`` when nothing
        is stored under ``key``.

        Raises:
            LookupError: the value is not a page: the full read counts it, and the
                page is fetched again.
            sqlite3.Error: the file cannot be read.
        """
        value = self.responses.raw(key)
        if value is None:
            return None
        page = plain_page(value, legacy=True)
        if page is None:
            raise LookupError(key)
        return page

    @property
    def read_only(self) -> bool:
        """Whether pages cannot be written (a read-only file, or locked at open)."""
        return bool(getattr(self.responses, "read_only", False))


def _refuse_another_program(path: Path) -> None:
    """Refuse a file another program made, before anything is written to it (opening it
    as requests-cache does already switches its journal): requests-cache would add its
    tables to that program's database, or a column to a table of the same name, and
    socialframe would count that table's rows as unreadable pages, and remove them. A
    cache file holds the two tables requests-cache makes, ``responses`` (key, value,
    expires) and ``redirects``, or nothing yet.

    Raises:
        NotACache: it is another program's database.
        sqlite3.DatabaseError: it is no SQLite database at all.
    """
    if not path.is_file() or path.stat().st_size == 0:
        return
    uri = path.absolute().as_uri()
    try:
        con = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        tables, columns = _schema(con)
    except sqlite3.OperationalError:  # (read-only and in WAL mode: read as it is)
        con = sqlite3.connect(f"{uri}?immutable=1", uri=True)
        tables, columns = _schema(con)
    finally:
        with contextlib.suppress(UnboundLocalError, sqlite3.Error):
            con.close()
    others = sorted(tables - {"responses", "redirects"})
    if others:
        raise NotACache(f"it holds tables of another program ({', '.join(others)[:200]})")
    ours = tables == {"responses", "redirects"} and {"key", "value", "expires"} <= columns
    if tables and not ours:
        shown = ", ".join(sorted(columns))[:200] or "none"
        raise NotACache(f"its tables were made by another program (responses: columns {shown})")


def _schema(con: sqlite3.Connection) -> tuple[set[str], set[str]]:
    """The file's tables (SQLite's own left out) and the columns of ``responses``."""
    tables = {
        str(row[0])
        for row in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
        if not str(row[0]).startswith("sqlite_")
    }
    columns = {str(row[1]) for row in con.execute("PRAGMA table_info(responses)")}
    return tables, columns


#: ``PRAGMA user_version`` of a cache file whose pages are all in the data-only format
#: (requests-cache leaves it at 0).
FORMAT_VERSION = 1


def _migrate(table: _Table) -> None:
    """Rewrite, once per file, the pages an earlier version pickled, in the data-only
    format. Only good pages of socialframe's operations are rewritten; anything else
    (a planted object, junk, a page of another program sharing the file) is left as it
    is: a miss when asked for, counted then, replaced by the page fetched again, and
    removed by ``cache clear``. Skipped (old pages are still read, as data only, one by
    one) where another process holds the file's lock or it cannot be written; one
    transaction, so an interrupted migration leaves the file as it was."""
    name = table.table_name
    with table.connection() as reader:
        if reader.execute("PRAGMA user_version").fetchone()[0] >= FORMAT_VERSION:
            return
    try:
        with table._acquire_sqlite_lock():
            con = table._connection
            assert con is not None
            if con.execute("PRAGMA user_version").fetchone()[0] >= FORMAT_VERSION:
                return  # another process did it while this one waited
            keys = [
                row[0]
                for row in con.execute(
                    f"SELECT key FROM {name} WHERE substr(value, 1, ?) IS NOT ?"
                    " AND length(value) <= ?",
                    (len(MAGIC), MAGIC, MAX_STORED),
                )
            ]
            for key in keys:
                row = con.execute(f"SELECT value FROM {name} WHERE key=?", (key,)).fetchone()
                value = legacy(row[0], accept=_is_operation_url)
                if value is not None:
                    con.execute(f"UPDATE {name} SET value=? WHERE key=?", (value, key))
            con.execute(f"PRAGMA user_version={FORMAT_VERSION}")
    except StoreFailed:
        pass


def _is_operation_url(url: str | None) -> bool:
    """Whether a page's URL is one of socialframe's operations (by its path's end)."""
    return of_url(url) is not None


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
    if isinstance(exc, NotACache):
        what = f"it is not a socialframe cache: {what}"
        todo = f"choose another cache= path (or move {path} away)"
    elif isinstance(exc, sqlite3.DatabaseError) and "not a database" in what:
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
