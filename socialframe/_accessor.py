"""``df.social``: the analysis people do next, on comments and ads frames.

Registered when socialframe is imported. When pandas builds it (on every
access: it keeps no state), it looks at the frame's columns
(:data:`socialframe._schema.COMMENT_CORE` / ``AD_CORE``) and is a
:class:`CommentsAccessor` or an :class:`AdsAccessor`, as pandas' ``.dt`` is the
accessor of its values' kind: each has its own methods, and ``dir()`` shows them. A
method of the other kind (or any, on a frame of neither) raises
``AttributeError`` naming the columns it needs. The pipelines (``fetch_comments``
/ ``fetch_ads``), ``to_csv`` and ``report`` are the base's: any frame has them.

The methods are thin: the work is done by the pure functions of
:mod:`socialframe._analysis.comments`, :mod:`socialframe._display.plots` and
:mod:`socialframe._display.export`. The module's length (over 400 lines) is its
docstrings: ``help(df.social.activity)`` is where users look, so every method
documents its arguments, the shape of what it returns, its errors and an example
that runs as a doctest; the code itself is about 200 lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import pandas as pd

from . import _words as words
from ._analysis import ads as ad_analysis
from ._analysis import comments as analysis
from ._analysis.ads import campaigns, share_of_voice, spend
from ._analysis.audience import overlap, overlap_matrix, post_summary, response_times
from ._analysis.terms import term_counts
from ._api import default_client
from ._checks import count
from ._display import export as export
from ._display import tables as tables
from ._display.plots import (
    plot_activity,
    plot_overlap,
    plot_platforms,
    plot_share_of_voice,
    plot_timeline,
)
from ._display.report import write_report
from ._schema import AD_CORE, COMMENT_CORE, SHARES_MARK, mark

if TYPE_CHECKING:
    from typing import Unpack

    from matplotlib.axes import Axes

    from ._client import AdFilters, Client
    from ._fetch.many import OnError
    from ._operations import Sort

Kind = Literal["comments", "ads"]
AuthorType = Literal["person", "organization"]


@pd.api.extensions.register_dataframe_accessor("social")
class SocialAccessor:
    """``df.social``: what every frame offers (the pipelines :meth:`fetch_comments` /
    :meth:`fetch_ads`, :meth:`to_csv`, :meth:`report`), and, for a comments or an ads
    frame, the analysis of its kind (:class:`CommentsAccessor`, :class:`AdsAccessor`).

    Attributes:
        kind: ``"comments"``, ``"ads"`` or ``None`` (neither).
    """

    kind: ClassVar[Kind | None] = None

    def __new__(cls, frame: pd.DataFrame) -> SocialAccessor:
        if cls is SocialAccessor:
            columns = set(frame.columns)
            if set(COMMENT_CORE) <= columns:
                cls = CommentsAccessor
            elif set(AD_CORE) <= columns:
                cls = AdsAccessor
        return object.__new__(cls)

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def __getattr__(self, name: str) -> Any:
        # Reached only for a name this kind lacks: the other kind's method is told apart.
        for other in (CommentsAccessor, AdsAccessor):
            if other is not type(self) and name in _methods(other):
                kind, needs, source = other.kind, other._needs, other._source
                missing = [c for c in needs if c not in self._frame.columns]
                raise AttributeError(
                    f"df.social.{name}() works on {words.a(f'{kind} frame')} (from {source});"
                    f" this frame lacks the columns {missing}"
                )
        raise AttributeError(f"df.social has no attribute {name!r}")

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
            >>> from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox
            >>> posts = pd.DataFrame({"url": [EXAMPLE_POSTS[1], EXAMPLE_POSTS[50]]})
            >>> sandbox = Sandbox(clock=PinnedClock())  # its world as of 2026-01-01
            >>> with sandbox, sandbox.client(cache=False) as client:
            ...     got = posts.social.fetch_comments("url", client=client)
            >>> got.groupby("url", sort=False).size().tolist()
            [1, 50]
        """

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

        use = client if client is not None else default_client()
        return use.search_ads(self._column(column), **filters)

    def to_csv(self, path: str | Path, *, excel: bool = False) -> Path:
        """Write the frame as CSV: exact data for programs, or (``excel=True``) a file
        for spreadsheets in which no cell is a formula.

        The plain CSV holds every value exactly as it is, for pandas, DuckDB, R or
        Python's ``csv``: ids as text (never ``7.38E+18``), lists and dicts as JSON,
        times RFC 3339 (``2026-01-01T09:30:00.000000+00:00``), and text as written,
        even text a spreadsheet would run (``=HYPERLINK(...)``, ``@SUM(1)``): do not
        open it in Excel or LibreOffice. Any cell holding a line break (LF, CR or
        CRLF) is quoted, so every reader gets the same rows back.

        ``excel=True`` is for people who open the file in a spreadsheet: UTF-8 with a
        BOM, CRLF line ends, ids of digits as ``="7384427202391592960"`` (kept as
        text, never rounded), and a ``'`` before any text or id a spreadsheet would
        run as a formula (its first character ``=``, ``+``, ``-``, ``@``, a tab or a
        CR: OWASP's rule for CSV injection), so comments written by strangers stay
        text. ``socialframe report`` reads either kind back as it was written (those
        marks taken off).

        A lone surrogate (which UTF-8 cannot hold) is written as U+FFFD; every row
        is written. The file is written whole or not at all, and never through a
        link, over a file with other hard links, over a pipe or a device, over a
        SQLite cache or inside a study's folder (``ValueError`` says which).

        Args:
            path: The file to write.
            excel: Write it for spreadsheets.

        Returns:
            The path written.

        Raises:
            ValueError: ``path`` may not be written (a link, a folder, no such
                folder, a cache, a study's file, no permission).
            OSError: the file could not be written (a full disk).

        Example:
            >>> import tempfile, pathlib
            >>> from socialframe.sandbox import example_comments
            >>> folder = pathlib.Path(tempfile.mkdtemp())
            >>> path = example_comments().social.to_csv(folder / "comments.csv")
            >>> path.read_text().splitlines()[0].split(",")[:3]
            ['post_urn', 'comment_id', 'id_derived']
        """
        return export.to_csv(self._frame, path, excel=excel)

    def to_file(self, path: str | Path, *, excel: bool = False) -> Path:
        """Write the frame in the format its suffix names, as the command line's ``-o``
        does: ``.csv`` (see :meth:`to_csv`; ``excel=True`` for spreadsheets),
        ``.jsonl``, ``.parquet`` or ``.xlsx``.

        ``.jsonl`` is one JSON object per row (lists as arrays, times ISO 8601 UTC,
        missing as ``null``, every text exact); ``.parquet`` keeps every dtype;
        ``.xlsx`` keeps every text and id as text, never a formula (pandas' own
        ``to_excel`` writes a comment starting with ``=`` as a live formula), times in
        UTC without a zone, lists as JSON; floats keep every digit but in ``.jsonl``
        (15 significant digits, pandas' most). A named index (``groupby``'s keys,
        ``set_index("comment_id")``'s ids) is written as the first columns, unless it
        is a column too; an unnamed one of labels (``describe()``'s) as ``index``; one
        of row numbers is left out. :func:`socialframe.read_frame` reads each back
        with the dtypes of the columns the frame's schema types; a column the service
        added beyond them comes back typed where the file tells (in a CSV, a number
        stays text). Every row is written; the file is written whole or not at all,
        never through a link or over a cache or a study's file. A writer killed
        mid-write leaves the old file whole and a hidden ``.sf-<pid>-...`` file beside
        it, which the next write into that folder removes once its writer is gone and
        it is an hour old.

        Args:
            path: The file to write; its suffix names the format.
            excel: For ``.csv``: write it for spreadsheets.

        Returns:
            The path written.

        Raises:
            ValueError: another suffix, ``excel=True`` for another format than
                CSV, two columns of one name, or ``path`` may not be written (as
                :meth:`to_csv`).
            OSError: the file could not be written (a full disk).

        Example:
            >>> import tempfile, pathlib
            >>> import socialframe as sf
            >>> from socialframe.sandbox import example_comments
            >>> folder = pathlib.Path(tempfile.mkdtemp())
            >>> path = example_comments().social.to_file(folder / "comments.xlsx")
            >>> len(sf.read_frame(path))
            82
        """
        target = export.check_target(Path(path), excel=excel)  # ("-": standard output)
        if target.path is None and not target.discard:
            raise ValueError(f"to_file writes a file, not standard output: {str(path)!r}")
        written = export.write(self._frame, target, excel=excel)
        return Path(path) if written is None else written  # (None: the null device)

    def show(self, *, tz: str = "UTC", **options: Any) -> Any:
        """This frame as an interactive table: sort, search as you type, pages, rows to
        select, a CSV download; see :func:`socialframe.show`.

        Args:
            tz: Time zone of the times shown.
            **options: itables options (``pageLength``, ``order``, ``caption``, ...).

        Returns:
            An ``itables.widget.ITable``: it shows as a cell's last line; its
            ``selected_rows`` are the positions of the rows picked in this frame.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> table = example_comments().social.show()
            >>> type(table).__name__, table.selected_rows
            ('ITable', [])
        """
        return tables.show(self._frame, tz=tz, **options)

    def report(self, path: str | Path, *, title: str | None = None, tz: str = "UTC") -> Path:
        """Write a shareable report: one static HTML file of charts and tables, to e-mail.

        A comments frame gets its activity chart, a row per post (:meth:`summary`),
        top authors, organisations, what comments say (:meth:`terms`: words,
        hashtags, domains, emoji), busiest threads, response times and, over
        several posts, the commenters they share (:meth:`plot_overlap`,
        :meth:`overlap`); an ads frame its advertisers, campaigns, share of voice,
        run timeline, platforms and reported spend (and ads per query when it
        holds several). Long tables show their first rows and say how many there
        are; a section whose columns the frame lacks is left out. A header says what the frame
        holds: rows, posts or queries, the time span, when it was made. The file
        stands alone: charts are embedded PNG images, the CSS is inline, and a
        Content-Security-Policy lets it load nothing (no script, font or style
        sheet from anywhere). Comment texts and names are escaped, never run.
        The page is rendered whole before anything is written, then written
        whole or not at all: an error leaves no file (and an old report as it was).
        It is never written through a link, over a pipe or a device, over a SQLite
        cache or inside a study's folder.

        Args:
            path: The file to write; its name must end in ``.html`` (or ``.htm``).
            title: The page's title; ``"Comments report"`` / ``"Ads report"`` when
                omitted.
            tz: The time zone times and activity periods are shown in.

        Returns:
            The path written.

        Raises:
            AttributeError: neither a comments nor an ads frame.
            ValueError: ``path`` is not ``.html``, or may not be written (a link, a
                folder, no such folder, a cache, a study's file, no permission);
                ``tz`` is no time zone.
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

        if self.kind is None:
            missing = [c for c in COMMENT_CORE if c not in self._frame.columns]
            raise AttributeError(
                "df.social.report() works on a comments frame (from post_comments) or an"
                f" ads frame (from search_ads); this frame lacks the comment columns {missing}"
            )
        return write_report(self._frame, path, kind=self.kind, title=title, tz=tz)


class CommentsAccessor(SocialAccessor):
    """``df.social`` on a comments frame (from ``post_comments``): :meth:`activity`,
    :meth:`plot_activity`, :meth:`authors`, :meth:`top_authors`, :meth:`organizations`,
    :meth:`people`, :meth:`threads`, :meth:`filter`, :meth:`summary`, :meth:`terms`,
    :meth:`overlap`, :meth:`overlap_matrix`, :meth:`plot_overlap` and
    :meth:`response_times`, besides what every frame offers."""

    kind: ClassVar[Kind | None] = "comments"
    _needs: ClassVar[tuple[str, ...]] = COMMENT_CORE
    _source: ClassVar[str] = "post_comments"

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
            ValueError: an unknown ``freq`` or ``tz``.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> comments = example_comments()
            >>> comments.social.activity("1D", by="author_type", tz="Europe/Berlin").tail(2)
            author_type                person  organization
            period
            2025-12-30 00:00:00+01:00       1             1
            2025-12-31 00:00:00+01:00       4             0
        """
        return mark(analysis.comment_activity(self._frame, freq, by=by, tz=tz), "comments.activity")

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
            KeyError, ValueError: as :meth:`activity`.

        Example:
            >>> from matplotlib.figure import Figure
            >>> from socialframe.sandbox import example_comments
            >>> ax = example_comments().social.plot_activity("1D", ax=Figure().subplots())
            >>> ax.get_ylabel(), ax.get_xlabel()
            ('comments per day', 'time (UTC)')
        """

        frame = self._frame
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
        return mark(analysis.authors(self._frame), "comments.authors")

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
        return mark(analysis.authors(self._frame).head(n), "comments.top_authors")

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
        return mark(analysis.authors_of_type(self._frame, "organization"), "comments.organizations")

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
        return mark(analysis.authors_of_type(self._frame, "person"), "comments.people")

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
        return mark(analysis.threads(self._frame), "comments.threads")

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
            ValueError: an unknown author type or ``tz``, a malformed date, ``start``
                after ``end``, or a ``min_followers`` that is not an int >= 0.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> comments = example_comments()
            >>> len(comments.social.filter(author_type="organization", min_followers=1000))
            9
            >>> len(comments.social.filter(start="2025-12-30", end="2025-12-31"))
            6
        """
        return analysis.filter_comments(
            self._frame,
            author_type=author_type,
            start=start,
            end=end,
            text=text,
            min_followers=min_followers,
            tz=tz,
        )

    def summary(self, *, tz: str = "UTC") -> pd.DataFrame:
        """One row per post: comments, replies, authors, organisations, times, reply speed.

        Works on one post's comments and on a many-post fetch alike: posts are told
        apart by ``post_urn`` and listed in the order they first appear. Comments
        without a time count as comments but give no first / last time, hour or
        reply time; comments without an author (no id, no name) count as comments
        but as no author; comments without an author type are left out of
        ``organization_share``'s count.

        Args:
            tz: The time zone of ``busiest_hour`` (an IANA name).

        Returns:
            A frame with a default index: ``post`` (only when the frame has it, as
            from a many-post fetch: the post as given), ``post_urn`` (string),
            ``comments`` (int64, replies included), ``replies`` (int64),
            ``authors`` (int64, distinct; keyed as in :meth:`authors`),
            ``organization_share`` (float64, of the comments whose author type is
            known, the share by organisations; NaN when none is known),
            ``first_comment_at`` / ``last_comment_at`` (tz-aware UTC),
            ``busiest_hour`` (Int64: the hour of the day, 0-23 in ``tz``, with the
            most comments, the earliest of a tie; missing without a dated comment)
            and ``median_first_reply`` (timedelta64[us]: over the threads with a
            timed reply, the median time from the top-level comment to its first
            reply; NaT without one). A reply whose parent is not in the frame
            counts in ``replies`` but has no reply time.

        Raises:
            AttributeError: not a comments frame.
            ValueError: an unknown ``tz``.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> summary = example_comments().social.summary(tz="Europe/Berlin")
            >>> summary[["comments", "replies", "authors", "busiest_hour"]]
               comments  replies  authors  busiest_hour
            0        82       14       34            22
            >>> round(float(summary.at[0, "organization_share"]), 3)
            0.134
            >>> summary.at[0, "median_first_reply"]
            Timedelta('0 days 04:40:54.874500')
        """

        return mark(post_summary(self._frame, tz=tz), "comments.summary")

    def terms(
        self,
        kind: Literal["word", "hashtag", "link", "domain", "emoji"] = "word",
        top: int | None = 20,
        by: str | None = None,
        stopwords: Iterable[str] | None = None,
        *,
        default_stopwords: bool = True,
        markup: bool = False,
    ) -> pd.DataFrame:
        """The most frequent words, hashtags, links, domains or emoji of the comments.

        Every occurrence counts (``"👏👏👏"`` is three 👏). Terms are normalised:
        words and hashtags case-folded (``str.casefold`` after NFKC: ``Größe`` ->
        ``grösse``), links with their scheme and host case-folded, domains without
        ``www.``. Links are found first and never split into words. Chinese and
        Japanese text, which has no spaces, is cut into Han character bigrams and
        kana runs (``非常有见地`` -> ``非常``, ``常有``, ``有见``, ``见地``); Arabic,
        Cyrillic, Devanagari, Korean and the rest are words between spaces and
        punctuation, their combining marks kept. An emoji is one term with its
        skin tone, ZWJ sequence, flag or keycap; ``❤`` and ``❤️`` are one emoji.
        The full rules are in :mod:`socialframe._analysis.terms`. Comments without text
        are skipped.

        Args:
            kind: ``"word"``, ``"hashtag"``, ``"link"``, ``"domain"`` or ``"emoji"``.
            top: How many terms (per group with ``by``); ``None`` for all.
            by: A column to count per value of (``"post_urn"`` for each post's
                top terms, ``"author_type"``, ...); groups in order of first
                appearance, a missing value a group of its own.
            stopwords: Terms to leave out, added to the built-in stop words for
                ``kind="word"`` (for the other kinds, the only terms left out:
                ``stopwords=["example.com"]`` with ``kind="domain"``). Written as
                you like: they are normalised as the terms are.
            default_stopwords: Leave out the built-in stop words of English,
                German, French and Spanish (words only); ``False`` keeps them.
            markup: Count the terms of HTML pasted into a comment too (its tags, the
                code of a ``<script>``); left out by default: ``alert`` in
                ``<script>alert(1)</script>`` is code, not a word anyone wrote.

        Returns:
            A frame with a default index and the columns ``term`` (string) and
            ``count`` (int64), preceded by ``by`` (its dtype kept) when given;
            sorted by group, then count (highest first), then term.

        Raises:
            AttributeError: not a comments frame.
            KeyError: ``by`` is not a column.
            ValueError: an unknown ``kind``, or ``top`` not an int >= 0 or None.
            TypeError: ``stopwords`` is a single string (give a list).

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> comments = example_comments()
            >>> comments.social.terms(top=3)
                 term  count
            0    well      8
            1    team      7
            2  thanks      7
            >>> comments.social.terms("emoji", top=2)["term"].tolist()
            ['👏', '🎉']
            >>> comments.social.terms("domain").values.tolist()
            [['example.com', 3], ['example.org', 2]]
        """

        frame = self._frame
        counted = term_counts(
            frame, kind, top, by, stopwords, default_stopwords=default_stopwords, markup=markup
        )
        return mark(counted, "comments.terms")  # (a notebook shows it with our rules)

    def overlap(self, min_posts: int = 2) -> pd.DataFrame:
        """The authors who commented on at least ``min_posts`` of the frame's posts.

        For a many-post frame (a many-post fetch, or frames concatenated): who
        keeps showing up across a company's posts. Authors are keyed as in
        :meth:`authors` (id, else name) and shown with the details of their latest
        comment; comments without an author or a ``post_urn`` are left out.

        Args:
            min_posts: The fewest distinct posts (an int >= 1; 1 lists every author).

        Returns:
            A frame with a default index and the columns ``author_id``,
            ``author_name``, ``author_type`` (as in the comments frame), ``posts``
            and ``comments`` (int64: distinct posts, comments on them) and
            ``post_urns`` (a sorted list per row); sorted by posts, then comments
            (most first), then name.

        Raises:
            AttributeError: not a comments frame.
            ValueError: ``min_posts`` is not an int >= 1.

        Example:
            >>> import pandas as pd
            >>> from socialframe.sandbox import example_comments
            >>> both = pd.concat([example_comments(82), example_comments(51)])
            >>> both.social.overlap()[["author_name", "posts", "comments"]]
               author_name  posts  comments
            0  فاطمة Silva      2         5
        """

        return mark(overlap(self._frame, min_posts), "comments.overlap")

    def overlap_matrix(self, *, max_posts: int | None = 1_000) -> pd.DataFrame:
        """Post x post: how many distinct commenters two posts share.

        Authors are keyed as in :meth:`authors`; comments without an author or a
        ``post_urn`` are left out.

        A frame of more than ``max_posts`` posts gets the matrix of the
        ``max_posts`` posts with the most distinct commenters (the earlier of a
        tie), and a ``UserWarning`` saying how many posts were left out: the whole
        matrix grows with the square of the posts (10,000 posts: 800 MB), and is
        seldom sparse (a page that answers on every post shares a commenter with
        each). Each cell kept is the same as in the whole matrix.

        Args:
            max_posts: The most posts (rows and columns) to return; ``None`` for
                every post, however large the matrix.

        Returns:
            A square int64 frame indexed and columned by ``post_urn`` (both named
            ``post_urn``; posts in order of first appearance). Cell (a, b) is the
            number of distinct authors who commented on both a and b; the diagonal
            is each post's distinct commenters. Symmetric.

        Raises:
            AttributeError: not a comments frame.
            ValueError: ``max_posts`` is not an int >= 1 or None.

        Example:
            >>> import pandas as pd
            >>> from socialframe.sandbox import example_comments
            >>> both = pd.concat([example_comments(82), example_comments(51)])
            >>> both.social.overlap_matrix().to_numpy().tolist()
            [[34, 1], [1, 21]]
        """

        frame = self._frame
        return mark(overlap_matrix(frame, max_posts=max_posts), "comments.overlap_matrix")

    def plot_overlap(self, *, ax: Axes | None = None, max_posts: int | None = 30) -> Axes:
        """:meth:`overlap_matrix` as a heatmap, each cell's count written in it.

        Posts are labelled by the end of their id (``…592960``), as short as keeps
        them apart. Off-diagonal cells share one colour scale (with a colour bar);
        the diagonal, each post's own commenters, is grey with its count in bold,
        so it does not wash out the rest. Never calls ``plt.show()``.

        Args:
            ax: The matplotlib Axes to draw on; a new figure's when omitted.
            max_posts: Over this many posts, the ones with the most commenters
                are shown (a heatmap of hundreds of posts is unreadable); ``None``
                for all.

        Returns:
            The Axes drawn on.

        Raises:
            AttributeError: not a comments frame.
            ValueError: ``max_posts`` is not an int >= 1 or None.

        Example:
            >>> import pandas as pd
            >>> from matplotlib.figure import Figure
            >>> from socialframe.sandbox import example_comments
            >>> both = pd.concat([example_comments(82), example_comments(51)])
            >>> ax = both.social.plot_overlap(ax=Figure().subplots())
            >>> [t.get_text() for t in ax.get_yticklabels()], [t.get_text() for t in ax.texts]
            (['…592960', '…592964'], ['34', '1', '1', '21'])
        """

        return plot_overlap(self._frame, ax=ax, max_posts=max_posts)

    def response_times(self, *, per: Literal["reply", "post"] = "reply") -> pd.DataFrame:
        """How long replies took: per reply, or summed up per post (``per="post"``).

        A reply's response time runs from its thread's top-level comment (its
        ``parent_comment_id``, on the same post) to the reply. Replies whose parent
        is not in the frame (after ``max_pages`` or a filter) are left out; a reply
        or parent without a time has a NaT response time (listed, not in the
        quantiles). Times are taken as sent: a reply timed before its parent gives
        a negative time.

        Args:
            per: ``"reply"``: one row per reply. ``"post"``: one row per post (every
                post of the frame, in order of first appearance) with quantiles of
                its replies' response times.

        Returns:
            ``per="reply"``: ``post`` (when the frame has it), ``post_urn``,
            ``parent_comment_id`` (the thread), ``comment_id`` (the reply),
            ``created_at`` (the reply's) and ``response_time`` (timedelta64[us]);
            posts in order of appearance, threads in the order of their top-level
            comment, replies oldest first.
            ``per="post"``: ``post`` (when the frame has it), ``post_urn``,
            ``threads`` and ``replies`` (int64: threads with a timed reply, timed
            replies) and ``p25``, ``median``, ``p75``, ``p90``, ``max``
            (timedelta64[us], linearly interpolated quantiles; NaT without a
            timed reply).

        Raises:
            AttributeError: not a comments frame.
            ValueError: ``per`` is neither ``"reply"`` nor ``"post"``.

        Example:
            >>> from socialframe.sandbox import example_comments
            >>> comments = example_comments()
            >>> str(comments.social.response_times()["response_time"].iloc[0])
            '0 days 00:09:02.402000'
            >>> per_post = comments.social.response_times(per="post")
            >>> per_post[["threads", "replies", "median"]]
               threads  replies                 median
            0        8       14 0 days 17:57:57.011000
        """

        return mark(response_times(self._frame, per=per), "comments.response_times")


class AdsAccessor(SocialAccessor):
    """``df.social`` on an ads frame (from ``search_ads``): :meth:`by_page`,
    :meth:`active_on`, :meth:`plot_timeline`, :meth:`plot_platforms`, :meth:`campaigns`,
    :meth:`share_of_voice`, :meth:`plot_share_of_voice` and :meth:`spend`, besides what
    every frame offers."""

    kind: ClassVar[Kind | None] = "ads"
    _needs: ClassVar[tuple[str, ...]] = AD_CORE
    _source: ClassVar[str] = "search_ads"

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
        return mark(ad_analysis.ads_by_page(self._frame), "ads.by_page")

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
            ValueError: a string that is not an ISO date, or an unknown ``tz``.
            TypeError: ``day`` is not a date, a datetime or a string.

        Example:
            >>> from socialframe.sandbox import example_ads
            >>> len(example_ads().social.active_on("2025-11-01"))
            35
        """
        return ad_analysis.ads_active_on(self._frame, day, tz=tz)

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

        return plot_timeline(self._frame, ax=ax, max_ads=max_ads)

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

        return plot_platforms(self._frame, ax=ax)

    def campaigns(self) -> pd.DataFrame:
        """One row per campaign: the ads the service collates as near-identical variants.

        Ads are grouped by ``collation_id``. An ad without one is a campaign of its
        own (one variant; ``collation_id`` missing, ``ad_archive_ids`` names it).
        The same ad found by several queries counts once. The advertiser shown is
        that of the latest variant; ``last_end`` follows :meth:`by_page` (missing
        while a variant is active with no end date). The representative
        ``body_text`` is the most common non-blank text among the variants, ties
        going to the earliest start; ``{{template}}`` text of dynamic ads (DCO,
        DPA) gives way to the first card's real copy (``snapshot_cards``), and
        counts only when no variant has anything else.

        Returns:
            A frame with a default index and the columns ``collation_id``,
            ``page_id``, ``page_name``, ``variants`` (int64: distinct ads in the
            frame), ``collation_count`` (Int64: the service's own count, the
            largest its variants give), ``active`` (int64), ``first_start``,
            ``last_end`` (tz-aware UTC), ``platforms``, ``display_formats``
            (sorted lists), ``body_text`` (string), ``ad_archive_ids`` (a list,
            earliest start first) and, when the frame has a ``query`` column,
            ``queries`` (a list, in the frame's order); most variants first,
            then the earliest start.

        Raises:
            AttributeError: not an ads frame.
            KeyError: the frame has no ``collation_id`` column.

        Example:
            >>> from socialframe.sandbox import example_ads
            >>> found = example_ads().social.campaigns()
            >>> len(found), int(found["variants"].sum())
            (43, 60)
            >>> found[["page_name", "variants", "active", "display_formats"]].head(2)
                 page_name  variants  active display_formats
            0     TrailFox         3       0         [VIDEO]
            1  Maison Lune         3       3         [IMAGE]
        """

        return mark(campaigns(self._frame), "ads.campaigns")

    def share_of_voice(
        self,
        freq: str = "W",
        *,
        by: str = "page_name",
        top: int | None = 8,
        tz: str = "UTC",
        share: bool = False,
    ) -> pd.DataFrame:
        """Ads running per period per advertiser (or other ``by`` value), or their shares.

        An ad counts in every period it runs, from ``start_date`` to ``end_date``,
        both included (as in :meth:`active_on`). An active ad with no end date
        runs until the frame's latest ``fetched_at`` (the last moment the service
        said it ran; without one, the frame's latest date), never "now": the
        answer does not change with the day it is computed. An inactive ad with
        no end date ran at its start only; an ad without a start date is left
        out. An ad found by several queries counts once per ``by`` value.
        Periods are those of :meth:`activity`: cut in ``tz``, labelled by their
        start, weeks Monday to Sunday, months from the 1st.

        Args:
            freq: A pandas frequency: ``"W"``, ``"1D"``, ``"ME"``, ...
            by: The column whose values compete (``"page_name"``, ``"page_id"``,
                ``"query"``, ``"display_format"``, ...); missing values are
                counted as ``"<NA>"``.
            top: Keep the ``top`` values with the most ad-periods (ties by
                name); the rest are summed in a last column ``"other"``.
                ``None`` keeps all.
            tz: The time zone the periods are cut in (an IANA name).
            share: Return each value's share of the ads running in the period
                instead of counts.

        Returns:
            A wide frame indexed by period start (``period``, tz-aware in ``tz``),
            every period from the first start to the last end, one column per
            kept value (columns named ``by``, most ad-periods first), then
            ``"other"`` when values were summed. Counts are int64; shares are
            fractions (Float64) that sum to 1 in every period with a running ad (0
            in a period without), shown as percentages in a notebook, a table or a
            report. An empty frame gives no rows and no columns.

        Raises:
            AttributeError: not an ads frame.
            KeyError: ``by`` is not a column.
            ValueError: an unknown ``freq`` or ``tz``, ``top`` not an int >= 0 or None, or a
                ``by`` column holding lists.

        Example:
            >>> from socialframe.sandbox import example_ads
            >>> ads = example_ads()
            >>> ads.social.share_of_voice("ME", top=3).tail(2)
            page_name                  RunRight  Kawaii Kids  Bloom & Co  other
            period
            2025-12-01 00:00:00+00:00         6            5           9     19
            2026-01-01 00:00:00+00:00         6            5           9     18
            >>> ads.social.share_of_voice("ME", top=3, share=True).iloc[-1].round(2).tolist()
            [0.16, 0.13, 0.24, 0.47]
        """

        frame = self._frame
        found = share_of_voice(frame, freq, by=by, top=top, tz=tz, share=share)
        return mark(found, SHARES_MARK if share else "ads.share_of_voice")

    def plot_share_of_voice(
        self,
        freq: str = "W",
        *,
        by: str = "page_name",
        top: int | None = 8,
        tz: str = "UTC",
        share: bool = True,
        ax: Axes | None = None,
    ) -> Axes:
        """A stacked area chart of :meth:`share_of_voice`, drawn on ``ax`` (or a new Axes).

        Each period is a flat step from its start to the next period's start; the
        time axis is labelled in ``tz``; the first value is the bottom band,
        ``"other"`` the top one, in grey; the legend lists them top band first.
        Never calls ``plt.show()``.

        Args:
            freq: The period (see :meth:`share_of_voice`).
            by: The column whose values compete.
            top: How many values to show before ``"other"``; ``None`` for all.
            tz: The time zone the periods are cut and labelled in.
            share: Draw shares (0 to 1); ``False`` draws counts of running ads.
            ax: The matplotlib Axes to draw on; a new figure's when omitted.

        Returns:
            The Axes drawn on.

        Raises:
            AttributeError: not an ads frame.
            KeyError, ValueError: as :meth:`share_of_voice`.

        Example:
            >>> from matplotlib.figure import Figure
            >>> from socialframe.sandbox import example_ads
            >>> ax = example_ads().social.plot_share_of_voice("ME", top=3, ax=Figure().subplots())
            >>> ax.get_ylabel(), [t.get_text() for t in ax.get_legend().get_texts()]
            ('share of running ads', ['other', 'Bloom & Co', 'Kawaii Kids', 'RunRight'])
        """

        frame = self._frame
        return plot_share_of_voice(frame, freq, by=by, top=top, tz=tz, share=share, ax=ax)

    def spend(self) -> pd.DataFrame:
        """Spend and impressions of every ad as numeric bounds, with the currency.

        The service reports them as ranges or text: ``{lower_bound, upper_bound}``
        (``spend_lower_bound`` / ``spend_upper_bound`` columns), one number
        (``spend``), text (``"<1K"``, ``"1K-5K"``, ``">1M"``, ``"$1,000"``; kept
        in ``raw_spend`` / ``impressions_text``). ``"<1K"`` is 0 to 1,000;
        ``">1M"`` is 1,000,000 to an open (missing) upper bound; one number is
        both bounds. ``K``, ``M``, ``B``, decimals (``1.5K``), thousands commas
        and dashes are read; anything else, and anything not reported, stays
        missing: nothing is guessed. The currency is the ad's ``currency``, else
        one written in the text (``"USD 100"``, ``€`` -> ``EUR``; ``$`` stays
        ``$``: it names several). An ad found by several queries is one row.

        Returns:
            One row per distinct ad, indexed like the frame (its first row), with
            the columns ``ad_archive_id``, ``page_name``, ``currency`` (string),
            ``spend_lower``, ``spend_upper`` (Float64), ``impressions_lower``,
            ``impressions_upper`` (Int64).

        Raises:
            AttributeError: not an ads frame.

        Example:
            >>> from socialframe.sandbox import example_ads
            >>> money = example_ads().social.spend()
            >>> money.loc[[2, 3], ["spend_lower", "spend_upper", "impressions_upper"]]
               spend_lower  spend_upper  impressions_upper
            2       1000.0       1499.0               <NA>
            3         <NA>         <NA>               1000
        """

        return mark(spend(self._frame), "ads.spend")


def _methods(cls: type) -> set[str]:
    """The public methods a kind of accessor adds to the base's."""
    return {name for name in vars(cls) if not name.startswith("_") and callable(vars(cls)[name])}
