"""``on_error``: a many-item fetch that skips items failing for good, over real HTTP.

``workers=1`` where a test injects faults: the sandbox's injected faults go to
the next requests in arrival order, which is the item order only one at a time.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox

A, B, C = EXAMPLE_POSTS[50], EXAMPLE_POSTS[1], EXAMPLE_POSTS[82]


@pytest.mark.parametrize(
    ("faults", "error", "retries"),
    [
        ((400,), "BadRequestError", 4),
        ((503, 503), "ServerError", 1),
        (({"data": None},), "SchemaError", 4),
    ],
)
def test_skip_leaves_out_items_that_fail_for_good(
    sandbox: Sandbox, tmp_path: Path, faults: tuple[object, ...], error: str, retries: int
) -> None:
    sandbox.inject(*faults)
    client = sandbox.client(cache=tmp_path / "c", workers=1, max_retries=retries, backoff=0.01)
    with client, pytest.warns(sf.SkippedWarning, match="1 of 3 items failed"):
        got = client.post_comments([A, B, C], on_error="skip")
    (failed,) = got.attrs["failed"]
    assert failed["item"] == A and failed["error"] == error and failed["message"]
    with sandbox.client(cache=tmp_path / "c") as c:  # the others, as they come alone
        alone = c.post_comments([B, C])
    pd.testing.assert_frame_equal(got, alone, check_like=False)
    assert set(got["post"]) == {B, C}


def test_raise_is_the_default_and_hands_back_what_was_fetched(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    with sandbox.client(cache=tmp_path, workers=1) as c:
        c.post_comments(A)
        sandbox.inject(400)
        with pytest.raises(sf.BadRequestError) as caught:
            c.post_comments([A, B, C])
    assert caught.value.partial is not None and set(caught.value.partial["post"]) == {A}


@pytest.mark.parametrize("stop", ["auth", "budget"])
def test_a_refused_key_or_a_budget_stop_ends_a_skipping_run(
    sandbox: Sandbox, tmp_path: Path, stop: str
) -> None:
    budget = {"max_cost": 0.01} if stop == "budget" else {}
    with sandbox.client(cache=tmp_path, workers=1, **budget) as c:  # type: ignore[arg-type]
        c.post_comments(A)  # in the cache: A costs nothing again
        if stop == "auth":
            sandbox.inject(401)
        with pytest.raises(sf.AuthError if stop == "auth" else sf.BudgetExceededError) as caught:
            c.post_comments([A, B, C], on_error="skip")
    partial = caught.value.partial
    assert partial is not None and partial["post"].unique().tolist() == [A]


def test_on_error_is_checked_before_any_call(sandbox: Sandbox, client: sf.Client) -> None:
    with pytest.raises(ValueError, match="on_error"):
        client.post_comments([A, B], on_error="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on_error"):
        client.search_ads(["x"], on_error=None)  # type: ignore[arg-type]
    assert sandbox.requests == []


def test_pipelines_pass_on_error(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.inject(400)
    posts = pd.DataFrame({"url": [A, B]})
    with sandbox.client(cache=tmp_path, workers=1) as c:
        with pytest.warns(sf.SkippedWarning):
            got = posts.social.fetch_comments("url", client=c, on_error="skip")
        sandbox.inject(400)
        with pytest.warns(sf.SkippedWarning):
            ads = pd.DataFrame({"query": ["tea", "coffee"]}).social.fetch_ads(
                client=c, on_error="skip", max_pages=1
            )
    assert got["url"].unique().tolist() == [B] and got.attrs["failed"][0]["item"] == A
    assert ads["query"].unique().tolist() == ["coffee"]
