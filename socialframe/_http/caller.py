"""One call to the service: it sends (through the cache) and counts, in that order.

As in httpx (``Client.send`` -> ``_send_handling_auth`` -> ``_send_single_request``),
each step is one method: :meth:`Caller.get` answers from the cache or holds the page's
locks, :meth:`Caller._try` runs one try under the budget, :meth:`Caller._send` sends it
and counts what came back. What is decided is decided elsewhere, first:

- what the cache does for the call and for each try: :mod:`.actions`;
- which failures are tried again, how long to wait, the deadlines: :mod:`.retry`;
- what an answer means (a status and a body -> an error, and its outcome for the
  ledger): :mod:`.answers`;
- the budget and the counts: the call's ledger (:class:`socialframe.Ledger`, the
  client's own; a run may add its own beside it), carried by the :class:`.call.Call`.

The ledger counts here, where a call really goes out: a call answered from the cache
is *saved*, a sent call that succeeded is *paid*, a sent call that failed is *failed*
(free), and one whose answer broke before it said which is *unsure* (paid, as far as
anyone knows: :mod:`.charges`).
"""

from __future__ import annotations

import os
import warnings
from datetime import timedelta
from typing import Any

import requests
from requests.adapters import BaseAdapter

from .. import _operations as operations
from .._cache.locks import KeyedLocks, LockWaits, is_redis, page_locks
from .._cache.notices import notices
from .._cache.setting import CacheSetting
from .._cache.warm import WarmRead
from .._checks import RateLimit
from .._clock import SYSTEM_CLOCK, Clock
from .._config import Settings
from .._errors import CacheWarning, FetchError, NetworkError, NotCachedError, SocialFrameError
from .._json import decoded
from .._models import Fetched, fetched_at
from .._version import __version__
from . import answers, auth
from . import transport as transport
from .actions import CacheActions, SendActions, counts_as_fresh, serves
from .call import Call
from .pace import Pacer
from .retry import RetryPolicy, waits_out
from .session import make_session
from .transport import BodyTooLarge, Interrupted


class Caller:
    """Makes the calls of one client. Not for direct use: see :class:`~socialframe.Client`.

    Args:
        settings: The key, the headers, the base URLs.
        cache: The cache setting (see :class:`~socialframe.Client`).
        offline: Answer from the cache only.
        policy: Tries, backoff and deadlines.
        expire_after: How long a cached page stays fresh.
        transport: What sends (the network unless given).
        clock: The clock calls wait on and pages are dated by.
        rate_limit: Calls per period, at most.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        cache: CacheSetting,
        offline: bool,
        policy: RetryPolicy,
        expire_after: float | timedelta,
        transport: BaseAdapter | None = None,
        clock: Clock = SYSTEM_CLOCK,
        rate_limit: RateLimit = None,
    ) -> None:
        self.settings = settings
        self.offline = offline
        self.policy = policy
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
        self._lock_waits = LockWaits(policy.page_wait)
        if is_redis(backend):
            self.pacer.share(backend.responses.connection)
        self._auth = auth.KeyAuth(settings.auth_header, settings.api_key)
        self._retrying = policy.retrying(clock.sleep)

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

    def get(self, call: Call) -> Fetched:
        """GET ``{base_url}/{path}?params`` for the call, with retries.

        A page the cache holds answers it, free (one fetched before ``call.fresh_after``
        does not count, nor one stamped later than now: by a clock since set back).
        Every try must have room in the call's ledger, which counts it.

        Raises:
            NotCachedError, BudgetExceededError, APIError (and subclasses),
            SchemaError, NetworkError.
        """
        base = operations.get(call.operation).base_url  # (the host that serves it)
        url = f"{self.settings.base_urls[base]}/{call.path}"
        actions = CacheActions.decide(cached=self.cached, fresh=call.fresh_after is not None)
        if actions.read_first and (hit := self._read(call, url, base)) is not None:
            return hit
        if not actions.lock_page:
            return self._retrying(self._try, call, url)
        # One page, one payment: a thread (or, through lock files beside a SQLite
        # cache, a process) asking for a page another one is fetching waits for
        # it, then reads it from the cache.
        key = f"{url}?{sorted(call.params.items())}"
        wait = self._lock_waits.current()
        with self._pages.held(key), self._files.held(key, wait=wait) as holder:
            if holder is not None:
                self._lock_waits.ran_out(holder)
            if actions.read_again and (hit := self._read(call, url, base)) is not None:
                return hit  # fetched while this call waited
            return self._retrying(self._try, call, url)

    def _read(self, call: Call, url: str, base: str) -> Fetched | None:
        """The page from the cache, counted as saved, if it holds one that counts."""
        assert self._warm is not None
        verify = self._sending[base]["verify"]
        hit = self._warm.read(call.operation, url, call.params, verify, call.authors)
        if hit is None or not counts_as_fresh(hit.fetched_at, call.fresh_after, self.clock.now()):
            return None
        call.ledger.record("cached")
        return hit

    def _scrub(self, text: str) -> str:
        return auth.scrub(text, self.settings.api_key, *self._secrets)

    def _refuse(self, call: Call) -> SocialFrameError:
        if self.offline:
            return NotCachedError(
                f"offline: this {call.operation} page is not in the cache, so nothing was"
                f" sent (params {dict(call.params)})."
            )
        return call.ledger.refusal(call.operation)

    def _try(self, call: Call, url: str) -> Fetched:
        """One try: a cent held against the budget (unless offline), the page asked of
        the session, the hold given back if it was not charged."""
        interrupted = FetchError(f"{call.operation}: the run was interrupted; nothing was sent")
        stop = call.stop
        if stop is not None and stop.is_set():
            raise interrupted  # (a FetchError that is never retried)
        ledger = call.ledger
        hold: Any = (
            None if self.offline else ledger.reserve(wait=self.policy.budget_wait, stop=stop)
        )
        actions = SendActions.decide(
            cached=self.cached, fresh=call.fresh_after is not None, held=hold is not None
        )
        if actions.refuse:
            raise self._refuse(call)
        try:
            if stop is not None and stop.is_set():
                raise interrupted
            # The transport checks it again before sending: requests passes no value of
            # ours down to it, so the stop rides with the thread (see transport._calling).
            with transport.stopping(stop):
                return self._send(call, url, actions, hold)
        finally:
            ledger.release(hold)  # not charged (cached, refused, raised): given back

    def _send(
        self,
        call: Call,
        url: str,
        actions: SendActions,
        hold: Any,
        *,
        refetched: bool = False,
    ) -> Fetched:
        """Send one GET (or ask the cache only), and count it in the ledger, settling
        ``hold`` (the call's cent held against the budget)."""
        operation, ledger = call.operation, call.ledger
        failure: FetchError | None = None
        try:
            # Redirects are not followed: requests would re-send a custom key header
            # to whatever host the redirect names, and requests-cache would store the
            # first request of the chain, key included.
            sending = self._sending[operations.get(operation).base_url]
            response = self.session.get(
                url,
                params=dict(call.params),
                auth=self._auth,
                timeout=self.policy.timeout,
                allow_redirects=False,
                proxies=sending["proxies"],
                verify=sending["verify"],
                **actions.session_options(),
            )
        except NotCachedError:
            raise self._refuse(call) from None
        except Interrupted:
            failure = FetchError(f"{operation}: the run was interrupted; nothing was sent")
        except (requests.ConnectionError, requests.Timeout) as exc:
            ledger.record(answers.charged(exc), hold=hold)
            failure = NetworkError(
                self._scrub(f"{operation}: {answers.unreached(exc, url, self.policy.timeout)}"),
                # (the same body again; a name the resolver says does not exist is not
                # a passing fault: five tries took 20 s to say so)
                retryable=not isinstance(exc, BodyTooLarge) and not answers.unknown_host(exc),
            )
        except answers.UNSENDABLE as exc:
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
        if actions.only_if_cached and response.status_code == 504:
            raise self._refuse(call)
        if getattr(response, "from_cache", False):
            if not refetched and not serves(operation, response.status_code, decoded(response)):
                self._drop(response)
                return self._send(call, url, actions, hold, refetched=True)
            ledger.record("cached", hold=hold)
            stale = self.offline and bool(getattr(response, "is_expired", False))
            return Fetched(decoded(response), fetched_at(response.headers, self.clock), True, stale)
        if answers.is_paid_page(response):
            ledger.record("paid", hold=hold)
            return Fetched(decoded(response), fetched_at(response.headers, self.clock), False)
        raise self._failure(call, response, hold)

    def _drop(self, response: requests.Response) -> None:
        """Drop a cached page that is not a page of its operation (see :func:`.actions.serves`)."""
        cache: Any = self.session.cache  # type: ignore[attr-defined]
        key = str(getattr(response, "cache_key", ""))
        failures = getattr(cache, "failures", None)
        if failures is not None:
            failures.unreadable(key)
        cache.delete(key)

    def _failure(self, call: Call, response: requests.Response, hold: Any) -> FetchError:
        """The error for a response that is not a paid page, counted in the ledger.

        Built in its own frame, so that no unscrubbed text (a body echoing the key) is a
        local variable of the frame it is raised from: crash reporters render the
        locals of every frame.
        """
        error, outcome = answers.failure(call.operation, response, self._scrub, self.clock.now())
        call.ledger.record(outcome, hold=hold)
        wait = getattr(error, "retry_after", None)
        if response.status_code == 429 and waits_out(wait):
            assert wait is not None
            self.pacer.pause(wait)  # every worker of the client waits it out, once
        return error
