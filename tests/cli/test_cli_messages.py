"""The command line's files, signals and messages against what a hostile run tried
(issue 19): outputs that are links to the cache or to what is no file, SIGTERM and
SIGHUP in the middle of a paid run or of the write, a key pasted into another
option, bytes that are not UTF-8, a budget of "-0". Real console script, real
sandbox, real files and signals."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest
from test_cli import P82, P2345, SCRIPT, as_at_a_terminal, cli
from test_cli import _env

from socialframe.sandbox import PinnedClock, Sandbox, comment_total

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

SECRET = "sk_live_9fQxTz2Lp0SECRETkey"
PAGES_2345 = 47  # 2,345 comments, 50 a page


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".sf-"))


def _until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    """Wait for ``condition`` (a bound, not a timing assertion)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


# -- the output file -------------------------------------------------------------------------


@pytest.fixture
def filled(sandbox: Sandbox, tmp_path: Path) -> Iterator[Path]:
    """A cache folder holding P82's two pages (paid once, here)."""
    folder = tmp_path / "cache"
    run = cli("comments", P82, "--cache", str(folder), sandbox=sandbox)
    assert run.code == 0, run.err
    assert sandbox.charges == 2
    yield folder


@pytest.mark.parametrize(
    "link",
    [
        lambda cache, out: os.link(cache / "http_cache.sqlite", out),
        lambda cache, out: out.symlink_to(cache / "http_cache.sqlite"),
        lambda cache, out: os.link(next((cache / "http_cache.sqlite.locks").iterdir()), out),
        lambda cache, out: out.symlink_to(next((cache / "http_cache.sqlite.locks").iterdir())),
    ],
    ids=[
        "hard link to the cache",
        "symlink to the cache",
        "hard link to a lock",
        "symlink to a lock",
    ],
)
def test_no_link_to_the_cache_is_written(
    sandbox: Sandbox, filled: Path, tmp_path: Path, link: Callable[[Path, Path], None]
) -> None:
    """A hard link passed the check by name and wrote CSV over the SQLite file: every
    paid page lost. Files are compared as files (device and inode) now."""
    out = tmp_path / "out.csv"
    link(filled, out)
    before = {p.name: p.read_bytes() for p in filled.rglob("*") if p.is_file()}
    sent = len(sandbox.requests)
    run = cli("comments", P82, "--cache", str(filled), "-o", str(out), sandbox=sandbox)
    assert run.code == 2, run.err
    assert re.fullmatch(
        rf"socialframe: error: cannot write {re.escape(str(out))}: it is (the cache file|a"
        r" symbolic link to the cache file|a hard link to a file of the cache's lock folder|a"
        r" symbolic link to a file inside the cache's lock folder)"
        rf" {re.escape(str(filled / 'http_cache.sqlite'))}(\.locks)?\n",
        run.err,
    )
    assert len(sandbox.requests) == sent  # refused before anything was asked
    assert {p.name: p.read_bytes() for p in filled.rglob("*") if p.is_file()} == before
    again = cli("comments", P82, "--cache", str(filled), sandbox=sandbox)
    assert again.lines[0].startswith("socialframe: paid 0 calls") and sandbox.charges == 2


@pytest.mark.parametrize(
    ("name", "points_to"), [("out.csv", "notes.txt"), ("out.jsonl", "data.xlsx")]
)
def test_a_link_to_an_ordinary_file_is_refused_and_the_file_kept(
    sandbox: Sandbox, filled: Path, tmp_path: Path, name: str, points_to: str
) -> None:
    """``out.csv -> notes.txt`` wrote an Excel workbook into notes.txt (the format was
    taken from the suffix of the file the link names); then the link was followed to
    the file it names. A link is never written through now, whatever it names."""
    real, link = tmp_path / points_to, tmp_path / name
    real.write_text("my notes\n")
    link.symlink_to(real)
    run = cli("comments", P82, "--cache", str(filled), "-o", str(link), sandbox=sandbox)
    assert run.code == 2, run.err
    assert run.lines == [
        f"socialframe: error: cannot write {link}: it is a symbolic link (to {real}): a link"
        " is never written through; name the file itself"
    ]
    assert real.read_text() == "my notes\n" and link.is_symlink()
    assert sandbox.charges == 2 and _leftovers(tmp_path) == []  # (the fixture's two pages)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(path.name)  # (relative: the test runs in its folder; a full path may be too long)
    _sockets.append(server)


_sockets: list[socket.socket] = []


def _device(path: Path) -> None:
    """A character device of the test's own (a copy of /dev/zero's numbers), so that a
    writer that replaced the node (as 05d46ae did) harms nothing of the machine's."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda out: _fifo(out), "a named pipe (FIFO), not a regular file"),
        (
            lambda out: (_fifo(out.with_name("pipe")), out.symlink_to("pipe")),
            "a symbolic link (to pipe)",
        ),
        (lambda out: _socket(out), "a socket, not a regular file"),
        (lambda out: _device(out), "a character device, not a regular file"),
        (
            lambda out: (_device(out.with_name("zero")), out.symlink_to("zero")),
            "a symbolic link (to zero)",
        ),
        (lambda out: out.mkdir(), "a folder"),
    ],
    ids=["fifo", "link to a fifo", "socket", "device", "link to a device", "folder"],
)
def test_what_is_no_regular_file_is_refused_before_paying(
    sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[Path], object],
    kind: str,
) -> None:
    """A ``.csv`` name on a pipe or a device replaced the node by a regular file,
    after paying. (Not run on the old code for the device: as root it would have
    replaced /dev/zero.)"""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.csv"
    make(out)
    was = os.stat(out).st_mode
    try:
        run = cli("comments", P82, "--cache", str(tmp_path / "c"), "-o", str(out), sandbox=sandbox)
    finally:
        while _sockets:
            _sockets.pop().close()
    assert run.code == 2, run.err
    assert f"cannot write {out}: it is {kind}" in run.err and len(run.lines) == 1
    assert sandbox.requests == []
    assert stat.S_IFMT(os.stat(out).st_mode) == stat.S_IFMT(was)  # the node is as it was


def test_dev_null_discards_and_dev_stdout_is_standard_output(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """What a shell user means by them (both were refused: no known suffix)."""
    cache = str(tmp_path / "c")
    run = cli("comments", P82, "--cache", cache, "-o", "/dev/null", sandbox=sandbox)
    assert (run.code, run.out) == (0, ""), run.err
    assert run.lines[-1] == "socialframe: wrote 82 comments to /dev/null (discarded)"
    assert os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    run = cli("comments", P82, "--cache", cache, "-o", "/dev/stdout", sandbox=sandbox)
    assert run.code == 0, run.err
    assert run.lines[0].startswith("socialframe: paid 0 calls")  # (the discarded run stored them)
    frame = pd.read_csv(io.StringIO(run.out), dtype=str)
    assert len(frame) == 82 and run.lines[-1] == "socialframe: wrote 82 comments to standard output"


def test_the_output_is_never_the_list_piped_in(sandbox: Sandbox, tmp_path: Path) -> None:
    posts = tmp_path / "posts.csv"
    posts.write_text(f"{P82}\n")
    with posts.open("rb") as stdin:
        done = subprocess.run(
            [str(SCRIPT), "comments", "-", "-o", str(posts), "--cache", str(tmp_path / "c")],
            stdin=stdin,
            capture_output=True,
            text=True,
            env=_env(sandbox),
            timeout=120,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"socialframe: error: cannot write {posts}: it is standard input, read by this run\n"
    )
    assert posts.read_text() == f"{P82}\n" and sandbox.requests == []


def test_a_loop_of_links_is_one_line(sandbox: Sandbox, tmp_path: Path) -> None:
    loop = tmp_path / "loop.csv"
    loop.symlink_to(loop)
    run = cli("comments", P82, "-o", str(loop), sandbox=sandbox)
    assert (run.code, run.lines) == (
        2,
        [f"socialframe: error: cannot write {loop}: its symbolic links form a loop"],
    )
    assert sandbox.requests == []  # (was: exit 1, "unexpected RuntimeError ... a bug")


def test_a_target_that_changed_during_the_fetch_is_checked_again(tmp_path: Path) -> None:
    """Checked before paying and again before writing: a pipe that took the file's
    place meanwhile is left alone (exit 5: the output failed, the pages are paid)."""
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    with Sandbox(latency=0.3, clock=PinnedClock()) as sandbox:
        proc = subprocess.Popen(
            [str(SCRIPT), "comments", P2345, "--max-pages", "5", "--cache", str(tmp_path / "c")]
            + ["-o", str(out)],
            env=_env(sandbox),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        _until(lambda: len(sandbox.requests) >= 1, "the first request")
        out.unlink()
        os.mkfifo(out)
        _, err = proc.communicate(timeout=120)
        paid = sandbox.charges
    assert proc.returncode == 5, err
    assert err.splitlines()[-1] == (
        f"socialframe: error: cannot write {out}: it is a named pipe (FIFO), not a regular file:"
        " name a file; nothing was written. The pages paid are in the cache: run again with"
        " another -o, they cost nothing then"
    )
    assert stat.S_ISFIFO(os.stat(out).st_mode) and paid == 5
    assert _leftovers(tmp_path) == []


# -- an interrupted write ---------------------------------------------------------------------

INTERRUPTED_WRITE = """
import os, signal, sys
import pandas as pd
from socialframe._display import export as _export

class Interrupting:
    '''A cell that sends the process SIGINT when the writer turns it into text: an
    interrupt in the middle of the write, after the first 100,000 rows went out.'''
    def __str__(self):
        os.kill(os.getpid(), signal.SIGINT)
        return "x"

rows = ["row"] * 150_000
rows[120_000] = Interrupting()
try:
    _export.write(pd.DataFrame({"text": rows}), sys.argv[1])
except KeyboardInterrupt:
    print("interrupted")
"""


def test_an_interrupted_write_leaves_the_old_file_whole(tmp_path: Path) -> None:
    """Ctrl-C half-way through the rows: the old file is as it was, whole, and no
    temporary file is left beside it."""
    out = tmp_path / "out.csv"
    out.write_text("text\nthe old file\n")
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_WRITE, str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=as_at_a_terminal,
    )
    assert done.stdout == "interrupted\n", done.stderr
    assert out.read_text() == "text\nthe old file\n"
    assert _leftovers(tmp_path) == [] and [p.name for p in tmp_path.iterdir()] == ["out.csv"]


HELD = """
import os, signal, sys
from socialframe._display.files import interrupts_held
with interrupts_held():
    os.kill(os.getpid(), signal.SIGTERM)
    print("the block ran to its end", flush=True)
print("never: SIGTERM was delivered after the block", flush=True)
"""


def test_interrupts_are_held_until_the_block_ends() -> None:
    done = subprocess.run([sys.executable, "-c", HELD], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGTERM  # the default action, once the block ended
    assert done.stdout == "the block ran to its end\n"


# -- SIGTERM and SIGHUP -----------------------------------------------------------------------

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


# -- the key is never repeated -----------------------------------------------------------------


@pytest.fixture
def keyed() -> Iterator[Sandbox]:
    with Sandbox(api_key=SECRET, clock=PinnedClock()) as server:
        yield server


@pytest.mark.parametrize(
    "args",
    [
        ["comments", P82, "--max-cost", SECRET],
        ["comments", P82, f"--max-cost={SECRET}"],
        ["comments", P82, "--workers", SECRET],
        ["comments", P82, "--sort", SECRET],
        ["comments", SECRET],
        ["comments", P82, f"x{SECRET}y"],
        ["ads", SECRET],
        ["ads", f"shoes {SECRET.upper()}"],  # (in capitals: the key still)
        ["ads", "coffee", "--country", SECRET],
        ["ads", "coffee", "--after", SECRET],
        ["ads", "coffee", "-o", f"{SECRET}.csv"],
        ["comments", P82, "--cache", f"/tmp/{SECRET}"],
        ["cache", "info", "--cache", f"/tmp/{SECRET}"],
        ["cache", "report", "-o", f"{SECRET}.txt"],
        ["comments", P82, "--no-such-option", SECRET],
    ],
)
def test_a_key_pasted_into_another_value_is_never_repeated(
    keyed: Sandbox, tmp_path: Path, args: list[str]
) -> None:
    """``--max-cost "$SOCIALFRAME_API_KEY"`` printed the key in its error, a key given
    as a QUERY was sent and stored, one in ``-o`` named a file. Any argument holding
    the key is refused now, without repeating it."""
    run = cli(*args, sandbox=keyed, cwd=tmp_path)
    assert run.code == 2, run.err
    assert SECRET.lower() not in (run.out + run.err).lower()
    assert keyed.requests == [] and list(tmp_path.iterdir()) == []


def test_the_key_of_another_variable_is_never_repeated(keyed: Sandbox, tmp_path: Path) -> None:
    env = {"SOCIALFRAME_API_KEY": "", "TEAM_KEY": SECRET}
    for args in (["--key-env", "TEAM_KEY"], ["--key-env=TEAM_KEY"]):
        run = cli("comments", P82, *args, "--max-cost", SECRET, sandbox=keyed, env=env)
        assert run.code == 2 and SECRET not in run.out + run.err
        assert "holds the API key" in run.err
    assert keyed.requests == []


def test_a_key_piped_in_as_an_item_is_not_sent(keyed: Sandbox) -> None:
    run = cli("ads", "-", sandbox=keyed, stdin=f"coffee\n{SECRET}\n")
    assert (run.code, run.lines) == (
        2,
        [
            "socialframe: error: line 2 of standard input holds the API key: nothing was sent"
            " (a list of items never needs the key)"
        ],
    )
    assert keyed.requests == []


def test_a_message_quoting_a_setting_hides_the_key(keyed: Sandbox) -> None:
    """Whatever a message repeats (here a setting from the environment) goes through
    one place that hides the key."""
    run = cli(
        "comments", P82, sandbox=keyed, env={"SOCIALFRAME_COMMENTS_URL": f"ftp://{SECRET}@x/"}
    )
    assert run.code == 2 and SECRET not in run.out + run.err
    assert run.lines == [
        "socialframe: error: base URL of comments must start with http:// or https://, got '***@x/'"
    ]


# -- text that is not UTF-8 --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "position", "shown"),
    [
        ([b"ads", b"\xff"], 2, r"\xff"),
        ([b"ads", b"caf\xe9 au lait"], 2, r"caf\xe9 au lait"),
        ([b"ads", b"coffee", b"--country", b"\xff"], 4, r"\xff"),
        ([b"comments", P82.encode(), b"--sort", b"\xfe"], 4, r"\xfe"),
        ([b"comments", b"\xff"], 2, r"\xff"),
    ],
)
def test_an_argument_that_is_not_utf8_is_one_line(
    sandbox: Sandbox, tmp_path: Path, args: list[bytes], position: int, shown: str
) -> None:
    """Python hands such bytes over as lone surrogates: the run ended on a raw codec
    message ("'utf-8' codec can't encode character '\\udcff'...")."""
    done = subprocess.run(
        [os.fsencode(str(SCRIPT)), *args, b"--cache", os.fsencode(tmp_path)],
        capture_output=True,
        env=_env(sandbox),
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.decode("utf-8").splitlines() == [
        f"socialframe: error: argument {position} ({shown}) is not UTF-8 text: type it, or save"
        " the script or list holding it, as UTF-8 (see 'socialframe --help')"
    ]
    assert sandbox.requests == []


def test_a_setting_that_is_not_utf8_is_one_line(sandbox: Sandbox) -> None:
    url = sandbox.url + "/caf\udce9"  # (the bytes caf\xe9, as Python reads them)
    done = subprocess.run(
        [str(SCRIPT), "comments", P82],
        capture_output=True,
        text=True,
        env=_env(sandbox, SOCIALFRAME_COMMENTS_URL=url),
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "socialframe: error: SOCIALFRAME_COMMENTS_URL is not UTF-8 text: set it again, as UTF-8"
        " (see 'socialframe --help')"
    ]
    assert sandbox.requests == []


def test_a_file_name_that_is_not_utf8_is_a_file_name(sandbox: Sandbox, tmp_path: Path) -> None:
    """File names are bytes on POSIX: a Latin-1 name is written as typed."""
    out = os.fsencode(tmp_path) + b"/caf\xe9.csv"
    done = subprocess.run(
        [os.fsencode(str(SCRIPT)), b"comments", P82.encode(), b"-o", out],
        capture_output=True,
        env=_env(sandbox),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(pd.read_csv(os.fsdecode(out), dtype=str)) == 82
    assert done.stderr.decode("utf-8").splitlines()[-1] == (
        f"socialframe: wrote 82 comments to {tmp_path}/caf\\xe9.csv"
    )


# -- money -------------------------------------------------------------------------------------


def test_a_budget_of_minus_zero_is_zero(sandbox: Sandbox) -> None:
    run = cli("comments", P82, "--max-cost", "-0", sandbox=sandbox)
    assert run.code == 3 and "$-" not in run.err
    assert run.lines[-1].startswith(
        "socialframe: error: stopped by --max-cost $0.00 before the next paid call (spent $0.00)"
    )
    assert sandbox.requests == []


@pytest.mark.parametrize(
    "value",
    ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "1e300", "1000000.01", "-1", "-0.01"]
    + ["0.005", "1.234", "1,5", "", "$", "0x10", "one"],
)
def test_a_budget_that_is_no_amount_is_refused(sandbox: Sandbox, value: str) -> None:
    run = cli("comments", P82, f"--max-cost={value}", sandbox=sandbox)  # (= : "-inf" is no option)
    assert run.code == 2 and len(run.lines) == 1, run.err
    assert run.lines[0].startswith(
        "socialframe: error: argument --max-cost: expected an amount of USD in whole cents"
        " from 0 to 1,000,000, such as 1.50"
    )
    assert sandbox.requests == []


@pytest.mark.parametrize(
    ("value", "shown"), [("$0.03", "$0.03"), ("0.030", "$0.03"), ("3e-2", "$0.03")]
)
def test_a_budget_in_whole_cents_is_taken(sandbox: Sandbox, value: str, shown: str) -> None:
    run = cli("comments", P2345, "--max-cost", value, sandbox=sandbox)
    assert run.code == 3 and sandbox.charges == 3
    assert f"stopped by --max-cost {shown} before the next paid call (spent $0.03)" in run.err


def test_a_message_with_terminal_escapes_is_shown_not_obeyed(sandbox: Sandbox) -> None:
    """A service's message (or a stored page's, a lock holder's) reaches the terminal:
    its escape sequences (clear the screen, set the title) are shown as text."""
    hostile = {"success": False, "message": "quota \x1b[2J\x1b]0;pwned\x07 exceeded\r"}
    sandbox.inject(*[hostile] * 5)  # every try of the first call
    run = cli("comments", P82, sandbox=sandbox)
    assert run.code == 5, run.err
    assert "\x1b" not in run.err and "\x07" not in run.err and "\r" not in run.err
    assert "quota \\x1b[2J\\x1b]0;pwned\\x07 exceeded" in run.err


#: A comment as the service may send it: escapes that clear the screen, set the
#: window's title, colour and blink what follows (ESC, BEL, a C1 CSI), a CR that would
#: write over the line, and a mark that turns the text backwards.
ESCAPES = "hi \x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \x9b5m\rover \u202eevil"


def _one_comment(post: str, text: str) -> dict[str, object]:
    """The service's first page of ``post`` cut to one comment, holding ``text``."""
    from socialframe.sandbox import _comments

    body = _comments.comments_response({"urn": post, "sort": "mostRecent"})
    body["data"] = body["data"][:1]
    body["data"][0]["text"] = text
    body["data"][0]["author"]["name"] = "Eve \x1b[5m"
    body.update(total=1, totalPage=1, paginationToken=None)
    return body


def _at_a_terminal(argv: list[str], sandbox: Sandbox, cache: Path) -> tuple[int, bytes]:
    """Run the console script with its standard output on a terminal (a pseudo-terminal
    this test reads): its exit code and every byte the terminal got."""
    import select

    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    env["SOCIALFRAME_CACHE_DIR"] = str(cache)
    main, child = os.openpty()
    try:
        done = subprocess.Popen(
            [str(SCRIPT), *argv], stdout=child, stderr=subprocess.DEVNULL, env=env
        )
        os.close(child)
        got = b""
        while select.select([main], [], [], 60)[0]:
            try:
                chunk = os.read(main, 1 << 16)
            except OSError:  # (the child closed the terminal: EIO)
                break
            if not chunk:
                break
            got += chunk
        return done.wait(timeout=60), got
    finally:
        os.close(main)


def test_data_on_a_terminal_shows_the_service_s_escapes_and_obeys_none(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Found by the third review: ``socialframe comments POST`` on a terminal wrote the
    comments' escapes raw (the screen cleared, the title set, the text coloured). On a
    terminal they are shown as ``\\x1b``; to a pipe or a file the data stays exact."""
    post = P82.rsplit(":", 1)[-1]
    sandbox.inject(_one_comment(post, ESCAPES))
    code, seen = _at_a_terminal(["comments", post, "--cache", str(tmp_path)], sandbox, tmp_path)
    assert code == 0, seen
    shown = seen.decode("utf-8")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", shown.replace("\r\n", "\n"))
    assert "hi \\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\x1b[0m \\x9b5m\\x0dover \\u202eevil" in shown
    assert "Eve \\x1b[5m" in shown
    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    piped = subprocess.run(  # (bytes: text mode would read the CR as a line's end)
        [str(SCRIPT), "comments", post, "--cache", str(tmp_path)], capture_output=True, env=env
    )
    assert piped.returncode == 0 and sandbox.charges == 1, piped.stderr  # (from the cache)
    text = piped.stdout.decode("utf-8")
    frame = pd.read_csv(io.StringIO(text, newline=""), dtype=str, keep_default_na=False)
    assert frame["text"].tolist() == [ESCAPES] and frame["author_name"].tolist() == ["Eve \x1b[5m"]


def test_a_new_line_in_a_file_name_cannot_forge_a_line_of_ours(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Found by the second review: every message is one line, whatever a name holds."""
    out = tmp_path / "x\nsocialframe: error: forged.csv"
    run = cli("comments", P82, "-o", str(out), sandbox=sandbox)
    assert run.code == 0, run.err
    assert not any(line.startswith("socialframe: error: forged") for line in run.err.splitlines())
    assert "x\\x0asocialframe: error: forged.csv" in run.err
    assert out.exists()
