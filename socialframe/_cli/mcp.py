"""The ``mcp`` command: serve the tools to an AI agent, behind the server's spend cap
(see :mod:`socialframe._mcp`)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
from pathlib import Path

from .collect import missing_settings
from .exits import EXIT_OK, NoKey, Usage

#: How to get the SDK, said when it is missing.
INSTALL = "the MCP server needs the mcp extra: pip install 'socialframe[mcp]'"


def mcp(args: argparse.Namespace) -> int:
    """``socialframe mcp``: an MCP server on stdio (or ``--http``) until its client leaves."""
    if importlib.util.find_spec("mcp") is None:
        raise Usage(INSTALL)
    from .._mcp.run import SANDBOX_MAX_COST, loopback, sandboxed, serve, setup
    from .._mcp.server import build

    http = None
    if args.http is not None:
        host, port = args.http
        http = (loopback(host, allow_remote=args.allow_remote), port)
    studies = _studies(args.study)
    with contextlib.ExitStack() as stack:
        if args.sandbox:
            sandbox = stack.enter_context(sandboxed())
            max_cost = SANDBOX_MAX_COST if args.max_cost is None else args.max_cost
            chosen = setup(
                api_key=sandbox.api_key,
                base_url=sandbox.url,
                cache=args.cache or True,
                max_cost=max_cost,
                max_call_cost=args.max_call_cost,
                confirm_over=args.confirm_over,
                studies=studies,
                out=args.out,
                where="the embedded sandbox (made-up data, no money)",
            )
        else:
            args.offline = False
            missing = missing_settings(args)
            if missing is not None:
                no_key = not os.environ.get(args.key_env, "").strip()
                raise (NoKey if no_key else Usage)(missing)
            chosen = setup(
                api_key=os.environ.get(args.key_env, "").strip() or None,
                cache=args.cache or True,
                max_cost=args.max_cost,
                max_call_cost=args.max_call_cost,
                confirm_over=args.confirm_over,
                studies=studies,
                out=args.out,
            )
        stack.callback(chosen.client.close)
        stack.callback(chosen.offline.close)
        serve(build(chosen), http=http)
    return EXIT_OK


def _studies(given: list[str]) -> dict[str, Path]:
    """The studies by name (their folder's), each name once."""
    named: dict[str, Path] = {}
    for path in given:
        folder = Path(path).expanduser()
        name = folder.name or str(folder)
        if name in named:
            raise Usage(f"two --study folders are named {name!r}: rename one")
        named[name] = folder
    return named
