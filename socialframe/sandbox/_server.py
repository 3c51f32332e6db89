"""The sandbox's HTTP server: a real HTTP/1.1 server on 127.0.0.1, in a background thread.

It only carries each request to the handler it was given (``handler(method, target,
headers) -> Answer``, as httpx's ``MockTransport`` takes one) and writes what comes
back; the gates, the records and the charges live in the handler's owner,
:class:`socialframe.sandbox.Sandbox`.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from . import _routes as routes
from ._routes import Answer

Handler = Callable[[str, str, Any], Answer]
"""What answers a request: ``(method, target, headers) -> Answer`` (it may take its
time: the sandbox's latency)."""


#: Request bodies the sandbox reads (its GETs have none); a larger one is a 400.
MAX_BODY = 1 << 20


class Server(ThreadingHTTPServer):
    # Handler threads are joined at close (block_on_close), after their sockets
    # are shut down: no thread or socket outlives the sandbox.
    daemon_threads = False
    block_on_close = True
    # The listen backlog: with socketserver's 5, a burst of clients (200 notebooks'
    # workers at once) overflows it and waits out SYN retries (1 s, 3 s, ...).
    request_queue_size = 1024

    def __init__(self, handler: Handler, port: int, sleep: Callable[[float], None]) -> None:
        self.handler = handler
        self.sleep = sleep  # (a dripping answer's pauses, on the sandbox's clock)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close(self) -> None:
        """Wake the keep-alive connections so their threads end, then close."""
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
            with contextlib.suppress(OSError):  # already closed by its own thread
                sock.shutdown(socket.SHUT_RDWR)
        self.server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-answer is normal; anything else is a bug to show.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every answer has a Content-Length
    server_version = "socialframe-sandbox"
    timeout = 120  # an idle keep-alive connection frees its thread after this
    # Headers and body leave in two writes; with Nagle on, a small body waits for
    # the client's delayed ACK (~40 ms per answer).
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        self._serve()

    do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_GET

    def _serve(self) -> None:
        # Drain any body, or it would be read as the next request on this connection.
        length = _content_length(self.headers.get_all("Content-Length") or ["0"])
        if length is None:
            self.send_error(400, "Invalid Content-Length")
            return
        if length > 0:
            self.rfile.read(length)
        answer = cast(Server, self.server).handler(self.command, self.path, self.headers)
        self._write(answer)

    def _write(self, answer: Answer) -> None:
        body = json.dumps(answer.body, ensure_ascii=False).encode("utf-8")
        if answer.wire == "drip_headers":
            self.close_connection = True
            head = (
                f"HTTP/1.1 {answer.status} OK\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            )
            self._drip(head.encode("ascii") + body)
            return
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        if answer.wire == "bad_chunk":
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        if answer.wire == "bad_gzip":
            self.send_header("Content-Encoding", "gzip")
        for name, value in answer.headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        if answer.wire:
            self._write_broken(answer.wire, body)
        else:
            self.wfile.write(body)

    def _write_broken(self, wire: str, body: bytes) -> None:
        """The body as a broken transit would deliver it (see ``_routes.WIRE``)."""
        self.close_connection = True
        if wire == "truncated":
            self.wfile.write(body[: len(body) // 2])
        elif wire == "bad_chunk":
            self.wfile.write(b"zz\r\n" + body[:10] + b"\r\n")
        elif wire == "bad_gzip":
            self.wfile.write(body)  # JSON, not gzip
        elif wire == "drip":
            self._drip(body)

    def _drip(self, data: bytes) -> None:
        """Write ``data`` one byte every ``DRIP_SECONDS`` (until the client hangs up)."""
        sleep = cast(Server, self.server).sleep
        for i in range(len(data)):
            self.wfile.write(data[i : i + 1])
            self.wfile.flush()
            sleep(routes.DRIP_SECONDS)

    def version_string(self) -> str:
        return self.server_version  # not the Python version: nothing to fingerprint

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # Malformed requests: answer JSON like everything else, then hang up.
        self.close_connection = True
        answer = routes.error(code, message)
        self._write(Answer(answer.status, answer.body, (("Connection", "close"),)))

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a library must not write to stderr for every request


def _content_length(values: list[str]) -> int | None:
    """The one Content-Length of a request, or None when it is malformed.

    ASCII digits only (``int()`` would take ``"²"``, ``" 3"`` or ``"1_0"``), the same
    value if repeated, and at most :data:`MAX_BODY` (a huge one would make the
    handler wait for, or try to allocate, bytes that never come).
    """
    found = {value.strip() for value in values}
    if len(found) != 1:
        return None
    (text,) = found
    if not (text.isascii() and text.isdigit()) or len(text) > 8 or int(text) > MAX_BODY:
        return None
    return int(text)
