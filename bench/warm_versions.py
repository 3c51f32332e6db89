"""A warm re-run on this tree beside the same on an earlier commit, in one run.

    python bench/warm_versions.py                 # against 05d46ae (pages pickled)
    python bench/warm_versions.py --ref <commit> --pages 999 --rounds 3

Each side builds its own cache of ``--pages`` sandbox pages (so each reads pages in
its own format: the earlier commit's pickles, this tree's data-only pages), then
times warm re-runs into one frame, best of 5. The two sides run in turn, ``--rounds``
times, each in a fresh process on its own tree (``git archive`` of the commit), so
both meet the same machine. The goal (issue 19): this tree within 1.3x of the ref.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = "sf-bench-key-0123456789"


def measure(n_pages: int) -> None:
    """Child mode: print the best warm re-run time, in seconds, of ``n_pages`` pages."""
    import socialframe as sf
    from socialframe.sandbox import ManualClock, Sandbox

    items = [str(7_384_427_202_391_600_000 + i) for i in range(n_pages // 3)]
    with (
        # The world as of 2026-01-01 on both sides (an earlier tree's only world;
        # ManualClock is in both): the same pages, whatever the day.
        Sandbox(seed=0, api_key=KEY, clock=ManualClock()) as sandbox,
        tempfile.TemporaryDirectory() as folder,
        sf.Client(KEY, base_url=sandbox.url, cache=folder, progress=False, workers=1) as client,
    ):
        client.post_comments(items)
        paid = client.ledger.paid_calls
        times = []
        for _ in range(5):
            started = time.perf_counter()
            frame = client.post_comments(items)
            times.append(time.perf_counter() - started)
        assert client.ledger.paid_calls == paid  # every page of the re-runs was cached
    print(f"{min(times):.6f} {paid} {len(frame)}")


def run_side(tree: Path, n_pages: int) -> tuple[float, int, int]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--measure", str(n_pages)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
    )
    seconds, pages, rows = done.stdout.split()
    return float(seconds), int(pages), int(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="05d46ae", help="the earlier commit (default %(default)s)")
    parser.add_argument("--pages", type=int, default=999)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure)
        return
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "ref"
        old.mkdir()
        archive = Path(folder) / "ref.tar"
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", "-o", str(archive), args.ref, "socialframe"],
            check=True,
        )
        with tarfile.open(archive) as tar:
            tar.extractall(old, filter="data")
        ref_times, our_times = [], []
        for _ in range(args.rounds):
            seconds, pages, rows = run_side(old, args.pages)
            ref_times.append(seconds)
            seconds, pages, rows = run_side(ROOT, args.pages)
            our_times.append(seconds)
    ratio = statistics.median(our_times) / statistics.median(ref_times)
    print(f"warm re-run, {pages} cached pages -> frame ({rows:,} rows), best of 5 per round")
    print(f"  {args.ref} (pickled pages):  " + "  ".join(f"{t:.3f} s" for t in ref_times))
    print("  this tree (data-only pages): " + "  ".join(f"{t:.3f} s" for t in our_times))
    verdict = "met" if ratio <= 1.3 else "NOT met"
    print(f"  median ratio {ratio:.2f}x (goal <= 1.3x: {verdict})")


if __name__ == "__main__":
    main()
