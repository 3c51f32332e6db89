"""Pure analysis of ads frames: advertisers, the ads of a day, campaigns, share of voice, spend.

Every function takes an ads frame (as built by :mod:`socialframe._frames.ads`,
one query's or a many-query fetch's with its ``query`` column) and returns a new
frame; nothing is fetched, nothing is kept. ``df.social`` is the thin shell over
these. Run spans come from :func:`socialframe._time.ad_spans` and periods from
the helpers :func:`socialframe._analysis.comments.comment_activity` uses, so an ad runs,
and a week starts, exactly as in ``active_on`` and ``activity``. Result columns
are in :mod:`socialframe._schema` (``CAMPAIGN_SUMMARY``, ``AD_SPEND``).

The same ad found by several queries of a many-query fetch is one ad here: it is
counted once (once per ``by`` value in :func:`share_of_voice`).

Why over 400 lines: three analyses (campaigns, share of voice, spend) that share
the run spans, the counting of an ad once across queries and the parsing of
spend ranges; a fifth of it is docstrings with examples that run as doctests.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final, NamedTuple

import numpy as np
import pandas as pd

from .. import _time
from .._checks import count_or_none
from .._schema import (
    AD_DTYPES,
    AD_SPEND,
    ADVERTISER_SUMMARY,
    CAMPAIGN_SUMMARY,
    dtypes,
    summary_columns,
)

CAMPAIGN_COLUMNS: Final = summary_columns(CAMPAIGN_SUMMARY)
SPEND_COLUMNS: Final = summary_columns(AD_SPEND)
#: The column of :func:`share_of_voice` summing the advertisers beyond the top.
OTHER: Final = "other"
#: The label of rows whose ``by`` value is missing (as in ``activity``).
MISSING: Final = "<NA>"

_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def _dtypes(summary: tuple[Any, ...]) -> dict[str, Any]:
    """``{name: dtype}`` of a summary: its fetched columns typed as in the ads frame."""
    return {
        **{item: AD_DTYPES[item] for item in summary if isinstance(item, str)},
        **dtypes(item for item in summary if not isinstance(item, str)),
    }


def _distinct(ads: pd.DataFrame) -> pd.DataFrame:
    """The first row of every ad: an ad found by several queries is one ad.

    Rows without an ``ad_archive_id`` cannot be matched, so each is an ad of its own.
    """
    ids = ads["ad_archive_id"]
    again = ids.duplicated() & ids.notna()
    return ads[~again.to_numpy()]


# -- campaigns --------------------------------------------------------------------------


def _campaign_keys(ads: pd.DataFrame) -> pd.Series:
    """``collation_id``; an ad without one is its own campaign (keyed by its id, or row)."""
    keys = [
        collation
        if isinstance(collation, str)
        else f"ad:{ad}"
        if isinstance(ad, str)
        else f"row:{i}"
        for i, (collation, ad) in enumerate(
            zip(ads["collation_id"].array, ads["ad_archive_id"].array, strict=True)
        )
    ]
    return pd.Series(keys, index=ads.index, dtype="string")


def _card_text(cards: Any) -> str | None:
    """The first card body that is real copy (not blank, not a template)."""
    if not isinstance(cards, list | tuple | np.ndarray):
        return None
    for card in cards:
        body = card.get("body") if isinstance(card, Mapping) else None
        if isinstance(body, Mapping):
            body = body.get("text")
        if isinstance(body, str) and body.strip() and not _TEMPLATE.search(body):
            return body
    return None


def _candidates(ads: pd.DataFrame) -> list[tuple[str | None, bool]]:
    """Each ad's text for :func:`representative_text`, and whether it is a template."""
    cards = ads["snapshot_cards"] if "snapshot_cards" in ads.columns else None
    out: list[tuple[str | None, bool]] = []
    for i, body in enumerate(ads["body_text"].array):
        text = body if isinstance(body, str) and body.strip() else None
        if text is not None and _TEMPLATE.search(text):
            card = _card_text(cards.iloc[i]) if cards is not None else None
            out.append((card, False) if card is not None else (text, True))
        else:
            out.append((text, False))
    return out


def representative_text(texts: list[tuple[str | None, bool]]) -> str | None:
    """The most common text among a campaign's variants (given oldest first).

    Real copy wins over ``{{template}}`` text: templates count only when no variant
    has anything else. Ties go to the text seen first (the earliest variant).
    Missing and blank texts never count.

    Example:
        >>> representative_text([("A", False), ("B", False), ("B", False), ("{{x}}", True)])
        'B'
    """
    real = [t for t, template in texts if t is not None and not template]
    pool = real or [t for t, _ in texts if t is not None]
    if not pool:
        return None
    counts = Counter(pool)
    best = max(counts.values())
    return next(t for t in pool if counts[t] == best)


def _lists(keys: Any, values: Any, *, keep_missing: bool = False) -> dict[str, list[Any]]:
    """``{key: [value, ...]}`` in order (a plain loop: a groupby per key is 100x slower)."""
    out: dict[str, list[Any]] = {}
    for key, value in zip(keys, values, strict=True):
        if keep_missing or not pd.isna(value):
            out.setdefault(key, []).append(value)
    return out


def campaigns(ads: pd.DataFrame) -> pd.DataFrame:
    """One row per campaign (columns :data:`CAMPAIGN_COLUMNS`), most variants first.

    See :meth:`socialframe._accessor.AdsAccessor.campaigns` for the rules.
    """
    if "collation_id" not in ads.columns:
        raise KeyError(
            "campaigns() groups ads by their collation_id; this frame has no such column"
        )
    columns = list(CAMPAIGN_COLUMNS)
    if "query" not in ads.columns:
        columns.remove("queries")
    for name in ("collation_count", "body_text"):  # not reported: missing
        if name not in ads.columns:
            ads = ads.assign(**{name: pd.array([None] * len(ads), dtype=AD_DTYPES[name])})
    keys = _campaign_keys(ads)
    # Oldest first: the latest ad names the advertiser, the earliest wins text ties.
    order = ads.assign(_key=keys.array).sort_values("start_date", kind="stable", na_position="last")
    queries = _lists(order["_key"], order["query"]) if "query" in ads.columns else {}
    unique = _distinct(order)
    if unique.empty:
        empty = pd.DataFrame({name: pd.Series(dtype=object) for name in columns})
        return empty.astype({k: v for k, v in _dtypes(CAMPAIGN_SUMMARY).items() if k in columns})
    unique = unique.assign(_ongoing=_time.ad_spans(unique, now=pd.Timestamp(0, tz="UTC")).ongoing)
    grouped = unique.groupby("_key", sort=False)
    texts = {
        key: representative_text(found)
        for key, found in _lists(unique["_key"], _candidates(unique), keep_missing=True).items()
    }
    out = pd.DataFrame(
        {
            "collation_id": grouped["collation_id"].first(),
            "page_id": grouped["page_id"].last(),
            "page_name": grouped["page_name"].last(),
            "variants": grouped.size(),
            "collation_count": grouped["collation_count"].max(),
            "active": grouped["is_active"].sum(),
            "first_start": grouped["start_date"].min(),
            "last_end": grouped["end_date"].max().mask(grouped["_ongoing"].any()),
            "platforms": unions(grouped, "publisher_platforms"),
            "display_formats": unions(grouped, "display_format"),
            "body_text": pd.Series(texts, dtype="string"),
        }
    )
    ids = _lists(unique["_key"], unique["ad_archive_id"])
    out["ad_archive_ids"] = pd.Series(
        [ids.get(k, []) for k in out.index], index=out.index, dtype=object
    )
    if "queries" in columns:  # each query once, in the frame's order
        out["queries"] = pd.Series({k: list(dict.fromkeys(queries.get(k, []))) for k in out.index})
    out = out.rename_axis("_key").reset_index()
    out = out.sort_values(
        ["variants", "first_start", "_key"],
        ascending=[False, True, True],
        kind="stable",
        na_position="last",
    )
    typed = {k: v for k, v in _dtypes(CAMPAIGN_SUMMARY).items() if k in columns}
    return out.reset_index(drop=True)[columns].astype(typed)


# -- share of voice ---------------------------------------------------------------------


def _until(ads: pd.DataFrame) -> pd.Timestamp | None:
    """Where an ad still running without an end date is taken to stop.

    The frame's latest ``fetched_at`` (the last moment the service said it ran);
    without one, the latest start or end date in the frame. Not the clock: the
    answer must not change with the day it is computed.
    """
    if "fetched_at" in ads.columns and ads["fetched_at"].notna().any():
        return pd.Timestamp(ads["fetched_at"].max())
    latest = pd.concat([ads["start_date"], ads["end_date"]]).max()
    return None if pd.isna(latest) else pd.Timestamp(latest)


def _labels(values: pd.Series) -> pd.Series:
    text = values.astype("object").where(values.notna(), MISSING)
    return pd.Series([str(v) for v in text], index=values.index, dtype=object)


def share_of_voice(
    ads: pd.DataFrame,
    freq: str = "W",
    *,
    by: str = "page_name",
    top: int | None = 8,
    tz: str = "UTC",
    share: bool = False,
) -> pd.DataFrame:
    """Ads running per period per ``by`` value: counts (int64) or shares (Float64, as
    every share of the analysis: fractions from 0 to 1).

    See :meth:`socialframe._accessor.AdsAccessor.share_of_voice` for the rules.
    """
    _time.check_zone(tz)
    limit = count_or_none("top", top)
    if by not in ads.columns:
        raise KeyError(f"no column {by!r}; columns are {list(ads.columns)}")
    if any(isinstance(v, list | tuple | dict | set | frozenset | np.ndarray) for v in ads[by]):
        raise ValueError(
            f"{by!r} holds lists: split by one value per ad (page_name, display_format, ...),"
            f" or explode it first: ads.explode({by!r})"
        )
    offset = _time.period_offset(freq)
    calendar = _time.is_calendar(offset)
    until = _until(ads)
    labelled = ads.assign(_label=_labels(ads[by]).array)
    ids = labelled["ad_archive_id"]
    again = labelled.duplicated(["ad_archive_id", "_label"]) & ids.notna()
    labelled = labelled[~again.to_numpy()]
    spans = _time.ad_spans(labelled, now=until)
    dated = spans.start.notna().to_numpy()
    start = spans.start[dated]
    end = spans.end[dated]
    end = end.where(end >= start, start)  # an end before the start: its start only

    def wall(times: pd.Series) -> pd.DatetimeIndex:
        local = times.dt.tz_convert(tz)
        # Calendar periods are cut on local wall time, as in comment_activity.
        return pd.DatetimeIndex(local.dt.tz_localize(None) if calendar else local)

    first, last = wall(start), wall(end)
    if not len(first):
        index = pd.DatetimeIndex([], dtype=f"datetime64[us, {tz}]", name="period")
        empty = pd.DataFrame(index=index, columns=pd.Index([], name=by), dtype="int64")
        return empty.astype("Float64") if share else empty
    span = pd.Series(0, index=pd.DatetimeIndex([first.min(), last.max()]))
    starts = pd.DatetimeIndex(span.resample(offset, closed="left", label="left").sum().index)
    begin = starts.searchsorted(first, side="right") - 1
    stop = starts.searchsorted(last, side="right") - 1
    names, codes = np.unique(labelled["_label"].to_numpy()[dated].astype(str), return_inverse=True)
    steps = np.zeros((len(names), len(starts) + 1), dtype="int64")
    np.add.at(steps, (codes, begin), 1)  # an ad enters in its first period...
    np.add.at(steps, (codes, stop + 1), -1)  # ...and leaves after its last
    counts = pd.DataFrame(np.cumsum(steps, axis=1)[:, :-1].T, columns=names)
    totals = counts.sum()
    ranked = sorted(names, key=lambda name: (-int(totals[name]), name))
    kept = ranked if limit is None else ranked[:limit]
    out = counts[kept].copy()
    if len(kept) < len(ranked):
        other = OTHER if OTHER not in kept else f"<{OTHER}>"
        out[other] = counts[ranked[len(kept) :]].sum(axis=1)
    index = _time.localize_starts(starts, tz) if calendar else starts
    out.index = pd.DatetimeIndex(index, name="period")
    out.columns = pd.Index([str(c) for c in out.columns], name=by)
    out = out.astype("int64")
    if share:
        active = out.sum(axis=1)
        return out.div(active.where(active > 0), axis=0).fillna(0.0).astype("Float64")
    return out


# -- spend and impressions ----------------------------------------------------------------


class Bounds(NamedTuple):
    """A reported amount as numeric bounds (``None`` where open or unknown)."""

    lower: float | None
    upper: float | None
    currency: str | None


NOTHING: Final = Bounds(None, None, None)

# Currency signs that name one currency; "$", "¥" or "kr" do not, and stay as written.
_SIGNS: Final = {
    "US$": "USD",
    "CA$": "CAD",
    "C$": "CAD",
    "AU$": "AUD",
    "A$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "MX$": "MXN",
    "R$": "BRL",
    "€": "EUR",
    "£": "GBP",
    "₹": "INR",
    "₩": "KRW",
    "₺": "TRY",
    "₽": "RUB",
    "₱": "PHP",
    "₫": "VND",
    "₪": "ILS",
    "฿": "THB",
    "₦": "NGN",
    "₴": "UAH",
    "$": "$",
    "¥": "¥",
}
_CURRENCY = re.compile(
    "|".join(re.escape(sign) for sign in sorted(_SIGNS, key=len, reverse=True))
    + r"|(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])"
)
_AMOUNT = r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*([kmb])?"
_SCALE: Final = {None: 1, "k": 1_000, "m": 1_000_000, "b": 1_000_000_000}
_BELOW = re.compile(rf"(?:<=?|≤|under|less than|below|up to)\s*{_AMOUNT}")
_ABOVE = re.compile(rf"(?:>=?|≥|over|more than|above)\s*{_AMOUNT}|{_AMOUNT}\s*\+")
_BETWEEN = re.compile(rf"{_AMOUNT}\s*(?:-|to)\s*{_AMOUNT}")
_EXACT = re.compile(_AMOUNT)
_DASHES = str.maketrans({"–": "-", "—": "-", "−": "-", "‒": "-"})


class _Ambiguous(ValueError):
    """An amount two conventions read apart (``1.000``: one, or a thousand)."""


def _amount(digits: str, fraction: str | None, suffix: str | None) -> float:
    if (
        fraction is not None
        and len(fraction) == 4
        and suffix is None
        and "," not in digits
        and len(digits) <= 3
        and digits != "0"
    ):  # "€1.000" is a thousand in most of Europe ("0.500", "1234.567" read one way only)
        raise _Ambiguous(digits + fraction)
    return float(Decimal(digits.replace(",", "") + (fraction or "")) * _SCALE[suffix])


def parse_amount(value: Any) -> Bounds:
    """Bounds from a reported amount: a number, or text such as ``"1K-5K"``.

    Text forms (case-insensitive suffixes ``K`` = 1,000, ``M`` = 1,000,000,
    ``B`` = 1,000,000,000; ``1.5K``; thousands commas ``1,000``; hyphen, en or em
    dash or ``to`` between bounds; a currency code or sign before or after):

    - ``"1K-5K"`` -> 1,000 to 5,000; ``"100"`` or ``100`` -> 100 to 100;
    - ``"<1K"`` (``under``, ``less than``, ``up to``) -> 0 to 1,000;
    - ``">1M"`` (``over``, ``more than``, ``1M+``) -> 1,000,000 to open (``None``).

    The currency is the ISO code written (``"USD 100"``), or the one a sign
    names (``€`` -> ``EUR``); ``$`` and ``¥`` name several, so they stay as written.
    Anything else (missing, blank, a negative number, a range whose lower bound
    is above its upper, two currencies, ``1.000`` with its dot a decimal point
    here and a thousands separator in most of Europe, junk) gives no bounds at
    all: nothing is guessed.

    Args:
        value: A number, text, or a missing value (None, NaN, ``pd.NA``).

    Returns:
        ``Bounds(lower, upper, currency)``, each ``None`` when unknown or open.

    Example:
        >>> parse_amount("1.5K–2K")
        Bounds(lower=1500.0, upper=2000.0, currency=None)
        >>> parse_amount("<€1K"), parse_amount(">1M")
        (Bounds(lower=0.0, upper=1000.0, currency='EUR'), Bounds(lower=1000000.0, upper=None, currency=None))
    """  # noqa: E501
    if isinstance(value, bool) or value is None or value is pd.NA:
        return NOTHING
    if isinstance(value, int | float | np.integer | np.floating):
        number = float(value)
        if math.isfinite(number) and number >= 0:
            return Bounds(number, number, None)
        return NOTHING
    if not isinstance(value, str):
        return NOTHING
    signs = {_SIGNS.get(found, found) for found in _CURRENCY.findall(value)}
    if len(signs) > 1:
        return NOTHING
    rest = _CURRENCY.sub(" ", value).translate(_DASHES).casefold()
    rest = " ".join(rest.split())
    currency = next(iter(signs), None)
    found = NOTHING
    try:
        if match := _BETWEEN.fullmatch(rest):
            low, high = _amount(*match.groups()[:3]), _amount(*match.groups()[3:])
            found = Bounds(low, high, currency) if low <= high else NOTHING
        elif match := _BELOW.fullmatch(rest):
            found = Bounds(0.0, _amount(*match.groups()), currency)
        elif match := _ABOVE.fullmatch(rest):
            groups = match.groups()
            low = _amount(*groups[:3]) if groups[0] is not None else _amount(*groups[3:])
            found = Bounds(low, None, currency)
        elif match := _EXACT.fullmatch(rest):
            number = _amount(*match.groups())
            found = Bounds(number, number, currency)
    except (InvalidOperation, _Ambiguous):  # the patterns pass digits; some read two ways
        return NOTHING
    if any(b is not None and not math.isfinite(b) for b in (found.lower, found.upper)):
        return NOTHING  # 400 digits are no amount
    return found


def _pair(low: Any, high: Any) -> Bounds:
    """Bounds from the service's two fields (``lower_bound`` / ``upper_bound``): each
    parsed as :func:`parse_amount`; junk in either, two currencies or a lower bound
    above the upper give no bounds, as in a text range."""
    lower, upper = parse_amount(low), parse_amount(high)
    if (low is not None and lower == NOTHING) or (high is not None and upper == NOTHING):
        return NOTHING
    currencies = {c for c in (lower.currency, upper.currency) if c is not None}
    if len(currencies) > 1:
        return NOTHING
    if lower.lower is not None and upper.upper is not None and lower.lower > upper.upper:
        return NOTHING
    return Bounds(lower.lower, upper.upper, next(iter(currencies), None))


def _column(ads: pd.DataFrame, name: str) -> list[Any]:
    if name not in ads.columns:
        return [None] * len(ads)
    return [None if v is pd.NA or (isinstance(v, float) and v != v) else v for v in ads[name]]


def _spend_bounds(ads: pd.DataFrame) -> list[Bounds]:
    """Each ad's spend: ``{lower_bound, upper_bound}``, else one number, else text."""
    out = []
    rows = zip(
        _column(ads, "spend_lower_bound"),
        _column(ads, "spend_upper_bound"),
        _column(ads, "spend"),
        _column(ads, "raw_spend"),
        strict=True,
    )
    for low, high, number, text in rows:
        if low is not None or high is not None:
            out.append(_pair(low, high))
        elif number is not None:
            out.append(parse_amount(number))
        else:
            out.append(parse_amount(text))
    return out


def _impression_bounds(ads: pd.DataFrame) -> list[Bounds]:
    """Each ad's impressions: ``{lower_bound, upper_bound}``, else the service's text."""
    out = []
    rows = zip(
        _column(ads, "impressions_lower_bound"),
        _column(ads, "impressions_upper_bound"),
        _column(ads, "impressions_text"),
        strict=True,
    )
    for low, high, text in rows:
        if low is not None or high is not None:
            out.append(_pair(low, high))
        else:
            out.append(parse_amount(text))
    return out


def _whole(value: float | None) -> int | None:
    """A count from a bound; one beyond 64 bits ("99999999B") is no count."""
    if value is None or value >= 2**63:
        return None
    return round(value)


def spend(ads: pd.DataFrame) -> pd.DataFrame:
    """Spend and impressions of every ad as numeric bounds (columns :data:`SPEND_COLUMNS`).

    See :meth:`socialframe._accessor.AdsAccessor.spend` for the rules.
    """
    unique = _distinct(ads)
    money = _spend_bounds(unique)
    seen = _impression_bounds(unique)
    reported = unique["currency"] if "currency" in unique.columns else None
    currency = [
        b.currency if reported is None or pd.isna(reported.iloc[i]) else reported.iloc[i]
        for i, b in enumerate(money)
    ]
    out = pd.DataFrame(
        {
            "ad_archive_id": unique["ad_archive_id"].to_numpy(),
            "page_name": unique["page_name"].to_numpy(),
            "currency": pd.array(currency, dtype="string"),
            "spend_lower": [b.lower for b in money],
            "spend_upper": [b.upper for b in money],
            "impressions_lower": [_whole(b.lower) for b in seen],
            "impressions_upper": [_whole(b.upper) for b in seen],
        },
        index=unique.index,
    )
    return out.astype(_dtypes(AD_SPEND))[list(SPEND_COLUMNS)]


ADVERTISER_COLUMNS = summary_columns(ADVERTISER_SUMMARY)


# -- advertisers and days ------------------------------------------------------------


def _sorted_union(values: Iterable[Any]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        if isinstance(value, list | tuple | np.ndarray):
            seen.update(str(v) for v in value)
        elif not pd.isna(value):
            seen.add(str(value))
    return sorted(seen)


def unions(grouped: Any, column: str) -> pd.Series:
    """Per group, the sorted distinct values of a column of lists (or scalars)."""
    # Built by hand: pandas infers an Arrow list dtype for some inputs and object for others.
    unions = {key: _sorted_union(values) for key, values in grouped[column]}
    return pd.Series(unions, dtype=object)


def ads_by_page(ads: pd.DataFrame) -> pd.DataFrame:
    """One row per advertiser (columns :data:`ADVERTISER_COLUMNS`), most ads first.

    Advertisers are keyed by ``page_id`` (by name when the id is missing); the name
    shown is the one of their latest ad. ``last_end`` is NaT while one of their
    ads is ongoing (see :func:`socialframe._time.ad_spans`). Ads with neither a
    page id nor a name are left out.
    """
    key = ads["page_id"].fillna("name:" + ads["page_name"])
    known = ads.assign(_key=key, _ongoing=_time.ad_spans(ads).ongoing)[key.notna()]
    ordered = known.sort_values("start_date", kind="stable", na_position="first")
    grouped = ordered.groupby("_key", sort=False, observed=True)
    latest = grouped.tail(1).set_index("_key")
    out = pd.DataFrame(
        {
            "page_id": latest["page_id"],
            "page_name": latest["page_name"],
            "ads": grouped.size().astype("int64"),
            "active": grouped["is_active"].sum().astype("int64"),
            "first_start": grouped["start_date"].min(),
            "last_end": grouped["end_date"].max().mask(grouped["_ongoing"].any()),
            "platforms": unions(grouped, "publisher_platforms"),
            "display_formats": unions(grouped, "display_format"),
        }
    )
    out = out.astype({"page_id": "string", "page_name": "string"})
    out = out.sort_values(
        ["ads", "active", "page_name"], ascending=[False, False, True], kind="stable"
    )
    return out.reset_index(drop=True)[list(ADVERTISER_COLUMNS)]


def ads_active_on(ads: pd.DataFrame, day: object, *, tz: str = "UTC") -> pd.DataFrame:
    """Ads running at some moment of ``day`` (from its local midnight to the next).

    The rows keep their index (this is a filter). See
    :meth:`socialframe._accessor.SocialAccessor.active_on`.
    """
    _time.check_zone(tz)
    local = _time.calendar_day(day, tz)
    start = _time.local_midnight(local, tz)
    end = _time.local_midnight(local + pd.Timedelta(days=1), tz)
    spans = _time.ad_spans(ads)
    running = (spans.start < end) & (spans.end >= start)
    return ads[running.fillna(False).astype(bool)]
