"""How fast the sandbox serves its biggest post as its world moves in time.

    python bench/sandbox_time.py            # this tree
    python bench/sandbox_time.py --weeks 0  # only at the reference date

For each ``now`` (the reference date 2026-01-01, then 1, 47 and 520 weeks later),
best of 3 fresh processes: the first page of the 2,345-comment example post
(``mostRecent``), cold (the world built for that post and ``now``); every page of
it, read twice (the first read writes out the comments that arrived after the
reference date, the second finds them written); the first page of the "running
shoes" ad search, cold; and the whole big post fetched by a client over real
HTTP. An earlier tree (without ``now=``) is measured at the reference date only.
"""

from __future__ import annotations

import argparse
import inspect
import json
import subprocess
import sys
import time
from datetime import timedelta


def measure(weeks: int) -> dict[str, float]:
    """Child mode: the figures at ``REFERENCE + weeks``, in milliseconds."""
    from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox, ads_body, comments_body

    post = EXAMPLE_POSTS[2345]
    start = ManualClock().now() + timedelta(weeks=weeks)
    timed = "now" in inspect.signature(comments_body).parameters
    if weeks and not timed:
        raise SystemExit("this tree's sandbox has no now=")
    at = {"now": start} if timed else {}

    t0 = time.perf_counter()
    first = comments_body(post, "mostRecent", 1, **at)
    cold = time.perf_counter() - t0
    reads = []
    for _ in range(2):
        t0 = time.perf_counter()
        for page in range(1, first["totalPage"] + 1):
            comments_body(post, "mostRecent", page, **at)
        reads.append((time.perf_counter() - t0) / first["totalPage"])
    t0 = time.perf_counter()
    ads_body({"query": "running shoes"}, **at)
    ads_cold = time.perf_counter() - t0

    sandbox = Sandbox(clock=ManualClock(start))
    with sandbox, sandbox.client(cache=False, progress=False, workers=1) as client:
        t0 = time.perf_counter()
        client.post_comments(post, sort="mostRecent")
        http = time.perf_counter() - t0
    return {
        "total": first["total"],
        "pages": first["totalPage"],
        "cold": cold * 1e3,
        "read 1": reads[0] * 1e3,
        "read 2": reads[1] * 1e3,
        "ads": ads_cold * 1e3,
        "http": http * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--weeks", type=int, nargs="*", default=[0, 1, 47, 520])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child)))
        return
    print(
        f"{'now':>18}  {'total':>6}  {'page 1 cold':>11}  {'a page, 1st read':>16}  "
        f"{'2nd read':>8}  {'ads page 1 cold':>15}  {'HTTP, all pages':>17}"
    )
    for weeks in args.weeks:
        best: dict[str, float] = {}
        for _ in range(3):
            done = subprocess.run(
                [sys.executable, __file__, "--child", str(weeks)],
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(done.stdout)
            best = got if not best else {k: min(best[k], v) for k, v in got.items()}
        print(
            f"{f'REFERENCE + {weeks} wk':>18}  {int(best['total']):>6}  "
            f"{best['cold']:>8.1f} ms  {best['read 1']:>13.2f} ms  {best['read 2']:>5.2f} ms  "
            f"{best['ads']:>12.1f} ms  {best['http']:>6.0f} ms ({int(best['pages'])} p)"
        )


if __name__ == "__main__":
    main()
