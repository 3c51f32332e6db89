"""Ad search pages -> one typed row per distinct ad (columns: ``_schema.ADS``, then extras)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

import numpy as np
import pandas as pd

from .._models import Page
from .._schema import AD_COLUMNS, AD_DTYPES, INT, mark
from .identity import AD_KEY, DERIVED, derived_id
from .shape import checked, grouped_ads
from .values import (
    INT64,
    Payloads,
    Unfit,
    extra_array,
    fetch_times,
    flag,
    objects,
    pages,
    paused_gc,
    real,
    text,
    times,
    typed_frame,
    whole,
    within,
)

#: Columns that come from the page an ad was on rather than from the ad.
_PAGE_FIELDS: Final = ("query", "result_page", "fetched_at")
_ROW_FIELDS: Final = tuple(name for name in AD_COLUMNS if name not in _PAGE_FIELDS)

# Epoch seconds a run date can hold: after 1970, before 2200 (a larger number is
# not a date the Ad Library has, and past ~2.9e5 years it would wrap in datetime64).
_SECONDS: Final = (1, 7_258_118_400)
_RUN_TIME: Final = (0, 100 * 366 * 86_400)  # total_active_time: at most a century
# Nesting below this depth stays one extra column holding the object as sent.
_FLAT_DEPTH: Final = 8

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


def _snake_case(name: str) -> str:
    return _CAMEL.sub(r"_\1", name).lower().replace("-", "_").replace(" ", "_")


# An ad has ~47 keys, nearly all the same from ad to ad: a regex per key was 70% of
# the build. Each distinct key is converted once; a run of unusual keys (the cache is
# bounded) costs the regex again, never memory without end.
_snake = functools.lru_cache(maxsize=4096)(_snake_case)


def _flatten(record: Mapping[str, Any], prefix: str, out: dict[str, Any], depth: int = 0) -> None:
    keys = tuple(record)
    # Text keys (all JSON has) by the shape's memo; others (1, True and 1.0 are one
    # key to a memo) and very wide objects each time.
    paths = (
        _paths(prefix, keys)
        if len(keys) <= 256 and set(map(type, keys)) == {str}
        else _paths.__wrapped__(prefix, keys)
    )
    for path, value in zip(paths, record.values(), strict=True):
        kind = type(value)
        if (
            (kind is dict or (kind not in _PLAIN and isinstance(value, Mapping)))
            and value
            and depth < _FLAT_DEPTH
        ):
            _flatten(value, f"{path}_", out, depth + 1)
        elif path not in out:
            out[path] = value
        else:  # "pageId" and "page_id" both become page_id: keep both
            base, n = path, 2
            while path in out:
                path, n = f"{base}_{n}", n + 1
            out[path] = value


@functools.lru_cache(maxsize=512)
def _paths(prefix: str, keys: tuple[Any, ...]) -> tuple[str, ...]:
    """The flat names of an object's keys under ``prefix``: ads share a few shapes."""
    return tuple(f"{prefix}{_snake(str(key))}" for key in keys)


# isinstance(value, Mapping) is an ABC check, slow; JSON gives these plain types
_PLAIN: Final = frozenset({str, int, float, bool, list, type(None)})


def _as_sent(name: str, values: list[Any]) -> Any:
    # An object Series: from a bare array of text, pandas would infer its own str dtype.
    return pd.Series(objects(values), dtype=object)


def _copy(value: Any, unfit: Unfit | None = None, column: str = "") -> str | None:
    """A copy field that may come as a string or as ``{"text": ...}``."""
    if isinstance(value, Mapping):
        value = value.get("text")
    return text(value, unfit, column)


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


def _ad_row(ad: Mapping[str, Any], unfit: Unfit) -> tuple[dict[str, Any], dict[str, Any]]:
    """One ad's contract values by column, and its extras (fields no column uses).

    A value that does not fit its column is missing there, counted in ``unfit``,
    and kept as sent in the extra ``raw_<column>``.
    """
    raw_snap = ad.get("snapshot")
    snap: Mapping[str, Any] = raw_snap if isinstance(raw_snap, Mapping) else {}
    cards = snap.get("cards")
    first_card: Mapping[str, Any] = (
        cards[0] if isinstance(cards, list) and cards and isinstance(cards[0], Mapping) else {}
    )
    flat: dict[str, Any] = {}
    _flatten(ad, "", flat)
    extras = {k: v for k, v in flat.items() if k not in _CONSUMED}

    def fit(column: str, raw: Any, parse: Any, *bounds: int) -> Any:
        if raw is None:  # missing in every column, never unfit
            return None
        if type(raw) is str and parse is text:  # the usual case, as text() has it
            return raw or None
        before = unfit.total
        value = parse(raw, unfit, column)
        if bounds:
            value = within(value, bounds[0], bounds[1], unfit, column)
        if unfit.total != before:
            extras[column] = raw  # becomes raw_<column>: nothing sent is dropped
        return value

    body, title = fit("body_text", snap.get("body"), _copy), fit("title", snap.get("title"), text)
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
    spend = ad.get("spend")
    if not isinstance(spend, Mapping):
        extras.pop("spend", None)
    impressions = ad.get("impressions_with_index")
    start = ad.get("start_date")
    end = ad.get("end_date")
    # Plain text and in-range whole numbers, the usual case, are taken as they are:
    # fit() is for the rest (what it gives them is the same).
    row = {
        "ad_archive_id": v
        if type(v := ad.get("ad_archive_id")) is str and v and not v.startswith(DERIVED)
        else fit("ad_archive_id", v, _own_id),
        "id_derived": False,  # (set by the caller when it derives the id)
        "collation_id": v
        if type(v := ad.get("collation_id")) is str and v
        else fit("collation_id", v, text),
        "collation_count": v
        if type(v := ad.get("collation_count")) is int and INT64[0] <= v < INT64[1]
        else fit("collation_count", v, whole),
        "page_id": fit("page_id", ad.get("page_id"), text) or text(snap.get("page_id")),
        "page_name": fit("page_name", ad.get("page_name"), text) or text(snap.get("page_name")),
        "is_active": v if type(v := ad.get("is_active")) is bool else fit("is_active", v, flag),
        # 0 is the service's "no date"
        "start_date": None
        if start == 0
        else start
        if type(start) is int and _SECONDS[0] <= start < _SECONDS[1]
        else fit("start_date", start, whole, *_SECONDS),
        "end_date": None
        if end == 0
        else end
        if type(end) is int and _SECONDS[0] <= end < _SECONDS[1]
        else fit("end_date", end, whole, *_SECONDS),
        "publisher_platforms": _list(ad.get("publisher_platform")),
        "countries": _list(ad.get("targeted_or_reached_countries")),
        "display_format": v
        if type(v := snap.get("display_format")) is str and v
        else fit("display_format", v, text),
        "body_text": body,
        "title": title,
        "caption": v if type(v := snap.get("caption")) is str and v else fit("caption", v, text),
        "link_url": v if type(v := snap.get("link_url")) is str and v else fit("link_url", v, text),
        "cta_text": v if type(v := snap.get("cta_text")) is str and v else fit("cta_text", v, text),
        "cta_type": v if type(v := snap.get("cta_type")) is str and v else fit("cta_type", v, text),
        "page_like_count": v
        if type(v := snap.get("page_like_count")) is int and INT64[0] <= v < INT64[1]
        else fit("page_like_count", v, whole),
        "page_profile_uri": v
        if type(v := snap.get("page_profile_uri")) is str and v
        else fit("page_profile_uri", v, text),
        "image_urls": _urls(snap.get("images"), "original_image_url", "resized_image_url"),
        "video_urls": _urls(snap.get("videos"), "video_hd_url", "video_sd_url"),
        "currency": v if type(v := ad.get("currency")) is str and v else fit("currency", v, text),
        "spend": None if isinstance(spend, Mapping) else fit("spend", spend, real),
        "impressions_text": fit("impressions_text", impressions.get("impressions_text"), text)
        if isinstance(impressions, Mapping)
        else None,
        "total_active_time": v
        if type(v := ad.get("total_active_time")) is int and _RUN_TIME[0] <= v < _RUN_TIME[1]
        else fit("total_active_time", v, whole, *_RUN_TIME),
    }
    return row, extras


def _own_id(value: Any, unfit: Unfit | None = None, column: str = "") -> str | None:
    """An ad's ``ad_archive_id`` as text; one in the derived form (``derived:``...) is
    not the service's to send: unfit, so that no id sent can pass for a derived one."""
    found = text(value, unfit, column)
    if found is not None and found.startswith(DERIVED):
        if unfit is not None:
            unfit.note(column)
        return None
    return found


def own_ad_id(ad: Mapping[str, Any]) -> str | None:
    """The ``ad_archive_id`` the service sent for ``ad``, as the frame takes it; None
    where it sent none that fits (the frame then derives one)."""
    value = ad.get("ad_archive_id")
    if type(value) is str:
        return value if value and not value.startswith(DERIVED) else None
    return _own_id(value)


Parsed = tuple[dict[str, Any], dict[str, Any], Unfit]
"""An ad's contract values, its extras and what of it did not fit (see :func:`_ad_row`)."""


def _page_ads(
    body: Mapping[str, Any], *, content: bool = False
) -> Iterator[tuple[str | None, str | None, Mapping[str, Any], Parsed | None]]:
    """Each ad of an ads page (checked), in order: the id the service sent (or None),
    the id derived from it, the ad, and its row as parsed for that.

    An ad is derived an id when it has none, or when ``content`` asks for every ad's
    (the id it would have without its own). Its occurrence counts the equal ads
    before it in its collation group, with an id or without (see .identity), so the
    ads of a group are parsed whenever one of them needs it; the others are not
    parsed here (the derived id and the row are then None).
    """
    grouped: dict[int, list[Mapping[str, Any]]] = {}
    for number, ad in grouped_ads(body):
        grouped.setdefault(number, []).append(ad)
    for ads in grouped.values():
        owns = [own_ad_id(ad) for ad in ads]
        if not content and None not in owns:
            for own, ad in zip(owns, ads, strict=True):
                yield own, None, ad, None
            continue
        counts: dict[tuple[Any, ...], int] = {}
        for own, ad in zip(owns, ads, strict=True):
            its_unfit = Unfit()
            row, extra = _ad_row(ad, its_unfit)
            key = tuple(row[name] for name in AD_KEY)
            occurrence = counts.get(key, 0)
            counts[key] = occurrence + 1
            yield own, derived_id("ad", key, occurrence), ad, (row, extra, its_unfit)


def ad_ids(body: Mapping[str, Any]) -> list[str]:
    """The id of every ad of an ads page (checked), in order, as :func:`ads_frame`
    names them: the service's ``ad_archive_id``, else the derived one."""
    # (an ad without an id of its own always has a derived one)
    return [own if own is not None else str(made) for own, made, _, _ in _page_ads(body)]


def ads_frame(payloads: Payloads) -> pd.DataFrame:
    """Ad search pages -> one row per distinct ad: :data:`socialframe.AD_COLUMNS`, then extras.

    ``data.ads`` (a list of collation groups) is flattened in order and rows are
    de-duplicated by ``ad_archive_id`` (the first sighting wins). An ad sent
    without one (or with one in the derived form, kept as ``raw_ad_archive_id``)
    gets an id derived from it (``derived:`` + 32 hex digits: its page, start,
    collation group, format and copy; equal ads of one group numbered in the order
    sent) and ``id_derived`` true, and is de-duplicated by it as by any id: a
    repeated page brings nothing new (see :mod:`socialframe._frames.identity`).
    Every field not
    used by a contract column follows as an extra column named by its
    snake_case path (``snapshot_cards``, ``impressions_with_index_impressions_index``).

    Args:
        payloads: Response bodies of ``fetch_search_ads_pages``, in page order:
            dicts, or the raw JSON (``bytes`` / ``str``, e.g. saved to files;
            parsed here, faster than parsing them first); a single body is
            taken as a list of one.

    Returns:
        The typed frame; an empty search gives every contract column and dtype.

    Raises:
        SchemaError: a page is not the documented shape, or a raw body is not
            JSON (naming the page); never any other error, whatever the values.

    Warns:
        SchemaWarning: values that did not fit their columns (a date beyond 2200,
            a count beyond 64 bits); they are missing there and kept as sent in
            ``raw_<column>``.

    Example:
        >>> body = {"data": {"ads": [[{"ad_archive_id": "1", "start_date": 1700000000,
        ...     "snapshot": {"page_name": "Acme", "body": {"text": "Hi"}}}]],
        ...     "page_info": {"has_next_page": False}}}
        >>> ads_frame([body]).loc[0, ["ad_archive_id", "page_name", "body_text"]].tolist()
        ['1', 'Acme', 'Hi']
    """
    with paused_gc():
        return mark(_ads_frame(payloads, typed=True)[0], "ads")


def ads_with_content(payloads: Payloads) -> tuple[pd.DataFrame, list[str]]:
    """:func:`ads_frame`, and each ad's content id: the id it is derived as when it
    comes without an ``ad_archive_id`` (its ``ad_archive_id`` when it did).

    What lets a study know an ad it saw under one name under the other: sent once
    with its id and once without, an ad has one content id.
    """
    with paused_gc():
        frame, content = _ads_frame(payloads, typed=True, content=True)
    return mark(frame, "ads"), content


def untyped_ads_frame(payloads: Payloads) -> pd.DataFrame:
    """:func:`ads_frame` with its extra columns as sent (object), to be typed once over
    all the rows of a fetch (``retype_extras``): typed part by part, an extra column
    could come out differently depending on how the rows were split."""
    with paused_gc():
        return mark(_ads_frame(payloads, typed=False)[0], "ads")


def _ads_frame(
    payloads: Payloads, typed: bool, *, content: bool = False
) -> tuple[pd.DataFrame, list[str]]:
    rows: list[tuple[Any, ...]] = []  # each ad's contract values, in the order of `names`
    names: tuple[str, ...] = _ROW_FIELDS  # the keys of _ad_row's row (one literal: one order)
    # Extras by the shape of their keys (ads share a few): per shape the rows and their
    # values, turned into columns in C at the end.
    shapes: dict[tuple[str, ...], tuple[list[int], list[tuple[Any, ...]]]] = {}
    meta: list[tuple[str | None, int]] = []
    counted: list[tuple[Page, int]] = []
    seen: set[str] = set()
    contents: list[str] = []  # each row's content id (when asked for)
    unfit = Unfit()
    for page in pages(payloads):
        checked("ads", page.body, page.page, paging=False)
        query = page.params.get("query") if page.params else page.key
        n = 0
        for own, made, ad, parsed in _page_ads(page.body, content=content):
            # an ad without an id of its own is taken by the one derived from it, as any
            ad_id = own if own is not None else made  # (see .identity)
            if ad_id is None or ad_id in seen:
                continue
            seen.add(ad_id)
            if parsed is None:
                row, extra = _ad_row(ad, unfit)  # (unfit ids are counted there)
            else:
                row, extra, its_unfit = parsed
                unfit.add(its_unfit)
            if own is None:
                row["ad_archive_id"], row["id_derived"] = ad_id, True
            if content:
                contents.append(str(made))
            shape = tuple(extra)
            group = shapes.get(shape)
            if group is None:
                group = shapes[shape] = ([], [])
            group[0].append(len(rows))
            group[1].append(tuple(extra.values()))
            if not rows:
                names = tuple(row)
            rows.append(tuple(row.values()))
            meta.append((query, page.page))
            n += 1
        counted.append((page, n))
    by_name = zip(*rows, strict=True) if rows else ([] for _ in names)  # columns, in C
    columns: dict[str, Any] = dict(zip(names, map(list, by_name), strict=True))
    extras: dict[str, np.ndarray[Any, Any]] = {}
    for shape, (at, values) in shapes.items():
        where = np.array(at, dtype=np.intp)
        for name, column in zip(shape, zip(*values, strict=True), strict=True):
            full = extras.get(name)
            if full is None:
                full = extras[name] = np.full(len(rows), None, dtype=object)
            full[where] = objects(list(column))
    columns["start_date"] = times(columns["start_date"], "s")
    columns["end_date"] = times(columns["end_date"], "s")
    columns["total_active_time"] = pd.to_timedelta(
        pd.array(columns["total_active_time"], dtype=INT), unit="s"
    ).astype("timedelta64[s]")
    columns["query"] = [q for q, _ in meta]
    columns["result_page"] = [p for _, p in meta]
    columns["fetched_at"] = fetch_times(counted)
    frame = typed_frame(columns, AD_COLUMNS, AD_DTYPES)
    if extras:
        taken = set(AD_COLUMNS)
        added: dict[str, Any] = {}
        for name in sorted(extras):
            # A value unfit for its column stays as raw_<column>; a field the service
            # sent under that name too keeps its own column (raw_<column>_2 for ours).
            label = base = f"raw_{name}" if name in taken else name
            n = 2
            while label in added or label in taken:
                label, n = f"{base}_{n}", n + 1
            added[label] = (extra_array if typed else _as_sent)(name, extras[name].tolist())
        frame = pd.concat([frame, pd.DataFrame(added, index=frame.index)], axis=1)
    unfit.warn("ads")
    return frame, contents
