"""This machine's copies of a bucket study's data files: each downloaded once, checked
whole, then read from the local disk like a folder study's.

A study in a bucket is read as a folder study is: DuckDB reads Parquet files by their
paths, after every file is checked (:mod:`.integrity`: its size as the table's log
records it, and its SHA-256). Reading the bucket's objects for every answer would pay
the download each time (a refresh's fixed cost at 1M comments was 18 s against moto's
server) and could check nothing but sizes: a same-size file put over one of the
study's would be read as the study's.

So each file the log names is downloaded once into a folder of this machine's
(``<cache dir>/study-files``, see :func:`socialframe._config.cache_dir`; its owner's
alone), checked as it arrives, and written whole under a name of its own:
``<table>-<key>-<sha256>.parquet``, where the key is derived from the study's URI, the
table, the file's name and its size (a copy belongs to one study's one file: a log
that names another study's file is never answered from that study's copy), and the
SHA-256 is the one the file's name holds (a refresh's file), or, for a file
``compact`` wrote (whose name holds none), that of the bytes downloaded, checked by
their size and columns as they arrive. Every answer checks each copy's bytes against
the hash its name holds, and a copy damaged on this machine's disk is downloaded
again.

Data files are never rewritten in place (Delta writes new ones), so a copy stays
true as long as the log names its file. The folder may be deleted at any time: the
next answer downloads what it needs again. Copies of files no log names any more
(after ``compact`` and ``vacuum``) stay until then.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .._config import cache_dir
from .._errors import StudyError
from . import integrity, schema

if TYPE_CHECKING:
    from .dataset import DataFile, Dataset, Snapshot

#: A copy being written: ``.sf-<pid>-<random>.part`` (the pid, to tell a reader killed
#: while it copied: its file is removed by the next).
_PART: Final = re.compile(r"\.sf-([0-9]+)-[A-Za-z0-9_]+\.part")
#: A copy: ``<table>-<key>-<sha256>.parquet``.
_COPY: Final = re.compile(r"([a-z]+-[0-9a-f]{32})-([0-9a-f]{64})\.parquet")
#: A part file older than this is removed whatever its pid (one reused since).
_PART_AGE: Final = 86_400.0


def where() -> Path:
    """This machine's copies' folder (``<cache dir>/study-files``)."""
    return cache_dir() / "study-files"


def folder() -> Path:
    """This machine's copies' folder, its links followed: made, its owner's alone, and
    cleared of the part files of readers killed as they copied.

    Raises:
        StudyError: the folder is another user's, or others may write in it.
        OSError: it cannot be made.
    """
    path = where()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    real = Path(os.path.realpath(path))
    found = os.stat(real)
    if found.st_uid != os.geteuid():
        raise StudyError(
            f"{real} belongs to another user: a study's copies are never read from a folder"
            " someone else controls. Set SOCIALFRAME_CACHE_DIR to a folder of your own"
        )
    if found.st_mode & 0o077:  # (ours, made open by hand or an old umask: closed again)
        os.chmod(real, 0o700)
    _clear_parts(real)
    return real


def _clear_parts(root: Path) -> None:
    now = time.time()
    with os.scandir(root) as entries:
        for entry in entries:
            part = _PART.fullmatch(entry.name)
            if part is None:
                continue
            with contextlib.suppress(OSError):
                old = now - entry.stat(follow_symlinks=False).st_mtime > _PART_AGE
                if old or not _alive(int(part[1])):
                    os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's: alive)
        return True
    return True


def _key(uri: str, each: DataFile) -> str:
    key = "\0".join((uri, each.kind, each.name, str(each.size)))
    return f"{each.kind}-{hashlib.sha256(key.encode()).hexdigest()[:32]}"


def local(
    dataset: Dataset, snapshot: Snapshot, kinds: tuple[str, ...]
) -> tuple[Path, dict[str, tuple[str, str]]]:
    """Every file of ``kinds`` in ``snapshot`` copied to this machine (those not yet
    there downloaded and checked); the copies' folder and, per file's path in the
    study, its copy's name there and the SHA-256 its bytes must have.

    Raises:
        StudyError: a file downloaded is not as the study wrote it (named), or
            cannot be read from the bucket; the folder is not this user's alone.
        OSError: the copies cannot be written (a full disk, say).
    """
    root = folder()
    index = _index(root)
    found: dict[str, tuple[str, str]] = {}
    for kind in kinds:
        for each in snapshot.files[kind]:
            copy = _present(root, index, str(dataset.shown), each)
            found[each.relative] = copy or _download(dataset, each, root)
    return root, found


def replace_damaged(dataset: Dataset, snapshot: Snapshot, kinds: tuple[str, ...]) -> None:
    """Copy again every file of ``kinds`` whose copy is not as the study wrote it.

    Raises:
        StudyError: as :func:`local`.
        OSError: as :func:`local`.
    """
    root = folder()
    index = _index(root)
    for kind in kinds:
        for each in snapshot.files[kind]:
            copy = _present(root, index, str(dataset.shown), each)
            if copy is None:
                _download(dataset, each, root)
                continue
            try:
                data = (root / copy[0]).read_bytes()
            except OSError:
                data = b""
            if integrity.bytes_problem(data, each.size, copy[1], schema.STORED[kind]):
                (root / copy[0]).unlink(missing_ok=True)
                _download(dataset, each, root)


def _index(root: Path) -> dict[str, list[str]]:
    """The copies in ``root``: per key, the hashes its copies' names hold."""
    index: dict[str, list[str]] = {}
    with os.scandir(root) as entries:
        for entry in entries:
            named = _COPY.fullmatch(entry.name)
            if named is not None:
                index.setdefault(named[1], []).append(named[2])
    return index


def _present(
    root: Path, index: dict[str, list[str]], uri: str, each: DataFile
) -> tuple[str, str] | None:
    """The name and hash of ``each``'s copy, if one of its size is there, a regular
    file (checked whole before it is read: :func:`socialframe._study.integrity.check`);
    anything else under its name (a link, a folder, a copy cut short) is removed."""
    key = _key(uri, each)
    for sha in sorted(index.get(key, ())):
        name = f"{key}-{sha}.parquet"
        if each.sha256 and sha != each.sha256:
            continue
        try:
            found = os.lstat(root / name)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(found.st_mode) and found.st_size == each.size:
            return name, sha
        _remove(root / name)
    return None


def _remove(path: Path) -> None:
    """Take ``path`` out of a copy's place (a file or a link unlinked, a folder in the
    way said as it is)."""
    try:
        path.unlink(missing_ok=True)
    except IsADirectoryError:
        raise StudyError(
            f"{path} is a folder where a study's copy of a file goes: remove it (the copies'"
            " folder may be deleted at any time), or set SOCIALFRAME_CACHE_DIR elsewhere"
        ) from None


def _download(dataset: Dataset, each: DataFile, root: Path) -> tuple[str, str]:
    data = dataset.file_bytes(each)
    problem = integrity.bytes_problem(data, each.size, each.sha256, schema.STORED[each.kind])
    if problem:
        raise integrity.damaged(dataset.shown_file(each), problem)
    sha = each.sha256 or hashlib.sha256(data).hexdigest()
    copy = f"{_key(str(dataset.shown), each)}-{sha}.parquet"
    # Written whole beside its place, then linked there if it is still free: a reader
    # never meets half a copy, and a copy another process put there first (the same
    # bytes) is never replaced under a reader that checked it.
    handle, temporary = tempfile.mkstemp(dir=root, prefix=f".sf-{os.getpid()}-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, root / copy)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return copy, sha
