"""Reading back the files :mod:`.export` writes (what ``socialframe report`` reads):
CSV (plain or for spreadsheets), JSON lines, Parquet and Excel, from a file or a stream,
their columns typed again as the fetch made them.

The format is told by the file's first bytes, not its name (standard input has none).
Whatever else is given (an empty file, UTF-16 text, a Parquet file cut short, an image,
another program's CSV, an HTML page) is one :class:`ValueError` in words: what the file
is, what is read (:data:`READS`) and what to do, never a parser's message (``Error
tokenizing data. C error``, ``'utf-8' codec can't decode``).
"""

from __future__ import annotations

import importlib.util
import io
import json
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any, BinaryIO, Final

import numpy as np
import pandas as pd

from .export import _INSIDE_MARKED, _QUOTED_FORMULA, INSIDE_MARK, _is_id

READS: Final = (
    "socialframe reads back what it writes (-o, df.social.to_csv): CSV (plain or for"
    " spreadsheets), JSON lines, Parquet and .xlsx, in UTF-8, from a file or a stream"
    " (standard input: -)"
)
"""What :func:`read_frame` reads, in words (every message of a file it cannot read)."""

#: A file's first bytes -> what it is, and what to do (files no one should read as a frame).
_MAGIC: Final = {
    b"\x1f\x8b": "compressed with gzip: unpack it first (gunzip)",
    b"BZh": "compressed with bzip2: unpack it first (bunzip2)",
    b"\xfd7zXZ": "compressed with xz: unpack it first (unxz)",
    b"7z\xbc\xaf": "a 7-Zip archive: unpack it first",
    b"\xd0\xcf\x11\xe0": "an old Excel workbook (.xls): save it as .xlsx, or as CSV UTF-8",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"SQLite format 3\x00": "an SQLite database (a cache? read a file that -o wrote)",
}
#: Byte-order marks of text that is not UTF-8.
_BOMS: Final = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
_UTF8_BOM: Final = b"\xef\xbb\xbf"
#: Bytes no text holds but as data: control characters other than tab, line breaks, form
#: feed and escape.
_CONTROL: Final = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")


def _utf16(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) is UTF-16 text without its mark: the
    bytes at one parity all NUL, at the other none (ASCII as UTF-16)."""
    if len(head) < 4:
        return False
    even, odd = head[0::2], head[1::2]
    return (even.count(0) == len(even) and 0 not in odd) or (
        odd.count(0) == len(odd) and 0 not in even
    )


def read_frame(source: str | Path | BinaryIO) -> pd.DataFrame:
    """A comments or ads frame as socialframe writes it (CSV, CSV for spreadsheets, JSON
    lines, Parquet or Excel), its columns typed again as the fetch made them: times,
    counts, flags, lists, ids as text.

    Every row written is read back, its text as written: a CSV for spreadsheets
    (told by its BOM) has the ``'`` that kept formulas text and the ``="..."`` around
    ids taken off; a plain CSV is read as it is (there, ``'=1`` is text that starts
    with a quote). A CSV or a workbook cannot tell an empty text from a missing one:
    both read as missing. A workbook's times are UTC (it has no zones), to the
    millisecond (what Excel keeps).

    Args:
        source: A path, or a binary stream (the format is told by the first bytes:
            Parquet's ``PAR1``, a workbook's ZIP, JSON lines' ``{``, else CSV).

    Returns:
        The frame, marked as ours.

    Raises:
        ValueError: the file is none of these (saying what it is and what is read), or
            not a frame socialframe wrote; a value that cannot be its column's type
            (naming the column and the value).
        OSError: it cannot be read.

    Example:
        >>> import tempfile
        >>> import socialframe as sf
        >>> from socialframe.sandbox import EXAMPLE_POSTS, comments_body
        >>> frame = sf.comments_frame([comments_body(EXAMPLE_POSTS[82], "mostRecent")])
        >>> path = frame.social.to_csv(Path(tempfile.mkdtemp()) / "comments.csv", excel=True)
        >>> back = sf.read_frame(path)
        >>> back.dtypes.equals(frame.dtypes), len(back) == len(frame)
        (True, True)
        >>> sf.read_frame(io.BytesIO("a,b".encode("utf-16")))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: the file is UTF-16 text, and socialframe reads UTF-8: save it as UTF-8 ...
    """
    from .._schema import AD_CORE, AD_DTYPES, COMMENT_CORE, COMMENT_DTYPES, mark

    data = source.read() if hasattr(source, "read") else Path(source).read_bytes()
    given = getattr(source, "name", None) if hasattr(source, "read") else str(source)
    name = _named(given)
    found, text = _format(data, name)
    if found == "parquet":
        frame = _parquet(data, name)
    elif found == "xlsx":
        frame = _xlsx(data, name)
    elif found == "jsonl":
        frame = _jsonl(text, name)
    else:
        frame = _csv(text, name, excel=data.startswith(_UTF8_BOM))
    columns = set(frame.columns)
    if set(COMMENT_CORE) <= columns:
        kind, types = "comments", COMMENT_DTYPES
    elif set(AD_CORE) <= columns:
        kind, types = "ads", AD_DTYPES
    else:
        raise ValueError(
            f"{name} is not a comments or ads frame of socialframe (its columns:"
            f" {', '.join(_cut(_printable(str(c)), 40) for c in list(frame.columns)[:8])}…):"
            " read a file that socialframe comments or ads -o, or df.social.to_csv, wrote"
        )
    for column in frame.columns:
        if column in types:
            frame[column] = _typed(frame[column], types[column], str(column))
        elif _is_id(str(column)):
            frame[column] = _typed(frame[column], pd.StringDtype(), str(column))
        elif found == "jsonl":  # (JSON says what is text, a number, a flag, a list)
            if frame[column].map(lambda v: _blank(v) or isinstance(v, str)).all():
                frame[column] = frame[column].astype("string")
            else:  # flags, whole numbers and floats, as a fetch types them
                frame[column] = _json_numbers(frame[column])
        elif found == "xlsx" and not frame[column].map(_blank_or_text).all():
            # a workbook's numbers and flags, as a fetch types them (Int64, boolean...)
            frame[column] = frame[column].infer_objects().convert_dtypes()
        elif found == "xlsx" or pd.api.types.is_string_dtype(frame[column]):
            frame[column] = _extra(frame[column])
    return mark(frame, kind)


def _named(given: object) -> str:
    """How a message names the source: its path, or ``standard input``."""
    if given in (None, "<stdin>", 0) or not isinstance(given, str):
        return "standard input" if given in ("<stdin>", 0) else "the file"
    return given


#: A compressed file (Parquet, a workbook) may take this many times its size once read,
#: and at least :data:`LEAST_BOUND` bytes: past that it is refused before it is read (a
#: file of kilobytes can unpack to gigabytes: a notebook or a report would die of it).
RATIO_BOUND: Final = 100
LEAST_BOUND: Final = 256 * 2**20


def _most(data: bytes) -> int:
    """The most bytes a compressed file of ``data`` may take once read."""
    return max(LEAST_BOUND, RATIO_BOUND * len(data))


def _too_large(name: str, data: bytes) -> ValueError:
    return ValueError(
        f"{name} would take more than {_most(data) // 2**20:,} MiB once unpacked, over"
        f" {RATIO_BOUND} times its size: not a file socialframe wrote (it writes text that"
        " unpacks to a few times its size)"
    )


def _unreadable(name: str, what: str) -> ValueError:
    return ValueError(f"{name} {what}. {READS}.")


def _format(data: bytes, name: str) -> tuple[str, str]:
    """``(format, text)``: ``parquet``, ``xlsx``, ``jsonl`` or ``csv``, and the text of
    the last two.

    Raises:
        ValueError: what the file is instead (empty, UTF-16, compressed, an image,
            binary, not UTF-8, an HTML page, a JSON array), in words.
    """
    if not data.strip():
        raise _unreadable(name, "is empty (not even the header line socialframe writes)")
    if data[:4] == b"PAR1":
        return "parquet", ""
    if data[:4] == b"PK\x03\x04":
        return "xlsx", ""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            raise _unreadable(
                name,
                f"is {encoding} text, and socialframe reads UTF-8: save it as UTF-8 (in Excel:"
                " CSV UTF-8)",
            )
    for magic, what in _MAGIC.items():
        if data.startswith(magic):
            raise _unreadable(name, f"is {what}")
    if _utf16(data[:64]):  # (UTF-16 of ASCII without its mark: every other byte a NUL)
        raise _unreadable(
            name,
            "is UTF-16 text, and socialframe reads UTF-8: save it as UTF-8 (in Excel: CSV UTF-8)",
        )
    # The first line of a file of ours (a CSV's header, or a JSON object, which escapes
    # control characters) holds no control byte; a text further on may (hostile service
    # data), so only the first line decides.
    if _CONTROL.search(data[:4096].split(b"\n", 1)[0]):
        raise _unreadable(name, "is binary data, not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = data[exc.start : exc.start + 1].hex().upper()
        raise _unreadable(
            name,
            f"is not UTF-8 text (byte 0x{byte} at position {exc.start:,}: Latin-1 or Windows"
            " text?): save it as UTF-8 (in Excel: CSV UTF-8)",
        ) from None
    start = text.lstrip()[:64].lower()
    if start.startswith(("<!doctype html", "<html")):
        raise _unreadable(name, "is an HTML page (a report?), not a frame's file")
    if start.startswith("{"):
        return "jsonl", text
    if start.startswith("["):
        raise _unreadable(name, "is a JSON array; socialframe writes JSON lines: one object a line")
    return "csv", text


def _csv(text: str, name: str, *, excel: bool) -> pd.DataFrame:
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except pd.errors.ParserError as exc:
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if found:
            expected, line, saw = (int(n) for n in found.groups())
            what = (
                f"is not a CSV as socialframe writes it: line {line:,} has {saw:,} fields"
                f" where its header has {expected:,}"
            )
        else:
            where = re.search(r"line (\d+)", str(exc))
            near = f" (near line {int(where.group(1)):,})" if where else ""
            what = f"is not a CSV as socialframe writes it: a quote left open{near}"
        raise _unreadable(name, what) from None
    except pd.errors.EmptyDataError:
        raise _unreadable(name, "holds no columns") from None
    frame = frame.replace("", None)
    if excel:  # for spreadsheets (its BOM): the text as it was
        frame.columns = [_unquoted(str(c)) for c in frame.columns]
        for number, column in enumerate(frame.columns):
            undo = _from_id if _is_id(str(column)) else _unquoted
            frame.isetitem(number, frame.iloc[:, number].map(undo, na_action="ignore"))
    return frame


def _parquet(data: bytes, name: str) -> pd.DataFrame:
    if not data.endswith(b"PAR1"):  # (a Parquet file ends as it starts)
        raise _unreadable(name, "is a Parquet file cut short (its end is missing): write it again")
    try:
        from .. import _parquet  # (never pd.read_parquet: see _parquet)

        frame = _parquet.table(data, most=_most(data)).to_pandas()
    except ImportError:
        raise ValueError(f"reading {name} (Parquet) needs pyarrow: pip install pyarrow") from None
    except _parquet.TooLarge:
        raise _too_large(name, data) from None
    except Exception:  # (pyarrow's many errors, which name no file)
        raise _unreadable(name, "is a damaged Parquet file: write it again") from None
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].map(
                lambda v: v.tolist() if isinstance(v, np.ndarray) else v
            )
    return frame


def _xlsx(data: bytes, name: str) -> pd.DataFrame:
    """An Excel workbook's first sheet, every cell as the workbook holds it."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            book = "xl/workbook.xml" in archive.namelist()
            unpacked = sum(entry.file_size for entry in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise _unreadable(name, "is a ZIP archive cut short or damaged") from None
    if not book:
        raise _unreadable(name, "is a ZIP archive, not an Excel workbook")
    if unpacked > _most(data):
        raise _too_large(name, data)
    if importlib.util.find_spec("openpyxl") is None:  # (pandas' reader of .xlsx)
        raise ValueError(f"reading {name} (an Excel workbook) needs openpyxl: pip install openpyxl")
    try:
        with warnings.catch_warnings():  # (openpyxl warns of styles it does not know)
            warnings.simplefilter("ignore")
            frame = pd.read_excel(io.BytesIO(data), dtype=object, engine="openpyxl")
    except Exception:  # (openpyxl's and zipfile's errors, which name no file)
        raise _unreadable(name, "is a damaged Excel workbook: write it again") from None
    frame.columns = [str(c) for c in frame.columns]
    return frame.astype(object).where(frame.notna(), None)


def _jsonl(text: str, name: str) -> pd.DataFrame:
    """JSON lines: one object a line (a line break inside a text is escaped in JSON, so
    only LF ends a row; U+2028 and the like are text)."""
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            raise _unreadable(
                name, f"is not JSON lines as socialframe writes them: line {number:,} is no JSON"
            ) from None
        if not isinstance(row, dict):
            raise _unreadable(
                name, f"is not JSON lines as socialframe writes them: line {number:,} is no object"
            )
        rows.append(row)
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return pd.DataFrame({c: pd.Series([row.get(c) for row in rows], dtype=object) for c in columns})


def _json_numbers(column: pd.Series) -> pd.Series:
    """A .jsonl extra column of JSON flags, whole numbers or floats, each kind alone, as
    ``boolean``, ``Int64`` or ``Float64`` (every digit of an int kept: never by way of a
    float); anything else, or kinds mixed, as it was."""
    given = [v for v in column if not _blank(v)]
    for kind, dtype in ((bool, "boolean"), (int, "Int64"), (float, "Float64")):
        if given and all(type(v) is kind for v in given):
            if kind is int and not all(-(2**63) <= v < 2**63 for v in given):
                return column
            cells = [None if _blank(v) else v for v in column]
            return pd.Series(pd.array(cells, dtype=dtype), index=column.index)
    return column


def _extra(column: pd.Series) -> pd.Series:
    """An extra column (one no schema types) read as text, typed as the fetch typed it
    where the text tells: lists and objects written as JSON, flags written as True /
    False; other text stays text (a number cannot be told from text that is one)."""
    given = column.dropna()
    words = set(given.unique())
    if words and words <= {"True", "False"}:
        return column.map({"True": True, "False": False}).astype("boolean")
    if len(given) and given.str.match(r"\s*[\[{]").all():
        try:
            decoded = [json.loads(v) for v in given]
        except (ValueError, RecursionError):
            decoded = []
        if decoded and all(isinstance(v, list | dict) for v in decoded):
            out = pd.Series([None] * len(column), index=column.index, dtype=object)
            out[given.index] = pd.Series(decoded, index=given.index, dtype=object)
            return out
    return column.astype("string")  # (as a fetch types text)


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value is pd.NA


def _blank_or_text(value: object) -> bool:
    return _blank(value) or isinstance(value, str)


def _id(value: object) -> str:
    """An id as text (a workbook or JSON may hold one of few digits as a number).

    Raises:
        ValueError: a number that cannot be an id's digits: a fraction, or past 2**53,
            where a float no longer holds every whole number (a 19-digit id a
            spreadsheet turned into a number is another id by then).
    """
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, float | np.floating):
        number = float(value)
        if not number.is_integer() or abs(number) >= 2**53:
            raise ValueError(value)
        return str(int(number))
    if isinstance(value, int | np.integer):
        return str(int(value))
    return str(value)


def _unquoted(text: str) -> str:
    """Text :func:`~.export.spreadsheet_text` wrote (``'@Anna``, ``'=1+1``, ``''=x``,
    ``hi;\u200b=1``) as it was: the one ``'`` it was given and the marks it put
    inside taken away."""
    text = text[1:] if _QUOTED.match(text) else text
    return _INSIDE_MARKED.sub(r"\1", text) if INSIDE_MARK in text else text


def _from_id(text: str) -> str:
    """An id as :func:`~.export.spreadsheet_id` wrote it (``="738…"``, or text) as it was."""
    found = _EXCEL_ID.fullmatch(text)
    return found.group(1) if found else _unquoted(text)


_QUOTED: Final = re.compile(_QUOTED_FORMULA)
#: An id as a spreadsheet CSV holds it: digits now; any text in files of earlier
#: versions (which wrote every id so).
_EXCEL_ID: Final = re.compile(r'="(.*)"', re.DOTALL)


def _wanted(dtype: Any) -> str:
    """What a value of ``dtype`` is, in words."""
    if isinstance(dtype, pd.DatetimeTZDtype):
        return "a time (ISO 8601, such as 2025-12-01T09:30:00+00:00)"
    if str(dtype).startswith("timedelta"):
        return "a duration (such as 0 days 20:14:59)"
    if str(dtype) == "boolean":
        return "true or false"
    if pd.api.types.is_integer_dtype(dtype):
        return "a whole number (of at most 19 digits)"
    if pd.api.types.is_numeric_dtype(dtype):
        return "a number"
    if str(dtype) == "object":
        return "a JSON list"
    return "text"


def _typed(column: pd.Series, dtype: Any, name: str) -> pd.Series:
    """``column`` (text from a CSV, or already typed) as ``dtype``.

    Raises:
        ValueError: a value is not of ``dtype``: the column, the value (cut short: a
            file may hold a megabyte in one cell) and what was expected, in words.
    """
    try:
        with warnings.catch_warnings():  # (numpy's casts warn first, then fail: said below)
            warnings.simplefilter("ignore", RuntimeWarning)
            return _as(column, dtype, ident=_is_id(name))
    except (KeyError, ValueError, TypeError, OverflowError, RecursionError):
        # (OverflowError: a count of 1e400; RecursionError: a list nested 100,000 deep)
        bad = _first_bad(column, dtype, ident=_is_id(name))
        said = "a value" if bad is None else _cut(repr(bad), 60)
        raise ValueError(
            f"column {name!r} holds {said} where {_wanted(dtype)} was expected: not a file"
            " socialframe wrote, or one changed since"
        ) from None


def _first_bad(column: pd.Series, dtype: Any, *, ident: bool = False) -> object:
    """The first value of ``column`` that is not of ``dtype`` (None if none alone is)."""
    for value in column:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                _as(pd.Series([value], dtype=column.dtype), dtype, ident=ident)
        except (KeyError, ValueError, TypeError, OverflowError, RecursionError):
            return value
    return None


def _printable(text: str) -> str:
    """``text`` as a message may hold it (a file's header, named in an error): what is
    not printable (escapes, control and direction marks) as ``repr`` writes it."""
    return text if text.isprintable() else repr(text)[1:-1]


def _cut(text: str, most: int = 160) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _as(column: pd.Series, dtype: Any, *, ident: bool = False) -> pd.Series:
    """``column`` as ``dtype`` (see :func:`_typed`, which says what fails); ``ident``: a
    column of ids (:func:`_id`)."""
    if str(dtype) == "object":  # lists, written as JSON text
        return column.map(lambda v: json.loads(v) if isinstance(v, str) else v).astype(object)
    if isinstance(dtype, pd.DatetimeTZDtype):
        if column.map(lambda v: _blank(v) or isinstance(v, str)).all():
            return pd.to_datetime(column, utc=True, format="ISO8601").astype(dtype)
        return pd.to_datetime(column, utc=True).astype(dtype)  # (a workbook's times)
    if str(dtype).startswith("timedelta"):
        return pd.to_timedelta(column).astype(dtype)
    text = column.dtype == object or pd.api.types.is_string_dtype(column)
    if str(dtype) == "boolean" and text:
        flags = {"true": True, "false": False}
        kept = column.map(lambda v: None if _blank(v) else flags[str(v).strip().lower()])
        return kept.astype(dtype)
    if isinstance(dtype, pd.StringDtype):
        text_of = _id if ident else str
        return column.map(lambda v: v if _blank(v) else text_of(v)).astype(dtype)
    if pd.api.types.is_numeric_dtype(dtype) and text:
        return pd.to_numeric(column.map(lambda v: None if _blank(v) else v)).astype(dtype)
    return column.astype(dtype)
