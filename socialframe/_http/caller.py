"""One call to the service: auth, retries, status -> exception, ledger and budget.

This is where a call really goes out, so it is where the ledger counts: a call
answered from the cache is *saved*, a sent call that succeeded is *paid*, a sent
call that failed is *failed* (free). The budget guard runs before each send: a
call that would take the spend over ``max_cost`` may still be answered from the
cache, and is otherwise refused without being sent.

Retries use tenacity (exponential backoff with jitter) on 429 (waiting at least
its ``Retry-After``), 5xx, connection errors, bodies that broke or missed the
``timeout`` deadline, and HTTP 200 ``success: false`` bodies. 400 and 401 are
final. A body that broke counts as what the part of it that came says
(:mod:`.charges`): a success is paid, a ``success: false`` is free, and one too
short to tell is paid and counted as unsure; so is a request that got no status
line within the deadline (the service may have answered it).

Why over 400 lines: the retry policy (tenacity, ``Retry-After``), the mapping of
status and body to the public exceptions and the ledger's accounting are one
sequence around one send; auth, the warm read, the locks and the budget are
elsewhere (:mod:`.auth`, :mod:`socialframe._cache.warm`, :mod:`socialframe._cache.locks`,
:class:`socialframe.Ledger`).
"""

from __future__ import annotations

import email.utils
import os
import socket
import threading
import warnings
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from urllib.parse import urlsplit

import requests
import tenacity
import urllib3
from requests.adapters import BaseAdapter

from .. import _operations as operations
from .._cache.locks import KeyedLocks, LockWaits, is_redis, page_locks
from .._cache.notices import notices
from .._cache.setting import CacheSetting
from .._cache.warm import WarmRead
from .._checks import RateLimit
from .._clock import SYSTEM_CLOCK, Clock
from .._config import Settings
from .._errors import (
    APIError,
    AuthError,
    BadRequestError,
    CacheWarning,
    FetchError,
    NetworkError,
    NotCachedError,
    RateLimitError,
    SchemaError,
    ServerError,
    SocialFrameError,
)
from .._frames.shape import problem
from .._json import decoded
from .._ledger import Ledger, Ledgers, Outcome
from .._models import Fetched, fetched_at
from .._version import __version__
from . import auth
from . import transport as transport
from .charges import is_success
from .pace import Pacer
from .session import make_session
from .transport import BodyTooLarge, BrokenBody, Interrupted

MAX_BACKOFF: Final = 30.0  # seconds between two tries, at most
MAX_RETRY_AFTER: Final = 120.0  # a longer Retry-After is not waited for
#: How far past the clock's now a cached page's stamp may be and still count as fresh
#: (another process's clock a little ahead); further, it was stamped by a clock since
#: set back, and is as old as anything.
FRESH_SKEW: Final = timedelta(minutes=5)


def _retry_after(response: requests.Response, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` of seconds or an HTTP date; None if unreadable.

    An HTTP date counts from ``now`` (the client's clock; the real time when omitted).
    """
    raw = response.headers.get("Retry-After", "").strip()
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": UTC by RFC 5322
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


#: What requests, urllib3 and the socket raise for a request they cannot send at all.
_UNSENDABLE: Final = (
    requests.exceptions.InvalidURL,
    requests.exceptions.InvalidHeader,
    requests.exceptions.InvalidSchema,
    requests.exceptions.MissingSchema,
    urllib3.exceptions.LocationValueError,
    UnicodeError,
)


class _Wait(tenacity.wait.wait_base):
    """Exponential backoff with jitter, and never less than a 429's Retry-After."""

    def __init__(self, backoff: float) -> None:
        self._exp = tenacity.wait_exponential(
            multiplier=backoff, max=MAX_BACKOFF
        ) + tenacity.wait_random(0, backoff)

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        wait = float(self._exp(retry_state))
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(exc, RateLimitError) and exc.retry_after is not None:
            wait = max(wait, exc.retry_after)
        return wait


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, RateLimitError):
        return exc.retry_after is None or exc.retry_after <= MAX_RETRY_AFTER
    if isinstance(exc, NetworkError):
        return exc.retryable
    return isinstance(exc, ServerError)


def unreached(exc: BaseException, url: str, timeout: float) -> str:
    """What a failed connection says, in one line: which host, and why (not urllib3's
    pool, retry and URL text).

    Example:
        >>> import requests
        >>> unreached(requests.ConnectionError("[Errno 111] Connection refused"),
        ...           "http://127.0.0.1:9/x?y=1", 60)
        'could not reach 127.0.0.1:9: the connection was refused'
    """
    if isinstance(exc, BrokenBody):  # our own words: the status came, the body did not
        return f"{type(exc).__name__}: {exc}"
    parts = urlsplit(url)
    where = parts.hostname or "the service"
    if parts.port:
        where += f":{parts.port}"
    text = " ".join(str(e) for e in _chain(exc)).lower()
    if isinstance(exc, requests.Timeout) or "timed out" in text:
        why = f"no answer within the {timeout:g} s timeout"
    elif "refused" in text:
        why = "the connection was refused"
    elif "resolve" in text or "name or service not known" in text or "nodename" in text:
        why = "its name was not found (check the base URL, and the network)"
    elif "ssl" in text or "certificate" in text:
        why = "the TLS handshake failed (its certificate, or a proxy in between)"
    elif "reset" in text or "aborted" in text or "closed" in text or "remote end" in text:
        why = "the connection was closed before an answer"
    elif "unreachable" in text:
        why = "the network is unreachable"
    else:
        why = f"the connection failed ({type(exc).__name__})"
    return f"could not reach {where}: {why}"


#: What the resolver answers for a name that does not exist (not "try again later").
_NO_SUCH_NAME: Final = frozenset(
    getattr(socket, name)
    for name in ("EAI_NONAME", "EAI_NODATA", "EAI_FAIL")
    if hasattr(socket, name)
)


def unknown_host(exc: BaseException) -> bool:
    """Whether ``exc`` is the resolver saying the host's name does not exist (a typo in
    the base URL: trying again cannot help; ``EAI_AGAIN``, a resolver that did not
    answer in time, can).

    Example:
        >>> import socket
        >>> unknown_host(OSError(socket.gaierror(socket.EAI_NONAME, "Name or service not known")))
        True
        >>> unknown_host(socket.gaierror(socket.EAI_AGAIN, "Temporary failure"))
        False
    """
    return any(isinstance(e, socket.gaierror) and e.errno in _NO_SUCH_NAME for e in _chain(exc))


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the errors it wraps (requests wraps urllib3's, which wraps the socket's)."""
    seen: list[BaseException] = []
    todo: list[Any] = [exc]
    while todo and len(seen) < 12:
        current = todo.pop()
        if not isinstance(current, BaseException) or current in seen:
            continue
        seen.append(current)
        todo += [current.__cause__, current.__context__, getattr(current, "reason", None)]
        todo += [a for a in current.args if isinstance(a, BaseException)]
    return seen


class Caller:
    """Makes the calls of one client. Not for direct use: see :class:`~socialframe.Client`."""

    def __init__(
        self,
        settings: Settings,
        *,
        cache: CacheSetting,
        offline: bool,
        max_cost_cents: int | None,
        max_cost_usd: float | None = None,
        max_retries: int,
        timeout: float,
        backoff: float,
        expire_after: float | timedelta,
        transport: BaseAdapter | None = None,
        clock: Clock = SYSTEM_CLOCK,
        rate_limit: RateLimit = None,
    ) -> None:
        self.settings = settings
        self.ledger = Ledger(max_cost_cents, max_cost_usd=max_cost_usd)  # the budget's one owner
        self.offline = offline
        self.timeout = timeout
        self.cached = cache is not False and cache is not None
        secret_headers, secrets = auth.secrets(settings)
        self._secrets = tuple(secrets)  # the key and the secret headers' values, hidden
        self.clock = clock
        self.pacer = Pacer(rate_limit, clock)
        self.session = make_session(
            cache,
            secret_headers=secret_headers,
            secret_values=secrets,
            expire_after=expire_after,
            serve_stale=offline,
            transport=transport,
            clock=clock,
            pacer=self.pacer,
        )
        self.session.headers.update({"User-Agent": f"socialframe/{__version__}"})
        self.session.headers.update(auth.sent_headers(settings))  # secret ones Masked
        # Proxies (HTTP(S)_PROXY, NO_PROXY) and CA bundles (REQUESTS_CA_BUNDLE) are
        # read from the environment once per base URL, when the client is built:
        # requests would scan the whole environment again on every call. Only what
        # the environment says is passed per call; the session's own settings
        # (session.verify, .cert, .proxies) still apply as requests applies them.
        bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        self._sending: dict[str, dict[str, Any]] = {
            operation: {
                "proxies": requests.utils.get_environ_proxies(base, no_proxy=None),
                "verify": bundle or None,
            }
            for operation, base in settings.base_urls.items()
        }
        self.session.trust_env = False
        self._warm = (
            WarmRead(self.session, auth_header=settings.auth_header, offline=offline, clock=clock)
            if self.cached
            else None
        )
        self._pages = KeyedLocks()
        backend: Any = getattr(self.session, "cache", None)
        self._files = page_locks(backend)
        # A page waits for another process's fetch of it: one call may take its whole
        # deadline twice (a retry after a cooldown); past that, see LockWaits.
        self._lock_waits = LockWaits(2 * timeout)
        if is_redis(backend):
            self.pacer.share(backend.responses.connection)
        # How long a call waits for the calls in flight that hold the rest of the
        # budget: one of them may take its whole deadline after a Retry-After cooldown.
        self._budget_wait = 2 * timeout + MAX_RETRY_AFTER
        self._auth = auth.KeyAuth(settings.auth_header, settings.api_key)
        self._retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(max_retries + 1),
            wait=_Wait(backoff),
            retry=tenacity.retry_if_exception(_retryable),
            reraise=True,
            sleep=clock.sleep,
        )

    def warn_unstored(self) -> None:
        """One :class:`CacheWarning` for each thing the cache, its locks and the shared
        rate limit have to say since the last call (nothing, mostly)."""
        notice = self.pacer.take_notice()
        said = [notice[:1].upper() + notice[1:] + "."] if notice else []
        said += [self._lock_waits.take()] + notices(getattr(self.session, "cache", None))
        for text in said:
            if text:
                warnings.warn(CacheWarning(text), stacklevel=4)

    def close(self) -> None:
        """Close the session (and the cache connection)."""
        self.session.close()

    def get(
        self,
        operation: str,
        path: str,
        params: Mapping[str, str],
        stop: threading.Event | None = None,
        authors: dict[bytes, Any] | None = None,
        fresh_after: datetime | None = None,
        ledgers: tuple[Ledger, ...] = (),
    ) -> Fetched:
        """GET ``{base_url}/{path}?params`` for ``operation``, with retries.

        ``fresh_after``: a cached page fetched before this time does not count: the
        page is fetched from the service again and stored in its place (a study's
        refresh asks so for the pages that may hold what is new). One fetched at or
        after it (by this run before it was cut short, another thread or process)
        is answered from the cache, free; one stamped later than now (by a clock since
        set back) counts as old.

        ``stop`` is the run's: once set (the user interrupted it), nothing more is
        sent, whatever the call was waiting for (the budget, the rate limit, a
        cooldown): Ctrl-C reaches the main thread only, and workers would go on.
        ``authors`` is the run's too: the author texts of the comment pages read
        from the cache so far, parsed once each. ``ledgers`` are kept beside the
        client's (a study's refresh: its own budget, each item's paid calls): each
        attempt must have room in all of them, and each counts it.

        Raises:
            NotCachedError, BudgetExceededError, APIError (and subclasses),
            SchemaError, NetworkError.
        """
        base = operations.get(operation).base_url  # (the host that serves it)
        url = f"{self.settings.base_urls[base]}/{path}"
        ledger = Ledgers(self.ledger, *ledgers) if ledgers else self.ledger
        if not self.cached:
            return self._retrying(
                self._attempt, operation, url, dict(params), ledger=ledger, stop=stop
            )
        assert self._warm is not None
        verify = self._sending[base]["verify"]

        def warm() -> Fetched | None:
            assert self._warm is not None
            hit = self._warm.read(operation, url, params, verify, authors)
            if hit is None:
                return None
            if fresh_after is not None and not (
                fresh_after <= hit.fetched_at <= self.clock.now() + FRESH_SKEW
            ):
                return None
            ledger.record("cached")
            return hit

        if (hit := warm()) is not None:
            return hit
        # One page, one payment: a thread (or, through lock files beside a SQLite
        # cache, a process) asking for a page another one is fetching waits for
        # it, then reads it from the cache.
        key = f"{url}?{sorted(params.items())}"
        wait = self._lock_waits.current()
        with self._pages.held(key), self._files.held(key, wait=wait) as holder:
            if holder is not None:
                self._lock_waits.ran_out(holder)
            if fresh_after is not None:
                if (hit := warm()) is not None:  # fetched while this call waited
                    return hit
                return self._retrying(
                    self._attempt,
                    operation,
                    url,
                    dict(params),
                    ledger=ledger,
                    stop=stop,
                    fresh=True,
                )
            return self._retrying(
                self._attempt, operation, url, dict(params), ledger=ledger, stop=stop
            )

    def _scrub(self, text: str) -> str:
        return auth.scrub(text, self.settings.api_key, *self._secrets)

    def _refuse(
        self, operation: str, params: Mapping[str, str], ledger: Ledger | Ledgers
    ) -> SocialFrameError:
        if self.offline:
            return NotCachedError(
                f"offline: this {operation} page is not in the cache, so nothing was sent"
                f" (params {dict(params)})."
            )
        return ledger.refusal(operation)

    def _attempt(
        self,
        operation: str,
        url: str,
        params: dict[str, str],
        *,
        ledger: Ledger | Ledgers,
        refetched: bool = False,
        stop: threading.Event | None = None,
        fresh: bool = False,
    ) -> Fetched:
        interrupted = FetchError(f"{operation}: the run was interrupted; nothing was sent")
        if stop is not None and stop.is_set():
            raise interrupted  # (a FetchError that is never retried)
        hold: Any = None if self.offline else ledger.reserve(wait=self._budget_wait, stop=stop)
        if fresh and hold is None:  # the cache's page is too old to count: it must be paid
            raise self._refuse(operation, params, ledger)
        try:
            if stop is not None and stop.is_set():
                raise interrupted
            with transport.stopping(stop):  # the transport checks it again before sending
                return self._send(
                    operation, url, params, ledger, hold, refetched=refetched, fresh=fresh
                )
        finally:
            ledger.release(hold)  # not charged (cached, refused, raised): given back

    def _send(
        self,
        operation: str,
        url: str,
        params: dict[str, str],
        ledger: Ledger | Ledgers,
        hold: Any,
        *,
        refetched: bool,
        fresh: bool = False,
    ) -> Fetched:
        """Send one GET (or, without ``hold``, ask the cache only), and count it in the
        ledger, settling ``hold`` (the call's cent held against the budget)."""
        cache_only = hold is None
        if cache_only and not self.cached:
            raise self._refuse(operation, params, ledger)
        extra: dict[str, Any] = {"only_if_cached": True} if cache_only else {}
        if fresh and not cache_only:
            extra["force_refresh"] = True  # sent whatever the cache holds; stored anew
        failure: FetchError | None = None
        try:
            # Redirects are not followed: requests would re-send a custom key header
            # to whatever host the redirect names, and requests-cache would store the
            # first request of the chain, key included.
            sending = self._sending[operations.get(operation).base_url]
            response = self.session.get(
                url,
                params=params,
                auth=self._auth,
                timeout=self.timeout,
                allow_redirects=False,
                proxies=sending["proxies"],
                verify=sending["verify"],
                **extra,
            )
        except NotCachedError:
            raise self._refuse(operation, params, ledger) from None
        except Interrupted:
            failure = FetchError(f"{operation}: the run was interrupted; nothing was sent")
        except (requests.ConnectionError, requests.Timeout) as exc:
            # A body that broke was charged if what came of it says so (a 200 success);
            # when too little came to tell, "unsure": paid for the budget, and said so.
            # So is a request sent that got no status in time: the service may have
            # answered it, and charged (one that could not connect was not sent).
            if isinstance(exc, BrokenBody):
                charged = exc.charged
            else:
                charged = None if isinstance(exc, requests.ReadTimeout) else False
            outcome: Outcome = "unsure" if charged is None else "paid" if charged else "failed"
            ledger.record(outcome, hold=hold)
            failure = NetworkError(
                self._scrub(f"{operation}: {unreached(exc, url, self.timeout)}"),
                # (the same body again; a name the resolver says does not exist is not
                # a passing fault: five tries took 20 s to say so)
                retryable=not isinstance(exc, BodyTooLarge) and not unknown_host(exc),
            )
        except _UNSENDABLE as exc:
            # A request requests, urllib3 or the socket refuse to send (an URL they cannot
            # read, a header they refuse): nothing was sent, and the same call fails the
            # same way. Their errors' frames hold the request, key included.
            failure = NetworkError(
                self._scrub(f"{operation}: the request could not be sent ({type(exc).__name__})"),
                retryable=False,
            )
        if failure is not None:
            # Raised outside the except clause: requests' exception (whose request
            # holds the key in its headers) must not ride along as __context__.
            raise failure
        if cache_only and response.status_code == 504:
            raise self._refuse(operation, params, ledger)
        if getattr(response, "from_cache", False):
            if not refetched and (
                response.status_code != 200 or problem(operation, decoded(response)) is not None
            ):
                # Not a page of its operation (stored by an older version that did not
                # check shapes, or by someone else): drop it and fetch it again, rather
                # than fail every re-run from the cache.
                cache: Any = self.session.cache  # type: ignore[attr-defined]
                key = str(getattr(response, "cache_key", ""))
                failures = getattr(cache, "failures", None)
                if failures is not None:
                    failures.unreadable(key)
                cache.delete(key)
                return self._send(operation, url, params, ledger, hold, refetched=True)
            ledger.record("cached", hold=hold)
            return Fetched(decoded(response), fetched_at(response.headers, self.clock), True)
        return self._classify(operation, response, ledger, hold)

    def _classify(
        self,
        operation: str,
        response: requests.Response,
        ledger: Ledger | Ledgers,
        hold: Any,
    ) -> Fetched:
        """A paid 200 success as :class:`Fetched`; anything else raised as its error.

        The error is built in :meth:`_failure`, so that no unscrubbed text (a body
        echoing the key) is a local variable of the frame it is raised from: crash
        reporters render the locals of every frame.
        """
        if response.status_code == 200 and is_success(decoded(response)):
            ledger.record("paid", hold=hold)
            return Fetched(decoded(response), fetched_at(response.headers, self.clock), False)
        raise self._failure(operation, response, ledger, hold)

    def _failure(
        self,
        operation: str,
        response: requests.Response,
        ledger: Ledger | Ledgers,
        hold: Any,
    ) -> FetchError:
        """The error for a response that is not a success, counted in the ledger."""
        status = response.status_code
        body = decoded(response)
        message = ""
        if isinstance(body, dict):
            message = str(body.get("message") or body.get("error") or "")
        elif status != 200:
            message = response.text
        message = self._scrub(message)[:200]  # scrubbed whole: a cut could split the key
        if status == 200:
            if isinstance(body, dict):  # success: false
                ledger.record("failed", hold=hold)
                return ServerError(status, message, operation=operation)
            ledger.record("paid", hold=hold)
            return SchemaError(
                f"{operation}: HTTP 200 but the body is not a JSON object:"
                f" {self._scrub(response.text)[:200]!r}"
            )
        ledger.record("failed", hold=hold)
        if status == 400:
            return BadRequestError(status, message, operation=operation)
        if status in (401, 403):
            return AuthError(status, message, operation=operation)
        if 300 <= status < 400:
            where = self._scrub(response.headers.get("Location", "?"))
            return APIError(
                status,
                f"redirected to {where}; set base_url to the final URL (redirects are not"
                " followed, so the key never travels to another host)",
                operation=operation,
            )
        if status == 429:
            wait = _retry_after(response, self.clock.now())
            if wait is not None and wait <= MAX_RETRY_AFTER:
                self.pacer.pause(wait)  # every worker of the client waits it out, once
            return RateLimitError(status, message, operation=operation, retry_after=wait)
        if status >= 500:
            return ServerError(status, message, operation=operation)
        return APIError(status, message, operation=operation)
