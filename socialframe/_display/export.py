"""Files that survive spreadsheets and pipelines: CSV (ids as text, lists as JSON,
line breaks quoted), JSON lines, Parquet and Excel, chosen by the suffix of the name
given (reading them back is :mod:`.reading`'s job).

Every file is written through :func:`socialframe._display.files.write_whole`: whole
or not at all, never through a link, never over the cache, a study or an input
(:func:`check_target` checks before a paid fetch, the writer again at the end).

Two kinds of CSV, for two readers:

- **plain** (``to_csv(df, path)``, ``-o x.csv``): exact data for programs. Every
  value is written as it is (text starting with ``=`` too); a cell holding a line
  break of any kind (LF, CR, CRLF) is quoted, so that every reader (pandas, Python's
  ``csv``, DuckDB) reads back the same rows. Rows end in LF.
- **for spreadsheets** (``excel=True``, ``--excel``): UTF-8 with a BOM, CRLF, ids
  of digits as ``="7384427202391592960"`` (the one form Excel keeps as text rather
  than a rounded 7.38E+18) and any other text that a spreadsheet would run as a
  formula (its first character ``=``, ``+``, ``-``, ``@``, a tab, a CR or a NUL,
  after any ``'``) given a leading ``'`` (OWASP's rule for CSV injection); such a
  character after a comma, a semicolon, a space, a tab or a line break inside a text
  (where a spreadsheet reading the file with another separator starts a cell, or
  trimming spaces, ends them) gets a zero-width space before it: no cell from the
  service becomes a formula, whatever separator the spreadsheet takes, spaces trimmed
  or not. :func:`.reading.read_frame` takes them off again.

Why over 400 lines: one job, a frame into a file, for four formats; the
rules of where a file may go live in :mod:`.files`.
"""

from __future__ import annotations

import collections
import csv
import importlib
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, Final

import numpy as np
import pandas as pd

from .._schema import ID_SUFFIXES as ID_SUFFIXES
from .._schema import is_id
from . import files
from .files import Guarded


def _is_id(name: str) -> bool:
    """Ids, and the post or item as given (a 19-digit number a spreadsheet would round)."""
    return is_id(name) or name in ("post", "item")


def _cells(column: pd.Series, change: Callable[[Any], Any]) -> pd.Series:
    """``change`` over the present cells of ``column``, its dtype kept (``Series.map``
    infers one: ints beside a gap became floats, an id of 19 digits 7394323847149524992)."""
    cells = column.to_numpy(dtype=object).copy()
    for row in np.flatnonzero(column.notna().to_numpy()):
        cells[row] = change(cells[row])
    return pd.Series(cells, index=column.index, dtype=column.dtype)


def _json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


#: A cell starting with one of these is a formula to a spreadsheet ("CSV injection"):
#: OWASP's list, and NUL (ASVS 1.2.10; LibreOffice drops a NUL and ran ``"\x00=1+1"``).
#: The tables' download reads it too.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\x00")
#: Where a spreadsheet may start a cell inside a text: after a comma, a semicolon (the
#: separator of a CSV where the comma is the decimal sign: Excel in much of Europe), a
#: space, a tab, a line break. Read with another separator than the file's, the quotes
#: around a text are text too, a line break in it ends the row, and ``hi;=1+1`` was two
#: cells, the second a live formula (LibreOffice, separator ``;``); so was ``see =1+1``
#: with a space as the separator (a box of LibreOffice's import, and of Excel's, that
#: stays ticked for the next file), and `` =1+1`` with spaces trimmed (LibreOffice's
#: "Trim spaces"), which ends the spaces before a formula.
CELL_BOUNDARIES = (",", ";", " ", "\t", "\r", "\n")
#: Put after such a boundary when a formula would start there: a zero-width space,
#: which no spreadsheet runs (nor shows); :func:`.reading.read_frame` takes it off again.
INSIDE_MARK: Final = "\u200b"
_ESCAPED: Final = {"\t": r"\t", "\r": r"\r", "\n": r"\n", "-": r"\-", "\x00": r"\x00"}
#: Text a spreadsheet would run (a formula's first character, after any quotes already
#: there: ``'=1`` gets its own ``'`` too, so that reading takes exactly one off).
_STARTS: Final = "".join(_ESCAPED.get(c, c) for c in FORMULA_STARTS)
_BOUNDS: Final = "".join(_ESCAPED.get(c, c) for c in CELL_BOUNDARIES)
_FORMULA: Final = re.compile(f"'*[{_STARTS}]")  # (in Python's and Arrow's (RE2) syntax)
_QUOTED_FORMULA: Final = f"^'(?='*[{_STARTS}])"
#: A formula inside a text, after a boundary (any marks already there: each gets one
#: more, so that reading takes exactly one off); Python's syntax (a look-ahead), and
#: without it, to find the cells (RE2's).
_INSIDE: Final = re.compile(f"([{_BOUNDS}])(?={INSIDE_MARK}*'*[{_STARTS}])")
_INSIDE_FOUND: Final = f"[{_BOUNDS}]{INSIDE_MARK}*'*[{_STARTS}]"
_INSIDE_MARKED: Final = re.compile(f"([{_BOUNDS}]){INSIDE_MARK}(?={INSIDE_MARK}*'*[{_STARTS}])")
_DIGITS: Final = re.compile(r"[0-9]+")


def _id_text(column: pd.Series) -> pd.Series:
    """Ids as text; numeric ids as whole numbers (never 7.38e+18)."""
    if pd.api.types.is_float_dtype(column):
        column = column.round().astype("Int64")
    return column.astype("string")


def _times(column: pd.Series) -> pd.Series:
    # RFC 3339: "+00:00", not strftime's "+0000".
    text = column.dt.strftime("%Y-%m-%dT%H:%M:%S.%f%z")
    return text.str.replace(r"([+-]\d\d)(\d\d)$", r"\1:\2", regex=True)


def _is_text(column: pd.Series) -> bool:
    dtype = column.dtype
    return (
        pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
        or isinstance(dtype, pd.CategoricalDtype)
    )


def spreadsheet_text(value: str) -> str:
    """``value`` as a spreadsheet cell shows it as text: with a ``'`` in front when a
    spreadsheet would otherwise run it as a formula (see :data:`FORMULA_STARTS`), and
    :data:`INSIDE_MARK` after a :data:`CELL_BOUNDARIES` character that a formula follows.

    Example:
        >>> spreadsheet_text("=1+1"), spreadsheet_text("'@x"), spreadsheet_text("fine")
        ("'=1+1", "''@x", 'fine')
        >>> spreadsheet_text("hi;=1+1")
        'hi;\\u200b=1+1'
    """
    value = _INSIDE.sub(f"\\1{INSIDE_MARK}", value)
    return "'" + value if _FORMULA.match(value) else value


def spreadsheet_id(value: str) -> str:
    """An id as a spreadsheet keeps it: digits as ``="<digits>"`` (never rounded to
    7.38E+18), any other text as :func:`spreadsheet_text` (never a formula: the
    ``="..."`` form would run whatever the id holds).

    Example:
        >>> spreadsheet_id("7384427202391592960"), spreadsheet_id('1"&HYPERLINK("x")&"')
        ('="7384427202391592960"', '1"&HYPERLINK("x")&"')
    """
    if _DIGITS.fullmatch(value):
        return f'="{value}"'
    return spreadsheet_text(value)


def _spreadsheet(text: pd.Series, *, ids: bool) -> pd.Series:
    """:func:`spreadsheet_id` (``ids``) or :func:`spreadsheet_text` over a column of text,
    in C (a million cells: a Python call each took a second)."""
    inside = text.str.contains(_INSIDE_FOUND, regex=True).fillna(False).astype(bool)
    marked = text.copy()
    if inside.any():  # (few cells: Python's look-ahead, cell by cell)
        marked[inside] = text[inside].map(lambda v: _INSIDE.sub(f"\\1{INSIDE_MARK}", v))
    risky = marked.str.match(_FORMULA.pattern).fillna(False).astype(bool)
    out = marked.mask(risky, "'" + marked)
    if ids:
        digits = text.str.fullmatch(_DIGITS.pattern).fillna(False).astype(bool)
        out = out.mask(digits, '="' + text + '"')
    return out


def csv_ready(df: pd.DataFrame, *, excel: bool = False) -> pd.DataFrame:
    """The frame as it is written: lists / dicts as JSON text, ids as text, times RFC 3339,
    lone surrogates as U+FFFD (UTF-8 cannot hold them).

    With ``excel=True``, ids of digits are written as ``="7384427202391592960"`` (see
    :func:`spreadsheet_id`) and text a spreadsheet would run as a formula, in every
    column and header, gets a leading ``'`` (:func:`spreadsheet_text`).
    """
    out = well_formed(df)
    for name in out.columns:
        column = out[name]
        if column.dtype == object:
            out[name] = _cells(column, _json)
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = _times(column)
        elif _is_id(str(name)) and not pd.api.types.is_bool_dtype(column):
            text = _id_text(out[name])
            out[name] = _spreadsheet(text, ids=True) if excel else text
        elif excel and _is_text(column):
            out[name] = _spreadsheet(out[name].astype("string"), ids=False)
    if excel:
        out.columns = [spreadsheet_text(str(name)) for name in out.columns]
    return out


def to_csv(
    df: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    excel: bool = False,
    guard: Iterable[Guarded] = (),
) -> Path:
    """Write ``df`` to ``path`` as CSV (see the module's doc for the two kinds).

    Args:
        df: The frame.
        path: The file, whatever its suffix; written through
            :func:`~socialframe._display.files.write_whole` (never through a link,
            never over a cache or a study).
        excel: For spreadsheets: a BOM, CRLF, ids kept as text, no formula.
        guard: Files and folders it must never be (besides the default cache).

    Returns:
        The path written.

    Raises:
        ValueError: the file may not be written there (see
            :func:`~socialframe._display.files.check`).
        OSError: it could not be written.
    """

    def fill(into: BinaryIO) -> None:
        _csv_into(df, into, excel=excel)

    return files.write_whole(path, fill, guard=guard)


def _csv_into(df: pd.DataFrame, into: IO[bytes], *, excel: bool) -> None:
    """CSV of ``df`` into the binary ``into`` (UTF-8 whatever the locale), left open."""
    text = io.TextIOWrapper(into, encoding="utf-8-sig" if excel else "utf-8", newline="")
    try:
        ready = csv_ready(df, excel=excel)
        # The rows are made with CRLF ends, so that csv quotes every cell holding a CR
        # as well as an LF (it quotes the characters of its line end only); the plain
        # kind then ends its rows in LF, the cells left as they are.
        sink: io.TextIOBase = text if excel else _LineFeeds(text)
        ready.to_csv(sink, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
        sink.flush()
    finally:
        text.flush()
        text.detach()


class _LineFeeds(io.TextIOBase):
    """CSV text whose rows end in CRLF, passed on with rows ending in LF: a CRLF outside
    quotes ends a row; inside quotes it is a cell's own and is kept.

    Written in batches of about a megabyte (a row at a time cost a quarter of the
    write): outside quotes are the even pieces between ``"`` (a quote inside a cell is
    doubled, which leaves an empty piece outside), counted on from the last batch.
    """

    BATCH: Final = 1 << 20

    def __init__(self, out: io.TextIOBase) -> None:
        self._out = out
        self._held: list[str] = []
        self._size = 0
        self._quoted = False  # the last batch ended inside quotes
        self._cr = False  # ... or with a CR outside them, held back

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._held.append(text)
        self._size += len(text)
        if self._size >= self.BATCH:
            self._pass_on()
        return len(text)

    def _pass_on(self) -> None:
        text = "".join(self._held)
        self._held, self._size = [], 0
        if self._cr:
            text, self._cr = "\r" + text, False
        pieces = text.split('"')
        first = 1 if self._quoted else 0  # (the first piece outside quotes)
        pieces[first::2] = [piece.replace("\r\n", "\n") for piece in pieces[first::2]]
        self._quoted ^= len(pieces) % 2 == 0  # (an odd number of quotes)
        if not self._quoted and pieces[-1].endswith("\r"):  # (its LF may come next)
            pieces[-1], self._cr = pieces[-1][:-1], True
        self._out.write('"'.join(pieces))

    def flush(self) -> None:
        self._pass_on()
        if self._cr:
            self._out.write("\r")
            self._cr = False
        self._out.flush()


def well_formed(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` as every format writes it: the index levels :func:`_index_kept`
    names as the first columns (``groupby("author_name")``'s authors: data a file
    without an index would lose; row numbers are left out), and text (cells, lists'
    and dicts' text, column names) without a lone surrogate: a pair joins into its
    character, a lone one becomes U+FFFD. No file format holds one
    (UTF-8, Parquet, XML cannot). The rows, and each column's dtype, stay the same.

    Raises:
        ValueError: two columns would have one name (no format keeps both).
    """
    out = df.reset_index(level=kept) if (kept := _index_kept(df)) else df.copy()
    names = [_whole(n) if isinstance(n, str) else n for n in out.columns]
    twice = sorted(n for n, times in collections.Counter(map(str, names)).items() if times > 1)
    if twice:  # (1 and "1" too: one name in every file)
        raise ValueError(f"two columns are named {twice[0]!r}: rename one to write the frame")
    out.columns = names
    for number in range(len(out.columns)):
        values = out.iloc[:, number]
        if values.dtype == object or (
            isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "python"
        ):
            out.isetitem(number, _cells(values, _whole))
    return out


def _index_kept(df: pd.DataFrame) -> list[int]:
    """The levels of ``df``'s index a file must hold as columns: each named one that is
    not a column already (``set_index(c, drop=False)``), and an unnamed index of labels
    (``describe()``'s ``mean``, ``corr()``'s columns); not row numbers (a filter's)."""
    index = df.index
    if index.nlevels == 1 and index.name is None:
        numbers = pd.api.types.is_integer_dtype(index.dtype) or len(index) == 0
        return [] if numbers else [0]
    columns = set(df.columns)
    return [
        level for level, name in enumerate(index.names) if name is not None and name not in columns
    ]


def _whole(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, list | tuple):
        return type(value)(_whole(v) for v in value)
    if isinstance(value, dict):
        return {_whole(k): _whole(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.array([_whole(v) for v in value], dtype=object)
    return value


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: The most characters a cell of Excel holds (what is longer is cut, in .xlsx only).
XLSX_MOST: Final = 32_767

#: The suffixes :func:`write` knows, and what each writes.
FORMATS: Final = {
    ".csv": "CSV (ids as text, lists as JSON, times RFC 3339)",
    ".jsonl": "JSON lines (one row per line, lists as arrays)",
    ".parquet": "Parquet (every column and dtype; needs pyarrow)",
    ".xlsx": "Excel (needs openpyxl or XlsxWriter)",
}


@dataclass(frozen=True)
class Target:
    """Where :func:`write` puts a frame, as :func:`check_target` found it.

    Attributes:
        given: The name as the user gave it (``None``: standard output).
        path: The file (``None``: standard output, or discarded).
        suffix: The format: the suffix of the name as given (``.csv`` for standard
            output).
        discard: The null device (``-o /dev/null``): nothing is written.
        guard: What it must never be (checked again when writing).
        inputs: File descriptors the run reads from (checked again when writing).
    """

    given: str | None
    path: Path | None
    suffix: str = ".csv"
    discard: bool = False
    guard: tuple[Guarded, ...] = ()
    inputs: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.discard:
            return f"{self.given} (discarded)"
        return "standard output" if self.path is None else str(self.path)


def check_target(
    path: str | os.PathLike[str] | Target | None,
    *,
    guard: Iterable[Guarded] = (),
    inputs: Iterable[int] = (),
    excel: bool = False,
) -> Target:
    """Where :func:`write` will write (``None``/``-``: standard output), checked now.

    Called before anything is fetched (and paid): an unknown suffix, a missing
    writer, a missing folder or a target that may not be written would otherwise
    surface after the money is spent.

    The suffix of the name as given picks the format. Where it may go is
    :func:`socialframe._display.files.check`'s to say: no link, a regular file or
    nothing, none of ``guard`` nor inside it, no cache, no study, not an input,
    writable. Two names are taken as a shell user means them: ``/dev/null``
    discards, and ``/dev/stdout`` and ``/dev/fd/1`` are ``-``.

    Args:
        path: The file, or ``None`` / ``"-"`` for CSV to standard output (a
            :class:`Target` is checked again, as given).
        guard: What it must never be nor be inside: the cache in use
            (:func:`~socialframe._display.files.cache_guard`), the study.
        inputs: Open file descriptors read as input (standard input is ``0``).
        excel: A CSV for spreadsheets is asked for (``--excel``, ``excel=True``).

    Returns:
        The checked :class:`Target`.

    Raises:
        ValueError: the suffix is not in :data:`FORMATS`, its writer is not
            installed, the file may not be written there, or ``excel`` is asked of
            another format than CSV.

    Example:
        >>> check_target("ads.txt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot write 'ads.txt': the suffix chooses the format: .csv, ...
    """
    if isinstance(path, Target):
        return check_target(path.given, guard=path.guard, inputs=path.inputs)
    kept = tuple(guard)
    read = tuple(inputs)
    if path is None:
        files.check_stream(1, guard=kept)
        return Target(None, None, guard=kept, inputs=read)
    given = os.fspath(path)
    special = files.shell_name(given)
    if special is not None:
        if special == "stdout":
            files.check_stream(1, guard=kept)
        return Target(given, None, discard=special == "discard", guard=kept, inputs=read)
    target = files.check(given, guard=kept, inputs=read)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        known = ", ".join(list(FORMATS)[:-1]) + f" or {list(FORMATS)[-1]}"
        raise ValueError(f"cannot write {given!r}: the suffix chooses the format: {known}")
    if excel and suffix != ".csv":
        raise ValueError(
            f"cannot write {given!r}: --excel (excel=True) is for a .csv file;"
            f" {suffix} has one form only"
        )
    if suffix == ".parquet" and not _installed("pyarrow", "fastparquet"):
        raise ValueError(
            f"writing {target.name} needs pyarrow: pip install pyarrow (or write .csv / .jsonl)"
        )
    if suffix == ".xlsx" and not _installed("openpyxl", "xlsxwriter"):
        raise ValueError(
            f"writing {target.name} needs an Excel writer: pip install openpyxl"
            " (or write .csv, which Excel opens)"
        )
    return Target(given, target, suffix=suffix, guard=kept, inputs=read)


def _installed(*modules: str) -> str | None:
    """The first of ``modules`` that imports, or ``None``."""

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    return None


def write(
    df: pd.DataFrame, path: str | os.PathLike[str] | Target | None, *, excel: bool = False
) -> Path | None:
    """Write ``df`` in the format its suffix names; ``None`` or ``-``: CSV to stdout
    (exact to a pipe or a file; on a terminal, what it would obey rather than show, the
    escapes a comment may hold, is written out: see :func:`on_terminal`).

    ``.csv`` follows :func:`to_csv` (``excel=True``: for spreadsheets); ``.jsonl`` is
    one JSON object per row (lists as arrays, times ISO 8601 UTC, missing as
    ``null``; every text exact, a line break inside one escaped); ``.parquet`` keeps
    every dtype; ``.xlsx`` has times in UTC without a zone (Excel has none), lists as
    JSON text, ids as text, and text that starts with ``=`` stays text, never a
    formula. What a format cannot hold is changed, never a row dropped: a lone
    surrogate becomes U+FFFD (every format); in ``.xlsx`` control characters become
    U+FFFD and a CR an LF (XML holds neither), and a cell longer than Excel's
    32,767 characters is cut there, ending in ``…``.

    Args:
        df: The frame.
        path: The file, ``None`` / ``"-"``, or the :class:`Target` that
            :func:`check_target` returned before the fetch (checked again now:
            what is there may have changed meanwhile).
        excel: CSV only: write it for spreadsheets.

    Returns:
        The path written, or ``None`` for standard output (or the null device).

    Raises:
        ValueError: see :func:`check_target`.
        OSError: the file could not be written.

    Example:
        >>> import pandas as pd, tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "x.jsonl"
        >>> _ = write(pd.DataFrame({"id": ["1"], "tags": [["a", "b"]]}), out)
        >>> out.read_text()
        '{"id":"1","tags":["a","b"]}\\n'
    """
    target = check_target(path)
    if target.discard:
        return None
    if target.path is None:
        if sys.stdout is None:
            raise OSError("standard output is closed: nothing could be written")
        if _terminal(sys.stdout):  # read by a person: escapes shown, never obeyed
            held = io.BytesIO()
            _csv_into(df, held, excel=excel)
            shown = on_terminal(held.getvalue().decode("utf-8"))
            sys.stdout.buffer.write(shown.encode("utf-8"))
        else:  # a pipe or a file: the data exact
            _csv_into(df, sys.stdout.buffer, excel=excel)
        sys.stdout.buffer.flush()
        return None
    suffix = target.suffix

    def fill(into: BinaryIO) -> None:
        _into(df, into, suffix, excel=excel)

    return files.write_whole(target.path, fill, guard=target.guard, inputs=target.inputs)


#: What a terminal would act on rather than show: C0 and C1 controls (ESC starts the
#: sequences that clear the screen, set the window's title or the clipboard; a lone CR
#: writes over the line) and the marks that reorder text on screen. A line feed and a
#: tab are layout, and a CR before a line feed a line's end: kept.
TERMINAL_CONTROLS: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)


def on_terminal(text: str) -> str:
    """``text`` as a terminal may be given it: each of :data:`TERMINAL_CONTROLS` written
    out (``\\x1b``, ``\\u202e``), so that it is shown, never obeyed.

    Example:
        >>> print(on_terminal("red \\x1b[31m, line\\nnext"))
        red \\x1b[31m, line
        next
    """
    return TERMINAL_CONTROLS.sub(_written_out, text)


def _written_out(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):  # (closed)
        return False


def _into(df: pd.DataFrame, into: BinaryIO, suffix: str, *, excel: bool) -> None:
    """Write ``into`` in the format of ``suffix`` (the name the user gave, not the file's)."""
    if suffix == ".csv":
        _csv_into(df, into, excel=excel)
    elif suffix == ".jsonl":
        text = io.TextIOWrapper(into, encoding="utf-8", newline="")
        well_formed(df).to_json(
            text,
            orient="records",
            lines=True,
            date_format="iso",
            date_unit="us",
            double_precision=15,  # (pandas' most; its default, 10, cut 0.12345678901234)
            force_ascii=False,
        )
        text.flush()
        text.detach()
    elif suffix == ".parquet":
        well_formed(df).to_parquet(into, index=False)
    else:
        _to_xlsx(df, into)


def _xlsx_text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    value = _CONTROL.sub("\ufffd", value)
    return value if len(value) <= XLSX_MOST else value[: XLSX_MOST - 1] + "…"


def _to_xlsx(df: pd.DataFrame, into: BinaryIO) -> None:
    out = well_formed(df)
    out.columns = [_xlsx_text(str(name)) for name in out.columns]
    for number in range(len(out.columns)):
        column = out.iloc[:, number]
        name = str(out.columns[number])
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            column = column.dt.tz_convert("UTC").dt.tz_localize(None)
        elif pd.api.types.is_timedelta64_dtype(column.dtype):
            # Excel shows a bare number of days for a duration: written out in words
            column = column.map(lambda v: None if pd.isna(v) else str(v))
        else:
            if column.dtype == object:
                column = _cells(column, _json)
            if _is_id(name) and not pd.api.types.is_bool_dtype(column):
                column = _id_text(column)  # (an id held as a number too: its digits, as text)
        if _is_text(column):
            # XML (inside .xlsx) cannot hold control characters: shown as U+FFFD
            column = column.astype(object).map(_xlsx_text)
        out.isetitem(number, column)
    engine = _installed("openpyxl", "xlsxwriter")
    if engine == "xlsxwriter":
        options = {"options": {"strings_to_formulas": False, "strings_to_urls": False}}
        with pd.ExcelWriter(into, engine="xlsxwriter", engine_kwargs=options) as book:
            out.to_excel(book, index=False)
        return
    with pd.ExcelWriter(into, engine="openpyxl") as book:
        out.to_excel(book, index=False)
        # openpyxl takes any text starting with "=" for a formula; comments are
        # written by strangers, so it is kept as the text it is.
        for sheet in book.sheets.values():
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.data_type == "f":
                        cell.data_type = "s"
