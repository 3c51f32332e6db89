"""Where a client's pages live: what a ``cache=`` setting names, and opening it.

``True`` is the default SQLite file (or the team cache ``SOCIALFRAME_CACHE_URL``
names), a path a SQLite file (a folder gets ``http_cache.sqlite`` inside), a
``redis://`` URL the team cache, a requests-cache backend itself.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from .. import _config as config
from .._errors import ConfigError
from .connection import TeamURL
from .redis import SCHEMES, is_team_url, shown, team_cache

if TYPE_CHECKING:
    from requests_cache.backends.base import BaseCache


CacheSetting: TypeAlias = "bool | str | os.PathLike[str] | TeamURL | BaseCache"
"""The ``cache`` argument of a Client: ``True`` (the default on-disk cache), a path
to a SQLite file or folder, a team cache's URL, ``False`` (none), or a requests-cache
backend."""


def hidden(cache: CacheSetting) -> CacheSetting:
    """``cache`` with a team cache's URL hidden (:class:`TeamURL`): the client does it
    first thing, so that no frame of a traceback through it holds a password."""
    if isinstance(cache, str) and is_team_url(cache):
        return TeamURL(cache)
    return cache


CACHE_FILENAME = "http_cache.sqlite"


_URL_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")  # a scheme (one letter is a drive: C:/)


def default_cache_path() -> Path:
    """The SQLite file of the default cache (user cache dir or SOCIALFRAME_CACHE_DIR)."""
    return config.cache_dir() / CACHE_FILENAME


def cache_location(cache: CacheSetting) -> TeamURL | Path | None:
    """Where a ``cache`` setting keeps its pages, without opening (or creating) it.

    Returns:
        The team cache's URL (hidden: :class:`TeamURL`), the SQLite file (a ``Path``),
        or ``None`` for no cache or a backend object.
    """
    if isinstance(cache, TeamURL):
        return cache
    named = config.cache_url() if cache is True else None
    if named or is_team_url(cache):
        return TeamURL(named or str(cache))
    if isinstance(cache, str) and _URL_LIKE.match(cache):
        raise ConfigError(
            f"cache={shown(cache)!r} looks like a URL, but only {', '.join(SCHEMES)} name a team"
            " cache: fix the URL (redis://host:6379/0), or give a folder or file path"
        )
    if isinstance(cache, str | os.PathLike) and not os.fspath(cache).strip():
        # Path("") is the current folder: a cache would appear wherever the code ran.
        raise ConfigError(
            "cache='' names no place: pass a folder or file path, True for the default"
            " cache, or False for none"
        )
    if isinstance(cache, str | os.PathLike) and "\0" in str(os.fspath(cache)):
        raise ConfigError("cache= holds a NUL character: no file can have that name")
    if cache is True:
        path = default_cache_path()
    elif isinstance(cache, str | os.PathLike):
        path = Path(cache).expanduser()
    else:  # False, None, or a backend object
        return None
    if path.is_dir() or not path.suffix:
        path = path / CACHE_FILENAME
    return path


def open_backend(cache: CacheSetting) -> Any:
    """The requests-cache backend a ``cache`` setting names (not ``False``).

    Raises:
        ConfigError: the file or the team cache cannot be used.
        TypeError: ``cache`` is none of the accepted kinds.
    """
    from requests_cache.backends.base import BaseCache
    from requests_cache.serializers import init_serializer

    if isinstance(cache, BaseCache):
        from requests_cache.backends.sqlite import SQLiteCache

        from .serializer import PageFormat

        # Whatever backend it is, pages are written and read as data only; pickled
        # pages of an earlier version are read (as data only) from a local file alone.
        legacy = isinstance(cache, SQLiteCache)
        cache.responses.serializer = init_serializer(PageFormat(legacy=legacy), False)
        return cache
    where = cache_location(cache)
    if isinstance(where, TeamURL):
        return team_cache(where)
    if isinstance(where, Path):
        from .sqlite import Store

        return Store(where)
    raise TypeError(
        "cache must be True, False, a path, or a requests-cache backend,"
        f" not {type(cache).__name__}"
    )
