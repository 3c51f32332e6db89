"""Shared fixtures: a running sandbox, a private cache, a client (the clean
environment comes from the root conftest.py, for the doctests too).

Everything goes through real HTTP on 127.0.0.1: requests, requests-cache and a
socket to the sandbox server, as users do.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import PinnedClock, Sandbox


@pytest.hookimpl(optionalhook=True)  # (pytest-xdist's hook: pytest -n)
def pytest_testnodedown(node: Any, error: object) -> None:
    """Where a worker's browser tests left their screenshots (see ``test_browser.shots``)."""
    reporter = node.config.pluginmanager.getplugin("terminalreporter")
    for said in node.workeroutput.get("screenshots", []):
        reporter.ensure_newline()
        reporter.write_line(said)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock()) as server:
        yield server


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "client-cache.sqlite"


@pytest.fixture
def client(sandbox: Sandbox, cache_path: Path) -> Iterator[sf.Client]:
    with sandbox.client(cache=cache_path, backoff=0.01, progress=False) as c:
        yield c


@pytest.fixture(scope="session")
def comments_2345() -> pd.DataFrame:
    """The 2,345 comments of one sandbox post, fetched once per run (read-only: copy to change)."""
    from socialframe.sandbox import EXAMPLE_POSTS

    with (
        Sandbox(seed=0, clock=PinnedClock()) as server,
        server.client(cache=False, progress=False) as c,
    ):
        frame = c.post_comments(EXAMPLE_POSTS[2345])
    assert len(frame) == 2345
    return frame


@pytest.fixture
def no_plt_show(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fails a test whose chart calls ``plt.show()`` (charts return their Axes instead);
    closes every figure after it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("plots must never call plt.show()")

    monkeypatch.setattr(plt, "show", refuse)
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server for the tests of one module (see ``servers.start_redis``)."""
    from servers import running_redis

    with running_redis(tmp_path_factory.mktemp("redis")) as (_, url):
        yield url


@pytest.fixture
def team(redis_url: str) -> str:
    """The module's Redis, emptied for this test: a team cache's URL."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    return redis_url


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """A redis-server of this test alone, ``(process, url)``: the test may kill it."""
    from servers import running_redis

    with running_redis(tmp_path) as started:
        yield started
