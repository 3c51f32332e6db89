"""Terms of comments (``_analysis/terms.py``): what a hostile run found (issue 19), held.

- ``terms()`` took time quadratic in a comment's length (one long word, a run of
  ``.``, a link followed by closing brackets): each shape runs here at 1 MB, for
  every kind, in a subprocess bounded by a generous timeout (no speed assert), and
  must give the right counts.
- Links and addresses are found as by the plain rules they were rewritten from.
- Its tokens (``tokenize``) in hard scripts and around invisible characters, and counts
  that add up to its tokens for any text. (What ``df.social.terms()`` counts on a comments
  frame is tests/analysis/test_comments.py's.)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from typing import Any

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from socialframe._analysis import terms as _terms  # noqa: E402

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


# -- tokens, and counts that add up (moved from test_comments.py) ------------------------

URLS = st.builds(
    lambda host, path: f"https://{host}.com/{path}",
    st.text("abcxyz", min_size=1, max_size=8),
    st.text("abcXYZ019-_/", max_size=10),
)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60), URLS)
def test_a_link_is_never_words(before: str, after: str, url: str) -> None:
    # Spaces around the link: without them it would run on into the text around it.
    text = f"{before} {url} {after}"
    assert _terms.tokenize(text) == _terms.tokenize(f"{before} {after}")
    assert url.split("://")[1].split("/")[0] in _terms.tokenize(text, "domain")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=40) | st.none(), max_size=6))
@pytest.mark.slow
def test_counts_add_up_for_any_text(values: list[str | None]) -> None:
    frame = pd.DataFrame({"text": pd.array(values, dtype="string")})
    for kind in _terms.KINDS:
        found = [t for v in values if v is not None for t in _terms.tokenize(v, kind)]
        if kind == "word":
            found = [t for t in found if t not in _terms.STOPWORDS]
            assert all(t.strip() == t and t for t in found)
        got = _terms.term_counts(frame, kind, top=None)
        assert int(got["count"].sum()) == len(found)
        assert got["count"].is_monotonic_decreasing


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        # Persian spelling joins with a zero-width non-joiner: one word, one hashtag
        ("می\u200cخواهم #می\u200cخواهم", "word", ["می\u200cخواهم"]),
        ("می\u200cخواهم #می\u200cخواهم", "hashtag", ["#می\u200cخواهم"]),
        # a katakana word is not glued to the particle after it; lone particles are grammar
        ("データを データが データは ありがとう", "word", ["データ"] * 3 + ["ありがとう"]),
        ("mail john.doe@example.com now", "word", ["mail", "now"]),  # an address is no words
        ("İstanbul istanbul ISTANBUL", "word", ["istanbul"] * 3),  # Turkish İ: no stray dot
        ("ﷺ", "word", ["صلى", "الله", "عليه", "وسلم"]),  # NFKC spells the ligature out
        ("Wort\u00adteil zero\u200bwidth", "word", ["wortteil", "zero", "width"]),
        ("don‘t", "word", ["don't"]),
        ("https://example.com\u200b/x", "domain", ["example.com"]),
    ],
)
def test_tokenize_hard_scripts_and_invisible_characters(
    text: str, kind: str, expected: list[str]
) -> None:
    assert _terms.tokenize(text, kind) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("hello\u200c world hello", "word", ["hello", "world", "hello"]),  # a joiner at an end
        ("کتاب\u200c کتاب", "word", ["کتاب", "کتاب"]),
        ("#tag\u200c #tag", "hashtag", ["#tag", "#tag"]),
        ("great\u200d👍", "word", ["great"]),
    ],
)
def test_joiners_at_the_ends_of_words_are_not_part_of_them(
    text: str, kind: str, expected: list[str]
) -> None:
    assert _terms.tokenize(text, kind) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("すごーい かわいー", "word", ["すごーい", "かわいー"]),  # ー lengthens hiragana too
        ("コーヒーを飲む", "word", ["コーヒー", "飲"]),
        ("ー", "word", []),
        ("#\u200cfoo #foo\u200c", "hashtag", ["#foo", "#foo"]),
    ],
)
def test_long_vowels_and_joiners_after_the_hash(text: str, kind: str, expected: list[str]) -> None:
    assert _terms.tokenize(text, kind) == expected  # type: ignore[arg-type]
