"""The on-disk cache: re-runs are free, failures are not stored, the key never is."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]


def test_second_run_is_free(sandbox: Sandbox, cache_path: Path) -> None:
    with sandbox.client(cache=cache_path) as c:
        first = c.post_comments(P82)
        ads = c.search_ads("running shoes", max_ads=60)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (5, 0)
    with sandbox.client(cache=cache_path) as c:
        again = c.post_comments(P82)
        ads_again = c.search_ads("running shoes", max_ads=60)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (0, 5)
        assert (c.ledger.spent_usd, c.ledger.saved_usd) == (0.0, 0.05)
    assert sandbox.charges == 5 and len(sandbox.requests) == 5
    pd.testing.assert_frame_equal(first, again)  # fetched_at included: the original time
    pd.testing.assert_frame_equal(ads, ads_again)


def test_fetched_at_is_when_the_service_answered(sandbox: Sandbox, cache_path: Path) -> None:
    before = pd.Timestamp.now(tz="UTC")
    with sandbox.client(cache=cache_path) as c:
        first = c.post_comments(P82)
    after = pd.Timestamp.now(tz="UTC")
    assert first["fetched_at"].between(before, after).all()
    time.sleep(0.05)
    with sandbox.client(cache=cache_path) as c:
        assert c.post_comments(P82)["fetched_at"].tolist() == first["fetched_at"].tolist()


def test_restarted_sandbox_on_another_port_hits_the_cache(cache_path: Path) -> None:
    with Sandbox(seed=0, clock=PinnedClock()) as one, one.client(cache=cache_path) as c:
        c.post_comments(P82)
    with Sandbox(seed=0, clock=PinnedClock()) as two, two.client(cache=cache_path) as c:
        assert one.port != two.port and one.api_key != two.api_key
        assert len(c.post_comments(P82)) == 82
        assert (c.ledger.cached_calls, two.charges) == (2, 0)
    with Sandbox(seed=1, clock=PinnedClock()) as other, other.client(cache=cache_path) as c:
        c.post_comments(P82)  # another seed is other data: never served from seed 0's pages
        assert other.charges == 2


KEY = "sk-live-0123456789abcdefSECRET"


def _scan(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]


@pytest.mark.parametrize(
    "header",
    [
        "Authorization",
        "authorization",
        "AUTHORIZATION",
        "X-RapidAPI-Key",
        "x-rapidapi-key",
        "X-RAPIDAPI-KEY",
        "X-Api-Key",
    ],
)
def test_the_key_never_reaches_the_cache(tmp_path: Path, header: str) -> None:
    folder = tmp_path / "keycache"
    with Sandbox(api_key=KEY, clock=PinnedClock()) as sandbox:
        with sandbox.client(cache=folder, auth_header=header) as c:
            c.post_comments(P82)
            c.search_ads("for kids", max_pages=2)
        with sandbox.client(cache=folder, auth_header=header) as c:
            c.post_comments(P82)
            assert c.ledger.cached_calls == 2 and c.ledger.paid_calls == 0  # Vary did not bite
        assert sandbox.charges == 4
    files = [p.name for p in folder.iterdir()]
    assert "http_cache.sqlite" in files
    assert _scan(folder) == []


def test_the_key_in_extra_headers_is_redacted_too(tmp_path: Path) -> None:
    folder = tmp_path / "keycache"
    with (
        Sandbox(api_key=KEY, clock=PinnedClock()) as sandbox,
        sandbox.client(
            cache=folder, auth_header="X-RapidAPI-Key", headers={"x-api-token": KEY}
        ) as c,
    ):
        c.post_comments(P82, max_pages=1)
    assert _scan(folder) == []


SECRETS = {"X-Client-Secret": "s3cret-value-1", "X-Session-Token": "tok-value-2", "X-Auth": "a-3"}


def test_secret_headers_are_redacted_by_name(tmp_path: Path) -> None:
    # Secrets the user passes in headers= (named key/token/secret/auth) never reach disk.
    folder = tmp_path / "c"
    with (
        Sandbox(api_key=KEY, clock=PinnedClock()) as sandbox,
        sandbox.client(cache=folder, headers=SECRETS) as c,
    ):
        c.post_comments(P82, max_pages=1)
    assert [p for p in folder.rglob("*") if p.is_file()]
    for secret in [KEY, *SECRETS.values()]:
        assert [
            p.name for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()
        ] == []


def test_response_headers_echoing_a_secret_are_not_stored(tmp_path: Path) -> None:
    def echo(request: Any) -> tuple[int, Any, dict[str, str]]:
        key = request.headers["Authorization"].removeprefix("Bearer ")
        headers = {
            "X-Echo": f"you sent {key}",
            "Set-Cookie": f"session={SECRETS['X-Session-Token']}",
            "X-Kept": "plain",
        }
        return 200, {"success": True, "data": [], "totalPage": 1}, headers

    folder = tmp_path / "c"
    client = sf.Client(
        KEY,
        base_url="https://api.example",
        cache=folder,
        headers=SECRETS,
        transport=sf.MockTransport(echo),
    )
    with client:
        client.post_comments(P82)
        (stored,) = client.session.cache.responses.values()
        assert stored.headers.get("X-Kept") == "plain"
        assert "X-Echo" not in stored.headers and "Set-Cookie" not in stored.headers
    for secret in [KEY, *SECRETS.values()]:
        assert [
            p.name for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()
        ] == []


def test_vary_on_the_key_header_is_dropped(client: sf.Client) -> None:
    client.post_comments(P82, max_pages=1)
    cached = list(client.session.cache.responses.values())
    assert len(cached) == 1
    assert "authorization" not in cached[0].headers.get("Vary", "").lower()


def test_only_successes_are_stored(sandbox: Sandbox, client: sf.Client) -> None:
    sandbox.inject("success_false", 503, "bad_gateway")
    client.post_comments(P82)
    stored = list(client.session.cache.responses.values())
    assert len(stored) == 2
    assert all(r.status_code == 200 and r.json()["success"] is True for r in stored)


def test_offline_answers_from_cache_and_sends_nothing(sandbox: Sandbox, cache_path: Path) -> None:
    with sandbox.client(cache=cache_path) as c:
        online = c.post_comments(P82)
    sent = len(sandbox.requests)
    with sf.Client(base_url=sandbox.url, cache=cache_path, offline=True) as off:  # no key needed
        pd.testing.assert_frame_equal(off.post_comments(P82), online)
        with pytest.raises(sf.NotCachedError):
            off.search_ads("for kids")
        with pytest.raises(sf.NotCachedError) as info:
            off.post_comments(EXAMPLE_POSTS[2345])
        assert info.value.partial is not None and len(info.value.partial) == 0
        assert off.ledger.cached_calls == 2 and off.ledger.paid_calls == 0
    assert len(sandbox.requests) == sent


def age_past_expiry(session: object) -> int:
    """Move every stored page's expiry into the past, through requests-cache's own
    store: what waiting out ``expire_after`` would do, without the wait."""
    from datetime import UTC, datetime

    responses = session.cache.responses  # type: ignore[attr-defined]
    keys = list(responses.keys())
    for key in keys:
        cached = responses[key]
        assert cached.expires is not None  # an expiry was set when it was stored
        cached.expires = datetime.now(UTC) - timedelta(seconds=1)
        responses[key] = cached
    return len(keys)


def test_expired_pages_are_fetched_again(sandbox: Sandbox, cache_path: Path) -> None:
    with sandbox.client(cache=cache_path, expire_after=timedelta(hours=1)) as c:
        c.post_comments(P82, max_pages=1)
        c.post_comments(P82, max_pages=1)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (1, 1)
        assert age_past_expiry(c.session) == 1
        c.post_comments(P82, max_pages=1)
        assert (c.ledger.paid_calls, c.ledger.cached_calls, sandbox.charges) == (2, 1, 2)


def test_expiry_from_the_environment(
    sandbox: Sandbox, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", "1")
    with sandbox.client(cache=cache_path) as c:
        assert c.session.settings.expire_after == 1.0
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", "soon")
    with pytest.raises(sf.ConfigError):
        sandbox.client(cache=cache_path)


def test_no_cache_pays_every_time(sandbox: Sandbox) -> None:
    with sandbox.client(cache=False) as c:
        c.post_comments(P82)
        c.post_comments(P82)
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (4, 0)
    with pytest.raises(ValueError):
        sandbox.client(cache=False, offline=True)


def test_cache_argument_forms(sandbox: Sandbox, tmp_path: Path, clean_env: Path) -> None:
    from requests_cache import SQLiteCache

    folder = tmp_path / "folder"
    folder.mkdir()
    with sandbox.client(cache=folder) as c:
        c.post_comments(P82, max_pages=1)
    assert (folder / "http_cache.sqlite").exists()
    backend = SQLiteCache(tmp_path / "own.sqlite")
    with sandbox.client(cache=backend) as c:
        c.post_comments(P82, max_pages=1)
        assert c.session.cache is backend and len(list(backend.responses.keys())) == 1
    assert not clean_env.exists()  # none of these touched the default cache dir
    with sandbox.client() as c:  # cache=True: the default dir, created on first use
        c.post_comments(P82, max_pages=1)
    assert (clean_env / "http_cache.sqlite").exists()
    with pytest.raises(TypeError):
        sandbox.client(cache=3.5)


@pytest.mark.slow
def test_import_writes_nothing_and_stays_light(tmp_path: Path) -> None:
    probe = (
        "import sys, socialframe\n"
        "heavy = [m for m in ('matplotlib', 'ipywidgets', 'requests_cache', 'tqdm', 'IPython')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    env = {"SOCIALFRAME_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path / "home")}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"
    assert list(tmp_path.iterdir()) == []


def test_offline_serves_expired_pages(sandbox: Sandbox, cache_path: Path) -> None:
    with sandbox.client(cache=cache_path, expire_after=timedelta(hours=1)) as c:
        online = c.post_comments(P82)
        assert age_past_expiry(c.session) == 2
    with sf.Client(base_url=sandbox.url, cache=cache_path, offline=True) as off:
        pd.testing.assert_frame_equal(off.post_comments(P82), online)
    assert sandbox.charges == 2


@pytest.mark.parametrize("adapter", [None, "requests", "custom"])
def test_cache_only_requests_never_reach_the_network(
    sandbox: Sandbox, cache_path: Path, adapter: str | None
) -> None:
    # A Vary on a header the next client sends differently makes requests-cache send even
    # a cache-only request; the guard refuses it, so a budget of 0 still pays nothing,
    # whatever transport the user mounted (a plain requests adapter, their own).
    from requests.adapters import BaseAdapter, HTTPAdapter

    class Counting(BaseAdapter):
        def __init__(self) -> None:
            super().__init__()
            self.inner = HTTPAdapter()

        def send(self, request: requests.PreparedRequest, **kwargs: object) -> requests.Response:
            return self.inner.send(request, **kwargs)  # type: ignore[arg-type]

        def close(self) -> None:
            self.inner.close()

    transport = {None: None, "requests": HTTPAdapter(pool_maxsize=4), "custom": Counting()}
    with sandbox.client(cache=cache_path, auth_header="Authorization") as c:
        c.post_comments(P82, max_pages=1)
    stored = sf.Client(base_url=sandbox.url, cache=cache_path, offline=True)
    with stored:
        cached = next(iter(stored.session.cache.responses.values()))
        assert "X-RapidAPI-Key" in cached.headers["Vary"]  # kept: not this client's key header
    broke = sandbox.client(
        cache=cache_path,
        max_cost=0,
        headers={"X-RapidAPI-Key": "other"},
        transport=transport[adapter],
    )
    with broke, pytest.raises(sf.BudgetExceededError):
        broke.post_comments(P82, max_pages=1)
    assert broke.ledger.paid_calls == 0
    offline = sf.Client(
        base_url=sandbox.url,
        cache=cache_path,
        offline=True,
        headers={"X-RapidAPI-Key": "other"},
        transport=transport[adapter],
    )
    with offline, pytest.raises(sf.NotCachedError):
        offline.post_comments(P82, max_pages=1)
    assert sandbox.charges == 1 and len(sandbox.requests) == 1


@pytest.mark.parametrize("kind", ["network", "mock"])
def test_transports_refuse_cache_only_requests(kind: str) -> None:
    """A cache-only request is never sent, whatever the transport: through the session of
    a client without a cache (with one, requests-cache answers it first)."""
    answered: list[object] = []
    transport = (
        None  # the network
        if kind == "network"
        else sf.MockTransport(lambda request: answered.append(request) or (200, {}))
    )
    client = sf.Client("key", base_url="http://127.0.0.1:9", cache=False, transport=transport)
    with client, pytest.raises(sf.NotCachedError):
        client.session.get("http://127.0.0.1:9/x", headers={"Cache-Control": "only-if-cached"})
    assert answered == []


@pytest.mark.parametrize("cache", ["", "   ", "\t\n"])
def test_a_cache_that_names_no_place_is_refused(
    cache: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cache=""`` used to put the cache wherever the code ran (the current folder)."""
    monkeypatch.chdir(tmp_path)
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        with pytest.raises(sf.ConfigError, match="names no place"):
            sandbox.client(cache=cache)
        assert sandbox.charges == 0
    assert list(tmp_path.iterdir()) == []
