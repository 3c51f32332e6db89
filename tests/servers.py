"""Real servers the tests start on free loopback ports (not a test module).

Without the server's program a test skips, saying how to install it; under
``CI=true`` (``.ci/run`` installs it first) a missing server fails the run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

INSTALL = "needs redis-server: apt-get install redis-server (Debian/Ubuntu) or brew install redis"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_redis(
    folder: Path, *options: str, port: int | None = None, _tries: int = 4
) -> tuple[subprocess.Popen[bytes], str]:
    """A real redis-server on a free loopback port, or on ``port`` (a server started again
    where one was killed); skips, or fails on CI, without one. ``options`` are more of its
    command line (``--requirepass``, ``--appendonly yes``...)."""
    exe = shutil.which("redis-server")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"redis-server is missing on CI: {INSTALL}")
        pytest.skip(INSTALL)
    import redis

    given = port
    port = port or free_port()
    server = subprocess.Popen(
        [
            exe,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
            *options,
        ],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    password = options[options.index("--requirepass") + 1] if "--requirepass" in options else None
    answering = redis.Redis(host="127.0.0.1", port=port, password=password, socket_timeout=5)
    deadline = time.monotonic() + 20
    while True:
        try:
            # this server, not another test process's that took the port first (pytest -n)
            if answering.info("server")["process_id"] == server.pid:
                break
        except redis.RedisError:
            pass
        if server.poll() is not None and given is None and _tries > 0:
            # (it exited: the free port was taken before it bound it, by a server or a
            # connection of another test process): another port
            return start_redis(folder, *options, _tries=_tries - 1)
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            pytest.fail("redis-server did not start")
        time.sleep(0.05)
    answering.close()
    return server, url


@contextlib.contextmanager
def running_redis(folder: Path, *options: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """:func:`start_redis` for the block, stopped after it (if the test did not)."""
    server, url = start_redis(folder, *options)
    try:
        yield server, url
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=10)
