"""The ``cache`` command: what the cache holds and what it cost (``info``, ``report``),
and clearing it, asked on a terminal or told with ``--yes`` (``clear``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import _words as words
from . import outputs
from .exits import EXIT_OK, Usage
from .messages import PROG, say, shown


def cache(args: argparse.Namespace) -> int:
    """``socialframe cache info|report|clear``."""
    from .._cache import inventory as inventory
    from .._cache.redis import TeamURL  # (a team cache's URL: shown without its password)
    from .._cache.setting import cache_location, open_backend
    from .._display import export as export
    from .._ledger import PRICE_CENTS, usd

    setting: Any = args.cache or True
    location = cache_location(setting)
    where = location.shown if isinstance(location, TeamURL) else str(location)
    target = outputs.target(args) if args.action == "report" else None
    missing = isinstance(location, Path) and not location.exists()
    # Reading an absent cache must not create one.
    backend = None if missing else open_backend(setting)
    try:
        if args.action == "info":
            total = inventory.summary(backend, where + (" (absent)" if missing else ""))
            sys.stdout.write("\n".join(shown(line) for line in total.lines()) + "\n")
            return EXIT_OK
        if args.action == "report":
            frame = inventory.report(backend)
            export.write(frame, target, excel=args.excel)
            pages = int(frame["pages"].sum())
            paid = usd(pages * PRICE_CENTS)
            say(
                f"{words.count(len(frame), 'item')}, {words.count(pages, 'page')}, {paid} paid,"
                f" in {where}"
            )
            return EXIT_OK
        found = inventory.scan(backend) if backend is not None else inventory.Scan([], [])
        chosen = [page for page in found.pages if page.expired or not args.expired]
        kind = "expired page" if args.expired else "page"
        if not chosen and not found.unreadable:
            say(f"no {words.plural(kind)} to remove in {where}")
            return EXIT_OK
        what = f"{words.count(len(chosen), kind)} ({usd(len(chosen) * PRICE_CENTS)} paid)"
        if found.unreadable:  # not pages: worth nothing, whichever pages are chosen
            what += f" and {words.count(len(found.unreadable), 'unreadable entry')}"
        what += f" from {where}"
        if not args.yes and not _confirm(f"remove {what}?"):
            raise Usage(f"cache clear would remove {what}: add --yes to do it")
        inventory.remove(backend, chosen, found.unreadable)
        say(f"removed {what}")
        return EXIT_OK
    finally:
        if backend is not None:
            backend.close()


def _confirm(question: str) -> bool:
    """Ask on a terminal; without one (cron, a pipe) the answer is no."""
    if sys.stdin is None or not sys.stdin.isatty():
        return False
    print(f"{PROG}: {shown(question)} [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")
