"""``df.social``: the analysis people do next, on comments and ads frames.

Registered when socialframe is imported. It recognises a comments frame or an
ads frame by its columns (:data:`socialframe._schema.COMMENT_CORE` /
``AD_CORE``) and offers the matching methods; a method for the other kind (or
for a frame of neither) raises ``AttributeError`` naming the columns it needs.
The pipeline methods (``fetch_comments`` / ``fetch_ads``) work on any frame with
a column of posts or queries. It keeps no state: pandas builds a new accessor
on every access.

The methods are thin: the work is done by the pure functions of
:mod:`socialframe._analysis`, :mod:`socialframe._plots` and
:mod:`socialframe._export`. The module's length (over 400 lines) is its
docstrings: ``help(df.social.activity)`` is where users look, so every method
documents its arguments, the shape of what it returns, its errors and an example
that runs as a doctest; the code itself is about 120 lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pandas as pd

from . import _analysis as analysis
from . import _export as export
from ._checks import count
from ._schema import AD_CORE, COMMENT_CORE

if TYPE_CHECKING:
    from typing import Unpack

    from matplotlib.axes import Axes

    from ._client import AdFilters, Client
    from ._many import OnError
    from ._operations import Sort

Kind = Literal["comments", "ads"]
AuthorType = Literal["person", "organization"]

_COMMENT_METHODS = frozenset(
    {
        "activity",
        "plot_activity",
        "authors",
        "top_authors",
        "organizations",
        "people",
        "threads",
        "filter",
    }
)
_AD_METHODS = frozenset({"by_page", "active_on", "plot_timeline", "plot_platforms"})


@pd.api.extensions.register_dataframe_accessor("social")
class SocialAccessor:
    """``df.social``: analysis of a comments frame or an ads frame.

    Comments frames (from ``post_comments``) offer :meth:`activity`,
    :meth:`plot_activity`, :meth:`authors`, :meth:`top_authors`,
    :meth:`organizations`, :meth:`people`, :meth:`threads` and :meth:`filter`;
    ads frames (from ``search_ads``) offer :meth:`by_page`, :meth:`active_on`,
    :meth:`plot_timeline` and :meth:`plot_platforms`. Every frame offers the
    pipelines :meth:`fetch_comments` / :meth:`fetch_ads` and :meth:`to_csv`.

    Attributes:
        kind: ``"comments"``, ``"ads"`` or ``None`` (neither).
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame
        columns = set(frame.columns)
        self.kind: Kind | None = None
        if set(COMMENT_CORE) <= columns:
            self.kind = "comments"
        elif set(AD_CORE) <= columns:
            self.kind = "ads"

    def __dir__(self) -> list[str]:
        # Offer the methods that fit this frame (tab completion in notebooks).
        hidden = {"comments": _AD_METHODS, "ads": _COMMENT_METHODS}.get(
            self.kind or "", _AD_METHODS | _COMMENT_METHODS
        )
        return sorted(set(super().__dir__()) - hidden)

    def _need(self, kind: Kind, method: str) -> pd.DataFrame:
        if self.kind != kind:
            needs = COMMENT_CORE if kind == "comments" else AD_CORE
            missing = [c for c in needs if c not in self._frame.columns]
            source = "post_comments" if kind == "comments" else "search_ads"
            raise AttributeError(
                f"df.social.{method}() works on a {kind} frame (from {source});"
                f" this frame lacks the columns {missing}"
            )
        return self._frame

    # -- comments --------------------------------------------------------------------

    def activity(self, freq: str = "1D", *, by: str | None = None, tz: str = "UTC") -> pd.DataFrame:
        """Comments per period, empty periods as 0; optionally one column per ``by`` value.

        Periods are cut in ``tz`` (a day in Europe/Berlin starts at midnight there,
        not in UTC; a zone's 23- and 25-hour days are days too) and labelled by
        their start: weeks run Monday to Sunday, months from the 1st. Comments
        without a time are left out.

        Args:
            freq: A pandas frequency: ``"1h"``, ``"1D"``, ``"1W"``, ``"1ME"``, ...
            by: A column to split the counts by, one output column per value. A
                categorical column (``author_type``) gives a column for every
                category, even an absent one; rows whose value is missing are
                counted in a last column ``"<NA>"``.
            tz: The time zone the periods are cut in (an IANA name).

        Returns:
            An ``int64`` frame indexed by period start (``period``, tz-aware in
            ``tz``), from the first comment's period to the last, with one column
            ``comments``, or one per ``by`` value (columns named ``by``).

        Raises:
            AttributeError: not a comments frame.
            KeyError: ``by`` is not a column.
            ValueError: an unknown ``freq``.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> comments = example_comments()
            >>> comments.social.activity("1D", by="author_type", tz="Europe/Berlin").tail(2)
            author_type                person  organization
            period
            2025-12-30 00:00:00+01:00       1             1
            2025-12-31 00:00:00+01:00       4             0
        """
        return analysis.comment_activity(self._need("comments", "activity"), freq, by=by, tz=tz)

    def plot_activity(
        self,
        freq: str = "1D",
        *,
        by: str | None = "author_type",
        tz: str = "UTC",
        ax: Axes | None = None,
    ) -> Axes:
        """A stacked bar chart of :meth:`activity`, drawn on ``ax`` (or a new Axes).

        Bars start at their period's start and are as wide as the period; the
        time axis is labelled in ``tz``. Never calls ``plt.show()``.

        Args:
            freq: The period of each bar (see :meth:`activity`).
            by: The column stacking the bars; ``None`` for one series.
            tz: The time zone the periods are cut and labelled in.
            ax: The matplotlib Axes to draw on; a new figure's when omitted.

        Returns:
            The Axes drawn on.

        Raises:
            AttributeError: not a comments frame.

        Example:
            >>> from matplotlib.figure import Figure
            >>> from socialframe.sandbox import example_comments
            >>> ax = example_comments().social.plot_activity("1D", ax=Figure().subplots())
            >>> ax.get_ylabel(), ax.get_xlabel()
            ('comments per day', 'time (UTC)')
        """
        from ._plots import plot_activity

        frame = self._need("comments", "plot_activity")
        return plot_activity(frame, freq, by=by, tz=tz, ax=ax)

    def authors(self) -> pd.DataFrame:
        """One row per author (person or organisation), most comments first.

        Authors are keyed by ``author_id`` (by name when the id is missing); their
        details are those of their latest comment. Comments with neither an
        author id nor a name belong to no author and are not counted. Ties are
        broken by the latest comment, then by name.

        Returns:
            A frame with a default index and the columns ``author_id``,
            ``author_name``, ``author_type``, ``author_title``,
            ``author_followers``, ``author_url`` (typed as in the comments frame),
            ``comments`` (int64), ``first_comment_at`` and ``last_comment_at``
            (tz-aware UTC).

        Raises:
            AttributeError: not a comments frame.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> example_comments().social.authors()[["author_name", "comments"]].head(2)
                 author_name  comments
            0   राहुल Yılmaz        14
            1  Stark Freight         7
        """
        return analysis.authors(self._need("comments", "authors"))

    def top_authors(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` authors with the most comments: the first ``n`` rows of :meth:`authors`.

        Args:
            n: How many authors (an int >= 0).

        Returns:
            The columns of :meth:`authors`, at most ``n`` rows.

        Raises:
            AttributeError: not a comments frame.
            ValueError: ``n`` is not an int >= 0.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> example_comments().social.top_authors(1)["comments"].tolist()
            [14]
        """
        count("n", n)
        return analysis.authors(self._need("comments", "top_authors")).head(n)

    def organizations(self) -> pd.DataFrame:
        """The authors that are organisations, with their follower counts.

        Returns:
            The rows of :meth:`authors` whose ``author_type`` is
            ``"organization"``, in the same order, with a new default index.

        Raises:
            AttributeError: not a comments frame.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> orgs = example_comments().social.organizations()
            >>> set(orgs["author_type"]), bool(orgs["author_followers"].notna().all())
            ({'organization'}, True)
        """
        return analysis.authors_of_type(self._need("comments", "organizations"), "organization")

    def people(self) -> pd.DataFrame:
        """The authors that are people.

        Returns:
            The rows of :meth:`authors` whose ``author_type`` is ``"person"``, in
            the same order, with a new default index.

        Raises:
            AttributeError: not a comments frame.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> set(example_comments().social.people()["author_type"])
            {'person'}
        """
        return analysis.authors_of_type(self._need("comments", "people"), "person")

    def threads(self) -> pd.DataFrame:
        """Top-level comments with their reply counts and last reply, busiest first.

        Replies count toward their parent only when the parent is in the frame
        (after ``max_pages`` or a filter it may not be).

        Returns:
            One row per top-level comment, default index, columns ``post_urn``,
            ``comment_id``, ``created_at``, ``author_name``, ``author_type``,
            ``text`` (as in the comments frame), ``replies`` (int64) and
            ``last_reply_at`` (tz-aware UTC; NaT without replies); sorted by
            replies, then newest first.

        Raises:
            AttributeError: not a comments frame.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> threads = example_comments().social.threads()
            >>> int(threads["replies"].sum()) == int(example_comments()["is_reply"].sum())
            True
        """
        return analysis.threads(self._need("comments", "threads"))

    def filter(
        self,
        author_type: AuthorType | Iterable[AuthorType] | None = None,
        start: object = None,
        end: object = None,
        text: str | None = None,
        min_followers: int | None = None,
        tz: str = "UTC",
    ) -> pd.DataFrame:
        """The comments matching every given filter, in their original order and index.

        Date bounds are inclusive: a day (a ``date`` or ``"2025-12-01"``) is the
        whole day in ``tz``; a ``datetime`` (or an ISO string with a time) is an
        instant, naive ones read in ``tz`` (the rule of ``socialframe._time``,
        shared with ``search_ads``' ``after`` / ``before``).

        Args:
            author_type: Keep these author types (``"person"``, ``"organization"``);
                ``None`` keeps all, rows without a type included; ``[]`` keeps none.
            start: Keep comments made on or after this day or instant.
            end: Keep comments made on or before this day or instant.
            text: Keep comments containing this, case-insensitively (Unicode case
                folding) and literally (``"."`` is a dot); surrounding whitespace
                is ignored; ``None`` or blank keeps all.
            min_followers: Keep authors with at least this many followers. Only
                organisations have a follower count, so any value above 0 keeps
                organisations only. ``None`` or 0 keeps all.
            tz: The time zone days and naive datetimes are read in.

        Returns:
            A new frame with the same columns and index labels. Comments without
            a time are dropped as soon as ``start`` or ``end`` is given.

        Raises:
            AttributeError: not a comments frame.
            ValueError: an unknown author type, a malformed date, ``start`` after
                ``end``, or a ``min_followers`` that is not an int >= 0.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> comments = example_comments()
            >>> len(comments.social.filter(author_type="organization", min_followers=1000))
            9
            >>> len(comments.social.filter(start="2025-12-30", end="2025-12-31"))
            6
        """
        return analysis.filter_comments(
            self._need("comments", "filter"),
            author_type=author_type,
            start=start,
            end=end,
            text=text,
            min_followers=min_followers,
            tz=tz,
        )

    # -- ads -------------------------------------------------------------------------

    def by_page(self) -> pd.DataFrame:
        """One row per advertiser, most ads first.

        Advertisers are keyed by ``page_id`` (by name when the id is missing); the
        name shown is that of their latest ad. Ads with neither are left out.

        Returns:
            A frame with a default index and the columns ``page_id``,
            ``page_name`` (string), ``ads``, ``active`` (int64), ``first_start``,
            ``last_end`` (tz-aware UTC; NaT while an active ad has no end date:
            still running), ``platforms`` and ``display_formats`` (sorted lists).

        Raises:
            AttributeError: not an ads frame.

        Example:
            >>> from socialframe.sandbox import example_ads
            >>> example_ads().social.by_page()[["page_name", "ads", "active"]].head(2)
                page_name  ads  active
            0  Bloom & Co   11       9
            1    RunRight   10       6
        """
        return analysis.ads_by_page(self._need("ads", "by_page"))

    def active_on(self, day: object, *, tz: str = "UTC") -> pd.DataFrame:
        """The ads running at some moment of ``day``, from its midnight to the next in ``tz``.

        An ad runs from ``start_date`` to ``end_date``; with no end date, an active
        ad runs until now, an inactive one ran on its start day only.

        Args:
            day: A ``date``, a ``datetime`` (the day it falls on in ``tz``) or an
                ISO string.
            tz: The time zone of the day.

        Returns:
            The matching rows of the frame, every column, original index (a filter).

        Raises:
            AttributeError: not an ads frame.
            ValueError: a string that is not an ISO date.
            TypeError: ``day`` is not a date, a datetime or a string.

        Example:
            >>> from socialframe.sandbox import example_ads
            >>> len(example_ads().social.active_on("2025-11-01"))
            35
        """
        return analysis.ads_active_on(self._need("ads", "active_on"), day, tz=tz)

    def plot_timeline(self, *, ax: Axes | None = None, max_ads: int = 50) -> Axes:
        """One bar per ad from start to end: the ``max_ads`` latest starts; active ads green.

        Spans follow :meth:`active_on` (an active ad with no end runs until now).

        Args:
            ax: The matplotlib Axes to draw on; a new figure's when omitted.
            max_ads: How many ads (the latest starts) to draw; an int >= 1.

        Returns:
            The Axes drawn on.

        Raises:
            AttributeError: not an ads frame.
            ValueError: ``max_ads`` is not an int >= 1.

        Example:
            >>> from matplotlib.figure import Figure
            >>> from socialframe.sandbox import example_ads
            >>> ax = example_ads().social.plot_timeline(ax=Figure().subplots(), max_ads=10)
            >>> len(ax.patches)
            10
        """
        from ._plots import plot_timeline

        return plot_timeline(self._need("ads", "plot_timeline"), ax=ax, max_ads=max_ads)

    def plot_platforms(self, *, ax: Axes | None = None) -> Axes:
        """Horizontal bars of ads per publisher platform (an ad counts on each of its platforms).

        Args:
            ax: The matplotlib Axes to draw on; a new figure's when omitted.

        Returns:
            The Axes drawn on.

        Raises:
            AttributeError: not an ads frame.

        Example:
            >>> from matplotlib.figure import Figure
            >>> from socialframe.sandbox import example_ads
            >>> ax = example_ads().social.plot_platforms(ax=Figure().subplots())
            >>> ax.get_xlabel()
            'ads'
        """
        from ._plots import plot_platforms

        return plot_platforms(self._need("ads", "plot_platforms"), ax=ax)

    # -- pipelines and export ------------------------------------------------------------

    def _column(self, column: str) -> pd.Series:
        if column not in self._frame.columns:
            raise KeyError(f"no column {column!r}; columns are {list(self._frame.columns)}")
        return self._frame[column].rename(column)

    def fetch_comments(
        self,
        column: str = "post",
        *,
        client: Client | None = None,
        sort: Sort = "mostRelevant",
        max_pages: int | None = None,
        on_error: OnError = "raise",
    ) -> pd.DataFrame:
        """The comments of every post in ``column``, as one frame with ``column`` first.

        ``client.post_comments(df[column], ...)``: every post is validated before
        the first call, a post given twice is fetched once, one progress bar
        covers them all and the client's ledger the whole run.

        Args:
            column: The column holding posts (ids, urns or URLs).
            client: The client to fetch (and pay) with; the default client
                (``sf.configure``) when omitted.
            sort: ``"mostRelevant"`` or ``"mostRecent"``.
            max_pages: Read at most this many pages per post.
            on_error: ``"skip"`` leaves out posts that fail for good (listed in
                ``attrs["failed"]``); ``"raise"`` stops at the first.

        Returns:
            ``column`` (the post as given, string) then the comments columns.

        Raises:
            KeyError: no such column.
            ValueError, TypeError: a bad post (naming it), or ``column`` is the
                name of a comments column; before any call.
            SocialFrameError: as ``Client.post_comments``; ``.partial`` holds every
                row fetched before the failure.

        Example:
            >>> import pandas as pd
            >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
            >>> posts = pd.DataFrame({"url": [EXAMPLE_POSTS[1], EXAMPLE_POSTS[50]]})
            >>> with Sandbox() as sandbox, sandbox.client(cache=False) as client:
            ...     got = posts.social.fetch_comments("url", client=client)
            >>> got.groupby("url", sort=False).size().tolist()
            [1, 50]
        """
        from ._default import default_client

        use = client if client is not None else default_client()
        return use.post_comments(
            self._column(column), sort=sort, max_pages=max_pages, on_error=on_error
        )

    def fetch_ads(
        self,
        column: str = "query",
        *,
        client: Client | None = None,
        **filters: Unpack[AdFilters],
    ) -> pd.DataFrame:
        """The ads of every query in ``column``, with the same ``filters``, as one frame.

        ``client.search_ads(df[column], **filters)``: every query is validated
        before the first call, one progress bar covers them all and the client's
        ledger the whole run.

        Args:
            column: The column holding search queries. With ``"query"`` it fills the
                ads frame's own ``query`` column; any other name comes first.
            client: The client to fetch (and pay) with; the default client when
                omitted.
            **filters: The keyword arguments of ``Client.search_ads``
                (``country``, ``active_status``, ``after``, ``before``,
                ``max_pages``, ``max_ads``, ``progress``), for every query.

        Returns:
            The ads of every query, in order, with the query as given in ``column``.

        Raises:
            KeyError: no such column.
            ValueError, TypeError: a bad query or filter, or ``column`` is the name of
                an ads column other than ``query``; before any call.
            SocialFrameError: as ``Client.search_ads``, with ``.partial``.

        Example:
            >>> import pandas as pd
            >>> from socialframe.sandbox import Sandbox
            >>> terms = pd.DataFrame({"term": ["coffee", "tea"]})
            >>> with Sandbox() as sandbox, sandbox.client(cache=False) as client:
            ...     got = terms.social.fetch_ads("term", client=client, max_ads=3)
            >>> got["term"].tolist()
            ['coffee', 'coffee', 'coffee', 'tea', 'tea', 'tea']
        """
        from ._default import default_client

        use = client if client is not None else default_client()
        return use.search_ads(self._column(column), **filters)

    def to_csv(self, path: str | Path, *, excel: bool = False) -> Path:
        """Write the frame as CSV that survives spreadsheets.

        Ids are text (never ``7.38E+18``), lists and dicts JSON, times RFC 3339
        (``2026-01-01T09:30:00.000000+00:00``), newlines kept inside quotes.
        ``excel=True`` writes what Excel opens correctly: UTF-8 with a BOM, CRLF
        line ends, ids as ``="7384427202391592960"`` and a ``'`` before text that
        Excel would run as a formula (``=``, ``+``, ``-``, ``@`` first).

        Args:
            path: The file to write.
            excel: Write for Excel.

        Returns:
            The path written.

        Example:
            >>> import tempfile, pathlib
            >>> from socialframe.sandbox import example_comments
            >>> folder = pathlib.Path(tempfile.mkdtemp())
            >>> path = example_comments().social.to_csv(folder / "comments.csv")
            >>> path.read_text().splitlines()[0].split(",")[:3]
            ['post_urn', 'comment_id', 'parent_comment_id']
        """
        return export.to_csv(self._frame, path, excel=excel)

    def report(self, path: str | Path, *, title: str | None = None, tz: str = "UTC") -> Path:
        """Write a shareable report: one static HTML file of charts and tables, to e-mail.

        A comments frame gets its activity chart, top authors, organisations and
        busiest threads; an ads frame its advertisers, run timeline and platforms
        (and ads per query when it holds several). A header says what the frame
        holds: rows, posts or queries, the time span, when it was made. The file
        stands alone: charts are embedded PNG images, the CSS is inline, and a
        Content-Security-Policy lets it load nothing (no script, font or style
        sheet from anywhere). Comment texts and names are escaped, never run.
        The page is rendered whole before anything is written, then written
        atomically: an error leaves no file (and an old report as it was).

        Args:
            path: The file to write; its name must end in ``.html`` (or ``.htm``).
            title: The page's title; ``"Comments report"`` / ``"Ads report"`` when
                omitted.
            tz: The time zone times and activity periods are shown in.

        Returns:
            The path written.

        Raises:
            AttributeError: neither a comments nor an ads frame.
            ValueError: ``path`` is a folder, is not ``.html``, is in a folder that
                does not exist or cannot be written; ``tz`` is no time zone.
            OSError: the file could not be written.

        Example:
            >>> import tempfile, pathlib
            >>> from socialframe.sandbox import example_comments
            >>> folder = pathlib.Path(tempfile.mkdtemp())
            >>> path = example_comments().social.report(folder / "comments.html", tz="Asia/Tokyo")
            >>> page = path.read_text(encoding="utf-8")
            >>> "<h1>Comments report</h1>" in page, page.count("data:image/png;base64,")
            (True, 1)
        """
        from ._report import write_report

        if self.kind is None:
            missing = [c for c in COMMENT_CORE if c not in self._frame.columns]
            raise AttributeError(
                "df.social.report() works on a comments frame (from post_comments) or an"
                f" ads frame (from search_ads); this frame lacks the comment columns {missing}"
            )
        return write_report(self._frame, path, kind=self.kind, title=title, tz=tz)
