"""A study's files checked before they are read or a refresh pays (``_study/integrity.py``):
real Parquet files damaged the ways a disk, a hand or another program damages them,
against every answer of the study and a refresh through the sandbox over HTTP."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from wire import Before

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, REFERENCE, PinnedClock, Sandbox

P82, P50 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]
KINDS = ("comments", "ads", "changes", "runs", "items")
ANSWERS = ("comments", "ads", "changes", "runs", "sql")


def _answers(study: sf.Study) -> dict[str, pd.DataFrame]:
    return {
        "comments": study.comments(),
        "ads": study.ads(),
        "changes": study.changes(),
        "runs": study.runs(),
        "sql": study.sql(
            "select (select count(*) from comment_versions) as c,"
            " (select count(*) from ad_versions) as a, (select count(*) from changes) as ch,"
            " (select count(*) from runs) as r, (select count(*) from items) as i"
        ),
    }


def _ask(study: sf.Study, answer: str) -> pd.DataFrame:
    if answer == "sql":
        return study.sql("select count(*) as n from comment_versions")
    return getattr(study, answer)()  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def service() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock(REFERENCE + timedelta(days=7))) as server:
        yield server


def _study(base: Path, posts: list[str], search: str) -> Path:
    """A study of ``posts`` and an ad search, refreshed twice a week apart."""
    clock = PinnedClock()
    study = sf.Study(base / "s")
    study.add_posts(posts)
    study.add_ads(search, country="US")
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        study.refresh(client)
        clock.advance(7 * 86400)
        study.refresh(client)
    return base / "s"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, pd.DataFrame]]:
    """The study every test damages a copy of, and its answers while sound."""
    path = _study(tmp_path_factory.mktemp("pristine"), [P82, P50], "coffee")
    for kind in KINDS:  # the columns the tests damage are the files' own
        assert pq.read_schema(_file(path, kind)).names == COLUMNS_OF[kind]
    return path, _answers(sf.Study(path))


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another study, whose files are sound Parquet of the right columns."""
    return _study(tmp_path_factory.mktemp("foreign"), [EXAMPLE_POSTS[1]], "running shoes")


def _file(study: Path, kind: str, refresh: int = 0) -> Path:
    """``kind``'s file of the study's first refresh (or of another: its number)."""
    return sorted((study / kind).glob("part-*.parquet"))[refresh]


def _logs(study: Path) -> dict[str, bytes]:
    """Every file of every table's Delta log: what a refresh would change."""
    return {str(p): p.read_bytes() for p in sorted(study.glob("*/_delta_log/*")) if p.is_file()}


def _rewrite(path: Path, change: Callable[[pa.Table], pa.Table]) -> None:
    table = pq.read_table(path).replace_schema_metadata(None)
    pq.write_table(change(table), path)


def _other_type(table: pa.Table, name: str) -> pa.Table:
    """``table`` with column ``name`` of another type (text for text's, else numbers)."""
    at = table.schema.get_field_index(name)
    kind = table.schema.field(name).type
    textual = pa.types.is_string(kind) or pa.types.is_large_string(kind)
    if textual or pa.types.is_dictionary(kind):
        values = pa.array(range(len(table)), pa.int64())
    else:
        values = pa.array([f"not {name}"] * len(table), pa.string())
    return table.set_column(at, name, values)


def _flip_a_byte_in_a_data_page(path: Path) -> None:
    """One bit of one byte in the middle of the data of the file's largest column."""
    meta = pq.read_metadata(path)
    chunks = [meta.row_group(0).column(i) for i in range(meta.num_columns)]
    chunk = max(chunks, key=lambda c: c.total_compressed_size)
    start = chunk.data_page_offset
    where = start + (chunk.total_compressed_size - (start - chunk.file_offset)) // 2
    where = min(where, start + chunk.total_compressed_size - 1)
    data = bytearray(path.read_bytes())
    data[where] ^= 0x10
    path.write_bytes(bytes(data))


#: The columns of each kind's files (the frames' own, and what a refresh adds).
SEEN = ["item", "watch", "seen_at"]
COLUMNS_OF = {
    "comments": [*sf.COMMENT_COLUMNS, "content_id", *SEEN],
    "ads": [*sf.AD_COLUMNS, "extra", "content_id", *SEEN],
    "changes": ["at", "kind", "item", "id", "change", "watch", "fields", "previous", "current"]
    + ["evidence", "cost_usd"],
    "runs": ["at", "paid_calls", "cost_usd", "new", "changed", "items", "complete"],
    "items": ["at", "kind", "item", "new", "changed", "paid_calls", "cost_usd", "complete"]
    + ["missing", "watch", "state"],
}
COLUMNS_OF = {kind: [*names, "refresh"] for kind, names in COLUMNS_OF.items()}
COLUMNS = [(kind, name) for kind in KINDS for name in COLUMNS_OF[kind]]


def _copy(pristine: tuple[Path, dict[str, pd.DataFrame]], tmp_path: Path) -> Path:
    study = tmp_path / "s"
    shutil.copytree(pristine[0], study)
    return study


def _refused_everywhere(
    study_path: Path, damaged: Path, service: Sandbox, tmp_path: Path, said: str = ""
) -> list[str]:
    """Every answer and a refresh refuse the study naming ``damaged``; the refresh before
    any paid call, leaving every table's log as it was. The messages, for more checks."""
    before = _logs(study_path)
    study = sf.Study(study_path)  # opening reads what is watched only: it is sound
    assert len(study.watched()) == 3
    messages = []
    for answer in ANSWERS:
        with pytest.raises(sf.StudyError, match="cannot be read") as raised:
            _ask(study, answer)
        message = str(raised.value)
        assert f"{damaged} " in message and said in message, message
        messages.append(message)
    charged = service.charges
    with service.client(cache=False, progress=False, clock=service.clock) as client:
        with pytest.raises(sf.StudyError, match="cannot be read") as raised:
            study.refresh(client)
        assert client.ledger.paid_calls == 0
    assert f"{damaged} " in str(raised.value) and said in str(raised.value)
    assert service.charges == charged  # not one paid call
    assert _logs(study_path) == before
    return messages


# -- the study's files, as the study wrote them ----------------------------------------------


def test_each_file_is_named_by_its_sha256_and_logged_with_its_size(
    pristine: tuple[Path, dict[str, pd.DataFrame]],
) -> None:
    import deltalake

    study = pristine[0]
    named = []
    for kind in KINDS:
        actions = deltalake.DeltaTable(str(study / kind)).get_add_actions(flatten=True)
        paths = [str(p) for p in actions.column("path").to_pylist()]
        sizes = actions.column("size_bytes").to_pylist()
        assert len(paths) == 2, kind  # (one file a refresh)
        for path, size in zip(paths, sizes, strict=True):
            data = (study / kind / path).read_bytes()  # what sha256sum checks by hand
            assert path.endswith(f"-{hashlib.sha256(data).hexdigest()}.parquet")
            assert size == len(data)
            named.append(path)
    assert len(named) == 10


# -- damaged files: one StudyError naming the file, before anything is read or paid ---------


@pytest.mark.parametrize(("kind", "column"), COLUMNS, ids=[f"{k}.{c}" for k, c in COLUMNS])
def test_a_column_of_another_type_is_refused_naming_the_file(
    pristine: tuple[Path, dict[str, pd.DataFrame]],
    service: Sandbox,
    tmp_path: Path,
    kind: str,
    column: str,
) -> None:
    """Before: a file of the right column names and other types was read as sound (in the
    review: 100 of 202 comments vanished); or the error came once the refresh had paid."""
    study = _copy(pristine, tmp_path)
    damaged = _file(study, kind)
    _rewrite(damaged, lambda table: _other_type(table, column))
    for message in _refused_everywhere(study, damaged, service, tmp_path):
        assert f"its column {column!r} holds" in message, message


@pytest.mark.parametrize(("kind", "column"), COLUMNS, ids=[f"{k}.{c}" for k, c in COLUMNS])
def test_a_missing_column_is_refused_naming_the_file(
    pristine: tuple[Path, dict[str, pd.DataFrame]],
    service: Sandbox,
    tmp_path: Path,
    kind: str,
    column: str,
) -> None:
    """Before: a file without ``item`` beside the others gave rows with no item (the
    views read the files as one, by name), and ones without a column the views do not
    need were read as sound."""
    study = _copy(pristine, tmp_path)
    damaged = _file(study, kind)
    _rewrite(damaged, lambda table: table.drop_columns([column]))
    _refused_everywhere(study, damaged, service, tmp_path, said=f"it has no column {column!r}")


@pytest.mark.parametrize("kind", KINDS)
def test_an_extra_column_is_refused_naming_the_file(
    pristine: tuple[Path, dict[str, pd.DataFrame]], service: Sandbox, tmp_path: Path, kind: str
) -> None:
    study = _copy(pristine, tmp_path)
    damaged = _file(study, kind)
    _rewrite(damaged, lambda t: t.append_column("note", pa.array(["x"] * len(t), pa.string())))
    said = "it has a column 'note' the study does not write"
    _refused_everywhere(study, damaged, service, tmp_path, said=said)


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_cut_short_is_refused_naming_the_file(
    pristine: tuple[Path, dict[str, pd.DataFrame]], service: Sandbox, tmp_path: Path, kind: str
) -> None:
    study = _copy(pristine, tmp_path)
    damaged = _file(study, kind)
    damaged.write_bytes(damaged.read_bytes()[: damaged.stat().st_size // 2])
    said = "it is not a Parquet file: damaged or cut short"
    _refused_everywhere(study, damaged, service, tmp_path, said=said)


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_of_another_study_is_refused_naming_the_file(
    pristine: tuple[Path, dict[str, pd.DataFrame]],
    foreign: Path,
    service: Sandbox,
    tmp_path: Path,
    kind: str,
) -> None:
    """Its columns are the study's own, perhaps even its size (a refresh's one row of
    figures): only what the study recorded of its bytes tells it apart."""
    study = _copy(pristine, tmp_path)
    damaged = _file(study, kind)
    shutil.copyfile(_file(foreign, kind), damaged)
    for message in _refused_everywhere(study, damaged, service, tmp_path):
        assert "where the study wrote" in message or "is damaged: its bytes" in message


@pytest.mark.parametrize("kind", KINDS)
def test_a_byte_flipped_in_a_data_page_is_refused_before_anything_is_read_or_paid(
    pristine: tuple[Path, dict[str, pd.DataFrame]], service: Sandbox, tmp_path: Path, kind: str
) -> None:
    """Before: a refresh of a study with one byte flipped in a file paid (7 calls) and
    committed, and ``comments()`` failed afterwards; DuckDB returns the rows of such a
    page as if they were sound (no error at all: a few texts changed)."""
    study = _copy(pristine, tmp_path)
    damaged = _file(study, kind)
    size = damaged.stat().st_size
    _flip_a_byte_in_a_data_page(damaged)
    assert damaged.stat().st_size == size
    said = "is damaged: its bytes are not those the study wrote"
    _refused_everywhere(study, damaged, service, tmp_path, said=said)


def test_a_sound_study_answers_as_before(
    pristine: tuple[Path, dict[str, pd.DataFrame]], tmp_path: Path
) -> None:
    """The checks refuse nothing sound: a copy answers exactly as the study did."""
    study = sf.Study(_copy(pristine, tmp_path))
    for answer, frame in _answers(study).items():
        pd.testing.assert_frame_equal(frame, pristine[1][answer])


# -- a log that names a file outside its table: never read ----------------------------------


@pytest.mark.parametrize("named", ["../ads/x.parquet", "/etc/passwd", "sub/part-1.parquet"])
def test_a_log_naming_a_file_outside_its_table_is_refused(
    pristine: tuple[Path, dict[str, pd.DataFrame]], tmp_path: Path, named: str
) -> None:
    study = _copy(pristine, tmp_path)
    log = sorted((study / "comments" / "_delta_log").glob("*.json"))[-1]
    lines = log.read_text().splitlines()
    for at, line in enumerate(lines):
        action = json.loads(line)
        if "add" in action:
            action["add"]["path"] = named
            lines[at] = json.dumps(action)
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(sf.StudyError, match="names a file .* outside its folder"):
        sf.Study(study).comments()


# -- under concurrent writers ----------------------------------------------------------------

WRITER = """
import sys, socialframe as sf
study = sf.Study(sys.argv[1])
with sf.Client(sys.argv[3], base_url=sys.argv[2], cache=False, progress=False) as client:
    for _ in range(int(sys.argv[4])):
        try:
            study.refresh(client)
            print("ok", flush=True)
        except sf.StudyError as exc:
            print("busy" if "is being refreshed by" in str(exc) else f"ERROR {exc}")
"""


@pytest.mark.slow
def test_readers_never_see_a_refresh_half_written_by_other_processes(tmp_path: Path) -> None:
    """Every answer checks every file the logs it read name: files a refresh of
    another process is writing (or leaves behind, killed) are never among them."""
    import subprocess
    import sys

    study = sf.Study(tmp_path / "s")
    study.add_posts([P82, P50])
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        args = [str(tmp_path / "s"), sandbox.url, sandbox.api_key, "6"]
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER, *args], stdout=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        seen = []
        while any(w.poll() is None for w in writers):
            seen.append((len(study.runs()), len(study.comments())))
            latest = study.sql("select count(distinct comment_id) as n from comment_versions")
            assert int(latest["n"].iloc[0]) in (0, 132)
        said = [line for w in writers for line in w.communicate()[0].split()]
    assert all(w.returncode == 0 for w in writers)
    # each waited for the other's lease (or, past 10 s of it on a busy machine, said so)
    assert set(said) <= {"ok", "busy"} and said.count("ok") >= 6, said
    assert all(comments in (0, 132) for _, comments in seen), seen
    assert [runs for runs, _ in seen] == sorted(runs for runs, _ in seen)
    # (a refresh that waited for the other's lease found its post read: it kept no run)
    assert 1 <= len(study.runs()) <= said.count("ok") and len(study.comments()) == 132


# -- files changed after they were checked: never read as the study's -----------------------


def _forged(path: Path, into: Path) -> Path:
    """Sound Parquet of ``path``'s very columns, every text changed: what a backup, a sync
    tool or another program may put in its place."""
    table = pq.read_table(path)
    at = table.schema.get_field_index("text")
    texts = [None if t is None else f"{t} [changed]" for t in table["text"].to_pylist()]
    pq.write_table(
        table.set_column(at, table.schema.field(at), pa.array(texts, table["text"].type)), into
    )
    return into


def _renamed_over(path: Path, forged: Path, outside: Path) -> None:
    os.replace(forged, path)  # a new file moved over the name: no link anywhere


def _folder_linked_out(path: Path, forged: Path, outside: Path) -> None:
    shutil.move(path.parent, outside / "moved")
    (outside / "theirs").mkdir()
    shutil.move(forged, outside / "theirs" / path.name)
    path.parent.symlink_to(outside / "theirs", target_is_directory=True)


def _rewritten_in_place(path: Path, forged: Path, outside: Path) -> None:
    with path.open("r+b") as out:  # the same file (inode), other bytes
        out.write(forged.read_bytes())
        out.truncate()


def _put_back(path: Path, kept: bytes, outside: Path) -> None:
    if path.parent.is_symlink():
        path.parent.unlink()
        shutil.move(outside / "moved", path.parent)
    path.write_bytes(kept)


SWAPS = {
    "renamed over it": _renamed_over,
    "its folder linked out": _folder_linked_out,
    "rewritten in place": _rewritten_in_place,
}


@pytest.mark.parametrize("swap", SWAPS)
def test_a_file_changed_while_a_refresh_pays_is_never_read_as_the_studys(
    tmp_path: Path, swap: str
) -> None:
    """Before: the files were checked before the walks and read again by their paths after
    them (the texts the new rows are compared with): a sound file of the same columns
    moved over one, its partition folder linked out of the study, or the file rewritten
    in place was read as the study's, and the refresh committed 50 "edited" changes
    made up from it. Now the refresh is refused naming the file, keeps nothing, and the
    next one (the file put back) pays for nothing again: the page is in the cache."""

    clock = PinnedClock()
    outside = tmp_path / "outside"
    outside.mkdir()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(
            cache=tmp_path / "c", progress=False, clock=clock, transport=(sent := Before())
        ) as client,
    ):
        study.refresh(client)
        comments = _file(tmp_path / "s", "comments")
        kept = comments.read_bytes()
        forged = _forged(comments, tmp_path / "forged.parquet")
        clock.advance(3600)
        # as the walk pays: after the check
        sent.act = lambda: SWAPS[swap](comments, forged, outside)
        with pytest.raises(sf.StudyError) as raised:
            study.refresh(client)
        assert str(comments.parent) in str(raised.value), raised.value
        paid = sandbox.charges
        _put_back(comments, kept, outside)
        assert len(study.runs()) == 1 and len(study.changes()) == 50  # the 50 new ones
        again = study.refresh(client)
        assert sandbox.charges == paid  # the page the refused refresh paid for: cached
    assert again["changed"].tolist() == [0] and again["new"].tolist() == [0]
    assert (study.changes()["change"] == "edited").sum() == 0


def test_answers_read_only_what_was_checked_while_a_file_is_swapped_back_and_forth(
    pristine: tuple[Path, dict[str, pd.DataFrame]], tmp_path: Path
) -> None:
    """Another process moves a sound file of the same columns over one of the study's
    and back again while the study answers: each answer is the study's own, or a
    StudyError; never the other file's rows. (Before: answers read the files by path
    after checking them, and some held the changed texts.)

    Each file stays a random while scaled to the answers' own length (the other file
    up to one answer, the study's own up to six), however fast the machine, so that
    answers see both and swaps land inside them: the run goes on until both outcomes
    were seen 25 times. (Swapped as fast as it could, every one of 150 answers found the
    file changed and was refused: 23 s of CPU that never saw an answer given while a
    swap went on.)"""
    import random
    import threading
    import time

    study_path = _copy(pristine, tmp_path)
    comments = _file(study_path, "comments")
    kept = tmp_path / "kept.parquet"
    shutil.copyfile(comments, kept)
    forged = _forged(comments, tmp_path / "forged.parquet")
    stop = threading.Event()
    chance = random.Random(0)
    study = sf.Study(study_path)
    took = []  # each answer's seconds
    for _ in range(2):
        started = time.monotonic()
        study.comments()
        took.append(time.monotonic() - started)

    def flip() -> None:
        while not stop.is_set():
            answer = sum(took[-5:]) / len(took[-5:])
            for source, stay in ((forged, answer), (kept, 6 * answer)):
                shutil.copyfile(source, tmp_path / "next")
                os.replace(tmp_path / "next", comments)
                stop.wait(chance.uniform(0, stay))

    flipping = threading.Thread(target=flip)
    flipping.start()
    answered = refused = 0
    try:
        for _ in range(400):
            started = time.monotonic()
            try:
                texts = study.comments()["text"].dropna()
            except sf.StudyError:
                refused += 1
            else:
                answered += 1
                assert not texts.str.endswith(" [changed]").any()
            took.append(time.monotonic() - started)
            if answered >= 25 and refused >= 25:
                break
    finally:
        stop.set()
        flipping.join()
    assert answered >= 25 and refused >= 25, (answered, refused)


def _files(study: Path) -> dict[str, Path]:
    """Each table's data file of the study's first refresh."""
    kinds = ("comments", "ads", "changes", "items", "runs")
    found = {k: sorted((study / k).glob("part-*.parquet")) for k in kinds}
    return {k: files[0] for k, files in found.items() if files}


def _edit_state(study: Path, change: Callable[[dict[str, object]], None]) -> None:
    """Another program appends an item's row with its state changed, as the latest."""
    import deltalake

    items = deltalake.DeltaTable(str(study / "items"))
    table = items.to_pyarrow_table()
    rows = table.to_pylist()
    for row in rows:
        state = json.loads(row["state"])
        change(state)
        row["state"] = json.dumps(state)
    deltalake.write_deltalake(items, pa.Table.from_pylist(rows, schema=table.schema), mode="append")


def _not_parquet(study: Path) -> None:
    _files(study)["comments"].write_bytes(b"PAR1 not a Parquet file")


def _cut_in_half(study: Path) -> None:
    path = _files(study)["comments"]
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _other_columns(study: Path) -> None:
    pq.write_table(pa.table({"comment_id": [1, 2], "text": [3, 4]}), _files(study)["comments"])


def _other_run_columns(study: Path) -> None:
    pq.write_table(pa.table({"at": ["x"], "paid_calls": ["y"]}), _files(study)["runs"])


def _removed(study: Path) -> None:
    _files(study)["ads"].unlink()


def _a_folder(study: Path) -> None:
    path = _files(study)["changes"]
    path.unlink()
    path.mkdir()


def _a_column_the_views_add(study: Path) -> None:
    # Before: read as sound, and comments() was empty (the file's rank_ chose the rows)
    path = _files(study)["comments"]
    table = pq.read_table(path)
    pq.write_table(table.append_column("rank_", pa.array([5] * len(table))), path)


def _a_refresh_column(study: Path) -> None:
    # Before: read as sound, each row's refresh taken from the file, not its folder
    path = _files(study)["ads"]
    table = pq.read_table(path)
    later = pa.array(["99991231T000000000Z"] * len(table))
    at = table.schema.get_field_index("refresh")
    pq.write_table(table.set_column(at, "refresh", later), path)


DAMAGED = [
    _not_parquet,
    _cut_in_half,
    _other_columns,
    _other_run_columns,
    _removed,
    _a_folder,
    _a_column_the_views_add,
    _a_refresh_column,
]


@pytest.mark.parametrize("damage", DAMAGED, ids=[f.__name__.strip("_") for f in DAMAGED])
def test_a_damaged_data_file_is_one_clear_study_error(
    refreshed: Path, tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    study_path = tmp_path / "s"
    shutil.copytree(refreshed, study_path)
    logs = sorted(p.name for p in study_path.glob("*/_delta_log/*"))
    damage(study_path)
    study = sf.Study(study_path)  # the manifest is sound
    assert len(study.watched()) == 2
    for read in (study.comments, study.ads, study.changes, study.runs):
        with pytest.raises(sf.StudyError, match=r"cannot be read") as raised:
            read()
        assert str(study_path) in str(raised.value)
        error = raised.value  # no DuckDB error rides along
        assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    with pytest.raises(sf.StudyError, match=r"cannot be read"):
        study.sql("select count(*) from comment_versions, ad_versions, changes, runs")
    clock = PinnedClock()
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.StudyError, match=r"cannot be read"):
            study.refresh(client)
        assert client.ledger.paid_calls == 0  # refused before any paid call
    assert sorted(p.name for p in study_path.glob("*/_delta_log/*")) == logs  # no commit


def _resume_after_no_time(state: dict[str, object]) -> None:
    state["resume_after"] = "nonsense"


def _checked_no_day(state: dict[str, object]) -> None:
    state["checked"] = "garbage"


def _total_text(state: dict[str, object]) -> None:
    state["total"] = "many"


def _walked_a_path(state: dict[str, object]) -> None:
    state["walked"] = "../../elsewhere"


def _floor_no_time(state: dict[str, object]) -> None:
    state["floor"] = "yesterday"


HOSTILE = [_resume_after_no_time, _checked_no_day, _total_text, _walked_a_path, _floor_no_time]


@pytest.mark.parametrize("edit", HOSTILE, ids=[f.__name__.strip("_") for f in HOSTILE])
def test_a_hand_edited_state_is_refused_before_anything_is_paid(
    refreshed: Path, tmp_path: Path, edit: Callable[[dict[str, object]], None]
) -> None:
    """Before: read as sound, then a raw ValueError / AttributeError / DateParseError from
    deep in a refresh. Now the state the next refresh would start from is checked as it
    is read: one StudyError, and nothing paid."""
    study_path = tmp_path / "s"
    shutil.copytree(refreshed, study_path)
    _edit_state(study_path, edit)
    study = sf.Study(study_path)
    clock = PinnedClock()
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.StudyError, match="is not as the study wrote it"):
            study.refresh(client)
        assert sandbox.charges == 0


def test_a_file_damaged_while_a_refresh_runs_is_one_study_error(tmp_path: Path) -> None:
    """Before: DuckDB's own InvalidInputException (with its query) once the walks had
    paid; now one StudyError, and the pages it paid for are the next refresh's, free."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(
            cache=tmp_path / "c", progress=False, clock=clock, transport=(sent := Before())
        ) as client,
    ):
        study.refresh(client)
        comments = _files(tmp_path / "s")["comments"]
        kept = comments.read_bytes()
        clock.advance(3600)
        # damaged as the walk starts: after the study was checked and read, before the
        # rows are compared with it
        sent.act = lambda: comments.write_bytes(b"PAR1 swapped while the refresh ran")
        with pytest.raises(sf.StudyError, match="cannot be read") as raised:
            study.refresh(client)
        error = raised.value
        assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
        paid = sandbox.charges
        comments.write_bytes(kept)  # the file put back
        again = study.refresh(client)
        assert sandbox.charges == paid  # the page the failed refresh paid for: from the cache
    assert again["new"].tolist() == [0] and again["complete"].tolist() == [True]
    assert len(study.runs()) == 2


def _other_types(study: Path) -> None:
    path = _files(study)["comments"]
    table = pq.read_table(path)
    where = table.schema.get_field_index("created_at")
    junk = pa.array(["not a time"] * len(table))
    pq.write_table(table.set_column(where, "created_at", junk), path)


def _other_like_types(study: Path) -> None:
    path = _files(study)["comments"]
    table = pq.read_table(path)
    where = table.schema.get_field_index("page")
    pq.write_table(table.set_column(where, "page", pa.array(["first"] * len(table))), path)


def test_a_file_of_the_studys_columns_with_other_types_is_one_study_error(
    refreshed: Path, tmp_path: Path
) -> None:
    """Before: pandas' DateParseError (comments) from a comments file whose created_at
    is text, and a refresh that read it as sound and paid."""
    study_path = tmp_path / "s"
    shutil.copytree(refreshed, study_path)
    _other_types(study_path)
    study = sf.Study(study_path)
    for read in (study.comments, study.ads, study.changes, study.runs):
        with pytest.raises(sf.StudyError, match=r"cannot be read.*created_at"):
            read()
    clock = PinnedClock()
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.StudyError, match=r"cannot be read"):
            study.refresh(client)
        assert client.ledger.paid_calls == 0


def test_a_column_the_views_do_not_need_with_another_type_is_one_study_error(
    refreshed: Path, tmp_path: Path
) -> None:
    """Before: pandas' own error from turning the text into the frame's dtype."""
    study_path = tmp_path / "s"
    shutil.copytree(refreshed, study_path)
    _other_like_types(study_path)
    study = sf.Study(study_path)
    with pytest.raises(sf.StudyError, match=r"cannot be read.*page") as raised:
        study.comments()
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    # every answer checks every file's size: the changed file is named by the others too
    with pytest.raises(sf.StudyError, match=r"comments/part-[0-9TZ]+-[0-9a-f]{64}\.parquet holds"):
        study.ads()
