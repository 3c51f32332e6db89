"""Ad search pages -> one typed row per distinct ad (columns: ``_schema.ADS``, then extras)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

import pandas as pd

from .._errors import SchemaError
from .._pages import Page, ad_groups
from .._schema import AD_COLUMNS, AD_DTYPES, INT
from .values import extra_array, fetch_times, flag, pages, text, times, typed_frame, whole

#: Columns that come from the page an ad was on rather than from the ad.
_PAGE_FIELDS: Final = ("query", "result_page", "fetched_at")
_ROW_FIELDS: Final = tuple(name for name in AD_COLUMNS if name not in _PAGE_FIELDS)

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
# Paths (joined with "_") that feed the contract columns. Other fields are kept as extra
# columns, so nothing the service sent is dropped.
_CONSUMED: Final = frozenset(
    {
        "ad_archive_id",
        "collation_id",
        "collation_count",
        "page_id",
        "page_name",
        "is_active",
        "start_date",
        "end_date",
        "publisher_platform",
        "targeted_or_reached_countries",
        "currency",
        "total_active_time",
        "impressions_with_index_impressions_text",
        "snapshot_page_id",
        "snapshot_page_name",
        "snapshot_display_format",
        "snapshot_caption",
        "snapshot_link_url",
        "snapshot_cta_text",
        "snapshot_cta_type",
        "snapshot_page_like_count",
        "snapshot_page_profile_uri",
    }
)


def _snake(name: str) -> str:
    return _CAMEL.sub(r"_\1", name).lower().replace("-", "_").replace(" ", "_")


def _flatten(record: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in record.items():
        path = f"{prefix}{_snake(str(key))}"
        if isinstance(value, Mapping) and value:
            _flatten(value, f"{path}_", out)
            continue
        base, n = path, 2
        while path in out:  # "pageId" and "page_id" both become page_id: keep both
            path, n = f"{base}_{n}", n + 1
        out[path] = value


def _copy(value: Any) -> str | None:
    """A copy field that may come as a string or as ``{"text": ...}``."""
    if isinstance(value, Mapping):
        value = value.get("text")
    return text(value)


def _urls(items: Any, *keys: str) -> list[str]:
    urls = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping):
            url = next((item[k] for k in keys if item.get(k)), None)
            if url:
                urls.append(str(url))
    return urls


def _list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    return [] if value is None or value == "" else [value]


def _spend(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _ad_row(ad: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    raw_snap = ad.get("snapshot")
    snap: Mapping[str, Any] = raw_snap if isinstance(raw_snap, Mapping) else {}
    cards = snap.get("cards")
    first_card: Mapping[str, Any] = (
        cards[0] if isinstance(cards, list) and cards and isinstance(cards[0], Mapping) else {}
    )
    body, title = _copy(snap.get("body")), text(snap.get("title"))
    flat: dict[str, Any] = {}
    _flatten(ad, "", flat)
    extras = {k: v for k, v in flat.items() if k not in _CONSUMED}
    # Dynamic ads (DCO / DPA) carry {{placeholders}}; the real copy is on the first card.
    # The template itself stays, as snapshot_body_text / snapshot_title.
    if body is not None and "{{" in body and first_card:
        body = _copy(first_card.get("body")) or body
    else:
        extras.pop("snapshot_body_text", None)
    if title is not None and "{{" in title and first_card:
        title = text(first_card.get("title")) or title
    else:
        extras.pop("snapshot_title", None)
    for name in ("page_id", "page_name"):  # the snapshot's copy, when it says otherwise
        top, inner = text(ad.get(name)), text(snap.get(name))
        if top is not None and inner is not None and top != inner:
            extras[f"snapshot_{name}"] = snap.get(name)
    if ad.get("total_active_time") is not None and whole(ad.get("total_active_time")) is None:
        extras["raw_total_active_time"] = ad.get("total_active_time")
    spend = ad.get("spend")
    if not isinstance(spend, Mapping):
        extras.pop("spend", None)
    impressions = ad.get("impressions_with_index")
    start, end = whole(ad.get("start_date")), whole(ad.get("end_date"))
    active = whole(ad.get("total_active_time"))
    row = {
        "ad_archive_id": text(ad.get("ad_archive_id")),
        "collation_id": text(ad.get("collation_id")),
        "collation_count": whole(ad.get("collation_count")),
        "page_id": text(ad.get("page_id")) or text(snap.get("page_id")),
        "page_name": text(ad.get("page_name")) or text(snap.get("page_name")),
        "is_active": flag(ad.get("is_active")),
        "start_date": start or None,
        "end_date": end or None,
        "publisher_platforms": _list(ad.get("publisher_platform")),
        "countries": _list(ad.get("targeted_or_reached_countries")),
        "display_format": text(snap.get("display_format")),
        "body_text": body,
        "title": title,
        "caption": text(snap.get("caption")),
        "link_url": text(snap.get("link_url")),
        "cta_text": text(snap.get("cta_text")),
        "cta_type": text(snap.get("cta_type")),
        "page_like_count": whole(snap.get("page_like_count")),
        "page_profile_uri": text(snap.get("page_profile_uri")),
        "image_urls": _urls(snap.get("images"), "original_image_url", "resized_image_url"),
        "video_urls": _urls(snap.get("videos"), "video_hd_url", "video_sd_url"),
        "currency": text(ad.get("currency")),
        "spend": None if isinstance(spend, Mapping) else _spend(spend),
        "impressions_text": text(impressions.get("impressions_text"))
        if isinstance(impressions, Mapping)
        else None,
        "total_active_time": active,
    }
    return row, extras


def ads_frame(payloads: Iterable[Mapping[str, Any] | Page]) -> pd.DataFrame:
    """Ad search pages -> one row per distinct ad: :data:`socialframe.AD_COLUMNS`, then extras.

    ``data.ads`` (a list of collation groups) is flattened in order and rows are
    de-duplicated by ``ad_archive_id`` (the first sighting wins). Every field not
    used by a contract column follows as an extra column named by its
    snake_case path (``snapshot_cards``, ``impressions_with_index_impressions_index``).

    Args:
        payloads: Response bodies of ``fetch_search_ads_pages`` or
            (dicts), in page order; a single body is taken as a list of one.

    Returns:
        The typed frame; an empty search gives every contract column and dtype.

    Raises:
        SchemaError: a page is not the documented shape.

    Example:
        >>> body = {"data": {"ads": [[{"ad_archive_id": "1", "start_date": 1700000000,
        ...     "snapshot": {"page_name": "Acme", "body": {"text": "Hi"}}}]],
        ...     "page_info": {"has_next_page": False}}}
        >>> ads_frame([body]).loc[0, ["ad_archive_id", "page_name", "body_text"]].tolist()
        ['1', 'Acme', 'Hi']
    """
    rows: list[dict[str, Any]] = []
    extras: list[dict[str, Any]] = []
    meta: list[tuple[str | None, int]] = []
    counted: list[tuple[Page, int]] = []
    seen: set[str] = set()
    for page in pages(payloads):
        ads, _ = ad_groups(page.body, page.page)
        query = page.params.get("query") if page.params else page.key
        n = 0
        for ad in ads:
            if not isinstance(ad, Mapping):
                raise SchemaError(f"ads page {page.page}: an ad is not an object")
            ad_id = text(ad.get("ad_archive_id"))
            if ad_id is not None:
                if ad_id in seen:
                    continue
                seen.add(ad_id)
            row, extra = _ad_row(ad)
            rows.append(row)
            extras.append(extra)
            meta.append((query, page.page))
            n += 1
        counted.append((page, n))
    columns: dict[str, Any] = {name: [row[name] for row in rows] for name in _ROW_FIELDS}
    columns["start_date"] = times(columns["start_date"], "s")
    columns["end_date"] = times(columns["end_date"], "s")
    columns["total_active_time"] = pd.to_timedelta(
        pd.array(columns["total_active_time"], dtype=INT), unit="s"
    ).astype("timedelta64[s]")
    columns["query"] = [q for q, _ in meta]
    columns["result_page"] = [p for _, p in meta]
    columns["fetched_at"] = fetch_times(counted)
    frame = typed_frame(columns, AD_COLUMNS, AD_DTYPES)
    names = sorted({k for extra in extras for k in extra})
    if names:
        taken = set(AD_COLUMNS)
        added = {
            (f"raw_{name}" if name in taken else name): extra_array(
                name, [extra.get(name) for extra in extras]
            )
            for name in names
        }
        frame = pd.concat([frame, pd.DataFrame(added, index=frame.index)], axis=1)
    return frame
