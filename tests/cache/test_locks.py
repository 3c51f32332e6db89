"""Page locks that cannot stall a run: bounded waits, one warning naming the holder, a
lock folder taken by a file refused, a dead machine's Redis lock freed within seconds.

Through real processes: a second process holding the locks, a child killed with -9,
a real redis-server, the sandbox over HTTP.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]  # two pages

HOLD_EVERY_STRIPE = """
import contextlib, sys, time
from pathlib import Path
from socialframe._cache.locks import FileLocks

locks = FileLocks(Path(sys.argv[1]))
stripes = set()
with contextlib.ExitStack() as stack:
    n = 0
    while len(stripes) < FileLocks.STRIPES:  # as a process hung mid-fetch holds its page's
        key = f"k{n}"
        n += 1
        import hashlib
        stripe = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % FileLocks.STRIPES
        if stripe in stripes:
            continue
        assert stack.enter_context(locks.held(key, wait=5)) is None
        stripes.add(stripe)
    print("holding", flush=True)
    time.sleep(600)
"""


@pytest.mark.slow
def test_a_lock_held_by_a_hung_process_costs_one_wait_and_one_warning(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        sandbox.client(cache=cache).close()  # the file exists, as a shared cache's does
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_EVERY_STRIPE, str(cache)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
            with (
                sandbox.client(cache=cache, timeout=1.0, progress=False) as client,
                warnings.catch_warnings(record=True) as caught,
            ):
                warnings.simplefilter("always")
                frame = client.post_comments(P82)
        finally:
            holder.kill()
            holder.communicate()
    said = [str(w.message) for w in caught if w.category is sf.CacheWarning]
    assert len(said) == 1, said
    assert said[0].startswith("The cache's lock of 2 pages could not be had in the 2 s")
    assert f"(held by process {holder.pid} on " in said[0]
    assert "later pages waited at most 1 s" in said[0]
    assert len(frame) == 82 and client.ledger.paid_calls == 2


@pytest.mark.parametrize("taken", ["file", "link to nothing"])
def test_a_lock_folder_that_cannot_be_one_is_refused_before_any_call(
    tmp_path: Path, taken: str
) -> None:
    """Locking used to switch itself off, silently: every process sharing the cache
    would then pay for the same pages."""
    cache = tmp_path / "c.sqlite"
    locks = Path(f"{cache}.locks")
    if taken == "file":
        locks.write_text("not a folder")
    else:
        locks.symlink_to(tmp_path / "gone")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        with pytest.raises(sf.ConfigError, match=rf"c\.sqlite\.locks is a {taken}"):
            sandbox.client(cache=cache)
        assert sandbox.charges == 0


MACHINE = """
import os, sys
import socialframe as sf
with sf.Client(os.environ["KEY"], base_url=os.environ["URL"], cache=os.environ["TEAM"]) as c:
    c.post_comments(sys.argv[1])
"""


@pytest.mark.slow
def test_the_lock_of_a_machine_that_died_frees_itself_within_seconds(
    team: str, tmp_path: Path
) -> None:
    """A machine is killed (-9) while it fetches a page: its lock in the team's Redis
    expires within seconds, so the next machine does not wait out the call's deadline."""
    import redis

    r = redis.Redis.from_url(team)
    with Sandbox(seed=0, latency=3.0, clock=PinnedClock()) as sandbox:
        env = dict(os.environ, KEY=sandbox.api_key, URL=sandbox.url, TEAM=team)
        env["SOCIALFRAME_CACHE_DIR"] = str(tmp_path / "local")
        machine = subprocess.Popen([sys.executable, "-c", MACHINE, P82], env=env)
        deadline = time.monotonic() + 60
        while not list(r.scan_iter(match="socialframe:lock:*")):
            assert time.monotonic() < deadline and machine.poll() is None
            time.sleep(0.05)
        os.kill(machine.pid, signal.SIGKILL)  # dies holding page 1's lock
        machine.wait()
        started = time.monotonic()
        with sandbox.client(cache=team, progress=False) as client:
            frame = client.post_comments(P82)
        took = time.monotonic() - started
    assert len(frame) == 82
    # The lock lived at most 10 s more, then two pages of 3 s: far below the 120 s a page
    # waited for a dead machine's lock before (a bound, not a speed figure).
    assert took < 45, took


def test_every_user_sharing_the_folder_can_take_every_lock(tmp_path: Path) -> None:
    """Found by the second review: lock files were made 0644 (the creator's umask), so
    a teammate sharing the cache folder could take none, and paid twice in silence."""
    import stat

    cache = tmp_path / "c.sqlite"
    old = os.umask(0o022)
    try:
        with (
            Sandbox(seed=0, clock=PinnedClock()) as sandbox,
            sandbox.client(cache=cache, progress=False) as client,
        ):
            client.post_comments(P82)
    finally:
        os.umask(old)
    modes = {stat.S_IMODE(p.stat().st_mode) for p in Path(f"{cache}.locks").glob("*.lock")}
    assert modes == {0o666}
