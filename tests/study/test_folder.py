"""Links and the user's own files inside a study's folder (``_study/folder.py``): real
symbolic and hard links, a study refreshed through the sandbox over HTTP. Nothing
outside the study is ever created, changed or removed through a link; a link where
the study reads or writes is one StudyError naming it, before anything is paid; the
study removes only what it wrote."""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
from wire import Before

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, REFERENCE, PinnedClock, Sandbox

P82, P50 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]


@pytest.fixture(scope="module")
def service() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock(REFERENCE + timedelta(days=7))) as server:
        yield server


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the study, with files of its own: what a link points into."""
    folder = tmp_path / "outside"
    (folder / "dir").mkdir(parents=True)
    (folder / "dir" / "keep.txt").write_text("the user's")
    (folder / "file.txt").write_text("the user's file")
    return folder


def snapshot(folder: Path) -> dict[str, tuple[object, ...]]:
    """Everything under ``folder``, links not followed: kind, bytes or target, times."""
    seen: dict[str, tuple[object, ...]] = {}
    for path in sorted([folder, *folder.rglob("*")]):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            seen[str(path)] = ("link", os.readlink(path))
        elif stat.S_ISDIR(info.st_mode):
            seen[str(path)] = ("dir", info.st_mode)
        else:
            content = path.read_bytes()
            seen[str(path)] = ("file", content, info.st_mode, info.st_mtime_ns, info.st_nlink)
    return seen


def _copy(refreshed: Path, tmp_path: Path) -> Path:
    study = tmp_path / "s"
    shutil.copytree(refreshed, study)
    return study


def _files(study: Path) -> dict[str, Path]:
    """Each table's data file of the study's first refresh."""
    kinds = ("comments", "ads", "changes", "items", "runs")
    found = {k: sorted((study / k).glob("part-*.parquet")) for k in kinds}
    return {k: files[0] for k, files in found.items() if files}


def _is_a_link(link: Path) -> str:
    return rf"{re.escape(str(link))} is a link \(to '"


def _refresh_refused(study: sf.Study, service: Sandbox, match: str) -> None:
    """A refresh refuses the study with ``match``, before any paid call."""
    charged = service.charges
    with (
        service.client(cache=False, progress=False, clock=service.clock) as client,
        pytest.raises(sf.StudyError, match=match),
    ):
        study.refresh(client)
    assert service.charges == charged and client.ledger.paid_calls == 0


def _answers_refused(study: sf.Study, match: str) -> None:
    for read in (study.comments, study.ads, study.changes, study.runs):
        with pytest.raises(sf.StudyError, match=match):
            read()
    with pytest.raises(sf.StudyError, match=match):
        study.sql("select count(*) from comment_versions")


# -- links to folders ------------------------------------------------------------------------


def test_a_kind_folder_linked_elsewhere_gets_nothing_and_the_refresh_pays_nothing(
    service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    """Before: with ``comments`` a link to a folder elsewhere, a refresh paid and wrote
    its new partitions there, outside the study."""
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    shutil.rmtree(tmp_path / "s" / "comments")  # (an empty table yet)
    (tmp_path / "s" / "comments").symlink_to(outside / "dir", target_is_directory=True)
    before = snapshot(outside)
    _refresh_refused(study, service, _is_a_link(tmp_path / "s" / "comments"))
    assert snapshot(outside) == before
    (tmp_path / "s" / "comments").unlink()
    assert study.runs().empty  # and the study is as it was


def test_a_study_whose_kind_folder_was_moved_out_and_linked_is_refused_naming_the_link(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    path = _copy(refreshed, tmp_path)
    shutil.move(path / "comments", outside / "comments")
    (path / "comments").symlink_to(outside / "comments", target_is_directory=True)
    before = snapshot(outside)
    study = sf.Study(path)
    _answers_refused(study, _is_a_link(path / "comments"))
    _refresh_refused(study, service, _is_a_link(path / "comments"))
    assert snapshot(outside) == before


@pytest.mark.parametrize("what", ["log", "log file", "data file"])
def test_a_log_or_data_file_linked_elsewhere_is_refused_naming_the_link(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path, what: str
) -> None:
    """Before: read through the link as the study's own (a file anywhere, read as sound)."""
    path = _copy(refreshed, tmp_path)
    data = _files(path)["comments"]
    moved = {
        "log": path / "comments" / "_delta_log",
        "log file": sorted((path / "comments" / "_delta_log").glob("*.json"))[-1],
        "data file": data,
    }[what]
    shutil.move(moved, outside / moved.name)
    moved.symlink_to(outside / moved.name, target_is_directory=what == "log")
    before = snapshot(outside)
    study = sf.Study(path)
    assert len(study.watched()) == 2  # opening reads what is watched only
    _answers_refused(study, _is_a_link(moved))
    _refresh_refused(study, service, _is_a_link(moved))
    assert snapshot(outside) == before


def test_a_lease_folder_linked_elsewhere_is_never_followed(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    path = _copy(refreshed, tmp_path)
    shutil.rmtree(path / "_lease")
    (path / "_lease").symlink_to(outside / "dir", target_is_directory=True)
    before = snapshot(outside)
    study = sf.Study(path)
    study.add_posts([P50])  # (adding takes no lease)
    assert (path / "_lease").is_symlink()
    _refresh_refused(study, service, _is_a_link(path / "_lease"))
    assert snapshot(outside) == before


def test_a_file_where_a_kind_folder_belongs_is_refused_before_paying(
    service: Sandbox, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    shutil.rmtree(tmp_path / "s" / "ads")  # (an empty table yet)
    (tmp_path / "s" / "ads").write_text("the user's")
    match = rf"{re.escape(str(tmp_path / 's' / 'ads'))} is not a folder"
    _refresh_refused(study, service, match)
    assert (tmp_path / "s" / "ads").read_text() == "the user's"


# -- links to files --------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["missing", "file.txt"])
def test_a_lease_object_that_is_a_link_creates_and_changes_nothing_outside(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path, target: str
) -> None:
    """A dangling link where the lease's next object goes is never followed to create
    the file it points to, outside the study."""
    path = _copy(refreshed, tmp_path)
    (path / "_lease" / f"{99:020d}.json").symlink_to(outside / target)
    before = snapshot(outside)
    study = sf.Study(path)
    _refresh_refused(study, service, _is_a_link(path / "_lease" / f"{99:020d}.json"))
    assert snapshot(outside) == before
    assert not (outside / "missing").exists()
    assert len(study.comments()) == 82  # reading takes no lease: it still reads


def test_a_log_that_is_a_link_is_refused_naming_it(
    refreshed: Path, tmp_path: Path, outside: Path
) -> None:
    path = _copy(refreshed, tmp_path)
    log = path / "watched" / "_delta_log"
    shutil.move(log, outside / "log")
    log.symlink_to(outside / "log", target_is_directory=True)
    before = snapshot(outside)
    with pytest.raises(sf.StudyError, match=_is_a_link(log)):
        sf.Study(path)
    assert snapshot(outside) == before


def test_hard_links_to_files_outside_are_read_but_never_written_through(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    """A hard link is the same file under two names: the study reads it if its bytes
    are the ones it wrote, and never writes into a file that exists (a lease object is
    only ever created)."""
    path = _copy(refreshed, tmp_path)
    data = _files(path)["comments"]
    shutil.copyfile(data, outside / "copy.parquet")
    data.unlink()
    os.link(outside / "copy.parquet", data)  # the study's data file, shared with outside
    os.link(outside / "file.txt", path / "_lease" / f"{99:020d}.json")
    before = snapshot(outside)
    study = sf.Study(path)
    assert len(study.comments()) == 82
    with service.client(cache=False, progress=False, clock=service.clock) as client:
        study.refresh(client)
    assert len(study.runs()) == 2
    assert snapshot(outside) == before


def test_a_hard_link_to_another_file_is_refused_as_damaged(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    path = _copy(refreshed, tmp_path)
    data = _files(path)["comments"]
    data.unlink()
    os.link(outside / "file.txt", data)
    before = snapshot(outside)
    study = sf.Study(path)
    _answers_refused(study, rf"{re.escape(str(data))} holds")
    _refresh_refused(study, service, rf"{re.escape(str(data))} holds")
    assert snapshot(outside) == before


def test_a_link_planted_while_a_refresh_runs_redirects_nothing(
    refreshed: Path,
    service: Sandbox,
    tmp_path: Path,
    outside: Path,
) -> None:
    """Checked before paying, and written through folders held open: a link swapped in
    while the walks run is refused when the refresh writes, nothing lands outside, and
    the pages paid for are the next refresh's, from the HTTP cache."""

    path = _copy(refreshed, tmp_path)

    def planting() -> None:
        shutil.move(path / "comments", outside / "comments")
        (path / "comments").symlink_to(outside / "comments", target_is_directory=True)

    sent = Before()
    sent.act = planting  # as the walk pays: after the study was checked
    before_runs = sf.Study(path).runs()
    held = snapshot(path / "comments")
    before = snapshot(outside)
    with service.client(
        cache=tmp_path / "c", progress=False, clock=service.clock, transport=sent
    ) as client:
        with pytest.raises(sf.StudyError, match=_is_a_link(path / "comments")):
            sf.Study(path).refresh(client)
        paid = service.charges
    moved = snapshot(outside / "comments")  # the study's own folder, as it was: no more
    assert list(moved.values()) == list(held.values())
    assert {k: v for k, v in snapshot(outside).items() if k not in moved} == before
    assert sent.act is None  # (planted)
    (path / "comments").unlink()
    shutil.move(outside / "comments", path / "comments")
    study = sf.Study(path)
    pd.testing.assert_frame_equal(study.runs(), before_runs)  # the study as it was
    with service.client(cache=tmp_path / "c", progress=False, clock=service.clock) as client:
        again = study.refresh(client)
    assert service.charges == paid  # what the refused refresh paid for: from the cache
    assert len(study.runs()) == 2 and again["paid_calls"].sum() == 0


# -- what the user put in a study stays --------------------------------------------------------


def test_the_users_own_folders_and_files_in_a_study_survive_its_writes(
    refreshed: Path, service: Sandbox, tmp_path: Path
) -> None:
    """The study removes nothing it did not write: files of the user's beside its tables,
    in them, in their logs' folders and in the lease's stay as they are."""
    path = _copy(refreshed, tmp_path)
    mine = {
        "comments/refresh=mine/notes.txt": "mine",
        "comments/README.md": "mine",
        "notes/todo.txt": "mine",
        "_lease/mine.txt": "mine",
        "runs/_delta_log/.mine": "mine",
        ".study.json.original": "mine",
    }
    for name, text in mine.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    (path / "comments" / "empty-and-mine").mkdir()
    study = sf.Study(path)
    study.add_posts([P50])
    with service.client(cache=False, progress=False, clock=service.clock) as client:
        study.refresh(client)
    for name, text in mine.items():
        assert (path / name).read_text() == text, name
    assert (path / "comments" / "empty-and-mine").is_dir()
    assert len(study.runs()) == 2 and len(study.comments()) >= 82 + 50


def test_a_fifo_where_a_data_file_belongs_is_refused_not_waited_on(
    refreshed: Path, service: Sandbox, tmp_path: Path
) -> None:
    """A FIFO opened for reading waits for a writer: every answer would hang."""
    import threading

    path = _copy(refreshed, tmp_path)
    data = _files(path)["comments"]
    data.unlink()
    os.mkfifo(data)
    study = sf.Study(path)
    raised: list[BaseException] = []

    def answer() -> None:
        try:
            study.comments()
        except BaseException as exc:  # handed to the test's thread
            raised.append(exc)

    worker = threading.Thread(target=answer, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "comments() waited on the FIFO"
    (error,) = raised
    assert isinstance(error, sf.StudyError)
    assert f"{data} is not a file the study wrote (a folder, a FIFO or a device)" in str(error)
    _refresh_refused(study, service, rf"{re.escape(str(data))} is not a file the study wrote")
