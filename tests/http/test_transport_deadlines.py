"""Call deadlines: one watcher thread for every call, safe across fork, holding nothing.

The watcher shuts a call's socket when its ``timeout`` passes. It must never
shut a socket that belongs to someone else: the parent's (in a forked child),
or the next call's (once a finished call's connection is back in the pool).
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from typing import Any

import pytest

import socialframe as sf
from socialframe._http.transport import _WATCH, _Deadline
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox


class _Socket:
    def __init__(self) -> None:
        self.shut = False

    def shutdown(self, how: int) -> None:
        self.shut = True


class _Connection:
    def __init__(self) -> None:
        self.sock = _Socket()


def _in_child(check: Any) -> str:
    """Run ``check()`` in a forked child; its text result, or the error it met."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            result = str(check())
        except BaseException as exc:  # report, never return into pytest
            result = f"error: {exc!r}"
        os.write(write, result.encode())
        os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 15)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            return "the child hung"
        time.sleep(0.05)
        return os.read(read, 4096).decode()
    finally:
        os.close(read)
        os.waitpid(pid, 0)


@pytest.mark.slow
def test_a_forked_child_never_fires_the_parents_deadlines() -> None:
    parents = _Deadline(0.3)
    parents.connection = _Connection()
    _WATCH.add(time.monotonic() + 0.3, parents)  # a parent's call in flight

    def child() -> str:
        _WATCH.add(time.monotonic() + 0.01, _Deadline(None))  # the child's own watcher
        time.sleep(0.6)
        return f"heap={len(_WATCH._heap)} fired={parents.passed.is_set()} shut={parents.connection.sock.shut}"

    assert _in_child(child) == "heap=0 fired=False shut=False"
    time.sleep(0.4)
    assert parents.passed.is_set()  # in the parent it does fire: its own call


def test_a_forked_child_does_not_inherit_a_held_watch_lock() -> None:
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with _WATCH._ready:
            held.set()
            release.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(5)
    try:

        def child() -> str:
            got = _WATCH._ready.acquire(timeout=2)
            return f"acquired={got}"

        assert _in_child(child) == "acquired=True"  # before: the child hung on it
    finally:
        release.set()
        thread.join()


def test_a_connection_back_in_its_pool_is_never_cut() -> None:
    deadline = _Deadline(10)
    connection = _Connection()
    deadline.connection = connection
    deadline.release(connection)  # urllib3 took it back: the next call may use it now
    deadline.cut()  # the deadline passes before the call itself ends
    assert not connection.sock.shut
    assert deadline.released and deadline.connection is None


def test_finished_calls_leave_nothing_in_the_watch(sandbox: Sandbox) -> None:
    with sandbox.client(cache=False, progress=False) as client:
        client.post_comments(EXAMPLE_POSTS[2345])  # 47 calls, each with a deadline
    finished = [entry[2] for entry in list(_WATCH._heap) if entry[2].over]
    assert len(finished) >= 47  # waiting for their time (60 s) in the heap...
    assert all(d.response is None and d.connection is None for d in finished)  # ...empty


def test_real_calls_release_their_connection_before_they_end(sandbox: Sandbox) -> None:
    released = []
    original = _Deadline.release

    def spy(self: _Deadline, connection: Any) -> None:
        released.append(connection is self.connection)
        original(self, connection)

    _Deadline.release = spy  # type: ignore[method-assign]
    try:
        with sandbox.client(cache=False, progress=False) as client:
            client.post_comments(EXAMPLE_POSTS[82])
    finally:
        _Deadline.release = original  # type: ignore[method-assign]
    assert released == [True, True]  # each call's own connection, detached as it went back


def test_a_forked_child_does_not_wait_for_the_parents_budget_holds() -> None:
    ledger = sf.Ledger(max_cost_cents=1)
    held = ledger.reserve()  # the parent's call in flight holds the last cent
    assert held is not None

    def child() -> str:
        return f"reserved={ledger.reserve(wait=10) is not None}"

    assert _in_child(child) == "reserved=True"  # before: waited forever for that cent
    assert ledger.reserve(wait=0.05) is None  # in the parent it is still held
    ledger.release(held)
