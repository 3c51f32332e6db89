"""The MCP server's tests: a sandbox on a loopback socket, the server built over it, and
the SDK's own client connected to it (in memory here; over stdio and HTTP in
test_transports)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

try:
    import mcp  # noqa: F401
except ImportError:  # (under CI a missing SDK fails the run; elsewhere the tests say how)
    if os.environ.get("CI") == "true":
        pytest.fail("the MCP SDK is missing on CI: pip install -e '.[test]'", pytrace=False)
    pytest.skip(
        "the MCP server needs the mcp extra: pip install -e '.[mcp]'", allow_module_level=True
    )

from mcp import Client  # noqa: E402

from socialframe._mcp import run, server  # noqa: E402
from socialframe.sandbox import PinnedClock, Sandbox  # noqa: E402

#: A key no test could mistake: it must never come back in anything the server says.
KEY = "sf-sandbox-KEYMUSTNOTLEAK-7c1e55aa"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock(), api_key=KEY) as made:
        yield made


@pytest.fixture
def make(sandbox: Sandbox, tmp_path: Path) -> Iterator[Callable[..., server.Setup]]:
    """Build a server's setup over the sandbox (a fresh cache per test)."""
    made: list[server.Setup] = []

    def build_setup(**options: Any) -> server.Setup:
        options.setdefault("max_cost", 1.00)
        chosen = run.setup(
            api_key=sandbox.api_key,
            base_url=sandbox.url,
            cache=tmp_path / "cache.sqlite",
            **options,
        )
        made.append(chosen)
        return chosen

    yield build_setup
    for chosen in made:
        chosen.client.close()
        chosen.offline.close()


def connected(
    chosen: server.Setup, scenario: Callable[[Client], Awaitable[Any]], **client_options: Any
) -> Any:
    """Run ``scenario`` with the SDK's client connected in memory to the server."""
    built = server.build(chosen)

    async def main() -> Any:
        async with Client(built, **client_options) as client:
            return await scenario(client)

    return anyio.run(main)
