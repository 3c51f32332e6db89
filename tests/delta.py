"""A study's tables written as another program would write them: Delta Lake tables,
through deltalake alone (docs/studies.md, "The tables"), for the tests of what a study
reads that its own refreshes no longer write (rows of an older socialframe)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd


def refresh_name(at: datetime) -> str:
    """A refresh's name as the study writes it (its UTC time to the millisecond, sortable
    as text: ``20261125T030500123Z``)."""
    at = at.astimezone(UTC)
    return at.strftime("%Y%m%dT%H%M%S") + f"{at.microsecond // 1000:03d}Z"


def write_refresh(study: Path, at: datetime, rows: dict[str, pd.DataFrame]) -> None:
    """Append one refresh's ``rows`` (per table) to a study's Delta tables with deltalake,
    as another program would (docs/studies.md, "The tables"): each table's columns as its
    Delta schema has them (a column the rows lack: null), every row with its ``refresh``,
    ``runs`` last. The study's tables must exist (made by its first ``add_*``)."""
    import deltalake
    import pyarrow as pa

    refresh = refresh_name(at)
    for kind in sorted(rows, key=lambda k: k == "runs"):
        uri = str(study / kind)
        schema = pa.schema(deltalake.DeltaTable(uri).schema().to_arrow())
        frame = rows[kind].assign(refresh=refresh)
        assert set(frame.columns) <= set(schema.names), set(frame.columns) - set(schema.names)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        columns = [
            table.column(f.name).cast(f.type) if f.name in frame else pa.nulls(len(frame), f.type)
            for f in schema
        ]
        deltalake.write_deltalake(uri, pa.Table.from_arrays(columns, schema=schema), mode="append")
