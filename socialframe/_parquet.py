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


def table(data: bytes) -> Any:
    """The pyarrow Table held by the Parquet file ``data``.

    Raises:
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
    return pq.ParquetFile(pa.BufferReader(owned)).read()
