"""The digest a refresh sends when it is done (``Study.refresh(..., notify=URL)``).

A JSON POST to an ``http(s)://`` webhook: the study's name, the refresh, what it paid,
the counts by change and the first :data:`FIRST` changes. The service's text (items,
ids) is JSON-escaped in the body and in nothing else. A notification that fails (the
host refuses, times out, answers an error) is a :class:`~socialframe.NotifyWarning`,
never an error: the refresh and its data are kept. The URL is never shown whole in a
warning (a webhook's path and query are its secret): only its scheme and host.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Final
from urllib.parse import urlsplit

import pandas as pd

from .._errors import NotifyWarning

#: How many changes a digest lists (the counts are of them all).
FIRST: Final = 20
#: Seconds a webhook has to answer.
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
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            "notify must be an http:// or https:// webhook URL, such as"
            " https://hooks.example.com/..."
        )
    return url.strip()


def where(url: str) -> str:
    """What a message may say of ``url``: its scheme and host (never its path or query)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


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
    """POST ``payload`` as JSON to ``url``; a failure is a NotifyWarning (False)."""
    import requests

    body = json.dumps(payload, ensure_ascii=False, default=str).encode()
    try:
        with requests.Session() as session:
            session.trust_env = False  # (no proxy, .netrc credentials or the like)
            answer = session.post(
                url,
                data=body,
                headers={"Content-Type": "application/json"},
                timeout=TIMEOUT,
                allow_redirects=False,
            )
        status = answer.status_code
    except requests.RequestException as exc:
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
