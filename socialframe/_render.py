"""Rendering for the widgets: HTML tables and lines, the cost label, the activity PNG.

Pure functions of frames and numbers, so the widgets stay shells and all of
this is tested without a browser or a kernel. Comments and ads are written by
strangers and an HTML widget renders whatever it is given, so every value that
reaches HTML goes through :func:`html.escape`, and only ``http(s)`` URLs become
links.
"""

from __future__ import annotations

import html
import io
from base64 import b64encode
from collections.abc import Sequence
from typing import Any, Final

import pandas as pd

from ._checks import count
from ._ledger import PRICE_CENTS, usd

#: Rows a widget table shows; the full result stays on the widget.
MAX_ROWS: Final = 200

_ERROR_STYLE: Final = "color:#b00020"
_CELL_STYLE: Final = "text-align:left;vertical-align:top;white-space:pre-wrap;padding:2px 6px"


# -- HTML ------------------------------------------------------------------------------


def comments_table_html(
    comments: pd.DataFrame, max_rows: int = MAX_ROWS, *, tz: str = "UTC"
) -> str:
    """An HTML table of comments (the first ``max_rows``), every value escaped.

    Columns: time (in ``tz``), author (linked to the profile), author type,
    followers, comment text (newlines kept) and a link to the comment.

    Args:
        comments: A comments frame.
        max_rows: Rows to show; a note says how many were left out.
        tz: Time zone of the time column.

    Returns:
        HTML text; a short note instead of a table when there are no comments.

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({
        ...     "created_at": pd.to_datetime(["2025-12-01 09:30"], utc=True),
        ...     "author_name": ["Eve"], "author_url": ["javascript:alert(1)"],
        ...     "author_type": ["person"], "author_followers": pd.array([None], dtype="Int64"),
        ...     "text": ["<script>alert(1)</script>"], "permalink": [None],
        ... })
        >>> "&lt;script&gt;alert(1)&lt;/script&gt;" in comments_table_html(df)
        True
        >>> "<script" in comments_table_html(df) or "javascript:" in comments_table_html(df)
        False
    """
    shown = comments.head(max_rows)
    times = shown["created_at"].dt.tz_convert(tz).dt.strftime("%Y-%m-%d %H:%M")
    rows = [
        [
            _escape(time),
            _link(url, name),
            _escape(kind),
            _escape(f"{followers:,}" if _present(followers) else None),
            _escape(body),
            _link(permalink, "open"),
        ]
        for time, name, url, kind, followers, body, permalink in zip(
            times,
            shown["author_name"],
            shown["author_url"],
            shown["author_type"],
            shown["author_followers"],
            shown["text"],
            shown["permalink"],
            strict=True,
        )
    ]
    headers = [f"time ({tz})", "author", "type", "followers", "comment", "link"]
    return _table(headers, rows, total=len(comments), noun="comments")


def ads_table_html(ads: pd.DataFrame, max_rows: int = MAX_ROWS) -> str:
    """An HTML table of ads (the first ``max_rows``), every value escaped.

    Columns: ad archive id, advertiser (linked to its page), active, start and
    end day (UTC), platforms, display format, body text and the ad's link.

    Args:
        ads: An ads frame.
        max_rows: Rows to show; a note says how many were left out.

    Returns:
        HTML text; a short note instead of a table when there are no ads.
    """
    shown = ads.head(max_rows)
    starts = shown["start_date"].dt.tz_convert("UTC").dt.strftime("%Y-%m-%d")
    ends = shown["end_date"].dt.tz_convert("UTC").dt.strftime("%Y-%m-%d")
    rows = [
        [
            _escape(ad_id),
            _link(page_url, page),
            _escape(None if not _present(active) else ("yes" if active else "no")),
            _escape(start),
            _escape(stop),
            _escape(", ".join(map(str, platforms)) if isinstance(platforms, list) else None),
            _escape(display_format),
            _escape(body),
            _link(url, url),
        ]
        for ad_id, page, page_url, active, start, stop, platforms, display_format, body, url in zip(
            shown["ad_archive_id"],
            shown["page_name"],
            shown["page_profile_uri"],
            shown["is_active"],
            starts,
            ends,
            shown["publisher_platforms"],
            shown["display_format"],
            shown["body_text"],
            shown["link_url"],
            strict=True,
        )
    ]
    headers = [
        "ad",
        "advertiser",
        "active",
        "start (UTC)",
        "end (UTC)",
        "platforms",
        "format",
        "text",
        "link",
    ]
    return _table(headers, rows, total=len(ads), noun="ads")


def _present(value: object) -> bool:
    return value is not None and not (pd.api.types.is_scalar(value) and pd.isna(value))


def _escape(value: object) -> str:
    """Cell text: missing values are blank; everything else is escaped, quotes included."""
    return html.escape(str(value)) if _present(value) else ""


def _link(url: object, label: object) -> str:
    """A link for http(s) URLs only: ``javascript:`` or ``data:`` hrefs would run in the page."""
    if not _present(url) or not _present(label):
        return _escape(label)
    href = str(url).strip()
    if not href.lower().startswith(("https://", "http://")):
        return _escape(label)
    return (
        f"<a href='{html.escape(href, quote=True)}' target='_blank' rel='noopener noreferrer'>"
        f"{_escape(label)}</a>"
    )


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, total: int, noun: str) -> str:
    """Assemble already-escaped cells; headers are ours but escaped anyway."""
    if not rows:
        return f"<p><em>No {html.escape(noun)} to show.</em></p>"
    head = "".join(f"<th style='{_CELL_STYLE}'>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td style='{_CELL_STYLE}'>{cell}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    out = (
        f"<table class='socialframe-table'><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )
    if total > len(rows):
        out += f"<p><em>Showing the first {len(rows):,} of {total:,} {html.escape(noun)}.</em></p>"
    return out


def count_html(matching: int, total: int) -> str:
    """``"<b>12</b> of 2,345 comments match"`` (thousands separated)."""
    return f"<b>{matching:,}</b> of {total:,} comments match"


def error_html(exc: BaseException) -> str:
    """An error as one escaped line: its type and message, never a traceback."""
    kind, message = html.escape(type(exc).__name__), html.escape(str(exc))
    return f"<span style='{_ERROR_STYLE}'>{kind}: {message}</span>"


# -- money -------------------------------------------------------------------------------


def search_cost_label(pages: int) -> str:
    """The search button's label: the most a search of ``pages`` pages can cost.

    Each page is one call, and only calls the service answers successfully are
    charged (cached pages and failures are free), so this is an upper bound.

    Args:
        pages: The ``max_pages`` of the search (>= 1).

    Returns:
        E.g. ``"Search (at most $0.03)"``.

    Raises:
        ValueError: ``pages`` is not an int >= 1.

    Example:
        >>> search_cost_label(3)
        'Search (at most $0.03)'
    """
    count("pages", pages, minimum=1)
    return f"Search (at most {usd(pages * PRICE_CENTS)})"


def search_summary_html(ads: int, paid: int, cached: int) -> str:
    """What one search returned and what it cost, from the ledger's before/after counts."""
    return (
        f"<b>{ads:,}</b> ad{'s' * (ads != 1)} · this search paid {paid} "
        f"call{'s' * (paid != 1)} ({usd(paid * PRICE_CENTS)}) · {cached} from cache (free)"
    )


# -- chart -------------------------------------------------------------------------------


def activity_png(
    comments: pd.DataFrame, freq: str = "1D", *, tz: str = "UTC", dpi: int = 80
) -> bytes:
    """The activity chart of ``df.social.plot_activity`` as PNG bytes.

    Drawn on a bare ``matplotlib.figure.Figure``, not through pyplot: no global
    figure to close, no backend to choose, and the same picture in a kernel and
    in tests.

    Args:
        comments: A comments frame (may be empty).
        freq: Period of the bars (``"1D"``, ``"1h"``, ``"1W"``).
        tz: Time zone the periods are cut in.
        dpi: Resolution of the PNG.

    Returns:
        The PNG file's bytes.
    """
    from matplotlib.figure import Figure

    from ._plots import plot_activity

    figure = Figure(figsize=(10, 3.5), layout="constrained")
    plot_activity(comments, freq, by="author_type", tz=tz, ax=figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def png_output(png: bytes, alt: str) -> dict[str, Any]:
    """One display_data message, as ``Output.outputs`` holds them."""
    return {
        "output_type": "display_data",
        "data": {"image/png": b64encode(png).decode("ascii"), "text/plain": alt},
        "metadata": {},
    }
