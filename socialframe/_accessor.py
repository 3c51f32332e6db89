"""``df.social``: the analysis people do next, on comments and ads frames.

Registered when socialframe is imported. It recognises a comments frame or an
ads frame by its columns and offers the matching methods; a method for the other
kind (or for a frame of neither) raises ``AttributeError`` naming the columns it
needs. The pipeline methods (``fetch_comments`` / ``fetch_ads``) work on any frame
with a column of posts or queries. It keeps no state: pandas builds a new
accessor on every access.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from . import _analysis as analysis
from . import _export as export

if TYPE_CHECKING:
    from ._client import Client


_COMMENT_METHODS = frozenset(
    {"activity", "plot_activity", "authors", "top_authors", "organizations", "people", "threads"}
)
_AD_METHODS = frozenset({"by_page", "active_on", "plot_timeline", "plot_platforms"})


@pd.api.extensions.register_dataframe_accessor("social")
class SocialAccessor:
    """``df.social``. See the module docstring."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame
        columns = set(frame.columns)
        if set(analysis.COMMENT_NEEDS) <= columns:
            self.kind: str | None = "comments"
        elif set(analysis.AD_NEEDS) <= columns:
            self.kind = "ads"
        else:
            self.kind = None

    def __dir__(self) -> list[str]:
        # Offer the methods that fit this frame (tab completion in notebooks).
        hidden = {"comments": _AD_METHODS, "ads": _COMMENT_METHODS}.get(
            self.kind or "", _AD_METHODS | _COMMENT_METHODS
        )
        return sorted(set(super().__dir__()) - hidden)

    def _need(self, kind: str, method: str) -> pd.DataFrame:
        if self.kind != kind:
            needs = analysis.COMMENT_NEEDS if kind == "comments" else analysis.AD_NEEDS
            missing = [c for c in needs if c not in self._frame.columns]
            raise AttributeError(
                f"df.social.{method}() works on a {kind} frame (from"
                f" {'post_comments' if kind == 'comments' else 'search_ads'}); this frame lacks"
                f" the columns {missing}"
            )
        return self._frame

    # -- comments ------------------------------------------------------------------------

    def activity(self, freq: str = "1D", *, by: str | None = None, tz: str = "UTC") -> pd.DataFrame:
        """Comments per period (cut in ``tz``), empty periods as 0; ``by`` splits columns."""
        return analysis.comment_activity(self._need("comments", "activity"), freq, by=by, tz=tz)

    def plot_activity(
        self, freq: str = "1D", *, by: str | None = "author_type", tz: str = "UTC", ax: Any = None
    ) -> Any:
        """Stacked bar chart of :meth:`activity`; returns the matplotlib Axes."""
        from ._plots import plot_activity

        return plot_activity(self._need("comments", "plot_activity"), freq, by=by, tz=tz, ax=ax)

    def authors(self) -> pd.DataFrame:
        """One row per author: comments, first and last comment, type, title, followers."""
        return analysis.authors(self._need("comments", "authors"))

    def top_authors(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` authors with the most comments."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"n must be an int >= 0, got {n!r}")
        return analysis.authors(self._need("comments", "top_authors")).head(n)

    def organizations(self) -> pd.DataFrame:
        """The authors that are organisations (with their follower counts)."""
        found = analysis.authors(self._need("comments", "organizations"))
        return found[found["author_type"] == "organization"].reset_index(drop=True)

    def people(self) -> pd.DataFrame:
        """The authors that are people."""
        found = analysis.authors(self._need("comments", "people"))
        return found[found["author_type"] == "person"].reset_index(drop=True)

    def threads(self) -> pd.DataFrame:
        """Top-level comments with their reply counts and last reply time."""
        return analysis.threads(self._need("comments", "threads"))

    # -- ads -----------------------------------------------------------------------------

    def by_page(self) -> pd.DataFrame:
        """One row per advertiser: ads, active, first start, last end, platforms, formats."""
        return analysis.ads_by_page(self._need("ads", "by_page"))

    def active_on(self, day: date | datetime | str, *, tz: str = "UTC") -> pd.DataFrame:
        """The ads running at some moment of ``day``."""
        return analysis.ads_active_on(self._need("ads", "active_on"), day, tz=tz)

    def plot_timeline(self, *, ax: Any = None, max_ads: int = 50) -> Any:
        """Start-to-end bars of the latest ``max_ads`` ads; returns the Axes."""
        from ._plots import plot_timeline

        return plot_timeline(self._need("ads", "plot_timeline"), ax=ax, max_ads=max_ads)

    def plot_platforms(self, *, ax: Any = None) -> Any:
        """Ads per publisher platform; returns the Axes."""
        from ._plots import plot_platforms

        return plot_platforms(self._need("ads", "plot_platforms"), ax=ax)

    # -- pipelines and export --------------------------------------------------------------

    def _keys(self, column: str) -> list[Any]:
        if column not in self._frame.columns:
            raise KeyError(f"no column {column!r}; columns are {list(self._frame.columns)}")
        return list(self._frame[column])

    def fetch_comments(
        self,
        column: str = "post",
        *,
        client: Client | None = None,
        sort: str = "mostRelevant",
        max_pages: int | None = None,
    ) -> pd.DataFrame:
        """The comments of every post in ``column``, as one frame with ``column`` first.

        All posts are validated before the first call; one progress bar covers
        them all, and the client's ledger the whole run.
        """
        from ._default import default_client

        use = client if client is not None else default_client()
        return use._post_comments(self._keys(column), sort=sort, max_pages=max_pages, key=column)

    def fetch_ads(
        self, column: str = "query", *, client: Client | None = None, **filters: Any
    ) -> pd.DataFrame:
        """The ads of every query in ``column`` (with the same ``filters``), as one frame."""
        from ._default import default_client

        use = client if client is not None else default_client()
        return use._search_ads(self._keys(column), key=column, **filters)

    def to_csv(self, path: str | Path, *, excel: bool = False) -> Path:
        """CSV with ids as text, lists as JSON; ``excel=True`` for Excel (UTF-8 BOM)."""
        return export.to_csv(self._frame, path, excel=excel)
