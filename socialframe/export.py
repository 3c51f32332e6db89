"""CSV export that survives spreadsheets: ids as text, lists as JSON, newlines quoted."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Columns holding ids: 19-digit numbers that a spreadsheet would turn into 7.38E+18.
ID_SUFFIXES = ("_id", "_urn")


def _is_id(name: str) -> bool:
    return name.endswith(ID_SUFFIXES) or name in {"comment_id", "ad_archive_id", "collation_id"}


def _json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def csv_ready(df: pd.DataFrame, *, excel: bool = False) -> pd.DataFrame:
    """The frame as it is written: lists / dicts as JSON text, ids as text.

    With ``excel=True`` id cells are written as ``="7384427202391592960"``, the one
    form Excel opens as text rather than as a rounded number in scientific notation.
    """
    out = df.copy()
    for name in out.columns:
        column = out[name]
        if column.dtype == object:
            out[name] = column.map(_json)
        if _is_id(str(name)) and not pd.api.types.is_numeric_dtype(column):
            text = out[name].astype("string")
            out[name] = ('="' + text + '"') if excel else text
    return out


def to_csv(df: pd.DataFrame, path: str | Path, *, excel: bool = False) -> Path:
    """Write ``df`` to ``path`` as CSV; ``excel=True`` adds the UTF-8 BOM Excel needs.

    Times are ISO 8601 with their offset; text keeps its newlines inside quotes.

    Returns:
        The path written.
    """
    target = Path(path)
    csv_ready(df, excel=excel).to_csv(
        target,
        index=False,
        encoding="utf-8-sig" if excel else "utf-8",
        quoting=csv.QUOTE_MINIMAL,
        lineterminator="\r\n" if excel else "\n",
        date_format="%Y-%m-%dT%H:%M:%S.%f%z",
    )
    return target
