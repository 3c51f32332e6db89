"""Every file the command line writes, found from the parser itself, attacked the ways
that replaced the SQLite cache with a CSV (every paid page lost) or made a study
unreadable: links and hard links to them, pipes, devices, folders, dangling links,
loops, names inside the study or the cache's locks. Each must be refused in one line
(exit 2) before any paid call, the cache and the study left byte for byte as they
were. A new option that names a file fails the first test until it is covered here.

The commands run through ``main()`` in this process (hundreds of runs: a process each
would take minutes), with a watchdog so that a pipe that blocks fails the test instead
of hanging it; a sample runs through the real console script too.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from test_cli import P82, P2345, SCRIPT, _env, cli

import socialframe as sf
from socialframe.__main__ import main
from socialframe.sandbox import PinnedClock, Sandbox

pytestmark = pytest.mark.slow  # hundreds of runs and a real console script


# -- every option that names a place on disk, from the parser -----------------------------------

#: What each option or argument that names a place on disk is, by command and dest.
#: "output": a file the command writes (attacked below); "charts": a folder the command
#: writes files into (attacked below); "cache": the cache itself; "study": the study's
#: own folder (written by the study); "input": a file read; "frames": a folder the MCP
#: server writes whole frames into, under names it picks through the one writer (attacked
#: in tests/mcp/test_server.py: test_out_*).
PLACES: dict[tuple[str, str], str] = {
    ("comments", "output"): "output",
    ("ads", "output"): "output",
    ("cache report", "output"): "output",
    ("study refresh", "output"): "output",
    ("study changes", "output"): "output",
    ("study runs", "output"): "output",
    ("report", "output"): "output",
    ("demo", "out"): "charts",
    ("comments", "cache"): "cache",
    ("ads", "cache"): "cache",
    ("cache info", "cache"): "cache",
    ("cache report", "cache"): "cache",
    ("cache clear", "cache"): "cache",
    ("study refresh", "cache"): "cache",
    ("study add-posts", "study"): "study",
    ("study add-ads", "study"): "study",
    ("study refresh", "study"): "study",
    ("study changes", "study"): "study",
    ("study runs", "study"): "study",
    ("report", "file"): "input",
    ("mcp", "out"): "frames",
    ("mcp", "cache"): "cache",
    ("mcp", "study"): "study",
}

#: What makes an option name a place: its value's name, its type, or its dest.
_PATH_METAVARS = re.compile(r"FILE|PATH|DIR|FOLDER|STUDY|OUT", re.IGNORECASE)
_PATH_DESTS = re.compile(r"out|file|path|dir|folder|cache|study|save|write|log|dump|dest")


def _walk(
    parser: argparse.ArgumentParser, command: str = ""
) -> Iterator[tuple[str, argparse.Action]]:
    """Every action of every (sub)command, with the command's words."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{command} {name}".strip())
        else:
            yield command, action


def _names_a_place(action: argparse.Action) -> bool:
    if action.nargs == 0 or action.help == argparse.SUPPRESS:  # flags; refused options
        return False
    metavar = action.metavar if isinstance(action.metavar, str) else ""
    typed = action.type in (Path, argparse.FileType) or isinstance(action.type, argparse.FileType)
    return bool(_PATH_METAVARS.search(metavar) or typed or _PATH_DESTS.search(action.dest))


def _the_parser(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The command line's own parser: the one ``main()`` reads its arguments with."""
    seen: list[argparse.ArgumentParser] = []
    parse = argparse.ArgumentParser.parse_known_args

    def spy(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
        seen.append(self)
        return parse(self, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(argparse.ArgumentParser, "parse_known_args", spy)
        run = cli("--version")
    assert run.code == 0 and seen, run.err
    return seen[0]  # (the first: the command's; its subcommands' parsers come after)


def test_every_option_that_names_a_place_is_known_and_every_output_is_attacked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = {
        (command, action.dest)
        for command, action in _walk(_the_parser(monkeypatch))
        if _names_a_place(action)
    }
    assert found - set(PLACES) == set(), "options naming a place on disk, not covered here"
    assert set(PLACES) - found == set(), "covered here, but no longer in the parser"
    outputs = {key for key, kind in PLACES.items() if kind == "output"}
    assert outputs == set(RUNS), "every output needs a command line to attack it"
    assert {key for key, kind in PLACES.items() if kind == "charts"} == set(CHARTS)


# -- the world attacked: a cache and a study that were paid for ----------------------------------


@dataclass
class World:
    root: Path
    sandbox: Sandbox
    cache_dir: Path
    study: Path
    source: Path  # a comments CSV, for the report

    @property
    def cache(self) -> Path:
        return self.cache_dir / "http_cache.sqlite"

    @property
    def study_file(self) -> Path:
        return sorted(self.study.rglob("*.parquet"))[0]

    @property
    def log_file(self) -> Path:
        """The first commit of the study's ``comments`` table."""
        return sorted((self.study / "comments" / "_delta_log").glob("*.json"))[0]

    @property
    def lock_file(self) -> Path:
        return sorted((self.cache_dir / "http_cache.sqlite.locks").glob("*.lock"))[0]

    def snapshot(self) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for top in (self.cache_dir, self.study):
            for path in sorted(top.rglob("*")):
                found[str(path.relative_to(self.root))] = (
                    b"<link>"
                    if path.is_symlink()
                    else path.read_bytes()
                    if path.is_file()
                    else b"<folder>"
                )
        return found


@contextlib.contextmanager
def _environment(sandbox: Sandbox, cache_dir: Path) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOCIALFRAME_BASE_URL", sandbox.url)
        patch.setenv("SOCIALFRAME_API_KEY", sandbox.api_key)
        patch.setenv("SOCIALFRAME_CACHE_DIR", str(cache_dir))
        yield


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("world")
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        made = World(root, sandbox, root / "cache", root / "brand-watch", root / "comments.csv")
        cache = str(made.cache_dir)
        with _environment(sandbox, made.cache_dir):
            assert main(["comments", P82, "--cache", cache, "-o", str(made.source)]) == 0
            assert main(["study", "add-posts", str(made.study), P82]) == 0
            assert main(["study", "refresh", str(made.study), "--cache", cache]) == 0
        assert made.cache.is_file() and made.lock_file.is_file() and made.study_file.is_file()
        yield made


@pytest.fixture
def attacked(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("SOCIALFRAME_BASE_URL", world.sandbox.url)
    monkeypatch.setenv("SOCIALFRAME_API_KEY", world.sandbox.api_key)
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(world.cache_dir))  # the default cache too
    monkeypatch.chdir(tmp_path)
    return world


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Fail, rather than hang, a run that blocks (on a pipe nobody writes)."""

    def expired(number: int, frame: object) -> None:
        raise TimeoutError(f"the run blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _device(path: Path) -> None:
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers, ours
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")


# -- the attacks: each makes something at (or instead of) the name, and returns the name ---------

Attack = Callable[[World, Path], Path]


def _at(make: Callable[[World, Path], object]) -> Attack:
    def attack(world: World, out: Path) -> Path:
        make(world, out)
        return out

    return attack


def _into_the_study(world: World, out: Path) -> Path:
    (out.parent / "into").symlink_to(world.study / "comments")
    return out.parent / "into" / out.name


ATTACKS: dict[str, Attack] = {
    "symlink to the cache": _at(lambda w, out: out.symlink_to(w.cache)),
    "hard link to the cache": _at(lambda w, out: os.link(w.cache, out)),
    "symlink to a lock of the cache": _at(lambda w, out: out.symlink_to(w.lock_file)),
    "hard link to a lock of the cache": _at(lambda w, out: os.link(w.lock_file, out)),
    "symlink to a study file": _at(lambda w, out: out.symlink_to(w.study_file)),
    "hard link to a study file": _at(lambda w, out: os.link(w.study_file, out)),
    "symlink to the study's log": _at(lambda w, out: out.symlink_to(w.log_file)),
    "fifo": _at(lambda w, out: os.mkfifo(out)),
    "device": _at(lambda w, out: _device(out)),
    "folder": _at(lambda w, out: out.mkdir()),
    "dangling symlink": _at(lambda w, out: out.symlink_to(out.with_name("nowhere"))),
    "symlink loop": _at(lambda w, out: out.symlink_to(out)),
    "a name inside the study": lambda w, out: w.study / out.name,
    "a name inside a study's partition": lambda w, out: w.study_file.parent / out.name,
    "a folder that links into the study": _into_the_study,
    "a name in the cache's lock folder": lambda w, out: (
        w.cache_dir / "http_cache.sqlite.locks" / out.name
    ),
}

#: A command line writing to ``out``, for every output of PLACES.
RUNS: dict[tuple[str, str], Callable[[World, Path], list[str]]] = {
    ("comments", "output"): lambda w, out: ["comments", P82, "--cache", str(w.cache_dir), "-o", str(out)],
    ("ads", "output"): lambda w, out: [
        "ads", "coffee", "--max-pages", "1", "--cache", str(w.cache_dir), "-o", str(out)
    ],
    ("cache report", "output"): lambda w, out: ["cache", "report", "--cache", str(w.cache_dir), "-o", str(out)],
    ("study refresh", "output"): lambda w, out: [
        "study", "refresh", str(w.study), "--cache", str(w.cache_dir), "-o", str(out)
    ],
    ("study changes", "output"): lambda w, out: ["study", "changes", str(w.study), "-o", str(out)],
    ("study runs", "output"): lambda w, out: ["study", "runs", str(w.study), "-o", str(out)],
    ("report", "output"): lambda w, out: ["report", str(w.source), "-o", str(out)],
}  # fmt: skip

#: A command line writing its charts into ``folder``, and the name of one of them.
CHARTS: dict[tuple[str, str], tuple[Callable[[World, Path], list[str]], str]] = {
    ("demo", "out"): (lambda w, folder: ["demo", "--out", str(folder)], "comment-activity.png"),
}


def _name(key: tuple[str, str]) -> str:
    return "out.html" if key[0] == "report" else "out.csv"


def _refused(world: World, argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Run ``argv``; it must exit 2, say one line, pay nothing and leave the cache and the
    study as they were. Returns what it said."""
    before, paid = world.snapshot(), world.sandbox.charges
    with _deadline(60):
        code = main(argv)
    said = capsys.readouterr()
    lines = said.err.splitlines()
    assert code == 2, said.err
    assert len(lines) == 1 and lines[0].startswith("socialframe: error: cannot write"), said.err
    assert said.out == ""
    assert world.sandbox.charges == paid  # refused before any paid call
    assert world.snapshot() == before  # byte for byte, nothing added
    return lines


@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.parametrize("output", list(RUNS), ids=" ".join)
def test_no_output_is_written_through_a_link_or_over_what_was_paid_for(
    attacked: World,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    output: tuple[str, str],
    attack: str,
) -> None:
    out = ATTACKS[attack](attacked, tmp_path / _name(output))
    there = sorted(p.name for p in tmp_path.iterdir())
    _refused(attacked, RUNS[output](attacked, out), capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == there  # no temporary file left


@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.parametrize("charts", list(CHARTS), ids=" ".join)
def test_no_chart_is_written_through_a_link_or_over_what_was_paid_for(
    attacked: World,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    charts: tuple[str, str],
    attack: str,
) -> None:
    argv, name = CHARTS[charts]
    folder = tmp_path / "charts"
    folder.mkdir()
    chart = ATTACKS[attack](attacked, folder / name)
    _refused(attacked, argv(attacked, chart.parent), capsys)


def test_the_cache_and_the_study_still_read_after_every_attack(
    attacked: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for number, attack in enumerate(ATTACKS):
        for output in (("comments", "output"), ("study changes", "output")):
            place = tmp_path / f"{number}-{output[0].replace(' ', '-')}"
            place.mkdir()
            out = ATTACKS[attack](attacked, place / "out.csv")
            _refused(attacked, RUNS[output](attacked, out), capsys)
    paid = attacked.sandbox.charges
    assert (
        main(["comments", P82, "--cache", str(attacked.cache_dir), "--offline", "-o", "again.csv"])
        == 0
    )
    capsys.readouterr()
    assert len(pd.read_csv(tmp_path / "again.csv", dtype=str)) == 82
    assert len(sf.Study(attacked.study).comments()) == 82
    assert attacked.sandbox.charges == paid


@pytest.mark.parametrize("output", list(RUNS), ids=" ".join)
def test_the_console_script_refuses_a_pipe_and_a_link_to_the_cache_in_one_line(
    world: World, tmp_path: Path, output: tuple[str, str]
) -> None:
    """The real console script, in a process of its own: a pipe never blocks it."""
    env = {"SOCIALFRAME_CACHE_DIR": str(world.cache_dir)}
    for attack in ("fifo", "symlink to the cache"):
        out = ATTACKS[attack](world, tmp_path / f"{attack.split()[0]}-{_name(output)}")
        before, paid = world.snapshot(), world.sandbox.charges
        run = cli(*RUNS[output](world, out), sandbox=world.sandbox, env=env)
        assert run.code == 2 and len(run.lines) == 1, run.err
        assert run.lines[0].startswith(f"socialframe: error: cannot write {out}: it is a"), run.err
        assert world.sandbox.charges == paid and world.snapshot() == before


def test_a_cache_inside_the_study_is_refused_before_paying(
    attacked: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--cache`` naming the study's folder (or a folder in it) would put the SQLite file
    among the study's own files."""
    before, paid = attacked.snapshot(), attacked.sandbox.charges
    for cache in (attacked.study, attacked.study / "comments" / "c.sqlite"):
        for argv in (
            ["study", "refresh", str(attacked.study), "--cache", str(cache)],
            ["comments", P82, "--cache", str(cache)],
        ):
            with _deadline(60):
                code = main(argv)
            said = capsys.readouterr().err.splitlines()
            assert code == 2 and len(said) == 1 and "a cache cannot be kept there" in said[0], said
    assert attacked.sandbox.charges == paid and attacked.snapshot() == before


def test_an_output_beside_the_cache_or_through_a_folder_link_is_written(
    attacked: World, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the rules allow still works: a file in the cache's own folder (not one of
    its files), a folder reached through a link."""
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real")
    beside = attacked.cache_dir / "beside.csv"
    try:
        for out in (beside, tmp_path / "via" / "runs.csv"):
            assert main(["study", "runs", str(attacked.study), "-o", str(out)]) == 0
            capsys.readouterr()
            assert len(pd.read_csv(out)) == 1
    finally:
        beside.unlink(missing_ok=True)
    assert (tmp_path / "real" / "runs.csv").is_file()
    shutil.rmtree(tmp_path / "real")


@pytest.mark.parametrize("into", ["the cache", "the study's log"])
def test_standard_output_appended_to_the_cache_or_the_study_is_refused(
    world: World, tmp_path: Path, into: str
) -> None:
    """``socialframe ... >> http_cache.sqlite``: the shell opens the file, the command
    would add CSV to it."""
    import subprocess

    from test_cli import SCRIPT

    target = world.cache if into == "the cache" else world.log_file
    env = dict(
        os.environ,
        SOCIALFRAME_BASE_URL=world.sandbox.url,
        SOCIALFRAME_API_KEY=world.sandbox.api_key,
        SOCIALFRAME_CACHE_DIR=str(world.cache_dir),
    )
    before, paid = world.snapshot(), world.sandbox.charges
    assert SCRIPT is not None
    for argv in (
        ["comments", P82, "--cache", str(world.cache_dir)],
        ["study", "runs", str(world.study)],
        ["study", "changes", str(world.study), "-o", "-"],
    ):
        with target.open("ab") as appended:
            done = subprocess.run(
                [SCRIPT, *argv],
                stdout=appended,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                timeout=120,
            )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("socialframe: error: cannot write standard output: it is")
        assert world.sandbox.charges == paid and world.snapshot() == before


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".sf-"))


def _until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    """Wait for ``condition`` (a bound, not a timing assertion)."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


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


def test_standard_output_carries_every_text_as_the_service_sent_it(sandbox: Sandbox) -> None:
    """``socialframe comments POST`` to a pipe (no ``-o``), plain and ``--excel``: the
    rows read back are the frame's, whatever line breaks, quotes or formulas the
    service's text holds (a CR alone once split a row in two)."""
    import copy

    from socialframe.sandbox import comments_body

    first = copy.deepcopy(comments_body(P82, "mostRelevant"))  # (the command's order)
    texts = ["a\rb", "c\r\nd", "=1+1", "e\n", "tab\there", "'x", 'say "hi", then,']
    for row, text in enumerate(texts):
        first["data"][row]["text"] = text
        first["data"][row]["author"]["name"] = "@" + text
    sandbox.inject(first)  # (the first page the command asks for)
    page = sf.comments_frame([first])
    for excel in ([], ["--excel"]):
        run = cli("comments", P82, *excel, sandbox=sandbox)
        assert run.code == 0, run.err
        back = sf.read_frame(io.BytesIO(run.out.encode("utf-8")))
        assert len(back) == 82 and back["comment_id"].is_unique, excel
        got = back.set_index("comment_id").loc[page["comment_id"]]
        for column in ("text", "author_name"):
            blank = [None if pd.isna(v) or v == "" else v for v in page[column]]
            assert [None if pd.isna(v) or v == "" else v for v in got[column]] == blank, excel
        assert set(texts) <= set(got["text"])
