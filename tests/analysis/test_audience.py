"""The post x post matrix of many posts (``overlap_matrix``, ``plot_overlap``, the report's
shared commenters), held to what a hostile run found (issue 19): they built the whole
matrix (10,000 posts: 763 MiB, 2.3 GB at the peak). Their memory peak is bounded here
(tracemalloc; for the report, the process's peak resident memory) on 10,000 posts, and
the matrix of the posts kept is checked cell by cell against sets.
"""

from __future__ import annotations

import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from socialframe.sandbox import example_comments  # noqa: E402

MIB = 2**20


# -- the post x post matrix of many posts ---------------------------------------------------


def many_posts(n_posts: int, mean: float, seed: int = 0) -> pd.DataFrame:
    """A company page's posts: the page itself (5% of comments), 2,000 regulars (25%,
    some far busier than others) and people who comment once (70%)."""
    rng = np.random.default_rng(seed)
    sizes = rng.geometric(1 / mean, size=n_posts)
    n = int(sizes.sum())
    kind = rng.choice(3, size=n, p=[0.05, 0.25, 0.70])
    regular = (rng.zipf(1.5, size=n) - 1) % 2000
    author = np.where(kind == 0, -1, np.where(kind == 1, regular, 10_000 + np.arange(n)))
    frame = example_comments().iloc[np.zeros(n, dtype=int)].reset_index(drop=True)
    post = np.repeat(np.arange(n_posts), sizes)
    frame["post_urn"] = pd.array([f"urn:li:activity:{7_000_000 + p}" for p in post], "string")
    frame["comment_id"] = pd.array([str(9_000_000 + i) for i in range(n)], dtype="string")
    ids = pd.array([f"a{a}" if a >= 0 else "urn:li:company:1" for a in author], "string")
    frame["author_id"] = ids
    frame["author_name"] = ids
    return frame


@pytest.fixture(scope="module")
def posts_10k() -> pd.DataFrame:
    """10,000 posts, about 50,000 comments."""
    return many_posts(10_000, mean=5)


def traced(call: Callable[[], Any]) -> tuple[Any, float]:
    """The result of ``call()`` and its tracemalloc peak in MiB (numpy and pandas
    report their buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        result = call()
        peak = tracemalloc.get_traced_memory()[1] / MIB
    finally:
        tracemalloc.stop()
    return result, peak


def _resident_mib(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} in /proc/self/status")


def peak_resident(call: Callable[[], Any]) -> tuple[Any, float]:
    """The result of ``call()`` and how far this process's resident memory rose at its
    peak, in MiB: every byte touched, numpy's and pandas' buffers included.

    It costs nothing per allocation, where tracemalloc made the report on 10,000 posts
    four times slower (20 s of CPU). Linux resets the peak (VmHWM) to the present size
    when ``5`` is written to ``/proc/self/clear_refs``; elsewhere tracemalloc measures.
    """
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")
    except OSError:
        return traced(call)
    before = _resident_mib("VmRSS")
    result = call()
    return result, _resident_mib("VmHWM") - before


def commenters(comments: pd.DataFrame) -> dict[str, set[str]]:
    who: dict[str, set[str]] = {}
    for post, author in zip(comments["post_urn"], comments["author_id"], strict=True):
        who.setdefault(post, set()).add(author)
    return who


@pytest.mark.slow
def test_overlap_matrix_of_10k_posts_keeps_1000_and_says_so(posts_10k: pd.DataFrame) -> None:
    with pytest.warns(UserWarning) as caught:
        matrix, peak = traced(lambda: posts_10k.social.overlap_matrix())
    # the whole matrix was 10,000 x 10,000 int64 (763 MiB), 2.3 GB at the peak
    assert peak < 200, f"peak {peak:.0f} MiB"
    assert [str(w.message) for w in caught] == [
        "overlap_matrix: the frame has 10,000 posts; the matrix keeps the 1,000 with the"
        " most distinct commenters (max_posts=1,000) and leaves 9,000 out. max_posts=None"
        " keeps them all: a 10,000 x 10,000 matrix of 763 MiB."
    ]
    assert caught[0].filename == __file__  # points at the caller
    who = commenters(posts_10k)
    order = list(who)  # first appearance
    most = sorted(order, key=lambda p: -len(who[p]))[:1000]  # stable: earlier first
    kept = [p for p in order if p in set(most)]
    assert matrix.index.tolist() == kept == matrix.columns.tolist()
    assert matrix.index.name == matrix.columns.name == "post_urn"
    assert matrix.dtypes.eq("int64").all()
    assert matrix.to_numpy().tolist() == [[len(who[a] & who[b]) for b in kept] for a in kept]
    assert (matrix.to_numpy() > 0).mean() > 0.3  # dense: sparse would not have saved much


def test_overlap_matrix_max_posts(posts_10k: pd.DataFrame) -> None:
    few = posts_10k[posts_10k["post_urn"].isin(posts_10k["post_urn"].unique()[:40])]
    who = commenters(few)
    order = list(who)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # under max_posts: no warning
        whole = few.social.overlap_matrix()
        assert few.social.overlap_matrix(max_posts=None).equals(whole)
        assert few.social.overlap_matrix(max_posts=40).equals(whole)
    assert whole.to_numpy().tolist() == [[len(who[a] & who[b]) for b in order] for a in order]
    with pytest.warns(UserWarning, match=r"40 posts; the matrix keeps the 7 .* leaves 33 out"):
        seven = few.social.overlap_matrix(max_posts=7)
    most = sorted(order, key=lambda p: -len(who[p]))[:7]
    assert seven.index.tolist() == [p for p in order if p in set(most)]
    assert seven.equals(whole.loc[seven.index, seven.columns])  # the same cells as the whole
    for bad in (0, -1, 2.0, "7", True):
        with pytest.raises(ValueError, match="max_posts must be an int >= 1 or None"):
            few.social.overlap_matrix(max_posts=bad)  # type: ignore[arg-type]


@pytest.mark.slow
def test_plot_overlap_of_10k_posts_counts_only_the_posts_shown(
    posts_10k: pd.DataFrame, no_plt_show: None
) -> None:
    ax, peak = traced(lambda: posts_10k.social.plot_overlap(ax=Figure().subplots()))
    assert peak < 200, f"peak {peak:.0f} MiB"
    assert ax.get_title() == (
        "Commenters shared between the 30 of 10,000 posts with most commenters"
    )
    who = commenters(posts_10k)
    order = list(who)
    most = set(sorted(order, key=lambda p: -len(who[p]))[:30])
    shown = [p for p in order if p in most]
    diagonal = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]
    assert diagonal == [f"{len(who[p]):,}" for p in shown]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [p.rsplit(":", 1)[1] for p in shown]


@pytest.mark.slow
def test_report_of_10k_posts_is_bounded_in_memory(posts_10k: pd.DataFrame, tmp_path: Path) -> None:
    one_each = posts_10k.groupby("post_urn", sort=False).head(1)  # 10,000 posts, few texts
    path, peak = peak_resident(lambda: one_each.social.report(tmp_path / "r.html"))
    assert peak < 300, f"peak {peak:.0f} MiB"
    page = path.read_text(encoding="utf-8")
    assert "<h2>Shared commenters</h2>" in page
    assert "The 30 of 10,000 posts with the most commenters. Distinct commenters" in page
