"""This machine's copies of a bucket study's data files: each downloaded once, checked
whole, then read from the local disk like a folder study's.

A study in a bucket is read as a folder study is: DuckDB reads Parquet files by their
paths, after every file is checked (:mod:`.integrity`: its size as the table's log
records it, and its SHA-256, which its name holds). Reading the bucket's objects for
every answer would pay the download each time (a refresh's fixed cost at 1M comments
was 18 s against moto's server) and could check nothing but sizes: a same-size file
put over one of the study's would be read as the study's.

So each file the log names is downloaded once into a folder of this machine's
(``<cache dir>/study-files``, see :func:`socialframe._config.cache_dir`), checked as
it arrives, and written whole under a name of its own:

- a file a refresh wrote: ``<its SHA-256>.parquet`` (its content names it, so two
  studies sharing a file share its copy, and a copy is the file or is refused);
- a file ``compact`` wrote (its name holds no hash): a name derived from the study's
  URI, its table, its name and its size, checked by its size and columns, as on a
  folder.

Data files are never rewritten in place (Delta writes new ones), so a copy stays
true as long as the log names its file. The folder may be deleted at any time: the
next answer downloads what it needs again. Copies of files no log names any more
(after ``compact`` and ``vacuum``) stay until then.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from .._config import cache_dir
from . import integrity, schema

if TYPE_CHECKING:
    from .dataset import DataFile, Dataset, Snapshot


def where() -> Path:
    """This machine's copies' folder (``<cache dir>/study-files``)."""
    return cache_dir() / "study-files"


def folder() -> Path:
    """This machine's copies' folder (made, readable by its owner alone), its links
    followed."""
    path = where()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return Path(os.path.realpath(path))


def name(uri: str, each: DataFile) -> str:
    """The copy's name of ``each``, a file of the study at ``uri``."""
    if each.sha256 is not None:
        return f"{each.sha256}.parquet"
    key = "\0".join((uri, each.kind, each.name, str(each.size)))
    return f"{each.kind}-{hashlib.sha256(key.encode()).hexdigest()}.parquet"


def local(
    dataset: Dataset, snapshot: Snapshot, kinds: tuple[str, ...]
) -> tuple[Path, dict[str, str]]:
    """Every file of ``kinds`` in ``snapshot`` copied to this machine (those not yet
    there downloaded and checked); the copies' folder and, per file's path in the
    study, its copy's name there.

    Raises:
        StudyError: a file downloaded is not as the study wrote it (named), or
            cannot be read from the bucket.
        OSError: the copies cannot be written (a full disk, say).
    """
    root = folder()
    names: dict[str, str] = {}
    for kind in kinds:
        for each in snapshot.files[kind]:
            copy = name(str(dataset.shown), each)
            names[each.relative] = copy
            if not _present(root / copy, each.size):
                (root / copy).unlink(missing_ok=True)  # (not a copy: a link, cut short)
                _download(dataset, each, root, copy)
    return root, names


def replace_damaged(dataset: Dataset, snapshot: Snapshot, kinds: tuple[str, ...]) -> None:
    """Copy again every file of ``kinds`` whose copy is not as the study wrote it.

    Raises:
        StudyError: as :func:`local`.
        OSError: as :func:`local`.
    """
    root = folder()
    for kind in kinds:
        for each in snapshot.files[kind]:
            copy = name(str(dataset.shown), each)
            try:
                data = (root / copy).read_bytes() if _present(root / copy, each.size) else b""
            except OSError:
                data = b""
            if integrity.bytes_problem(data, each.size, each.sha256, schema.STORED[kind]):
                (root / copy).unlink(missing_ok=True)
                _download(dataset, each, root, copy)


def _present(path: Path, size: int) -> bool:
    """Whether a copy of ``size`` bytes is there, a regular file (checked whole before
    it is read, like every file: :func:`socialframe._study.integrity.check`)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size == size


def _download(dataset: Dataset, each: DataFile, root: Path, copy: str) -> None:
    data = dataset.file_bytes(each)
    problem = integrity.bytes_problem(data, each.size, each.sha256, schema.STORED[each.kind])
    if problem:
        raise integrity.damaged(dataset.shown_file(each), problem)
    # Written whole beside its place, then linked there if it is still free: a reader
    # never meets half a copy, and a copy another process put there first (the same
    # bytes) is never replaced under a reader that checked it.
    handle, temporary = tempfile.mkstemp(dir=root, prefix=".sf-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, root / copy)
    finally:
        Path(temporary).unlink(missing_ok=True)
