"""A client's HTTP path seen or acted on by a test, through public parts only: the
client's ``session`` and a requests transport adapter (``transport=``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from requests.adapters import HTTPAdapter

import socialframe as sf


class Before(HTTPAdapter):
    """Sends over HTTP as requests does; once armed (``act``), does ``act`` before the
    next request goes out: as a refresh's walk pays, after the study was checked and
    read."""

    def __init__(self) -> None:
        super().__init__()
        self.act: Callable[[], object] | None = None

    def send(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        act, self.act = self.act, None
        if act is not None:
            act()
        return super().send(request, *args, **kwargs)


def full_path(client: sf.Client) -> list[str]:
    """Records the URL of each call that goes through requests and requests-cache (the
    client's public ``session``): a page the warm read answered never does."""
    sent: list[str] = []
    original = client.session.send

    def counting(request: Any, **kwargs: Any) -> Any:
        sent.append(str(request.url))
        return original(request, **kwargs)

    client.session.send = counting  # type: ignore[method-assign]
    return sent
