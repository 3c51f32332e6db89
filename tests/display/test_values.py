"""One way to show each kind of value, in every display: every frame the analysis returns,
shown in a notebook (a real kernel's), in an interactive table and in a report, and every
date of an ad, wherever it is shown. The rules themselves are socialframe._display.values'."""

from __future__ import annotations

import html
import inspect
import os
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from samples import Table

import socialframe as sf
from socialframe._display import report, values
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox
from socialframe.widgets import ad_search

DAY = re.compile(r"\d{4}-\d\d-\d\d")
MINUTE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d")
DURATION = re.compile(r"-?\d+[dhms]( \d+[hms])?")
NUMBER = re.compile(r"-?\d{1,3}(,\d{3})*(\.(\d+))?(%?)|-?inf|nan")

#: The columns of an ad's days (its run, and an advertiser's or a campaign's): days.
AD_DAYS = frozenset({"start_date", "end_date", "first_start", "last_end"})


def share_columns(frame: pd.DataFrame) -> frozenset[object]:
    """The columns of ``frame`` holding shares, as the displays are told them: fractions
    (floats) named ``share`` or ``*_share``, or every one of share_of_voice(share=True)."""
    every = frame.attrs.get("socialframe") == "ads.share_of_voice.shares"
    return frozenset(
        name
        for name, dtype in frame.dtypes.items()
        if pd.api.types.is_float_dtype(dtype)
        and (every or (isinstance(name, str) and (name == "share" or name.endswith("_share"))))
    )


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The six example posts' comments and the "running shoes" ads of the US (some
    with spend), as of the sandbox's reference day."""
    sandbox = Sandbox(clock=ManualClock())
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        comments = client.post_comments(list(EXAMPLE_POSTS.values()))
        ads = client.search_ads("running shoes", country="US")
    return comments, ads


#: Every method of ``df.social`` that returns a frame, called as a user would.
COMMENT_CALLS: dict[str, Callable[[Any], pd.DataFrame]] = {
    "activity": lambda s: s.activity("1D", by="author_type", tz="Europe/Berlin"),
    "authors": lambda s: s.authors(),
    "top_authors": lambda s: s.top_authors(10),
    "organizations": lambda s: s.organizations(),
    "people": lambda s: s.people(),
    "threads": lambda s: s.threads(),
    "filter": lambda s: s.filter("organization"),
    "summary": lambda s: s.summary(tz="Europe/Berlin"),
    "terms": lambda s: s.terms("word", top=10),
    "overlap": lambda s: s.overlap(min_posts=2),
    "overlap_matrix": lambda s: s.overlap_matrix(),
    "response_times": lambda s: s.response_times(),
}
AD_CALLS: dict[str, Callable[[Any], pd.DataFrame]] = {
    "by_page": lambda s: s.by_page(),
    "active_on": lambda s: s.active_on("2025-06-01"),
    "campaigns": lambda s: s.campaigns(),
    "share_of_voice": lambda s: s.share_of_voice("ME", top=5),
    "spend": lambda s: s.spend(),
}
MORE: dict[str, Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]] = {
    "response_times per post": lambda c, a: c.social.response_times(per="post"),
    "share_of_voice shares": lambda c, a: a.social.share_of_voice("ME", top=5, share=True),
    "comments": lambda c, a: c,
    "ads": lambda c, a: a,
}


def _frame_methods(accessor: type) -> set[str]:
    return {
        name
        for name, method in inspect.getmembers(accessor, inspect.isfunction)
        if not name.startswith(("_", "fetch_"))
        and inspect.signature(method).return_annotation == "pd.DataFrame"
    }


def test_every_analysis_frame_is_checked() -> None:
    """A new analysis method is a frame these rules must be checked on."""
    # (df.social of a frame holding the columns of comments, of ads)
    assert _frame_methods(type(pd.DataFrame(columns=sf.COMMENT_COLUMNS).social)) == set(
        COMMENT_CALLS
    )
    assert _frame_methods(type(pd.DataFrame(columns=sf.AD_COLUMNS).social)) == set(AD_CALLS)


def every_frame(data: tuple[pd.DataFrame, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    comments, ads = data
    frames = {f"comments.{n}": call(comments.social) for n, call in COMMENT_CALLS.items()}
    frames |= {f"ads.{n}": call(ads.social) for n, call in AD_CALLS.items()}
    frames |= {name: call(comments, ads) for name, call in MORE.items()}
    return frames


# -- what each display shows: {column: [the text of each cell]} ------------------------------


class Kernel:
    """A real IPython kernel, as a notebook's, that imported socialframe: it shows a frame
    (handed over as a pickle, its marks kept) as the notebook would."""

    def __init__(self, folder: Path) -> None:
        from jupyter_client.manager import start_new_kernel

        self.folder = folder
        cache = str(folder / "cache")
        self.manager, self.client = start_new_kernel(
            kernel_name="python3", env={**os.environ, "SOCIALFRAME_CACHE_DIR": cache}
        )
        self.run("import pandas as pd\nimport socialframe")

    def run(self, code: str) -> list[dict[str, Any]]:
        said: list[dict[str, Any]] = []
        reply = self.client.execute_interactive(code, output_hook=said.append, timeout=120)
        assert reply["content"]["status"] == "ok", reply["content"]
        return said

    def html(self, frame: pd.DataFrame) -> str:
        """The HTML the notebook shows for ``frame`` (all its rows and columns); showing
        it must leave the frame as it was (checked in the kernel, on the frame shown)."""
        path = self.folder / f"{uuid.uuid4().hex}.pkl"
        frame.to_pickle(path)
        said = self.run(
            f"frame = pd.read_pickle({str(path)!r})\n"
            "before = frame.copy(deep=True)\n"
            "with pd.option_context('display.max_rows', 10_000, 'display.max_columns', 1_000):\n"
            "    display(frame)\n"
            "pd.testing.assert_frame_equal(frame, before)  # (shown, not changed)"
        )
        [page] = [
            m["content"]["data"]["text/html"] for m in said if m["msg_type"] == "display_data"
        ]
        return str(page)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


Shown = Callable[[pd.DataFrame], dict[str, list[str]]]


@pytest.fixture(scope="module")
def in_a_notebook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shown]:
    """Each column as a notebook shows it, the index as the first (its name over it)."""
    kernel = Kernel(tmp_path_factory.mktemp("kernel"))

    def shown(frame: pd.DataFrame) -> dict[str, list[str]]:
        table = Table(kernel.html(frame).split("<p>")[0])
        names = [frame.index.name or "", *table.head[1 : len(table.rows[0])]] if table.rows else []
        return {name: [row[i] for row in table.rows] for i, name in enumerate(names)}

    yield shown
    kernel.close()


def in_a_table(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Each column as an interactive table shows it (its cells' display part)."""
    shown = sf.show(frame).df  # the cells sent to the page: display <US> sort <US> ...
    return {
        html.unescape(re.sub(r"<[^>]+>", "", str(name))): [
            html.unescape(re.sub(r"<[^>]+>", "", str(c).split("\x1f")[0])) if c else ""
            for c in shown[name]
        ]
        for name in shown.columns
    }


def in_a_report(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Each column as a report's table shows it, by its column's name."""
    flat = frame.reset_index() if frame.index.name is not None else frame
    table = Table(report.table_html(flat, tz="UTC"))
    names = {report.header(name): str(name) for name in flat.columns}
    return {names.get(h, h): [row[i] for row in table.rows] for i, h in enumerate(table.head)}


DISPLAYS = ("notebook", "table", "report")


@pytest.fixture(scope="module")
def displays(in_a_notebook: Shown) -> dict[str, Shown]:
    return {"notebook": in_a_notebook, "table": in_a_table, "report": in_a_report}


def _source(frame: pd.DataFrame, name: str) -> pd.Series | None:
    """The column (or named index) shown under ``name``, if it is one."""
    if name in frame.columns:
        column = frame[name]
        return column if isinstance(column, pd.Series) else None
    if name and name in (frame.index.names or []):
        return pd.Series(frame.index.get_level_values(name), name=name)
    return None


def _form(text: str) -> tuple[int, bool]:
    """A number's form: its decimals, and whether it is a percentage."""
    found = NUMBER.fullmatch(text)
    assert found, f"{text!r} is not a number as the displays show numbers"
    return len(found.group(3) or ""), found.group(4) == "%"


@pytest.mark.parametrize("display", DISPLAYS)
def test_every_analysis_frame_shows_each_kind_of_value_one_way(
    data: tuple[pd.DataFrame, pd.DataFrame], displays: dict[str, Shown], display: str
) -> None:
    """Numbers: one format per column, shares as percentages; flags yes / no; times to
    the minute, never seconds (an ad's dates, and periods of whole days, as days);
    durations in their two largest units."""
    checked = 0
    for what, frame in every_frame(data).items():
        shares = share_columns(frame)
        shown = displays[display](frame)
        for name, cells in shown.items():
            column = _source(frame, name)
            given = [c for c in cells if c not in ("", "<NA>")]
            if column is None or not given:
                continue
            where = f"{display}: {what}[{name!r}] shows {sorted(set(given))[:6]}"
            dtype = column.dtype
            if pd.api.types.is_bool_dtype(dtype):
                assert set(given) <= {"yes", "no"}, where
            elif isinstance(dtype, pd.DatetimeTZDtype):
                forms = {
                    "day" if DAY.fullmatch(c) else "minute" if MINUTE.fullmatch(c) else c
                    for c in given
                }
                assert forms in ({"day"}, {"minute"}), where
                if name in AD_DAYS:
                    assert forms == {"day"}, where
            elif pd.api.types.is_timedelta64_dtype(dtype):
                assert all(DURATION.fullmatch(c) for c in given), where
            elif pd.api.types.is_numeric_dtype(dtype):
                forms = {_form(c) for c in given}
                assert len(forms) == 1, where  # one format per column
                [(decimals, percent)] = forms
                if column.name in shares:
                    assert (decimals, percent) == (1, True), where  # a share: 14.0%
                else:
                    assert not percent, where
                if pd.api.types.is_integer_dtype(dtype):
                    assert decimals == 0, where
            checked += 1
    assert checked > 150  # (the check reached the frames' columns)


def test_the_numbers_the_issue_saw(
    data: tuple[pd.DataFrame, pd.DataFrame], in_a_notebook: Shown
) -> None:
    """spend() showed 1,000 beside 100.0 in one column; summary() showed a share as 0.0,
    0.14 and 0.157."""
    comments, ads = data
    money = in_a_notebook(ads.social.spend())
    assert {"1,000", "100"} <= set(money["spend_lower"]) and "100.0" not in money["spend_lower"]
    shares = in_a_notebook(comments.social.summary())["organization_share"]
    assert shares[:3] == ["0.0%", "14.0%", "15.7%"]
    report = in_a_report(comments.social.summary())["organization_share"]
    assert report == shares


# -- an ad's dates: days, everywhere ---------------------------------------------------------


def _ad_dates(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c in AD_DAYS]


def test_an_ads_dates_are_days_in_every_display(
    data: tuple[pd.DataFrame, pd.DataFrame], displays: dict[str, Shown], tmp_path: Path
) -> None:
    _, ads = data
    assert (ads["start_date"].dt.hour == 16).any()  # the service's days come at 16:00 UTC
    frames = {
        "ads": ads,
        "by_page": ads.social.by_page(),
        "campaigns": ads.social.campaigns(),
        "active_on": ads.social.active_on("2025-06-01"),
    }
    for what, frame in frames.items():
        assert _ad_dates(frame), what
        for display, show in displays.items():
            shown = show(frame)
            for name in _ad_dates(frame):
                given = [c for c in shown[name] if c]
                assert given and all(DAY.fullmatch(c) for c in given), (display, what, name)
    # the widget's table (where a widget cannot be drawn): the ad search's saved output
    sandbox = Sandbox(clock=ManualClock())
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        search = ad_search(client, pages=10)
        search.query.value, search.country.value = "running shoes", "US"
        search.button.click()
    assert search.results is not None and len(search.results) == len(ads)  # the same ads
    saved = search._repr_mimebundle_()["text/html"]
    page = Table(saved.split("</table>")[0])  # (the ledger's table after it)
    assert len(page.rows) == len(ads)
    for title in ("start (UTC)", "end (UTC)"):
        column = page.head.index(title)
        assert all(DAY.fullmatch(row[column]) for row in page.rows if row[column])
    # both reports: the header's span, and every table
    report = ads.social.report(tmp_path / "ads.html")
    text = report.read_text(encoding="utf-8")
    started = re.search(r"<dt>Started</dt><dd>([^<]*)</dd>", text)
    assert started is not None
    assert re.fullmatch(r"\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(UTC\)", started.group(1))
    for block in text.split("<div class='table'>")[1:]:
        table = Table(block.split("</div>")[0])
        for title in ("First start", "Last end", "Started", "Ended"):
            if title in table.head:
                column = table.head.index(title)
                assert all(DAY.fullmatch(row[column]) for row in table.rows if row[column]), title


def test_a_comments_report_says_its_span_as_a_range(
    data: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    comments, _ = data
    text = comments.social.report(tmp_path / "c.html", tz="Europe/Berlin").read_text("utf-8")
    written = re.search(r"<dt>Written</dt><dd>([^<]*)</dd>", text)
    assert written is not None and re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d \(Europe/Berlin\)",
        written.group(1),
    )


# -- the rules, one by one ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        (pd.Series([1000.0, 100.0, None], dtype="Float64"), ["1,000", "100", ""]),
        (pd.Series([0.5, 12.25, 1234.5]), ["0.50", "12.25", "1,234.50"]),
        (pd.Series([0.012, 0.5]), ["0.012", "0.500"]),
        (pd.Series([3, 1234], dtype="int64"), ["3", "1,234"]),
        (pd.Series([True, False, None], dtype="boolean"), ["yes", "no", ""]),
        (pd.Series(pd.to_timedelta(["20:14:59", "3 days 01:00:00"])), ["20h 14m", "3d 1h"]),
    ],
)
def test_a_column_has_one_format(given: pd.Series, shown: list[str]) -> None:
    found = values.texts("x", given)
    assert found is not None and found[0] == shown


def test_money_shows_cents_and_shares_percentages() -> None:
    assert values.texts("cost_usd", pd.Series([0.0, 1.0, 0.47]))[0] == ["0.00", "1.00", "0.47"]  # type: ignore[index]
    shares = pd.Series([0.0, 0.14, 0.157], dtype="Float64")
    assert values.texts("organization_share", shares, share=True)[0] == ["0.0%", "14.0%", "15.7%"]  # type: ignore[index]


def test_moments_are_minutes_even_at_midnight_and_periods_are_days() -> None:
    midnight = pd.Series(pd.to_datetime(["2026-01-03 00:00", "2026-01-04 00:00"], utc=True))
    assert values.texts("created_at", midnight)[0] == ["2026-01-03 00:00", "2026-01-04 00:00"]  # type: ignore[index]
    assert values.texts("period", midnight)[0] == ["2026-01-03", "2026-01-04"]  # type: ignore[index]
    berlin = midnight.dt.tz_convert("Europe/Berlin").dt.floor("D")  # Berlin's days
    assert values.texts("period", berlin, tz="UTC")[0] == ["2026-01-03", "2026-01-04"]  # type: ignore[index]
    seconds = pd.Series(pd.to_datetime(["2026-01-03 09:30:12.345678"], utc=True))
    assert values.texts("added_at", seconds)[0] == ["2026-01-03 09:30"]  # type: ignore[index]


def test_an_ads_date_is_its_day_in_utc_whatever_the_zone() -> None:
    start = pd.Series(pd.to_datetime(["2024-01-11 16:00"], utc=True))
    for tz in ("UTC", "Asia/Tokyo", "America/Los_Angeles"):
        for name in AD_DAYS:
            assert values.texts(name, start, tz=tz)[0] == ["2024-01-11"]  # type: ignore[index]


def test_posts_are_labelled_by_the_end_of_their_id_as_long_as_it_takes() -> None:
    assert values.post_labels(["urn:li:activity:7384427202391592960", "7384427202391592965"]) == [
        "…592960",
        "…592965",
    ]
    near = ["urn:li:activity:7384427202391592960", "urn:li:activity:7384427202390592960"]
    assert values.post_labels(near) == ["…1592960", "…0592960"]
    url = "https://www.linkedin.com/feed/update/urn:li:activity:7384427202391592965/"
    assert values.post_labels([url, None]) == ["…592965", "<NA>"]


def test_share_of_voice_shares_show_as_percentages_in_a_notebook(
    data: tuple[pd.DataFrame, pd.DataFrame], in_a_notebook: Shown
) -> None:
    _, ads = data
    shares = ads.social.share_of_voice("ME", top=3, share=True)
    assert all(str(t) == "Float64" for t in shares.dtypes)  # fractions in the data
    shown = in_a_notebook(shares.tail(2).round(2))  # (a rounding keeps what it is)
    assert all(c.endswith("%") for name in shown if name != "period" for c in shown[name])
    assert all(DAY.fullmatch(c) for c in shown["period"])
    counts = in_a_notebook(ads.social.share_of_voice("ME", top=3))
    assert not any(c.endswith("%") for name in counts if name != "period" for c in counts[name])


def test_the_data_is_not_changed(
    data: tuple[pd.DataFrame, pd.DataFrame], in_a_notebook: Shown
) -> None:
    comments, _ = data
    summary = comments.social.summary()
    before = summary.copy()
    in_a_notebook(summary), in_a_table(summary), in_a_report(summary)
    pd.testing.assert_frame_equal(summary, before)
    assert summary["organization_share"].max() < 1  # a fraction, not a percentage
