"""What ``socialframe mcp`` logs on its standard error (which an agent's host keeps in a
file): never a secret, whatever a client sends."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from socialframe.sandbox import Sandbox
from tests.mcp.conftest import KEY

pytestmark = pytest.mark.slow
URIS = [f"socialframe://frames/{KEY}", f"socialframe://{KEY}"]


def test_the_key_sent_in_a_uri_or_a_name_is_never_logged(sandbox: Sandbox, tmp_path: Path) -> None:
    env = {"SOCIALFRAME_API_KEY": KEY, "SOCIALFRAME_BASE_URL": sandbox.url}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "socialframe", "mcp", "--max-cost", "1", "--cache", str(tmp_path / "c")],
        env=env,
    )
    log = tmp_path / "stderr.txt"

    async def scenario() -> list[str]:
        said: list[str] = []
        with log.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                for uri in URIS:
                    try:
                        said.append(str(await client.read_resource(uri)))
                    except Exception as exc:  # noqa: BLE001 (an error is an answer here)
                        said.append(str(exc))
                for name in [KEY, "ledger"]:
                    try:
                        said.append(str(await client.call_tool(name, {KEY: KEY})))
                    except Exception as exc:  # noqa: BLE001
                        said.append(str(exc))
        return said

    said = anyio.run(scenario)
    logged = log.read_text(errors="replace")
    squeezed = re.sub(r"[^A-Za-z0-9]", "", logged + "".join(said))  # (a log wraps lines)
    assert re.sub(r"[^A-Za-z0-9]", "", KEY) not in squeezed, logged[:3000]
