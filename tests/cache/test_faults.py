"""Disks and locks, for real: a full disk, read-only files and folders, a corrupt
file, a path that cannot be a folder, another process holding the write lock.

Each fault is made the way it happens on a user's machine: a file-size limit
(``RLIMIT_FSIZE``) stands for a full disk, ``chmod`` for read-only (as root,
which ignores modes, the client runs in a child process as ``nobody``), a
second process holds ``BEGIN EXCLUSIVE``. The sandbox answers over real HTTP.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

P82 = EXAMPLE_POSTS[82]  # two pages
ROOT = os.geteuid() == 0

# Run in a child: fetch P82 against the sandbox with the given cache, report as JSON.
CHILD = textwrap.dedent(
    """
    import json, os, resource, signal, sys, warnings
    import socialframe as sf
    import sqlite3, requests_cache.backends.sqlite  # before dropping rights
    from socialframe.sandbox import EXAMPLE_POSTS
    limit = int(os.environ.get("FSIZE", "0"))
    if limit:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full disk is an error, not a kill
    if os.environ.get("NOBODY"):
        # Whatever the run imports, imported while the checkout and the interpreter's
        # files (in a folder only root may read, perhaps) can still be read: every
        # module of the package, and one refused call down the whole path (a wrong
        # key: free, and nothing is stored).
        import importlib, pkgutil, tempfile
        for module in pkgutil.walk_packages(sf.__path__, "socialframe."):
            if module.name != "socialframe.__main__":
                importlib.import_module(module.name)
        with tempfile.TemporaryDirectory() as scratch:
            with sf.Client("wrong-key-0123456789", base_url=os.environ["URL"], cache=scratch,
                           progress=False) as warm_up:
                try:
                    warm_up.post_comments(EXAMPLE_POSTS[82])
                except sf.FetchError:
                    pass
        os.setgid(65534)
        os.setuid(65534)
    out = {}
    try:
        client = sf.Client(os.environ["KEY"], base_url=os.environ["URL"], cache=os.environ["CACHE"],
                           offline=os.environ.get("OFFLINE") == "1")
    except sf.ConfigError as exc:
        print(json.dumps({"config_error": str(exc)}))
        sys.exit(0)
    if limit:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    with client, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out["rows"] = len(client.post_comments(EXAMPLE_POSTS[82]))
        except sf.FetchError as exc:
            out["error"] = f"{type(exc).__name__}: {exc}"
        out["paid"] = client.ledger.paid_calls
        out["cached"] = client.ledger.cached_calls
    out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    print(json.dumps(out))
    """
)


def _child(sandbox: Sandbox, cache: Path, **env: str) -> dict[str, Any]:
    full = dict(os.environ, KEY=sandbox.api_key, URL=sandbox.url, CACHE=str(cache), **env)
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=full, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder every user can reach (pytest's tmp_path is private to its owner)."""
    folder = Path(tempfile.mkdtemp(prefix="sf-faults-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder)


def _fill(sandbox: Sandbox, folder: Path) -> Path:
    with sandbox.client(cache=folder) as client:
        client.post_comments(P82)
    return folder / "http_cache.sqlite"


def _read_only(path: Path) -> dict[str, str]:
    """Make ``path`` read-only for the child, the way it is for a user."""
    path.chmod(0o555 if path.is_dir() else 0o444)
    return {"NOBODY": "1"} if ROOT else {}


def test_a_full_disk_warns_and_still_returns_the_frame(sandbox: Sandbox, tmp_path: Path) -> None:
    folder = tmp_path / "c"
    with sandbox.client(cache=folder):
        pass  # the file and its tables exist; the pages do not fit any more
    # Before: rows returned, no word, and the next run paid again.
    out = _child(sandbox, folder, FSIZE=str(8 * 1024))
    assert out.get("rows") == 82 and out["paid"] == 2, out
    (warning,) = out["warnings"]
    assert warning.startswith("CacheWarning: 2 paid pages could not be stored")
    assert str(folder / "http_cache.sqlite") in warning and "disk is full" in warning, warning
    with sandbox.client(cache=folder) as client:  # nothing half-written: a clean miss
        assert len(client.post_comments(P82)) == 82 and client.ledger.paid_calls == 2


def test_a_read_only_cache_file_still_reads_and_warns_on_writes(
    sandbox: Sandbox, shared_dir: Path
) -> None:
    cache = _fill(sandbox, shared_dir / "c")
    env = _read_only(cache)
    offline = _child(sandbox, shared_dir / "c", OFFLINE="1", **env)
    assert offline == {"rows": 82, "paid": 0, "cached": 2, "warnings": []}, offline
    online = _child(sandbox, shared_dir / "c", **env)  # cached pages: nothing to store
    assert online["rows"] == 82 and online["paid"] == 0
    cache.chmod(0o644)
    with sqlite3.connect(cache) as con:  # lose the pages, keep the file read-only
        con.execute("DELETE FROM responses")
    cache.chmod(0o444)
    online = _child(sandbox, shared_dir / "c", **env)
    assert online.get("rows") == 82 and online["paid"] == 2, online
    (warning,) = online["warnings"]
    assert "2 paid pages could not be stored" in warning and "read-only" in warning


def test_a_read_only_folder_is_a_config_error(sandbox: Sandbox, shared_dir: Path) -> None:
    folder = shared_dir / "c"
    folder.mkdir()
    out = _child(sandbox, folder, **_read_only(folder))
    assert "config_error" in out, out
    assert str(folder / "http_cache.sqlite") in out["config_error"]
    assert "cache=False" in out["config_error"]


def test_a_corrupt_cache_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "http_cache.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(sf.ConfigError, match="not a SQLite database") as caught:
        sf.Client("k", base_url="http://127.0.0.1:9", cache=path)
    assert str(path) in str(caught.value) and "move or delete" in str(caught.value)


@pytest.mark.parametrize("below", ["inner", "sub/deeper/c.sqlite"])
def test_a_cache_path_through_a_file_is_a_config_error(tmp_path: Path, below: str) -> None:
    blocker = tmp_path / "blocker"  # a file where the cache wants a folder
    blocker.write_text("x")
    with pytest.raises(sf.ConfigError, match="blocker is a file, not a folder") as caught:
        sf.Client("k", base_url="http://127.0.0.1:9", cache=blocker / below)
    assert "choose another cache= path" in str(caught.value)
    assert blocker.read_text() == "x"


HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    con = sqlite3.connect(sys.argv[1], isolation_level=None)
    con.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    con.rollback()
    """
)


@pytest.fixture
def held_lock(sandbox: Sandbox, tmp_path: Path) -> Iterator[Path]:
    """A cache whose write lock another process holds for 30 s."""
    folder = tmp_path / "c"
    with sandbox.client(cache=folder) as client:
        client.post_comments(EXAMPLE_POSTS[50])  # the file exists, one page in it
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder / "http_cache.sqlite"), "30"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    try:
        yield folder
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_a_held_lock_delays_a_paid_call_a_bounded_time_then_warns(
    sandbox: Sandbox, held_lock: Path
) -> None:
    # Before: the call waited as long as the other process held the lock (20 s seen).
    # Now it gives up after the store's own bound (3 s) and warns.
    started = time.monotonic()
    with sandbox.client(cache=held_lock) as client:
        with pytest.warns(sf.CacheWarning, match="2 paid pages could not be stored.*lock"):
            frame = client.post_comments(P82)
        assert len(frame) == 82 and client.ledger.paid_calls == 2
        assert len(client.post_comments(EXAMPLE_POSTS[50])) == 50  # reads go on
        assert client.ledger.cached_calls == 1
    took = time.monotonic() - started
    assert took < 10, took  # a bound, not a speed target: the holder keeps it 30 s


def test_a_lock_folder_this_user_cannot_write_is_a_config_error(
    sandbox: Sandbox, shared_dir: Path
) -> None:
    """A shared cache whose lock folder another user made, that this one may not write:
    the cache could store pages, so locking would have switched itself off in silence
    (two processes then pay for the same page)."""
    if not ROOT:
        pytest.skip("needs root: the child must be another user than the folder's owner")
    folder = shared_dir / "c"
    cache = _fill(sandbox, folder)
    folder.chmod(0o777)
    cache.chmod(0o666)
    for journal in folder.glob("http_cache.sqlite-*"):
        journal.chmod(0o666)
    Path(f"{cache}.locks").chmod(0o755)  # root's
    out = _child(sandbox, folder, NOBODY="1")
    assert "config_error" in out, out
    assert "http_cache.sqlite.locks cannot be written" in out["config_error"], out
