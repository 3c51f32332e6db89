"""The commands that run the embedded sandbox: ``demo`` (a tour against it, see
:mod:`.demo`) and ``sandbox`` (serve it on a port for other tools)."""

from __future__ import annotations

import argparse
import sys

from . import outputs
from .exits import EXIT_OK


def demo(args: argparse.Namespace) -> int:
    """``socialframe demo``: the tour against the embedded sandbox, charts into ``--out``."""
    from .._display import files
    from .demo import CHARTS, run

    # The charts' places, before the tour: none may be the cache, a study's, a link.
    guard = outputs.guarded(args)
    files.check_folder(args.out, guard=guard)
    if args.out.is_dir():
        for name in CHARTS:
            files.check(args.out / name, guard=guard)
    run(args.out, cache=not args.no_cache, guard=guard)
    return EXIT_OK


def sandbox(args: argparse.Namespace) -> int:
    """``socialframe sandbox``: serve the sandbox until Ctrl-C, its URL and key printed."""
    from ..sandbox import PinnedClock, Sandbox

    server = Sandbox(
        clock=None if args.at is None else PinnedClock(args.at),
        port=args.port,
        seed=args.seed,
        latency=args.latency,
        fault_rate=args.fault_rate,
        rate_limit=args.rate_limit,
        api_key=args.api_key,
    )

    def ready(served: Sandbox) -> None:
        print(f"sandbox serving at {served.url} (Ctrl-C stops it)")
        if args.at is not None:
            print(f"  its world as of {args.at.isoformat()}, standing still")
        print(f"  export SOCIALFRAME_BASE_URL={served.url}")
        print(f"  export SOCIALFRAME_API_KEY={served.api_key}")
        sys.stdout.flush()

    server.serve_forever(ready=ready)
    return EXIT_OK
