"""The command line: the sandbox served for other tools, as a separate process."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys

import pytest
import requests

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox


def test_sandbox_command_serves_until_stopped() -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "socialframe", "sandbox", "--port", "0", "--api-key", "k-cli"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = re.search(r"serving at (\S+)", line).group(1)  # type: ignore[union-attr]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/seed-0", url)
        with sf.Client("k-cli", base_url=url, cache=False) as client:
            assert len(client.post_comments(EXAMPLE_POSTS[82])) == 82
        assert requests.get(url + "/fetch_search_ads_pages", timeout=5).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()


def test_the_key_never_reaches_the_logs(
    sandbox: Sandbox, client: sf.Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sandbox.inject(503, 401)
    with pytest.raises(sf.AuthError) as info:
        client.post_comments(EXAMPLE_POSTS[82])
    client.search_ads("for kids", max_pages=1)
    client.search_ads("for kids", max_pages=1)
    assert "requests_cache" in caplog.text  # the cache did log, at DEBUG
    for text in (caplog.text, str(info.value), repr(info.value), repr(client), str(client.ledger)):
        assert sandbox.api_key not in text
