"""``socialframe study ...`` against the sandbox over HTTP: through ``main()`` in this
process (see ``tests/commands.py``), and the real console script in a subprocess for
what only a process shows (its start, exit, signals)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from commands import cli

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

pytestmark = pytest.mark.slow  # real processes: -m 'not slow' leaves them out

P82, P50 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]


def run(
    *args: str, sandbox: Sandbox, cwd: Path, stdin: str | None = None, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """``socialframe study ARGS`` (see :func:`commands.cli`: in this process unless
    ``process``), its key and a traceback never in what it says."""
    done = cli("study", *args, sandbox=sandbox, cwd=cwd, stdin=stdin, process=process)
    return subprocess.CompletedProcess(
        ["socialframe", "study", *args], done.code, done.out, done.err
    )


def test_a_cron_job_adds_refreshes_and_writes_the_changes(tmp_path: Path) -> None:
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        added = run(
            "add-posts", "bw", P82, "-", sandbox=sandbox, cwd=tmp_path, stdin=f"{P50}\n# a note\n"
        )
        assert added.returncode == 0, added.stderr
        assert "2 posts added; bw watches 2 posts and 0 searches" in added.stderr
        assert (
            run(
                "add-ads", "bw", "coffee", "--country", "US", sandbox=sandbox, cwd=tmp_path
            ).returncode
            == 0
        )
        first = run(  # (as cron runs it: the console script, a process of its own)
            "refresh",
            "bw",
            "--cache",
            "c",
            "-o",
            "run.csv",
            sandbox=sandbox,
            cwd=tmp_path,
            process=True,
        )
        assert first.returncode == 0, first.stderr
        run_rows = pd.read_csv(tmp_path / "run.csv", dtype={"item": str})
        assert run_rows["item"].tolist() == [P82, P50, "coffee"]
        assert run_rows["new"].tolist()[:2] == [82, 50]
        # the budget stops the next one (exit 3) and says the study keeps what it got
        stopped = run(
            "refresh", "bw", "--cache", "c", "--max-cost", "0.01", sandbox=sandbox, cwd=tmp_path
        )
        assert stopped.returncode == 3, stopped.stderr
        assert "kept in the study" in stopped.stderr
        changes = run(
            "changes", "bw", "--since", "7d", "-o", "changes.csv", sandbox=sandbox, cwd=tmp_path
        )
        assert changes.returncode == 0, changes.stderr
    written = pd.read_csv(tmp_path / "changes.csv", dtype=str)
    study = sf.Study(tmp_path / "bw")
    assert len(written) == len(study.changes()) and set(written["change"]) == {"new"}
    assert len(study.runs()) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add-posts", "bw", "not-a-post"], "no activity id"),
        (["add-ads", "bw"], "give a QUERY, or --page-id ID"),
        (["add-ads", "bw", "shoes", "--country", "USA"], "country"),
        (["changes", "bw", "--since", "last tuesday"], "since must be"),
        (["refresh", "bw", "--offline"], "--offline cannot be used here"),
        (["refresh", "nowhere"], "no study at nowhere (or it watches nothing)"),
        (["changes", "nowhere"], "no study at nowhere"),
    ],
)
def test_bad_arguments_exit_2_and_pay_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        run("add-posts", "bw", P82, sandbox=sandbox, cwd=tmp_path)  # free
        done = run(*args, sandbox=sandbox, cwd=tmp_path)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert not (tmp_path / "nowhere").exists()
        assert sandbox.charges == 0


def test_a_folder_that_is_not_a_study_exits_2_untouched(tmp_path: Path) -> None:
    (tmp_path / "bw").mkdir()
    (tmp_path / "bw" / "mine.txt").write_text("x")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        done = run("add-posts", "bw", P82, sandbox=sandbox, cwd=tmp_path)
    assert done.returncode == 5 and "is not a study" in done.stderr
    assert [p.name for p in (tmp_path / "bw").iterdir()] == ["mine.txt"]


def test_sigterm_mid_refresh_keeps_what_was_fetched(tmp_path: Path) -> None:
    import signal
    import time

    with Sandbox(seed=0, clock=PinnedClock()) as fast:
        run("add-posts", "bw", EXAMPLE_POSTS[2345], P82, sandbox=fast, cwd=tmp_path)
    with Sandbox(seed=0, latency=0.05, clock=PinnedClock()) as slow:
        env = dict(os.environ, SOCIALFRAME_BASE_URL=slow.url, SOCIALFRAME_API_KEY=slow.api_key)
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "socialframe",
                "study",
                "refresh",
                "bw",
                "--cache",
                "c",
                "--workers",
                "1",
            ],
            cwd=tmp_path,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while slow.charges < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
        assert child.returncode == 143, err
        assert "Traceback" not in err
        paid = slow.charges
        study = sf.Study(tmp_path / "bw")
        kept = study.comments()
        assert len(study.runs()) == 1 and len(kept) >= 50 * (paid - 1) - 50
        # the next refresh pays only for the pages not kept: P2345's rest (a page paid
        # as the signal came may be paid again) and P82's two, never reached
        again = run("refresh", "bw", "--cache", "c", sandbox=slow, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        assert slow.charges - paid in (47 - paid + 2, 47 - paid + 3)
    assert len(study.comments()) == 2345 + 82


# -- a cache whose disk is full ----------------------------------------------------------------

NEW_CACHE = "import sys, socialframe as sf; sf.Client('k-0123456789', cache=sys.argv[1]).close()"


def _cache_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CacheWarning" in line]


def test_a_refresh_whose_cache_disk_is_full_warns_as_comments_does(tmp_path: Path) -> None:
    """Before: ``study refresh`` said nothing (exit 0) when the HTTP cache's disk was
    full, and the next run paid for those pages again; ``comments`` warns."""
    from disks import on_a_full_disk

    cache = tmp_path / "cache"
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        run("add-posts", "bw", P50, sandbox=sandbox, cwd=tmp_path)  # one page of 50
        env = dict(
            os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key
        )
        module = [sys.executable, "-m", "socialframe"]
        prepare = [sys.executable, "-c", NEW_CACHE, str(cache)]
        fetched = on_a_full_disk(
            cache,
            [*module, "comments", P50, "--cache", str(cache)],  # the CSV to stdout
            prepare=prepare,
            env=env,
        )
        refreshed = on_a_full_disk(
            cache,
            [*module, "study", "refresh", str(tmp_path / "bw"), "--cache", str(cache)],
            prepare=prepare,
            env=env,
        )
        assert sandbox.charges == 2, (fetched.stderr, refreshed.stderr)  # one page each
    assert fetched.returncode == refreshed.returncode == 0, refreshed.stderr
    said = _cache_warnings(refreshed.stderr)
    assert said == _cache_warnings(fetched.stderr), (said, fetched.stderr)
    (line,) = said
    assert line.startswith(
        "socialframe: warning: CacheWarning: 1 paid page could not be stored in the cache"
        f" at {cache / 'http_cache.sqlite'}: the disk is full"  # (EFBIG: "... or failing")
    )
    assert "a re-run would pay for them again" in line
    assert "50 new, 0 changed in 1 item" in refreshed.stderr
    assert len(sf.Study(tmp_path / "bw").comments()) == 50  # the study kept them


def test_without_the_study_extra_a_refresh_says_what_to_install(tmp_path: Path) -> None:
    """A study's refresh in an install without DuckDB (plain ``pip install socialframe``):
    one line naming the extra, the exit of every StudyError (5), nothing paid; not a
    "bug: please report it" (exit 1)."""
    missing = tmp_path / "missing"
    missing.mkdir()
    # a `duckdb` first on the path that fails to import, as an absent one does
    (missing / "duckdb.py").write_text("raise ImportError(\"No module named 'duckdb'\")\n")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        env = dict(
            os.environ,
            SOCIALFRAME_BASE_URL=sandbox.url,
            SOCIALFRAME_API_KEY=sandbox.api_key,
            PYTHONPATH=str(missing),
        )
        added = subprocess.run(
            [sys.executable, "-m", "socialframe", "study", "add-posts", "bw", P82],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert added.returncode == 0, added.stderr
        done = subprocess.run(
            [sys.executable, "-m", "socialframe", "study", "refresh", "bw", "--cache", "c"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 5, done.stderr
        assert 'pip install "socialframe[study]"' in done.stderr
        assert "bug" not in done.stderr and "Traceback" not in done.stderr
        assert sandbox.charges == 0


def test_processes_that_read_a_study_exit_cleanly_every_time(tmp_path: Path) -> None:
    """CI saw ``study refresh --offline`` exit -6 after printing its error: pq.read_table
    returned while arrow's threads still held the Python bytes it read, and the last
    one, freeing them during interpreter shutdown, could not take the GIL ("terminate
    called without an active exception"). One run in six aborted so, run one by one;
    tests/test_parquet.py holds the deterministic check."""
    sf.Study(tmp_path / "bw").add_posts(P82)
    script = "import socialframe as sf, sys; sf.Study(sys.argv[1]).watched()"
    ended = []
    for _ in range(5):  # (two at a time: more at once hide the race)
        pair = [
            subprocess.Popen(
                [sys.executable, "-c", script, str(tmp_path / "bw")],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        ended += [(child.wait(timeout=120), child.communicate()[1]) for child in pair]
    assert [code for code, _ in ended] == [0] * 10, [err for _, err in ended]
