"""Hostile answers: bodies broken in transit, bodies of the wrong shape, ``Vary: *``.

Over real HTTP against the sandbox (its faults in transit are written on the
socket) and in-process through the same requests / requests-cache stack. Rules:
a broken body is a retried ``NetworkError`` (a broken 200 was charged, so the
ledger counts it paid and ``max_cost`` stops a loop of them); a body of the
wrong shape is a ``SchemaError`` naming the page and is never stored; a page the
service charged for is stored unless it is an error.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]  # 82 comments: two pages

WIRE = ["truncated", "bad_chunk", "bad_gzip"]
SHAPES: list[dict[str, Any]] = [
    {"success": True, "data": None},
    {"success": True},
    {"success": True, "data": [1, "two"], "totalPage": 1},
    {"success": True, "data": [{"text": "x"}], "totalPage": "2"},
    {"success": True, "data": [{"text": "x"}]},  # no totalPage
    {"success": True, "data": [{"text": "x"}], "totalPage": 2, "paginationToken": ["a"]},
]
AD_SHAPES: list[dict[str, Any]] = [
    {"data": None},
    {"data": {}},
    {"data": {"ads": [[{"ad_archive_id": "1"}, 3]]}},
    {"data": {"ads": [], "page_info": {"end_cursor": ["a"], "has_next_page": True}}},
    {"data": {"ads": [], "page_info": {"end_cursor": "a", "has_next_page": "yes"}}},
]


@pytest.fixture(params=["http", "in_process"])
def sandbox(request: pytest.FixtureRequest) -> Any:
    if request.param == "http":
        with Sandbox(clock=PinnedClock()) as sb:
            yield sb
    else:
        yield Sandbox(clock=ManualClock())


def _client(sb: Sandbox, cache: Path, **kwargs: Any) -> sf.Client:
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("backoff", 0.01)
    return sb.client(in_process=isinstance(sb.clock, ManualClock), cache=cache, **kwargs)


@pytest.mark.parametrize("wire", WIRE)
def test_a_broken_body_is_a_retried_network_error_counted_as_paid(
    sandbox: Sandbox, tmp_path: Path, wire: str
) -> None:
    sandbox.inject(wire)
    with _client(sandbox, tmp_path, max_retries=1) as client:
        frame = client.post_comments(P82, max_pages=1)  # the retry gets the page
        assert len(frame) == 50
        assert (client.ledger.paid_calls, client.ledger.failed_calls) == (2, 0)
    assert sandbox.charges == 2  # what the service charged, the ledger counted
    sandbox.inject(wire)
    with _client(sandbox, tmp_path) as client, pytest.raises(sf.NetworkError) as caught:
        client.post_comments(EXAMPLE_POSTS[1])
    assert "HTTP 200" in str(caught.value) and sandbox.api_key not in str(caught.value)
    assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_max_cost_stops_a_loop_of_broken_bodies(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.inject(*["truncated"] * 8)
    with _client(sandbox, tmp_path, max_retries=6, max_cost=0.03) as client:
        with pytest.raises(sf.BudgetExceededError):
            client.post_comments(P82)
        assert client.ledger.paid_calls == 3
    assert sandbox.charges == 3


@pytest.mark.parametrize("wire", ["drip", "drip_headers"])
@pytest.mark.slow
def test_a_dripping_server_cannot_hold_a_call_past_its_timeout(tmp_path: Path, wire: str) -> None:
    # One byte every 0.2 s: the 50-comment page would take ~40 minutes.
    with Sandbox(clock=PinnedClock()) as sandbox:
        sandbox.inject(wire)
        with _client(sandbox, tmp_path, timeout=0.6) as client:
            started = time.monotonic()
            with pytest.raises(sf.NetworkError, match="timeout"):
                client.post_comments(P82, max_pages=1)
            took = time.monotonic() - started
            # The service charged both (a 200 it answered, broken on the way). What came
            # cannot tell (three bytes, or no status line): paid for the budget, and
            # unsure. (It counted no status line as free: one under the service's count.)
            assert client.ledger.paid_calls == client.ledger.unsure_calls == 1
            assert client.ledger.failed_calls == 0
        assert sandbox.charges == 1
        assert took < 5.0, took  # a deadline, not a speed target: was unbounded


@pytest.mark.parametrize("body", SHAPES, ids=range(len(SHAPES)))
def test_comment_pages_of_the_wrong_shape_are_never_stored(
    sandbox: Sandbox, tmp_path: Path, body: dict[str, Any]
) -> None:
    sandbox.inject(body)
    with _client(sandbox, tmp_path) as client:
        with pytest.raises(sf.SchemaError, match="comments page 1: "):
            client.post_comments(P82)
        assert client.ledger.paid_calls == 1
    with _client(sandbox, tmp_path) as client:  # the re-run gets the real page
        assert len(client.post_comments(P82, max_pages=1)) == 50
        assert client.ledger.paid_calls == 1
    with _client(sandbox, tmp_path, offline=True) as client:  # and that one is stored
        assert len(client.post_comments(P82, max_pages=1)) == 50


@pytest.mark.parametrize("body", AD_SHAPES, ids=range(len(AD_SHAPES)))
def test_ad_pages_of_the_wrong_shape_are_never_stored(
    sandbox: Sandbox, tmp_path: Path, body: dict[str, Any]
) -> None:
    sandbox.inject(body)
    with _client(sandbox, tmp_path) as client, pytest.raises(sf.SchemaError, match="ads page 1"):
        client.search_ads("for kids", max_pages=1)
    with _client(sandbox, tmp_path) as client:
        assert len(client.search_ads("for kids", max_pages=1)) > 0
        assert client.ledger.paid_calls == 1


def test_a_bad_page_2_hands_back_page_1(sandbox: Sandbox, tmp_path: Path) -> None:
    with _client(sandbox, tmp_path) as client:
        first = client.post_comments(P82, max_pages=1)
    sandbox.inject({"success": True, "data": None})
    with _client(sandbox, tmp_path) as client, pytest.raises(sf.SchemaError) as caught:
        client.post_comments(P82)
    assert "comments page 2" in str(caught.value)
    assert caught.value.partial is not None
    pd.testing.assert_frame_equal(caught.value.partial, first)


def test_vary_star_pages_are_stored(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.inject("vary_star")
    with _client(sandbox, tmp_path) as client:
        paid = client.post_comments(P82, max_pages=1)
    with _client(sandbox, tmp_path) as client:
        pd.testing.assert_frame_equal(client.post_comments(P82, max_pages=1), paid)
        assert client.ledger.paid_calls == 0
    assert sandbox.charges == 1


def test_a_bad_page_stored_by_an_older_version_is_fetched_again(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    with _client(sandbox, tmp_path) as client:
        good = client.post_comments(P82, max_pages=1)
        (key,) = list(client.session.cache.responses.keys())
        stored = client.session.cache.responses[key]
        stored._content = b'{"success": true, "data": null}'  # what no check let through
        client.session.cache.responses[key] = stored
    with (
        _client(sandbox, tmp_path) as client,
        pytest.warns(sf.CacheWarning, match="1 entry of the cache .* could not be read"),
    ):
        again = client.post_comments(P82, max_pages=1)
        assert client.ledger.paid_calls == 1
        pd.testing.assert_frame_equal(
            again.drop(columns="fetched_at"), good.drop(columns="fetched_at")
        )
    with _client(sandbox, tmp_path) as client:
        assert len(client.post_comments(P82, max_pages=1)) == 50
        assert client.ledger.paid_calls == 0 and client.ledger.cached_calls == 1
    assert sandbox.charges == 2


def test_a_body_echoing_the_key_never_reaches_the_cache_or_the_frame(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    comment = {
        "text": f"my key is {sandbox.api_key}, oops",
        "createdAt": 1_760_000_000_000,
        "author": {"name": "Ada", "id": "1"},
    }
    sandbox.inject({"success": True, "data": [comment], "totalPage": 1, "paginationToken": "t"})
    cache = tmp_path / "c.sqlite"
    with _client(sandbox, cache, progress=False) as c:
        frame = c.post_comments(EXAMPLE_POSTS[1])
    assert frame["text"].tolist() == ["my key is ***, oops"]
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("c.sqlite*") if p.is_file())
    assert sandbox.api_key.encode() not in stored
    with _client(sandbox, cache, offline=True, progress=False) as c:
        assert c.post_comments(EXAMPLE_POSTS[1])["text"].tolist() == ["my key is ***, oops"]


@pytest.mark.parametrize(
    "spelled",
    [
        "sk_live/9fQx+Tz2/Lp0",  # as is
        "sk_live\\/9fQx+Tz2\\/Lp0",  # "/" escaped, as PHP's json_encode writes it
        "sk_live/9fQx\\u002bTz2/Lp0",  # "+" as a unicode escape
    ],
)
def test_a_key_echoed_in_any_json_spelling_is_scrubbed(tmp_path: Path, spelled: str) -> None:
    key = "sk_live/9fQx+Tz2/Lp0"
    body = (
        '{"success": true, "totalPage": 1, "paginationToken": "t", "data": [{"createdAt":'
        f' 1760000000000, "text": "debug: your request used key {spelled} (2 of 2)",'
        ' "author": {"name": "Ada", "id": "1"}, "isPinned": false}]}'
    ).encode()
    cache = tmp_path / "c.sqlite"
    with sf.Client(
        key, base_url="https://api.example", transport=lambda r: (200, body), cache=cache
    ) as c:
        frame = c.post_comments("123")
    assert frame["text"].tolist() == ["debug: your request used key *** (2 of 2)"]
    assert frame["is_pinned"].tolist() == [False]  # the JSON around it is untouched
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("c.sqlite*") if p.is_file())
    assert key.encode() not in stored and b"9fQx" not in stored


def test_a_short_header_value_is_no_secret_to_scrub(sandbox: Sandbox, tmp_path: Path) -> None:
    """A header named like a secret but holding "2" (a version): scrubbing it from
    bodies turned every 2 into *** and broke the JSON of every page."""
    with _client(sandbox, tmp_path / "c.sqlite", headers={"X-Auth-Version": "2"}) as c:
        frame = c.post_comments(EXAMPLE_POSTS[50])
    assert len(frame) == 50 and frame["created_at"].notna().all()
