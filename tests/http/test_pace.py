"""The client's pace, over real HTTP: its rate limit and the one cooldown after a 429.

Shared by all workers of a client; only requests that go out wait (cache hits do not).
How a rate limit reads (``"300/min"``, ``2.5``, ...): the examples of
``socialframe._checks.parse_rate``, run as doctests.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import socialframe as sf
from socialframe.sandbox import PinnedClock, Sandbox

# single-page posts (1 comment: int(id) % 8 == 2 in the sandbox)
POSTS = [str(7_384_427_202_391_592_960 + 2 + 8 * k) for k in range(16)]


@pytest.mark.parametrize(
    "bad",
    [0, -1, float("nan"), float("inf"), "fast", "5/fortnight", "0/s", "5/0s", "5/ms", True],
)
def test_bad_rate_limits_are_refused_before_any_call(bad: object) -> None:
    with pytest.raises((ValueError, TypeError), match="rate_limit"):
        sf.Client("k", base_url="http://127.0.0.1:9", cache=False, rate_limit=bad)  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_client_rate_limit_keeps_workers_under_the_service_limit(tmp_path: Path) -> None:
    # 8 workers would send 16 at once; a client limit of 4 a second (up to 4 at once)
    # keeps them under a service allowing 6 in any second. The margin of 2 is for arrival
    # jitter on a busy machine: a second's 4 sent late and the next's sent on time met
    # a service allowing 4 (a 429 under pytest -n at a load of 17).
    with Sandbox(rate_limit=6, clock=PinnedClock()) as sandbox:
        with sandbox.client(cache=tmp_path, workers=8, rate_limit=4) as client:
            frame = client.post_comments(POSTS)
        statuses = [r.status for r in sandbox.requests]
        assert len(frame) == 16 and statuses.count(429) == 0 and statuses.count(200) == 16
        # cache hits never wait: "1/hour" would block the second page for an hour
        done = threading.Event()
        with sandbox.client(cache=tmp_path, workers=8, rate_limit="1/hour") as client:
            worker = threading.Thread(target=lambda: (client.post_comments(POSTS), done.set()))
            worker.start()
            worker.join(timeout=60)
        assert done.is_set() and len(sandbox.requests) == 16


@pytest.mark.slow
def test_a_429_pauses_every_worker_once(tmp_path: Path) -> None:
    # Before: the other workers kept sending while one waited out its Retry-After.
    latency = 0.2
    with Sandbox(latency=latency, clock=PinnedClock()) as sandbox:
        sandbox.inject(429)  # Retry-After: 1
        with sandbox.client(cache=tmp_path, workers=4, backoff=0.01) as client:
            assert len(client.post_comments(POSTS[:12])) == 12
        records = sandbox.requests
    (limited,) = [r for r in records if r.status == 429]
    answered = limited.at + latency  # when the client learnt of it, on a quiet machine
    # (0.4 s of slack: under a loaded run the answer reaches the client later, and a worker
    # may send once before it learns; workers not paused send every 0.2 s, so the 0.5 s
    # after it still holds two or three of each)
    quiet = [r.at for r in records if answered + 0.4 < r.at < answered + 0.9]
    assert quiet == [], [round(at - answered, 2) for at in quiet]
    assert sum(r.status == 200 for r in records) == 12
