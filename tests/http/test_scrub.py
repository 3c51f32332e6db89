"""The key scrubbed from what the service sends back (``socialframe/_http/auth.py``):
in string values only, never in an object's keys, however the key is spelled.

Through real HTTP on 127.0.0.1 (the sandbox) or the client's own transport hook.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox


@pytest.mark.parametrize("key", ["k", "Token", "paginationToken", "success"])
def test_a_key_spelled_inside_the_services_names_renames_nothing(key: str) -> None:
    """The scrub replaces the key in string values only, never in an object's keys; a key
    too short to scrub safely (under 8 characters) is not scrubbed at all."""
    with (
        Sandbox(seed=0, api_key=key, clock=PinnedClock()) as sandbox,
        sandbox.client(cache=False, progress=False) as client,
    ):
        frame = client.post_comments(EXAMPLE_POSTS[2345])
        ads = client.search_ads("running shoes", max_ads=60)
    assert len(frame) == 2345 and len(ads) == 60
    assert client.ledger.paid_calls == 47 + 3


def test_a_long_key_echoed_in_a_value_is_still_scrubbed(tmp_path: Path) -> None:
    key = "paginationToken-sf-0123456789"
    body = {
        "success": True,
        "data": [{"text": f"my key is {key}", "author": {"name": key}}],
        "totalPage": 1,
    }
    with sf.Client(
        key,
        base_url="https://api.example",
        transport=lambda request: (200, body),
        cache=tmp_path / "c.sqlite",
        progress=False,
    ) as client:
        frame = client.post_comments("123")
    assert frame["text"].tolist() == ["my key is ***"]
    assert frame["author_name"].tolist() == ["***"]
    assert key.encode() not in (tmp_path / "c.sqlite").read_bytes()
