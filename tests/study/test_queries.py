"""DuckDB over a study's files (``_study/queries.py``): a refresh's runs row counted once,
DuckDB's refusals a ValueError saying why, a study's paths never read as patterns.
Through the sandbox over HTTP, a real SQLite cache, real Parquet files and DuckDB.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]


def test_a_refresh_whose_run_row_is_there_twice_counts_once(
    refreshed: Path, tmp_path: Path
) -> None:
    """A second copy of a refresh's runs row (another program's append) counts its
    changes and its run once."""
    import deltalake

    study_path = tmp_path / "s"
    shutil.copytree(refreshed, study_path)
    study = sf.Study(study_path)
    changes, runs = len(study.changes()), len(study.runs())
    table = deltalake.DeltaTable(str(study_path / "runs"))
    deltalake.write_deltalake(table, table.to_pyarrow_table(), mode="append")
    assert len(study.changes()) == changes and len(study.comments()) == 82
    assert len(study.sql("select distinct refresh from runs")) == runs


def test_sql_duckdb_refuses_is_a_value_error_saying_why(refreshed: Path) -> None:
    """Before: DuckDB's own ParserException / CatalogException, with its query dump."""
    study = sf.Study(refreshed)
    with pytest.raises(ValueError, match=r"the query failed: Parser Error"):
        study.sql("selec count(*) from comments")
    with pytest.raises(ValueError, match=r"the query failed: Catalog Error.*no_such_view"):
        study.sql("select * from no_such_view")
    assert study.sql("select count(*) as n from comments")["n"].tolist() == [82]


@pytest.mark.parametrize("name", ["s*", "s?", "s[B]", "s**"])
def test_a_study_whose_path_reads_as_a_pattern_reads_only_its_own_files(
    tmp_path: Path, name: str
) -> None:
    """Before: DuckDB took the files' paths as glob patterns: a study at ``s*`` (or
    ``s?``, ``s[B]``) read the files of a study ``sB`` beside it as its own."""
    mine, other = sf.Study(tmp_path / name), sf.Study(tmp_path / "sB")
    mine.add_posts([EXAMPLE_POSTS[1]])  # 1 comment
    other.add_posts([EXAMPLE_POSTS[50]])  # 50 comments
    clock = PinnedClock()  # both refreshes in one instant: their partitions share a name
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        other.refresh(client)
        mine.refresh(client)
    assert mine.comments()["item"].tolist() == [EXAMPLE_POSTS[1]]
    assert mine.runs()["paid_calls"].tolist() == [1]
    assert mine.sql("select count(*) as n from comment_versions")["n"].tolist() == [1]
    assert len(other.comments()) == 50


def test_a_query_past_its_timeout_is_stopped_and_said(tmp_path: Path) -> None:
    import time

    study = sf.Study(tmp_path / "s")
    study.add_posts([EXAMPLE_POSTS[82]])
    endless = (
        "with recursive r(n) as (select 1 union all select n + 1 from r)"
        " select count(*) as n from r"
    )
    began = time.monotonic()
    with pytest.raises(TimeoutError, match="ran past 1 seconds and was stopped"):
        study.sql(endless, timeout=1)
    assert time.monotonic() - began < 30  # (interrupted, not run until memory is gone)
    assert study.sql("select 1 as one", timeout=5)["one"].tolist() == [1]
    for wrong in (0, -1, float("nan"), float("inf"), True, "5"):
        with pytest.raises(ValueError, match="timeout is seconds above 0"):
            study.sql("select 1", timeout=wrong)  # type: ignore[arg-type]
