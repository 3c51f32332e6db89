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
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from .._errors import ConfigError, NetworkError
from .serializer import MAX_STORED, PageFormat
from .serializer import response as read_response
from .sqlite import Failures

SCHEMES = ("redis://", "rediss://", "unix://")


def is_team_url(cache: object) -> bool:
    """Whether a ``cache`` argument names a Redis server."""
    return isinstance(cache, str) and cache.startswith(SCHEMES)


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


def _password_free(text: str, url: str) -> str:
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


def team_cache(url: str) -> Any:
    """requests-cache's Redis backend on ``url``, checked to answer.

    Raises:
        ConfigError: redis-py is not installed, or the server does not answer.
    """
    try:
        import redis
    except ImportError:
        raise ConfigError(
            f"cache={shown(url)!r} needs redis-py: pip install 'socialframe[redis]'"
        ) from None

    problem = ""
    try:
        connection = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=30)
        connection.ping()
    except redis.RedisError as exc:
        problem = _password_free(f"{type(exc).__name__}: {exc}", url)
    except Exception:  # a URL redis-py cannot read; its message may quote the password
        problem = "the URL cannot be read (percent-encode special characters in the password)"
    if problem:
        raise ConfigError(
            f"cannot reach the team cache at {shown(url)}: {problem}. Start the Redis server"
            " (see the README: 'A team cache'), fix the URL, or pass cache=True for the"
            " local cache."
        )
    return _team_cache_class()(url, connection)


NAMESPACE = "socialframe"
"""The prefix of every key socialframe writes in the team's Redis."""

#: A page's value, unless it is longer than any page: then a short value that is no page
#: (a value of gigabytes would otherwise be sent whole before it could be refused).
_READ_BOUNDED = """
if redis.call('STRLEN', KEYS[1]) > tonumber(ARGV[1]) then return '-' end
return redis.call('GET', KEYS[1])
"""


def _team_cache_class() -> type:
    """:class:`RedisCache` whose pages are data only and whose failures are reported,
    not raised raw (built lazily: requests-cache and redis-py load only for a team cache)."""
    import redis
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
            try:
                value = self._bounded(f"{NAMESPACE}:{key}")
            except redis.ResponseError as exc:
                if not str(exc).startswith("WRONGTYPE"):
                    raise  # (BUSY, NOPERM...: the server's trouble, not the entry's)
                self.failures.unreadable(str(key))  # a hash or a list under a page's key
                return None
            if value is None:
                raise KeyError(key)
            return self.deserialize(key, value)

        def _bounded(self, name: str) -> Any:
            """The value under ``name``, unless it is longer than any page (``"-"``)."""
            if self._scripts:
                try:
                    return self._read(keys=[name], args=[MAX_STORED])
                except redis.ResponseError as exc:
                    refused = isinstance(exc, redis.exceptions.NoPermissionError)
                    if not refused and "unknown command" not in str(exc).lower():
                        raise
                    self._scripts = False  # scripts refused to this user: two commands
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
        """The team cache: a read that fails stops the call before anything is sent
        (a retried NetworkError: paying for pages the team already has is the one
        thing a team cache must not cause); a write that fails is counted, and the
        client warns (CacheWarning), as with the local file."""

        def __init__(self, url: str, connection: Any) -> None:
            super().__init__(namespace=NAMESPACE, connection=connection, ttl=False)
            self.failures = Failures()
            self.responses = TeamTable(connection, self.failures)
            self.where = shown(url)

        def get_response(self, key: str, default: Any = None) -> Any:
            # Redirect aliases are not followed (socialframe stores none; one planted
            # by someone else could point a page's key at another page).
            try:
                response = self.responses[key]
            except KeyError:
                return default
            except redis.RedisError as exc:
                raise NetworkError(
                    f"the team cache at {self.where} stopped answering"
                    f" ({type(exc).__name__}); nothing was sent"
                ) from None
            return default if response is None else response

        def save_response(self, response: Any, cache_key: Any = None, expires: Any = None) -> None:
            try:
                super().save_response(response, cache_key, expires)
            except redis.RedisError as exc:
                self.failures.add(f"the team cache refused it ({type(exc).__name__})")
            except ValueError as exc:  # a page the format would not read back
                self.failures.add(str(exc))

    return TeamCache
