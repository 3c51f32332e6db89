"""``socialframe mcp`` as a client starts it: a subprocess over stdio against the sandbox
on a socket, streamable HTTP on loopback, ``--sandbox`` with no key."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from socialframe.__main__ import main
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
from tests.mcp.conftest import KEY

pytestmark = pytest.mark.slow


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def _server(args: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "socialframe", "mcp", *args], env=env
    )


def test_stdio_subprocess_every_tool_and_the_cap_under_concurrent_calls(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    sandbox.latency = 0.05
    env = {"SOCIALFRAME_API_KEY": KEY, "SOCIALFRAME_BASE_URL": sandbox.url}
    params = _server(["--max-cost", "0.08", "--cache", str(tmp_path / "cache")], env)
    errors = (tmp_path / "stderr.txt").open("w+")
    request_close = errors.close

    async def scenario() -> tuple[list[Any], list[Any], Any, str]:
        async with Client(stdio_client(params, errlog=errors)) as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            assert "socialframe" in (client.instructions or "")
            singles = [
                await client.call_tool(
                    "estimate", {"tool": "post_comments", "posts": [EXAMPLE_POSTS[82]]}
                ),
                await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[82]]}),
                await client.call_tool("post_comments", {"posts": ["not a post"]}),
                await client.call_tool("study_changes", {"study": "none"}),
            ]
            many: list[Any] = [None] * 6

            async def one(i: int) -> None:
                many[i] = await client.call_tool(
                    "search_ads", {"query": f"tea number {i}", "max_ads": 52}
                )

            async with anyio.create_task_group() as group:
                for i in range(6):
                    group.start_soon(one, i)
            ledger = await client.call_tool("ledger", {})
            return singles, many, ledger, ",".join(names)

    try:
        singles, many, ledger, names = anyio.run(scenario)
        errors.seek(0)
        logged = errors.read()
    finally:
        request_close()
    assert names == "estimate,ledger,post_comments,search_ads,study_changes,study_sql"
    estimate, comments, bad, study = singles
    assert estimate.structured_content["max_usd"] == 0.04  # 200 comments: 4 pages at worst
    assert comments.structured_content["total_rows"] == 82
    assert bad.is_error and "no activity id" in _text(bad)
    assert study.is_error and "no study named" in _text(study)
    assert any(r.is_error for r in many) and any(not r.is_error for r in many)
    assert ledger.structured_content["paid_calls"] == sandbox.charges <= 8  # 0 overspend
    assert "KEYMUSTNOTLEAK" not in logged


def test_stdio_confirm_over_asks_the_human_through_the_client(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """--confirm-over over stdio: the server asks the client's human (elicitation), and a
    paid call goes ahead only on an accepted answer that allows its worst case."""
    from mcp import types

    env = {"SOCIALFRAME_API_KEY": KEY, "SOCIALFRAME_BASE_URL": sandbox.url}
    args = ["--max-cost", "1.00", "--confirm-over", "0.02", "--cache", str(tmp_path / "cache")]
    asked: list[str] = []
    answers = [
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="accept", content={"spend": True, "max_usd": 0.04}),
    ]

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return answers[len(asked) - 1]

    async def scenario() -> list[Any]:
        async with Client(stdio_client(_server(args, env)), elicitation_callback=answer) as client:
            post = {"posts": [EXAMPLE_POSTS[2345]]}
            return [
                await client.call_tool("post_comments", post),
                await client.call_tool("post_comments", post),
                await client.call_tool("ledger", {}),
            ]

    declined, accepted, ledger = anyio.run(scenario)
    assert declined.is_error and "nothing was sent" in _text(declined)
    assert not accepted.is_error, _text(accepted)
    assert len(asked) == 2 and all("up to $0.04" in message for message in asked)
    assert accepted.structured_content["cost"]["paid_calls"] == 4 == sandbox.charges
    assert ledger.structured_content["paid_calls"] == 4


def test_sandbox_mode_needs_no_key(tmp_path: Path) -> None:
    params = _server(["--sandbox", "--cache", str(tmp_path / "cache")], {})

    async def scenario() -> tuple[Any, Any]:
        async with Client(params) as client:
            got = await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[82]]})
            return got, await client.call_tool("ledger", {})

    got, ledger = anyio.run(scenario)
    assert not got.is_error, _text(got)
    assert got.structured_content["total_rows"] == 82
    assert ledger.structured_content["max_cost_usd"] == 1.0
    assert ledger.structured_content["paid_calls"] == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_streamable_http_on_loopback(sandbox: Sandbox, tmp_path: Path) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "SOCIALFRAME_API_KEY": KEY,
        "SOCIALFRAME_BASE_URL": sandbox.url,
    }
    args = ["mcp", "--max-cost", "0.05", "--http", f"127.0.0.1:{port}", "--cache", str(tmp_path)]
    process = subprocess.Popen(
        [sys.executable, "-m", "socialframe", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)

        async def scenario() -> tuple[Any, Any]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                got = await client.call_tool("search_ads", {"query": "coffee", "max_ads": 26})
                return got, await client.call_tool("ledger", {})

        got, ledger = anyio.run(scenario)
        assert not got.is_error, _text(got)
        assert ledger.structured_content["paid_calls"] == sandbox.charges == 1
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert b"KEYMUSTNOTLEAK" not in err


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "[::]"])
def test_http_refuses_a_host_that_is_not_loopback(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "--sandbox", "--http", f"{host}:8765"]) == 2
    err = capsys.readouterr().err
    assert "not a loopback address" in err and "--allow-remote" in err


def test_stdio_cancel_mid_call_keeps_the_ledger_true_and_the_pages_cached(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    sandbox.latency = 0.1
    env = {"SOCIALFRAME_API_KEY": KEY, "SOCIALFRAME_BASE_URL": sandbox.url}
    params = _server(["--max-cost", "1.00", "--cache", str(tmp_path / "cache")], env)
    post = {"posts": [EXAMPLE_POSTS[2345]], "max_comments": 2345}

    async def scenario() -> tuple[Any, Any]:
        async with Client(params) as client:
            with anyio.move_on_after(2.0):
                await client.call_tool("post_comments", post)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                figures = (await client.call_tool("ledger", {})).structured_content
                if round(figures["left_usd"] * 100) + figures["paid_calls"] == 100:
                    break  # nothing held: the cancelled call has settled
                await anyio.sleep(0.1)
            estimate = await client.call_tool("estimate", {"tool": "post_comments", **post})
            return figures, estimate.structured_content

    figures, estimate = anyio.run(scenario)
    paid = sandbox.charges
    assert 0 < paid < 47
    assert figures["paid_calls"] == paid
    assert estimate["pages_cached"] == paid
    assert estimate["pages_to_pay"] == 47 - paid


def test_without_a_key_it_says_so_and_never_takes_one_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SOCIALFRAME_API_KEY", raising=False)
    monkeypatch.setenv("SOCIALFRAME_BASE_URL", "http://127.0.0.1:9/none")
    assert main(["mcp", "--max-cost", "1"]) == 4
    err = capsys.readouterr().err
    assert "not set: SOCIALFRAME_API_KEY" in err and "sandbox" in err
    with pytest.raises(SystemExit) as exited:
        main(["mcp", "--api-key", KEY])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "never put the API key on the command line" in err
    assert "KEYMUSTNOTLEAK" not in err


def _unread_by(port: int) -> bool:
    """Whether a connection to the server on loopback ``port`` holds bytes it has not read
    (Linux's /proc/net/tcp: the server's side of each connection, its receive queue)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, queues = fields[1], fields[3], fields[4]
        if int(local.split(":")[1], 16) == port and state == "01" and int(queues.split(":")[1], 16):
            return True
    return False


def test_stdio_cancel_while_the_worst_case_is_worked_out_gives_its_hold_back(
    sandbox: Sandbox, own_redis: tuple[Any, str]
) -> None:
    # A call cancelled while its worst case is worked out (in a thread that cannot be
    # abandoned) is cancelled at the next checkpoint: the one before its fetch starts,
    # after its worst case is held. Its hold must be given back, and the call must end.
    # The worst case is walked through a team cache that is stopped (SIGSTOP: it takes
    # the read and never answers) until the cancel has landed: the call is cancelled
    # once the walk's read is seen waiting in the cache's socket, and the walk cannot
    # end first, however busy the machine (timing the cancel by the walk's length lost
    # that race once the walk took 20 ms).
    redis_server, url = own_redis
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    waited: list[bool] = []
    env = {"SOCIALFRAME_API_KEY": KEY, "SOCIALFRAME_BASE_URL": sandbox.url}
    params = _server(["--max-cost", "1.00", "--cache", url], env)
    big = EXAMPLE_POSTS[2345]
    call = {"posts": [big, EXAMPLE_POSTS[82]], "max_comments": 2345}  # 47 pages cached, 2 not

    async def scenario() -> tuple[Any, Any, Any]:
        async with Client(stdio_client(params)) as client:
            warm = await client.call_tool("post_comments", {"posts": [big], "max_comments": 2345})
            assert not warm.is_error, _text(warm)
            estimate = await client.call_tool("estimate", {"tool": "post_comments", **call})
            os.kill(redis_server.pid, signal.SIGSTOP)
            try:
                with anyio.CancelScope() as cancel:
                    async with anyio.create_task_group() as group:
                        group.start_soon(client.call_tool, "post_comments", call)
                        for _ in range(400):  # (20 s)
                            if _unread_by(port):
                                waited.append(True)  # the walk's read waits on the cache
                                break
                            await anyio.sleep(0.05)
                        cancel.cancel()
                await anyio.sleep(1.0)  # the server takes the cancel in
            finally:
                os.kill(redis_server.pid, signal.SIGCONT)
            # the walk ends (47 pages from the cache: milliseconds), its worst case is
            # held, and the cancel lands before the fetch: the hold must be given back
            # (read too soon, the ledger shows the hold not yet taken)
            await anyio.sleep(1.0)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                figures = (await client.call_tool("ledger", {})).structured_content
                if round(figures["left_usd"] * 100) + figures["paid_calls"] == 100:
                    break  # nothing held
                await anyio.sleep(0.1)
            return estimate, figures, await client.call_tool("post_comments", call)

    estimate, figures, again = anyio.run(scenario)
    assert waited, "the call's walk never reached the stopped cache"
    assert estimate.structured_content["pages_cached"] == 47
    assert estimate.structured_content["pages_to_pay"] == 47  # the 82's at worst: the hold
    assert figures["paid_calls"] == 47  # nothing paid by the cancelled call
    assert figures["left_usd"] == 0.53  # and its $0.47 hold given back
    assert not again.is_error, _text(again)  # the same call fits again
    assert sandbox.charges == 47 + 2
    assert again.structured_content["total_rows"] == 2345 + 82


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2"])
def test_streamable_http_refuses_another_site_s_host_or_origin(host: str, tmp_path: Path) -> None:
    # DNS rebinding: a web page whose name now points at this loopback address must not
    # drive the server (and spend its budget) from the browser; every loopback address
    # the server accepts without --allow-remote gets the Host and Origin checks.
    import json
    import urllib.error
    import urllib.request

    port = _free_port()
    args = ["mcp", "--sandbox", "--cache", str(tmp_path), "--http", f"{host}:{port}"]
    process = subprocess.Popen(
        [sys.executable, "-m", "socialframe", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "page", "version": "1"},
            },
        }
    ).encode()

    def status(headers: dict[str, str]) -> int:
        request = urllib.request.Request(
            f"http://{host}:{port}/mcp",
            data=body,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **headers,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection((host, port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        rebound = status({"Host": f"evil.example:{port}"})
        cross = status({"Host": f"{host}:{port}", "Origin": "http://evil.example"})
        own = status({"Host": f"{host}:{port}"})
    finally:
        process.terminate()
        process.communicate(timeout=30)
    assert rebound == 421
    assert cross == 403
    assert own == 200
