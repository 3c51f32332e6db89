"""The team cache when its Redis fails: killed, restarted, frozen, slow, or refusing the
password, while a fetch meets the service's 5xx and ``success: false`` answers.

Each test starts a redis-server of its own (``tests/servers.py``) that it may kill, on a
free loopback port, and the sandbox over real HTTP. Whatever Redis does, a fetch raises
only socialframe's errors and warns only socialframe's warnings, hands back what it paid
for (its frame, or its error's ``.partial``), never pays for a page twice, and a re-run
after Redis is back pays only for the pages Redis does not hold.

The runs are seeded: the moment Redis dies is the arrival of the n-th request at the
sandbox (plus a few ms), n drawn from the seed, as are the sandbox's faults.
"""

from __future__ import annotations

import math
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pandas as pd
import pytest
from servers import running_redis, start_redis

import socialframe as sf
from socialframe.sandbox import PinnedClock, Sandbox, comment_total

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

BASE = 7_384_427_202_391_592_960
POSTS = [str(BASE + k) for k in (0, 4, 7, 3, 8)]  # 82, 51, 120, 50 and 82 comments
PAGES = {
    (post, str(n)) for post in POSTS for n in range(1, math.ceil(comment_total(post) / 50) + 1)
}
#: Every write is on disk before Redis answers it: a page Redis said it stored survives
#: its kill -9, so a re-run can be held to paying only for what it did not store.
DURABLE = ("--appendonly", "yes", "--appendfsync", "always")
PASSWORD = "pw-0f9e8d7c6b5a-secret"


def _charged(sandbox: Sandbox, since: int = 0) -> list[tuple[str, str]]:
    """The pages the sandbox charged for, from its ``since``-th request on."""
    return [
        (r.params["urn"], r.params.get("page", "1"))
        for r in sandbox.requests[since:]
        if r.charged and r.path.endswith("get-profile-posts-comments")
    ]


def _rows(pages: Iterator[tuple[str, str]] | list[tuple[str, str]]) -> Counter[str]:
    """The comments the pages hold, per post."""
    rows: Counter[str] = Counter()
    for post, page in pages:
        rows[post] += min(50, comment_total(post) - 50 * (int(page) - 1))
    return rows


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo = [exc]
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        todo += [error.__cause__, error.__context__]


def _frames(exc: BaseException) -> Iterator[Any]:
    """Every frame of the tracebacks of ``exc`` and of what it carries, but the test's
    own (which holds what it gave)."""
    for error in _chain(exc):
        tb: TracebackType | None = error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename != __file__:
                yield tb.tb_frame
            tb = tb.tb_next


def _shown(value: object) -> str:
    try:
        return repr(value)
    except Exception as exc:  # a half-built object
        return f"<unreprable {type(exc).__name__}>"


def _assert_hidden(exc: BaseException, secret: str) -> None:
    """``secret`` is in no message, repr or local of any frame ``exc`` carries."""
    for error in _chain(exc):
        assert secret not in str(error) and secret not in repr(error)
    for frame in _frames(exc):
        for name, value in frame.f_locals.items():
            assert secret not in _shown(value), (frame.f_code.co_name, name)


def _assert_ours(error: BaseException | None, caught: list[warnings.WarningMessage]) -> None:
    """No redis-py error raised or carried along, only socialframe's warnings."""
    if error is not None:
        assert isinstance(error, sf.FetchError), repr(error)
        for link in _chain(error):
            assert not type(link).__module__.startswith("redis"), repr(link)
    for warning in caught:
        assert issubclass(warning.category, sf.CacheWarning | sf.SkippedWarning), warning
        assert "redis.exceptions" not in str(warning.message)


def _fetch(client: sf.Client, on_error: Any) -> tuple[pd.DataFrame, Any, list[Any]]:
    """The frame the fetch handed back (its error's ``.partial`` if it raised), the
    error, and the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            frame = client.post_comments(POSTS, on_error=on_error)
            error = None
        except sf.SocialFrameError as exc:
            error = exc
            frame = getattr(exc, "partial", None)
    if frame is None:
        frame = pd.DataFrame({"post": pd.Series([], dtype="string")})
    return frame, error, caught


def _unstored(caught: list[Any]) -> int:
    """Pages the warnings said were paid but could not be stored."""
    found = (re.search(r"(\d+) paid pages? could not be stored", str(w.message)) for w in caught)
    return sum(int(m.group(1)) for m in found if m)


def _stored_pages(url: str) -> int:
    """The pages the team cache holds, as its report counts them (a client of its own)."""
    with sf.Client("k", base_url="http://127.0.0.1:9", cache=url, offline=True) as reader:
        return int(reader.cache_report()["pages"].sum())


def _forget_locks(url: str) -> None:
    """The locks the killed run held live on with its Redis' data, until their TTL
    (10 s): a machine coming back would wait that long; the test does not."""
    import redis

    r = redis.Redis.from_url(url)
    for key in r.scan_iter(match=b"socialframe:lock:*"):
        r.delete(key)
    r.close()


class _When:
    """``act()`` once the sandbox received its ``requests``-th request, ``delay`` s later,
    or as soon as :meth:`set` is called, whichever comes first; :meth:`set` returns once
    it is done (a Redis restarted or stopped by it is never left behind)."""

    def __init__(self, sandbox: Sandbox, requests: int, delay: float, act: Any) -> None:
        self._done = threading.Event()

        def watch() -> None:
            while len(sandbox.requests) < requests and not self._done.wait(0.001):
                pass
            time.sleep(delay)
            act()

        self._thread = threading.Thread(target=watch, daemon=True)
        self._thread.start()

    def set(self) -> None:
        self._done.set()
        self._thread.join(timeout=30)


def _recheck(
    sandbox: Sandbox, url: str, charged_before: list[tuple[str, str]], unstored: int
) -> None:
    """A re-run on the Redis that came back: it completes, and pays for exactly the pages
    Redis does not hold; a page paid twice is one the first run said it could not store."""
    _forget_locks(url)
    stored = _stored_pages(url)
    since = len(sandbox.requests)
    sandbox.fault_rate = 0.0
    with sandbox.client(cache=url, backoff=0.01, progress=False) as again:
        frame = again.post_comments(POSTS)
        assert again.ledger.cached_calls == stored
        assert again.ledger.paid_calls == len(_charged(sandbox, since))
    charged = _charged(sandbox, since)
    assert len(charged) == len(set(charged)) == len(PAGES) - stored
    assert frame.groupby("post").size().to_dict() == {p: comment_total(p) for p in POSTS}
    paid_twice = set(charged) & set(charged_before)
    assert len(paid_twice) <= unstored, (paid_twice, unstored)


@pytest.mark.parametrize("seed", range(40))
def test_redis_killed_at_a_random_moment_raises_nothing_raw_and_pays_once(
    tmp_path: Path, seed: int
) -> None:
    draw = random.Random(seed)
    on_error = ("skip", "raise")[seed % 2]
    at, delay = draw.randint(1, len(PAGES)), draw.uniform(0, 0.03)
    workers, rate_limit = draw.choice([1, 3]), draw.choice([None, 500])
    with (
        running_redis(tmp_path, *DURABLE) as (server, url),
        Sandbox(seed=seed, fault_rate=0.25, latency=0.02, clock=PinnedClock()) as sandbox,
    ):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with sandbox.client(
            cache=url,
            max_retries=2,
            backoff=0.01,
            workers=workers,
            rate_limit=rate_limit,
            progress=False,
        ) as client:
            done = _When(sandbox, at, delay, server.kill)
            started = time.monotonic()
            try:
                frame, error, caught = _fetch(client, on_error)
            finally:
                done.set()
            took = time.monotonic() - started
            paid = client.ledger.paid_calls
        server.wait(timeout=10)
        _assert_ours(error, caught)
        assert took < 30
        charged = _charged(sandbox)
        assert len(charged) == len(set(charged)) == paid == sandbox.charges  # each page once
        # What was paid for is handed back: every page, or (skip) every page of the
        # items kept; a skipped item's pages are in the cache, or said to be lost.
        skipped = {row["item"] for row in frame.attrs.get("failed", [])}
        expected = _rows(page for page in charged if page[0] not in skipped)
        assert frame.groupby("post").size().to_dict() == dict(expected)
        if error is None and not skipped:
            assert set(charged) == PAGES
        again, _ = start_redis(tmp_path, *DURABLE, port=port)
        try:
            _recheck(sandbox, url, charged, _unstored(caught))
        finally:
            again.kill()
            again.wait(timeout=10)


@pytest.mark.parametrize("seed", range(8))
def test_redis_restarted_mid_run_is_found_again(tmp_path: Path, seed: int) -> None:
    draw = random.Random(1000 + seed)
    at, delay = draw.randint(1, len(PAGES) - 2), draw.uniform(0, 0.03)
    with (
        running_redis(tmp_path, *DURABLE) as (server, url),
        Sandbox(seed=seed, fault_rate=0.2, latency=0.02, clock=PinnedClock()) as sandbox,
    ):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        back: list[subprocess.Popen[bytes]] = []

        def restart() -> None:
            server.kill()
            server.wait(timeout=10)
            time.sleep(0.3)
            back.append(start_redis(tmp_path, *DURABLE, port=port)[0])

        try:
            # The retries' waits (0.2, 0.4, ... 6.4 s: 12.6 s) outlast the outage, a
            # redis-server started again on a machine busy with pytest -n: the run goes on.
            with sandbox.client(
                cache=url, max_retries=6, backoff=0.2, workers=2, progress=False
            ) as client:
                done = _When(sandbox, at, delay, restart)
                try:
                    frame, error, caught = _fetch(client, "raise")
                finally:
                    done.set()  # (the restart is done: its server is in `back`)
                paid = client.ledger.paid_calls
            _assert_ours(error, caught)
            assert error is None, error
            assert frame.groupby("post").size().to_dict() == {p: comment_total(p) for p in POSTS}
            charged = _charged(sandbox)
            assert len(charged) == len(set(charged)) == paid == sandbox.charges
            assert set(charged) == PAGES
            _recheck(sandbox, url, charged, _unstored(caught))
        finally:
            for process in back:
                process.kill()
                process.wait(timeout=10)


@pytest.mark.parametrize("on_error", ["skip", "raise"])
def test_a_frozen_redis_ends_the_fetch_in_bounded_time(tmp_path: Path, on_error: Any) -> None:
    """Redis stopped (SIGSTOP: it accepts connections and never answers) mid-run, with
    ``?socket_timeout=`` in the URL: each command waits that long at most, then the cache
    counts as down for a second (commands fail at once); the fetch ends with
    socialframe's errors, and once Redis goes on, a re-run pays only for what it lacks."""
    with (
        running_redis(tmp_path, *DURABLE) as (server, url),
        Sandbox(seed=3, fault_rate=0.2, latency=0.02, clock=PinnedClock()) as sandbox,
    ):
        frozen = f"{url}?socket_timeout=0.3"
        with sandbox.client(cache=frozen, max_retries=2, backoff=0.01, progress=False) as c:
            done = _When(sandbox, 4, 0.01, lambda: os.kill(server.pid, signal.SIGSTOP))
            started = time.monotonic()
            try:
                frame, error, caught = _fetch(c, on_error)
            finally:
                done.set()
                os.kill(server.pid, signal.SIGCONT)  # (whatever happened: it can be stopped)
            took = time.monotonic() - started
        _assert_ours(error, caught)
        assert error is not None or frame.attrs.get("failed"), "the outage went unnoticed"
        said = str(error) if error else str(frame.attrs["failed"])
        assert "did not answer in time" in said or "stopped answering" in said, said
        assert took < 20, took
        charged = _charged(sandbox)
        assert len(charged) == len(set(charged)) == sandbox.charges
        _recheck(sandbox, url, charged, _unstored(caught))


def test_a_slow_redis_within_the_timeout_changes_nothing(tmp_path: Path) -> None:
    """Redis busy for 0.2 s at a time (``DEBUG SLEEP``) all through the run: slower, and
    the same frame, payments and cache as with a quick one; nothing is said."""
    import redis

    with (
        running_redis(tmp_path, "--enable-debug-command", "yes") as (_, url),
        Sandbox(seed=1, latency=0.01, clock=PinnedClock()) as sandbox,
    ):
        stop = threading.Event()
        busy = redis.Redis.from_url(url)

        def stall() -> None:
            while not stop.wait(0.1):
                busy.execute_command("DEBUG", "SLEEP", "0.2")

        staller = threading.Thread(target=stall, daemon=True)
        staller.start()
        try:
            with (
                sandbox.client(cache=url, workers=3, progress=False) as c,
                warnings.catch_warnings(),
            ):
                warnings.simplefilter("error")
                frame = c.post_comments(POSTS)
        finally:
            stop.set()
            staller.join(timeout=10)
        assert frame.groupby("post").size().to_dict() == {p: comment_total(p) for p in POSTS}
        assert c.ledger.paid_calls == sandbox.charges == len(PAGES)
        assert _stored_pages(url) == len(PAGES)


def test_a_failing_request_in_flight_when_redis_dies_is_no_raw_error(tmp_path: Path) -> None:
    """The case found: Redis killed while a 503 is in flight. requests-cache deletes the
    refused answer's key through the backend, and that raised redis-py's ConnectionError
    (no ``.partial``). Now the 503 is retried, the next read finds Redis gone, and the
    run ends with a NetworkError (raise) or a skipped item (skip)."""
    with (
        running_redis(tmp_path) as (server, url),
        Sandbox(latency=0.3, clock=PinnedClock()) as sandbox,
    ):
        with sandbox.client(cache=url, max_retries=1, backoff=0.01, progress=False) as c:
            first = c.post_comments(POSTS[3])  # one page, stored
            sandbox.inject(503, 503, 503, 503)
            threading.Timer(0.15, server.kill).start()
            frame, error, caught = _fetch(c, "skip")
            _assert_ours(error, caught)
            assert error is None and len(frame) == 50 and len(first) == 50  # the cached one
            assert {row["item"] for row in frame.attrs["failed"]} == set(POSTS) - {POSTS[3]}
            assert all(row["error"] == "NetworkError" for row in frame.attrs["failed"])
            frame, error, caught = _fetch(c, "raise")
            _assert_ours(error, caught)
            assert isinstance(error, sf.NetworkError) and "stopped answering" in str(error)
            assert error.partial is not None and len(error.partial) == 0  # nothing before it
        assert c.ledger.paid_calls == sandbox.charges == 1


def test_a_wrong_password_is_never_shown(tmp_path: Path) -> None:
    """Neither in the message, nor in any repr or local of any frame the error carries
    (a crash reporter shows them all), in either place a URL holds a password."""
    with running_redis(tmp_path, "--requirepass", PASSWORD) as (_, url):
        where = url.removeprefix("redis://")
        wrong = "wrong-" + PASSWORD
        for bad in (f"redis://:{wrong}@{where}", f"redis://{where}?password={wrong}"):
            with pytest.raises(sf.ConfigError, match="cannot reach the team cache") as caught:
                sf.Client("k", base_url="http://127.0.0.1:9", cache=bad)
            assert "refused the password" in str(caught.value)
            _assert_hidden(caught.value, wrong)
            assert "redis://***@" in str(caught.value) or "?" not in str(caught.value)


def test_a_password_refused_mid_run_is_never_shown(tmp_path: Path) -> None:
    """The password changed on the server and the connections cut: the next fetch stops
    with a NetworkError that shows no password (the old one is the client's)."""
    import redis

    with (
        running_redis(tmp_path, "--requirepass", PASSWORD) as (_, url),
        Sandbox(clock=PinnedClock()) as sandbox,
    ):
        team = url.replace("redis://", f"redis://:{PASSWORD}@")
        with sandbox.client(cache=team, max_retries=1, backoff=0.01, progress=False) as c:
            assert len(c.post_comments(POSTS[0])) == 82
            admin = redis.Redis.from_url(team)
            admin.config_set("requirepass", "another-" + PASSWORD)
            admin.client_kill_filter(_type="normal", skipme=True)
            admin.close()
            frame, error, caught = _fetch(c, "raise")
            _assert_ours(error, caught)
            assert isinstance(error, sf.NetworkError), error
            assert "refused the password" in str(error)
            _assert_hidden(error, PASSWORD)
            assert PASSWORD not in repr(c) and PASSWORD not in repr(c.session.cache)
        assert c.ledger.paid_calls == sandbox.charges == 2


def test_the_cache_commands_on_a_dead_team_cache_say_so(tmp_path: Path) -> None:
    """The library's report on a Redis that died after the client was built is a
    NetworkError; ``cache info``, ``report`` and ``clear`` (expiry included) on one that is
    gone fail in one line, no traceback, no password."""
    with running_redis(tmp_path, "--requirepass", PASSWORD) as (server, url):
        team = url.replace("redis://", f"redis://:{PASSWORD}@")
        with sf.Client("k", base_url="http://127.0.0.1:9", cache=team, offline=True) as c:
            assert len(c.cache_report()) == 0
            server.kill()
            server.wait(timeout=10)
            with pytest.raises(sf.NetworkError, match="stopped answering") as caught:
                c.cache_report()
            _assert_hidden(caught.value, PASSWORD)
        for command in (
            ["info"],
            ["report"],
            ["clear", "--yes"],
            ["clear", "--expired", "--yes"],
        ):
            # (a command opens the cache first: a Redis gone by then is a setting to fix)
            run = subprocess.run(
                [sys.executable, "-m", "socialframe", "cache", *command, "--cache", team],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert run.returncode == 2, (command, run.stderr)
            assert "cannot reach the team cache at redis://***@127.0.0.1" in run.stderr
            assert "stopped answering" in run.stderr and "Traceback" not in run.stderr
            assert PASSWORD not in run.stderr + run.stdout


def test_cache_clear_on_a_team_cache_that_refuses_deletes_says_why(tmp_path: Path) -> None:
    """requests-cache's delete goes through the backend's best-effort delete (an entry of
    a refused answer need not go); ``cache clear`` checks what is left and says why."""
    import redis

    with (
        running_redis(tmp_path) as (_, url),
        Sandbox(clock=PinnedClock()) as sandbox,
    ):
        with sandbox.client(cache=url, progress=False) as c:
            c.post_comments(POSTS[:2])
        admin = redis.Redis.from_url(url)
        admin.execute_command(
            "ACL", "SETUSER", "keeper", "on", f">{PASSWORD}", "~*", "&*", "+@all", "-del", "-unlink"
        )
        admin.close()
        keeper = url.replace("redis://", f"redis://keeper:{PASSWORD}@")
        run = subprocess.run(
            [sys.executable, "-m", "socialframe", "cache", "clear", "--yes", "--cache", keeper],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 5, run.stderr
        assert "4 of 4 pages could not be removed" in run.stderr, run.stderr
        assert "refused a command (NoPermissionError" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr and PASSWORD not in run.stderr + run.stdout
        assert _stored_pages(url) == 4


def test_every_call_on_the_backend_with_redis_gone_is_ours(tmp_path: Path) -> None:
    """requests-cache's whole backend interface (what the session, the report and a
    user holding ``client.session.cache`` may call) on a Redis that was killed: each
    call raises a NetworkError, or (a write, a delete) keeps going and says why."""
    with (
        running_redis(tmp_path) as (server, url),
        Sandbox(clock=PinnedClock()) as sandbox,
        sandbox.client(cache=url, progress=False) as client,
    ):
        client.post_comments(POSTS[3])
        backend: Any = client.session.cache
        stored = next(iter(backend.responses.keys()))
        page = backend.get_response(stored)
        server.kill()
        server.wait(timeout=10)
        reads = {
            "get_response": lambda: backend.get_response(stored),
            "contains": lambda: backend.contains(key=stored),
            "keys": lambda: list(backend.responses.keys()),
            "len": lambda: len(backend.responses),
            "filter (expiry)": lambda: list(backend.filter(expired=True)),
            "urls": lambda: backend.urls(),
            "redirects": lambda: list(backend.redirects.keys()),
            "lock": lambda: backend.responses.connection.lock("x", timeout=1).acquire(),
            "report": client.cache_report,
        }
        for name, call in reads.items():
            with pytest.raises(sf.NetworkError, match="stopped answering") as caught:
                call()
            _assert_ours(caught.value, [])
            assert caught.value.__context__ is None, name
        backend.save_response(page, stored)  # a write: counted, not raised
        backend.delete(stored)  # a delete: best effort, its reason kept
        backend.delete(expired=True)
        assert "stopped answering" in backend.failures.take()[1]
        assert "stopped answering" in backend.take_undeleted()
        with pytest.raises(NotImplementedError):
            backend.responses.connection.pipeline()  # (it would go around the guard)


class _Garbling:
    """A TCP relay in front of a real redis-server that, once :attr:`garbage` is set,
    answers every command with it instead (what a Redis with a broken network card, a
    proxy gone wrong, or another program on the port sends)."""

    def __init__(self, url: str) -> None:
        import socket
        from urllib.parse import urlsplit

        behind = urlsplit(url)
        self._to = (behind.hostname or "127.0.0.1", behind.port or 6379)
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.url = f"redis://127.0.0.1:{self._listener.getsockname()[1]}/0"
        self.garbage: bytes | None = None
        self._open: list[Any] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            try:
                near, _ = self._listener.accept()
            except OSError:
                return
            far = socket.create_connection(self._to)
            self._open += [near, far]
            threading.Thread(target=self._ask, args=(near, far), daemon=True).start()
            threading.Thread(target=self._pass, args=(far, near), daemon=True).start()

    def _ask(self, near: Any, far: Any) -> None:
        try:
            while data := near.recv(65536):
                if self.garbage is None:
                    far.sendall(data)
                else:
                    near.sendall(self.garbage)
        except OSError:
            pass

    def _pass(self, far: Any, near: Any) -> None:
        try:
            while data := far.recv(65536):
                near.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        self._listener.close()
        for each in self._open:
            each.close()


#: Answers no Redis gives: each raised a raw error out of redis-py's parser (a
#: RecursionError, a ValueError, an AttributeError), not a NetworkError.
GARBAGE = {
    "nested a hundred thousand deep": b"*1\r\n" * 100_000 + b":1\r\n",
    "a number that is none": b":notanumber\r\n",
    "a length that is none": b"$-5x\r\n",
    "a type RESP2 has not": b"=15\r\ntxt:hello world\r\n",
    "bytes of no protocol": b"\x00\xffgarbage\r\n",
}


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_a_redis_that_answers_garbage_raises_nothing_raw(tmp_path: Path, garbage: bytes) -> None:
    """Whatever comes back on the socket, at the start or mid-run, is socialframe's
    error: a ConfigError as the client is built, a NetworkError keeping what was fetched
    (``.partial``) during a fetch; the service is paid for nothing twice."""
    with (
        running_redis(tmp_path) as (_, url),
        Sandbox(clock=PinnedClock()) as sandbox,
    ):
        relay = _Garbling(url)
        try:
            relay.garbage = garbage
            with pytest.raises(sf.ConfigError, match="cannot reach the team cache"):
                sf.Client("k", base_url="http://127.0.0.1:9", cache=relay.url)
            relay.garbage = None
            with sandbox.client(cache=relay.url, backoff=0.01, progress=False) as c:
                first = c.post_comments(POSTS[3])
                relay.garbage = garbage
                frame, error, caught = _fetch(c, "raise")
                _assert_ours(error, caught)
                assert isinstance(error, sf.NetworkError), error
                assert "team cache" in str(error) and error.partial is not None
                frame, error, caught = _fetch(c, "skip")
                _assert_ours(error, caught)
            assert len(first) == 50 and c.ledger.paid_calls == sandbox.charges == 1
        finally:
            relay.close()
