"""Derived ids: comments and ads the service sent without an id, from dicts and bytes alone.

The rule (socialframe/_frames/identity.py): ``derived:`` + 32 hex digits of a SHA-256
over what the service did send, numbered among equal rows; ``id_derived`` says which.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import socialframe as sf
from socialframe._frames import identity  # the rule's own module
from socialframe.operations import Page

POST = "7384427202391592960"
T0 = 1760584641073  # 2025-10-16 03:17:21.073 UTC
ADA = {"name": "Ada", "id": "80563302"}
BEN = {"firstName": "Ben", "lastName": "Ng"}  # no id: named by his name


def body(*comments: dict[str, Any], total_page: int = 1) -> dict[str, Any]:
    return {"success": True, "data": list(comments), "totalPage": total_page}


def idless(text: str = "+1", at: int | None = T0, author: dict[str, Any] = ADA) -> dict[str, Any]:
    """A comment as the service sends one with no permalink."""
    return {"createdAt": at, "text": text, "author": dict(author), "isEdited": False}


def page(number: int, *comments: dict[str, Any]) -> Page:
    """A page of a walk of POST, as the client hands it over."""
    return Page(body(*comments), number, key=POST)


def frame(*pages: Any) -> pd.DataFrame:
    return sf.comments_frame(list(pages))


# -- the form of a derived id --------------------------------------------------------------------

KEYS = st.tuples(
    st.none() | st.text(max_size=20),  # the post
    st.none() | st.integers(0, 2**63),  # createdAt
    st.none() | st.text(max_size=20),  # createdAtString
    st.none() | st.text(max_size=12),  # author id
    st.none() | st.text(max_size=12),  # author name
    st.none() | st.text(max_size=30),  # text (lone surrogates too)
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(KEYS, st.integers(0, 5)), min_size=2, max_size=6))
def test_derived_ids_are_distinct_for_distinct_inputs_and_the_same_for_equal_ones(
    inputs: list[tuple[tuple[Any, ...], int]],
) -> None:
    ids = [identity.derived_id("comment", key, n) for key, n in inputs]
    assert ids == [identity.derived_id("comment", key, n) for key, n in inputs]  # deterministic
    assert len(set(ids)) == len(set(inputs))  # distinct exactly when the inputs are
    assert all(identity.is_derived(i) and i.startswith(identity.DERIVED) for i in ids)
    assert identity.derived_id("ad", inputs[0][0], inputs[0][1]) != ids[0]  # kinds apart


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | st.sampled_from([f"urn:li:activity:{POST}", "urn:li:activity:1"]),
            st.none() | st.sampled_from([T0, T0 + 1]),
            st.none() | st.sampled_from(["55791-06-13 04:24:33", "2025-10-16 03:17:21"]),
            st.none() | st.sampled_from(["1", "2"]),
            st.none() | st.sampled_from(["Ada", "Ben"]),
            st.sampled_from(["+1", "+2", "\ud800"]),
            st.integers(0, 1),  # the walk
        ),
        max_size=12,
    )
)
def test_comments_of_one_walk_never_share_an_id(rows: list[tuple[Any, ...]]) -> None:
    keys = [identity.comment_key(*row[:6]) for row in rows]
    ids = identity.comment_ids(keys, [row[6] for row in rows])
    walks: dict[int, list[str]] = {}
    for row, made in zip(rows, ids, strict=True):
        walks.setdefault(row[6], []).append(made)
    for made in walks.values():
        assert len(set(made)) == len(made)  # equal keys are numbered: never one id


def _derived_here(comments: dict[str, Any], ads: dict[str, Any]) -> list[str]:
    """The ids the public frames derive for ``comments`` (one page of POST) and ``ads``."""
    made = sf.comments_frame([Page(comments, 1, key=POST)])["comment_id"].tolist()
    return [*made, *sf.ads_frame([ads])["ad_archive_id"].tolist()]


DERIVED_THERE = """
import json, sys
from socialframe.operations import Page
import socialframe as sf
comments, ads, post = json.loads(sys.argv[1])
made = sf.comments_frame([Page(comments, 1, key=post)])["comment_id"].tolist()
print(json.dumps([*made, *sf.ads_frame([ads])["ad_archive_id"].tolist()]))
"""


def test_derived_ids_are_the_same_in_every_process() -> None:
    """Three equal comments without ids (numbered among equals; an emoji and a lone
    surrogate in the text) and an ad without one: the same ids under any hash seed."""
    same = idless("Grüße \ud83d\ude00 \ud800", at=None, author={"id": "7"})
    comments, ads = body(same, dict(same), dict(same)), ads_body([AD])
    here = _derived_here(comments, ads)
    assert len(set(here)) == 4 and all(map(identity.is_derived, here))
    for seed in ("0", "1", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", DERIVED_THERE, json.dumps([comments, ads, POST])],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(done.stdout) == here
    # pinned: a change of the rule would rename every comment in every study
    assert identity.derived_id("comment", ("urn:li:activity:1", T0, None, "42", None, None), 0) == (
        "derived:5199c7d9e7c08ccfc3f58de239ae97e9"
    )


# -- comments ------------------------------------------------------------------------------------


def test_comments_without_a_readable_permalink_get_a_derived_id() -> None:
    real = {
        **idless("hi", T0 - 1),
        "permalink": "https://www.linkedin.com/feed/update/urn:li:activity:"
        f"{POST}?commentUrn=urn%3Ali%3Acomment%3A%28activity%3A{POST}%2C{T0 << 22}%29",
    }
    missing = idless("a")
    null = {**idless("b", T0 + 1), "permalink": None}
    unreadable = {**idless("c", T0 + 2), "permalink": f"https://x.example/{POST}?commentUrn=%28"}
    df = frame(page(1, real, missing, null, unreadable))
    assert df["comment_id"].tolist()[0] == str(T0 << 22)
    assert df["id_derived"].tolist() == [False, True, True, True]
    assert df["id_derived"].dtype == "boolean"
    derived = df["comment_id"][1:].tolist()
    assert all(identity.is_derived(i) for i in derived) and len(set(derived)) == 3
    # made of the row's own values, which a user can read back from the frame
    assert derived[0] == identity.derived_id(
        "comment", (f"urn:li:activity:{POST}", T0, None, ADA["id"], None, None), 0
    )
    assert df["post_urn"].tolist() == [f"urn:li:activity:{POST}"] * 4  # the post walked
    assert not df["is_reply"].any() and df["parent_comment_id"].isna().all()


def test_two_equal_comments_are_two_ids_and_stay_so_from_walk_to_walk() -> None:
    twins = [idless("+1"), idless("+1"), idless("+1", author=BEN)]
    once = frame(page(1, *twins))
    assert once["comment_id"].nunique() == 3
    # the same comments read again: the same ids, in a new walk (pages from 1 again)
    again = frame(page(1, *twins), page(1, *twins))
    assert again["comment_id"].tolist() == once["comment_id"].tolist() * 2
    # the walk counts across its pages: the second twin on page 2 is still the second
    split = frame(page(1, twins[0]), page(2, twins[1], twins[2]))
    assert split["comment_id"].tolist() == once["comment_id"].tolist()
    # Ben has no id: his name stands for it
    assert once["comment_id"][2] == identity.derived_id(
        "comment", (f"urn:li:activity:{POST}", T0, None, None, "Ben Ng", None), 0
    )


def test_an_edit_keeps_a_timed_comment_s_id_not_an_untimed_one_s() -> None:
    timed = frame(page(1, idless("first words")))["comment_id"][0]
    assert frame(page(1, {**idless("edited words"), "isEdited": True}))["comment_id"][0] == timed
    # a reply sent with createdAt 0 has no time: its text tells it apart instead
    untimed = frame(page(1, idless("one", at=0), idless("two", at=0)))
    assert untimed["comment_id"].nunique() == 2 and untimed["created_at"].isna().all()
    assert frame(page(1, idless("two", at=0)))["comment_id"][0] == untimed["comment_id"][1]


def test_a_reply_sent_with_created_at_0_is_timed_by_its_created_at_string() -> None:
    # As the service sends replies: createdAt 0, and the milliseconds written as seconds.
    first = {**idless("thanks", at=0), "createdAtString": "55791-06-13 04:24:33"}
    second = {**idless("thanks", at=0), "createdAtString": "55791-06-13 04:24:34"}
    df = frame(page(1, first, second))
    assert df["created_at"].isna().all()  # (no time shown: the text is no time)
    ids = df["comment_id"].tolist()
    # each is named by its own moment: in any order, alone, or edited
    assert frame(page(1, second, first))["comment_id"].tolist() == ids[::-1]
    assert frame(page(1, second))["comment_id"][0] == ids[1]
    assert frame(page(1, {**first, "text": "thanks!", "isEdited": True}))["comment_id"][0] == ids[0]


def test_a_derived_id_is_never_a_real_one() -> None:
    # a permalink naming a comment id that looks derived: no id is read from it
    sly = {
        **idless("x"),
        "permalink": f"https://x/?commentUrn=urn:li:comment:(activity:{POST},"
        "derived:41f9654f9c0e08950fceb7f84d232275)",
    }
    df = frame(page(1, sly))
    assert df["id_derived"].tolist() == [True]
    assert df["comment_id"][0] != "derived:41f9654f9c0e08950fceb7f84d232275"


COMMENT_POOL = [
    idless("+1"),
    idless("+1", at=0),
    idless("", at=None),
    idless("x", author=BEN),
    {**idless("y"), "author": None},
    {**idless("z"), "permalink": f"https://www.linkedin.com/feed/update/urn:li:activity:{POST}/"},
    {**idless("\ud800 lone", at=0), "permalink": None},
    {**idless("s", at=0), "createdAtString": "55791-06-13 04:24:33"},
    {**idless("s", at=0), "createdAtString": "\ud800 55791"},
    {**idless("s", at=0), "createdAtString": {"not": "text"}},
    {**idless("s", at=None), "createdAtString": 1760584641073},
    {
        **idless("r"),
        "permalink": f"https://x/?commentUrn=urn%3Ali%3Acomment%3A%28activity%3A{POST}"
        f"%2C{T0 << 22}%29&replyUrn=urn%3Ali%3Acomment%3A%28activity%3A{POST}%2C{(T0 + 9) << 22}%29",
    },
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(COMMENT_POOL), max_size=6), min_size=1, max_size=4))
def test_raw_bodies_derive_the_ids_of_their_dicts(pages: list[list[dict[str, Any]]]) -> None:
    bodies = [body(*comments) for comments in pages]
    raw = [json.dumps(b).encode("utf-8", "surrogatepass") for b in bodies]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.SchemaWarning)
        from_dicts = sf.comments_frame(bodies)
        from_bytes = sf.comments_frame(raw)
    pd.testing.assert_frame_equal(from_bytes, from_dicts)
    assert from_dicts["comment_id"].notna().all()
    derived = from_dicts[from_dicts["id_derived"]]
    assert derived["comment_id"].is_unique and all(map(identity.is_derived, derived["comment_id"]))


# -- ads -----------------------------------------------------------------------------------------

AD = {
    "page_id": "111",
    "start_date": 1_700_000_000,
    "collation_id": "555",
    "is_active": True,
    "snapshot": {"body": {"text": "Hi"}, "title": "T", "display_format": "IMAGE"},
}


def ads_body(*groups: list[dict[str, Any]], more: bool = False) -> dict[str, Any]:
    return {"data": {"ads": list(groups), "page_info": {"end_cursor": "c", "has_next_page": more}}}


def test_ads_without_an_id_get_a_derived_one_and_repeats_are_one_ad() -> None:
    other = {**AD, "snapshot": {**AD["snapshot"], "body": {"text": "Hello"}}}
    first = ads_body([AD, dict(AD)], [other], [{**AD, "ad_archive_id": "9"}])
    again = ads_body([dict(other)], [AD, dict(AD)])  # a repeated page, regrouped
    df = sf.ads_frame([first, again])
    assert df["id_derived"].tolist() == [True, True, True, False]
    assert df["ad_archive_id"].iloc[3] == "9"
    derived = df["ad_archive_id"].iloc[:3]
    assert all(map(identity.is_derived, derived)) and derived.is_unique  # twins of a group: two
    assert df["result_page"].tolist() == [1, 1, 1, 1]  # page 2 brought nothing new
    # the id moves with the copy, not with volatile fields
    moved = sf.ads_frame([ads_body([{**AD, "is_active": False, "end_date": 1_700_100_000}])])
    assert moved["ad_archive_id"][0] == derived.iloc[0]


def test_an_ad_id_in_the_derived_form_is_not_taken_from_the_service() -> None:
    made = sf.ads_frame([ads_body([AD])])["ad_archive_id"][0]
    sly = {**AD, "snapshot": {**AD["snapshot"], "title": "other"}, "ad_archive_id": made}
    with pytest.warns(sf.SchemaWarning, match="ad_archive_id"):
        df = sf.ads_frame([ads_body([AD], [sly])])
    assert df["id_derived"].tolist() == [True, True]
    assert df["ad_archive_id"].is_unique  # the sly one did not overwrite the first
    assert df["raw_ad_archive_id"].tolist()[1] == made  # kept as sent, beside


@pytest.mark.parametrize("empty", [None, "", "missing"])
def test_ads_with_an_empty_id_are_kept(empty: str | None) -> None:
    ad = dict(AD)
    if empty == "missing":
        ad.pop("ad_archive_id", None)
    else:
        ad["ad_archive_id"] = empty
    df = sf.ads_frame([ads_body([ad], [{**ad, "start_date": 1_700_086_400}])])
    assert len(df) == 2 and df["id_derived"].all() and df["ad_archive_id"].is_unique
