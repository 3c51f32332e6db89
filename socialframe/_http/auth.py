"""The key on each request, and which headers and values are secrets.

The key travels in one header (``Bearer <key>`` in ``Authorization``, else bare); it
and every secret header's value are scrubbed from what the service sends back and
from messages, and never stored (see :mod:`socialframe._http.session`).

Which headers are secret is a rule, not a list of names (:func:`secrets`): the header
that carries the key (whatever it is configured to be), every extra header whose name
says it holds a secret (a key, a token, a secret, auth, a password, a cookie, a
signature, a session, a credential: ``X-Api-Token``, ``X-RapidAPI-Key``,
``X-Signature``...), and every extra header whose value holds the key. Their values
travel as :class:`Masked` text: sent as they are, shown as ``'***'`` by every repr
(the session's headers, a prepared request's, a traceback's locals).
"""

from __future__ import annotations

import re
from typing import Final

import requests

from .._config import Secret, Settings

#: A header name that says its value is a secret (matched anywhere in it, any case).
_SECRET_NAME: Final = re.compile(
    r"key|token|secret|auth|passw|pwd|cookie|sig|session|credential|private",
    re.IGNORECASE,
)


class Masked(str):
    """A secret header's value: the text itself to every sender (requests, urllib3 and
    http.client encode it as text), ``'***'`` to every repr, so a header mapping
    holding it (``client.session.headers``, a prepared request's, a log of one, a
    traceback's locals) never shows it.

    Example:
        >>> headers = {"X-Api-Token": Masked("tok-0123456789")}
        >>> headers, headers["X-Api-Token"] == "tok-0123456789"
        ({'X-Api-Token': '***'}, True)
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "'***'"

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a secret header's value is not to be pickled")


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
            request.headers[self.header] = Masked(value)  # (a repr of the request hides it)
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


def sent_headers(settings: Settings) -> dict[str, str]:
    """The extra headers as the session sends them: each secret one's value
    :class:`Masked` (see the module doc)."""
    names = {name.lower() for name in secrets(settings)[0]}
    return {
        name: Masked(value) if name.lower() in names else value
        for name, value in settings.headers.items()
    }


def scrub(text: str, key: Secret | None, *more: Secret) -> str:
    """``text`` with the key, and every secret of ``more`` (the secret headers' values),
    replaced by ``***`` (a secret shorter than :data:`MIN_SECRET` is no secret worth
    the name: replacing it would cut words apart).

    Example:
        >>> scrub("refused key sk-0123456789", Secret("sk-0123456789"))
        'refused key ***'
    """
    values = [s.reveal() for s in (key, *more) if s is not None]
    for value in sorted(values, key=len, reverse=True):
        if len(value) >= MIN_SECRET:
            text = text.replace(value, "***")
    return text
