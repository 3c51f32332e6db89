"""Transports: what actually sends a request (as in httpx, a transport is the thing that sends).

requests calls these "adapters"; the session mounts one for ``http://`` and
``https://``. Below the cache, so a cached page never reaches a transport.

- :class:`HTTPTransport`: the network (requests' own ``HTTPAdapter``).
- :class:`MockTransport`: a function answers each request in-process, like
  httpx's ``MockTransport``: no socket, no server. Tests use it (and the
  sandbox's in-process mode) to run paging, retries, budget and error mapping
  in milliseconds, through requests and requests-cache as usual.

Whatever transport is mounted (these two, or any requests adapter a user
passes), the session mounts it inside a :class:`Guard`, which holds the rules
of sending:

- a request marked ``Cache-Control: only-if-cached`` is refused: offline mode
  and the budget guard ask the cache only, and must never reach the service
  whatever the cache layer decides (requests-cache does send such a request on
  a ``Vary`` mismatch);
- the body is read inside the send, under one deadline for the whole call
  (``timeout``: a server dripping a byte at a time cannot hold a call longer);
  a body that breaks (short, a bad chunk, corrupt gzip, past the deadline, or
  over :data:`MAX_BODY` once decoded) is a :class:`BrokenBody`, a
  ``requests.ConnectionError`` that knows the status the service had sent and
  whether the answer was charged, as far as the part of the body that came tells
  (:mod:`socialframe._http.charges`).

Why over 400 lines: a third is docstrings; the code is the transports and the
guard, which share the one deadline-bounded read of a body, about 250 lines.
"""

from __future__ import annotations

import contextlib
import heapq
import io
import itertools
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import requests
import urllib3
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.response import HTTPResponse

from .._errors import NotCachedError
from .charges import HEAD, charge_of_head

if TYPE_CHECKING:
    from .pace import Pacer

#: The largest body read (64 MB, decoded). A page of the service is well under a
#: megabyte (50 comments, 26 ads), so a larger body is a broken or hostile answer
#: (an endless stream, a gzip bomb): it is cut off before it fills the memory. Whether
#: it was charged is told as for any body that broke (:class:`BrokenBody`).
MAX_BODY: Final = 64 * 2**20
_CHUNK: Final = 64 * 2**10  # read at a time: bounds what one step may inflate to

Answer: TypeAlias = requests.Response | tuple[int, Any] | tuple[int, Any, Mapping[str, str]]
"""What a :class:`MockTransport` handler returns: a ``requests.Response``, or
``(status, body)`` / ``(status, body, headers)`` where ``body`` is bytes, text, or
anything else (sent as JSON)."""

Handler: TypeAlias = Callable[[requests.PreparedRequest], Answer]
"""A function answering one request in-process. It may raise
``requests.ConnectionError`` / ``requests.Timeout`` to stand for a network failure."""


def _refuse_cache_only(request: requests.PreparedRequest) -> None:
    if "only-if-cached" in str(request.headers.get("Cache-Control", "")):
        raise NotCachedError("not in the cache; nothing was sent")


class Interrupted(requests.RequestException):
    """The run was interrupted (Ctrl-C) while this call waited to go: it was not sent."""


class BrokenBody(requests.ConnectionError):
    """The status line came, the body did not (cut short, corrupt, or too slow).

    Attributes:
        status_code: The status the service sent before the body broke.
        charged: Whether the service charged for it, as far as the status and the part
            of the body that came tell (:func:`~socialframe._http.charges.charge_of_head`):
            None when they cannot tell. (The part itself is not kept: it may echo a
            secret.)
    """

    def __init__(self, message: str, status_code: int, head: bytes = b"") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.charged = charge_of_head(status_code, head)


class BodyTooLarge(BrokenBody):
    """The body is over :data:`MAX_BODY` (as declared, or as read): it is not read.

    Retrying does not help: the same request gets the same body.
    """


class Guard(BaseAdapter):
    """Mounted around every transport: the rules of sending (see the module doc).

    Args:
        inner: The transport that sends.
        pacer: Waits before each request goes out (rate limit, 429 cooldown).
    """

    def __init__(self, inner: BaseAdapter, pacer: Pacer | None = None) -> None:
        super().__init__()
        self.inner = inner
        self.pacer = pacer

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: bool | str = True,
        cert: Any = None,
        proxies: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """Send ``request`` through the inner transport and read its whole body.

        Args:
            request: The prepared request.
            stream: Ignored: the body is always read here, under the deadline.
            timeout: Seconds for the whole call, connect to last byte (a float).
            verify: As in requests.
            cert: As in requests.
            proxies: As in requests.

        Returns:
            The response, its body read.

        Raises:
            NotCachedError: a cache-only request (nothing is sent).
            BrokenBody: the body broke or missed the deadline.

        Example:
            >>> import requests
            >>> guard = Guard(MockTransport(lambda request: (200, b"{}")))
            >>> guard.send(requests.Request("GET", "https://x.example/").prepare()).content
            b'{}'
        """
        _refuse_cache_only(request)
        stop = getattr(_calling, "stop", None)  # the run this call belongs to
        if self.pacer is not None:
            self.pacer.wait(stop)  # not part of the call's timeout: nothing is sent yet
        if stop is not None and stop.is_set():
            raise Interrupted("the run was interrupted; nothing was sent")
        with _Deadline(None if timeout is None else float(timeout)) as deadline:
            failure: requests.RequestException | None = None
            try:
                response = self.inner.send(
                    request, stream=True, timeout=timeout, verify=verify, cert=cert, proxies=proxies
                )
            except (requests.RequestException, OSError):
                if not deadline.passed.is_set():
                    raise
                # The socket was shut at the deadline, before the status line came.
                failure = requests.ReadTimeout(f"no answer within the timeout ({timeout} s)")
            if failure is not None:
                raise failure  # outside the except clause: no context holding the request
            with deadline._ending:
                if not deadline.released:  # (a body read whole at once may be back already)
                    deadline.response = response
            _read_body(response, deadline)
        return response

    def close(self) -> None:
        """Close the inner transport."""
        self.inner.close()

    def __repr__(self) -> str:
        return f"Guard({self.inner!r})"


# The one per-thread bridge of the call path, and only because requests forces it:
# ``Session.get`` hands an adapter's ``send`` a fixed set of arguments (no value of the
# caller's), and urllib3 gets a pool's connection (``_Pool._get_conn``) with none of the
# call either. So this thread's call carries its run's stop (set by :func:`stopping`,
# around the caller's send) and its deadline (set by :class:`_Deadline`) down to them.
# Everything above the session takes its values as arguments (``_http/call.py``).
_calling = threading.local()


@contextlib.contextmanager
def stopping(stop: threading.Event | None) -> Iterator[None]:
    """The calls this thread sends in the block belong to a run that ``stop`` ends: once
    it is set, :class:`Guard` sends nothing more, whatever the call waited for (the rate
    limit, a cooldown). requests passes no value of the caller down to a transport, so
    the run's stop rides with the thread, set and cleared here only.

    Example:
        >>> import threading
        >>> stop = threading.Event()
        >>> with stopping(stop):
        ...     pass
    """
    _calling.stop = stop
    try:
        yield
    finally:
        _calling.stop = None


class _Deadline:
    """One call's deadline: at ``seconds``, shut the call's socket (from :data:`_WATCH`).

    That unblocks whatever read the call is in (the status line, a header, the
    body), however slowly the server drips. The socket is known through
    :class:`_Pool` (our network transport); for another transport, only the
    body's read is cut, through the response.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.passed = threading.Event()
        self.over = False  # the call ended: the watch drops it unfired
        self._ending = threading.Lock()  # a cut never lands after the call ended
        self.connection: Any = None  # set by _Pool when the call gets its connection
        self.response: requests.Response | None = None
        self.released = False  # its connection went back to the pool: nothing to cut

    def __enter__(self) -> _Deadline:
        _calling.deadline = self
        if self.seconds is not None:
            _WATCH.add(time.monotonic() + max(0.0, self.seconds), self)
        return self

    def __exit__(self, *exc: object) -> None:
        _calling.deadline = None
        with self._ending:
            self.over = True
            # It waits in the watch's heap until its time: holding nothing meanwhile
            # (the response would keep the body, the request and its key header).
            self.connection = self.response = None

    def release(self, connection: Any) -> None:
        """``connection`` goes back to its pool: from now on it may serve another call,
        so a late cut must not touch it (nor this call's response, which reads from it)."""
        with self._ending:
            if self.connection is connection:
                self.connection = self.response = None
                self.released = True

    def cut(self) -> None:
        """The deadline passed: shut the call's socket (and its body's stream), unless
        the call has ended (its connection may be serving another call by now)."""
        with self._ending:
            if not self.over:
                self._cut()

    def _cut(self) -> None:
        self.passed.set()
        sock = getattr(self.connection, "sock", None)
        # no socket (an in-process answer), or already closed: nothing to cut
        with contextlib.suppress(OSError):
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(AttributeError, ValueError, RuntimeError, OSError):
            if self.response is not None:
                self.response.raw.shutdown()


class _Watch:
    """One thread that fires the deadlines of every call in flight, soonest first.

    A timer thread per call cost about 0.4 ms of each call's CPU (thread start);
    one watcher with a heap costs a push. Calls that end first are dropped when
    they reach the top. Started on first use. A forked child starts afresh: the
    parent's calls in flight are not its own (firing them would shut sockets the
    parent still uses), and the parent's lock may have been held as it forked.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every deadline and the thread (in a forked child)."""
        self._ready = threading.Condition()
        self._heap: list[tuple[float, int, _Deadline]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, at: float, deadline: _Deadline) -> None:
        """Fire ``deadline.cut()`` at monotonic time ``at``, unless it is over by then."""
        with self._ready:
            heapq.heappush(self._heap, (at, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="socialframe-deadlines", daemon=True
                )
                self._thread.start()
            elif self._heap[0][2] is deadline:
                self._ready.notify()  # sooner than what the watcher sleeps towards

    def _run(self) -> None:
        while True:
            with self._ready:
                while self._heap and self._heap[0][2].over:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._ready.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._ready.wait(wait)
                    continue
                deadline = heapq.heappop(self._heap)[2]
            deadline.cut()


_WATCH: Final = _Watch()
os.register_at_fork(after_in_child=_WATCH.reset)


def _read_body(response: requests.Response, deadline: _Deadline) -> None:
    """Read the whole body before the deadline and within :data:`MAX_BODY`, else raise
    :class:`BrokenBody` (:class:`BodyTooLarge` for a body over the cap)."""
    held = getattr(response, "_content", False)  # bytes: an in-process answer, read already
    too_big = _declared_length(response) > MAX_BODY or (
        isinstance(held, bytes) and len(held) > MAX_BODY
    )
    head = held[:HEAD] if isinstance(held, bytes) else b""  # what a broken body says
    broke = ""
    if not too_big and not isinstance(held, bytes):
        body = bytearray()
        try:
            # Decoded as it comes (gzip, deflate...): the cap holds for what a small
            # compressed body inflates to, not only for what crossed the wire.
            for chunk in _chunks(response):
                body += chunk
                if len(body) > MAX_BODY:
                    too_big = True
                    break
        except (requests.RequestException, OSError, urllib3.exceptions.HTTPError) as exc:
            broke = type(exc).__name__
        if not broke and not too_big:
            # requests keeps a read body there (``.content`` reads it so); there is no
            # public way to read a body in pieces and keep it.
            response._content = bytes(body)
        else:
            head = bytes(body[:HEAD])
        del body  # up to the cap, held no longer than needed
    if too_big:
        response.close()  # the rest is never read: the connection is not reused
        failure: BrokenBody = BodyTooLarge(
            f"HTTP {response.status_code}: the body is larger than"
            f" {MAX_BODY // 2**20} MB, far more than any page; it was not read",
            status_code=response.status_code,
            head=head,
        )
    elif broke:
        response.close()
        # A body read whole is good even if the deadline passed as it ended.
        late = deadline.passed.is_set()
        what = "took longer than the timeout" if late else f"broke ({broke})"
        failure = BrokenBody(
            f"HTTP {response.status_code}: the body {what}",
            status_code=response.status_code,
            head=head,
        )
    else:
        return
    del head  # (service data, maybe a secret: not a local of the frame raised from)
    raise failure


def _chunks(response: requests.Response) -> Iterator[bytes]:
    """The body, decoded, as it comes.

    From urllib3 (requests' own transport, and :class:`MockTransport`), each piece as
    one read gives it (``read1``): requests' ``iter_content`` fills a whole chunk
    first, and a body cut short inside it is lost whole (urllib3 raises with what it
    had read), when its first bytes are what tells whether it was charged.
    """
    raw = response.raw
    if not isinstance(raw, urllib3.response.BaseHTTPResponse):
        yield from response.iter_content(_CHUNK)  # another transport's response
        return
    while chunk := raw.read1(_CHUNK, decode_content=True):
        yield chunk


def _declared_length(response: requests.Response) -> int:
    """The body's length as the ``Content-Length`` header says (0 if it says nothing)."""
    try:
        return int(response.headers.get("Content-Length", "0").split(",")[0])
    except ValueError:
        return 0


class _Pool(HTTPConnectionPool):
    """A urllib3 pool that tells the call's deadline which connection it uses."""

    def _get_conn(self, timeout: float | None = None) -> Any:
        connection = super()._get_conn(timeout)
        deadline = getattr(_calling, "deadline", None)
        if deadline is not None:
            deadline.connection = connection
        return connection

    def _put_conn(self, conn: Any) -> None:
        # Back to the pool as the body's last byte is read, before the call ends: a
        # deadline passing now must not shut it under the next call that takes it.
        deadline = getattr(_calling, "deadline", None)
        if deadline is not None:
            deadline.release(conn)
        super()._put_conn(conn)


class _HTTPSPool(HTTPSConnectionPool, _Pool):
    """The same, for https."""


class HTTPTransport(HTTPAdapter):
    """The network: requests' ``HTTPAdapter`` (mounted inside a :class:`Guard`), whose
    pools let the call's deadline cut its socket (see :class:`_Deadline`)."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        """requests' pool manager, with pools that report their connections."""
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _Pool, "https": _HTTPSPool}


class MockTransport(HTTPAdapter):
    """Answers every request with ``handler(request)``, in-process.

    Args:
        handler: Called with each ``requests.PreparedRequest`` (its ``url``,
            ``headers``, ``method``); returns an :data:`Answer`.

    Example:
        >>> import socialframe as sf
        >>> def service(request):
        ...     return 200, {"success": True, "data": [], "totalPage": 1}
        >>> with sf.Client("key", base_url="https://api.example",
        ...                transport=sf.MockTransport(service), cache=False) as client:
        ...     len(client.post_comments("123")), client.ledger.paid_calls
        (0, 1)
    """

    def __init__(self, handler: Handler) -> None:
        super().__init__()
        self.handler = handler

    def send(
        self, request: requests.PreparedRequest, *args: Any, **kwargs: Any
    ) -> requests.Response:
        """Answer ``request`` with the handler (requests' adapter interface).

        Args:
            request: The prepared request.
            *args: requests' ``stream``, ``timeout``, ... (unused: nothing waits).
            **kwargs: The same, by name.

        Returns:
            The handler's answer as a ``requests.Response``.

        Example:
            >>> import requests
            >>> transport = MockTransport(lambda request: (201, {"ok": True}))
            >>> response = transport.send(requests.Request("GET", "https://x.example/").prepare())
            >>> response.status_code, response.json()
            (201, {'ok': True})
        """
        answer = self.handler(request)
        if isinstance(answer, requests.Response):
            answer.request = answer.request or request
            return answer
        status, body, *rest = answer
        headers = dict(rest[0]) if rest else {}
        if isinstance(body, bytes):
            content = body
        elif isinstance(body, str):
            content = body.encode("utf-8")
        else:
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        headers.setdefault("Content-Length", str(len(content)))
        raw = HTTPResponse(
            body=io.BytesIO(content),
            headers=headers,
            status=status,
            preload_content=False,
            decode_content=True,
            request_url=request.url,
        )
        return self.build_response(request, raw)

    def __repr__(self) -> str:
        return f"MockTransport({getattr(self.handler, '__name__', self.handler)!r})"
