"""What the service charged for an answer, and what the ledger counts: exactly the same.

Against the sandbox, whose ``charges`` count what the service bills (a 200 success; a
failure, ``success: false`` included, is free), over real HTTP (a body cut short is
half of it on the socket) and in-process. An answer cut short is charged if what came
of it says it succeeded; a failure envelope cut short is free; one cut too short to
tell is counted paid (the budget must count it) and unsure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

import socialframe as sf
from socialframe._http.charges import charge_of_head
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, PinnedClock, Sandbox, comment_total

P82 = EXAMPLE_POSTS[82]  # two pages
BASE = 7_384_427_202_391_592_960
POSTS = [str(BASE + k) for k in (0, 4, 7, 3, 8, 16)]  # 82, 51, 120, 50, 82, 82: 13 pages


@pytest.fixture(params=["http", "in_process"])
def sandbox(request: pytest.FixtureRequest) -> Any:
    if request.param == "http":
        with Sandbox(clock=PinnedClock()) as sb:
            yield sb
    else:
        yield Sandbox(clock=ManualClock())


def _client(sb: Sandbox, cache: Path | bool, **kwargs: Any) -> sf.Client:
    kwargs.setdefault("backoff", 0.01)
    kwargs.setdefault("progress", False)
    return sb.client(in_process=isinstance(sb.clock, ManualClock), cache=cache, **kwargs)


def test_a_failure_envelope_cut_short_is_free(sandbox: Sandbox, tmp_path: Path) -> None:
    """The finding: a ``success: false`` answer cut short was counted paid, 2-3 more than
    the service charged, and took the budget with it."""
    sandbox.inject(
        ("truncated", "success_false"), ("truncated", "bad_gateway"), ("truncated", "success_false")
    )
    with _client(sandbox, tmp_path, max_retries=4, max_cost=0.02) as client:
        frame = client.post_comments(P82)  # before: BudgetExceededError at page 2
        ledger = client.ledger
    assert len(frame) == 82
    assert [(r.status, r.charged) for r in sandbox.requests[:3]] == [(200, False)] * 3
    assert (ledger.paid_calls, ledger.failed_calls, ledger.unsure_calls) == (2, 3, 0)
    assert ledger.paid_calls == sandbox.charges == 2


def test_a_page_cut_short_is_charged_and_counted_paid(sandbox: Sandbox, tmp_path: Path) -> None:
    """A success cut short was charged (the service answered it): paid, not unsure, for
    comments (``"success": true`` opens the page) and ads (a ``data`` that is not null)."""
    sandbox.inject("truncated", "truncated")
    with _client(sandbox, tmp_path, max_retries=2) as client:
        assert len(client.post_comments(P82, max_pages=1)) == 50
        assert len(client.search_ads("for kids", max_pages=1)) > 0
        ledger = client.ledger
    assert (ledger.paid_calls, ledger.unsure_calls, ledger.failed_calls) == (4, 0, 0)
    assert sandbox.charges == 4


@pytest.mark.parametrize("seed", range(6))
def test_threads_meeting_every_kind_of_answer_count_what_was_charged(
    tmp_path: Path, seed: int
) -> None:
    """Four workers, six posts, the sandbox's random 5xx and failure envelopes, and the
    first answers cut short whatever they were: the ledger is the sandbox's count."""
    with Sandbox(seed=seed, fault_rate=0.3, clock=PinnedClock()) as sandbox:
        sandbox.inject(*["truncated"] * 10, *[("truncated", "success_false")] * 3)
        with _client(sandbox, tmp_path, max_retries=8, workers=4) as client:
            frame = client.post_comments(POSTS)
            ledger = client.ledger
        cut_failures = [r for r in sandbox.requests if r.status == 200 and not r.charged]
        assert len(cut_failures) >= 3  # (the test is about them)
        assert frame.groupby("post").size().to_dict() == {p: comment_total(p) for p in POSTS}
        assert ledger.unsure_calls == 0
        assert ledger.paid_calls == sandbox.charges
        assert ledger.failed_calls == len(sandbox.requests) - sandbox.charges


@pytest.mark.parametrize("seed", range(3))
def test_the_budget_holds_under_threads_with_answers_cut_short(tmp_path: Path, seed: int) -> None:
    with Sandbox(seed=seed, fault_rate=0.3, clock=PinnedClock()) as sandbox:
        sandbox.inject(*["truncated"] * 6, *[("truncated", "success_false")] * 4)
        with _client(sandbox, tmp_path, max_retries=8, workers=4, max_cost=0.05) as client:
            with pytest.raises(sf.BudgetExceededError):
                client.post_comments(POSTS)
            assert client.ledger.paid_calls == sandbox.charges == 5  # every cent, no more


@pytest.mark.parametrize("wire", ["bad_chunk", "bad_gzip"])
def test_an_answer_cut_too_short_to_tell_is_paid_and_unsure(tmp_path: Path, wire: str) -> None:
    """A broken chunk or gzip on the wire says nothing of the body: paid for the budget
    (the service charges most 200s) and unsure, so the ledger says the bounds of what
    was charged. (In-process there is no wire: such a body is whole, and told.)"""
    with Sandbox(clock=PinnedClock()) as sandbox:
        _unsure(sandbox, tmp_path, wire)


def _unsure(sandbox: Sandbox, tmp_path: Path, wire: str) -> None:
    sandbox.inject((wire, "success_false"), wire)  # a free failure, then a charged page
    with _client(sandbox, tmp_path, max_retries=3) as client:
        assert len(client.post_comments(P82, max_pages=1)) == 50
        ledger = client.ledger
    assert (ledger.paid_calls, ledger.unsure_calls, ledger.failed_calls) == (3, 2, 0)
    assert sandbox.charges == 2  # the cut page and the whole one
    assert ledger.paid_calls - ledger.unsure_calls <= sandbox.charges <= ledger.paid_calls
    assert "of which 2 unsure: cut short or late, maybe not charged" in str(ledger)
    assert "unsure_calls=2" in repr(ledger) and ledger.as_dict()["unsure_calls"] == 2
    # And the budget counts it: with a cent, the unsure answer is the cent.
    sandbox.inject((wire, "success_false"))
    with _client(sandbox, False, max_retries=3, max_cost=0.01) as client:
        sent = len(sandbox.requests)
        with pytest.raises(sf.BudgetExceededError):
            client.post_comments(EXAMPLE_POSTS[1])
        assert len(sandbox.requests) == sent + 1 and client.ledger.unsure_calls == 1


def _bodies() -> dict[str, list[bytes]]:
    """Whole bodies the sandbox sends, by what the service charged for them."""
    with Sandbox(clock=PinnedClock()) as sb, requests.Session() as s:
        s.headers["Authorization"] = f"Bearer {sb.api_key}"
        comments = (f"{sb.url}/get-profile-posts-comments", {"urn": P82, "sort": "mostRecent"})
        ads = (f"{sb.url}/fetch_search_ads_pages", {"query": "for kids"})
        charged = [s.get(url, params=params).content for url, params in (comments, ads)]
        free = []
        for fault in ("success_false", "bad_gateway", 502, 503):
            for url, params in (comments, ads):
                sb.inject(fault)
                answer = s.get(url, params=params)
                free.append((answer.status_code, answer.content))
        assert sb.charges == 2
    return {"charged": charged, "free": [body for status, body in free if status == 200]}


def test_every_cut_of_a_body_tells_the_truth_or_nothing() -> None:
    """Cut at every byte: a page is never taken for free, an envelope never for
    charged, and each is known once the cut passes what tells it."""
    bodies = _bodies()
    for body in bodies["charged"]:
        verdicts = [charge_of_head(200, body[:n]) for n in range(len(body) + 1)]
        assert False not in verdicts and verdicts[-1] is True
        assert verdicts.index(True) < 40  # `{"success": true` / `{"data": {` open it
    for body in bodies["free"]:
        verdicts = [charge_of_head(200, body[:n]) for n in range(len(body) + 1)]
        assert True not in verdicts and verdicts[-1] is False
        assert verdicts.index(False) <= len(b'{"success": false')
        assert json.loads(body)["success"] is False
    assert charge_of_head(503, b"") is False and charge_of_head(200, b"") is None
    assert charge_of_head(200, b"[1, 2") is True  # no object: charged, as a whole one is
