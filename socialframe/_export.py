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


#: A cell starting with one of these is a formula to a spreadsheet ("CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _id_text(column: pd.Series) -> pd.Series:
    """Ids as text; numeric ids as whole numbers (never 7.38e+18)."""
    if pd.api.types.is_float_dtype(column):
        column = column.round().astype("Int64")
    return column.astype("string")


def _times(column: pd.Series) -> pd.Series:
    # RFC 3339: "+00:00", not strftime's "+0000".
    text = column.dt.strftime("%Y-%m-%dT%H:%M:%S.%f%z")
    return text.str.replace(r"([+-]\d\d)(\d\d)$", r"\1:\2", regex=True)


def csv_ready(df: pd.DataFrame, *, excel: bool = False) -> pd.DataFrame:
    """The frame as it is written: lists / dicts as JSON text, ids as text.

    With ``excel=True`` id cells are written as ``="7384427202391592960"``, the one
    form Excel opens as text rather than as a rounded number in scientific notation,
    and text that Excel would run as a formula (``=``, ``+``, ``-``, ``@`` first:
    comments written by strangers) gets a leading ``'``, which Excel shows as text.
    """
    out = df.copy()
    for name in out.columns:
        column = out[name]
        if column.dtype == object:
            out[name] = column.map(_json)
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = _times(column)
        elif _is_id(str(name)) and not pd.api.types.is_bool_dtype(column):
            text = _id_text(out[name])
            out[name] = ('="' + text + '"') if excel else text
        elif excel and (column.dtype == object or pd.api.types.is_string_dtype(column)):
            text = out[name].astype("string")
            risky = text.str.startswith(FORMULA_STARTS).fillna(False).astype(bool)
            out[name] = text.mask(risky, "'" + text)
    return out


def to_csv(df: pd.DataFrame, path: str | Path, *, excel: bool = False) -> Path:
    """Write ``df`` to ``path`` as CSV; ``excel=True`` adds the UTF-8 BOM Excel needs.

    Times are RFC 3339 (``2026-01-01T09:30:00.000000+00:00``); text keeps its
    newlines inside quotes.

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
    )
    return target
