"""Files that survive spreadsheets and pipelines: CSV (ids as text, lists as JSON,
newlines quoted), JSON lines, Parquet and Excel, chosen by the suffix of the name
given; written whole or not at all, and only over a regular file that is neither
the cache nor an input (see :func:`check_target`).

Why over 400 lines: one job, a frame into a file that nothing can break. The
four formats and the checks of where they may go belong together: the checks run
once before a paid fetch and again at the moment of writing, and the atomic
replace (with interrupts held back) is what every format is written through.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import importlib
import io
import json
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Target:
    """Where :func:`write` puts a frame, as :func:`check_target` found it.

    Attributes:
        given: The name as the user gave it (``None``: standard output).
        path: The file (``None``: standard output, or discarded).
        suffix: The format: the suffix of the name as given (``.csv`` for standard
            output), never that of the file a link points to.
        discard: The null device (``-o /dev/null``): nothing is written.
        protect: The files it must never be (checked again when writing).
        inputs: File descriptors the run reads from (checked again when writing).
    """

    given: str | None
    path: Path | None
    suffix: str = ".csv"
    discard: bool = False
    protect: tuple[Path, ...] = ()
    inputs: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.discard:
            return f"{self.given} (discarded)"
        return "standard output" if self.path is None else str(self.path)


def check_target(
    path: str | Path | Target | None,
    *,
    protect: Iterable[str | Path] = (),
    inputs: Iterable[int] = (),
) -> Target:
    """Where :func:`write` will write (``None``/``-``: standard output), checked now.

    Called before anything is fetched (and paid): an unknown suffix, a missing
    writer, a missing folder or a target that is no file would otherwise surface
    after the money is spent.

    The rules: the suffix of the name as given picks the format (a link is
    followed to the file it names, whose own suffix plays no part); what exists
    there must be a regular file (a pipe, a device, a socket or a folder would be
    replaced by a file, or never hold one whole); it must not be one of
    ``protect`` or an input, compared as files (device and inode), so that no
    hard or symbolic link gets around it. Two names are accepted for what they
    mean in a shell: the null device (``/dev/null``) discards, and standard
    output under another name (``/dev/stdout``, ``/dev/fd/1``) is ``-``.

    Args:
        path: The file, or ``None`` / ``"-"`` for CSV to standard output (a
            :class:`Target` is checked again, as given).
        protect: Cache files it must never be (writing over one would lose every
            page paid for): each with its ``-wal``, ``-shm`` and ``-journal``
            files and the lock files in its ``.locks`` folder.
        inputs: Open file descriptors read as input (standard input is ``0``).

    Returns:
        The checked :class:`Target`.

    Raises:
        ValueError: the suffix is not in :data:`FORMATS`, its writer is not
            installed, the folder does not exist or cannot be written, what is
            there is not a regular file, or it is one of ``protect`` or ``inputs``.

    Example:
        >>> check_target("ads.txt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot write 'ads.txt': the suffix chooses the format: .csv, ...
    """
    if isinstance(path, Target):
        return check_target(path.given, protect=path.protect, inputs=path.inputs)
    kept = tuple(Path(p) for p in protect)
    read = tuple(inputs)
    if path is None or str(path) == "-":
        return Target(None, None, protect=kept, inputs=read)
    given = str(path)
    target = Path(path).expanduser()
    found = _existing(target)
    if found is not None and _same(found, _stat(Path(os.devnull))):
        return Target(given, None, discard=True, protect=kept, inputs=read)
    suffix = target.suffix.lower()
    # /dev/stdout, /dev/fd/1: as "-" (a file by that name with a format's suffix is a file)
    regular = found is None or stat.S_ISREG(found.st_mode)
    if _same(found, _fstat(1)) and (not regular or suffix not in FORMATS):
        return Target(given, None, protect=kept, inputs=read)
    if found is not None and not regular:
        raise ValueError(_not_a_file(target, found))
    if suffix not in FORMATS:
        known = ", ".join(list(FORMATS)[:-1]) + f" or {list(FORMATS)[-1]}"
        raise ValueError(f"cannot write {given!r}: the suffix chooses the format: {known}")
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
    real = Path(os.path.realpath(target))
    for cache in kept:
        what = _part_of_cache(real, found, cache)
        if what:
            raise ValueError(f"cannot write {target}: it is {what} {cache}")
    for fd in read:
        if _same(found, _fstat(fd)):
            name = "standard input" if fd == 0 else f"the input file (descriptor {fd})"
            raise ValueError(f"cannot write {target}: it is {name}, read by this run")
    return Target(given, target, suffix=suffix, protect=kept, inputs=read)


def _existing(target: Path) -> os.stat_result | None:
    """What is at ``target``, links followed; ``None`` when nothing is (yet)."""
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError(f"cannot write {target}: its symbolic links form a loop") from None
        if exc.errno == errno.ENOTDIR:
            raise ValueError(f"cannot write {target}: a part of it is not a folder") from None
        raise ValueError(f"cannot write {target}: {exc.strerror or exc}") from None


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _fstat(fd: int) -> os.stat_result | None:
    try:
        return os.fstat(fd)
    except OSError:
        return None


def _same(one: os.stat_result | None, other: os.stat_result | None) -> bool:
    """The same file: the same device and inode (what a link, hard or symbolic, shares)."""
    if one is None or other is None:
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


def _part_of_cache(real: Path, found: os.stat_result | None, cache: Path) -> str:
    """What of the SQLite ``cache`` the file at ``real`` is (its ``found`` stat):
    the file, its journal, a page lock; ``""`` for none."""
    for name in (cache, *(Path(f"{cache}{end}") for end in ("-wal", "-shm", "-journal"))):
        if real == Path(os.path.realpath(name)) or _same(found, _stat(name)):
            return "the cache file" if name == cache else "a file of the cache"
    locks = Path(f"{cache}.locks")
    if real.parent == Path(os.path.realpath(locks)):
        return "a file of the cache"
    if found is not None and found.st_nlink > 1:  # a hard link to a lock file, elsewhere
        with contextlib.suppress(OSError), os.scandir(locks) as entries:
            if any(_same(found, _stat(Path(entry.path))) for entry in entries):
                return "a file of the cache"
    return ""


def _not_a_file(target: Path, found: os.stat_result) -> str:
    mode = found.st_mode
    if stat.S_ISDIR(mode):
        return f"cannot write {target}: it is a folder"
    kind = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a character device"
        if stat.S_ISCHR(mode)
        else "a block device"
        if stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    return (
        f"cannot write {target}: it is {kind}, not a regular file; name a file"
        " (.csv, .jsonl, .parquet, .xlsx), or - for standard output"
    )


def check_place(target: Path) -> None:
    """Check that ``target`` can be written: its folder exists, it is a regular file
    (or nothing yet), we may write.

    Shared by every writer of files (exports, the HTML report), before any work.

    Raises:
        ValueError: there is no such folder, ``target`` is a folder, a pipe, a
            device or a socket, or there is no permission to write it.
    """
    folder = target.parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {target}: there is no folder {folder}")
    real = Path(os.path.realpath(target))
    if not real.parent.is_dir():  # a link to a file in a folder that is gone
        raise ValueError(f"cannot write {target}: it links to {real}, in no folder")
    found = _existing(target)
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise ValueError(_not_a_file(target, found))
    writable = os.access(target, os.W_OK) if found is not None else os.access(folder, os.W_OK)
    if not writable:
        raise ValueError(f"cannot write {target}: no permission to write there")


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
    df: pd.DataFrame, path: str | Path | Target | None, *, excel: bool = False
) -> Path | None:
    """Write ``df`` in the format its suffix names; ``None`` or ``-``: CSV to stdout.

    ``.csv`` follows :func:`to_csv` (``excel=True``: the BOM and id cells Excel keeps
    as text); ``.jsonl`` is one JSON object per row (lists as arrays, times ISO 8601
    UTC, missing as ``null``); ``.parquet`` keeps every dtype; ``.xlsx`` has times in
    UTC without a zone (Excel has none), lists as JSON text, and text that starts
    with ``=`` stays text, never a formula.

    Args:
        df: The frame.
        path: The file, ``None`` / ``"-"``, or the :class:`Target` that
            :func:`check_target` returned before the fetch (checked again now:
            what is there may have changed meanwhile).
        excel: CSV only: write it for Excel.

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
        _to_stream(df, sys.stdout.buffer, excel=excel)
        return None
    suffix = target.suffix
    replace_atomically(target.path, lambda into: _to_file(df, into, suffix, excel=excel))
    return target.path


def replace_atomically(target: Path, fill: Callable[[Path], object]) -> None:
    """Write ``target`` through ``fill(path)``: into a file beside it, moved into place once whole.

    A full disk, a failure or an interrupt (Ctrl-C, SIGTERM) half-way leaves the
    file as it was (never a fragment that looks complete) and no temporary file
    behind. A link is followed (the file it names is replaced, keeping its mode).
    A file with other hard links, or in a folder that cannot be written, keeps its
    inode: it is filled elsewhere first, then copied over with interrupts held
    back until the copy is whole (only a full disk during that copy can still
    cut it short).

    Args:
        target: The file to write (checked beforehand by :func:`check_place`).
        fill: Writes the whole content to the path it is given (a temporary file
            with ``target``'s suffix).

    Raises:
        ValueError: what is there is not a regular file (a pipe or a device would
            be replaced by a file).
        OSError: the file could not be written; whatever ``fill`` raises.
    """
    real = Path(os.path.realpath(target))
    old = _existing(real)
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise ValueError(_not_a_file(target, old))
    beside = os.access(real.parent, os.W_OK)
    in_place = (old is not None and old.st_nlink > 1) or not beside
    handle, name = tempfile.mkstemp(
        prefix=".sf-", suffix=target.suffix, dir=real.parent if beside else None
    )
    os.close(handle)
    partial = Path(name)
    try:
        fill(partial)
        if in_place:
            with interrupts_held():
                shutil.copyfile(partial, real)  # (opens it for writing: same inode, same links)
                partial.unlink()
        else:
            os.chmod(partial, stat.S_IMODE(old.st_mode) if old is not None else new_file_mode())
            os.replace(partial, real)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise


#: The signals that ask a run to stop, as Ctrl-C does (SIGHUP: not on Windows).
INTERRUPTS: Final = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back during the block; deliver them after it.

    For a step that must not stop half-way (a file rewritten in place). The
    handlers they had are put back first, so each is then handled as it would
    have been. Python runs handlers in the main thread only: elsewhere nothing
    can interrupt the block this way, and nothing is held.

    Example:
        >>> with interrupts_held():
        ...     pass
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []

    def hold(number: int, frame: object) -> None:
        came.append(number)

    held: dict[int, Any] = {}
    for number in INTERRUPTS:
        if signal.getsignal(number) not in (signal.SIG_IGN, None):
            held[number] = signal.signal(number, hold)
    try:
        yield
    finally:
        for number, handler in held.items():
            signal.signal(number, handler)
        for number in came:
            signal.raise_signal(number)


def new_file_mode() -> int:
    """The mode a new file gets from open() here: 0o666 less the umask."""
    mask = os.umask(0o022)  # (read by setting it: put straight back)
    os.umask(mask)
    return 0o666 & ~mask


def _to_file(df: pd.DataFrame, target: Path, suffix: str, *, excel: bool) -> None:
    """Write ``target`` in the format of ``suffix`` (the name the user gave, not the file's)."""
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


# -- reading back -----------------------------------------------------------------------


def read_frame(source: str | Path | BinaryIO) -> pd.DataFrame:
    """A comments or ads frame as written by socialframe (CSV, Excel CSV or Parquet), its
    columns typed again as the fetch made them: times, counts, flags, lists, ids as text.

    Args:
        source: A ``.csv`` / ``.parquet`` path, or a binary stream of either (Parquet is
            told by its first bytes).

    Returns:
        The frame, marked as ours.

    Raises:
        ValueError: the file is neither, or not a frame socialframe wrote; a value
            that cannot be its column's type.
        OSError: it cannot be read.
    """
    from .._schema import AD_CORE, AD_DTYPES, COMMENT_CORE, COMMENT_DTYPES, mark

    data = source.read() if hasattr(source, "read") else Path(source).read_bytes()
    name = getattr(source, "name", None) if hasattr(source, "read") else str(source)
    if data[:4] == b"PAR1":
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow's errors name no file: say which
            raise ValueError(f"{name}: not a Parquet file pandas can read ({exc})") from None
        for column in frame.columns:
            if frame[column].dtype == object:
                frame[column] = frame[column].map(
                    lambda v: v.tolist() if isinstance(v, np.ndarray) else v
                )
    else:
        try:
            text = data.decode("utf-8-sig")
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise ValueError(f"{name}: neither Parquet nor a CSV of ours ({exc})") from None
        frame = frame.replace("", None)
        if data[:3] == b"\xef\xbb\xbf":  # Excel's CSV (its BOM): text made safe, as it was
            for column in frame.columns:
                frame[column] = _unquote(frame[column])
    columns = set(frame.columns)
    if set(COMMENT_CORE) <= columns:
        kind, types = "comments", COMMENT_DTYPES
    elif set(AD_CORE) <= columns:
        kind, types = "ads", AD_DTYPES
    else:
        raise ValueError(
            f"{name}: not a comments or ads frame of socialframe (its columns:"
            f" {', '.join(map(str, list(frame.columns)[:8]))}…)"
        )
    for column in frame.columns:
        if column in types:
            frame[column] = _typed(frame[column], types[column], str(column))
        elif _is_id(str(column)):
            frame[column] = _unexcel(frame[column]).astype("string")
        elif pd.api.types.is_string_dtype(frame[column]):
            frame[column] = _extra(_unexcel(frame[column]))
    return mark(frame, kind)


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


def _unquote(column: pd.Series) -> pd.Series:
    """Text that ``csv_ready(excel=True)`` made safe (``'@Anna``, ``'=1+1``) as it was
    written: the quote it was given before a formula's first character taken away."""
    starts = re.escape("".join(FORMULA_STARTS))
    return column.str.replace(f"^'(?=[{starts}])", "", regex=True)


def _unexcel(column: pd.Series) -> pd.Series:
    """Ids as Excel CSV writes them (``="738…"``) as the ids they are."""
    if column.dtype != object and not pd.api.types.is_string_dtype(column):
        return column
    text = column.astype("string")
    return text.str.replace(r'^="(.*)"$', r"\1", regex=True)


def _typed(column: pd.Series, dtype: Any, name: str) -> pd.Series:
    """``column`` (text from a CSV, or already typed from Parquet) as ``dtype``.

    Raises:
        ValueError: a value is not of ``dtype``; what it says is cut short (pandas
            quotes the value whole, and a file may hold a megabyte in one cell).
    """
    try:
        with warnings.catch_warnings():  # (numpy's casts warn first, then fail: said below)
            warnings.simplefilter("ignore", RuntimeWarning)
            return _as(column, dtype)
    except KeyError as exc:
        said = _cut(str(exc))
        raise ValueError(f"column {name!r} holds {said} where true or false was expected") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # (OverflowError: a count of 1e400; RecursionError: a list nested 100,000 deep)
        raise ValueError(f"column {name!r} does not read as {dtype} ({_cut(str(exc))})") from None


def _cut(text: str, most: int = 160) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _as(column: pd.Series, dtype: Any) -> pd.Series:
    """``column`` as ``dtype`` (see :func:`_typed`, which says what fails)."""
    if str(dtype) == "object":  # lists, written as JSON text
        return column.map(lambda v: json.loads(v) if isinstance(v, str) else v).astype(object)
    if isinstance(dtype, pd.DatetimeTZDtype):
        return pd.to_datetime(column, utc=True, format="ISO8601").astype(dtype)
    if str(dtype).startswith("timedelta"):
        return pd.to_timedelta(column).astype(dtype)
    text = column.dtype == object or pd.api.types.is_string_dtype(column)
    if str(dtype) == "boolean" and text:
        flags = {"true": True, "false": False}
        kept = column.map(lambda v: None if _blank(v) else flags[str(v).strip().lower()])
        return kept.astype(dtype)
    if isinstance(dtype, pd.StringDtype):
        return _unexcel(column).astype(dtype)
    if pd.api.types.is_numeric_dtype(dtype) and text:
        return pd.to_numeric(column.map(lambda v: None if _blank(v) else v)).astype(dtype)
    return column.astype(dtype)
