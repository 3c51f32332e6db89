"""Widgets: the pure functions with exact values; the shells driven by setting values and clicking.

No browser and no kernel: a widget is driven by setting its children's values (or
``button.click()``) and read back through its HTML values, labels and outputs.
Expected values are computed independently, with plain Python over the frame.
"""

from __future__ import annotations

import html
import inspect
import logging
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any, get_args, get_type_hints

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot: tests never open a window

from urllib.parse import urlsplit

import ipywidgets
import pandas as pd
import pytest
from samples import Table, png_of

import socialframe as sf
from socialframe.sandbox import PinnedClock, Sandbox
from socialframe.widgets import ad_search, explore_comments

SCRIPT = '<script>alert("x")</script>'
SCRIPT_ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: An ad's public page, by its id (where a table's ad links to).
AD_LIBRARY = "https://www.facebook.com/ads/library/?id="
#: Between a table cell's parts as it travels to the page (its display part first).
SEP = "\x1f"
#: The height of a widget's table box.
TABLE_HEIGHT = "420px"


def host(url: str) -> str:
    """A link's label in a table: its site, ``www.`` left out."""
    name = urlsplit(url).hostname
    return name.removeprefix("www.") if name else url


# -- exceptions in widget callbacks fail the test ------------------------------------------------


class WidgetCallbackError(AssertionError):
    """ipywidgets logged an exception (or a warning) instead of raising it."""


class FailOnLog(logging.Handler):
    """Turns a log record into an exception, raised inside the ``log.warning`` call.

    ipywidgets' ``CallbackDispatcher`` catches a callback's exception and logs it;
    ``Handler.handle`` does not catch what ``emit`` raises, so the exception leaves
    ``button.click()`` and fails the test at the click, chained to the original.
    """

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        raise WidgetCallbackError(f"{record.name} logged: {record.getMessage()}")


def _widget_loggers() -> list[logging.Logger]:
    from ipywidgets.widgets.widget import CallbackDispatcher

    # The dispatcher logs through traitlets' logger (an Application's, if one is running).
    log = CallbackDispatcher().log
    dispatcher = log.logger if isinstance(log, logging.LoggerAdapter) else log
    named = [logging.getLogger(name) for name in ("traitlets", "ipywidgets", "comm")]
    return list({id(lg): lg for lg in [dispatcher, *named]}.values())


@pytest.fixture(autouse=True)
def widget_errors_fail(monkeypatch: pytest.MonkeyPatch) -> Iterator[FailOnLog]:
    """Any WARNING+ record from ipywidgets / traitlets / comm fails the test."""
    import ipywidgets.widgets.widget as widget_module

    # Under a live IPython shell ipywidgets prints the traceback instead of logging it.
    monkeypatch.setattr(widget_module, "get_ipython", lambda: None)
    handler = FailOnLog()
    loggers = _widget_loggers()
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.WARNING)  # a quieter level set elsewhere must not hide them
    try:
        yield handler
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(handler)
            lg.setLevel(level)
    # Also catches a record whose exception something swallowed on the way up.
    assert not handler.records, [r.getMessage() for r in handler.records]


def test_an_exception_in_a_click_callback_fails_the_test(widget_errors_fail: FailOnLog) -> None:
    button = ipywidgets.Button()
    button.on_click(lambda _button: 1 / 0)
    with pytest.raises(WidgetCallbackError, match="Exception in callback") as info:
        button.click()
    assert isinstance(info.value.__context__, ZeroDivisionError)
    assert len(widget_errors_fail.records) == 1
    widget_errors_fail.records.clear()  # failing was the point here


def test_without_the_fixture_ipywidgets_only_logs(
    widget_errors_fail: FailOnLog, caplog: pytest.LogCaptureFixture
) -> None:
    """The reason for the fixture: unguarded, the same click returns normally."""
    for lg in _widget_loggers():
        lg.removeHandler(widget_errors_fail)
    button = ipywidgets.Button()
    button.on_click(lambda _button: 1 / 0)
    button.click()  # no exception
    [record] = [r for r in caplog.records if r.exc_info]
    assert record.exc_info is not None and record.exc_info[0] is ZeroDivisionError


def test_an_exception_in_an_observer_propagates() -> None:
    """traitlets runs observers inside the assignment, so they raise where the test sets."""
    box = ipywidgets.IntText()
    box.observe(lambda _change: 1 / 0, names="value")
    with pytest.raises(ZeroDivisionError):
        box.value = 3


def frontend_sets(widget: Any, **state: Any) -> None:
    """Apply a state update as the browser sends it (the comm message path)."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


# -- data ----------------------------------------------------------------------------------------


@pytest.fixture
def comments(comments_2345: pd.DataFrame) -> pd.DataFrame:
    return comments_2345


@pytest.mark.slow
def test_import_does_not_load_ipywidgets_or_matplotlib() -> None:
    code = (
        "import sys, socialframe.widgets;"
        "print(sorted(m for m in ('ipywidgets', 'matplotlib', 'IPython') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# -- explore_comments ----------------------------------------------------------------------------


def test_public_names() -> None:
    import socialframe.widgets as widgets

    assert widgets.__all__ == sorted(widgets.__all__)
    assert all(callable(getattr(widgets, n)) for n in widgets.__all__ if not n.isupper())
    assert list(inspect.signature(explore_comments).parameters)[0] == "comments"
    assert list(inspect.signature(ad_search).parameters)[0] == "client"


def test_explorer_needs_a_comments_frame(comments: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"missing columns \['text', 'permalink'\]"):
        explore_comments(comments.drop(columns=["text", "permalink"]))


def shown(table: Any) -> list[dict[str, str]]:
    """The rows an interactive table holds, as it shows them (each cell's display part)."""
    import json

    names = list(table.df.columns)
    rows = json.loads(table._dt_args["data_json"])
    return [
        {n: str(c).replace("\x1e", "\n").split(SEP)[0] for n, c in zip(names, row, strict=True)}
        for row in rows
    ]


def test_explorer_starts_with_everything(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments)
    assert isinstance(explorer, ipywidgets.VBox) and type(explorer).__name__ == "CommentExplorer"
    assert explorer.count.value == "<b>2,345</b> of 2,345 comments match"
    toggles = explorer.author_types.children
    assert [t.description for t in toggles] == ["person (2,008)", "organization (337)"]
    assert all(isinstance(t, ipywidgets.ToggleButton) and t.value for t in toggles)
    assert explorer.author_types.value == ("person", "organization")
    [output] = explorer.chart.outputs
    assert png_of(output).startswith(PNG_SIGNATURE)
    assert output["data"]["text/plain"] == "Comment activity (2,345 comments)"
    rows = shown(explorer.table)
    assert len(rows) == 2345  # every one, in pages of 200
    assert explorer.table._dt_args["pageLength"] == 200
    assert list(rows[0]) == [
        "created_at",
        "author_name",
        "author_type",
        "author_followers",
        "text",
        "permalink",
    ]
    assert explorer.table._dt_args["order"] == [[0, "desc"]]  # newest first
    pd.testing.assert_frame_equal(explorer.filtered, comments)
    assert explorer.selected.empty and list(explorer.selected.columns) == list(comments.columns)


def test_explorer_toggles_pick_author_types_without_ctrl(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments)
    person, organization = explorer.author_types.children
    frontend_sets(person, value=False)  # one click: people off
    orgs = int((comments["author_type"] == "organization").sum())
    assert explorer.author_types.value == ("organization",)
    assert explorer.count.value == f"<b>{orgs}</b> of 2,345 comments match"
    frontend_sets(person, value=True)
    assert explorer.count.value == "<b>2,345</b> of 2,345 comments match"
    explorer.author_types.value = ("person",)  # set from code: the buttons follow
    assert (person.value, organization.value) == (True, False)
    with pytest.raises(ValueError, match="unknown choices \\['robot'\\]"):
        explorer.author_types.value = ("robot",)
    assert explorer.author_types.value == ("person",)


@pytest.mark.slow
def test_explorer_filters_combine(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments, max_rows=500)
    explorer.author_types.value = ("organization",)
    orgs = int((comments["author_type"] == "organization").sum())
    assert explorer.count.value == f"<b>{orgs}</b> of 2,345 comments match"
    assert explorer.chart.outputs[0]["data"]["text/plain"] == f"Comment activity ({orgs} comments)"

    explorer.min_followers.value = 1000
    explorer.start.value = "2025-12-01"
    explorer.end.value = "2025-12-31"
    expected = [
        i
        for i, row in comments.iterrows()
        if row["author_type"] == "organization"
        and row["author_followers"] is not pd.NA
        and row["author_followers"] >= 1000
        and date(2025, 12, 1) <= row["created_at"].date() <= date(2025, 12, 31)
    ]
    assert 0 < len(expected) < orgs
    assert explorer.filtered.index.tolist() == expected
    assert explorer.count.value == f"<b>{len(expected)}</b> of 2,345 comments match"
    assert len(shown(explorer.table)) == len(expected)

    explorer.author_types.value = ("person",)  # people have no follower count
    assert explorer.count.value == "<b>0</b> of 2,345 comments match"
    assert shown(explorer.table) == []
    assert explorer.chart.outputs[0]["data"]["text/plain"] == "Comment activity (0 comments)"


def test_explorer_text_search_shows_script_as_text(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments)
    explorer.text.value = "SCRIPT"
    assert explorer.count.value == "<b>16</b> of 2,345 comments match"
    rows = shown(explorer.table)
    assert [r["text"] for r in rows].count(SCRIPT_ESCAPED) == 16
    assert "<script" not in explorer.table._dt_args["data_json"].split("\\u001f")[0].lower()
    assert len(rows) == 16


def test_explorer_bad_range_says_so_plainly_and_marks_the_old_results(
    comments: pd.DataFrame,
) -> None:
    explorer = explore_comments(comments)
    explorer.start.value = "2025-12-10"
    kept = explorer.filtered
    explorer.end.value = "2025-12-01"
    assert "Start (2025-12-10) is later than end (2025-12-01)" in explorer.count.value
    assert "ValueError" not in explorer.count.value  # words, not a class name
    assert "the last good result" in explorer.count.value
    results = explorer.children[-2]
    assert "socialframe-stale" in results._dom_classes
    assert ".socialframe-stale { opacity: 0.45; }" in explorer.children[-1].value
    assert explorer.filtered is kept
    explorer.end.value = ""
    assert explorer.count.value == f"<b>{len(kept)}</b> of 2,345 comments match"
    assert "socialframe-stale" not in results._dom_classes
    kept = explorer.filtered
    explorer.start.value = "12/10/2025"  # not ISO: said, nothing else changes
    assert "Start must be" in explorer.count.value and explorer.filtered is kept


def test_explorer_zone_applies_to_dates_and_table(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments, tz="Asia/Tokyo", freq="1W")
    assert explorer.start.description == "From (Asia/Tokyo)"
    assert explorer.start.placeholder == "YYYY-MM-DD"
    explorer.start.value = explorer.end.value = "2025-12-20"
    local = comments["created_at"].dt.tz_convert("Asia/Tokyo")
    expected = int((local.dt.date == date(2025, 12, 20)).sum())
    assert explorer.count.value == f"<b>{expected}</b> of 2,345 comments match"
    assert {r["created_at"][:10] for r in shown(explorer.table)} == {"2025-12-20"}


def test_explorer_text_typed_in_the_browser(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments)
    assert explorer.text.continuous_update  # as you type (after a pause, in a kernel)
    frontend_sets(explorer.text, value="script")
    assert explorer.count.value == "<b>16</b> of 2,345 comments match"


def test_explorer_rows_picked_in_the_table_reach_python(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments)
    explorer.author_types.value = ("organization",)
    frontend_sets(explorer.table, selected_rows=[0, 5])
    pd.testing.assert_frame_equal(explorer.selected, explorer.filtered.iloc[[0, 5]])
    explorer.text.value = "thanks"  # new rows: nothing picked among them yet
    assert explorer.selected.empty and explorer.table.selected_rows == []


def test_explorer_day_range_and_date_boxes_stay_in_step(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments, tz="Europe/Berlin")
    days = explorer.days
    local = comments["created_at"].dropna().dt.tz_convert("Europe/Berlin")
    assert days.value == (local.min().date(), local.max().date())
    frontend_sets(days, index=[3, 10])  # dragged on the chart's range
    first = local.min().date()
    low, high = days.options[3][1], days.options[10][1]
    assert (low - first).days == 3
    assert (explorer.start.value, explorer.end.value) == (low.isoformat(), high.isoformat())
    expected = int(((local.dt.date >= low) & (local.dt.date <= high)).sum())
    assert explorer.count.value == f"<b>{expected}</b> of 2,345 comments match"
    explorer.end.value = ""  # a box cleared: the range's end is the last day again
    assert days.index == (3, len(days.options) - 1)
    explorer.start.value = "1999-01-01"  # before the first day: the range's first day
    assert days.index[0] == 0
    explorer.start.value = "not a day"
    assert days.index[0] == 0 and "Start must be" in explorer.count.value


def test_the_day_range_reads_as_a_range(comments: pd.DataFrame) -> None:
    """Its own readout joined the days with a hyphen ("2025-11-02-2026-01-01")."""
    explorer = explore_comments(comments)
    days = explorer.days
    assert days.readout is False  # (ipywidgets' own, hyphenated)
    [said] = [
        child
        for box in explorer.children
        for child in getattr(box, "children", ())
        for child in getattr(child, "children", ())
        if "socialframe-range" in getattr(child, "_dom_classes", ())
    ]
    first, last = days.options[0][0], days.options[-1][0]
    assert said.value == f"{first} to {last}" == "2025-11-02 to 2026-01-01"
    frontend_sets(days, index=[3, 10])
    assert said.value == f"{days.options[3][0]} to {days.options[10][0]}"
    explorer.end.value = days.options[3][0]  # one day: that day
    assert said.value == days.options[3][0]


# -- ad_search -------------------------------------------------------------------------------------


def test_cost_label_follows_pages(client: sf.Client) -> None:
    search = ad_search(client)
    assert type(search).__name__ == "AdSearch"
    assert search.button.description == "Search (at most $0.01)"
    search.pages.value = 5
    assert search.button.description == "Search (at most $0.05)"
    frontend_sets(search.pages, value=12)
    assert search.button.description == "Search (at most $0.12)"
    search.pages.value = 0  # the box clamps to its minimum
    assert (search.pages.value, search.button.description) == (1, "Search (at most $0.01)")
    assert search.pages.continuous_update  # every keystroke, not on Tab
    assert ad_search(client, pages=3).button.description == "Search (at most $0.03)"
    with pytest.raises(ValueError, match="pages"):
        ad_search(client, pages=0)


def test_search_pays_then_cache_is_free(sandbox: Sandbox, client: sf.Client) -> None:
    search = ad_search(client, pages=2)
    search.query.value = "for kids"
    search.button.click()
    with (
        Sandbox(seed=0, clock=PinnedClock()) as other,
        other.client(cache=False, progress=False) as reference,
    ):
        expected = reference.search_ads("for kids", max_pages=2)
    assert search.results["ad_archive_id"].tolist() == expected["ad_archive_id"].tolist()
    n = len(expected)
    assert (sandbox.charges, client.ledger.paid_calls) == (2, 2)
    assert (
        search.status.value
        == f"<b>{n}</b> ads · this search paid 2 calls ($0.02) · 0 from cache (free)"
    )
    assert len(shown(search.table)) == n
    assert search.ledger.value == client.ledger._repr_html_()
    assert (
        ">2</td><td style='text-align:left;padding:2px 12px 2px 0;line-height:1.35'>$0.02 spent</td>"
        in (search.ledger.value)
    )
    assert search.button.disabled is False

    search.button.click()  # the same search again: served from the cache
    assert (sandbox.charges, client.ledger.paid_calls, client.ledger.cached_calls) == (2, 2, 2)
    assert (
        search.status.value
        == f"<b>{n}</b> ads · this search paid 0 calls ($0.00) · 2 from cache (free)"
    )
    assert search.ledger.value == client.ledger._repr_html_()


def test_filters_reach_the_service(sandbox: Sandbox, client: sf.Client) -> None:
    search = ad_search(client)
    search.query.value = "  coffee "
    search.country.value = " us "
    search.active_status.value = "active"
    search.button.click()
    assert [dict(r.params) for r in sandbox.requests] == [
        {"query": "coffee", "country": "US", "activeStatus": "Active"}
    ]
    assert sandbox.charges == 1 and len(search.results) > 0
    assert set(search.results["query"]) == {"coffee"}


@pytest.mark.parametrize(
    ("query", "country", "message"),
    [
        ("", "", "Query is empty"),
        ("   ", "", "Query is empty"),
        (
            "coffee",
            "USA",
            "Country must be an ISO-3166 alpha-2 code such as &#x27;US&#x27;",
        ),
    ],
)
def test_bad_input_shows_a_message_and_costs_nothing(
    sandbox: Sandbox, client: sf.Client, query: str, country: str, message: str
) -> None:
    search = ad_search(client, pages=3)
    search.query.value, search.country.value = query, country
    search.button.click()
    assert search.status.value.startswith(f"<span style='color:#b00020'>{message}")
    assert "Traceback" not in search.status.value
    assert (sandbox.charges, len(sandbox.requests), client.ledger.paid_calls) == (0, 0, 0)
    assert search.results is None and shown(search.table) == []
    assert search.ledger.value == client.ledger._repr_html_()
    assert search.button.disabled is False


def test_budget_error_shows_what_was_fetched(sandbox: Sandbox, tmp_path: Path) -> None:
    with sandbox.client(cache=tmp_path / "c.sqlite", progress=None, max_cost=0.01) as client:
        search = ad_search(client, pages=3)
        search.query.value = "for kids"
        search.button.click()
        assert client.progress is None  # silenced for the search only
    with (
        Sandbox(seed=0, clock=PinnedClock()) as other,
        other.client(cache=False, progress=False) as reference,
    ):
        first_page = reference.search_ads("for kids", active_status="all", max_pages=1)
    assert sandbox.charges == 1
    assert search.status.value.startswith(
        "<span style='color:#b00020'>Stopped by the client's budget"
    )
    assert search.status.value.endswith(
        f"<br>Showing the {len(first_page)} ads fetched before the stop (in <code>.results</code>)."
    )
    assert search.results["ad_archive_id"].tolist() == first_page["ad_archive_id"].tolist()
    assert len(shown(search.table)) == len(first_page)
    assert (
        ">1</td><td style='text-align:left;padding:2px 12px 2px 0;line-height:1.35'>$0.01 spent</td>"
        in (search.ledger.value)
    )


def test_the_button_offers_what_the_budget_has_left_and_a_stop_says_where_the_rows_are(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    with sandbox.client(cache=tmp_path / "c.sqlite", progress=False, max_cost=0.02) as client:
        search = ad_search(client, pages=5)
        # $0.05 of pages, $0.02 left: the button says the most it can cost is $0.02
        assert search.button.description == "Search (at most $0.02, what the budget has left)"
        search.pages.value = 1
        assert search.button.description == "Search (at most $0.01)"
        search.pages.value = 5
        search.query.value = "for kids"
        search.button.click()  # two pages paid, the third refused
        said = html.unescape(re.sub(r"<[^>]+>", "", search.status.value))
        assert sandbox.charges == 2
        # the widget's words: the rows are in .results (the widget user never had
        # error.partial), and how to go on, with the client they gave it
        assert "error.partial" not in said and "partial" not in said
        assert said.startswith(
            "Stopped by the client's budget: the next call would take the spend over max_cost"
            " $0.02 (spent $0.02), so it was not sent. To go on, raise client.max_cost"
        )
        assert said.endswith(
            f"Showing the {len(search.results)} ads fetched before the stop (in .results)."
        )
        assert len(search.results) > 26
        # the budget is spent: the button says so (cached pages are still free)
        assert search.button.description == "Search (cached pages only: the budget is spent)"
        client.max_cost = 0.05
        search.pages.value = 4
        assert search.button.description == "Search (at most $0.03, what the budget has left)"


def test_max_ads_says_that_0_means_no_limit(client: sf.Client) -> None:
    search = ad_search(client)
    assert search.max_ads.value == 0
    assert search.max_ads.description == "Max ads (0: no limit)"


def test_search_results_are_escaped(client: sf.Client) -> None:
    search = ad_search(client)
    search.query.value = "for kids"
    search.button.click()
    texts = search.results["body_text"].dropna()
    assert texts.str.contains("<", regex=False).any() or texts.str.contains("&", regex=False).any()
    bodies = [r["body_text"] for r in shown(search.table)]
    for text in texts:
        assert html.escape(text) in bodies


# -- what a browser showed (issue 10) --------------------------------------------------------------


def test_status_choices_are_the_librarys_words_passed_as_they_are(
    sandbox: Sandbox, client: sf.Client
) -> None:
    search = ad_search(client)
    # search_ads' own words (active_status="all" / "active" / "inactive"), not "any"
    assert search.active_status.options == ("all", "active", "inactive")
    # (the words search_ads takes for it, as its signature says them)
    status = get_type_hints(sf.Client.search_ads)["active_status"]
    words = next(get_args(kind) for kind in get_args(status) if get_args(kind))
    assert set(search.active_status.options) == set(words)
    # A Dropdown whose value is None has no selected index: the browser shows it blank.
    assert (search.active_status.index, search.active_status.label) == (0, "all")
    search.query.value = "coffee"
    search.button.click()
    frontend_sets(search.active_status, index=1)  # the browser picks "active"
    assert search.active_status.value == "active"
    search.button.click()
    with sandbox.client(cache=False, progress=False) as same:  # what the library sends
        same.search_ads("coffee", active_status="all", max_pages=1)
    sent = [dict(r.params) for r in sandbox.requests]
    assert sent == [
        {"query": "coffee", "activeStatus": "ALL"},
        {"query": "coffee", "activeStatus": "Active"},
        {"query": "coffee", "activeStatus": "ALL"},
    ]


def test_a_typo_keeps_the_last_results(sandbox: Sandbox, client: sf.Client) -> None:
    search = ad_search(client)
    search.query.value = "coffee"
    search.button.click()
    results, table = search.results, shown(search.table)
    assert len(results) > 0
    search.country.value = "USA"
    search.button.click()
    assert search.results is results and shown(search.table) == table
    assert "socialframe-stale" in search.results_box._dom_classes  # dimmed
    assert search.status.value.startswith("<span style='color:#b00020'>Country must be")
    assert search.status.value.endswith(
        f"<br>Still showing the previous search's {len(results)} ads (dimmed)."
    )
    assert sandbox.charges == 1  # the typo cost nothing


def test_tables_scroll_in_a_box_of_fixed_height(comments: pd.DataFrame, client: sf.Client) -> None:
    for table in (explore_comments(comments).table, ad_search(client).table):
        # one table in a box (DataTables' scrollY would draw the header apart)
        assert "scrollY" not in table._dt_args and "scrollX" not in table._dt_args
        assert "sf-box-420px" in table.classes.split()
        assert f"max-height: {TABLE_HEIGHT}" in table._dt_args["table_style"]


def test_the_price_is_what_the_button_says_and_the_search_pays_no_more(
    sandbox: Sandbox, client: sf.Client
) -> None:
    search = ad_search(client)
    search.query.value = "for kids"
    frontend_sets(search.pages, value=2)  # typed: the label follows at once
    assert search.button.description == "Search (at most $0.02)"
    search.button.click()
    assert sandbox.charges == 2


def test_the_ads_table_links_no_ad_whose_id_was_derived(
    sandbox: Sandbox, client: sf.Client
) -> None:
    from socialframe.sandbox import IDLESS_QUERIES

    search = ad_search(client)
    search.query.value = IDLESS_QUERIES["some"]  # some of its ads come without an id
    search.button.click()
    rows, ads = shown(search.table), search.results
    assert 0 < ads["id_derived"].sum() < len(ads) == len(rows)
    for row, (ad_id, derived) in zip(
        rows, ads[["ad_archive_id", "id_derived"]].values, strict=True
    ):
        if derived:
            assert row["ad_archive_id"] == ad_id and "href" not in row["ad_archive_id"]
        else:
            assert f"href='{AD_LIBRARY}{ad_id}'" in row["ad_archive_id"]


def test_the_ads_table_shows_the_creative_the_library_page_the_site_and_days(
    sandbox: Sandbox, client: sf.Client
) -> None:
    search = ad_search(client)
    search.query.value = "running shoes"
    search.button.click()
    rows = shown(search.table)
    ads = search.results
    assert list(rows[0]) == [
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
    ]
    first = ads.iloc[0]
    assert f"href='{AD_LIBRARY}{first['ad_archive_id']}'" in rows[0]["ad_archive_id"]
    assert rows[0]["start_date"] == first["start_date"].strftime("%Y-%m-%d")  # a day
    with_link = [(r, a) for r, a in zip(rows, ads["link_url"], strict=True) if isinstance(a, str)]
    assert with_link and all(">" + host(a) + "</a>" in r["link_url"] for r, a in with_link)
    with_image = [r for r, i in zip(rows, ads["image_urls"], strict=True) if i]
    assert all("<img class='sf-thumb'" in r["image_urls"] for r in with_image)
    assert search.table._dt_args["order"] == []  # as the service ranks them


def test_dates_and_max_ads_reach_the_search(sandbox: Sandbox, client: sf.Client) -> None:
    search = ad_search(client, pages=3)
    search.query.value = "coffee"
    search.after.value, search.before.value = "2025-06-01", "2025-12-31"
    search.max_ads.value = 5
    search.button.click()
    [request] = sandbox.requests
    assert dict(request.params) == {
        "query": "coffee",
        "activeStatus": "ALL",
        "after_time": "2025-06-01",
        "before_time": "2025-12-31",
    }
    assert len(search.results) == 5 and sandbox.charges == 1  # max_ads: one page was enough
    search.after.value = "June 1st"
    search.button.click()
    assert "After must be a date" in search.status.value and sandbox.charges == 1  # said so


def test_date_labels_take_their_own_width(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments, tz="Europe/Berlin")
    for picker in (explorer.start, explorer.end):  # (ISO boxes)
        assert picker.style.description_width == "initial"  # not cut to "From (Eur..."
    assert explorer.start.description == "From (Europe/Berlin)"


def test_the_table_is_newest_first(comments: pd.DataFrame) -> None:
    explorer = explore_comments(comments)
    column = list(explorer.table.df.columns).index("created_at")
    assert explorer.table._dt_args["order"] == [[column, "desc"]]


def test_the_chart_keeps_its_time_range_while_filtering(comments: pd.DataFrame) -> None:
    def chart(frame: pd.DataFrame) -> bytes:
        explorer = explore_comments(frame, tz="Europe/Berlin")
        explorer.start.value = explorer.end.value = "2025-12-20"
        return png_of(explorer.chart.outputs[0])

    drawn = chart(comments)
    local = comments["created_at"].dt.tz_convert("Europe/Berlin")
    one_day = comments[local.dt.strftime("%Y-%m-%d") == "2025-12-20"]
    ends = comments.loc[[local.idxmin(), local.idxmax()]]  # the first and the last day's
    assert not (local[ends.index].dt.strftime("%Y-%m-%d") == "2025-12-20").any()
    # the same comments match; the frame spans the same days: the same chart
    assert drawn == chart(pd.concat([ends, one_day]))
    assert drawn != chart(one_day)  # a frame of that day alone: its own range, one day


def _saved_table(page: str) -> tuple[list[str], list[list[tuple[str, str | None]]]]:
    """A saved output's first table: its header, and each row's cells as (text, link);
    every cell as escaping writes it."""
    table = Table(page.split("</table>")[0])
    assert table.unescaped == [], table.unescaped
    return table.head, [row for row in table.cells if row]


def _ad_cells(ad: Any) -> list[tuple[str, str | None]]:
    """What an ad's row of the ads table shows: its id, its advertiser (linked to the
    page), its link (labelled with its site), whether it runs, its days in UTC, its
    format, its text and its platforms; missing values blank."""

    def text(value: object) -> str:
        return "" if value is None or pd.isna(value) else str(value)  # type: ignore[call-overload]

    def link(url: object, label: str) -> tuple[str, str | None]:
        web = isinstance(url, str) and url.lower().startswith(("https://", "http://"))
        return label, (url if web else None)  # type: ignore[return-value]

    def day(moment: object) -> str:
        return "" if pd.isna(moment) else moment.strftime("%Y-%m-%d")  # type: ignore[attr-defined]

    url = text(ad.link_url)
    platforms = ad.publisher_platforms
    return [
        (text(ad.ad_archive_id), None),
        link(ad.page_profile_uri, text(ad.page_name)),
        link(ad.link_url, host(url) if url else ""),
        ("" if pd.isna(ad.is_active) else "yes" if ad.is_active else "no", None),
        (day(ad.start_date), None),
        (day(ad.end_date), None),
        (text(ad.display_format), None),
        (text(ad.body_text), None),
        (", ".join(map(str, platforms)) if isinstance(platforms, list) else "", None),
    ]


def test_saved_output_is_a_summary_and_the_table_not_a_repr(
    comments: pd.DataFrame, client: sf.Client
) -> None:
    explorer = explore_comments(comments)
    explorer.author_types.value = ("organization",)
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == "CommentExplorer: 337 of 2,345 comments match"
    # the table of the rows that match: as an explorer of those rows alone saves it
    alone = explore_comments(explorer.filtered)._repr_mimebundle_()["text/html"]
    said = "<p><b>CommentExplorer</b>: <b>337</b> of 337 comments match</p>"
    assert alone.startswith(said + "<table")
    assert bundle["text/html"] == (
        "<p><b>CommentExplorer</b>: <b>337</b> of 2,345 comments match</p>"
        + alone.removeprefix(said)
    )
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.model_id

    search = ad_search(client, pages=2)
    assert search._repr_mimebundle_()["text/plain"] == (
        "AdSearch: no search yet; Search (at most $0.02)"
    )
    search.query.value = "for kids"
    search.button.click()
    bundle = search._repr_mimebundle_()
    n = len(search.results)
    assert bundle["text/plain"] == (
        f"AdSearch: {n} ads · this search paid 2 calls ($0.02) · 0 from cache (free)"
    )
    # the results' table, cell for cell: each ad's values as the page's table of ads draws them
    head, rows = _saved_table(bundle["text/html"])
    assert head == ["ad", "advertiser", "link", "active", "start (UTC)", "end (UTC)"] + [
        "format",
        "text",
        "platforms",
    ]
    assert n > 0 and rows == [_ad_cells(ad) for ad in search.results.itertuples()]
    assert search.ledger.value in bundle["text/html"]
    assert "AdSearch(" not in bundle["text/plain"]


def test_ads_picked_in_the_table_reach_python(client: sf.Client) -> None:
    search = ad_search(client)
    assert search.selected.empty
    search.query.value = "coffee"
    search.button.click()
    frontend_sets(search.table, selected_rows=[1, 3])
    pd.testing.assert_frame_equal(search.selected, search.results.iloc[[1, 3]])
    search.button.click()  # a new search: nothing picked among its rows yet
    assert search.table.selected_rows == [] and search.selected.empty
