"""The arguments of a call, checked before it costs anything: ids longer than the
service's are refused, never cut; posts and queries must be text (or int ids): bytes,
dicts, sets and frames are refused before any call.

Through real HTTP on 127.0.0.1 (the sandbox).
"""

from __future__ import annotations

import array
import itertools
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82, P1 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[1]
KEY = "sk-trust-inputs-0123456789"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, api_key=KEY, clock=PinnedClock()) as server:
        yield server


def _build(sandbox: Sandbox, tmp_path: Path, **settings: Any) -> sf.Client:
    return sf.Client(KEY, base_url=sandbox.url, cache=tmp_path / "c.sqlite", **settings)


@pytest.mark.parametrize(
    "post",
    [
        "urn:li:activity:" + "9" * 5000,
        "urn:li:activity:" + "9" * 21,
        "9" * 21,
        10**20,
        "https://www.linkedin.com/feed/update/urn:li:activity:" + "7" * 25 + "/",
        "https://www.linkedin.com/posts/x_y-activity-" + "7" * 25 + "-eGaf",
        "https://www.linkedin.com/posts/x_my-activity-12-weeks-activity-7384427202391592960-eGaf",
    ],
)
def test_an_id_longer_than_the_services_is_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path, post: object
) -> None:
    with _build(sandbox, tmp_path) as client:
        with pytest.raises(ValueError, match="digits|different activity ids"):
            client.post_comments(post)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="item 1"):
            client.post_comments([P82, post])  # type: ignore[list-item]
    assert sandbox.requests == [] and client.ledger.paid_calls == 0


def test_the_activity_word_of_a_url_slug_is_not_its_id(sandbox: Sandbox, tmp_path: Path) -> None:
    url = f"https://www.linkedin.com/posts/x_our-inactivity-12-weeks-activity-{P82}-eGaf"
    with _build(sandbox, tmp_path) as client:
        assert set(client.post_comments(url)["post_urn"]) == {f"urn:li:activity:{P82}"}
    assert [r.params["urn"] for r in sandbox.requests] == [P82, P82]


def test_ad_page_ids_longer_than_the_services_are_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    with _build(sandbox, tmp_path) as client:
        for page_id in ("9" * 21, 10**20):
            with pytest.raises(ValueError, match="ad_page_id has 21 digits"):
                client.search_ads(ad_page_id=page_id)
        most = np.uint64(2**64 - 1)  # 20 digits: the most taken, of any integer type
        assert len(client.search_ads(ad_page_id=most, max_pages=1)) > 0
    assert [r.params["ad_page_id"] for r in sandbox.requests] == [str(2**64 - 1)]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (bytearray(b"7384"), "not bytearray: decode it first"),  # was posts 55, 56, 52, 52
        (b"7384", "not bytes: decode it first"),
        (memoryview(b"7384"), "not memoryview: decode it first"),
        ({P82, P1}, "no order"),
        (frozenset({P82}), "no order"),
        (pd.DataFrame({"post": [P82]}), "DataFrame"),
        # bytes by another name (found by the hostile review: posts 55, 56, 51, 52 paid)
        (array.array("B", b"7384"), "not a array of bytes or characters"),
        (np.frombuffer(b"7384", np.uint8), "not a ndarray of bytes or characters"),
        (array.array("u", "7384"), "not a array of bytes or characters"),  # (second review)
    ],
)
def test_posts_that_are_not_text_are_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path, given: object, said: str
) -> None:
    with _build(sandbox, tmp_path) as client, pytest.raises(TypeError, match=said):
        client.post_comments(given)  # type: ignore[arg-type]
    assert sandbox.requests == [] and client.ledger.paid_calls == 0


def test_an_endless_generator_of_posts_is_refused_not_waited_for(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    endless = (P82 for _ in itertools.count())
    with _build(sandbox, tmp_path) as client, pytest.raises(ValueError, match="more than"):
        client.post_comments(endless)
    assert sandbox.requests == []


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (bytearray(b"shoes"), "query must be text .*decode it first"),
        (b"shoes", "query must be text .*decode it first"),
        (memoryview(b"shoes"), "query must be text .*decode it first"),
        ({"shoes"}, "query must not be a set"),
    ],
)
def test_queries_that_are_not_text_are_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path, given: object, said: str
) -> None:
    with _build(sandbox, tmp_path) as client, pytest.raises(TypeError, match=said):
        client.search_ads(given)  # type: ignore[arg-type]
    assert sandbox.requests == []


def test_a_query_that_cannot_be_sent_as_utf8_is_refused_before_any_call(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Found by the second review: a lone surrogate made a NetworkError after the retries
    (it was nothing that could ever be sent)."""
    with _build(sandbox, tmp_path) as client, pytest.raises(ValueError, match="surrogate"):
        client.search_ads("\udcff shoes")
    assert sandbox.requests == []


def test_int_ids_of_any_integer_type_and_any_iterable_of_text_are_taken(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    ids = pd.Series([int(P82), int(P1)], name="post", dtype="int64")  # as read from a CSV
    with _build(sandbox, tmp_path) as client:
        frame = client.post_comments(ids)
        assert frame.groupby("post", sort=False).size().to_dict() == {P82: 82, P1: 1}
        assert len(client.post_comments(np.uint64(P1))) == 1
        assert len(client.post_comments(p for p in (P82, P1))) == 83
        assert len(client.post_comments((P82,))) == 82
    assert sandbox.charges == 3  # P82's two pages, P1's one: then the cache


@pytest.mark.parametrize(
    ("call", "kwargs", "said"),
    [
        ("post_comments", {"post": P82, "progress": "no"}, "progress"),
        ("search_ads", {"query": "x", "progress": "no"}, "progress"),
        ("search_ads", {"query": "x", "after": pd.NaT}, "after is NaT"),
        (
            "search_ads",
            {"query": "x", "after": datetime(1, 1, 1, 1, tzinfo=timezone(timedelta(hours=5)))},
            "after is out of the calendar",
        ),
    ],
)
def test_bad_arguments_of_a_call_are_refused_before_it(
    sandbox: Sandbox, tmp_path: Path, call: str, kwargs: dict[str, Any], said: str
) -> None:
    with _build(sandbox, tmp_path) as client, pytest.raises((TypeError, ValueError), match=said):
        getattr(client, call)(**kwargs)
    assert sandbox.requests == []
