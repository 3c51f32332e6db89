"""The notebooks and their widgets in a real browser: JupyterLab and Chromium, driven by Playwright.

The test starts JupyterLab on a free loopback port with a token, in a private
folder holding copies of the notebooks (JupyterLab saves checkpoints and may save
outputs: never into the repository), with its own kernel spec (this venv's
Python), settings (no news, no update checks: no network) and cache folder.
Chromium is the system's (``/usr/bin/chromium``; Playwright's own browser
download is not used). Each notebook is opened and run whole, then checked: no
error output, nothing on stderr, no "Error displaying widget"; the widgets are
then used as a person would (a filter changes the count, the pages box changes
the button's price, a click on Search shows the ads and the ledger).

Screenshots go to a folder printed at the end of the run (``SOCIALFRAME_SCREENSHOTS``
chooses it). Without Chromium, JupyterLab or Playwright the tests skip, saying
how to install them; under ``CI=true`` (``.ci/run`` installs them) they fail.
Deselect them for a quick local run: ``pytest -m "not browser"``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
INSTALL = (
    "needs Chromium, JupyterLab and Playwright: apt-get install chromium fonts-noto-core"
    ' fonts-noto-cjk fonts-noto-color-emoji (Debian/Ubuntu), then pip install -e ".[test]"'
)
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RUN_TIMEOUT_MS = 240_000  # a bound on a notebook's run on a busy machine, not a speed check
STEP_TIMEOUT_MS = 60_000


def _chromium() -> str | None:
    """The system's Chromium (``SOCIALFRAME_CHROMIUM`` names another one)."""
    chosen = os.environ.get("SOCIALFRAME_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    return shutil.which("chromium") or shutil.which("chromium", path="/usr/bin")


def _missing(modules: tuple[str, ...] = ("jupyterlab", "playwright")) -> list[str]:
    missing = [] if _chromium() else ["chromium"]
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    return missing


def chromium_or_skip(modules: tuple[str, ...] = ("jupyterlab", "playwright")) -> str:
    """The system's Chromium, when it and ``modules`` are installed; else the test skips
    saying how to get them (and fails under ``CI=true``, where they must be)."""
    missing = _missing(modules)
    if missing:
        message = f"{', '.join(missing)} missing: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"on CI: {message}")
        pytest.skip(message)
    chromium = _chromium()
    assert chromium is not None
    return chromium


@pytest.fixture(scope="module")
def requirements() -> str:
    return chromium_or_skip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Lab:
    url: str
    token: str
    folder: Path
    log: Path

    def open(self, page: Any, notebook: str) -> None:
        # ?reset: a fresh workspace, not the tabs an earlier test left open
        page.goto(f"{self.url}/lab/tree/{notebook}?reset&token={self.token}")


def _settings(folder: Path) -> Path:
    """JupyterLab user settings: no news feed, no update check, no toasts over the page."""
    settings = folder / "settings"
    notification = settings / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True})
    )
    return settings


@pytest.fixture(scope="module")
def lab(requirements: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    home = tmp_path_factory.mktemp("lab")
    work = home / "notebooks"
    work.mkdir()
    for notebook in NOTEBOOKS:
        shutil.copy(notebook, work / notebook.name)
    data = home / "data"
    kernel = data / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(  # this venv's Python, whatever else is installed
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
            }
        )
    )
    config = home / "config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "LabApp": {
                    "news_url": None,
                    "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
                    "extension_manager": "readonly",
                    "expose_app_in_browser": True,
                },
            }
        )
    )
    token = os.urandom(16).hex()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MPLBACKEND"))}
    env.update(
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_DATA_DIR=str(data),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(_settings(home)),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        SOCIALFRAME_CACHE_DIR=str(home / "cache"),  # the kernels' cache: the test's own
        TMPDIR=str(home / "tmp"),  # the notebooks' temporary folders (exports, reports) too
    )
    (home / "tmp").mkdir()
    log = home / "jupyterlab.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={token}",
                f"--ServerApp.root_dir={work}",
                *(["--allow-root"] if os.geteuid() == 0 else []),  # CI runs as root
            ],
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(server, f"{url}/api/status?token={token}", log)
        yield Lab(url, token, work, log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _wait_for(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited ({server.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def shots(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    chosen = os.environ.get("SOCIALFRAME_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    yield folder
    names = ", ".join(sorted(p.name for p in folder.glob("*.png")))
    said = f"browser screenshots in {folder}: {names}"
    worker = getattr(request.config, "workeroutput", None)
    if worker is not None:  # a worker of pytest -n prints nothing: tests/conftest.py does
        worker.setdefault("screenshots", []).append(said)
        return
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else _nothing():
        print(f"\n{said}")


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.fixture(scope="module")
def browser(requirements: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=requirements, args=LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    # Tall enough that a whole widget fits: JupyterLab scrolls the notebook inside the
    # page, so an element screenshot shows only what is in the notebook's view.
    context = browser.new_context(viewport={"width": 1280, "height": 1800}, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    # (and every expect(): its own default, 5 s, is shorter than a busy machine's kernel
    # takes to answer a click; a bound, not a speed check)
    from playwright.sync_api import expect

    expect.set_options(timeout=STEP_TIMEOUT_MS)
    try:
        yield page
    finally:
        context.close()


# -- running a notebook -----------------------------------------------------------------------

# The notebook's panel, found by its path (not whichever tab has the focus).
_PANEL = """(path) => {
    const app = window.jupyterapp;
    if (!app) return null;
    for (const widget of app.shell.widgets('main')) {
        if (widget.context && widget.context.path === path && widget.content) return widget;
    }
    return null;
}"""

_READY = f"""(path) => {{
    const panel = ({_PANEL})(path);
    if (!panel || !panel.context.isReady) return false;
    const session = panel.sessionContext.session;
    return !!(session && session.kernel && session.kernel.status === 'idle');
}}"""

_RUN = f"""(path) => {{
    const panel = ({_PANEL})(path);
    window.jupyterapp.shell.activateById(panel.id);
    return window.jupyterapp.commands.execute('notebook:run-all-cells');
}}"""

_DONE = f"""(path) => {{
    const panel = ({_PANEL})(path);
    const session = panel.sessionContext.session;
    if (!session || !session.kernel || session.kernel.status !== 'idle') return false;
    const cells = panel.content.widgets.filter(c => c.model.type === 'code');
    return cells.every(c => c.model.executionCount !== null
        && !c.node.querySelector('.jp-InputArea-prompt').textContent.includes('*'));
}}"""

_OUTPUTS = f"""(path) => {{
    const panel = ({_PANEL})(path);
    return panel.content.widgets.filter(c => c.model.type === 'code').map(c => ({{
        source: c.model.sharedModel.getSource(),
        count: c.model.executionCount,
        outputs: c.model.outputs.toJSON(),
    }}));
}}"""


_TOP = f"""(path) => {{
    const panel = ({_PANEL})(path);
    panel.content.activeCellIndex = 0;
    const outer = panel.content.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node;
    outer.scrollTop = 0;
}}"""


def run_all(lab: Lab, page: Any, notebook: str) -> list[dict[str, Any]]:
    """Open ``notebook``, run every cell, wait for the kernel; return each code cell's outputs."""
    lab.open(page, notebook)
    page.wait_for_function(_READY, arg=notebook, timeout=RUN_TIMEOUT_MS)
    page.evaluate(_RUN, notebook)
    page.wait_for_function(_DONE, arg=notebook, timeout=RUN_TIMEOUT_MS, polling=500)
    cells: list[dict[str, Any]] = page.evaluate(_OUTPUTS, notebook)
    page.evaluate(_TOP, notebook)
    problems = [
        (cell["source"][:60], output)
        for cell in cells
        for output in cell["outputs"]
        if output["output_type"] == "error"
        or (output["output_type"] == "stream" and output.get("name") == "stderr")
    ]
    assert problems == [], problems
    assert all(cell["count"] for cell in cells)
    text = page.inner_text("body")
    assert "Error displaying widget" not in text
    assert "Traceback" not in text
    return cells


def cell_output(page: Any, source: str) -> Any:
    """The output area of the one code cell whose source contains ``source``."""
    cells = page.locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea", has_text=source))
    assert cells.count() == 1, f"expected one cell containing {source!r}"
    return cells.locator(".jp-Cell-outputArea")


def _mime(cells: list[dict[str, Any]], source: str, kind: str) -> list[str]:
    return [
        "".join(out.get("data", {}).get(kind, ""))
        for cell in cells
        if source in cell["source"]
        for out in cell["outputs"]
    ]


# -- the notebooks ----------------------------------------------------------------------------


def test_quickstart_runs_in_the_browser(lab: Lab, page: Any, shots: Path) -> None:
    cells = run_all(lab, page, "01-quickstart.ipynb")
    assert any("$0.07 spent" in text for text in _mime(cells, "client.ledger", "text/html"))
    page.screenshot(path=str(shots / "01-quickstart.png"))
    ledger = cell_output(page, "client.ledger.reset()")
    ledger.scroll_into_view_if_needed()
    ledger.screenshot(path=str(shots / "01-quickstart-ledger.png"))


def test_comment_explorer_in_the_browser(lab: Lab, page: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    cells = run_all(lab, page, "02-comment-activity.ipynb")
    page.screenshot(path=str(shots / "02-comment-activity.png"))
    output = cell_output(page, "explore_comments(comments")
    explorer = output.locator(".socialframe-comment-explorer")
    expect(explorer).to_be_visible()
    count = explorer.locator(".socialframe-count")
    expect(count).to_have_text("2,478 of 2,478 comments match")
    # the fallback a saved notebook keeps: a summary and the table, not a widget repr
    [plain] = _mime(cells, "explore_comments(comments", "text/plain")
    assert plain.startswith("CommentExplorer: 2,478 of 2,478 comments match")
    explorer.screenshot(path=str(shots / "02-explorer-start.png"))

    # At most the scroll box's height: a page of 200 rows does not stretch the notebook.
    box = output.bounding_box()
    assert box is not None and box["height"] < 1500, box
    info = explorer.locator(".dt-info")
    expect(info).to_have_text("Showing 1 to 200 of 2,478 entries")

    # One click on a toggle: people off, organisations only (no Ctrl-click).
    explorer.locator(".widget-toggle-button", has_text="person").click()
    expect(count).not_to_have_text("2,478 of 2,478 comments match")
    orgs = int(re.sub(r"\D", "", count.inner_text().split(" of ")[0]))
    assert 0 < orgs < 2478
    expect(info).to_contain_text(f"of {orgs:,} entries")
    # and text, filtered as it is typed (no Enter)
    text = explorer.locator(".widget-text", has_text="Text").locator("input")
    text.press_sequentially("thanks", delay=40)
    expect(count).not_to_contain_text(f"{orgs:,} of")
    thanked = int(re.sub(r"\D", "", count.inner_text().split(" of ")[0]))
    assert 0 < thanked < orgs
    expect(info).to_contain_text(f"of {thanked:,} entries")
    assert "Error displaying widget" not in page.inner_text("body")
    explorer.screenshot(path=str(shots / "02-explorer-filtered.png"))
    labels = explorer.locator(".widget-text .widget-label", has_text="From")
    for label in labels.all():  # "From (Europe/Berlin)" in full, not "From (Eur..."
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), label.inner_text()
    # ISO days, whatever the browser's locale; a start after the end is said in words
    start = explorer.locator(".widget-text", has_text="From").locator("input")
    end = explorer.locator(".widget-text", has_text="To (").locator("input")
    assert start.get_attribute("placeholder") == "YYYY-MM-DD"
    start.fill("2025-12-10")
    start.press("Enter")
    end.fill("2025-12-01")
    end.press("Enter")
    expect(count).to_contain_text("Start (2025-12-10) is later than end (2025-12-01)")
    stale = explorer.locator(".socialframe-stale")
    expect(stale).to_have_count(1)
    assert stale.evaluate("e => getComputedStyle(e).opacity") == "0.45"  # dimmed
    explorer.screenshot(path=str(shots / "02-explorer-stale.png"))
    end.fill("")
    end.press("Enter")
    expect(stale).to_have_count(0)
    # the day range under the chart follows the boxes
    slider = explorer.locator(".widget-hslider", has_text="Days")
    expect(slider).to_contain_text("2025-12-10-2026-01-01")
    # and a range dragged on it filters the table, the boxes following
    start.fill("")
    start.press("Enter")
    expect(slider).to_contain_text("2025-11-02-2026-01-01")
    before = count.inner_text()
    handle = slider.locator(".noUi-handle").first
    box = handle.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 250, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    expect(start).not_to_have_value("")
    dragged = start.input_value()
    assert re.fullmatch(r"2025-1[12]-\d\d", dragged), dragged
    expect(count).not_to_have_text(before)
    expect(slider).to_contain_text(f"{dragged}-2026-01-01")
    matching = int(re.sub(r"\D", "", count.inner_text().split(" of ")[0]))
    expect(info).to_contain_text(f"of {matching:,} entries")  # the table follows
    explorer.screenshot(path=str(shots / "02-explorer-dragged.png"))


def test_ad_search_in_the_browser(lab: Lab, page: Any, shots: Path) -> None:
    from playwright.sync_api import expect

    run_all(lab, page, "03-ad-research.ipynb")
    page.screenshot(path=str(shots / "03-ad-research.png"))
    output = cell_output(page, "ad_search(client")
    search = output.locator(".socialframe-ad-search")
    expect(search).to_be_visible()
    status = search.locator(".widget-dropdown select")
    assert (
        status.evaluate("e => e.options[e.selectedIndex] && e.options[e.selectedIndex].text")
        == "all"  # the library's own words (active_status="all")
    )
    search.screenshot(path=str(shots / "03-search-start.png"))

    pages = search.locator(".widget-inline-hbox", has_text="Pages").locator("input")
    button = search.locator("button", has_text="Search")
    pages.select_text()
    pages.press_sequentially("12", delay=40)  # no Tab pressed
    expect(button).to_have_text("Search (at most $0.12)")
    pages.press("Backspace")
    pages.press("Backspace")
    pages.press_sequentially("3", delay=40)  # the price follows every keystroke
    expect(button).to_have_text("Search (at most $0.03)")

    ledger = search.locator(".socialframe-ledger")
    paid_before = _paid(ledger)
    query = search.locator(".widget-text", has_text="Query").locator("input")
    query.fill("yoga mats")  # a search the notebook did not make: it is paid
    search.locator(".widget-text", has_text="Country").locator("input").fill("US")
    button.click()
    summary = search.locator(".socialframe-status")
    expect(summary).to_contain_text("ads · this search paid", timeout=STEP_TIMEOUT_MS)
    found = int(re.sub(r"\D", "", summary.inner_text().split(" ads")[0]))
    assert found > 0
    assert "this search paid 3 calls ($0.03) · 0 from cache (free)" in summary.inner_text()
    table = search.locator(".dt-container")
    info = table.locator(".dt-info")
    expect(info).to_contain_text(f"of {found:,} entries")
    expect(ledger).to_contain_text(f"${(paid_before + 3) / 100:.2f} spent")
    assert _paid(ledger) == paid_before + 3
    head = table.locator("thead th")
    assert [h.strip() for h in head.all_inner_texts()][:4] == [
        "image_urls",
        "ad_archive_id",
        "page_name",
        "link_url",
    ]
    first = table.locator("tbody tr").first
    library = first.locator("td").nth(1).locator("a")
    assert library.get_attribute("href").startswith("https://www.facebook.com/ads/library/?id=")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", first.locator("td").nth(5).inner_text())  # a day
    # the table scrolls sideways in its own box: nothing is out of reach
    scroll = table.locator("div.dt-layout-table > div")
    assert scroll.evaluate("b => getComputedStyle(b).overflowX") == "auto"
    search.screenshot(path=str(shots / "03-search-results.png"))

    # A typo says so and keeps the last results.
    country = search.locator(".widget-text", has_text="Country").locator("input")
    country.fill("USA")
    button.click()
    expect(summary).to_contain_text("Country must be")
    expect(info).to_contain_text(f"of {found:,} entries")
    stale = search.locator(".socialframe-stale")
    expect(stale).to_have_count(1)  # the old results, dimmed
    assert _paid(ledger) == paid_before + 3  # the typo cost nothing
    search.screenshot(path=str(shots / "03-search-typo.png"))
    assert "Error displaying widget" not in page.inner_text("body")


def _paid(ledger: Any) -> int:
    """The ledger table's count of paid calls, as the page shows it."""
    row = ledger.locator("tr", has_text="paid").first.inner_text()
    return int(row.split()[1])


# -- the interactive table --------------------------------------------------------------------

_TABLE_NOTEBOOK = [
    "import ipywidgets\n"
    "import socialframe as sf\n"
    "from socialframe.sandbox import example_comments\n"
    "comments = example_comments(2345)",
    "table = sf.show(comments)\n"
    "picked = ipywidgets.Label(value='none')\n"
    "picked.add_class('picked')\n"
    "def said(change):\n"
    "    picked.value = ' '.join(comments.iloc[change['new']]['comment_id'])\n"
    "table.observe(said, 'selected_rows')\n"
    "ipywidgets.VBox([table, picked])",
]


def _table_notebook(folder: Path) -> str:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in _TABLE_NOTEBOOK]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, folder / "table.ipynb")
    return "table.ipynb"


def test_the_interactive_table_in_the_browser(lab: Lab, page: Any, shots: Path) -> None:
    """sf.show: sort, search as you type, pages, selection back in Python, CSV download;
    the service's text shown as text, never run."""
    import pandas as pd
    from playwright.sync_api import expect

    from socialframe.sandbox import example_comments

    comments = example_comments(2345)
    run_all(lab, page, _table_notebook(lab.folder))
    output = cell_output(page, "table = sf.show(comments)")
    container = output.locator(".dt-container")
    expect(container).to_be_visible()
    info = container.locator(".dt-info")
    expect(info).to_have_text("Showing 1 to 25 of 2,345 entries")
    rows = container.locator("tbody tr")
    expect(rows).to_have_count(25)
    head = container.locator("thead th")
    headers = [h.strip() for h in head.all_inner_texts()]
    assert headers[:6] == [
        "post_urn", "comment_id", "id_derived", "parent_comment_id", "is_reply", "created_at"
    ]  # fmt: skip
    # newest first, to the minute
    newest = comments["created_at"].max().strftime("%Y-%m-%d %H:%M")
    assert rows.first.locator("td").nth(headers.index("created_at")).inner_text() == newest
    # the post shown short, whole on hover
    post = rows.first.locator("td").first
    assert post.inner_text().startswith("…") and len(post.inner_text()) == 7
    assert post.locator("span").get_attribute("title") == comments["post_urn"].iloc[0]
    page.screenshot(path=str(shots / "table-start.png"))

    # pages
    container.locator(".dt-paging button", has_text="›").first.click()
    expect(info).to_have_text("Showing 26 to 50 of 2,345 entries")

    # sort by followers, largest first (two clicks: up, then down)
    followers = head.filter(has_text="author_followers")
    body = container.locator("div.dt-layout-table > div")  # (the table's box)
    followers.evaluate("th => th.scrollIntoView()")  # (header and body scroll as one)
    body.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    followers.click()
    followers.click()
    top = int(comments["author_followers"].max())
    column = headers.index("author_followers")
    expect(rows.first.locator("td").nth(column)).to_have_text(f"{top:,}")

    # search as you type: the <script> comments, shown as text
    search = container.locator(".dt-search input")
    search.press_sequentially("<script>", delay=30)
    scripts = int(comments["text"].str.contains("<script>", regex=False).sum())
    expect(info).to_have_text(
        f"Showing 1 to {scripts} of {scripts} entries (filtered from 2,345 total entries)"
    )
    text = headers.index("text")
    assert all("<script>" in t for t in rows.locator(f"td:nth-child({text + 1})").all_inner_texts())
    assert page.evaluate("() => window.__socialframe_ran === undefined")
    page.screenshot(path=str(shots / "table-searched.png"))

    # select two rows: their comments reach Python
    rows.nth(0).click()
    rows.nth(1).click(modifiers=["Control"])
    ids = [rows.nth(i).locator("td").nth(1).inner_text() for i in (0, 1)]
    picked = output.locator(".picked")
    expect(picked).to_have_text(re.compile(r"\d+ \d+"))
    assert sorted(picked.inner_text().split()) == sorted(ids)

    # download what the search left, in the order shown, with the data as it is
    with page.expect_download() as download:
        container.locator("button", has_text="Download CSV").click()
    saved = pd.read_csv(download.value.path(), dtype=str)
    assert len(saved) == scripts and set(saved["comment_id"]) == set(
        comments.loc[comments["text"].str.contains("<script>", regex=False), "comment_id"]
    )
    assert saved["post_urn"].iloc[0] == comments["post_urn"].iloc[0]  # whole, not short
    assert saved["permalink"].str.startswith("https://").all()  # the URL, not the site
    assert "Error displaying widget" not in page.inner_text("body")
