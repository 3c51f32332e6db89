"""Client: paging, validation, errors, retries, ledger and budget, through real HTTP; and
the type of its ads filters (``AdFilters``), held to ``search_ads``."""

from __future__ import annotations

import inspect
import math
import time
from datetime import date, datetime

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox, comment_total

P82 = EXAMPLE_POSTS[82]


def post_with(total: int) -> str:
    """A post id with that many comments (the sandbox derives totals from the id)."""
    base = int(P82) - int(P82) % 8
    post = str(next(base + r for r in range(8) if comment_total(str(base + r)) == total))
    assert comment_total(post) == total
    return post


def sent(sandbox: Sandbox) -> list[dict[str, str]]:
    return [dict(r.params) for r in sandbox.requests]


# -- comments paging -------------------------------------------------------------------------


def test_82_comments_are_exactly_two_calls(sandbox: Sandbox, client: sf.Client) -> None:
    df = client.post_comments(P82)
    assert len(df) == 82 and df["comment_id"].is_unique
    assert df["page"].tolist() == [1] * 50 + [2] * 32
    assert (client.ledger.paid_calls, sandbox.charges, len(sandbox.requests)) == (2, 2, 2)
    first, second = sent(sandbox)
    assert first == {"urn": P82, "sort": "mostRelevant", "page": "1"}
    assert second["page"] == "2" and second["paginationToken"]
    assert (df["post_urn"] == f"urn:li:activity:{P82}").all()
    assert df["fetched_at"].notna().all()


@pytest.mark.parametrize("total", sorted(EXAMPLE_POSTS))
def test_comment_totals_and_call_counts(sandbox: Sandbox, client: sf.Client, total: int) -> None:
    post = EXAMPLE_POSTS[total]
    assert comment_total(post) == total
    df = client.post_comments(post, sort="mostRecent")
    assert len(df) == total
    assert sandbox.charges == max(1, math.ceil(total / 50))
    assert tuple(df.columns) == sf.COMMENT_COLUMNS


def test_max_pages_limits_calls(sandbox: Sandbox, client: sf.Client) -> None:
    df = client.post_comments(EXAMPLE_POSTS[2345], max_pages=3)
    assert len(df) == 150 and sandbox.charges == 3


@pytest.mark.parametrize(
    "form",
    [
        P82,
        int(P82),
        f"urn:li:activity:{P82}",
        f"https://www.linkedin.com/feed/update/urn:li:activity:{P82}/",
        f"https://www.linkedin.com/posts/someone_topic-activity-{P82}-eGaf?utm_source=share",
        f"https://www.linkedin.com/feed/update/urn%3Ali%3Aactivity%3A{P82}",
    ],
)
def test_post_forms_send_the_numeric_id(sandbox: Sandbox, client: sf.Client, form: object) -> None:
    df = client.post_comments(form, max_pages=1)  # type: ignore[arg-type]
    assert len(df) == 50 and sent(sandbox)[0]["urn"] == P82


def test_sandbox_data_is_realistic(client: sf.Client) -> None:
    df = client.post_comments(P82)
    replies = df[df["is_reply"]]
    assert len(replies) > 0 and replies["parent_comment_id"].isin(df["comment_id"]).all()
    assert replies["created_at"].notna().all()  # recovered from the id (createdAt is 0)
    assert set(df["author_type"]) == {"person", "organization"}
    orgs = df[df["author_type"] == "organization"]
    assert orgs["author_followers"].notna().all() and orgs["author_company_id"].notna().all()
    assert df["author_name"].notna().all()  # name, or first + last name
    assert df["thread_urn"].isna().any() and df["author_title"].isna().any()
    assert df["text"].str.contains("<script>", regex=False).any()
    assert (
        df["created_at"]
        .between(pd.Timestamp("2020", tz="UTC"), pd.Timestamp("2030", tz="UTC"))
        .all()
    )


# -- ads paging ------------------------------------------------------------------------------


def test_max_ads_60_is_three_calls(sandbox: Sandbox, client: sf.Client) -> None:
    df = client.search_ads("running shoes", max_ads=60)
    assert len(df) == 60 and sandbox.charges == 3
    assert df["ad_archive_id"].is_unique
    assert df["result_page"].tolist() == [1] * 26 + [2] * 26 + [3] * 8
    assert (df["query"] == "running shoes").all()
    calls = sent(sandbox)
    assert "end_cursor" not in calls[0] and calls[1]["end_cursor"] and calls[2]["end_cursor"]


def test_ads_are_flattened_and_typed(client: sf.Client) -> None:
    df = client.search_ads("for kids")
    assert tuple(df.columns[: len(sf.AD_COLUMNS)]) == sf.AD_COLUMNS
    assert df["ad_archive_id"].is_unique and df["page_id"].notna().all()
    assert df["page_name"].notna().all()
    dynamic = df[df["display_format"].isin(["DCO", "DPA"])]
    assert len(dynamic) and not dynamic["body_text"].str.contains("{{", regex=False).any()
    assert isinstance(df.loc[0, "publisher_platforms"], list)
    assert "snapshot_cards" in df.columns  # nothing the service sent is dropped


def test_empty_search_gives_typed_empty_frame(sandbox: Sandbox, client: sf.Client) -> None:
    df = client.search_ads("for kids", after="2099-01-01")
    assert len(df) == 0 and tuple(df.columns) == sf.AD_COLUMNS
    assert str(df["start_date"].dtype) == "datetime64[us, UTC]" and sandbox.charges == 1


@pytest.mark.parametrize(
    ("given", "wire"),
    [
        ("active", "Active"),
        ("Inactive", "Inactive"),
        ("ALL", "ALL"),
        (True, "Active"),
        (False, "Inactive"),
    ],
)
def test_active_status_forms(sandbox: Sandbox, client: sf.Client, given: object, wire: str) -> None:
    df = client.search_ads("for kids", active_status=given, max_pages=1)  # type: ignore[arg-type]
    assert sent(sandbox)[0]["activeStatus"] == wire
    if wire != "ALL":
        assert (df["is_active"] == (wire == "Active")).all()


@pytest.mark.parametrize(
    ("after", "before"),
    [
        (date(2025, 1, 2), date(2025, 12, 31)),
        ("2025-01-02", "2025-12-31T23:00:00"),
        (datetime(2025, 1, 2, 9, 30), pd.Timestamp("2025-12-31 10:00", tz="UTC")),
    ],
)
def test_dates_are_sent_as_days(
    sandbox: Sandbox, client: sf.Client, after: object, before: object
) -> None:
    client.search_ads("for kids", country="de", after=after, before=before, max_pages=1)  # type: ignore[arg-type]
    params = sent(sandbox)[0]
    assert (params["after_time"], params["before_time"], params["country"]) == (
        "2025-01-02",
        "2025-12-31",
        "DE",
    )


def test_ad_page_id_search(sandbox: Sandbox, client: sf.Client) -> None:
    df = client.search_ads(ad_page_id="1234567890")
    assert len(df) > 0 and sent(sandbox)[0]["ad_page_id"] == "1234567890"
    assert "query" not in sent(sandbox)[0] and df["query"].isna().all()


@pytest.mark.parametrize(
    ("call", "kwargs"),
    [
        ("post_comments", {"post": ""}),
        ("post_comments", {"post": "   "}),
        ("post_comments", {"post": "https://www.linkedin.com/in/someone"}),
        ("post_comments", {"post": P82, "sort": "newest"}),
        ("post_comments", {"post": P82, "max_pages": 0}),
        ("search_ads", {}),
        ("search_ads", {"query": "  "}),
        ("search_ads", {"query": "x", "ad_page_id": "1"}),
        ("search_ads", {"ad_page_id": "abc"}),
        ("search_ads", {"query": "x", "country": "USA"}),
        ("search_ads", {"query": "x", "country": "U1"}),
        ("search_ads", {"query": "x", "active_status": "yes"}),
        ("search_ads", {"query": "x", "after": "last tuesday"}),
        ("search_ads", {"query": "x", "before": "2025-13-01"}),
        ("search_ads", {"query": "x", "after": "2025-02-01", "before": "2025-01-01"}),
        ("search_ads", {"query": "x", "max_ads": -1}),
    ],
)
def test_bad_input_is_a_value_error_before_any_call(
    sandbox: Sandbox, client: sf.Client, call: str, kwargs: dict[str, object]
) -> None:
    with pytest.raises(ValueError):
        getattr(client, call)(**kwargs)
    assert sandbox.requests == [] and client.ledger.as_dict()["failed_calls"] == 0


def test_wrong_types_are_type_errors(sandbox: Sandbox, client: sf.Client) -> None:
    with pytest.raises(TypeError):
        client.post_comments(7.384427202391593e18)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        client.search_ads(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        client.search_ads(["shoes", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        client.post_comments([P82, ""])  # the bad one is found before the good one is fetched
    assert sandbox.requests == []


def test_ad_filters_are_search_ads_keywords() -> None:
    """fetch_ads(**filters) is typed by sf.AdFilters: it must not drift from search_ads."""
    import typing

    params = inspect.signature(sf.Client.search_ads).parameters
    keywords = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert set(typing.get_type_hints(sf.AdFilters)) == keywords


# -- errors and retries ----------------------------------------------------------------------


def test_transient_failures_are_retried_and_free(sandbox: Sandbox, client: sf.Client) -> None:
    # 4 failures, then page 1 (a 429's Retry-After wait: test_rate_limit_honours_retry_after)
    sandbox.inject(503, "success_false", 502, "bad_gateway")
    df = client.post_comments(P82)
    assert len(df) == 82
    assert (client.ledger.paid_calls, client.ledger.failed_calls) == (2, 4)
    assert sandbox.charges == 2 and len(sandbox.requests) == 6
    assert client.ledger.spent_usd == 0.02


@pytest.mark.parametrize(("status", "error"), [(400, sf.BadRequestError), (401, sf.AuthError)])
def test_400_and_401_are_never_retried(
    sandbox: Sandbox, client: sf.Client, status: int, error: type[sf.APIError]
) -> None:
    sandbox.inject(status)
    with pytest.raises(error) as info:
        client.post_comments(P82)
    assert info.value.status_code == status and info.value.operation == "comments"
    assert len(sandbox.requests) == 1 and client.ledger.failed_calls == 1


def test_wrong_key_is_auth_error_without_the_key(sandbox: Sandbox, cache_path: object) -> None:
    secret = "sk-live-WRONG-0123456789"
    with sf.Client(secret, base_url=sandbox.url, cache=cache_path) as c:
        with pytest.raises(sf.AuthError) as info:
            c.search_ads("shoes")
        assert secret not in str(info.value) and secret not in repr(info.value)
        assert secret not in repr(c) and secret not in str(c.ledger)
    assert len(sandbox.requests) == 1 and sandbox.charges == 0


def test_retries_exhausted_raise_with_partial(sandbox: Sandbox, cache_path: object) -> None:
    with sandbox.client(cache=cache_path, max_retries=2, backoff=0.01) as c:
        c.post_comments(P82, max_pages=1)  # page 1 now cached
        sandbox.inject(503, 503, 503)
        with pytest.raises(sf.ServerError) as info:
            c.post_comments(P82)
        assert info.value.status_code == 503
        assert info.value.partial is not None and len(info.value.partial) == 50
        assert (c.ledger.paid_calls, c.ledger.cached_calls, c.ledger.failed_calls) == (1, 1, 3)
        # nothing is lost: a re-run pays only for the missing page
        assert len(c.post_comments(P82)) == 82
        assert (c.ledger.paid_calls, c.ledger.cached_calls) == (2, 2)


def test_success_false_after_retries_is_server_error(sandbox: Sandbox, client: sf.Client) -> None:
    sandbox.inject(*["success_false"] * 5)
    with pytest.raises(sf.ServerError) as info:
        client.post_comments(P82)
    assert info.value.status_code == 200 and "not be charged" in info.value.message
    assert info.value.partial is not None and len(info.value.partial) == 0
    assert sandbox.charges == 0 and client.ledger.failed_calls == 5


@pytest.mark.slow
def test_rate_limit_honours_retry_after(sandbox: Sandbox, cache_path: object) -> None:
    # Real time, real socket: the 429 says Retry-After: 1 (the in-process tests cover
    # the sandbox's own rate limit on a manual clock).
    with sandbox.client(cache=cache_path, backoff=0.01) as c:
        sandbox.inject(429)
        started = time.monotonic()
        df = c.search_ads("yoga mat", max_pages=1)
        elapsed = time.monotonic() - started
    assert len(df) == 26 and [r.status for r in sandbox.requests] == [429, 200]
    assert (c.ledger.failed_calls, c.ledger.paid_calls) == (1, 1)
    assert elapsed >= 1.0  # waited for Retry-After: 1 rather than the 10 ms backoff


def test_fault_rate_gives_the_same_frame(cache_path: object, tmp_path: object) -> None:
    with Sandbox(seed=3, clock=PinnedClock()) as calm, calm.client(cache=False) as c:
        expected = c.post_comments(post_with(120))
    with (
        Sandbox(seed=3, fault_rate=0.4, clock=PinnedClock()) as flaky,
        flaky.client(cache=False, backoff=0.01) as c,
    ):
        got = c.post_comments(post_with(120))
        faults = sum(not r.charged for r in flaky.requests)
        assert faults > 0 and c.ledger.failed_calls == faults and c.ledger.paid_calls == 3
    pd.testing.assert_frame_equal(
        got.drop(columns="fetched_at"), expected.drop(columns="fetched_at")
    )


def test_unreachable_service_is_network_error(cache_path: object) -> None:
    with Sandbox(clock=PinnedClock()) as gone:
        url, key = gone.url, gone.api_key
    with sf.Client(key, base_url=url, cache=cache_path, max_retries=1, backoff=0.01) as c:
        with pytest.raises(sf.NetworkError):
            c.post_comments(P82)
        assert c.ledger.failed_calls == 2 and key not in repr(c)


# -- budget ----------------------------------------------------------------------------------


def test_budget_refuses_before_sending_and_hands_back_partial(
    sandbox: Sandbox, cache_path: object
) -> None:
    with sandbox.client(cache=cache_path, max_cost=0.01) as c:
        with pytest.raises(sf.BudgetExceededError) as info:
            c.post_comments(P82)
        err = info.value
        assert len(err.partial) == 50 and err.max_cost == 0.01 and err.spent_usd == 0.01
        assert sandbox.charges == 1 and len(sandbox.requests) == 1  # the 2nd call never left
        assert c.ledger.paid_calls == 1
    # the paid page is in the cache: a bigger budget pays only for the rest
    with sandbox.client(cache=cache_path, max_cost=0.01) as c:
        assert len(c.post_comments(P82)) == 82
        assert (c.ledger.paid_calls, c.ledger.cached_calls, sandbox.charges) == (1, 1, 2)


def test_budget_still_serves_cached_pages(
    sandbox: Sandbox, client: sf.Client, cache_path: object
) -> None:
    client.search_ads("running shoes", max_ads=60)
    with sandbox.client(cache=cache_path, max_cost=0) as broke:
        assert len(broke.search_ads("running shoes", max_ads=60)) == 60
        assert broke.ledger.cached_calls == 3 and broke.ledger.paid_calls == 0
        with pytest.raises(sf.BudgetExceededError):
            broke.search_ads("for kids")
    assert sandbox.charges == 3


def test_budget_of_three_cents_is_three_calls(sandbox: Sandbox) -> None:
    with sandbox.client(cache=False, max_cost=0.03) as c:
        with pytest.raises(sf.BudgetExceededError) as info:
            c.post_comments(EXAMPLE_POSTS[2345])
        assert len(info.value.partial) == 150 and sandbox.charges == 3


# -- configuration ---------------------------------------------------------------------------


def test_module_functions_use_the_environment(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_API_KEY", sandbox.api_key)
    monkeypatch.setenv("SOCIALFRAME_BASE_URL", sandbox.url)
    assert len(sf.post_comments(P82)) == 82
    assert len(sf.search_ads("running shoes", max_ads=30)) == 30
    assert sandbox.charges == 4


def test_configure_replaces_the_default_client(sandbox: Sandbox) -> None:
    client = sf.configure(api_key=sandbox.api_key, base_url=sandbox.url, max_cost=0.01)
    with pytest.raises(sf.BudgetExceededError):
        sf.post_comments(P82)
    assert client.ledger.paid_calls == 1
    sf.configure(api_key=sandbox.api_key, base_url=sandbox.url)
    assert len(sf.post_comments(P82)) == 82


def test_missing_configuration_is_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(sf.ConfigError) as info:
        sf.post_comments(P82)
    assert "SOCIALFRAME_API_KEY" in str(info.value) and "Sandbox" in str(info.value)
    monkeypatch.setenv("SOCIALFRAME_API_KEY", "k")
    with pytest.raises(sf.ConfigError) as info:
        sf.Client()
    assert "SOCIALFRAME_BASE_URL" in str(info.value) and "Sandbox" in str(info.value)


def test_per_operation_base_urls_and_marketplace_auth(sandbox: Sandbox, cache_path: object) -> None:
    urls = {"ads": sandbox.url + "/v1/facebook", "comments": sandbox.url + "/v1/linkedin"}
    with sf.Client(
        sandbox.api_key,
        base_url=urls,
        auth_header="X-RapidAPI-Key",
        headers={"X-RapidAPI-Host": "ads-and-comments.example"},
        cache=cache_path,
    ) as c:
        c.search_ads("for kids", max_pages=1)
        c.post_comments(P82, max_pages=1)
    assert [r.path for r in sandbox.requests] == [
        f"/{sandbox.world}/v1/facebook/fetch_search_ads_pages",
        f"/{sandbox.world}/v1/linkedin/get-profile-posts-comments",
    ]


def test_environment_base_urls_per_operation(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_API_KEY", sandbox.api_key)
    monkeypatch.setenv("SOCIALFRAME_ADS_URL", sandbox.url + "/v1/facebook/")
    monkeypatch.setenv("SOCIALFRAME_COMMENTS_URL", sandbox.url + "/v1/linkedin")
    monkeypatch.setenv("SOCIALFRAME_AUTH_HEADER", "x-rapidapi-key")
    c = sf.configure()
    assert c.base_urls == {
        "ads": sandbox.url + "/v1/facebook",
        "comments": sandbox.url + "/v1/linkedin",
    }
    assert len(sf.search_ads("for kids", max_pages=1)) > 0


def test_progress_bar_shows_pages_and_cost(
    sandbox: Sandbox, cache_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with sandbox.client(cache=cache_path, progress=True) as c:
        c.post_comments(post_with(120))
    err = capsys.readouterr().err
    assert "3/3" in err and "$0.03" in err
    with sandbox.client(cache=cache_path, progress=False) as c:
        c.post_comments(post_with(120))
    assert capsys.readouterr().err == ""


def test_progress_counts_to_the_pages_a_fetch_will_read(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pages the service says a post has (its totalPage), cut to ``max_pages``: a
    bar of 47 pages that stops at 3 said "3/47"; the same post through ``fetch`` said
    "3/3" (it went by ``max_pages`` alone)."""
    with sandbox.client(cache=False, progress=True) as c:
        c.post_comments(post_with(2345), max_pages=3)
        said = capsys.readouterr().err
        c.fetch("comments", post_with(2345), max_pages=3)
        fetched = capsys.readouterr().err
        c.fetch("comments", post_with(120))  # (3 pages, and no max_pages)
        whole = capsys.readouterr().err
    assert "3/3" in said and "/47" not in said
    assert "3/3" in fetched and "3/3" in whole


@pytest.mark.parametrize(
    ("query", "rows", "calls"),
    [
        ("running shoes", 130, 7),
        ("yoga mat", 26, 2),
        ("coffee", 40, 2),
        ("for kids", 75, 3),
        ("typewriter ribbon", 3, 1),
    ],
)
def test_ad_paging_survives_repeating_pages(
    sandbox: Sandbox, client: sf.Client, query: str, rows: int, calls: int
) -> None:
    # "running shoes" and "yoga mat" keep has_next_page true and repeat their last
    # page forever: one repeated page (no new ad_archive_id) is all it may cost.
    df = client.search_ads(query)
    assert len(df) == rows and df["ad_archive_id"].is_unique
    assert sandbox.charges == calls


@pytest.mark.parametrize(
    ("header", "sent"),
    [
        ("Authorization", "Authorization: Bearer"),
        ("authorization", "authorization: Bearer"),
        ("X-RapidAPI-Key", "X-RapidAPI-Key"),
        ("x-api-key", "x-api-key"),
    ],
)
def test_key_header_forms(sandbox: Sandbox, header: str, sent: str) -> None:
    """The key goes as a Bearer token in ``Authorization`` (whatever its casing), bare in
    any other header, under the name as given (the sandbox says how it came, never the
    key); no repr of the client shows it."""
    with sandbox.client(cache=False, auth_header=header) as c:
        c.search_ads("coffee", max_pages=1)
        assert sandbox.api_key not in repr(c)
    assert [(r.status, r.auth) for r in sandbox.requests] == [(200, sent)]


def test_progress_is_off_outside_interactive_sessions(
    sandbox: Sandbox, client: sf.Client, cache_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with sandbox.client(cache=cache_path) as c:  # progress=None
        assert len(c.post_comments(post_with(120))) == 120
    assert capsys.readouterr().err == ""


# -- what goes on the wire -------------------------------------------------------------------


def test_default_auth_is_a_bearer_token(sandbox: Sandbox, client: sf.Client) -> None:
    client.post_comments(P82, max_pages=1)
    record = sandbox.requests[0]
    assert record.auth == "Authorization: Bearer"
    assert "socialframe/" not in str(record.headers)  # names only, never values


def test_marketplace_auth_sends_the_bare_key_and_extra_headers(sandbox: Sandbox) -> None:
    with sandbox.client(
        cache=False, auth_header="X-RapidAPI-Key", headers={"X-RapidAPI-Host": "h.example"}
    ) as c:
        c.search_ads("coffee", max_pages=1)
    record = sandbox.requests[0]
    assert record.auth == "X-RapidAPI-Key"
    assert "X-RapidAPI-Host" in record.headers and "Authorization" not in record.headers


def test_auth_header_from_the_environment(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_AUTH_HEADER", "X-Api-Key")
    with sandbox.client(cache=False) as c:
        c.search_ads("coffee", max_pages=1)
    with sandbox.client(cache=False, auth_header="X-RapidAPI-Key") as c:  # explicit wins
        c.search_ads("coffee", max_pages=1)
    assert [r.auth for r in sandbox.requests] == ["X-Api-Key", "X-RapidAPI-Key"]


def test_redirects_are_not_followed(sandbox: Sandbox, tmp_path: object) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    target = sandbox.url

    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(307)
            self.send_header("Location", target + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        c = sf.Client(
            sandbox.api_key, base_url=url, auth_header="X-RapidAPI-Key", cache=tmp_path / "c.sqlite"
        )  # type: ignore[operator]
        with c, pytest.raises(sf.APIError) as info:
            c.post_comments(P82)
        assert info.value.status_code == 307 and "redirected to" in info.value.message
        assert sandbox.requests == []  # the key never travelled on to the other host
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize("key", ["sk-abc\ndef", "sk abc", "sk-äbc"])
def test_unsendable_keys_are_refused_without_echo(key: str) -> None:
    with pytest.raises(sf.ConfigError) as info:
        sf.Client(key, base_url="http://127.0.0.1:9")
    assert key not in str(info.value) and "sk" not in str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"timeout": float("nan")},
        {"timeout": float("inf")},
        {"timeout": 0},
        {"backoff": float("nan")},
        {"backoff": float("inf")},
        {"backoff": -1},
    ],
)
def test_unusable_timeouts_and_backoffs_are_refused_at_construction(
    kwargs: dict[str, float],
) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        sf.Client("k", base_url="http://127.0.0.1:9", cache=False, **kwargs)  # type: ignore[arg-type]


def test_budgets_read_back_as_given_and_the_ledger_takes_one_per_call() -> None:
    # Before this version's ledger: sf.Ledger().would_exceed(2) and .reserve(1) worked.
    ledger = sf.Ledger()
    assert ledger.would_exceed(2) is False and ledger.reserve(1) is not None
    assert ledger.would_exceed(0) is True
    with pytest.raises(TypeError, match="whole number of cents"):
        sf.Ledger(max_cost_cents=float("nan"))
    with pytest.raises(ValueError, match=">= 0"):
        sf.Ledger(max_cost_cents=-5)
    with sf.Client("k-0123456789", base_url="http://127.0.0.1:9", cache=False) as client:
        for given, shown in ((0.015, 0.015), ("1e400", math.inf), (10**400, math.inf), (2, 2.0)):
            client.max_cost = given
            assert client.max_cost == shown
            repr(client)  # never an OverflowError
        client.max_cost = None
        assert client.max_cost is None


def test_page_fetch_is_a_public_fetch_through_the_cache_budget_and_ledger(
    sandbox: Sandbox, cache_path: object
) -> None:
    """What a study's refresh walks pages with (before: only ``client._fetcher``)."""
    with sandbox.client(cache=cache_path, max_cost=0.02) as client, client.fetching():
        fetch = client.page_fetch("ads")
        first = fetch({"query": "coffee", "country": "US"})
        assert not first.from_cache and first.body["data"]["ads"]
        again = fetch({"query": "coffee", "country": "US"})  # the cache: free
        assert again.from_cache and again.body == first.body
        fresh = client.page_fetch("ads", fresh_after=client.clock.now())
        assert not fresh({"query": "coffee", "country": "US"}).from_cache  # asked again
        with pytest.raises(sf.BudgetExceededError):  # refused before sending
            fresh({"query": "tea", "country": "US"})
        with pytest.raises(ValueError, match="'comments' or 'ads'"):
            client.page_fetch("posts")  # type: ignore[arg-type]
        assert client.ledger.paid_calls == 2
    assert sandbox.charges == 2
