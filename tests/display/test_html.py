"""Rendering for the widgets: escaped HTML, the cost label, the PNG; exact values."""

from __future__ import annotations

import re
from typing import Any

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot: tests never open a window

import pandas as pd
import pytest
from samples import body_rows, tiny

from socialframe._display import html

SCRIPT = '<script>alert("x")</script>'
SCRIPT_ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def comments(comments_2345: pd.DataFrame) -> pd.DataFrame:
    return comments_2345


def test_comment_table_escapes_user_text() -> None:
    df = tiny(
        text=[SCRIPT, "<img src=x onerror=alert(1)>", "line 1\nline 2 & 😀"],
        author_name=["<b>Eve</b>", "O'Brien", "Zoë"],
    )
    out = html.comments_table_html(df)
    assert f">{SCRIPT_ESCAPED}</td>" in out
    assert ">&lt;img src=x onerror=alert(1)&gt;</td>" in out
    assert ">line 1\nline 2 &amp; 😀</td>" in out  # newline kept, shown by white-space:pre-wrap
    assert ">&lt;b&gt;Eve&lt;/b&gt;</a>" in out and ">O&#x27;Brien</a>" in out
    assert "<script" not in out and "<img" not in out and "<b>" not in out
    assert body_rows(out) == 3 and out.count("<td") == 3 * 6


def test_comment_table_links_only_http_urls() -> None:
    df = tiny(
        text=["a", "b", "c"],
        author_url=["javascript:alert(1)", "https://example.com/?q='x'&y=<z>", None],
        permalink=["data:text/html,hi", None, "http://example.com/c"],
    )
    out = html.comments_table_html(df)
    assert "javascript:" not in out and "data:text" not in out
    assert "href='https://example.com/?q=&#x27;x&#x27;&amp;y=&lt;z&gt;'" in out
    assert out.count("<a href=") == 2  # the https author and the http permalink
    assert ">author 0</td>" in out and ">author 2</td>" in out  # names stay, unlinked


def test_comment_table_cells_and_truncation(comments: pd.DataFrame) -> None:
    orgs = comments[comments["author_type"] == "organization"].head(3)
    out = html.comments_table_html(orgs, tz="Asia/Tokyo")
    row = orgs.iloc[0]
    assert "time (Asia/Tokyo)</th>" in out
    assert f">{row['created_at'].tz_convert('Asia/Tokyo'):%Y-%m-%d %H:%M}</td>" in out
    assert f">{row['author_followers']:,}</td>" in out
    full = html.comments_table_html(comments, max_rows=25)
    assert body_rows(full) == 25
    assert full.endswith("<p><em>Showing the first 25 of 2,345 comments.</em></p>")
    assert html.comments_table_html(comments.iloc[:0]) == "<p><em>No comments to show.</em></p>"


def test_ads_table_escapes_and_formats() -> None:
    ads = pd.DataFrame(
        {
            "ad_archive_id": ["1", "2"],
            "page_name": ["<Brand>", "Shop & Co"],
            "page_profile_uri": ["https://www.facebook.com/brand/", "javascript:x"],
            "is_active": pd.array([True, None], dtype="boolean"),
            "start_date": pd.to_datetime(["2025-09-02 16:00", None], utc=True),
            "end_date": pd.to_datetime(["2026-01-01", None], utc=True),
            "publisher_platforms": [["FACEBOOK", "INSTAGRAM"], []],
            "display_format": ["DCO", None],
            "body_text": [SCRIPT, "Kids 👟\nnew"],
            "link_url": ["https://example.com/a?b=1&c=2", None],
        }
    )
    out = html.ads_table_html(ads)
    assert f">{SCRIPT_ESCAPED}</td>" in out and "<script" not in out
    assert ">&lt;Brand&gt;</a>" in out and ">Shop &amp; Co</td>" in out
    assert ">yes</td>" in out and ">2025-09-02</td>" in out and ">2026-01-01</td>" in out
    assert ">FACEBOOK, INSTAGRAM</td>" in out
    assert "href='https://example.com/a?b=1&amp;c=2'" in out and "javascript" not in out
    assert body_rows(out) == 2
    assert html.ads_table_html(ads.iloc[:0]) == "<p><em>No ads to show.</em></p>"


@pytest.mark.parametrize(
    ("pages", "label"),
    [
        (1, "Search (at most $0.01)"),
        (3, "Search (at most $0.03)"),
        (250, "Search (at most $2.50)"),
        (123_456, "Search (at most $1,234.56)"),
    ],
)
def test_search_cost_label(pages: int, label: str) -> None:
    assert html.search_cost_label(pages) == label


@pytest.mark.parametrize("pages", [0, -1, True, 1.0, None])
def test_search_cost_label_rejects(pages: Any) -> None:
    with pytest.raises(ValueError, match="pages"):
        html.search_cost_label(pages)


def test_activity_png_draws_without_pyplot(comments: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    assert html.activity_png(comments).startswith(PNG_SIGNATURE)
    assert html.activity_png(comments.iloc[:0], "1h", tz="Europe/Berlin").startswith(PNG_SIGNATURE)
    assert plt.get_fignums() == []  # nothing left open in pyplot's registry


def test_comment_table_is_in_time_order_undated_last() -> None:
    out = html.comments_table_html(
        tiny(
            created_at=pd.to_datetime(["2025-12-02 10:00", None, "2025-12-01 09:00"], utc=True),
            text=["second", "undated", "first"],
        )
    )
    assert [out.index(f">{t}</td>") for t in ("first", "second", "undated")] == sorted(
        out.index(f">{t}</td>") for t in ("first", "second", "undated")
    )


def test_ads_table_keeps_dates_on_one_line_and_the_link_near_the_front() -> None:
    ads = pd.DataFrame(
        {
            "ad_archive_id": ["1"],
            "page_name": ["Brand"],
            "page_profile_uri": ["https://www.facebook.com/brand/"],
            "is_active": pd.array([True], dtype="boolean"),
            "start_date": pd.to_datetime(["2025-09-02"], utc=True),
            "end_date": pd.to_datetime(["2026-01-01"], utc=True),
            "publisher_platforms": [["FACEBOOK"]],
            "display_format": ["DCO"],
            "body_text": ["hello"],
            "link_url": ["https://www.example.com/a-very/long/path?utm_source=facebook"],
        }
    )
    out = html.ads_table_html(ads)
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", out)
    assert headers == [
        "ad",
        "advertiser",
        "link",
        "active",
        "start (UTC)",
        "end (UTC)",
        "format",
        "text",
        "platforms",
    ]
    assert re.search(r"<td style='[^']*white-space:nowrap'>2025-09-02</td>", out)
    assert re.search(r"<td style='[^']*white-space:nowrap'>2026-01-01</td>", out)
    # the link shows its host; the whole URL is its target and its tooltip
    assert (
        "<a href='https://www.example.com/a-very/long/path?utm_source=facebook'"
        " title='https://www.example.com/a-very/long/path?utm_source=facebook'"
        " target='_blank' rel='noopener noreferrer'>example.com</a>"
    ) in out


def test_fallback_is_one_line_and_the_parts() -> None:
    text, rich = html.fallback("AdSearch", "<b>3</b> ads &amp; more<br>next", "<table></table>")
    assert text == "AdSearch: 3 ads & more next"
    assert rich == "<p><b>AdSearch</b>: <b>3</b> ads &amp; more<br>next</p><table></table>"


def test_a_link_the_url_parser_refuses_is_its_own_label_in_the_fallback_table() -> None:
    """The saved-notebook table of ads shared the interactive table's fault: a link Python
    cannot parse (``http://[::1``) raised ValueError instead of showing."""
    from socialframe.sandbox import example_ads

    ads = example_ads().head(2).copy()
    ads["link_url"] = ["http://[::1", "https://www.x.example/a"]
    page = html.ads_table_html(ads)
    assert ">http://[::1</a>" in page and ">x.example</a>" in page
