"""The ``report`` command: the HTML report of a comments or ads file socialframe wrote
(CSV, CSV for spreadsheets, JSON lines, Parquet or Excel; ``-`` reads standard input), as
``df.social.report``. What it cannot read is said in words (see
:mod:`socialframe._display.reading`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import _words as words
from . import outputs
from .exits import EXIT_OK, Usage
from .messages import say


def report(args: argparse.Namespace) -> int:
    """``socialframe report FILE -o report.html``: check, read, write the page."""
    from .._display import files, reading
    from .._display.report import write_report
    from .._time import check_zone

    check_zone(args.tz)  # before reading anything
    target = Path(args.output)
    if target.suffix.lower() not in (".html", ".htm"):
        raise Usage(f"-o names the report's file, which must end in .html: {args.output!r}")
    guard, read = outputs.guarded(args), outputs.inputs(args)
    files.check(target, guard=guard, inputs=read)  # (before reading: the input may be long)
    if args.file == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise Usage("FILE '-' reads standard input, but nothing is piped in")
        frame = reading.read_frame(sys.stdin.buffer)
    else:
        source = Path(args.file)
        if not source.is_file():
            raise Usage(f"no such file: {args.file!r}")
        frame = reading.read_frame(source)
    kind = frame.attrs["socialframe"]
    path = write_report(
        frame, target, kind=kind, title=args.title, tz=args.tz, guard=guard, inputs=read
    )
    say(f"wrote the report of {words.count(len(frame), kind.removesuffix('s'))} to {path}")
    return EXIT_OK
