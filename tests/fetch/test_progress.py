"""Progress in a notebook: one line of what was done, updated in place, in a real kernel
(nbclient runs the cells; the sandbox answers over HTTP)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # a kernel

CELLS = [
    "from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox\n"
    "sandbox = Sandbox(clock=PinnedClock()).start()\n"
    "client = sandbox.client(cache=False, progress=True)",
    "comments = client.post_comments(EXAMPLE_POSTS[2345])",
    "ads = client.search_ads('running shoes', max_pages=5)",
    "quiet = client.post_comments(EXAMPLE_POSTS[50])  # one page: nothing shown",
    "more = client.search_ads(['coffee', 'tea'], max_pages=1)  # one line for the queries",
    "client.close(); sandbox.close()",
]


def test_a_finished_fetch_leaves_one_line_of_what_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "cache"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    NotebookClient(nb, kernel_name="python3", timeout=240).execute()
    outputs = [cell.outputs for cell in nb.cells]

    def one_line(cell: list[dict[str, object]]) -> str:
        [output] = cell  # one output: no bar left behind, no widget
        assert output["output_type"] == "display_data"
        data = output["data"]
        assert set(data) == {"text/plain", "text/html"}  # type: ignore[arg-type]
        return str(data["text/plain"])  # type: ignore[index]

    assert one_line(outputs[1]) == f"comments {_post(2345)}: 47 pages, $0.47"
    assert one_line(outputs[2]) == "ads 'running shoes': 5 pages, $0.05"
    assert outputs[3] == [] and outputs[5] == []
    assert one_line(outputs[4]) == "queries: 2 queries, $0.02"  # (it said "2 querys")


def _post(total: int) -> str:
    from socialframe.sandbox import EXAMPLE_POSTS

    return EXAMPLE_POSTS[total]
