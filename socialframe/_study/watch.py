"""What a study watches: posts and ad searches, checked and written in one canonical form.

A watched item is a dict (the manifest stores it as JSON)::

    {"kind": "post", "item": "7384427202391592960", "filters": {}, "added_at": "..."}
    {"kind": "ads", "item": "running shoes", "filters": {"country": "US", ...}, ...}
    {"kind": "ads", "item": "page 123456", "filters": {"ad_page_id": "123456"}, ...}

Its key (:func:`key`) names it in the manifest's state and in the study's rows: a post
written two ways (an id, a URL) is one post; a search is its text (or advertiser)
and its filters.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from .. import _operations as endpoints
from .._fetch import many


def posts(given: object) -> list[dict[str, Any]]:
    """The watched-post dicts of ``given`` (one post, a list or a Series), each checked.

    Raises:
        ValueError / TypeError: a post that is not one (naming it), before anything is
            written.
    """
    items = many.items_of(given, "post")
    chosen = [given] if items is None else items
    found: dict[str, dict[str, Any]] = {}
    for post in chosen:
        pid = endpoints.post_id(post)
        found.setdefault(pid, {"kind": "post", "item": pid, "filters": {}})
    return list(found.values())


def search(
    query: str | None,
    *,
    page_id: str | int | None,
    country: str | None,
    active_status: str | bool | None,
) -> dict[str, Any]:
    """The watched-search dict of a query (or advertiser) and its filters, checked as
    :meth:`~socialframe.Client.search_ads` checks them."""
    params = endpoints.ad_params(
        query,
        ad_page_id=page_id,
        country=country,
        active_status=active_status,
        after=None,
        before=None,
    )
    filters = {k: v for k, v in params.items() if k != "query"}
    item = params["query"] if "query" in params else f"page {params['ad_page_id']}"
    return {"kind": "ads", "item": item, "filters": filters}


def key(watched: dict[str, Any]) -> str:
    """The one name of a watched item.

    Example:
        >>> key({"kind": "ads", "item": "shoes", "filters": {"country": "US"}})
        'ads:shoes:{"country":"US"}'
    """
    filters = json.dumps(watched["filters"], sort_keys=True, separators=(",", ":"))
    return f"{watched['kind']}:{watched['item']}:{filters}"  # (kept in files: never changes)


def filters_text(watched: dict[str, Any]) -> str | None:
    """A watched search's filters as ``search_ads`` names them (``active_status=all
    country=US``; None for a post or a search without filters): the one form every
    frame of a study shows them in (``watched()``, ``refresh()``, ``changes()``), as the
    cache report does. It tells two searches of one text apart, and is text in a file
    written out (CSV, Parquet).

    Example:
        >>> filters_text({"kind": "ads", "item": "shoes", "filters": {"country": "US"}})
        'country=US'
        >>> filters_text({"kind": "ads", "item": "x", "filters": {"activeStatus": "ALL"}})
        'active_status=all'
    """
    if watched["kind"] == "post":
        return None
    return endpoints.filters_text(watched["filters"])


def ad_params(watched: dict[str, Any], *, after: date | datetime | None = None) -> dict[str, str]:
    """The parameters of a watched search's first page (``after``: started since then)."""
    params = dict(watched["filters"])
    if "ad_page_id" not in params:
        params["query"] = watched["item"]
    if after is not None:
        params["after_time"] = (after.date() if isinstance(after, datetime) else after).isoformat()
    return params


def checked(watched: object) -> str | None:
    """What is wrong with a watched item read from a manifest, or None (nothing read from
    a study is paid for or queried unchecked)."""
    if not isinstance(watched, dict):
        return "a watched item that is not an object"
    kind, item, filters = watched.get("kind"), watched.get("item"), watched.get("filters")
    if kind not in ("post", "ads") or not isinstance(item, str) or not isinstance(filters, dict):
        return f"a watched item of kind {kind!r:.20} / item {item!r:.40}"
    if not isinstance(watched.get("added_at"), str):
        return f"watched item {item!r:.40} has no added_at"
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in filters.items()):
        return f"watched item {item!r:.40} has filters that are not text"
    try:
        if kind == "post":
            if filters or endpoints.post_id(item) != item:
                return f"watched post {item!r:.40} is not a post id"
        else:
            again = search(
                None if "ad_page_id" in filters else item,
                page_id=filters.get("ad_page_id"),
                country=filters.get("country"),
                active_status=_status_word(filters.get("activeStatus")),
            )
            if again["item"] != item or again["filters"] != filters:
                return f"watched search {item!r:.40} is not one add_ads writes"
    except (ValueError, TypeError) as exc:
        return f"watched item {item!r:.40}: {exc}"
    return None


def _status_word(status: str | None) -> str | None:
    """The ``active_status`` word of a service's ``activeStatus`` value."""
    words = {v: k for k, v in endpoints.ACTIVE_STATUS.items()}
    return None if status is None else words.get(status, status)
