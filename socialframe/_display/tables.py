"""Interactive tables of our frames: itables' ``ITable`` widget (DataTables) with our
display rules: sort, search as you type, pages, row selection and a CSV download.

The data is never changed: what a cell shows is built here, beside what it sorts by
and what a search or the CSV download sees. Each cell is sent as one text,
``display <US> sort <US> plain [<US> export]`` (US: the ASCII unit separator; see
:func:`split`), and one small render function (:data:`RENDER`) hands DataTables the
part it asks for. So

- numbers, shares, flags, times and durations show as in every display
  (:mod:`.values`: one format per column, shares as ``14.0%``, ``yes`` / ``no``,
  times to the minute, an ad's dates as days, durations as ``20h 14m``) and sort by
  their value; the CSV has the value itself (the full ISO time);
- post urns show short (``…592965``), the whole urn on hover and in the CSV; so do
  the column names of a frame whose columns are posts (``overlap_matrix``);
- links show their site (``example.com``), the whole URL in the CSV;
  an ad's id links to its Ad Library page;
- text keeps its line breaks and is left-aligned;
- the header is the table's own, over its columns whatever is drawn when: a table
  wider than the notebook scrolls sideways in its box, and a table given a height
  scrolls down in it too, under a header that stays (never DataTables' scrolling,
  whose separate header stood off its columns).

No text from the service ever becomes markup, on any path DataTables has:

- every part of a cell travels HTML escaped, not only the one shown: the cell as it
  travels is text to HTML, whatever reads it (RowGroup puts a cell's data into the
  page as HTML, not through the render function, as does DataTables itself when a
  ``columnDefs`` of the caller's takes the column's render away);
- the display part is our HTML: the text escaped (the table is given
  ``allow_html=True`` for the links and the hover titles, so nothing else escapes
  it), column names too; links are made for http(s) URLs only;
- a search sees the plain text escaped (DataTables decodes search text holding ``&``
  through a ``<div>``'s ``innerHTML``, which would make tags of raw text): so a
  search finds the text itself, ``<img`` and ``&lt;`` included;
- the sort and export parts are decoded by :data:`RENDER` with plain string
  replacements, never through the page (DataTables compares the sort part as text
  or number);
- the CSV download takes the export part as it is (:data:`EXPORT_CELL`), not through
  Buttons' cleaning, which drops ``<script>`` and decodes ``&lt;``; column names
  are read as text from the header (:data:`EXPORT_NAME`);
- a caller's ``columnDefs`` are added to ours, after the render function: theirs
  cannot take it away.

The "Download CSV" button is for spreadsheets: text that a spreadsheet would take for
a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a return, OWASP's
CSV-injection rule) is written with a ``'`` before it, column names too; numbers stay
numbers (``-5`` is not touched); every cell is quoted, quotes doubled; the file
starts with the byte-order mark that tells Excel it is UTF-8. Everything else is the
data as it is.

The pure part (:func:`cells`) needs pandas only; :func:`interactive` imports itables
when it is called.
"""

from __future__ import annotations

import html
import json
import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple
from urllib.parse import urlsplit

import pandas as pd

from .._frames.identity import is_derived
from .._schema import AD_DAYS, share_columns
from .._time import check_zone
from . import values
from .export import CELL_BOUNDARIES, FORMULA_STARTS, INSIDE_MARK, spreadsheet_text

if TYPE_CHECKING:
    from itables.widget import ITable

SEP: Final = "\x1f"
"""Between a cell's display, sort, plain and export parts (removed from the values first)."""

RENDER: Final = (
    "function (data, type) {"
    " if (typeof data !== 'string') { return data; }"
    " var parts = data.replace(/\\u001e/g, '\\n').replace(/\\u001d/g, '\\t')"
    ".replace(/\\u001c/g, '\\r').split('\\u001f');"
    " if (type === 'display') { return parts[0]; }"
    " var plain = parts.length < 3 ? parts[0] : parts[2];"
    " var text = plain;"
    " if (type === 'sort' || type === 'type') { text = parts.length < 3 ? plain : parts[1]; }"
    " else if (type === 'export') { text = parts.length > 3 ? parts[3] : plain; }"
    " else { return plain; }"
    " return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '\"')"
    ".replace(/&#x27;/g, \"'\").replace(/&amp;/g, '&'); }"
)
"""The render function of every column: the part of the cell DataTables asks for, its
line breaks and tabs put back (itables sends text through pandas' formatter, which
would show them as ``\\n``: they travel as :data:`BREAKS`).

Every part travels HTML escaped (see the module). ``display`` gets our HTML; ``sort``
and ``type`` the text or number it sorts by, and ``export`` (the CSV's) the export
part, decoded here by string replacements (the exact inverse of
:func:`html.escape`), never through the page. Every other part (``filter``: what a
search sees) gets the plain text as it travels, escaped: DataTables reads search text
that holds ``&`` through a ``<div>``'s ``innerHTML`` to decode entities, so raw text
there would become live elements (``Q&A <img src=x onerror=...>`` ran its script);
escaped, it decodes back to the text itself."""

_JS_ESCAPED: Final = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "-": "\\-", "\x00": "\\u0000"}
_FORMULA_CLASS: Final = "".join(_JS_ESCAPED.get(c, c) for c in FORMULA_STARTS)
_BOUNDARY_CLASS: Final = "".join(_JS_ESCAPED.get(c, c) for c in CELL_BOUNDARIES)
_MARK: Final = f"\\u{ord(INSIDE_MARK):04x}"

EXPORT_NAME: Final = (
    "function (title, column, node) {"
    " var cell = node && node.querySelector"
    " ? (node.querySelector('.dt-column-title') || node) : null;"
    " var name = cell ? cell.textContent : String(title === null || title === undefined"
    " ? '' : title).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '\"')"
    ".replace(/&#x27;/g, \"'\").replace(/&nbsp;/g, '\\u00a0').replace(/&amp;/g, '&');"
    " name = name.replace(/\\u001e/g, '\\n').replace(/\\u001d/g, '\\t')"
    ".replace(/\\u001c/g, '\\r');"
    f" name = name.replace(/([{_BOUNDARY_CLASS}])(?={_MARK}*'*[{_FORMULA_CLASS}])/g,"
    f" '$1{_MARK}');"
    f" return /^'*[{_FORMULA_CLASS}]/.test(name) ? \"'\" + name : name; }}"
)
"""A column's name in the CSV: the header's text (read as text, never as HTML), as
:func:`~socialframe._display.export.spreadsheet_text` makes it (as the cells' export
part, :func:`cells`): a ``'`` before it when a spreadsheet would take it for a
formula, a zero-width space where one would start inside it."""

EXPORT_CELL: Final = "function (data) { return data === null || data === undefined ? '' : data; }"
"""A cell in the CSV: the export part :data:`RENDER` gave, as it is (Buttons' own
cleaning would drop ``<script>...</script>`` and ``<!-- -->`` from the text, trim it,
and decode ``&lt;`` into ``<``)."""

CSV_TITLE: Final = (
    "The rows the search leaves, in the order shown, as a CSV file for spreadsheets: "
    "text that a spreadsheet would run as a formula (starting with = + - @, a tab or a "
    "return) starts with ' so that it stays text; numbers stay numbers."
)
"""The "Download CSV" button's tooltip."""

BREAKS: Final = {"\n": "\x1e", "\t": "\x1d", "\r": "\x1c"}
"""Line breaks and tabs, as they travel in a cell."""

AD_LIBRARY: Final = "https://www.facebook.com/ads/library/?id="
"""An ad's public page, by its ``ad_archive_id`` (never by an id socialframe derived:
an ad sent without one has no page there to link to)."""

MAX_BYTES: Final = 16 * 2**20
"""Beyond this much data, itables shows a sample of the rows and says so."""

#: Columns holding a post's urn or id: shown short, whole on hover.
POST_COLUMNS: Final = frozenset({"post", "post_urn"})
#: Columns of whole days (an ad's dates): shown as days, whatever their time.
DAY_COLUMNS: Final = AD_DAYS
#: Columns ordered newest first, the first one present.
NEWEST_FIRST: Final = ("created_at", "start_date", "at", "first_seen", "fetched_at")
#: Text this long (or with a line break) is shown as text: wrapped, left-aligned.
LONG_TEXT: Final = 40

#: The CSS of our tables: text keeps its line breaks, is never squeezed to a few words
#: a line (nor pushed past its cell by a long URL), and everything is left-aligned but
#: numbers. (A table wider than the notebook
#: scrolls sideways inside its box: DataTables' own ``div.dt-layout-table > div``.)
CSS: Final = (
    ".sf-text { white-space: pre-wrap; overflow-wrap: break-word; text-align: left;"
    " min-width: 16em; max-width: 40em; }"
    " .sf-word { white-space: nowrap; text-align: left; }"
    " .sf-num { white-space: nowrap; text-align: right; }"
    " .sf-time { white-space: nowrap; text-align: left; }"
    " .sf-thumb { height: 48px; max-width: 96px; object-fit: cover; }"
)


#: A height: CSS pixels, or a CSS length DataTables' ``scrollY`` would take.
_HEIGHT: Final = re.compile(r"\d+(\.\d+)?(px|em|rem|vh|%)")


def _box(height: int | str) -> tuple[str, str]:
    """The class and the CSS of a table shown in a box of ``height`` that scrolls, its
    header staying at the top (over its columns: it is the table's own).

    Raises:
        ValueError: ``height`` is no CSS length.
    """
    length = f"{height}px" if isinstance(height, int) and not isinstance(height, bool) else height
    if not isinstance(length, str) or not _HEIGHT.fullmatch(length):
        raise ValueError(f"a table's height is a number of pixels or a CSS length, not {height!r}")
    name = "sf-box-" + length.replace(".", "_").replace("%", "pc")
    css = (
        f" div.dt-layout-table > div:has(> table.{name})"
        f" {{ max-height: {length}; overflow: auto; }}"
        f" table.{name} > thead > tr > th {{ position: sticky; top: 0; z-index: 1;"
        " background-color: var(--dt-html-background, white); }"
    )
    return name, css


_CONTROLS: Final = str.maketrans({"\x1c": " ", "\x1d": " ", "\x1e": " ", SEP: " "} | BREAKS)


def _clean(value: object) -> str:
    """``value`` as text that travels: our separators taken out, breaks as :data:`BREAKS`."""
    return str(value).translate(_CONTROLS)


def _escape(value: object) -> str:
    return html.escape(_clean(value), quote=True)


def _export(plain: object) -> str:
    """What follows a cell's plain part when the CSV must not get ``plain`` itself (else
    ``""``): its separator and the text with a ``'`` before it, for text a spreadsheet
    would take for a formula (escaped, as every part travels). Numbers are never
    touched: ``-5`` stays a number."""
    if isinstance(plain, str):
        safe = spreadsheet_text(plain)
        if safe != plain:
            return SEP + _escape(safe)
    return ""


def _cell(display: str, sort: object, plain: object) -> str:
    """One cell: ``display`` is HTML (already escaped); ``sort`` and ``plain`` are text
    (or numbers), escaped here: no part of a cell is markup as it travels (see the
    module); the export part follows when it differs from ``plain``."""
    return f"{display}{SEP}{_escape(sort)}{SEP}{_escape(plain)}{_export(plain)}"


def _text(value: object) -> str:
    """A cell of text: the text escaped, once (it is what is shown, sorted and found),
    when it is no formula to a spreadsheet (most text); else three times and what the
    CSV gets."""
    shown = _escape(value)
    export = _export(str(value))
    if not export:
        return shown
    return f"{shown}{SEP}{shown}{SEP}{shown}{export}"


class Parts(NamedTuple):
    """The parts of a cell (:func:`cells`), as :data:`RENDER` hands them to DataTables."""

    display: str
    """HTML, escaped."""
    sort: str
    """What it sorts by."""
    plain: str
    """The value as text: what a search finds."""
    export: str
    """What the CSV download writes."""


def split(cell: str) -> Parts:
    """The parts of a cell of :func:`cells`, line breaks and tabs put back (what
    :data:`RENDER` does in the page).

    Example:
        >>> split(cells(pd.DataFrame({"text": ["=1+2 <b>"]}))[0].iloc[0, 0])
        Parts(display='=1+2 &lt;b&gt;', sort='=1+2 <b>', plain='=1+2 <b>', export="'=1+2 <b>")
    """
    for back, travel in BREAKS.items():
        cell = cell.replace(travel, back)
    parts = cell.split(SEP)
    text = [html.unescape(part) for part in parts]  # (every part travels escaped)
    if len(parts) < 3:
        return Parts(parts[0], text[0], text[0], text[0])
    return Parts(parts[0], text[1], text[2], text[3] if len(parts) > 3 else text[2])


def _web(url: object) -> str | None:
    """``url`` when it is an http(s) URL (the only ones linked: ``javascript:`` runs)."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    return url if url.lower().startswith(("https://", "http://")) else None


def host(url: str) -> str:
    """A link's label: its site, ``www.`` left out.

    Example:
        >>> host("https://www.example.com/shoes?utm=1")
        'example.com'
    """
    try:
        name = urlsplit(url).hostname
    except ValueError:  # ("http://[::1": no site to name) the URL itself, not a failure
        return url
    return name.removeprefix("www.") if name else url


def _link(url: str, label: str) -> str:
    # (no title: the browser shows where a link goes; the URL is in the CSV)
    quoted = html.escape(_clean(url), quote=True)
    return f"<a href='{quoted}' target='_blank' rel='noopener noreferrer'>{_escape(label)}</a>"


def short_post(value: str) -> str:
    """A post's label alone (:func:`.values.post_labels` tells a column's posts apart).

    Example:
        >>> short_post("urn:li:activity:7384427202391592965")
        '…592965'
    """
    return values.post_labels([value])[0]


def _post(value: object, label: str) -> str:
    """A post's cell: its label, the whole post on hover."""
    return _cell(f"<span title='{_escape(value)}'>{_escape(label)}</span>", value, value)


def _number(value: float) -> str:
    """A number in a cell of text, lists or objects (a column of numbers has its own
    format, :func:`.values.number_format`)."""
    return values.number_format(pd.Series([value]))(value)


Formatter = Callable[[Any], str]


#: DataTables' type of each look (times sort by their instant, in milliseconds).
_TYPES: Final = {"num": "num", "time": "num", "word": "string", "text": "string"}


def _column(
    name: str, column: pd.Series, tz: str, share: bool, derived: Sequence[bool] = ()
) -> tuple[list[Any], str]:
    """The cells of one column, and its look (``num``, ``time``, ``word``, ``text``):
    what a value shows is :mod:`.values`' (as in every display), beside what it sorts
    by and its plain value; ``derived``: which rows' ids are derived (the frame's
    ``id_derived``), if known."""
    dtype = column.dtype
    known = values.texts(name, column, tz=tz, share=share)
    if known is not None:
        shown, look = known
        if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(dtype):
            stamps = (
                column if isinstance(dtype, pd.DatetimeTZDtype) else column.dt.tz_localize("UTC")
            )
            utc = stamps.dt.tz_convert("UTC")
            return [
                _cell(text, u.value // 1_000_000, u.isoformat()) if text else ""
                for text, u in zip(shown, utc, strict=True)
            ], look
        if pd.api.types.is_timedelta64_dtype(dtype):
            return [
                _cell(text, v.total_seconds(), str(v)) if text else ""
                for text, v in zip(shown, column, strict=True)
            ], look
        if pd.api.types.is_bool_dtype(dtype):
            return [
                _cell(text, int(bool(v)), bool(v)) if text else ""
                for text, v in zip(shown, column, strict=True)
            ], look
        # numbers: one cell's text when it is the value itself (most counts: sent once)
        return [
            (text if text == str(v) else _cell(text, v, v)) if text else ""
            for text, v in zip(shown, column, strict=True)
        ], look
    given = column.astype(object).tolist()
    if name == "ad_archive_id":  # linked to its Ad Library page; a derived id to none
        unlinked = list(derived) or [False] * len(given)
        return [
            ""
            if not values.present(v)
            else _text(v)
            if no or is_derived(v)
            else _cell(_link(AD_LIBRARY + str(v), str(v)), v, v)
            for v, no in zip(given, unlinked, strict=True)
        ], "word"
    if name in POST_COLUMNS:
        labels = values.post_labels(given)
        return [
            _post(v, label) if values.present(v) else ""
            for v, label in zip(given, labels, strict=True)
        ], "word"
    cells = [_any(name, v) for v in given]
    long = any(isinstance(v, str) and (len(v) > LONG_TEXT or "\n" in v) for v in given[:2000])
    return cells, "text" if long else "word"


def _any(name: str, value: object) -> str:
    """A cell of text, a URL, a list or a dict."""
    if not values.present(value):
        return ""
    if isinstance(value, str):
        url = _web(value)
        if url is not None:
            return _cell(_link(url, host(url)), host(url), url)  # (sorted by site)
        return _text(value)
    if isinstance(value, Mapping):
        text = json.dumps(value, default=str, ensure_ascii=False)
        return _cell(_escape(text[:300] + ("…" if len(text) > 300 else "")), text, text)
    if isinstance(value, Sequence) or hasattr(value, "tolist"):
        items: list[Any] = list(value.tolist() if hasattr(value, "tolist") else value)  # type: ignore[arg-type]
        urls = [u for u in map(_web, items) if u]
        if name == "image_urls" and urls:  # a thumbnail of the first, linked to it
            quoted = html.escape(_clean(urls[0]), quote=True)
            thumb = (
                f"<a href='{quoted}' target='_blank' rel='noopener noreferrer'>"
                f"<img class='sf-thumb' src='{quoted}' alt='image' loading='lazy'"
                " referrerpolicy='no-referrer'></a>"
            )
            return _cell(thumb, len(urls), " ".join(urls))
        return _text(values.listed(items))
    if isinstance(value, numbers.Real) and not isinstance(value, bool):  # (not complex)
        number = float(value)
        if math.isfinite(number):
            return _cell(_number(number), number, value)
    return _text(value)


def _same_post(frame: pd.DataFrame) -> bool:
    """Whether ``post`` and ``post_urn`` say the same thing on every row."""
    if not {"post", "post_urn"} <= set(frame.columns):
        return False
    ids = frame["post"].astype("string").str.extract(r"(\d+)$", expand=False)
    urn_ids = frame["post_urn"].astype("string").str.extract(r"(\d+)\)?$", expand=False)
    return bool((ids.fillna("") == urn_ids.fillna("")).all())


def cells(frame: pd.DataFrame, *, tz: str = "UTC") -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """What an interactive table of ``frame`` shows: a frame of cells (see the module's
    docstring), and the DataTables ``columnDefs`` of their looks.

    A named index is shown as the first columns (an unnamed one, such as the row
    numbers a filter kept, is not); ``post_urn`` is left out where
    ``post`` says the same. ``frame`` itself is not changed.

    Args:
        frame: Any frame (ours, or one made from ours).
        tz: Time zone of the times shown (days stay days, in UTC).

    Returns:
        ``(shown, column_defs)``.

    Example:
        >>> frame = pd.DataFrame({"text": ["<b>hi</b>"], "n": [12345]})
        >>> shown, _ = cells(frame)
        >>> shown.iloc[0].tolist()
        ['&lt;b&gt;hi&lt;/b&gt;', '12,345\\x1f12345\\x1f12345']
    """
    data = frame
    if any(n is not None for n in data.index.names):  # (rows kept by a filter: not shown)
        data = data.reset_index()
    if _same_post(data):
        data = data.drop(columns="post_urn")
    names = [" / ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in data.columns]
    keys = [_escape(name) for name in names]
    if frame.columns.name in POST_COLUMNS:  # columns that are posts: named as posts are
        own = set(frame.columns)
        posts = [c for c in data.columns if c in own]
        labels = dict(zip(posts, values.post_labels(posts), strict=True))
        keys = [
            f"<span title='{key}'>{_escape(labels[c])}</span>" if c in labels else key
            for c, key in zip(data.columns, keys, strict=True)
        ]
    shares = share_columns(frame)
    flags = data["id_derived"] if names.count("id_derived") == 1 else None
    derived: list[bool] = []
    if flags is not None and pd.api.types.is_bool_dtype(flags.dtype):
        derived = flags.fillna(False).astype(bool).tolist()
    columns: dict[str, list[Any]] = {}
    looks: dict[str, list[int]] = {"num": [], "time": [], "word": [], "text": []}
    for i, (name, key, (label, column)) in enumerate(zip(names, keys, data.items(), strict=True)):
        shown, look = _column(name, column, tz, label in shares, derived)
        while key in columns:  # two columns of one name stay two
            key += " "
        columns[key] = shown
        looks[look].append(i)
    out = pd.DataFrame(columns, dtype=object)
    # Types said, not guessed: text holding "<" would be taken for HTML, whose search
    # and sort leave the tags out.
    defs: list[dict[str, Any]] = [
        {"targets": targets, "className": f"sf-{look}", "type": _TYPES[look]}
        for look, targets in looks.items()
        if targets
    ]
    return out, defs


def newest_first(frame: pd.DataFrame) -> list[list[Any]]:
    """The table's first order: newest first by the first time column of
    :data:`NEWEST_FIRST` (as shown: after a named index), else as the frame is."""
    shown, _ = cells(frame.head(0))
    for name in NEWEST_FIRST:
        if name in shown.columns:
            return [[int(shown.columns.get_loc(name)), "desc"]]
    return []


def show(frame: pd.DataFrame, *, tz: str = "UTC", **options: Any) -> ITable:
    """Any frame of ours as an interactive table (itables' ``ITable`` widget).

    Sort by any column, search as you type, pages, a "Download CSV" button (the rows
    the search leaves, in the order shown, for a spreadsheet: text it would run as a
    formula starts with ``'``), rows to select by clicking (Ctrl / Shift for more):
    ``table.selected_rows`` are their positions in ``frame``. It shows as a cell's
    last line, and can be kept in a variable. The data is not changed; only its
    display is: durations as ``20h 14m``, times to the minute (days for whole days),
    post urns short with the whole urn on hover, links as their site, numbers with
    thousands separators, text with its line breaks; no text becomes markup. Newest
    first.

    Args:
        frame: A frame of ours (comments, ads, an analysis of them) or any other.
        tz: Time zone of the times shown.
        **options: itables options (``pageLength``, ``order``, ``caption``, ...),
            which win over ours; ``columnDefs`` are added to ours, after the render
            function that keeps every text text.

    Returns:
        An ``itables.widget.ITable``.

    Raises:
        TypeError: ``frame`` is not a DataFrame.

    Example:
        >>> import socialframe as sf
        >>> from socialframe.sandbox import example_comments
        >>> table = sf.show(example_comments())
        >>> table.selected_rows
        []
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"show() takes a DataFrame, not {type(frame).__name__}")
    check_zone(tz)
    caption = options.pop("caption", None)
    return interactive(frame, tz=tz, caption=caption, **options)


def interactive(
    frame: pd.DataFrame,
    *,
    tz: str = "UTC",
    caption: str | None = None,
    page_length: int = 25,
    select: bool = True,
    order: list[list[Any]] | None = None,
    height: int | str | None = None,
    **options: Any,
) -> ITable:
    """An itables ``ITable`` widget of ``frame`` with our display rules (see the module).

    Sort by any column, search as you type, pages of ``page_length`` rows, a
    "Download CSV" button (the rows the search leaves, in the order shown, safe for a
    spreadsheet: see the module), and, with
    ``select``, rows picked by clicking (Ctrl / Shift for more) are the widget's
    ``selected_rows``: positions in ``frame``. :func:`refill` shows another frame in it.

    Args:
        frame: The frame to show.
        tz: Time zone of the times shown.
        caption: A line under the table.
        page_length: Rows per page.
        select: Whether rows can be selected.
        order: DataTables' first order; newest first by default (see
            :func:`newest_first`).
        height: The most the table takes down the page (pixels, or a CSS length such
            as ``"420px"``); more rows scroll inside it, under a header that stays.
            DataTables' ``scrollY`` is taken as this; ``scrollX`` and
            ``scrollCollapse`` are not needed (a wide table always scrolls sideways
            in its box).
        **options: Other itables options, which win over ours; ``columnDefs`` are
            added to ours, after the render function that keeps every text text
            (a column's ``render`` of the caller's is not used).

    Returns:
        The widget.

    Raises:
        ValueError: ``height`` is no CSS length.
    """
    from itables.widget import ITable

    shown, chosen = _arguments(
        frame,
        tz=tz,
        page_length=page_length,
        select=select,
        order=order,
        height=height,
        **options,
    )
    table = ITable(shown, caption=caption, **chosen)
    table._socialframe = {  # what refill() needs to show another frame the same way
        "tz": tz,
        "page_length": page_length,
        "select": select,
        "order": order,
        "height": height,
        **options,
    }
    return table


def refill(table: ITable, frame: pd.DataFrame) -> None:
    """Show ``frame`` in ``table`` (made by :func:`interactive`), with the same options;
    the selection is cleared (its positions were the old frame's)."""
    shown, chosen = _arguments(frame, **table._socialframe)
    table.update(shown, selected_rows=[], **chosen)


def _rows_that_fit(shown: pd.DataFrame) -> int:
    """How many rows of ``shown`` (:func:`cells`) fit in :data:`MAX_BYTES` of the JSON sent
    to the page. (itables' own ``maxBytes`` counts a column of text as 8 bytes a cell,
    its pointers: 100,000 comments went whole, some 200 MB.)"""
    if shown.empty:
        return 0
    size = 0
    for _, column in shown.items():
        text = column.astype("string")
        # a cell's characters, its quotes and comma, and the escapes JSON writes for
        # separators and for every character beyond ASCII (six characters each)
        size += int(text.str.len().fillna(0).sum()) + 3 * len(text)
        size += 5 * int(text.str.count(r"[^\x20-\x7e]").fillna(0).sum())
    if size <= MAX_BYTES:
        return len(shown)
    return max(1, len(shown) * MAX_BYTES // size)


def _arguments(
    frame: pd.DataFrame,
    *,
    tz: str,
    page_length: int,
    select: bool,
    order: list[list[Any]] | None,
    height: int | str | None,
    **options: Any,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The cells of ``frame`` and every itables option of its table (all of them, each
    time: itables' ``update`` would put its defaults back in place of ours).

    One table, never DataTables' scrolling (``scrollX`` / ``scrollY``): that draws the
    header as a table of its own, which stands over the body's columns only when
    DataTables computes every column's width (``autoWidth``), once, from a few of the
    longest texts, while the table is on screen. Our tables are drawn before they are
    shown (a widget's first draw, the explorer's), wrap text and hold wider cells on
    other pages: the header stood up to 11,000 px off its column. In one table the
    browser lines them up, whatever is drawn when."""
    from itables import JavascriptFunction

    for scrolling in ("scrollX", "scrollCollapse"):
        options.pop(scrolling, None)
    height = options.pop("scrollY", height)
    classes = "display compact"
    css = CSS
    if height is not None:
        box, box_css = _box(height)
        classes, css = f"{classes} {box}", css + box_css
    shown, looks = cells(frame, tz=tz)
    fits = _rows_that_fit(shown)
    # DataTables takes the first definition that says a thing of a column: the render
    # comes first, the caller's next (their widths, classes...), our looks last.
    given = options.pop("columnDefs", None) or []
    defs = [
        {"targets": "_all", "render": JavascriptFunction(RENDER)},
        *(given if isinstance(given, list) else [given]),
        *looks,
    ]
    chosen: dict[str, Any] = {
        "allow_html": True,  # every cell escaped above: links and hover titles only
        "showIndex": False,
        "maxBytes": MAX_BYTES,
        "columnDefs": defs,
        "order": newest_first(frame) if order is None else order,
        "pageLength": page_length,
        "lengthMenu": sorted({10, 25, 50, 100, 500, page_length}),
        "layout": {
            "topStart": "pageLength",
            "topEnd": "search",
            "bottomStart": "info",
            "bottomEnd": "paging",
            "top2Start": "buttons",
        },
        "buttons": [
            {
                "extend": "csvHtml5",
                "text": "Download CSV",
                "titleAttr": CSV_TITLE,
                "title": "socialframe",
                "bom": True,  # (Excel reads a file without it in the machine's code page)
                "footer": False,  # (DataTables' empty footer: an empty last line)
                "exportOptions": {
                    "orthogonal": "export",  # the data as it is, not as shown
                    # our cells and names as they are: not through Buttons' cleaning
                    # (stripHtml, trim, decodeEntities...), which changes text
                    "format": {
                        "header": JavascriptFunction(EXPORT_NAME),
                        "body": JavascriptFunction(EXPORT_CELL),
                    },
                    # the rows the search leaves, in the order shown, selected or not
                    "modifier": {"search": "applied", "order": "applied", "selected": None},
                },
            }
        ],
        "classes": classes,
        "style": "table-layout:auto;width:100%;margin:0;caption-side:bottom",
        "css": css,
        "autoWidth": False,  # (the browser sizes the columns: one table, see above)
        "warn_on_selected_rows_not_rendered": False,
        "text_in_header_can_be_selected": False,  # a click on a header sorts by it
    }
    if fits < len(shown):  # itables then keeps the first and last rows, and says so
        chosen["maxRows"] = fits
    if select:
        chosen["select"] = {"style": "os", "items": "row"}
    chosen.update(options)
    return shown, chosen
