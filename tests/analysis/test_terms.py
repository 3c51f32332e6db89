"""What a hostile run found in the comments analysis (issue 19), held in place.

- ``terms()`` took time quadratic in a comment's length (one long word, a run of
  ``.``, a link followed by closing brackets): each shape runs here at 1 MB, for
  every kind, in a subprocess bounded by a generous timeout (no speed assert), and
  must give the right counts.
- ``overlap_matrix`` / ``plot_overlap`` / ``report()`` built the whole post x post
  matrix (10,000 posts: 763 MiB, 2.3 GB at the peak): their memory peak is bounded
  here (tracemalloc; for the report, the process's peak resident memory) on 10,000
  posts, and the matrix of the posts kept is checked cell by cell against sets.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
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
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from socialframe._analysis import terms as _terms  # noqa: E402
from socialframe.sandbox import example_comments  # noqa: E402

MIB = 2**20
KINDS = ("word", "hashtag", "link", "domain", "emoji")

# -- terms on huge comments ---------------------------------------------------------------

#: Terms of one comment, per kind, in a fresh interpreter: a quadratic path cannot hang
#: the test run, and the child's tracemalloc peak is the terms' own.
CHILD = textwrap.dedent(
    """
    import json, sys, tracemalloc
    import socialframe as sf

    text = sys.stdin.read()
    body = {"success": True, "totalPage": 1, "data": [{
        "createdAt": 1767225600000, "text": text, "author": {"name": "Ada", "id": "1"},
        "permalink": "https://www.linkedin.com/feed/update/urn:li:activity:7?commentUrn="
        "urn%3Ali%3Acomment%3A%28activity%3A7%2C8%29",
    }]}
    comments = sf.comments_frame([body])
    found = {}
    for kind in sys.argv[1:]:
        traced = kind in ("word", "emoji")  # the patterns that kept a state per repeat
        if traced:
            tracemalloc.start()
        terms = comments.social.terms(kind, top=5)
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
        tracemalloc.stop()
        pairs = [[t, c] for t, c in zip(terms["term"], terms["count"].tolist())]
        found[kind] = {"terms": pairs, "peak": peak}
    print(json.dumps(found))
    """
)

SIZE = 1_000_000
UNIT = "Great post, see https://example.com/a_(b)) by me@example.org 👍🏽 #KI 非常有见地. "
REPEATS = SIZE // len(UNIT)


def terms_in_a_child(text: str, timeout: float = 300) -> dict[str, Any]:
    """Every kind's top terms (and tracemalloc peak) of a one-comment frame of ``text``.

    The timeout stops a quadratic path (hours at 1 MB); the slowest shape takes about 12 s
    of CPU under tracemalloc, and 50 s and more on a machine busy with ``pytest -n``."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, *KINDS],
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"terms() of a {len(text):,}-character comment: not done in {timeout:.0f} s")
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "a" * SIZE,
            {"word": [["a" * SIZE, 1]]},
            id="one 1 MB word",  # the e-mail pattern, tried from every letter
        ),
        pytest.param(
            "x." * (SIZE // 2),
            {"word": [["x", SIZE // 2]]},
            id="x. repeated",  # a run of [\w.+-] without "@": the same
        ),
        pytest.param(
            "http://a" + ")" * SIZE,
            {"link": [["http://a", 1]], "domain": [["a", 1]]},
            id="a link then 1 MB of )",  # the closing brackets counted again each: every kind
        ),
        pytest.param(
            "see https://example.com/" + "x" * SIZE + "])}" * 1000 + " now",
            {
                "word": [["see", 1]],  # "now" is a stop word
                "link": [["https://example.com/" + "x" * SIZE, 1]],
                "domain": [["example.com", 1]],
            },
            id="a 1 MB link then brackets",
        ),
        pytest.param(
            "a'" * (SIZE // 2),
            {"word": [["a'" * (SIZE // 2 - 1) + "a", 1]]},
            id="a' repeated",  # one word: its pattern kept a state per apostrophe
        ),
        pytest.param(
            "👍\u200d" * (SIZE // 3) + "👍",
            {"emoji": [["👍\u200d" * (SIZE // 3) + "👍", 1]]},
            id="a 1 MB ZWJ sequence",  # one emoji: its pattern kept a state per joiner
        ),
        pytest.param(
            UNIT * REPEATS,
            {
                # words of equal count in alphabetical order; "by" is a stop word
                "word": [[w, REPEATS] for w in ("great", "post", "see", "常有", "有见")],
                "hashtag": [["#ki", REPEATS]],
                "link": [["https://example.com/a_(b)", REPEATS]],
                "domain": [["example.com", REPEATS]],
                "emoji": [["👍🏽", REPEATS]],
            },
            id="1 MB of ordinary text",
        ),
    ],
)
@pytest.mark.slow
def test_terms_of_a_huge_comment_finish_with_the_right_counts(
    text: str, expected: dict[str, list[list[object]]]
) -> None:
    found = terms_in_a_child(text)
    for kind in KINDS:
        assert found[kind]["terms"] == expected.get(kind, []), kind
        # memory in proportion too: the word pattern kept ~120 bytes per letter of a
        # word (a 10 MB word: 1.2 GB), the emoji one ~200 per joiner; now a few copies
        # of the text
        assert found[kind]["peak"] < 64 * MIB, (kind, found[kind]["peak"] / MIB)


# -- the rewritten rules equal the plain ones ---------------------------------------------

# The rules as they were written before (quadratic on long runs), to compare against.
PLAIN_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def plain_link_spans(text: str, *, hostless: bool) -> list[tuple[int, int]]:
    spans = []
    for found in _terms._LINK.finditer(text):
        start, end = found.span()
        while end > start:
            last = text[end - 1]
            if last in _terms._PAIRS:
                inner = text[start : end - 1]
                if inner.count(_terms._PAIRS[last]) > inner.count(last):
                    break
            elif last not in _terms._TRAILING:
                break
            end -= 1
        if hostless or re.match(r"(?i)(?:https?://|www\.)[^/?#\s]*[^\W_]", text[start:end]):
            spans.append((start, end))
    return spans


PIECES = st.sampled_from(
    [
        "http://", "https://", "www.", "HTTP://", "a", "Zé", "İ", "中文", "データ", "を",
        "(", ")", "[", "]", "{", "}", ".", ",", ";", "!", "?", "'", "’", '"', "…",
        "@", "#", "＃", "/", "-", "_", "+", " ", "\n", "\u200d", "\u200b", "\ufe0f",
        "👍", "🏽", "🇩🇪", "🏴", "❤", "1", "\u0301", "ـ", "ﷺ", "l'", "x@y.co", "a.b",
    ]
)  # fmt: skip
TEXTS = st.lists(PIECES | st.text(max_size=3), max_size=40).map("".join)


def assert_as_plain(text: str) -> None:
    for hostless in (False, True):
        assert _terms.link_spans(text, hostless=hostless) == plain_link_spans(
            text, hostless=hostless
        )
    assert _terms._without_emails(text) == PLAIN_EMAIL.sub(" ", text)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_links_and_addresses_are_found_as_by_the_plain_rules(text: str) -> None:
    assert_as_plain(text)


def test_the_sandbox_comments_as_by_the_plain_rules(comments_2345: pd.DataFrame) -> None:
    texts = [t for t in comments_2345["text"] if isinstance(t, str)]
    assert len(texts) == 2345
    for text in texts:
        assert_as_plain(text)
    assert any(_terms.link_spans(t) for t in texts)


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("mail a@b.c+d@e.f now", "word", ["mail", "now"]),  # two addresses back to back
        ("x a@b.c@d.e y", "word", ["x", "d", "e", "y"]),  # the second "@" has no user left
        ("x@y no", "word", ["x", "y", "no"]),  # no dot: no address
        ("see (http://a.b/c_(d))) ok", "link", ["http://a.b/c_(d)"]),
        ("http://a.b/(x]) y", "link", ["http://a.b/(x])"]),  # ")" closes "(": kept
        ("http://a.b/[(x)]", "link", ["http://a.b/[(x)]"]),
        ("http://a.b/x.)]}.", "link", ["http://a.b/x"]),
    ],
)
def test_addresses_and_link_ends_by_example(text: str, kind: str, expected: list[str]) -> None:
    assert _terms.tokenize(text, kind) == expected  # type: ignore[arg-type]
    assert_as_plain(text)


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
