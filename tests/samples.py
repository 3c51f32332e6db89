"""Small hand-made frames and readers shared by the tests (not a test module)."""

from __future__ import annotations

import base64
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
