"""Which of requests-cache's backends a process of socialframe's own imports.

requests-cache imports every backend whose library is installed as it is itself
imported (``requests_cache/backends/__init__.py``): boto3 for DynamoDB, pymongo for
MongoDB and GridFS, redis for Redis. socialframe keeps pages in SQLite or, for a team,
in Redis, yet boto3 alone adds about 0.3 s to the start of every command wherever it is
installed (requests-cache issue 403), and redis as much again.

A process that is socialframe's own (the console script and ``python -m socialframe``:
the command line and the MCP server) leaves out the three backends it never uses
(:func:`leave_out_unused`) and imports Redis's when a team cache is opened
(:func:`redis_backend`). A process of the user's own (a notebook, a script that imports
socialframe, ``socialframe.__main__.main`` called from Python) is left as it is: its
requests-cache has every backend it would have without socialframe. In socialframe's own
process, ``requests_cache.RedisCache`` and ``BACKEND_CLASSES["redis"]`` stay
requests-cache's placeholders even once Redis's backend is imported: socialframe takes
its classes from the backend's own module, and never names a backend by a string.
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType
from typing import Final

UNUSED: Final = (
    "requests_cache.backends.dynamodb",
    "requests_cache.backends.gridfs",
    "requests_cache.backends.mongodb",
)
REDIS: Final = "requests_cache.backends.redis"
_LOCK = threading.Lock()


def leave_out_unused() -> None:
    """Before requests-cache is imported: its unused backends are not imported with it,
    nor Redis's until a team cache needs it. Nothing, once requests-cache is imported.

    (A module set to None in ``sys.modules`` fails to import at once, as Python's import
    system documents; requests-cache then puts a placeholder in the backend's place,
    as it does for a backend whose library is not installed.)
    """
    if "requests_cache" in sys.modules:
        return
    for name in (*UNUSED, REDIS):
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def redis_backend() -> ModuleType:
    """requests-cache's Redis backend, imported now if :func:`leave_out_unused` left it
    out.

    Example:
        >>> redis_backend().__name__
        'requests_cache.backends.redis'
    """
    with _LOCK:  # (two threads opening team caches at once: one import, one module)
        if REDIS in sys.modules and sys.modules[REDIS] is None:
            del sys.modules[REDIS]
        return importlib.import_module(REDIS)
