"""Comments and ads the service sends without an id, through a study: over HTTP to the
sandbox, a real SQLite cache, Parquet and DuckDB, as users run it.

Every such row is kept under its derived id (``derived:``...), the study and the
frame agree row for row, the post or search is complete, and a refresh pays no
more for it than for any other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import socialframe as sf
from socialframe.operations import Page
from socialframe.sandbox import (
    EXAMPLE_POSTS,
    IDLESS_POSTS,
    IDLESS_QUERIES,
    PinnedClock,
    Sandbox,
    ads_body,
    comment_total,
    comments_body,
)

ALL, SOME = IDLESS_POSTS["all"], IDLESS_POSTS["some"]
#: A search with ids of the shape of IDLESS_QUERIES["all"]: 26 ads, its last page
#: repeated forever (has_next_page stays true).
LIKE_ALL = "yoga mat"
#: What both frames hold for a comment (``page`` and ``fetched_at`` say how it was read).
SAME = [c for c in sf.COMMENT_COLUMNS if c not in ("page", "fetched_at")]


@pytest.fixture
def clock() -> PinnedClock:
    return PinnedClock()


@pytest.fixture
def sandbox(clock: PinnedClock) -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=clock) as server:
        yield server


def _client(sandbox: Sandbox, tmp_path: Path, **options: object) -> sf.Client:
    return sandbox.client(cache=tmp_path / "cache", progress=False, backoff=0.01, **options)


def _by_id(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    return frame[columns].sort_values(columns[:2]).reset_index(drop=True)


def test_comments_without_ids_are_all_kept_and_the_post_is_complete(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "study")
    study.add_posts([ALL, SOME, EXAMPLE_POSTS[82]])
    with _client(sandbox, tmp_path) as client:
        first = study.refresh(client)
        # the plain frame, read in the other order (mostRelevant): the same ids
        frame = client.post_comments([ALL, SOME])
        charged = sandbox.charges
        second = study.refresh(client)
        again = sandbox.charges - charged
    assert first[["item", "new", "complete", "missing"]].to_dict("list") == {
        "item": [ALL, SOME, EXAMPLE_POSTS[82]],
        "new": [50, 82, 82],
        "complete": [True, True, True],
        "missing": [0, 0, 0],
    }
    assert frame.loc[frame["post"] == ALL, "id_derived"].all()
    assert frame.loc[frame["post"] == SOME, "id_derived"].sum() == 25
    comments = study.comments()
    mine = comments[comments["item"].isin([ALL, SOME])]
    assert len(mine) == len(frame) == 132 and mine["comment_id"].is_unique
    pd.testing.assert_frame_equal(
        _by_id(mine, ["post_urn", "comment_id", *SAME[2:]]),
        _by_id(frame, ["post_urn", "comment_id", *SAME[2:]]),
    )
    assert mine["comment_id"][mine["id_derived"]].str.fullmatch("derived:[0-9a-f]{32}").all()
    # one person's "+1" twice in one moment: two comments, two ids
    twins = mine[mine["text"] == "+1"]
    assert len(twins) == 2 and twins["comment_id"].nunique() == 2
    assert twins.drop(columns=["comment_id"]).nunique(dropna=False).max() == 1
    # nothing new: the newest page of each post, as for the post with ids
    assert second["paid_calls"].tolist() == [1, 1, 1] and again == 3
    assert second["new"].tolist() == [0, 0, 0] and second["complete"].all()
    assert second["missing"].tolist() == [0, 0, 0]
    changes = study.changes()
    assert len(changes) == 50 + 82 + 82 and (changes["change"] == "new").all()
    assert changes["id"].is_unique
    assert len(study.comments()) == 214


def test_comments_without_ids_that_arrive_later_are_new_once(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "study")
    study.add_posts(ALL)
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
        clock.advance(timedelta(weeks=1).total_seconds())
        grown = study.refresh(client)
        charged = sandbox.charges
        still = study.refresh(client)
        paid = sandbox.charges - charged
        frame = client.post_comments(ALL, sort="mostRecent")
    total = comment_total(ALL, now=clock.now())
    assert total > 50  # the world grew: 3 comments a week, all without a permalink
    assert grown["new"].tolist() == [total - 50] and grown["complete"].tolist() == [True]
    assert still["new"].tolist() == [0] and still["changed"].tolist() == [0] and paid == 1
    changes = study.changes()
    assert len(changes) == total and changes["id"].is_unique
    assert set(study.comments()["comment_id"]) == set(frame["comment_id"])
    assert frame["id_derived"].all()


def test_ads_without_ids_are_all_kept_and_a_refresh_pays_what_any_pays(
    sandbox: Sandbox, clock: PinnedClock, tmp_path: Path
) -> None:
    study = sf.Study(tmp_path / "study")
    for query in (IDLESS_QUERIES["all"], LIKE_ALL, IDLESS_QUERIES["some"]):
        study.add_ads(query)
    # (before ids were derived, the repeated last page of such a search was new every
    # time: the budget is what stopped it)
    with _client(sandbox, tmp_path, max_cost=1.0) as client:
        first = study.refresh(client)
        frame = client.search_ads(list(IDLESS_QUERIES.values()))
        second = study.refresh(client)
        ads = study.ads()
        clock.advance(timedelta(weeks=1).total_seconds())
        third = study.refresh(client)
        fourth = study.refresh(client)
    with sandbox.client(cache=False, progress=False) as fresh:  # (not last week's pages)
        after = fresh.search_ads(list(IDLESS_QUERIES.values()))
    assert first["complete"].all() and first["new"].tolist() == [26, 26, 40]
    # the search without ids pays what the search with ids of its shape pays
    for run in (first, second, third, fourth):
        assert run["paid_calls"][0] == run["paid_calls"][1], run
    assert first["paid_calls"][0] == 2  # its page, then the page repeated: no more
    assert frame.loc[frame["query"] == IDLESS_QUERIES["all"], "id_derived"].all()
    assert 0 < frame.loc[frame["query"] == IDLESS_QUERIES["some"], "id_derived"].sum() < 40
    mine = ads[ads["item"].isin(list(IDLESS_QUERIES.values()))]
    columns = ["ad_archive_id", "id_derived", "page_id", "start_date", "body_text", "title"]
    pd.testing.assert_frame_equal(_by_id(mine, columns), _by_id(frame, columns))
    assert second["new"].tolist() == [0, 0, 0] and second["changed"].tolist() == [0, 0, 0]
    # a week later: new ads are new once, stopped ones stopped once, then nothing
    assert third["new"][0] > 0 and third["changed"][0] > 0
    assert fourth["new"].tolist() == [0, 0, 0] and fourth["changed"].tolist() == [0, 0, 0]
    changes = study.changes()
    gnomes = changes[changes["item"] == IDLESS_QUERIES["all"]]
    assert not gnomes.duplicated(["id", "change"]).any()
    assert (
        (gnomes["change"] == "new").sum()
        == len(after[after["query"] == IDLESS_QUERIES["all"]])
        == third["new"][0] + 26
    )
    latest = study.ads()
    assert latest["ad_archive_id"].is_unique
    assert set(latest.loc[latest["item"] == IDLESS_QUERIES["all"], "ad_archive_id"]) == set(
        after.loc[after["query"] == IDLESS_QUERIES["all"], "ad_archive_id"]
    )


# -- one comment, sent with its permalink and without -------------------------------------------


def _without_permalinks(body: dict[str, Any], keep: Callable[[dict[str, Any]], bool]) -> Any:
    """A comments body as the service sends it when it leaves out some permalinks."""
    data = [
        c if keep(c) else {k: v for k, v in c.items() if k != "permalink"} for c in body["data"]
    ]
    return {**body, "data": data}


def test_a_comment_is_one_whether_its_permalink_comes_or_goes(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    post = EXAMPLE_POSTS[50]
    # none of its permalinks; its replies come with createdAt 0, their moment in the text
    stripped = _without_permalinks(comments_body(post, "mostRecent"), keep=lambda c: False)
    assert sum(c["createdAt"] == 0 for c in stripped["data"]) == 4
    study = sf.Study(tmp_path / "study")
    study.add_posts(post)
    with _client(sandbox, tmp_path) as client:
        sandbox.inject(stripped)
        first = study.refresh(client)
        named = study.refresh(client)  # the service sends every permalink again
        comments = study.comments()
        with_ids = client.post_comments(post, sort="mostRecent")
        edited = json.loads(json.dumps(stripped))
        edited["data"][0]["text"] += " (edited)"
        edited["data"][0]["isEdited"] = True
        sandbox.inject(edited)
        unnamed = study.refresh(client)  # and leaves them out again, one text edited
    without_ids = sf.comments_frame([Page(edited, 1, key=post)])  # (as the client hands it)
    assert first["new"].tolist() == [50] and first["complete"].tolist() == [True]
    assert len(study.runs()) == 3
    # its id came: the same comment (not new, not edited), shown under its id now
    assert named[["new", "changed", "missing"]].values.tolist() == [[0, 0, 0]]
    assert len(comments) == 50 and not comments["id_derived"].any()
    pd.testing.assert_frame_equal(_by_id(comments, SAME), _by_id(with_ids, SAME))
    runs = study.runs()["at"]
    assert (comments["first_seen"] == runs[0]).all()
    # and went again: still the same comments; one of them edited, and said so
    assert unnamed[["new", "changed", "missing"]].values.tolist() == [[0, 1, 0]]
    latest = study.comments()
    assert len(latest) == 50 and latest["id_derived"].all()
    pd.testing.assert_frame_equal(_by_id(latest, SAME), _by_id(without_ids, SAME))
    assert (latest["first_seen"] == runs[0]).all()
    changes = study.changes()
    assert changes["change"].tolist() == ["new"] * 50 + ["edited"]
    assert changes["id"].iloc[-1] == without_ids["comment_id"][0]


def test_a_post_whose_permalinks_went_is_still_read_newest_page_only(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    post = EXAMPLE_POSTS[82]  # two pages
    study = sf.Study(tmp_path / "study")
    study.add_posts(post)
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
        # page 1 now without a single permalink: its comments are known by what they are
        sandbox.inject(_without_permalinks(comments_body(post, "mostRecent"), keep=lambda c: False))
        charged = sandbox.charges
        again = study.refresh(client)
        paid = sandbox.charges - charged
    assert again[["new", "paid_calls", "complete"]].values.tolist() == [[0, 1, True]] and paid == 1


def test_an_ad_is_one_whether_its_id_comes_or_goes(sandbox: Sandbox, tmp_path: Path) -> None:
    params = {"query": LIKE_ALL, "activeStatus": "Active"}  # one page, then that page again
    body = ads_body(params)
    assert body["data"]["page_info"]["has_next_page"]
    stripped = json.loads(json.dumps(body))
    for group in stripped["data"]["ads"]:
        for ad in group:
            del ad["ad_archive_id"]
    running = sum(map(len, body["data"]["ads"]))
    study = sf.Study(tmp_path / "study")
    study.add_ads(LIKE_ALL, active_status="active")
    with _client(sandbox, tmp_path) as client:
        sandbox.inject(stripped, stripped)  # the page, and the page again
        first = study.refresh(client)
        without = study.ads()
        named = study.refresh(client)  # the service sends every id again
        ads = study.ads()
        with_ids = client.search_ads(LIKE_ALL, active_status="active")
        sandbox.inject(stripped, stripped)
        unnamed = study.refresh(client)  # and leaves them out again
        latest = study.ads()
    assert first[["new", "changed", "complete"]].values.tolist() == [[running, 0, True]]
    assert len(without) == running and without["id_derived"].all()
    # its id came: the same ads, not new, not stopped, shown under their ids
    assert named[["new", "changed"]].values.tolist() == [[0, 0]]
    columns = ["ad_archive_id", "id_derived", "page_id", "start_date", "body_text", "is_active"]
    pd.testing.assert_frame_equal(_by_id(ads, columns), _by_id(with_ids, columns))
    assert (ads["first_seen"] == without["first_seen"].iloc[0]).all()
    assert ads["stopped_seen"].isna().all()
    # and went again: still the same ads
    assert unnamed[["new", "changed"]].values.tolist() == [[0, 0]]
    assert len(latest) == running and latest["id_derived"].all()
    assert set(latest["ad_archive_id"]) == set(without["ad_archive_id"])
    assert study.changes()["change"].tolist() == ["new"] * running


def test_a_study_written_before_ids_were_derived_reads_and_refreshes(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    import deltalake
    import pyarrow as pa

    study = sf.Study(tmp_path / "study")
    study.add_posts(EXAMPLE_POSTS[82])
    study.add_ads(LIKE_ALL)
    with _client(sandbox, tmp_path) as client:
        study.refresh(client)
        # its rows as an older socialframe kept them: without the columns added since
        # (and rewritten by another writer: files whose names hold no hash, checked by
        # their size and columns)
        for kind in ("comments", "ads"):
            table = deltalake.DeltaTable(str(Path(study.path) / kind))
            rows = table.to_pyarrow_table()
            for name in ("id_derived", "content_id"):
                at = rows.schema.get_field_index(name)
                rows = rows.set_column(at, name, pa.nulls(len(rows), rows.schema.field(at).type))
            deltalake.write_deltalake(table, rows, mode="overwrite")
        older = sf.Study(study.path)
        comments, ads = older.comments(), older.ads()
        assert len(comments) == 82 and not comments["id_derived"].any()
        assert comments["id_derived"].dtype == "boolean" and len(ads) == 26
        again = older.refresh(client)  # the new files beside the old ones
    assert again["new"].tolist() == [0, 0] and again["changed"].tolist() == [0, 0]
    assert len(older.comments()) == 82 and not older.comments()["id_derived"].isna().any()
    assert len(older.ads()) == 26 and not older.ads()["id_derived"].isna().any()
