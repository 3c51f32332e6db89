"""Reading back what socialframe writes (``df.social.to_csv``, the command line's ``-o``):
the format told by the first bytes, whatever the text of the service holds; every
format back as the same frame."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from commands import WRITTEN, cli, copy_of, every_format

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox, comments_body, example_comments

#: Control characters a hostile service may send in a text (no tab, no line break).
CONTROLS = "".join(map(chr, [*range(1, 9), 11, *range(14, 32)])) * 200

POSTS = [EXAMPLE_POSTS[82], EXAMPLE_POSTS[51]]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock()) as server:
        yield server


@pytest.fixture(scope="module")
def written(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What ``socialframe comments POSTS -o NAME`` wrote, for every format, run once per
    module: the tests copy the bytes."""
    return every_format(sandbox, tmp_path_factory.mktemp("written"), POSTS)


@pytest.mark.parametrize("name", ["c.csv", "excel.csv", "c.jsonl", "c.parquet", "c.xlsx"])
def test_a_first_row_of_control_characters_is_still_a_file_of_ours(
    sandbox: Sandbox, tmp_path: Path, name: str
) -> None:
    # (the sniffing of binary data reads only the first line: a header, or a JSON object)
    post = EXAMPLE_POSTS[50]  # one page of 50 comments, the first one's text hostile
    page = copy.deepcopy(comments_body(post, "mostRelevant"))
    page["data"][0]["text"] = CONTROLS
    sandbox.inject(page)
    path = tmp_path / name
    run = cli(
        "comments", post, "--cache", str(tmp_path / "cache"), "-o", str(path),
        *(["--excel"] if name == "excel.csv" else []), sandbox=sandbox,
    )  # fmt: skip
    assert run.code == 0, run.err
    back = sf.read_frame(path)
    assert len(back) == 50
    if name != "c.xlsx":  # (in a workbook they are U+FFFD: see export.write)
        assert back["text"].iloc[0] == CONTROLS


def test_utf16_without_its_mark_is_told_from_binary_data() -> None:
    import io

    with pytest.raises(ValueError, match="is UTF-16 text, and socialframe reads UTF-8"):
        sf.read_frame(io.BytesIO("post_urn,text\nx,y\n".encode("utf-16-le")))
    with pytest.raises(ValueError, match="is binary data, not text"):
        sf.read_frame(io.BytesIO(bytes(range(128)) * 8))


# -- the command line's files, read back (as ``socialframe report`` reads them) ----------------


def test_csv_and_parquet_read_back_as_the_same_frame(
    written: dict[str, bytes], tmp_path: Path
) -> None:
    csv = sf.read_frame(copy_of(written, tmp_path, "plain.csv"))
    parquet = sf.read_frame(copy_of(written, tmp_path, "rows.parquet"))
    assert csv.attrs["socialframe"] == "comments"
    assert csv.dtypes.equals(parquet.dtypes)
    # (a CSV cannot tell an empty text from none: both read as none)
    pd.testing.assert_frame_equal(
        csv.assign(text=csv["text"].fillna("")), parquet.assign(text=parquet["text"].fillna(""))
    )
    assert str(csv["created_at"].dtype) == "datetime64[us, UTC]"
    assert csv["author_followers"].dtype == "Int64" and csv["is_reply"].dtype == "boolean"


def test_ads_read_back_alike_from_csv_and_parquet_extra_columns_included(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    # the contract columns were typed again, the extra ones left as the CSV's text:
    # snapshot_cards a JSON string, contains_sensitive_content the word "False"
    for name in ("a.csv", "a.parquet"):
        run = cli(
            "ads", "coffee", "--max-pages", "1", "--cache", str(tmp_path / "c"),
            "-o", str(tmp_path / name), sandbox=sandbox,
        )  # fmt: skip
        assert run.code == 0, run.err
    csv, parquet = (
        sf.read_frame(tmp_path / "a.csv"),
        sf.read_frame(tmp_path / "a.parquet"),
    )
    for column in ("snapshot_cards", "snapshot_page_categories", "categories"):
        assert csv[column].tolist() == parquet[column].tolist(), column
        assert isinstance(csv[column].dropna().iloc[0], list), column
    flags = "contains_sensitive_content"
    assert csv[flags].dtype == parquet[flags].dtype == "boolean"
    assert csv[flags].tolist() == parquet[flags].tolist()


def test_excel_csv_reads_back_text_as_written_not_with_the_quote_that_kept_it_text(
    tmp_path: Path,
) -> None:
    # --excel writes "@Anna…" as "'@Anna…" so that Excel shows it as text; it read back
    # with the quote, and the report quoted every mention and "-5 stars" so
    comments = example_comments()
    said = ["@Anna thanks!", "=1+1", "-5 stars", "+1", "'quoted' already", "\tTabbed"]
    comments.loc[: len(said) - 1, "text"] = said
    comments.loc[0, "author_name"] = "@handle"
    comments.social.to_csv(tmp_path / "x.csv", excel=True)
    comments.social.to_csv(tmp_path / "p.csv")
    excel, plain = sf.read_frame(tmp_path / "x.csv"), sf.read_frame(tmp_path / "p.csv")
    assert excel["text"].head(len(said)).tolist() == said
    assert excel.loc[0, "author_name"] == "@handle"
    pd.testing.assert_frame_equal(excel, plain)


def test_every_format_reads_back_as_the_same_frame(
    written: dict[str, bytes], tmp_path: Path
) -> None:
    frames = {name: sf.read_frame(copy_of(written, tmp_path, name)) for name in WRITTEN}
    exact = frames.pop("rows.parquet")
    for name, frame in frames.items():
        assert frame.dtypes.equals(exact.dtypes), name
        wanted = exact
        if name.endswith(".xlsx"):  # (a workbook holds a time to the nearest millisecond)
            times = frame.select_dtypes("datetimetz").columns
            for c in times:  # (a time at half a millisecond may go either way: a float)
                off = (frame[c] - exact[c]).abs().dropna()
                assert (off <= pd.Timedelta("501us")).all(), (name, c, off.max())
                assert frame[c].isna().equals(exact[c].isna()), (name, c)
                assert (frame[c].dropna().dt.microsecond % 1000 == 0).all(), (name, c)
            wanted = exact.assign(**{c: frame[c] for c in times})
        # (a CSV and a workbook cannot tell an empty text from none: both read as none)
        blank = {c: frame[c].fillna("") for c in ("text", "author_title") if c in frame}
        pd.testing.assert_frame_equal(
            frame.assign(**blank),
            wanted.assign(**{c: wanted[c].fillna("") for c in blank}),
            obj=name,
        )


def test_a_hostile_header_is_named_in_the_error_as_text_not_obeyed() -> None:
    """sf.read_frame's errors reach a terminal or a notebook as they are: a header that
    would clear the screen or turn the text backwards is written out, not sent."""
    import io

    with pytest.raises(ValueError) as raised:
        sf.read_frame(io.BytesIO("name\x1b[2J\u202e,score\nx,1\n".encode()))
    said = str(raised.value)
    assert said.isprintable(), said
    assert "its columns: name\\x1b[2J\\u202e, score…" in said


@pytest.mark.parametrize(
    "kind", ["same text on every row", "same text, a dictionary's codes", "one long text"]
)
def test_a_small_parquet_file_that_unpacks_to_gigabytes_is_refused_before_it_is_read(
    tmp_path: Path, kind: str
) -> None:
    """A file of kilobytes that would take gigabytes once read (a 200 kB text on each of
    2,000 rows, stored once; the same as a dictionary's codes, which a frame of text
    expands; one text of 280 MB of one letter) is one ValueError, before the memory it
    would take is taken. (Before: 1.36 GB for a 15 kB file.)

    The file is read by a child process of its own, which says how much its peak memory
    grew over the read: in this process the bomb's own text was built first, so its
    peak shows nothing of the read."""
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = sf.comments_frame([comments_body(EXAMPLE_POSTS[50], "mostRecent")])
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "one long text":
        rows = table.slice(0, 1)
        text: pa.Array = pa.array(["x" * 280_000_000], pa.large_string())
    else:
        rows = pa.concat_tables([table] * 40)  # 2,000 rows
        codes = pa.array([0] * len(rows), pa.int32())
        text = pa.DictionaryArray.from_arrays(codes, pa.array(["x" * 200_000]))
        if kind == "same text on every row":
            text = text.dictionary_decode()
    bomb = rows.set_column(rows.schema.get_field_index("text"), "text", text)
    path = tmp_path / "c.parquet"
    pq.write_table(bomb, path, compression="zstd")
    del bomb, text
    assert path.stat().st_size < 2_000_000
    reader = (  # (VmHWM: this process's peak; ru_maxrss would keep the parent's)
        "import re, sys\n"
        "import pyarrow.parquet, socialframe as sf\n"
        "def peak():\n"
        "    status = open('/proc/self/status').read()\n"
        "    return int(re.search(r'VmHWM:\\s+(\\d+)', status).group(1))\n"
        "before = peak()\n"
        "try:\n"
        "    sf.read_frame(sys.argv[1])\n"
        "except ValueError as error:\n"
        "    print(peak() - before, error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", reader, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip(), (
        f"the read was not refused: {done.stdout[-500:]!r} {done.stderr[-2000:]}"
    )
    grew, said = done.stdout.split(" ", 1)  # KiB
    assert "would take more than 256 MiB once unpacked" in said
    # It may read up to its bound before it knows: 316 to 322 MiB measured. Read in one
    # batch, then refused: 800 MiB; every batch of 64 rows kept, refused only at the
    # end: 454 MiB. (A dictionary's codes take little memory read either way: that
    # case's refusal is what is checked.)
    assert int(grew) < 384 * 1024, f"the read took {int(grew) // 1024} MiB before it was refused"


def test_a_small_workbook_that_unpacks_to_gigabytes_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    """The same of a workbook: its parts unpack to more than 100 times the file."""
    import zipfile

    path = tmp_path / "c.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("xl/workbook.xml", "<workbook/>")
        book.writestr("xl/worksheets/sheet1.xml", "<c>" + "x" * 300_000_000 + "</c>")
    assert path.stat().st_size < 1_000_000
    with pytest.raises(ValueError, match="would take more than 256 MiB once unpacked"):
        sf.read_frame(path)


def test_an_id_held_as_a_number_is_its_digits_or_refused(tmp_path: Path) -> None:
    """A program (or a spreadsheet) may turn an id into a number: one a float holds whole
    reads back as its digits (not ``6525524947.0``); one past 2**53, whose digits the
    float already lost (7412261285235363324 read as ...362816: an id that is not the
    comment's), is refused, never read as another id."""
    import json

    frame = sf.comments_frame([comments_body(EXAMPLE_POSTS[50], "mostRecent")]).head(3)
    rows = [
        json.loads(line)
        for line in frame.to_json(orient="records", lines=True, date_format="iso").splitlines()
    ]
    rows[0]["author_id"], rows[1]["author_id"] = 6525524947.0, 6525524947
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert sf.read_frame(path)["author_id"].tolist()[:2] == ["6525524947", "6525524947"]
    rows[2]["comment_id"] = 7412261285235363324.0
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(ValueError, match="column 'comment_id' holds 7.41"):
        sf.read_frame(path)
