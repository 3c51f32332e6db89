"""Comments insight (df.social.summary / terms / overlap / overlap_matrix / plot_overlap /
response_times): exact values on small hand-made frames, then a many-post fetch
through the sandbox server checked against counts computed here from the raw
columns."""

from __future__ import annotations

import functools
from urllib.parse import quote

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import socialframe as sf  # noqa: E402
from socialframe.sandbox import EXAMPLE_POSTS, example_ads  # noqa: E402

P1 = "7000000000000000001"
P2 = "7000000000000000002"
URN1 = f"urn:li:activity:{P1}"
URN2 = f"urn:li:activity:{P2}"
T0 = 1_767_225_600_000  # 2026-01-01 00:00 UTC
H = 3_600_000
M = 60_000

ADA = {"name": "Ada", "id": "1", "title": "Engineer"}
BOB = {"name": "Bob", "id": "2"}
CARL = {"name": "Carl", "id": "3"}
ACME = {"name": "Acme", "id": "urn:li:company:9", "title": "1,200 followers"}


def at(ms: int) -> pd.Timestamp:
    return pd.Timestamp(ms, unit="ms", tz="UTC")


def minutes(n: float) -> pd.Timedelta:
    return pd.Timedelta(minutes=n)


def comment(
    post: str, ms: int, author: dict[str, str], parent_ms: int | None = None, text: str = ""
) -> dict[str, object]:
    """A raw comment whose id carries its time (``ms << 22``), as the service's do."""
    cid, parent = (ms << 22) | 1, ((parent_ms << 22) | 1) if parent_ms is not None else None
    urn = quote(f"urn:li:comment:(activity:{post},{parent or cid})", safe="")
    link = f"https://www.linkedin.com/feed/update/urn:li:activity:{post}?commentUrn={urn}"
    if parent:
        link += "&replyUrn=" + quote(f"urn:li:comment:(activity:{post},{cid})", safe="")
    return {"createdAt": 0 if parent else ms, "permalink": link, "text": text, "author": author}


def frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    return sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])


def cid(ms: int) -> str:
    return str((ms << 22) | 1)


# Post 1: two threads. Ada 09:00 (replied by Acme at 10:00, Bob at 11:00), Bob 09:30
# (replied by Ada at 09:40). Post 2: Ada 22:00 (replied by Carl at 22:30), Carl 23:00,
# Acme 01:00 and 01:30 the next day. Ada and Acme comment on both posts.
C1, C2 = T0 + 9 * H, T0 + 9 * H + 30 * M
D1, D2, D3, D5 = T0 + 46 * H, T0 + 47 * H, T0 + 49 * H, T0 + 49 * H + 30 * M
ROWS = [
    comment(P1, C1, ADA, text="Great launch! #AI"),
    comment(P1, C2, BOB, text="Read https://www.Example.com/Post?id=A1."),
    comment(P1, C1 + H, ACME, parent_ms=C1, text="Thanks 👏🏽👏🏽"),
    comment(P1, C1 + 2 * H, BOB, parent_ms=C1, text="great GREAT"),
    comment(P1, C2 + 10 * M, ADA, parent_ms=C2, text="❤ ❤️"),
    comment(P2, D1, ADA, text="Отличная новость, поздравляю!"),
    comment(P2, D2, CARL, text="非常有见地的分享，谢谢！"),
    comment(P2, D3, ACME, text="مقال رائع، شكراً #ai"),
    comment(P2, D1 + 30 * M, CARL, parent_ms=D1, text="बहुत बढ़िया पोस्ट, धन्यवाद!"),
    comment(P2, D5, ACME, text="great"),
]


@pytest.fixture
def comments() -> pd.DataFrame:
    return frame(ROWS)


@pytest.fixture(autouse=True)
def never_show(no_plt_show: None) -> None:
    """Every test here: no plt.show(), figures closed after (conftest's no_plt_show)."""


# -- summary ------------------------------------------------------------------------------

SUMMARY_DTYPES = {
    "post_urn": "string",
    "comments": "int64",
    "replies": "int64",
    "authors": "int64",
    "organization_share": "Float64",  # a share: a fraction, shown as a percentage
    "first_comment_at": "datetime64[us, UTC]",
    "last_comment_at": "datetime64[us, UTC]",
    "busiest_hour": "Int64",
    "median_first_reply": "timedelta64[us]",
}


def test_summary_one_row_per_post(comments: pd.DataFrame) -> None:
    got = comments.social.summary()
    assert {c: str(t) for c, t in got.dtypes.items()} == SUMMARY_DTYPES
    assert got["post_urn"].tolist() == [URN1, URN2]
    assert got["comments"].tolist() == [5, 5]
    assert got["replies"].tolist() == [3, 1]
    assert got["authors"].tolist() == [3, 3]  # Ada, Bob, Acme / Ada, Carl, Acme
    assert got["organization_share"].tolist() == [0.2, 0.4]
    assert got["first_comment_at"].tolist() == [at(C1), at(D1)]
    assert got["last_comment_at"].tolist() == [at(C1 + 2 * H), at(D5)]
    # post 1: 09h three comments; post 2: 22h and 01h two each -> the earlier hour, 1
    assert got["busiest_hour"].tolist() == [9, 1]
    # post 1: first replies after 60 and 10 minutes -> 35; post 2: one after 30
    assert got["median_first_reply"].tolist() == [minutes(35), minutes(30)]


def test_summary_busiest_hour_in_the_given_zone(comments: pd.DataFrame) -> None:
    got = comments.social.summary(tz="Europe/Berlin")  # UTC+1 in January
    # post 1: 10h (three), 11h, 12h; post 2: 23h (22:00 and 22:30 UTC), 0h, 2h (two)
    assert got["busiest_hour"].tolist() == [10, 2]
    assert got["first_comment_at"].tolist() == [at(C1), at(D1)]  # times stay UTC
    # UTC+5:30: post 1 at 14:30, 15:00, 15:10, 15:30, 16:30; post 2 at 03:30, 04:00,
    # 04:30, 06:30, 07:00
    assert comments.social.summary(tz="Asia/Kolkata")["busiest_hour"].tolist() == [15, 4]


def test_summary_keeps_the_post_column_of_a_many_post_fetch(comments: pd.DataFrame) -> None:
    given = comments.copy()
    given.insert(0, "post", np.where(given["post_urn"] == URN1, P1, f"https://x/{P2}"))
    given["post"] = given["post"].astype("string")
    got = given.social.summary()
    assert list(got.columns) == ["post", *SUMMARY_DTYPES]
    assert got["post"].tolist() == [P1, f"https://x/{P2}"]
    assert str(got["post"].dtype) == "string"


def test_summary_lists_posts_in_order_of_appearance(comments: pd.DataFrame) -> None:
    flipped = pd.concat([comments.iloc[5:], comments.iloc[:5]], ignore_index=True)
    got = flipped.social.summary()
    assert got["post_urn"].tolist() == [URN2, URN1]
    assert got["comments"].tolist() == [5, 5] and got["busiest_hour"].tolist() == [1, 9]


def test_summary_with_missing_values(comments: pd.DataFrame) -> None:
    broken = comments.copy()
    # Acme's reply loses its time: no longer the first reply of Ada's thread (Bob's is, 2 h)
    broken.loc[2, "created_at"] = pd.NaT
    # Bob's top-level comment loses its author and type: one author fewer, the share
    # is over four comments
    broken.loc[1, ["author_id", "author_name", "author_type"]] = pd.NA
    got = broken.social.summary().iloc[0]
    assert got["comments"] == 5 and got["replies"] == 3
    assert got["authors"] == 3  # Ada, Acme, Bob (Bob still wrote the reply at 11:00)
    assert got["organization_share"] == 0.25
    assert got["median_first_reply"] == minutes(65)  # median of 120 and 10
    assert got["last_comment_at"] == at(C1 + 2 * H)

    undated = comments.assign(created_at=comments["created_at"].iloc[:0].reindex(comments.index))
    got = undated.social.summary()
    assert got["comments"].tolist() == [5, 5]
    assert got["busiest_hour"].isna().all() and got["first_comment_at"].isna().all()
    assert got["median_first_reply"].isna().all()
    assert str(got["busiest_hour"].dtype) == "Int64"

    no_types = comments.assign(author_type=comments["author_type"].iloc[:0].reindex(comments.index))
    assert no_types.social.summary()["organization_share"].isna().all()


def test_summary_replies_without_their_parent(comments: pd.DataFrame) -> None:
    orphans = comments.drop(index=[0])  # Ada's thread without Ada's comment
    got = orphans.social.summary().iloc[0]
    assert got["comments"] == 4 and got["replies"] == 3
    assert got["median_first_reply"] == minutes(10)  # only Bob's thread is measurable


def test_summary_of_one_post_and_of_none(comments: pd.DataFrame) -> None:
    one = comments[comments["post_urn"] == URN2].social.summary()
    assert one["post_urn"].tolist() == [URN2] and one["busiest_hour"].tolist() == [1]
    empty = comments.iloc[:0].social.summary()
    assert len(empty) == 0
    assert {c: str(t) for c, t in empty.dtypes.items()} == SUMMARY_DTYPES


# -- terms --------------------------------------------------------------------------------


def texts(*values: str | None) -> pd.DataFrame:
    """A comments frame of one sandbox comment, once per text given (None: no text)."""
    frame = _one_comment().iloc[[0] * len(values)].reset_index(drop=True)
    frame["text"] = pd.array(values, dtype="string")
    return frame


@functools.cache
def _one_comment() -> pd.DataFrame:
    from socialframe.sandbox import example_comments

    return example_comments().head(1)


def counts(got: pd.DataFrame) -> list[tuple[str, int]]:
    return list(zip(got["term"], got["count"].tolist(), strict=True))


def test_terms_words_case_folded_without_stopwords(comments: pd.DataFrame) -> None:
    got = comments.social.terms(top=None)
    assert list(got.columns) == ["term", "count"]
    assert str(got["term"].dtype) == "string" and str(got["count"].dtype) == "int64"
    # "great" 4 times (Great, great GREAT, great), then the rest by code point; the
    # link's words ("example", "post") are not words, nor is the hashtag "#AI"
    ones = ["launch", "read", "thanks", "новость", "отличная", "поздравляю"]
    ones += ["رائع", "شكرا", "مقال", "धन्यवाद", "पोस्ट", "बढ़िया", "बहुत"]
    ones += ["分享", "地的", "常有", "有见", "的分", "见地", "谢谢", "非常"]
    assert counts(got) == [("great", 4)] + [(term, 1) for term in ones]
    assert counts(comments.social.terms()) == counts(got.head(20))  # top=20 by default


def test_terms_in_every_script() -> None:
    frame = texts(
        "बहुत बढ़िया पोस्ट, धन्यवाद!",  # Devanagari: vowel signs stay inside their word
        "مقال رائع، شكراً على المشاركة",  # Arabic: tashkeel dropped
        "Отличная НОВОСТЬ, поздравляю!",
        "非常有见地的分享，谢谢！",  # Chinese: Han bigrams
        "素晴らしい投稿ですね。データ",  # Japanese: Han bigrams, kana runs whole
        "축하합니다! 👏",  # Korean: words between spaces
        "Sehr spannender Beitrag! Größe zählt; l'équipe d’aujourd'hui",
    )
    got = dict(counts(texts_terms(frame)))
    assert got == {
        **dict.fromkeys(["बहुत", "बढ़िया", "पोस्ट", "धन्यवाद"], 1),
        **dict.fromkeys(["مقال", "رائع", "شكرا", "على", "المشاركة"], 1),
        **dict.fromkeys(["отличная", "новость", "поздравляю"], 1),
        **dict.fromkeys(["非常", "常有", "有见", "见地", "地的", "的分", "分享", "谢谢"], 1),
        **dict.fromkeys(["素晴", "らしい", "投稿", "ですね", "データ"], 1),
        "축하합니다": 1,
        # German "sehr" is a stop word; ß folds to ss; French elisions lose their article
        **dict.fromkeys(["spannender", "beitrag", "grösse", "zählt", "équipe"], 1),
        "aujourd'hui": 1,
    }


def texts_terms(frame: pd.DataFrame, **kwargs: object) -> pd.DataFrame:
    return frame.social.terms(top=None, **kwargs)  # type: ignore[arg-type]


def test_terms_one_han_character_and_numbers() -> None:
    got = counts(texts_terms(texts("好 2025 10,000 3rd 你好", "A_b x-ray")))
    # a lone Han character is a token; numbers are not words; _ and - split ("a" is a
    # stop word)
    assert got == [("3rd", 1), ("b", 1), ("ray", 1), ("x", 1), ("你好", 1), ("好", 1)]


def test_terms_stopwords_added_and_switched_off() -> None:
    frame = texts("The team and the DATA", "Die Daten und das Team", "le équipe et les données")
    assert dict(counts(texts_terms(frame))) == {
        "team": 2,
        "data": 1,
        "daten": 1,
        "équipe": 1,
        "données": 1,
    }
    added = texts_terms(frame, stopwords=["TEAM", "Daten"])
    assert dict(counts(added)) == {"data": 1, "équipe": 1, "données": 1}
    everything = texts_terms(frame, default_stopwords=False)
    assert dict(counts(everything))["the"] == 2 and dict(counts(everything))["und"] == 1
    only_mine = texts_terms(frame, stopwords=["the"], default_stopwords=False)
    assert "the" not in set(only_mine["term"]) and "and" in set(only_mine["term"])
    stop = texts("the der le el und et y")  # stop words of English, German, French, Spanish
    assert texts_terms(stop).empty
    assert len(texts_terms(stop, default_stopwords=False)) == 7


def test_terms_hashtags() -> None:
    frame = texts(
        "#Launch #launch! #ＫＩ #日本語 #café_2025",
        "#1 a#b &#35;x https://example.com/page#frag #بيانات",
        None,
    )
    assert counts(texts_terms(frame, kind="hashtag")) == [
        ("#launch", 2),
        ("#café_2025", 1),
        ("#ki", 1),
        ("#بيانات", 1),
        ("#日本語", 1),
    ]


def test_terms_links_and_domains() -> None:
    frame = texts(
        "See https://WWW.Example.com/Docs/A?x=1. And (https://en.wikipedia.org/wiki/Foo_(bar)).",
        "www.example.com/ and https://www.example.com/Docs/A?x=1, http://blog.example.com:8080/",
        "no link: example.com, https://",
    )
    links = counts(texts_terms(frame, kind="link"))
    assert links == [
        ("https://www.example.com/Docs/A?x=1", 2),  # path case kept, host folded
        ("http://blog.example.com:8080", 1),
        ("https://en.wikipedia.org/wiki/Foo_(bar)", 1),
        ("www.example.com", 1),
    ]
    domains = counts(texts_terms(frame, kind="domain"))
    assert domains == [("example.com", 3), ("blog.example.com", 1), ("en.wikipedia.org", 1)]
    words = set(texts_terms(frame)["term"])
    assert words == {"see", "link", "example", "com"}  # links are never split into words
    skipped = counts(texts_terms(frame, kind="domain", stopwords=["WWW.EXAMPLE.COM"]))
    assert skipped == [("blog.example.com", 1), ("en.wikipedia.org", 1)]


def test_terms_emoji_sequences_count_once() -> None:
    frame = texts(
        "👏👏👏 👍🏽 ❤ ❤️ 🏃‍♀️ 👨‍👩‍👧 🇩🇪🇫🇷 1️⃣ 🏴󠁧󠁢󠁳󠁣󠁴󠁿",
        "© ™ ©️ ▶ great 👍🏽",
    )
    got = counts(texts_terms(frame, kind="emoji"))
    assert got == [
        ("👏", 3),
        ("❤️", 2),  # with and without the selector: one emoji, shown with it
        ("👍🏽", 2),  # a skin tone is part of its emoji
        ("1️⃣", 1),
        ("©️", 1),  # typography (©, ™, ▶) only with the emoji selector
        ("🇩🇪", 1),
        ("🇫🇷", 1),
        ("🏃‍♀️", 1),
        ("🏴󠁧󠁢󠁳󠁣󠁴󠁿", 1),
        ("👨‍👩‍👧", 1),
    ]
    assert texts_terms(frame)["term"].tolist() == ["great"]  # "™" is no word "tm"


def test_terms_top_and_by(comments: pd.DataFrame) -> None:
    got = comments.social.terms(top=2, by="post_urn")
    assert list(got.columns) == ["post_urn", "term", "count"]
    assert str(got["post_urn"].dtype) == "string"
    assert got.values.tolist() == [
        [URN1, "great", 3],
        [URN1, "launch", 1],
        [URN2, "great", 1],
        [URN2, "новость", 1],
    ]
    by_type = comments.social.terms("hashtag", by="author_type")
    assert str(by_type["author_type"].dtype) == "category"
    assert by_type.astype({"author_type": str}).values.tolist() == [
        ["person", "#ai", 1],
        ["organization", "#ai", 1],
    ]
    assert len(comments.social.terms(top=0)) == 0
    assert len(comments.social.terms(top=None)) > len(comments.social.terms(top=3)) == 3


def test_terms_missing_group_and_text(comments: pd.DataFrame) -> None:
    frame = comments.copy()
    frame.loc[[0, 3], "author_type"] = pd.NA  # "Great launch!", "great GREAT"
    frame.loc[9, "text"] = pd.NA  # Acme's "great"
    got = frame.social.terms(top=1, by="author_type")
    assert got["author_type"].isna().tolist() == [True, False, False]  # in order of appearance
    assert got.iloc[1:].astype({"author_type": str}).values.tolist() == [
        ["person", "read", 1],
        ["organization", "thanks", 1],
    ]
    assert got.loc[0, ["term", "count"]].tolist() == ["great", 3]


def test_terms_empty_and_bad_arguments(comments: pd.DataFrame) -> None:
    empty = comments.iloc[:0].social.terms(by="post_urn")
    assert list(empty.columns) == ["post_urn", "term", "count"] and len(empty) == 0
    assert [str(t) for t in empty.dtypes] == ["string", "string", "int64"]
    assert list(comments.iloc[:0].social.terms().columns) == ["term", "count"]
    with pytest.raises(ValueError, match="kind must be one of"):
        comments.social.terms("words")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="top must be an int >= 0"):
        comments.social.terms(top=-1)
    with pytest.raises(TypeError, match=r"\['great'\]"):
        comments.social.terms(stopwords="great")
    with pytest.raises(KeyError, match="no column 'nope'"):
        comments.social.terms(by="nope")


# -- overlap ------------------------------------------------------------------------------


def test_overlap_authors_across_posts(comments: pd.DataFrame) -> None:
    got = comments.social.overlap()
    assert list(got.columns) == [
        "author_id",
        "author_name",
        "author_type",
        "posts",
        "comments",
        "post_urns",
    ]
    assert got["author_name"].tolist() == ["Acme", "Ada"]  # 2 posts, 3 comments each: by name
    assert got["posts"].tolist() == [2, 2] and got["comments"].tolist() == [3, 3]
    assert got["post_urns"].tolist() == [[URN1, URN2], [URN1, URN2]]
    assert got["author_id"].tolist() == ["urn:li:company:9", "1"]
    assert [str(t) for t in got.dtypes] == [
        "string",
        "string",
        "category",
        "int64",
        "int64",
        "object",
    ]
    everyone = comments.social.overlap(min_posts=1)
    assert everyone["author_name"].tolist() == ["Acme", "Ada", "Bob", "Carl"]
    assert everyone["posts"].tolist() == [2, 2, 1, 1]
    assert everyone["comments"].tolist() == [3, 3, 2, 2]
    assert len(comments.social.overlap(min_posts=3)) == 0
    with pytest.raises(ValueError, match="min_posts must be an int >= 1"):
        comments.social.overlap(min_posts=0)


def test_overlap_keys_authors_by_name_without_id(comments: pd.DataFrame) -> None:
    frame = comments.copy()
    frame.loc[frame["author_name"] == "Ada", "author_id"] = pd.NA  # Ada by name only
    frame.loc[9, ["author_id", "author_name"]] = pd.NA  # Acme's last: nobody
    got = frame.social.overlap()
    assert got["author_name"].tolist() == ["Ada", "Acme"]  # Acme now 2 comments
    assert got["comments"].tolist() == [3, 2]
    assert got["author_id"].isna().tolist() == [True, False]


def test_overlap_matrix(comments: pd.DataFrame) -> None:
    got = comments.social.overlap_matrix()
    assert got.index.tolist() == [URN1, URN2] and got.columns.tolist() == [URN1, URN2]
    assert got.index.name == "post_urn" and got.columns.name == "post_urn"
    assert got.to_numpy().tolist() == [[3, 2], [2, 3]]
    assert set(got.dtypes.astype(str)) == {"int64"}
    one = comments[comments["post_urn"] == URN1].social.overlap_matrix()
    assert one.to_numpy().tolist() == [[3]]
    empty = comments.iloc[:0].social.overlap_matrix()
    assert empty.shape == (0, 0)
    nobody = comments.assign(author_id=pd.NA, author_name=pd.NA).astype(
        {"author_id": "string", "author_name": "string"}
    )
    assert nobody.social.overlap_matrix().to_numpy().tolist() == [[0, 0], [0, 0]]


def test_plot_overlap(comments: pd.DataFrame) -> None:
    fig, ax = plt.subplots()
    assert comments.social.plot_overlap(ax=ax) is ax
    assert [t.get_text() for t in ax.texts] == ["3", "2", "2", "3"]
    bold = [t.get_fontweight() for t in ax.texts]
    assert bold == ["bold", "normal", "normal", "bold"]  # the diagonal
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["…000001", "…000002"] == [t.get_text() for t in ax.get_yticklabels()]
    image = ax.images[0]
    assert image.get_array().mask.tolist() == [[True, False], [False, True]]
    assert image.get_clim() == (0, 2)
    assert ax.get_title() == "Commenters shared between 2 posts"
    empty = comments.iloc[:0].social.plot_overlap()
    assert empty.get_title() == "Commenters shared between 0 posts" and not empty.images
    one = comments[comments["post_urn"] == URN2].social.plot_overlap()
    assert one.get_title() == "Commenters of 1 post" and [t.get_text() for t in one.texts] == ["3"]


def overlap_labels(urns: list[str]) -> list[str]:
    """The labels plot_overlap gives posts with these urns (one comment each, in order)."""
    from matplotlib.figure import Figure

    one = frame([comment(P1, C1, ADA)])
    posts = pd.concat(
        [one.assign(post_urn=pd.array([urn], dtype="string")) for urn in urns], ignore_index=True
    )
    ax = posts.social.plot_overlap(ax=Figure().subplots())
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == [t.get_text() for t in ax.get_yticklabels()]
    return labels


def test_short_post_labels() -> None:
    assert overlap_labels(["urn:li:activity:1", "urn:li:ugcPost:22"]) == ["1", "22"]
    # the shortest tail that still tells them apart: 7 digits here
    near = ["urn:li:activity:7384427202391592960", "urn:li:activity:7384427202390592960"]
    assert overlap_labels(near) == ["…1592960", "…0592960"]
    # no tail tells these apart: whole ids
    far = ["urn:li:activity:1000000000000000001", "urn:li:activity:2000000000000000001"]
    assert overlap_labels(far) == ["1000000000000000001", "2000000000000000001"]


# -- response times -----------------------------------------------------------------------


def test_response_times_per_reply(comments: pd.DataFrame) -> None:
    got = comments.social.response_times()
    assert list(got.columns) == [
        "post_urn",
        "parent_comment_id",
        "comment_id",
        "created_at",
        "response_time",
    ]
    assert [str(t) for t in got.dtypes] == [
        "string",
        "string",
        "string",
        "datetime64[us, UTC]",
        "timedelta64[us]",
    ]
    assert got["post_urn"].tolist() == [URN1, URN1, URN1, URN2]
    assert got["parent_comment_id"].tolist() == [cid(C1), cid(C1), cid(C2), cid(D1)]
    assert got["comment_id"].tolist() == [
        cid(C1 + H),
        cid(C1 + 2 * H),
        cid(C2 + 10 * M),
        cid(D1 + 30 * M),
    ]
    assert got["response_time"].tolist() == [minutes(60), minutes(120), minutes(10), minutes(30)]


def test_response_times_per_post(comments: pd.DataFrame) -> None:
    got = comments.social.response_times(per="post")
    assert list(got.columns) == [
        "post_urn",
        "threads",
        "replies",
        "p25",
        "median",
        "p75",
        "p90",
        "max",
    ]
    assert got["threads"].tolist() == [2, 1] and got["replies"].tolist() == [3, 1]
    # post 1: 10, 60, 120 minutes (linear interpolation); post 2: 30 alone
    assert got.iloc[0, 3:].tolist() == [
        minutes(35),
        minutes(60),
        minutes(90),
        minutes(108),
        minutes(120),
    ]
    assert got.iloc[1, 3:].tolist() == [minutes(30)] * 5
    assert [str(t) for t in got.dtypes[1:]] == ["int64"] * 2 + ["timedelta64[us]"] * 5
    with pytest.raises(ValueError, match="per must be"):
        comments.social.response_times(per="thread")  # type: ignore[arg-type]


def test_response_times_with_gaps(comments: pd.DataFrame) -> None:
    frame = comments.copy()
    frame.loc[4, "created_at"] = pd.NaT  # Ada's reply to Bob: no time
    frame = frame.drop(index=[5])  # post 2's thread loses its top-level comment
    frame.insert(0, "post", pd.array([P1] * 5 + [P2] * 4, dtype="string"))
    got = frame.social.response_times()
    assert list(got.columns)[:2] == ["post", "post_urn"]
    assert got["post"].tolist() == [P1, P1, P1]  # the orphan reply is left out
    assert got["response_time"].isna().tolist() == [False, False, True]
    per_post = frame.social.response_times(per="post")
    assert per_post["post"].tolist() == [P1, P2]  # every post, even without replies
    assert per_post["replies"].tolist() == [2, 0] and per_post["threads"].tolist() == [1, 0]
    assert per_post.loc[0, "median"] == minutes(90) and pd.isna(per_post.loc[1, "median"])
    empty = comments.iloc[:0].social.response_times(per="post")
    assert len(empty) == 0 and str(empty["median"].dtype) == "timedelta64[us]"
    assert len(comments.iloc[:0].social.response_times()) == 0


# -- the accessor -------------------------------------------------------------------------


def test_methods_belong_to_comments_frames(comments: pd.DataFrame) -> None:
    names = ["summary", "terms", "overlap", "overlap_matrix", "plot_overlap", "response_times"]
    assert set(names) <= set(dir(comments.social))
    ads = example_ads(max_ads=3)
    assert not set(names) & set(dir(ads.social))
    for name in names:
        with pytest.raises(AttributeError, match=rf"df.social.{name}\(\) works on a comments"):
            getattr(ads.social, name)()


def test_signatures() -> None:
    import inspect

    accessor = type(sf.comments_frame([]).social)  # df.social's class on a comments frame

    def sig(name: str) -> list[tuple[str, object, str]]:
        params = list(inspect.signature(getattr(accessor, name)).parameters.values())[1:]
        return [(p.name, p.default, p.kind.name) for p in params]

    kw, pos = "KEYWORD_ONLY", "POSITIONAL_OR_KEYWORD"
    assert sig("summary") == [("tz", "UTC", kw)]
    assert sig("terms") == [
        ("kind", "word", pos),
        ("top", 20, pos),
        ("by", None, pos),
        ("stopwords", None, pos),
        ("default_stopwords", True, kw),
        ("markup", False, kw),
    ]
    assert sig("overlap") == [("min_posts", 2, pos)]
    assert sig("overlap_matrix") == [("max_posts", 1_000, kw)]
    assert sig("plot_overlap") == [("ax", None, kw), ("max_posts", 30, kw)]
    assert sig("response_times") == [("per", "reply", kw)]


# -- the sandbox, through real HTTP ---------------------------------------------------------


def test_on_a_many_post_fetch(client: sf.Client) -> None:
    posts = [EXAMPLE_POSTS[82], EXAMPLE_POSTS[51], EXAMPLE_POSTS[2345]]
    fetched = client.post_comments(posts)
    urns = [f"urn:li:activity:{p}" for p in posts]

    summary = fetched.social.summary()
    assert summary["post"].tolist() == posts and summary["post_urn"].tolist() == urns
    by_post = {urn: fetched[fetched["post_urn"] == urn] for urn in urns}
    assert summary["comments"].tolist() == [82, 51, 2345]
    assert summary["replies"].tolist() == [int(p["is_reply"].sum()) for p in by_post.values()]
    authors = {urn: set(p["author_id"]) for urn, p in by_post.items()}
    assert summary["authors"].tolist() == [len(a) for a in authors.values()]
    orgs = [float((p["author_type"] == "organization").mean()) for p in by_post.values()]
    assert summary["organization_share"].tolist() == pytest.approx(orgs)

    matrix = fetched.social.overlap_matrix()
    assert matrix.to_numpy().tolist() == [
        [len(authors[a] & authors[b]) for b in urns] for a in urns
    ]
    overlap = fetched.social.overlap()
    shared = {a for a in set(fetched["author_id"]) if sum(a in s for s in authors.values()) >= 2}
    assert set(overlap["author_id"]) == shared and len(shared) > 0
    assert overlap["posts"].is_monotonic_decreasing

    replies = fetched.social.response_times()
    assert len(replies) == int(fetched["is_reply"].sum())  # every parent is in the frame
    assert (replies["response_time"] > pd.Timedelta(0)).all()
    assert (
        fetched.social.response_times(per="post")["replies"].tolist() == summary["replies"].tolist()
    )

    # Terms, against counts taken from the raw texts here.
    first = by_post[urns[0]]["text"]
    emoji = fetched.social.terms("emoji", by="post_urn", top=None)
    claps = emoji[(emoji["post_urn"] == urns[0]) & (emoji["term"] == "👏")]["count"].item()
    assert claps == int(first.str.count("👏").sum()) > 0
    domains = dict(counts(fetched[fetched["post_urn"] == urns[0]].social.terms("domain")))
    assert domains == {
        "example.com": int(first.str.count("https://example.com").sum()),
        "example.org": int(first.str.count("https://example.org").sum()),
    }
    words = dict(counts(fetched.social.terms(top=None)))
    every = fetched["text"]
    assert words["شكرا"] == int(every.str.count("شكراً").sum()) > 0
    assert words["分享"] == int(every.str.count("分享").sum()) > 0
    assert words["поздравляю"] == int(every.str.count("поздравляю").sum()) > 0
    assert words["धन्यवाद"] == int(every.str.count("धन्यवाद").sum()) > 0
    assert "https" not in words and "the" not in words

    fig, ax = plt.subplots()
    fetched.social.plot_overlap(ax=ax)
    assert [t.get_text() for t in ax.texts][::4] == [
        f"{matrix.iat[0, 0]:,}",
        f"{matrix.iat[1, 1]:,}",
        f"{matrix.iat[2, 2]:,}",
    ]


# -- properties -----------------------------------------------------------------------------


def test_an_unknown_time_zone_is_a_clear_value_error(comments: pd.DataFrame) -> None:
    from socialframe.sandbox import example_ads

    ads = example_ads()
    calls = [
        lambda: comments.social.summary(tz="Mars/Base"),
        lambda: comments.social.activity(tz="Mars/Base"),
        lambda: ads.social.share_of_voice(tz="Mars/Base"),
        lambda: ads.social.active_on("2025-06-01", tz="Mars/Base"),
    ]
    for call in calls:
        with pytest.raises(
            ValueError, match="IANA time zone such as 'Europe/Berlin', got 'Mars/Base'"
        ):
            call()


@pytest.mark.parametrize("seed", range(6))
def test_overlap_matrix_equals_sets_of_commenters(seed: int) -> None:
    """Regular commenters (on more posts than the pairs path takes) and occasional ones,
    against plain sets: every cell is the number of authors the two posts share."""
    from socialframe.sandbox import example_comments

    rng = np.random.default_rng(seed)
    n_posts = int(rng.integers(2, 70))
    base = example_comments()
    rows = []
    for author in range(int(rng.integers(1, 60))):
        regular = rng.random() < 0.2
        k = (
            int(rng.integers(33, n_posts + 1))
            if regular and n_posts > 33
            else int(rng.integers(1, 5))
        )
        for post in rng.choice(n_posts, size=min(k, n_posts), replace=False):
            rows.append((f"urn:li:activity:{post}", f"a{author}"))
    rows.append(("urn:li:activity:0", None))  # no author: in no cell
    frame_ = base.iloc[[0] * len(rows)].reset_index(drop=True)
    frame_["post_urn"] = pd.array([p for p, _ in rows], dtype="string")
    frame_["author_id"] = pd.array([a for _, a in rows], dtype="string")
    frame_["author_name"] = pd.array([a for _, a in rows], dtype="string")
    matrix = frame_.social.overlap_matrix()
    who: dict[str, set[str]] = {}
    for post, author in rows:
        who.setdefault(post, set())
        if author is not None:
            who[post].add(author)
    posts = list(matrix.index)
    assert set(posts) == set(who)
    expected = [[len(who[a] & who[b]) for b in posts] for a in posts]
    assert matrix.to_numpy().tolist() == expected
    assert matrix.dtypes.eq("int64").all()


def test_plot_overlap_of_many_posts_shows_those_with_most_commenters() -> None:
    from matplotlib.figure import Figure

    from socialframe.sandbox import example_comments

    base = example_comments()
    rows = []
    for post in range(50):
        for author in range(post % 7 + 1):  # posts 6, 13, 20, ... have the most commenters
            rows.append((f"urn:li:activity:{1000 + post}", f"a{author}"))
    frame_ = base.iloc[[0] * len(rows)].reset_index(drop=True)
    frame_["post_urn"] = pd.array([p for p, _ in rows], dtype="string")
    frame_["author_id"] = pd.array([a for _, a in rows], dtype="string")
    ax = frame_.social.plot_overlap(ax=Figure().subplots(), max_posts=10)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    most = sorted(range(50), key=lambda p: -(p % 7 + 1))[:10]  # stable: earliest first
    assert labels == [str(1000 + p) for p in sorted(most)]
    assert ax.get_title() == "Commenters shared between the 10 of 50 posts with most commenters"
    everything = frame_.social.plot_overlap(ax=Figure().subplots(), max_posts=None)
    assert len(everything.get_yticklabels()) == 50
    with pytest.raises(ValueError, match="max_posts"):
        frame_.social.plot_overlap(max_posts=0)


@pytest.mark.parametrize("tz", ["", " ", None, 5])
def test_a_time_zone_that_is_no_name_is_the_same_value_error(
    comments: pd.DataFrame, tz: object
) -> None:
    with pytest.raises(ValueError, match="IANA time zone"):
        comments.social.summary(tz=tz)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="IANA time zone"):
        comments.social.activity(tz=tz)  # type: ignore[arg-type]


@pytest.mark.parametrize("tz", ["Mars/Base", "", None, 5])
def test_filter_refuses_a_time_zone_that_is_none(comments: pd.DataFrame, tz: object) -> None:
    with pytest.raises(ValueError, match="IANA time zone"):
        comments.social.filter(start="2026-01-01", tz=tz)  # type: ignore[arg-type]


def test_markup_is_left_out_of_the_terms_unless_asked_for() -> None:
    from socialframe.sandbox import example_comments

    comments = example_comments(2345)
    assert comments["text"].str.contains("<script>", regex=False).any()  # (it proves escaping)
    words = set(comments.social.terms(top=None)["term"])
    assert not {"script", "alert"} & words
    with_markup = set(comments.social.terms(top=None, markup=True)["term"])
    assert {"script", "alert"} <= with_markup

    frame = texts("see <a href='https://x.example/p'>this</a> #tag<br>ok")
    assert frame.social.terms("domain")["term"].tolist() == []  # a tag's link is markup
    words = frame.social.terms(default_stopwords=False)["term"].tolist()
    assert sorted(words) == ["ok", "see", "this"]
