"""The lease a refresh holds on its study: one refresh at a time, from any machine, with
nothing but the storage's own conditional write, and an expiry so that a refresh killed
(``kill -9``, a lost machine) never blocks the study for good.

The lease is a series of small JSON objects under ``_lease/``, numbered::

    _lease/00000000000000000007.json   {"holder": "ana@cron-1 (pid 4242)", "refresh": ...,
                                        "at": ..., "until": "2026-11-27T16:05:00+00:00",
                                        "released": false}

The highest number is the lease as it is. Each change (take, renew, release) writes the
next number with *create if absent* (``O_EXCL`` on a folder, ``If-None-Match: *`` on
S3, a generation precondition on GCS): of two processes that saw number 7 and both
write 8, exactly one succeeds, and the other reads the lease again. A process may take
the lease when the highest object is released or past its ``until``; its holder renews
it (a thread, every third of :data:`TTL`) while the refresh runs, and once more just
before it commits: a holder that finds the next number written by someone else lost
the lease (it was too slow), and commits nothing. A holder that is a process of the same
machine (same host, same boot) and is gone (``kill -9``) holds nothing: the next refresh
there need not wait for the expiry.

Why numbered objects rather than one object replaced with ``If-Match`` (its ETag): the
local file system has no replace-if-unchanged (``object_store``'s ``LocalFileSystem``
does not implement it), and one protocol over *create if absent* runs the same on a
folder and on every bucket. A process that read a list so old that its number was
pruned since (numbers 50 below the highest are removed) finds, listing again after its
write, a higher number than its own: it holds nothing, and removes its object.

Times are the machines' clocks (UTC): machines sharing a study should keep them in step
(NTP); an expiry is :data:`TTL` long, far beyond the usual skew.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from .._errors import StudyError
from .storage import Already, Place

#: How long a lease lasts unless renewed: a refresh killed holds the study this long.
TTL: Final = timedelta(minutes=5)
#: How long a second refresh waits for the first before it is refused.
WAIT: Final = 10.0
#: Where the lease's objects are, below the study.
FOLDER: Final = "_lease"
#: How many numbers below the highest are kept (the older ones are removed).
KEPT: Final = 50
_NAME = re.compile(r"([0-9]{20,40})\.json")  # (20 digits, and more past 10**20: never stuck)


@dataclass
class State:
    """One lease object: who holds the study, for which refresh, until when."""

    seq: int
    holder: str
    refresh: str | None
    at: str | None
    until: datetime
    released: bool
    machine: str | None = None
    pid: int | None = None

    def free(self, now: datetime) -> bool:
        """Whether a refresh may take the lease now: released, expired, or its holder a
        process of this machine that is gone (killed: no need to wait for the expiry)."""
        if self.released or self.until <= now:
            return True
        here = machine()
        if here != "?" and self.machine == here and self.pid is not None:
            return not _alive(self.pid)
        return False

    def said(self) -> str:
        """Who holds it and until when, for a message."""
        return f"{self.holder}, until {self.until.isoformat(timespec='seconds')}"


def machine() -> str:
    """This machine's running system, as far as a process id means anything: its host
    name, its boot id and the process-id namespace (two containers of one host, with
    one host name, number their processes each their own way: a pid of one means
    nothing in the other). Without a boot id, nothing is known: ``"?"`` matches none."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as boot:
            booted = boot.read().strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return "?"
    return f"{socket.gethostname()}/{booted}/{namespace}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # (another user's: alive)
    return True


def holder() -> str:
    """Who this process is, as a lease names it (user, host, pid)."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "?"
    return f"{user}@{socket.gethostname()} (pid {os.getpid()})"


class Lease:
    """The lease on one study (see the module's docstring)."""

    def __init__(self, place: Place, ttl: timedelta | None = None) -> None:
        self.place = place
        self.ttl = TTL if ttl is None else ttl
        self.me = holder()
        self.seq: int | None = None
        self.refresh: str | None = None
        self.at: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost: StudyError | None = None
        #: When it was last written as this refresh's (``time.monotonic()``).
        self.renewed = 0.0

    # -- reading -----------------------------------------------------------------------------

    def current(self) -> State | None:
        """The lease as it is (its highest object), or None where none was ever taken."""
        numbers = [int(m[1]) for n in self.place.listed(FOLDER) if (m := _NAME.fullmatch(n))]
        for seq in sorted(numbers, reverse=True):
            raw = self.place.get(f"{FOLDER}/{seq:020d}.json")
            if raw is not None:
                return _parsed(seq, raw)
        return None

    # -- taking, renewing, releasing ---------------------------------------------------------

    def take(self, refresh: str, at: str, wait: float | None = None) -> State | None:
        """Take the lease for ``refresh`` (started ``at``), waiting up to ``wait`` seconds
        for another holder; the state it took over (None where there was none).

        Raises:
            StudyError: another holds it still after ``wait`` (naming who and until when).
        """
        wait = WAIT if wait is None else wait
        deadline = time.monotonic() + wait
        while True:
            now = datetime.now(UTC)
            was = self.current()
            if was is None or was.free(now):
                seq = 1 if was is None else was.seq + 1
                if self._write(seq, refresh, at, released=False):
                    self.seq, self.refresh, self.at = seq, refresh, at
                    self.renewed = time.monotonic()
                    self._prune(seq)
                    self._start()
                    return was
                if time.monotonic() < deadline:
                    continue  # another took it first: read it again
            if time.monotonic() >= deadline:
                if was is None or was.free(now):  # (taken under us each time)
                    raise StudyError(
                        f"{self.place.shown}: its lease could not be taken within {wait:g} s"
                        " (other refreshes took it first each time); try again"
                    )
                far = was.until - now > self.ttl * 2
                raise StudyError(
                    f"{self.place.shown} is being refreshed by {was.said()} (its lease);"
                    f" waited {wait:g} s. Try again after that time; a refresh that was"
                    f" killed holds the study until its lease ends ({_span(self.ttl)} after"
                    " its last renewal)"
                    + (
                        f". That end is further off than a lease lasts ({_span(self.ttl)}):"
                        " it was written by a machine whose clock is ahead, or by hand; if"
                        f" no refresh of the study runs, remove its {FOLDER} folder to free it"
                        if far
                        else ""
                    )
                )
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))

    def renew(self) -> None:
        """Renew the lease (before a commit: it is still this refresh's).

        Raises:
            StudyError: it was lost (expired, and another took it).
        """
        with self._lock:
            if self.lost is not None:
                raise self.lost
            if self.seq is None:
                raise StudyError("the study's lease is not held")
            if not self._write(self.seq + 1, self.refresh, self.at, released=False):
                self.lost = self._lost()
                raise self.lost
            self.seq += 1
            self.renewed = time.monotonic()

    def check(self) -> None:
        """Before a paid call: raise if the lease is lost, and renew it first if it was
        not renewed for a third of its time (the renewing thread did not run: the
        process was stopped, say, for longer than the lease, and another refresh may
        have taken it meanwhile; this one must not pay for pages it can never keep).

        Raises:
            StudyError: it was lost.
        """
        if self.lost is not None:
            raise self.lost
        if time.monotonic() - self.renewed > self.ttl.total_seconds() / 3 * 2:
            self.renew()

    def release(self) -> None:
        """Give the lease back (quietly: one lost meanwhile is another's now)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self.seq is not None and self.lost is None:
                with contextlib.suppress(StudyError):  # (it ends by itself at its expiry)
                    self._write(self.seq + 1, self.refresh, self.at, released=True)
            self.seq = None

    def _lost(self) -> StudyError:
        now = self.current()
        by = f" by {now.said()}" if now is not None else ""
        return StudyError(
            f"{self.place.shown}: this refresh lost its lease (it was not renewed within"
            f" {_span(self.ttl)}, and was taken{by}): nothing of it was kept; the pages it"
            " paid for are in the client's HTTP cache for the next refresh"
        )

    def _write(self, seq: int, refresh: str | None, at: str | None, *, released: bool) -> bool:
        """Write lease object ``seq``; False where it is there already, or a higher one is."""
        body = {
            "holder": self.me,
            "refresh": refresh,
            "at": at,
            "until": (datetime.now(UTC) + self.ttl).isoformat(),
            "released": released,
            "machine": machine(),
            "pid": os.getpid(),
        }
        name = f"{FOLDER}/{seq:020d}.json"
        try:
            self.place.put_new(name, json.dumps(body, sort_keys=True).encode())
        except Already:
            return False
        numbers = [int(m[1]) for n in self.place.listed(FOLDER) if (m := _NAME.fullmatch(n))]
        if numbers and max(numbers) > seq:  # (written from a list read long ago)
            self.place.remove(name)
            return False
        return True

    def _prune(self, seq: int) -> None:
        for name in self.place.listed(FOLDER):
            found = _NAME.fullmatch(name)
            if found and int(found[1]) < seq - KEPT:
                self.place.remove(f"{FOLDER}/{name}")

    def _start(self) -> None:
        self._stop.clear()
        self.lost = None
        interval = max(self.ttl.total_seconds() / 3, 0.05)

        def renewing() -> None:
            while not self._stop.wait(interval):
                try:
                    self.renew()
                except StudyError:
                    return  # (said at the commit, which renews once more)

        self._thread = threading.Thread(target=renewing, name="study-lease", daemon=True)
        self._thread.start()


def _parsed(seq: int, raw: bytes) -> State:
    """A lease object read; one that cannot be read counts as expired (it never blocks)."""
    try:
        value: Any = json.loads(raw)
        until = datetime.fromisoformat(value["until"])
        if until.tzinfo is None:
            raise ValueError("no zone")
        return State(
            seq=seq,
            holder=str(value.get("holder", "?"))[:200],
            refresh=value.get("refresh") if isinstance(value.get("refresh"), str) else None,
            at=value.get("at") if isinstance(value.get("at"), str) else None,
            until=until,
            released=value.get("released") is True,
            machine=value.get("machine") if isinstance(value.get("machine"), str) else None,
            pid=value.get("pid") if type(value.get("pid")) is int else None,
        )
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        epoch = datetime(1970, 1, 1, tzinfo=UTC)
        return State(seq, "?", None, None, epoch, released=False)


def _span(span: timedelta) -> str:
    seconds = span.total_seconds()
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"
