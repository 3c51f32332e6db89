"""Every notebook in notebooks/ runs top to bottom in a real Jupyter kernel, offline.

The notebooks are the documentation people read, so they are executed as users
run them: nbclient starts an ipykernel, the kernel starts its own sandbox, and
each cell must finish without an error or a warning. The kernel inherits
``os.environ``, so the cache goes to the test's own folder, and its working
directory is ``tmp_path`` (exports land there, not in the repository).
(mwouts/itables ``tests/test_documentation_notebooks_run.py``)
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from socialframe.sandbox import EXAMPLE_POSTS

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


def check_ad_research(nb: Any, cwd: Path) -> None:
    assert "94 ads from" in _text(_cell(nb, 'client.search_ads("running shoes"'))
    assert "ads were running on 2025-06-01" in _text(_cell(nb, "active_on"))
    assert _images(nb) >= 2  # timeline and platforms
    assert "same dtypes after the round trip: True" in _text(_cell(nb, "read_parquet"))
    # The exports go to a fresh temporary folder, printed; not into the working directory.
    printed = _text(_cell(nb, "to_parquet(exports")).splitlines()[0]
    exports = Path(printed)
    assert exports.name.startswith("socialframe-exports-") and not exports.is_relative_to(cwd)
    try:
        assert sorted(p.name for p in exports.iterdir()) == [
            "running-shoes.csv",
            "running-shoes.parquet",
        ]
        header = (exports / "running-shoes.csv").read_text(encoding="utf-8").splitlines()[0]
        assert header.startswith("ad_archive_id,")
    finally:
        shutil.rmtree(exports)
    assert sorted(p.name for p in cwd.iterdir()) == ["cache"]  # nothing else written there
    search = _text(_cell(nb, "ad_search(client"))
    assert search.startswith("AdSearch: no search yet; Search (at most $0.02)")
    assert "AdSearch(" not in search


CHECKS: dict[str, Callable[[Any, Path], None]] = {
    "01-quickstart.ipynb": check_quickstart,
    "02-comment-activity.ipynb": check_comment_activity,
    "03-ad-research.ipynb": check_ad_research,
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend draws
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()  # raises CellExecutionError on the first failing cell

    stderr = [
        output["text"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output["output_type"] == "stream" and output["name"] == "stderr"
    ]
    assert stderr == [], "a notebook cell warned or wrote to stderr"
    assert (tmp_path / "cache").is_dir()  # the user's own cache was left alone
    CHECKS[path.name](nb, tmp_path)
