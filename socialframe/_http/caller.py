"""One call to the service: auth, retries, status -> exception, ledger and budget.

This is where a call really goes out, so it is where the ledger counts: a call
answered from the cache is *saved*, a sent call that succeeded is *paid*, a sent
call that failed is *failed* (free). The budget guard runs before each send: a
call that would take the spend over ``max_cost`` may still be answered from the
cache, and is otherwise refused without being sent.

Retries use tenacity (exponential backoff with jitter) on 429 (waiting at least
its ``Retry-After``), 5xx, connection errors, bodies that broke or missed the
``timeout`` deadline, and HTTP 200 ``success: false`` bodies. 400 and 401 are
final. A 200 whose body broke counts as paid: the service charged for it.
"""

from __future__ import annotations

import contextlib
import email.utils
import os
import re
import threading
import warnings
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, Final

import requests
import tenacity
import urllib3
from requests.adapters import BaseAdapter

from .._cache.locks import FileLocks, LockWaits, NoLocks, RedisLocks
from .._cache.rules import remember
from .._cache.setting import CacheSetting
from .._cache.warm import Stored, body_of, stored
from .._checks import RateLimit
from .._clock import SYSTEM_CLOCK, Clock
from .._config import Secret, Settings
from .._errors import (
    APIError,
    AuthError,
    BadRequestError,
    BudgetExceededError,
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
from .._json import NOT_PARSED, decoded
from .._ledger import Ledger, Outcome
from .._models import FETCHED_AT, Fetched
from .._time import instant
from .._version import __version__
from . import transport as transport
from .pace import Pacer
from .session import make_session
from .transport import BodyTooLarge, BrokenBody, Interrupted

_SECRET_NAME: Final = re.compile(r"key|token|secret|auth|password|cookie", re.IGNORECASE)
MAX_BACKOFF: Final = 30.0  # seconds between two tries, at most
MAX_RETRY_AFTER: Final = 120.0  # a longer Retry-After is not waited for
#: Characters the key (or a secret header's value) needs to be scrubbed from what the
#: service sends back and from messages: a shorter one ("k", "2") is no secret worth the
#: name, and replacing it would cut ordinary words and headers apart.
MIN_SECRET: Final = 8


class KeyAuth(requests.auth.AuthBase):
    """Puts the key on each request: ``Bearer <key>`` in Authorization, else bare."""

    def __init__(self, header: str, key: Secret | None) -> None:
        self.header = header
        self._key = key

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if self._key is not None:
            value = self._key.reveal()
            if self.header.lower() == "authorization":
                value = f"Bearer {value}"
            request.headers[self.header] = value
        return request

    def __repr__(self) -> str:
        return f"KeyAuth(header={self.header!r}, key=***)"


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


def _fetched_at(headers: Mapping[str, str], clock: Clock) -> datetime:
    """When the service answered: stamped on arrival and kept with the cached copy
    (``headers``: a response's, case-insensitive, or a stored page's, in lower case)."""
    return instant(headers.get(FETCHED_AT.lower())) or clock.now()


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


def _is_success(body: Any) -> bool:
    """A body the service charged for and that is not its ``success: false`` failure."""
    return isinstance(body, dict) and body.get("success") is not False


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, RateLimitError):
        return exc.retry_after is None or exc.retry_after <= MAX_RETRY_AFTER
    if isinstance(exc, NetworkError):
        return exc.retryable
    return isinstance(exc, ServerError)


class KeyedLocks:
    """One lock per key, made on first use and dropped when no thread holds or waits."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, list[int]]] = {}

    @contextlib.contextmanager
    def held(self, key: str) -> Iterator[None]:
        """Hold ``key``'s lock for the block (waiting for another thread's turn)."""
        with self._guard:
            lock, users = self._locks.setdefault(key, (threading.Lock(), [0]))
            users[0] += 1
        try:
            with lock:
                yield
        finally:
            with self._guard:
                users[0] -= 1
                if not users[0]:
                    del self._locks[key]


def _is_redis(backend: Any) -> bool:
    """requests-cache's Redis backend (ours or a user's), without importing redis-py."""
    return any(cls.__name__ == "RedisCache" for cls in type(backend).__mro__)


def _page_locks(backend: Any) -> Any:
    """Locks that make one payment per page hold across processes (and machines).

    Raises:
        ConfigError: the place of a SQLite cache's lock folder is taken by a file.
    """
    from .._cache.sqlite import Store  # with the cache: requests-cache is heavy

    if isinstance(backend, Store):
        # A file this process cannot write stores no page: there is nothing to lock.
        writable = not backend.read_only and os.access(backend.db_path, os.W_OK)
        return FileLocks(Path(backend.db_path)) if writable else NoLocks()
    if _is_redis(backend):
        return RedisLocks(backend.responses.connection)
    return NoLocks()


def _secrets(settings: Settings) -> tuple[list[str], list[Secret]]:
    """The names of the headers that carry a secret, and the secrets to scrub from what
    the service sends back (kept as :class:`Secret`: a traceback through the client's
    construction shows no value).

    A header is a secret when its name says so, or when it carries the key. A value
    shorter than :data:`MIN_SECRET` ("2" of a version header) is no secret worth the
    name, and scrubbing it would cut ordinary text apart.
    """
    key = settings.api_key
    names = [settings.auth_header] + [
        name
        for name, value in settings.headers.items()
        if _SECRET_NAME.search(name) or (key is not None and key.reveal() in value)
    ]
    values = [key] if key is not None and len(key.reveal()) >= MIN_SECRET else []
    values += [
        Secret(settings.headers[name])
        for name in names
        if len(settings.headers.get(name, "")) >= MIN_SECRET
    ]
    return names, values


class Caller:
    """Makes the calls of one client. Not for direct use: see :class:`~socialframe.Client`."""

    def __init__(
        self,
        settings: Settings,
        *,
        cache: CacheSetting,
        offline: bool,
        max_cost_cents: Decimal | None,
        max_retries: int,
        timeout: float,
        backoff: float,
        expire_after: float | timedelta,
        transport: BaseAdapter | None = None,
        clock: Clock = SYSTEM_CLOCK,
        rate_limit: RateLimit = None,
    ) -> None:
        self.settings = settings
        self.ledger = Ledger()
        self.offline = offline
        self.max_cost_cents = max_cost_cents
        self.timeout = timeout
        self.cached = cache is not False and cache is not None
        secret_headers, secrets = _secrets(settings)
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
        self.session.headers.update(settings.headers)
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
        #: The cache key of each page read by the fast path: computing one (requests'
        #: URL preparation, requests-cache's normalisation) was a third of a warm read.
        self._keys: dict[tuple[Any, ...], str] = {}
        self._auth_header = settings.auth_header.lower()
        ignored = getattr(getattr(self.session, "settings", None), "ignored_parameters", None)
        self._redacted = {str(name).lower() for name in ignored or ()}
        self._pages = KeyedLocks()
        backend: Any = getattr(self.session, "cache", None)
        self._files = _page_locks(backend)
        # A page waits for another process's fetch of it: one call may take its whole
        # deadline twice (a retry after a cooldown); past that, see LockWaits.
        self._lock_waits = LockWaits(2 * timeout)
        if _is_redis(backend):
            self.pacer.share(backend.responses.connection)
        # How long a call waits for the calls in flight that hold the rest of the
        # budget: one of them may take its whole deadline after a Retry-After cooldown.
        self._budget_wait = 2 * timeout + MAX_RETRY_AFTER
        self._local = threading.local()  # the budget hold of each thread's call in flight
        self._auth = KeyAuth(settings.auth_header, settings.api_key)
        self._retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(max_retries + 1),
            wait=_Wait(backoff),
            retry=tenacity.retry_if_exception(_retryable),
            reraise=True,
            sleep=clock.sleep,
        )

    def warn_unstored(self) -> None:
        """One :class:`CacheWarning` for the paid pages the cache could not store since
        the last call (none, or no SQLite cache: nothing)."""
        notice = self.pacer.take_notice()
        if notice:
            warnings.warn(CacheWarning(notice[:1].upper() + notice[1:] + "."), stacklevel=4)
        waited = self._lock_waits.take()
        if waited:
            warnings.warn(CacheWarning(waited), stacklevel=4)
        backend: Any = getattr(self.session, "cache", None)
        failures = getattr(backend, "failures", None)
        if failures is None:
            return
        count, reason = failures.take()
        where = getattr(backend, "where", None) or backend.db_path
        unreadable = failures.take_unreadable()
        if unreadable:
            from .._cache.sqlite import (
                unreadable_message,  # (a cache is open: requests-cache is in)
            )

            warnings.warn(CacheWarning(unreadable_message(unreadable, where)), stacklevel=4)
        if count:
            warnings.warn(
                CacheWarning(
                    f"{count} paid page{'s' * (count != 1)} could not be stored in the cache"
                    f" at {where}: {reason}. They are in what this fetch returns (or in"
                    " its error's .partial); a re-run would pay for them again. "
                    + (
                        "Check the team cache's Redis (its memory, its permissions), or"
                        " pass cache=True for the local cache."
                        if getattr(backend, "where", None)
                        else "Free some space or fix the file's permissions, or pass another"
                        " cache= path."
                    )
                ),
                stacklevel=4,
            )

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
    ) -> Fetched:
        """GET ``{base_url}/{path}?params`` for ``operation``, with retries.

        ``stop`` is the run's: once set (the user interrupted it), nothing more is
        sent, whatever the call was waiting for (the budget, the rate limit, a
        cooldown): Ctrl-C reaches the main thread only, and workers would go on.
        ``authors`` is the run's too: the author texts of the comment pages read
        from the cache so far, parsed once each.

        Raises:
            NotCachedError, BudgetExceededError, APIError (and subclasses),
            SchemaError, NetworkError.
        """
        url = f"{self.settings.base_urls[operation]}/{path}"
        if not self.cached:
            return self._retrying(self._attempt, operation, url, dict(params), stop=stop)
        hit = self._read(operation, url, params, authors)
        if hit is not None:
            return hit
        # One page, one payment: a thread (or, through lock files beside a SQLite
        # cache, a process) asking for a page another one is fetching waits for
        # it, then reads it from the cache.
        key = f"{url}?{sorted(params.items())}"
        wait = self._lock_waits.current()
        with self._pages.held(key), self._files.held(key, wait=wait) as holder:
            if holder is not None:
                self._lock_waits.ran_out(holder)
            return self._retrying(self._attempt, operation, url, dict(params), stop=stop)

    def _read(
        self,
        operation: str,
        url: str,
        params: Mapping[str, str],
        authors: dict[bytes, Any] | None = None,
    ) -> Fetched | None:
        """The page straight from the cache backend, or None to take the full path.

        A warm re-run spent most of its time in requests and requests-cache before
        the cache was even read (preparing the request, hooks, the policy checks).
        This computes the page's requests-cache key once and reads the backend
        directly; the cache stays requests-cache's own store. It answers only what
        it is sure of: a fresh (or, offline, any) stored 200 page of the right
        shape whose ``Vary`` headers match what this client sends. Anything else
        (a miss, an expired page, a ``Vary`` it cannot judge, a page of the wrong
        shape, a backend that fails) goes through the full path, which decides.
        """
        if "Cache-Control" in self.session.headers or "Pragma" in self.session.headers:
            return None  # the caller asked the cache something: requests-cache answers
        import sqlite3  # with the cache, not at import

        backend: Any = self.session.cache  # type: ignore[attr-defined]
        try:
            verify = self._sending[operation]["verify"]
            verify = self.session.verify if verify is None else verify
            key = self._key(backend, url, params, verify)
            page = stored(backend, key)
        except (NetworkError, OSError, sqlite3.Error):
            return None  # the full path meets the same failure and reports it
        if (
            page is None
            or page.status != 200
            or (page.expired and not self.offline)
            or not self._vary_matches(page)
        ):
            return None
        body = body_of(operation, page, authors)
        if body is NOT_PARSED or problem(operation, body) is not None:
            return None  # the full path decodes it as requests does, or drops it and refetches
        self.ledger.record("cached")
        return Fetched(body, _fetched_at(page.headers, self.clock), True)

    def _key(self, backend: Any, url: str, params: Mapping[str, str], verify: Any) -> str:
        """The requests-cache key of a GET of ``url`` with ``params`` (computed once)."""
        try:
            memo: tuple[Any, ...] | None = (url, tuple(sorted(params.items())), verify)
            known = self._keys.get(memo)  # type: ignore[arg-type]
        except TypeError:  # an unhashable verify setting: compute it every time
            memo = known = None
        if known is not None:
            return known
        request = requests.PreparedRequest()
        request.prepare_method("GET")
        request.prepare_url(url, params)
        request.prepare_headers({})
        request.body = None
        key = str(backend.create_key(request, verify=verify))
        if memo is not None:
            remember(self._keys, memo, key)
        return key

    def _vary_matches(self, page: Stored) -> bool:
        """Whether a stored page's ``Vary`` headers match this client's requests.

        The headers this client sends are the same on every call (the session's
        and the key's), so the check is requests-cache's own, made cheaply: the
        named headers must be equal on the stored request and on ours. Cookies,
        ``*`` and headers this client sends whose values are redacted from the
        cache (requests-cache counts those as a miss) are left to the full path.
        """
        vary = page.headers.get("vary")
        if not vary:
            return True
        names = [name.strip().lower() for name in vary.split(",") if name.strip()]
        sent = {name.lower() for name in self.session.headers} | {self._auth_header}
        if any(
            name in ("*", "cookie") or (name in self._redacted and name in sent) for name in names
        ):
            return False
        if page.sent is None:
            return False
        return all(page.sent.get(name) == self.session.headers.get(name) for name in names)

    def _scrub(self, text: str) -> str:
        key = self.settings.api_key
        if key is None or len(key.reveal()) < MIN_SECRET:
            return text
        return text.replace(key.reveal(), "***")

    def _refuse(self, operation: str, params: Mapping[str, str]) -> SocialFrameError:
        if self.offline:
            return NotCachedError(
                f"offline: this {operation} page is not in the cache, so nothing was sent"
                f" (params {dict(params)})."
            )
        assert self.max_cost_cents is not None
        budget = float(self.max_cost_cents / 100)
        return BudgetExceededError(
            f"the next {operation} call would take the spend over max_cost=${budget:.2f}"
            f" (spent ${self.ledger.spent_usd:.2f}); it was not sent."
            " Raise max_cost, or use the pages fetched so far: error.partial.",
            max_cost=budget,
            spent_usd=self.ledger.spent_usd,
        )

    def _attempt(
        self,
        operation: str,
        url: str,
        params: dict[str, str],
        refetched: bool = False,
        stop: threading.Event | None = None,
    ) -> Fetched:
        interrupted = FetchError(f"{operation}: the run was interrupted; nothing was sent")
        if stop is not None and stop.is_set():
            raise interrupted  # (a FetchError that is never retried)
        hold = (
            None
            if self.offline
            else self.ledger.reserve(self.max_cost_cents, wait=self._budget_wait, stop=stop)
        )
        try:
            if stop is not None and stop.is_set():
                raise interrupted
            self._local.hold = hold
            transport._calling.stop = stop  # the transport checks it again before sending
            return self._send(operation, url, params, cache_only=hold is None, refetched=refetched)
        finally:
            transport._calling.stop = None
            self._local.hold = None
            self.ledger.release(hold)  # not charged (cached, refused, raised): given back

    def _count(self, outcome: Outcome) -> None:
        """Count this thread's call in the ledger, settling its budget hold."""
        self.ledger.record(outcome, hold=getattr(self._local, "hold", None))

    def _send(
        self, operation: str, url: str, params: dict[str, str], *, cache_only: bool, refetched: bool
    ) -> Fetched:
        if cache_only and not self.cached:
            raise self._refuse(operation, params)
        extra: dict[str, Any] = {"only_if_cached": True} if cache_only else {}
        failure: FetchError | None = None
        try:
            # Redirects are not followed: requests would re-send a custom key header
            # to whatever host the redirect names, and requests-cache would store the
            # first request of the chain, key included.
            sending = self._sending[operation]
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
            raise self._refuse(operation, params) from None
        except Interrupted:
            failure = FetchError(f"{operation}: the run was interrupted; nothing was sent")
        except (requests.ConnectionError, requests.Timeout) as exc:
            # A 200 whose body then broke was charged: the ledger says what was spent.
            charged = isinstance(exc, BrokenBody) and exc.status_code == 200
            self._count("paid" if charged else "failed")
            failure = NetworkError(
                self._scrub(f"{operation}: {type(exc).__name__}: {exc}"),
                retryable=not isinstance(exc, BodyTooLarge),  # the same body again
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
            raise self._refuse(operation, params)
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
                return self._send(operation, url, params, cache_only=cache_only, refetched=True)
            self._count("cached")
            return Fetched(decoded(response), _fetched_at(response.headers, self.clock), True)
        return self._classify(operation, response)

    def _classify(self, operation: str, response: requests.Response) -> Fetched:
        """A paid 200 success as :class:`Fetched`; anything else raised as its error.

        The error is built in :meth:`_failure`, so that no unscrubbed text (a body
        echoing the key) is a local variable of the frame it is raised from: crash
        reporters render the locals of every frame.
        """
        if response.status_code == 200 and _is_success(decoded(response)):
            self._count("paid")
            return Fetched(decoded(response), _fetched_at(response.headers, self.clock), False)
        raise self._failure(operation, response)

    def _failure(self, operation: str, response: requests.Response) -> FetchError:
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
                self._count("failed")
                return ServerError(status, message, operation=operation)
            self._count("paid")
            return SchemaError(
                f"{operation}: HTTP 200 but the body is not a JSON object:"
                f" {self._scrub(response.text)[:200]!r}"
            )
        self._count("failed")
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
