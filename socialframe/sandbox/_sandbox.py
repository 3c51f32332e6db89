"""The Sandbox: the service's state and gates, served over HTTP or in-process.

Each GET goes through the same gates as on the real service, in this order:

1. an injected fault (:meth:`Sandbox.inject`), if one is queued;
2. the rate limit (429 with ``Retry-After: 1``);
3. the API key (401);
4. a random fault, when ``fault_rate`` draws one;
5. the operation itself (:func:`socialframe.sandbox._routes.route`): 200, 400 or 404.

Only a 200 success is charged. Other methods get 405. The answers reach the
client through the HTTP server (:mod:`socialframe.sandbox._server`) or, with no
socket at all, through :meth:`Sandbox.transport`.

Why over 400 lines: two fifths are docstrings (this is the sandbox's user
documentation: ``inject``, ``fault_rate``, the counters); the code is the gates
above and the state they keep, about 240 lines.
"""

from __future__ import annotations

import hmac
import json
import random
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, urlsplit

from .._client import Client
from .._clock import SYSTEM_CLOCK, Clock, ManualClock, SystemClock
from .._http.transport import MockTransport
from . import _routes as routes
from ._routes import OPERATIONS as SERVED
from ._routes import Answer, Fault, Route
from ._server import Server

if TYPE_CHECKING:
    from types import TracebackType

    from requests import PreparedRequest

    from .._client import Client
    from .._http.transport import MockTransport


class Headers(Protocol):
    """Request headers as both the server (``email.message.Message``) and the
    in-process transport (``requests``' case-insensitive dict) hold them;
    a name may repeat in the former."""

    def keys(self) -> Iterable[str]: ...

    def items(self) -> Iterable[tuple[str, str]]: ...


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One request the sandbox received. Header values (the key) are never kept.

    Attributes:
        path: The URL path, without the query string.
        params: The query parameters (the last value of a repeated name).
        status: The HTTP status answered.
        charged: Whether the request was billed.
        headers: The names of the request headers, as sent (never their values).
        auth: How the key came, e.g. ``"Authorization: Bearer"`` or
            ``"X-RapidAPI-Key"`` (the header name as sent); None if it did not.
        at: When it arrived, on the sandbox clock's ``monotonic()`` (seconds).

    Example:
        >>> from socialframe.sandbox import Sandbox
        >>> sandbox = Sandbox()
        >>> with sandbox.client(in_process=True, cache=False) as client:
        ...     _ = client.search_ads("coffee", max_pages=1)
        >>> record = sandbox.requests[0]
        >>> record.path, record.params, record.status, record.charged, record.auth
        ('/seed-0/fetch_search_ads_pages', {'query': 'coffee'}, 200, True, 'Authorization: Bearer')
    """

    path: str
    params: dict[str, str]
    status: int
    charged: bool
    headers: tuple[str, ...] = ()
    auth: str | None = None
    at: float = 0.0


class Sandbox:
    """A local stand-in for the paid service, with deterministic data.

    Args:
        port: TCP port on 127.0.0.1; 0 picks a free one at start.
        seed: Chooses the data; the same seed always answers the same bodies.
        latency: Seconds slept before each answer.
        fault_rate: Share of GET requests, in [0, 1], that fail instead: half with
            a 502/503, half with an HTTP-200 ``success: false`` envelope. Drawn from
            ``random.Random(seed)`` in arrival order, so a run is repeatable.
        rate_limit: Most requests accepted in any one-second window; more get 429.
        api_key: The key to accept; a random ``sf-sandbox-...`` one by default.
        clock: Dates the world (each request sees it as of ``clock.now()``:
            comments and ads keep arriving after the reference date,
            2026-01-01), times the rate-limit window and sleeps the latency; the
            system's by default. :class:`~socialframe.sandbox.PinnedClock` pins the
            world's date and keeps waits real (for a server: tests, demos);
            :class:`~socialframe.sandbox.ManualClock` pins it too (moving only
            when slept on or advanced), and shared with an in-process client,
            waits cost nothing.
        faults: What the real service does to a monitor, on from the day after the
            reference date (:mod:`socialframe.sandbox._faults`: ads dropped from a
            day's pages, paused and resumed, edited; tracking parameters, CDN hosts
            and signatures that change on every answer; comments edited and
            deleted). Off by default. Its world is its own (``seed-0/faults/...``).
        routes: More operations to serve, by the last segment of their path (a
            :class:`~socialframe.sandbox.Route` each): the seam for an operation
            socialframe does not ship (a test of a new one). The service's two
            cannot be replaced.

    Example:
        >>> import requests
        >>> with Sandbox() as sb, requests.Session() as s:
        ...     r = s.get(sb.url + "/fetch_search_ads_pages", params={"query": "for kids"},
        ...               headers={"Authorization": f"Bearer {sb.api_key}"})
        >>> r.status_code, sb.charges
        (200, 1)
    """

    def __init__(
        self,
        port: int = 0,
        seed: int = 0,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        rate_limit: float | None = None,
        *,
        api_key: str | None = None,
        clock: Clock | None = None,
        faults: bool = False,
        routes: Mapping[str, Route] | None = None,
    ) -> None:
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be within [0, 1], got {fault_rate}")
        if latency < 0:
            raise ValueError(f"latency must be >= 0, got {latency}")
        if rate_limit is not None and rate_limit <= 0:
            raise ValueError(f"rate_limit must be > 0 or None, got {rate_limit}")
        if api_key == "":
            raise ValueError("api_key must not be empty")
        clash = sorted(set(routes or {}) & set(SERVED))
        if clash:
            raise ValueError(f"routes may not replace the service's operations: {clash}")
        self.routes: dict[str, Route] = dict(routes or {})
        self.seed = seed
        self.faults = bool(faults)
        self.latency = latency
        self.fault_rate = fault_rate
        self.rate_limit = rate_limit
        self.api_key = api_key or "sf-sandbox-" + secrets.token_hex(8)
        self.clock: Clock = clock or SYSTEM_CLOCK
        self._timeline = _timeline(self.clock)
        self._port = port
        self._lock = threading.Lock()
        self._charges = 0
        self._records: list[RequestRecord] = []
        self._injected: deque[Fault] = deque()
        self._fault_rng = random.Random(seed)
        self._window: deque[float] = deque()
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    # -- state -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port (known before start only when one was given)."""
        if self._port == 0:
            raise RuntimeError("port 0 is chosen at start(): start the sandbox first")
        return self._port

    @property
    def world(self) -> str:
        """Which world this sandbox serves, as its URLs' path names it: ``seed-<seed>``,
        and for a clock that is not the system's, where that clock started.

        - ``seed-0``: the live world, dated by the system clock. It behaves as the real
          service does: a cached page is served until it expires, while the world
          moves on.
        - ``seed-0/at-20260101T000000Z``: the world of a :class:`PinnedClock` pinned
          to that date (``socialframe sandbox --at``, the demo, the notebooks).
        - ``seed-0/manual-20260101T000000Z``: the world of a :class:`ManualClock`
          that started then.

        Cache keys are made of URLs, so the pages of one world are never served to
        another: a notebook pinned to 2026-01-01 shows that date whatever ran before
        it. A clock's whole timeline is one world (a refresh a simulated week later
        finds the pages of the week before in the cache, as it would with the real
        service).

        Example:
            >>> from socialframe.sandbox import PinnedClock
            >>> Sandbox(seed=3).world, Sandbox(clock=PinnedClock()).world
            ('seed-3', 'seed-0/at-20260101T000000Z')
        """
        return f"seed-{self.seed}" + ("/faults" if self.faults else "") + self._timeline

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:<port>/<world>`` (see :attr:`world`).

        The seed and the clock sit in the path so that caches of different worlds
        never share keys; the server routes on the last path segment and ignores
        the rest.
        """
        return f"http://127.0.0.1:{self.port}/{self.world}"

    @property
    def charges(self) -> int:
        """Paid calls served: HTTP-200 successes."""
        with self._lock:
            return self._charges

    @property
    def requests(self) -> list[RequestRecord]:
        """A copy of the records of every request received, in arrival order."""
        with self._lock:
            return list(self._records)

    def inject(self, *faults: Fault) -> None:
        """Queue faults for the next GET requests, one per request, in order.

        They take precedence over everything else, ``fault_rate`` included.

        Args:
            *faults: HTTP statuses (429, 500, 502, 503, 400, 401, ...),
                ``"success_false"`` / ``"bad_gateway"`` (the HTTP-200 envelopes),
                faults in transit (``"truncated"``, ``"bad_chunk"``,
                ``"bad_gzip"``, ``"drip"``, ``"vary_star"``: see
                ``socialframe.sandbox._routes.WIRE``: they break the answer the
                request would get otherwise), a JSON object to serve
                as a charged HTTP 200 body (a body of the wrong shape), or a pair
                ``(wire, fault)``: the fault's answer broken in transit, such as
                ``("truncated", "success_false")`` (a failure envelope cut short:
                not charged, as the envelope is not).

        Raises:
            ValueError: A fault is neither.

        Example:
            >>> from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox
            >>> sandbox = Sandbox(clock=ManualClock())
            >>> sandbox.inject(503, "success_false")
            >>> with sandbox.client(in_process=True, cache=False) as client:
            ...     _ = client.post_comments(EXAMPLE_POSTS[1])
            >>> [(r.status, r.charged) for r in sandbox.requests]
            [(503, False), (200, False), (200, True)]
        """
        for kind in faults:
            if isinstance(kind, tuple):
                wire, inner = kind if len(kind) == 2 else ("", None)
                if wire not in routes.WIRE or isinstance(inner, tuple):
                    raise ValueError(
                        f"a pair of faults is (wire, fault), with wire one of"
                        f" {sorted(routes.WIRE)}, got {kind!r}"
                    )
                routes.fault(inner)
            elif not (isinstance(kind, str) and kind in routes.WIRE):
                routes.fault(kind)  # validates now rather than mid-request
        with self._lock:
            self._injected.extend(faults)

    def client(self, *, in_process: bool = False, **client_kwargs: Any) -> Client:
        """Return a :class:`socialframe.Client` pointed at this sandbox.

        Args:
            in_process: Answer in this process through :meth:`transport`, without
                a server or a socket (the sandbox need not be started). The
                client then also shares this sandbox's clock, unless given one.
            **client_kwargs: More arguments for the client (cache, max_cost, ...).

        Returns:
            The client, with this sandbox's key and URL.

        Example:
            >>> from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox
            >>> clock = ManualClock()
            >>> sandbox = Sandbox(clock=clock)  # not started: no port, no thread
            >>> sandbox.inject(503, 429)
            >>> with sandbox.client(in_process=True, cache=False) as client:
            ...     n = len(client.post_comments(EXAMPLE_POSTS[82]))
            >>> n, client.ledger.failed_calls, sandbox.charges, clock.sleeps[1] >= 1.0
            (82, 2, 2, True)
        """

        if in_process:
            client_kwargs.setdefault("transport", self.transport())
            client_kwargs.setdefault("clock", self.clock)
            return Client(api_key=self.api_key, base_url=self.in_process_url, **client_kwargs)
        return Client(api_key=self.api_key, base_url=self.url, **client_kwargs)

    @property
    def in_process_url(self) -> str:
        """The base URL of :meth:`transport`: ``http://sandbox.invalid/<world>``.

        ``.invalid`` never resolves (RFC 2606): a client pointed there without the
        in-process transport fails rather than reaching some other host.
        """
        return f"http://sandbox.invalid/{self.world}"

    def transport(self) -> MockTransport:
        """This sandbox as an in-process transport, for ``sf.Client(transport=...)``.

        Every request goes through the same gates as on the server (injected
        faults, rate limit, key, random faults), is recorded in :attr:`requests`
        and counted in :attr:`charges`; ``latency`` is slept on :attr:`clock`.

        Returns:
            A :class:`~socialframe.MockTransport` answering at
            :attr:`in_process_url` (any host works; only the path's last segment
            routes).

        Example:
            >>> import socialframe as sf
            >>> from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox
            >>> sandbox = Sandbox(clock=ManualClock())  # its world as of 2026-01-01
            >>> with sf.Client(sandbox.api_key, base_url="https://api.example",
            ...                transport=sandbox.transport(), cache=False) as client:
            ...     len(client.post_comments(EXAMPLE_POSTS[50])), sandbox.charges
            (50, 1)
        """

        def answer(request: PreparedRequest) -> tuple[int, Any, dict[str, str]]:
            split = urlsplit(request.url or "")
            target = split.path + (f"?{split.query}" if split.query else "")
            found = self._answer(request.method or "GET", target, request.headers)
            if self.latency:
                self.clock.sleep(self.latency)
            headers = dict(found.headers)
            content = json.dumps(found.body, ensure_ascii=False).encode("utf-8")
            if found.wire == "bad_gzip":
                headers["Content-Encoding"] = "gzip"
            elif found.wire:  # no wire in-process: the body is cut short
                headers["Content-Length"] = str(len(content) + 100)
            return found.status, content, headers

        return MockTransport(answer)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Sandbox:
        """Bind the port and serve in a background thread.

        Returns:
            This sandbox.

        Raises:
            RuntimeError: It is already running.

        Example:
            >>> sandbox = Sandbox().start()
            >>> sandbox.url.startswith("http://127.0.0.1:")
            True
            >>> sandbox.close()
        """
        server = self._bind()
        self._thread = threading.Thread(
            target=server.serve_forever,
            # How fast close() returns: the loop notices a shutdown only between polls.
            # 10 ms costs ~100 idle wake-ups a second; 50 ms made every short-lived
            # sandbox (one per test) wait 50 ms to close.
            kwargs={"poll_interval": 0.01},
            name=f"socialframe-sandbox-{self._port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port; a no-op when not running.

        Example:
            >>> sandbox = Sandbox().start()
            >>> sandbox.close()
            >>> sandbox.close()  # again: nothing to do
        """
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        server.shutdown()
        server.close()
        thread.join()
        self._server = self._thread = None

    def serve_forever(self, ready: Callable[[Sandbox], None] | None = None) -> None:
        """Serve in the calling thread until KeyboardInterrupt.

        Args:
            ready: Called once the port is bound, before serving (e.g. to print
                :attr:`url` when the port was 0).

        Example:
            ``python -m socialframe sandbox --port 8750`` runs this; from code::

                Sandbox(port=8750).serve_forever(ready=lambda s: print(s.url))
        """
        server = self._bind()
        try:
            if ready is not None:
                ready(self)
            server.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            server.close()
            self._server = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self._server is not None else "stopped"
        where = self.url if self._port else "port 0"
        return f"<Sandbox {where} seed={self.seed} {state} charges={self.charges}>"

    def _bind(self) -> Server:
        if self._server is not None:
            raise RuntimeError("the sandbox is already running")
        self._server = Server(self._serve, self._port, self.clock.sleep)
        self._port = self._server.server_address[1]
        return self._server

    # -- answering ---------------------------------------------------------------------------

    def _serve(self, method: str, target: str, headers: Headers) -> Answer:
        """The server's handler: the answer to one request, after the latency."""
        answer = self._answer(method, target, headers)
        if self.latency:
            self.clock.sleep(self.latency)
        return answer

    def _answer(self, method: str, target: str, headers: Headers) -> Answer:
        """Decide the answer to one request, record it and count its charge.

        Args:
            method: The HTTP method.
            target: The request target (path and query string).
            headers: The request headers.

        Returns:
            The answer to write.
        """
        split = urlsplit(target)
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        auth = self._key_header(headers)
        answer = self._decide(method, split.path, params, auth is not None)
        record = RequestRecord(
            split.path,
            params,
            answer.status,
            answer.charged,
            tuple(headers.keys()),
            auth,
            self.clock.monotonic(),
        )
        with self._lock:
            self._records.append(record)
            self._charges += answer.charged
        return answer

    def _decide(
        self,
        method: str,
        path: str,
        params: Mapping[str, str],
        authorised: bool,
        wire: bool = False,
    ) -> Answer:
        if method != "GET":
            return routes.error(405)
        with self._lock:
            # (a wire fault breaks the answer the request would get otherwise)
            injected = self._injected.popleft() if self._injected and not wire else None
            # Two draws for every GET, used or not: request n's fate depends only on n.
            draw, kind = self._fault_rng.random(), self._fault_rng.random()
            limited = injected is None and self._over_limit()
        if isinstance(injected, tuple):  # (wire, fault): the fault's answer, broken
            return replace(routes.fault(injected[1]), wire=injected[0])
        if isinstance(injected, str) and injected in routes.WIRE:
            answer = self._decide(method, path, params, authorised, wire=True)
            if injected == "vary_star":
                kept = tuple(h for h in answer.headers if h[0] != "Vary")
                return replace(answer, headers=(*kept, ("Vary", "*")))
            return replace(answer, wire=injected)
        if injected is not None:
            return routes.fault(injected)
        if limited:
            return routes.error(429)
        if not authorised:
            return routes.error(401)
        if draw < self.fault_rate:
            return routes.fault((502, 503, "success_false", "bad_gateway")[int(kind * 4)])
        return routes.route(path, params, self.seed, self.clock.now(), self.faults, self.routes)

    def _over_limit(self) -> bool:
        # Sliding one-second window over accepted requests; the caller holds the lock.
        if self.rate_limit is None:
            return False
        now = self.clock.monotonic()
        while self._window and self._window[0] <= now - 1.0:
            self._window.popleft()
        if len(self._window) >= self.rate_limit:
            return True
        self._window.append(now)
        return False

    def _key_header(self, headers: Headers) -> str | None:
        """How the key came (for the record), or None when no header carries it."""
        # Deployments differ (Bearer token, X-RapidAPI-Key, ...): accept the key in
        # any header, whatever its name's casing, bare or as a Bearer token.
        key = self.api_key.encode()
        for name, value in headers.items():
            value = value.strip()
            bearer = name.lower() == "authorization" and value[:7].lower() == "bearer "
            if bearer:
                value = value[7:].strip()
            if hmac.compare_digest(value.encode("utf-8", "surrogateescape"), key):
                return f"{name}: Bearer" if bearer else name
        return None


def _timeline(clock: Clock) -> str:
    """The part of a world's name that says which clock dates it (``""`` for the system's):
    its kind and where it started, fixed when the sandbox is made."""
    if clock is SYSTEM_CLOCK or isinstance(clock, SystemClock):
        return ""
    kind = "manual" if isinstance(clock, ManualClock) else "at"
    start = getattr(clock, "start", None)
    if not isinstance(start, datetime):  # a clock of the user's: where it stands now
        start = clock.now()
    start = start.astimezone(UTC)
    stamp = start.strftime("%Y%m%dT%H%M%S") + (f".{start:%f}" if start.microsecond else "")
    return f"/{kind}-{stamp}Z"
