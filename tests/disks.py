"""A disk that fills, made for real, for a child process (not a test module).

:func:`on_a_full_disk` runs a command with a folder on a disk that has no room left:

- where mounts are allowed (root with ``CAP_SYS_ADMIN``): a small tmpfs mounted on the
  folder in a mount namespace of the child's own (``unshare --mount``; the mount is
  private to it and vanishes with it, whatever happens: nothing else on the machine
  ever sees it), filled to the last byte. Writes fail with ``ENOSPC``, exactly as on
  a full disk;
- elsewhere (CI containers without the capability, a user without root): a file-size
  limit (``RLIMIT_FSIZE``) that no file may grow past: writes fail with ``EFBIG``,
  which SQLite reports as a full disk too.

``prepare`` runs first, with room (it creates what the command expects to find there,
an HTTP cache's file for instance).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

CHILD = r"""
import json, os, resource, signal, subprocess, sys
folder, how, prepare, argv = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
if how == "tmpfs":
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs", folder], check=True)
if prepare:
    subprocess.run(prepare, check=True)
if how == "tmpfs":  # every block left taken, but 40 KiB (an SQLite cache in WAL mode
    # takes 32 KiB for its index as it opens: the pages are what does not fit)
    with open(os.path.join(folder, "filler"), "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 4096)
        except OSError:
            pass
        filler.truncate(max(0, filler.tell() - 40 * 1024))
    print("full", "tmpfs", file=sys.stderr, flush=True)
else:  # no file may grow past the largest there now, or the 32 KiB of the index an
    # SQLite cache in WAL mode makes as it opens
    sizes = [os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs]
    limit = max([32 * 1024, *sizes])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full disk is an error, not a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    print("full", "fsize", file=sys.stderr, flush=True)
os.execvp(argv[0], argv)
"""


def new_cache(folder: Path) -> list[str]:
    """The command that creates an empty HTTP cache in ``folder`` (for ``prepare``)."""
    code = (
        "import sys, socialframe as sf; sf.Client('k-0123456789',"
        " base_url='http://127.0.0.1:9', cache=sys.argv[1]).close()"
    )
    return [sys.executable, "-c", code, str(folder)]


@functools.cache
def can_mount() -> bool:
    """Whether a tmpfs can be mounted in a mount namespace of a child's own."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return False
    with tempfile.TemporaryDirectory() as probe:
        done = subprocess.run(
            [unshare, "--mount", "mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", probe],
            capture_output=True,
            timeout=30,
        )
    return done.returncode == 0


def on_a_full_disk(
    folder: Path,
    argv: Sequence[str],
    *,
    prepare: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with ``folder`` (an empty folder) on a disk with no room left, after
    ``prepare`` (see the module's docstring). The result's ``how`` says which disk."""
    folder.mkdir(parents=True, exist_ok=True)
    # (FULL_DISK=fsize tries the fallback where a tmpfs could be mounted)
    how = "tmpfs" if can_mount() and os.environ.get("FULL_DISK") != "fsize" else "fsize"
    command = [sys.executable, "-c", CHILD, str(folder), how, json.dumps(list(prepare))]
    command.append(json.dumps(list(argv)))
    if how == "tmpfs":
        command = ["unshare", "--mount", "--propagation", "private", *command]
    done = subprocess.run(
        command, env=dict(env or os.environ), cwd=cwd, capture_output=True, text=True, timeout=180
    )
    assert f"full {how}" in done.stderr, done.stderr
    return done
