"""How the command line speaks: one line on standard error each, the run's API keys
never repeated (a key pasted into another option or variable, piped in as an item,
quoted in a setting), what a terminal would obey shown escaped, an unreadable cache
entry and an unreachable host one plain line. Real console script, real sandbox."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from test_cli import P82, SCRIPT, cli

from socialframe.sandbox import PinnedClock, Sandbox

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

SECRET = "sk_live_9fQxTz2Lp0SECRETkey"


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
    from socialframe.sandbox import comments_body

    body = comments_body(post, "mostRecent")
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
