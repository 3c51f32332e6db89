"""The module-level functions and the default client they share.

The default client is built from the environment on first use (never at
import); :func:`configure` replaces it. ``sf.post_comments`` and
``sf.search_ads`` take exactly the arguments of the client methods they call:
their signatures are the methods', not copies.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from ._client import Client

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_client: Client | None = None


def default_client() -> Client:
    """The default client, built from the environment on first use."""
    global _client
    with _lock:
        if _client is None:
            _client = Client()
        return _client


def _replacing_default(factory: Callable[P, Client]) -> Callable[P, Client]:
    def configure(*args: P.args, **kwargs: P.kwargs) -> Client:
        global _client
        new = factory(*args, **kwargs)
        with _lock:
            old, _client = _client, new
        if old is not None:
            old.close()
        return new

    configure.__signature__ = inspect.signature(factory).replace(  # type: ignore[attr-defined]
        return_annotation="Client"
    )
    return configure


configure = _replacing_default(Client)
configure.__doc__ = """Replace the default client used by ``sf.post_comments`` / ``sf.search_ads``.

The previous default client is closed.

Args:
    The arguments of :class:`Client`.

Returns:
    The new default client.

Raises:
    ConfigError, ValueError: as :class:`Client`.

Example:
    >>> import socialframe as sf
    >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
    >>> sandbox = Sandbox()
    >>> client = sf.configure(
    ...     api_key=sandbox.api_key, base_url=sandbox.in_process_url,
    ...     transport=sandbox.transport(), cache=False,
    ... )
    >>> len(sf.post_comments(EXAMPLE_POSTS[82])), client.ledger.paid_calls
    (82, 2)
"""


def _on_default_client(method: Callable[Concatenate[Client, P], R]) -> Callable[P, R]:
    """``method`` called on the default client, with the method's own signature."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return method(default_client(), *args, **kwargs)

    signature = inspect.signature(method)
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=list(signature.parameters.values())[1:]
    )
    call.__qualname__ = method.__name__
    call.__module__ = "socialframe"
    call.__doc__ = (
        f":meth:`Client.{method.__name__}` on the default client: built from the"
        " environment (``SOCIALFRAME_API_KEY``, ``SOCIALFRAME_BASE_URL``, ...) on first"
        " use, or set by :func:`configure`.\n\n" + inspect.cleandoc(method.__doc__ or "")
    )
    del call.__wrapped__  # help() and doctest read this function, not the method
    return call


post_comments = _on_default_client(Client.post_comments)
search_ads = _on_default_client(Client.search_ads)
