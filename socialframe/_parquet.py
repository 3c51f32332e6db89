"""Parquet bytes read into pyarrow, so that no arrow thread outlives the read holding a
Python object.

``pq.read_table`` and ``pd.read_parquet`` scan through a dataset; they return while
arrow's threads still hold the reader, and the reader holds the Python ``bytes`` it
reads. The last of those threads to let go must take the GIL to free them. If that
happens while the interpreter shuts down, the thread cannot, and the whole process
aborts: ``terminate called without an active exception``, exit -6, after the work was
done (one run in six of a script that only read a study). Here the bytes are copied
into memory arrow owns, so whichever thread frees them needs no GIL, and the file is
read by ``ParquetFile``, whose reader is freed with it.
"""

from __future__ import annotations

from typing import Any

#: Rows decoded at once where a read is bounded (:func:`table`'s ``most``).
BATCH_ROWS = 64


class TooLarge(ValueError):
    """A Parquet file that would take more memory once read than it may."""


def table(data: bytes, most: int | None = None) -> Any:
    """The pyarrow Table held by the Parquet file ``data``.

    Args:
        data: The file's bytes.
        most: The most bytes it may take once read, if bounded (a small file can hold a
            great deal: the same long text on every row is stored once, and compresses
            well): its columns' sizes before compression are checked first, then the
            rows are read :data:`BATCH_ROWS` at a time, counted as they come.

    Raises:
        TooLarge: it would take more than ``most``.
        pyarrow.ArrowException, OSError or ValueError: ``data`` is not a Parquet file.

    Example:
        >>> import io, pyarrow as pa, pyarrow.parquet as pq
        >>> sink = io.BytesIO()
        >>> pq.write_table(pa.table({"a": [1, 2]}), sink)
        >>> table(sink.getvalue()).column("a").to_pylist()
        [1, 2]
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    owned = pa.allocate_buffer(len(data))
    pa.FixedSizeBufferWriter(owned).write(data)
    file = pq.ParquetFile(pa.BufferReader(owned))
    if most is None:
        return file.read()
    meta = file.metadata
    stored = sum(
        meta.row_group(g).column(c).total_uncompressed_size
        for g in range(meta.num_row_groups)
        for c in range(meta.num_columns)
    )
    if stored > most:
        raise TooLarge(f"{stored} bytes before compression, more than {most}")
    batches, held = [], 0
    for batch in file.iter_batches(batch_size=BATCH_ROWS):
        # (a column of a dictionary's codes holds each text once: counted as the texts
        # it stands for, which is what a frame of it holds once its column is text)
        held += sum(
            column.dictionary_decode().nbytes
            if pa.types.is_dictionary(column.type)
            else column.nbytes
            for column in batch.columns
        )
        if held > most:
            raise TooLarge(f"more than {most} bytes once read")
        batches.append(batch)
    return pa.Table.from_batches(batches, schema=file.schema_arrow)
