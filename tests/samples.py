"""Small hand-made frames and readers shared by the tests (not a test module)."""

from __future__ import annotations

import base64
import html
from html.parser import HTMLParser
from typing import Any

import pandas as pd


def tiny(**columns: Any) -> pd.DataFrame:
    """A small comments-like frame; unspecified columns are filled per row."""
    n = len(next(iter(columns.values())))
    base: dict[str, Any] = {
        "created_at": pd.to_datetime(["2025-12-01 12:00"] * n, utc=True),
        "author_type": pd.Categorical(["person"] * n, categories=["person", "organization"]),
        "author_followers": pd.array([None] * n, dtype="Int64"),
        "author_name": [f"author {i}" for i in range(n)],
        "author_url": [f"https://www.linkedin.com/in/a{i}" for i in range(n)],
        "text": ["hello"] * n,
        "permalink": [f"https://www.linkedin.com/feed/update/c{i}" for i in range(n)],
    }
    base.update(columns)
    return pd.DataFrame(base)


def png_of(output: dict[str, Any]) -> bytes:
    return base64.b64decode(output["data"]["image/png"])


def body_rows(table_html: str) -> int:
    return table_html.count("<tr>") - 1  # minus the header row


class Table(HTMLParser):
    """The tables of an HTML text, read as its source says them (character references
    are not turned into text first): the text of the header cells (those in ``thead``),
    and of each row's cells with the link each holds (``cells``; ``rows``: their text).

    ``unescaped`` collects what a cell holds that escaping would have written otherwise
    (a bare ``&``, a tag that is not a link): what the service sent, obeyed."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=False)
        self.head: list[str] = []
        self.cells: list[list[tuple[str, str | None]]] = []
        self.unescaped: list[str] = []
        self._cell: list[str] | None = None
        self._link: str | None = None
        self._in_head = False
        self.feed(page)
        self.close()

    @property
    def rows(self) -> list[list[str]]:
        return [[text for text, _ in row] for row in self.cells]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._cell is not None and tag != "a":
            self.unescaped.append(f"<{tag}>")
        if tag == "thead":
            self._in_head = True
        elif tag == "tr" and not self._in_head:
            self.cells.append([])
        elif tag in ("td", "th"):
            self._cell, self._link = [], None
        elif tag == "a":
            self._link = dict(attrs).get("href")

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            if self._in_head:
                self.head.append(text)
            elif self.cells:
                self.cells[-1].append((text, self._link))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            if "&" in data:
                self.unescaped.append(data)
            self._cell.append(data)

    def handle_entityref(self, name: str) -> None:
        if self._cell is not None:
            self._cell.append(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        if self._cell is not None:
            self._cell.append(html.unescape(f"&#{name};"))
