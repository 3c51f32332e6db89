"""Matplotlib charts, imported lazily. Each draws on ``ax`` (or a new one) and returns it.

Never calls ``plt.show()``: the caller (a notebook, a script saving a PNG) decides.
Times are labelled with their zone.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import _time
from .._analysis.ads import OTHER, share_of_voice
from .._analysis.audience import shared_commenters
from .._analysis.comments import comment_activity
from .._checks import count, count_or_none
from .._words import count as count_of
from .values import post_labels

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def shown(value: object) -> str:
    """Text from the data as a label shows it: a ``$`` is a dollar, not math, and a
    name starting with ``_`` is a name.

    matplotlib reads text between two ``$`` as math (``"Save $5, win $10"`` comes out
    in italics, ``"$\\frac{$"`` fails the whole chart), and leaves a label starting
    with ``_`` out of the legend (an advertiser ``_Studio`` had a band and no entry);
    such a name gets a zero-width space before it. Advertisers, authors and posts are
    named by strangers.

    Example:
        >>> print(shown("Save $5 today, $10 tomorrow"))
        Save \\$5 today, \\$10 tomorrow
        >>> shown("_nolegend_")
        '\\u200b_nolegend_'
    """
    text = str(value).replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


#: Fonts that draw what matplotlib's own (DejaVu Sans) has no glyphs for: CJK, Arabic,
#: Devanagari. Used, where installed, after the default family for text from the data.
_FALLBACK_FONTS = ("Noto Sans", "Noto Sans CJK JP", "Noto Sans Arabic", "Noto Sans Devanagari")


def families() -> list[str]:
    """The font families for labels from the data: the default, then installed fallbacks.

    matplotlib (3.6+) takes each glyph from the first family that has it, so a
    page called ``ユニクロ`` shows in Noto Sans CJK rather than as boxes, when
    ``fonts-noto-cjk`` is installed (Debian; docs/development.md says how). The default is
    read on each call (``rcParams``, ``rc_context``); only the fonts found are kept.
    """
    import matplotlib

    return list(matplotlib.rcParams["font.family"]) + list(_installed_fallbacks())


#: The file names of the fallback fonts (Debian's fonts-noto-core and fonts-noto-cjk).
_FALLBACK_FILES = ("NotoSans-", "NotoSansCJK", "NotoSansArabic", "NotoSansDevanagari")


@functools.cache
def _installed_fallbacks() -> tuple[str, ...]:
    """The fallback families installed. matplotlib knows the fonts of its font cache,
    built when it first ran: a font installed since is looked for among the system's
    font files and added (once a process, and only when one is missing)."""
    from matplotlib import font_manager

    manager = font_manager.fontManager
    known = {font.name for font in manager.ttflist}
    if not set(_FALLBACK_FONTS) <= known:
        for path in font_manager.findSystemFonts():
            if Path(path).name.startswith(_FALLBACK_FILES):
                try:
                    manager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # a file it cannot read
                    continue
        known = {font.name for font in manager.ttflist}
    return tuple(name for name in _FALLBACK_FONTS if name in known)


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def plot_activity(
    comments: pd.DataFrame,
    freq: str = "1D",
    *,
    by: str | None = "author_type",
    tz: str = "UTC",
    ax: Axes | None = None,
    span: tuple[pd.Timestamp, pd.Timestamp] | None = None,
) -> Axes:
    """Stacked bars of comments per period (periods cut in ``tz``). Returns the Axes.

    Counts are whole numbers, so the y ticks are too. The legend sits outside the
    bars, right of the axes. ``span`` fixes the x range (a widget keeps it while
    its filters change; see :func:`activity_span`).
    """
    from matplotlib.ticker import MaxNLocator

    counts = comment_activity(comments, freq, by=by, tz=tz)
    ax = _axes(ax, (10, 4))
    width = _bar_width(counts.index)
    bottom = None
    for column in counts.columns:
        ax.bar(
            counts.index,
            counts[column],
            width=width,
            bottom=bottom,
            label=shown(column),
            align="edge",
        )
        bottom = counts[column] if bottom is None else bottom + counts[column]
    ax.xaxis_date(tz)  # tick labels in the zone the periods were cut in
    ax.set_xlabel(f"time ({tz})")
    ax.set_ylabel(f"comments per {_time.period_word(freq)}")
    ax.set_title(f"Comment activity ({count_of(int(counts.to_numpy().sum()), 'comment')})")
    if by is not None and len(counts.columns) > 1 and len(counts):
        # Outside the axes: inside, it would cover the tallest bars.
        ax.legend(
            title=shown(by),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            prop={"family": families()},
        )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    # Counts start at 0; with none at all, 0 to 1 (not matplotlib's -0.05 to 0.05).
    ax.set_ylim(0, None if len(counts) and counts.to_numpy().sum() else 1)
    if span is not None:
        ax.set_xlim(*span)
    # Rotate this chart's own labels; fig.autofmt_xdate() would rework every subplot.
    ax.tick_params(axis="x", labelrotation=30)
    return ax


def activity_span(
    comments: pd.DataFrame, freq: str = "1D", *, tz: str = "UTC"
) -> tuple[pd.Timestamp, pd.Timestamp] | None:
    """The x range of :func:`plot_activity` for ``comments``: first period's start to
    last period's end (``None`` for no dated comment)."""
    index = comment_activity(comments, freq, tz=tz).index
    if index.empty:
        return None
    return index[0], index[-1] + _time.period_offset(freq)


def _bar_width(index: pd.DatetimeIndex) -> float:
    """90% of the smallest gap between periods, in days (matplotlib's date unit)."""
    if len(index) < 2:
        return 0.9
    return float(index.to_series().diff().min() / pd.Timedelta(days=1)) * 0.9


def plot_overlap(
    comments: pd.DataFrame, *, ax: Axes | None = None, max_posts: int | None = 30
) -> Axes:
    """A heatmap of shared commenters between posts (``overlap_matrix``), counts written in.

    Off-diagonal cells are coloured on their own scale; the diagonal (each post's
    distinct commenters, much larger) is grey with its count in bold. Over
    ``max_posts`` posts, those with the most commenters are shown (in their order).
    """
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    max_posts = count_or_none("max_posts", max_posts, minimum=1)
    # Only the posts shown are counted: the matrix of every post first was 800 MB at
    # 10,000 posts, for a plot of 30.
    matrix, total = shared_commenters(comments, max_posts)
    n = len(matrix)
    ax = _axes(ax, (max(5.0, 0.7 * n + 3.0), max(3.5, 0.6 * n + 1.8)))
    if n == 0:
        ax.set_title("Commenters shared between 0 posts")
        ax.set_axis_off()
        return ax
    values = matrix.to_numpy()
    diagonal = np.eye(n, dtype=bool)
    top = max(1, int(values[~diagonal].max(initial=0)))
    cmap = matplotlib.colormaps["Blues"].with_extremes(bad="#e6e6e6")
    image = ax.imshow(np.ma.masked_array(values, mask=diagonal), cmap=cmap, vmin=0, vmax=top)
    if n <= 30:  # beyond that the numbers no longer fit their cells
        size = 9 if n <= 12 else 7
        for (row, col), value in np.ndenumerate(values):
            dark = not diagonal[row, col] and value > 0.6 * top
            ax.text(
                col,
                row,
                f"{value:,}",
                ha="center",
                va="center",
                fontsize=size,
                color="white" if dark else "black",
                fontweight="bold" if diagonal[row, col] else "normal",
            )
    labels = [shown(label) for label in post_labels(list(matrix.index))]
    ax.set_xticks(range(n), labels, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("post (grey diagonal: its own commenters)")
    ax.set_ylabel("post")
    bar = ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("shared commenters")
    bar.locator = MaxNLocator(integer=True)
    bar.update_ticks()
    if n < total:
        title = (
            f"Commenters shared between the {n:,} of {count_of(total, 'post')} with most commenters"
        )
    else:
        title = (
            f"Commenters shared between {count_of(n, 'post')}" if n > 1 else "Commenters of 1 post"
        )
    ax.set_title(title)
    return ax


def plot_timeline(ads: pd.DataFrame, *, ax: Axes | None = None, max_ads: int = 50) -> Axes:
    """One bar per ad from start to end (the latest ``max_ads`` starts); active ads in colour."""
    import matplotlib.dates as mdates

    count("max_ads", max_ads, minimum=1)
    picked = ads.dropna(subset=["start_date"]).sort_values("start_date").tail(max_ads)
    ax = _axes(ax, (10, max(3.0, 0.22 * len(picked) + 1)))
    active = picked["is_active"].fillna(False).astype(bool)
    spans = _time.ad_spans(picked)  # as in active_on
    utc = [s.dt.tz_convert("UTC").dt.tz_localize(None) for s in (spans.start, spans.end)]
    starts = mdates.date2num(utc[0])  # type: ignore[no-untyped-call]
    stops = mdates.date2num(utc[1])  # type: ignore[no-untyped-call]
    rows = range(len(picked))
    colors = ["tab:green" if a else "tab:gray" for a in active.to_numpy()]
    ax.barh(list(rows), stops - starts, left=starts, height=0.7, color=colors)
    labels = (
        picked["page_name"].fillna("?").astype(str) + " · " + picked["ad_archive_id"].astype(str)
    )
    ax.set_yticks(list(rows), [shown(label) for label in labels], fontsize=7, fontfamily=families())
    ax.xaxis_date("UTC")
    ax.set_xlabel("time (UTC)")
    ax.set_ylabel("ad (page · ad_archive_id)")
    ax.set_title(f"Ad run timeline ({len(picked):,} of {count_of(len(ads), 'ad')}; green = active)")
    return ax


def plot_platforms(ads: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Number of ads per publisher platform (an ad counts once on each of its platforms)."""
    counts = ads["publisher_platforms"].explode().dropna().astype(str).value_counts().sort_values()
    ax = _axes(ax, (7, 3))
    ax.barh([shown(name) for name in counts.index], counts.to_numpy())
    ax.set_xlabel("ads")
    ax.set_ylabel("platform")
    ax.set_title(f"Platforms of {count_of(len(ads), 'ad')}")
    return ax


def plot_share_of_voice(
    ads: pd.DataFrame,
    freq: str = "W",
    *,
    by: str = "page_name",
    top: int | None = 8,
    tz: str = "UTC",
    share: bool = True,
    ax: Axes | None = None,
) -> Axes:
    """Stacked areas of ads running per period per ``by`` value (shares or counts).

    Each period is a flat step from its start to the next one's, so a period's
    band covers its own span of the time axis, labelled in ``tz``. The summed
    rest (``"other"``) is grey; the legend sits right of the axes.
    """
    import matplotlib.dates as mdates
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    values = share_of_voice(ads, freq, by=by, top=top, tz=tz, share=share)
    ax = _axes(ax, (10, 4))
    word = _time.period_word(freq)
    if len(values) and len(values.columns):
        # One more point at the last period's end, so the last period has a width.
        ends = values.index.append(pd.DatetimeIndex([values.index[-1] + _time.period_offset(freq)]))
        utc = ends.tz_convert("UTC").tz_localize(None)
        x = mdates.date2num(utc.to_pydatetime())  # type: ignore[no-untyped-call]
        rows = pd.concat([values, values.iloc[-1:]]).to_numpy(dtype="float64").T
        labels = [shown(c) for c in values.columns]
        colors = [_PALETTE[i % len(_PALETTE)] for i in range(len(labels))]
        if str(values.columns[-1]) in (OTHER, f"<{OTHER}>") and len(labels) > 1:
            colors[-1] = "tab:gray"  # the rest: no advertiser's colour (none else is grey)
        ax.stackplot(x, rows, labels=labels, colors=colors, step="post", alpha=0.9)
        # Outside the axes (inside, it would cover the bands), top band first.
        ax.legend(
            title=shown(by),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            reverse=True,
            prop={"family": families()},
        )
        ax.set_xlim(x[0], x[-1])
    ax.xaxis_date(tz)  # tick labels in the zone the periods were cut in
    ax.set_xlabel(f"time ({tz})")
    if share:
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_ylabel("share of running ads")
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, None if len(values) and values.to_numpy().sum() else 1)
        ax.set_ylabel(f"running ads per {word}")
    ax.set_title(shown(f"Share of voice by {by}, per {word}"))
    ax.tick_params(axis="x", labelrotation=30)
    return ax


# matplotlib's tab10 and the light half of tab20, without their greys (grey is "other").
_PALETTE = (
    *("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"),
    *("tab:brown", "tab:pink", "tab:olive", "tab:cyan"),
    *("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2"),
    *("#dbdb8d", "#9edae5"),
)
