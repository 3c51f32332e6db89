"""The team cache's connection to Redis: every command bounded, and failing as our error.

Every command that reaches the team's Redis (requests-cache's reads, writes, deletes
and key scans, the page locks, the shared rate limit's bucket, the cache report) goes
through :meth:`Guarded.execute_command`, redis-py's one path for a command, so no call
path, old or new, meets a raw redis-py error:

- a connection that fails (refused, reset, the server restarting or loading its data)
  is tried again, at most :data:`ATTEMPTS` times within about a second; a command that
  timed out is not (it already waited :data:`SOCKET_TIMEOUT`);
- an answer that is no Redis answer (garbage on the socket, whatever redis-py's parser
  raises on it) is not tried again at once: the server is taken as down (below);
- what still fails is a :class:`~socialframe.NetworkError` (that very class: what a user
  catches and sees named) naming the cache, never its password, and what it said;
  ``retryable`` unless the server answered the command with an error (``OOM``,
  ``NOPERM``, ``WRONGTYPE``...): one that does not answer may come back;
- once the server stopped answering, commands fail at once for :data:`DOWN_FOR`
  seconds rather than each waiting again (a run over many pages with Redis gone ends
  in seconds, not in a timeout per page); then it is tried again, so a Redis restarted
  mid-run is found again;
- a script the server forgot (restarted: ``NOSCRIPT``) is loaded again and run;
- pipelines, pub/sub and ``MONITOR`` are refused: they would go around the guard.

What a failure means is each caller's rule (see :mod:`socialframe._cache.redis`): a read
that fails stops the call before anything is sent, a write that fails is a
:class:`~socialframe.CacheWarning` and the page is kept in the frame, a delete is best
effort, a lock that cannot be taken is waited without and said, the rate limit goes on
locally.

The error is raised outside redis-py's ``except`` clauses, from the text of the failure
alone: redis-py's frames (whose locals hold the connection's arguments, the password
among them while it authenticates) never ride along as its ``__context__``.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from typing import Any, Final, NamedTuple
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from .._config import Secret
from .._errors import NetworkError

ATTEMPTS: Final = 4
"""Tries of a command whose connection failed (the first included)."""
BACKOFF: Final = (0.05, 0.2, 0.5)
"""Seconds before the second, third and fourth try."""
DOWN_FOR: Final = 1.0
"""Seconds commands fail at once after the server stopped answering."""
SOCKET_TIMEOUT: Final = 10.0
"""Seconds a command waits for its answer (``?socket_timeout=`` in the URL changes it)."""
CONNECT_TIMEOUT: Final = 5.0
"""Seconds a connection waits to be made (``?socket_connect_timeout=`` changes it)."""


def shown(url: str) -> str:
    """A team cache's URL as every message shows it: no password, whatever its form.

    Read the way redis-py reads it (``urllib.parse``): what is shown is built from the
    scheme, host, port and database alone (a socket's path for ``unix://``), with
    ``***@`` where the URL holds a user part. A password in the user part or as
    ``?password=`` is never shown, nor any other query argument (``ssl_password``...),
    nor what follows an unencoded ``#``, ``/`` or ``?`` in a password (which redis-py
    would read as the path, query or fragment): such a URL gets a hint instead.

    Example:
        >>> shown("redis://:s3cret@cache.local:6379/0?password=x")
        'redis://***@cache.local:6379/0'
        >>> shown("redis://user:pa#ss@cache.local:6379/0")
        'redis://***@?:? (a # / or ? in the password must be percent-encoded)'
    """
    scheme = url.split("://", 1)[0] if "://" in url else "redis"
    try:
        parts = urlsplit(url)
        if "@" in parts.path + parts.query + parts.fragment:
            # An unencoded # / ? in the password ended the user part early: what
            # follows it (some of the password) would be read as the path or query.
            return f"{scheme}://***@?:? (a # / or ? in the password must be percent-encoded)"
        host, port = parts.hostname or "", parts.port
    except ValueError:  # (a port that is no number: it may be a piece of the password)
        return f"{scheme}://*** (the URL cannot be read: check the host and port)"
    user = "***@" if "@" in parts.netloc else ""
    if scheme == "unix":
        return f"unix://{user}{parts.path}"
    db = next((v for k, v in parse_qsl(parts.query) if k == "db"), parts.path.strip("/"))
    host = f"[{host}]" if ":" in host else host
    where = host if port is None else f"{host}:{port}"
    return f"{scheme}://{user}{where}" + (f"/{db}" if db.isdigit() else "")


def password_free(text: str, url: str) -> str:
    """``text`` (a library's message about ``url``) with every part of the URL that
    could hold a password replaced by ``***``."""
    secrets = set()
    try:
        parts = urlsplit(url)
        for value in (parts.password, parts.username, parts.netloc, parts.fragment):
            if value:
                secrets.add(value)
        for key, value in parse_qsl(parts.query):
            if value and key != "db":
                secrets.add(value)
    except ValueError:
        return "the URL cannot be read"
    for secret in sorted(secrets, key=len, reverse=True):
        for form in {secret, unquote(secret), quote(secret, safe="")}:
            if len(form) >= 2:
                text = text.replace(form, "***")
    return text


class TeamURL(Secret):
    """A team cache's URL, hidden: it may hold a password (in its user part, or as
    ``?password=``). Its repr and str are the URL as messages show it (:func:`shown`), so
    a traceback through the client's construction, or a repr of a setting, never shows
    the password; :meth:`reveal` is for redis-py alone.

    Example:
        >>> TeamURL("redis://:s3cret@cache.local:6379/0")
        TeamURL('redis://***@cache.local:6379/0')
    """

    __slots__ = ()

    @property
    def shown(self) -> str:
        """The URL as every message shows it (:func:`shown`)."""
        return shown(self.reveal())

    def __repr__(self) -> str:
        return f"TeamURL({self.shown!r})"

    __str__ = __repr__


NOTHING_SENT: Final = (
    ": nothing was sent (the page may be in it, and with Redis down no lock keeps"
    " two machines from paying for it at once). Start Redis again (a re-run pays only"
    " for the pages it lacks), or pass cache=True for the local cache."
)
"""What a fetch that stopped on the team cache says after its error."""


def told(error: NetworkError, more: str) -> NetworkError:
    """``error`` with ``more`` said after its message (a new error: raised outside the
    ``except`` clause that caught ``error``, it carries no chain)."""
    return NetworkError(f"{error}{more}", partial=error.partial, retryable=error.retryable)


class _Failure(NamedTuple):
    """What one try met, as text only (no exception object: no frames kept)."""

    kind: str  # "down" (no answer: try again), "timeout", "auth", "garbled" (an answer no
    # Redis gives); or it answered an error: "noscript" (it forgot a script), "refused"
    # (any other: OOM, NOPERM, WRONGTYPE...)
    said: str  # the type and redis-py's message, password-free


class _State:
    """Whether the server answers, shared by the threads of one connection."""

    def __init__(self, url: TeamURL) -> None:
        self.where = url.shown
        self.url = url  # (only to take its password out of redis-py's messages)
        self.scripts: dict[str, str] = {}  # sha1 -> source, to load a forgotten script
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._down: _Failure | None = None

    def down(self) -> _Failure | None:
        """Why commands fail at once now (None when the server is tried)."""
        with self._lock:
            return self._down if time.monotonic() < self._down_until else None

    def went_down(self, failure: _Failure) -> None:
        with self._lock:
            self._down_until = time.monotonic() + DOWN_FOR
            self._down = failure


def _failure(exc: BaseException, state: _State) -> _Failure:
    """One try's failure as text (see :class:`_Failure`)."""
    import redis

    text = password_free(f"{type(exc).__name__}: {exc}", state.url.reveal())[:300]
    errors = redis.exceptions
    if isinstance(exc, errors.AuthenticationError | errors.AuthorizationError):
        return _Failure("auth", text)
    if isinstance(exc, errors.TimeoutError | TimeoutError):
        return _Failure("timeout", text)
    if isinstance(exc, errors.ConnectionError | errors.TryAgainError | OSError):
        return _Failure("down", text)
    if isinstance(exc, errors.InvalidResponse) or not isinstance(exc, errors.RedisError):
        # What redis-py's parser makes of bytes that are no Redis answer (a proxy gone
        # wrong, another program on the port): InvalidResponse, or whatever its code
        # met (ValueError, RecursionError on an answer nested 100,000 deep...).
        # redis-py dropped the connection (its stream is out of step): not tried again
        # at once, as the server would likely answer the same.
        return _Failure("garbled", text)
    if isinstance(exc, errors.NoScriptError):
        return _Failure("noscript", text)
    return _Failure("refused", text)  # it answered with an error (OOM, NOPERM, READONLY...)


def _error(failure: _Failure, state: _State) -> NetworkError:
    """The error a failure is: retryable unless the server refused the command (a
    password it refused may be set right, and a server that did not answer may come
    back: the fetch's own retries try again)."""
    what = {
        "down": "stopped answering",
        "timeout": "did not answer in time",
        "auth": "refused the password or the user of its URL",
        "garbled": "answered what no Redis answers",
    }.get(failure.kind, "refused a command")
    return NetworkError(
        f"the team cache at {state.where} {what} ({failure.said})",
        retryable=failure.kind in _COMES_BACK,
    )


#: Failures of a server that may answer again: the fetch's own retries try again, and
#: meanwhile commands fail at once (:data:`DOWN_FOR`).
_COMES_BACK: Final = ("down", "timeout", "auth", "garbled")


def _sha(source: Any) -> str:
    data = source if isinstance(source, bytes) else str(source).encode()
    return hashlib.sha1(data).hexdigest()  # (Redis names a script by it; not for security)


@functools.cache
def _guarded_class() -> type:
    """:class:`Guarded` (built lazily: redis-py loads only for a team cache)."""
    import redis
    from redis.lock import Lock

    class Guarded(redis.Redis):
        """redis-py's client whose every command goes through the guard (module doc)."""

        state: _State

        def execute_command(self, *args: Any, **options: Any) -> Any:
            """Run one command: retried within its bound, or a ``NetworkError``."""
            state = self.state
            failure: _Failure | None = None
            for attempt in range(ATTEMPTS):
                failure = state.down()
                if failure is not None:
                    break
                if attempt:
                    time.sleep(BACKOFF[attempt - 1])
                done, result = self._once(args, options)
                if done:
                    self._remember_script(args)
                    return result
                failure = result
                if failure.kind == "noscript" and self._reload(args):
                    done, result = self._once(args, options)
                    if done:
                        return result
                    failure = result
                if failure.kind != "down":
                    break
            assert failure is not None
            if failure.kind in _COMES_BACK:
                state.went_down(failure)
            raise _error(failure, state)  # (outside any except clause: see the module doc)

        def _once(self, args: tuple[Any, ...], options: dict[str, Any]) -> tuple[bool, Any]:
            try:
                return True, super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
            except Exception as exc:  # (not only redis-py's: see _failure's "garbled")
                return False, _failure(exc, self.state)

        def _remember_script(self, args: tuple[Any, ...]) -> None:
            name = str(args[0]).upper() if args else ""
            if name == "SCRIPT LOAD" or (name == "SCRIPT" and str(args[1]).upper() == "LOAD"):
                source = args[-1]
                self.state.scripts[_sha(source)] = source

        def _reload(self, args: tuple[Any, ...]) -> bool:
            """Load the script an EVALSHA named again (the server forgot it); False if
            it is not known here."""
            if not args or str(args[0]).upper() != "EVALSHA" or len(args) < 2:
                return False
            source = self.state.scripts.get(str(args[1]))
            if source is None:
                return False
            done, _ = self._once(("SCRIPT LOAD", source), {})
            return done

        def register_script(self, script: Any) -> Any:
            """redis-py's script object, remembered so that it can be loaded again."""
            self.state.scripts[_sha(script)] = script
            return super().register_script(script)

        def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
            raise NotImplementedError("the team cache sends no pipeline (it would go unguarded)")

        def pubsub(self, **kwargs: Any) -> Any:
            raise NotImplementedError("the team cache has no pub/sub (it would go unguarded)")

        def monitor(self) -> Any:
            raise NotImplementedError("the team cache is not monitored (it would go unguarded)")

    for source in (Lock.LUA_RELEASE_SCRIPT, Lock.LUA_EXTEND_SCRIPT, Lock.LUA_REACQUIRE_SCRIPT):
        _LOCK_SCRIPTS[_sha(source)] = source
    return Guarded


#: redis-py's lock scripts: registered once per process by whichever client made the
#: first lock, so they are known here whoever that was.
_LOCK_SCRIPTS: dict[str, str] = {}


def connect(url: TeamURL) -> Any:
    """A guarded redis-py client of the Redis at ``url`` (not yet connected).

    Args:
        url: The team cache's URL, kept hidden (it may hold a password).

    Raises:
        ValueError, TypeError: redis-py cannot read the URL (its message may quote the
            password: the caller says so without it).
    """
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    guarded: Any = _guarded_class()
    # redis-py's own retries are off (ten by default, each a socket timeout long):
    # the one bound is the guard's.
    connection = guarded.from_url(
        url.reveal(),
        socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=SOCKET_TIMEOUT,
        retry=Retry(NoBackoff(), 0),
    )
    connection.state = _State(url)
    connection.state.scripts.update(_LOCK_SCRIPTS)
    return connection
