"""The shareable report: one static HTML file of a comments or ads frame, to e-mail.

A report is a header (what the frame holds: posts or queries, rows, time span,
when it was made) and a list of :class:`Section` s, each a heading with an
optional chart, an optional table and an optional caption. The sections of
each kind are built by the entries of :data:`COMMENT_SECTIONS` /
:data:`AD_SECTIONS`, in order: a section for a new analysis is one more entry
there (a function of the frame and the zone returning a :class:`Section`, or
``None`` to leave it out), nothing else changes.

The file needs nothing but itself: charts are PNG ``data:`` URIs drawn with
matplotlib's Agg backend (imported when a chart is drawn), the CSS is inline,
and a Content-Security-Policy forbids every script and every other resource,
so a mail client or browser opening it fetches nothing. Comments and names are
written by strangers: every value reaches the page through :func:`html.escape`
(see :func:`table_html` for why not pandas' ``to_html``), and nothing from the
data becomes a link.

Nothing is written until the whole page is rendered, and then atomically
(:func:`socialframe._display.export.replace_atomically`): an error leaves no file.
"""

from __future__ import annotations

import html
import numbers
from base64 import b64encode
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

import numpy as np
import pandas as pd

from .. import _time
from .._version import __version__
from . import html as markup
from .export import check_place, replace_atomically
from .html import png

if TYPE_CHECKING:
    pass

Kind = Literal["comments", "ads"]

#: Resolution of the charts: sharp on high-density screens, shown at 96 per CSS inch.
DPI: Final = 144
#: Rows of a ranked table ("top authors").
TOP: Final = 10
#: Longer cell text is cut here (a spam comment must not fill the page).
MAX_TEXT: Final = 500
#: Nothing may load: no script, no font, no style sheet, no image but the page's own.
CSP: Final = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)
_TIME_FORMAT: Final = "%Y-%m-%d %H:%M"


@dataclass(frozen=True)
class Section:
    """One part of a report: a heading with an optional chart, table and caption.

    Attributes:
        heading: The section's title.
        figure: A chart as PNG bytes (see :func:`png`).
        table: A frame shown as a table: times in the report's zone, numbers with
            thousands separators, lists joined, missing values blank.
        caption: A sentence under the heading saying what is shown.

    Example:
        >>> Section("Top authors", caption="The 10 authors with the most comments.").heading
        'Top authors'
    """

    heading: str
    figure: bytes | None = None
    table: pd.DataFrame | None = None
    caption: str = ""


#: A section builder: ``build(frame, tz)`` -> a :class:`Section`, or ``None`` to leave it out.
Build = Callable[[pd.DataFrame, str], Section | None]


# -- comments ------------------------------------------------------------------------------


def _activity_freq(times: pd.Series) -> str:
    """Bars of a readable width: hours for a few days, days, weeks, then months."""
    span = times.max() - times.min()
    if span <= pd.Timedelta(days=3):
        return "1h"
    if span <= pd.Timedelta(days=180):
        return "1D"
    return "1W" if span <= pd.Timedelta(days=3 * 365) else "1ME"


def _comment_activity(comments: pd.DataFrame, tz: str) -> Section:
    times = comments["created_at"].dropna()
    if times.empty:
        return Section("Activity", caption="No comment has a time: nothing to chart.")
    freq = _activity_freq(times)
    return Section(
        "Activity",
        figure=png(lambda ax: comments.social.plot_activity(freq, tz=tz, ax=ax)),
        caption=f"Comments per {_time.period_word(freq)} ({tz}), stacked by author type.",
    )


def _top_authors(comments: pd.DataFrame, tz: str) -> Section:
    everyone = comments.social.authors()
    if everyone.empty:
        return Section("Top authors", caption="No authors.")
    columns = ["author_name", "author_type", "author_title", "comments"]
    columns += ["first_comment_at", "last_comment_at"]
    return Section(
        "Top authors",
        table=everyone.head(TOP)[columns],
        caption=_most(TOP, len(everyone), "author", "authors", by="comments"),
    )


def _organizations(comments: pd.DataFrame, tz: str) -> Section:
    found = comments.social.organizations()
    if found.empty:
        return Section("Organisations", caption="No organisation commented.")
    columns = ["author_name", "author_followers", "comments", "last_comment_at"]
    return Section(
        "Organisations",
        table=found.head(TOP)[columns],
        caption=_most(TOP, len(found), "organisation", "organisations", by="comments"),
    )


def _threads(comments: pd.DataFrame, tz: str) -> Section:
    found = comments.social.threads()
    if found.empty:
        return Section("Busiest threads", caption="No top-level comments.")
    columns = ["created_at", "author_name", "text", "replies", "last_reply_at"]
    if comments["post_urn"].nunique() > 1:
        columns.insert(0, "post_urn")
    return Section(
        "Busiest threads",
        table=found.head(TOP)[columns],
        caption=_most(TOP, len(found), "top-level comment", "top-level comments", by="replies"),
    )


def _per_post(comments: pd.DataFrame, tz: str) -> Section | None:
    if comments.empty:
        return None
    summary = comments.social.summary(tz=tz)
    table = summary.drop(columns=["post"], errors="ignore").rename(  # post_urn names it
        columns={
            "organization_share": "org share",
            "first_comment_at": "first",
            "last_comment_at": "last",
            "busiest_hour": "busiest hour",
            "median_first_reply": "median first reply",
        }
    )
    return Section(
        "Per post",
        table=table.head(TOP * 2),
        caption=_most(TOP * 2, len(table), "post", "posts", by="first appearance")
        + f" Busiest hour in {tz}; median first reply: from a comment to its first reply.",
    )


def _terms(comments: pd.DataFrame, tz: str) -> Section | None:
    kinds = {"Words": "word", "Hashtags": "hashtag", "Domains": "domain", "Emoji": "emoji"}
    found = {label: comments.social.terms(kind, top=TOP) for label, kind in kinds.items()}
    found = {label: table for label, table in found.items() if not table.empty}
    if not found:
        return None
    width = max(len(table) for table in found.values())
    columns = {}
    for label, table in found.items():
        padding = [None] * (width - len(table))
        columns[label.lower()] = pd.array(table["term"].tolist() + padding, dtype="string")
        columns[f"{label.lower()} count"] = pd.array(table["count"].tolist() + padding, "Int64")
    return Section(
        "What comments say",
        table=pd.DataFrame(columns),
        caption="Most used terms, case-folded; common words of English, German, French and"
        " Spanish left out; links counted by domain.",
    )


def _response_times(comments: pd.DataFrame, tz: str) -> Section | None:
    table = comments.social.response_times(per="post").drop(columns=["post"], errors="ignore")
    table = table[table["replies"] > 0]
    if table.empty:
        return None
    return Section(
        "Response times",
        table=table.head(TOP * 2),
        caption=_most(TOP * 2, len(table), "post", "posts", by="first appearance")
        + " Time from a top-level comment to each of its replies, quantiles per post with"
        " replies.",
    )


def _overlap(comments: pd.DataFrame, tz: str) -> Section | None:
    posts = int(comments["post_urn"].nunique())
    if posts < 2:
        return None
    n = min(30, posts)  # plot_overlap shows at most 30, and counts only those
    side = min(12.0, 3.0 + 0.6 * n)
    shown = f"The {n} of {posts:,} posts with the most commenters. " if n < posts else ""
    return Section(
        "Shared commenters",
        figure=png(lambda ax: comments.social.plot_overlap(ax=ax), size=(side + 1.5, side)),
        caption=shown
        + "Distinct commenters each pair of posts shares; the diagonal: each post's own.",
    )


def _regulars(comments: pd.DataFrame, tz: str) -> Section | None:
    if comments["post_urn"].nunique() < 2:
        return None
    found = comments.social.overlap()
    if found.empty:
        return Section("Authors on several posts", caption="No author commented on two posts.")
    columns = ["author_name", "author_type", "posts", "comments"]
    return Section(
        "Authors on several posts",
        table=found.head(TOP)[columns],
        caption=_most(TOP, len(found), "author", "authors", by="posts"),
    )


#: The sections of a comments report, in order. A new one is one more entry, e.g.
#: ``lambda df, tz: Section("Per post", table=df.social.summary(tz=tz)),``
COMMENT_SECTIONS: Final[tuple[Build, ...]] = (
    _comment_activity,
    _per_post,
    _top_authors,
    _organizations,
    _terms,
    _threads,
    _response_times,
    _overlap,
    _regulars,
)


# -- ads ------------------------------------------------------------------------------------


def _queries(ads: pd.DataFrame, tz: str) -> Section | None:
    if "query" not in ads.columns or ads["query"].nunique() < 2:
        return None  # the header names the one query
    grouped = ads.groupby("query", sort=False, observed=True)
    table = pd.DataFrame(
        {
            "ads": grouped.size().astype("int64"),
            "active": grouped["is_active"].sum().astype("int64"),
            "advertisers": grouped["page_name"].nunique().astype("int64"),
            "first_start": grouped["start_date"].min(),
        }
    ).reset_index()
    return Section("Queries", table=table, caption="Ads found by each search.")


def _advertisers(ads: pd.DataFrame, tz: str) -> Section:
    pages = ads.social.by_page()
    if pages.empty:
        return Section("Advertisers", caption="No advertisers.")
    columns = ["page_name", "ads", "active", "first_start", "last_end"]
    columns += ["platforms", "display_formats"]
    caption = _most(15, len(pages), "advertiser", "advertisers", by="ads")
    if pages["last_end"].isna().any():
        caption += " A blank last_end: an ad still runs with no end date."
    return Section("Advertisers", table=pages.head(15)[columns], caption=caption)


def _timeline(ads: pd.DataFrame, tz: str) -> Section:
    if ads["start_date"].isna().all():
        return Section("Run timeline", caption="No ad has a start date: nothing to chart.")
    shown = min(50, int(ads["start_date"].notna().sum()))
    return Section(
        "Run timeline",
        figure=png(
            lambda ax: ads.social.plot_timeline(ax=ax, max_ads=50),
            size=(10.0, max(3.0, 0.22 * shown + 1.2)),
        ),
        caption="When each ad ran (UTC), the latest starts; green while running.",
    )


def _platforms(ads: pd.DataFrame, tz: str) -> Section:
    if ads.empty:
        return Section("Platforms", caption="No ads: nothing to chart.")
    n = ads["publisher_platforms"].explode().nunique()
    return Section(
        "Platforms",
        figure=png(lambda ax: ads.social.plot_platforms(ax=ax), size=(8.0, 1.4 + 0.35 * n)),
        caption="Ads per publisher platform (an ad counts on each of its platforms).",
    )


def _campaigns(ads: pd.DataFrame, tz: str) -> Section | None:
    if "collation_id" not in ads.columns:
        return None  # a frame cut to fewer columns: no campaigns to tell apart
    found = ads.social.campaigns()
    if found.empty:
        return None
    columns = ["page_name", "variants", "active", "first_start", "last_end"]
    columns += ["display_formats", "body_text"]
    shown = found.head(15)[columns].rename(
        columns={"display_formats": "formats", "body_text": "text"}
    )
    return Section(
        "Campaigns",
        table=shown,
        caption=_most(15, len(found), "campaign", "campaigns", by="variants")
        + " A campaign: the service's group of near-identical ads (collation_id).",
    )


def _share_of_voice(ads: pd.DataFrame, tz: str) -> Section | None:
    if ads["start_date"].isna().all():
        return None
    # weeks over a season; months over longer (weekly shares of a few ads swing wildly).
    # Counted as share_of_voice counts: an ad still running runs to the frame's end.
    weeks = len(ads.social.share_of_voice("W", tz=tz))
    freq, word = ("ME", "month") if weeks > 60 else ("W", "week")
    return Section(
        "Share of voice",
        figure=png(lambda ax: ads.social.plot_share_of_voice(freq, tz=tz, ax=ax), size=(10.0, 4.5)),
        caption=f"Share of the running ads per {word} ({tz}), the top 8 advertisers and the rest.",
    )


def _spend(ads: pd.DataFrame, tz: str) -> Section | None:
    found = ads.social.spend()
    bounds = ["spend_lower", "spend_upper", "impressions_lower", "impressions_upper"]
    reported = found.dropna(subset=bounds, how="all")
    if reported.empty:
        return None
    return Section(
        "Spend and impressions",
        table=reported.head(15),
        caption=_most(15, len(reported), "ad", "ads", by="the order of the frame")
        + " Only ads the service reports a spend or impressions range for; a blank bound:"
        " open-ended.",
    )


#: The sections of an ads report, in order (see :data:`COMMENT_SECTIONS`).
AD_SECTIONS: Final[tuple[Build, ...]] = (
    _queries,
    _advertisers,
    _campaigns,
    _share_of_voice,
    _timeline,
    _platforms,
    _spend,
)


def sections(frame: pd.DataFrame, kind: Kind, *, tz: str = "UTC") -> list[Section]:
    """The sections of a report on ``frame``: each entry of :data:`COMMENT_SECTIONS` /
    :data:`AD_SECTIONS` that gives one.

    Args:
        frame: A comments frame or an ads frame (of one or many posts / queries).
        kind: ``"comments"`` or ``"ads"``.
        tz: The zone of times and periods.

    Returns:
        The sections, in order.

    Example:
        >>> from socialframe.sandbox import example_comments
        >>> headings = [s.heading for s in sections(example_comments(), "comments")]
        >>> headings[:4]
        ['Activity', 'Per post', 'Top authors', 'Organisations']
        >>> headings[4:]
        ['What comments say', 'Busiest threads', 'Response times']
    """
    builders = COMMENT_SECTIONS if kind == "comments" else AD_SECTIONS
    built = (build(frame, tz) for build in builders)
    return [section for section in built if section is not None]


def _most(top: int, total: int, one: str, many: str, *, by: str) -> str:
    """``"The 10 of 1,011 authors, by comments."``, or ``"3 authors, by comments."``"""
    if total > top:
        return f"The {top} of {total:,} {many}, by {by}."
    return f"{total:,} {one if total == 1 else many}, by {by}."


# -- the header ------------------------------------------------------------------------------


def _span(times: pd.Series, tz: str) -> str:
    known = times.dropna()
    if known.empty:
        return "no times"
    first, last = (t.tz_convert(tz).strftime(_TIME_FORMAT) for t in (known.min(), known.max()))
    text = f"{first} – {last} ({tz})"
    missing = len(times) - len(known)
    return text + (f"; {missing:,} without a time" if missing else "")


def _items(values: pd.Series, shown: int = 8) -> str:
    distinct = [str(v) for v in values.dropna().unique()]
    text = ", ".join(distinct[:shown])
    if len(distinct) > shown:
        text += f" … and {len(distinct) - shown:,} more"
    return f"{len(distinct):,}" + (f": {text}" if distinct else "")


def facts(frame: pd.DataFrame, kind: Kind, *, tz: str, now: pd.Timestamp) -> list[tuple[str, str]]:
    """What the frame holds, as (label, text) pairs for the report's header.

    Args:
        frame: A comments or ads frame.
        kind: ``"comments"`` or ``"ads"``.
        tz: The zone times are shown in.
        now: When the report is made.

    Returns:
        Pairs of plain text (escaped when rendered).

    Example:
        >>> import pandas as pd
        >>> from socialframe.sandbox import example_ads
        >>> now = pd.Timestamp("2026-01-02 09:00", tz="UTC")
        >>> facts(example_ads(), "ads", tz="UTC", now=now)[:3]
        [('Ads', '60 (36 running)'), ('Queries', '1: running shoes'), ('Advertisers', '14')]
    """
    made = now.tz_convert(tz).strftime(_TIME_FORMAT) + f" ({tz})"
    if kind == "comments":
        replies = int(frame["parent_comment_id"].notna().sum())
        split = (
            f"{len(frame) - replies:,} top-level, {replies:,} repl{'y' if replies == 1 else 'ies'}"
        )
        return [
            ("Comments", f"{len(frame):,} ({split})"),
            ("Posts", _items(frame["post_urn"])),
            ("Authors", f"{len(frame.social.authors()):,}"),
            ("Written", _span(frame["created_at"], tz)),
            ("Generated", made),
        ]
    running = int(frame["is_active"].fillna(False).astype(bool).sum())
    return [
        ("Ads", f"{len(frame):,} ({running:,} running)"),
        *([("Queries", _items(frame["query"]))] if "query" in frame.columns else []),
        ("Advertisers", f"{len(frame.social.by_page()):,}"),
        ("Started", _span(frame["start_date"], tz)),
        ("Generated", made),
    ]


# -- HTML ------------------------------------------------------------------------------------


def _text(value: object) -> str:
    """A cell's text: lists joined, numbers with separators, missing blank, long text cut."""
    if isinstance(value, list | tuple | np.ndarray):
        return ", ".join(str(v) for v in value)
    if value is None or value is pd.NaT or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return ""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, pd.Timedelta | np.timedelta64):
        return _duration(pd.Timedelta(value))
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return f"{float(value):,.2f}"
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _duration(value: pd.Timedelta) -> str:
    """``"1d 19h"``, ``"4h 13m"``, ``"35m 10s"``, ``"12s"``: the two largest units, rounded down.

    Example:
        >>> _duration(pd.Timedelta("1 days 19:13:32.694"))
        '1d 19h'
        >>> [_duration(pd.Timedelta(t)) for t in ("04:13:06.6", "00:35:10", "12.9s", "-3min")]
        ['4h 13m', '35m 10s', '12s', '-3m 0s']
    """
    seconds = int(abs(value).total_seconds())
    sign = "-" if value < pd.Timedelta(0) else ""
    parts = [(seconds // 86_400, "d"), (seconds // 3600 % 24, "h"), (seconds // 60 % 60, "m")]
    parts.append((seconds % 60, "s"))
    while len(parts) > 2 and parts[0][0] == 0:
        parts.pop(0)
    if parts[0][0] == 0 and len(parts) == 2:
        parts.pop(0)
    return sign + " ".join(f"{n}{unit}" for n, unit in parts[:2])


def _cells(column: pd.Series, tz: str) -> list[str]:
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        local = column.dt.tz_convert(tz).dt.strftime(_TIME_FORMAT)
        return [_text(v) for v in local]
    return [_text(v) for v in column]


def _look(column: pd.Series, cells: Sequence[str]) -> str:
    """How a column is laid out: ``num`` (right, no wrap), ``time`` and ``word`` (short
    text: no wrap), ``text`` (long text: wide, wrapped, newlines kept)."""
    dtype = column.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return "num"
    if pd.api.types.is_timedelta64_dtype(dtype):
        return "num"
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(dtype):
        return "time"
    longest = max((len(c) for c in cells), default=0)
    return "text" if longest > 40 else "word" if longest <= 24 else ""


def table_html(frame: pd.DataFrame, *, tz: str) -> str:
    """A frame as an HTML table (:func:`socialframe._display.html.table`), every header
    and cell escaped, quotes included.

    Written here rather than by ``DataFrame.to_html``: that escapes ``<``, ``>``
    and ``&`` but shows a newline in a comment as a literal ``\\n`` and strips
    the text's edges (and ``Styler.to_html`` escapes nothing by default). Each
    cell gets the class of its column's layout (see :func:`_look`).

    Args:
        frame: Any frame (its index is not shown).
        tz: The zone times are shown in.

    Returns:
        HTML text; a short note instead of a table when there are no rows.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"name": ['<i>"x"</i>'], "n": [1234]})
        >>> print(table_html(frame, tz="UTC"))  # doctest: +NORMALIZE_WHITESPACE
        <div class='table'><table>
        <thead><tr><th class='word'>name</th><th class='num'>n</th></tr></thead>
        <tbody>
        <tr><td class='word'>&lt;i&gt;&quot;x&quot;&lt;/i&gt;</td><td class='num'>1,234</td></tr>
        </tbody>
        </table></div>
    """
    columns = [_cells(frame[name], tz) for name in frame.columns]
    looks = [_look(frame[name], cells) for name, cells in zip(frame.columns, columns, strict=True)]
    rows = [[html.escape(text, quote=True) for text in row] for row in zip(*columns, strict=True)]
    return markup.table([str(name) for name in frame.columns], rows, looks)


def _figure_html(data: bytes, alt: str) -> str:
    # Shown at 96 CSS pixels per inch of the chart: every chart at one scale.
    width, height = (int.from_bytes(data[at : at + 4], "big") * 96 // DPI for at in (16, 20))
    source = "data:image/png;base64," + b64encode(data).decode("ascii")
    return (
        f"<figure><img src='{source}' width='{width}' height='{height}'"
        f" alt='{html.escape(alt, quote=True)}'></figure>"
    )


_CSS: Final = """
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d8dee4;
  --soft: #f6f8fa; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--ink);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue",
    Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji"; }
main { max-width: 1040px; margin: 0 auto; padding: 36px 28px 56px; }
header h1 { font-size: 1.8rem; line-height: 1.25; margin: 0 0 .2rem; }
.meta { color: var(--muted); margin: 0 0 1.2rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1.4rem;
  margin: 0; padding: 1rem 1.3rem; background: var(--soft); border: 1px solid var(--line);
  border-radius: 8px; }
dl.facts dt { color: var(--muted); font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav { display: flex; flex-wrap: wrap; gap: .2rem 1.1rem; margin: 1.2rem 0 0; font-size: .9rem; }
nav a { color: var(--accent); text-decoration: none; white-space: nowrap; }
nav a:hover { text-decoration: underline; }
section { margin-top: 2.6rem; }
h2 { font-size: 1.3rem; line-height: 1.3; margin: 0 0 .3rem; padding-bottom: .35rem;
  border-bottom: 1px solid var(--line); }
.caption { color: var(--muted); margin: .4rem 0 .9rem; }
figure { margin: 0 0 1rem; }
figure img { display: block; max-width: 100%; height: auto; }
.table { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
.table table { border-collapse: collapse; width: 100%; font-size: .86rem; }
.table th, .table td { padding: .45rem .7rem; text-align: left; vertical-align: top;
  border-bottom: 1px solid var(--line); overflow-wrap: break-word; }
.table thead th { background: var(--soft); font-weight: 600; }
.table tbody tr:nth-child(even) { background: #fbfcfd; }
.table tbody tr:last-child td { border-bottom: 0; }
.table .num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.table .time, .table .word { white-space: nowrap; }
.table thead th.num, .table thead th.time, .table thead th.word { white-space: normal; }
.table td.text { min-width: 16em; max-width: 36em; white-space: pre-wrap; }
.none { color: var(--muted); font-style: italic; }
footer { margin-top: 3rem; padding-top: .8rem; border-top: 1px solid var(--line);
  color: var(--muted); font-size: .82rem; }
@media (max-width: 600px) { main { padding: 20px 14px 40px; } dl.facts { display: block; }
  dl.facts dd { margin-bottom: .4rem; } }
@media print { main { max-width: none; padding: 0; } section { break-inside: avoid-page; } }
"""


def render(
    title: str, header: Sequence[tuple[str, str]], parts: Sequence[Section], *, tz: str
) -> str:
    """The whole page: every piece of text escaped, every chart a ``data:`` URI.

    Args:
        title: The page's title and heading.
        header: (label, text) pairs shown under the title (see :func:`facts`).
        parts: The sections, in order.
        tz: The zone table times are shown in.

    Returns:
        The HTML document.

    Example:
        >>> page = render("A & B", [("Rows", "2")], [Section("Note", caption="<b>")], tz="UTC")
        >>> "<h1>A &amp; B</h1>" in page, "&lt;b&gt;" in page, "<b>" in page
        (True, True, False)
    """
    blocks = []
    for number, section in enumerate(parts, start=1):
        css_id = f"s{number}"
        inner = [f"<h2>{html.escape(section.heading)}</h2>"]
        if section.caption:
            inner.append(f"<p class='caption'>{html.escape(section.caption)}</p>")
        if section.figure is not None:
            inner.append(_figure_html(section.figure, section.heading))
        if section.table is not None:
            inner.append(table_html(section.table, tz=tz))
        blocks.append(f"<section id='{css_id}'>\n" + "\n".join(inner) + "\n</section>")
    facts_html = "".join(
        f"<dt>{html.escape(label)}</dt><dd>{html.escape(text)}</dd>" for label, text in header
    )
    links = "".join(
        f"<a href='#s{number}'>{html.escape(section.heading)}</a>"
        for number, section in enumerate(parts, start=1)
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="socialframe {__version__}">
<title>{html.escape(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<header>
<h1>{html.escape(title)}</h1>
<p class="meta">A socialframe report. Times are in {html.escape(tz)}.</p>
<dl class="facts">{facts_html}</dl>
<nav>{links}</nav>
</header>
{chr(10).join(blocks)}
<footer>Made with socialframe {__version__}. Self-contained: the charts are embedded images,
and the page loads nothing from anywhere.</footer>
</main>
</body>
</html>
"""


# -- the file ----------------------------------------------------------------------------------


def _well_formed(text: str) -> str:
    # A lone surrogate (half an emoji from a broken JSON escape) cannot be encoded:
    # pairs are joined, lone halves become U+FFFD, so the page is written.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def write_report(
    frame: pd.DataFrame,
    path: str | Path,
    *,
    kind: Kind,
    title: str | None = None,
    tz: str = "UTC",
    now: pd.Timestamp | None = None,
) -> Path:
    """Render the report of ``frame`` and write it to ``path``, atomically.

    See :meth:`socialframe._accessor.SocialAccessor.report`.

    Args:
        frame: A comments or ads frame.
        path: The ``.html`` file to write.
        kind: ``"comments"`` or ``"ads"``.
        title: The page's title; ``"Comments report"`` / ``"Ads report"`` by default.
        tz: The zone times and periods are shown in.
        now: The time printed as "Generated" (now by default).

    Returns:
        The path written.

    Raises:
        ValueError: the path does not end in ``.html`` / ``.htm``, is a folder, is
            in no folder or cannot be written; ``tz`` is not a time zone.
        OSError: the file could not be written.
    """
    target = Path(path).expanduser()
    if target.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"cannot write {str(path)!r}: a report is HTML; name it *.html")
    check_place(target)
    _time.check_zone(tz)
    made = pd.Timestamp.now(tz="UTC") if now is None else now
    heading = title if title is not None else f"{kind.capitalize()} report"
    page = render(heading, facts(frame, kind, tz=tz, now=made), sections(frame, kind, tz=tz), tz=tz)
    data = _well_formed(page).encode("utf-8")
    replace_atomically(target, lambda into: into.write_bytes(data))
    return target
