"""Inputs that paid for the wrong thing, or paid and then crashed (issue 19, items 2, 4, 5).

- Every setting of ``Client()`` is checked when the client is built: a value
  outside what is allowed is a ``ValueError`` (a ``ConfigError`` too) naming the
  setting, before anything can be paid; no message and no frame of its traceback
  holds the key or a header's value.
- A body is read up to a cap (64 MB, decoded): an endless 200, a 200 declaring a
  huge length, a gzip bomb are a ``NetworkError``, counted as the paid call they were.
- Ids longer than the service's are refused, never cut; posts and queries must be
  text (or int ids): bytes, dicts, sets and frames are refused before any call.

Everything goes through real HTTP on 127.0.0.1 (the sandbox, or a small hostile
server in a thread) and the real console script.
"""

from __future__ import annotations

import array
import http.server
import itertools
import threading
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82, P1 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[1]
KEY = "sk-trust-inputs-0123456789"
SECRET = "hdr-secret-value-42"  # a header's value
MAX_EXPIRE = timedelta(days=36525)  # the longest expire_after, as documented (a century)
MAX_BODY = 64 * 2**20  # the largest body read, as documented (64 MB)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, api_key=KEY, clock=PinnedClock()) as server:
        yield server


def _build(sandbox: Sandbox, tmp_path: Path, **settings: Any) -> sf.Client:
    return sf.Client(KEY, base_url=sandbox.url, cache=tmp_path / "c.sqlite", **settings)


# -- settings: checked in Client(), before anything is paid ---------------------------------

BAD_SETTINGS = [
    ("expire_after", float("inf")),
    ("expire_after", float("nan")),
    ("expire_after", 1e300),
    ("expire_after", 10**400),
    ("expire_after", timedelta.max),
    ("expire_after", MAX_EXPIRE + timedelta(days=1)),
    ("expire_after", -5),
    ("expire_after", 0),
    ("expire_after", timedelta(seconds=-1)),
    ("timeout", 1e300),
    ("timeout", 3601),
    ("backoff", 1e300),
    ("backoff", 601),
    ("workers", 10**9),
    ("workers", 257),
    ("max_retries", 10**12),
    ("max_retries", 101),
    ("rate_limit", 1e-300),
    ("rate_limit", 1e300),
    ("rate_limit", "1/99999999999999999d"),
    ("rate_limit", "2000000/s"),
    ("max_cost", "abc"),
    ("max_cost", float("nan")),
    ("max_cost", -1),
    # found by the hostile review: raw decimal / float errors, or every run paying
    ("max_cost", "1e999999"),
    ("max_cost", Decimal("1E+999999")),
    ("rate_limit", 10**400),
    ("expire_after", 1e-7),
    ("expire_after", 0.5),
    ("expire_after", Fraction(1, 10**30)),
    ("expire_after", np.timedelta64(500, "ms")),
]


@pytest.mark.parametrize(("name", "value"), BAD_SETTINGS)
def test_a_setting_out_of_range_is_refused_when_the_client_is_built(
    sandbox: Sandbox, tmp_path: Path, name: str, value: object
) -> None:
    with pytest.raises(ValueError, match=name) as info:
        _build(sandbox, tmp_path, **{name: value})
    assert isinstance(info.value, sf.ConfigError)  # one error class for both ways of catching
    _assert_hidden(info.value, KEY)
    assert sandbox.requests == [] and sandbox.charges == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("offline", "no"),
        ("progress", "yes"),
        ("clock", object()),
        ("expire_after", "1 hour"),
        ("base_url", 5),
        ("auth_header", 5),
        ("headers", [("X-A", "b")]),
        ("headers", {"X-A": SECRET.encode()}),
        ("headers", {"X-A": 5, "X-B": SECRET}),
    ],
)
def test_a_setting_of_the_wrong_type_is_a_type_error(
    sandbox: Sandbox, tmp_path: Path, name: str, value: object
) -> None:
    settings: dict[str, Any] = {"base_url": sandbox.url, name: value}
    with pytest.raises(TypeError, match=name) as info:
        sf.Client(KEY, cache=tmp_path / "c.sqlite", **settings)
    _assert_hidden(info.value, KEY, SECRET)
    assert sandbox.requests == []


def test_the_longest_expiry_and_never_work_and_store_the_pages(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    for expire_after in (MAX_EXPIRE, MAX_EXPIRE.total_seconds(), -1):
        cache = tmp_path / str(expire_after)
        for _ in range(2):  # the second run is served by the cache
            with sf.Client(KEY, base_url=sandbox.url, cache=cache, expire_after=expire_after) as c:
                assert len(c.post_comments(P82)) == 82
    assert sandbox.charges == 3 * 2  # two pages, paid once per cache
    with pytest.raises(ValueError, match="expire_after"):
        _build(sandbox, tmp_path, expire_after=MAX_EXPIRE + timedelta(seconds=1))


@pytest.mark.parametrize("raw", ["inf", "nan", "1e300", "-5", "0"])
def test_an_unusable_expiry_from_the_environment_is_refused(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", raw)
    with pytest.raises(sf.ConfigError, match="SOCIALFRAME_CACHE_EXPIRE") as info:
        _build(sandbox, tmp_path)
    assert isinstance(info.value, ValueError)
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", "never")
    with _build(sandbox, tmp_path) as client:
        assert client.session.settings.expire_after == -1  # type: ignore[attr-defined]
    assert sandbox.requests == []


@pytest.mark.slow
def test_the_command_line_refuses_an_infinite_expiry_before_paying(sandbox: Sandbox) -> None:
    from test_cli import cli

    run = cli("comments", P82, sandbox=sandbox, env={"SOCIALFRAME_CACHE_EXPIRE": "inf"})
    assert run.code == 2, run.err
    assert "SOCIALFRAME_CACHE_EXPIRE must be -1 (never expire) or seconds" in run.err
    assert "paid so far" not in run.err and run.out == ""
    assert sandbox.requests == [] and sandbox.charges == 0


@pytest.mark.parametrize(
    ("base_url", "shown"),
    [
        ("https://user:hunter2-pass@api.example", "must not carry a user or password"),
        ("https://api.example/?token=hunter2-pass", "no query"),
        ("https://api.example/#hunter2-pass", "no query"),
        ("https://api .example", "spaces"),
        ("https://api.example:99999", "not a URL"),
        ("https://", "no host"),
        ("ftp://api.example", "http:// or https://"),
        ("", "empty"),
        # requests (or the socket) could not send to these: found by the hostile review
        ("https://api.example\u00ad.com", "no request can carry"),  # a soft hyphen
        ("https://\u0661\u0662\u0663.com", "no request can carry"),  # Arabic digits
        ("https://" + "a" * 64 + ".com", "no request can carry"),  # a label over 63
    ],
)
def test_unusable_base_urls_are_refused_without_their_secrets(
    tmp_path: Path, base_url: str, shown: str
) -> None:
    with pytest.raises(sf.ConfigError) as info:
        sf.Client(KEY, base_url=base_url, cache=tmp_path / "c.sqlite")
    assert isinstance(info.value, ValueError) and shown.split()[-1] in str(info.value)
    assert "hunter2" not in str(info.value)


# -- headers: checked in Client(); never shown ---------------------------------------------


def _our_frames(exc: BaseException) -> Iterator[Any]:
    """Every socialframe frame of ``exc``'s traceback, and of its cause and context."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        todo += [error.__cause__, error.__context__]
        tb: TracebackType | None = error.__traceback__
        while tb is not None:
            if "socialframe" in tb.tb_frame.f_code.co_filename.replace("\\", "/").split("/"):
                yield tb.tb_frame
            tb = tb.tb_next


def _shown(value: object) -> str:
    try:
        return repr(value)
    except Exception as exc:  # a half-built object: its repr may fail
        return f"<unreprable: {type(exc).__name__}>"


def _assert_hidden(exc: BaseException, *secrets: str) -> None:
    """No secret in the error's text, repr, or the locals of any socialframe frame."""
    frames = list(_our_frames(exc))
    assert frames, "the error must come from socialframe"
    texts = [str(exc), repr(exc)] + [_shown(v) for f in frames for v in f.f_locals.values()]
    for secret in secrets:
        for text in texts:
            assert secret not in text


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Team": f"{SECRET}\r\nX-Injected: 1"},
        {"X-Team": f"{SECRET}\n"},
        {"X-Team": f" {SECRET}"},
        {"X-Team": f"{SECRET} "},
        {"X-Team": f"\xa0{SECRET}"},  # a no-break space: requests refuses it at call time
        {"X-Team": f"{SECRET}\x00"},
        {"X-Team": f"{SECRET}€"},  # not Latin-1: http.client cannot encode it
        {f"X-Team: {SECRET}": "x"},  # a whole header line pasted as a name
        {"X Team": SECRET},
        {"": SECRET},
        {"X-Team": SECRET, "x-team": SECRET},
        {"Authorization": f"Bearer {SECRET}"},  # would replace the key's header
    ],
)
def test_unsendable_headers_are_refused_in_the_client_without_showing_them(
    sandbox: Sandbox, tmp_path: Path, headers: dict[str, str]
) -> None:
    with pytest.raises(sf.ConfigError) as info:
        _build(sandbox, tmp_path, headers=headers)
    assert isinstance(info.value, ValueError) and "headers" in str(info.value)
    _assert_hidden(info.value, SECRET, KEY)
    assert sandbox.requests == []


@pytest.mark.parametrize("auth_header", [f"X-Key: {KEY}", "X-\r\nKey", "X(Key)", "Ké"])
def test_an_auth_header_that_is_no_header_name_is_refused_unshown(
    sandbox: Sandbox, tmp_path: Path, auth_header: str
) -> None:
    with pytest.raises(sf.ConfigError, match="auth_header must be a header name") as info:
        _build(sandbox, tmp_path, auth_header=auth_header)
    assert auth_header.strip() not in str(info.value)
    _assert_hidden(info.value, KEY)


def test_an_auth_header_from_the_environment_is_checked_and_named(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_AUTH_HEADER", f"X-Key: {KEY}")
    with pytest.raises(sf.ConfigError, match="SOCIALFRAME_AUTH_HEADER must be") as info:
        _build(sandbox, tmp_path)
    _assert_hidden(info.value, KEY)


def test_a_key_of_the_wrong_type_is_not_held_by_the_traceback(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="api_key must be a string") as info:
        sf.Client(KEY.encode(), base_url="http://127.0.0.1:9", cache=False)  # type: ignore[arg-type]
    _assert_hidden(info.value, KEY, repr(KEY.encode()))
    with pytest.raises(sf.ConfigError) as bad:
        sf.Client(KEY + "é", base_url="http://127.0.0.1:9", cache=False)
    _assert_hidden(bad.value, KEY)


def test_latin_1_and_tab_header_values_are_sent(sandbox: Sandbox, tmp_path: Path) -> None:
    seen: list[str] = []

    def record(request: Any) -> tuple[int, Any]:
        seen.append(request.headers["X-Team"])
        return 200, {"success": True, "data": [], "totalPage": 1}

    with sf.Client(
        KEY, base_url=sandbox.url, cache=False, transport=record, headers={"X-Team": "café\tx"}
    ) as client:
        client.post_comments(P82)
    assert seen == ["café\tx"]
    with _build(sandbox, tmp_path, headers={"X-Team": "café"}) as client:  # through a socket
        assert len(client.post_comments(P82)) == 82
    with pytest.raises(ValueError, match="headers"):
        _build(sandbox, tmp_path, headers={"X-Team": "caf€"})


# -- ids: longer than the service's are refused, never cut ---------------------------------


@pytest.mark.parametrize(
    "post",
    [
        "urn:li:activity:" + "9" * 5000,
        "urn:li:activity:" + "9" * 21,
        "9" * 21,
        10**20,
        "https://www.linkedin.com/feed/update/urn:li:activity:" + "7" * 25 + "/",
        "https://www.linkedin.com/posts/x_y-activity-" + "7" * 25 + "-eGaf",
        "https://www.linkedin.com/posts/x_my-activity-12-weeks-activity-7384427202391592960-eGaf",
    ],
)
def test_an_id_longer_than_the_services_is_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path, post: object
) -> None:
    with _build(sandbox, tmp_path) as client:
        with pytest.raises(ValueError, match="digits|different activity ids"):
            client.post_comments(post)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="item 1"):
            client.post_comments([P82, post])  # type: ignore[list-item]
    assert sandbox.requests == [] and client.ledger.paid_calls == 0


def test_the_activity_word_of_a_url_slug_is_not_its_id(sandbox: Sandbox, tmp_path: Path) -> None:
    url = f"https://www.linkedin.com/posts/x_our-inactivity-12-weeks-activity-{P82}-eGaf"
    with _build(sandbox, tmp_path) as client:
        assert set(client.post_comments(url)["post_urn"]) == {f"urn:li:activity:{P82}"}
    assert [r.params["urn"] for r in sandbox.requests] == [P82, P82]


def test_ad_page_ids_longer_than_the_services_are_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    with _build(sandbox, tmp_path) as client:
        for page_id in ("9" * 21, 10**20):
            with pytest.raises(ValueError, match="ad_page_id has 21 digits"):
                client.search_ads(ad_page_id=page_id)
        most = np.uint64(2**64 - 1)  # 20 digits: the most taken, of any integer type
        assert len(client.search_ads(ad_page_id=most, max_pages=1)) > 0
    assert [r.params["ad_page_id"] for r in sandbox.requests] == [str(2**64 - 1)]


# -- items: text (or int ids), in an order ---------------------------------------------------


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (bytearray(b"7384"), "not bytearray: decode it first"),  # was posts 55, 56, 52, 52
        (b"7384", "not bytes: decode it first"),
        (memoryview(b"7384"), "not memoryview: decode it first"),
        ({P82, P1}, "no order"),
        (frozenset({P82}), "no order"),
        (pd.DataFrame({"post": [P82]}), "DataFrame"),
        # bytes by another name (found by the hostile review: posts 55, 56, 51, 52 paid)
        (array.array("B", b"7384"), "not a array of bytes or characters"),
        (np.frombuffer(b"7384", np.uint8), "not a ndarray of bytes or characters"),
        (array.array("u", "7384"), "not a array of bytes or characters"),  # (second review)
    ],
)
def test_posts_that_are_not_text_are_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path, given: object, said: str
) -> None:
    with _build(sandbox, tmp_path) as client, pytest.raises(TypeError, match=said):
        client.post_comments(given)  # type: ignore[arg-type]
    assert sandbox.requests == [] and client.ledger.paid_calls == 0


def test_an_endless_generator_of_posts_is_refused_not_waited_for(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    endless = (P82 for _ in itertools.count())
    with _build(sandbox, tmp_path) as client, pytest.raises(ValueError, match="more than"):
        client.post_comments(endless)
    assert sandbox.requests == []


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (bytearray(b"shoes"), "query must be text .*decode it first"),
        (b"shoes", "query must be text .*decode it first"),
        (memoryview(b"shoes"), "query must be text .*decode it first"),
        ({"shoes"}, "query must not be a set"),
    ],
)
def test_queries_that_are_not_text_are_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path, given: object, said: str
) -> None:
    with _build(sandbox, tmp_path) as client, pytest.raises(TypeError, match=said):
        client.search_ads(given)  # type: ignore[arg-type]
    assert sandbox.requests == []


def test_a_query_that_cannot_be_sent_as_utf8_is_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Found by the second review: a lone surrogate made a NetworkError after the retries
    (it was nothing that could ever be sent)."""
    with _build(sandbox, tmp_path) as client, pytest.raises(ValueError, match="surrogate"):
        client.search_ads("\udcff shoes")
    assert sandbox.requests == []


def test_int_ids_of_any_integer_type_and_any_iterable_of_text_are_taken(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    ids = pd.Series([int(P82), int(P1)], name="post", dtype="int64")  # as read from a CSV
    with _build(sandbox, tmp_path) as client:
        frame = client.post_comments(ids)
        assert frame.groupby("post", sort=False).size().to_dict() == {P82: 82, P1: 1}
        assert len(client.post_comments(np.uint64(P1))) == 1
        assert len(client.post_comments(p for p in (P82, P1))) == 83
        assert len(client.post_comments((P82,))) == 82
    assert sandbox.charges == 3  # P82's two pages, P1's one: then the cache


# -- other arguments of the two operations ---------------------------------------------------


@pytest.mark.parametrize(
    ("call", "kwargs", "said"),
    [
        ("post_comments", {"post": P82, "progress": "no"}, "progress"),
        ("search_ads", {"query": "x", "progress": "no"}, "progress"),
        ("search_ads", {"query": "x", "after": pd.NaT}, "after is NaT"),
        (
            "search_ads",
            {"query": "x", "after": datetime(1, 1, 1, 1, tzinfo=timezone(timedelta(hours=5)))},
            "after is out of the calendar",
        ),
    ],
)
def test_bad_arguments_of_a_call_are_refused_before_it(
    sandbox: Sandbox, tmp_path: Path, call: str, kwargs: dict[str, Any], said: str
) -> None:
    with _build(sandbox, tmp_path) as client, pytest.raises((TypeError, ValueError), match=said):
        getattr(client, call)(**kwargs)
    assert sandbox.requests == []


# -- bodies: read up to a cap -----------------------------------------------------------------

SENT_AT_MOST = 4 * MAX_BODY  # what the hostile server sends before it gives up (if ever read)
MEMORY_BOUND = 3 * MAX_BODY  # the cap, its copy as bytes, and room: far under what is sent


def _zeros(total: int, step: int = 2**20) -> Iterator[bytes]:
    block = b"0" * step
    for _ in range(total // step):
        yield block


def _gzip_bomb(inflated: int) -> Iterator[bytes]:
    """A gzip stream of ``inflated`` zero bytes, made as it is sent (about 1/1000 the size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    for block in _zeros(inflated):
        if piece := packer.compress(block):
            yield piece
    yield packer.flush()


HOSTILE: dict[str, tuple[dict[str, str], Callable[[], Iterator[bytes]]]] = {
    # No length: the body ends when the server closes, which it never would.
    "endless": ({}, lambda: _zeros(SENT_AT_MOST)),
    "huge length": ({"Content-Length": str(10**12)}, lambda: _zeros(SENT_AT_MOST)),
    # A few hundred kilobytes on the wire, a gigabyte once inflated.
    "gzip bomb": ({"Content-Encoding": "gzip"}, lambda: _gzip_bomb(2**30)),
}


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server on 127.0.0.1 answering every request with a 200 and a hostile body."""
    headers, body = HOSTILE[request.param]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            try:
                for piece in body():
                    self.wfile.write(piece)
            except OSError:  # the client hung up: what it should do
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("hostile", list(HOSTILE), indirect=True)
@pytest.mark.slow
def test_a_body_past_the_cap_is_a_paid_network_error_in_bounded_memory(
    hostile: str, tmp_path: Path
) -> None:
    # timeout bounds the test too: a body not cut off would meet the deadline.
    # max_retries as by default: the same request gets the same body, so none is retried.
    client = sf.Client(
        KEY, base_url=hostile, cache=tmp_path / "c.sqlite", max_retries=4, timeout=60, backoff=0
    )
    tracemalloc.start()
    try:
        with client, pytest.raises(sf.NetworkError, match="larger than 64 MB") as info:
            client.post_comments(P82)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{peak / 2**20:.0f} MB held"
    assert KEY not in str(info.value) and info.value.retryable is False
    # The 200 was charged, as any 200 whose body broke; nothing was stored.
    assert (client.ledger.paid_calls, client.ledger.failed_calls) == (1, 0)
    offline = sf.Client(base_url=hostile, cache=tmp_path / "c.sqlite", offline=True)
    with offline, pytest.raises(sf.NotCachedError):
        offline.post_comments(P82)
