"""The warm read (``socialframe._cache.warm``) beside the plain path it must equal: whatever
page a real SQLite cache holds, when the warm read answers, requests and requests-cache
answer the same page with the same body and the same time; and a plain, fresh page is
always answered by it (else it would be no fast path at all). Then its own parts on a
real cache: the page key it remembers (requests-cache's) and its lean read of the store.
What the client does with it is tests/cache/test_fast_read.py's, through the public client."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pandas as pd
import pytest
import requests
from hypothesis import HealthCheck, example, given, settings
from wire import full_path

import socialframe as sf
from socialframe._cache import warm
from socialframe.operations import Page
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox

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
            read = warm.WarmRead(  # (its clock only dates a page without a stamp: none here)
                reader.session, auth_header=auth_header, offline=offline, clock=ManualClock()
            )
            fast = read.read("comments", URL, PARAMS)
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


# -- the warm read's key, and its lean read of the store, on a real cache --------------------

P82 = EXAMPLE_POSTS[82]


def test_a_remembered_key_is_requests_caches_and_follows_verify(
    sandbox: Sandbox, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast path computes each page's key once; the remembered key is requests-cache's
    own, and a changed ``session.verify`` (part of the key) is a different one."""
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):  # the session's verify decides
        monkeypatch.delenv(name, raising=False)
    with sandbox.client(cache=cache_path, progress=False) as c:
        first = c.post_comments(P82)
    with sandbox.client(cache=cache_path, progress=False, offline=True) as c:
        sent = full_path(c)
        again = c.post_comments(P82)  # keys computed now
        twice = c.post_comments(P82)  # and remembered
        assert sent == [] and sandbox.charges == 2
        pd.testing.assert_frame_equal(again, first)
        pd.testing.assert_frame_equal(twice, first)
        read = warm.WarmRead(
            c.session, auth_header="Authorization", offline=True, clock=ManualClock()
        )
        page_url = f"{sandbox.url}/get-profile-posts-comments"
        params = {"urn": P82, "sort": "mostRelevant", "page": "1"}
        request = requests.Request("GET", page_url, params=params).prepare()
        backend: Any = c.session.cache  # type: ignore[attr-defined]
        assert read.key(page_url, params, True) == backend.create_key(request, verify=True)
        assert read.key(page_url, params, True) == read.key(page_url, dict(params), True)
        assert read.key(page_url, params, False) == backend.create_key(request, verify=False)
        assert read.key(page_url, params, False) != read.key(page_url, params, True)
        c.session.verify = False  # part of the key: these pages were not stored under it
        with pytest.raises(sf.NotCachedError):
            c.post_comments(P82)
        assert len(sent) == 1  # the warm read declined it; requests-cache had no page either


# -- the lean read: requests-cache's plain dict of a page, not a whole CachedResponse ----------


def test_the_lean_read_sees_what_requests_cache_reads(sandbox: Sandbox, cache_path: Path) -> None:
    def lower(headers: Any) -> dict[str, Any]:
        return {str(name).lower(): value for name, value in headers.items()}

    with sandbox.client(cache=cache_path, expire_after=3600, progress=False) as c:
        c.post_comments(P82)
        c.search_ads("running shoes", max_ads=30)
        store: Any = c.session.cache  # type: ignore[attr-defined]
        keys = list(store.responses.keys())
        assert len(keys) == 4
        for key in keys:
            lean = warm.stored(store, key)
            full = store.get_response(key)  # requests-cache's own read: a CachedResponse
            assert lean == (
                full.status_code,
                full.expires,
                lower(full.headers),
                lower(full.request.headers),
                full.content,
                full.encoding,
            )
            assert lean is not None and lean.expires is not None and not lean.expired
            assert lean.sent and lean.sent["authorization"] == "REDACTED"  # never the key
        assert warm.stored(store, "0123abcd") is None  # a miss


def test_a_store_read_another_way_goes_through_requests_cache(
    sandbox: Sandbox, cache_path: Path
) -> None:
    """A key that is no hex digest is a parameter of the query, never SQL; a value that is
    not a page: the lean read says so (LookupError) and requests-cache's read counts it."""
    with sandbox.client(cache=cache_path, progress=False) as c:
        c.post_comments(P82)
        store: Any = c.session.cache  # type: ignore[attr-defined]
        key = next(iter(store.responses.keys()))
        assert store.page("x' OR '1'='1") is None  # (as SQL text it would match every row)
        assert warm.stored(store, "not hex; DROP TABLE responses") is None
        assert warm.stored(store, key) is not None
        with sqlite3.connect(cache_path) as con:
            con.execute("UPDATE responses SET value=? WHERE key=?", (b"junk", key))
        with pytest.raises(LookupError):
            store.page(key)
        assert warm.stored(store, key) is None  # read by requests-cache: a miss, counted
        assert store.failures.take_unreadable() == 1
