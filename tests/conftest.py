"""Shared fixtures: a running sandbox, a private cache, a client (the clean
environment comes from the root conftest.py, for the doctests too).

Everything goes through real HTTP on 127.0.0.1: requests, requests-cache and a
socket to the sandbox server, as users do.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import Sandbox


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0) as server:
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

    with Sandbox(seed=0) as server, server.client(cache=False, progress=False) as c:
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
