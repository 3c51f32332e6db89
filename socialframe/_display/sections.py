"""What a report says: its sections, one builder per analysis, for each kind of frame.

A report (:mod:`socialframe._display.report`) is a header and a list of
:class:`Section` s, each a heading with an optional chart, an optional table and
an optional caption. The sections of each kind are built by the entries of
:data:`COMMENT_SECTIONS` / :data:`AD_SECTIONS`, in order: a section for a new
analysis is one more entry there (a function of the frame and the zone
returning a :class:`Section`, or ``None`` to leave it out), nothing else changes.

Each builder calls the analysis and chart functions ``df.social`` is a shell over
(with its defaults), never ``df.social`` itself: the accessor sits above this layer.
How a section becomes HTML is the report's job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import pandas as pd

from .. import _operations as operations
from .. import _time
from .. import _words as words
from .._analysis import ads as ad_analysis
from .._analysis import audience
from .._analysis import comments as analysis
from .._analysis.terms import TermKind, term_counts
from .._operations.base import Operation, named
from . import plots
from .html import png

#: A frame's kind: the name of the operation it came from (``"comments"``, ``"ads"``).
Kind = str


def described(kind: Kind) -> Operation:
    """The record of the operation whose frames ``kind`` names, if its report is
    described there (its facts and sections).

    Raises:
        ValueError: no operation has that name, or its frames have no report.
    """
    record = operations.get(kind)
    if record.report_facts is None or record.report_sections is None:
        raise ValueError(f"{kind} frames have no report")
    return record


#: Rows of a ranked table ("top authors").
TOP: Final = 10


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
        figure=png(lambda ax: plots.plot_activity(comments, freq, by="author_type", tz=tz, ax=ax)),
        caption=f"Comments per {_time.period_word(freq)} ({tz}), stacked by author type.",
    )


def _top_authors(comments: pd.DataFrame, tz: str) -> Section:
    everyone = analysis.authors(comments)
    if everyone.empty:
        return Section("Top authors", caption="No authors.")
    columns = ["author_name", "author_type", "author_title", "comments"]
    columns += ["first_comment_at", "last_comment_at"]
    return Section(
        "Top authors",
        table=everyone.head(TOP)[columns],
        caption=_most(TOP, len(everyone), "author", by="comments"),
    )


def _organizations(comments: pd.DataFrame, tz: str) -> Section:
    found = analysis.authors_of_type(comments, "organization")
    if found.empty:
        return Section("Organisations", caption="No organisation commented.")
    columns = ["author_name", "author_followers", "comments", "last_comment_at"]
    return Section(
        "Organisations",
        table=found.head(TOP)[columns],
        caption=_most(TOP, len(found), "organisation", by="comments"),
    )


def _threads(comments: pd.DataFrame, tz: str) -> Section:
    found = analysis.threads(comments)
    if found.empty:
        return Section("Busiest threads", caption="No top-level comments.")
    columns = ["created_at", "author_name", "text", "replies", "last_reply_at"]
    if comments["post_urn"].nunique() > 1:
        columns.insert(0, "post_urn")
    return Section(
        "Busiest threads",
        table=found.head(TOP)[columns],
        caption=_most(TOP, len(found), "top-level comment", by="replies"),
    )


def _per_post(comments: pd.DataFrame, tz: str) -> Section | None:
    if comments.empty:
        return None
    summary = audience.post_summary(comments, tz=tz)
    # post_urn names the post; the columns keep their names, which say how they show
    # (a share as a percentage, a moment to the minute): the report words the headers
    table = summary.drop(columns=["post"], errors="ignore")
    return Section(
        "Per post",
        table=table.head(TOP * 2),
        caption=_most(TOP * 2, len(table), "post", by="first appearance")
        + f" Busiest hour in {tz}; median first reply: from a comment to its first reply.",
    )


def _terms(comments: pd.DataFrame, tz: str) -> Section | None:
    kinds: dict[str, TermKind] = {
        "Words": "word",
        "Hashtags": "hashtag",
        "Domains": "domain",
        "Emoji": "emoji",
    }
    found = {label: term_counts(comments, kind, TOP) for label, kind in kinds.items()}
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
    table = audience.response_times(comments, per="post").drop(columns=["post"], errors="ignore")
    table = table[table["replies"] > 0]
    if table.empty:
        return None
    return Section(
        "Response times",
        table=table.head(TOP * 2),
        caption=_most(TOP * 2, len(table), "post", by="first appearance")
        + " Time from a top-level comment to each of its replies, quantiles per post with"
        " replies.",
    )


def _overlap(comments: pd.DataFrame, tz: str) -> Section | None:
    posts = int(comments["post_urn"].nunique())
    if posts < 2:
        return None
    n = min(30, posts)  # plot_overlap shows at most 30, and counts only those
    side = min(12.0, 3.0 + 0.6 * n)
    shown = (
        f"The {n} of {words.count(posts, 'post')} with the most commenters. " if n < posts else ""
    )
    return Section(
        "Shared commenters",
        figure=png(
            lambda ax: plots.plot_overlap(comments, ax=ax, max_posts=30), size=(side + 1.5, side)
        ),
        caption=shown
        + "Distinct commenters each pair of posts shares; the diagonal: each post's own.",
    )


def _regulars(comments: pd.DataFrame, tz: str) -> Section | None:
    if comments["post_urn"].nunique() < 2:
        return None
    found = audience.overlap(comments, 2)
    if found.empty:
        return Section("Authors on several posts", caption="No author commented on two posts.")
    columns = ["author_name", "author_type", "posts", "comments"]
    return Section(
        "Authors on several posts",
        table=found.head(TOP)[columns],
        caption=_most(TOP, len(found), "author", by="posts"),
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
    pages = ad_analysis.ads_by_page(ads)
    if pages.empty:
        return Section("Advertisers", caption="No advertisers.")
    columns = ["page_name", "ads", "active", "first_start", "last_end"]
    columns += ["platforms", "display_formats"]
    caption = _most(15, len(pages), "advertiser", by="ads")
    if pages["last_end"].isna().any():
        caption += " A blank last end: an ad still runs with no end date."
    shown = pages.head(15)
    names = pages["page_name"]
    twins = names.duplicated(keep=False) & names.notna()
    if twins.any():  # advertisers of one name: told apart by their page
        labelled = names.where(~twins, names + " (page " + pages["page_id"].fillna("?") + ")")
        shown = shown.assign(page_name=labelled.head(15))
        caption += " Advertisers of one name are told apart by their page id."
    return Section("Advertisers", table=shown[columns], caption=caption)


def _timeline(ads: pd.DataFrame, tz: str) -> Section:
    if ads["start_date"].isna().all():
        return Section("Run timeline", caption="No ad has a start date: nothing to chart.")
    shown = min(50, int(ads["start_date"].notna().sum()))
    return Section(
        "Run timeline",
        figure=png(
            lambda ax: plots.plot_timeline(ads, ax=ax, max_ads=50),
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
        figure=png(lambda ax: plots.plot_platforms(ads, ax=ax), size=(8.0, 1.4 + 0.35 * n)),
        caption="Ads per publisher platform (an ad counts on each of its platforms).",
    )


def _campaigns(ads: pd.DataFrame, tz: str) -> Section | None:
    if "collation_id" not in ads.columns:
        return None  # a frame cut to fewer columns: no campaigns to tell apart
    found = ad_analysis.campaigns(ads)
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
        caption=_most(15, len(found), "campaign", by="variants")
        + " A campaign: the service's group of near-identical ads (collation_id).",
    )


def _share_of_voice(ads: pd.DataFrame, tz: str) -> Section | None:
    if ads["start_date"].isna().all():
        return None
    # weeks over a season; months over longer (weekly shares of a few ads swing wildly).
    # Counted as share_of_voice counts: an ad still running runs to the frame's end.
    weeks = len(ad_analysis.share_of_voice(ads, "W", by="page_name", top=8, tz=tz, share=False))
    freq, word = ("ME", "month") if weeks > 60 else ("W", "week")
    return Section(
        "Share of voice",
        figure=png(
            lambda ax: plots.plot_share_of_voice(
                ads, freq, by="page_name", top=8, tz=tz, share=True, ax=ax
            ),
            size=(10.0, 4.5),
        ),
        caption=f"Share of the running ads per {word} ({tz}), the top 8 advertisers and the rest.",
    )


def _spend(ads: pd.DataFrame, tz: str) -> Section | None:
    found = ad_analysis.spend(ads)
    bounds = ["spend_lower", "spend_upper", "impressions_lower", "impressions_upper"]
    reported = found.dropna(subset=bounds, how="all")
    if reported.empty:
        return None
    # the most spent first: by the top of the range, then its bottom, then impressions
    ranked = reported.sort_values(
        ["spend_upper", "spend_lower", "impressions_upper", "impressions_lower"],
        ascending=False,
        na_position="last",
        kind="stable",
    )
    return Section(
        "Spend and impressions",
        table=ranked.head(15),
        caption=_most(15, len(reported), "ad", by="spend")
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
    """The sections of a report on ``frame``: each entry of its operation's
    ``report_sections`` (:data:`COMMENT_SECTIONS`, :data:`AD_SECTIONS`) that gives one.

    Args:
        frame: A comments frame or an ads frame (of one or many posts / queries).
        kind: ``"comments"`` or ``"ads"`` (the operation the frame came from).
        tz: The zone of times and periods.

    Returns:
        The sections, in order.

    Raises:
        ValueError: no operation has that name, or its frames have no report.

    Example:
        >>> from socialframe.sandbox import example_comments
        >>> headings = [s.heading for s in sections(example_comments(), "comments")]
        >>> headings[:4]
        ['Activity', 'Per post', 'Top authors', 'Organisations']
        >>> headings[4:]
        ['What comments say', 'Busiest threads', 'Response times']
    """
    given = described(kind).report_sections
    assert given is not None  # (described says so)
    builders: Sequence[Callable[[pd.DataFrame, str], Section | None]] = named(given)
    built = (build(frame, tz) for build in builders)
    return [section for section in built if section is not None]


def _most(top: int, total: int, noun: str, *, by: str) -> str:
    """``"The 10 of 1,011 authors, by comments."``, or ``"3 authors, by comments."``"""
    if total > top:
        return f"The {top} of {words.count(total, noun)}, by {by}."
    return f"{words.count(total, noun)}, by {by}."
