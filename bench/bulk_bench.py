"""Collecting at scale: 100 posts x 3 pages at 100 ms sandbox latency, by workers.

Prints figures; asserts nothing (shared, noisy machines: compare the ratios of
one run). A fresh cache for every run, so every page is paid.

    python bench/bulk_bench.py [n_posts] [latency_seconds]
"""

from __future__ import annotations

import sys
import tempfile
import time

import pandas as pd

from socialframe.sandbox import Sandbox

# ids whose comment total is 120 (3 pages): int(id) % 8 == 7 in the sandbox
POSTS = [str(7_384_427_202_391_592_960 + 7 + 8 * k) for k in range(1000)]


def run(posts: list[str], latency: float, workers: int, fault_rate: float) -> dict[str, object]:
    with (
        tempfile.TemporaryDirectory() as cache,
        Sandbox(latency=latency, fault_rate=fault_rate, seed=1) as sandbox,
        sandbox.client(cache=cache, workers=workers, backoff=0.05, max_retries=8) as client,
    ):
        started = time.perf_counter()
        frame = client.post_comments(posts)
        took = time.perf_counter() - started
        return {
            "workers": workers,
            "fault_rate": fault_rate,
            "seconds": round(took, 2),
            "rows": len(frame),
            "paid": client.ledger.paid_calls,
            "failed": client.ledger.failed_calls,
            "sandbox_charges": sandbox.charges,
            "frame": frame.drop(columns="fetched_at"),
        }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    posts = POSTS[:n]
    pure = n * 3 * latency
    print(f"{n} posts x 3 pages, {latency * 1000:.0f} ms latency: {pure:.1f} s of pure latency")
    for fault_rate in (0.0, 0.2):
        rows = [run(posts, latency, w, fault_rate) for w in (1, 2, 4, 8)]
        base = rows[0]
        table = pd.DataFrame(
            [
                {
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


if __name__ == "__main__":
    main()
