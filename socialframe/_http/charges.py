"""What the service charged for an answer: the one rule, for a whole body and for one cut
short.

The service charges $0.01 for each successful call; a failed one is free, whether it
fails with a 4xx/5xx or with an HTTP 200 whose body says ``"success": false`` (see
SERVICE-NOTES: "You will not be charged for this request"). A whole body says which
it is (:func:`is_success`). A body cut short on the way (the connection closed, the
deadline passed, a broken chunk) says it only if enough of it came: its first bytes are
read as far as they go (:func:`charge_of_head`):

- a status other than 200 was not charged;
- ``"success": false`` at the top of the object: not charged (a failure envelope);
- ``"success"`` with any other value, or a ``"data"`` that is not ``null`` (a page's
  data: the failure envelopes carry ``"data": null``; an ads page has no ``success``):
  charged;
- a 200 body that is no JSON object: charged (as a whole one is, see the caller);
- anything else (too little came, or the bytes cannot be decoded): unknown. The ledger
  then counts the call as paid (the budget must, and the service charges most such
  answers: a 200 is mostly a success) and says it is unsure of it
  (:attr:`socialframe.Ledger.unsure_calls`).
"""

from __future__ import annotations

import json
from typing import Any, Final

#: Bytes of a cut body read for its verdict: ``success`` and ``data`` open the object.
HEAD: Final = 64 * 1024

_SPACE: Final = " \t\r\n"
_DECODER: Final = json.JSONDecoder()


def is_success(body: Any) -> bool:
    """A whole body the service charged for: a JSON object that is not its
    ``success: false`` failure."""
    return isinstance(body, dict) and body.get("success") is not False


def charge_of_head(status: int, head: bytes) -> bool | None:
    """Whether an answer whose body broke after ``head`` was charged (see the module doc).

    Args:
        status: The HTTP status the service sent.
        head: The (decoded) first bytes of the body that came, at most :data:`HEAD`.

    Returns:
        True (charged), False (free), or None (cannot be told).

    Example:
        >>> charge_of_head(200, b'{"success": false, "message": "The requ')
        False
        >>> charge_of_head(200, b'{"success": true, "message": "", "data": [{"te')
        True
        >>> charge_of_head(200, b'{"data": {"ads": [[{"ad_archive_id": "12')
        True
        >>> charge_of_head(200, b'{"succ') is None
        True
        >>> charge_of_head(503, b'{"message": "Service unavailable"}')
        False
    """
    if status != 200:
        return False
    text = head[:HEAD].decode("utf-8", "ignore")
    at = _skip(text, 0)
    if at >= len(text):
        return None
    if text[at] != "{":
        return True  # a 200 that is no object: charged, as a whole one is
    at += 1
    while True:
        at = _skip(text, at)
        if at >= len(text):
            return None
        if text[at] == ",":
            at += 1
            continue
        if text[at] == "}":
            return True  # the whole object came, with no success: false
        try:
            name, at = _DECODER.raw_decode(text, at)
        except ValueError:
            return None  # cut inside the name
        at = _skip(text, at)
        if text[at : at + 1] != ":":
            return None
        at = _skip(text, at + 1)
        if name == "data" and text[at : at + 1] not in ("", "n"):
            return True  # data that is not null: a page, which is charged
        try:
            value, at = _DECODER.raw_decode(text, at)
        except ValueError:
            return None  # cut inside the value
        if name == "success":
            return value is not False


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at
