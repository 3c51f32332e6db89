"""Links and the user's own files inside a study's folder (``_study/folder.py``): real
symbolic and hard links, a study refreshed through the sandbox over HTTP. Nothing
outside the study is ever created, changed or removed through a link; a link where
the study reads or writes is one StudyError naming it, before anything is paid; the
study removes only what it wrote."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, REFERENCE, PinnedClock, Sandbox

P82, P50 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]


@pytest.fixture(scope="module")
def service() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock(REFERENCE + timedelta(days=7))) as server:
        yield server


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study of one post and one search, refreshed once."""
    base = tmp_path_factory.mktemp("refreshed")
    study = sf.Study(base / "s")
    study.add_posts([P82])
    study.add_ads("coffee", country="US")
    clock = PinnedClock()
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        study.refresh(client)
    return base / "s"


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
    manifest = json.loads((study / "study.json").read_text())
    return {k: study / v for k, v in manifest["refreshes"][0]["files"].items()}


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
    (tmp_path / "s" / "comments").symlink_to(outside / "dir", target_is_directory=True)
    before = snapshot(outside)
    _refresh_refused(study, service, _is_a_link(tmp_path / "s" / "comments"))
    assert snapshot(outside) == before
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


@pytest.mark.parametrize("what", ["partition", "file"])
def test_a_partition_or_data_file_linked_elsewhere_is_refused_naming_the_link(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path, what: str
) -> None:
    """Before: read through the link as the study's own (a file anywhere, read as sound)."""
    path = _copy(refreshed, tmp_path)
    data = _files(path)["comments"]
    moved = data.parent if what == "partition" else data
    shutil.move(moved, outside / moved.name)
    moved.symlink_to(outside / moved.name, target_is_directory=what == "partition")
    before = snapshot(outside)
    study = sf.Study(path)
    assert len(study.watched()) == 2  # opening reads the manifest only
    _answers_refused(study, _is_a_link(moved))
    _refresh_refused(study, service, _is_a_link(moved))
    assert snapshot(outside) == before


def test_a_staging_folder_linked_elsewhere_is_never_followed_nor_removed(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    """Before: the next write removed the link (not the study's to remove)."""
    path = _copy(refreshed, tmp_path)
    manifest = path / "study.json"
    value = json.loads(manifest.read_text())
    pending = "20260102T000000000Z"  # a refresh that never finished: its leftovers go
    value["pending"] = {"id": pending, "at": "2026-01-02T00:00:00+00:00"}
    manifest.write_text(json.dumps(value))
    (outside / "dir" / pending / "comments").mkdir(parents=True)
    (outside / "dir" / pending / "comments" / "part-0.parquet").write_bytes(b"the user's")
    (path / ".staging").symlink_to(outside / "dir", target_is_directory=True)
    before = snapshot(outside)
    study = sf.Study(path)
    study.add_posts([P50])  # a write: it tidies up what the pending refresh left
    assert (path / ".staging").is_symlink()
    _refresh_refused(study, service, _is_a_link(path / ".staging"))
    assert snapshot(outside) == before


def test_a_file_where_a_kind_folder_belongs_is_refused_before_paying(
    service: Sandbox, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    (tmp_path / "s" / "ads").write_text("the user's")
    match = rf"{re.escape(str(tmp_path / 's' / 'ads'))} is not a folder"
    _refresh_refused(study, service, match)
    assert (tmp_path / "s" / "ads").read_text() == "the user's"


# -- links to files --------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["missing", "file.txt"])
def test_a_lock_that_is_a_link_creates_and_changes_nothing_outside(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path, target: str
) -> None:
    """Before: a dangling ``.lock`` link made the study create the file it pointed to,
    outside the study."""
    path = _copy(refreshed, tmp_path)
    (path / ".lock").unlink()
    (path / ".lock").symlink_to(outside / target)
    before = snapshot(outside)
    study = sf.Study(path)
    with pytest.raises(sf.StudyError, match=_is_a_link(path / ".lock")):
        study.add_posts([P50])
    _refresh_refused(study, service, _is_a_link(path / ".lock"))
    assert snapshot(outside) == before
    assert not (outside / "missing").exists()
    assert len(study.comments()) == 82  # reading takes no lock: it still reads


def test_a_manifest_that_is_a_link_is_refused_naming_it(
    refreshed: Path, tmp_path: Path, outside: Path
) -> None:
    path = _copy(refreshed, tmp_path)
    shutil.move(path / "study.json", outside / "study.json")
    (path / "study.json").symlink_to(outside / "study.json")
    before = snapshot(outside)
    with pytest.raises(sf.StudyError, match=_is_a_link(path / "study.json")):
        sf.Study(path)
    assert snapshot(outside) == before


def test_hard_links_to_files_outside_are_read_but_never_written_through(
    refreshed: Path, service: Sandbox, tmp_path: Path, outside: Path
) -> None:
    """A hard link is the same file under two names: the study reads it if its bytes
    are the ones it wrote, and never writes into a file that exists (a lock is only
    locked, never written)."""
    path = _copy(refreshed, tmp_path)
    data = _files(path)["comments"]
    shutil.copyfile(data, outside / "copy.parquet")
    data.unlink()
    os.link(outside / "copy.parquet", data)  # the study's data file, shared with outside
    (path / ".lock").unlink()
    os.link(outside / "file.txt", path / ".lock")
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
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Checked before paying, and written through folders held open: a link swapped in
    while the walks run is refused when the refresh writes, nothing lands outside, and
    the pages paid for are the next refresh's, from the HTTP cache."""
    from socialframe._study import refresh as walks

    path = _copy(refreshed, tmp_path)
    walk = walks.walk_post

    def planting(*args: object, **kwargs: object) -> walks.Walked:
        if not (path / "comments").is_symlink():
            shutil.move(path / "comments", outside / "comments")
            (path / "comments").symlink_to(outside / "comments", target_is_directory=True)
        return walk(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walks, "walk_post", planting)
    before_runs = sf.Study(path).runs()
    held = snapshot(path / "comments")
    before = snapshot(outside)
    with service.client(cache=tmp_path / "c", progress=False, clock=service.clock) as client:
        with pytest.raises(sf.StudyError, match=_is_a_link(path / "comments")):
            sf.Study(path).refresh(client)
        paid = service.charges
    moved = snapshot(outside / "comments")  # the study's own folder, as it was: no more
    assert list(moved.values()) == list(held.values())
    assert {k: v for k, v in snapshot(outside).items() if k not in moved} == before
    monkeypatch.setattr(walks, "walk_post", walk)
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
    """Before: the next write removed every ``refresh=`` folder the manifest did not
    name, a folder the user made (``comments/refresh=mine/``) and its files among them."""
    from socialframe._study.dataset import Dataset

    path = _copy(refreshed, tmp_path)
    mine = {
        "comments/refresh=mine/notes.txt": "mine",
        "comments/README.md": "mine",
        "notes/todo.txt": "mine",
        ".staging/mine.txt": "mine",
        ".study.json.backup": "mine",
        ".study.json.original": "mine (a name like those of a manifest on its way)",
    }
    for name, text in mine.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    (path / "comments" / "refresh=empty-and-mine").mkdir()
    # What a refresh killed before its manifest leaves: its partitions, the manifest
    # naming it pending (its files are written by the study's own writer).
    data = Dataset(path)
    pending = "20260102T000000000Z"
    with data.writing() as manifest:
        manifest.pending = {"id": pending, "at": "2026-01-02T00:00:00+00:00"}
        data.write(manifest)
        frame = pd.DataFrame({"x": [1]})
        data.write_partition("comments", pending, frame)
        data.write_partition("ads", pending, frame)
    leftovers = [
        f"comments/refresh={pending}/part-0.parquet",
        f"ads/refresh={pending}/part-0.parquet",
    ]
    assert all((path / p).is_file() for p in leftovers)
    yours = f"ads/refresh={pending}/mine.txt"
    mine[yours] = "mine, put in the leftover's folder"
    (path / yours).write_text(mine[yours])
    on_its_way = path / ".study.json.k2x9_q7a.socialframe-partial"  # a write killed
    on_its_way.write_text("{}")
    study = sf.Study(path)
    study.add_posts([P50])  # the next write removes what the pending refresh left
    assert not on_its_way.exists()
    assert not any((path / p).exists() for p in leftovers)
    assert not (path / "comments" / f"refresh={pending}").exists()  # left empty: removed
    assert (path / yours).exists()  # not empty: stays
    with service.client(cache=False, progress=False, clock=service.clock) as client:
        study.refresh(client)
    for name, text in mine.items():
        assert (path / name).read_text() == text, name
    assert (path / "comments" / "refresh=empty-and-mine").is_dir()
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
