"""Reading back what export writes: the format told by the first bytes, whatever the
text of the service holds."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from socialframe._display import export, reading
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

#: Control characters a hostile service may send in a text (no tab, no line break).
CONTROLS = "".join(map(chr, [*range(1, 9), 11, *range(14, 32)])) * 200


@pytest.fixture(scope="module")
def comments() -> pd.DataFrame:
    with Sandbox(clock=PinnedClock()) as sandbox, sandbox.client(cache=False) as client:
        return client.post_comments(EXAMPLE_POSTS[82])


@pytest.mark.parametrize("name", ["c.csv", "excel.csv", "c.jsonl", "c.parquet", "c.xlsx"])
def test_a_first_row_of_control_characters_is_still_a_file_of_ours(
    comments: pd.DataFrame, tmp_path: Path, name: str
) -> None:
    # (the sniffing of binary data reads only the first line: a header, or a JSON object)
    hostile = comments.copy()
    hostile.loc[hostile.index[0], "text"] = CONTROLS
    path = export.write(hostile, tmp_path / name, excel=name == "excel.csv")
    assert path is not None
    back = reading.read_frame(path)
    assert len(back) == len(comments)
    if name != "c.xlsx":  # (in a workbook they are U+FFFD: see export.write)
        assert back["text"].iloc[0] == CONTROLS


def test_utf16_without_its_mark_is_told_from_binary_data() -> None:
    import io

    with pytest.raises(ValueError, match="is UTF-16 text, and socialframe reads UTF-8"):
        reading.read_frame(io.BytesIO("post_urn,text\nx,y\n".encode("utf-16-le")))
    with pytest.raises(ValueError, match="is binary data, not text"):
        reading.read_frame(io.BytesIO(bytes(range(128)) * 8))
