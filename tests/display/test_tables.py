"""The interactive table's cells: what each shows, sorts by and exports, every value
escaped (the browser test drives the widget itself: tests/test_browser.py)."""

from __future__ import annotations

import html
import json

import pandas as pd
import pytest

import socialframe as sf
from socialframe._display import tables
from socialframe.sandbox import example_ads, example_comments

SEP = tables.SEP


def parts(cell: str) -> list[str]:
    """What the render function hands DataTables: display, sort, plain."""
    return list(tables.split(cell))[:3]


def test_hostile_text_and_names_are_escaped_and_only_web_links_are_links() -> None:
    frame = pd.DataFrame(
        {
            "<img src=x onerror=alert(1)>": ["<script>alert(1)</script>"],
            "author_url": ["javascript:alert(1)"],
            "link_url": ["https://www.example.com/a?b=1&c='2'"],
        }
    )
    shown, _ = tables.cells(frame)
    assert list(shown.columns) == ["&lt;img src=x onerror=alert(1)&gt;", "author_url", "link_url"]
    display, _, plain = parts(shown.iloc[0, 0])
    assert display == "&lt;script&gt;alert(1)&lt;/script&gt;" and plain == frame.iloc[0, 0]
    assert "<a" not in parts(shown.iloc[0, 1])[0]  # not a link: it would run
    link, _, url = parts(shown.iloc[0, 2])
    assert link == (
        "<a href='https://www.example.com/a?b=1&amp;c=&#x27;2&#x27;' target='_blank'"
        " rel='noopener noreferrer'>example.com</a>"
    )
    assert url == frame.iloc[0, 2]


def test_the_separators_in_the_data_cannot_forge_a_cell() -> None:
    forged = f"<b>x</b>{SEP}1{SEP}2"
    shown, _ = tables.cells(pd.DataFrame({"text": [forged]}))
    display, _, plain = parts(shown.iloc[0, 0])
    assert display == "&lt;b&gt;x&lt;/b&gt; 1 2" and plain == "<b>x</b> 1 2"


def test_every_part_of_a_cell_travels_as_text_to_html() -> None:
    # RowGroup puts a row's data into the page as HTML, and a caller's columnDefs took
    # the render function away: DataTables then showed the cell as it travels. Its
    # hidden parts held the raw text, and a comment ran script (tests/test_browser_tables.py)
    payload = "Q&A <img src=x onerror=alert(1)> \"'"
    frame = pd.DataFrame(
        {
            "text": [payload, "=" + payload],
            "link_url": ["https://example.com/?a=<b>&c='d'", payload],
            "tags": [[payload], [payload, "https://x.example/<i>"]],
            "extra": [{"k": payload}, None],
            "ad_archive_id": [payload, "1"],
            "post": [payload, "urn:li:activity:1"],
            "n": [1234.5, -2],
        }
    )
    rows = json.loads(sf.show(frame)._dt_args["data_json"])
    for number, row in enumerate(rows):
        for name, cell in zip(frame.columns, row, strict=True):
            travelled = tables.split(cell)
            hidden = cell.split(SEP)[1:] or [cell]  # (a cell of one part is text too)
            for part in hidden:
                assert "<" not in part and ">" not in part, (name, part)
                assert html.unescape(part) != part or "&" not in part, (name, part)
            value = frame[name].iloc[number]
            if isinstance(value, str):
                assert travelled.plain == value and html.escape(value) in travelled.display


def test_a_callers_column_defs_are_added_after_the_render_that_keeps_text_text() -> None:
    mine = {"targets": 0, "width": "12em", "render": "function (data) { return data; }"}
    defs = sf.show(pd.DataFrame({"text": ["<b>"]}), columnDefs=[mine])._dt_args["columnDefs"]
    # DataTables takes the first definition that says a thing of a column
    assert defs[0] == {"targets": "_all", "render": tables.RENDER}
    assert defs[1] == mine and defs[2]["className"] == "sf-word"


def test_the_download_keeps_what_a_spreadsheet_would_run_as_text_and_numbers_as_numbers() -> None:
    # OWASP's CSV injection: a text cell starting with = + - @ tab or CR gets a "'";
    # a number is never touched (a numeric column's -5 is -5)
    frame = pd.DataFrame(
        {
            "text": ["=1+2", "-5 stars", "\t=x", "\r=x", "@SUM(A1)", "+44 20", "x=1", "<b>"],
            "n": pd.array([-5, -5000, 5, None, -1, 0, 1, 2], dtype="Int64"),
            "x": pd.array([-1.5, -2500.25, 1, 2, 3, None, -0.001, 4], dtype="Float64"),
            "ad_archive_id": ["=1"] + ["1"] * 7,
            "post": ["-1"] + ["1"] * 7,
            "wait": pd.to_timedelta(["-1h"] + ["1h"] * 7),
            "tags": [["=x", "y"]] + [["y"]] * 7,
        }
    )
    shown, _ = tables.cells(frame)
    export = {name: [tables.split(c).export for c in shown[name]] for name in shown.columns}
    assert export["text"] == [
        "'=1+2",
        "'-5 stars",
        "'\t\u200b=x",  # (a tab, a CR: where a spreadsheet may start a cell)
        "'\r\u200b=x",
        "'@SUM(A1)",
        "'+44 20",
        "x=1",
        "<b>",
    ]
    assert export["n"] == ["-5", "-5000", "5", "", "-1", "0", "1", "2"]
    assert export["x"] == ["-1.5", "-2500.25", "1.0", "2.0", "3.0", "", "-0.001", "4.0"]
    assert export["ad_archive_id"][0] == "'=1" and export["post"][0] == "'-1"
    assert export["wait"][0] == "'-1 days \u200b+23:00:00" and export["tags"][0] == "'=x, y"
    # what a search finds and the sort are the text itself
    first = tables.split(shown.iloc[0, 0])
    assert first.plain == first.sort == "=1+2" and first.display == "=1+2"


def test_the_download_writes_each_cell_and_name_as_it_is_and_says_it_is_for_spreadsheets() -> None:
    [button] = sf.show(pd.DataFrame({"a": [1]}))._dt_args["buttons"]
    assert "formula" in button["titleAttr"] and button["bom"] is True
    options = button["exportOptions"]
    # not through Buttons' cleaning (it drops <script> and comments, trims, decodes &lt;)
    assert options["format"] == {"header": tables.EXPORT_NAME, "body": tables.EXPORT_CELL}
    assert options["orthogonal"] == "export"


def test_line_breaks_travel_past_pandas_formatter_and_come_back() -> None:
    shown, defs = tables.cells(pd.DataFrame({"text": ["Spot on.\nThe hard part\tis " + "x" * 50]}))
    cell = shown.iloc[0, 0]
    assert "\n" not in cell and "\t" not in cell  # pandas would show them as \n
    assert parts(cell)[0] == "Spot on.\nThe hard part\tis " + "x" * 50
    assert {"targets": [0], "className": "sf-text", "type": "string"} in defs


def test_times_days_durations_numbers_and_lists() -> None:
    frame = pd.DataFrame(
        {
            "created_at": pd.to_datetime(["2026-01-05 09:30:12", None], utc=True),
            "start_date": pd.to_datetime(["2025-11-20 16:00", "2025-11-21 16:00"], utc=True),
            "reply_after": pd.to_timedelta(["20:14:59", "3 days 01:00:00"]),
            "author_followers": pd.array([1234567, None], dtype="Int64"),
            "spend": pd.array([0.25, 2500.5], dtype="Float64"),
            "is_reply": pd.array([True, None], dtype="boolean"),
            "publisher_platforms": [["FACEBOOK", "INSTAGRAM"], []],
        }
    )
    shown, defs = tables.cells(frame, tz="Asia/Tokyo")
    row = [parts(c) if c else c for c in shown.iloc[0]]
    assert row[0] == ["2026-01-05 18:30", "1767605412000", "2026-01-05T09:30:12+00:00"]
    assert shown.iloc[1, 0] == ""  # missing: blank, sorted as empty
    assert row[1][0] == "2025-11-20"  # an ad's day: a day, whatever its time
    assert row[2][:2] == ["20h 14m", "72899.0"]
    assert parts(shown.iloc[1, 2])[0] == "3d 1h"
    assert row[3][:2] == ["1,234,567", "1234567"] and shown.iloc[1, 3] == ""
    # one format for the column: two decimals on every row
    assert row[4][0] == "0.25" and parts(shown.iloc[1, 4])[0] == "2,500.50"
    assert row[5][0] == "yes" and shown.iloc[1, 5] == ""
    assert row[6][0] == "FACEBOOK, INSTAGRAM"
    types = {t: d["type"] for d in defs for t in d["targets"]}
    assert types == {0: "num", 1: "num", 2: "num", 3: "num", 4: "num", 5: "string", 6: "string"}


def test_posts_show_short_and_whole_on_hover_and_a_repeated_urn_is_left_out() -> None:
    urn = "urn:li:activity:7384427202391592965"
    frame = pd.DataFrame({"post": ["7384427202391592965"], "post_urn": [urn], "n": [1]})
    shown, _ = tables.cells(frame)
    assert list(shown.columns) == ["post", "n"]  # post_urn says the same
    display, _, plain = parts(shown.iloc[0, 0])
    assert display == "<span title='7384427202391592965'>…592965</span>"
    other = frame.assign(post_urn="urn:li:activity:1")
    assert list(tables.cells(other)[0].columns) == ["post", "post_urn", "n"]


def test_an_ad_links_to_its_library_page_and_its_image_shows() -> None:
    frame = pd.DataFrame(
        {
            "ad_archive_id": ["123"],
            "image_urls": [["https://cdn.example/a.jpg", "javascript:x"]],
        }
    )
    shown, _ = tables.cells(frame)
    assert parts(shown.iloc[0, 0])[0] == (
        f"<a href='{tables.AD_LIBRARY}123' target='_blank' rel='noopener noreferrer'>123</a>"
    )
    thumb, _, plain = parts(shown.iloc[0, 1])
    assert "<img class='sf-thumb' src='https://cdn.example/a.jpg'" in thumb
    assert "javascript" not in thumb and plain == "https://cdn.example/a.jpg"


def test_an_ad_id_socialframe_derived_links_nowhere() -> None:
    derived = "derived:41f9654f9c0e08950fceb7f84d232275"
    ads = sf.ads_frame([{"data": {"ads": [[{"page_id": "1"}], [{"ad_archive_id": "123"}]]}}])
    assert ads["id_derived"].tolist() == [True, False]
    shown, _ = tables.cells(ads)
    assert (
        "href" not in shown.loc[0, "ad_archive_id"]
        and "library" not in shown.loc[0, "ad_archive_id"]
    )
    assert f"{tables.AD_LIBRARY}123'" in shown.loc[1, "ad_archive_id"]
    # the flag decides where it is shown; the derived form, where it is not
    flagged = pd.DataFrame({"ad_archive_id": ["777"], "id_derived": pd.array([True])})
    assert "href" not in tables.cells(flagged)[0].loc[0, "ad_archive_id"]
    alone = pd.DataFrame({"ad_archive_id": [derived, "9"]})
    links = tables.cells(alone)[0]["ad_archive_id"].tolist()
    assert "href" not in links[0] and parts(links[0])[0] == derived
    assert "href" in links[1]


def test_a_named_index_is_shown_and_the_frame_is_left_as_it_was() -> None:
    comments = example_comments()
    before = comments.copy()
    by_author = comments.groupby("author_name").size().rename("comments").to_frame()
    shown, _ = tables.cells(by_author)
    assert list(shown.columns) == ["author_name", "comments"]
    kept = comments[comments["author_type"] == "organization"]  # row numbers: not shown
    assert list(tables.cells(kept)[0].columns) == list(comments.columns)
    tables.cells(comments)
    pd.testing.assert_frame_equal(comments, before)


def test_show_is_a_widget_newest_first_that_selects_and_downloads() -> None:
    comments = example_comments()
    table = sf.show(comments, pageLength=10)
    assert type(table).__name__ == "ITable" and table.selected_rows == []
    args = table._dt_args
    created = list(comments.columns).index("created_at")
    assert args["order"] == [[created, "desc"]] and args["pageLength"] == 10
    assert args["select"] == {"style": "os", "items": "row"}
    [button] = args["buttons"]
    assert button["extend"] == "csvHtml5" and button["exportOptions"]["orthogonal"] == "export"
    rows = json.loads(args["data_json"])
    assert len(rows) == len(comments)  # every row: nothing sampled away
    assert comments.social.show()._dt_args["data_json"] == args["data_json"]


def test_a_table_is_one_table_and_a_height_puts_it_in_a_box() -> None:
    # DataTables' scrolling draws the header as a table of its own: it stood up to
    # 11,000 px off its columns (the browser test measures them)
    frame = example_comments()
    plain = sf.show(frame, scrollX=True, scrollCollapse=True)._dt_args
    assert not {"scrollX", "scrollY", "scrollCollapse"} & set(plain)
    boxed = sf.show(frame, scrollY=300)
    assert "scrollY" not in boxed._dt_args and "sf-box-300px" in boxed.classes.split()
    assert "max-height: 300px" in boxed._dt_args["table_style"]
    assert "sf-box-2_5em" in sf.show(frame, scrollY="2.5em").classes.split()
    for bad in ("1px; } body { display: none", "tall", True, 1.5):
        with pytest.raises(ValueError, match="a table's height is"):
            sf.show(frame, scrollY=bad)


@pytest.mark.parametrize("bad", [[1, 2], "frame", None])
def test_show_takes_a_frame(bad: object) -> None:
    with pytest.raises(TypeError, match="show\\(\\) takes a DataFrame"):
        sf.show(bad)  # type: ignore[arg-type]


def test_show_refuses_a_zone_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="Mars/Base"):
        sf.show(example_comments(), tz="Mars/Base")


def test_a_link_the_url_parser_refuses_is_shown_not_a_failure() -> None:
    # urlsplit raises on an unclosed IPv6 bracket: one such link from the service took
    # sf.show, the ad search's table (after the search was paid) and the notebook down
    # (the notebook's display of it: tests/display/test_notebook.py)
    frame = example_ads().head(2)[["link_url"]]
    frame["link_url"] = ["http://[::1/<b>", "https://www.example.com/x"]
    shown, _ = tables.cells(frame)
    display, _, plain = parts(shown.iloc[0, 0])
    assert plain == "http://[::1/<b>" and "<b>" not in display and "&lt;b&gt;" in display
    assert parts(shown.iloc[1, 0])[0].endswith(">example.com</a>")
    assert len(sf.show(frame).df) == 2


def test_big_integers_show_every_digit() -> None:
    frame = pd.DataFrame({"n": [7384427202391592965, -1234567890123456789]})
    shown, _ = tables.cells(frame)
    assert parts(shown.iloc[0, 0]) == [
        "7,384,427,202,391,592,965",
        "7384427202391592965",
        "7384427202391592965",
    ]
    assert parts(shown.iloc[1, 0])[0] == "-1,234,567,890,123,456,789"


def test_a_frame_too_big_for_the_page_is_sampled_by_what_it_sends_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # itables counts an object column as 8 bytes a cell (its pointers): 100k comments
    # were sent whole, ~200 MB of JSON, for a limit of 16 MB
    monkeypatch.setattr(tables, "MAX_BYTES", 200_000)
    frame = pd.DataFrame({"text": ["é <x> " + "word " * 100] * 2_000, "n": range(2_000)})
    table = sf.show(frame)
    sent = len(table._dt_args["data_json"].encode())
    assert sent <= 1.1 * 200_000, sent
    assert "downsampled" in table._dt_args["downsampling_warning"]
    assert "from 2,000 rows" in table._dt_args["downsampling_warning"]
    small = sf.show(frame.head(50))
    assert "downsampling_warning" not in small._dt_args and len(small.df) == 50


def test_a_column_of_complex_numbers_shows_as_text() -> None:
    shown, _ = tables.cells(pd.DataFrame({"z": [1 + 2j, None]}))
    assert parts(shown.iloc[0, 0])[0] == "(1+2j)"


def test_objects_in_a_list_show_as_an_object_alone_does() -> None:
    # (snapshot_cards: a list of objects; once shown as Python's repr, None and quotes)
    card = {"title": "<b>Shoes</b>", "video_preview_image_url": None}
    frame = pd.DataFrame({"cards": [[card, card]], "card": [card]})
    shown, _ = tables.cells(frame)
    alone = json.dumps(card, ensure_ascii=False)
    assert html.unescape(shown.loc[0, "card"].split("\x1f")[0]) == alone
    listed = html.unescape(shown.loc[0, "cards"].split("\x1f")[0])
    assert listed == f"{alone}, {alone}"
    assert "None" not in listed and "'" not in listed
