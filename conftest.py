"""Fixtures for every test, the package's doctests included: a clean environment.

Doctests run against the sandbox; like the tests, they must neither read the
machine's ``SOCIALFRAME_*`` settings nor write to its cache directory.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

# The MCP server's modules need the SDK (the `mcp` extra, in `dev`): without it their
# doctests are not collected (tests/mcp skips itself, saying how to install it).
collect_ignore = (
    [] if importlib.util.find_spec("mcp") is not None else ["socialframe/_mcp/server.py"]
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No SOCIALFRAME_* from the machine; the default cache dir is the test's own."""
    import os

    for name in list(os.environ):
        if name.startswith("SOCIALFRAME_"):
            monkeypatch.delenv(name)
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(cache_dir))
    return cache_dir


@pytest.fixture(autouse=True)
def no_default_client() -> Iterator[None]:
    """Each test starts and ends without a default client."""
    from socialframe import _api as _default

    _default._client = None
    yield
    if _default._client is not None:
        _default._client.close()
        _default._client = None
