"""HTML and PNG for the widgets and the report: one table builder, one PNG helper.

Pure functions of frames and numbers, so the widgets stay shells and all of
this is tested without a browser or a kernel. Comments and ads are written by
strangers and an HTML widget renders whatever it is given, so every value that
reaches HTML goes through :func:`html.escape`, and only ``http(s)`` URLs become
links.

Why over 400 lines: nearly two fifths are docstrings; the code, about 200
lines, is the one table builder and the one PNG helper and their few callers.
"""

from __future__ import annotations

import html
import io
import re
from base64 import b64encode
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from .._checks import count as checked_count
from .._words import count, noun, plural
from . import tables, values
from .plots import plot_activity

if TYPE_CHECKING:
    from matplotlib.axes import Axes
from .._ledger import PRICE_CENTS, usd

#: Rows a widget table shows; the full result stays on the widget.
MAX_ROWS: Final = 200

#: Height of a widget's table box; more rows scroll inside it, not down the notebook.
TABLE_HEIGHT: Final = "420px"

_ERROR_STYLE: Final = "color:#b00020"
# The widget's HTML box sets a tall line height for its own one-line labels; tables
# set their own, or every row is twice the height of its text.
_CELL: Final = "text-align:left;vertical-align:top;padding:2px 6px;line-height:1.35;"
#: Cells that would break into lines at every hyphen (dates, ids) never wrap.
_NOWRAP: Final = _CELL + "white-space:nowrap"
#: Free text wraps, keeps its newlines, and is never squeezed to a few letters a line.
_TEXT: Final = _CELL + "white-space:pre-wrap;min-width:14em;max-width:36em"


# -- HTML ------------------------------------------------------------------------------


def comments_table_html(
    comments: pd.DataFrame, max_rows: int = MAX_ROWS, *, tz: str = "UTC"
) -> str:
    """An HTML table of comments in time order (the first ``max_rows``), every value escaped.

    Columns: time (in ``tz``), author (linked to the profile), author type,
    followers, comment text (newlines kept) and a link to the comment. Comments
    without a time come last.

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
    ordered = comments.sort_values("created_at", kind="stable", na_position="last")
    shown = ordered.head(max_rows)
    times = _shown(shown, "created_at", tz)
    rows = [
        [
            _escape(time),
            _link(url, name),
            _escape(kind),
            _escape(followers),
            _escape(body),
            _link(permalink, "open"),
        ]
        for time, name, url, kind, followers, body, permalink in zip(
            times,
            shown["author_name"],
            shown["author_url"],
            shown["author_type"],
            _shown(shown, "author_followers", tz),
            shown["text"],
            shown["permalink"],
            strict=True,
        )
    ]
    headers = [f"time ({tz})", "author", "type", "followers", "comment", "link"]
    looks = ["time", "", "word", "word", "text", "word"]
    return table(headers, rows, looks, inline=True, total=len(comments), noun="comment")


def ads_table_html(ads: pd.DataFrame, max_rows: int = MAX_ROWS) -> str:
    """An HTML table of ads (the first ``max_rows``), every value escaped.

    Columns: ad archive id, advertiser (linked to its page), the ad's link
    (labelled with its host, the whole URL on hover), active, start and end day
    (UTC), display format, body text and platforms: the short columns first, so
    that a narrow notebook scrolls sideways only to the end of the text and the
    platforms.

    Args:
        ads: An ads frame.
        max_rows: Rows to show; a note says how many were left out.

    Returns:
        HTML text; a short note instead of a table when there are no ads.
    """
    shown = ads.head(max_rows)
    starts, ends = _shown(shown, "start_date"), _shown(shown, "end_date")
    rows = [
        [
            _escape(ad_id),
            _link(page_url, page),
            _link(url, _host(url)),
            _escape(active),
            _escape(start),
            _escape(stop),
            _escape(display_format),
            _escape(body),
            _escape(", ".join(map(str, platforms)) if isinstance(platforms, list) else None),
        ]
        for ad_id, page, page_url, active, start, stop, platforms, display_format, body, url in zip(
            shown["ad_archive_id"],
            shown["page_name"],
            shown["page_profile_uri"],
            _shown(shown, "is_active"),
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
        "link",
        "active",
        "start (UTC)",
        "end (UTC)",
        "format",
        "text",
        "platforms",
    ]
    looks = ["word", "", "word", "word", "time", "time", "word", "text", ""]
    return table(headers, rows, looks, inline=True, total=len(ads), noun="ad")


def _shown(frame: pd.DataFrame, name: str, tz: str = "UTC") -> list[str]:
    """What each cell of a column of numbers, flags or times shows, as in every display
    (:mod:`.values`)."""
    known = values.texts(name, frame[name], tz=tz)
    return known[0] if known is not None else [str(v) for v in frame[name]]


def _host(url: object) -> object:
    """A link's label: its host (``example.com``), or the URL when it has none (the
    interactive tables' rule, :func:`socialframe._display.tables.host`)."""
    if not _present(url):
        return url
    return tables.host(str(url).strip())


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
    quoted = html.escape(href, quote=True)
    return (
        f"<a href='{quoted}' title='{quoted}' target='_blank' rel='noopener noreferrer'>"
        f"{_escape(label)}</a>"
    )


#: A column's layout in a widget's table, where no style sheet reaches: a style per cell.
_INLINE: Final = {"num": _NOWRAP, "time": _NOWRAP, "word": _NOWRAP, "text": _TEXT, "": _CELL}


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    looks: Sequence[str],
    *,
    inline: bool = False,
    total: int | None = None,
    noun: str = "row",
) -> str:
    """The one HTML table builder: the widgets' tables and the report's.

    Args:
        headers: The column names (escaped here).
        rows: Each row's cells, already HTML (escaped text, or a link made safe).
        looks: Each column's layout: ``num`` (no wrap), ``time`` and ``word``
            (short text: no wrap), ``text`` (long text: wide, wrapped, newlines
            kept), ``""`` (as it comes).
        inline: Style each cell itself (a widget's HTML box has no style sheet); else
            give it its look as a class, for the report's style sheet.
        total: How many rows there are in all; when more than shown, a note says so.
        noun: What a row is (``"comment"``), for the notes.

    Returns:
        HTML text; a short note instead of a table when there are no rows.

    Example:
        >>> print(table(["name", "n"], [["&lt;i&gt;", "1,234"]], ["word", "num"]))
        ... # doctest: +NORMALIZE_WHITESPACE
        <div class='table'><table>
        <thead><tr><th class='word'>name</th><th class='num'>n</th></tr></thead>
        <tbody>
        <tr><td class='word'>&lt;i&gt;</td><td class='num'>1,234</td></tr>
        </tbody>
        </table></div>
    """
    if not rows:
        if inline:
            return f"<p><em>No {html.escape(plural(noun))} to show.</em></p>"
        return f"<p class='none'>No {html.escape(plural(noun))} to show.</p>"

    def cell(tag: str, content: str, look: str) -> str:
        if inline:
            return f"<{tag} style='{_NOWRAP if tag == 'th' else _INLINE[look]}'>{content}</{tag}>"
        return f"<{tag} class='{look}'>{content}</{tag}>" if look else f"<{tag}>{content}</{tag}>"

    head = "".join(
        cell("th", html.escape(h, quote=True), k) for h, k in zip(headers, looks, strict=True)
    )
    end = "" if inline else "\n"
    body = "".join(
        "<tr>" + "".join(cell("td", c, k) for c, k in zip(row, looks, strict=True)) + "</tr>" + end
        for row in rows
    )
    if inline:
        out = (
            f"<table class='socialframe-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )
    else:
        out = (
            f"<div class='table'><table>\n<thead><tr>{head}</tr></thead>\n"
            f"<tbody>\n{body}</tbody>\n</table></div>"
        )
    if total is not None and total > len(rows):
        out += (
            f"<p><em>Showing the first {len(rows):,} of {html.escape(count(total, noun))}.</em></p>"
        )
    return out


def count_html(matching: int, total: int) -> str:
    """``"<b>12</b> of 2,345 comments match"`` (thousands separated)."""
    return f"<b>{matching:,}</b> of {count(total, 'comment')} match"


def plain(fragment: str) -> str:
    """Our own HTML fragment as one line of text (tags dropped, entities decoded).

    Example:
        >>> plain("<b>12</b> of 2,345 comments &amp; more<br>next")
        '12 of 2,345 comments & more next'
    """
    text = re.sub(r"<br\s*/?>", " ", fragment)  # a line break is a space
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


def fallback(name: str, summary_html: str, *parts: str) -> tuple[str, str]:
    """What a widget leaves where it cannot be drawn (a saved notebook, static HTML).

    Args:
        name: The widget's name (``CommentExplorer``).
        summary_html: Its one-line summary, as HTML.
        *parts: More HTML to show under it (the current table, the ledger).

    Returns:
        ``(text, html)``: ``"CommentExplorer: 12 of 2,345 comments match"``, and
        the summary with the parts.

    Example:
        >>> fallback("CommentExplorer", count_html(12, 2345), "<table></table>")[0]
        'CommentExplorer: 12 of 2,345 comments match'
    """
    line = f"<p><b>{html.escape(name)}</b>: {summary_html}</p>"
    return f"{name}: {plain(summary_html)}", line + "".join(parts)


def error_html(exc: BaseException) -> str:
    """An error as one escaped line in words: its message (which says what was wrong and
    what to do), not its Python class, never a traceback."""
    message = str(exc).strip() or type(exc).__name__
    return f"<span style='{_ERROR_STYLE}'>{html.escape(message[:1].upper() + message[1:])}</span>"


# -- money -------------------------------------------------------------------------------


def search_cost_label(pages: int, calls_left: int | None = None) -> str:
    """The search button's label: the most a search of ``pages`` pages can cost, within
    what the client's budget has left.

    Each page is one call, and only calls the service answers successfully are
    charged (cached pages and failures are free), so this is an upper bound. A
    budget with room for fewer calls stops the search there: the label says so.

    Args:
        pages: The ``max_pages`` of the search (>= 1).
        calls_left: The paid calls the client's budget allows
            (``client.ledger.calls_left``); None without a budget.

    Returns:
        E.g. ``"Search (at most $0.03)"``.

    Raises:
        ValueError: ``pages`` is not an int >= 1.

    Example:
        >>> search_cost_label(3)
        'Search (at most $0.03)'
        >>> search_cost_label(5, calls_left=2)
        'Search (at most $0.02, what the budget has left)'
        >>> search_cost_label(5, calls_left=0)
        'Search (cached pages only: the budget is spent)'
    """
    checked_count("pages", pages, minimum=1)
    if calls_left is None or calls_left >= pages:
        return f"Search (at most {usd(pages * PRICE_CENTS)})"
    if calls_left <= 0:
        return "Search (cached pages only: the budget is spent)"
    return f"Search (at most {usd(calls_left * PRICE_CENTS)}, what the budget has left)"


def budget_stop_html(max_cost: float, spent_usd: float) -> str:
    """What a widget says when the client's budget stopped its search: in words a
    widget user acts on (the client they passed it, ``.results``), not the library's
    ``error.partial``.

    Example:
        >>> said = plain(budget_stop_html(0.05, 0.05))
        >>> said.startswith("Stopped by the client's budget"), "raise client.max_cost" in said
        (True, True)
    """
    return (
        f"<span style='{_ERROR_STYLE}'>Stopped by the client's budget: the next call would"
        f" take the spend over max_cost {usd(round(max_cost * 100))} (spent"
        f" {usd(round(spent_usd * 100))}), so it was not sent.</span> To go on, raise"
        " <code>client.max_cost</code> and search again: the pages paid so far come from"
        " the cache."
    )


def search_summary_html(ads: int, paid: int, cached: int) -> str:
    """What one search returned and what it cost, from the ledger's before/after counts."""
    return (
        f"<b>{ads:,}</b> {noun(ads, 'ad')} · this search paid {count(paid, 'call')}"
        f" ({usd(paid * PRICE_CENTS)}) · {cached:,} from cache (free)"
    )


# -- chart -------------------------------------------------------------------------------


def activity_png(
    comments: pd.DataFrame,
    freq: str = "1D",
    *,
    tz: str = "UTC",
    dpi: int = 80,
    span: tuple[pd.Timestamp, pd.Timestamp] | None = None,
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
        span: The x range (``socialframe._display.plots.activity_span`` of the whole
            frame keeps it still while filters change); by default the data's.

    Returns:
        The PNG file's bytes.
    """

    return png(
        lambda ax: plot_activity(comments, freq, by="author_type", tz=tz, ax=ax, span=span),
        dpi=dpi,
    )


def png_output(png: bytes, alt: str) -> dict[str, Any]:
    """One display_data message, as ``Output.outputs`` holds them."""
    return {
        "output_type": "display_data",
        "data": {"image/png": b64encode(png).decode("ascii"), "text/plain": alt},
        "metadata": {},
    }


def png(
    draw: Callable[[Axes], object], size: tuple[float, float] = (10.0, 3.5), *, dpi: int = 144
) -> bytes:
    """The one PNG helper: ``draw(ax)`` on a new figure of ``size`` inches, with Agg, as
    PNG bytes (the report's charts, the explorer's activity chart).

    No pyplot: no global figure to close and the same picture whatever backend a
    notebook chose.

    Args:
        draw: Draws on the Axes it is given (``lambda ax: df.social.plot_activity(ax=ax)``).
        size: Width and height in inches (shown at 96 CSS pixels per inch).
        dpi: Dots per inch of the PNG.

    Returns:
        The PNG file's bytes.

    Example:
        >>> png(lambda ax: ax.plot([0, 1], [1, 0]), size=(2, 1))[:8]
        b'\\x89PNG\\r\\n\\x1a\\n'
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(figure)
    draw(figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
