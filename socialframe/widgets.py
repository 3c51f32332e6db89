"""Notebook widgets: thin ipywidgets shells over the pure functions of this module.

- :func:`explore_comments` filters a comments frame (author type, date range,
  text, minimum followers) and shows the matching count, an activity chart and
  a table.
- :func:`ad_search` searches the Meta Ad Library through a client; its button
  shows the most the search can cost before it is pressed.

Everything the widgets compute is done by plain functions (:func:`filter_comments`,
:func:`comments_table_html`, :func:`ads_table_html`, :func:`search_cost_label`,
:func:`activity_png`, ...), so they are tested without a browser or a kernel.
Comments and ads are written by strangers and an HTML widget renders whatever it
is given, so every value that reaches HTML goes through :func:`html.escape`, and
only ``http(s)`` URLs become links.

``import socialframe.widgets`` imports neither ipywidgets nor matplotlib: the
first widget (or chart) built does.
"""

from __future__ import annotations

import functools
import html
import io
import operator
from base64 import b64encode
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from ._analysis import local_midnight
from ._errors import SocialFrameError
from ._ledger import PRICE_CENTS

if TYPE_CHECKING:
    import ipywidgets

    from ._client import Client

__all__ = [
    "MAX_PAGES",
    "MAX_ROWS",
    "activity_png",
    "ad_search",
    "ads_table_html",
    "comments_table_html",
    "count_html",
    "error_html",
    "explore_comments",
    "filter_comments",
    "search_cost_label",
    "search_summary_html",
]

MAX_ROWS: Final = 200
"""Rows a widget table shows; the full result stays on the widget (``.filtered`` / ``.results``)."""

MAX_PAGES: Final = 1000
"""Upper bound of the pages box of :func:`ad_search` ($10.00 at most)."""

_EXPLORER_NEEDS: Final = ("created_at", "text", "author_type", "author_name", "author_url",
                          "author_followers", "permalink")  # fmt: skip
_ERROR_STYLE: Final = "color:#b00020"
_CELL_STYLE: Final = "text-align:left;vertical-align:top;white-space:pre-wrap;padding:2px 6px"


# -- pure: filtering -----------------------------------------------------------------------


def filter_comments(
    comments: pd.DataFrame,
    *,
    author_types: str | Iterable[str] | None = None,
    start: date | str | None = None,
    end: date | str | None = None,
    text: str | None = None,
    min_followers: int | None = None,
    tz: str = "UTC",
) -> pd.DataFrame:
    """The comments matching every given filter, in their original order and index.

    Args:
        comments: A comments frame (``socialframe._frames.COMMENT_COLUMNS``).
        author_types: Keep these author types (``"person"``, ``"organization"``);
            ``None`` keeps all, rows without a type included. An empty list keeps none.
        start: Keep comments made on or after this. A ``date`` (or ``"2025-12-01"``)
            is a whole day in ``tz``; a ``datetime`` (or an ISO string with a time)
            is an instant, naive ones read in ``tz``.
        end: Keep comments made on or before this: a day includes all of that day.
        text: Keep comments whose text contains this, case-insensitively
            (Unicode case folding) and literally (``"."`` is a dot, not a regex).
            Surrounding whitespace is ignored; ``None`` or blank keeps all.
        min_followers: Keep authors with at least this many followers. Only
            organisations have a follower count, so any value above 0 drops every
            person (and organisations whose count is missing): "at least 1,000
            followers" is a question about organisations. ``None`` or 0 keeps all.
        tz: Time zone that dates and naive datetimes are read in.

    Returns:
        A new frame with the same columns (and index labels) as ``comments``.
        Comments without a time are dropped as soon as ``start`` or ``end`` is given.

    Raises:
        ValueError: an unknown author type, a malformed date, ``start`` later
            than ``end``, or a negative ``min_followers``.

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({
        ...     "author_type": ["person", "organization", "organization"],
        ...     "author_followers": pd.array([None, 5_000, 200], dtype="Int64"),
        ...     "text": ["Great post", "GREAT news", "ok"],
        ...     "created_at": pd.to_datetime(["2025-12-01", "2025-12-02", "2025-12-03"], utc=True),
        ... })
        >>> filter_comments(df, text="great", min_followers=1000)["text"].tolist()
        ['GREAT news']
    """
    keep = pd.Series(True, index=comments.index)
    if author_types is not None:
        wanted = _author_types(comments, author_types)
        keep &= comments["author_type"].isin(wanted).fillna(False).astype(bool)
    low = _instant("start", start, tz, end_of_day=False)
    high = _instant("end", end, tz, end_of_day=True)
    # A whole day's end is exclusive: a start at that very instant leaves nothing either.
    if low and high and (low[0] >= high[0] if high[1] else low[0] > high[0]):
        raise ValueError(f"start ({start}) is later than end ({end})")
    if low is not None:
        keep &= (comments["created_at"] >= low[0]).fillna(False).astype(bool)
    if high is not None:
        # A whole day ends at the next midnight (excluded); an instant is itself included.
        before = comments["created_at"] < high[0] if high[1] else comments["created_at"] <= high[0]
        keep &= before.fillna(False).astype(bool)
    needle = (text or "").strip().casefold()
    if needle:
        found = comments["text"].str.casefold().str.contains(needle, regex=False)
        keep &= found.fillna(False).astype(bool)
    floor = _min_followers(min_followers)
    if floor:
        keep &= (comments["author_followers"] >= floor).fillna(False).astype(bool)
    return comments.loc[keep.to_numpy()].copy()


def _author_types(comments: pd.DataFrame, author_types: str | Iterable[str]) -> list[str]:
    wanted = [author_types] if isinstance(author_types, str) else list(author_types)
    known = set(_type_options(comments))
    unknown = [t for t in wanted if t not in known]
    if unknown:
        # A typo ("people") would otherwise silently match nothing.
        raise ValueError(f"unknown author type(s) {unknown}; expected some of {sorted(known)}")
    return wanted


def _type_options(comments: pd.DataFrame) -> list[str]:
    """Author types offered: every category of a categorical column, else the values seen."""
    column = comments["author_type"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [str(c) for c in column.cat.categories]
    return sorted(str(v) for v in column.dropna().unique())


def _instant(
    name: str, value: date | str | None, tz: str, *, end_of_day: bool
) -> tuple[pd.Timestamp, bool] | None:
    """A bound as (UTC-comparable timestamp, whether it is the exclusive end of a whole day)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text)
        except ValueError:
            try:
                value = pd.Timestamp(text).to_pydatetime()
            except ValueError:
                raise ValueError(
                    f"{name} must be a date or an ISO date string; got {text!r}"
                ) from None
    if isinstance(value, datetime):  # before `date`: every datetime is a date too
        stamp = pd.Timestamp(value)
        return (stamp.tz_localize(tz) if stamp.tzinfo is None else stamp), False
    if isinstance(value, date):
        day = value + timedelta(days=1) if end_of_day else value
        return local_midnight(day, tz), end_of_day
    raise ValueError(f"{name} must be a date, a datetime or an ISO string; got {value!r}")


def _min_followers(value: int | None) -> int:
    if value is None:
        return 0
    if isinstance(value, bool):
        raise ValueError(f"min_followers must be an int >= 0 or None, got {value!r}")
    try:
        floor = operator.index(value)
    except TypeError:
        raise ValueError(f"min_followers must be an int >= 0 or None, got {value!r}") from None
    if floor < 0:
        raise ValueError(f"min_followers must be an int >= 0 or None, got {value!r}")
    return floor


# -- pure: HTML ------------------------------------------------------------------------------


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
        ads: An ads frame (``socialframe._frames.AD_COLUMNS``).
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
    headers = ["ad", "advertiser", "active", "start (UTC)", "end (UTC)", "platforms", "format",
               "text", "link"]  # fmt: skip
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


# -- pure: money -------------------------------------------------------------------------------


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
    if isinstance(pages, bool) or not isinstance(pages, int) or pages < 1:
        raise ValueError(f"pages must be an int >= 1, got {pages!r}")
    return f"Search (at most {_usd(pages * PRICE_CENTS)})"


def search_summary_html(ads: int, paid: int, cached: int) -> str:
    """What one search returned and what it cost, from the ledger's before/after counts."""
    return (
        f"<b>{ads:,}</b> ad{'s' * (ads != 1)} · this search paid {paid} "
        f"call{'s' * (paid != 1)} ({_usd(paid * PRICE_CENTS)}) · {cached} from cache (free)"
    )


def _usd(cents: int) -> str:
    # Whole cents formatted exactly: no float rounding near a budget.
    return f"${cents // 100:,}.{cents % 100:02d}"


# -- pure: chart -------------------------------------------------------------------------------


def activity_png(
    comments: pd.DataFrame, freq: str = "1D", *, tz: str = "UTC", dpi: int = 80
) -> bytes:
    """The activity chart of ``socialframe._plots.plot_activity`` as PNG bytes.

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


def _png_output(png: bytes, alt: str) -> dict[str, Any]:
    """One display_data message, as ``Output.outputs`` holds them."""
    return {
        "output_type": "display_data",
        "data": {"image/png": b64encode(png).decode("ascii"), "text/plain": alt},
        "metadata": {},
    }


# -- widgets -----------------------------------------------------------------------------------


@functools.cache
def _panel_type(name: str) -> type[Any]:
    """A named VBox subclass, built on first use so that ipywidgets is imported lazily."""
    import ipywidgets

    return type(name, (ipywidgets.VBox,), {"__module__": __name__})


def explore_comments(
    comments: pd.DataFrame, *, freq: str = "1D", tz: str = "UTC", max_rows: int = MAX_ROWS
) -> ipywidgets.VBox:
    """Filter a comments frame interactively: count, activity chart and table of matches.

    The returned box exposes its parts, so code (and tests) can drive it:

    - ``author_types`` (SelectMultiple), ``start`` / ``end`` (DatePicker, days
      in ``tz``), ``text`` (Text, updates on Enter), ``min_followers``
      (BoundedIntText): the filters, passed to :func:`filter_comments`;
    - ``count`` (HTML), ``chart`` (Output holding a PNG), ``table`` (HTML);
    - ``comments`` (the frame given) and ``filtered`` (the matching rows);
    - ``refresh()``, which recomputes the outputs (observers call it).

    With every author type selected the type filter is off, so rows without a
    type stay in.

    Args:
        comments: A comments frame (``socialframe._frames.COMMENT_COLUMNS``).
        freq: Period of the chart's bars.
        tz: Time zone of the date filters, the chart and the table's times.
        max_rows: Rows the table shows (all matches stay in ``.filtered``).

    Returns:
        An ``ipywidgets.VBox`` subclass named ``CommentExplorer``.

    Raises:
        ValueError: ``comments`` lacks a column the explorer shows or filters on.

    Example:
        >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
        >>> with Sandbox() as sandbox, sandbox.client(cache=False) as client:
        ...     comments = client.post_comments(EXAMPLE_POSTS[82])
        >>> explorer = explore_comments(comments)
        >>> explorer.author_types.value = ("organization",)
        >>> explorer.count.value
        '<b>11</b> of 82 comments match'
    """
    missing = [c for c in _EXPLORER_NEEDS if c not in comments.columns]
    if missing:
        raise ValueError(f"explore_comments needs a comments frame; missing columns {missing}")
    import ipywidgets as w

    all_types = _type_options(comments)
    counts = comments["author_type"].value_counts()
    author_types = w.SelectMultiple(
        options=[(f"{t} ({int(counts.get(t, 0)):,})", t) for t in all_types],
        value=tuple(all_types),
        rows=max(2, len(all_types)),
        description="Authors",
    )
    start = w.DatePicker(value=None, description=f"From ({tz})")
    end = w.DatePicker(value=None, description=f"To ({tz})")
    # Not on every keystroke: each refresh redraws the chart.
    text = w.Text(
        value="", description="Text", placeholder="contains… (any case)", continuous_update=False
    )
    min_followers = w.BoundedIntText(
        value=0,
        min=0,
        max=10**12,
        description="Min followers",
        tooltip="Only organisations have a follower count: above 0, people are left out.",
        style={"description_width": "initial"},
    )
    count = w.HTML()
    chart = w.Output()
    table = w.HTML()

    panel = _panel_type("CommentExplorer")(
        [
            w.HBox([author_types, w.VBox([start, end]), w.VBox([text, min_followers])]),
            count,
            chart,
            table,
        ]
    )
    panel.author_types, panel.start, panel.end, panel.text = author_types, start, end, text
    panel.min_followers, panel.count, panel.chart, panel.table = min_followers, count, chart, table
    panel.comments, panel.filtered = comments, comments

    def refresh(_change: object = None) -> None:
        selected = tuple(author_types.value)
        try:
            matched = filter_comments(
                comments,
                author_types=None if set(selected) == set(all_types) else selected,
                start=start.value,
                end=end.value,
                text=text.value,
                min_followers=min_followers.value,
                tz=tz,
            )
        except ValueError as exc:  # "From" after "To": say so, keep the last good outputs
            count.value = error_html(exc)
            return
        panel.filtered = matched
        count.value = count_html(len(matched), len(comments))
        png = activity_png(matched, freq, tz=tz)
        chart.outputs = (_png_output(png, f"Comment activity ({len(matched):,} comments)"),)
        table.value = comments_table_html(matched, max_rows, tz=tz)

    panel.refresh = refresh
    for control in (author_types, start, end, text, min_followers):
        control.observe(refresh, names="value")
    refresh()
    return panel


def ad_search(client: Client, *, pages: int = 1, max_rows: int = MAX_ROWS) -> ipywidgets.VBox:
    """Search the Meta Ad Library from a notebook, seeing the price before paying it.

    The button's label is :func:`search_cost_label` of the pages box and follows
    it. Pressing it calls ``client.search_ads(query, country=..., active_status=...,
    max_pages=pages)``; pressing Enter in the query box does not, so money is
    only spent on an explicit click. Errors (bad input, which costs nothing, or
    a :class:`~socialframe.SocialFrameError`) show as one line in ``status``;
    the ads fetched before a failure are still shown.

    The returned box exposes ``query`` (Text), ``country`` (Text: ``US``,
    ``ALL``, blank for the service's default), ``active_status`` (Dropdown),
    ``pages`` (BoundedIntText), ``button``, ``status`` / ``table`` / ``ledger``
    (HTML) and ``results``: the frame of the last search (``None`` before one).

    Args:
        client: The client to search (and pay) with; its cache and budget apply.
        pages: Initial value of the pages box.
        max_rows: Rows the table shows (all ads stay in ``.results``).

    Returns:
        An ``ipywidgets.VBox`` subclass named ``AdSearch``.

    Example:
        >>> from socialframe.sandbox import Sandbox
        >>> with Sandbox() as sandbox, sandbox.client(cache=False) as client:
        ...     search = ad_search(client, pages=2)
        ...     search.query.value = "coffee"
        ...     label = search.button.description
        ...     search.button.click()
        >>> label, len(search.results), client.ledger.paid_calls
        ('Search (at most $0.02)', 40, 2)
    """
    import ipywidgets as w

    search_cost_label(pages)  # a bad initial value fails here, not as a clamped box
    query = w.Text(value="", description="Query", placeholder="e.g. running shoes")
    country = w.Text(value="", description="Country", placeholder="US, GB… or ALL")
    active_status = w.Dropdown(
        # "any" sends nothing, like search_ads' default, so both share cached pages.
        options=[("any", None), ("active", "active"), ("inactive", "inactive")],
        value=None,
        description="Status",
    )
    pages_box = w.BoundedIntText(value=pages, min=1, max=MAX_PAGES, description="Pages")
    button = w.Button(
        description=search_cost_label(pages),
        button_style="primary",
        icon="search",
        layout=w.Layout(width="auto"),
    )
    status = w.HTML()
    table = w.HTML()
    ledger = w.HTML(value=client.ledger._repr_html_())

    panel = _panel_type("AdSearch")(
        [
            w.HBox([query, country]),
            w.HBox([active_status, pages_box, button]),
            status,
            table,
            ledger,
        ]
    )
    panel.query, panel.country, panel.active_status, panel.pages = (
        query,
        country,
        active_status,
        pages_box,
    )
    panel.button, panel.status, panel.table, panel.ledger = button, status, table, ledger
    panel.client, panel.results = client, None

    def relabel(change: dict[str, Any]) -> None:
        button.description = search_cost_label(change["new"])

    def search(_button: object) -> None:
        _run_search(panel, client, max_rows)

    pages_box.observe(relabel, names="value")
    button.on_click(search)
    return panel


def _run_search(panel: Any, client: Client, max_rows: int) -> None:
    """The click handler: search, then show the ads (or the error) and the ledger."""
    paid, cached = client.ledger.paid_calls, client.ledger.cached_calls
    # A second click while this one runs would pay for the same pages twice.
    panel.button.disabled = True
    panel.status.value = f"Searching (up to {panel.pages.value:,} pages)…"
    progress = client.progress
    # The status line reports the search; a tqdm bar drawn from a widget callback
    # lands in the kernel's log, not under the widget.
    client.progress = False
    try:
        ads = client.search_ads(
            panel.query.value,
            country=panel.country.value.strip() or None,
            active_status=panel.active_status.value,
            max_pages=panel.pages.value,
        )
    except (ValueError, TypeError, SocialFrameError) as exc:
        partial = getattr(exc, "partial", None)
        panel.results = partial
        panel.status.value = error_html(exc) + _partial_note(partial)
        panel.table.value = (
            "" if partial is None or partial.empty else ads_table_html(partial, max_rows)
        )
    else:
        panel.results = ads
        panel.status.value = search_summary_html(
            len(ads), client.ledger.paid_calls - paid, client.ledger.cached_calls - cached
        )
        panel.table.value = ads_table_html(ads, max_rows)
    finally:
        client.progress = progress
        panel.ledger.value = client.ledger._repr_html_()
        panel.button.disabled = False


def _partial_note(partial: pd.DataFrame | None) -> str:
    if partial is None or partial.empty:
        return ""
    return (
        f"<br>Showing the {len(partial):,} ads fetched before the error (in <code>.results</code>)."
    )
