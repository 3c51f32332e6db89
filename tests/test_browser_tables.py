"""Every interactive table we build, in JupyterLab in Chromium, fed hostile text.

``sf.show``, ``df.social.show()`` on comments and on ads, the comment explorer, the ad
search widget (its results, served by the sandbox) and the notebook's display of a
frame of ours are drawn with the payloads of ``tests/hostile.py`` in every text
column, in a column's name and in a caption; then each payload is typed into each
table's search box. Nothing may run: no dialog opens, ``window.__pwned`` stays unset,
no element of the tables carries an event attribute or comes from a payload; and each
search keeps exactly the rows that hold its words, as DataTables' smart search says.

The "Download CSV" button is then checked cell by cell, and, where LibreOffice is
installed, opened by it: no cell is a formula, every cell shows its text.

The harness (JupyterLab on a free port, the system's Chromium) is
``tests/test_browser.py``'s; its notes on what must be installed hold here too.
"""

from __future__ import annotations

import csv
import html
import io
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hostile
import pandas as pd
import pytest
import test_browser as harness

import socialframe as sf

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# the harness's fixtures, shared (each module starts its own JupyterLab)
requirements = harness.requirements
lab = harness.lab
browser = harness.browser
shots = harness.shots

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page of the browser whose dialogs are counted (and dismissed: an open dialog
    would stop the page), with the messages in ``page.dialogs``."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 1800}, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(harness.STEP_TIMEOUT_MS)
    expect.set_options(timeout=harness.STEP_TIMEOUT_MS)  # (expect()'s own default: 5 s)
    page.dialogs = []

    def opened(dialog: Any) -> None:
        page.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", opened)
    try:
        yield page
    finally:
        context.close()


def _notebook(folder: Path, name: str, cells: list[str]) -> str:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, folder / name)
    return name


_SETUP = (
    "import sys\n"
    f"sys.path.insert(0, {str(TESTS)!r})\n"
    "import hostile\n"
    "import socialframe as sf\n"
    "from socialframe.sandbox import PinnedClock, Sandbox\n"
    "from socialframe.widgets import ad_search, explore_comments\n"
    "plain, comments, ads = hostile.plain_frame(), hostile.comments_frame(), hostile.ads_frame()"
)

#: The tables, by the source of the cell that draws each.
_TABLES = {
    "sf.show": "sf.show(plain, caption=hostile.NAME)",
    "comments": "comments.social.show()",
    "ads": "ads.social.show()",
    "explorer": "explore_comments(comments)",
    "ad search": (
        "sandbox = Sandbox(seed=0, clock=PinnedClock())\n"
        "client = sandbox.client(in_process=True, cache=False, progress=False)\n"
        "sandbox.inject(hostile.ads_body())  # the service's answer, hostile\n"
        "search = ad_search(client)\n"
        "search.query.value = hostile.QUERY\n"
        "search"
    ),
    "notebook": "comments.head(12)  # the notebook's display of a frame of ours",
}

_SETTLE = """() => new Promise(done => {
    // an image that fails to load, as the payloads' do: once its error is handled,
    // theirs (started before) have been too; then a little more for the slow ones
    const image = new Image();
    image.onerror = image.onload = () => setTimeout(done, 500);
    image.src = 'x?settle=' + Math.random();
})"""

_INJECTED = """() => {
    const events = [];
    for (const element of document.querySelectorAll('*')) {
        for (const attribute of element.attributes) {
            if (attribute.name.toLowerCase().startsWith('on')) {
                events.push(element.outerHTML.slice(0, 160));
            }
        }
    }
    const cells = '.dt-container td *, .dt-container th *, .dt-container caption *,'
        + ' table.socialframe td *, table.socialframe th *';
    const active = ['IMG', 'SVG', 'IFRAME', 'SCRIPT', 'DETAILS', 'INPUT', 'OBJECT', 'EMBED',
        'VIDEO', 'AUDIO', 'BASE', 'META', 'LINK', 'STYLE', 'FORM', 'BUTTON', 'MATH', 'TEXTAREA'];
    const elements = [...document.querySelectorAll(cells)]
        .filter(e => active.includes(e.tagName.toUpperCase()))
        .filter(e => !(e.tagName === 'IMG' && e.classList.contains('sf-thumb')
                       && /^https?:$/.test(new URL(e.src).protocol)))
        .map(e => e.outerHTML.slice(0, 160));
    const elsewhere = [...document.querySelectorAll(
        '[srcdoc], img[src="x"], img[src$="/x"], details[open] svg, script:not([src])')]
        .filter(e => e.tagName !== 'SCRIPT' || e.textContent.includes('__pwned'))
        .map(e => e.outerHTML.slice(0, 160));
    const links = [...document.querySelectorAll(
        '.dt-container a[href], table.socialframe a[href]')]
        .filter(a => !/^https?:$/.test(a.protocol))
        .map(a => a.outerHTML.slice(0, 160));
    return {events, elements, elsewhere, links, pwned: window.__pwned === undefined ? null : String(window.__pwned)};
}"""

_EMPTY = {"events": [], "elements": [], "elsewhere": [], "links": [], "pwned": None}


def _settled(page: Any) -> dict[str, Any]:
    page.evaluate(_SETTLE)
    found: dict[str, Any] = page.evaluate(_INJECTED)
    return found


def _shown_rows(frame: pd.DataFrame, names: list[str]) -> list[list[str]]:
    """The plain text of each row's cells of ``names``, as the table's search sees it."""
    shown = sf.show(frame).df  # the cells the table is sent
    keys = {html.unescape(key): key for key in shown.columns}
    chosen = shown[[keys[name] for name in names]]
    return [[_plain(cell) for cell in row] for row in chosen.itertuples(index=False)]


#: Line breaks and tabs, as they travel in a cell.
_BREAKS = {"\x1e": "\n", "\x1d": "\t", "\x1c": "\r"}


def _plain(cell: str) -> str:
    """What a search sees of a cell as it travels (``display <US> sort <US> plain...``,
    each part escaped): its plain part, or its one part, as the table's render function
    hands it over, decoded."""
    for travel, back in _BREAKS.items():
        cell = cell.replace(travel, back)
    parts = cell.split("\x1f")
    return html.unescape(parts[2] if len(parts) >= 3 else parts[0])


def _search_terms() -> list[str]:
    return [*hostile.PAYLOADS, "<img", "&lt;", "&amp;lt;", "&#60;", "Q&A <svg", "onerror"]


#: Typed into each table's search box a key at a time, as a person does; the other terms
#: are put into the same box at once, each with the ``input`` event DataTables searches
#: on (its client-side search draws as the event is handled: no delay to wait out), in
#: one round trip a table: 145 searches typed took a minute.
_TYPED = 2

_SEARCH_AT_ONCE = """(box, terms) => {
    const info = box.closest('.dt-container').querySelector('.dt-info');
    const put = (text) => {
        box.value = text;
        box.dispatchEvent(new Event('input', {bubbles: true}));
    };
    return terms.map((term) => {
        put('');
        const cleared = info.textContent;
        put(term);
        return [cleared, info.textContent, box.value];
    });
}"""


def _search_each(container: Any, rows: list[list[str]], label: str) -> None:
    """Search each payload in the table's search box: the rows kept are the rows that
    hold its words (nothing runs: the caller checks). The first :data:`_TYPED` terms
    are typed (DataTables searches as each key is handled, so the count shown after
    the last key is the term's), the rest put into the box (:data:`_SEARCH_AT_ONCE`)."""
    from playwright.sync_api import expect

    box = container.locator(".dt-search input")
    info = container.locator(".dt-info")
    total = len(rows)

    def shown(expected: int) -> str:
        if expected < total:
            return f" of {expected:,} entries (filtered from {total:,} total entries)"
        return f" of {total:,} entries"

    terms = _search_terms()
    for term in terms:
        # each payload is in each table (a search leaves out the quotes in its words)
        assert hostile.matches(rows, term) >= 1 or '"' in term, (label, term)
    for term in terms[:_TYPED]:
        box.fill("")
        expect(info).not_to_contain_text("filtered")
        box.fill(term[:-3])
        box.press_sequentially(term[-3:])
        expect(info).to_contain_text(shown(hostile.matches(rows, term)))
        if hostile.matches(rows, term) == total:
            expect(info).not_to_contain_text("filtered")
        assert box.input_value() == term, (label, term)
    answers = box.evaluate(_SEARCH_AT_ONCE, terms[_TYPED:])
    for term, (cleared, said, kept) in zip(terms[_TYPED:], answers, strict=True):
        expected = hostile.matches(rows, term)
        assert "filtered" not in cleared, (label, term, cleared)
        assert shown(expected) in said, (label, term, said)
        assert expected < total or "filtered" not in said, (label, term, said)
        assert kept == term, (label, term)
    box.fill("")
    expect(info).not_to_contain_text("filtered")


def _hostile_ads() -> pd.DataFrame:
    """The ads the widget's search gets from the sandbox, fetched the same way here."""
    from socialframe.sandbox import PinnedClock, Sandbox

    sandbox = Sandbox(seed=0, clock=PinnedClock())
    sandbox.inject(hostile.ads_body())
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        return client.search_ads(hostile.QUERY)


def test_no_text_of_the_service_runs_in_any_table(lab: Any, page: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    notebook = _notebook(lab.folder, "hostile.ipynb", [_SETUP, *_TABLES.values()])
    harness.run_all(lab, page, notebook)
    containers = {
        label: harness.cell_output(page, source.splitlines()[0]).locator(".dt-container")
        for label, source in _TABLES.items()
        if label != "notebook"
    }
    for container in containers.values():
        expect(container.locator(".dt-info")).to_be_visible()
    # the ad search's results come from a click, as a person gets them
    search = harness.cell_output(page, "search = ad_search(client)")
    search.locator("button", has_text="Search").click()
    expect(search.locator(".socialframe-status")).to_contain_text("ads · this search paid")
    display = harness.cell_output(page, "comments.head(12)").locator("table.socialframe")
    expect(display).to_be_visible()

    found = _settled(page)
    page.screenshot(path=str(shots / "hostile-drawn.png"))
    assert page.dialogs == [] and found == _EMPTY, (page.dialogs, found)

    frames = {
        "sf.show": hostile.plain_frame(),
        "comments": hostile.comments_frame(),
        "ads": hostile.ads_frame(),
        "explorer": hostile.comments_frame(),
        "ad search": _hostile_ads(),
    }
    for label, container in containers.items():
        container.scroll_into_view_if_needed()
        names = [
            t.strip() for t in container.locator("thead th .dt-column-title").all_text_contents()
        ]
        _search_each(container, _shown_rows(frames[label], names), label)
        found = _settled(page)
        assert page.dialogs == [] and found == _EMPTY, (label, page.dialogs, found)
    page.screenshot(path=str(shots / "hostile-searched.png"))
    # the payloads are on the page, as text
    cells = containers["sf.show"].locator("tbody td").all_text_contents()
    assert hostile.PAYLOADS[1] in cells and hostile.PAYLOADS[-1] in cells
    assert hostile.NAME in display.locator("thead th").all_text_contents()


#: Tables drawn with options a caller passes through ``sf.show(..., **options)``, by the
#: first line of each cell: extensions that read a cell's data as it travels, not
#: through the render function (RowGroup puts it into the page as HTML), a caller's
#: ``columnDefs`` (which took the render away: DataTables then showed the data as it
#: travels), and those that list the cells or the names (SearchPanes, SearchBuilder,
#: the column visibility button).
_PASSED = {
    "columnDefs": "sf.show(plain, columnDefs=[{'width': '12em', 'targets': [0, 1]}])",
    "rowGroup": "sf.show(plain, rowGroup={'dataSrc': 0})",
    "searchPanes": (
        "sf.show(plain, layout={'top1': 'searchPanes'},"
        " searchPanes={'threshold': 1, 'initCollapsed': False, 'columns': [0, 2]})"
    ),
    "searchBuilder": "sf.show(plain, layout={'top1': 'searchBuilder'})",
    "colvis": "sf.show(plain, buttons=['colvis'], layout={'top2Start': 'buttons'})",
}


def test_options_a_caller_passes_keep_every_text_text(lab: Any, page: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    notebook = _notebook(lab.folder, "passed.ipynb", [_SETUP, *_PASSED.values()])
    harness.run_all(lab, page, notebook)
    containers = {
        label: harness.cell_output(page, source).locator(".dt-container").first
        for label, source in _PASSED.items()
    }
    for container in containers.values():
        expect(container.locator(".dt-info").last).to_be_visible()
    builder = containers["searchBuilder"]
    builder.locator(".dtsb-add").click()  # a condition on the column named by a payload
    builder.locator("select.dtsb-data").select_option(index=3)  # (its title, n, then it)
    builder.locator("select.dtsb-condition").select_option(index=1)
    expect(builder.locator("select.dtsb-value option")).not_to_have_count(0)
    containers["colvis"].locator("button", has_text="Column visibility").click()
    expect(page.locator(".dt-button-collection")).to_be_visible()
    panes = containers["searchPanes"].locator(".dtsp-searchPane tbody tr")
    expect(panes.first).to_be_visible()
    page.screenshot(path=str(shots / "passed-drawn.png"))
    found = _settled(page)
    assert page.dialogs == [] and found == _EMPTY, (page.dialogs, found)
    panes.first.click()  # a pane's choice filters the table
    expect(containers["searchPanes"].locator(".dt-info").last).to_contain_text("filtered")
    found = _settled(page)
    assert page.dialogs == [] and found == _EMPTY, (page.dialogs, found)
    # the payloads are on the page, as text: in the cells and in RowGroup's group rows
    cells = containers["columnDefs"].locator("tbody td").all_text_contents()
    assert hostile.PAYLOADS[0] in cells and hostile.PAYLOADS[-1] in cells
    groups = containers["rowGroup"].locator("tbody tr.dtrg-group").all_text_contents()
    assert hostile.PAYLOADS[0] in groups


# -- the CSV download ---------------------------------------------------------------------

#: What a spreadsheet takes for the start of a formula (OWASP: = + - @ tab CR; NUL).
RISKY = "=+\\-@\t\r\x00"


def _safe(text: str) -> str:
    """A zero-width space where a spreadsheet reading with another separator (, ; space
    tab), trimming spaces or cutting at a line break would start a formula; a ' before
    a formula."""
    text = re.sub(f"([,; \t\r\n])(?=\u200b*'*[{RISKY}])", "\\1\u200b", text)
    return "'" + text if re.match(f"'*[{RISKY}]", text) else text


def _download(page: Any, container: Any) -> str:
    with page.expect_download() as download:
        container.locator("button", has_text="Download CSV").click()
    return Path(download.value.path()).read_bytes().decode("utf-8")


def test_the_csv_download_is_the_data_and_no_formula(
    lab: Any, page: Any, shots: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    frame = hostile.csv_frame()
    notebook = _notebook(
        lab.folder, "download.ipynb", [_SETUP, "table = sf.show(hostile.csv_frame())\ntable"]
    )
    harness.run_all(lab, page, notebook)
    container = harness.cell_output(page, "table = sf.show(").locator(".dt-container")
    expect(container.locator(".dt-info")).to_contain_text(f"of {len(frame)} entries")
    text = _download(page, container)

    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    assert rows[0] == [_safe(name) for name in frame.columns]
    assert len(rows) == len(frame) + 1
    for i, row in enumerate(rows[1:]):
        source = frame.iloc[i]
        assert row == [
            _safe(source["text"]),
            str(source["count"]),  # numbers stay numbers: -5, not '-5
            str(float(source["share"])),
            _safe(source["=SUM(1;2)"]),
            _safe(source["<b>name</b> & more"]),
            _safe(source["total;=SUM(1)"]),
        ], (i, row)
    assert text.startswith("\ufeff")  # UTF-8, to a spreadsheet too
    title = container.locator("button", has_text="Download CSV").get_attribute("title")
    assert "formula" in (title or ""), title  # the tooltip says so
    assert page.dialogs == []

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        return  # (the CSV is checked above; a spreadsheet's reading needs LibreOffice)
    _as_a_spreadsheet_shows_it(soffice, text, rows, tmp_path)


def _as_a_spreadsheet_shows_it(
    soffice: str, text: str, rows: list[list[str]], folder: Path
) -> None:
    """LibreOffice (headless) opens the CSV, with formulas evaluated as it does by
    default, and saves it as .xlsx: no cell is a formula, each shows its text (a line
    break as LF, as a spreadsheet keeps it) or its number."""
    import openpyxl

    source = folder / "download.csv"
    source.write_text(text, encoding="utf-8", newline="")
    # comma, double quotes, UTF-8, from line 1; ... formulas evaluated (the 13th)
    options = "CSV:44,34,76,1,,0,false,false,false,false,false,-1,true"
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation=file://{folder / 'profile'}",
            "--headless",
            f"--infilter={options}",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(folder),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    sheet = openpyxl.load_workbook(folder / "download.xlsx").active
    shown = [[(c.data_type, c.value) for c in row] for row in sheet.iter_rows()]
    assert len(shown) == len(rows)
    for row, cells in zip(rows, shown, strict=True):
        for written, (kind, value) in zip(row, cells + [("n", None)] * len(row), strict=False):
            assert kind != "f", (written, value)  # no formula
            if re.fullmatch(r"-?\d+(\.\d+)?", written):
                assert value == float(written), (written, value)
            else:
                expected = written.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
                assert (value or "") == expected, (written, value)


# -- headers over their columns -----------------------------------------------------------

_ALIGNED = [
    "import socialframe as sf\n"
    "from socialframe.sandbox import PinnedClock, Sandbox, example_ads, example_comments\n"
    "from socialframe.widgets import ad_search, explore_comments\n"
    "comments, ads = example_comments(2345), example_ads()",
    "sf.show(comments)",
    "ads.social.show()",
    "explore_comments(comments)",
    "sandbox = Sandbox(seed=0, clock=PinnedClock())\n"
    "client = sandbox.client(in_process=True, cache=False, progress=False)\n"
    "search = ad_search(client)\n"
    "search.query.value = 'running shoes'\n"
    "search",
    "comments.head(8)",
]

#: The DataTables tables, by the first line of the cell that draws each.
_LAID_OUT = {
    "show": "sf.show(comments)",
    "ads": "ads.social.show()",
    "explorer": "explore_comments(comments)",
    "search": "search = ad_search(client)",
}

# The header's cells and the first row's, where a person sees them: the first header
# in the table's box (DataTables' scrolling draws it as a table of its own) and the
# first row of the body; left edges, and the right edge of the last.
_EDGES = """(box) => {
    const head = box.querySelector('thead');
    const row = box.querySelector('tbody tr');
    const edges = cells => {
        const boxes = [...cells].map(c => c.getBoundingClientRect());
        return [...boxes.map(b => b.left), boxes.length ? boxes[boxes.length - 1].right : 0];
    };
    return {
        names: [...head.rows[0].cells].map(c => c.textContent.trim()),
        head: edges(head.rows[0].cells),
        body: row ? edges(row.cells) : [],
        // a cell whose text runs on under the next columns' headers
        spilled: row ? [...row.cells].filter(c => c.scrollWidth > c.clientWidth + 2)
            .map(c => c.cellIndex) : [],
    };
}"""

# After a scroll, DataTables moves its separate header on the scroll event: two frames.
_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def _misaligned(page: Any, table: Any) -> list[tuple[str, float]]:
    """The columns whose header stands more than 2 px from its cells, with how far, and
    those whose first cell's text runs on past it (under the next column's header)."""
    page.evaluate(_FRAMES)
    edges = table.evaluate(_EDGES)
    assert len(edges["head"]) == len(edges["body"]) > 2, edges
    names = [*edges["names"], "(right edge)"]
    off = [
        (name, round(head - body, 1))
        for name, head, body in zip(names, edges["head"], edges["body"], strict=True)
        if abs(head - body) > 2
    ]
    return off + [(f"{names[i]} (its text runs past it)", 0.0) for i in edges["spilled"]]


def _scroll_right(page: Any, container: Any) -> None:
    container.evaluate(
        "c => { const box = c.querySelector('div.dt-layout-table > div, .dt-scroll-body')"
        " || c.closest('.jp-OutputArea-output'); box.scrollLeft = box.scrollWidth; }"
    )


#: The states of a table pictured whatever its headers do (a person looks at these two a
#: table); any other state is pictured when its headers are off their columns. Every
#: state is measured.
_PICTURED = ("drawn", "scrolled-right")


@pytest.mark.parametrize("width", [800, 1800])
def test_headers_stand_over_their_columns(lab: Any, browser: Any, shots: Path, width: int) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": 1400}, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(harness.STEP_TIMEOUT_MS)
    expect.set_options(timeout=harness.STEP_TIMEOUT_MS)  # (expect()'s own default: 5 s)
    try:
        notebook = _notebook(lab.folder, f"aligned-{width}.ipynb", _ALIGNED)
        harness.run_all(lab, page, notebook)
        containers = {
            label: harness.cell_output(page, source).locator(".dt-container")
            for label, source in _LAID_OUT.items()
        }
        search = harness.cell_output(page, "search = ad_search(client)")
        search.locator("button", has_text="Search").click()
        expect(search.locator(".socialframe-status")).to_contain_text("this search paid")
        display = harness.cell_output(page, "comments.head(8)").locator("table.socialframe")
        wrong: dict[str, list[tuple[str, float]]] = {}

        def check(label: str, state: str, table: Any, seen: Any = None) -> None:
            table.scroll_into_view_if_needed()
            off = _misaligned(page, table)
            if off:
                wrong[f"{label}, {state}"] = off
            if off or state in _PICTURED:
                # (what a person sees of it: a table wider than the page, in its box)
                shot = shots / f"aligned-{width}-{label}-{state}.png"
                (seen or table).screenshot(path=str(shot))

        for label, container in containers.items():
            expect(container.locator(".dt-info")).to_contain_text("entries")
            check(label, "drawn", container)
        output = harness.cell_output(page, "comments.head(8)")
        check("notebook", "drawn", display, output)
        for label, container in containers.items():
            _scroll_right(page, container)
            check(label, "scrolled-right", container)
            following = container.locator("button.dt-paging-button.next")
            if "disabled" not in (following.get_attribute("class") or ""):
                info = container.locator(".dt-info").inner_text()
                following.click()
                expect(container.locator(".dt-info")).not_to_have_text(info)
                check(label, "next-page", container)
            container.locator(".dt-search input").press_sequentially("an")
            expect(container.locator(".dt-info")).to_contain_text("filtered from")
            check(label, "searched", container)
            header = container.locator("thead th").nth(2)
            header.scroll_into_view_if_needed()
            header.click()
            expect(header).to_have_attribute("class", re.compile("dt-ordering-(asc|desc)"))
            check(label, "sorted", container)
        # the explorer's own filter draws its table again
        explorer = harness.cell_output(page, "explore_comments(comments)")
        explorer.locator(".widget-text", has_text="Text").locator("input").fill("thanks")
        count = explorer.locator(".socialframe-count")
        expect(count).not_to_contain_text("2,345 of")
        matched = int(re.sub(r"\D", "", count.inner_text().split(" of ")[0]))
        info = containers["explorer"].locator(".dt-info")
        expect(info).to_contain_text(f" of {matched:,} entries")  # drawn again, unsearched
        expect(info).not_to_contain_text("filtered")
        check("explorer", "filtered", containers["explorer"])
        _scroll_right(page, display)
        check("notebook", "scrolled-right", display, output)
        assert wrong == {}, "headers off their columns:\n" + "\n".join(
            f"{where}: {len(off)} columns, up to {max(abs(d) for _, d in off):,} px ({off[:3]}...)"
            for where, off in wrong.items()
        )
    finally:
        context.close()
