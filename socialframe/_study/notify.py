"""The digest a refresh sends when it is done (``Study.refresh(..., notify=URL)``).

A JSON POST to an ``http(s)://`` webhook: the study's name, the refresh, what it paid,
the counts by change and the first :data:`FIRST` changes. The service's text (items,
ids) is JSON-escaped in the body and in nothing else. A notification that fails (the
host refuses, times out, answers an error) is a :class:`~socialframe.NotifyWarning`,
never an error: the refresh and its data are kept. The URL is never shown whole in a
warning (a webhook's path and query are its secret): only its scheme and host (an
apprise URL's scheme only). A webhook has :data:`TIMEOUT` seconds in all to answer.

Any other scheme (``mailto://``, ``slack://``, ``tgram://``, ``json://``, ...) goes
through `apprise <https://github.com/caronc/Apprise>`_ where it is installed (the
``notify`` extra: ``pip install "socialframe[notify]"``): a title with the counts and
what was paid, and the digest as JSON text (plain text, never markup). In that text the
characters a channel reads as markup or a control sequence (``<``, ``>``, ``&``, ``@``,
and inside its strings ``[`` and ``]``:
an HTML e-mail's tags and entities, Slack's ``<!channel>``, ``<@U123>``,
``<https://...|label>``, Discord's ``@everyone`` and ``[label](https://...)``) are
JSON's escapes (``\\u003c``, ...): the text is the same JSON, read back as the same digest, and
no channel's conversion (``?format=markdown`` on a ``slack://`` URL turns apprise's
escaping off; on a ``discord://`` one apprise allows the mentions it finds) can make a
tag, a mention or a link of the service's text. Without apprise such a URL is refused
before anything is paid, saying what to install.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

import pandas as pd

from .._errors import NotifyWarning

_T = TypeVar("_T")

#: How many changes a digest lists (the counts are of them all).
FIRST: Final = 20
#: What :func:`_through_apprise` writes for each character some channel reads as markup
#: or a control sequence in text it was handed as plain (apprise converts it to the
#: channel's format, and that conversion is apprise's, version by version): JSON's own
#: escapes, so the text stays the same JSON. They occur only inside JSON's strings.
_INERT: Final = str.maketrans(
    {
        "<": "\\u003c",
        ">": "\\u003e",
        "&": "\\u0026",
        "@": "\\u0040",
        # (a Markdown link, ``[verify](https://...)``: Discord shows its label only)
        "[": "\\u005b",
        "]": "\\u005d",
    }
)
#: A JSON string literal as ``json.dumps`` writes it (``[`` and ``]`` occur outside them).
_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
#: Seconds a webhook (or apprise's service) has to answer, all told: a host that
#: answers a byte at a time never holds a refresh longer than this.
TIMEOUT: Final = 10.0


def checked(url: object) -> str | None:
    """``url`` as given, once checked: an ``http(s)://`` URL with a host (None: none).

    Raises:
        TypeError / ValueError: it is not one (before anything is paid for).
    """
    if url is None:
        return None
    if not isinstance(url, str):
        raise TypeError(f"notify must be a webhook URL (text), not {type(url).__name__}")
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (a port that is no number is refused here, not after paying)
    except ValueError:
        parts = None
    if parts is not None and parts.scheme in ("http", "https") and parts.hostname:
        return url.strip()
    if parts is not None and parts.scheme and parts.scheme not in ("http", "https"):
        apprise = _apprise()
        if apprise is None:
            raise ValueError(
                f"notify: a {parts.scheme}:// URL is sent through apprise, which is not"
                ' installed: pip install "socialframe[notify]" (or give an http:// or'
                " https:// webhook URL)"
            )
        with _quiet():
            known = apprise.Apprise.instantiate(url.strip()) is not None
        if known:
            return url.strip()
    raise ValueError(
        "notify must be an http:// or https:// webhook URL, such as"
        " https://hooks.example.com/..., or a URL apprise knows (mailto://, slack://, ...)"
    )


def _apprise() -> Any:
    """The apprise module, or None where it is not installed (an extra)."""
    try:
        with _quiet():
            import apprise
    except ImportError:
        return None
    return apprise


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Around apprise: the deprecations of what it imports (its plugins load lazily,
    one imports ``imghdr``) are not the user's to act on; and its debug and info
    records, which name the whole URL (a webhook's path and query are its secret), are
    dropped (its warnings name the host only)."""
    logger = logging.getLogger("apprise")
    below = _BelowWarning()
    logger.addFilter(below)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            yield
    finally:
        logger.removeFilter(below)


#: The loggers that name a request's URL (urllib3's at DEBUG: "GET /path?query").
_LOGGERS: Final = ("urllib3.connectionpool", "urllib3.util.retry", "requests", "apprise")


@contextlib.contextmanager
def _unlogged(url: str) -> Iterator[None]:
    """While a digest is sent: no record of the loggers that name a request's URL (at
    any level the caller set, DEBUG too) holds a secret part of ``url`` (its user,
    password, path segments and query values; an apprise URL's host as well, its
    token): such a part is ``***`` in the record."""
    redact = _Redact(_secret_parts(url))
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    for logger in loggers:
        logger.addFilter(redact)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(redact)


def _secret_parts(url: str) -> list[str]:
    """The parts of ``url`` a log must not hold, longest first (so a part inside another
    is never left half-shown)."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "") if parts.scheme in ("http", "https") else ""
    except ValueError:
        return [url]
    rest = url.split("://", 1)[-1]
    if host:  # (an http(s) webhook's host may be shown; an apprise URL's is its token)
        rest = rest.replace(parts.netloc.rpartition("@")[2], " ", 1)
    pieces = {rest.strip(" "), parts.path.strip("/") if host else ""}
    pieces.update(re.split(r"[/?&=#:@;,+ ]+", rest))
    return sorted((p for p in pieces if len(p) >= 3), key=len, reverse=True)


class _Redact(logging.Filter):
    """``***`` for each secret in a record's message; a record whose traceback holds one
    loses its traceback (the message says what failed)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self._secrets = secrets

    def _hide(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 (a record that cannot be formatted: dropped)
            return False
        hidden = self._hide(text)
        if hidden != text:
            record.msg, record.args = hidden, ()
        shown = record.exc_text or ""
        if record.exc_info:
            shown += "".join(traceback.format_exception(*record.exc_info))
        if shown and self._hide(shown) != shown:
            record.exc_info, record.exc_text = None, None
        return True


class _BelowWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING


def where(url: str) -> str:
    """What a message may say of ``url``: an ``http(s)://`` one's scheme and host (never
    its user, password, path or query); any other's scheme only: apprise's URLs hold
    their secret where a host would be (``slack://TokenA/...``, ``tgram://bot-token/...``).
    """
    try:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return f"{parts.scheme}://..."
        port = parts.port
    except ValueError:
        return "the webhook"
    return f"{parts.scheme}://{parts.hostname}" + (f":{port}" if port else "")


def digest(
    name: str, run: dict[str, Any], items: pd.DataFrame, changes: pd.DataFrame
) -> dict[str, Any]:
    """The digest of one refresh.

    Args:
        name: The study's folder name.
        run: The refresh's ``id`` and ``at``.
        items: What :meth:`~socialframe.Study.refresh` returned.
        changes: The refresh's changes (``study.changes()``'s rows of it).
    """
    counts: dict[str, dict[str, int]] = {}
    for (kind, what), n in changes.groupby(["kind", "change"]).size().items():
        counts.setdefault(str(kind), {})[str(what)] = int(n)
    first = [
        {
            "kind": row["kind"],
            "item": row["item"],
            "id": row["id"],
            "change": row["change"],
            "fields": None if pd.isna(row["fields"]) else row["fields"],
        }
        for _, row in changes.head(FIRST).iterrows()
    ]
    return {
        "study": name,
        "refresh": run["id"],
        "at": run["at"],
        "items": len(items),
        "complete": bool(items["complete"].fillna(False).astype(bool).all()),
        "paid_calls": int(items["paid_calls"].sum()),
        "cost_usd": round(float(items["cost_usd"].sum()), 2),
        "changes": int(len(changes)),
        "counts": counts,
        "first": first,
    }


def send(url: str, payload: dict[str, Any]) -> bool:
    """POST ``payload`` as JSON to ``url`` (an ``http(s)://`` one; any other through
    apprise); a failure is a NotifyWarning (False)."""
    if urlsplit(url).scheme not in ("http", "https"):
        return _through_apprise(url, payload)
    import requests

    body = json.dumps(payload, ensure_ascii=False, default=str).encode()

    def post() -> int:
        with requests.Session() as session:
            session.trust_env = False  # (no proxy, .netrc credentials or the like)
            answer = session.post(
                url,
                data=body,
                headers={"Content-Type": "application/json"},
                timeout=TIMEOUT,
                allow_redirects=False,
            )
            return answer.status_code

    try:
        with _unlogged(url):
            status = _within(post)
    except Exception as exc:  # noqa: BLE001 (a failure to notify is a warning, never the refresh's)
        # (requests' own message names the whole URL: not repeated)
        warnings.warn(
            NotifyWarning(
                f"the refresh's digest could not be sent to {where(url)}"
                f" ({type(exc).__name__}); the refresh and its data are kept"
            ),
            stacklevel=3,
        )
        return False
    if not 200 <= status < 300:
        warnings.warn(
            NotifyWarning(
                f"the refresh's digest was refused by {where(url)} (HTTP {status});"
                " the refresh and its data are kept"
            ),
            stacklevel=3,
        )
        return False
    return True


def _through_apprise(url: str, payload: dict[str, Any]) -> bool:
    """Send the digest through apprise: a title and the digest as plain JSON text."""
    apprise = _apprise()
    counts = ", ".join(
        f"{kind} {what} {n}"
        for kind, by in sorted(payload.get("counts", {}).items())
        for what, n in sorted(by.items())
    )
    title = (
        f"socialframe: {payload.get('changes', 0)} changes ({counts or 'none'}),"
        f" ${payload.get('cost_usd', 0):.2f} paid"
    )
    body = _STRING.sub(
        lambda text: text.group().translate(_INERT),
        json.dumps(payload, ensure_ascii=False, default=str, indent=1),
    )
    sent = False
    if apprise is not None:
        notifier = apprise.Apprise()
        try:
            with _quiet():
                added = notifier.add(url)
            if added:

                def notify() -> bool:
                    told = notifier.notify(
                        title=title, body=body, body_format=apprise.NotifyFormat.TEXT
                    )
                    return bool(told)

                # (in this thread: the filters of warnings are the process's)
                with _quiet(), _unlogged(url):
                    sent = _within(notify)
        except Exception:  # noqa: BLE001 (a plugin's failure is a warning, never the refresh's)
            sent = False
    if not sent:
        warnings.warn(
            NotifyWarning(
                f"the refresh's digest could not be sent to {where(url)} (through apprise);"
                " the refresh and its data are kept"
            ),
            stacklevel=3,
        )
    return sent


def _within(send: Callable[[], _T]) -> _T:
    """``send()``, given :data:`TIMEOUT` seconds in all (a timeout of requests is per
    read: a host that answers a byte at a time would hold it for ever).

    Raises:
        TimeoutError: It did not end in time (it goes on in a daemon thread, which
            holds nothing of the refresh's and ends with the process).
        Whatever ``send`` raised.
    """
    done: list[_T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(send())
        except BaseException as exc:  # noqa: BLE001 (handed to the caller's thread)
            failed.append(exc)

    worker = threading.Thread(target=run, name="socialframe-notify", daemon=True)
    worker.start()
    worker.join(TIMEOUT)
    if failed:
        raise failed[0]
    if not done:
        raise TimeoutError(f"no answer within {TIMEOUT:g} s")
    return done[0]
