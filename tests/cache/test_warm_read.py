"""The warm read (``socialframe._cache.warm.WarmRead``) beside the plain path it must
equal: whatever page a real SQLite cache holds, when the warm read answers, requests and
requests-cache answer the same page with the same body and the same time; and a plain,
fresh page is always answered by it (else it would be no fast path at all)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pandas as pd
import pytest
import requests
from hypothesis import HealthCheck, example, given, settings

import socialframe as sf
from socialframe._cache.warm import WarmRead
from socialframe.operations import Page
from socialframe.sandbox import ManualClock

BASE = "https://api.example"
URL = f"{BASE}/get-profile-posts-comments"
PARAMS = {"urn": "7384427202391592960", "sort": "mostRelevant", "page": "1"}

comments = st.lists(
    st.fixed_dictionaries(
        {
            "text": st.text(max_size=40),
            "createdAt": st.integers(1_600_000_000_000, 1_900_000_000_000),
            "author": st.fixed_dictionaries(
                {"name": st.text(max_size=10), "id": st.text(max_size=5)}
            ),
        }
    ),
    max_size=4,
)
varies = st.sampled_from(
    [None, "Accept-Encoding", "Authorization", "X-API-KEY", "*", "Cookie", "X-Tenant"]
)
tenants = st.sampled_from([None, "a", "b"])


def _case(
    vary: str, expire_after: int, offline: bool, auth_header: str, tenants: tuple[str | None, ...]
) -> Any:
    """One example always tried (no comments: the headers decide)."""
    return example(
        data=[],
        vary=vary,
        expire_after=expire_after,
        offline=offline,
        auth_header=auth_header,
        tenants=tenants,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=comments,
    vary=varies,
    expire_after=st.sampled_from([-1, 3600]),
    offline=st.booleans(),
    auth_header=st.sampled_from(["Authorization", "X-API-KEY"]),
    tenants=st.tuples(tenants, tenants),
)
# the cases a mutation of the Vary check must not slip through, always tried. (A `Vary: *`
# or a Vary naming the key's header never reaches the store: the session strips them
# before storing, tests/cache/test_cache.py; expiry is tests/cache/test_fast_read.py's.)
@_case("X-Tenant", -1, False, "Authorization", (None, "a"))
@_case("X-Tenant", 3600, True, "X-API-KEY", ("a", "b"))
@_case("X-Tenant", -1, False, "Authorization", ("b", "b"))
@pytest.mark.slow
def test_the_warm_read_answers_as_requests_cache_does(
    data: list[dict[str, Any]],
    vary: str | None,
    expire_after: int,
    offline: bool,
    auth_header: str,
    tenants: tuple[str | None, str | None],
) -> None:
    """``tenants``: the value of a header (``X-Tenant``) the writing and the reading
    client send, which a ``Vary`` may name: a page stored for one is no page for the
    other."""
    writer_headers, reader_headers = ({"X-Tenant": t} if t is not None else {} for t in tenants)
    body = {"success": True, "data": data, "totalPage": 1, "paginationToken": "t1"}
    headers = {"Vary": vary} if vary else {}

    def service(request: requests.PreparedRequest) -> Any:
        return 200, body, headers

    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "c.sqlite"
        with sf.Client(
            "key-0123456789",
            base_url=BASE,
            auth_header=auth_header,
            transport=service,
            cache=cache,
            expire_after=expire_after,
            headers=writer_headers,
            progress=False,
        ) as writer:
            writer.post_comments(PARAMS["urn"], max_pages=1)
        with sf.Client(
            "key-0123456789",
            base_url=BASE,
            auth_header=auth_header,
            offline=offline,
            cache=cache,
            expire_after=expire_after,
            headers=reader_headers,
            progress=False,
        ) as reader:
            warm = WarmRead(  # (its clock only dates a page without a stamp: none here)
                reader.session, auth_header=auth_header, offline=offline, clock=ManualClock()
            )
            fast = warm.read("comments", URL, PARAMS)
            key = "key-0123456789"  # sent as the client sends it
            sent = {auth_header: f"Bearer {key}" if auth_header == "Authorization" else key}
            try:
                plain: requests.Response | None = reader.session.get(
                    URL, params=PARAMS, only_if_cached=True, headers=sent
                )
            except sf.NotCachedError:  # a miss: the transport refuses to send it
                plain = None
    if fast is not None:  # what it answers, the plain path answers alike
        assert plain is not None, "the warm read answered a page requests-cache would not"
        assert plain.status_code == 200 and getattr(plain, "from_cache", False)
        # (comment bodies come decoded into structs: the frame is what must be equal)
        pd.testing.assert_frame_equal(
            sf.comments_frame([Page(fast.body, 1)]), sf.comments_frame([plain.json()])
        )
        assert fast.from_cache
    if vary in (None, "Accept-Encoding") or (vary == "X-Tenant" and tenants[0] == tenants[1]):
        assert fast is not None  # a plain page for this client: the fast path takes it
