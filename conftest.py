"""Fixtures for every test, the package's doctests included: a clean environment.

Doctests run against the sandbox; like the tests, they must neither read the
machine's ``SOCIALFRAME_*`` settings nor write to its cache directory.
"""

from __future__ import annotations

import importlib.util
import os
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


# -- how pytest -n shares the tests out ------------------------------------------------------
#
# Measured on a 2-core machine (the README's command, --durations=0 and /usr/bin/time -v):
# two workers kept the CPU 75% busy (the tests wait on servers, processes, a browser and
# retries' backoff): 16:48. Three: 83%, 15:40. Three with a module's tests on one worker
# (its servers and its JupyterLab start once) and the modules with a browser or slow
# tests first (no worker left alone with a long module at the end): 87%, 14:24.


@pytest.hookimpl(optionalhook=True)  # (pytest-xdist's hooks: pytest -n)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker and a half a processor."""
    cpus = os.cpu_count() or 1
    return cpus + max(1, cpus // 2)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Whole modules to a worker (``--dist loadfile``, also for ``-n`` alone), in the
    order :func:`pytest_collection_modifyitems` gives them; xdist's own scheduler for any
    other ``--dist``."""
    if config.getoption("dist") not in ("load", "loadfile"):
        return None
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    # (xdist would hand out the modules with the most tests first: the browser modules,
    # 4 to 11 tests of 1 to 3 minutes, went last, and two workers ended on them)
    config.option.loadscopereorder = False
    return LoadFileScheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules with a browser test first, then those with slow ones, then the rest,
    each group's modules with the most tests first, each module whole and in its order
    (the longest jobs first: the workers end together)."""
    rank: dict[str, int] = {}
    size: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        weight = (
            0 if item.get_closest_marker("browser") else 1 if item.get_closest_marker("slow") else 2
        )
        rank[module] = min(rank.get(module, 2), weight)
        size[module] = size.get(module, 0) + 1
    items.sort(key=lambda item: (rank[m := item.nodeid.split("::")[0]], -size[m]))
