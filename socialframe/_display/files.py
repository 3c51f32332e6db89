"""Files written whole, and only where nothing of value can be hit: the one way every
file socialframe writes for a user reaches the disk (the exports, the HTML report,
the demo's charts, every command's ``-o``).

::

    check(path, guard=..., inputs=...)             before any work (and any paid call)
    write_whole(path, fill, guard=..., inputs=...)  the whole file, or nothing

The rules, the same for every caller (:func:`check` says which one failed, in one line):

- **No link is written through.** The name's last part must not be a symbolic link
  (to anything, to nothing, or in a loop), and a file must have no other hard link:
  through a link, an output replaced the SQLite cache (every paid page lost) or a
  study's Parquet file. Folders on the way to it may be links; where they lead is
  what is checked.
- **A regular file or nothing**: a folder, a named pipe, a device or a socket is
  refused (a pipe would block, a device or a folder never hold a file).
- **Nothing guarded**: none of the files of a :class:`Guarded` (the cache in use:
  its SQLite file and journals), nothing inside a guarded folder (the cache's page
  locks, the study of the command) nor inside any study or Delta table (see
  :func:`is_study`), whatever path leads there; no SQLite database or journal
  (caches of paid pages are ones), the default cache's files, or an input the run
  reads (standard input, the file being read).
- **Writable**: the folder may be written (the file is made beside the target and
  moved over it), and so may the file itself; in a shared folder (``/tmp``'s sticky
  bit) a file of another user cannot be replaced, so it is refused up front.

Writing (:func:`write_whole`): the folder is opened once; the content goes into a new
file made in it (``O_EXCL | O_NOFOLLOW``), is flushed to disk, the target is
checked again, and the new file is renamed over the target's name. ``rename``
replaces a name and never writes through it: a link put there after the last check
is replaced, not followed, and what it named is untouched. A failure, a full disk or
Ctrl-C leaves the old file as it was and no temporary file behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final, Literal

#: The tables of a study (``socialframe._study.dataset.TABLES``): a folder holding one of
#: them as a Delta table (``<table>/_delta_log/``) is a study.
STUDY_TABLES: Final = ("watched", "comments", "ads", "changes", "items", "runs")
#: A study's lease folder (``socialframe._study.lease.FOLDER``): a refresh under way.
STUDY_LEASE: Final = "_lease"
#: A Delta table's log: a folder holding one is a table (of a study or of anyone).
DELTA_LOG: Final = "_delta_log"
#: The manifest of a study of the older format (``socialframe._study.legacy.MANIFEST``),
#: until its first open migrates it, and the format it names (``FORMAT`` there).
STUDY_MANIFEST: Final = "study.json"
STUDY_FORMAT: Final = b'"socialframe-study"'

#: The first bytes of a SQLite database, of its write-ahead log and of its rollback
#: journal (sqlite.org/fileformat2.html): a cache of paid pages is such a file.
SQLITE_HEADERS: Final = (
    b"SQLite format 3\x00",
    b"\x37\x7f\x06\x82",
    b"\x37\x7f\x06\x83",
    bytes.fromhex("d9d505f920a163d7"),
)

#: The files SQLite keeps beside a database while it is used.
SQLITE_COMPANIONS: Final = ("-wal", "-shm", "-journal")

#: Names a shell user gives for standard output, and for nothing.
STANDARD_OUTPUT: Final = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
DISCARD: Final = ("/dev/null",)

#: How the folders are opened: for their identity and to look into them, without
#: needing to read them (``O_PATH`` where there is one).
_LOOK: Final = os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_PATH", os.O_RDONLY)
_NEW: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_PEEK: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True)
class Guarded:
    """A file, or a folder and everything in it, that no output may be.

    Attributes:
        path: The file or folder (links in it are followed: the guard is on what it
            names).
        what: What it is, as a refusal says it (``"the cache file"``, ``"the study"``).
        folder: Guard everything inside ``path`` too.
    """

    path: Path
    what: str
    folder: bool = False


def cache_guard(setting: object = True) -> tuple[Guarded, ...]:
    """What of the disk the cache ``setting`` names (as ``Client(cache=...)`` takes it):
    its SQLite file, the journals SQLite keeps beside it, and the folder of its page
    locks. Nothing for a team cache (Redis), no cache, or a setting that names no
    place (it is refused where it is used).

    Example:
        >>> [g.path.name for g in cache_guard("/tmp/c.sqlite")]
        ['c.sqlite', 'c.sqlite-wal', 'c.sqlite-shm', 'c.sqlite-journal', 'c.sqlite.locks']
    """
    from .._cache.locks import lock_folder
    from .._cache.setting import cache_location
    from .._errors import ConfigError

    try:
        where = cache_location(setting)  # type: ignore[arg-type]
    except (ConfigError, TypeError, ValueError):
        return ()
    if not isinstance(where, Path):
        return ()
    return (
        Guarded(where, "the cache file"),
        *(Guarded(Path(f"{where}{end}"), "a file of the cache") for end in SQLITE_COMPANIONS),
        Guarded(lock_folder(where), "the cache's lock folder", folder=True),
    )


def shell_name(given: str | os.PathLike[str]) -> Literal["stdout", "discard"] | None:
    """What a shell user means by ``given``: standard output (``-``, ``/dev/stdout``,
    ``/dev/fd/1``), nothing (``/dev/null``), or a file (``None``).

    Example:
        >>> shell_name("-"), shell_name("/dev/null"), shell_name("out.csv")
        ('stdout', 'discard', None)
    """
    name = os.fspath(given)
    if name in STANDARD_OUTPUT:
        return "stdout"
    if name in DISCARD:
        return "discard"
    return None


def check(
    path: str | os.PathLike[str],
    *,
    guard: Iterable[Guarded] = (),
    inputs: Iterable[int] = (),
) -> Path:
    """Check now that ``path`` may be written (see the module's rules).

    Called before anything is fetched (and paid); :func:`write_whole` checks again.

    Args:
        path: The file.
        guard: What it must never be nor be inside (the cache in use, the study); the
            default cache is always guarded.
        inputs: Open file descriptors the run reads (standard input is ``0``).

    Returns:
        The path (``~`` expanded).

    Raises:
        ValueError: one line, ``cannot write <path>: <why>``.

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> (folder / "real.csv").write_text("mine")
        4
        >>> (folder / "link.csv").symlink_to(folder / "real.csv")
        >>> check(folder / "link.csv")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot write .../link.csv: it is a symbolic link (to .../real.csv): ...
    """
    target = _named(path)
    guards = _all_guards(guard)
    read = tuple(inputs)
    with _folder(target) as folder:
        _refuse(folder, target, guards, read)
    return target


def write_whole(
    path: str | os.PathLike[str],
    fill: Callable[[BinaryIO], object],
    *,
    guard: Iterable[Guarded] = (),
    inputs: Iterable[int] = (),
) -> Path:
    """Write ``path`` whole through ``fill``, or leave it as it was (see the module's doc).

    The file keeps the mode of the file it replaces (a new one gets the umask's).

    Args:
        path: The file.
        fill: Writes the whole content into the binary file it is given (a new file
            beside ``path``; closing it is allowed).
        guard: As :func:`check`.
        inputs: As :func:`check`.

    Returns:
        The path written.

    Raises:
        ValueError: ``path`` may not be written (see :func:`check`), now or at the
            last look before the file is moved into place.
        OSError: the file could not be written (a full disk); whatever ``fill`` raises.

    Example:
        >>> import tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
        >>> _ = write_whole(out, lambda into: into.write(b"whole"))
        >>> out.read_bytes()
        b'whole'
    """
    target = _named(path)
    guards = _all_guards(guard)
    read = tuple(inputs)
    with _folder(target) as folder:
        _refuse(folder, target, guards, read)
        try:
            # (its permissions, never a set-user-id bit a stranger's file may carry)
            mode = os.stat(target.name, dir_fd=folder, follow_symlinks=False).st_mode & 0o777
        except FileNotFoundError:
            mode = new_file_mode()
        _sweep(folder)
        partial = f"{PARTIAL}{os.getpid()}-{secrets.token_hex(8)}"
        fd = os.open(partial, _NEW, 0o600, dir_fd=folder)
        try:
            try:
                # (a handle of its own: fill may close it, the flush to disk below needs fd)
                with os.fdopen(os.dup(fd), "wb") as handle:
                    fill(handle)
                os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            with interrupts_held():
                _refuse(folder, target, guards, read)  # the last look: what is there now
                os.rename(partial, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with interrupts_held(), contextlib.suppress(OSError):
                os.unlink(partial, dir_fd=folder)
            raise
        _flush_folder(folder)
    return target


#: How the file a write fills is named, beside the file it replaces: this, the writer's
#: process id, a random part. A writer killed mid-write (SIGKILL; SIGTERM or SIGHUP to a
#: program that did not handle them; a power loss) leaves it behind; the next write into
#: that folder removes it (:func:`_sweep`).
PARTIAL: Final = ".sf-"
#: A partial file untouched this long, whose writer is no longer running here, is left
#: over (a writer on another machine sharing the folder touches its file as it writes).
STALE_AFTER: Final = 3600.0


def _sweep(folder: int) -> None:
    """Remove the partial files of writers that died: named by :data:`PARTIAL` with a
    process id no longer running on this machine, ours, untouched for
    :data:`STALE_AFTER` seconds. Best effort: what cannot be read or removed stays."""
    try:  # (the folder's handle may serve paths only: listed through one of its own)
        listed = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
        try:
            names = os.listdir(listed)
        finally:
            os.close(listed)
    except OSError:
        return
    now = time.time()
    for name in names:
        if not name.startswith(PARTIAL):
            continue
        pid, _, rest = name.removeprefix(PARTIAL).partition("-")
        if not pid.isdigit() or not rest:
            continue
        try:
            found = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if (
                not stat.S_ISREG(found.st_mode)
                or found.st_uid != os.geteuid()
                or now - found.st_mtime < STALE_AFTER
                or _running(int(pid))
            ):
                continue
            os.unlink(name, dir_fd=folder)
        except OSError:
            continue


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (one of another user's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _flush_folder(folder: int) -> None:
    """The folder's new entry on disk too (a power loss then keeps the new file)."""
    with contextlib.suppress(OSError):  # (a folder that may not be read: left to the system)
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def check_stream(fd: int, *, guard: Iterable[Guarded] = (), shown: str = "standard output") -> None:
    """Check that the open file ``fd`` (standard output, redirected by a shell) is
    none of the guarded files: ``>> cache.sqlite`` would add CSV to the cache.

    Raises:
        ValueError: one line, ``cannot write <shown>: <why>``.
    """
    found = _fstat(fd)
    if found is None or not stat.S_ISREG(found.st_mode):
        return
    guards = _all_guards(guard)
    for kept in guards:
        if not kept.folder and _same(found, _stat(kept.path)):
            raise ValueError(f"cannot write {shown}: it is {kept.what} {kept.path}")
        if kept.folder and _holds(kept.path, found):
            raise ValueError(f"cannot write {shown}: it is a file of {kept.what} {kept.path}")
    try:  # where the file is, where the system says (Linux): inside a study, say
        where = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        return
    if where.is_absolute() and _same(found, _stat(where)):
        inside = _inside_path(where.parent, guards)
        if inside:
            raise ValueError(f"cannot write {shown}: it is a file {inside.removeprefix('it is ')}")


def check_folder(path: str | os.PathLike[str], *, guard: Iterable[Guarded] = ()) -> Path:
    """Check that files may be written into the folder ``path`` (made later if it does
    not exist): it is no file, and it is (or would be) inside nothing guarded.

    Raises:
        ValueError: one line, ``cannot write into <path>: <why>``.
    """
    folder = _named(path)
    guards = _all_guards(guard)
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if existing == folder and not folder.is_dir():
        raise ValueError(f"cannot write into {folder}: it is not a folder")
    try:
        fd = os.open(existing, _LOOK)
    except OSError as exc:
        raise ValueError(f"cannot write into {folder}: {_why(exc)}") from None
    try:
        problem = _inside(fd, existing, guards)
    finally:
        os.close(fd)
    if problem:
        raise ValueError(f"cannot write into {folder}: {problem}")
    return folder


# -- the rules ---------------------------------------------------------------------------


def _named(path: str | os.PathLike[str]) -> Path:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"a file to write is a path, not {type(path).__name__}")
    name = os.fspath(path)
    if isinstance(name, bytes) or not name.strip():
        raise ValueError(f"cannot write {name!r}: give a file's name")
    if "\0" in name:
        raise ValueError("cannot write the file: its name holds a NUL character")
    return Path(name).expanduser()


def _all_guards(given: Iterable[Guarded]) -> tuple[Guarded, ...]:
    # The default cache, whoever writes: df.social.to_csv() knows no cache, and the
    # one users have is there.
    return (*given, *cache_guard(True))


@contextlib.contextmanager
def _folder(target: Path) -> Iterator[int]:
    """The folder of ``target``, opened (the same folder for every look and the move)."""
    parent = target.parent
    try:
        fd = os.open(parent, _LOOK)
    except OSError as exc:
        raise ValueError(f"cannot write {target}: {_why(exc, parent)}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _why(exc: OSError, folder: Path | None = None) -> str:
    if exc.errno == errno.ELOOP:
        return "its symbolic links form a loop"
    if exc.errno == errno.ENOENT:
        return f"there is no folder {folder}" if folder is not None else "it does not exist"
    if exc.errno == errno.ENOTDIR:
        return "a part of it is not a folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "no permission to reach its folder"
    return exc.strerror or str(exc)


def _refuse(
    folder: int, target: Path, guards: tuple[Guarded, ...], inputs: tuple[int, ...]
) -> None:
    problem = _problem(folder, target, guards, inputs)
    if problem:
        raise ValueError(f"cannot write {target}: {problem}")


def _problem(
    folder: int, target: Path, guards: tuple[Guarded, ...], inputs: tuple[int, ...]
) -> str:
    """Why ``target`` (a name in the open ``folder``) may not be written; ``""`` when it may."""
    name = target.name
    if name in ("", ".", ".."):
        return "it is a folder"
    inside = _inside(folder, target.parent, guards)
    if inside:
        return inside
    try:
        entry: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        entry = None
    except OSError as exc:
        return _why(exc)
    here = os.fstat(folder)
    for kept in guards:
        if not kept.folder and _same_place(here, name, kept.path):
            return f"it is {kept.what} {kept.path}"
    if entry is None:
        return _writable(folder, target, None, here)
    if stat.S_ISLNK(entry.st_mode):
        return _link(folder, target, guards)
    if not stat.S_ISREG(entry.st_mode):
        return _not_a_file(entry)
    for kept in guards:
        if not kept.folder and _same(entry, _stat(kept.path)):
            return f"it is {kept.what} {kept.path}"
    for fd in inputs:
        if _same(entry, _fstat(fd)):
            return "it is " + (
                "standard input, read by this run" if fd == 0 else "the file this run reads"
            )
    if entry.st_nlink > 1:
        for kept in guards:
            if kept.folder and _holds(kept.path, entry):
                return f"it is a hard link to a file of {kept.what} {kept.path}"
        return (
            f"it is a file with {entry.st_nlink} names (hard links): writing it would change"
            " it under its other names too; name another file"
        )
    if _head(folder, name).startswith(SQLITE_HEADERS):
        return (
            "it is a SQLite database or journal (a cache of paid pages is one); name another file"
        )
    return _writable(folder, target, entry, here)


def _inside(folder: int, shown: Path, guards: tuple[Guarded, ...]) -> str:
    """Whether the open ``folder`` (shown as ``shown``) is a guarded folder or a study,
    or inside one: its own folders are walked up through ``..``, compared as files."""
    kept = [(g, found) for g in guards if g.folder and (found := _stat(g.path)) is not None]
    real = Path(os.path.realpath(shown))
    names = [real, *real.parents]
    level = os.open(".", _LOOK, dir_fd=folder)
    table = ""
    try:
        for depth in range(4096):
            here = os.fstat(level)
            for guarded, found in kept:
                if _same(here, found):
                    return f"it is inside {guarded.what} {guarded.path}"
            kind = _is_study(level)
            if kind:
                where = names[depth] if depth < len(names) else "a folder above it"
                said = (
                    f"it is inside the {kind} {where} (its folder holds only what the"
                    f" {kind} writes); write it elsewhere"
                )
                if kind == "study":
                    return said
                table = table or said  # (the study holding it, if any, is named instead)
            try:
                up = os.open("..", _LOOK, dir_fd=level)
            except OSError:  # (a folder above that may not be looked into)
                break
            os.close(level)
            level = up
            if _same(os.fstat(level), here):  # the root is its own parent
                break
    finally:
        os.close(level)
    return table


def _is_study(folder: int) -> str:
    """``"study"`` if the open ``folder`` is a study's root, ``"Delta table"`` if it is
    a Delta table's folder (a study's, copied out of it, or anyone's: writing into it
    adds a file its readers may take for data), else ``""``. Nothing is followed: a
    link named like a study's part is no study."""
    if _is_folder(folder, DELTA_LOG):
        return "Delta table"
    if _is_folder(folder, STUDY_LEASE) or STUDY_FORMAT in _head(folder, STUDY_MANIFEST, 4096):
        return "study"
    for table in STUDY_TABLES:
        try:
            at = os.open(table, _LOOK | os.O_NOFOLLOW, dir_fd=folder)
        except OSError:
            continue
        try:
            if _is_folder(at, DELTA_LOG):
                return "study"
        finally:
            os.close(at)
    return ""


def _is_folder(folder: int, name: str) -> bool:
    """Whether ``name`` in the open ``folder`` is a folder (a link is not)."""
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _head(folder: int, name: str, size: int = 16) -> bytes:
    """The first ``size`` bytes of the regular file ``name`` in ``folder`` (``b""`` if none)."""
    try:
        fd = os.open(name, _PEEK, dir_fd=folder)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _link(folder: int, target: Path, guards: tuple[Guarded, ...]) -> str:
    """Why the symbolic link ``target`` is refused, naming what it leads to when that
    is guarded (it is refused whatever it leads to)."""
    try:
        points = os.readlink(target.name, dir_fd=folder)
    except OSError:
        points = "?"
    try:
        found = os.stat(target.name, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "its symbolic links form a loop"
        return (
            f"it is a symbolic link to {points}, which does not exist: a link is never"
            " written through; name the file itself"
        )
    for kept in guards:
        if not kept.folder and _same(found, _stat(kept.path)):
            return f"it is a symbolic link to {kept.what} {kept.path}"
    inside = _inside_path(Path(os.path.realpath(target)).parent, guards)
    if inside:
        return f"it is a symbolic link to a file {inside.removeprefix('it is ')}"
    return (
        f"it is a symbolic link (to {points}): a link is never written through; name the"
        " file itself"
    )


def _inside_path(folder: Path, guards: tuple[Guarded, ...]) -> str:
    try:
        fd = os.open(folder, _LOOK)
    except OSError:
        return ""
    try:
        return _inside(fd, folder, guards)
    finally:
        os.close(fd)


def _holds(folder: Path, entry: os.stat_result, most: int = 100_000) -> bool:
    """Whether the guarded ``folder`` holds the file ``entry`` is (a hard link's other
    name): its files are compared as files, at most ``most`` of them."""
    seen = 0
    for root, _, names in os.walk(folder):
        for name in names:
            seen += 1
            if seen > most:
                return False
            with contextlib.suppress(OSError):
                if _same(entry, os.stat(os.path.join(root, name), follow_symlinks=False)):
                    return True
    return False


def _writable(folder: int, target: Path, entry: os.stat_result | None, here: os.stat_result) -> str:
    if not os.access(".", os.W_OK, dir_fd=folder):
        return (
            f"no permission to write in its folder {target.parent} (the file is written"
            " beside its place, then moved there); write it elsewhere"
        )
    if entry is None:
        return ""
    if not os.access(target.name, os.W_OK, dir_fd=folder):  # (a regular file: no link)
        return "no permission to write it"
    me = os.geteuid() if hasattr(os, "geteuid") else -1
    shared = here.st_mode & stat.S_ISVTX and me not in (0, here.st_uid, entry.st_uid)
    if shared:
        return (
            "it belongs to another user, in a shared folder (sticky, as /tmp): it cannot be"
            " replaced; name another file"
        )
    return ""


def _same_place(folder: os.stat_result, name: str, path: Path) -> bool:
    """Whether ``name`` in the folder ``folder`` is ``path``, which may not exist yet."""
    return name == path.name and _same(folder, _stat(path.parent))


def _not_a_file(found: os.stat_result) -> str:
    mode = found.st_mode
    if stat.S_ISDIR(mode):
        return "it is a folder"
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
    return f"it is {kind}, not a regular file: name a file"


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


# -- modes and signals ------------------------------------------------------------------


def new_file_mode() -> int:
    """The mode a new file gets from open() here: 0o666 less the umask."""
    mask = os.umask(0o022)  # (read by setting it: put straight back)
    os.umask(mask)
    return 0o666 & ~mask


#: The signals that ask a run to stop, as Ctrl-C does (SIGHUP: not on Windows).
INTERRUPTS: Final = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back during the block; deliver them after it.

    For a step that must not stop half-way (a file moved into place, or removed).
    The handlers they had are put back first, so each is then handled as it would
    have been. Python runs handlers in the main thread only: elsewhere nothing can
    interrupt the block this way, and nothing is held.

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
