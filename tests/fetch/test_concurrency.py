"""Promises under real threads, over real HTTP: the budget, one payment per page.

Many threads share one client against a sandbox with a little latency (so their
calls overlap); the sandbox's own charge count is the truth.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

# 12 posts of 1-3 pages each (the examples, then ids whose totals the sandbox derives)
POSTS = [EXAMPLE_POSTS[n] for n in (1, 50, 51, 82)] + [f"73841{i:014d}" for i in range(8)]


def _run(n: int, work: Callable[[int], Any]) -> list[Any]:
    """``work(i)`` in ``n`` threads started together; their results or exceptions."""
    results: list[Any] = [None] * n
    start = threading.Barrier(n)

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # collected, checked by the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


@pytest.fixture
def slow_sandbox() -> Any:
    with Sandbox(latency=0.02, clock=PinnedClock()) as sandbox:
        yield sandbox


def test_threads_sharing_a_client_never_pass_max_cost(
    slow_sandbox: Sandbox, tmp_path: Path
) -> None:
    # Before: 8 threads with max_cost=0.05 paid 9-12 calls (check and charge not atomic).
    with slow_sandbox.client(cache=tmp_path, max_cost=0.05) as client:
        results = _run(8, lambda i: client.post_comments(POSTS[i]))
        assert client.ledger.paid_calls == slow_sandbox.charges
    assert slow_sandbox.charges == 5
    refused = [r for r in results if isinstance(r, sf.BudgetExceededError)]
    assert refused and all(isinstance(r, pd.DataFrame | sf.BudgetExceededError) for r in results)


@pytest.mark.slow
def test_threads_asking_for_the_same_pages_pay_once_each(
    slow_sandbox: Sandbox, tmp_path: Path
) -> None:
    with Sandbox(clock=PinnedClock()) as alone, alone.client(cache=tmp_path / "alone") as client:
        expected = client.post_comments(POSTS)
        pages = alone.charges
    # Before: 8 threads over 96 pages paid 341 calls.
    with slow_sandbox.client(cache=tmp_path / "shared") as client:
        results = _run(8, lambda i: client.post_comments(POSTS[i:] + POSTS[:i]))
        assert slow_sandbox.charges == pages
        assert client.ledger.paid_calls == pages
        assert client.ledger.cached_calls == 8 * pages - pages
    for frame in results:
        assert isinstance(frame, pd.DataFrame), frame
        mine = frame.sort_values(["post_urn", "page", "comment_id"]).reset_index(drop=True)
        ref = expected.sort_values(["post_urn", "page", "comment_id"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(
            mine.drop(columns="fetched_at"), ref.drop(columns="fetched_at")
        )


def test_a_held_budget_is_given_back_when_the_call_fails_or_is_cached(
    slow_sandbox: Sandbox, tmp_path: Path
) -> None:
    with slow_sandbox.client(cache=tmp_path, max_cost=0.02, max_retries=0) as client:
        client.post_comments(POSTS[0])  # 1 page, paid
        slow_sandbox.inject(503)
        with pytest.raises(sf.ServerError):
            client.post_comments(EXAMPLE_POSTS[0])  # failed: its hold is given back
        _run(4, lambda i: client.post_comments(POSTS[0]))  # cached: holds given back
        assert len(client.post_comments(EXAMPLE_POSTS[50])) == 50  # the last cent is still there
        assert client.ledger.paid_calls == 2 == slow_sandbox.charges
        with pytest.raises(sf.BudgetExceededError):
            client.post_comments(POSTS[5])


@pytest.mark.parametrize("workers", [2, 8])
@pytest.mark.slow
def test_workers_give_the_frame_of_one_worker(
    slow_sandbox: Sandbox, tmp_path: Path, workers: int
) -> None:
    queries = ["for kids", "coffee", "running shoes", "tea", "bikes"]
    with slow_sandbox.client(cache=tmp_path / "one", workers=1) as client:
        comments = client.post_comments(POSTS)
        ads = client.search_ads(queries, max_pages=2)
    with slow_sandbox.client(cache=tmp_path / "many", workers=workers) as client:
        comments_n = client.post_comments(POSTS)
        ads_n = client.search_ads(queries, max_pages=2)
        assert client.ledger.paid_calls == slow_sandbox.charges // 2
    for one, many in [(comments, comments_n), (ads, ads_n)]:
        pd.testing.assert_frame_equal(
            many.drop(columns="fetched_at"), one.drop(columns="fetched_at")
        )


def test_workers_never_pass_max_cost(slow_sandbox: Sandbox, tmp_path: Path) -> None:
    with slow_sandbox.client(cache=tmp_path, workers=8, max_cost=0.05) as client:
        with pytest.raises(sf.BudgetExceededError) as caught:
            client.post_comments(POSTS)
        assert client.ledger.paid_calls == slow_sandbox.charges == 5
    partial = caught.value.partial
    assert partial is not None and partial["page"].count() > 0
    assert partial["post"].unique().tolist() == [p for p in POSTS if p in set(partial["post"])]


PROCESS = """
import os, sys, time
import socialframe as sf
posts = sys.argv[1].split(",")
start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))  # all processes begin together
with sf.Client(os.environ["KEY"], base_url=os.environ["URL"], cache=os.environ["CACHE"],
               workers=4) as client:
    frame = client.post_comments(posts)
print(len(frame), client.ledger.paid_calls, client.ledger.cached_calls)
"""


@pytest.mark.slow
def test_processes_sharing_a_cache_pay_once_per_page(tmp_path: Path) -> None:
    # 50 posts of 82 comments: 100 pages. Before: 4 processes paid up to 323 calls.
    import os
    import subprocess
    import sys
    import time

    posts = [str(7_384_427_202_391_592_960 + 8 * k) for k in range(50)]
    with Sandbox(latency=0.03, clock=PinnedClock()) as sandbox:
        env = dict(os.environ, KEY=sandbox.api_key, URL=sandbox.url, CACHE=str(tmp_path / "c"))
        start = time.time() + 2.0
        runs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    PROCESS,
                    ",".join(posts),
                    str(start),
                ],
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)  # the same pages in the same order: every page contended
        ]
        outs = [run.communicate(timeout=120)[0].split() for run in runs]
        assert all(run.returncode == 0 for run in runs)
        assert [int(rows) for rows, _, _ in outs] == [50 * 82] * 4
        paid = sum(int(p) for _, p, _ in outs)
        assert sandbox.charges == paid == 100, outs


@pytest.mark.slow
def test_soak_faults_and_rate_limits_under_workers(tmp_path: Path) -> None:
    # In the suite, small: 40 posts (the full 200 is bench territory).
    posts = [str(7_384_427_202_391_592_960 + k) for k in range(40)]  # every comment total
    with (
        Sandbox(seed=4, clock=PinnedClock()) as calm,
        calm.client(cache=tmp_path / "calm", workers=1) as client,
    ):
        expected = client.post_comments(posts, max_pages=3)
        pages = calm.charges
    with Sandbox(seed=4, fault_rate=0.2, rate_limit=30, clock=PinnedClock()) as rough:
        with rough.client(
            cache=tmp_path / "rough", workers=8, rate_limit=25, backoff=0.02, max_retries=10
        ) as client:
            got = client.post_comments(posts, max_pages=3)
            assert client.ledger.paid_calls == rough.charges == pages
        assert any(r.status != 200 or not r.charged for r in rough.requests)  # faults happened
    pd.testing.assert_frame_equal(
        got.drop(columns="fetched_at"), expected.drop(columns="fetched_at")
    )


KILLED = """
import os, sys
import socialframe as sf
posts = sys.argv[1].split(",")
with sf.Client(os.environ["KEY"], base_url=os.environ["URL"], cache=os.environ["CACHE"],
               workers=8) as client:
    client.post_comments(posts)
"""


@pytest.mark.slow
def test_kill_9_mid_run_then_a_rerun_pays_only_for_pages_never_stored(tmp_path: Path) -> None:
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    posts = [str(7_384_427_202_391_592_960 + 8 * k) for k in range(40)]  # 80 pages
    cache = tmp_path / "c"
    with Sandbox(latency=0.05, clock=PinnedClock()) as sandbox:
        env = dict(os.environ, KEY=sandbox.api_key, URL=sandbox.url, CACHE=str(cache))
        run = subprocess.Popen([sys.executable, "-c", KILLED, ",".join(posts)], env=env)
        deadline = time.monotonic() + 60
        while sandbox.charges < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        charged_before = sandbox.charges
        assert 20 <= charged_before < 80
        with sqlite3.connect(cache / "http_cache.sqlite") as con:  # not corrupt after kill -9
            stored = con.execute("SELECT count(*) FROM responses").fetchone()[0]
        assert 0 < stored <= charged_before
        with sandbox.client(cache=cache, workers=8) as client:
            frame = client.post_comments(posts)
            assert len(frame) == 40 * 82
            assert client.ledger.paid_calls == 80 - stored
            assert client.ledger.cached_calls == stored


def test_a_budget_is_refused_only_once_it_is_spent(slow_sandbox: Sandbox, tmp_path: Path) -> None:
    """Calls in flight hold the whole budget, then fail for free: the calls waiting
    behind them go on (before: a BudgetExceededError at $0.00 spent)."""
    from socialframe.sandbox import comment_total

    one_page = [
        p for p in (str(7_384_427_202_391_592_960 + k) for k in range(200)) if comment_total(p) == 1
    ]
    posts = one_page[:12]
    slow_sandbox.inject(400, 400, 400, 400, 400)
    with (
        slow_sandbox.client(cache=tmp_path, max_cost=0.05, max_retries=0, workers=8) as client,
        pytest.raises(sf.BudgetExceededError) as info,
    ):
        client.post_comments(posts, on_error="skip")
    assert client.ledger.paid_calls == 5 == slow_sandbox.charges  # the whole budget, no more
    assert "spent $0.05" in str(info.value)
    assert info.value.partial is not None and info.value.partial["post"].nunique() == 5


@pytest.mark.slow
def test_an_interrupted_run_sends_nothing_more(tmp_path: Path) -> None:
    """Ctrl-C reaches the main thread only; workers waiting for the rate limit (or the
    budget, or a cooldown) would go on paying after it (8 more calls before)."""
    import signal

    # Ctrl-C as Python gives it at a terminal: a run started in the background (`&` in a
    # script, as CI may be) has SIGINT ignored from its start, and the signal the test
    # sends did nothing ("DID NOT RAISE KeyboardInterrupt")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupted_run(tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted_run(tmp_path: Path) -> None:
    import signal
    import time

    from socialframe.sandbox import comment_total

    big = [
        p
        for p in (str(7_384_427_202_391_592_960 + k) for k in range(96))
        if comment_total(p) == 2345
    ]
    with Sandbox(latency=0.02, clock=PinnedClock()) as sandbox:
        client = sandbox.client(cache=tmp_path, workers=8, rate_limit="2/s", progress=False)
        seen: dict[str, int] = {}

        def received(signum: int, frame: object) -> None:
            # counted when Python hands the main thread its Ctrl-C: on a loaded machine
            # that may come a rate-limited call after the signal was sent
            seen["charges"] = sandbox.charges
            raise KeyboardInterrupt

        def interrupt() -> None:
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

        signal.signal(signal.SIGINT, received)
        timer = threading.Timer(2.0, interrupt)
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            client.post_comments(big[:8])
        timer.join()
        time.sleep(0.5)  # anything still on its way would arrive now
        assert sandbox.charges <= seen["charges"] + 1  # at most the call on the wire
        assert len(client.post_comments(big[0], max_pages=1)) == 50  # the client goes on
        client.close()
