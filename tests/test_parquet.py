"""Parquet bytes read so that no arrow thread outlives the read holding them (the exit
-6 of a CLI run in CI: see socialframe/_parquet.py)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import socialframe as sf
from socialframe import _parquet


def test_no_thread_holds_the_bytes_once_a_read_returns() -> None:
    sink = io.BytesIO()
    pq.write_table(pa.table({"a": range(1000), "b": ["x"] * 1000}), sink)
    held = []
    for _ in range(200):  # (pq.read_table still held them after one return in ten)
        data = bytes(bytearray(sink.getvalue()))  # (a fresh object each time)
        before = sys.getrefcount(data)
        assert _parquet.table(data).num_rows == 1000
        held.append(sys.getrefcount(data) - before)
    assert held == [0] * 200


def test_no_module_reads_parquet_through_a_pyarrow_dataset() -> None:
    root = Path(sf.__file__).parent
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "_parquet.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if any(call in line for call in ("pq.read_table(", "pd.read_parquet(", "ParquetDataset("))
    ]
    assert not found, "read Parquet bytes with socialframe._parquet.table: " + ", ".join(found)
