r"""What comments say: their words, hashtags, links, domains and emoji, counted.

Pure: texts in, tokens and counts out. ``df.social.terms`` is a thin shell over
:func:`term_counts`. Only the standard library's ``re`` and ``unicodedata``: the
tokens below need Unicode categories and a table of emoji ranges, nothing a
dependency would do much better for five kinds of term.

Tokenisation, one rule per kind (every kind reads the text with its links taken
out first, so a URL is never split into words, hashtags or emoji):

- **link**: ``http://`` / ``https://`` URLs and ``www.`` addresses, up to the
  next space, without trailing punctuation (``.``, ``,``, ``)`` when unbalanced,
  ...). Scheme and host are case-folded; path and query are kept as written
  (paths are case-sensitive: two video ids differing in case are two videos);
  a bare trailing ``/`` is dropped; ``https://`` with no host is no link (nor
  words). Bare domains without ``www.``
  (``example.com``) are not links: they cannot be told from a sentence that
  lacks a space after its full stop.
- **domain**: the host of each link, case-folded, without ``www.`` and port.
- **hashtag**: ``#`` then letters, digits, marks or ``_`` with at least one
  letter (``#1`` is not a hashtag), in any script; the full-width ``＃`` too.
  Returned with its ``#``.
- **word**: runs of letters, digits and combining marks (so Devanagari vowel
  signs and Arabic vowel marks stay inside their word), joined by inner
  apostrophes (``couldn't``); hyphens and ``_`` split words. Hashtags are not
  words (they are counted as hashtags). Tokens without a letter (``2025``) are
  left out. French elisions lose their article (``l'équipe`` -> ``équipe``);
  Arabic tashkeel and tatweel are dropped (``شكراً`` -> ``شكرا``); the
  zero-width (non-)joiner stays inside a word (Persian ``می‌خواهم``); a soft
  hyphen is no break, a zero-width space is one; e-mail addresses are not
  words.
  **Chinese and Japanese** have no spaces between words: a run of Han
  characters becomes its overlapping character bigrams (``分享谢谢`` -> ``分享``,
  ``享谢``, ``谢谢``; one character alone stays one token), the unit search
  engines index such text by when they have no dictionary; a run of katakana
  or of hiragana is one token (``データを`` -> ``データ``; ``ありがとう``), as
  such runs are mostly one word or one ending, and a lone hiragana (a particle:
  ``を``, ``が``) is left out. Korean separates words by spaces and is
  read like any other script. Thai, Lao, Khmer and Burmese runs are taken
  whole (splitting them needs a dictionary).
- **emoji**: one token per emoji as shown: a ZWJ sequence (``👨‍👩‍👧``), a skin
  tone (``👍🏽``), a flag (``🇩🇪``, ``🏴󠁧󠁢󠁳󠁣󠁴󠁿``) or a keycap (``1️⃣``) counts once.
  :func:`term_counts` counts spellings that differ only by the emoji
  selector ``U+FE0F`` as one (``❤`` and ``❤️``), shown as the commonest.
  Symbols that are usually typography (``©``, ``™``, arrows, ``▶``) count
  only when written with that selector. Emoji are recognised by the Unicode
  ``Extended_Pictographic`` ranges (with the blocks Unicode reserves for
  future emoji), written out below: the ``regex`` package's
  ``\p{Extended_Pictographic}`` would do it too, but is a compiled
  dependency for one character class.

Words, hashtags and the words of the built-in stop-word list are compared after
NFKC normalisation and ``str.casefold`` (``Größe`` -> ``grösse``,
full-width ``Ｌｏｖｅ`` -> ``love``): Unicode's rule for caseless matching; the
Turkish ``İ`` folds to ``i`` (not ``i`` and a combining dot).

Why over 400 lines: a fifth is the rules above and the emoji ranges written out;
the rest is one tokenizer per kind of term, and the kinds share the pass that
takes links out and the normalisation, so they stay in one module.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Final, Literal
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from .._checks import count_or_none
from .._schema import TERM_COUNTS, summary_columns

TermKind = Literal["word", "hashtag", "link", "domain", "emoji"]
KINDS: Final[tuple[TermKind, ...]] = ("word", "hashtag", "link", "domain", "emoji")
TERM_COLUMNS: Final = summary_columns(TERM_COUNTS)

# -- stop words ---------------------------------------------------------------------------

# Small lists of the words that carry grammar rather than meaning, one per
# language the data is mostly written in. A word that is a stop word in one
# language and a content word in another (German "war", "die") is left out for
# all: pass default_stopwords=False and a list of your own where that matters.
_STOPWORD_TEXT: Final = {
    "en": """
        a about above after again against all also am an and any are aren't as at be
        because been before being below between both but by can can't cannot could
        couldn't did didn't do does doesn't doing don't down during each even ever every
        few for from further had hadn't has hasn't have haven't having he he'd he'll he's
        her here here's hers herself him himself his how how's however i i'd i'll i'm i've
        if in into is isn't it it's its itself just let's may me might more most much must
        mustn't my myself no nor not now of off on once only or other ought our ours
        ourselves out over own same shan't she she'd she'll she's should shouldn't so some
        such than that that's the their theirs them themselves then there there's these
        they they'd they'll they're they've this those through to too under until up upon
        us very was wasn't we we'd we'll we're we've were weren't what what's when when's
        where where's which while who who's whom why why's will with won't would wouldn't
        yet you you'd you'll you're you've your yours yourself yourselves
    """,
    "de": """
        aber alle allem allen aller alles als also am an andere anderem anderen anderer
        anderes anders auch auf aus bei bin bis bist da damit dann das dass dasselbe dazu
        dein deine deinem deinen deiner deines dem demselben den denn denselben der derer
        derselbe derselben des desselben dessen dich die dies diese dieselbe dieselben
        diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines
        einige einigem einigen einiger einiges einmal er es etwas euch euer eure eurem
        euren eurer eures für gegen gewesen hab habe haben hat hatte hatten hier hin hinter
        ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist jede jedem
        jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein keine keinem keinen
        keiner keines können könnte man manche manchem manchen mancher manches mein meine
        meinem meinen meiner meines mich mir mit muss musste nach nicht nichts noch nun nur
        ob oder ohne sehr sein seine seinem seinen seiner seines selbst sich sie sind so
        solche solchem solchen solcher solches soll sollte sondern sonst über um und uns
        unser unsere unserem unseren unserer unseres unter viel vom von vor während war
        waren warst was weg weil weiter welche welchem welchen welcher welches wenn werde
        werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur zwar
        zwischen
    """,
    "fr": """
        à afin ai aie ainsi alors as au aucun aussi autre autres aux avaient avais avait
        avant avec avez avoir avons ayant car ce ceci cela celle celles celui ces cet cette
        ceux chaque chez ci comme comment dans de des donc dont du elle elles en encore es
        est et étaient était étant été être eu eux ici il ils je jusqu la là le les leur
        leurs lui ma mais me même mes moi mon ne ni nos notre nous on ont ou où par parce
        pas peu peut plus pour pourquoi qu quand que quel quelle quelles quels qui sa sans
        se ses si son sont sous sur ta te tes toi ton tous tout toute toutes très tu un une
        vos votre vous y
    """,
    "es": """
        a al algo algunas algunos ante antes como con contra cual cuando de del desde donde
        durante e el él ella ellas ellos en entre era eran eres es esa esas ese eso esos
        esta está estaba estaban estamos están estar estas este esto estos estoy fue fueron
        fui ha había habían han has hasta hay he la las le les lo los más me mi mí mis
        mucho muchos muy nada ni no nos nosotros o os otra otras otro otros para pero poco
        por porque que qué quien quienes se sea ser si sí sido sin sobre son su sus también
        tanto te tenemos tener tengo ti tiene tienen todo todos tu tú tus un una uno unos
        usted ustedes vosotros y ya yo
    """,
}
#: The built-in stop words per language (``en``, ``de``, ``fr``, ``es``), normalised.
STOPWORDS_BY_LANGUAGE: Final = {
    language: frozenset(unicodedata.normalize("NFKC", w).casefold() for w in text.split())
    for language, text in _STOPWORD_TEXT.items()
}
#: Every built-in stop word: what ``terms(kind="word")`` leaves out by default.
STOPWORDS: Final = frozenset().union(*STOPWORDS_BY_LANGUAGE.values())

# -- patterns -----------------------------------------------------------------------------

# Links: to the next space or a character that cannot end a URL in running text.
_LINK: Final = re.compile(
    r"(?<![\w@.])(?:https?://|www\.)[^\s<>\"“”‘’«»「」『』（），。、！？【】]*", re.IGNORECASE
)
# A link names a host with at least one letter or digit.
_HOST: Final = re.compile(r"(?:https?://|www\.)[^/?#\s]*[^\W_]", re.IGNORECASE)
_TRAILING: Final = ".,;:!?'\"*…)]}"
_PAIRS: Final = {")": "(", "]": "[", "}": "{"}
# French elided articles and pronouns before an apostrophe (l'équipe, qu'il, jusqu'à).
_ELISION: Final = re.compile(r"^(?:(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)')+(?=\w)")
# Arabic vowel marks (tashkeel), Quranic marks and the stretching tatweel.
_ARABIC_MARKS: Final = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
# Han ideographs (with the iteration mark 々 and 〇) and kana; NFKC makes half-width kana full.
_HAN: Final = "\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_EXT: Final = "\U00020000-\U0003134f"
_HIRAGANA: Final = "\u3041-\u309f"
_KATAKANA: Final = "\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
_KANA: Final = _HIRAGANA + _KATAKANA
_CJK: Final = re.compile(f"[{_HAN}{_HAN_EXT}{_KANA}]")
# Han, katakana and hiragana runs apart: a katakana word is not glued to the particle
# after it (データを, データが are both データ).
# The long-vowel mark ー lengthens hiragana too (すごーい): it stays in either run.
_CJK_RUNS: Final = re.compile(
    f"([{_HAN}{_HAN_EXT}]+)|([{_KATAKANA}]+|[{_HIRAGANA}\u30fc]+)|([^{_HAN}{_HAN_EXT}{_KANA}]+)"
)
# E-mail addresses are neither links nor words (john.doe@example.com is not "john"): a
# run of [\w.+-] (its start only: the lookbehind) just before an "@", then a host.
# One pattern, [\w.+-]+@[\w-]+(?:\.[\w-]+)+, would be the same rule, but re tries it
# from every letter of a long word and scans to the word's end each time: quadratic.
_EMAIL_USER: Final = re.compile(r"(?<![\w.+-])[\w.+-]++(?=@)")
_EMAIL_HOST: Final = re.compile(r"@[\w-]+(?:\.[\w-]+)++")
# Invisible characters: a soft hyphen or word joiner inside a word is no break in it,
# a zero-width space is one.
_INVISIBLE: Final = str.maketrans({"\u00ad": None, "\u2060": None, "\ufeff": None, "\u200b": " "})
# Zero-width non-joiner and joiner: part of Persian (می‌خواهم) and Indic spelling.
_JOINERS: Final = "\u200c\u200d"


@cache
def _marks() -> str:
    """A character-class body of the combining marks (Mn, Mc), without variation
    selectors. Built on first use (some 20 ms), not at import."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x300, 0x20000):
        if unicodedata.category(chr(code)) in ("Mn", "Mc") and not 0xFE00 <= code <= 0xFE0F:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(f"{_escape(a)}-{_escape(b)}" for a, b in ranges)


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


@cache
def _word() -> re.Pattern[str]:
    # Possessive (*+): a plain * of a group keeps a backtracking state per repeat,
    # some 120 bytes a letter (a 10 MB word took 1.2 GB); nothing after it could
    # take a letter back, so the matches are the same.
    piece = rf"[^\W_](?:[^\W_]|[{_marks()}{_JOINERS}])*+"
    return re.compile(rf"{piece}(?:'{piece})*+")


@cache
def _hashtag() -> re.Pattern[str]:
    return re.compile(rf"(?<![\w&#＃/])[#＃]((?:\w|[{_marks()}{_JOINERS}])+)")


def _ranges(spans: str) -> str:
    """A character-class body from hex code points and ranges: ``"00A9 2194-2199"``."""
    out = []
    for span in spans.split():
        low, _, high = span.partition("-")
        out.append(_escape(int(low, 16)) + (f"-{_escape(int(high, 16))}" if high else ""))
    return "".join(out)


# Extended_Pictographic (Unicode emoji data) shown as emoji by default: every
# pictograph beyond the BMP, and in the BMP the emoji-presentation symbols and the
# Miscellaneous Symbols and Dingbats blocks (☀ ♥ ✔ ✨ ❤), nearly always meant as emoji.
_PICTOGRAPHS: Final = _ranges(
    """
    231A-231B 23E9-23F3 23F8-23FA 25FD-25FE 2600-2605 2607-2612 2614-2685 2690-2705
    2708-2712 2714 2716 271D 2721 2728 2733-2734 2744 2747 274C 274E 2753-2755 2757
    2763-2767 2795-2797 27A1 27B0 27BF 2B1B-2B1C 2B50 2B55
    1F000-1F0FF 1F10D-1F10F 1F12F 1F16C-1F171 1F17E-1F17F 1F18E 1F191-1F19A
    1F1AD-1F1E5 1F201-1F20F 1F21A 1F22F 1F232-1F23A 1F23C-1F23F 1F249-1F3FA
    1F400-1F53D 1F546-1F64F 1F680-1F6FF 1F774-1F77F 1F7D5-1F7FF 1F80C-1F80F
    1F848-1F84F 1F85A-1F85F 1F888-1F88F 1F8AE-1F8FF 1F90C-1F93A 1F93C-1F945
    1F947-1FAFF 1FC00-1FFFD
    """
)
# Extended_Pictographic symbols that are usually typography: emoji only with U+FE0F.
_SYMBOLS: Final = _ranges(
    """
    00A9 00AE 203C 2049 2122 2139 2194-2199 21A9-21AA 2328 2388 23CF 24C2
    25AA-25AB 25B6 25C0 25FB-25FC 2934-2935 2B05-2B07 3030 303D 3297 3299
    """
)
_ONE: Final = (
    rf"(?:[{_PICTOGRAPHS}]\ufe0f?|[{_SYMBOLS}]\ufe0f)[\U0001f3fb-\U0001f3ff]?"
    r"(?:[\U000e0020-\U000e007e]+\U000e007f)?"  # tag sequences: subdivision flags
)
_EMOJI: Final = re.compile(
    r"[\U0001f1e6-\U0001f1ff]{2}"  # a flag: two regional indicators
    r"|[#*0-9]\ufe0f?\u20e3"  # a keycap
    rf"|{_ONE}(?:\u200d{_ONE})*+"  # a ZWJ sequence of pictographs (*+: as in _word)
    r"|[\U0001f1e6-\U0001f1ff\U0001f3fb-\U0001f3ff]"  # a lone indicator or skin tone
)

# -- tokens -------------------------------------------------------------------------------


def link_spans(text: str, *, hostless: bool = False) -> list[tuple[int, int]]:
    """Where the links of ``text`` are: ``(start, end)`` of each, trailing punctuation off.

    ``hostless=True`` also gives what starts like a link but names no host
    (``"https://"`` alone): not a link, but no words either.

    Example:
        >>> text = "See (https://example.com/a_(b)), then www.Example.org."
        >>> [text[a:b] for a, b in link_spans(text)]
        ['https://example.com/a_(b)', 'www.Example.org']
    """
    spans = []
    for found in _LINK.finditer(text):
        start, end = found.span()
        # Brackets counted once per link, then kept up to date as the end moves back:
        # counting the rest of the link again for each closing bracket stripped made
        # "http://a" followed by n ")" quadratic.
        opened: dict[str, int] = {}
        closed: dict[str, int] = {}
        while end > start:
            last = text[end - 1]
            if last in _PAIRS:
                if last not in closed:
                    opened[last] = text.count(_PAIRS[last], start, end)
                    closed[last] = text.count(last, start, end)
                closed[last] -= 1  # the brackets before this one
                if opened[last] > closed[last]:
                    break  # balanced: part of the URL (Wikipedia's "Foo_(bar)")
            elif last not in _TRAILING:
                break
            end -= 1
        if hostless or _HOST.match(text, start, end):
            spans.append((start, end))
    return spans


def _without_emails(text: str) -> str:
    """``text`` with each e-mail address replaced by a space."""
    if "@" not in text:
        return text
    pieces, at = [], 0
    for user in _EMAIL_USER.finditer(text):
        # An address starts where its user name does, or where the last address
        # ended when that was inside the same run ("a@b.c+d@e.f": "+d@e.f").
        start, sign = max(user.start(), at), user.end()
        host = _EMAIL_HOST.match(text, sign) if start < sign else None
        if host is not None:
            pieces += [text[at:start], " "]
            at = host.end()
    pieces.append(text[at:])
    return "".join(pieces)


def _without_links(text: str) -> str:
    pieces, at = [], 0
    for start, end in link_spans(text, hostless=True):
        pieces += [text[at:start], " "]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _link(url: str) -> str:
    match = re.match(r"(?i)(https?://)?([^/?#]*)(.*)", url, re.DOTALL)
    assert match is not None  # the pattern matches any string
    scheme, host, rest = match.groups()
    rest = "" if rest == "/" else rest
    return (scheme or "").casefold() + host.casefold() + rest


def _domain(url: str) -> str | None:
    link = _link(url)
    try:
        host = urlsplit(link if "://" in link else "//" + link).hostname
    except ValueError:  # a malformed host or port ("http://[x", "http://a:b")
        return None
    host = (host or "").casefold().rstrip(".")
    host = host.removeprefix("www.")
    return host or None


def _fold(token: str) -> str:
    # Unicode's NFKC_Casefold, token by token: NFKC on the whole text would turn
    # symbols into letters ("™" -> "TM").
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", token).casefold())
    return folded.replace("i\u0307", "i")  # Turkish İ folds to i + a dot: istanbul is istanbul


def _word_tokens(text: str) -> list[str]:
    plain = _without_emails(_hashtag().sub(" ", _without_links(text)))
    out: list[str] = []
    for found in _word().finditer(plain.replace("’", "'").replace("‘", "'")):
        folded = _ARABIC_MARKS.sub("", _fold(found.group()))
        # NFKC spells a few ligatures out in words ("ﷺ": four of them)
        for token in folded.split():
            token = _ELISION.sub("", token).strip("'" + _JOINERS)
            if _CJK.search(token):
                out.extend(_cjk_units(token))
            elif any(c.isalpha() for c in token):
                out.append(token)
    return out


def _cjk_units(token: str) -> list[str]:
    units: list[str] = []
    for han, kana, other in _CJK_RUNS.findall(token):
        if han:
            units.extend([han] if len(han) == 1 else [han[i : i + 2] for i in range(len(han) - 1)])
        elif kana and (len(kana) > 1 or not "\u3041" <= kana <= "\u309f") and kana != "ー":
            units.append(kana)  # a lone hiragana is a particle (を, が, は): grammar
        elif any(c.isalpha() for c in other.strip("'")):
            units.append(other.strip("'"))
    return units


def _emoji_key(sequence: str) -> str:
    """An emoji without variation selectors: ``❤`` and ``❤️`` are one emoji."""
    return sequence.replace("\ufe0f", "")


#: HTML someone pasted into a comment: a script's or style's code, a comment, a tag.
_MARKUP: Final = re.compile(
    r"<(script|style)\b[^>]*+>.*?</\1\s*>|<!--.*?-->|</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>",
    re.IGNORECASE | re.DOTALL,
)


def without_markup(text: str) -> str:
    """``text`` with HTML left out: tags, comments, and the code of script and style
    elements (a space in their place, so the words around them stay apart).

    Example:
        >>> without_markup('Nice<br>post <script>alert("x")</script>! <b>Bold</b>')
        'Nice post  !  Bold '
    """
    return _MARKUP.sub(" ", text)


def tokenize(text: str, kind: TermKind = "word", *, markup: bool = False) -> list[str]:
    """The terms of one text, in order, normalised (see the module docstring for the rules).

    Stop words are not removed here (see :func:`term_counts`).

    Args:
        text: A comment's text.
        kind: ``"word"``, ``"hashtag"``, ``"link"``, ``"domain"`` or ``"emoji"``.
        markup: Count the terms of HTML markup too (see :func:`without_markup`).

    Returns:
        The terms, repeated as often as they occur.

    Raises:
        ValueError: an unknown ``kind``.

    Example:
        >>> tokenize("Größe zählt! #KI https://WWW.Example.com/A?b=1 👍🏽 非常有见地")
        ['grösse', 'zählt', '非常', '常有', '有见', '见地']
        >>> tokenize("Größe zählt! #KI https://WWW.Example.com/A?b=1 👍🏽", "hashtag")
        ['#ki']
        >>> tokenize("Größe zählt! #KI https://WWW.Example.com/A?b=1 👍🏽", "link")
        ['https://www.example.com/A?b=1']
        >>> tokenize("Größe zählt! #KI https://WWW.Example.com/A?b=1 👍🏽", "domain")
        ['example.com']
        >>> tokenize("Größe zählt! #KI https://WWW.Example.com/A?b=1 👍🏽", "emoji")
        ['👍🏽']
    """
    _check_kind(kind)
    text = text.translate(_INVISIBLE)
    if not markup:
        text = without_markup(text)
    if kind == "word":
        return _word_tokens(text)
    if kind == "hashtag":
        tags = _hashtag().findall(_without_links(text))
        tags = [tag.strip(_JOINERS) for tag in tags]  # a joiner joins inside a word only
        return ["#" + _fold(tag) for tag in tags if any(c.isalpha() for c in tag)]
    if kind == "emoji":
        return _EMOJI.findall(_without_links(text))
    urls = [text[a:b] for a, b in link_spans(text)]
    if kind == "link":
        return [_link(url) for url in urls]
    return [d for d in map(_domain, urls) if d is not None]


def normalize(term: str, kind: TermKind = "word") -> str:
    """A term as :func:`tokenize` returns it, for comparing user-given terms (stop words).

    Example:
        >>> normalize("DASS"), normalize("KI", "hashtag"), normalize("www.Example.com", "domain")
        ('dass', '#ki', 'example.com')
    """
    _check_kind(kind)
    if kind == "word":
        return _ELISION.sub("", _ARABIC_MARKS.sub("", _fold(term.strip().replace("’", "'"))))
    if kind == "hashtag":
        return "#" + _fold(term.strip()).lstrip("#")
    if kind == "link":
        return _link(term.strip())
    if kind == "domain":
        return _domain(term.strip()) or term.strip().casefold()
    return _emoji_key(term.strip())


def _check_kind(kind: object) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")


# -- counts -------------------------------------------------------------------------------


def term_counts(
    comments: pd.DataFrame,
    kind: TermKind = "word",
    top: int | None = 20,
    by: str | None = None,
    stopwords: Iterable[str] | None = None,
    *,
    default_stopwords: bool = True,
    markup: bool = False,
) -> pd.DataFrame:
    """How often each term occurs in ``comments["text"]``: the ``top`` per ``by`` group.

    See :meth:`socialframe._accessor.CommentsAccessor.terms` for the rules.

    Example:
        >>> frame = pd.DataFrame({"text": ["Love it, love it!", "The love #Love", None]})
        >>> term_counts(frame)
           term  count
        0  love      3
    """
    _check_kind(kind)
    top = count_or_none("top", top)
    if isinstance(stopwords, str):
        raise TypeError(f"stopwords must be a collection of words, e.g. [{stopwords!r}]")
    if by is not None and by not in comments.columns:
        raise KeyError(f"no column {by!r}; columns are {list(comments.columns)}")
    skip = set(STOPWORDS) if kind == "word" and default_stopwords else set()
    skip.update(normalize(str(word), kind) for word in stopwords or ())

    texts = comments["text"].to_numpy(dtype=object)
    # Each distinct text is cut once ("Congratulations!" is many comments' whole text).
    cut: dict[str, list[str]] = {}
    found = [
        (cut[text] if text in cut else cut.setdefault(text, tokenize(text, kind, markup=markup)))
        if isinstance(text, str)
        else []
        for text in texts
    ]
    shown: dict[str, Counter[str]] = {}
    if kind == "emoji":
        # Count spellings that differ only by U+FE0F as one emoji, shown as the commonest.
        for row in found:
            for emoji in row:
                shown.setdefault(_emoji_key(emoji), Counter())[emoji] += 1
        found = [[_emoji_key(e) for e in row] for row in found]
    found = [[t for t in row if t not in skip] for row in found]
    sizes = np.fromiter(map(len, found), dtype="int64", count=len(found))
    terms = pd.Series([t for row in found for t in row], dtype="string", name="term")
    if by is None:
        counted = _ranked(terms.value_counts().rename("count").reset_index(), [], top)
    else:
        # Groups in order of first appearance, missing values one group of their own.
        groups = comments[by].reset_index(drop=True)
        codes, uniques = pd.factorize(groups, use_na_sentinel=False)
        frame = pd.DataFrame({"_group": np.repeat(codes, sizes), "term": terms})
        sized = frame.groupby(["_group", "term"], sort=False).size().rename("count")
        counted = _ranked(sized.reset_index(), ["_group"], top)
        values = pd.Series(uniques).take(counted["_group"]).to_numpy()
        counted.insert(0, by, pd.Series(values, dtype=groups.dtype))
        counted = counted[[by, *TERM_COLUMNS]]
    if shown:
        spelled = {key: _commonest(spellings) for key, spellings in shown.items()}
        counted["term"] = counted["term"].map(spelled).astype("string")
    return counted


def _commonest(spellings: Counter[str]) -> str:
    # Most used; of a tie the fully qualified (longer) spelling, then the first seen.
    return max(spellings, key=lambda s: (spellings[s], len(s)))


def _ranked(counted: pd.DataFrame, group: list[str], top: int | None) -> pd.DataFrame:
    counted = counted.astype({"term": "string", "count": "int64"})
    ordered = counted.sort_values(
        [*group, "count", "term"], ascending=[*[True] * len(group), False, True], kind="stable"
    )
    if top is not None:
        ordered = ordered.groupby(group, sort=False).head(top) if group else ordered.head(top)
    return ordered.reset_index(drop=True)[[*group, *TERM_COLUMNS]]
