"""Fixtures of the study tests: an S3-compatible server on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from servers import S3


@pytest.fixture(scope="session")
def s3() -> Iterator[S3]:
    """One S3 server for the session (each test takes a bucket of its own)."""
    server = S3()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _machine_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's own cache folder (where a bucket study's files are copied to be
    read), never the user's."""
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path_factory.mktemp("machine-cache")))
