"""The columns of a study's tables and their dtypes: the one place the writers (a
refresh, a migration) and the readers (the views, the checks) take them from.

Each table's Delta schema is made from these (:func:`arrow_schema`): every file of a
table holds exactly its columns, of its types.
"""

from __future__ import annotations

from typing import Any, Final

from .._schema import AD_DTYPES, COMMENT_DTYPES

#: Columns a refresh adds to each kind's rows.
SEEN: Final = {"item": "string", "watch": "string", "seen_at": "datetime64[us, UTC]"}
CHANGE_DTYPES: Final = {
    "at": "datetime64[us, UTC]",
    "kind": "string",
    "item": "string",
    "id": "string",
    "change": "string",
}
#: What each change row says beside it (written since changes carry their proof; an
#: older study's rows have none: missing there).
CHANGE_DETAIL: Final = {
    "fields": "string",
    "previous": "string",
    "current": "string",
    "evidence": "string",
    "cost_usd": "Float64",
}
ITEM_DTYPES: Final = {
    "at": "datetime64[us, UTC]",
    "kind": "string",
    "item": "string",
    "new": "Int64",
    "changed": "Int64",
    "paid_calls": "Int64",
    "cost_usd": "Float64",
    "complete": "boolean",
    "missing": "Int64",
}
RUN_DTYPES: Final = {
    "at": "datetime64[us, UTC]",
    "paid_calls": "Int64",
    "cost_usd": "Float64",
    "new": "Int64",
    "changed": "Int64",
    "items": "Int64",
    "complete": "boolean",
}
#: What is watched: one row per item added (an item added twice is read once).
WATCHED_DTYPES: Final = {
    "watch": "string",
    "kind": "string",
    "item": "string",
    "filters": "string",  # (JSON text: the search's parameters)
    "added_at": "datetime64[us, UTC]",
    "position": "Int64",  # (its place among those added at once)
}
#: The refresh a row belongs to: every table but ``watched`` has it.
REFRESH: Final = {"refresh": "string"}

#: What each table's files hold: their columns and dtypes (``object``: lists of text).
STORED: Final[dict[str, dict[str, Any]]] = {
    "comments": {**COMMENT_DTYPES, "content_id": "string", **SEEN, **REFRESH},
    "ads": {**AD_DTYPES, "extra": "string", "content_id": "string", **SEEN, **REFRESH},
    "changes": {**CHANGE_DTYPES, "watch": "string", **CHANGE_DETAIL, **REFRESH},
    "items": {**ITEM_DTYPES, "watch": "string", "state": "string", **REFRESH},
    "runs": {**RUN_DTYPES, **REFRESH},
    "watched": WATCHED_DTYPES,
}


#: What the files of a study of the format before Delta Lake held (:mod:`.legacy`).
STORED_BEFORE: Final[dict[str, dict[str, Any]]] = {
    kind: {
        name: dtype
        for name, dtype in STORED[kind].items()
        if name != "refresh" and not (kind == "items" and name == "state")
    }
    for kind in ("comments", "ads", "changes", "items", "runs")
}


def arrow_schema(kind: str) -> Any:
    """The Arrow schema of table ``kind`` (its Delta schema is made from it)."""
    if kind not in _SCHEMAS:
        import pandas as pd
        import pyarrow as pa

        fields = []
        for name, dtype in STORED[kind].items():
            if str(dtype) == "object":  # the study's only object columns are lists of text
                fields.append(pa.field(name, pa.list_(pa.string())))
                continue
            empty = pd.DataFrame({name: pd.Series(dtype=dtype)})
            field = pa.Schema.from_pandas(empty, preserve_index=False).field(name)
            held = field.type
            if pa.types.is_dictionary(held):  # (a category: its values, as Delta has none)
                held = held.value_type
            if pa.types.is_large_string(held) or pa.types.is_string_view(held):
                held = pa.string()
            elif pa.types.is_duration(held):  # (Delta has no span: whole seconds)
                held = pa.int64()
            field = field.with_type(held)
            fields.append(field)
        _SCHEMAS[kind] = pa.schema(fields)
    return _SCHEMAS[kind]


_SCHEMAS: dict[str, Any] = {}
