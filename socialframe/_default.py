"""The module-level functions and the default client they share.

The default client is built from the environment on first use (never at
import); :func:`configure` replaces it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ._client import Client

if TYPE_CHECKING:
    import pandas as pd

_lock = threading.Lock()
_client: Client | None = None


def configure(**client_kwargs: Any) -> Client:
    """Replace the default client used by ``sf.post_comments`` / ``sf.search_ads``.

    Args:
        **client_kwargs: Arguments of :class:`Client`.

    Returns:
        The new default client.
    """
    global _client
    new = Client(**client_kwargs)
    with _lock:
        old, _client = _client, new
    if old is not None:
        old.close()
    return new


def default_client() -> Client:
    """The default client, built from the environment on first use."""
    global _client
    with _lock:
        if _client is None:
            _client = Client()
        return _client


def post_comments(post: str | int, **kwargs: Any) -> pd.DataFrame:
    """:meth:`Client.post_comments` on the default client."""
    return default_client().post_comments(post, **kwargs)


def search_ads(query: str | None = None, **kwargs: Any) -> pd.DataFrame:
    """:meth:`Client.search_ads` on the default client."""
    return default_client().search_ads(query, **kwargs)
