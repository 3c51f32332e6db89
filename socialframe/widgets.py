"""Notebook widgets: thin ipywidgets shells over socialframe's pure functions.

- :func:`explore_comments` filters a comments frame (author type, date range,
  text, minimum followers) and shows the matching count, an activity chart and
  a table.
- :func:`ad_search` searches the Meta Ad Library through a client; its button
  shows the most the search can cost before it is pressed.

The shells wire widget values to pure functions and nothing else: filtering is
``df.social.filter`` (:mod:`socialframe._analysis.comments`), the HTML, the cost label
and the chart come from :mod:`socialframe._display.html`. All user text is escaped.

Where a widget cannot be drawn (a saved notebook opened without its kernel,
static HTML, a terminal), its output falls back to a one-line summary and the
current table, not the widget's repr.

``import socialframe.widgets`` imports neither ipywidgets nor matplotlib: the
first widget built does.
"""

from __future__ import annotations

import functools
import html
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from . import _words as words
from ._analysis import comments as analysis
from ._display import controls, tables
from ._display import html as render
from ._display.html import MAX_ROWS
from ._display.plots import activity_span
from ._errors import BudgetExceededError, FetchError, SocialFrameError
from ._frames import ads_frame

if TYPE_CHECKING:
    import ipywidgets

    from ._client import Client

__all__ = ["MAX_PAGES", "MAX_ROWS", "ad_search", "explore_comments"]

MAX_PAGES: Final = 1000
"""Upper bound of the pages box of :func:`ad_search` ($10.00 at most)."""

STATUSES: Final = ("all", "active", "inactive")
"""The choices of :func:`ad_search`'s status box: ``search_ads``' own ``active_status``
words, passed to it as they are."""

#: The columns of the explorer's table.
_EXPLORER_COLUMNS: Final = (
    "created_at",
    "author_name",
    "author_type",
    "author_followers",
    "text",
    "permalink",
)
_EXPLORER_NEEDS: Final = (
    "created_at",
    "text",
    "author_type",
    "author_name",
    "author_url",
    "author_followers",
    "permalink",
)


@functools.cache
def _panel_type(name: str) -> type[Any]:
    """A named VBox subclass, built on first use so that ipywidgets is imported lazily.

    Its text and HTML fallbacks come from the instance's ``fallback()``.
    """
    import ipywidgets

    def _repr_mimebundle_(self: Any, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = ipywidgets.VBox._repr_mimebundle_(self, **kwargs)
        data["text/plain"], data["text/html"] = self.fallback()
        return data

    return type(
        name, (ipywidgets.VBox,), {"__module__": __name__, "_repr_mimebundle_": _repr_mimebundle_}
    )


def explore_comments(
    comments: pd.DataFrame, *, freq: str = "1D", tz: str = "UTC", max_rows: int = MAX_ROWS
) -> ipywidgets.VBox:
    """Filter a comments frame interactively: count, activity chart and a table to work in.

    The returned box exposes its parts, so code (and tests) can drive it:

    - ``author_types`` (a toggle button per type; ``.value`` is the tuple of those
      on), ``start`` / ``end`` (ISO day boxes, ``2026-01-05``, days in ``tz``),
      ``days`` (a day range slider under the chart, in step with them), ``text``
      (filters as you type, after a pause), ``min_followers``: the filters, passed
      to ``df.social.filter``;
    - ``count`` (HTML), ``chart`` (Output holding a PNG; its time axis spans the
      whole frame whatever the filters), ``table`` (an itables ``ITable``, see
      :func:`socialframe.show`: newest first, sort, search, pages, a CSV of its rows);
    - ``comments`` (the frame given), ``filtered`` (the matching rows) and
      ``selected`` (the rows picked in the table);
    - ``refresh()``, which recomputes the outputs (observers call it).

    With every author type on, the type filter is off, so rows without a type stay
    in. A filter that cannot apply (a day that is no day, a start after the end) says
    why in the count's place, and the chart and table it leaves are marked as the
    last good result.

    Args:
        comments: A comments frame (``socialframe._frames.COMMENT_COLUMNS``).
        freq: Period of the chart's bars.
        tz: Time zone of the date filters, the chart and the table's times.
        max_rows: Rows a page of the table shows at first.

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

    all_types = analysis.author_types(comments)
    counts = comments["author_type"].value_counts()
    author_types = controls.toggles(
        [(f"{t} ({int(counts.get(t, 0)):,})", t) for t in all_types], all_types
    )
    start = controls.date_box(f"From ({tz})")
    end = controls.date_box(f"To ({tz})")
    text = w.Text(
        value="",
        description="Text",
        placeholder="contains… (any case)",
        continuous_update=True,  # as you type; applied after a pause (a chart is redrawn)
        style={"description_width": "90px"},
        layout=w.Layout(width="260px"),
    )
    min_followers = w.BoundedIntText(
        value=0,
        min=0,
        max=10**12,
        description="Min followers",
        tooltip="Only organisations have a follower count: above 0, people are left out.",
        style={"description_width": "90px"},
        layout=w.Layout(width="260px"),
    )
    count = w.HTML()
    count.add_class("socialframe-count")
    chart = w.Output()
    span = _plots_span(comments, freq, tz)
    days = _days_slider(comments, tz)
    shown = comments.loc[:, list(_EXPLORER_COLUMNS)]
    # pages scroll in a box of fixed height: a page of 200 never stretches the notebook
    table = tables.interactive(shown, tz=tz, page_length=max_rows, height=render.TABLE_HEIGHT)
    results = w.VBox([chart, *([controls.with_range(days)] if days is not None else []), table])
    results.add_class("socialframe-results")

    panel = _panel_type("CommentExplorer")(
        [
            # Wrapping on narrow screens: nothing cut off at the right edge.
            author_types,
            w.HBox(
                [w.VBox([start, end]), w.VBox([text, min_followers])],
                layout=w.Layout(flex_flow="row wrap"),
            ),
            count,
            results,
            _style(),
        ]
    )
    panel.add_class("socialframe-comment-explorer")
    panel.author_types, panel.start, panel.end, panel.text = author_types, start, end, text
    panel.min_followers, panel.count, panel.chart, panel.table = min_followers, count, chart, table
    panel.days = days
    panel.comments, panel.filtered, panel.selected = comments, comments, comments.iloc[:0]
    panel.fallback = lambda: render.fallback(
        "CommentExplorer",
        count.value,
        render.comments_table_html(panel.filtered, MAX_ROWS, tz=tz),
    )

    def refresh(_change: object = None) -> None:
        selected = tuple(author_types.value)
        try:
            matched = analysis.filter_comments(
                comments,
                author_type=None if set(selected) == set(all_types) else selected,
                start=start.value.strip() or None,
                end=end.value.strip() or None,
                text=text.value,
                min_followers=min_followers.value,
                tz=tz,
            )
        except ValueError as exc:  # "From" after "To": say so, mark what is shown as old
            count.value = render.error_html(exc) + " <i>(below: the last good result)</i>"
            results.add_class("socialframe-stale")
            return
        results.remove_class("socialframe-stale")
        panel.filtered, panel.selected = matched, matched.iloc[:0]
        count.value = render.count_html(len(matched), len(comments))
        png = render.activity_png(matched, freq, tz=tz, span=span)
        alt = f"Comment activity ({words.count(len(matched), 'comment')})"
        chart.outputs = (render.png_output(png, alt),)
        tables.refill(table, matched.loc[:, list(_EXPLORER_COLUMNS)])

    def picked(change: dict[str, Any]) -> None:
        panel.selected = panel.filtered.iloc[[i for i in change["new"] if i < len(panel.filtered)]]

    panel.refresh = refresh
    for control in (author_types, start, end, min_followers):
        control.observe(refresh, names="value")
    text.observe(controls.debounced(refresh), names="value")
    if days is not None:
        controls.in_step(days, start, end)
    table.observe(picked, names="selected_rows")
    refresh()
    return panel


def _style() -> Any:
    """The panel's style sheet: a result that no longer matches the filters is dimmed."""
    import ipywidgets as w

    return w.HTML(f"<style>{_STALE_CSS}</style>", layout=w.Layout(height="0px"))


#: How a result that no longer matches the filters looks.
_STALE_CSS: Final = ".socialframe-stale { opacity: 0.45; }"


def _days_slider(comments: pd.DataFrame, tz: str) -> Any:
    """The day range under the chart: the frame's first to last day in ``tz`` (None for
    a frame without a dated comment)."""
    stamps = comments["created_at"].dropna()
    if stamps.empty:
        return None
    local = stamps.dt.tz_convert(tz)
    return controls.day_range(local.min().date(), local.max().date())


def _plots_span(comments: pd.DataFrame, freq: str, tz: str) -> Any:

    return activity_span(comments, freq, tz=tz)


def ad_search(client: Client, *, pages: int = 1, max_rows: int = MAX_ROWS) -> ipywidgets.VBox:
    """Search the Meta Ad Library from a notebook, seeing the price before paying it.

    The button's label is the most the search can cost of the pages box, within what
    the client's budget has left (``client.max_cost``), and follows each keystroke in
    it and each search; pressing it searches exactly that many pages:
    ``client.search_ads(query, country=..., active_status=..., after=..., before=...,
    max_ads=..., max_pages=pages)``. Pressing Enter in the query box does not search,
    so money is only spent on an explicit click. Errors (bad input, which costs
    nothing, or a :class:`~socialframe.SocialFrameError`) show as one line in words in
    ``status``; the ads fetched before a failure are shown (and are in ``.results``),
    and when it fetched none (a typo) the previous search's results stay, dimmed and
    said to be the last ones. A stop by the client's budget says so, and how to go on.

    The returned box exposes ``query`` (Text), ``country`` (Text: ``US``, ``ALL``,
    blank for the service's default), ``active_status`` (Dropdown of ``search_ads``'
    own words, passed as they are: ``"all"``, ``"active"``, ``"inactive"``),
    ``after`` / ``before`` (ISO day boxes: ads started on or after / before that
    day), ``max_ads`` (0, as its label says: no limit),
    ``pages`` (BoundedIntText), ``button``, ``status`` / ``ledger`` (HTML), ``table``
    (an itables ``ITable``, see :func:`socialframe.show`: thumbnails, each ad linked
    to its Ad Library page, the landing page's site, days; sort, search, pages, CSV),
    ``results``: the frame of the last search (``None`` before one), and
    ``selected``: its rows picked in the table.

    Args:
        client: The client to search (and pay) with; its cache and budget apply.
        pages: Initial value of the pages box.
        max_rows: Rows a page of the table shows at first.

    Returns:
        An ``ipywidgets.VBox`` subclass named ``AdSearch``.

    Example:
        >>> from socialframe.sandbox import PinnedClock, Sandbox
        >>> sandbox = Sandbox(clock=PinnedClock())  # its world as of 2026-01-01
        >>> with sandbox, sandbox.client(cache=False) as client:
        ...     search = ad_search(client, pages=2)
        ...     search.query.value = "coffee"
        ...     label = search.button.description
        ...     search.button.click()
        >>> label, len(search.results), client.ledger.paid_calls
        ('Search (at most $0.02)', 40, 2)
    """
    import ipywidgets as w

    render.search_cost_label(pages)  # a bad initial value fails here, not as a clamped box
    query = w.Text(value="", description="Query", placeholder="e.g. running shoes")
    country = w.Text(value="", description="Country", placeholder="US, GB… or ALL")
    active_status = w.Dropdown(
        # search_ads' words, passed as they are. A value, not None: a Dropdown whose
        # value is None shows no selection at all.
        options=list(STATUSES),
        value="all",
        description="Status",
    )
    after = controls.date_box("Started from")
    before = controls.date_box("Started until")
    max_ads = w.BoundedIntText(
        value=0,
        min=0,
        max=10**6,
        description="Max ads (0: no limit)",
        tooltip="The most ads to fetch; 0 fetches every page the Pages box allows.",
        style={"description_width": "initial"},
    )
    # Every keystroke: the price on the button is the price of what is typed.
    pages_box = w.BoundedIntText(
        value=pages, min=1, max=MAX_PAGES, description="Pages", continuous_update=True
    )
    button = w.Button(
        description=render.search_cost_label(pages, client.ledger.calls_left),
        button_style="primary",
        icon="search",
        layout=w.Layout(width="auto"),
    )
    button.pages = pages  # what its label says: what a click searches
    status = w.HTML()
    status.add_class("socialframe-status")
    table = tables.interactive(
        _ad_columns(ads_frame([])),
        page_length=max_rows,
        height=render.TABLE_HEIGHT,
        order=[],  # as the service ranks them
    )
    results_box = w.VBox([table])
    results_box.add_class("socialframe-results")
    ledger = w.HTML(value=client.ledger.to_html())

    panel = _panel_type("AdSearch")(
        [
            w.HBox([query, country, active_status], layout=w.Layout(flex_flow="row wrap")),
            w.HBox([after, before, max_ads], layout=w.Layout(flex_flow="row wrap")),
            w.HBox([pages_box, button]),
            status,
            results_box,
            ledger,
            _style(),
        ]
    )
    panel.query, panel.country, panel.active_status, panel.pages = (
        query,
        country,
        active_status,
        pages_box,
    )
    panel.after, panel.before, panel.max_ads = after, before, max_ads
    panel.add_class("socialframe-ad-search")
    panel.button, panel.status, panel.table, panel.ledger = button, status, table, ledger
    panel.results_box = results_box
    panel.client, panel.results = client, None
    panel.fallback = lambda: render.fallback(
        "AdSearch",
        status.value or f"no search yet; {html.escape(button.description)}",
        "" if panel.results is None else render.ads_table_html(panel.results, MAX_ROWS),
        ledger.value,
    )

    def relabel(change: dict[str, Any]) -> None:
        button.pages = change["new"]
        button.description = render.search_cost_label(change["new"], client.ledger.calls_left)

    panel.relabel = lambda: relabel({"new": button.pages})

    def search(_button: object) -> None:
        _run_search(panel, client)

    def picked(change: dict[str, Any]) -> None:
        shown = panel.results if panel.results is not None else ads_frame([])
        panel.selected = shown.iloc[[i for i in change["new"] if i < len(shown)]]

    panel.selected = ads_frame([])
    pages_box.observe(relabel, names="value")
    button.on_click(search)
    table.observe(picked, names="selected_rows")
    return panel


#: The columns of the ad search's table, in order: the creative, the ad (to its Ad
#: Library page), who, where it leads, when, what it says.
_AD_COLUMNS: Final = (
    "image_urls",
    "ad_archive_id",
    "page_name",
    "link_url",
    "is_active",
    "start_date",
    "end_date",
    "display_format",
    "body_text",
    "publisher_platforms",
)


def _ad_columns(ads: pd.DataFrame) -> pd.DataFrame:
    return ads.reindex(columns=list(_AD_COLUMNS)).reset_index(drop=True)


def _run_search(panel: Any, client: Client) -> None:
    """The click handler: search, then show the ads (or the error) and the ledger."""
    paid, cached = client.ledger.paid_calls, client.ledger.cached_calls
    pages = panel.button.pages  # what the button said, whatever the box says meanwhile
    # A second click while this one runs would pay for the same pages twice.
    panel.button.disabled = True
    panel.status.value = f"Searching (up to {words.count(pages, 'page')})…"
    try:
        ads = client.search_ads(
            panel.query.value,
            country=panel.country.value.strip() or None,
            active_status=panel.active_status.value,
            after=panel.after.value.strip() or None,
            before=panel.before.value.strip() or None,
            max_ads=panel.max_ads.value or None,
            max_pages=pages,
            # The status line reports the search; a tqdm bar drawn from a widget
            # callback lands in the kernel's log, not under the widget.
            progress=False,
        )
    except (ValueError, TypeError, SocialFrameError) as exc:
        partial = exc.partial if isinstance(exc, FetchError) else None
        if isinstance(exc, BudgetExceededError):  # in the widget's words, not error.partial
            said, what = render.budget_stop_html(exc.max_cost, exc.spent_usd), "the stop"
        else:
            said, what = render.error_html(exc), "the error"
        if partial is None or partial.empty:
            # Nothing came back (a typo, a refused key): the last results stay, dimmed.
            panel.status.value = said + _kept_note(panel.results)
            if panel.results is not None:
                panel.results_box.add_class("socialframe-stale")
        else:
            panel.results = partial
            panel.status.value = said + _partial_note(partial, what)
            panel.results_box.remove_class("socialframe-stale")
            tables.refill(panel.table, _ad_columns(partial))
    else:
        panel.results = ads
        panel.status.value = render.search_summary_html(
            len(ads), client.ledger.paid_calls - paid, client.ledger.cached_calls - cached
        )
        panel.results_box.remove_class("socialframe-stale")
        tables.refill(panel.table, _ad_columns(ads))
    finally:
        panel.ledger.value = client.ledger.to_html()
        panel.relabel()  # what the budget has left now
        panel.button.disabled = False


def _partial_note(partial: pd.DataFrame, what: str = "the error") -> str:
    return (
        f"<br>Showing the {words.count(len(partial), 'ad')} fetched before {what}"
        " (in <code>.results</code>)."
    )


def _kept_note(previous: pd.DataFrame | None) -> str:
    if previous is None:
        return ""
    return f"<br>Still showing the previous search's {words.count(len(previous), 'ad')} (dimmed)."
