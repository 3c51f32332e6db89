"""What each of a study's files must be, checked before anything reads it or a refresh
pays: the study's answers are never computed from a damaged or foreign file.

Each file a refresh writes is recorded in the manifest (``study.json``, ``checks``):
its size and its SHA-256 (``sha256sum`` checks it by hand). Before every answer and
before a refresh's first paid call, every file the manifest names is checked:

- reached through no link (:mod:`.folder`), a regular file of the recorded size,
  then read whole and hashed. Nothing less is sure: DuckDB returns the rows of a
  Parquet page with one byte flipped as if they were sound (10 of 20,000 texts
  changed, no error), and a file of another study holds the same columns, perhaps
  in as many bytes;
- a file of a study written before the records (none for it) must hold the columns
  the study writes, each of the type it writes (its Parquet footer), no more, no
  fewer (those added since may be missing).

Hashing is one more read of the files, at about 1.4 GB/s where the CPU has SHA
instructions (``bench/study_scale.py`` measures it beside the queries).

DuckDB then reads the files by their paths, so what it read is checked again once it
has answered (:func:`unchanged`): each file must still be the one checked (the same
inode, size and last change, reached through the same folders), or the answer is
refused. A file moved over one of the study's, a folder swapped for a link, or bytes
written in place while a refresh paid are never taken for the study's.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, Final, NamedTuple

from .._errors import StudyError
from . import folder

#: A record's ``sha256`` (``study.json``, ``checks``: path -> size and sha256).
SHA256: Final = re.compile(r"[0-9a-f]{64}")


def record(out: Any) -> dict[str, Any]:
    """The record of the file open as ``out`` (a binary file, read from its start)."""
    out.seek(0)
    digest = hashlib.file_digest(out, "sha256").hexdigest()
    return {"size": out.tell(), "sha256": digest}


def record_problem(value: object) -> str | None:
    """What is wrong with a record read from a manifest, or None."""
    if not isinstance(value, dict):
        return "not an object"
    size = value.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return f"size {size!r:.40} is not a count of bytes"
    sha = value.get("sha256")
    if not isinstance(sha, str) or not SHA256.fullmatch(sha):
        return f"sha256 {sha!r:.70} is not 64 lowercase hex digits"
    return None


#: What each file checked was (:func:`socialframe._study.folder.identity`), by its path
#: relative to the study's folder.
Checked = dict[str, tuple[folder.Identity, ...]]


def check(
    root: Path,
    files: Iterable[tuple[str, str]],
    records: Mapping[str, Mapping[str, Any]],
    *,
    stored: Mapping[str, Mapping[str, Any]],
    optional: Mapping[str, Collection[str]],
) -> Checked:
    """Check each of a study's files (see the module's docstring).

    Args:
        root: The study's folder.
        files: ``(kind, path relative to root)`` of every file its manifest names.
        records: Per path, its record (``size``, ``sha256``); a file without one is
            checked by its columns.
        stored: Per kind, the columns its files hold and their pandas dtypes
            (``object``: lists of text).
        optional: Per kind, the columns older files may lack.

    Returns:
        What each file was as it was checked, for :func:`unchanged`.

    Raises:
        StudyError: naming the first file that is not as the study wrote it.
    """
    try:
        fd = folder.open_root(root)
    except OSError as exc:
        raise StudyError(f"{root} cannot be opened ({exc.strerror})") from None
    checked: Checked = {}
    try:
        for kind, relative in files:
            path = root / relative
            try:
                # (taken first: a file changed while it is hashed is then told apart)
                checked[relative] = folder.identity(root, fd, relative)
                opened = folder.open_file(root, fd, relative)
            except FileNotFoundError:
                raise damaged(path, "is missing") from None
            except (IsADirectoryError, NotADirectoryError):
                raise damaged(
                    path, "is not a file the study wrote (a folder, a FIFO or a device)"
                ) from None
            except OSError as exc:
                raise damaged(path, f"cannot be opened ({exc.strerror})") from None
            with os.fdopen(opened, "rb") as data:
                problem = _problem(
                    data, records.get(relative), stored[kind], optional.get(kind, ())
                )
            if problem:
                raise damaged(path, problem) from None
    finally:
        os.close(fd)
    return checked


def unchanged(root: Path, checked: Checked) -> None:
    """Check that every file :func:`check` checked is still the one it checked (see the
    module's docstring): after DuckDB read them by their paths.

    Raises:
        StudyError: naming the first file that changed (or is now reached through a
            link).
    """
    try:
        fd = folder.open_root(root)
    except OSError as exc:
        raise StudyError(f"{root} cannot be opened ({exc.strerror})") from None
    try:
        for relative, was in checked.items():
            try:
                now: tuple[folder.Identity, ...] | None = folder.identity(root, fd, relative)
            except OSError:
                now = None
            if now != was:
                raise StudyError(
                    f"the study's files cannot be read: {root / relative} changed while"
                    " it was read (replaced, moved, written to or removed by another"
                    " program): nothing was taken from it. Make sure nothing else writes"
                    " in the study's folder"
                )
    finally:
        os.close(fd)


def bytes_problem(
    data: bytes, size: int, sha256: str | None, dtypes: Mapping[str, Any]
) -> str | None:
    """What is wrong with a file's bytes, read whole, against the size its table's log
    records, the SHA-256 its name holds (None: a file ``compact`` wrote) and its
    columns (``dtypes``), or None."""
    import pyarrow as pa

    if len(data) != size:
        why = columns_problem(pa.BufferReader(data), dtypes, ())
        return (
            f"holds {len(data):,} bytes where the study wrote {size:,}: it was cut"
            " short, changed or replaced" + (f" ({why})" if why else "")
        )
    if sha256 is None:
        why = columns_problem(pa.BufferReader(data), dtypes, ())
        return f"is not a file the study wrote ({why})" if why else None
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        return (
            "is damaged: its bytes are not those the study wrote (their SHA-256 differs"
            " from the one its name holds)"
        )
    return None


def _problem(
    data: Any,
    want: Mapping[str, Any] | None,
    dtypes: Mapping[str, Any],
    optional: Collection[str],
) -> str | None:
    """What is wrong with one file, open as ``data``, or None."""
    if want is None:  # a file written before records were kept: its columns
        why = columns_problem(data, dtypes, optional)
        return f"is not a file the study wrote ({why})" if why else None
    size = os.fstat(data.fileno()).st_size
    if want.get("sha256") is None:  # a file compact wrote: its size, then its columns
        if size != want["size"]:
            return (
                f"holds {size:,} bytes where the table's log records {want['size']:,}: it"
                " was cut short, changed or replaced"
            )
        why = columns_problem(data, dtypes, optional)
        return f"is not a file the study wrote ({why})" if why else None
    if size != want["size"]:
        why = columns_problem(data, dtypes, ())  # (a recorded file was written whole)
        return (
            f"holds {size:,} bytes where the study wrote {want['size']:,}: it was cut"
            " short, changed or replaced" + (f" ({why})" if why else "")
        )
    if record(data)["sha256"] != want["sha256"]:
        return (
            "is damaged: its bytes are not those the study wrote (their SHA-256 differs"
            " from the one its name holds)"
        )
    return None


def damaged(path: os.PathLike[str], problem: str) -> StudyError:
    """The error for a file of the study that is not as it wrote it."""
    return StudyError(
        f"the study's files cannot be read: {path} {problem}. The study is left as it"
        " is and nothing was paid for: put the file back as the study wrote it (from a"
        " backup; each file's name holds its SHA-256, its table's log its size)"
    )


class Leaf(NamedTuple):
    """One leaf column of a Parquet file's schema, as readers see it."""

    physical: str
    logical: str
    defined: int
    repeated: int


def columns_problem(data: Any, dtypes: Mapping[str, Any], optional: Collection[str]) -> str | None:
    """What is wrong with the columns of the Parquet file open as ``data`` against the
    study's ``dtypes``, or None (read from its footer only)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        data.seek(0)
        schema = pq.read_metadata(data).schema
    except (pa.ArrowException, OSError, ValueError):
        return "it is not a Parquet file: damaged or cut short"
    have = _leaves(schema)
    want = _expected(dtypes)
    tops_have = {path.split(".")[0] for path in have}
    for name in dtypes:
        if name not in tops_have and name not in optional:
            return f"it has no column {name!r}"
    for top in sorted(tops_have - set(dtypes)):
        return f"it has a column {top!r:.60} the study does not write"
    for path, leaf in have.items():
        top = path.split(".")[0]
        if want.get(path) != leaf:
            expected = [v for k, v in want.items() if k.split(".")[0] == top]
            return (
                f"its column {top!r} holds {_described(leaf)}; the study writes"
                f" {_described(expected[0]) if expected else 'another type'} there"
            )
    return None


def _leaves(schema: Any) -> dict[str, Leaf]:
    leaves = {}
    for i in range(len(schema)):
        column = schema.column(i)
        leaves[column.path] = Leaf(
            str(column.physical_type),
            str(column.logical_type),
            int(column.max_definition_level),
            int(column.max_repetition_level),
        )
    return leaves


_EXPECTED: dict[tuple[tuple[str, str], ...], dict[str, Leaf]] = {}


def _expected(dtypes: Mapping[str, Any]) -> dict[str, Leaf]:
    """The leaves of a file the study writes with ``dtypes`` (one written empty, read
    back: the writer's own conversion, not a copy of it)."""
    key = tuple((name, repr(dtype)) for name, dtype in dtypes.items())
    if key not in _EXPECTED:
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        fields = []
        for name, dtype in dtypes.items():
            if str(dtype) == "object":  # the study's only object columns are lists of text
                fields.append(pa.field(name, pa.list_(pa.string())))
            else:
                empty = pd.DataFrame({name: pd.Series(dtype=dtype)})
                fields.append(pa.Schema.from_pandas(empty, preserve_index=False).field(name))
        schema = pa.schema(fields)
        sink = pa.BufferOutputStream()
        pq.write_table(schema.empty_table(), sink)
        _EXPECTED[key] = _leaves(pq.read_metadata(pa.BufferReader(sink.getvalue())).schema)
    return _EXPECTED[key]


def _described(leaf: Leaf) -> str:
    """A column's type, in words."""
    logical = leaf.logical
    if logical.startswith("String"):
        word = "text"
    elif logical.startswith("Timestamp"):
        word = "times"
    elif logical.startswith("Date"):
        word = "days"
    elif leaf.physical == "BOOLEAN":
        word = "true or false"
    elif leaf.physical in ("INT32", "INT64"):
        word = "whole numbers"
    elif leaf.physical in ("FLOAT", "DOUBLE"):
        word = "numbers"
    else:
        word = f"{leaf.physical} {logical}".strip()
    return f"lists of {word}" if leaf.repeated else word
