"""The shareable report: one static HTML file of a comments or ads frame, to e-mail.

A report is a header (what the frame holds: posts or queries, rows, time span,
when it was made) and the :class:`~socialframe._display.sections.Section` s of
:mod:`socialframe._display.sections` (what it says), made into one page here (how
it looks).

The file needs nothing but itself: charts are PNG ``data:`` URIs drawn with
matplotlib's Agg backend (imported when a chart is drawn), the CSS is inline,
and a Content-Security-Policy forbids every script and every other resource,
so a mail client or browser opening it fetches nothing. Comments and names are
written by strangers: every value reaches the page through :func:`html.escape`
(see :func:`table_html` for why not pandas' ``to_html``), and nothing from the
data becomes a link.

Nothing is written until the whole page is rendered, and then through
:func:`socialframe._display.files.write_whole`: whole or not at all, never through a
link, never over the cache, a study or the file the report is made of.
"""

from __future__ import annotations

import html
import numbers
import re
from base64 import b64encode
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

import numpy as np
import pandas as pd

from .. import _time
from .. import _words as words
from .._analysis import ads as ad_analysis
from .._analysis import comments as analysis
from .._operations.base import resolve
from .._schema import AD_DAYS, share_columns
from .._version import __version__
from . import files, values
from . import html as markup
from .files import Guarded
from .sections import Kind, Section, described, sections

#: Resolution of the charts: sharp on high-density screens, shown at 96 per CSS inch.
DPI: Final = 144
#: Longer cell text is cut here (a spam comment must not fill the page).
MAX_TEXT: Final = 500
#: Nothing may load: no script, no font, no style sheet, no image but the page's own.
CSP: Final = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)


# -- the header ------------------------------------------------------------------------------


def _span(times: pd.Series, tz: str) -> str:
    """``2025-11-02 01:36 to 2026-01-01 00:00 (UTC)``: the first and last time, as the
    tables show them (an ad's dates as days, in UTC)."""
    known = times.dropna()
    if known.empty:
        return "no times"
    ends = pd.Series([known.min(), known.max()], name=times.name)
    shown = values.texts(times.name, ends, tz=tz)
    first, last = shown[0] if shown is not None else [str(known.min()), str(known.max())]
    zone = "UTC" if times.name in AD_DAYS else tz
    text = f"{values.span(first, last)} ({zone})"
    missing = len(times) - len(known)
    return text + (f"; {missing:,} without a time" if missing else "")


def _items(values: pd.Series, shown: int = 8) -> str:
    distinct = [str(v) for v in values.dropna().unique()]
    text = ", ".join(distinct[:shown])
    if len(distinct) > shown:
        text += f" … and {len(distinct) - shown:,} more"  # (a count of the items named)
    return f"{len(distinct):,}" + (f": {text}" if distinct else "")


def facts(frame: pd.DataFrame, kind: Kind, *, tz: str, now: pd.Timestamp) -> list[tuple[str, str]]:
    """What the frame holds, as (label, text) pairs for the report's header: its
    operation's ``report_facts`` (:func:`comment_facts`, :func:`ad_facts`), then when
    the report was made.

    Args:
        frame: A comments or ads frame.
        kind: ``"comments"`` or ``"ads"`` (the operation the frame came from).
        tz: The zone times are shown in.
        now: When the report is made.

    Returns:
        Pairs of plain text (escaped when rendered).

    Raises:
        ValueError: no operation has that name, or its frames have no report.

    Example:
        >>> import pandas as pd
        >>> from socialframe.sandbox import example_ads
        >>> now = pd.Timestamp("2026-01-02 09:00", tz="UTC")
        >>> facts(example_ads(), "ads", tz="UTC", now=now)[:3]
        [('Ads', '60 (36 running)'), ('Queries', '1: running shoes'), ('Advertisers', '14')]
    """
    record = described(kind)
    assert record.report_facts is not None  # (described says so)
    made = now.tz_convert(tz).strftime(values.MINUTE) + f" ({tz})"
    return [*resolve(record.report_facts)(frame, tz), ("Generated", made)]


def comment_facts(frame: pd.DataFrame, tz: str) -> list[tuple[str, str]]:
    """The header of a report on a comments frame (see :func:`facts`)."""
    replies = int(frame["parent_comment_id"].notna().sum())
    split = f"{len(frame) - replies:,} top-level, {words.count(replies, 'reply')}"
    return [
        ("Comments", f"{len(frame):,} ({split})"),
        ("Posts", _items(frame["post_urn"])),
        ("Authors", f"{len(analysis.authors(frame)):,}"),
        ("Written", _span(frame["created_at"], tz)),
    ]


def ad_facts(frame: pd.DataFrame, tz: str) -> list[tuple[str, str]]:
    """The header of a report on an ads frame (see :func:`facts`)."""
    running = int(frame["is_active"].fillna(False).astype(bool).sum())
    return [
        ("Ads", f"{len(frame):,} ({running:,} running)"),
        *([("Queries", _items(frame["query"]))] if "query" in frame.columns else []),
        ("Advertisers", f"{len(ad_analysis.ads_by_page(frame)):,}"),
        ("Started", _span(frame["start_date"], tz)),
    ]


# -- HTML ------------------------------------------------------------------------------------


def _text(value: object) -> str:
    """A cell's text in a column of text, lists or objects: lists joined, missing
    blank, long text cut (other columns show as every display shows them:
    :mod:`socialframe._display.values`)."""
    if isinstance(value, list | tuple | np.ndarray):
        return ", ".join(str(v) for v in value)
    if value is None or value is pd.NaT or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return ""
    if isinstance(value, bool | np.bool_):
        return values.flag(value)
    if isinstance(value, pd.Timedelta | np.timedelta64):
        return _time.duration(pd.Timedelta(value))
    if isinstance(value, numbers.Real):
        return values.number_format(pd.Series([value]))(float(value))
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _cells(name: object, column: pd.Series, tz: str, share: bool) -> list[str]:
    known = values.texts(name, column, tz=tz, share=share)
    if known is not None:
        return known[0]
    if name in ("post_urn", "post"):
        return values.post_labels(column)
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


#: Headers in words: a column's name as a reader says it (others: underscores as
#: spaces, the first letter up).
HEADERS: Final = {
    "post_urn": "Post",
    "post": "Post",
    "page_name": "Advertiser",
    "page_id": "Page id",
    "ad_archive_id": "Ad",
    "author_name": "Author",
    "author_type": "Type",
    "author_followers": "Followers",
    "organization_share": "Org share",
    "created_at": "Written",
    "first_start": "First start",
    "last_end": "Last end",
    "display_formats": "Formats",
    "spend_lower": "Spend from",
    "spend_upper": "Spend to",
    "impressions_lower": "Impressions from",
    "impressions_upper": "Impressions to",
    "is_active": "Running",
    "start_date": "Started",
    "end_date": "Ended",
}

#: Where a post is, by its urn (the report links each post there).
POST_URL: Final = "https://www.linkedin.com/feed/update/{urn}/"


def header(name: object) -> str:
    """A column's header in words.

    Example:
        >>> header("page_name"), header("median_reply_time"), header("n")
        ('Advertiser', 'Median reply time', 'N')
    """
    text = str(name)
    words = HEADERS.get(text) or text.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _post_link(urn: object, label: str) -> str:
    """A post's cell: its label (:func:`.values.post_labels`), the whole urn on hover,
    linked to the post (urns of LinkedIn's shape only)."""
    text = html.escape(label, quote=True)
    whole = html.escape(str(urn), quote=True)
    if not isinstance(urn, str) or not re.fullmatch(r"urn:li:[A-Za-z]+:\d+", urn):
        return f"<span title='{whole}'>{text}</span>" if label else text
    href = html.escape(POST_URL.format(urn=urn), quote=True)
    return f"<a href='{href}' title='{whole}' rel='noopener noreferrer'>{text}</a>"


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
        <thead><tr><th class='word'>Name</th><th class='num'>N</th></tr></thead>
        <tbody>
        <tr><td class='word'>&lt;i&gt;&quot;x&quot;&lt;/i&gt;</td><td class='num'>1,234</td></tr>
        </tbody>
        </table></div>
    """
    shares = share_columns(frame)
    columns = [_cells(name, frame[name], tz, name in shares) for name in frame.columns]
    looks = [_look(frame[name], cells) for name, cells in zip(frame.columns, columns, strict=True)]
    escaped = [
        [
            _post_link(urn, t) if t and name in ("post_urn", "post") else html.escape(t, quote=True)
            for t, urn in zip(cells, frame[name], strict=True)
        ]
        for name, cells in zip(frame.columns, columns, strict=True)
    ]
    rows = [list(row) for row in zip(*escaped, strict=True)]
    return markup.table([header(name) for name in frame.columns], rows, looks)


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
    guard: Iterable[Guarded] = (),
    inputs: Iterable[int] = (),
) -> Path:
    """Render the report of ``frame`` and write it to ``path``, whole or not at all.

    See :meth:`socialframe._accessor.SocialAccessor.report`.

    Args:
        frame: A comments or ads frame.
        path: The ``.html`` file to write.
        kind: ``"comments"`` or ``"ads"``.
        title: The page's title; ``"Comments report"`` / ``"Ads report"`` by default.
        tz: The zone times and periods are shown in.
        now: The time printed as "Generated" (now by default).
        guard: Files and folders it must never be (besides the default cache and any
            study): the file read, say; see :func:`socialframe._display.files.check`.
        inputs: Open file descriptors the report was read from (standard input is 0).

    Returns:
        The path written.

    Raises:
        ValueError: the path does not end in ``.html`` / ``.htm``, or may not be
            written (a link, a folder, no folder, the cache, inside a study, see
            :func:`socialframe._display.files.check`); ``tz`` is not a time zone.
        OSError: the file could not be written.
    """
    kept, read = tuple(guard), tuple(inputs)
    target = files.check(path, guard=kept, inputs=read)
    if target.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"cannot write {str(path)!r}: a report is HTML; name it *.html")
    _time.check_zone(tz)
    made = pd.Timestamp.now(tz="UTC") if now is None else now
    heading = title if title is not None else f"{kind.capitalize()} report"
    page = render(heading, facts(frame, kind, tz=tz, now=made), sections(frame, kind, tz=tz), tz=tz)
    data = _well_formed(page).encode("utf-8")
    return files.write_whole(target, lambda into: into.write(data), guard=kept, inputs=read)
