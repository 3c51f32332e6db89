"""The main job, run as a user runs it: twice, the second time for free."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out


def run_demo(tmp_path: Path) -> str:
    env = dict(os.environ, SOCIALFRAME_CACHE_DIR=str(tmp_path / "cache"), MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "demo", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_twice_second_run_pays_nothing(tmp_path: Path) -> None:
    first = run_demo(tmp_path)
    assert "2,345 comments (485 replies)" in first and "60 ads" in first
    assert "authors: 1,011 distinct;" in first  # keyed by id, as df.social.authors()
    assert "2,529 comments on 5 of the 6 posts (1 without comments)" in first
    assert "24 authors commented on 2 or more of them" in first
    assert "share of the ads running in 2026-01: Bloom & Co 23.7%, RunRight 15.8%," in first
    paid = int(re.search(r"ledger:\s+paid (\d+) call", first).group(1))  # type: ignore[union-attr]
    # comment pages of the six example posts (0, 1, 50, 51, 82, 2,345 comments), then ads
    assert paid == (1 + 1 + 1 + 2 + 2 + 47) + 3
    assert f"sandbox: {paid} paid calls served" in first
    second = run_demo(tmp_path)
    assert "ledger:  paid 0 calls ($0.00) · cached 57 ($0.57 saved)" in second
    assert "sandbox: 0 paid calls served" in second
    names = ["comment-activity.png", "comment-overlap.png", "share-of-voice.png"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == names
    for name in names:
        chart = tmp_path / "out" / name
        assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 10_000
        assert str(chart) in first
