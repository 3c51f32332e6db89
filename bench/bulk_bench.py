"""Collecting at scale: 100 posts x 3 pages at 100 ms sandbox latency, by workers.

The sandbox runs in its own process (``python -m socialframe sandbox``), as the
real service is elsewhere: in-process its body generation would share the GIL
with the client being measured. Prints figures; asserts nothing (shared, noisy
machines: compare the ratios of one run). A fresh cache for every run, so every
page is paid. ``--soak`` runs the full-size soak instead: 200 posts, 8 workers,
fault_rate 0.2 and a rate limit, checked against the calm run.

    python bench/bulk_bench.py [n_posts] [latency_seconds]
    python bench/bulk_bench.py --soak
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import pandas as pd

import socialframe as sf

# ids whose comment total is 120 (3 pages): int(id) % 8 == 7 in the sandbox
POSTS = [str(7_384_427_202_391_592_960 + 7 + 8 * k) for k in range(1000)]
KEY = "sf-bench-key"


@contextlib.contextmanager
def served(**options: object) -> Iterator[str]:
    """A sandbox in another process, its world as of the reference date (the posts keep
    their 120 comments whenever the bench runs); yields its base URL."""
    argv = [sys.executable, "-m", "socialframe", "sandbox", "--port", "0", "--api-key", KEY]
    argv += ["--at", "2026-01-01"]
    for name, value in options.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    url = server.stdout.readline().split()[3]
    try:
        yield url
    finally:
        server.terminate()
        server.wait()
        server.stdout.close()


def run(posts: list[str], url: str, workers: int, **client: object) -> dict[str, object]:
    with (
        tempfile.TemporaryDirectory() as cache,
        sf.Client(
            KEY, base_url=url, cache=cache, workers=workers, backoff=0.05, max_retries=8, **client
        ) as c,  # type: ignore[arg-type]
    ):
        started = time.perf_counter()
        frame = c.post_comments(posts)
        took = time.perf_counter() - started
        return {
            "workers": workers,
            "seconds": round(took, 2),
            "rows": len(frame),
            "paid": c.ledger.paid_calls,
            "failed": c.ledger.failed_calls,
            "frame": frame.drop(columns="fetched_at"),
        }


def scaling(n: int, latency: float) -> None:
    posts = POSTS[:n]
    pure = n * 3 * latency
    print(f"{n} posts x 3 pages, {latency * 1000:.0f} ms latency: {pure:.1f} s of pure latency")
    for fault_rate in (0.0, 0.2):
        with served(latency=latency, fault_rate=fault_rate, seed=1) as url:
            rows = [run(posts, url, w) for w in (1, 2, 4, 8)]
        base = rows[0]
        table = pd.DataFrame(
            [
                {
                    "fault_rate": fault_rate,
                    **{k: v for k, v in r.items() if k != "frame"},
                    "speedup": round(float(base["seconds"]) / float(r["seconds"]), 2),  # type: ignore[arg-type]
                    "same_frame": r["frame"].equals(base["frame"]),  # type: ignore[union-attr]
                }
                for r in rows
            ]
        )
        per_call = (float(base["seconds"]) - pure) / (n * 3) * 1000  # type: ignore[arg-type]
        print(table.to_string(index=False))
        print(f"workers=1 overhead over pure latency: {per_call:.1f} ms per call\n")


def soak() -> None:
    posts = [str(7_384_427_202_391_592_960 + k) for k in range(200)]  # every comment total
    with (
        served(seed=4) as url,
        tempfile.TemporaryDirectory() as cache,
        sf.Client(KEY, base_url=url, cache=cache, workers=1) as c,
    ):
        expected = c.post_comments(posts, max_pages=3).drop(columns="fetched_at")
        pages = c.ledger.paid_calls
    with (
        served(seed=4, fault_rate=0.2, rate_limit=40) as url,
        tempfile.TemporaryDirectory() as cache,
    ):
        started = time.perf_counter()
        with sf.Client(
            KEY, base_url=url, cache=cache, workers=8, rate_limit=35, backoff=0.05, max_retries=10
        ) as c:
            got = c.post_comments(posts, max_pages=3).drop(columns="fetched_at")
            took = time.perf_counter() - started
            print(
                f"soak: 200 posts, {pages} pages, workers=8, fault_rate=0.2, service 40/s,"
                f" client 35/s: {took:.1f} s, paid {c.ledger.paid_calls}, failed"
                f" {c.ledger.failed_calls}, same frame as the calm run: {got.equals(expected)}"
            )


def main() -> None:
    if "--soak" in sys.argv:
        soak()
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    scaling(n, latency)


if __name__ == "__main__":
    main()
