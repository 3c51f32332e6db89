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

import contextlib
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ._errors import ConfigError

SCHEMES = ("redis://", "rediss://", "unix://")


def is_team_url(cache: object) -> bool:
    """Whether a ``cache`` argument names a Redis server."""
    return isinstance(cache, str) and cache.startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


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

    try:
        connection = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=30)
        connection.ping()
    except (redis.RedisError, ValueError) as exc:
        raise ConfigError(
            f"cannot reach the team cache at {shown(url)}: {exc}. Start the Redis server"
            " (see the README: 'A team cache'), fix the URL, or pass cache=True for the"
            " local cache."
        ) from None
    return _team_cache_class()(url, connection)


def _team_cache_class() -> type:
    """:class:`RedisCache` whose failures are reported, not raised raw (built lazily:
    requests-cache and redis-py load only for a team cache)."""
    import redis
    from requests_cache.backends.redis import RedisCache

    from ._errors import NetworkError
    from ._store import Failures

    class TeamCache(RedisCache):
        """The team cache: a read that fails stops the call before anything is sent
        (a retried NetworkError: paying for pages the team already has is the one
        thing a team cache must not cause); a write that fails is counted, and the
        client warns (CacheWarning), as with the local file."""

        def __init__(self, url: str, connection: Any) -> None:
            super().__init__(namespace="socialframe", connection=connection, ttl=False)
            self.failures = Failures()
            self.where = shown(url)

        def get_response(self, key: str, default: Any = None) -> Any:
            try:
                return super().get_response(key, default)
            except redis.RedisError as exc:
                raise NetworkError(
                    f"the team cache at {self.where} stopped answering"
                    f" ({type(exc).__name__}); nothing was sent"
                ) from None

        def save_response(self, response: Any, cache_key: Any = None, expires: Any = None) -> None:
            try:
                super().save_response(response, cache_key, expires)
            except redis.RedisError as exc:
                self.failures.add(f"the team cache refused it ({exc})")

    return TeamCache


class RedisLocks:
    """Page locks in the team's Redis (see :class:`socialframe._store.PageLocks`).

    Args:
        connection: The team cache's Redis connection.
    """

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    @contextmanager
    def held(self, key: str, wait: float) -> Iterator[bool]:
        """Hold ``key``'s lock for the block; yields whether it is held.

        The lock expires by itself after ``2 * wait`` seconds, so a machine that
        died holding it cannot block the team.
        """
        import redis

        name = "socialframe:lock:" + hashlib.sha256(key.encode()).hexdigest()[:32]
        lock = self.connection.lock(name, timeout=2 * wait, blocking_timeout=wait)
        try:
            held = bool(lock.acquire())
        except redis.RedisError:
            held = False
        try:
            yield held
        finally:
            if held:  # (expired meanwhile: nothing to give back)
                with contextlib.suppress(redis.RedisError):
                    lock.release()
