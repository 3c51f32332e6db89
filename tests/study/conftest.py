"""Fixtures of the study tests: an S3-compatible server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import S3

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox


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


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study of one post and one search, refreshed once."""
    base = tmp_path_factory.mktemp("refreshed")
    study = sf.Study(base / "s")
    study.add_posts([EXAMPLE_POSTS[82]])
    study.add_ads("coffee", country="US")
    clock = PinnedClock()
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=base / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
    return base / "s"
