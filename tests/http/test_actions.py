"""What the cache does for one call (``_http/actions.py``): each decision, and the
decisions acted on through the public client (a real SQLite cache, an in-process
service, the ledger).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import requests

import socialframe as sf
from socialframe._http.actions import (
    FRESH_SKEW,
    CacheActions,
    SendActions,
    counts_as_fresh,
    serves,
)
from socialframe.sandbox import ManualClock

PAGE = {"success": True, "data": [], "totalPage": 1}


@pytest.mark.parametrize(
    ("cached", "fresh", "expected"),
    [
        (True, False, CacheActions(read_first=True, lock_page=True, read_again=False)),
        (True, True, CacheActions(read_first=True, lock_page=True, read_again=True)),
        (False, False, CacheActions(read_first=False, lock_page=False, read_again=False)),
        (False, True, CacheActions(read_first=False, lock_page=False, read_again=False)),
    ],
)
def test_each_call_decision(cached: bool, fresh: bool, expected: CacheActions) -> None:
    assert CacheActions.decide(cached=cached, fresh=fresh) == expected


@pytest.mark.parametrize(
    ("cached", "fresh", "held", "expected"),
    [
        # a cent held: sent (past the cache when the cache's page is too old to count)
        (True, False, True, SendActions(refuse=False, only_if_cached=False, force_refresh=False)),
        (True, True, True, SendActions(refuse=False, only_if_cached=False, force_refresh=True)),
        (False, False, True, SendActions(refuse=False, only_if_cached=False, force_refresh=False)),
        (False, True, True, SendActions(refuse=False, only_if_cached=False, force_refresh=False)),
        # no cent (no budget left, or offline): the cache only, or refused
        (True, False, False, SendActions(refuse=False, only_if_cached=True, force_refresh=False)),
        (True, True, False, SendActions(refuse=True, only_if_cached=False, force_refresh=False)),
        (False, False, False, SendActions(refuse=True, only_if_cached=False, force_refresh=False)),
        (False, True, False, SendActions(refuse=True, only_if_cached=False, force_refresh=False)),
    ],
)
def test_each_try_decision(cached: bool, fresh: bool, held: bool, expected: SendActions) -> None:
    assert SendActions.decide(cached=cached, fresh=fresh, held=held) == expected


def test_the_session_is_asked_with_requests_caches_own_options() -> None:
    assert SendActions.decide(cached=True, fresh=False, held=True).session_options() == {}
    only = SendActions.decide(cached=True, fresh=False, held=False)
    assert only.session_options() == {"only_if_cached": True}
    again = SendActions.decide(cached=True, fresh=True, held=True)
    assert again.session_options() == {"force_refresh": True}


def test_a_cached_page_counts_when_fetched_at_or_after_the_time_and_not_in_the_future() -> None:
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    after = now - timedelta(hours=1)
    assert counts_as_fresh(now - timedelta(days=400), None, now)  # no time asked: any
    assert counts_as_fresh(after, after, now)
    assert not counts_as_fresh(after - timedelta(seconds=1), after, now)
    assert counts_as_fresh(now + FRESH_SKEW, after, now)  # another clock a little ahead
    assert not counts_as_fresh(now + FRESH_SKEW + timedelta(seconds=1), after, now)


def test_a_cached_answer_serves_only_as_a_page_of_its_operation() -> None:
    assert serves("comments", 200, PAGE)
    assert not serves("comments", 200, {"data": {"ads": []}})  # an ads page
    assert not serves("comments", 404, PAGE)
    assert not serves("ads", 200, None)


def test_no_budget_left_asks_the_cache_only_and_a_page_too_old_is_refused(
    tmp_path: Path,
) -> None:
    """The decisions acted on: a page in the cache answers a client with no budget left;
    the same page, when it must be fetched anew, is refused (nothing sent)."""
    seen: list[Any] = []

    def service(request: requests.PreparedRequest) -> Any:
        seen.append(request)
        return 200, {"data": {"ads": []}}

    clock = ManualClock()
    common: dict[str, Any] = {
        "base_url": "https://api.example",
        "cache": tmp_path / "c.sqlite",
        "clock": clock,
        "transport": sf.MockTransport(service),
        "progress": False,
    }
    query = {"query": "coffee"}
    with sf.Client("key-0123456789", **common) as c, c.fetching():
        assert not c.page_fetch("ads")(query).from_cache
    with sf.Client("key-0123456789", max_cost=0, **common) as c, c.fetching():
        assert c.page_fetch("ads")(query).from_cache  # free, nothing sent
        assert (c.ledger.cached_calls, c.ledger.paid_calls, len(seen)) == (1, 0, 1)
        fresh = c.page_fetch("ads", fresh_after=clock.now() + timedelta(seconds=1))
        with pytest.raises(sf.BudgetExceededError):
            fresh(query)
    assert len(seen) == 1
