"""Frames of ours in a notebook: pandas' table with our display rules, the data left as
it is; any other frame as pandas shows it. The last test runs a real kernel."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from socialframe._display import notebook
from socialframe.sandbox import example_ads, example_comments


def ours(made: pd.DataFrame, **columns: list[object]) -> pd.DataFrame:
    """A frame socialframe made (``made``: pandas keeps its mark) holding ``columns`` alone."""
    rows = len(next(iter(columns.values())))
    return made.head(rows)[[]].assign(**columns)


def test_a_frame_not_ours_shows_as_pandas_shows_it() -> None:
    frame = pd.DataFrame({"reply_after": pd.to_timedelta(["20:14:59"])})
    assert notebook.frame_html(frame) == frame._repr_html_()


def test_ours_shows_with_our_rules_and_keeps_its_data() -> None:
    comments = example_comments()
    before = comments.copy()
    page = notebook.frame_html(comments)
    assert page is not None
    assert "<span title='urn:li:activity:" in page and ">…592960</span>" in page  # short post
    assert f"82 rows × {len(comments.columns)} columns" in page  # (22: id_derived too)
    pd.testing.assert_frame_equal(comments, before)  # the data is not changed
    assert comments.dtypes.equals(before.dtypes)


def test_text_is_escaped_and_shows_its_line_breaks() -> None:
    frame = ours(example_comments(), text=["<script>x</script>\nsecond line " + "y" * 400])
    page = notebook.frame_html(frame)
    assert page is not None and "<script>" not in page
    assert "&lt;script&gt;x&lt;/script&gt;\nsecond line" in page
    assert "white-space:pre-wrap" in page and page.count("y") < 300  # long text cut


def test_durations_days_and_a_repeated_urn() -> None:
    summary = ours(
        example_comments().social.summary(),
        post=["7384427202391592965"],
        post_urn=["urn:li:activity:7384427202391592965"],
        median_reply=pd.to_timedelta(["20:14:59"]),
        start_date=pd.to_datetime(["2025-11-20 16:00"], utc=True),
    )
    assert summary.attrs["socialframe"] == "comments.summary"
    page = notebook.frame_html(summary)
    assert page is not None and "20h 14m" in page and ">2025-11-20<" in page
    assert "post_urn" not in page  # post says the same


def test_rows_and_columns_are_cut_as_pandas_cuts_them() -> None:
    ads = example_ads()
    with pd.option_context("display.max_rows", 10, "display.min_rows", 4, "display.max_columns", 6):
        page = notebook.frame_html(ads)
        assert page is not None
        body = page.split("<tbody>")[1]
        assert body.count("<tr>") == 5  # 2 + the cut + 2
        head = page.split("<thead>")[1].split("</thead>")[0]
        assert head.count("<th") == 1 + 6 + 1  # index, 3 + 3 columns, the cut
        assert f"{len(ads):,} rows × {len(ads.columns):,} columns" in page


def test_the_marks_follow_filters_and_analyses() -> None:
    comments = example_comments()
    assert comments.attrs["socialframe"] == "comments"
    assert comments[comments["is_reply"]].attrs["socialframe"] == "comments"
    assert comments.social.filter(author_type="person").attrs["socialframe"] == "comments"
    assert comments.social.summary().attrs["socialframe"] == "comments.summary"
    assert example_ads().social.campaigns().attrs["socialframe"] == "ads.campaigns"


@pytest.mark.slow
def test_a_kernel_shows_ours_our_way_and_others_as_pandas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "cache"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(source)
        for source in (
            "import pandas as pd\nimport socialframe as sf\n"
            "from socialframe.sandbox import example_comments\ncomments = example_comments()",
            "comments.social.response_times().head(3)",
            "pd.DataFrame({'x': ['<b>1</b>']})",
        )
    ]
    NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    [ours] = nb.cells[1].outputs
    html = ours["data"]["text/html"]
    assert "class='dataframe socialframe'" in html and "rows ×" in html
    assert "text/plain" in ours["data"]  # the repr stays pandas'
    [theirs] = nb.cells[2].outputs
    assert "socialframe" not in theirs["data"]["text/html"]
    assert "&lt;b&gt;1&lt;/b&gt;" in theirs["data"]["text/html"]  # pandas' own table


def test_the_column_cut_sits_where_the_columns_were_cut_when_post_urn_is_left_out() -> None:
    # post_urn was left out after the cut: the "…" then stood between columns that were
    # side by side (post, page, …, fetched_at), and a column shown was missing
    comments = example_comments()
    comments.insert(0, "post", comments["post_urn"].str.extract(r"(\d+)$", expand=False))
    assert comments.attrs["socialframe"] == "comments"  # (still ours)
    with pd.option_context("display.max_columns", 4):
        page = notebook.frame_html(comments)
    assert page is not None
    head = page.split("<thead>")[1].split("</tr>")[0]
    names = re.findall(r"<th[^>]*>(.*?)</th>", head)
    rest = [c for c in comments.columns if c != "post_urn"]
    assert names == ["", *rest[:2], "…", *rest[-2:]], names
    row = page.split("<tbody>")[1].split("</tr>")[0]
    assert row.count("<td") == 5 and row.index("<td>…</td>") > row.index(">7394323847149525395<")


def test_overlap_matrix_labels_posts_as_summary_does() -> None:
    """Its rows and columns are posts: labelled as summary() labels them (the end of the
    id, the whole urn on hover), not one short and the other whole."""
    from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox

    sandbox = Sandbox(clock=ManualClock())
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        comments = client.post_comments([EXAMPLE_POSTS[n] for n in (82, 50, 51)])
    summary = notebook.frame_html(comments.social.summary())
    matrix = notebook.frame_html(comments.social.overlap_matrix())
    assert summary is not None and matrix is not None
    labels = re.findall(r"<td[^>]*><span title='\d+'>(…\d+)</span></td>", summary)
    assert labels == ["…592960", "…592963", "…592964"]
    head = matrix.split("<thead>")[1].split("</thead>")[0]
    assert re.findall(r">(…\d+)</span></th>", head) == labels  # the columns
    assert "urn:li:activity:7384427202391592960</th>" not in head
    rows = re.findall(r"<tr><th>([^<]*)</th>", matrix.split("<tbody>")[1])
    assert rows == labels  # and the rows


def test_a_link_the_url_parser_refuses_is_shown_not_a_failure() -> None:
    # urlsplit raises on an unclosed IPv6 bracket: one such link from the service took
    # the notebook's display down (a display that fails shows pandas' own table)
    frame = ours(example_ads(), link_url=["http://[::1/<b>", "https://www.example.com/x"])
    assert frame.attrs["socialframe"] == "ads"
    page = notebook._formatter(frame)
    assert page is not None and "class='dataframe socialframe'" in page  # ours, not pandas'
