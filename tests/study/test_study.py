"""sf.Study through the sandbox over HTTP, a real SQLite cache, real Parquet files and
DuckDB: what is watched, what a refresh pays, what the folder holds for other tools,
and what happens to a study that another process, a crash or a budget interrupts."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from delta import write_refresh

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, PinnedClock, Sandbox

P82, P50, P2345 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50], EXAMPLE_POSTS[2345]


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock()) as server:
        yield server


@pytest.fixture
def study(tmp_path: Path) -> sf.Study:
    return sf.Study(tmp_path / "brand-watch")


def _client(sandbox: Sandbox, tmp_path: Path, **options: object) -> sf.Client:
    return sandbox.client(cache=tmp_path / "cache", progress=False, backoff=0.01, **options)


# -- what is watched ---------------------------------------------------------------------------


def test_a_post_written_two_ways_is_one(study: sf.Study) -> None:
    study.add_posts(
        pd.Series(
            [
                P82,
                f"urn:li:activity:{P82}",
                f"https://www.linkedin.com/feed/update/urn:li:activity:{P82}/",
            ]
        )
    )
    study.add_posts(int(P50))
    study.add_posts([P82])  # again: nothing added
    watched = study.watched()
    assert watched["kind"].tolist() == ["post", "post"]
    assert watched["item"].tolist() == [P82, P50]
    assert str(watched["added_at"].dtype) == "datetime64[us, UTC]"


def test_searches_are_checked_and_kept_with_their_filters(study: sf.Study) -> None:
    study.add_ads("running shoes", country="US", active_status="all")
    study.add_ads(page_id="123456")
    study.add_ads("running shoes", country="us", active_status="all")  # the same search
    watched = study.watched()
    assert watched["item"].tolist() == ["running shoes", "page 123456"]
    # as search_ads names them (the advertiser's page is the item)
    assert watched["filters"].tolist() == ["active_status=all country=US", pd.NA]


def test_a_studys_frames_show_each_kind_of_value_as_every_frame_does(
    study: sf.Study, tmp_path: Path
) -> None:
    """Filters with search_ads' names, one form in watched(), refresh() and changes();
    flags as yes / no in refresh() as in runs(); times without microseconds."""

    study.add_posts([P50])
    study.add_ads("running shoes", country="US", active_status="all")
    clock = ManualClock()
    with Sandbox(clock=clock).client(
        in_process=True, cache=False, clock=clock, progress=False
    ) as client:
        refreshed = study.refresh(client)
    watched, runs, changes = study.watched(), study.runs(), study.changes()
    said = "active_status=all country=US"
    assert watched["filters"].tolist()[1] == said and pd.isna(watched["filters"].iloc[0])
    assert refreshed["filters"].tolist()[1] == said and pd.isna(refreshed["filters"].iloc[0])
    assert set(changes["filters"].dropna()) == {said}
    assert str(watched["filters"].dtype) == str(refreshed["filters"].dtype) == "string"
    # when an item was added: to the second, in the data itself
    assert (watched["added_at"] == watched["added_at"].dt.floor("s")).all()
    for frame in (watched, refreshed, runs, changes):
        assert frame.attrs["socialframe"]  # ours: a notebook shows it by our display rules
        page = shown(frame)
        assert "activeStatus" not in page and "ALL" not in page
        assert not re.search(r">(True|False)<", page)  # flags: yes / no, as every frame
        assert not re.search(r"\d\d:\d\d:\d\d", page)  # times to the minute
    assert ">yes<" in shown(refreshed) and ">yes<" in shown(runs)
    assert re.search(r">\d{4}-\d\d-\d\d \d\d:\d\d<", shown(watched))


def shown(frame: pd.DataFrame) -> str:
    """What the displays show of ``frame``, each column's name and each cell as ``>...<``:
    the cells of its interactive table (``sf.show``), whose display part (before the
    unit separator) is what a notebook shows of a frame of ours too."""
    table = sf.show(frame).df
    cells = [str(cell).split("\x1f")[0] for row in table.itertuples(index=False) for cell in row]
    return "".join(f">{text}<" for text in [*table.columns, *cells])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda s: s.add_posts("not a post"), ValueError),
        (lambda s: s.add_posts([P82, ""]), ValueError),
        (lambda s: s.add_posts({P82}), TypeError),
        (lambda s: s.add_ads(), ValueError),
        (lambda s: s.add_ads("shoes", page_id="1"), ValueError),
        (lambda s: s.add_ads("shoes", country="USA"), ValueError),
        (lambda s: s.add_ads("shoes", active_status="running"), ValueError),
    ],
)
def test_bad_items_are_refused_and_nothing_is_written(
    tmp_path: Path, call: object, error: type[Exception]
) -> None:
    study = sf.Study(tmp_path / "s")
    with pytest.raises(error):
        call(study)  # type: ignore[operator]
    assert not (tmp_path / "s").exists()


def test_a_folder_that_is_not_a_study_is_refused_untouched(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(sf.StudyError, match="is not a study"):
        sf.Study(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(sf.StudyError, match="is a file"):
        sf.Study(tmp_path / "file")


def test_a_study_of_a_newer_format_is_refused(study: sf.Study) -> None:
    study.add_posts(P82)
    log = sorted((Path(study.path) / "watched" / "_delta_log").glob("*.json"))[0]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for action in lines:  # a table whose readers need a Delta protocol beyond ours
        if "protocol" in action:
            action["protocol"] = {"minReaderVersion": 99, "minWriterVersion": 99}
    log.write_text("\n".join(json.dumps(a) for a in lines) + "\n")
    with pytest.raises(sf.StudyError, match="newer"):
        sf.Study(study.path)
    log.write_text("{not json")
    with pytest.raises(sf.StudyError, match="cannot be read"):
        sf.Study(study.path).watched()


# -- refreshing --------------------------------------------------------------------------------


def test_the_first_refresh_reads_everything_and_the_next_pays_one_page_a_post(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    study.add_posts([P82, P50])
    with _client(sandbox, tmp_path) as client:
        first = study.refresh(client)
        assert first[["item", "new", "paid_calls", "complete", "missing"]].to_dict("list") == {
            "item": [P82, P50],
            "new": [82, 50],
            "paid_calls": [2, 1],
            "complete": [True, True],
            "missing": [0, 0],
        }
        second = study.refresh(client)  # the world has not moved: nothing new
        # each post's first page, fresh from the service although the cache holds it
        assert second["paid_calls"].tolist() == [1, 1] and second["new"].tolist() == [0, 0]
        assert client.ledger.paid_calls == 5 and client.ledger.cached_calls == 0
    assert list(first.columns) == [
        "kind",
        "item",
        "new",
        "changed",
        "paid_calls",
        "cost_usd",
        "complete",
        "missing",
        "filters",
    ]
    assert first["filters"].isna().all()  # posts have none
    runs = study.runs()
    assert runs["paid_calls"].tolist() == [3, 2] and runs["cost_usd"].tolist() == [0.03, 0.02]
    assert runs["new"].tolist() == [132, 0]
    comments = study.comments()
    assert len(comments) == 132 and comments["comment_id"].is_unique
    assert list(comments.columns) == [*sf.COMMENT_COLUMNS, "item", "first_seen", "last_seen"]
    assert (comments["first_seen"] == runs["at"][0]).all()
    assert (comments.loc[comments["item"] == P82, "last_seen"] == runs["at"][1]).sum() == 50
    reference = sf.comments_frame([])  # the comments frame's dtypes
    for name in sf.COMMENT_COLUMNS:
        assert comments[name].dtype == reference[name].dtype, name
    changes = study.changes()
    assert (changes["change"] == "new").all() and len(changes) == 132
    assert set(changes["kind"]) == {"comment"}


def test_ads_refresh_new_and_stopped_are_found(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    study.add_ads("running shoes", country="US", active_status="all")
    with _client(sandbox, tmp_path) as client:
        first = study.refresh(client)
        reference = client.search_ads("running shoes", country="US", active_status="all")
    assert first["new"].tolist() == [len(reference)] and first["complete"].tolist() == [True]
    ads = study.ads()
    assert set(ads["ad_archive_id"]) == set(reference["ad_archive_id"])
    assert ads["ad_archive_id"].is_unique and ads["stopped_seen"].isna().all()
    assert list(ads.columns[: len(sf.AD_COLUMNS)]) == list(sf.AD_COLUMNS)
    # every field beyond the contract columns is kept, as JSON
    extra = json.loads(ads["extra"].iloc[0])
    assert isinstance(extra, dict) and extra


def test_the_dataset_is_read_without_socialframe(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    import deltalake
    import polars as pl

    study.add_posts([P82])
    study.add_ads("coffee", country="US")
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
    folder = Path(study.path)
    # deltalake alone: each refresh's rows carry its id
    comments = deltalake.DeltaTable(str(folder / "comments")).to_pandas()
    assert len(comments) == 82 and comments["refresh"].nunique() == 1
    assert set(comments["comment_id"]) == set(study.comments()["comment_id"])
    # polars alone
    ads = pl.read_delta(str(folder / "ads"))
    assert (ads.height, ads["refresh"].n_unique()) == (len(study.ads()), 1)
    # DuckDB alone, over the files the log names
    files = deltalake.DeltaTable(str(folder / "runs")).file_uris()
    con = duckdb.connect()
    runs = con.execute("select paid_calls from read_parquet(?)", [files]).fetchall()
    assert runs == [(int(study.runs()["paid_calls"].sum()),)]
    # and the study's own SQL
    by = study.sql("select item, count(*) as n from comments group by 1")
    assert by.to_dict("list") == {"item": [P82], "n": [82]}


def test_the_key_never_reaches_the_study(sandbox: Sandbox, study: sf.Study, tmp_path: Path) -> None:
    study.add_posts([P82])
    study.add_ads("coffee")
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
    for path in Path(study.path).rglob("*"):
        if path.is_file():
            assert sandbox.api_key.encode() not in path.read_bytes(), path


# -- budget, errors, other processes, kill -9 ------------------------------------------------


@pytest.mark.slow
def test_a_budget_stop_keeps_what_was_fetched_and_the_next_refresh_picks_up(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    study.add_posts([P2345])  # 47 pages
    with _client(sandbox, tmp_path) as client:
        with pytest.raises(sf.BudgetExceededError) as stopped:
            study.refresh(client, max_cost=0.10)
        assert client.ledger.paid_calls == 10
        partial = stopped.value.partial
        assert partial is not None and partial["paid_calls"].tolist() == [10]
        assert partial["complete"].tolist() == [False]
        assert len(study.comments()) == 500  # kept
        done = study.refresh(client)  # walks on to the end of the walk that was cut
    assert done["complete"].tolist() == [True] and len(study.comments()) == 2345
    # the 10 pages the cut refresh paid for (within the day) come from the cache: only the
    # 37 others are paid, and page 1 read afresh (the client's clock moved on since the cut
    # walk began: what arrived since is on none of its pages)
    assert done["new"].tolist() == [1845] and done["paid_calls"].tolist() == [37 + 1]


def test_a_refresh_budget_is_its_own_and_leaves_the_clients_alone(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    import threading

    study.add_posts([P2345])
    with _client(sandbox, tmp_path, workers=4) as client:
        others: list[object] = []
        other = threading.Thread(
            target=lambda: others.append(client.search_ads("coffee", country="US"))
        )
        with pytest.raises(sf.BudgetExceededError, match=r"max_cost=\$0.05"):
            other.start()
            study.refresh(client, max_cost=0.05)
        other.join()
        assert client.max_cost is None  # the client's own budget: untouched, still none
        # the search in another thread ran whole, under no budget
        assert len(others) == 1 and len(others[0]) > 0  # type: ignore[arg-type]
    assert study.runs()["paid_calls"].tolist() == [5]


def test_a_page_charged_twice_is_counted_twice_and_the_budget_counts_it(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    """A 200 broken on the way is charged, and fetched again: two payments for one page.
    The item's paid_calls, the run's and the refresh's own budget count both."""
    study.add_posts([P82])  # 2 pages
    sandbox.inject("truncated")
    with _client(sandbox, tmp_path) as client:
        run = study.refresh(client)
        charged = sum(r.charged for r in sandbox.requests)
        assert charged == 3 and client.ledger.paid_calls == 3
    assert run["paid_calls"].tolist() == [3] and run["cost_usd"].tolist() == [0.03]
    assert study.runs()["paid_calls"].tolist() == [3]

    again = sf.Study(tmp_path / "second")
    again.add_posts([P50])  # 1 page
    sandbox.inject("truncated")
    with _client(sandbox, tmp_path / "other", max_retries=3) as client:
        sent = len(sandbox.requests)
        with pytest.raises(sf.BudgetExceededError) as stopped:
            again.refresh(client, max_cost=0.01)  # the charged broken page is the budget
        assert sum(r.charged for r in sandbox.requests[sent:]) == 1  # not one cent more
    partial = stopped.value.partial
    assert partial is not None and partial["paid_calls"].tolist() == [1]


CHILD = textwrap.dedent(
    """
    import sys, socialframe as sf
    from socialframe.sandbox import Sandbox
    study = sf.Study(sys.argv[1])
    with sf.Client(sys.argv[3], base_url=sys.argv[2], cache=sys.argv[4], progress=False) as c:
        print("refreshing", flush=True)
        study.refresh(c)
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_kill_9_mid_refresh_leaves_the_study_as_it_was_and_the_next_pays_only_the_rest(
    tmp_path: Path,
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82])
    with (
        Sandbox(seed=0, clock=PinnedClock()) as fast,
        fast.client(cache=tmp_path / "cache", progress=False) as c,
    ):
        study.refresh(c)
    before = study.comments()
    study.add_posts([P2345])
    with Sandbox(seed=0, latency=0.05, clock=PinnedClock()) as slow:
        key = slow.api_key
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(study.path), slow.url, key, str(tmp_path / "cache")],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "refreshing"
        deadline = time.monotonic() + 60
        while slow.charges < 12 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        paid_by_child = slow.charges
        assert 12 <= paid_by_child < 48
        # as it was before that refresh: the same rows, no run more
        assert len(study.runs()) == 1
        pd.testing.assert_frame_equal(study.comments(), before)
        with slow.client(cache=tmp_path / "cache", progress=False) as client:
            after = study.refresh(client)
        # What the killed child paid for and stored (P82's page 1, P2345's first pages) comes
        # from the cache; a page it was paid for and killed before storing, again.
        stored = paid_by_child - 1
        assert slow.charges - paid_by_child in (47 - stored, 47 - stored + 1)
    assert after.set_index("item")["new"].to_dict() == {P82: 0, P2345: 2345}
    assert len(study.runs()) == 2 and len(study.comments()) == 82 + 2345


FAULT_CHILD = textwrap.dedent(
    """
    import json, os, resource, signal, sys, tempfile
    import socialframe as sf
    import duckdb, pyarrow, pyarrow.parquet  # what a refresh loads, before any limit
    import importlib, pkgutil
    for module in pkgutil.walk_packages(sf.__path__, "socialframe."):
        if module.name != "socialframe.__main__":
            importlib.import_module(module.name)
    # The whole path once while everything can be read (a refused key: free), so that
    # nothing is left to import after the limits.
    with tempfile.TemporaryDirectory() as scratch:
        scratch_study = sf.Study(scratch + "/s")
        scratch_study.add_posts("1")
        with sf.Client("wrong-key-0123456789", base_url=sys.argv[2], cache=False,
                       progress=False) as warm_up:
            try:
                scratch_study.refresh(warm_up)
            except sf.FetchError:
                pass
        scratch_study.comments(), scratch_study.runs()
    limit = int(os.environ.get("FSIZE", "0"))
    if limit:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full disk is an error, not a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    if os.environ.get("NOBODY"):
        os.setgid(65534)
        os.setuid(65534)
    out = {}
    try:
        target = sf.Study(sys.argv[1])
        with sf.Client(sys.argv[3], base_url=sys.argv[2], cache=False, progress=False) as c:
            out["rows"] = len(target.refresh(c))
    except sf.StudyError as exc:
        out["error"] = str(exc)
    print(json.dumps(out))
    """
)


def _fault_child(sandbox: Sandbox, folder: Path, **env: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", FAULT_CHILD, str(folder), sandbox.url, sandbox.api_key],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
def test_a_full_disk_is_one_clear_error_and_the_study_stays_as_it_was(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    study.add_posts([P82])
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
    before = (study.comments(), study.runs())
    study.add_posts([P2345])
    out = _fault_child(sandbox, Path(study.path), FSIZE=str(64 * 1024))
    assert "cannot be written" in str(out.get("error")), out
    assert "the study is as it was" in str(out["error"])
    pd.testing.assert_frame_equal(study.comments(), before[0])
    pd.testing.assert_frame_equal(study.runs(), before[1])
    with _client(sandbox, tmp_path) as client:  # room again: the next refresh goes on
        assert study.refresh(client).set_index("item")["new"].to_dict() == {P82: 0, P2345: 2345}


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="drops to nobody: needs root")
def test_a_read_only_study_is_one_clear_error_and_still_reads(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    folder = Path(tempfile.mkdtemp(prefix="sf-study-ro-"))
    try:
        study = sf.Study(folder / "s")
        study.add_posts([P82])
        with _client(sandbox, tmp_path) as client:
            study.refresh(client)
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        out = _fault_child(sandbox, folder / "s", NOBODY="1")
        assert "cannot be written (no permission to write there)" in str(out.get("error")), out
        assert len(sf.Study(folder / "s").comments()) == 82  # (root) it reads as it was
    finally:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder)


CACHE_FULL_CHILD = textwrap.dedent(
    """
    import json, sys, warnings, socialframe as sf
    study = sf.Study(sys.argv[1])
    with (
        sf.Client(sys.argv[3], base_url=sys.argv[2], cache=sys.argv[4], progress=False) as client,
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        run = study.refresh(client)
    print(json.dumps({"new": run["new"].tolist(), "paid": client.ledger.paid_calls,
                      "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}))
    """
)


@pytest.mark.slow
def test_a_refresh_whose_cache_disk_is_full_warns_and_keeps_what_it_paid_for(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path
) -> None:
    """Before: ``Study.refresh`` said nothing when the HTTP cache could not store the
    pages it paid for (a full disk), as ``post_comments`` does (a CacheWarning)."""
    from disks import new_cache, on_a_full_disk

    study.add_posts([P50])
    cache = tmp_path / "cache"
    done = on_a_full_disk(
        cache,
        [sys.executable, "-c", CACHE_FULL_CHILD, str(study.path), sandbox.url, sandbox.api_key]
        + [str(cache)],
        prepare=new_cache(cache),
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["new"] == [50] and out["paid"] == 1
    (warning,) = out["warnings"]
    assert warning.startswith(
        f"CacheWarning: 1 paid page could not be stored in the cache at {cache}/http_cache.sqlite:"
        " the disk is full"
    ), warning
    assert len(study.comments()) == 50  # the study kept what was paid for


# -- the change rules, with a service whose answers a test changes -------------------------


class Edited:
    """The sandbox's answers (in-process), with some comments' text and some ads' fields
    changed, and some ads left out: what a week can do to what a study saw."""

    def __init__(self) -> None:
        self.sandbox = Sandbox(seed=0, clock=PinnedClock())
        self.inner = self.sandbox.transport().handler
        self.texts: dict[str, str] = {}  # comment id -> text now
        self.ads: dict[str, dict[str, object]] = {}  # ad id -> fields now
        self.gone: set[str] = set()  # ad ids no longer answered

    def __call__(self, request: object) -> tuple[int, bytes, dict[str, str]]:
        status, content, headers = self.inner(request)
        body = json.loads(content)
        for comment in body.get("data", []) if isinstance(body.get("data"), list) else []:
            for cid, text in self.texts.items():
                if cid in json.dumps(comment):
                    comment["text"] = text
        data = body.get("data")
        if isinstance(data, dict) and isinstance(data.get("ads"), list):
            for group in data["ads"]:
                kept = []
                for ad in group if isinstance(group, list) else [group]:
                    aid = str(ad.get("ad_archive_id"))
                    if aid in self.gone:
                        continue
                    ad.update(self.ads.get(aid, {}))
                    kept.append(ad)
                group[:] = kept
            data["ads"] = [g for g in data["ads"] if g]
        return status, json.dumps(body).encode(), headers


def _scripted(service: Edited, tmp_path: Path) -> sf.Client:
    return sf.Client(
        service.sandbox.api_key,
        base_url="https://api.example",
        transport=sf.MockTransport(service),
        cache=tmp_path / "cache",
        progress=False,
    )


def test_an_edited_comment_is_a_change_and_its_new_text_the_latest(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Edited()
    study.add_posts([P50])
    with _scripted(service, tmp_path) as client:
        study.refresh(client)
        first = study.comments().set_index("comment_id")
        edited = first.index[3]
        service.texts[edited] = "edited: a better comment"
        run = study.refresh(client)
    assert run[["new", "changed"]].to_dict("list") == {"new": [0], "changed": [1]}
    changes = study.changes()
    assert changes.loc[changes["change"] == "edited", "id"].tolist() == [edited]
    now = study.comments().set_index("comment_id")
    assert now.at[edited, "text"] == "edited: a better comment"
    assert now.at[edited, "first_seen"] == first.at[edited, "first_seen"]
    versions = study.sql("select text from comment_versions where comment_id = ?", [edited])
    assert sorted(versions["text"]) == sorted(
        [first.at[edited, "text"], "edited: a better comment"]
    )


def test_stopped_ads_are_found_both_ways_and_are_no_longer_active(
    study: sf.Study, tmp_path: Path
) -> None:
    from datetime import timedelta

    service = Edited()
    study.add_ads("running shoes", country="US", active_status="all")
    with _scripted(service, tmp_path) as client:
        study.refresh(client)
        running = study.ads().query("is_active")["ad_archive_id"].tolist()
        flagged, vanished, retitled = running[0], running[1], running[2]
        service.ads[flagged] = {"is_active": False}  # the service says it stopped
        service.gone.add(vanished)  # no longer among the running ones
        service.ads[retitled] = {"snapshot": {"title": "A new title"}}
        run = study.refresh(client)
        changes = study.changes().query("change != 'new'").set_index("id")["change"].to_dict()
        # Before: one walk without it, and `vanished` was "stopped" at once.
        assert changes == {flagged: "stopped", vanished: "missing", retitled: "edited"}
        assert run["changed"].tolist() == [3] and run["new"].tolist() == [0]
        ads = study.ads().set_index("ad_archive_id")
        assert ads.at[vanished, "state"] == "missing" and ads.at[vanished, "is_active"]
        assert pd.isna(ads.at[vanished, "stopped_seen"])
        study.refresh(client)  # absent again, but too soon after: missing still
        assert study.ads().set_index("ad_archive_id").at[vanished, "state"] == "missing"
        study.refresh(client, stopped_after=timedelta(0))  # two walks far enough apart
    changes = study.changes().query("change == 'stopped'")
    assert set(changes["id"]) == {flagged, vanished}
    evidence = json.loads(changes.set_index("id").at[vanished, "evidence"])
    assert evidence["complete"] and len(evidence["absent_from"]) == 2
    ads = study.ads().set_index("ad_archive_id")
    assert not ads.at[flagged, "is_active"] and not ads.at[vanished, "is_active"]
    assert ads.loc[[flagged, vanished], "stopped_seen"].notna().all()
    assert ads["stopped_seen"].notna().sum() == 2
    assert (ads.loc[[flagged, vanished], "state"] == "stopped").all()


# -- a week in the sandbox's moving world ----------------------------------------------------


def test_a_week_later_a_refresh_finds_what_the_week_brought_and_says_what_it_cannot_see(
    tmp_path: Path,
) -> None:
    from socialframe.sandbox import AD_GROWTH, COMMENT_GROWTH

    clock = PinnedClock()  # the reference world; a week is clock.advance
    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345, EXAMPLE_POSTS[51], P82])
    study.add_ads("running shoes", country="ALL", active_status="all")
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
        running = set(study.ads().query("is_active")["ad_archive_id"])
        clock.advance(7 * 86400)
        week = study.refresh(client).set_index("item")
    big, small = COMMENT_GROWTH[2345], COMMENT_GROWTH[51]
    # the top-level comments of the week, all found; the replies to old threads, counted
    assert week.at[P2345, "new"] >= big.per_week - big.old_thread_replies
    assert week.at[P2345, "missing"] == big.per_week - week.at[P2345, "new"]
    assert week.at[P2345, "paid_calls"] == 2  # 60 new threads: page 1, then page 2 (known)
    assert week.at[EXAMPLE_POSTS[51], "new"] + week.at[EXAMPLE_POSTS[51], "missing"] == (
        small.per_week
    )
    assert week.loc[P82, ["new", "missing", "paid_calls"]].tolist() == [0, 0, 1]
    assert not week.at[P2345, "complete"] and week.at[P82, "complete"]
    growth = AD_GROWTH[130]  # "running shoes": 130 ads at the reference date
    assert week.at["running shoes", "new"] == growth.started
    changes = study.changes()
    # the week's stopped ads left the running ones: missing, not yet proven stopped
    missing = set(changes.loc[changes["change"] == "missing", "id"])
    assert len(missing) == growth.stopped and missing <= running
    assert not (changes["change"] == "stopped").any()
    # what the refresh could not see, a full refresh reads, paying for it
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        full = study.refresh(client, full=True).set_index("item")
    assert full["complete"].all() and (full["missing"].dropna() == 0).all()
    # every page of the grown post (2,417 comments, 49 pages) but the two the week's refresh
    # read at this very moment (the clock stood still): fresh enough, from the cache
    assert full.at[P2345, "paid_calls"] == 49 - 2
    assert full.at[P82, "paid_calls"] == 0  # complete: not read again
    assert len(study.comments().query("item == @P2345")) == 2345 + big.per_week


# -- what a hostile review found, each before -> after --------------------------------------


def test_name_value_folders_above_the_study_change_nothing(tmp_path: Path) -> None:
    # Before: DuckDB's Hive reading took every name=value folder of the path as a column.
    nested = tmp_path / "lake" / "item=evil" / "refresh=zzz" / "comment_id=1"
    study = sf.Study(nested / "s")
    study.add_posts([P82])
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox, _client(sandbox, tmp_path) as client:
        study.refresh(client)
        again = study.refresh(client)
    comments = study.comments()
    assert len(comments) == 82 and set(comments["item"]) == {P82}
    assert "refresh" not in comments.columns and again["paid_calls"].tolist() == [1]


def test_two_searches_of_one_text_are_two_items_and_stop_nothing_of_each_other(
    tmp_path: Path,
) -> None:
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", country="US", active_status="all")
    study.add_ads("running shoes", country="DE", active_status="all")
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        first = study.refresh(client)
        clock.advance(7 * 86400)
        study.refresh(client)
    ads = study.ads()
    stopped = study.changes().query("change == 'stopped'")
    # Before: each search took the other's running ads for its own, and "stopped" them.
    assert set(stopped["id"]).isdisjoint(set(ads.loc[ads["is_active"], "ad_archive_id"]))
    new = study.changes().query("change == 'new'")
    assert new["id"].is_unique  # an ad both find is new once
    # which of the two searches found it: their filters tell them apart
    us, de = "active_status=all country=US", "active_status=all country=DE"
    assert set(study.changes()["filters"]) == {us, de}
    assert first["item"].tolist() == ["running shoes"] * 2  # and each refresh's rows
    assert first["filters"].tolist() == [us, de]


def test_data_without_its_log_is_refused_untouched(study: sf.Study, tmp_path: Path) -> None:
    study.add_posts([P82])
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox, _client(sandbox, tmp_path) as client:
        study.refresh(client)
    folder = Path(study.path)
    (folder / "comments" / "_delta_log").rename(tmp_path / "moved")
    files = sorted(p for p in folder.rglob("*.parquet"))
    # (read as an empty table, its comments would vanish from every answer)
    with pytest.raises(sf.StudyError, match="holds a study's data but no _delta_log"):
        sf.Study(folder).comments()
    assert sorted(p for p in folder.rglob("*.parquet")) == files


def test_nothing_outside_the_study_is_touched_or_read(study: sf.Study, tmp_path: Path) -> None:
    import deltalake
    import pyarrow as pa

    victim = tmp_path / "victim"
    (victim / "refresh=keep_me").mkdir(parents=True)
    study.add_posts([P82])
    shutil.move(Path(study.path) / "items", tmp_path / "items")
    (Path(study.path) / "items").symlink_to(victim)
    with pytest.raises(sf.StudyError, match="is a link"):
        study.add_posts([P50])  # a write
    assert (victim / "refresh=keep_me").is_dir() and list(victim.iterdir()) == [
        victim / "refresh=keep_me"
    ]
    with pytest.raises(sf.StudyError, match="is a link"):
        sf.Study(study.path).comments()
    (Path(study.path) / "items").unlink()
    shutil.move(tmp_path / "items", Path(study.path) / "items")
    # a watched row written by another program: checked as it is read, never used as is
    watched = deltalake.DeltaTable(str(Path(study.path) / "watched"))
    row = watched.to_pyarrow_table().slice(0, 1).to_pylist()[0]
    row.update(watch="post:abc:{}", item="abc")
    deltalake.write_deltalake(
        watched,
        pa.Table.from_pylist([row], schema=watched.to_pyarrow_table().schema),
        mode="append",
    )
    with pytest.raises(sf.StudyError, match="watched item 'abc': no activity id"):
        sf.Study(study.path).watched()


#: SQL that would write a file, in the study or beside it, read one that is not the
#: study's, or reach the network; ``{study}``, ``{data}``, ``{outside}``, ``{secret}`` and
#: ``{other}`` (another study's data file) are filled in.
ESCAPES = {
    "COPY over the log": "copy (select 1 as x) to"
    " '{study}/runs/_delta_log/00000000000000000000.json' (format csv)",
    "COPY over a data file": "copy (select * from comment_versions) to '{data}'"
    " (format parquet, use_tmp_file false)",
    "COPY beside it": "copy (select 1 as x) to '{outside}/x.csv'",
    "EXPORT DATABASE": "export database '{outside}/export'",
    "ATTACH a file": "attach '{study}/x.duckdb' as x",
    "INSTALL": "install httpfs",
    "LOAD": "load httpfs",
    "SET": "set enable_external_access = true",
    "a second statement": "select 1; copy (select 1 as x) to '{outside}/y.csv'",
    "read_csv of another file": "select * from read_csv('{secret}')",
    "read_text of another file": "select * from read_text('{secret}')",
    "another study's files": "select count(*) as n from read_parquet('{other}')",
    "a glob beside it": "select * from glob('{outside}/*')",
    "the network": "select * from read_parquet('http://127.0.0.1:9/x.parquet')",
}


@pytest.mark.parametrize("sql", ESCAPES.values(), ids=ESCAPES.keys())
def test_sql_reads_the_study_and_nothing_else(
    sandbox: Sandbox, study: sf.Study, tmp_path: Path, sql: str
) -> None:
    """Before: ``study.sql`` ran any DuckDB statement: ``COPY ... TO 'study.json'`` made
    the study unreadable, and it could write any file, read any file or load
    extensions from the network. Now each is a ValueError, and nothing changed."""
    study.add_posts([P82])
    other = sf.Study(tmp_path / "other")
    other.add_posts([P50])
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
        other.refresh(client)
    folder, outside = Path(study.path), tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("a secret of the user\n")
    data = next(folder.glob("comments/part-*.parquet"))
    before = {p: p.read_bytes() for p in [*folder.rglob("*"), *outside.rglob("*")] if p.is_file()}
    query = sql.format(
        study=folder,
        data=data,
        outside=outside,
        secret=outside / "secret.txt",
        other=next(Path(other.path).glob("comments/part-*.parquet")),
    )
    with pytest.raises(ValueError) as raised:
        study.sql(query)
    assert "secret of the user" not in str(raised.value)
    after = {p: p.read_bytes() for p in [*folder.rglob("*"), *outside.rglob("*")] if p.is_file()}
    assert after == before  # not one file written, changed or removed
    assert study.sql("select count(*) as n from comments")["n"].tolist() == [82]
    assert len(study.comments()) == 82


def test_refreshes_in_one_instant_have_ids_that_stay_short(tmp_path: Path) -> None:
    clock = ManualClock()  # never moves: every refresh at the same instant
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    sandbox = Sandbox(seed=0, clock=clock)
    # Before, each id nested the last: the third was longer than the second, the 34th too
    # long to store. Twelve refreshes show that (and a number not padded, "-10" < "-9").
    with sandbox.client(in_process=True, cache=False, clock=clock) as client:
        for _ in range(12):
            study.refresh(client)
    ids = study.sql('select refresh as id from runs order by "at", refresh')["id"].tolist()
    assert len(ids) == 12 and max(len(i) for i in ids) == len("20260101T000000000Z-000012")
    assert ids == sorted(ids) and len(set(ids)) == 12


def test_every_refresh_reads_back_with_pandas_alone(tmp_path: Path) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_ads("typewriter ribbon")  # ads without images: a column of no type, once
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox, _client(sandbox, tmp_path) as client:
        study.refresh(client)
        study.add_ads("coffee")
        study.refresh(client)
    # Before: list<null> beside list<string>: "Unsupported cast from string to null".
    ads = pd.read_parquet(Path(study.path) / "ads")
    assert len(ads) == len(study.sql("select * from ad_versions"))


@pytest.mark.parametrize("since", ["nan", "NaT", "", "99999999999d", pd.NaT, pd.Timedelta(days=-1)])
def test_since_that_is_no_time_is_refused(study: sf.Study, since: object) -> None:
    with pytest.raises(ValueError, match="since"):
        study.changes(since=since)


def test_a_service_message_saying_stopped_is_an_error_all_the_same(
    study: sf.Study, tmp_path: Path
) -> None:
    def service(request: object) -> tuple[int, dict[str, object]]:
        return 400, {"success": False, "message": "Comments are stopped on this post"}

    study.add_posts([P82])
    with sf.Client(
        "k-0123456789",
        base_url="https://api.example",
        progress=False,
        transport=sf.MockTransport(service),
        cache=False,
    ) as client:
        # Before: taken for "the refresh was stopped", and the error was dropped.
        with pytest.raises(sf.BadRequestError, match="stopped on this post"):
            study.refresh(client)
        with pytest.warns(sf.SkippedWarning, match="1 watched items failed"):
            run = study.refresh(client, on_error="skip")
    assert run["complete"].tolist() == [False]


def test_refreshing_a_study_that_watches_nothing_is_refused(study: sf.Study) -> None:
    with (
        sf.Client("k-0123456789", base_url="https://api.example", cache=False) as client,
        pytest.raises(ValueError, match="watches nothing yet"),
    ):
        study.refresh(client)
    assert not Path(study.path).exists()


def test_rows_written_without_the_columns_added_since_still_read(tmp_path: Path) -> None:
    """Rows kept without the columns added since (``watch``, ``content_id``: a study
    migrated from older files, bench/study_scale.py's rows) read as missing there, never
    an error."""
    from socialframe.sandbox import example_comments

    sf.Study(tmp_path / "s").add_posts([P82])  # (its tables)
    rows = (
        example_comments()
        .head(3)
        .assign(item=pd.array([P82] * 3, "string"), seen_at=pd.Timestamp("2026-01-01", tz="UTC"))
    )
    at = pd.Timestamp("2026-01-01", tz="UTC")
    run = pd.DataFrame(
        [{"at": at, "paid_calls": 0, "cost_usd": 0.0, "new": 3, "changed": 0, "items": 1}]
    ).assign(complete=True)
    write_refresh(
        tmp_path / "s",
        at,
        {"comments": rows[[*sf.COMMENT_COLUMNS, "item", "seen_at"]], "runs": run},
    )
    comments = sf.Study(tmp_path / "s").comments()
    assert len(comments) == 3 and list(comments.columns[-3:]) == ["item", "first_seen", "last_seen"]


def test_an_ad_two_searches_find_stops_once(tmp_path: Path) -> None:
    clock = PinnedClock()
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", country="ALL", active_status="all")
    study.add_ads("running shoes", country="ALL")  # the same ads, another watched item
    with (
        Sandbox(seed=0, clock=clock) as sandbox,
        sandbox.client(cache=tmp_path / "c", progress=False, clock=clock) as client,
    ):
        study.refresh(client)
        clock.advance(7 * 86400)
        study.refresh(client)
    changes = study.changes()
    missing = changes.query("change == 'missing'")["id"]
    # before: each stopped ad once per search that had found it
    assert len(missing) == 3 and missing.is_unique
    assert changes.query("change == 'new'")["id"].is_unique
