"""What a hostile review of studies (issue 21) found, each a test that failed before its
fix: through the sandbox over HTTP, a real SQLite cache, real Parquet files and DuckDB."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox, comment_total

P82, P2345 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[2345]


@pytest.mark.slow
def test_a_cut_walk_finished_from_the_cache_still_finds_what_arrived_since(
    tmp_path: Path,
) -> None:
    """Before: a walk cut by the budget and finished within the day from the cached
    pages saw the post as it was when the cut walk began: what arrived since was on
    none of its pages, and ``complete`` was true with ``missing`` 0 from the old total."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])  # 47 pages; 72 comments a week, 60 of them new threads
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, backoff=0.01) as client,
    ):
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.10)
        clock.advance(12 * 3600)  # within RESUME_WITHIN: the cut walk goes on from the cache
        now = comment_total(P2345, now=clock.now(), seed=0)
        assert now > 2345  # comments arrived in those 12 hours
        sent = len(sandbox.requests)
        run = study.refresh(client)
        charged = sum(r.charged for r in sandbox.requests[sent:])
    held = len(study.comments())
    assert held == now  # every comment the service has now
    assert run["complete"].tolist() == [True] and run["missing"].tolist() == [0]
    assert run["new"].tolist() == [now - 500]
    # the 37 pages the cut walk had not paid for, and the newest page read afresh
    assert run["paid_calls"].tolist() == [charged] == [37 + 1]


def test_a_search_of_stopped_ads_finds_the_ads_that_stopped_since(tmp_path: Path) -> None:
    """Before: a watched search of stopped ads only (``active_status="inactive"``) asked
    for the ads *started* since the last refresh; an older ad that stopped in the week
    joins that search, and was never seen, with ``complete`` true."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", active_status="inactive")
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
        clock.advance(7 * 86400)
        week = study.refresh(client)
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=False, progress=False, clock=clock) as client,
    ):
        sweep = set(client.search_ads("running shoes", active_status="inactive")["ad_archive_id"])
    have = set(study.ads()["ad_archive_id"])
    assert week["complete"].tolist() == [True]
    assert sweep - have == set()  # the re-sweep finds nothing the refresh missed
    assert week["new"].tolist() == [len(sweep) - 45] and len(sweep) > 45
    new = set(study.changes().query("change == 'new'")["id"])
    assert new == have


# -- a damaged or hostile study: one StudyError, never a raw DuckDB / pandas error -----------


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
        sandbox.client(cache=base / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
    return base / "s"


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


@pytest.mark.slow
def test_a_post_whose_newest_comments_came_from_a_cut_walk_is_not_read_whole_again(
    tmp_path: Path,
) -> None:
    """Before: the walk's stopping set was the post's 500 newest known comments, and
    then only those a finished walk saw: when a walk cut short (more than a day ago) had
    brought the 500 newest, none was left, and the next refresh read the post whole."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, backoff=0.01) as client,
    ):
        study.refresh(client)  # 47 pages, every comment
        clock.advance(12 * 7 * 86400)  # 864 comments, 720 of them new threads: 15 pages
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.11)  # 550 of them, the newest
        clock.advance(2 * 86400)  # past RESUME_WITHIN: a fresh walk
        held = len(study.comments())
        run = study.refresh(client)
        now = comment_total(P2345, now=clock.now(), seed=0)
    # down to the first page of what the first (finished) walk saw, not all 65 pages
    assert run["paid_calls"].tolist() == [16]
    assert int(run.at[0, "new"]) + int(run.at[0, "missing"]) == now - held
    assert len(study.comments()) == held + int(run.at[0, "new"])


def test_a_search_cut_short_keeps_its_pages_and_is_checked_as_of_the_oldest(
    tmp_path: Path,
) -> None:
    """Its pages show the search as it was when the cut walk began: the next refresh
    asks for the ads started since that day, not since the day it was finished."""
    from datetime import timedelta

    from socialframe.sandbox import REFERENCE, PinnedClock, Sandbox

    clock = PinnedClock(REFERENCE + timedelta(hours=23))  # late on 2026-01-01
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes")  # several pages
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.BudgetExceededError) as cut:
            study.refresh(client, max_cost=0.02)
        # Before: a search cut short kept nothing (its two paid pages were lost to the
        # study, and paid again by the next refresh).
        assert cut.value.partial is not None and cut.value.partial["new"].tolist() == [52]
        assert len(study.ads()) == 52
        clock.advance(2 * 3600)  # past midnight: 2026-01-02
        done = study.refresh(client)
        assert sandbox.charges == 2 + int(done["paid_calls"].sum())
        first_pages = [r for r in sandbox.requests if "end_cursor" not in r.params]
        assert len(first_pages) == 1  # page 1 paid once
    from socialframe._study.dataset import Dataset

    [state] = Dataset(tmp_path / "s").read().state.values()
    assert state["checked"] == "2026-01-01"


# -- a second hostile review: what the fixes above left ----------------------------------


def test_a_failing_item_skipped_does_not_hide_a_budget_stop(tmp_path: Path) -> None:
    """Before: with ``on_error="skip"``, an item that failed before the one the budget
    stopped made the refresh return as if it had finished (the budget stop was dropped
    with the skipped error; ``socialframe study refresh`` exited 0, not 3), and the warning
    named the budget-stopped item as "left out" though its pages were kept."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([EXAMPLE_POSTS[50], P2345])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, workers=1) as client,
    ):
        sandbox.inject(400)  # the first post's page 1 is refused (final: never retried)
        with (
            pytest.warns(sf.SkippedWarning, match=r"^1 watched items failed") as said,
            pytest.raises(sf.BudgetExceededError) as stopped,
        ):
            study.refresh(client, max_cost=0.03, on_error="skip")
        assert sandbox.charges == 3
    assert P2345 not in str(said[0].message)
    partial = stopped.value.partial
    assert partial is not None
    assert partial.set_index("item")["new"].to_dict() == {EXAMPLE_POSTS[50]: 0, P2345: 150}
    assert partial["complete"].tolist() == [False, False]
    assert len(study.comments()) == 150  # what the budget let it fetch is kept


def _swap_before_the_walk(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """Damage ``target`` as the refresh's walk starts: after the study was checked and
    read, before the rows are compared with it."""
    from socialframe._study import refresh as walks

    walk = walks.walk_post

    def swapped(*args: object, **kwargs: object) -> walks.Walked:
        target.write_bytes(b"PAR1 swapped while the refresh ran")
        return walk(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(walks, "walk_post", swapped)


def test_a_file_damaged_while_a_refresh_runs_is_one_study_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: DuckDB's own InvalidInputException (with its query) once the walks had
    paid; now one StudyError, and the pages it paid for are the next refresh's, free."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
        comments = _files(tmp_path / "s")["comments"]
        kept = comments.read_bytes()
        clock.advance(3600)
        with monkeypatch.context() as patched:
            _swap_before_the_walk(patched, comments)
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


def test_after_the_clock_is_set_back_a_refresh_still_asks_the_service(tmp_path: Path) -> None:
    """Before: pages a refresh stored while the clock ran a week ahead were stamped a
    week ahead, and counted as fresh for every refresh until the clock got there again:
    two days later (clock set right) the refresh paid nothing and found nothing."""
    from datetime import timedelta

    from socialframe.sandbox import REFERENCE

    world = PinnedClock()  # the service's time
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82, EXAMPLE_POSTS[50]])
    with Sandbox(seed=0, clock=world) as sandbox:
        ahead = PinnedClock(REFERENCE + timedelta(days=7))  # this machine's, a week ahead
        with sandbox.client(cache=tmp_path / "c", progress=False, clock=ahead) as client:
            first = study.refresh(client)
        world.advance(2 * 86400)
        right = PinnedClock(REFERENCE + timedelta(days=2))  # set right: back five days
        with sandbox.client(cache=tmp_path / "c", progress=False, clock=right) as client:
            sent = sandbox.charges
            again = study.refresh(client)
            paid = sandbox.charges - sent
        now = comment_total(EXAMPLE_POSTS[50], now=world.now(), seed=0)
    assert first["paid_calls"].tolist() == [2, 1]
    assert again["paid_calls"].tolist() == [1, 1] and paid == 2  # each post asked again
    assert now == 51 and again["new"].tolist() == [0, 1]  # the comment of those two days
    import deltalake

    commits = deltalake.DeltaTable(str(tmp_path / "s" / "runs")).history()
    ids = [c["socialframe.refresh"] for c in sorted(commits, key=lambda c: c["version"])[1:]]
    assert len(ids) == 2 and ids == sorted(ids)  # ids in the order run


def test_an_item_a_failed_refresh_never_looked_at_stays_complete(tmp_path: Path) -> None:
    """Before: a post the refresh never fetched (it was stopped by another item's failure
    first, or its own first page failed) was marked not complete in the study, and the
    next ``full`` refresh read it whole again (the big post: 47 pages for nothing)."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([EXAMPLE_POSTS[50], P82])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock, workers=1) as client,
    ):
        study.refresh(client)
        clock.advance(3600)
        sandbox.inject(400)  # the first post's page 1: the refresh stops there
        with pytest.raises(sf.BadRequestError) as failed:
            study.refresh(client)
        partial = failed.value.partial
        assert partial is not None and partial["paid_calls"].tolist() == [0, 0]
        assert partial["complete"].tolist() == [False, False]  # neither was looked at
        clock.advance(3600)
        sent = sandbox.charges
        full = study.refresh(client, full=True)
        assert sandbox.charges - sent == 2
    # both were complete, and nothing said otherwise since: one page each, not P82's two
    assert full["paid_calls"].tolist() == [1, 1]
    assert full["complete"].tolist() == [True, True]


@pytest.mark.slow
def test_a_walk_cut_again_after_starting_afresh_is_resumed_the_next_time(
    tmp_path: Path,
) -> None:
    """Before: a cut walk kept the time of the first cut; once that was more than a day
    ago, every later walk started afresh, and one cut again was never resumed: a post too
    big for one refresh's budget was paid from page 1 every time and never got further."""
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.05)  # pages 1-5
        clock.advance(2 * 86400)  # past RESUME_WITHIN: a fresh walk
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.05)  # pages 1-5 again, as the post is now
        held = len(study.comments())
        clock.advance(3600)  # within a day of that walk: it goes on from its pages
        sent = len(sandbox.requests)
        with pytest.raises(sf.BudgetExceededError) as third:
            study.refresh(client, max_cost=0.05)
        asked = [r.params.get("page", "1") for r in sandbox.requests[sent:] if r.charged]
    assert asked == ["6", "7", "8", "9", "10"]  # on from that walk's page 5
    partial = third.value.partial
    assert partial is not None
    new = int(partial.at[0, "new"])  # (before: 0, the same five pages)
    assert new > 200 and len(study.comments()) == held + new
