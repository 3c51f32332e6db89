"""The command line's run and its signals: Ctrl-C with workers stops paying and writes
the rows fetched so far; SIGTERM and SIGHUP stop a paid run like Ctrl-C, nothing paid
twice, and leave the old file whole when they come during the write. Real console
script, real sandbox, real signals."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from children import as_at_a_terminal
from test_cli import P2345, SCRIPT, _env, cli

from socialframe.sandbox import PinnedClock, Sandbox, comment_total

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out


def test_ctrl_c_with_workers_stops_paying(tmp_path: Path) -> None:
    big = [
        p
        for p in (str(7_384_427_202_391_592_960 + k) for k in range(64))
        if comment_total(p) == 2345
    ]
    assert len(big) >= 4
    with Sandbox(latency=0.3, clock=PinnedClock()) as sandbox:
        assert SCRIPT is not None
        proc = subprocess.Popen(
            [SCRIPT, "comments", *big[:4], "--workers", "4", "--cache", str(tmp_path)],
            env=_env(sandbox),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_at_a_terminal,
        )
        # once it pays (not after a fixed time: on a busy machine the import alone may
        # take longer, and Ctrl-C there is Python's own)
        deadline = time.monotonic() + 60
        while sandbox.charges < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        at_interrupt = sandbox.charges
        started = time.monotonic()
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - started
        after = sandbox.charges
    assert proc.returncode == 130, err
    assert after <= at_interrupt + 4, (at_interrupt, after)  # at most the calls in flight
    assert took < 10  # (before: 43 s, paying 43 more pages)
    assert "paid" in err and "interrupted" in err and "Traceback" not in err


def test_ctrl_c_writes_the_rows_fetched_so_far(tmp_path: Path) -> None:
    from socialframe.sandbox import EXAMPLE_POSTS

    posts = [EXAMPLE_POSTS[82], EXAMPLE_POSTS[51], EXAMPLE_POSTS[2345]]
    with Sandbox(latency=0.15, clock=PinnedClock()) as sandbox:
        assert SCRIPT is not None
        out = tmp_path / "partial.csv"
        proc = subprocess.Popen(
            [SCRIPT, "comments", *posts, "--workers", "1", "--cache", str(tmp_path)]
            + ["-o", str(out)],
            env=_env(sandbox),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_at_a_terminal,
        )
        deadline = time.monotonic() + 60
        while sandbox.charges < 6 and time.monotonic() < deadline:  # 2 + 2 pages, then the big
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    written = pd.read_csv(out, dtype=str)
    assert written["post"].tolist() == [posts[0]] * 82 + [posts[1]] * 51  # the posts finished
    assert "wrote the 133 comments fetched before it" in err and "Traceback" not in err


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".sf-"))


def _until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    """Wait for ``condition`` (a bound, not a timing assertion)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


PAGES_2345 = 47  # 2,345 comments, 50 a page
BIG = [
    p for p in (str(7_384_427_202_391_592_960 + k) for k in range(64)) if comment_total(p) == 2345
]


def _ledger(line: str) -> tuple[int, int]:
    """(paid, cached) from a ledger line."""
    found = re.fullmatch(r"socialframe: paid (\d+) calls? \(\S+\) · cached (\d+) .*", line)
    assert found, line
    return int(found.group(1)), int(found.group(2))


def test_sigterm_stops_like_ctrl_c_and_nothing_is_paid_twice(tmp_path: Path) -> None:
    """SIGTERM (timeout, docker stop, systemd) ended the process on the spot: no ledger,
    and the pages in flight paid but never stored, so paid again by the re-run."""
    assert len(BIG) >= 4
    cache = str(tmp_path / "c")
    with Sandbox(latency=0.3, clock=PinnedClock()) as sandbox:
        proc = subprocess.Popen(
            [str(SCRIPT), "comments", *BIG[:4], "--workers", "4", "--cache", cache]
            + ["-o", str(tmp_path / "out.csv")],
            env=_env(sandbox),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        _until(lambda: sandbox.charges >= 12, "a few pages paid")
        proc.send_signal(signal.SIGTERM)
        at_signal = sandbox.charges
        _, err = proc.communicate(timeout=60)
        after = sandbox.charges
        assert proc.returncode == 143, err
        lines = err.splitlines()
        assert len(lines) == 3 and "Traceback" not in err
        paid, cached = _ledger(lines[0])
        assert (paid, cached) == (after, 0)  # every page the service charged is in the ledger
        assert after <= at_signal + 4  # at most the calls in flight: no new call started
        # the rows fetched before it are written, as a budget stop writes them
        written = pd.read_csv(tmp_path / "out.csv", dtype=str)
        assert 0 < len(written) <= 50 * paid and set(written["post"]) <= set(BIG[:4])
        assert lines[1] == (
            f"socialframe: wrote the {len(written):,} comments fetched before it to"
            f" {tmp_path / 'out.csv'} (partial)"
        )
        assert lines[2] == (
            "socialframe: error: stopped by SIGTERM: no new call was started;"
            " the pages paid so far are in the cache"
        )
        assert _leftovers(tmp_path) == []

        sandbox.latency = 0.0
        again = cli("comments", *BIG[:4], "--cache", cache, sandbox=sandbox)
        assert again.code == 0, again.err
        assert _ledger(again.lines[0]) == (4 * PAGES_2345 - paid, paid)
        assert sandbox.charges == 4 * PAGES_2345  # no page paid twice
        assert len(pd.read_csv(io.StringIO(again.out), dtype=str)) == 4 * 2345


@pytest.mark.parametrize("nohup", [False, True], ids=["hang-up", "under nohup"])
def test_sighup_stops_the_run_unless_it_is_ignored(tmp_path: Path, nohup: bool) -> None:
    """A closed terminal (SIGHUP) killed the run on the spot; it stops as on Ctrl-C now
    (exit 129). Under nohup (SIGHUP ignored when the run began) it goes on."""
    wrapper = [shutil.which("nohup") or "nohup"] if nohup else []
    with Sandbox(latency=0.2, clock=PinnedClock()) as sandbox:
        proc = subprocess.Popen(
            [
                *wrapper,
                str(SCRIPT),
                "comments",
                P2345,
                "--max-pages",
                "8",
                "--cache",
                str(tmp_path),
            ],
            env=_env(sandbox),
            preexec_fn=as_at_a_terminal,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _until(lambda: sandbox.charges >= 2, "two pages paid")
        proc.send_signal(signal.SIGHUP)
        out, err = proc.communicate(timeout=60)
        lines = err.splitlines()
        if nohup:
            assert proc.returncode == 0, err
            assert sandbox.charges == 8 and len(pd.read_csv(io.StringIO(out))) == 400
            return
        assert proc.returncode == 129, err
        paid, _ = _ledger(lines[0])
        # One post is fetched in the main thread, where the signal lands: the call it was
        # reading is cut (as on Ctrl-C), so the service may have charged that one page.
        assert paid <= sandbox.charges <= paid + 1 and sandbox.charges < 8
        assert lines[-1].startswith("socialframe: error: stopped by SIGHUP: no new call")
        # the rows of the pages read before it are written (standard output here)
        rows = len(pd.read_csv(io.StringIO(out)))
        assert rows % 50 == 0 and 0 < rows <= 50 * paid
        assert lines[1] == (
            f"socialframe: wrote the {rows} comments fetched before it to standard output (partial)"
        )
        again = cli(
            "comments", P2345, "--max-pages", "8", "--cache", str(tmp_path), sandbox=sandbox
        )
        assert _ledger(again.lines[0]) == (8 - paid, paid)  # the pages paid come from the cache


def test_sigterm_while_writing_leaves_the_old_file(sandbox: Sandbox, tmp_path: Path) -> None:
    """The output is moved into place whole or not at all, whatever stops the run: a
    SIGTERM during a slow write (an Excel workbook of 9,380 rows, seconds) leaves the
    old file and no temporary file (the default action left a .sf- file behind)."""
    cache = str(tmp_path / "c")
    assert cli("comments", *BIG[:4], "--cache", cache, "-o", "/dev/null", sandbox=sandbox).code in (
        0,
        2,  # (the old code refuses /dev/null: the next run pays then)
    )
    out = tmp_path / "out.xlsx"
    out.write_bytes(b"the old file")
    proc = subprocess.Popen(
        [str(SCRIPT), "comments", *BIG[:4], "--cache", cache, "-o", str(out)],
        env=_env(sandbox),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _until(lambda: bool(_leftovers(tmp_path)), "the write under way", seconds=120)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.splitlines()[-1].startswith("socialframe: error: stopped by SIGTERM")
    assert out.read_bytes() == b"the old file" and _leftovers(tmp_path) == []


def test_help_documents_the_signals() -> None:
    run = cli("comments", "--help")
    assert "143  stopped by SIGTERM (timeout, docker stop, systemd), as by Ctrl-C" in run.out
    assert "129  the terminal hung up (SIGHUP; not under nohup)" in run.out


# -- the process's start ---------------------------------------------------------------------


def test_the_command_line_leaves_out_the_cache_backends_it_never_uses(tmp_path: Path) -> None:
    """requests-cache imports every backend whose library is installed (boto3 for
    DynamoDB: about 0.3 s a start, and redis as much). A command on a disk cache imports
    neither; one on a team cache imports Redis's (the team-cache tests run it); a process
    of the user's own that runs ``main()`` keeps every backend."""
    import importlib.util
    import sys

    if importlib.util.find_spec("boto3") is None or importlib.util.find_spec("redis") is None:
        pytest.skip("needs boto3 and redis installed (the test extras): pip install -e '.[test]'")
    env = {**os.environ, "SOCIALFRAME_CACHE_DIR": str(tmp_path / "cache")}
    started = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "socialframe", "cache", "info"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert started.returncode == 0, started.stderr
    imported = {line.split("|")[-1].strip() for line in started.stderr.splitlines()}
    assert "requests_cache" in imported  # (the run did open a cache: the disk cache it names)
    assert started.stdout.startswith(f"cache:          {tmp_path / 'cache' / 'http_cache.sqlite'}")
    assert not {"boto3", "botocore", "redis", "pymongo"} & imported, imported
    # the same run from a process of the user's own: its requests-cache as it was
    mine = (
        "from socialframe.__main__ import main\n"
        "assert main(['cache', 'info']) == 0\n"
        "import requests_cache.backends as b\n"
        "print(b.DynamoDbCache.__module__, b.RedisCache.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", mine], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split() == [
        "requests_cache.backends.dynamodb",
        "requests_cache.backends.redis",
    ]
