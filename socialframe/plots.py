"""Matplotlib charts, imported lazily. Each draws on ``ax`` (or a new one) and returns it.

Never calls ``plt.show()``: the caller (a notebook, a script saving a PNG) decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def comment_activity(
    comments: pd.DataFrame, freq: str = "1D", *, by: str | None = "author_type", tz: str = "UTC"
) -> pd.DataFrame:
    """Comments per period (empty periods as 0), optionally one column per ``by`` value.

    Periods are cut in ``tz``, not in UTC. Comments without a time are left out.
    """
    import pandas as pd

    times = comments["created_at"].dt.tz_convert(tz)
    keep = times.notna()
    if by is None:
        counts = pd.Series(1, index=times[keep]).resample(freq).sum().to_frame("comments")
    else:
        groups = comments.loc[keep, by].astype("object").fillna("unknown")
        counts = (
            pd.DataFrame({"t": times[keep].to_numpy(), by: groups.to_numpy()})
            .assign(n=1)
            .pivot_table(index="t", columns=by, values="n", aggfunc="sum", fill_value=0)
            .resample(freq)
            .sum()
        )
        if isinstance(comments[by].dtype, pd.CategoricalDtype):
            counts = counts.reindex(columns=list(comments[by].cat.categories), fill_value=0)
        counts.columns.name = by
    counts.index.name = f"period ({tz})"
    return counts.astype("int64")


def plot_activity(
    comments: pd.DataFrame,
    freq: str = "1D",
    *,
    by: str | None = "author_type",
    tz: str = "UTC",
    ax: Any = None,
) -> Any:
    """Stacked bars of comments per period. Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt

    counts = comment_activity(comments, freq, by=by, tz=tz)
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4), layout="constrained")
    bottom = None
    width = _bar_width(counts.index, freq)
    for column in counts.columns:
        ax.bar(
            counts.index,
            counts[column],
            width=width,
            bottom=bottom,
            label=str(column),
            align="edge",
        )
        bottom = counts[column] if bottom is None else bottom + counts[column]
    ax.set_xlabel(f"time ({tz})")
    ax.set_ylabel(f"comments per {freq}")
    ax.set_title(f"Comment activity ({int(counts.to_numpy().sum())} comments)")
    if by is not None and len(counts.columns) > 1:
        ax.legend(title=by)
    ax.figure.autofmt_xdate()
    return ax


def _bar_width(index: Any, freq: str) -> Any:
    import pandas as pd

    return (
        pd.Timedelta(pd.tseries.frequencies.to_offset(freq).nanos, "ns") * 0.9 if len(index) else 1
    )
