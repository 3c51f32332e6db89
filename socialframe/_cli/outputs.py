"""Where a command may write: what its run must never overwrite, derived from its
arguments in one place, so that no command can forget a part of it.

Every command that writes a file takes its target from :func:`target` (``-o``) or
checks it with :func:`guarded` (the demo's charts, the report). Besides what every
writer refuses (links, pipes, devices, folders, any SQLite cache, anything inside a
study: :mod:`socialframe._display.files`), a run guards:

- the cache it uses (``--cache``, or the default one; a team cache has no files);
- the study it works on (``study ACTION STUDY``): its folder and everything in it;
- what it reads: the report's FILE, and standard input when ``-`` is read.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .exits import Usage

if TYPE_CHECKING:
    from .._display.export import Target
    from .._display.files import Guarded


def guarded(args: argparse.Namespace) -> tuple[Guarded, ...]:
    """What no file this run writes may be, or be inside."""
    from .._display.files import Guarded, cache_guard

    kept: list[Guarded] = []
    if hasattr(args, "cache"):
        kept += cache_guard(args.cache or True)
    elif args.command == "demo" and not args.no_cache:
        kept += cache_guard(True)
    if args.command == "study":
        kept.append(Guarded(Path(args.study).expanduser(), "the study", folder=True))
    if args.command == "report" and args.file != "-":
        kept.append(Guarded(Path(args.file).expanduser(), "the file this run reads"))
    return tuple(kept)


def inputs(args: argparse.Namespace) -> list[int]:
    """The open files this run reads: standard input, when ``-`` is given."""
    given = [*(getattr(args, "posts", None) or []), *(getattr(args, "queries", None) or [])]
    reads = "-" in given or getattr(args, "file", None) == "-"
    return [0] if reads else []


def target(args: argparse.Namespace) -> Target:
    """The ``-o`` target of this run (standard output without one), checked now: before
    anything is fetched or paid.

    Raises:
        ValueError: it may not be written (exit 2), one line saying why.
    """
    from .._display import export as export

    return export.check_target(
        args.output,
        guard=guarded(args),
        inputs=inputs(args),
        excel=bool(getattr(args, "excel", False)),
    )


def check_cache_place(args: argparse.Namespace) -> None:
    """Refuse a ``--cache`` that would put the cache inside a study (the study's own, or
    any): a study's folder holds only what the study writes.

    Raises:
        Usage: it would (exit 2).
    """
    from .._cache.setting import cache_location
    from .._display import files

    where = cache_location(args.cache or True)
    if not isinstance(where, Path):
        return
    studies = [g for g in guarded(args) if g.what == "the study"]
    try:
        files.check_folder(where.parent, guard=studies)
    except ValueError as exc:
        why = str(exc).split(": ", 1)[-1]
        raise Usage(f"--cache {where}: a cache cannot be kept there: {why}") from None
