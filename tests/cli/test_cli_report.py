"""``socialframe report``: the HTML report of a file the command line wrote (CSV, Excel
CSV, Parquet, or standard input), its columns typed again as the fetch made them."""

from __future__ import annotations

import contextlib
import gzip
import io
import subprocess
import sys
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from commands import WRITTEN, cli, copy_of, every_format

from socialframe.__main__ import main
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

#: What ``socialframe report`` says it reads, at the end of every message of a file it
#: cannot read.
READS = (
    "socialframe reads back what it writes (-o, df.social.to_csv): CSV (plain or for"
    " spreadsheets), JSON lines, Parquet and .xlsx, in UTF-8, from a file or a stream"
    " (standard input: -)"
)

POSTS = [EXAMPLE_POSTS[82], EXAMPLE_POSTS[51]]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What ``socialframe comments POSTS -o NAME`` wrote, for every format, run once per
    module (a process each: tens of runs per test file before): the tests copy the bytes.
    """
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        return every_format(sandbox, tmp_path_factory.mktemp("written"), POSTS)


# (how each format reads back, row for row: tests/display/test_reading.py)


@pytest.mark.parametrize("name", ["plain.csv", "rows.parquet", "excel.csv"])
def test_a_file_of_comments_becomes_the_report(
    written: dict[str, bytes], tmp_path: Path, name: str
) -> None:
    source = copy_of(written, tmp_path, name)
    page = tmp_path / "report.html"
    run = cli("report", str(source), "-o", str(page), "--title", "Two posts", "--tz", "Asia/Tokyo")
    assert run.code == 0, run.err
    assert run.lines[-1] == f"socialframe: wrote the report of 133 comments to {page}"
    html = page.read_text(encoding="utf-8")
    assert "<h1>Two posts</h1>" in html and "(Asia/Tokyo)" in html
    assert "133 (" in html  # the header's count of comments


def test_standard_input_and_ads(sandbox: Sandbox, tmp_path: Path) -> None:
    ads = cli("ads", "coffee", "--max-pages", "1", "--cache", str(tmp_path / "c"), sandbox=sandbox)
    assert ads.code == 0, ads.err
    page = tmp_path / "ads.html"
    run = cli("report", "-", "-o", str(page), stdin=ads.out)
    assert run.code == 0, run.err
    assert "ads to" in run.lines[-1] and "<h1>Ads report</h1>" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nothing.csv", "-o", "r.html"], "no such file: 'nothing.csv'"),
        (["{csv}", "-o", "r.txt"], "must end in .html"),
        (["{csv}", "-o", "r.html", "--tz", "Mars/Base"], "Mars/Base"),
        (["{other}", "-o", "r.html"], "not a comments or ads frame of socialframe"),
    ],
)
def test_what_cannot_become_a_report_is_said_before_anything_is_written(
    tmp_path: Path, args: list[str], says: str
) -> None:
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    csv = tmp_path / "c.csv"
    csv.write_text("post_urn\n1\n")
    given = [a.format(csv=csv, other=other) for a in args]
    run = cli("report", *given, cwd=tmp_path)
    assert run.code == 2 and says in run.err
    assert not list(tmp_path.glob("r.*"))


@pytest.mark.parametrize(
    ("column", "value", "says"),
    [
        ("author_followers", "1e400", "'author_followers'"),  # OverflowError
        ("author_followers", "99999999999999999999999", "'author_followers'"),
        ("created_at", "[" * 50_000, "'created_at'"),  # pandas quotes the whole value
    ],
)
def test_a_hostile_comments_file_is_one_short_error(
    written: dict[str, bytes], tmp_path: Path, column: str, value: str, says: str
) -> None:
    frame = pd.read_csv(copy_of(written, tmp_path, "plain.csv"), dtype=str, keep_default_na=False)
    frame.loc[0, column] = value
    frame.to_csv(tmp_path / "bad.csv", index=False)
    run = cli("report", str(tmp_path / "bad.csv"), "-o", str(tmp_path / "r.html"))
    assert run.code == 2 and says in run.err, run.err
    assert "bug" not in run.err and "warning" not in run.err and len(run.err) < 400, run.err
    assert not (tmp_path / "r.html").exists()


def test_a_list_too_deep_for_json_is_one_short_error(sandbox: Sandbox, tmp_path: Path) -> None:
    ads = cli("ads", "coffee", "--max-pages", "1", "--cache", str(tmp_path / "c"), sandbox=sandbox)
    assert ads.code == 0, ads.err
    (tmp_path / "ads.csv").write_text(ads.out, encoding="utf-8")
    frame = pd.read_csv(tmp_path / "ads.csv", dtype=str, keep_default_na=False)
    frame.loc[0, "image_urls"] = "[" * 100_000 + "]" * 100_000  # RecursionError
    frame.to_csv(tmp_path / "bad.csv", index=False)
    run = cli("report", str(tmp_path / "bad.csv"), "-o", str(tmp_path / "r.html"))
    assert run.code == 2 and "'image_urls'" in run.err, run.err
    assert "bug" not in run.err and len(run.err) < 400, run.err


def test_comments_holding_a_bare_cr_pipe_into_the_report_row_for_row(tmp_path: Path) -> None:
    """``socialframe comments POST | socialframe report -``: the plain CSV left a bare CR
    unquoted, pandas read 84 rows for 82 and the report failed. Two of the service's texts
    hold a bare CR here, served over HTTP to the real console scripts, joined by a pipe."""
    import copy
    import os
    import subprocess

    from test_cli import SCRIPT

    from socialframe.sandbox import comments_body

    first = copy.deepcopy(comments_body(POSTS[0], "mostRelevant"))  # (the command's order)
    first["data"][0]["text"] = "line one\rline two"  # (no comma, no quote)
    first["data"][10]["text"] = "ends in a CR\r"
    page = tmp_path / "report.html"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        sandbox.inject(first)  # (the first page the command asks for; the cache keeps it)
        env = dict(
            os.environ,
            SOCIALFRAME_BASE_URL=sandbox.url,
            SOCIALFRAME_API_KEY=sandbox.api_key,
            SOCIALFRAME_CACHE_DIR=str(tmp_path / "c"),
        )
        assert SCRIPT is not None
        fetch = subprocess.Popen(
            [SCRIPT, "comments", POSTS[0]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert fetch.stdout is not None
        report = subprocess.run(
            [SCRIPT, "report", "-", "-o", str(page)],
            stdin=fetch.stdout,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        fetch.stdout.close()
        _, fetched = fetch.communicate(timeout=120)
        rows = cli(
            "comments",
            POSTS[0],
            "-o",
            str(tmp_path / "c.csv"),
            sandbox=sandbox,
            env={"SOCIALFRAME_CACHE_DIR": str(tmp_path / "c")},
        )
    assert fetch.returncode == 0, fetched
    assert report.returncode == 0, report.stderr
    assert report.stderr.strip().endswith(f"wrote the report of 82 comments to {page}")
    assert rows.code == 0 and b"\r" in (tmp_path / "c.csv").read_bytes()
    assert len(pd.read_csv(tmp_path / "c.csv", dtype=str)) == 82


# -- every format the command line writes, and what is none of them --------------------------


def _report_of(
    data: bytes | Path, page: Path, *, process: bool = True
) -> subprocess.CompletedProcess[str]:
    """``socialframe report`` of a file, or of ``data`` piped to standard input (``-``):
    through the real console script, or (``process=False``) through ``main()`` in this
    process, where a run costs no start of Python, pandas and the rest (a second each).

    In this process, every warning is let through to be shown (a process shows them; the
    tests' filter would make them errors), and an exception escaping ``main()`` fails the
    test as a traceback on standard error would.
    """
    given = [str(data)] if isinstance(data, Path) else ["-"]
    argv = ["report", *given, "-o", str(page)]
    if not process:
        out, err = io.StringIO(), io.StringIO()
        given_bytes = io.BytesIO(b"" if isinstance(data, Path) else data)
        given_bytes.name = "<stdin>"  # (as sys.stdin.buffer is named)
        piped = io.TextIOWrapper(given_bytes)
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            _stdin(piped),
        ):
            warnings.simplefilter("always")
            code = main(argv)
        return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())
    from test_cli import SCRIPT

    assert SCRIPT is not None
    piped_bytes = None if isinstance(data, Path) else data
    done = subprocess.run([SCRIPT, *argv], input=piped_bytes, capture_output=True, timeout=120)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode("utf-8")
    )


@contextlib.contextmanager
def _stdin(stream: io.TextIOWrapper) -> Iterator[None]:
    before = sys.stdin
    sys.stdin = stream
    try:
        yield
    finally:
        sys.stdin = before


@pytest.mark.parametrize("piped", [False, True], ids=["file", "stdin"])
@pytest.mark.parametrize("name", list(WRITTEN))
def test_every_format_the_command_line_writes_becomes_the_report(
    written: dict[str, bytes], tmp_path: Path, name: str, piped: bool
) -> None:
    source = copy_of(written, tmp_path, name)
    page = tmp_path / "report.html"
    done = _report_of(source.read_bytes() if piped else source, page)
    assert done.returncode == 0, done.stderr
    assert (
        done.stderr.splitlines()[-1] == f"socialframe: wrote the report of 133 comments to {page}"
    )
    assert "133 (" in page.read_text(encoding="utf-8")


#: Pandas' and Python's parser messages, which a reader of the command line never gets.
PARSERS = (
    "Error tokenizing",
    "C error",
    "codec can't decode",
    "No columns to parse",
    "magic bytes",
    "Expecting value",
    "Traceback",
    "pyarrow",
    "openpyxl.",
    "zipfile",
)


def _png() -> bytes:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(1, 1))
    figure.subplots().plot([0, 1])
    into = io.BytesIO()
    figure.savefig(into, format="png", dpi=20)
    return into.getvalue()


BAD = {
    "binary": (lambda c: bytes(range(256)) * 8, "is binary data, not text"),
    "UTF-16": (
        lambda c: c.decode("utf-8").encode("utf-16"),
        "is UTF-16 text, and socialframe reads UTF-8",
    ),
    "UTF-16 without a BOM": (
        lambda c: c.decode("utf-8").encode("utf-16-le"),
        "is UTF-16 text, and socialframe reads UTF-8",
    ),
    "binary with no byte beyond ASCII": (lambda c: bytes(range(128)) * 8, "is binary data"),
    "Parquet cut short": (None, "is a Parquet file cut short (its end is missing)"),
    "Parquet damaged": (None, "is a damaged Parquet file"),
    "empty": (lambda c: b"", "is empty"),
    "only blank lines": (lambda c: b"\n\n  \n", "is empty"),
    "another tool's CSV": (
        lambda c: b"name,score\nann,1\nbob,2,3,4\n",
        "line 3 has 4 fields where its header has 2",
    ),
    "another tool's columns": (
        lambda c: b"name,score\nann,1\n",
        "is not a comments or ads frame of socialframe (its columns: name, score",
    ),
    "a quote left open": (lambda c: b'a,b\n"x,1\n', "a quote left open"),
    "Latin-1": (
        lambda c: "author_name,text\nJosé,café\n".encode("latin-1"),
        "is not UTF-8 text (byte 0xE9",
    ),
    "gzip": (lambda c: gzip.compress(c), "is compressed with gzip: unpack it first"),
    "a ZIP that is no workbook": (None, "is a ZIP archive, not an Excel workbook"),
    "a workbook cut short": (None, "is a ZIP archive cut short or damaged"),
    "old Excel": (
        lambda c: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600,
        "is an old Excel workbook (.xls)",
    ),
    "an image": (lambda c: _png(), "is a PNG image"),
    "a report": (None, "is an HTML page"),
    "a JSON array": (lambda c: b'[{"a": 1}]', "is a JSON array; socialframe writes JSON lines"),
    "JSON lines cut short": (
        lambda c: b'{"post_urn": "urn:li:activity:1"}\n{"post_urn": "ur',
        "line 2 is no JSON",
    ),
}


#: What runs through the real console script (a CSV, Parquet, a workbook, JSON lines);
#: the rest through ``main()`` in this process, which says the same.
IN_A_PROCESS = ("binary", "Parquet damaged", "a workbook cut short", "JSON lines cut short")
assert set(IN_A_PROCESS) <= set(BAD)


@pytest.mark.parametrize("piped", [False, True], ids=["file", "stdin"])
@pytest.mark.parametrize("what", list(BAD))
def test_what_is_no_file_of_ours_is_said_in_words(
    written: dict[str, bytes], tmp_path: Path, what: str, piped: bool
) -> None:
    csv = written["plain.csv"]
    make, says = BAD[what]
    if make is not None:
        data = make(csv)
    elif what.startswith("Parquet"):
        whole = written["rows.parquet"]
        data = (
            whole[: len(whole) // 2]
            if what.endswith("short")
            else whole[:8] + b"\0" * 4000 + whole[-8:]
        )
    elif what == "a ZIP that is no workbook":
        into = io.BytesIO()
        with zipfile.ZipFile(into, "w") as archive:
            archive.writestr("c.csv", csv)
        data = into.getvalue()
    elif what == "a workbook cut short":
        whole = written["book.xlsx"]
        data = whole[: len(whole) // 3]
    else:  # a report given back to the report
        page = tmp_path / "first.html"
        assert (
            _report_of(copy_of(written, tmp_path, "plain.csv"), page, process=False).returncode == 0
        )
        data = page.read_bytes()
    source = tmp_path / "given.csv"
    source.write_bytes(data)
    page = tmp_path / "r.html"
    done = _report_of(data if piped else source, page, process=what in IN_A_PROCESS)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()  # one line, in words
    name = "standard input" if piped else str(source)
    assert line.startswith(f"socialframe: error: {name} "), line
    assert says in line, line
    if "comments or ads frame" not in says:  # what it reads, said once
        assert line.endswith(f"{READS}."), line
    assert not any(p in line for p in PARSERS), line
    assert not page.exists()
