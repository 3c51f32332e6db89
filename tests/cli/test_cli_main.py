"""The command line against what a hostile review tried: Ctrl-C with workers, stdin in
odd encodings, outputs that would overwrite the cache or break half-way, keys typed
where they do not belong, a mistyped team-cache URL. Real console script, real sandbox."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from test_cli import P82, SCRIPT, as_at_a_terminal, cli

from socialframe._display import export
from socialframe.sandbox import PinnedClock, Sandbox, comment_total

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

SECRET = "sk_live_9fQxTz2Lp0SECRET"


def _env(sandbox: Sandbox, **more: str) -> dict[str, str]:
    return dict(
        os.environ,
        SOCIALFRAME_BASE_URL=sandbox.url,
        SOCIALFRAME_API_KEY=sandbox.api_key,
        PYTHONUNBUFFERED="1",
        **more,
    )


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


def test_the_output_is_never_the_cache_file(sandbox: Sandbox, tmp_path: Path) -> None:
    cache = tmp_path / "team.csv"
    run = cli("comments", P82, "--cache", str(cache), "-o", str(cache), sandbox=sandbox)
    assert run.code == 2 and "it is the cache file" in run.err
    assert sandbox.requests == []
    (tmp_path / "link.csv").symlink_to(tmp_path / "http_cache.sqlite")
    run = cli(
        "comments", P82, "--cache", str(tmp_path), "-o", str(tmp_path / "link.csv"), sandbox=sandbox
    )
    assert run.code == 2 and sandbox.requests == []
    run = cli("cache", "report", "--cache", str(cache), "-o", str(cache), sandbox=sandbox)
    assert run.code == 2 and not cache.exists()


def test_an_output_that_cannot_be_written_is_refused_before_paying(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    (tmp_path / "dir.csv").mkdir()
    run = cli("comments", P82, "-o", str(tmp_path / "dir.csv"), sandbox=sandbox)
    assert run.code == 2 and "it is a folder" in run.err
    assert sandbox.requests == []


FULL_DISK = """
import resource, signal, sys
from socialframe._display import export as _export
from socialframe.sandbox import example_comments
frame = example_comments()
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (16_384, 16_384))
try:
    _export.write(frame, sys.argv[1])
except OSError as exc:
    print("OSError", exc.errno)
"""


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_full_disk_leaves_the_old_file_whole(tmp_path: Path, suffix: str) -> None:
    """What every output goes through (the command line maps the OSError to exit 5)."""
    out = tmp_path / f"out{suffix}"
    out.write_bytes(b"the old file\n")
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(out)], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.startswith("OSError"), done.stdout + done.stderr
    assert out.read_bytes() == b"the old file\n"  # (before: cut to a 16 KB fragment)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no leftovers


@pytest.mark.parametrize(
    "argv",
    [
        ["--api-key", SECRET, "comments", "123"],
        ["comments", "123", "--apikey", SECRET],
        ["comments", "123", f"--token={SECRET}"],
        ["cache", "info", "--api_key", SECRET],
        ["comments", "123", "--key-env", SECRET],
        ["comments", "123", "--bogus", SECRET],
        ["comments", "123", "--key-env", SECRET.upper()],  # a key in capitals passes the name rule
        ["comments", "123", "--cache", f"reddis://:{SECRET}@127.0.0.1:6379/0"],
    ],
)
def test_a_key_typed_on_the_command_line_is_never_repeated(
    sandbox: Sandbox, argv: list[str]
) -> None:
    run = cli(*argv, sandbox=sandbox, env={"SOCIALFRAME_API_KEY": ""})
    assert run.code in (2, 4)
    assert SECRET not in (run.out + run.err).replace(SECRET.upper(), SECRET)
    assert sandbox.requests == []


def test_a_mistyped_team_cache_url_is_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    run = cli("comments", P82, "--cache", "redis:/127.0.0.1:6391/0", sandbox=sandbox, cwd=tmp_path)
    assert run.code == 2 and "looks like a URL" in run.err
    assert list(tmp_path.iterdir()) == [] and sandbox.requests == []


def test_control_characters_reach_an_xlsx_as_replacement_marks(tmp_path: Path) -> None:
    """XML cannot hold them: openpyxl raised after the calls were paid and left a
    workbook with half its cells empty."""
    import pandas as pd

    frame = pd.DataFrame({"text": pd.array(["bell\x07 vt\x0b esc\x1b", "fine"], dtype="string")})
    out = tmp_path / "ctrl.xlsx"
    export.write(frame, out)
    assert pd.read_excel(out)["text"].tolist() == ["bell\ufffd vt\ufffd esc\ufffd", "fine"]


def test_durations_reach_an_xlsx_with_their_unit(tmp_path: Path) -> None:
    import pandas as pd

    spans = pd.to_timedelta([56 * 86400 + 8 * 3600, None, 90], unit="s").astype("timedelta64[s]")
    out = tmp_path / "d.xlsx"
    export.write(pd.DataFrame({"total_active_time": spans}), out)
    got = pd.read_excel(out)["total_active_time"].tolist()
    assert got[0] == "56 days 08:00:00" and pd.isna(got[1])  # (before: 56, the unit lost)
    assert got[2] == "0 days 00:01:30"


def test_an_unreadable_cache_entry_is_one_named_line(sandbox: Sandbox, tmp_path: Path) -> None:
    import sqlite3

    run = cli(
        "comments", P82, "--cache", str(tmp_path), "-o", str(tmp_path / "c.csv"), sandbox=sandbox
    )
    assert run.code == 0, run.err
    with sqlite3.connect(tmp_path / "http_cache.sqlite") as db:  # what another version might leave
        db.execute("INSERT INTO responses (key, value) VALUES ('00ff00ff00ff00ff', X'6b6b6b')")
    run = cli("cache", "info", "--cache", str(tmp_path), sandbox=sandbox)
    assert run.code == 0, run.err
    assert all(line.startswith("socialframe: ") for line in run.lines), run.err


def test_the_writer_keeps_modes_and_long_names_and_refuses_links(tmp_path: Path) -> None:
    """Written beside and moved into place; the file it replaces keeps its mode (a 0600
    file became 0644), and a name of the longest legal length works (the temporary name
    was 15 characters longer). A symbolic link is refused (it was followed), and so is a
    file with another hard link (it was written in place): the files they name are
    left as they were."""
    import pandas as pd

    frame = pd.DataFrame({"text": pd.array(["new"], dtype="string")})
    private = tmp_path / "private.csv"
    private.write_text("old\n")
    private.chmod(0o600)
    export.write(frame, private)
    assert private.stat().st_mode & 0o777 == 0o600 and "new" in private.read_text()

    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old\n")
    link.symlink_to(real)
    with pytest.raises(ValueError, match="it is a symbolic link"):
        export.write(frame, link)
    assert link.is_symlink() and real.read_text() == "old\n"

    twin = tmp_path / "twin.csv"
    os.link(real, twin)
    with pytest.raises(ValueError, match="it is a file with 2 names"):
        export.write(frame.assign(text="newer"), real)
    assert real.read_text() == twin.read_text() == "old\n"

    long = tmp_path / ("x" * 251 + ".csv")
    export.write(frame, long)
    assert "new" in long.read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".sf-")]


@pytest.mark.slow  # the retries' backoff
@pytest.mark.parametrize(
    ("base", "why"),
    [
        ("http://127.0.0.1:{port}", "the connection was refused"),
        ("http://no-such-host.invalid", "its name was not found"),
    ],
)
def test_an_unreachable_host_is_one_plain_line_after_the_retries(
    base: str, why: str, tmp_path: Path
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = base.format(port=port)
    env = dict(os.environ, SOCIALFRAME_BASE_URL=url, SOCIALFRAME_API_KEY="k-unreachable")
    assert SCRIPT is not None
    done = subprocess.run(
        [SCRIPT, "comments", P82, "--cache", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 5, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    host = url.split("//")[1]
    assert f"could not reach {host}: {why}" in last
    for raw in ("Max retries", "Caused by", "HTTPConnection", "_Pool", "[Errno"):
        assert raw not in done.stderr
    # after the retries; a name that does not exist is not a passing fault: one try
    tries = 1 if "name was not found" in why else 5
    assert f"failed {tries} (free)" in done.stderr
