"""Counted nouns and articles: one helper (socialframe._words) for every message, label
and caption, and no plural made by hand anywhere else in the package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import socialframe
from socialframe import _words as words
from socialframe.sandbox import example_ads, example_comments


@pytest.mark.parametrize(
    ("one", "many"),
    [
        ("comment", "comments"),
        ("query", "queries"),
        ("reply", "replies"),
        ("search", "searches"),
        ("entry", "entries"),
        ("unreadable entry", "unreadable entries"),
        ("day", "days"),
        ("refresh", "refreshes"),
        ("change", "changes"),
        ("person", "people"),
        ("top-level comment", "top-level comments"),
        ("paid page", "paid pages"),
        ("box", "boxes"),
        ("byte", "bytes"),
    ],
)
def test_plurals(one: str, many: str) -> None:
    assert words.plural(one) == many
    assert words.noun(1, one) == one and words.noun(0, one) == many and words.noun(2, one) == many
    assert words.count(1, one) == f"1 {one}" and words.count(1234, one) == f"1,234 {many}"


@pytest.mark.parametrize(
    ("word", "first"),
    [
        ("ads frame", "an"),
        ("comments frame", "a"),
        ("item", "an"),
        ("hour", "an"),
        ("user", "a"),
        ("one", "a"),
        ("organisation", "an"),
        ("post", "a"),
    ],
)
def test_articles(word: str, first: str) -> None:
    assert words.article(word) == first and words.a(word) == f"{first} {word}"


#: Plurals made by hand: a noun + "s", "(s)", "(es)", "'s' * (n != 1)", "repl{'y' ...}".
HAND_MADE = re.compile(
    r"""\+ ?["']s["']|[a-z]\(e?s\)[ "'.,;:]|["']s["'] \* \(|\{["']s["'] if|repl\{|\bunit \+"""
)


def test_no_plural_is_made_by_hand_in_the_package() -> None:
    """Every counted noun goes through socialframe._words: "2 querys", "wrote 1
    comments" came from nouns given an "s" by hand."""
    package = Path(socialframe.__file__).parent
    found = []
    for path in sorted(set(package.rglob("*.py")) - {package / "_words.py"}):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if HAND_MADE.search(code) and "http(s)" not in code:
                found.append(f"{path.relative_to(package)}:{number}: {line.strip()}")
    assert found == []


def test_the_accessor_says_which_frame_a_method_works_on() -> None:
    with pytest.raises(AttributeError, match=r"works on an ads frame"):
        example_comments().social.by_page()
    with pytest.raises(AttributeError, match=r"works on a comments frame"):
        example_ads().social.top_authors()


def test_an_unknown_author_type_is_counted() -> None:
    comments = example_comments()
    with pytest.raises(ValueError, match=r"^unknown author type \['people'\]"):
        comments.social.filter("people")
    with pytest.raises(ValueError, match=r"^unknown author types \['people', 'robot'\]"):
        comments.social.filter(["people", "robot"])
