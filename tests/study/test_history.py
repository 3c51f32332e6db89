"""A study's history (``Study.as_of``, ``Study.compact``): real Delta tables on a folder,
refreshed through the sandbox over HTTP."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox

P82, P50 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]


def _refreshes(study: sf.Study, count: int) -> list[datetime]:
    """``count`` refreshes a week apart; the wall time after each commit."""
    clock = ManualClock()
    after = []
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        for _ in range(count):
            study.refresh(client)
            time.sleep(0.01)
            after.append(datetime.now(UTC))
            time.sleep(0.01)
            clock.advance(7 * 86400)
    return after


def test_as_of_a_time_or_a_version_is_the_study_as_it_was_and_read_only(tmp_path: Path) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    before_any = datetime.now(UTC)
    after = _refreshes(study, 3)
    first = study.as_of(after[0])
    assert len(first.runs()) == 1 and len(first.comments()) == 50
    assert len(study.as_of(after[1]).runs()) == 2
    assert study.as_of(after[1].isoformat()).runs().equals(study.as_of(after[1]).runs())
    assert study.as_of(before_any).runs().empty
    pd.testing.assert_frame_equal(study.as_of(1).runs(), first.runs())  # runs' version 1
    pd.testing.assert_frame_equal(study.as_of(3).comments(), study.comments())
    with pytest.raises(sf.StudyError, match="read-only"):
        first.add_posts([P82])
    with pytest.raises(sf.StudyError, match="no version 9"):
        study.as_of(9).runs()


def test_compact_leaves_fewer_files_the_same_answers_and_the_history(tmp_path: Path) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82, P50])
    after = _refreshes(study, 6)
    answers = {a: getattr(study, a)() for a in ("comments", "changes", "runs")}
    was = study.as_of(after[2]).comments()
    counted = study.compact().set_index("table")
    assert counted.loc["runs", "files_before"] == 6 and counted.loc["runs", "files_after"] == 1
    assert counted.loc["comments", "files_after"] == 1
    assert len(list((tmp_path / "s" / "runs").glob("*.parquet"))) == 7  # history kept
    for answer, frame in answers.items():
        pd.testing.assert_frame_equal(getattr(study, answer)(), frame)
    pd.testing.assert_frame_equal(study.as_of(after[2]).comments(), was)  # across it
    _refreshes(study, 1)  # and the next refresh reads the compacted files
    assert len(study.runs()) == 7


def test_rows_of_a_refresh_whose_runs_row_never_came_count_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refresh cut between its commits (its comments and changes committed, its runs row
    not: killed, a lost connection): every answer is the study as it was, Delta readers
    that count the refreshes runs names agree, and the next refresh keeps what is new."""
    import errno

    import deltalake

    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    _refreshes(study, 1)
    before = {a: getattr(study, a)() for a in ("comments", "changes", "runs")}
    commit = deltalake.DeltaTable.create_write_transaction

    def cut(table: deltalake.DeltaTable, *args: object, **kwargs: object) -> None:
        """A commit to ``runs`` (the refresh's last: each table's is one deltalake write
        transaction) meets a lost connection; the others go through."""
        if table.table_uri.rstrip("/").endswith("/runs"):
            raise OSError(errno.ECONNRESET, "the connection was lost")
        commit(table, *args, **kwargs)

    study.add_posts([P82])
    monkeypatch.setattr(deltalake.DeltaTable, "create_write_transaction", cut)
    with pytest.raises(sf.StudyError, match="connection was lost"):
        _refreshes(study, 1)
    monkeypatch.undo()
    comments = deltalake.DeltaTable(str(tmp_path / "s" / "comments")).to_pandas()
    assert comments["refresh"].nunique() == 2  # its rows are there, uncounted
    for answer, frame in before.items():
        pd.testing.assert_frame_equal(getattr(study, answer)(), frame)
    assert len(study.sql("select * from comment_versions")) == 50
    study.add_posts([EXAMPLE_POSTS[1]])  # (other rows: other files than the cut one's)
    _refreshes(study, 1)  # at the same instant as the cut one: another id
    assert len(study.runs()) == 2 and len(study.comments()) == 50 + 82 + 1
    # the cut refresh's rows stay uncounted: each version once
    assert len(study.sql("select * from comment_versions")) == 50 + 50 + 82 + 1


def test_as_of_goes_by_the_commits_times_not_the_storages_clock(tmp_path: Path) -> None:
    """A bucket's (or a file server's) clock ahead of the writer's: the log files'
    modification times, by which deltalake picks a version for a time, are later than
    the commits' own times. Before, ``as_of(1)`` read ``runs`` at version 1 and every
    other table one refresh behind: no comment at all."""
    import os

    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    clock = ManualClock()
    seen: list[tuple[int, int, int]] = []
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        for k in range(3):
            if k == 1:
                study.add_posts([P82])
            study.refresh(client)
            seen.append((len(study.watched()), len(study.comments()), len(study.changes())))
            clock.advance(7 * 86400)
    for log in (tmp_path / "s").glob("*/_delta_log/*.json"):
        got = log.stat()
        os.utime(log, ns=(got.st_atime_ns, got.st_mtime_ns + 5 * 10**9))
    for version, (watched, comments, changes) in enumerate(seen, start=1):
        past = study.as_of(version)
        assert (len(past.runs()), len(past.watched())) == (version, watched)
        assert (len(past.comments()), len(past.changes())) == (comments, changes)
    assert seen[0][0] == 1 and seen[1][0] == 2  # (what was watched then, too)
    pd.testing.assert_frame_equal(study.as_of(3).ads(), study.ads())


def test_as_of_takes_numpys_versions_and_says_what_it_refuses_by_its_name(
    tmp_path: Path,
) -> None:
    """Before: a version from a frame (numpy's int64) was refused, the errors named
    ``since`` (changes' argument), and a span past the calendar was Python's
    'year -712 is out of range'."""
    import numpy as np

    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    _refreshes(study, 1)
    assert len(study.as_of(np.int64(1)).runs()) == 1
    with pytest.raises(ValueError, match="as_of's when must be a time"):
        study.as_of("garbage")
    with pytest.raises(ValueError, match="reaches before the calendar"):
        study.as_of("1000000d")
