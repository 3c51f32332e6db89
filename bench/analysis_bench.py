"""Comments analysis at scale: memory and time of df.social on many posts, and of terms()
on one huge comment; each figure beside an anchor measured in the same run.

    python bench/analysis_bench.py            # 10,000 posts (about a minute)
    python bench/analysis_bench.py --posts 2000

Prints one table; asserts nothing (these machines are shared and noisy: compare
figures of one run, not absolute times). Memory is the ``tracemalloc`` peak of
one call (numpy and pandas report their buffers to it).

Data: a company page's posts. Comments per post are geometric (mean 25);
each comment's author is the page itself (5%: it replies everywhere, so every
two posts share a commenter and a post x post matrix has no zero to spare),
one of 2,000 regulars (25%, some far more active than others) or someone
commenting once (70%). A third of the comments reply to the comment before.
Texts are the sandbox's.

Anchors:

- frame: the comments frame's own size (``memory_usage(deep=True)``);
- group pass: ``groupby("post_urn")["author_id"].nunique()`` (one per-post pass,
  what any per-post figure must at least do), its peak and time;
- terms on one huge comment: ``len(text.split())``, a linear pass over it. Three
  comments: ordinary text, one word and a link followed by closing brackets (the
  last two took quadratic time before, the second for words only, the third for
  every kind).
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import socialframe  # noqa: E402,F401  (registers df.social)
from socialframe.sandbox import example_comments  # noqa: E402

MIB = 2**20


def many_posts(n_posts: int, seed: int = 0) -> pd.DataFrame:
    """A comments frame of ``n_posts`` posts with the commenters described above."""
    rng = np.random.default_rng(seed)
    sizes = rng.geometric(1 / 25, size=n_posts)
    n = int(sizes.sum())
    base = example_comments(2345)
    frame = base.iloc[np.arange(n) % len(base)].reset_index(drop=True)
    post = np.repeat(np.arange(n_posts), sizes)
    kind = rng.choice(3, size=n, p=[0.05, 0.25, 0.70])
    regular = (rng.zipf(1.5, size=n) - 1) % 2000
    author = np.where(kind == 0, -1, np.where(kind == 1, regular, 10_000 + np.arange(n)))
    ids = pd.array([f"a{a}" if a >= 0 else "urn:li:company:1" for a in author], dtype="string")
    first = np.r_[True, post[1:] != post[:-1]]
    reply = (rng.random(n) < 1 / 3) & ~first
    comment_ids = pd.array([str(9_000_000_000_000 + i) for i in range(n)], dtype="string")
    parent = pd.Series(comment_ids).shift(1).where(reply).astype("string")
    times = pd.Timestamp("2025-01-01", tz="UTC") + pd.to_timedelta(
        post * 3_600 + np.arange(n) % 1_000 * 60, unit="s"
    )
    frame["post_urn"] = pd.array([f"urn:li:activity:{7_000_000 + p}" for p in post], "string")
    frame["comment_id"] = comment_ids
    frame["parent_comment_id"] = parent.array
    frame["is_reply"] = pd.array(reply, dtype="boolean")
    frame["created_at"] = times.astype("datetime64[us, UTC]")
    frame["author_id"] = ids
    frame["author_name"] = ids
    frame["author_type"] = pd.Categorical(
        np.where(author < 0, "organization", "person"), categories=["person", "organization"]
    )
    return frame


def measured(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds (untraced: tracemalloc slows Python code down), peak MiB (traced, a second
    call) and the result of one call."""
    gc.collect()
    started = time.perf_counter()
    fn()
    seconds = time.perf_counter() - started
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] / MIB
    finally:
        tracemalloc.stop()
    return seconds, peak, result


def line(what: str, seconds: float, peak: float, note: str = "") -> None:
    print(f"{what:<44} {seconds:>8.2f} s {peak:>9.1f} MiB  {note}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--text-mb", type=float, default=1.0, help="the huge comment's size")
    args = parser.parse_args(argv)

    comments = many_posts(args.posts)
    n_posts = comments["post_urn"].nunique()
    frame_mib = comments.memory_usage(deep=True).sum() / MIB
    print(
        f"{len(comments):,} comments on {n_posts:,} posts by "
        f"{comments['author_id'].nunique():,} authors; the frame: {frame_mib:.1f} MiB"
    )
    print(f"{'':<44} {'time':>10} {'peak':>13}")
    line(
        "anchor: group pass (nunique per post)",
        *measured(lambda: comments.groupby("post_urn")["author_id"].nunique())[:2],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seconds, peak, matrix = measured(lambda: comments.social.overlap_matrix())
    shape = f"{matrix.shape[0]:,} x {matrix.shape[1]:,}"
    filled = float((matrix.to_numpy() > 0).mean())
    line("overlap_matrix()", seconds, peak, f"-> {shape}, {filled:.0%} of cells > 0")
    for warning in caught[:1]:
        print(f"{'':<44} warned: {warning.message}")
    del matrix
    line(
        "plot_overlap(max_posts=30)",
        *measured(lambda: comments.social.plot_overlap(ax=Figure().subplots()))[:2],
    )
    line("overlap()", *measured(lambda: comments.social.overlap())[:2])
    line("summary()", *measured(lambda: comments.social.summary())[:2])
    line("response_times()", *measured(lambda: comments.social.response_times())[:2])
    line(
        "response_times(per='post')",
        *measured(lambda: comments.social.response_times(per="post"))[:2],
    )
    for kind in ("word", "domain"):
        line(f"terms({kind!r})", *measured(lambda k=kind: comments.social.terms(k))[:2])
    with tempfile.TemporaryDirectory() as folder:
        line(
            "report()",
            *measured(lambda: comments.social.report(Path(folder) / "r.html"))[:2],
        )

    size = int(args.text_mb * 1_000_000)
    unit = "Great post, see https://example.com/a_(b)) by me@example.org 👍🏽 #ki 非常有见地. "
    texts = {
        "mixed text": (unit * (size // len(unit) + 1))[:size],
        "one word": "a" * size,  # was quadratic: the e-mail pattern, from every letter
        "a link, then ')' * n": "http://a" + ")" * size,  # was quadratic: every kind
    }
    for name, text in texts.items():
        one = example_comments(1).assign(text=pd.array([text], dtype="string"))
        print(f"\none comment of {len(text):,} characters: {name}")
        line("anchor: text.split()", *measured(lambda t=text: len(t.split()))[:2])
        for kind in ("word", "hashtag", "link", "domain", "emoji"):
            line(f"terms({kind!r})", *measured(lambda o=one, k=kind: o.social.terms(k))[:2])


if __name__ == "__main__":
    main()
