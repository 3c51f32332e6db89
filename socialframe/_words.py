"""Counted nouns and their articles, for every message, label and caption: one rule.

A message that counts builds its words here, never with ``noun + "s"`` or ``"(s)"``:
``count(2, "query")`` is ``"2 queries"``, ``count(1, "comment")`` is ``"1 comment"``,
``article("ads frame")`` is ``"an"``. Numbers get thousands separators, as every
number socialframe shows.

The rules are English's regular ones (``-y`` after a consonant becomes ``-ies``;
``-s``, ``-x``, ``-z``, ``-ch``, ``-sh`` take ``-es``), with the irregular words our
messages use listed in :data:`IRREGULAR`. A noun of several words is counted by its
last one (``"top-level comment"`` -> ``"top-level comments"``).
"""

from __future__ import annotations

from typing import Final

#: Plurals the regular rules would get wrong.
IRREGULAR: Final = {
    "person": "people",
    "analysis": "analyses",
    "entry": "entries",
    "this": "these",
    "child": "children",
}

#: Words that take "a" although they start with a vowel ("a user": a "y" sound; "a one").
_A_BEFORE: Final = ("one", "once", "uni", "use", "usu", "uti", "ur", "eu", "ewe")
#: Words that take "an" although they start with a consonant (a silent "h").
_AN_BEFORE: Final = ("hour", "honest", "honor", "honour", "heir")


def plural(noun: str) -> str:
    """The plural of ``noun`` (of a phrase: its last word's).

    Example:
        >>> [plural(w) for w in ("comment", "query", "search", "reply", "day", "person")]
        ['comments', 'queries', 'searches', 'replies', 'days', 'people']
        >>> plural("top-level comment"), plural("paid page")
        ('top-level comments', 'paid pages')
    """
    head, _, last = noun.rpartition(" ")
    lower = last.lower()
    if lower in IRREGULAR:
        many = IRREGULAR[lower]
        many = many[:1].upper() + many[1:] if last[:1].isupper() else many
    elif lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        many = last[:-1] + "ies"
    elif lower.endswith(("s", "x", "z", "ch", "sh")):
        many = last + "es"
    else:
        many = last + "s"
    return f"{head} {many}" if head else many


def noun(n: int, word: str) -> str:
    """``word``, or its plural when ``n`` is not 1 (without the number).

    Example:
        >>> noun(1, "reply"), noun(0, "reply"), noun(3, "reply")
        ('reply', 'replies', 'replies')
    """
    return word if n == 1 else plural(word)


def count(n: int, word: str) -> str:
    """``n`` and ``word`` agreeing: the number with thousands separators.

    Example:
        >>> count(1, "comment"), count(0, "comment"), count(2345, "comment")
        ('1 comment', '0 comments', '2,345 comments')
        >>> count(2, "query"), count(1, "search"), count(3, "search")
        ('2 queries', '1 search', '3 searches')
    """
    return f"{n:,} {noun(n, word)}"


def article(word: str) -> str:
    """``"a"`` or ``"an"`` before ``word``, by its first sound.

    Example:
        >>> article("ads frame"), article("comments frame"), article("hour"), article("user")
        ('an', 'a', 'an', 'a')
    """
    lower = word.lstrip().lower()
    if lower.startswith(_A_BEFORE):
        return "a"
    if lower.startswith(_AN_BEFORE):
        return "an"
    return "an" if lower[:1] in ("a", "e", "i", "o", "u") else "a"


def a(word: str) -> str:
    """``word`` after its article.

    Example:
        >>> a("ads frame"), a("comments frame")
        ('an ads frame', 'a comments frame')
    """
    return f"{article(word)} {word}"
