"""Paths inside a study's folder, walked without ever following a link.

The study's own path is the user's (a link there is their choice, and followed);
every name *inside* it is opened relative to the folder above it, with
``O_NOFOLLOW``: a link planted in a study (``comments -> /elsewhere``, a dangling
``.lock``, a partition folder or data file that points out) is never followed, so
no file outside the study is read as its own, created, written or deleted through
it. A link where the study reads or writes is a :class:`StudyError` naming it;
where the study only tidies up, it is left alone. Files are created with
``O_EXCL`` (never opened for writing if they exist: a hard link to a file outside
is never written through), and renamed between folders held open, so a link swapped
in meanwhile changes nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from .._errors import StudyError

_DIR: int = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# (O_NONBLOCK: a FIFO planted where a file belongs is refused, not waited on)
_FILE: int = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def open_root(path: Path) -> int:
    """The study's folder, opened (its own path followed as the user gave it: a link
    there is theirs). The caller closes it."""
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


@contextlib.contextmanager
def opened(path: Path) -> Iterator[int]:
    """:func:`open_root`, held for a ``with`` block."""
    fd = open_root(path)
    try:
        yield fd
    finally:
        os.close(fd)


def link_error(root: Path, relative: str, at: int, name: str) -> StudyError | None:
    """The error for ``name`` (in the folder ``at``, shown as ``root/relative``) if it
    is a link, else None."""
    try:
        info = os.stat(name, dir_fd=at, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISLNK(info.st_mode):
        return None
    try:
        target = os.readlink(name, dir_fd=at)
    except OSError:
        target = "?"
    return StudyError(
        f"{root / relative} is a link (to {target!r:.120}): a study never follows a link"
        " out of its folder, and the link is left as it is. Put the real folder or file"
        " in its place, or remove the link"
    )


def _refused(root: Path, relative: str, at: int, name: str, exc: OSError) -> Exception:
    """What an ``open`` of ``name`` that failed means: a link (a StudyError), or ``exc``
    (``NotADirectoryError`` where a folder belongs, ...)."""
    linked = link_error(root, relative, at, name)
    return exc if linked is None else linked


def open_dir(root: Path, fd: int, relative: str, *, create: bool = False) -> int:
    """The folder ``relative`` (``a/b``) below the open folder ``fd``, each part opened
    without following a link (made first where ``create``). The caller closes it.

    Raises:
        StudyError: a part is a link.
        OSError: any other failure (``NotADirectoryError``: a part is not a folder;
            missing, no permission, disk full).
    """
    at = os.dup(fd)
    walked: list[str] = []
    try:
        for name in relative.split("/"):
            walked.append(name)
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=at)
            try:
                inner = os.open(name, _DIR, dir_fd=at)
            except OSError as exc:
                raise _refused(root, "/".join(walked), at, name, exc) from None
            os.close(at)
            at = inner
    except BaseException:
        os.close(at)
        raise
    return at


def open_file(root: Path, fd: int, relative: str) -> int:
    """The regular file ``relative`` below ``fd``, for reading, no part followed if a link.

    Raises:
        StudyError: a part is a link.
        OSError: any other failure: ``FileNotFoundError`` (missing),
            ``IsADirectoryError`` (not a regular file), ``NotADirectoryError``.
    """
    parent, _, name = relative.rpartition("/")
    at = open_dir(root, fd, parent) if parent else os.dup(fd)
    try:
        try:
            opened_fd = os.open(name, _FILE, dir_fd=at)
        except OSError as exc:
            raise _refused(root, relative, at, name, exc) from None
    finally:
        os.close(at)
    if not stat.S_ISREG(os.fstat(opened_fd).st_mode):
        os.close(opened_fd)
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(root / relative))
    os.set_blocking(opened_fd, True)
    return opened_fd


#: What tells a file apart from another put in its place, or changed in place: its
#: device and inode, size, and last change (``st_ctime_ns``, which no one sets by hand:
#: any write, rename or ``touch`` moves it on).
Identity = tuple[int, ...]


def identity(root: Path, fd: int, relative: str) -> tuple[Identity, ...]:
    """What the file ``relative`` below ``fd`` and the folders on its way are now: each
    folder's device and inode, then the file's :data:`Identity`. Reached through no link,
    as :func:`open_file` reaches it.

    Raises:
        StudyError: a part is a link.
        OSError: as :func:`open_file`.
    """
    parts = relative.split("/")
    seen: list[Identity] = []
    at = os.dup(fd)
    try:
        for depth in range(1, len(parts)):
            inner = _open_below(root, at, parts, depth)
            os.close(at)
            at = inner
            info = os.fstat(at)
            # (not its last change: a table's folder gains each refresh's files)
            seen.append((info.st_dev, info.st_ino, 0))
    finally:
        os.close(at)
    opened = open_file(root, fd, relative)
    try:
        info = os.fstat(opened)
    finally:
        os.close(opened)
    seen.append((info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(seen)


def _open_below(root: Path, at: int, parts: list[str], depth: int) -> int:
    """The folder ``parts[depth - 1]`` in the open folder ``at`` (no link followed), its
    errors naming ``parts[:depth]`` below ``root``."""
    name = parts[depth - 1]
    try:
        return os.open(name, _DIR, dir_fd=at)
    except OSError as exc:
        raise _refused(root, "/".join(parts[:depth]), at, name, exc) from None


def create_file(root: Path, at: int, name: str, relative: str, mode: int) -> int:
    """A new file ``name`` in the open folder ``at``, to write (and read back); never one
    that exists (a link or a hard link to a file elsewhere is never written through).

    Raises:
        StudyError: ``name`` is a link.
        OSError: it exists, or any other failure.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, flags, mode, dir_fd=at)
    except OSError as exc:
        raise _refused(root, relative, at, name, exc) from None


def refuse_existing(root: Path, relative: str, at: int, name: str) -> None:
    """Refuse ``name`` in the open folder ``at`` if anything is there already: a rename
    would replace an empty folder of the user's (or fail on a link, less clearly).

    Raises:
        StudyError: it is there (a link named as one).
    """
    linked = link_error(root, relative, at, name)
    if linked is not None:
        raise linked
    try:
        os.stat(name, dir_fd=at, follow_symlinks=False)
    except FileNotFoundError:
        return
    raise StudyError(
        f"{root / relative} is there already, and the study did not write it: it is left"
        " as it is and nothing was kept. Move it out of the study"
    )


def check_folder(root: Path, fd: int, relative: str) -> None:
    """If ``relative`` exists below ``fd``, it must be a folder reached through no link.

    Raises:
        StudyError: it (or a folder above it) is a link, or it is not a folder.
    """
    try:
        os.close(open_dir(root, fd, relative))
    except FileNotFoundError:
        pass
    except NotADirectoryError:
        raise StudyError(
            f"{root / relative} is not a folder: the study writes its files there. It is"
            " left as it is and nothing was done: move it out of the study"
        ) from None
    except OSError as exc:
        raise StudyError(f"{root / relative} cannot be opened ({exc.strerror})") from None


def remove_file(fd: int, relative: str) -> None:
    """Remove the regular file ``relative`` below ``fd``, if it is there, reached
    through no link; anything else (a link, a folder, a name missing) stays."""
    parent, _, name = relative.rpartition("/")
    try:
        at = _quiet_open_dir(fd, parent) if parent else os.dup(fd)
    except OSError:
        return
    try:
        info = os.stat(name, dir_fd=at, follow_symlinks=False)
        if stat.S_ISREG(info.st_mode):
            os.unlink(name, dir_fd=at)
    except OSError:
        pass
    finally:
        os.close(at)


def remove_empty_dirs(fd: int, relative: str, levels: int) -> None:
    """Remove the folder ``relative`` below ``fd``, then the one above it, ``levels``
    folders in all, while they are empty (a folder holding anything, the user's files
    among them, stays, and so does every folder above it)."""
    parts = relative.split("/")
    while parts and levels > 0:
        levels -= 1
        parent, name = "/".join(parts[:-1]), parts[-1]
        try:
            at = _quiet_open_dir(fd, parent) if parent else os.dup(fd)
        except OSError:
            return
        try:
            info = os.stat(name, dir_fd=at, follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                return
            os.rmdir(name, dir_fd=at)
        except OSError:
            return
        finally:
            os.close(at)
        parts.pop()


def _quiet_open_dir(fd: int, relative: str) -> int:
    """:func:`open_dir` for tidying up: a link is an OSError like any other."""
    at = os.dup(fd)
    try:
        for name in relative.split("/"):
            inner = os.open(name, _DIR, dir_fd=at)
            os.close(at)
            at = inner
    except BaseException:
        os.close(at)
        raise
    return at


def fsync_dir(fd: int) -> None:
    """Make a rename in the open folder ``fd`` durable (where the system allows it)."""
    with contextlib.suppress(OSError):
        os.fsync(fd)
