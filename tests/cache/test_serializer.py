"""A cache no one can turn into code execution, and what it does with what it cannot read.

Every test here goes through real parts: the sandbox over HTTP, real SQLite files, a
real redis-server on a free loopback port, the real console script.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd
import pytest
import requests

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]  # two pages
#: The first bytes of every page socialframe stores (the format's name and version): written
#: out, so a change of the stored format fails here.
MAGIC = b"socialframe-page/1\n"
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


# -- nothing read from a cache runs code ---------------------------------------------------


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
