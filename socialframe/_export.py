"""Files that survive spreadsheets and pipelines: CSV (ids as text, lists as JSON,
newlines quoted), JSON lines, Parquet and Excel, chosen by the file's suffix."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, Final

import numpy as np
import pandas as pd

#: Columns holding ids: 19-digit numbers that a spreadsheet would turn into 7.38E+18.
ID_SUFFIXES = ("_id", "_urn")


def _is_id(name: str) -> bool:
    return name.endswith(ID_SUFFIXES) or name in {"comment_id", "ad_archive_id", "collation_id"}


def _json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


#: A cell starting with one of these is a formula to a spreadsheet ("CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _id_text(column: pd.Series) -> pd.Series:
    """Ids as text; numeric ids as whole numbers (never 7.38e+18)."""
    if pd.api.types.is_float_dtype(column):
        column = column.round().astype("Int64")
    return column.astype("string")


def _times(column: pd.Series) -> pd.Series:
    # RFC 3339: "+00:00", not strftime's "+0000".
    text = column.dt.strftime("%Y-%m-%dT%H:%M:%S.%f%z")
    return text.str.replace(r"([+-]\d\d)(\d\d)$", r"\1:\2", regex=True)


def csv_ready(df: pd.DataFrame, *, excel: bool = False) -> pd.DataFrame:
    """The frame as it is written: lists / dicts as JSON text, ids as text.

    With ``excel=True`` id cells are written as ``="7384427202391592960"``, the one
    form Excel opens as text rather than as a rounded number in scientific notation,
    and text that Excel would run as a formula (``=``, ``+``, ``-``, ``@`` first:
    comments written by strangers) gets a leading ``'``, which Excel shows as text.
    """
    out = df.copy()
    for name in out.columns:
        column = out[name]
        if column.dtype == object:
            out[name] = column.map(_json)
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = _times(column)
        elif _is_id(str(name)) and not pd.api.types.is_bool_dtype(column):
            text = _id_text(out[name])
            out[name] = ('="' + text + '"') if excel else text
        elif excel and (column.dtype == object or pd.api.types.is_string_dtype(column)):
            text = out[name].astype("string")
            risky = text.str.startswith(FORMULA_STARTS).fillna(False).astype(bool)
            out[name] = text.mask(risky, "'" + text)
    return out


def to_csv(df: pd.DataFrame, path: str | Path, *, excel: bool = False) -> Path:
    """Write ``df`` to ``path`` as CSV; ``excel=True`` adds the UTF-8 BOM Excel needs.

    Times are RFC 3339 (``2026-01-01T09:30:00.000000+00:00``); text keeps its
    newlines inside quotes.

    Returns:
        The path written.
    """
    target = Path(path)
    csv_ready(df, excel=excel).to_csv(
        target,
        index=False,
        encoding="utf-8-sig" if excel else "utf-8",
        quoting=csv.QUOTE_MINIMAL,
        lineterminator="\r\n" if excel else "\n",
    )
    return target


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")

#: The suffixes :func:`write` knows, and what each writes.
FORMATS: Final = {
    ".csv": "CSV (ids as text, lists as JSON, times RFC 3339)",
    ".jsonl": "JSON lines (one row per line, lists as arrays)",
    ".parquet": "Parquet (every column and dtype; needs pyarrow)",
    ".xlsx": "Excel (needs openpyxl or XlsxWriter)",
}


def check_target(path: str | Path | None, *, protect: Iterable[str | Path] = ()) -> Path | None:
    """The file :func:`write` will write (``None``/``-``: standard output), checked now.

    Called before anything is fetched (and paid): an unknown suffix, a missing
    writer or a missing folder would otherwise surface after the money is spent.

    Args:
        path: The file, or ``None`` / ``"-"`` for CSV to standard output.
        protect: Files it must never be (the cache file: writing over it would
            lose every page paid for), through any link.

    Returns:
        The path, or ``None`` for standard output.

    Raises:
        ValueError: the suffix is not in :data:`FORMATS`, its writer is not
            installed, the folder does not exist or cannot be written, the path
            is a folder, or it is one of ``protect``.

    Example:
        >>> check_target("ads.txt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot write 'ads.txt': the suffix chooses the format: .csv, ...
    """
    if path is None or str(path) == "-":
        return None
    target = Path(path).expanduser()
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        known = ", ".join(list(FORMATS)[:-1]) + f" or {list(FORMATS)[-1]}"
        raise ValueError(f"cannot write {str(path)!r}: the suffix chooses the format: {known}")
    if suffix == ".parquet" and not _installed("pyarrow", "fastparquet"):
        raise ValueError(
            f"writing {target.name} needs pyarrow: pip install pyarrow (or write .csv / .jsonl)"
        )
    if suffix == ".xlsx" and not _installed("openpyxl", "xlsxwriter"):
        raise ValueError(
            f"writing {target.name} needs an Excel writer: pip install openpyxl"
            " (or write .csv, which Excel opens)"
        )
    check_place(target)
    real = target.resolve()
    for kept in protect:
        kept = Path(kept).resolve()
        if real in (kept, Path(f"{kept}-wal"), Path(f"{kept}-shm"), Path(f"{kept}-journal")):
            raise ValueError(f"cannot write {target}: it is the cache file {kept}")
    return target


def check_place(target: Path) -> None:
    """Check that ``target`` can be written: its folder exists, it is no folder, we may write.

    Shared by every writer of files (exports, the HTML report), before any work.

    Raises:
        ValueError: there is no such folder, ``target`` is a folder, or there is
            no permission to write it.
    """
    folder = target.parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {target}: there is no folder {folder}")
    if target.is_dir():
        raise ValueError(f"cannot write {target}: it is a folder")
    writable = os.access(target, os.W_OK) if target.exists() else os.access(folder, os.W_OK)
    if not writable:
        raise ValueError(f"cannot write {target}: no permission to write there")


def _installed(*modules: str) -> str | None:
    """The first of ``modules`` that imports, or ``None``."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    return None


def write(df: pd.DataFrame, path: str | Path | None, *, excel: bool = False) -> Path | None:
    """Write ``df`` in the format its suffix names; ``None`` or ``-``: CSV to stdout.

    ``.csv`` follows :func:`to_csv` (``excel=True``: the BOM and id cells Excel keeps
    as text); ``.jsonl`` is one JSON object per row (lists as arrays, times ISO 8601
    UTC, missing as ``null``); ``.parquet`` keeps every dtype; ``.xlsx`` has times in
    UTC without a zone (Excel has none), lists as JSON text, and text that starts
    with ``=`` stays text, never a formula.

    Args:
        df: The frame.
        path: The file (checked by :func:`check_target`), or ``None`` / ``"-"``.
        excel: CSV only: write it for Excel.

    Returns:
        The path written, or ``None`` for standard output.

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
    if target is None:
        if sys.stdout is None:
            raise OSError("standard output is closed: nothing could be written")
        _to_stream(df, sys.stdout.buffer, excel=excel)
        return None
    replace_atomically(target, lambda into: _to_file(df, into, excel=excel))
    return target


def replace_atomically(target: Path, fill: Callable[[Path], object]) -> None:
    """Write ``target`` through ``fill(path)``: into a file beside it, moved into place once whole.

    A full disk or a failure half-way leaves the file as it was (never a fragment
    that looks complete) and no temporary file behind. A link is followed (the
    file it names is replaced, keeping its mode); a file with other hard links,
    or in a folder that cannot be written, is written in place.

    Args:
        target: The file to write (checked beforehand by :func:`check_place`).
        fill: Writes the whole content to the path it is given.

    Raises:
        OSError: the file could not be written; whatever ``fill`` raises.
    """
    real = Path(os.path.realpath(target))
    old = real.stat() if real.exists() else None
    if (old is not None and old.st_nlink > 1) or not os.access(real.parent, os.W_OK):
        fill(real)
        return
    handle, name = tempfile.mkstemp(prefix=".sf-", suffix=real.suffix, dir=real.parent)
    os.close(handle)
    partial = Path(name)
    try:
        fill(partial)
        os.chmod(partial, stat.S_IMODE(old.st_mode) if old is not None else _new_file_mode())
        os.replace(partial, real)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise


def _new_file_mode() -> int:
    """The mode a new file gets from open() here: 0o666 less the umask."""
    mask = os.umask(0o022)  # (read by setting it: put straight back)
    os.umask(mask)
    return 0o666 & ~mask


def _to_file(df: pd.DataFrame, target: Path, *, excel: bool) -> None:
    suffix = target.suffix.lower()
    if suffix == ".csv":
        to_csv(df, target, excel=excel)
    elif suffix == ".jsonl":
        df.to_json(
            target,
            orient="records",
            lines=True,
            date_format="iso",
            date_unit="us",
            force_ascii=False,
        )
    elif suffix == ".parquet":
        df.to_parquet(target, index=False)
    else:
        _to_xlsx(df, target)


def _to_stream(df: pd.DataFrame, stream: BinaryIO, *, excel: bool) -> None:
    """CSV to a byte stream (UTF-8 whatever the terminal's locale)."""
    text = io.StringIO()
    csv_ready(df, excel=excel).to_csv(
        text, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n" if excel else "\n"
    )
    stream.write(text.getvalue().encode("utf-8-sig" if excel else "utf-8"))
    stream.flush()


def _to_xlsx(df: pd.DataFrame, target: Path) -> None:
    out = df.copy()
    for name in out.columns:
        column = out[name]
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = column.dt.tz_convert("UTC").dt.tz_localize(None)
        elif pd.api.types.is_timedelta64_dtype(column.dtype):
            # Excel shows a bare number of days for a duration: written out in words
            out[name] = column.map(lambda v: None if pd.isna(v) else str(v))
        elif column.dtype == object:
            out[name] = column.map(_json)
        elif _is_id(str(name)) and not pd.api.types.is_bool_dtype(column):
            out[name] = _id_text(column)
        if out[name].dtype == object or isinstance(out[name].dtype, pd.StringDtype):
            # XML (inside .xlsx) cannot hold control characters: shown as U+FFFD
            out[name] = out[name].map(
                lambda v: _CONTROL.sub("\ufffd", v) if isinstance(v, str) else v
            )
    engine = _installed("openpyxl", "xlsxwriter")
    if engine == "xlsxwriter":
        options = {"options": {"strings_to_formulas": False, "strings_to_urls": False}}
        with pd.ExcelWriter(target, engine="xlsxwriter", engine_kwargs=options) as book:
            out.to_excel(book, index=False)
        return
    with pd.ExcelWriter(target, engine="openpyxl") as book:
        out.to_excel(book, index=False)
        # openpyxl takes any text starting with "=" for a formula; comments are
        # written by strangers, so it is kept as the text it is.
        for sheet in book.sheets.values():
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.data_type == "f":
                        cell.data_type = "s"
