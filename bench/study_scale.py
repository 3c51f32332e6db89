"""A study of 10M comments: do its answers stay fast and small beyond memory?

Generates a study through its own writer (``Dataset.write_partition`` and the manifest,
as a refresh writes them): ``--refreshes`` refreshes of ``--rows`` comments each, every
comment new in its refresh (so ``changes`` holds as many rows), with text of about 100
characters. Then, each in a fresh child process so peak RSS is its own:

- what every answer and every refresh does first: each file checked whole against what
  ``study.json`` records of it (its SHA-256), with the views made;
- ``study.changes(since=<the last refresh>)``: one refresh's changes as a frame;
- ``study.sql(<a group-by over the latest versions>)``;
- a refresh's fixed cost (loading what the study holds, committing; nothing is paid);
- ``study.comments()`` on a 1M-row study (pandas' frame of it) beside DuckDB's group-by
  on the same study, and what ``comments()`` would need on the 10M one (bytes per row
  measured at 1M, times 10M).

Goal (the issue): changes and the group-by under 10 s each here, peak RSS under 2 GB.

    python bench/study_scale.py                 # 10 refreshes x 1M comments
    python bench/study_scale.py --rows 100000   # a quick look
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(folder: Path, refreshes: int, rows: int) -> None:
    from socialframe._study.dataset import Dataset, Manifest, refresh_id
    from socialframe._study.queries import CHANGE_DTYPES, typed

    data = Dataset(folder)
    rng = np.random.default_rng(0)
    words = np.array(
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
        ]
    )
    start = datetime(2026, 1, 1, tzinfo=UTC)
    template = pd.DataFrame(
        {
            name: pd.Series(dtype=dtype)
            for name, dtype in __import__("socialframe")._schema.COMMENT_DTYPES.items()
        }
    )
    with data.writing() as manifest:
        manifest = Manifest(
            watched=[
                {
                    "kind": "post",
                    "item": str(7_000_000 + i),
                    "filters": {},
                    "added_at": start.isoformat(),
                }
                for i in range(100)
            ]
        )
        for r in range(refreshes):
            at = start + timedelta(weeks=r)
            rid = refresh_id(at)
            ids = np.arange(r * rows, (r + 1) * rows) + 7_384_427_202_391_592_960
            posts = rng.integers(0, 100, rows) + 7_000_000
            text = [" ".join(w) for w in words[rng.integers(0, len(words), (rows, 25))]]
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
            files = {"comments": data.write_partition("comments", rid, frame)}
            changes = pd.DataFrame(
                {
                    "at": pd.Timestamp(at).as_unit("us"),
                    "kind": "comment",
                    "item": frame["item"],
                    "id": frame["comment_id"],
                    "change": "new",
                }
            )
            files["changes"] = data.write_partition("changes", rid, typed(changes, CHANGE_DTYPES))
            manifest.refreshes.append({"id": rid, "at": at.isoformat(), "files": files})
            data.write(manifest)
            print(f"  refresh {r + 1}/{refreshes} written", file=sys.stderr)


CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
import socialframe as sf
study = sf.Study({folder!r})
began = time.perf_counter()
what = {what!r}
if what == "changes":
    frame = study.changes(since={since!r})
    rows = len(frame)
elif what == "refresh":  # its fixed cost: what the study holds is loaded, nothing is paid
    from socialframe.sandbox import ManualClock, Sandbox
    clock = ManualClock()
    with Sandbox(clock=clock).client(in_process=True, cache=False, clock=clock) as client:
        try:
            study.refresh(client, max_cost=0)
        except sf.BudgetExceededError:
            pass
    rows = len(study.watched())
elif what == "check":  # what every answer and refresh does first: each file read whole
    import duckdb, pyarrow.parquet  # (loaded before the clock starts: the check alone)
    from socialframe._study import queries
    from socialframe._study.dataset import Dataset
    data = Dataset({folder!r})
    began = time.perf_counter()
    queries.connect(data, data.read()).close()
    rows = sum(len(r["files"]) for r in data.read().refreshes)
elif what == "groupby":
    frame = study.sql("select author_name, count(*) as n from comments group by 1 order by 2 desc limit 10")
    rows = len(frame)
else:
    frame = study.comments()
    rows = len(frame)
    size = int(frame.memory_usage(deep=True).sum())
seconds = time.perf_counter() - began
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the forking parent
peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
            if line.startswith("VmHWM:"))
print(json.dumps({{"seconds": seconds, "rows": rows, "peak": peak, "bytes": locals().get("size")}}))
"""


def measure(folder: Path, what: str, since: str = "") -> dict[str, float]:
    code = CHILD.format(root=str(ROOT), folder=str(folder), what=what, since=since)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="comments per refresh")
    parser.add_argument("--refreshes", type=int, default=10)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="sf-study-scale-"))
    try:
        big, small = base / "big", base / "small"
        began = time.perf_counter()
        generate(big, args.refreshes, args.rows)
        generate(small, 1, args.rows)
        written = time.perf_counter() - began
        total = args.rows * args.refreshes
        on_disk = sum(p.stat().st_size for p in big.rglob("*") if p.is_file())
        last = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(weeks=args.refreshes - 1)
        checked = measure(big, "check")
        changes = measure(big, "changes", last.isoformat())
        groupby = measure(big, "groupby")
        refreshed = measure(big, "refresh")
        small_frame = measure(small, "comments")
        small_group = measure(small, "groupby")
        need = small_frame["bytes"] / args.rows * total
        mib = 2**20
        print(
            f"study of {total:,} comments in {args.refreshes} refreshes:"
            f" {on_disk / mib:,.0f} MiB on disk, written in {written:,.1f} s"
        )
        print(f"{'what':<46}{'seconds':>9}{'peak RSS MiB':>14}{'rows':>12}")
        for label, got in (
            ("files checked whole (as every answer does)", checked),
            (f"changes(since=last refresh), {total:,} rows", changes),
            (f"sql group-by over comments, {total:,} rows", groupby),
            (f"a refresh's fixed cost, {total:,} held", refreshed),
            (f"comments() as pandas, {args.rows:,} rows", small_frame),
            (f"sql group-by (DuckDB), {args.rows:,} rows", small_group),
        ):
            print(f"{label:<46}{got['seconds']:>9.2f}{got['peak'] / mib:>14,.0f}{got['rows']:>12,}")
        print(
            f"comments() of the {total:,}-row study would need about {need / mib:,.0f} MiB"
            f" for the frame alone ({small_frame['bytes'] / args.rows:,.0f} bytes a row measured"
            f" at {args.rows:,}); goal: changes and group-by < 10 s, peak < 2,048 MiB"
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
