"""A folder study of the format before Delta Lake (``study.json``) migrated on first open
(``_study/migration.py``): a study the previous release wrote (tests/study/data/study-v1:
two weekly refreshes of two posts and a search), migrated whole, killed with ``kill -9``
at each of its commits, and damaged."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox

DATA = Path(__file__).parent / "data"
#: The answers the previous release gave for it (its own code, before the migration).
ANSWERS = json.loads((DATA / "study-v1.answers.json").read_text())


def _old(tmp_path: Path) -> Path:
    path = tmp_path / "study-v1"
    shutil.copytree(DATA / "study-v1", path)
    return path


def _old_files(path: Path) -> dict[str, bytes]:
    """study.json and every file it names, by path: what must stay until the migration
    is done."""
    manifest = json.loads((path / "study.json").read_text())
    names = [f for entry in manifest["refreshes"] for f in entry["files"].values()]
    return {name: (path / name).read_bytes() for name in ["study.json", *names]}


def _answers(study: sf.Study) -> dict[str, object]:
    return {
        "comments": len(study.comments()),
        "ads": len(study.ads()),
        "changes": len(study.changes()),
        "runs": study.runs()["paid_calls"].tolist(),
        "versions": int(study.sql("select count(*) as n from comment_versions")["n"][0]),
    }


def _third_refresh(study: sf.Study) -> pd.DataFrame:
    """The refresh a week after the study's last (2026-01-15), through the sandbox."""
    clock = ManualClock()
    clock.advance(14 * 86400)
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        return study.refresh(client)


def test_a_study_of_the_manifest_format_migrates_on_first_open_whole(tmp_path: Path) -> None:
    path = _old(tmp_path)
    study = sf.Study(path)
    assert _answers(study) == ANSWERS
    assert study.watched()["item"].tolist() == [EXAMPLE_POSTS[82], EXAMPLE_POSTS[50], "coffee"]
    # the old files are gone once the commits are done; study.json is kept aside
    assert not (path / "study.json").exists() and (path / "study.json.migrated").is_file()
    assert not list(path.glob("*/refresh=*")) and not (path / ".lock").exists()
    # what the next refresh starts from came across: it pays as the same study never
    # migrated would (one page a post, the search from its last day)
    same = sf.Study(tmp_path / "never-migrated")
    same.add_posts([EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]])
    same.add_ads("coffee", country="US")
    clock = ManualClock()
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        same.refresh(client)
        clock.advance(7 * 86400)
        same.refresh(client)
    pd.testing.assert_frame_equal(_third_refresh(study), _third_refresh(same))
    assert _answers(study) == _answers(same)
    # and Delta readers read it
    import deltalake

    runs = deltalake.DeltaTable(str(path / "runs")).to_pandas()
    assert sorted(runs["paid_calls"].tolist()[:2]) == sorted(ANSWERS["runs"])  # type: ignore[arg-type]


# Killed once its Nth commit to a Delta table is in the table's log: each commit is one
# deltalake write transaction (a table's creation, its version 0, is none).
KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from deltalake import DeltaTable
    commit, count = DeltaTable.create_write_transaction, [0]

    def dying(self, *args, **kwargs):
        commit(self, *args, **kwargs)
        count[0] += 1
        if count[0] == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)

    DeltaTable.create_write_transaction = dying
    import socialframe as sf
    sf.Study(sys.argv[1])
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("commits", [1, 3, 5, 6], ids=lambda n: f"after-commit-{n}")
def test_kill_9_during_the_migration_leaves_the_old_study_as_it_was(
    tmp_path: Path, commits: int
) -> None:
    """Killed after its 1st commit (watched), 3rd, 5th (all but runs) or 6th (all, before
    study.json is set aside): study.json and every old file are as they were, and the
    next open migrates it whole."""
    path = _old(tmp_path)
    before = _old_files(path)
    child = subprocess.run([sys.executable, "-c", KILLER, str(path), str(commits)], check=False)
    assert child.returncode == -signal.SIGKILL
    assert _old_files(path) == before  # the old study, as it was
    assert (path / "_delta_log").exists() is False and (path / "runs" / "_delta_log").is_dir()
    study = sf.Study(path)  # migrated again, whole
    assert _answers(study) == ANSWERS
    assert not (path / "study.json").exists()


def test_a_damaged_old_study_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = _old(tmp_path)
    manifest = json.loads((path / "study.json").read_text())
    damaged = path / manifest["refreshes"][0]["files"]["comments"]
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0x10
    damaged.write_bytes(bytes(data))
    before = _old_files(path)
    with pytest.raises(sf.StudyError, match=f"{damaged} is damaged"):
        sf.Study(path)
    assert _old_files(path) == before
    assert not any(path.glob("*/_delta_log"))  # nothing of the new format written
