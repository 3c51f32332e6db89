"""The columns of every frame socialframe returns: names, order, dtypes, meaning.

One home for the column contract. The frame builders, the analysis functions,
the widgets and the CSV export all read these lists by column *name*; nothing
slices them by position, so reordering a list reorders the frame's columns and
can never put one column's values under another's name.

Fetched frames:

- :data:`COMMENTS` - one row per comment (``post_comments``).
- :data:`ADS` - one row per distinct ad (``search_ads``), followed in the frame by
  every other field the service sent, flattened to snake_case.

A comment sent without a readable permalink, or an ad without an ``ad_archive_id``,
still has an id: ``derived:`` and 32 hex digits, a hash of what the service did send
(:mod:`socialframe._frames.identity` says of what), and ``id_derived`` is true. Such an
id names the row in every frame, study and export alike; it is never a link.

Frames the analysis returns (``df.social``): :data:`AUTHOR_SUMMARY`,
:data:`THREAD_SUMMARY`, :data:`POST_SUMMARY`, :data:`TERM_COUNTS`,
:data:`AUTHOR_OVERLAP`, :data:`REPLY_TIMES`, :data:`POST_REPLY_TIMES`,
:data:`ADVERTISER_SUMMARY`, :data:`CAMPAIGN_SUMMARY`, :data:`AD_SPEND`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

STRING: Final = pd.StringDtype()
BOOLEAN: Final = pd.BooleanDtype()
INT: Final = pd.Int64Dtype()
FLOAT: Final = pd.Float64Dtype()
COUNT: Final = np.dtype("int64")
TIME: Final = pd.DatetimeTZDtype("us", "UTC")
DURATION: Final = np.dtype("timedelta64[s]")
AUTHOR_TYPE: Final = pd.CategoricalDtype(["person", "organization"])
#: Python lists (or any JSON value) kept as they are, one per cell.
LIST: Final = np.dtype(object)


@dataclass(frozen=True)
class Column:
    """One column of a frame: its name, its dtype and what it holds."""

    name: str
    dtype: Any
    doc: str


def names(columns: Iterable[Column]) -> tuple[str, ...]:
    """The names of ``columns``, in order."""
    return tuple(column.name for column in columns)


def dtypes(columns: Iterable[Column]) -> dict[str, Any]:
    """``{name: dtype}`` of ``columns``."""
    return {column.name: column.dtype for column in columns}


COMMENTS: Final = (
    Column("post_urn", STRING, "the post commented on, urn:li:activity:<id>"),
    Column(
        "comment_id",
        STRING,
        "the comment's id (a reply's own id); derived:<hash> when the service sent none",
    ),
    Column("id_derived", BOOLEAN, "comment_id was derived from the comment (see below)"),
    Column("parent_comment_id", STRING, "for a reply, the comment it answers"),
    Column("is_reply", BOOLEAN, "whether it answers another comment"),
    Column("created_at", TIME, "when it was written (from createdAt, else from its id)"),
    Column("text", STRING, "the comment, exactly as written"),
    Column("is_pinned", BOOLEAN, "pinned by the post's author"),
    Column("is_edited", BOOLEAN, "edited after it was written"),
    Column("thread_urn", STRING, "the thread it belongs to"),
    Column("permalink", STRING, "link to the comment"),
    Column("author_type", AUTHOR_TYPE, "person or organization"),
    Column("author_name", STRING, "the author's name (or first + last name)"),
    Column("author_id", STRING, "the author's id; urn:li:company:<n> for organisations"),
    Column("author_urn", STRING, "the author's urn"),
    Column("author_username", STRING, "the author's public username"),
    Column("author_url", STRING, "the author's profile URL"),
    Column("author_title", STRING, "headline (people) or follower line (organisations)"),
    Column("author_company_id", STRING, "an organisation's numeric company id"),
    Column("author_followers", INT, "an organisation's follower count"),
    Column("page", INT, "page of the fetch the comment came on (1-based)"),
    Column("fetched_at", TIME, "when the service sent that page"),
)
COMMENT_COLUMNS: Final = names(COMMENTS)
COMMENT_DTYPES: Final[Mapping[str, Any]] = dtypes(COMMENTS)
#: The columns of a comment taken from its ``author`` object.
AUTHOR_FIELDS: Final = tuple(name for name in COMMENT_COLUMNS if name.startswith("author_"))

ADS: Final = (
    Column(
        "ad_archive_id",
        STRING,
        "the ad's id in the Ad Library; derived:<hash> when the service sent none",
    ),
    Column("id_derived", BOOLEAN, "ad_archive_id was derived from the ad (see below)"),
    Column("collation_id", STRING, "the group of near-identical variants it belongs to"),
    Column("collation_count", INT, "how many variants that group has"),
    Column("page_id", STRING, "the advertiser's page id"),
    Column("page_name", STRING, "the advertiser's page name"),
    Column("is_active", BOOLEAN, "whether the ad is running"),
    Column("start_date", TIME, "when it started running"),
    Column("end_date", TIME, "when it stopped (missing while it runs)"),
    Column("publisher_platforms", LIST, "where it runs: facebook, instagram, ..."),
    Column("countries", LIST, "countries targeted or reached"),
    Column("display_format", STRING, "IMAGE, VIDEO, CAROUSEL, DCO, DPA, ..."),
    Column("body_text", STRING, "the ad's text (the first card's for dynamic ads)"),
    Column("title", STRING, "the headline (the first card's for dynamic ads)"),
    Column("caption", STRING, "the link caption"),
    Column("link_url", STRING, "where the ad links to"),
    Column("cta_text", STRING, "the call-to-action button's text"),
    Column("cta_type", STRING, "the call-to-action type"),
    Column("page_like_count", INT, "likes of the advertiser's page"),
    Column("page_profile_uri", STRING, "the advertiser's page URL"),
    Column("image_urls", LIST, "the ad's images"),
    Column("video_urls", LIST, "the ad's videos"),
    Column("currency", STRING, "currency of the spend, when reported"),
    Column("spend", FLOAT, "the spend, when reported as one number"),
    Column("impressions_text", STRING, "impressions as the service words them"),
    Column("total_active_time", DURATION, "how long it has run"),
    Column("query", STRING, "the search it was found by"),
    Column("result_page", INT, "page of the search it came on (1-based)"),
    Column("fetched_at", TIME, "when the service sent that page"),
)
AD_COLUMNS: Final = names(ADS)
AD_DTYPES: Final[Mapping[str, Any]] = dtypes(ADS)

#: Columns holding ids: text, never numbers (19 digits do not survive a float).
ID_SUFFIXES: Final = ("_id", "_urn")


def is_id(name: str) -> bool:
    """Whether a column (of these frames or an extra) holds ids."""
    return name.endswith(ID_SUFFIXES) or name == "id"


# -- what the analysis reads and returns --------------------------------------------------

#: The comment columns the analysis reads: a frame with all of them is a comments frame.
COMMENT_CORE: Final = (
    "post_urn",
    "comment_id",
    "parent_comment_id",
    "created_at",
    "text",
    "author_type",
    "author_name",
    "author_id",
    "author_title",
    "author_followers",
    "author_url",
)
#: The ad columns the analysis reads: a frame with all of them is an ads frame.
AD_CORE: Final = (
    "ad_archive_id",
    "page_id",
    "page_name",
    "is_active",
    "start_date",
    "end_date",
    "publisher_platforms",
    "display_format",
)

#: What an author is shown with: the details of their latest comment.
AUTHOR_DETAILS: Final = (
    "author_id",
    "author_name",
    "author_type",
    "author_title",
    "author_followers",
    "author_url",
)
AUTHOR_SUMMARY: Final = (
    *AUTHOR_DETAILS,
    Column("comments", COUNT, "how many comments the author wrote"),
    Column("first_comment_at", TIME, "their first comment"),
    Column("last_comment_at", TIME, "their latest comment"),
)

#: What a thread is shown with: its top-level comment.
THREAD_DETAILS: Final = (
    "post_urn",
    "comment_id",
    "created_at",
    "author_name",
    "author_type",
    "text",
)
THREAD_SUMMARY: Final = (
    *THREAD_DETAILS,
    Column("replies", COUNT, "replies to it in the frame"),
    Column("last_reply_at", TIME, "the latest of them"),
)

#: A share: a fraction from 0 to 1 (``<NA>`` when there is nothing to divide by). Every
#: display shows it as a percentage (``14.0%``): see :func:`share_columns`.
RATIO: Final = FLOAT
#: A time between two comments (their times are microseconds).
ELAPSED: Final = np.dtype("timedelta64[us]")
#: The column of a many-post fetch holding each row's post as given; per-post frames
#: start with it when the comments frame has it.
POST_AS_GIVEN: Final = "post"

POST_SUMMARY: Final = (
    "post_urn",
    Column("comments", COUNT, "comments on the post, replies included"),
    Column("replies", COUNT, "of which replies"),
    Column("authors", COUNT, "distinct authors (by id, else by name)"),
    Column("organization_share", RATIO, "organisations' share of comments with an author type"),
    Column("first_comment_at", TIME, "the first comment"),
    Column("last_comment_at", TIME, "the latest comment"),
    Column("busiest_hour", INT, "hour of the day (0-23, in tz) with most comments; ties: earliest"),
    Column("median_first_reply", ELAPSED, "median time from a comment to its first reply"),
)

TERM_COUNTS: Final = (
    Column("term", STRING, "a word, hashtag, link, domain or emoji, normalised"),
    Column("count", COUNT, "how often it occurs"),
)

AUTHOR_OVERLAP: Final = (
    "author_id",
    "author_name",
    "author_type",
    Column("posts", COUNT, "distinct posts the author commented on"),
    Column("comments", COUNT, "their comments on them"),
    Column("post_urns", LIST, "those posts, sorted"),
)

REPLY_TIMES: Final = (
    "post_urn",
    "parent_comment_id",
    "comment_id",
    "created_at",
    Column("response_time", ELAPSED, "from the thread's top-level comment to this reply"),
)

POST_REPLY_TIMES: Final = (
    "post_urn",
    Column("threads", COUNT, "top-level comments with a timed reply"),
    Column("replies", COUNT, "replies with a response time"),
    Column("p25", ELAPSED, "25th percentile of the response times"),
    Column("median", ELAPSED, "their median"),
    Column("p75", ELAPSED, "75th percentile"),
    Column("p90", ELAPSED, "90th percentile"),
    Column("max", ELAPSED, "the slowest reply"),
)

ADVERTISER_SUMMARY: Final = (
    "page_id",
    "page_name",
    Column("ads", COUNT, "ads of the advertiser in the frame"),
    Column("active", COUNT, "of which running"),
    Column("first_start", TIME, "the first start"),
    Column("last_end", TIME, "the last end; missing while an ad runs with no end date"),
    Column("platforms", LIST, "every platform used, sorted"),
    Column("display_formats", LIST, "every display format used, sorted"),
)


def summary_columns(summary: Iterable[str | Column]) -> tuple[str, ...]:
    """Column names of a summary: its fetched columns and its own, in order."""
    return tuple(item if isinstance(item, str) else item.name for item in summary)


# -- ads across advertisers: campaigns and spend (socialframe._analysis.ads) --

CAMPAIGN_SUMMARY: Final = (
    "collation_id",
    "page_id",
    "page_name",
    Column("variants", COUNT, "distinct ads of the campaign in the frame"),
    "collation_count",
    Column("active", COUNT, "of which running"),
    Column("first_start", TIME, "the first start"),
    Column("last_end", TIME, "the last end; missing while a variant runs with no end date"),
    Column("platforms", LIST, "every platform used, sorted"),
    Column("display_formats", LIST, "every display format used, sorted"),
    "body_text",
    Column("ad_archive_ids", LIST, "its ads, the earliest start first"),
    Column("queries", LIST, "the searches that found it (only when the frame has a query column)"),
)

AD_SPEND: Final = (
    "ad_archive_id",
    "page_name",
    "currency",
    Column("spend_lower", FLOAT, "the least it spent; 0 for '<1K'"),
    Column("spend_upper", FLOAT, "the most it spent; missing when open ('>1M') or unknown"),
    Column("impressions_lower", INT, "the fewest impressions"),
    Column("impressions_upper", INT, "the most impressions; missing when open or unknown"),
)


# -- how columns show (socialframe._display.values) --

#: Columns of an ad's days: the Ad Library dates an ad by its day (at a time of day of
#: its own choosing), so every display shows these as days, in UTC.
AD_DAYS: Final = frozenset({"start_date", "end_date", "first_start", "last_end"})


def is_instant(name: object) -> bool:
    """Whether a column of this name holds moments (``created_at``, ``fetched_at``,
    ``at``, ``first_seen``, ``last_fetched``...): shown to the minute, even when one
    falls on a midnight.

    Example:
        >>> is_instant("created_at"), is_instant("first_seen"), is_instant("period")
        (True, True, False)
    """
    return isinstance(name, str) and (name == "at" or name.endswith(("_at", "_seen", "_fetched")))


#: The mark (:data:`MARK`) of a frame whose every number is a share (``share_of_voice``
#: with ``share=True``).
SHARES_MARK: Final = "ads.share_of_voice.shares"


def is_share(name: object) -> bool:
    """Whether a column of this name holds shares (fractions from 0 to 1).

    Example:
        >>> is_share("organization_share"), is_share("shares"), is_share("comments")
        (True, False, False)
    """
    return isinstance(name, str) and (name == "share" or name.endswith("_share"))


def share_columns(frame: pd.DataFrame) -> frozenset[object]:
    """The columns of ``frame`` that hold shares: its columns of fractions (floats)
    named as shares (:func:`is_share`), or all of them in a frame marked
    :data:`SHARES_MARK` (whose columns are named by advertiser).

    Example:
        >>> frame = pd.DataFrame({"organization_share": [0.14], "comments": [50]})
        >>> sorted(share_columns(frame))
        ['organization_share']
    """
    every = frame.attrs.get(MARK) == SHARES_MARK
    return frozenset(
        name
        for name, dtype in frame.dtypes.items()
        if pd.api.types.is_float_dtype(dtype) and (every or is_share(name))
    )


MARK: Final = "socialframe"
"""The ``attrs`` key of a frame socialframe made; its value says what the frame holds
(``"comments"``, ``"ads"``, an analysis, a study's). A notebook shows such frames with
socialframe's display rules (:mod:`socialframe._display.notebook`); pandas keeps the
key through filters, copies and concatenations of frames of one kind."""


def mark(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    """Say (in ``frame.attrs``) that socialframe made ``frame``, holding ``what``; return it.

    Example:
        >>> mark(pd.DataFrame(), "comments").attrs
        {'socialframe': 'comments'}
    """
    frame.attrs[MARK] = what
    return frame
