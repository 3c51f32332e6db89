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


def normalize_then_type(pages: list[dict[str, object]]) -> pd.DataFrame:
    """The usual pandas route to a comparable frame: json_normalize, then vectorised typing."""
    flat = pd.json_normalize([c for p in pages for c in p["data"]])  # type: ignore[union-attr]
    link = flat["permalink"].astype("string")
    comment = link.str.extract(r"commentUrn=urn%3Ali%3Acomment%3A%28(\w+)%3A(\d+)%2C(\d+)%29")
    reply = link.str.extract(r"replyUrn=urn%3Ali%3Acomment%3A%28\w+%3A\d+%2C(\d+)%29")[0]
    out = pd.DataFrame(
        {
            "post_urn": "urn:li:" + comment[0] + ":" + comment[1],
            "comment_id": reply.fillna(comment[2]),
            "parent_comment_id": comment[2].where(reply.notna()),
            "is_reply": reply.notna(),
        }
    )
    ms = flat["createdAt"].where(flat["createdAt"] > 0)
    from_id = out["comment_id"].astype("float64")  # loses precision: the usual trap
    out["created_at"] = pd.to_datetime(ms.fillna(from_id / 2**22), unit="ms", utc=True)
    for src, dst in [
        ("text", "text"),
        ("threadUrn", "thread_urn"),
        ("author.name", "author_name"),
        ("author.id", "author_id"),
        ("author.urn", "author_urn"),
        ("author.title", "author_title"),
    ]:
        out[dst] = flat[src].astype("string") if src in flat else pd.NA
    out["is_pinned"] = flat["isPinned"].astype("boolean")
    out["author_type"] = (
        out["author_id"]
        .str.startswith("urn:li:company:")
        .map({True: "organization", False: "person"})
    ).astype("category")
    followers = out["author_title"].str.extract(r"^([\d,]+) followers")[0].str.replace(",", "")
    out["author_followers"] = pd.to_numeric(followers).astype("Int64")
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
    typed = best_of(3, lambda: normalize_then_type(pages))
    print(f"comments: {rows:,} rows (best of 3 runs each)")
    print(
        f"  sf.comments_frame, all 21 columns typed:  {direct:6.2f} s  {rows / direct:>9,.0f} rows/s"
    )
    print(f"  pd.json_normalize, flatten only:          {flat:6.2f} s  {rows / flat:>9,.0f} rows/s")
    print(
        f"  json_normalize + vectorised typing (14):  {typed:6.2f} s  {rows / typed:>9,.0f} rows/s"
    )
    print(f"  ratio (normalize + typing) / comments_frame: {typed / direct:.2f}")
    print(f"  ratio (flatten only) / comments_frame:       {flat / direct:.2f}")


if __name__ == "__main__":
    main()
