"""Frame building speed: socialframe's direct construction vs pd.json_normalize.

Prints figures; asserts nothing (these machines are shared and noisy: compare
the ratio of two measurements taken in the same run, not absolute times).

    python bench/frames_bench.py [n_comments]
"""

from __future__ import annotations

import sys
import time

import pandas as pd

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, comment_total, comments_body, total_pages


def pages_of(n: int) -> list[dict[str, object]]:
    post = EXAMPLE_POSTS[2345]
    base = [
        comments_body(post, "mostRelevant", p, 0)
        for p in range(1, total_pages(comment_total(post)) + 1)
    ]
    out, count = [], 0
    while count < n:
        for body in base:
            out.append(body)
            count += len(body["data"])  # type: ignore[arg-type]
            if count >= n:
                break
    return out


def best_of(repeat: int, fn: object) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    pages = pages_of(n)
    rows = sum(len(p["data"]) for p in pages)  # type: ignore[arg-type]
    direct = best_of(3, lambda: sf.comments_frame(pages))
    flat = best_of(3, lambda: pd.json_normalize([c for p in pages for c in p["data"]]))  # type: ignore[union-attr]
    print(f"comments: {rows:,} rows")
    print(
        f"  sf.comments_frame (typed, ids parsed): {direct:6.2f} s  {rows / direct:>10,.0f} rows/s"
    )
    print(f"  pd.json_normalize (flatten only):      {flat:6.2f} s  {rows / flat:>10,.0f} rows/s")
    print(f"  ratio json_normalize / comments_frame: {flat / direct:.2f}")


if __name__ == "__main__":
    main()
