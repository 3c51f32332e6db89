"""The key on each request, and which headers and values are secrets.

The key travels in one header (``Bearer <key>`` in ``Authorization``, else bare); it
and every secret header's value are scrubbed from what the service sends back and
from messages, and never stored (see :mod:`socialframe._http.session`).
"""

from __future__ import annotations

import re
from typing import Final

import requests

from .._config import Secret, Settings

_SECRET_NAME: Final = re.compile(r"key|token|secret|auth|password|cookie", re.IGNORECASE)


#: Characters the key (or a secret header's value) needs to be scrubbed from what the
#: service sends back and from messages: a shorter one ("k", "2") is no secret worth the
#: name, and replacing it would cut ordinary words and headers apart.
MIN_SECRET: Final = 8


class KeyAuth(requests.auth.AuthBase):
    """Puts the key on each request: ``Bearer <key>`` in Authorization, else bare."""

    def __init__(self, header: str, key: Secret | None) -> None:
        self.header = header
        self._key = key

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if self._key is not None:
            value = self._key.reveal()
            if self.header.lower() == "authorization":
                value = f"Bearer {value}"
            request.headers[self.header] = value
        return request

    def __repr__(self) -> str:
        return f"KeyAuth(header={self.header!r}, key=***)"


def secrets(settings: Settings) -> tuple[list[str], list[Secret]]:
    """The names of the headers that carry a secret, and the secrets to scrub from what
    the service sends back (kept as :class:`Secret`: a traceback through the client's
    construction shows no value).

    A header is a secret when its name says so, or when it carries the key. A value
    shorter than :data:`MIN_SECRET` ("2" of a version header) is no secret worth the
    name, and scrubbing it would cut ordinary text apart.
    """
    key = settings.api_key
    names = [settings.auth_header] + [
        name
        for name, value in settings.headers.items()
        if _SECRET_NAME.search(name) or (key is not None and key.reveal() in value)
    ]
    values = [key] if key is not None and len(key.reveal()) >= MIN_SECRET else []
    values += [
        Secret(settings.headers[name])
        for name in names
        if len(settings.headers.get(name, "")) >= MIN_SECRET
    ]
    return names, values


def scrub(text: str, key: Secret | None) -> str:
    """``text`` with the key replaced by ``***`` (a key shorter than :data:`MIN_SECRET`
    is no secret worth the name: replacing it would cut words apart).

    Example:
        >>> scrub("refused key sk-0123456789", Secret("sk-0123456789"))
        'refused key ***'
    """
    if key is None or len(key.reveal()) < MIN_SECRET:
        return text
    return text.replace(key.reveal(), "***")
