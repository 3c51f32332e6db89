"""Command line: ``python -m socialframe demo`` and ``python -m socialframe sandbox``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``socialframe`` console script."""
    parser = argparse.ArgumentParser(prog="socialframe", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="fetch comments and ads from the embedded sandbox")
    demo.add_argument(
        "--out", type=Path, default=Path("socialframe-demo"), help="folder of the chart"
    )
    demo.add_argument("--no-cache", action="store_true", help="do not use the on-disk cache")
    serve = commands.add_parser("sandbox", help="serve the sandbox for other tools")
    serve.add_argument("--port", type=int, default=8750, help="0 picks a free port")
    serve.add_argument("--seed", type=int, default=0)
    serve.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    serve.add_argument("--fault-rate", type=float, default=0.0, help="share of 5xx / success:false")
    serve.add_argument("--rate-limit", type=float, default=None, help="requests per second")
    serve.add_argument("--api-key", default=None, help="key to accept (default: a random one)")
    args = parser.parse_args(argv)

    if args.command == "demo":
        from ._demo import run

        run(args.out, cache=not args.no_cache)
        return 0

    from .sandbox import Sandbox

    sandbox = Sandbox(
        port=args.port,
        seed=args.seed,
        latency=args.latency,
        fault_rate=args.fault_rate,
        rate_limit=args.rate_limit,
        api_key=args.api_key,
    )

    def ready(served: Sandbox) -> None:
        print(f"sandbox serving at {served.url} (Ctrl-C stops it)")
        print(f"  export SOCIALFRAME_BASE_URL={served.url}")
        print(f"  export SOCIALFRAME_API_KEY={served.api_key}")
        sys.stdout.flush()

    sandbox.serve_forever(ready=ready)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
