"""The team cache: pages in a Redis server that every machine of a team shares.

``cache="redis://host:port/db"`` (or ``SOCIALFRAME_CACHE_URL``) stores pages
through requests-cache's own Redis backend, so every rule of the local cache
holds (the session applies them, not the backend): the key is redacted in every
casing, only successful pages of the documented shape are stored, offline mode
answers from it, expiry is the same. Pages are kept past their expiry (no Redis
TTL), so offline mode can still serve them, as with the SQLite file.

A page one machine is fetching is locked in the same Redis, so another machine
asking for it waits and then reads it: one payment per page for the whole team.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._errors import ConfigError, NetworkError
from .backends import redis_backend
from .connection import NOTHING_SENT, TeamURL, connect, shown, told
from .serializer import MAX_STORED, PageFormat
from .serializer import response as read_response
from .sqlite import Failures

__all__ = ["SCHEMES", "TeamURL", "is_team_url", "shown", "team_cache"]

SCHEMES = ("redis://", "rediss://", "unix://")


def is_team_url(cache: object) -> bool:
    """Whether a ``cache`` argument names a Redis server (as text, or already hidden)."""
    if isinstance(cache, TeamURL):
        return True
    return isinstance(cache, str) and cache.startswith(SCHEMES)


def team_cache(url: TeamURL) -> Any:
    """requests-cache's Redis backend on ``url``, checked to answer.

    Raises:
        ConfigError: redis-py is not installed, the URL cannot be read, or the server
            does not answer (the message never shows the password, and no frame of the
            traceback holds it: ``url`` is hidden).
    """
    try:
        import redis  # noqa: F401 - only to say what to install
    except ImportError:
        raise ConfigError(
            f"cache={url.shown!r} needs redis-py: pip install 'socialframe[redis]'"
        ) from None

    problem = ""
    try:
        connection = connect(url)
    except Exception:  # a URL redis-py cannot read; its message may quote the password
        problem = "the URL cannot be read (percent-encode special characters in the password)"
    else:
        try:
            connection.ping()
        except NetworkError as exc:
            problem = str(exc).removeprefix(f"the team cache at {url.shown} ")
    if problem:
        raise ConfigError(
            f"cannot reach the team cache at {url.shown}: {problem}. Start the Redis server"
            " (see docs/cache-and-ledger.md: 'A team cache'), fix the URL, or pass cache=True"
            " for the local cache."
        )
    return _team_cache_class()(url, connection)


NAMESPACE = "socialframe"
"""The prefix of every key socialframe writes in the team's Redis."""

#: A page's value, unless it is longer than any page (a value of gigabytes would otherwise
#: be sent whole before it could be refused) or is no text (a hash, a list... someone
#: else's): then a short value that is no page.
_READ_BOUNDED = """
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return false end
if kind ~= 'string' then return '-' end
if redis.call('STRLEN', KEYS[1]) > tonumber(ARGV[1]) then return '-' end
return redis.call('GET', KEYS[1])
"""


def _team_cache_class() -> type:
    """:class:`RedisCache` whose pages are data only and whose failures are reported,
    never raised raw (built lazily: requests-cache and redis-py load only for a team
    cache). Every command goes through the guarded connection
    (:mod:`socialframe._cache.connection`), whose failures are a
    :class:`~socialframe.NetworkError`; what each one means is decided here, once per
    kind of call:

    - a read (a page, whether a key is there, the keys) raises it: a
      :class:`~socialframe.NetworkError`, before anything is sent. Paying instead would
      pay again for a page the team may hold, and with Redis down no lock keeps two
      machines from paying for the same page at once ("one payment per page");
    - a write is counted, and the client warns (:class:`~socialframe.CacheWarning`): the
      page was paid and is in the frame, a re-run pays for it again;
    - a delete is best effort: requests-cache deletes the entry of every answer it does
      not store (a 5xx, ``success: false``), where nothing was stored; ``cache clear``
      checks what is left and says why (:meth:`TeamCache.take_undeleted`).
    """
    redis_backend()  # (the command line leaves it out until a team cache is opened)
    from requests_cache.backends.redis import RedisCache, RedisDict

    class TeamTable(RedisDict):
        """The pages: written and read as data only (a pickled value, as earlier versions
        wrote, is never unpickled here: it is a miss), an unreadable one counted."""

        def __init__(self, connection: Any, failures: Failures) -> None:
            super().__init__(NAMESPACE, connection=connection, ttl=False, serializer=PageFormat())
            self.failures = failures
            self._read = connection.register_script(_READ_BOUNDED)
            self._scripts = True

        def __getitem__(self, key: str) -> Any:
            value = self._bounded(f"{NAMESPACE}:{key}")
            if value is None:
                raise KeyError(key)
            return self.deserialize(key, value)

        def _bounded(self, name: str) -> Any:
            """The value under ``name``, unless it is longer than any page or is no text
            (a hash, a list...): then ``"-"``, which no page is."""
            if self._scripts:
                try:
                    return self._read(keys=[name], args=[MAX_STORED])
                except NetworkError as exc:
                    if exc.retryable:
                        raise  # it does not answer
                    # It answers, but refused the script (NOPERM, unknown command): two
                    # commands then, which fail in their turn if those are refused too.
                    self._scripts = False
            if self.connection.type(name) not in (b"string", b"none", "string", "none"):
                return "-"
            if int(self.connection.strlen(name)) > MAX_STORED:
                return "-"
            return self.connection.get(name)

        def deserialize(self, key: str, value: Any) -> Any:
            response = read_response(value)
            if response is None:
                self.failures.unreadable(str(key))
                return None
            response.cache_key = key
            return response

        def keys(self) -> Iterator[str]:  # type: ignore[override]
            # requests-cache decodes every key as UTF-8 (one that is not stops the
            # listing) and cuts the namespace out wherever it occurs in the key.
            prefix = f"{NAMESPACE}:".encode()
            for raw in self.connection.scan_iter(match=prefix + b"*"):
                try:
                    yield bytes(raw)[len(prefix) :].decode()
                except UnicodeDecodeError:
                    continue  # not a key socialframe wrote

    class TeamCache(RedisCache):
        """The team cache (see :func:`_team_cache_class` for what a failure means)."""

        def __init__(self, url: TeamURL, connection: Any) -> None:
            super().__init__(namespace=NAMESPACE, connection=connection, ttl=False)
            self.failures = Failures()
            self.responses = TeamTable(connection, self.failures)
            self.where = url.shown
            self._undeleted = ""

        def get_response(self, key: str, default: Any = None) -> Any:
            # Redirect aliases are not followed (socialframe stores none; one planted
            # by someone else could point a page's key at another page).
            failure: NetworkError | None = None
            try:
                response = self.responses[key]
            except KeyError:
                return default
            except NetworkError as exc:
                failure = told(exc, NOTHING_SENT)
            if failure is not None:
                raise failure  # (outside the except clause: one error, no chain)
            return default if response is None else response

        def save_response(self, response: Any, cache_key: Any = None, expires: Any = None) -> None:
            try:
                super().save_response(response, cache_key, expires)
            except NetworkError as exc:
                self.failures.add(self._said(exc))
            except ValueError as exc:  # a page the format would not read back
                self.failures.add(str(exc))

        def delete(self, *keys: str, **conditions: Any) -> None:
            try:
                super().delete(*keys, **conditions)
            except NetworkError as exc:
                self._undeleted = self._said(exc)

        def _said(self, exc: NetworkError) -> str:
            """What the guarded connection's error says, without naming the cache."""
            return str(exc).removeprefix(f"the team cache at {self.where} ")

        def take_undeleted(self) -> str:
            """Why the last delete that failed did ("" if none did since the last call)."""
            said, self._undeleted = self._undeleted, ""
            return said

    return TeamCache
