"""How a run of many calls builds its frame (``_fetch/many.py``): a batch of pages at a
time (:data:`~socialframe._fetch.many.BATCH_PAGES`, set small here), never every page of a
long run held until its end, and the same frame however the run is split, over real HTTP
(the sandbox) or a transport in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import socialframe as sf
from socialframe._fetch import many
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

# 12 posts of 1-3 pages each (the examples, then ids whose totals the sandbox derives)
POSTS = [EXAMPLE_POSTS[n] for n in (1, 50, 51, 82)] + [f"73841{i:014d}" for i in range(8)]


@pytest.fixture
def slow_sandbox() -> Any:
    with Sandbox(latency=0.02, clock=PinnedClock()) as sandbox:
        yield sandbox


@pytest.mark.parametrize("workers", [1, 4])
@pytest.mark.slow
def test_long_runs_are_built_in_batches_with_the_same_frame(
    slow_sandbox: Sandbox, tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run holds at most a batch of pages before building them (not every page of
    the run until its end), and the frame is the one built at once."""
    posts = POSTS + [EXAMPLE_POSTS[1]]  # and a duplicate, fetched once
    with slow_sandbox.client(cache=tmp_path, workers=workers) as client:
        at_once = client.post_comments(posts)
        ads_once = client.search_ads(["for kids", "tea", "coffee"], max_pages=2)
        monkeypatch.setattr(many, "BATCH_PAGES", 2)
        builds: list[int] = []
        original = many._Batches.flush

        def spy(self: Any, final: bool = False) -> None:
            before = len(self.parts)
            original(self, final)
            builds.extend([self.front] * (len(self.parts) - before))

        monkeypatch.setattr(many._Batches, "flush", spy)
        batched = client.post_comments(posts)
        monkeypatch.setattr(many, "BATCH_PAGES", 1)
        ads_batched = client.search_ads(["for kids", "tea", "coffee"], max_pages=2)
    assert len(builds) >= 3  # built a batch at a time...
    pd.testing.assert_frame_equal(batched, at_once)  # ...into the same frame
    pd.testing.assert_frame_equal(ads_batched, ads_once)


@pytest.mark.parametrize("batch", [500, 2, 1])
def test_extras_are_typed_over_all_rows_however_the_run_is_split(
    tmp_path: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An extra field missing in one query's ads, a 61-bit integer in another's and a
    fraction in a third's: typed over all rows it stays exact (object), whatever the
    batches (before: Int64 in one batch + Float64 in the next made 1.152921504606847e+18)."""

    def page(n: int, extra: object) -> dict[str, object]:
        ad = {"ad_archive_id": str(n), "page_name": "Acme", "x_extra": extra}
        return {"data": {"ads": [[ad]], "page_info": {"has_next_page": False}}}

    monkeypatch.setattr(many, "BATCH_PAGES", batch)
    with Sandbox(clock=PinnedClock()) as sandbox:
        sandbox.inject(page(1, None), page(2, 2**60), page(3, 2.5))
        with sandbox.client(cache=tmp_path, workers=1, progress=False) as client:
            ads = client.search_ads(["a", "b", "c"])
    assert ads["x_extra"].dtype == object
    assert ads["x_extra"].tolist() == [None, 2**60, 2.5]


_EXTRA = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=3)
)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(_EXTRA, min_size=1, max_size=6),
    batch=st.integers(min_value=1, max_value=4),
    name=st.sampled_from(["x_extra", "x_id"]),
)
@pytest.mark.slow
def test_extras_do_not_depend_on_how_the_run_is_split(
    values: list[Any], batch: int, name: str
) -> None:
    import json

    import requests

    def service(request: requests.PreparedRequest) -> Any:
        query = requests.utils.urlparse(str(request.url)).query
        n = int(dict(p.split("=") for p in query.split("&"))["query"].removeprefix("q"))
        ad = {"ad_archive_id": str(n), "page_name": "Acme", name: values[n]}
        body = {"data": {"ads": [[ad]], "page_info": {"has_next_page": False}}}
        return 200, json.dumps(body).encode()

    queries = [f"q{n}" for n in range(len(values))]

    def fetch(pages: int) -> pd.DataFrame:
        old = many.BATCH_PAGES
        many.BATCH_PAGES = pages
        try:
            with sf.Client(
                "k",
                base_url="https://api.example",
                transport=service,
                cache=False,
                workers=1,
                progress=False,
            ) as c:
                return c.search_ads(queries)
        finally:
            many.BATCH_PAGES = old

    whole, split = fetch(500), fetch(batch)
    pd.testing.assert_frame_equal(
        split.drop(columns="fetched_at"), whole.drop(columns="fetched_at")
    )
    one = sf.ads_frame(
        [
            {"data": {"ads": [[{"ad_archive_id": str(n), "page_name": "Acme", name: v}]]}}
            for n, v in enumerate(values)
        ]
    )
    assert whole[name].dtype == one[name].dtype  # typed as one build types it
