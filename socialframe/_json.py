"""JSON bodies -> Python values: msgspec where it can, the standard library where it refuses.

msgspec parses UTF-8 JSON at twice the speed of the standard library and, unlike
orjson, keeps integers beyond 64 bits exact (orjson turns
``99999999999999999999999`` into ``1e+23``). What msgspec refuses (``NaN``, lone
surrogates) goes to the standard library, so every body decodes to the value
``json.loads`` gives.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import requests


NOT_PARSED: Final[Any] = object()
"""What :func:`fast` returns where msgspec refuses the body."""


def fast(content: bytes | bytearray | memoryview | str) -> Any:
    """``content`` parsed by msgspec, or :data:`NOT_PARSED` where msgspec refuses it."""
    import msgspec

    try:
        return msgspec.json.decode(content)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return NOT_PARSED


def is_utf8(encoding: str | None) -> bool:
    """Whether a response's declared ``encoding`` is UTF-8 (none declared counts as
    UTF-8, JSON's default): only then may msgspec parse its bytes."""
    return (encoding or "utf-8").lower().replace("_", "-") in ("utf-8", "utf8")


def loads(content: bytes | bytearray | memoryview | str) -> Any:
    """``content`` parsed as JSON.

    Raises:
        ValueError: it is not JSON (or is nested past the parser's limit).
    """
    body = fast(content)
    if body is not NOT_PARSED:
        return body
    try:
        return json.loads(bytes(content) if isinstance(content, memoryview) else content)
    except RecursionError as error:
        raise ValueError("nested too deeply") from error


def decoded(response: requests.Response) -> Any:
    """The JSON body (None if it is not JSON), decoded once per response object.

    msgspec parses UTF-8 JSON at twice the speed of the standard library and,
    unlike orjson, keeps integers beyond 64 bits exact (orjson turns
    ``99999999999999999999999`` into ``1e+23``). What msgspec refuses (``NaN``,
    lone surrogates, a body in another declared charset) goes to requests' own
    decoding, so every body decodes to the same value as before.
    """
    if "_socialframe_body" not in vars(response):
        body: Any = NOT_PARSED
        if is_utf8(response.encoding):
            body = fast(response.content)
        if body is NOT_PARSED:
            try:
                body = response.json()
            except (ValueError, RecursionError):  # not JSON, or nested past the parser's limit
                body = None
        response._socialframe_body = body  # type: ignore[attr-defined]
    return response._socialframe_body  # type: ignore[attr-defined]
