"""The warm path reads requests-cache's own store directly; the environment is read once.

A cache hit skips the requests pipeline (preparing, hooks, policy checks) and
reads the backend with the page's requests-cache key. These tests hold it to
requests-cache's own rules: a page it stores is one requests-cache reads, and
the other way round; expired pages are fetched again online and served
offline; ``Vary`` is honoured. And proxies from the environment still apply,
though they are now resolved when the client is built rather than per call.
(The warm read's own parts, its remembered key and its lean read of the store, are
tests/cache/test_warm_read.py's.)
"""

from __future__ import annotations

import http.server
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests
from wire import full_path

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox

P82 = EXAMPLE_POSTS[82]


def plain_session(path: Path, client: sf.Client) -> Any:
    """A plain requests-cache session on the same file, with the same settings and
    socialframe's data-only serializer (a requests-cache serializer pipeline)."""
    import requests_cache

    settings = client.session.settings  # type: ignore[attr-defined]
    return requests_cache.CachedSession(
        str(path),
        backend="sqlite",
        serializer=client.session.cache.responses.serializer,  # type: ignore[attr-defined]
        allowable_codes=(200,),
        ignored_parameters=settings.ignored_parameters,
        key_fn=settings.key_fn,  # socialframe's: the loopback port is not part of a key
        expire_after=-1,
    )


def client_key_fn(folder: Path) -> Callable[..., str]:
    """The cache key function of a client's session (requests-cache's ``key_fn``)."""
    with sf.Client("k", base_url="https://api.example", cache=folder / "c.sqlite") as c:
        key_fn: Callable[..., str] = c.session.settings.key_fn  # type: ignore[attr-defined]
    return key_fn


def test_pages_socialframe_stores_are_read_by_plain_requests_cache(
    sandbox: Sandbox, cache_path: Path
) -> None:
    with sandbox.client(cache=cache_path, progress=False) as c:
        frame = c.post_comments(P82)
        plain = plain_session(cache_path, c)
    url = f"{sandbox.url}/get-profile-posts-comments"
    params = {"urn": P82, "sort": "mostRelevant", "page": "1"}
    with plain:
        response = plain.get(url, params=params, only_if_cached=True)
    assert response.status_code == 200 and response.from_cache
    body = response.json()
    assert [c["text"] for c in body["data"]] == frame["text"].head(50).tolist()
    assert sandbox.charges == 2


def test_pages_plain_requests_cache_stores_are_read_by_the_fast_path(tmp_path: Path) -> None:
    """A plain CachedSession with requests-cache's own key function (the URL is not
    loopback, so socialframe's key is the same) stores; socialframe reads for free."""
    import requests_cache

    calls: list[str] = []

    def service(request: requests.PreparedRequest) -> Any:
        calls.append(str(request.url))
        page = int(str(request.url).split("page=")[1][0])
        data = [
            {"text": f"comment {page}-{i}", "createdAt": 1_760_000_000_000 + i} for i in range(3)
        ]
        return 200, {"success": True, "data": data, "totalPage": 2, "paginationToken": f"t{page}"}

    path = tmp_path / "shared.sqlite"
    url = "https://api.example/get-profile-posts-comments"
    with requests_cache.CachedSession(
        str(path), backend="sqlite", allowable_codes=(200,), expire_after=-1
    ) as plain:
        plain.mount("https://", sf.MockTransport(service))
        for page, token in ((1, None), (2, "t1")):
            params = {"urn": "123", "sort": "mostRelevant", "page": str(page)}
            if token:
                params["paginationToken"] = token
            assert not plain.get(url, params=params).from_cache
    assert len(calls) == 2

    def refuse(request: requests.PreparedRequest) -> Any:
        raise AssertionError(f"sent {request.url}: the page was in the cache")

    with sf.Client(
        "key", base_url="https://api.example", transport=refuse, cache=path, progress=False
    ) as c:
        sent = full_path(c)
        frame = c.post_comments("123")
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (0, 2)
    assert sent == []  # both answered by the warm read, not the pipeline
    assert frame["text"].tolist() == [f"comment {p}-{i}" for p in (1, 2) for i in range(3)]


@pytest.mark.slow
def test_an_expired_page_is_fetched_again_online_and_served_offline(
    sandbox: Sandbox, cache_path: Path
) -> None:
    with sandbox.client(cache=cache_path, expire_after=1, progress=False) as c:
        first = c.post_comments(P82)
    time.sleep(1.2)
    with sandbox.client(cache=cache_path, offline=True, progress=False) as c:
        offline = c.post_comments(P82)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (0, 2)
    pd.testing.assert_frame_equal(first, offline)
    assert sandbox.charges == 2
    with sandbox.client(cache=cache_path, expire_after=60, progress=False) as c:
        c.post_comments(P82)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (2, 0)  # stale: paid again
        c.post_comments(P82)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (2, 2)  # fresh again
    assert sandbox.charges == 4


def test_vary_is_honoured_by_the_fast_path(tmp_path: Path) -> None:
    sent: list[str | None] = []

    def service(request: requests.PreparedRequest) -> Any:
        sent.append(request.headers.get("X-Team"))
        body = {"success": True, "data": [], "totalPage": 1, "paginationToken": "t"}
        return 200, body, {"Vary": "X-Team"}

    def client(team: str) -> sf.Client:
        return sf.Client(
            "key",
            base_url="https://api.example",
            headers={"X-Team": team},
            transport=sf.MockTransport(service),
            cache=tmp_path / "c.sqlite",
            progress=False,
        )

    with client("a") as c:
        c.post_comments("123")
        c.post_comments("123")
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (1, 1)
    with client("b") as c:  # another X-Team: requests-cache's rule says not this page
        c.post_comments("123")
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (1, 0)
    assert sent == ["a", "b"]


class _Proxy(http.server.ThreadingHTTPServer):
    """A real forward proxy on loopback: relays absolute-form GETs, counts them."""

    def __init__(self) -> None:
        self.relayed: list[str] = []
        super().__init__(("127.0.0.1", 0), _ProxyHandler)


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    server: _Proxy

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.server.relayed.append(self.path)
        headers = {
            k: v for k, v in self.headers.items() if k.lower() not in ("host", "proxy-connection")
        }
        upstream = requests.get(self.path, headers=headers, timeout=10, proxies={"http": ""})
        self.send_response(upstream.status_code)
        for name in ("Content-Type", "Vary"):
            if name in upstream.headers:
                self.send_header(name, upstream.headers[name])
        self.send_header("Content-Length", str(len(upstream.content)))
        self.end_headers()
        self.wfile.write(upstream.content)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def proxy() -> Iterator[_Proxy]:
    server = _Proxy()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_http_proxy_from_the_environment_is_used(
    sandbox: Sandbox, proxy: _Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with sandbox.client(cache=False, progress=False) as c:
        assert len(c.post_comments(P82)) == 82
    assert len(proxy.relayed) == 2 and all(p.startswith(sandbox.url) for p in proxy.relayed)
    assert sandbox.charges == 2


def test_no_proxy_from_the_environment_bypasses_it(
    sandbox: Sandbox, proxy: _Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with sandbox.client(cache=False, progress=False) as c:
        assert len(c.post_comments(P82)) == 82
    assert proxy.relayed == [] and sandbox.charges == 2


def test_the_environment_is_read_when_the_client_is_built(
    sandbox: Sandbox, proxy: _Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    monkeypatch.delenv("http_proxy", raising=False)
    with sandbox.client(cache=False, progress=False) as c:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
        c.post_comments(P82)  # built before: no proxy
    assert proxy.relayed == []


class _Recorder(requests.adapters.HTTPAdapter):
    """A transport that records the ``verify`` each call is sent with, and answers."""

    def __init__(self, seen: list[Any]) -> None:
        super().__init__()
        self.seen = seen

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        self.seen.append(kwargs.get("verify"))
        return sf.MockTransport(
            lambda r: (200, {"success": True, "data": [], "totalPage": 1})
        ).send(request)


def test_a_verify_set_on_the_session_is_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)  # (they would win, as in requests)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    seen: list[Any] = []

    with sf.Client(
        "key", base_url="https://api.example", transport=_Recorder(seen), cache=False
    ) as c:
        c.session.verify = "/etc/ssl/corporate-ca.pem"
        c.post_comments("123")
    assert seen == ["/etc/ssl/corporate-ca.pem"]


def test_a_ca_bundle_from_the_environment_wins_as_in_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/team.pem")
    with sf.Client(
        "key", base_url="https://api.example", transport=_Recorder(seen), cache=False
    ) as c:
        c.post_comments("123")
    assert seen == ["/etc/ssl/team.pem"]


def test_the_fast_path_serves_the_marketplace_deployment(
    sandbox: Sandbox, cache_path: Path
) -> None:
    """The key in X-RapidAPI-Key; the service's Vary names Authorization too, which this
    client never sends: requests-cache's rule serves the page, so must the fast path."""
    with sandbox.client(cache=cache_path, auth_header="X-RapidAPI-Key", progress=False) as c:
        c.post_comments(P82)
    with sandbox.client(cache=cache_path, auth_header="X-RapidAPI-Key", progress=False) as c:
        sent = full_path(c)
        c.post_comments(P82)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (0, 2)
    assert sent == [] and sandbox.charges == 2


def test_cache_control_on_the_session_goes_to_requests_cache(
    sandbox: Sandbox, cache_path: Path
) -> None:
    with sandbox.client(cache=cache_path, progress=False) as c:
        c.post_comments(P82)
    with sandbox.client(
        cache=cache_path, headers={"Cache-Control": "no-cache"}, progress=False
    ) as c:
        c.post_comments(P82)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (2, 0)  # as requests-cache says
    assert sandbox.charges == 4


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"verify": False},
        {"ignored_parameters": ["Authorization", "x-api-key"]},
        {"ignored_parameters": ("page",), "verify": "/etc/ssl/ca.pem"},
        {"match_headers": True},
        {"match_headers": ["Accept"]},
        {"serializer": "pickle"},
        {"content_root_key": "data", "ignored_parameters": ["page"]},
        # what requests' send passes on besides verify is not in a key
        {"verify": "/etc/ssl/ca.pem", "proxies": {"https": "http://p:3128"}, "timeout": 5.0},
        {"stream": False, "cert": None, "proxies": {}},
    ],
)
def test_remembered_cache_keys_are_requests_caches(kwargs: dict[str, Any], tmp_path: Path) -> None:
    """The session's key function remembers keys; each is what requests-cache computes with
    its pickle serializer's name (whatever the serializer: pages paid for before the
    data-only format keep their keys), and whatever goes into a key (verify, ignored
    parameters, headers when matched) tells them apart."""
    import requests_cache

    cache_key = client_key_fn(tmp_path)
    url = "https://api.example/get-profile-posts-comments"
    for headers in ({"Accept": "a"}, {"Accept": "b"}):
        for params in ({"urn": "1", "page": "1"}, {"urn": "1", "page": "2"}):
            request = requests.Request("GET", url, params=params, headers=headers).prepare()
            pickled = {**kwargs, "serializer": requests_cache.serializers.pickle_serializer}
            expected = requests_cache.create_key(request, **pickled)
            assert cache_key(request, **kwargs) == expected  # computed
            assert cache_key(request, **kwargs) == expected  # remembered
    one = requests.Request("GET", url, params={"page": "1"}).prepare()
    assert cache_key(one, verify=True) != cache_key(one, verify=False)


def test_requests_caches_own_lookups_still_work(tmp_path: Path) -> None:
    """The key memo serves prepared requests without a body only: an unprepared
    request keeps its params apart, a body is normalised by its Content-Type."""
    with sf.Client("k", base_url="https://api.example", cache=tmp_path / "c.sqlite") as c:
        cache: Any = c.session.cache  # type: ignore[attr-defined]
        cache_key = c.session.settings.key_fn  # type: ignore[attr-defined]
        url = "https://api.example/get-profile-posts-comments"
        assert cache.contains(url=f"{url}?urn=1") is False
        assert cache.contains(request=requests.Request("GET", url, params={"urn": "1"})) is False
    body = '{"b": 1, "a": 2}'
    as_json = requests.Request(
        "GET", url, data=body, headers={"Content-Type": "application/json"}
    ).prepare()
    as_text = requests.Request(
        "GET", url, data=body, headers={"Content-Type": "text/plain"}
    ).prepare()
    assert cache_key(as_json) != cache_key(as_text)


def test_warm_frames_are_the_cold_frames(sandbox: Sandbox, cache_path: Path) -> None:
    """Warm pages are decoded straight into structs; the frame is the one the cold
    run built from dicts, for posts with every quirk the sandbox has."""
    posts = list(EXAMPLE_POSTS.values())
    with sandbox.client(cache=cache_path, progress=False) as c:
        cold = c.post_comments(posts)
        paid = c.ledger.paid_calls
    with sandbox.client(cache=cache_path, progress=False) as c:
        sent = full_path(c)
        warm = c.post_comments(posts)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (0, paid)
    assert sent == []
    pd.testing.assert_frame_equal(warm, cold)


@pytest.mark.parametrize(
    "body",
    [
        {"success": True, "data": [1], "totalPage": 1},  # a comment that is not an object
        {"success": True, "data": [{"text": "x"}], "totalPage": "1"},  # paging of text
        {"success": True, "data": [{"text": "x"}], "totalPage": 1, "paginationToken": 5},
        {"success": False, "message": "quota", "data": []},
        {"success": True, "data": [{"text": "x"}]},  # no totalPage
    ],
)
def test_a_stored_page_of_the_wrong_shape_is_fetched_again(tmp_path: Path, body: Any) -> None:
    """A page a plain requests-cache session stored (socialframe never stores one of
    the wrong shape): the fast path declines it and the full path pays for a good one."""
    import requests_cache

    path = tmp_path / "shared.sqlite"
    url = "https://api.example/get-profile-posts-comments"
    params = {"urn": "123", "sort": "mostRelevant", "page": "1"}
    with requests_cache.CachedSession(
        str(path), backend="sqlite", allowable_codes=(200,), expire_after=-1
    ) as plain:
        plain.mount("https://", sf.MockTransport(lambda request: (200, body)))
        plain.get(url, params=params)

    good = {"success": True, "data": [{"text": "good"}], "totalPage": 1}
    with sf.Client(
        "key",
        base_url="https://api.example",
        transport=sf.MockTransport(lambda request: (200, good)),
        cache=path,
        progress=False,
    ) as c:
        sent = full_path(c)
        with pytest.warns(sf.CacheWarning, match="1 entry of the cache at .* could not be read"):
            frame = c.post_comments("123")
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (1, 0)
    assert len(sent) == 2  # declined: the full path read it, dropped it, paid for a good one
    assert frame["text"].tolist() == ["good"]


def test_a_page_key_is_computed_once_per_page(
    cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold call needs its page's key three times (the fast read's miss, requests-cache's
    look-up and its store): requests-cache's normalisation runs once, not per look-up."""
    import requests_cache

    computed: list[str] = []
    original = requests_cache.create_key

    def counting(*args: Any, **kwargs: Any) -> str:
        computed.append(original(*args, **kwargs))
        return computed[-1]

    monkeypatch.setattr(requests_cache, "create_key", counting)
    # Keys are remembered for the process: a seed of its own (it is in the pages' URLs)
    # gives pages no earlier test has keyed.
    sandbox = Sandbox(seed=random.randrange(10**6, 10**12))
    with sandbox, sandbox.client(cache=cache_path, progress=False) as c:
        c.post_comments(P82)  # two pages, paid
        assert c.ledger.paid_calls == 2
    assert len(computed) == len(set(computed)) == 2


# -- pages the struct decoding cannot take: decided as requests-cache and requests do --------


class _Fixed(http.server.ThreadingHTTPServer):
    """A loopback service answering every GET with one fixed body; counts them."""

    def __init__(self, body: bytes, content_type: str = "application/json") -> None:
        self.body, self.content_type, self.calls = body, content_type, 0
        super().__init__(("127.0.0.1", 0), _FixedHandler)


class _FixedHandler(http.server.BaseHTTPRequestHandler):
    server: _Fixed

    def do_GET(self) -> None:  # noqa: N802
        self.server.calls += 1
        self.send_response(200)
        self.send_header("Content-Type", self.server.content_type)
        self.send_header("Content-Length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def serve() -> Iterator[Any]:
    """Starts loopback services that answer every GET with one fixed body."""
    started: list[tuple[_Fixed, threading.Thread]] = []

    def start(body: bytes, content_type: str = "application/json") -> _Fixed:
        server = _Fixed(body, content_type)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.shutdown()
        server.server_close()
        thread.join()


# A comments page whose author name holds a byte that is not UTF-8 (a service bug
# seen in the wild: Latin-1 bytes pasted into a UTF-8 body). requests decodes it with
# U+FFFD, as the cold run does; the warm run decodes it into structs, whose author
# msgspec keeps as raw text without checking it.
BAD_AUTHOR = (
    b'{"success": true, "totalPage": 1, "paginationToken": "t", "data": ['
    b'{"text": "hi", "createdAt": 1760584641073, "author": {"id": "1", "name": "Ren\xe9"}}]}'
)


def test_a_warm_rerun_gives_the_cold_frame_for_an_author_that_is_not_utf8(
    serve: Any, tmp_path: Path
) -> None:
    server = serve(BAD_AUTHOR)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    cache = tmp_path / "c.sqlite"
    with sf.Client("key", base_url=base, cache=cache, progress=False) as c:
        cold = c.post_comments("123")
        assert c.ledger.paid_calls == 1
    assert cold["author_name"].tolist() == ["Ren\ufffd"]  # requests' own decoding
    with sf.Client("key", base_url=base, cache=cache, progress=False) as c:
        warm = c.post_comments("123")  # the page is decoded as requests does, as cold
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (0, 1)
    pd.testing.assert_frame_equal(warm, cold)
    assert server.calls == 1


def test_a_stored_page_that_cannot_be_unpickled_is_fetched_again(
    sandbox: Sandbox, cache_path: Path
) -> None:
    """A value that is not a page is a miss (fetched again, one warning), never a crash."""
    with sandbox.client(cache=cache_path, progress=False) as c:
        first = c.post_comments(P82)
    with sqlite3.connect(cache_path) as con:
        (key,) = con.execute("SELECT key FROM responses LIMIT 1").fetchone()
        con.execute("UPDATE responses SET value=? WHERE key=?", (b"not a pickle", key))
    with sandbox.client(cache=cache_path, progress=False) as c:
        with pytest.warns(sf.CacheWarning, match="1 entry"):
            again = c.post_comments(P82)  # a miss
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (1, 1)
    pd.testing.assert_frame_equal(
        again.drop(columns="fetched_at"), first.drop(columns="fetched_at")
    )


def test_on_error_skip_survives_a_warm_page_the_cold_run_took(serve: Any, tmp_path: Path) -> None:
    server = serve(BAD_AUTHOR)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    cache = tmp_path / "c.sqlite"
    with sf.Client("key", base_url=base, cache=cache, progress=False) as c:
        cold = c.post_comments(["1", "2", "3"], on_error="skip")
    with sf.Client("key", base_url=base, cache=cache, progress=False) as c:
        warm = c.post_comments(["1", "2", "3"], on_error="skip")
    pd.testing.assert_frame_equal(warm, cold)
    assert len(cold) == 3 and server.calls == 3
