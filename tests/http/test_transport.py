"""A body is read up to a cap (64 MB, decoded): an endless 200, a 200 declaring a huge
length, a gzip bomb are a ``NetworkError``, counted as the paid call they were.

Through real HTTP on 127.0.0.1: a small hostile server in a thread.
"""

from __future__ import annotations

import http.server
import threading
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS

P82 = EXAMPLE_POSTS[82]
KEY = "sk-trust-inputs-0123456789"
MAX_BODY = 64 * 2**20  # the largest body read, as documented (64 MB)
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
