"""Settings: explicit arguments > ``SOCIALFRAME_*`` environment > defaults.

Read when a :class:`~socialframe.Client` is built, never at import.

=============================  ==============================================
``SOCIALFRAME_API_KEY``        the API key
``SOCIALFRAME_BASE_URL``       one base URL for both operations
``SOCIALFRAME_ADS_URL``        base URL of the ads search (overrides the above)
``SOCIALFRAME_COMMENTS_URL``   base URL of the comments listing (idem)
``SOCIALFRAME_AUTH_HEADER``    header carrying the key (default Authorization)
``SOCIALFRAME_CACHE_DIR``      folder of the on-disk cache
``SOCIALFRAME_CACHE_URL``      a team cache, ``redis://host:port/db`` (wins over the folder)
``SOCIALFRAME_CACHE_EXPIRE``   seconds a cached page stays fresh, or ``never``
=============================  ==============================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Final

from ._errors import ConfigError

OPERATIONS: Final = ("ads", "comments")

#: Cached pages never expire unless asked: each one was paid for, and ``fetched_at``
#: tells how old it is. See the README ("Cache") for the reasoning.
DEFAULT_EXPIRE: Final = -1

_HOW_TO = (
    " Pass it to sf.Client(...) / sf.configure(...) or set {env}."
    " To try socialframe without a key or network, use the sandbox:"
    " `with sf.Sandbox() as sb: sb.client().post_comments(...)`."
)


class Secret:
    """An API key that does not show itself in reprs, logs or tracebacks."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself, for the one place that sends it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("an API key is not to be pickled")


@dataclass(frozen=True)
class Settings:
    """Resolved client settings (see :func:`resolve`)."""

    api_key: Secret | None
    base_urls: Mapping[str, str]
    auth_header: str
    headers: Mapping[str, str]


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def _check_url(url: str, what: str) -> str:
    url = url.strip()
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{what} must start with http:// or https://, got {url!r}.")
    return url.rstrip("/")


def resolve_base_urls(base_url: str | Mapping[str, str] | None) -> dict[str, str]:
    """One URL, or a mapping ``{"ads": url, "comments": url}``, per operation."""
    if isinstance(base_url, Mapping):
        unknown = set(base_url) - set(OPERATIONS)
        if unknown:
            raise ConfigError(
                f"base_url keys must be 'ads' and 'comments'; unknown: {sorted(unknown)}."
            )
        urls = {op: base_url[op] for op in OPERATIONS if base_url.get(op)}
    else:
        common = base_url or _env("SOCIALFRAME_BASE_URL")
        urls = {op: common for op in OPERATIONS if common}
        for op in OPERATIONS:
            specific = _env(f"SOCIALFRAME_{op.upper()}_URL")
            if base_url is None and specific:
                urls[op] = specific
    missing = [op for op in OPERATIONS if op not in urls]
    if missing:
        raise ConfigError(
            f"No base URL for {' and '.join(missing)}."
            + _HOW_TO.format(env="SOCIALFRAME_BASE_URL (or SOCIALFRAME_ADS_URL / _COMMENTS_URL)")
        )
    return {op: _check_url(url, f"base URL of {op}") for op, url in urls.items()}


def resolve(
    api_key: str | None,
    *,
    base_url: str | Mapping[str, str] | None,
    auth_header: str | None,
    headers: Mapping[str, str] | None,
    require_key: bool = True,
) -> Settings:
    """Merge arguments with the environment. Raises ConfigError on what is missing."""
    key = api_key if api_key is not None else _env("SOCIALFRAME_API_KEY")
    if key is not None and not isinstance(key, str):
        raise TypeError(f"api_key must be a string, not {type(key).__name__}")
    if key is not None:
        key = key.strip()
        if any(not 0x21 <= ord(c) <= 0x7E for c in key):
            # Never echo it: the message would carry the key into logs and tracebacks.
            raise ConfigError(
                "The API key contains a space, a control or a non-ASCII character, so it"
                " cannot be sent in a header; check how it was copied."
            )
    if not key and require_key:
        raise ConfigError("No API key." + _HOW_TO.format(env="SOCIALFRAME_API_KEY"))
    header = (auth_header or _env("SOCIALFRAME_AUTH_HEADER") or "Authorization").strip()
    if not header or any(c in header for c in " :\r\n"):
        raise ConfigError(f"auth_header must be a plain header name, got {header!r}.")
    extra = dict(headers or {})
    for name, value in extra.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("headers must map header names (str) to values (str)")
    return Settings(
        api_key=Secret(key) if key else None,
        base_urls=resolve_base_urls(base_url),
        auth_header=header,
        headers=extra,
    )


def cache_url() -> str | None:
    """The team cache's URL (``SOCIALFRAME_CACHE_URL``), if one is set."""
    return _env("SOCIALFRAME_CACHE_URL") or None


def cache_dir() -> Path:
    """Where the default cache lives (not created here)."""
    override = _env("SOCIALFRAME_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("socialframe", appauthor=False))


def resolve_expire(expire_after: float | timedelta | None) -> float | timedelta:
    """Seconds (or a timedelta) a cached page stays fresh; -1 is never expire."""
    if expire_after is not None:
        if isinstance(expire_after, bool) or not isinstance(expire_after, int | float | timedelta):
            raise TypeError("expire_after must be seconds, a timedelta, or -1 for never")
        return expire_after
    raw = _env("SOCIALFRAME_CACHE_EXPIRE")
    if raw is None or raw.lower() == "never":
        return DEFAULT_EXPIRE
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(
            f"SOCIALFRAME_CACHE_EXPIRE must be seconds or 'never', got {raw!r}."
        ) from None
