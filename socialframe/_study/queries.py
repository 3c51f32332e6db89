"""DuckDB over a study's files: the views ``comments``, ``ads``, ``changes``, ``runs``.

Every view reads exactly the files the manifest names (a refresh that never
finished is not seen), and DuckDB streams them, so a study larger than memory
still answers: only what a query returns has to fit. ``comment_versions`` and
``ad_versions`` hold every version ever seen; ``comments`` and ``ads`` the latest
one of each id, with when it was first and last seen.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from .._schema import AD_DTYPES, COMMENT_DTYPES
from .dataset import Dataset, Manifest

if TYPE_CHECKING:
    import duckdb

#: What one query may hold in memory before DuckDB spills to disk.
MEMORY_LIMIT: Final = "1GB"
#: Columns a refresh adds to each kind's rows (besides the partition's ``refresh``).
SEEN: Final = {"item": "string", "seen_at": "datetime64[us, UTC]"}
CHANGE_DTYPES: Final = {
    "at": "datetime64[us, UTC]",
    "kind": "string",
    "item": "string",
    "id": "string",
    "change": "string",
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

_EMPTY_SQL: Final = {
    "comments": "select null::varchar as comment_id, null::varchar as item,"
    " null::timestamptz as seen_at, null::timestamptz as created_at,"
    " null::varchar as text, null::varchar as refresh",
    "ads": "select null::varchar as ad_archive_id, null::varchar as item,"
    " null::timestamptz as seen_at, null::boolean as is_active,"
    " null::timestamptz as start_date, null::timestamptz as end_date,"
    " null::varchar as body_text, null::varchar as title, null::varchar as caption,"
    " null::varchar as link_url, null::varchar as cta_text, null::varchar as refresh",
    "changes": 'select null::timestamptz as "at", null::varchar as kind, null::varchar as item,'
    " null::varchar as id, null::varchar as change, null::varchar as refresh",
    "runs": 'select null::timestamptz as "at", null::bigint as paid_calls, null::double as'
    " cost_usd, null::bigint as new, null::bigint as changed, null::bigint as items,"
    " null::boolean as complete, null::varchar as refresh",
    "items": 'select null::timestamptz as "at", null::varchar as kind, null::varchar as item,'
    " null::bigint as new, null::bigint as changed, null::bigint as paid_calls,"
    " null::double as cost_usd, null::boolean as complete, null::bigint as missing,"
    " null::varchar as refresh",
}


def connect(dataset: Dataset, manifest: Manifest) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the study's views (times in UTC)."""
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute("set TimeZone = 'UTC'")
    # Bounded memory, whatever the study's size: past the limit DuckDB spills to the
    # system's temporary folder (never into the study or the working folder).
    con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
    con.execute(
        f"set temp_directory = {_quoted(str(Path(tempfile.gettempdir()) / 'socialframe-duckdb'))}"
    )
    con.execute("set preserve_insertion_order = false")
    con.execute("set enable_progress_bar = false")  # a library prints nothing
    for kind in ("comments", "ads", "changes", "runs", "items"):
        files = [str(dataset.path / path) for path in manifest.files(kind)]
        name = {"comments": "comment_versions", "ads": "ad_versions"}.get(kind, kind)
        if files:
            listed = ", ".join(_quoted(f) for f in files)
            source = (
                f"select * from read_parquet([{listed}], hive_partitioning = true,"
                " union_by_name = true)"
            )
        else:
            source = f"select * from ({_EMPTY_SQL[kind]}) where false"
        con.execute(f"create view {name} as {source}")
    con.execute(
        """
        create view comments as
        select * exclude (rank_) from (
            select *,
                min(seen_at) over ids as first_seen,
                max(seen_at) over ids as last_seen,
                row_number() over (partition by comment_id order by refresh desc) as rank_
            from comment_versions
            window ids as (partition by comment_id)
        ) where rank_ = 1
        """
    )
    con.execute(
        """
        create view ads as
        with stops as (
            select id, min("at") as stopped_seen from changes
            where kind = 'ad' and change = 'stopped' group by id
        )
        select * exclude (rank_, id) replace (
            case when stopped_seen is not null and stopped_seen >= seen_at then false
                 else is_active end as is_active
        ) from (
            select v.*,
                min(v.seen_at) over ids as first_seen,
                max(v.seen_at) over ids as last_seen,
                row_number() over (partition by v.ad_archive_id order by v.refresh desc) as rank_
            from ad_versions v
            window ids as (partition by v.ad_archive_id)
        ) latest left join stops on stops.id = latest.ad_archive_id
        where rank_ = 1
        """
    )
    return con


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def typed(frame: pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    """``frame`` (from DuckDB) with the study's dtypes: the frames' own, lists as lists."""
    out = frame.copy()
    for name in out.columns:
        want = dtypes.get(name)
        column = out[name]
        if column.dtype == object:
            out[name] = column.map(lambda v: v.tolist() if hasattr(v, "tolist") else v)
        if want is None or str(want) == "object":
            continue
        if str(want).startswith("datetime64") and not isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = pd.to_datetime(column, utc=True).astype(want)
        else:
            out[name] = out[name].astype(want)
    return out


def comment_dtypes() -> dict[str, Any]:
    return {**COMMENT_DTYPES, **SEEN, "first_seen": SEEN["seen_at"], "last_seen": SEEN["seen_at"]}


def ad_dtypes() -> dict[str, Any]:
    return {
        **AD_DTYPES,
        **SEEN,
        "first_seen": SEEN["seen_at"],
        "last_seen": SEEN["seen_at"],
        "stopped_seen": SEEN["seen_at"],
        "extra": "string",
    }
