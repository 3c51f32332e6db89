"""Every notebook in notebooks/ runs top to bottom in a real Jupyter kernel, offline.

The notebooks are the documentation people read, so they are executed as users
run them: nbclient starts an ipykernel, the kernel starts its own sandbox, and
each cell must finish without an error or a warning. The kernel inherits
``os.environ``, so the cache goes to the test's own folder, and its working
directory is ``tmp_path`` (exports land there, not in the repository).
(mwouts/itables ``tests/test_documentation_notebooks_run.py``)
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from socialframe.sandbox import EXAMPLE_POSTS

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 60  # seconds; a cell against the sandbox takes well under one


def _text(cell: Any) -> str:
    """Everything a code cell showed: streams, and the plain text and HTML of its results."""
    parts: list[str] = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        data = output.get("data", {})
        parts.extend(data.get(kind, "") for kind in ("text/plain", "text/html"))
    return "\n".join(parts)


def _cell(nb: Any, source: str, *, exact: bool = False) -> Any:
    """The one code cell whose source is (or contains) ``source``."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    found = [c for c in code if (c.source == source if exact else source in c.source)]
    assert len(found) == 1, f"expected one cell containing {source!r}, found {len(found)}"
    return found[0]


def _html_of(cell: Any) -> str:
    """The HTML of the one rich result a cell displayed (a DataFrame's table)."""
    [page] = [o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})]
    return str(page)


def _table(cell: Any) -> list[list[str]]:
    """The rows of the HTML table a cell displayed last: index first, then each cell's text.

    Parsed from the HTML, not the plain text, whose columns pandas wraps at the
    kernel's display width.
    """
    body = _html_of(cell).split("<tbody>", 1)[1]
    return [
        [
            html.unescape(re.sub(r"<[^>]+>", "", c).strip())  # (a link: its text)
            for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


def _header(cell: Any) -> list[str]:
    """The column names of the HTML table a cell displayed last (its first header row)."""
    head = re.search(r"<thead>\s*<tr[^>]*>(.*?)</tr>", _html_of(cell), re.S)
    assert head is not None
    return [html.unescape(c.strip()) for c in re.findall(r"<th[^>]*>(.*?)</th>", head[1], re.S)]


def _images(nb: Any) -> int:
    return sum(
        "image/png" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def check_quickstart(nb: Any, cwd: Path) -> None:
    first = _text(_cell(nb, "comments = client.post_comments(post)"))
    assert "author_type" in first and "text" in first
    assert "$0.07 spent" in _text(_cell(nb, "client.ledger", exact=True))  # 2 comment + 5 ad pages
    rerun = _text(_cell(nb, "client.ledger.reset()"))
    assert "True" in rerun  # the cached frame equals the paid one
    assert "$0.00 spent" in rerun and "$0.02 saved" in rerun
    budget = _text(_cell(nb, "max_cost=0.05"))
    assert "250 of 2,345 comments; paid 5 calls ($0.05)" in budget


def check_comment_activity(nb: Any, cwd: Path) -> None:
    per_post = _text(_cell(nb, "posts.social.fetch_comments"))
    for total in (82, 51, 2345):  # one row per post, as the notebook spelled it
        assert re.search(rf"{EXAMPLE_POSTS[total]}/?\s+{total}$", per_post, re.MULTILINE)
    # 2 + 2 + 47 pages of 50 comments: the ledger covers the whole pipeline
    assert "paid 51 calls ($0.51)" in _text(_cell(nb, "print(client.ledger)"))
    assert "people," in _text(_cell(nb, "comments.social.people()"))
    assert "+01:00" in _text(_cell(nb, "social.activity("))  # days cut in Berlin time
    assert "replies" in _text(_cell(nb, "comments.social.threads()"))
    assert _images(nb) >= 1
    # What a saved notebook shows without the widget: a summary and the table, not a repr.
    explorer = _text(_cell(nb, "explore_comments(comments"))
    assert explorer.startswith("CommentExplorer: 2,478 of 2,478 comments match\n")
    assert "<table class='socialframe-table'>" in explorer and "CommentExplorer(" not in explorer
    # The report goes to a fresh temporary folder, printed; removed whatever the checks say.
    report = Path(_text(_cell(nb, "social.report(")).splitlines()[0])
    assert report.parent.name.startswith("socialframe-report-")
    assert not report.is_relative_to(cwd)
    try:
        check_across_posts(nb, report)
    finally:
        shutil.rmtree(report.parent)


def check_across_posts(nb: Any, report: Path) -> None:
    """The many-post cells of notebook 02: the six example posts in one frame, the report."""
    # a post without comments has no rows; the others keep the order they were given in
    order = [total for total in EXAMPLE_POSTS if total > 0]
    fetched = _text(_cell(nb, "everything = client.post_comments("))
    assert (
        f"{sum(EXAMPLE_POSTS):,} comments on {len(order)} of {len(EXAMPLE_POSTS)} posts" in fetched
    )
    # the three posts fetched above come from the cache; 0, 1 and 50 comments: a page each
    assert "paid 54 calls ($0.54) · cached 51 ($0.51 saved)" in fetched

    summary = _cell(nb, "everything.social.summary(")
    # (post_urn says what post says: shown once, the post short, whole on hover)
    assert _header(summary)[1:5] == ["post", "comments", "replies", "authors"]
    assert f"<span title='{EXAMPLE_POSTS[2345]}'>…" in _html_of(summary)
    rows = _table(summary)
    assert [row[1] for row in rows] == ["…" + EXAMPLE_POSTS[t][-6:] for t in order]
    assert [int(row[2].replace(",", "")) for row in rows] == order  # every comment of each post
    biggest = rows[order.index(2345)]
    assert biggest[3:5] == ["485", "1,011"]  # replies, distinct authors

    terms = _text(_cell(nb, 'terms("emoji", top=5)'))
    assert "emoji:   👏 487, 💡 107, 🎉 77, 🔥 20, 🚀 20" in terms
    assert "domains: example.com 97, example.org 23" in terms
    words = [row[1:] for row in _table(_cell(nb, 'terms("emoji", top=5)'))]
    assert words[:3] == [["thanks", "264"], ["last", "213"], ["love", "193"]]
    assert words[-1] == ["pela", "108"]  # Portuguese: not a built-in stop word
    extended = [row[1] for row in _table(_cell(nb, 'stopwords=["pela"]'))]
    assert "pela" not in extended and extended[-1] == "always"
    per_post = _table(_cell(nb, 'by="post_urn"'))
    big = "…" + EXAMPLE_POSTS[2345][-6:]  # (shown short, the whole urn on hover)
    assert [row[1:] for row in per_post if row[1] == big] == [
        [big, "thanks", "249"],
        [big, "last", "198"],
        [big, "love", "183"],
    ]
    assert len({row[1] for row in per_post}) == len(order)

    regulars = _cell(nb, "overlap(min_posts=2)")
    assert "24 authors commented on 2 or more of the posts" in _text(regulars)
    assert _table(regulars)[0][1:5] == ["राहुल Yılmaz", "person", "2", "25"]
    matrix = [
        [int(v.replace(",", "")) for v in row[1:]] for row in _table(_cell(nb, "overlap_matrix()"))
    ]
    assert [matrix[i][i] for i in range(len(matrix))] == [1, 22, 21, 34, 1011]  # = authors
    assert matrix == [list(column) for column in zip(*matrix, strict=True)]  # symmetric
    assert matrix[order.index(2345)] == [1, 6, 8, 8, 1011]
    assert _images(nb) >= 2  # activity and the overlap heatmap

    per_reply = _table(_cell(nb, "response_times().head()"))
    assert per_reply[0][-1] == "20h 14m"  # (the data: 0 days 20:14:40.792, shown as a duration)
    quantiles = _cell(nb, 'response_times(per="post")')
    assert _header(quantiles)[2:4] == ["threads", "replies"]  # (post_urn: said by post)
    counts = [(int(row[2]), int(row[3])) for row in _table(quantiles)]
    assert counts == [(0, 0), (2, 4), (6, 13), (8, 14), (241, 485)]  # replies as in summary
    assert [int(row[3]) for row in rows] == [r for _, r in counts]

    # The report: one file, standing alone, with the many-post sections.
    assert [p.name for p in report.parent.iterdir()] == ["comments.html"]
    assert f"{report.stat().st_size:,} bytes" in _text(_cell(nb, "social.report("))
    page = report.read_text(encoding="utf-8")
    assert "<h1>Comments on the six example posts</h1>" in page
    headings = re.findall(r"<h2>(.*?)</h2>", page)
    assert headings[:2] == ["Activity", "Per post"]
    assert headings[-2:] == ["Shared commenters", "Authors on several posts"]
    assert page.count("data:image/png;base64,") == 2  # activity, overlap heatmap


def check_ad_research(nb: Any, cwd: Path) -> None:
    # The exports go to a fresh temporary folder, printed; not into the working directory.
    exports = Path(_text(_cell(nb, "to_parquet(exports")).splitlines()[0])
    assert exports.name.startswith("socialframe-exports-") and not exports.is_relative_to(cwd)
    try:
        assert "94 ads from" in _text(_cell(nb, 'client.search_ads("running shoes"'))
        assert "ads were running on 2025-06-01" in _text(_cell(nb, "active_on"))
        assert _images(nb) >= 3  # timeline, platforms, share of voice
        check_ad_insights(nb)
        assert "same dtypes after the round trip: True" in _text(_cell(nb, "read_parquet"))
        assert sorted(p.name for p in exports.iterdir()) == [
            "running-shoes.csv",
            "running-shoes.html",
            "running-shoes.parquet",
        ]
        header = (exports / "running-shoes.csv").read_text(encoding="utf-8").splitlines()[0]
        assert header.startswith("ad_archive_id,")
        report = exports / "running-shoes.html"
        shown = _text(_cell(nb, "ads.social.report(")).splitlines()
        assert shown[:2] == [str(report), f"{report.stat().st_size:,} bytes"]
        page = report.read_text(encoding="utf-8")
        assert "<h1>Ads for &quot;running shoes&quot; (US)</h1>" in page  # the title escaped
        headings = re.findall(r"<h2>(.*?)</h2>", page)
        assert headings[:3] == ["Advertisers", "Campaigns", "Share of voice"]
        assert "Spend and impressions" in headings
        assert page.count("data:image/png;base64,") == 3  # share of voice, timeline, platforms
    finally:
        shutil.rmtree(exports)
    assert sorted(p.name for p in cwd.iterdir()) == ["cache"]  # nothing else written there
    search = _text(_cell(nb, "ad_search(client"))
    assert search.startswith("AdSearch: no search yet; Search (at most $0.02)")
    assert "AdSearch(" not in search


def check_ad_insights(nb: Any) -> None:
    """Campaigns, share of voice and spend of the 94 "running shoes" ads."""
    assert "94 ads in 70 campaigns" in _text(_cell(nb, "ads.social.campaigns()"))
    counts = _cell(nb, 'share_of_voice("ME", top=5).tail()')
    leaders = ["RunRight", "Bloom & Co", "Kawaii Kids", "Nordlicht", "Zenfit", "other"]
    assert _header(counts) == ["page_name", *leaders]
    assert _table(counts)[-1] == ["2026-01-01", "18", "12", "8", "5", "5", "22"]  # a month: a day
    shares = _table(_cell(nb, "share=True"))  # fractions, shown as percentages
    assert shares[-1] == ["2026-01-01", "25.7%", "17.1%", "11.4%", "7.1%", "7.1%", "31.4%"]
    assert all(abs(sum(float(v[:-1]) for v in row[1:]) - 100) < 0.3 for row in shares)
    money = _cell(nb, "ads.social.spend()")
    assert "spend reported for 16 of 94 ads, impressions for 55" in _text(money)
    # as a notebook shows it: a missing currency blank, amounts with thousands separators
    assert _table(money)[0][1:6] == ["7169934711356787", "Nordlicht", "", "1,000", "1,499"]


def check_monitoring(nb: Any, cwd: Path) -> None:
    # The study lives in a fresh temporary folder, printed; not in the working directory.
    folder = Path(_text(_cell(nb, "study = sf.Study(")).splitlines()[0])
    try:
        assert folder.name == "brand-watch" and not folder.is_relative_to(cwd)
        assert "paid 57 calls ($0.57)" in _text(_cell(nb, "first = study.refresh(client)"))
        # a week: one or two pages a post, the search's new and running ads; 60 new threads
        # on the big post, whose 12 replies to old threads it cannot see
        assert "paid 11 calls ($0.11) for the week" in _text(_cell(nb, "week1 = study.refresh"))
        week1 = _table(_cell(nb, "week1 = study.refresh"))
        assert [row[3] for row in week1] == ["60", "4", "3", "0", "3"]  # new
        assert [row[8] for row in week1][:4] == ["12", "0", "0", "0"]  # missing
        full = _table(_cell(nb, "full = study.refresh(client, full=True)"))
        assert {row[5] for row in full} == {"yes"}  # every item complete after it (a flag)
        runs = _table(_cell(nb, "runs = study.runs()"))
        assert [row[2] for row in runs] == ["57", "11", "11", "51"]
        assert _images(nb) == 1  # paid calls per refresh
        assert "RunRight" in _text(_cell(nb, "study.sql("))
        assert (folder.parent / "cache.sqlite").is_file()  # its own cache, beside the study
    finally:
        shutil.rmtree(folder.parent)
    assert sorted(p.name for p in cwd.iterdir()) == []  # nothing written there, no cache


CHECKS: dict[str, Callable[[Any, Path], None]] = {
    "01-quickstart.ipynb": check_quickstart,
    "02-comment-activity.ipynb": check_comment_activity,
    "03-ad-research.ipynb": check_ad_research,
    "04-monitoring.ipynb": check_monitoring,
}


def test_the_three_notebooks_are_there() -> None:
    assert [p.name for p in NOTEBOOKS] == sorted(CHECKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_clean(path: Path) -> None:
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert all(c.outputs == [] and c.execution_count is None for c in code), "outputs stored"


def _executed(path: Path, folder: Path) -> Any:
    """The notebook at ``path``, run in a real kernel in ``folder``; raises
    CellExecutionError on the first failing cell."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(folder)}},
    ).execute()
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend draws
    nb = _executed(path, tmp_path)

    stderr = [
        output["text"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output["output_type"] == "stream" and output["name"] == "stderr"
    ]
    assert stderr == [], "a notebook cell warned or wrote to stderr"
    if path.name != "04-monitoring.ipynb":  # (which has a cache of its own)
        assert (tmp_path / "cache").is_dir()  # the user's own cache was left alone
    CHECKS[path.name](nb, tmp_path)


def test_the_budget_stop_shows_after_the_demo_filled_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo pays for the biggest post's pages; the quickstart's budget section must
    still show a budget stop (before: its client read those pages free from the
    shared cache and never reached the budget)."""
    import subprocess
    import sys

    cache = tmp_path / "cache"
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(cache))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    demo = subprocess.run(
        [sys.executable, "-m", "socialframe", "demo", "--out", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert demo.returncode == 0, demo.stderr
    nb = _executed(NOTEBOOK_DIR / "01-quickstart.ipynb", tmp_path)
    budget = _text(_cell(nb, "max_cost=0.05"))
    assert "250 of 2,345 comments; paid 5 calls ($0.05)" in budget
    assert "BudgetExceededError" not in budget and "would take the spend over" in budget


def test_a_notebook_pinned_to_a_date_shows_its_world_whatever_ran_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a live sandbox (``socialframe sandbox``) left its pages in the default cache
    under the same key as the pinned world's, and notebook 03 printed "295 ads from 15
    advertisers" (its world as of 2026-01-01 has 94) with end dates in the future."""
    import socialframe as sf

    cache = tmp_path / "cache"
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(cache))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    with sf.Sandbox() as live, live.client(progress=False) as client:  # the default cache
        grown = client.search_ads("running shoes", country="US")
    assert len(grown) > 94 and live.charges > 0
    nb = _executed(NOTEBOOK_DIR / "03-ad-research.ipynb", tmp_path)
    assert "94 ads from" in _text(_cell(nb, 'client.search_ads("running shoes"'))
