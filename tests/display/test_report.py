"""The shareable HTML report: structure, escaping, self-containment, files, a real browser.

Pages are read back with the standard library's ``html.parser``, as a mail client
or browser would read them, not searched as strings: hostile comment text must
come back as the same text, never as an element. Expected values are computed
by hand (the literal frame) or with plain pandas over the frame (the sandbox's).
The browser test opens the files in the system's Chromium through Playwright
and skips (fails under ``CI=true``) without it, as tests/test_browser.py does.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot: tests never open a window

import pandas as pd
import pytest
import test_browser
from test_accessor import DAY, POST, T0, _permalink
from test_browser import chromium_or_skip

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS

# tests/test_browser.py's fixtures, shared: its Chromium (launched with the
# `requirements` below, which need no JupyterLab) and its screenshot folder.
browser = test_browser.browser
shots = test_browser.shots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HOUR = 3_600_000
SCRIPT = '<script>alert("x")</script>'
EVIL = {"name": SCRIPT, "id": "1", "title": 'CEO & "founder" <i>'}
ZOE = {"name": "Zoë 🎉 فاطمة 太郎 राहुल 👩🏽‍💻", "id": "2", "title": "Ingénieure, Zürich"}
ACME = {"name": "Acme & Co <b>", "id": "urn:li:company:9", "title": "1,200 followers"}
TEXT_1 = '<img src=x onerror="alert(1)"> & </td></tr></table><script>alert("x")</script>'
TEXT_2 = "Привет, 世界! 👋🏽 — «quote» 'single' \"double\"\nsecond line"
TEXT_5 = "javascript:alert(1) https://example.com/x.png <a href='https://example.com'>"
TITLE = 'Q4 <script>alert(1)</script> & "co"'


def comment(
    ms: int, author: dict[str, str], text: str, parent_ms: int | None = None
) -> dict[str, Any]:
    cid = (ms << 22) | 1
    parent = ((parent_ms << 22) | 1) if parent_ms is not None else None
    return {
        "createdAt": 0 if parent else ms,  # a reply's time comes from its id
        "permalink": _permalink(cid, parent),
        "text": text,
        "author": author,
        "isPinned": False,
        "isEdited": False,
        "threadUrn": "",
    }


@pytest.fixture
def hostile() -> pd.DataFrame:
    """Five comments of one post, by authors whose names and texts attack the page."""
    rows = [
        comment(T0 + 1 * HOUR, EVIL, TEXT_1),  # Berlin 2026-01-01 02:00
        comment(T0 + 2 * HOUR, ZOE, TEXT_2),  # 03:00
        comment(T0 + DAY, EVIL, "second"),  # 2026-01-02 01:00
        comment(T0 + DAY + HOUR, ZOE, "reply", parent_ms=T0 + 1 * HOUR),  # 02:00, to the first
        comment(T0 + 2 * DAY, ACME, TEXT_5),  # 2026-01-03 01:00
    ]
    return sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])


# -- reading a page back ------------------------------------------------------------------------


@dataclass
class Page:
    """A report as html.parser reads it."""

    tags: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    title: str = ""
    h1: str = ""
    headings: list[str] = field(default_factory=list)
    captions: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    tables: dict[str, list[list[str]]] = field(default_factory=dict)
    images: dict[str, list[bytes]] = field(default_factory=dict)
    style: str = ""


class _Reader(HTMLParser):
    CAPTURED = {"title", "h1", "h2", "dt", "dd", "p", "th", "td", "style", "script"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.text: list[str] | None = None
        self.classes = ""
        self.label = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.page.tags.append((tag, values))
        heading = self.page.headings[-1] if self.page.headings else ""
        if tag == "table":
            self.page.tables[heading] = []
        elif tag == "tr":
            self.page.tables[heading].append([])
        elif tag == "img":
            source = values.get("src", "")
            prefix = "data:image/png;base64,"
            assert source.startswith(prefix), source[:40]
            data = base64.b64decode(source[len(prefix) :], validate=True)
            self.page.images.setdefault(heading, []).append(data)
        if tag in self.CAPTURED:
            self.text, self.classes = [], values.get("class", "")

    def handle_data(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.CAPTURED or self.text is None:
            return
        text, self.text = "".join(self.text), None
        page = self.page
        heading = page.headings[-1] if page.headings else ""
        if tag == "title":
            page.title = text
        elif tag == "h1":
            page.h1 = text
        elif tag == "h2":
            page.headings.append(text)
        elif tag == "dt":
            self.label = text
        elif tag == "dd":
            page.facts[self.label] = text
        elif tag == "p" and self.classes == "caption":
            page.captions[heading] = text
        elif tag == "p" and self.classes == "none":
            page.notes[heading] = text
        elif tag in ("th", "td"):
            page.tables[heading][-1].append(text)
        elif tag == "style":
            page.style += text


def read(path: Path) -> Page:
    """The page at ``path``, after checking that it is safe and self-contained."""
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # strict: the file is UTF-8
    assert text.startswith("<!DOCTYPE html>\n")
    # The charset must be declared in the first 1,024 bytes for a browser to use it.
    assert 0 < raw.find(b'<meta charset="utf-8">') < 1024
    reader = _Reader()
    reader.feed(text)
    reader.close()
    page = reader.page
    names = [tag for tag, _ in page.tags]
    for forbidden in ("script", "iframe", "object", "embed", "link", "base", "form", "frame"):
        assert forbidden not in names, forbidden
    [policy] = [a for t, a in page.tags if t == "meta" and a.get("http-equiv")]
    assert policy["http-equiv"] == "Content-Security-Policy"
    rules = [rule.strip() for rule in policy["content"].split(";")]
    assert rules[:3] == ["default-src 'none'", "img-src data:", "style-src 'unsafe-inline'"]
    for tag, attrs in page.tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("src", "srcset", "href", "action", "poster", "data", "background"):
            value = attrs.get(name)
            if value is None:
                continue
            post = re.fullmatch(
                r"https://www\.linkedin\.com/feed/update/urn:li:[A-Za-z]+:\d+/", value
            )
            if name == "href" and post:  # a post's link (only those): nothing is loaded
                assert tag == "a" and attrs.get("rel") == "noopener noreferrer", attrs
                continue
            assert not re.match(r"\s*(https?:|//|javascript:)", value, re.I), (tag, name)
            if name == "src":
                assert tag == "img" and value.startswith("data:image/png;base64,")
            elif name == "href":
                assert tag == "a" and re.fullmatch(r"#s\d+", value), value
            else:
                pytest.fail(f"unexpected {name}= on <{tag}>")
    assert "url(" not in page.style and "@import" not in page.style
    for pictures in page.images.values():
        for data in pictures:
            assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR"
    return page


def png_size(data: bytes) -> tuple[int, int]:
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def body(page: Page, heading: str) -> list[list[str]]:
    """A section's table rows, without the header row."""
    return page.tables[heading][1:]


# -- the literal, hostile frame -------------------------------------------------------------------


def test_hostile_text_comes_back_as_the_same_text(hostile: pd.DataFrame, tmp_path: Path) -> None:
    before = pd.Timestamp.now(tz="Europe/Berlin").floor("min")
    path = hostile.social.report(tmp_path / "r.html", title=TITLE, tz="Europe/Berlin")
    after = pd.Timestamp.now(tz="Europe/Berlin")
    assert path == tmp_path / "r.html"
    page = read(path)
    assert page.title == TITLE and page.h1 == TITLE
    assert page.headings == [
        "Activity",
        "Per post",
        "Top authors",
        "Organisations",
        "What comments say",
        "Busiest threads",
        "Response times",
    ]
    post = f"…{POST[-6:]}"  # a post as every table shows it: the end of its id
    # 5 comments, one by Acme (a share: a percentage); Berlin hours 2, 3, 1, 2, 1: the
    # earliest of the two busiest
    assert body(page, "Per post") == [
        [post, "5", "1", "3", "20.0%", "2026-01-01 02:00", "2026-01-03 01:00", "1"] + ["1d 0h"]
    ]
    assert body(page, "Response times") == [[post, "1", "1"] + ["1d 0h"] * 5]
    said = page.tables["What comments say"]
    assert said[0] == ["Words", "Words count", "Domains", "Domains count"] + [
        "Emoji",
        "Emoji count",
    ]  # headers in words
    # the <script> comments show as text (above), but their code is no word anyone wrote
    assert said[1] == ["second", "2", "example.com", "1", "👋🏽", "1"]  # (one was in a tag)
    generated = page.facts.pop("Generated")
    assert generated.endswith(" (Europe/Berlin)")
    stamp = pd.Timestamp(generated.removesuffix(" (Europe/Berlin)"), tz="Europe/Berlin")
    assert before <= stamp <= after
    assert page.facts == {
        "Comments": "5 (4 top-level, 1 reply)",
        "Posts": f"1: urn:li:activity:{POST}",
        "Authors": "3",
        "Written": "2026-01-01 02:00 to 2026-01-03 01:00 (Europe/Berlin)",
    }
    assert page.tables["Top authors"] == [
        ["Author", "Type", "Author title", "Comments"]  # headers in words
        + ["First comment at", "Last comment at"],
        [ZOE["name"], "person", ZOE["title"], "2", "2026-01-01 03:00", "2026-01-02 02:00"],
        [SCRIPT, "person", EVIL["title"], "2", "2026-01-01 02:00", "2026-01-02 01:00"],
        [ACME["name"], "organization", "1,200 followers", "1"]
        + ["2026-01-03 01:00", "2026-01-03 01:00"],
    ]
    assert body(page, "Organisations") == [[ACME["name"], "1,200", "1", "2026-01-03 01:00"]]
    assert page.tables["Busiest threads"] == [
        ["Written", "Author", "Text", "Replies", "Last reply at"],
        ["2026-01-01 02:00", SCRIPT, TEXT_1, "1", "2026-01-02 02:00"],
        ["2026-01-03 01:00", ACME["name"], TEXT_5, "0", ""],
        ["2026-01-02 01:00", SCRIPT, "second", "0", ""],
        ["2026-01-01 03:00", ZOE["name"], TEXT_2, "0", ""],
    ]
    assert page.captions["Activity"] == "Comments per hour (Europe/Berlin), stacked by author type."
    [chart] = page.images["Activity"]
    assert png_size(chart) == (10 * 144, int(3.5 * 144))
    raw = path.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(" in raw and "<script" not in raw and "<img src=x" not in raw
    assert "👩🏽‍💻" in raw  # emoji as UTF-8, not as entities or question marks


def test_an_ads_report_escapes_advertisers_and_queries(tmp_path: Path) -> None:
    from socialframe.sandbox import example_ads

    ads = example_ads(max_ads=3).copy()
    # Names reach the timeline's labels too: matplotlib's own font has no CJK or emoji.
    names = [SCRIPT, 'Bloom & Co "x"', "Café Zoë & Söhne"]
    ads["page_name"] = pd.array(names, dtype="string")
    ads["page_id"] = pd.array(["1", "2", "3"], dtype="string")
    ads["query"] = pd.array(["<b>shoes</b> 東京 👟"] * 3, dtype="string")
    page = read(ads.social.report(tmp_path / "ads.html"))
    assert page.h1 == "Ads report"
    assert page.headings[:2] == ["Advertisers", "Campaigns"]
    assert page.headings[2:5] == ["Share of voice", "Run timeline", "Platforms"]
    campaigns = body(page, "Campaigns")
    assert 1 <= len(campaigns) <= 3 and {row[0] for row in campaigns} <= set(names)
    assert page.facts["Queries"] == "1: <b>shoes</b> 東京 👟"
    assert page.facts["Advertisers"] == "3"
    assert sorted(row[0] for row in body(page, "Advertisers")) == sorted(names)
    assert [row[1] for row in body(page, "Advertisers")] == ["1", "1", "1"]
    assert len(page.images["Run timeline"]) == len(page.images["Platforms"]) == 1


def test_a_lone_surrogate_becomes_a_replacement_character(
    hostile: pd.DataFrame, tmp_path: Path
) -> None:
    # Frames cannot hold one (Arrow strings refuse it); a title or an object column can.
    page = read(hostile.social.report(tmp_path / "r.html", title="half \ud83d, whole \U0001f600"))
    assert page.h1 == "half \ufffd, whole \U0001f600"


@pytest.mark.parametrize(
    ("days", "freq", "word"),
    [(0, "1h", "hour"), (3, "1h", "hour"), (4, "1D", "day"), (180, "1D", "day")]
    + [(181, "1W", "week"), (1095, "1W", "week"), (1096, "1ME", "month")],
)
def test_activity_bars_have_a_readable_width(
    days: int, freq: str, word: str, tmp_path: Path
) -> None:
    """The report's activity chart is cut in ``freq`` periods, named in its caption."""
    rows = [comment(T0, ZOE, "first"), comment(T0 + days * DAY, ACME, "last")]
    frame = sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])
    page = read(frame.social.report(tmp_path / "r.html"))
    assert page.captions["Activity"] == f"Comments per {word} (UTC), stacked by author type."


@pytest.mark.slow
def test_long_text_is_cut_newlines_kept(hostile: pd.DataFrame, tmp_path: Path) -> None:
    frame = hostile.copy()
    frame.loc[0, "text"] = "line one\n" + "x" * 600
    page = read(frame.social.report(tmp_path / "r.html"))
    cell = body(page, "Busiest threads")[0][2]
    assert cell == "line one\n" + "x" * (500 - 10) + "…" and len(cell) == 500


def test_missing_times_and_authors(hostile: pd.DataFrame, tmp_path: Path) -> None:
    frame = hostile.copy()
    frame.loc[1, "created_at"] = pd.NaT  # Zoë's top-level comment
    frame.loc[2, ["author_name", "author_id"]] = pd.NA  # "second": nobody's
    frame.loc[4, "author_name"] = pd.NA  # Acme's: an id, no name
    page = read(frame.social.report(tmp_path / "r.html"))
    assert page.facts["Written"] == "2026-01-01 01:00 to 2026-01-03 00:00 (UTC); 1 without a time"
    assert page.facts["Authors"] == "3"
    # Zoë 2 comments; Acme and the script 1 each, Acme's the later: blank, not "<NA>"
    assert [row[:4] for row in body(page, "Top authors")] == [
        [ZOE["name"], "person", ZOE["title"], "2"],
        ["", "organization", "1,200 followers", "1"],
        [SCRIPT, "person", EVIL["title"], "1"],
    ]
    assert page.captions["Organisations"] == "1 organisation, by comments."
    assert body(page, "Organisations") == [["", "1,200", "1", "2026-01-03 00:00"]]
    threads = body(page, "Busiest threads")
    assert [row[:2] for row in threads] == [
        ["2026-01-01 01:00", SCRIPT],
        ["2026-01-03 00:00", ""],
        ["2026-01-02 00:00", ""],
        ["", ZOE["name"]],  # no time: last
    ]


def test_empty_frames(tmp_path: Path) -> None:
    page = read(sf.comments_frame([]).social.report(tmp_path / "c.html"))
    assert page.facts["Comments"] == "0 (0 top-level, 0 replies)"
    assert (page.facts["Posts"], page.facts["Authors"], page.facts["Written"]) == (
        "0",
        "0",
        "no times",
    )
    assert page.headings == ["Activity", "Top authors", "Organisations", "Busiest threads"]
    assert page.images == {} and page.tables == {} and page.notes == {}
    assert page.captions == {
        "Activity": "No comment has a time: nothing to chart.",
        "Top authors": "No authors.",
        "Organisations": "No organisation commented.",
        "Busiest threads": "No top-level comments.",
    }

    page = read(sf.ads_frame([]).social.report(tmp_path / "a.html"))
    assert page.facts["Ads"] == "0 (0 running)" and page.facts["Queries"] == "0"
    assert page.headings == ["Advertisers", "Run timeline", "Platforms"]
    assert page.images == {} and page.tables == {}
    assert page.captions == {
        "Advertisers": "No advertisers.",
        "Run timeline": "No ad has a start date: nothing to chart.",
        "Platforms": "No ads: nothing to chart.",
    }


# -- the sandbox's frames, through real HTTP -------------------------------------------------------


def test_a_sandbox_post(comments_2345: pd.DataFrame, tmp_path: Path) -> None:
    comments = comments_2345
    page = read(comments.social.report(tmp_path / "post.html", tz="Asia/Tokyo"))
    replies = int(comments["is_reply"].sum())
    assert page.facts["Comments"] == f"2,345 ({2345 - replies:,} top-level, {replies:,} replies)"
    key = comments["author_id"].fillna("name:" + comments["author_name"]).dropna()
    assert page.facts["Authors"] == f"{key.nunique():,}"
    local = comments["created_at"].dt.tz_convert("Asia/Tokyo")
    first, last = (t.strftime("%Y-%m-%d %H:%M") for t in (local.min(), local.max()))
    assert page.facts["Written"] == f"{first} to {last} (Asia/Tokyo)"
    top = body(page, "Top authors")
    assert [int(row[3]) for row in top] == key.value_counts().head(10).tolist()
    counts = comments.loc[comments["is_reply"].fillna(False), "parent_comment_id"].value_counts()
    top_level = comments.loc[~comments["is_reply"].fillna(False), "comment_id"]
    per_thread = counts.reindex(top_level, fill_value=0).sort_values(ascending=False)
    assert [int(row[3]) for row in body(page, "Busiest threads")] == per_thread.head(10).tolist()
    orgs = comments.loc[comments["author_type"] == "organization", "author_id"].nunique()
    assert page.captions["Organisations"] == f"The 10 of {orgs} organisations, by comments."
    assert page.captions["Activity"] == "Comments per day (Asia/Tokyo), stacked by author type."
    [chart] = page.images["Activity"]
    assert png_size(chart)[0] == 1440


@pytest.mark.slow
def test_a_sandbox_search(client: sf.Client, tmp_path: Path) -> None:
    ads = client.search_ads("running shoes")
    page = read(ads.social.report(tmp_path / "ads.html"))
    assert page.facts["Ads"] == f"{len(ads)} ({int(ads['is_active'].sum())} running)"
    assert page.facts["Queries"] == "1: running shoes"
    per_page = ads["page_id"].value_counts()
    assert page.facts["Advertisers"] == str(len(per_page))
    shown = body(page, "Advertisers")
    assert len(shown) == min(15, len(per_page))
    assert [int(row[1]) for row in shown] == per_page.head(len(shown)).tolist()
    assert "Queries" not in page.headings  # one query: the header names it
    [timeline] = page.images["Run timeline"]
    [platforms] = page.images["Platforms"]
    assert png_size(timeline)[0] == 1440 and png_size(platforms)[0] == 8 * 144


def test_spend_comes_most_first_and_advertisers_of_one_name_are_told_apart(
    tmp_path: Path,
) -> None:
    from socialframe.sandbox import example_ads

    ads = example_ads()
    two = ads["page_id"].dropna().unique()[:2]
    renamed = ads.assign(page_name=ads["page_name"].mask(ads["page_id"].isin(two), "Twin Shoes"))
    page = read(renamed.social.report(tmp_path / "ads.html"))
    names = [row[0] for row in body(page, "Advertisers")]
    twins = sorted(n for n in names if n.startswith("Twin Shoes"))
    assert twins == sorted(f"Twin Shoes (page {p})" for p in two)
    assert "told apart by their page id" in page.captions["Advertisers"]
    spend = renamed.social.spend()
    header, *rows = page.tables["Spend and impressions"]
    assert header[:4] == ["Ad", "Advertiser", "Currency", "Spend from"]
    column = header.index("Spend to")
    shown = [float(r[column].replace(",", "")) for r in rows if r[column]]
    assert shown == sorted(shown, reverse=True) and shown[0] == spend["spend_upper"].max()


def test_posts_link_to_their_page(tmp_path: Path) -> None:
    from socialframe.sandbox import example_comments

    page = read(example_comments().social.report(tmp_path / "c.html"))
    links = [a for tag, a in page.tags if tag == "a" and not a["href"].startswith("#")]
    assert links and {a["href"] for a in links} == {
        f"https://www.linkedin.com/feed/update/urn:li:activity:{EXAMPLE_POSTS[82]}/"
    }


@pytest.mark.slow
def test_many_posts_and_many_queries(client: sf.Client, tmp_path: Path) -> None:
    posts = [EXAMPLE_POSTS[82], EXAMPLE_POSTS[50], EXAMPLE_POSTS[51]]
    comments = client.post_comments(posts)
    page = read(comments.social.report(tmp_path / "posts.html"))
    urns = list(dict.fromkeys(comments["post_urn"]))
    assert len(urns) == 3 and page.facts["Posts"] == "3: " + ", ".join(urns)
    assert page.facts["Comments"].startswith(f"{82 + 50 + 51} (")
    threads = page.tables["Busiest threads"]
    labels = [f"…{urn[-6:]}" for urn in urns]  # the posts as every table shows them
    assert threads[0][0] == "Post" and {row[0] for row in threads[1:]} <= set(labels)
    assert page.headings[-2:] == ["Shared commenters", "Authors on several posts"]
    assert len(page.images["Shared commenters"]) == 1
    assert [row[0] for row in body(page, "Per post")] == labels
    regulars = comments.social.overlap()
    shown = body(page, "Authors on several posts")
    assert [int(row[2]) for row in shown] == regulars["posts"].head(10).tolist()

    ads = client.search_ads(["running shoes", "for kids"], max_ads=30)
    page = read(ads.social.report(tmp_path / "queries.html"))
    assert page.headings == [
        "Queries",
        "Advertisers",
        "Campaigns",
        "Share of voice",
        "Run timeline",
        "Platforms",
        "Spend and impressions",
    ]
    campaigns = ads.social.campaigns()
    assert [int(row[1]) for row in body(page, "Campaigns")] == campaigns["variants"].head(
        15
    ).tolist()
    assert page.facts["Queries"] == "2: running shoes, for kids"
    expected = []
    for query in ("running shoes", "for kids"):
        mine = ads[ads["query"] == query]
        first = mine["start_date"].min().strftime("%Y-%m-%d")  # an ad's date: a day
        running = int(mine["is_active"].sum())
        expected.append(
            [query, str(len(mine)), str(running), str(mine["page_name"].nunique()), first]
        )
    assert body(page, "Queries") == expected


# -- the file ---------------------------------------------------------------------------------------


def test_a_folder_is_refused_and_nothing_is_created(hostile: pd.DataFrame, tmp_path: Path) -> None:
    folder = tmp_path / "out.html"
    folder.mkdir()
    with pytest.raises(ValueError, match=r"out\.html: it is a folder"):
        hostile.social.report(folder)
    with pytest.raises(ValueError, match="there is no folder"):
        hostile.social.report(tmp_path / "missing" / "r.html")
    with pytest.raises(ValueError, match=r"a report is HTML; name it \*\.html"):
        hostile.social.report(tmp_path / "r.csv")
    with pytest.raises(ValueError, match="tz must be an IANA time zone.*'Mars/Base'"):
        hostile.social.report(tmp_path / "r.html", tz="Mars/Base")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.html"]
    assert list(folder.iterdir()) == []


def test_other_frames_are_refused(tmp_path: Path) -> None:
    with pytest.raises(AttributeError, match=r"df\.social\.report\(\) works on a comments frame"):
        pd.DataFrame({"x": [1]}).social.report(tmp_path / "r.html")
    assert list(tmp_path.iterdir()) == []


class _Unshowable:
    """A cell of a user's frame whose text cannot be had (its ``__str__`` raises)."""

    def __str__(self) -> str:
        raise RuntimeError("a cell failed")


@pytest.mark.slow
def test_a_failure_while_rendering_leaves_the_old_report(
    hostile: pd.DataFrame, tmp_path: Path
) -> None:
    path = hostile.social.report(tmp_path / "r.html")
    os.chmod(path, 0o640)
    old = path.read_bytes()

    # the page fails as it is rendered: a comment's text in a table cannot be made text
    broken = hostile.astype({"text": object})
    broken.loc[broken.index[0], "text"] = _Unshowable()
    with pytest.raises(RuntimeError, match="a cell failed"):
        broken.social.report(path)
    assert path.read_bytes() == old and [p.name for p in tmp_path.iterdir()] == ["r.html"]
    with pytest.raises(RuntimeError):
        broken.social.report(tmp_path / "new.html")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]

    hostile.social.report(path, title="again")
    assert read(path).h1 == "again"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # replaced, keeping its mode
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


# -- in a real browser ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def requirements() -> str:
    """Chromium and Playwright (not JupyterLab); test_browser's ``browser`` fixture uses this."""
    return chromium_or_skip(("playwright",))


@dataclass
class Visit:
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@contextmanager
def open_report(browser: Any, path: Path, width: int) -> Iterator[tuple[Any, Visit]]:
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    visit = Visit()
    page.on("request", lambda r: visit.requests.append(r.url))
    page.on("requestfailed", lambda r: visit.failed.append(r.url))
    page.on("console", lambda m: visit.console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: visit.console.append(f"pageerror: {e}"))
    page.on("dialog", lambda d: (visit.dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(path.as_uri(), wait_until="load")
        yield page, visit
    finally:
        context.close()


_IMAGES = "[...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
_WIDE_TABLES = """() => [...document.querySelectorAll('.table')]
    .filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.closest('section').id)"""
_PAGE_WIDTH = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"


@pytest.mark.browser
@pytest.mark.slow
def test_reports_in_a_real_browser(
    browser: Any,
    shots: Path,
    hostile: pd.DataFrame,
    comments_2345: pd.DataFrame,
    client: sf.Client,
    tmp_path: Path,
) -> None:
    reports = {
        "report-hostile": (hostile.social.report(tmp_path / "h.html", title=TITLE), 1),
        "report-comments": (
            comments_2345.social.report(tmp_path / "c.html", tz="Europe/Berlin"),
            1,
        ),
        "report-ads": (
            client.search_ads(["running shoes", "for kids"], max_ads=30).social.report(
                tmp_path / "a.html"
            ),
            3,  # share of voice, run timeline, platforms
        ),
    }
    for name, (path, pictures) in reports.items():
        for width in (1280, 390):
            with open_report(browser, path, width) as (page, visit):
                images = page.evaluate(_IMAGES)
                assert len(images) == pictures
                assert all(done and w > 0 and h > 0 for done, w, h in images), images
                assert page.evaluate("document.characterSet") == "UTF-8"
                assert page.evaluate("document.scripts.length") == 0
                # No table is wider than the page at a desktop width; on a phone they
                # scroll inside their box and the page itself never scrolls sideways.
                if width == 1280:
                    assert page.evaluate(_WIDE_TABLES) == []
                scroll, client_width = page.evaluate(_PAGE_WIDTH)
                assert scroll <= client_width, (name, width)
                if name == "report-hostile":
                    assert page.title() == TITLE
                    cells = page.locator("#s6 tbody tr").first.locator("td")
                    assert cells.nth(2).inner_text() == TEXT_1
                    author = page.locator("#s3 tbody tr").first.locator("td").first
                    assert author.inner_text() == ZOE["name"]
                page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
                assert visit.console == [] and visit.failed == [] and visit.dialogs == []
                assert visit.requests == [path.as_uri()]  # the file itself, nothing else


@pytest.mark.slow
def test_frames_cut_to_the_core_columns_still_report(tmp_path: Path) -> None:
    """The accessor knows an ads frame by its core columns: the report leaves out the
    sections whose columns are gone (query, collation_id) instead of failing."""
    from socialframe.sandbox import example_ads

    core = ["ad_archive_id", "page_id", "page_name", "is_active", "start_date", "end_date"]
    core += ["publisher_platforms", "display_format"]
    ads = example_ads()
    page = read(ads[core].social.report(tmp_path / "core.html"))
    assert "Campaigns" not in page.headings and "Queries" not in page.headings
    assert "Queries" not in page.facts and page.facts["Ads"] == f"{len(ads)} (36 running)"
    page = read(ads.drop(columns="query").social.report(tmp_path / "no-query.html"))
    assert "Campaigns" in page.headings and "Queries" not in page.facts


@pytest.mark.slow
def test_cut_tables_say_so(client: sf.Client, tmp_path: Path) -> None:
    comments = client.post_comments(list(EXAMPLE_POSTS.values()))
    many = pd.concat(
        [comments.assign(post_urn=comments["post_urn"] + f"-{n}") for n in range(7)],
        ignore_index=True,
    )
    posts = many["post_urn"].nunique()
    page = read(many.social.report(tmp_path / "many.html"))
    assert len(body(page, "Per post")) == 20
    assert page.captions["Per post"].startswith(f"The 20 of {posts} posts, by first appearance.")
    with_replies = int((many.social.response_times(per="post")["replies"] > 0).sum())
    assert page.captions["Response times"].startswith(f"The 20 of {with_replies} posts")


@pytest.mark.slow
def test_share_of_voice_over_years_of_running_ads_is_monthly(tmp_path: Path) -> None:
    from socialframe.sandbox import example_ads

    ads = example_ads().copy()
    ads["start_date"] = pd.Timestamp("2023-01-01", tz="UTC")
    ads["end_date"] = pd.Series(pd.NaT, index=ads.index, dtype=ads["start_date"].dtype)
    ads["is_active"] = pd.array(
        [True] * len(ads), dtype="boolean"
    )  # running since 2023: to the frame's latest fetch
    page = read(ads.social.report(tmp_path / "a.html"))
    assert page.captions["Share of voice"].startswith("Share of the running ads per month")
    page = read(example_ads(max_ads=5).social.report(tmp_path / "b.html"))
    assert "Share of voice" in page.headings


def test_the_report_needs_no_accessor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The display layer sits below df.social: a report is written with the accessor gone
    (before, its sections called df.social: a circle import-linter could not see)."""
    from commands import cli

    from socialframe.sandbox import example_ads, example_comments

    for frame, kind in ((example_comments(), "comments"), (example_ads(), "ads")):
        frame.social.to_csv(tmp_path / f"{kind}.csv")
    monkeypatch.delattr(pd.DataFrame, "social")

    for kind in ("comments", "ads"):  # socialframe report: the frame read, then the page
        run = cli("report", str(tmp_path / f"{kind}.csv"), "-o", str(tmp_path / f"{kind}.html"))
        assert run.code == 0, run.err
        page = (tmp_path / f"{kind}.html").read_text("utf-8")
        assert page.count("<h2>") >= 4, kind
