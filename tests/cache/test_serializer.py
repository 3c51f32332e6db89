"""A cache no one can turn into code execution, and what it does with what it cannot read.

Every test here goes through real parts: the sandbox over HTTP, real SQLite files, a
real redis-server on a free loopback port, the real console script.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd
import pytest
import requests
from servers import running_redis

import socialframe as sf
from socialframe.__main__ import main
from socialframe._cache.serializer import MAGIC
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]  # two pages
NAMESPACE = "socialframe:"


class Planted:
    """What an attacker writes into a shared cache: unpickling it runs a command."""

    def __init__(self, proof: Path) -> None:
        self.proof = proof

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.proof}",))


def _page_keys_sqlite(path: Path) -> list[str]:
    with sqlite3.connect(path) as con:
        return [row[0] for row in con.execute("SELECT key FROM responses ORDER BY key")]


def _set_sqlite(path: Path, key: str, value: Any) -> None:
    with sqlite3.connect(path) as con:
        con.execute("UPDATE responses SET value=? WHERE key=?", (value, key))


def _page_keys_redis(url: str) -> list[str]:
    import redis

    r = redis.Redis.from_url(url)
    found = r.scan_iter(match=f"{NAMESPACE}*")
    keys = [k.decode(errors="replace")[len(NAMESPACE) :] for k in found]
    return sorted(k for k in keys if not k.startswith(("lock:", "rate:")))


def _fetch(sandbox: Sandbox, cache: Any, **kwargs: Any) -> tuple[pd.DataFrame, sf.Client]:
    with sandbox.client(cache=cache, progress=False, **kwargs) as client:
        frame = client.post_comments(P82)
    return frame, client


def _stored_page(value: dict[str, Any]) -> bytes:
    return MAGIC + msgspec.msgpack.encode(value)


def _good_plain(path_or_url: Any, key: str) -> dict[str, Any]:
    """The plain dict of a good stored page (to make bad ones from)."""
    if isinstance(path_or_url, Path):
        with sqlite3.connect(path_or_url) as con:
            (raw,) = con.execute("SELECT value FROM responses WHERE key=?", (key,)).fetchone()
    else:
        import redis

        raw = redis.Redis.from_url(path_or_url).get(NAMESPACE + key)
    decoded: dict[str, Any] = msgspec.msgpack.decode(bytes(raw)[len(MAGIC) :])
    return decoded


# -- 1. nothing read from a cache runs code ---------------------------------------------------


def test_a_planted_object_in_the_team_cache_runs_nothing(team: str, tmp_path: Path) -> None:
    import redis

    proof = tmp_path / "owned"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        first, _ = _fetch(sandbox, team)
        keys = _page_keys_redis(team)
        assert len(keys) == 2
        r = redis.Redis.from_url(team)
        for key in keys:  # the attack, on every page
            r.set(NAMESPACE + key, pickle.dumps(Planted(proof)))
        with pytest.warns(sf.CacheWarning, match="2 entries of the cache at redis://"):
            again, client = _fetch(sandbox, team)
    assert not proof.exists()
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (2, 0)  # fetched again
    pd.testing.assert_frame_equal(
        again.drop(columns="fetched_at"), first.drop(columns="fetched_at")
    )
    assert all(r.get(NAMESPACE + key).startswith(MAGIC) for key in keys)  # stored anew


def test_a_page_pickled_in_the_team_cache_is_never_unpickled(team: str, tmp_path: Path) -> None:
    """A good page as earlier versions wrote it (pickle): a team cache never unpickles,
    even a harmless-looking value; it is fetched again and stored in the data format."""
    import redis

    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _fetch(sandbox, team)
        r = redis.Redis.from_url(team)
        key = _page_keys_redis(team)[0]
        r.set(NAMESPACE + key, pickle.dumps(_good_plain(team, key)))
        with pytest.warns(sf.CacheWarning, match="1 entry"):
            _, client = _fetch(sandbox, team)
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (1, 1)


def test_a_planted_object_in_a_local_cache_file_runs_nothing(tmp_path: Path) -> None:
    """A shared cache folder: the local file's pickles go through an unpickler that
    admits no class, so the planted object is refused and the page fetched again."""
    proof = tmp_path / "owned"
    cache = tmp_path / "c.sqlite"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _fetch(sandbox, cache)
        for key in _page_keys_sqlite(cache):
            _set_sqlite(cache, key, pickle.dumps(Planted(proof)))
        with sqlite3.connect(cache) as con:  # as an older file: not yet migrated
            con.execute("PRAGMA user_version=0")
        with pytest.warns(sf.CacheWarning, match="2 entries"):
            _, client = _fetch(sandbox, cache)
        assert not proof.exists()
        assert (client.ledger.paid_calls, client.ledger.cached_calls) == (2, 0)
        # planted after the file was migrated: refused all the same
        _set_sqlite(cache, _page_keys_sqlite(cache)[0], pickle.dumps(Planted(proof)))
        with pytest.warns(sf.CacheWarning, match="1 entry"):
            _, client = _fetch(sandbox, cache)
    assert not proof.exists()
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (1, 1)


# -- pages paid for before this version keep serving, for free ----------------------------------


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


# -- anything that is not a good page is a miss: fetched again, one warning, no raw error --------


def _bad_values(good: dict[str, Any]) -> dict[str, bytes]:
    import json

    wrong_shape = dict(good, _content=b'{"success": true, "data": "no list", "totalPage": 1}')
    return {
        "empty": b"",
        "junk bytes": b"\x00\xff junk",
        "pickled int": pickle.dumps(5),
        "pickled list": pickle.dumps([1, 2]),
        "pickled dict": pickle.dumps({"a": 1}),
        "JSON": json.dumps({"status_code": 200}).encode(),
        "format prefix, junk": MAGIC + b"\xc1\xc1",
        "format prefix, a list": MAGIC + msgspec.msgpack.encode([1, 2]),
        "an HTTP 500": _stored_page(dict(good, status_code=500)),
        "a body not of the page's shape": _stored_page(wrong_shape),
        "headers that are no text": _stored_page(dict(good, headers={"a": 1})),
        "a redirect chain": _stored_page(dict(good, history=[good])),
        "a body that is text": _stored_page(dict(good, _content="text")),
    }


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
@pytest.mark.slow
def test_every_unreadable_value_is_a_miss_with_one_warning(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    cache: Any = tmp_path / "c.sqlite" if backend == "sqlite" else request.getfixturevalue("team")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        first, _ = _fetch(sandbox, cache)
        keys = _page_keys_sqlite(cache) if backend == "sqlite" else _page_keys_redis(cache)
        good = _good_plain(cache, keys[0])
        for name, value in _bad_values(good).items():
            if backend == "sqlite":
                _set_sqlite(cache, keys[0], value)
            else:
                import redis

                redis.Redis.from_url(cache).set(NAMESPACE + keys[0], value)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                again, client = _fetch(sandbox, cache)
            said = [str(w.message) for w in caught if w.category is sf.CacheWarning]
            assert len(said) == 1 and said[0].startswith("1 entry of the cache at"), name
            assert (client.ledger.paid_calls, client.ledger.cached_calls) == (1, 1), name
            pd.testing.assert_frame_equal(
                again.drop(columns="fetched_at"), first.drop(columns="fetched_at")
            )


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
@pytest.mark.slow
def test_the_cache_report_and_commands_survive_junk(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Junk values and junk keys: the report leaves them out with one warning; `cache
    info` and `cache report` exit 0; `cache clear` removes them."""
    cache: Any = tmp_path / "c.sqlite" if backend == "sqlite" else request.getfixturevalue("team")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _fetch(sandbox, cache)
        keys = _page_keys_sqlite(cache) if backend == "sqlite" else _page_keys_redis(cache)
        if backend == "sqlite":
            _set_sqlite(cache, keys[0], b"")
            with sqlite3.connect(cache) as con:
                for junk_key in ("x' OR '1'='1", None, 42, b"\xff\xfe"):
                    con.execute(
                        "INSERT INTO responses (key, value) VALUES (?, ?)", (junk_key, b"x")
                    )
            expected = 3  # (a NULL or a blob key names no entry: nothing can ask for it)
        else:
            import redis

            r = redis.Redis.from_url(cache)
            r.set(NAMESPACE + keys[0], b"")
            r.set(NAMESPACE.encode() + b"\xff\xfe", b"junk")  # a key that is no UTF-8
            r.set(NAMESPACE + "0123abcd", pickle.dumps({"a": 1}))
            expected = 2  # (the key that is no text is no entry of socialframe's)
        with (
            sandbox.client(cache=cache, progress=False) as client,
            pytest.warns(sf.CacheWarning, match=f"{expected} entries .* left out"),
        ):
            report = client.cache_report()
        assert report[["item", "pages"]].values.tolist() == [[P82, 1]]
        env = dict(os.environ, SOCIALFRAME_CACHE_DIR=str(tmp_path / "none"))
        setting = ["--cache", str(cache)]
        for action in (["info"], ["report"]):
            done = subprocess.run(
                [sys.executable, "-m", "socialframe", "cache", *action, *setting],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
            assert f"{expected} entries" in done.stderr and "Traceback" not in done.stderr
        done = subprocess.run(
            [sys.executable, "-m", "socialframe", "cache", "clear", "--yes", *setting],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert f"removed 1 page ($0.01 paid) and {expected} unreadable entries" in done.stderr
        if backend == "sqlite":
            assert _page_keys_sqlite(cache) == [None, b"\xff\xfe"]
        else:
            assert _page_keys_redis(cache) == ["\ufffd\ufffd"]  # (no key of socialframe's)


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


def test_a_team_cache_that_dies_gives_one_clear_error(own_redis: tuple[Any, str]) -> None:
    server, url = own_redis
    with (
        Sandbox(seed=0, clock=PinnedClock()) as sandbox,
        sandbox.client(cache=url, progress=False) as client,
    ):
        client.post_comments(P82)
        server.kill()
        server.wait(timeout=10)
        with pytest.raises(sf.NetworkError, match="stopped answering"):
            client.cache_report()


def test_cache_keys_do_not_depend_on_the_serializer(tmp_path: Path) -> None:
    """Requests-cache puts its serializer's name in every key; socialframe's keys keep the
    name of the pickle serializer earlier versions used, so old pages keep their keys."""
    import requests_cache

    request = requests.Request("GET", "https://api.example/x", params={"urn": "1"}).prepare()
    old = requests_cache.create_key(
        request, serializer=requests_cache.serializers.pickle_serializer
    )
    with sf.Client("k", base_url="https://api.example", cache=tmp_path / "c.sqlite") as client:
        cache: Any = client.session.cache  # type: ignore[attr-defined]
        assert cache.create_key(request) == old
        key_fn = client.session.settings.key_fn  # type: ignore[attr-defined]
    assert key_fn(request, serializer="json") == old


# -- 3. a Redis password is never shown ------------------------------------------------------------


PASSWORD = "Zq7#Kx/Wv?Ty@9"
PIECES = ("Zq7", "Kx", "Wv", "Ty@9", "Zq7%23")


@pytest.fixture(scope="module")
def locked_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_redis(tmp_path_factory.mktemp("redis-pw"), "--requirepass", PASSWORD) as started:
        yield started[1]


def _forms(url: str) -> list[str]:
    from urllib.parse import quote

    host = url.split("://", 1)[1].rsplit("/", 1)[0]
    encoded = quote(PASSWORD, safe="")
    return [
        f"redis://:{encoded}@{host}/0",  # good
        f"redis://{host}/0?password={encoded}",  # good
        f"redis://:{PASSWORD}@{host}/0",  # unencoded # / ? @: redis-py misreads it
        f"redis://user:{PASSWORD}@{host}/0",
        f"redis://:wrong{encoded}@{host}/0",  # refused by the server
        f"redis://{host}/0?password=wrong{encoded}",
        f"redis://:{encoded}@127.0.0.1:1/0",  # nothing listens
    ]


def _said_by_a_process(argv: list[str], tmp_path: Path) -> str:
    """What ``python -m socialframe ARGV`` printed; there must be no traceback in it."""
    env = dict(os.environ, SOCIALFRAME_CACHE_DIR=str(tmp_path / "none"))
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in done.stderr
    return done.stdout + done.stderr


def _said_in_this_process(argv: list[str]) -> str:
    """What ``main(argv)`` printed, run here (a start of Python and pandas saved: a second
    or more each): every warning shown, as a process shows them; an exception escaping
    fails the test, as a traceback does above."""
    out, err = io.StringIO(), io.StringIO()
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        warnings.simplefilter("always")
        main(argv)
    return out.getvalue() + err.getvalue()


@pytest.mark.slow
def test_a_redis_password_is_never_shown(locked_redis: str, tmp_path: Path) -> None:
    worked = []
    for url in _forms(locked_redis):
        shown: list[str] = []
        try:
            with (
                Sandbox(seed=0, clock=PinnedClock()) as sandbox,
                sandbox.client(cache=url, progress=False) as client,
            ):
                client.post_comments(P82)
                shown.append(repr(client.cache_report()))
                worked.append(url)
        except sf.SocialFrameError as exc:
            shown.append(str(exc) + repr(exc))
        actions = (["info"], ["report"], ["clear", "--yes"])
        for action in actions:
            shown.append(_said_in_this_process(["cache", *action, "--cache", url]))
        # and through the real command, one action per form in turn (each action, each form)
        action = actions[_forms(locked_redis).index(url) % len(actions)]
        shown.append(_said_by_a_process(["cache", *action, "--cache", url], tmp_path))
        for text in shown:
            for piece in PIECES:
                assert piece not in text, (url, text)
    assert worked == _forms(locked_redis)[:2]  # the well-formed URLs reach the server


@pytest.mark.parametrize("key", ["k", "Token", "paginationToken", "success"])
def test_a_key_spelled_inside_the_services_names_renames_nothing(key: str) -> None:
    """The scrub replaces the key in string values only, never in an object's keys; a key
    too short to scrub safely (under 8 characters) is not scrubbed at all."""
    with (
        Sandbox(seed=0, api_key=key, clock=PinnedClock()) as sandbox,
        sandbox.client(cache=False, progress=False) as client,
    ):
        frame = client.post_comments(EXAMPLE_POSTS[2345])
        ads = client.search_ads("running shoes", max_ads=60)
    assert len(frame) == 2345 and len(ads) == 60
    assert client.ledger.paid_calls == 47 + 3


def test_a_long_key_echoed_in_a_value_is_still_scrubbed(tmp_path: Path) -> None:
    key = "paginationToken-sf-0123456789"
    body = {
        "success": True,
        "data": [{"text": f"my key is {key}", "author": {"name": key}}],
        "totalPage": 1,
    }
    with sf.Client(
        key,
        base_url="https://api.example",
        transport=lambda request: (200, body),
        cache=tmp_path / "c.sqlite",
        progress=False,
    ) as client:
        frame = client.post_comments("123")
    assert frame["text"].tolist() == ["my key is ***"]
    assert frame["author_name"].tolist() == ["***"]
    assert key.encode() not in (tmp_path / "c.sqlite").read_bytes()


DYING = """
import os, sys, time
import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS
with sf.Client(os.environ["KEY"], base_url=os.environ["URL"], cache=os.environ["TEAM"],
               rate_limit=50, backoff=0.01, progress=False) as client:
    client.post_comments(EXAMPLE_POSTS[82])
    print("fetched", flush=True)
    sys.stdin.readline()  # the team's Redis is gone now
    time.sleep(11)  # pyrate-limiter's thread leaks its bucket every 10 s
    for name, call in (("report", client.cache_report),
                       ("fetch", lambda: client.post_comments(EXAMPLE_POSTS[50]))):
        try:
            call()
            print(name, "answered")
        except sf.NetworkError as exc:
            print(name, type(exc).__name__, "stopped answering" in str(exc))
"""


@pytest.mark.slow
def test_a_team_cache_dying_mid_run_prints_no_thread_traceback(
    own_redis: tuple[Any, str],
) -> None:
    server, url = own_redis
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        env = dict(os.environ, KEY=sandbox.api_key, URL=sandbox.url, TEAM=url)
        child = subprocess.Popen(
            [sys.executable, "-c", DYING],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline() == "fetched\n"
        server.kill()
        server.wait(timeout=10)
        out, err = child.communicate("go\n", timeout=120)
    assert out.splitlines() == ["report NetworkError True", "fetch NetworkError True"], err
    assert "Traceback" not in err and "Exception in thread" not in err, err


@pytest.mark.parametrize("cache", ["", "   ", "\t\n"])
def test_a_cache_that_names_no_place_is_refused(
    cache: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cache=""`` used to put the cache wherever the code ran (the current folder)."""
    monkeypatch.chdir(tmp_path)
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        with pytest.raises(sf.ConfigError, match="names no place"):
            sandbox.client(cache=cache)
        assert sandbox.charges == 0
    assert list(tmp_path.iterdir()) == []


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
    from socialframe._cache import sqlite as _store

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


@pytest.mark.parametrize(
    ("field", "stamp"),
    [
        ("fetched", "9999-12-31T23:59:59-23:59"),
        ("fetched", "0001-01-01T00:00:00+14:00"),
        ("created_at", "0001-01-01T00:00:00+14:00"),
        ("expires", "9999-12-31T23:59:59-23:59"),
    ],
)
@pytest.mark.slow
def test_a_stamp_no_utc_time_can_hold_makes_no_page(tmp_path: Path, field: str, stamp: str) -> None:
    """Found by the hostile review: such a page was served (fetched_at in year 10000),
    and the report and `cache info` / `cache clear` crashed on it."""
    cache = tmp_path / "c.sqlite"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _fetch(sandbox, cache)
        key = _page_keys_sqlite(cache)[0]
        page = _good_plain(cache, key)
        if field == "fetched":
            page["headers"] = {**page["headers"], "X-Socialframe-Fetched-At": stamp}
        else:
            page[field] = stamp
        _set_sqlite(cache, key, _stored_page(page))
        for action in (["info"], ["report"]):
            done = subprocess.run(
                [sys.executable, "-m", "socialframe", "cache", *action, "--cache", str(cache)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0 and "1 entry" in done.stderr, done.stderr
        with pytest.warns(sf.CacheWarning, match="1 entry"):
            frame, client = _fetch(sandbox, cache)
        assert client.ledger.paid_calls == 1 and frame["fetched_at"].dt.year.max() < 2100


def test_a_team_cache_that_refuses_scripts_still_serves_its_pages(team: str) -> None:
    """Found by the second review: a Redis user without scripting (an ACL of -@scripting)
    made every page a miss, paid again; the bounded read falls back to two commands."""
    import redis

    admin = redis.Redis.from_url(team)
    admin.execute_command(
        "ACL", "SETUSER", "analyst", "on", ">s3cret-pw", "~*", "&*", "+@all", "-@scripting"
    )
    url = team.replace("redis://", "redis://analyst:s3cret-pw@")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _fetch(sandbox, url)
        _, client = _fetch(sandbox, url)
    assert (client.ledger.paid_calls, client.ledger.cached_calls) == (0, 2)


def test_a_page_with_long_headers_is_stored_and_read_back(tmp_path: Path) -> None:
    """Found by the second review: the read refused header values over 64 KiB that the
    write stored, so such a page was paid for on every run. What is stored reads back."""
    import http.server
    import threading

    body = b'{"success": true, "data": [{"text": "x"}], "totalPage": 1}'

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Link", "<https://a.example/" + "x" * 40_000 + ">")
            self.send_header("Link", "<https://b.example/" + "y" * 40_000 + ">")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for paid in (1, 0):
            with sf.Client("k", base_url=url, cache=tmp_path / "c.sqlite", progress=False) as c:
                assert c.post_comments("123")["text"].tolist() == ["x"]
                assert c.ledger.paid_calls == paid
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
@pytest.mark.slow
def test_a_stored_page_whose_url_cannot_be_read_is_unreadable_not_a_crash(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Found by the second review: a URL no one can read (``http://[::1/...``) broke the
    report and every `cache` command, `cache clear` included."""
    cache: Any = tmp_path / "c.sqlite" if backend == "sqlite" else request.getfixturevalue("team")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        _fetch(sandbox, cache)
        keys = _page_keys_sqlite(cache) if backend == "sqlite" else _page_keys_redis(cache)
        page = _good_plain(cache, keys[0])
        page["url"] = "http://[::1/get-profile-posts-comments?urn=1"
        if backend == "sqlite":
            _set_sqlite(cache, keys[0], _stored_page(page))
        else:
            import redis

            redis.Redis.from_url(cache).set(NAMESPACE + keys[0], _stored_page(page))
    for action in (["info"], ["report"], ["clear", "--yes"]):
        done = subprocess.run(
            [sys.executable, "-m", "socialframe", "cache", *action, "--cache", str(cache)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    keys = _page_keys_sqlite(cache) if backend == "sqlite" else _page_keys_redis(cache)
    assert keys == []
