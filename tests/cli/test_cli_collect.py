"""The ``comments`` and ``ads`` commands' items and settings: standard input in odd
encodings, hashtag queries, a mistyped team-cache URL. Real console script, real sandbox.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_cli import P82, SCRIPT, _env, cli

from socialframe.sandbox import Sandbox

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out


def test_a_byte_order_mark_on_stdin_is_no_part_of_the_item(sandbox: Sandbox) -> None:
    run = cli("comments", "-", sandbox=sandbox, stdin="\ufeff" + P82 + "\r\n")
    assert run.code == 0, run.err
    assert run.lines[-1] == "socialframe: wrote 82 comments to standard output"


def test_stdin_that_is_not_utf8_is_refused_before_paying(sandbox: Sandbox) -> None:
    assert SCRIPT is not None
    done = subprocess.run(
        [SCRIPT, "ads", "-"],
        input=b"typewriter ribbon\nyoga mat\ncaf\xe9\n",
        capture_output=True,
        env=_env(sandbox),
        timeout=60,
    )
    assert done.returncode == 2
    assert b"not UTF-8 (line 3)" in done.stderr
    assert sandbox.requests == []


def test_hashtag_queries_on_stdin_are_searched(sandbox: Sandbox) -> None:
    run = cli("ads", "-", "--max-pages", "1", sandbox=sandbox, stdin="#blackfriday\ncoffee\n")
    assert run.code == 0, run.err
    searched = {r.params.get("query") for r in sandbox.requests}
    assert searched == {"#blackfriday", "coffee"}


def test_a_mistyped_team_cache_url_is_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    run = cli("comments", P82, "--cache", "redis:/127.0.0.1:6391/0", sandbox=sandbox, cwd=tmp_path)
    assert run.code == 2 and "looks like a URL" in run.err
    assert list(tmp_path.iterdir()) == [] and sandbox.requests == []
