"""Transports: what actually sends a request (as in httpx, a transport is the thing that sends).

requests calls these "adapters"; the session mounts one for ``http://`` and
``https://``. Below the cache, so a cached page never reaches a transport.

- :class:`HTTPTransport`: the network (requests' own ``HTTPAdapter``).
- :class:`MockTransport`: a function answers each request in-process, like
  httpx's ``MockTransport``: no socket, no server. Tests use it (and the
  sandbox's in-process mode) to run paging, retries, budget and error mapping
  in milliseconds, through requests and requests-cache as usual.

Both refuse a request marked ``Cache-Control: only-if-cached``: offline mode and
the budget guard ask the cache only, and must never reach the service whatever
the cache layer decides (requests-cache does send such a request on a ``Vary``
mismatch).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import requests
from requests.adapters import HTTPAdapter
from urllib3.response import HTTPResponse

from ._errors import NotCachedError

Answer: TypeAlias = requests.Response | tuple[int, Any] | tuple[int, Any, Mapping[str, str]]
"""What a :class:`MockTransport` handler returns: a ``requests.Response``, or
``(status, body)`` / ``(status, body, headers)`` where ``body`` is bytes, text, or
anything else (sent as JSON)."""

Handler: TypeAlias = Callable[[requests.PreparedRequest], Answer]
"""A function answering one request in-process. It may raise
``requests.ConnectionError`` / ``requests.Timeout`` to stand for a network failure."""


def _refuse_cache_only(request: requests.PreparedRequest) -> None:
    if "only-if-cached" in str(request.headers.get("Cache-Control", "")):
        raise NotCachedError("not in the cache; nothing was sent")


class HTTPTransport(HTTPAdapter):
    """The network: requests' ``HTTPAdapter``, refusing cache-only requests."""

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        _refuse_cache_only(request)
        return super().send(request, *args, **kwargs)


class MockTransport(HTTPAdapter):
    """Answers every request with ``handler(request)``, in-process.

    Args:
        handler: Called with each ``requests.PreparedRequest`` (its ``url``,
            ``headers``, ``method``); returns an :data:`Answer`.

    Example:
        >>> import socialframe as sf
        >>> def service(request):
        ...     return 200, {"success": True, "data": [], "totalPage": 1}
        >>> with sf.Client("key", base_url="https://api.example",
        ...                transport=sf.MockTransport(service), cache=False) as client:
        ...     len(client.post_comments("123")), client.ledger.paid_calls
        (0, 1)
    """

    def __init__(self, handler: Handler) -> None:
        super().__init__()
        self.handler = handler

    def send(
        self, request: requests.PreparedRequest, *args: Any, **kwargs: Any
    ) -> requests.Response:
        """Answer ``request`` with the handler (requests' adapter interface).

        Args:
            request: The prepared request.
            *args: requests' ``stream``, ``timeout``, ... (unused: nothing waits).
            **kwargs: The same, by name.

        Returns:
            The handler's answer as a ``requests.Response``.

        Raises:
            NotCachedError: a cache-only request (the handler is not called).

        Example:
            >>> import requests
            >>> transport = MockTransport(lambda request: (201, {"ok": True}))
            >>> response = transport.send(requests.Request("GET", "https://x.example/").prepare())
            >>> response.status_code, response.json()
            (201, {'ok': True})
        """
        _refuse_cache_only(request)
        answer = self.handler(request)
        if isinstance(answer, requests.Response):
            answer.request = answer.request or request
            return answer
        status, body, *rest = answer
        headers = dict(rest[0]) if rest else {}
        if isinstance(body, bytes):
            content = body
        elif isinstance(body, str):
            content = body.encode("utf-8")
        else:
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        headers.setdefault("Content-Length", str(len(content)))
        raw = HTTPResponse(
            body=io.BytesIO(content),
            headers=headers,
            status=status,
            preload_content=False,
            decode_content=True,
            request_url=request.url,
        )
        return self.build_response(request, raw)

    def __repr__(self) -> str:
        return f"MockTransport({getattr(self.handler, '__name__', self.handler)!r})"
