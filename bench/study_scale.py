"""A study of many comments on a folder and in a bucket: do its answers stay fast and small?

Generates a study through its own writer (``Dataset.commit_refresh``, as a refresh commits:
one file and one Delta commit per table, ``runs`` last): ``--refreshes`` refreshes of
``--rows`` comments each, every comment new in its refresh (so ``changes`` holds as many
rows), text of about 100 characters, 50,000 authors and 100 posts repeated. It does so on
a local folder and in a bucket (moto's S3 server on a free loopback port, in a process of
its own; ``--no-s3`` leaves it out). Then, each in a fresh child process so that peak RSS
is its own:

- ``study.changes(since=<the last refresh>)``: one refresh's changes as a frame;
- ``study.sql(<a group-by over the latest versions>)``;
- a refresh's fixed cost (reading what the study holds, committing; nothing is paid);
- ``study.comments()`` of the whole study as pandas, its peak RSS and the frame's bytes;
- in the bucket, first of all: a new machine's first answer (the group-by), which
  downloads every file once into this machine's copies (each answer after it reads them
  there).

Then 200 small refreshes (``--small``), and ``compact()``: the files before and after, and
the queries' time before and after.

Goal (the issue): changes, the group-by and the fixed cost under 10 s each, peak RSS under
2 GB, at 10M comments in 10 refreshes.

    python bench/study_scale.py                       # 10 refreshes x 1M comments
    python bench/study_scale.py --rows 100000         # a quicker look
    python bench/study_scale.py --s3-only             # the bucket alone
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = np.array(
    [
        "the",
        "of",
        "and",
        "a",
        "to",
        "in",
        "is",
        "you",
        "that",
        "it",
        "he",
        "was",
        "for",
        "on",
        "are",
        "as",
        "with",
        "his",
        "they",
        "at",
        "be",
        "this",
    ]
)
START = datetime(2026, 1, 1, tzinfo=UTC)


def generate(location: str, refreshes: int, rows: int, *, compact_every: int = 0) -> None:
    """A study at ``location`` of ``refreshes`` refreshes of ``rows`` new comments each."""
    import socialframe as sf
    from socialframe._study import dataset
    from socialframe._study.dataset import Dataset, refresh_id
    from socialframe._study.queries import CHANGE_DTYPES, ITEM_DTYPES, RUN_DTYPES, typed

    dataset.COMPACT_EVERY = compact_every  # (the bench compacts when it says so)
    data = Dataset(location)
    data.add_watched(
        [{"kind": "post", "item": str(7_000_000 + i), "filters": {}} for i in range(100)]
    )
    rng = np.random.default_rng(0)
    newest: dict[str, Any] = {}  # each post's 500 newest comment times so far
    template = pd.DataFrame(
        {name: pd.Series(dtype=dtype) for name, dtype in sf._schema.COMMENT_DTYPES.items()}
    )
    for r in range(refreshes):
        at = START + timedelta(weeks=r)
        ids = np.arange(r * rows, (r + 1) * rows) + 7_384_427_202_391_592_960
        posts = rng.integers(0, 100, rows) + 7_000_000
        text = [" ".join(w) for w in WORDS[rng.integers(0, len(WORDS), (rows, 25))]]
        frame = pd.DataFrame(
            {
                "post_urn": pd.array([f"urn:li:activity:{p}" for p in posts], "string"),
                "comment_id": pd.array(ids.astype(str), "string"),
                "created_at": pd.to_datetime(
                    at.timestamp() - rng.integers(0, 7 * 86400, rows), unit="s", utc=True
                ).as_unit("us"),
                "text": pd.array(text, "string"),
                "author_name": pd.array(
                    [f"Author {a}" for a in rng.integers(0, 50_000, rows)], "string"
                ),
            }
        )
        frame = pd.concat([template, frame], ignore_index=True)[list(template.columns)]
        frame = frame.astype(template.dtypes.to_dict())
        frame["item"] = pd.array(posts.astype(str), "string")
        frame["seen_at"] = pd.Timestamp(at).as_unit("us")
        changes = pd.DataFrame(
            {
                "at": pd.Timestamp(at).as_unit("us"),
                "kind": "comment",
                "item": frame["item"],
                "id": frame["comment_id"],
                "change": "new",
            }
        )
        run = pd.DataFrame(
            [{"at": at, "paid_calls": 0, "cost_usd": 0.0, "new": rows, "changed": 0, "items": 100}]
        ).assign(complete=True)
        # Each post's row in items, with the state a refresh leaves: walked through this
        # refresh, and its floor (the 500th newest comment's time), as a cron job's
        # study has them (a refresh reads only what is at or after each floor).
        created = frame.groupby("item")["created_at"]
        for post, times in created:
            newest[str(post)] = np.sort(np.concatenate([newest.get(str(post), []), times]))[-500:]
        items = pd.DataFrame(
            [
                {
                    "at": at,
                    "kind": "post",
                    "item": str(7_000_000 + i),
                    "new": 0,
                    "changed": 0,
                    "paid_calls": 0,
                    "cost_usd": 0.0,
                    "complete": True,
                    "missing": 0,
                    "watch": f"post:{7_000_000 + i}:{{}}",
                    "state": json.dumps(
                        {
                            "walked": refresh_id(at),
                            "total": None,
                            "complete": True,
                            "floor": (
                                pd.Timestamp(newest[str(7_000_000 + i)][0]).isoformat()
                                if len(newest.get(str(7_000_000 + i), [])) >= 500
                                else None
                            ),
                        }
                    ),
                }
                for i in range(100)
            ]
        )
        with data.writing():
            data.commit_refresh(
                refresh_id(at),
                {
                    "comments": frame,
                    "changes": typed(changes, CHANGE_DTYPES),
                    "items": typed(items, ITEM_DTYPES | {"watch": "string", "state": "string"}),
                    "runs": typed(run, RUN_DTYPES),
                },
            )
        if refreshes <= 20 or (r + 1) % 50 == 0:
            print(f"  {location}: refresh {r + 1}/{refreshes} written", file=sys.stderr)


CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
import socialframe as sf
began = time.perf_counter()
study = sf.Study({location!r})
what = {what!r}
size = None
columns = {{}}
if what == "changes":
    rows = len(study.changes(since={since!r}))
elif what == "refresh":  # its fixed cost: what the study holds is read, nothing is paid
    from socialframe.sandbox import ManualClock, Sandbox
    clock = ManualClock()
    with Sandbox(clock=clock).client(in_process=True, cache=False, clock=clock) as client:
        try:
            study.refresh(client, max_cost=0)
        except sf.BudgetExceededError:
            pass
    rows = len(study.watched())
elif what == "groupby":
    frame = study.sql("select author_name, count(*) as n from comments group by 1"
                      " order by 2 desc limit 10")
    rows = len(frame)
elif what == "compact":
    rows = int(study.compact()["files_after"].sum())
else:
    frame = study.comments()
    rows = len(frame)
    size = int(frame.memory_usage(deep=True).sum())
    columns = {{k: int(v) for k, v in frame.memory_usage(deep=True, index=False).items()}}
seconds = time.perf_counter() - began
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the forking parent
peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
            if line.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "rows": rows, "peak": peak, "bytes": size,
                  "columns": columns}}))
"""


def measure(location: str, what: str, env: dict[str, str], since: str = "") -> dict[str, Any]:
    code = CHILD.format(root=str(ROOT), location=location, what=what, since=since)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{what} on {location} failed:\n{done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def files(location: str, env: dict[str, str]) -> int:
    """The data files the tables' logs name now."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from socialframe._study.dataset import Dataset\n"
        f"s = Dataset({location!r}).snapshot()\n"
        "print(sum(len(f) for f in s.files.values()))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return int(done.stdout.strip())


def s3_server() -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """moto's S3 server on a free loopback port, a bucket, and the AWS_* variables."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/bench", method="PUT")).read()
    env = dict(
        os.environ,
        AWS_ENDPOINT_URL=endpoint,
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_REGION="us-east-1",
        AWS_ALLOW_HTTP="true",
        # (this machine's copies of the bucket's files: the bench's own folder)
        SOCIALFRAME_CACHE_DIR=tempfile.mkdtemp(prefix="sf-study-scale-copies-"),
    )
    return server, env


def report(where: str, location: str, env: dict[str, str], args: argparse.Namespace) -> None:
    total = args.rows * args.refreshes
    began = time.perf_counter()
    os.environ.update(env)
    generate(location, args.refreshes, args.rows)
    written = time.perf_counter() - began
    last = START + timedelta(weeks=args.refreshes - 1)
    got = {}
    if location.startswith("s3://"):  # (a machine that has not read the study yet)
        got[f"a new machine's first answer (copies {total:,})"] = measure(location, "groupby", env)
    got |= {
        f"changes(since=last refresh), of {total:,}": measure(
            location, "changes", env, last.isoformat()
        ),
        f"sql group-by over comments, {total:,} rows": measure(location, "groupby", env),
        f"a refresh's fixed cost, {total:,} held": measure(location, "refresh", env),
        f"comments() as pandas, {total:,} rows": measure(location, "comments", env),
    }
    mib = 2**20
    print(
        f"\n{where}: {total:,} comments in {args.refreshes} refreshes, written in {written:.1f} s"
    )
    print(f"{'what':<48}{'seconds':>9}{'peak RSS MiB':>14}{'rows':>12}")
    for label, one in got.items():
        print(f"{label:<48}{one['seconds']:>9.2f}{one['peak'] / mib:>14,.0f}{one['rows']:>12,}")
    frame = got[f"comments() as pandas, {total:,} rows"]
    within = frame["peak"] < 2048 * mib
    print(
        f"comments(): the frame holds {frame['bytes'] / mib:,.0f} MiB"
        f" ({frame['bytes'] / total:,.0f} bytes a row; text in Arrow buffers, pandas' string"
        f" dtype), peak {frame['peak'] / mib:,.0f} MiB: "
        + (
            "within 2 GB"
            if within
            else "NOT within 2 GB, because the frame alone needs"
            f" {frame['bytes'] / mib:,.0f} MiB"
            + (
                ""
                if frame["bytes"] < 2048 * mib
                else " (more than 2 GB by itself: every value of a row is kept, and the"
                " frames' contract has posts and authors as text, not dictionary-encoded)"
            )
            + f", and building it (DuckDB's window over every version, then Arrow) holds"
            f" {(frame['peak'] - frame['bytes']) / mib:,.0f} MiB more at the peak"
        )
    )
    largest = sorted(frame["columns"].items(), key=lambda kv: -kv[1])
    print(
        "  its columns, largest first: "
        + ", ".join(f"{name} {size / mib:,.0f} MiB" for name, size in largest[:6])
        + f"; the other {len(largest) - 6} {sum(v for _, v in largest[6:]) / mib:,.0f} MiB"
    )
    small = location + "-small"
    generate(small, args.small, 100)
    before_files = files(small, env)
    before = measure(small, "groupby", env)
    compacted = measure(small, "compact", env)
    after = measure(small, "groupby", env)
    print(
        f"{args.small} refreshes of 100 comments: {before_files} files before compact(),"
        f" {files(small, env)} after (compact took {compacted['seconds']:.2f} s); the group-by"
        f" {before['seconds']:.2f} s before, {after['seconds']:.2f} s after"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="comments per refresh")
    parser.add_argument("--refreshes", type=int, default=10)
    parser.add_argument("--small", type=int, default=200, help="small refreshes to compact")
    parser.add_argument("--no-s3", action="store_true", help="the local folder only")
    parser.add_argument("--s3-only", action="store_true", help="the bucket only")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="sf-study-scale-"))
    server = None
    try:
        if not args.s3_only:
            report("local folder", str(base / "study"), dict(os.environ), args)
        if not args.no_s3:
            server, env = s3_server()
            report("S3 (moto on loopback)", "s3://bench/study", env, args)
        print("\ngoal: changes, group-by, fixed cost < 10 s each; peak < 2,048 MiB")
    finally:
        if server is not None:
            server.terminate()
            server.wait()
            shutil.rmtree(env["SOCIALFRAME_CACHE_DIR"], ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
