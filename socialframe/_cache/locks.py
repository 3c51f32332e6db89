"""Page locks: processes (and machines) sharing a cache pay for a page once.

A process about to fetch a page holds that page's lock; another one asking for the
same page waits, then finds it in the cache. Two kinds, one interface
(``held(key, wait)``, yielding ``None`` when the call may go on under the lock, or a
text saying who held it when the wait ran out, or why it could not be had):

- :class:`FileLocks`: lock files beside a SQLite cache (``<cache file>.locks/``), page
  keys hashed onto :data:`FileLocks.STRIPES` files. The system lets go of a lock when
  its process ends, however it ends; beside each held lock a small file names the
  holder (process, host, since when), for the message of a wait that ran out.
- :class:`RedisLocks`: locks in a team cache's Redis, each with a short time to live
  (:data:`RedisLocks.TTL`) that a thread of the holder renews while it fetches: the
  lock of a machine that died frees itself within seconds. The lock's token names
  the holder.

Waits are bounded, and :class:`LockWaits` bounds them again across a run: the first
wait that runs out (a holder that hangs, or fetches for longer than a call may take)
is counted, and every later page of the run waits at most
:data:`LockWaits.AFTER_TIMEOUT` for its lock, so a held lock costs one long wait per
fetch, not one per page; the client then warns once, naming the holder.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import stat
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from filelock import FileLock, Timeout

from .. import _words as words
from .._errors import ConfigError, NetworkError
from .connection import NOTHING_SENT, told
from .sqlite import Store


def _me() -> str:
    """This process, as a holder's description names it."""
    since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"process {os.getpid()} on {socket.gethostname()}, holding it since {since}"


class NoLocks:
    """Where the cache is neither a file nor a team cache (or there is none)."""

    @contextmanager
    def held(self, key: str, wait: float) -> Iterator[str | None]:
        """Nothing to hold: the call goes on."""
        yield None


def lock_folder(cache_file: Path) -> Path:
    """The folder of the page locks of the SQLite cache ``cache_file``: beside it,
    its name and ``.locks``."""
    return Path(f"{cache_file}.locks")


class FileLocks:
    """Lock files beside a SQLite cache (see the module's doc).

    Args:
        cache_file: The SQLite file of the cache.

    Raises:
        ConfigError: ``<cache_file>.locks`` cannot be the folder of the locks (a file,
            a link to nothing, a folder this process may not write): locking would be
            off, and every process sharing the cache would pay again.

    Example:
        >>> import tempfile, pathlib
        >>> locks = FileLocks(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite")
        >>> with locks.held("https://api.example/x?page=1", wait=1.0) as holder:
        ...     holder is None
        True
    """

    STRIPES: Final = 1024

    def __init__(self, cache_file: Path) -> None:
        self.folder = lock_folder(cache_file)
        why = ""
        if self.folder.is_symlink() and not self.folder.exists():
            why = "is a link to nothing"
        elif self.folder.exists() and not self.folder.is_dir():
            why = "is a file"
        else:
            try:
                self.folder.mkdir(exist_ok=True)
                probe = self.folder / f".probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
                os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
                probe.unlink()
            except OSError as exc:
                why = f"cannot be written ({exc.strerror or exc})"
        if why:
            raise ConfigError(
                f"{self.folder} {why}: the cache keeps its page locks in a folder of that"
                " name, so that processes sharing the cache pay for a page once. Move it"
                " away or fix its permissions, or pass another cache= path."
            )

    @contextmanager
    def held(self, key: str, wait: float) -> Iterator[str | None]:
        """Hold ``key``'s lock for the block; yields None, or who held it past ``wait``."""

        stripe = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % self.STRIPES
        path = self.folder / f"{stripe:04d}.lock"
        who = self.folder / f"{stripe:04d}.holder"
        # Every user sharing the cache folder must be able to lock every stripe: the
        # file gets its mode whatever the creator's umask.
        lock = FileLock(path, timeout=wait, mode=0o666)
        try:
            self.folder.mkdir(exist_ok=True)
            lock.acquire()
        except Timeout:
            yield "held by " + _read_holder(who)
            return
        except OSError as exc:  # (checked when the client was built: changed since)
            yield f"the lock could not be taken: {exc.strerror or exc}"
            return
        try:
            _write_holder(who)
            yield None
        finally:
            with contextlib.suppress(OSError):
                who.unlink()  # (a link planted there is removed, never its target)
            lock.release()


def _write_holder(who: Path) -> None:
    """Say who holds the lock, in a file of its own moved into place: anyone who can
    write the shared folder could have left a link at ``who``, and writing through it
    would overwrite whatever file it points to."""
    fresh = who.with_name(f"{who.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}")
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(fresh, flags, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(_me())
        os.replace(fresh, who)
    except OSError:
        with contextlib.suppress(OSError):
            fresh.unlink()


def _read_holder(who: Path) -> str:
    """The holder's own words, read only from a plain file (not through a link, nor from
    a pipe that would never answer)."""
    text = ""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(who, flags)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                text = os.read(fd, 200).decode("utf-8", "replace").strip()
        finally:
            os.close(fd)
    except OSError:
        pass
    return _printable(text) or "another process (it did not say which)"


def _printable(text: str) -> str:
    """``text`` with what a terminal would act on (escapes, controls) shown as ``?``."""
    return "".join(c if c.isprintable() else "?" for c in text)


class RedisLocks:
    """Page locks in the team's Redis (see the module's doc).

    Args:
        connection: The team cache's Redis connection.
    """

    TTL: Final = 10.0
    """Seconds a lock lives unless its holder renews it (every third of that)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self._held: set[Any] = set()
        self._guard = threading.Lock()
        self._renewer: threading.Thread | None = None

    @contextmanager
    def held(self, key: str, wait: float) -> Iterator[str | None]:
        """Hold ``key``'s lock for the block; yields None, or who held it past ``wait``."""
        import redis

        name = "socialframe:lock:" + hashlib.sha256(key.encode()).hexdigest()[:32]
        # (not thread-local: the renewing thread renews it with the holder's token)
        lock = self.connection.lock(
            name, timeout=self.TTL, blocking_timeout=wait, thread_local=False
        )
        failure: NetworkError | None = None
        try:
            held = bool(lock.acquire(token=f"{_me()} [{uuid.uuid4().hex[:8]}]"))
        except NetworkError as exc:  # (the guarded connection's: every command's failure)
            if not exc.retryable:  # it answers, but refused the lock (full, read-only...)
                yield str(exc)
                return
            # It does not answer: neither would the page's read. Nothing is sent (with
            # no lock, two machines could pay for the page at once).
            failure = told(exc, NOTHING_SENT)
        if failure is not None:
            raise failure  # (outside the except clause: one error, no chain)
        if not held:
            yield "held by " + self._holder(name)
            return
        self._renew(lock)
        try:
            yield None
        finally:
            with self._guard:
                self._held.discard(lock)
            # Gone meanwhile (LockNotOwnedError) or Redis gone: its TTL frees it.
            with contextlib.suppress(NetworkError, redis.RedisError):
                lock.release()

    def _holder(self, name: str) -> str:
        try:
            token = self.connection.get(name)
        except Exception:  # (redis-py's errors: any of them means "unknown")
            token = None
        if isinstance(token, bytes):
            token = token.decode("utf-8", "replace")
        return _printable(str(token)[:200]) or "a machine of the team (it did not say which)"

    def _renew(self, lock: Any) -> None:
        with self._guard:
            self._held.add(lock)
            if self._renewer is None or not self._renewer.is_alive():
                self._renewer = threading.Thread(
                    target=self._renew_forever, name="socialframe-lock-renewer", daemon=True
                )
                self._renewer.start()

    def _renew_forever(self) -> None:
        """Renew every held lock each third of :data:`TTL`; end when none is held."""
        stop = threading.Event()
        while not stop.wait(self.TTL / 3):
            with self._guard:
                held = list(self._held)
                if not held:
                    self._renewer = None
                    return
            for lock in held:
                try:
                    lock.reacquire()
                except Exception:  # released meanwhile, or Redis gone: its TTL decides
                    with self._guard:
                        self._held.discard(lock)


class LockWaits:
    """How long a page waits for its lock in this run, and who held the locks that
    ran out (see the module's doc)."""

    AFTER_TIMEOUT: Final = 1.0
    """Seconds a page waits for its lock once a wait of the run has run out."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self._guard = threading.Lock()
        self._pages = 0  # pages whose wait ran out
        self._holder = ""
        self._failed = 0  # pages whose lock could not be taken at all
        self._reason = ""

    def current(self) -> float:
        """The wait for the next page's lock."""
        with self._guard:
            return min(self.wait, self.AFTER_TIMEOUT) if self._pages else self.wait

    def ran_out(self, holder: str) -> None:
        """A page's lock could not be had: ``holder`` says who held it (``held by ...``),
        or why it could not be taken at all (the later pages' waits stay whole then)."""
        with self._guard:
            if holder.startswith("held by "):
                self._pages += 1
                self._holder = holder
            else:
                self._failed += 1
                self._reason = holder

    def take(self) -> str:
        """The warning for the waits that ran out since the last call ("" if none), and
        start again: the next fetch waits the whole time again."""
        with self._guard:
            pages, holder, failed, reason = self._pages, self._holder, self._failed, self._reason
            self._pages, self._holder, self._failed, self._reason = 0, "", 0, ""
        said = []
        if pages:
            were = "it was" if pages == 1 else "they were"
            said.append(
                f"The cache's lock of {words.count(pages, 'page')} could not be had in"
                f" the {self.wait:g} s a page waits for it ({holder}): {were} fetched without"
                " it (if another process was fetching the same page, it was paid twice),"
                f" and later pages waited at most {self.AFTER_TIMEOUT:g} s."
            )
        if failed:
            fix = (
                "Check the team cache's Redis (its memory, its permissions)."
                if "team cache" in reason
                else "Fix the permissions of the cache's .locks folder."
            )
            said.append(
                f"The cache's lock of {words.count(failed, 'page')} could not be taken"
                f" ({reason}): fetched without it (if another process was fetching the same"
                f" page, it was paid twice). {fix}"
            )
        return " ".join(said)


class KeyedLocks:
    """One lock per key, made on first use and dropped when no thread holds or waits."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, list[int]]] = {}

    @contextlib.contextmanager
    def held(self, key: str) -> Iterator[None]:
        """Hold ``key``'s lock for the block (waiting for another thread's turn)."""
        with self._guard:
            lock, users = self._locks.setdefault(key, (threading.Lock(), [0]))
            users[0] += 1
        try:
            with lock:
                yield
        finally:
            with self._guard:
                users[0] -= 1
                if not users[0]:
                    del self._locks[key]


def is_redis(backend: Any) -> bool:
    """requests-cache's Redis backend (ours or a user's), without importing redis-py."""
    return any(cls.__name__ == "RedisCache" for cls in type(backend).__mro__)


def page_locks(backend: Any) -> FileLocks | RedisLocks | NoLocks:
    """Locks that make one payment per page hold across processes (and machines).

    Raises:
        ConfigError: the place of a SQLite cache's lock folder is taken by a file.
    """

    if isinstance(backend, Store):
        # A file this process cannot write stores no page: there is nothing to lock.
        writable = not backend.read_only and os.access(backend.db_path, os.W_OK)
        return FileLocks(Path(backend.db_path)) if writable else NoLocks()
    if is_redis(backend):
        return RedisLocks(backend.responses.connection)
    return NoLocks()
