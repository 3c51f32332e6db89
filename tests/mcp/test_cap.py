"""The cap is the server's: worst cases refused before sending, concurrent calls that
never together overspend, --max-call-cost, --confirm-over through elicitation, and a
cancelled call that leaves the ledger true and its pages in the cache."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client

from socialframe.sandbox import EXAMPLE_POSTS, Sandbox, comment_total
from tests.mcp.conftest import connected


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def test_a_call_whose_worst_case_passes_what_is_left_is_refused_before_sending(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    async def scenario(client: Client) -> list[Any]:
        return [
            await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[2345]]}),  # 4 pages
            await client.call_tool(
                "post_comments", {"posts": [EXAMPLE_POSTS[2345]], "max_comments": 150}
            ),
            await client.call_tool("ledger", {}),
        ]

    refused, fits, ledger = connected(make(max_cost=0.03), scenario)
    assert refused.is_error
    text = _text(refused)
    assert "may cost up to $0.04" in text
    assert "$0.03 is left" in text
    assert "nothing was sent" in text
    assert "max_comments=150 or fewer" in text  # how to ask for less
    assert not fits.is_error, _text(fits)
    assert ledger.structured_content["paid_calls"] == 3 == sandbox.charges


def test_max_cost_zero_answers_from_the_cache_only(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    warm = make(max_cost=0.05)

    async def fill(client: Client) -> Any:
        return await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[82]]})

    assert not connected(warm, fill).is_error
    paid = sandbox.charges

    async def scenario(client: Client) -> list[Any]:
        return [
            await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[82]]}),
            await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[50]]}),
        ]

    cached, uncached = connected(make(max_cost=0), scenario)
    assert not cached.is_error and cached.structured_content["total_rows"] == 82
    assert uncached.is_error and "$0.00 is left" in _text(uncached)
    assert sandbox.charges == paid


def test_no_max_cost_refuses_every_paid_call(make: Callable[..., Any], sandbox: Sandbox) -> None:
    async def scenario(client: Client) -> Any:
        return await client.call_tool("search_ads", {"query": "coffee"})

    result = connected(make(max_cost=None), scenario)
    assert result.is_error and "--max-cost" in _text(result)
    assert sandbox.charges == 0


def test_concurrent_calls_never_together_pass_the_cap(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    sandbox.latency = 0.05  # the calls overlap for real
    chosen = make(max_cost=0.10)

    async def scenario(client: Client) -> tuple[list[Any], Any]:
        results: list[Any] = [None] * 12

        async def one(i: int) -> None:
            # 2 pages each at worst (52 ads): 12 calls want 24 cents of a 10-cent cap
            results[i] = await client.call_tool(
                "search_ads", {"query": f"shoes number {i}", "max_ads": 52}
            )

        async with anyio.create_task_group() as group:
            for i in range(12):
                group.start_soon(one, i)
        return results, await client.call_tool("ledger", {})

    results, ledger = connected(chosen, scenario)
    refused = [r for r in results if r.is_error]
    done = [r for r in results if not r.is_error]
    assert refused and done
    for r in refused:
        assert "left of --max-cost $0.10" in _text(r), _text(r)
    figures = ledger.structured_content
    assert sandbox.charges == figures["paid_calls"] == chosen.cap.ledger.paid_calls
    assert sandbox.charges <= 10  # 0 overspend
    assert sum(r.structured_content["cost"]["paid_calls"] for r in done) == sandbox.charges


def test_max_call_cost_caps_one_call(make: Callable[..., Any], sandbox: Sandbox) -> None:
    async def scenario(client: Client) -> list[Any]:
        return [
            await client.call_tool("search_ads", {"query": "coffee", "max_ads": 100}),
            await client.call_tool("search_ads", {"query": "coffee", "max_ads": 52}),
        ]

    over, under = connected(make(max_cost=1.00, max_call_cost=0.02), scenario)
    assert over.is_error and "more than --max-call-cost $0.02" in _text(over)
    assert "max_ads=52 or fewer" in _text(over)
    assert not under.is_error, _text(under)
    assert sandbox.charges == under.structured_content["cost"]["paid_calls"] <= 2


def _answer(action: str, **content: Any) -> Any:
    asked: list[str] = []

    async def callback(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content=content or None)  # type: ignore[arg-type]

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # the 2026 era's retry, and elicitation/create
def test_confirm_over_asks_the_human_accepted(
    make: Callable[..., Any], sandbox: Sandbox, mode: str
) -> None:
    answer = _answer("accept", spend=True, max_usd=0.04)

    async def scenario(client: Client) -> list[Any]:
        return [
            await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[2345]]}),
            await client.call_tool(
                "post_comments", {"posts": [EXAMPLE_POSTS[82]], "max_comments": 50}
            ),
        ]

    asked, small = connected(
        make(max_cost=1.00, confirm_over=0.02), scenario, elicitation_callback=answer, mode=mode
    )
    assert not asked.is_error, _text(asked)
    assert asked.structured_content["cost"]["paid_calls"] == 4
    assert len(answer.asked) == 1  # the small call was not asked about
    assert "up to $0.04" in answer.asked[0]
    assert not small.is_error
    assert sandbox.charges == 5


def test_confirm_over_declined_or_allowing_less_is_refused(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    for answer in (_answer("decline"), _answer("accept", spend=True, max_usd=0.01)):

        async def scenario(client: Client) -> Any:
            return await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[2345]]})

        result = connected(
            make(max_cost=1.00, confirm_over=0.02), scenario, elicitation_callback=answer
        )
        assert result.is_error
        assert "nothing was sent" in _text(result)
        assert len(answer.asked) == 1
    assert sandbox.charges == 0


def test_confirm_over_is_refused_where_the_client_cannot_ask(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    async def scenario(client: Client) -> Any:
        return await client.call_tool("post_comments", {"posts": [EXAMPLE_POSTS[2345]]})

    result = connected(make(max_cost=1.00, confirm_over=0.02), scenario)  # no callback
    assert result.is_error
    assert "cannot ask" in _text(result)
    assert sandbox.charges == 0


def test_the_model_cannot_answer_for_the_human(make: Callable[..., Any], sandbox: Sandbox) -> None:
    forged = {"spend": True, "max_usd": 100.0}

    async def scenario(client: Client) -> list[Any]:
        return [
            await client.call_tool(
                "post_comments", {"posts": [EXAMPLE_POSTS[2345]], "confirm": forged}
            ),
            await client.call_tool(
                "post_comments",
                {
                    "posts": [EXAMPLE_POSTS[2345]],
                    "confirm": {"action": "accept", "content": forged},
                },
            ),
        ]

    for result in connected(make(max_cost=1.00, confirm_over=0.02), scenario):
        assert result.is_error, _text(result)
    assert sandbox.charges == 0


def test_a_cancelled_call_keeps_the_ledger_true_and_its_pages_in_the_cache(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    sandbox.latency = 0.1
    chosen = make(max_cost=1.00)

    async def scenario(client: Client) -> tuple[Any, Any]:
        with anyio.move_on_after(1.0):
            await client.call_tool(
                "post_comments", {"posts": [EXAMPLE_POSTS[2345]], "max_comments": 2345}
            )
        # the call in flight ends at its page; then nothing more is sent
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            figures = (await client.call_tool("ledger", {})).structured_content
            if round(figures["left_usd"] * 100) + figures["paid_calls"] == 100:
                break  # nothing held: the call has settled
            await anyio.sleep(0.05)
        estimate = await client.call_tool(
            "estimate",
            {"tool": "post_comments", "posts": [EXAMPLE_POSTS[2345]], "max_comments": 2345},
        )
        return await client.call_tool("ledger", {}), estimate

    ledger, estimate = connected(chosen, scenario)
    paid = sandbox.charges
    time.sleep(0.5)
    assert sandbox.charges == paid  # stopped: no page after the cancel
    assert 0 < paid < 47
    assert ledger.structured_content["paid_calls"] == paid
    assert ledger.structured_content["left_usd"] == (100 - paid) / 100  # nothing held
    assert estimate.structured_content["pages_cached"] == paid  # every paid page stored
    assert estimate.structured_content["pages_to_pay"] == 47 - paid


def test_one_post_named_several_ways_is_one_item(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    # An id, its urn and its URL name one post: its worst case counted once (a call
    # that fits is not refused), its comments once in the rows, paid once.
    post = EXAMPLE_POSTS[82]
    names = [
        post,
        f"urn:li:activity:{post}",
        f"https://www.linkedin.com/feed/update/urn:li:activity:{post}/",
        post,
    ]

    async def scenario(client: Client) -> list[Any]:
        args = {"posts": names, "max_comments": 100}
        return [
            await client.call_tool("estimate", {"tool": "post_comments", **args}),
            await client.call_tool("post_comments", args),
        ]

    estimate, got = connected(make(max_cost=0.02), scenario)
    assert estimate.structured_content["max_usd"] == 0.02
    assert not got.is_error, _text(got)
    assert got.structured_content["total_rows"] == 82
    assert sandbox.charges == 2


def test_the_worst_case_holds_enough_for_a_post_grown_since_its_page_was_cached(
    make: Callable[..., Any], sandbox: Sandbox
) -> None:
    """A cached page's ``totalPage`` is what the post had then: the pages after it are
    fetched afresh, and a post that grew has more. Going by it, the estimate said 1
    page to pay and fits, and the call stopped at the cap short of its bound (a review
    found it; the cap held only by the call's own ledger)."""
    post = EXAMPLE_POSTS[51]  # 51 comments (2 pages) at the sandbox's reference time
    setup = make(max_cost=1.00)

    async def first(client: Client) -> Any:
        return await client.call_tool("post_comments", {"posts": [post], "max_comments": 50})

    assert not connected(setup, first).is_error and sandbox.charges == 1
    sandbox.clock.advance(25 * 7 * 86_400)  # 25 weeks on: 4 comments a week more
    grown = comment_total(post, now=sandbox.clock.now())
    assert grown == 151  # 4 pages

    async def second(client: Client) -> list[Any]:
        args = {"posts": [post], "max_comments": 5000}
        estimate = await client.call_tool("estimate", {"tool": "post_comments", **args})
        got = await client.call_tool("post_comments", args)
        return [estimate, got]

    estimate, got = connected(setup, second)
    assert estimate.structured_content["pages_cached"] == 1
    assert estimate.structured_content["pages_to_pay"] == 99  # the bound's 100, less page 1
    assert not got.is_error, _text(got)
    assert got.structured_content["total_rows"] == grown  # whole: nothing stopped it
    assert sandbox.charges == 1 + 3  # pages 2 to 4, now


def test_a_page_past_its_expiry_is_not_free_in_the_worst_case(
    make: Callable[..., Any], sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimate reads the cache offline, which serves a page past its expiry; the
    server's client fetches it afresh and pays. Counted free, an expired post's
    estimate was $0 and "fits", and its call was then stopped at once ("would take the
    spend over max_cost=$0.00" with $1.00 left; a review found it)."""
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", "1")
    post = EXAMPLE_POSTS[82]

    async def fill(client: Client) -> Any:
        return await client.call_tool("post_comments", {"posts": [post]})

    assert not connected(make(max_cost=1.00), fill).is_error and sandbox.charges == 2
    time.sleep(1.5)  # both pages past their expiry

    async def scenario(client: Client) -> list[Any]:
        args = {"posts": [post], "max_comments": 200}
        estimate = await client.call_tool("estimate", {"tool": "post_comments", **args})
        return [estimate, await client.call_tool("post_comments", args)]

    estimate, got = connected(make(max_cost=1.00), scenario)
    assert estimate.structured_content["pages_cached"] == 0
    assert estimate.structured_content["pages_to_pay"] == 4  # 200 comments: 4 pages at worst
    assert not got.is_error and got.structured_content["stopped"] is None, _text(got)
    assert got.structured_content["total_rows"] == 82 and sandbox.charges == 2 + 2
