"""How frames of ours show in a notebook: pandas' table, with the display rules of
:mod:`.tables` (durations as ``20h 14m``, post urns short with the whole urn on hover,
an ad's days as days, links as their site, text left-aligned with its line breaks,
``post_urn`` left out where ``post`` says the same). The data is not changed: only its
HTML in a notebook; ``repr`` and every dtype stay pandas'.

A frame is ours when socialframe made it: the frames of the service's pages, what
``df.social`` and a study return (``frame.attrs["socialframe"]`` says which). Any
other frame shows as pandas shows it. In an IPython kernel, :func:`register` (run when
socialframe is imported there) makes the notebook ask :func:`frame_html` for frames.
"""

from __future__ import annotations

import html
from typing import Any, Final

import pandas as pd

from .._fetch.progress import ipython_shell
from .._schema import MARK
from . import tables, values

MAX_TEXT: Final = 300
"""Characters of a text cell shown (pandas shows 50); the rest is in the data."""

_STYLE: Final = {
    "num": "text-align:right;white-space:nowrap",
    "time": "text-align:left;white-space:nowrap",
    "word": "text-align:left;white-space:nowrap",
    # (overflow-wrap: a notebook lays tables out fixed, and a long URL ran over the
    # next columns)
    "text": "text-align:left;white-space:pre-wrap;overflow-wrap:break-word;min-width:16em;"
    "max-width:40em",
}


def ours(frame: object) -> bool:
    return isinstance(frame, pd.DataFrame) and bool(frame.attrs.get(MARK))


def frame_html(frame: pd.DataFrame) -> str | None:
    """The notebook's HTML of ``frame``: ours with our display rules, any other as
    pandas shows it (None when pandas would show none).

    Rows and columns are cut as pandas cuts them (``display.max_rows``,
    ``min_rows``, ``max_columns``), with its "rows × columns" line under the table.

    Example:
        >>> from socialframe._schema import mark
        >>> frame = pd.DataFrame({"reply_after": pd.to_timedelta(["20:14:59"])})
        >>> frame = mark(frame, "x")
        >>> "<td style='text-align:right;white-space:nowrap'>20h 14m</td>" in frame_html(frame)
        True
    """
    if not ours(frame):
        return frame._repr_html_()  # type: ignore[no-any-return]
    if not pd.get_option("display.notebook_repr_html"):
        return None
    rows, cols = len(frame), len(frame.columns)
    max_rows = pd.get_option("display.max_rows") or rows
    min_rows = pd.get_option("display.min_rows") or max_rows
    if rows > max_rows:
        half = max(min_rows // 2, 1)
        shown, cut_row = pd.concat([frame.head(half), frame.tail(half)]), half
    else:
        shown, cut_row = frame, None
    index = _labels(shown.index)
    plain = shown.reset_index(drop=True)
    if tables._same_post(plain):  # (before the columns are cut: the cut is among those shown)
        plain = plain.drop(columns="post_urn")
    max_cols = pd.get_option("display.max_columns") or len(plain.columns)
    cut_col = None
    if len(plain.columns) > max_cols:
        half_cols = max(max_cols // 2, 1)
        cut_col = half_cols
        plain = pd.concat([plain.iloc[:, :half_cols], plain.iloc[:, -half_cols:]], axis=1)
    cells, defs = tables.cells(plain)
    looks = {t: d["className"].removeprefix("sf-") for d in defs for t in d["targets"]}
    heads = [  # aligned as their cells: a text's name over its start
        f"<th style='text-align:{'right' if looks.get(i) == 'num' else 'left'}'>{name}</th>"
        for i, name in enumerate(cells.columns)
    ]
    if cut_col is not None:
        heads.insert(cut_col, "<th>…</th>")
    head = "".join(heads)
    body = []
    for position, (label, row) in enumerate(zip(index, cells.itertuples(index=False), strict=True)):
        if cut_row is not None and position == cut_row:
            width = len(row) + 1 + (cut_col is not None)
            body.append("<tr>" + "<td>…</td>" * width + "</tr>")
        tds = [
            f"<td style='{_STYLE[looks.get(i, 'word')]}'>{_shown(value, looks.get(i))}</td>"
            for i, value in enumerate(row)
        ]
        if cut_col is not None:
            tds.insert(cut_col, "<td>…</td>")
        body.append(f"<tr><th>{html.escape(str(label))}</th>{''.join(tds)}</tr>")
    # as pandas: the columns' name in the corner, the index's names in a row of their own
    corner = html.escape(str(frame.columns.name)) if frame.columns.name is not None else ""
    names = ""
    if any(n is not None for n in frame.index.names):
        label = " / ".join("" if n is None else str(n) for n in frame.index.names)
        names = f"<tr><th>{html.escape(label)}</th>" + "<th></th>" * len(heads) + "</tr>"
    return (
        "<div><table border='1' class='dataframe socialframe'>"
        f"<thead><tr style='text-align:left'><th>{corner}</th>{head}</tr>{names}</thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
        f"<p>{rows:,} rows × {cols:,} columns</p></div>"
    )


def _labels(index: pd.Index) -> list[str]:
    """The index's labels, shown as a column of them would be (:mod:`.values`: times to
    the minute or as days, posts short); row numbers as they are."""
    levels = []
    for level in range(index.nlevels):
        name = index.names[level]
        labels = pd.Series(index.get_level_values(level))
        known = None
        if not pd.api.types.is_integer_dtype(labels.dtype):
            known = values.texts(name, labels)
        if known is not None:
            levels.append(known[0])
        elif name in tables.POST_COLUMNS:
            levels.append(values.post_labels(labels))
        else:
            levels.append([str(label) for label in labels])
    return [" / ".join(parts) for parts in zip(*levels, strict=True)]


def _shown(cell: object, look: str | None) -> str:
    """A cell's display part (HTML, escaped by :mod:`.tables`); long text cut."""
    parts = tables.split(str(cell))
    if look != "text":
        return parts.display
    plain = parts.plain  # (the text itself: cut, then escaped)
    cut = plain if len(plain) <= MAX_TEXT else plain[: MAX_TEXT - 1] + "…"
    return html.escape(cut, quote=True)


def _formatter(frame: Any) -> str | None:
    try:
        return frame_html(frame)
    except Exception:  # a display must never fail: pandas' own, then
        return frame._repr_html_()  # type: ignore[no-any-return]


def register() -> None:
    """In an IPython shell, show frames through :func:`frame_html` (ours with our
    rules, others as pandas does); elsewhere nothing."""
    shell = ipython_shell()
    formatter = getattr(getattr(shell, "display_formatter", None), "formatters", {}).get(
        "text/html"
    )
    if formatter is not None:
        formatter.for_type(pd.DataFrame, _formatter)
