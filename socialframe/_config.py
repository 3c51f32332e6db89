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
``SOCIALFRAME_CACHE_EXPIRE``   seconds a cached page stays fresh, or ``never`` (or ``-1``)
=============================  ==============================================

Every setting is checked here, when the client is built, before anything can be
paid: a value outside what is allowed is a :class:`SettingError` (a
``ConfigError`` and a ``ValueError``) saying what is allowed; a value of the
wrong type is a ``TypeError``. What is allowed:

==================  ===========================================================
``api_key``         printable ASCII, no spaces (it is sent in a header)
``base_url``        ``http(s)://host[:port][/path]``: no spaces, no query, no
                    fragment, no ``user:password@`` (it would be stored in the cache)
``auth_header``     a header name (RFC 9110 token), not also one of ``headers``
``headers``         names: RFC 9110 tokens, each once; values: Latin-1 text with
                    no control characters (tabs inside are fine), no leading or
                    trailing space (what HTTP can carry as given)
``max_cost``        a finite amount of USD >= 0
``max_retries``     0 to :data:`MAX_RETRIES`
``timeout``         seconds, > 0 and <= :data:`MAX_TIMEOUT`
``backoff``         seconds, >= 0 and <= :data:`MAX_BACKOFF`
``workers``         1 to :data:`MAX_WORKERS`
``rate_limit``      from one call a day to :data:`MAX_RATE_CALLS` calls in a period
                    of at most a day
``expire_after``    ``-1`` (never), or seconds (or a timedelta) from 1 to
                    :data:`MAX_EXPIRE`: less would store pages already expired,
                    so every run would pay for them again
==================  ===========================================================

Messages never show the key, a header's value, or a header name that is not
one (it may be a whole ``Name: value`` line pasted in).

Why over 400 lines: one checker per setting of the tables above, each with the
message that says what is allowed; they share the order of precedence and the
rule that a message never shows a secret, so they stay in one module.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Final, cast
from urllib.parse import urlsplit

import pandas as pd
import platformdirs

from ._checks import count, parse_rate, seconds
from ._errors import ConfigError, SettingError
from ._ledger import Money

OPERATIONS: Final = ("ads", "comments")

#: Cached pages never expire unless asked: each one was paid for, and ``fetched_at``
#: tells how old it is. See docs/cache-and-ledger.md ("Expiry") for the reasoning.
DEFAULT_EXPIRE: Final = -1
#: The longest ``expire_after``: a century. Far longer than any use, and far from
#: the year 9999 where date arithmetic (requests-cache's expiry time) overflows.
MAX_EXPIRE: Final = timedelta(days=36525)
MAX_TIMEOUT: Final = 3600.0  # seconds one call may take: an hour
MAX_BACKOFF: Final = 600.0  # seconds of the first retry wait (and of its jitter)
MAX_RETRIES: Final = 100
MAX_WORKERS: Final = 256  # threads; more only meets the service's own rate limit
MAX_RATE_CALLS: Final = 1_000_000  # calls in one rate limit period
_DAY_MS: Final = 86_400_000  # the longest rate limit period (a longer wait overflows)

#: A header name: an RFC 9110 token.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: What a header value cannot carry as given: control characters (a tab is fine),
#: DEL, and anything outside Latin-1 (http.client encodes values as Latin-1).
_UNSENDABLE = re.compile(r"[^\t\x20-\x7e\x80-\xff]")
_TOKEN_HELP: Final = "letters, digits and !#$%&'*+-.^_`|~ only, such as 'X-RapidAPI-Key'"

_HOW_TO = (
    " Pass it to sf.Client(...) / sf.configure(...) or set {env}."
    " To try socialframe without a key or network, use the sandbox:"
    " `with sf.Sandbox() as sb: sb.client().post_comments(...)`."
)


class Hidden:
    """A setting as given that may hold a secret (the key, the headers), unchecked.

    The client wraps them first thing, so that no frame of a bad setting's
    traceback holds them in its locals (crash reporters show every frame's
    locals); the checks that read them return what is wrong rather than raise.
    """

    __slots__ = ("_value",)

    def __init__(self, value: object) -> None:
        self._value = value

    def reveal(self) -> object:
        """The value as given."""
        return self._value

    def __repr__(self) -> str:
        return "Hidden('***')"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a secret setting is not to be pickled")


class Secret(Hidden):
    """An API key (or a secret header's value) that does not show itself in reprs, logs
    or tracebacks."""

    __slots__ = ()

    def __init__(self, value: str) -> None:
        super().__init__(value)

    def reveal(self) -> str:
        """The key itself, for the one place that sends it."""
        return str(self._value)

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


Problem = tuple[type[Exception], str]
"""An error to raise (its class and message), built where the secret is read."""


@dataclass(frozen=True)
class Settings:
    """Resolved client settings (see :func:`resolve`)."""

    api_key: Secret | None
    base_urls: Mapping[str, str]
    auth_header: str
    headers: Mapping[str, str] = field(repr=False)  # values may be secrets


@dataclass(frozen=True)
class Limits:
    """The checked numeric settings of a client (see :func:`check_limits`)."""

    max_cost: Money | None  # as given: the ledger keeps it, in whole cents
    max_retries: int
    timeout: float
    backoff: float
    workers: int
    expire_after: float | timedelta


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def _shown_url(url: str) -> str:
    """``url`` for a message: without a ``user:password@`` or a query, cut short."""
    shown = url.split("?")[0].split("#")[0]
    if "@" in shown:
        shown = "***@" + shown.rpartition("@")[2]
    shown += "?..." if "?" in url else ""
    return repr(shown if len(shown) <= 100 else shown[:97] + "...")


def _sendable(url: str) -> bool:
    """Whether requests can send to ``url``'s host: a soft hyphen pasted into a name,
    Arabic digits or a label of 64 characters made every call fail inside requests or
    the socket, with the key in the frames of the error."""
    import requests

    prepared = requests.PreparedRequest()
    try:
        prepared.prepare_url(url, None)  # (IDNA 2008, as requests sends)
        host = urlsplit(str(prepared.url)).hostname or ""
    except (requests.RequestException, ValueError, UnicodeError):
        return False
    if host.startswith("[") or ":" in host:
        return True  # an IPv6 address
    labels = host.rstrip(".").split(".")
    return len(host) <= 253 and all(0 < len(label) <= 63 for label in labels)


def _url_problem(url: str, what: str) -> str | None:
    """What makes ``url`` unusable as a base URL, or None."""
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return f"{what} must not contain spaces or control characters, got {_shown_url(url)}"
    if not url.lower().startswith(("http://", "https://")):
        return f"{what} must start with http:// or https://, got {_shown_url(url)}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no port
    except ValueError:
        return f"{what} is not a URL (its host or port), got {_shown_url(url)}"
    if not parts.hostname:
        return f"{what} has no host, got {_shown_url(url)}"
    if not _sendable(url):
        return (
            f"{what} has a host name no request can carry (an invisible character, a"
            f" label over 63 characters...), got {_shown_url(url)}"
        )
    if "@" in parts.netloc:
        return (
            f"{what} must not carry a user or password (it would be stored in the cache"
            " with every page); pass the key as api_key"
        )
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        return (
            f"{what} must not have a query or a fragment (the operation's path is added"
            f" after it), got {_shown_url(url)}"
        )
    return None


def _check_url(url: object, what: str) -> str:
    if not isinstance(url, str):
        raise TypeError(f"{what} must be a str, not {type(url).__name__}")
    url = url.strip()
    problem = _url_problem(url, what)
    if problem:
        raise SettingError(problem)
    return url.rstrip("/")


def resolve_base_urls(base_url: object) -> dict[str, str]:
    """One URL, or a mapping ``{"ads": url, "comments": url}``, per operation."""
    if isinstance(base_url, Mapping):
        unknown = [key for key in base_url if key not in OPERATIONS]
        if unknown:
            raise SettingError(
                f"base_url keys must be 'ads' and 'comments'; unknown: {unknown[:5]!r}."
            )
        urls = {op: base_url[op] for op in OPERATIONS if base_url.get(op)}
    elif base_url is not None and not isinstance(base_url, str):
        raise TypeError(
            "base_url must be a URL (str) or {'ads': url, 'comments': url},"
            f" not {type(base_url).__name__}"
        )
    else:
        if base_url is not None and not base_url.strip():
            raise SettingError("base_url is empty: give the service's URL, or leave it out")
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


def _key(api_key: Hidden) -> Hidden:
    """The key given, else the environment's (still hidden)."""
    return api_key if api_key.reveal() is not None else Hidden(_env("SOCIALFRAME_API_KEY"))


def _key_problem(api_key: Hidden, require_key: bool) -> Problem | None:
    """What is wrong with the key, or None (never showing it)."""
    key = api_key.reveal()
    if key is not None and not isinstance(key, str):
        return TypeError, f"api_key must be a string, not {type(key).__name__}"
    if key is not None and any(not 0x21 <= ord(c) <= 0x7E for c in key.strip()):
        # Never echo it: the message would carry the key into logs and tracebacks.
        return SettingError, (
            "The API key contains a space, a control or a non-ASCII character, so it"
            " cannot be sent in a header; check how it was copied."
        )
    if not (key and key.strip()) and require_key:
        return ConfigError, "No API key." + _HOW_TO.format(env="SOCIALFRAME_API_KEY")
    return None


def _auth_header(auth_header: Hidden) -> tuple[str, Problem | None]:
    """The header carrying the key, or what is wrong with it (never showing it: it may
    be a whole ``Name: <key>`` line pasted in).

    The default, ``Authorization``, yields to ``SOCIALFRAME_AUTH_HEADER``; any
    other name given wins over it.
    """
    given = auth_header.reveal()
    env = _env("SOCIALFRAME_AUTH_HEADER")
    if given == "Authorization" or given is None:
        given, what = env or "Authorization", "SOCIALFRAME_AUTH_HEADER" if env else "auth_header"
    else:
        what = "auth_header"
    if not isinstance(given, str):
        return "", (TypeError, f"{what} must be a header name (str), not {type(given).__name__}")
    if not _TOKEN.fullmatch(given.strip()):
        return "", (SettingError, f"{what} must be a header name ({_TOKEN_HELP}); not shown here.")
    return given.strip(), None


def _headers_problem(headers: Hidden, auth_header: str, keyed: bool) -> Problem | None:
    """What is wrong with the extra headers, or None (never showing a value)."""
    given = headers.reveal()
    if given is None:
        return None
    if not isinstance(given, Mapping):
        return TypeError, (
            f"headers must map header names to values (a dict), not {type(given).__name__}"
        )
    seen: set[str] = set()
    for position, (name, value) in enumerate(given.items(), start=1):
        if not isinstance(name, str):
            return TypeError, f"headers: name #{position} must be a str, not {type(name).__name__}"
        if not _TOKEN.fullmatch(name):
            return SettingError, (
                f"headers: name #{position} is not a header name ({_TOKEN_HELP});"
                " not shown here, in case it holds a secret"
            )
        if name.lower() in seen:
            return SettingError, f"headers: {name!r} is given twice (names ignore case)"
        seen.add(name.lower())
        if keyed and name.lower() == auth_header.lower():
            return SettingError, (
                f"headers: {name!r} is the header that carries the key (auth_header),"
                " which would replace it: pass the key as api_key only"
            )
        if not isinstance(value, str):
            return TypeError, f"headers[{name!r}] must be a str, not {type(value).__name__}"
        if value != value.strip():  # any space: requests refuses a leading NBSP too
            wrong = "starts or ends with a space (HTTP drops it, or cannot send it)"
        elif "\r" in value or "\n" in value:
            wrong = "holds a line break (CR or LF)"
        elif _UNSENDABLE.search(value):
            wrong = "holds a control character or one outside Latin-1 (HTTP cannot carry it)"
        else:
            continue
        return SettingError, f"headers[{name!r}]: the value {wrong}; the value is not shown"
    return None


def resolve(
    api_key: Hidden,
    *,
    base_url: str | Mapping[str, str] | None,
    auth_header: Hidden,
    headers: Hidden,
    require_key: bool = True,
) -> Settings:
    """Merge arguments with the environment, and check them.

    ``api_key``, ``auth_header`` and ``headers`` come :class:`Hidden`, and every
    check that reads them returns its error, raised here: no frame of the
    traceback holds them.

    Raises:
        ConfigError: no key (unless not required) or no base URL.
        SettingError: a setting that is not allowed (see the module doc).
        TypeError: a setting of the wrong type.
    """
    api_key = _key(api_key)
    problem = _key_problem(api_key, require_key)
    header = ""
    if problem is None:
        header, problem = _auth_header(auth_header)
    if problem is None:
        problem = _headers_problem(headers, header, keyed=api_key.reveal() is not None)
    if problem is not None:
        raise problem[0](problem[1])
    base_urls = resolve_base_urls(base_url)
    # Checked: from here on nothing raises, so they may be read.
    key = str(api_key.reveal() or "").strip()
    return Settings(
        api_key=Secret(key) if key else None,
        base_urls=base_urls,
        auth_header=header,
        headers=dict(cast("Mapping[str, str]", headers.reveal() or {})),
    )


def cache_url() -> str | None:
    """The team cache's URL (``SOCIALFRAME_CACHE_URL``), if one is set."""
    return _env("SOCIALFRAME_CACHE_URL") or None


def cache_dir() -> Path:
    """Where the default cache lives (not created here)."""
    override = _env("SOCIALFRAME_CACHE_DIR")
    if override:
        return Path(override).expanduser()

    return Path(platformdirs.user_cache_dir("socialframe", appauthor=False))


def _expire(value: object, what: str) -> float | timedelta:
    """``value`` as an ``expire_after`` requests-cache can use (see the module doc)."""
    if type(value).__name__ == "timedelta64":  # NumPy's (pandas' Timedelta is a timedelta)
        with contextlib.suppress(ValueError, OverflowError):
            value = pd.Timedelta(value).to_pytimedelta()
    if isinstance(value, bool) or not isinstance(value, numbers.Real | timedelta):
        raise TypeError(
            f"{what} must be seconds, a timedelta, or -1 for never, not {type(value).__name__}"
        )
    if not isinstance(value, timedelta) and value == DEFAULT_EXPIRE:
        return DEFAULT_EXPIRE
    try:
        length = value.total_seconds() if isinstance(value, timedelta) else float(value)
    except OverflowError:  # an int too large for a float
        length = math.inf
    if not (1 <= length <= MAX_EXPIRE.total_seconds()):  # NaN too
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        why = (
            " (less would store pages already expired: every run would pay for them"
            " again; for no cache, pass cache=False)"
            if length < 1
            else ""
        )
        raise SettingError(
            f"{what} must be -1 (never expire) or seconds (or a timedelta) from 1 to at most"
            f" {MAX_EXPIRE.days:,} days (a century), got {shown}{why}."
        )
    return value if isinstance(value, timedelta) else length


def resolve_expire(expire_after: object) -> float | timedelta:
    """Seconds (or a timedelta) a cached page stays fresh; -1 is never expire.

    Raises:
        SettingError: outside -1 or [1 s, :data:`MAX_EXPIRE`] (see the module doc).
        TypeError: not a number or a timedelta.
    """
    if expire_after is not None:
        return _expire(expire_after, "expire_after")
    raw = _env("SOCIALFRAME_CACHE_EXPIRE")
    if raw is None or raw.lower() == "never":
        return DEFAULT_EXPIRE
    try:
        number = float(raw)
    except ValueError:
        raise SettingError(
            f"SOCIALFRAME_CACHE_EXPIRE must be seconds or 'never', got {raw[:60]!r}."
        ) from None
    return _expire(number, "SOCIALFRAME_CACHE_EXPIRE")


def check_rate(rate_limit: object) -> None:
    """Raise unless ``rate_limit`` is one a client can keep (see the module doc).

    Raises:
        SettingError: not a rate, or outside one call a day to
            :data:`MAX_RATE_CALLS` calls a period of at most a day.
        TypeError: neither a number, text nor None.
    """
    try:
        rate = parse_rate(rate_limit)
    except TypeError:
        raise
    except OverflowError:
        raise SettingError(
            f"rate_limit must be calls per second or like '300/min', got a number too large"
            f" ({str(rate_limit)[:20]}...)"
        ) from None
    except ValueError as exc:
        raise SettingError(str(exc)) from None
    if rate is not None and (rate[0] > MAX_RATE_CALLS or rate[1] > _DAY_MS):
        raise SettingError(
            f"rate_limit must be at most {MAX_RATE_CALLS:,} calls in a period of at most"
            f" a day (so at least one call a day), got {rate_limit!r:.60}"
        )


def budget(max_cost: object) -> Money | None:
    """``max_cost`` (USD) as the ledger takes it: a :class:`~socialframe._ledger.Money`,
    or None for no budget.

    Raises:
        SettingError: not a finite amount >= 0.
        TypeError: a bool.
    """
    if max_cost is None:
        return None
    try:
        return Money.of(max_cost)  # type: ignore[arg-type]
    except ValueError as exc:
        raise SettingError(str(exc)) from None


def check_limits(
    *,
    max_cost: object,
    max_retries: object,
    timeout: object,
    backoff: object,
    workers: object,
    rate_limit: object,
    expire_after: object,
) -> Limits:
    """The client's numeric settings, checked (see the module doc for what is allowed).

    Raises:
        SettingError: a value outside what is allowed.
        TypeError: a value of the wrong type (where the setting says which).
    """
    check_rate(rate_limit)
    return Limits(
        max_cost=budget(max_cost),
        max_retries=count("max_retries", max_retries, maximum=MAX_RETRIES, error=SettingError),
        timeout=seconds("timeout", timeout, positive=True, maximum=MAX_TIMEOUT, error=SettingError),
        backoff=seconds("backoff", backoff, maximum=MAX_BACKOFF, error=SettingError),
        workers=count("workers", workers, minimum=1, maximum=MAX_WORKERS, error=SettingError),
        expire_after=resolve_expire(expire_after),
    )
