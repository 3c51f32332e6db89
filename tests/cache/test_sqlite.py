"""The SQLite cache file: pages an earlier version paid for keep serving for free (the
migration rewrites socialframe's pages only, whole or not at all), and a database of
another program is refused and left as it was.

Through real parts: the sandbox over HTTP, real SQLite files, the real console script.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import socialframe as sf
from socialframe._cache import sqlite as _store
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]  # two pages
#: The first bytes of every page socialframe stores (the format's name and version): written
#: out, so a change of the stored format fails here.
MAGIC = b"socialframe-page/1\n"


def _page_keys_sqlite(path: Path) -> list[str]:
    with sqlite3.connect(path) as con:
        return [row[0] for row in con.execute("SELECT key FROM responses ORDER BY key")]


def _fetch(sandbox: Sandbox, cache: Any, **kwargs: Any) -> tuple[pd.DataFrame, sf.Client]:
    with sandbox.client(cache=cache, progress=False, **kwargs) as client:
        frame = client.post_comments(P82)
    return frame, client


def _legacy_cache(sandbox: Sandbox, path: Path) -> list[str]:
    """A cache file as the earlier version wrote it: socialframe's whole pipeline (its
    hooks, filter and keys) with requests-cache's default pickle serializer, pages fetched
    over HTTP, and the file's format version left at requests-cache's 0."""
    from requests_cache.serializers import init_serializer

    with sandbox.client(cache=path, progress=False) as old:
        old.session.cache.responses.serializer = init_serializer("pickle", False)  # type: ignore[attr-defined]
        old.post_comments(P82)
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA user_version=0")
        values = [row[0] for row in con.execute("SELECT value FROM responses")]
    assert len(values) == 2 and all(v.startswith(b"\x80") for v in values)  # pickles
    return _page_keys_sqlite(path)


def test_pages_an_earlier_version_paid_for_keep_serving_for_free(tmp_path: Path) -> None:
    cache = tmp_path / "old.sqlite"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        keys = _legacy_cache(sandbox, cache)
        paid_before = sandbox.charges
        frame, client = _fetch(sandbox, cache)
        assert sandbox.charges == paid_before
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (0, 2)
    assert len(frame) == 82
    assert _page_keys_sqlite(cache) == keys  # the same keys
    with sqlite3.connect(cache) as con:  # migrated once, in place
        values = [row[0] for row in con.execute("SELECT value FROM responses")]
        assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    assert all(v.startswith(MAGIC) for v in values)


@pytest.mark.slow
def test_old_pages_are_read_as_data_where_the_file_cannot_be_migrated(tmp_path: Path) -> None:
    """Another process holds the file's write lock while the client opens it: the pages
    stay pickled, and are read one by one by the unpickler that admits no class (an
    object planted among them runs nothing, and is a miss)."""
    cache = tmp_path / "old.sqlite"
    proof = tmp_path / "owned"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _legacy_cache(sandbox, cache)
        with sqlite3.connect(cache) as con:
            con.execute(
                "INSERT INTO responses (key, value) VALUES (?, ?)",
                ("ffff000000000001", pickle.dumps(Planted(proof))),
            )
        holder = sqlite3.connect(cache, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            with sandbox.client(cache=cache, progress=False, offline=True) as client:
                frame = client.post_comments(P82)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (0, 2) and len(frame) == 82
    with sqlite3.connect(cache) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == 0  # not migrated
        (planted,) = con.execute("SELECT value FROM responses WHERE key='ffff000000000001'")
    with (
        sf.Client(offline=True, base_url="http://127.0.0.1:9", cache=cache) as reader,
        pytest.warns(sf.CacheWarning, match="1 entry"),
    ):
        assert reader.session.cache.get_response("ffff000000000001") is None  # type: ignore[attr-defined]
        reader.cache_report()
    assert not proof.exists() and planted[0].startswith(b"\x80")


@pytest.mark.slow
def test_a_table_of_another_program_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    cache = tmp_path / "other.sqlite"
    with sqlite3.connect(cache) as con:
        con.execute("CREATE TABLE responses (id INTEGER, data TEXT)")
        con.execute("INSERT INTO responses VALUES (1, 'theirs')")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        with pytest.raises(sf.ConfigError, match="not a socialframe cache.*columns data, id"):
            sandbox.client(cache=cache)
        assert sandbox.charges == 0
    with sqlite3.connect(cache) as con:
        columns = [row[1] for row in con.execute("PRAGMA table_info(responses)")]
    assert columns == ["id", "data"]  # no column added to someone else's table
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "cache", "info", "--cache", str(cache)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "not a socialframe cache" in done.stderr
    assert "Traceback" not in done.stderr


READER = """
import os, sys
import socialframe as sf
with sf.Client(offline=True, base_url=sys.argv[3], cache=sys.argv[1],
               progress=False) as client:
    frame = client.post_comments(sys.argv[2].split(","))
print(len(frame), client.ledger.paid_calls, client.ledger.cached_calls)
"""


@pytest.mark.slow
def test_processes_opening_an_old_cache_at_once_all_read_it_for_free(tmp_path: Path) -> None:
    """Several processes meet an old (pickled) cache at once: one migrates it in a
    transaction, the others wait or read the old pages as data; none loses a page."""
    from requests_cache.serializers import init_serializer

    cache = tmp_path / "old.sqlite"
    posts = [EXAMPLE_POSTS[n] for n in (50, 51, 82, 2345)]
    with (
        Sandbox(seed=0, clock=PinnedClock()) as sandbox,
        sandbox.client(cache=cache, progress=False) as old,
    ):
        old.session.cache.responses.serializer = init_serializer("pickle", False)  # type: ignore[attr-defined]
        expected = len(old.post_comments(posts))
        pages = old.ledger.paid_calls
    with sqlite3.connect(cache) as con:
        con.execute("PRAGMA user_version=0")
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(cache), ",".join(posts), sandbox.url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for reader in readers:
        out, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, err
        assert out.split() == [str(expected), "0", str(pages)]
    with sqlite3.connect(cache) as con:
        values = [row[0] for row in con.execute("SELECT value FROM responses")]
    assert len(values) == pages and all(v.startswith(MAGIC) for v in values)


@pytest.mark.parametrize(
    "schema",
    [
        # another program's table of the same name, with the usual (key, value) columns
        ["CREATE TABLE responses (key TEXT PRIMARY KEY, value TEXT)"],
        # another program's database, whatever its tables are called
        ["CREATE TABLE answers (id INTEGER, answer TEXT)"],
        [
            "CREATE TABLE responses (key TEXT PRIMARY KEY, value BLOB, expires INTEGER)",
            "CREATE TABLE redirects (key TEXT PRIMARY KEY, value BLOB)",
            "CREATE TABLE users (id INTEGER)",
        ],
    ],
)
def test_another_programs_database_is_refused_and_left_untouched(
    schema: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as con:
        for statement in schema:
            con.execute(statement)
        table = schema[0].split()[2]
        con.executemany(
            f"INSERT INTO {table} VALUES (?, ?)"
            if "expires" not in schema[0]
            else f"INSERT INTO {table} VALUES (?, ?, NULL)",
            [(f"respondent-{i}", "yes") for i in range(50)],
        )
    before = path.read_bytes()
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        with pytest.raises(sf.ConfigError, match="not a socialframe cache"):
            sandbox.client(cache=path)
        assert sandbox.charges == 0
    assert path.read_bytes() == before  # no column, no table, no journal mode changed


def test_the_migration_rewrites_socialframes_pages_only_and_removes_nothing(
    tmp_path: Path,
) -> None:
    """A cache file whose pickles are not all socialframe's pages: another program's
    pages (requests-cache's own format), a planted object, a page whose dict msgpack
    cannot hold, junk. Only the pages of socialframe's operations are rewritten; the rest
    stays exactly as it was (misses for socialframe), and nothing is removed."""
    import requests_cache

    cache = tmp_path / "old.sqlite"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _legacy_cache(sandbox, cache)
        theirs = requests_cache.CachedSession(str(cache), backend="sqlite", expire_after=-1)
        theirs.mount("https://", sf.MockTransport(lambda request: (200, {"weather": "fine"})))
        theirs.get("https://weather.example/today")  # another program's page, pickled
        theirs.close()
        with sqlite3.connect(cache) as con:
            strange = {
                "aaaa000000000001": pickle.dumps(Planted(tmp_path / "owned")),
                "aaaa000000000002": pickle.dumps(
                    {"status_code": 200, "_content": b"x" * 8, "url": "u", "big": 2**70}
                ),
                "aaaa000000000003": b"junk",
            }
            for key, value in strange.items():
                con.execute("INSERT INTO responses (key, value) VALUES (?, ?)", (key, value))
            con.execute("PRAGMA user_version=0")
            before = dict(con.execute("SELECT key, value FROM responses"))
        _, client = _fetch(sandbox, cache)
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (0, 2)
    with sqlite3.connect(cache) as con:
        after = dict(con.execute("SELECT key, value FROM responses"))
    assert after.keys() == before.keys()  # nothing removed
    changed = {k for k in after if after[k] != before[k]}
    assert changed == set(_page_keys_sqlite(cache)) - set(strange) - {
        k for k, v in before.items() if b"weather" in v
    }
    assert len(changed) == 2 and all(after[k].startswith(MAGIC) for k in changed)
    with requests_cache.CachedSession(str(cache), backend="sqlite", expire_after=-1) as theirs:
        assert theirs.get("https://weather.example/today", only_if_cached=True).json() == {
            "weather": "fine"
        }  # the other program still reads its page
    assert not (tmp_path / "owned").exists()


def test_an_interrupted_migration_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C mid-way through the migration (in Client()): the transaction is rolled
    back and the file's lock let go, so another process can still store pages."""

    cache = tmp_path / "old.sqlite"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _legacy_cache(sandbox, cache)
        with sqlite3.connect(cache) as con:
            before = dict(con.execute("SELECT key, value FROM responses"))
        rewritten = []

        def interrupted(value: Any, accept: Any = None) -> Any:
            if rewritten:
                raise KeyboardInterrupt
            rewritten.append(value)
            return MAGIC + b"\x80"

        monkeypatch.setattr(_store, "legacy", interrupted)
        with pytest.raises(KeyboardInterrupt):
            sandbox.client(cache=cache)
        other = sqlite3.connect(cache, timeout=0.5, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # the file's lock is free
        other.execute("ROLLBACK")
        other.close()
    with sqlite3.connect(cache) as con:
        assert dict(con.execute("SELECT key, value FROM responses")) == before
        assert con.execute("PRAGMA user_version").fetchone()[0] == 0


class Planted:
    """What an attacker writes into a shared cache: unpickling it runs a command."""

    def __init__(self, proof: Path) -> None:
        self.proof = proof

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.proof}",))
