"""The command line run the way a test needs: :func:`cli` runs ``main()`` in this process
as the console script would (a second of Python, pandas and the rest saved a run, over
hundreds of runs), or (``process=True``) the installed console script in a subprocess,
for what only a process shows (its start, exit, signals, a terminal)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from socialframe.sandbox import Sandbox

SCRIPT = shutil.which("socialframe", path=str(Path(sys.executable).parent))


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.err.splitlines()


def cli(
    *args: str,
    sandbox: Sandbox | None = None,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    process: bool = False,
) -> Run:
    """Run the command line on ``args``; stderr and stdout must never hold the key, nor a
    traceback.

    In this process (the default): ``main()`` with standard streams as a pipe gives a
    process (UTF-8, not a terminal; standard input empty unless ``stdin``), ``env`` over
    this process's environment and ``cwd`` as the working folder for the run, and
    Python's own warning filters in place of the tests' (which make a warning an
    error). ``process=True``: the installed ``socialframe`` script in a subprocess.
    """
    environ: dict[str, str] = {}
    if sandbox is not None:
        environ.update(SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    environ.update(env or {})
    if process:
        assert SCRIPT is not None, "the socialframe console script is not installed in this venv"
        done = subprocess.run(
            [SCRIPT, *args],
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=cwd,
            env={**os.environ, **environ},
            timeout=120,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        code, out, err = _in_this_process(list(args), stdin, cwd, environ)
    if sandbox is not None:
        assert sandbox.api_key not in out + err
    assert "Traceback" not in err, err
    return Run(code, out, err)


def _in_this_process(
    argv: list[str], stdin: str | None, cwd: Path | None, environ: dict[str, str]
) -> tuple[int, str, str]:
    """``main(argv)`` as a process runs it; its exit code, standard output and error."""
    from socialframe.__main__ import main

    given = io.BytesIO((stdin or "").encode("utf-8"))
    given.name = "<stdin>"  # (as sys.stdin.buffer is named)
    streams = [
        io.TextIOWrapper(given, encoding="utf-8"),
        io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True),
        io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace"),
    ]
    before = (sys.stdin, sys.stdout, sys.stderr, os.getcwd())
    saved = {name: os.environ.get(name) for name in environ}
    with warnings.catch_warnings():
        # Python's own filters, as a process without -W or PYTHONWARNINGS has them
        warnings.resetwarnings()
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        for quiet in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
            warnings.filterwarnings("ignore", category=quiet, append=True)
        warnings.filterwarnings("ignore", category=ResourceWarning, append=True)
        try:
            os.environ.update(environ)
            if cwd is not None:
                os.chdir(cwd)
            sys.stdin, sys.stdout, sys.stderr = streams
            try:
                code = main(argv)
            except SystemExit as exc:  # (as the interpreter ends a process with it)
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
                if isinstance(exc.code, str):
                    print(exc.code, file=sys.stderr)
        finally:
            sys.stdin, sys.stdout, sys.stderr = before[:3]
            os.chdir(before[3])
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    out, err = (
        stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
        for stream in (_flushed(streams[1]), _flushed(streams[2]))
    )
    return code, out, err


def _flushed(stream: io.TextIOWrapper) -> io.TextIOWrapper:
    stream.flush()
    return stream


#: The outputs of ``socialframe comments -o``: file name, and the options that write it.
WRITTEN: dict[str, list[str]] = {
    "plain.csv": [],
    "excel.csv": ["--excel"],
    "rows.jsonl": [],
    "rows.parquet": [],
    "book.xlsx": [],
}


def every_format(sandbox: Sandbox, folder: Path, posts: list[str]) -> dict[str, bytes]:
    """What ``socialframe comments POSTS -o NAME`` wrote, for every format of
    :data:`WRITTEN`. One cache serves every run (the first pays), so every file holds the
    same ``fetched_at``."""
    files = {}
    for name, extra in WRITTEN.items():
        run = cli(
            "comments", *posts, "--cache", str(folder / "c"), "-o", str(folder / name),
            *extra, sandbox=sandbox,
        )  # fmt: skip
        assert run.code == 0, run.err
        files[name] = (folder / name).read_bytes()
    return files


def copy_of(written: dict[str, bytes], folder: Path, name: str) -> Path:
    """A copy of the file ``socialframe comments -o NAME`` wrote (:func:`every_format`),
    in ``folder``."""
    out = folder / name
    out.write_bytes(written[name])
    return out
