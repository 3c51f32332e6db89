"""The ``report`` command: the HTML report of a comments or ads file socialframe wrote
(CSV, Excel CSV or Parquet; ``-`` reads standard input), as ``df.social.report``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import _words as words
from .exits import EXIT_OK, Usage
from .messages import say


def report(args: argparse.Namespace) -> int:
    """``socialframe report FILE -o report.html``: read, check, write the page."""
    from .._display import export as export
    from .._display.report import write_report
    from .._time import check_zone

    check_zone(args.tz)  # before reading anything
    target = Path(args.output)
    if target.suffix.lower() not in (".html", ".htm"):
        raise Usage(f"-o names the report's file, which must end in .html: {args.output!r}")
    if args.file == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise Usage("FILE '-' reads standard input, but nothing is piped in")
        frame = export.read_frame(sys.stdin.buffer)
    else:
        source = Path(args.file)
        if not source.is_file():
            raise Usage(f"no such file: {args.file!r}")
        frame = export.read_frame(source)
    kind = frame.attrs["socialframe"]
    path = write_report(frame, target, kind=kind, title=args.title, tz=args.tz)
    say(f"wrote the report of {words.count(len(frame), kind.removesuffix('s'))} to {path}")
    return EXIT_OK
